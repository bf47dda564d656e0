//! The CallBench corpus on disk. This is the only crate that knows Arrow and Parquet; it does
//! file IO and nothing else (no network, no generation).
//!
//! An output directory looks like this (CONTRACT.md, "Corpus layout"):
//!
//! ```text
//! OUT/ledger.jsonl                 resume ledger: the run header, then one line per finished shard
//! OUT/manifest.json                Manifest: counts per cell, shards with rows and sha256, config, usage
//! OUT/shards/part-00000.parquet    the accepted dialogues, zstd-compressed Parquet
//! OUT/rejects/part-00000.jsonl     the dialogues the checker rejected, with their violations
//! ```
//!
//! A tour of the types:
//!
//! - [`dialogues_to_batch`] / [`batch_to_dialogues`]: [`Dialogue`]s to an Arrow
//!   [`RecordBatch`](arrow::record_batch::RecordBatch) of the shard [`schema`] and back, exactly.
//!   The columns are `id`, `scenario`, `preset_case`, `relation`, `split`, `owner`, `caller`, `turns`,
//!   `n_turns`, `qc`, `gen` and `judge` (the LLM judge's turn-level scores, null when the judge
//!   did not run), in plain Arrow types that pyarrow, DuckDB and polars read as is. Shards written
//!   before a nullable column existed still read, with `None` for it.
//! - [`write_shard`] with a [`ShardWriterConfig`] writes one shard atomically and returns its
//!   [`ShardInfo`] (rows, bytes, sha256, first and last id); [`read_shard`] and [`ShardReader`]
//!   read it back; [`write_rejects`] writes the rejected dialogues beside it.
//!   [`ShardStreamWriter`] writes a Parquet file of the same schema chunk by chunk, for files
//!   too large to hold in memory (the inspection sample), atomically as well.
//! - [`AtomicFile`] and [`write_atomic`]: the write-aside-then-rename every file here goes
//!   through, public for the crates that write beside the corpus.
//! - [`read_jsonl`] / [`JsonlReader`] and [`JsonlWriter`]: the JSONL interchange format. The
//!   reader reports a bad line with its number and goes on.
//! - [`Ledger`]: the append-only resume ledger. [`Ledger::open`] says which shards are already
//!   done (and still intact), refuses a directory that holds another run, and survives a crash
//!   mid-append.
//! - [`Manifest`], [`write_manifest`], [`read_manifest`]: the corpus summary.
//! - [`DiversityCounter`] / [`Diversity`]: structural-diversity figures (decision sequences per
//!   cell, where the first convey falls, repeated assistant turns, sentence skeletons), shared by
//!   `generate`'s manifest and `release`.
//! - [`EvalTurn`] and [`write_eval_turns`]: `RUN/turns.parquet` of `callbench evaluate`.
//! - [`CorpusError`]: every error names the file, and the line, row or column at fault.
//!
//! Every file is written atomically (temp file beside it, fsync, rename, fsync the folder), so
//! an interrupted run leaves whole files or none.
//!
//! ```
//! use callbench_model::{Caller, Dialogue, Owner, PresetCase, Relation, Speaker, Turn};
//! use corpus::{read_shard, write_shard, ShardWriterConfig};
//!
//! let dialogue = Dialogue {
//!     id: "life-000000".into(),
//!     scenario: "life".into(),
//!     preset_case: PresetCase::None,
//!     relation: Relation::None,
//!     owner: Owner { name: "王小明".into(), ..Owner::default() },
//!     caller: Caller { role: "邻居".into(), goal: "借梯子".into(), ..Caller::default() },
//!     turns: vec![Turn { speaker: Speaker::Caller, text: "喂，你好".into(), action: None, preset_id: None }],
//!     split: None,
//!     qc: None,
//!     r#gen: None,
//!     judge: None,
//! };
//! let out = tempfile::tempdir().unwrap();
//! let info = write_shard(out.path(), 0, &[dialogue.clone()], &ShardWriterConfig::default()).unwrap();
//! assert_eq!(info.file, "shards/part-00000.parquet");
//! assert_eq!(read_shard(&out.path().join(&info.file)).unwrap(), vec![dialogue]);
//! ```
#![deny(missing_docs)]

pub mod atomic;
pub mod batch;
pub mod diversity;
pub mod error;
pub mod evalturns;
pub mod jsonl;
pub mod ledger;
pub mod manifest;
pub mod shard;

pub use atomic::{AtomicFile, sync_dir, write_atomic};
pub use batch::{
    COLUMNS, DialogueKey, KEY_COLUMNS, batch_to_dialogues, batch_to_keys, dialogues_to_batch,
    schema,
};
pub use callbench_model::Dialogue;
pub use diversity::{Diversity, DiversityCounter};
pub use error::{CorpusError, Result};
pub use evalturns::{
    EvalFinding, EvalTrace, EvalTurn, eval_turns_schema, eval_turns_to_batch, write_eval_turns,
};
pub use jsonl::{JsonlReader, JsonlWriter, read_jsonl};
pub use ledger::{History, LEDGER_FILE, Ledger, RunHeader};
pub use manifest::{
    CellCount, MANIFEST_FILE, MANIFEST_FORMAT_VERSION, Manifest, RunReport, StepRecord, Totals,
    add_usage, manifest_path, now_rfc3339, read_manifest, write_manifest,
};
pub use shard::{
    KeyReader, REJECTS_DIR, SHARDS_DIR, ShardInfo, ShardReader, ShardStreamWriter,
    ShardWriterConfig, StreamedShard, read_shard, rejects_file, sha256_file, shard_file,
    verify_shard, write_rejects, write_shard,
};
