//! Integration tests of the corpus crate: one binary, one module per area, shared dialogues in
//! `support`.

mod batch;
mod jsonl;
mod ledger;
mod manifest;
mod shard;
mod support;
