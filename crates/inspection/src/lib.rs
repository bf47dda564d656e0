//! Manual inspection of a CallBench corpus: the paper inspects 10 % of the corpus by hand and
//! checks its automatic judges against the auditors. This crate draws that sample, keeps the
//! auditors' verdicts so that none is ever lost, and turns them into numbers. It does file IO
//! only under `DIR/inspection/` (and reads the corpus); it knows nothing of HTTP — the review
//! server is built on [`VerdictStore`] elsewhere — and nothing of Parquet, which it leaves to the
//! `corpus` crate.
//!
//! ```text
//! DIR/inspection/sample.json      SampleSummary: rate, seed, strata with counts, ids in review order
//! DIR/inspection/sample.parquet   the sampled dialogues, in the shard schema
//! DIR/inspection/sample.jsonl     the same in the interchange format
//! DIR/inspection/sample.html      printable, self-contained transcripts
//! DIR/inspection/verdicts.jsonl   the auditors' verdicts, append-only, one line each
//! DIR/inspection/audit.md|.html   the agreement report
//! ```
//!
//! A tour:
//!
//! - [`draw_sample`] with a [`SampleConfig`]: stratified by scenario × preset case × relation
//!   ([`Stratum`]), each stratum's share by [`allocate`] (at least one dialogue), chosen by a
//!   keyed hash of `(seed, id)` ([`rank`]) so the draw is the same for a seed however the corpus
//!   is sharded. Beside the corpus it samples the checker's rejects (see [`sample`] for why).
//!   It holds the ids and at most [`SAMPLE_CHUNK`] sampled dialogues at a time, so memory is
//!   bounded whatever the size of the corpus ([`draw_sample_in_chunks`] takes another chunk).
//! - [`VerdictStore`]: [`VerdictStore::append`] validates a [`Verdict`] and writes it as one
//!   fsynced line before returning; [`VerdictStore::open`] reloads every verdict after a crash,
//!   cutting a torn last line. [`latest`] keeps each auditor's last word per dialogue.
//! - [`stats`]: Wilson interval, Cohen's κ, Kendall τ_b, precision and recall per finding kind,
//!   agreement of two raters — plain functions.
//! - [`audit()`]: the [`AuditReport`] per stratum and overall, rendered by [`to_markdown`] and
//!   [`to_html`].
//! - [`InspectionError`]: every error names the file (and line), or the verdict and key at fault.
//!
//! Every generated string that reaches a page — turns, names, facts, auditors' notes — is
//! HTML-escaped ([`escape`]): model output is untrusted.
//!
//! ```no_run
//! use inspection::{Decision, SampleConfig, Verdict, VerdictStore, audit, draw_sample, to_markdown};
//! use std::path::Path;
//!
//! let dir = Path::new("out");
//! let sample = draw_sample(dir, &SampleConfig { seed: 7, ..SampleConfig::default() })?;
//! let store = VerdictStore::open(dir)?;
//! store.append(&Verdict {
//!     auditor: "li.wei".into(),
//!     id: sample.ids[0].clone(),
//!     verdict: Decision::Accept,
//!     findings: vec![],
//!     ratings: Default::default(),
//!     note: String::new(),
//!     at: String::new(), // stamped with the current time
//! })?;
//! print!("{}", to_markdown(&audit(dir)?));
//! # Ok::<(), inspection::InspectionError>(())
//! ```
#![deny(missing_docs)]

pub mod assign;
pub mod audit;
pub mod error;
pub mod files;
mod html;
pub mod sample;
pub mod stats;
pub mod verdict;

pub use assign::{
    ASSIGNMENTS_JSON, Assignments, assignments_path, plan as plan_assignments, read_assignments,
    write_assignments,
};
pub use audit::{
    AuditReport, AuditorPair, DimensionTau, StratumReport, audit, build_report, to_html,
    to_markdown, write_report,
};
pub use error::{InspectionError, Result};
pub use files::{inspection_dir, now_rfc3339};
pub use html::escape;
pub use sample::{
    Origin, SAMPLE_CHUNK, SampleConfig, SampleEntry, SampleSummary, Stratum, StratumSample,
    allocate, draw_sample, draw_sample_in_chunks, rank, read_sample, read_sample_dialogues,
    write_sample,
};
pub use verdict::{
    Decision, Finding, MAX_AUDITOR_CHARS, Verdict, VerdictStore, latest, load_verdicts,
    verdicts_path,
};
