//! The role-play engine and the `generate` pipeline.
//!
//! - [`library`]: reads `scenarios/` and `templates/` into a validated [`Library`].
//! - [`director`]: casts a planned dialogue (owner, preset, role, goal, event) from its seed.
//! - [`engine`]: the turn loop between a caller agent and an assistant agent.
//! - [`backend`]: who speaks — the embedded offline simulator ([`SimBackend`]) or an LLM.
//! - [`generate`]: plan → role-play → check → write, streaming and resumable.
//! - [`plan`]: `plan.*` findings for LLM-played dialogues that do not play their plan.
//! - [`judge_eval`]: the second opinion measured on labelled sets (`second-opinion-eval`).
#![deny(missing_docs)]

pub mod backend;
pub mod dedup;
pub mod director;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod generate;
pub mod grow;
pub mod judge;
pub mod judge_eval;
pub mod library;
pub mod lint;
pub mod plan;

pub use backend::{Backend, LlmBackend, Played, SimBackend};
pub use director::{Director, Setup};
pub use error::{Error, Result};
pub use generate::{Event, GenerateConfig, ShardStats, Summary, generate, generate_judged};
pub use library::{
    Fingerprints, Library, LibraryFile, LibraryOverlay, LibraryPaths, LibrarySources, Source,
};
