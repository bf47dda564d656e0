//! Integration tests of the inspection crate: one binary, a module per feature.

mod audit;
mod chunks;
mod html;
mod sampler;
mod stats;
mod support;
mod verdicts;
