//! Integration tests of the mock OpenAI server, over real loopback HTTP.

mod binary;
mod faults;
mod modes;
mod replies;
mod server;
mod support;
