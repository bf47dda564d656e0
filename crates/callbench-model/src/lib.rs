//! The CallBench domain model: the words of the contract, the dialogue, the scenario library as
//! data, synthetic owners and the plan. This crate does no IO: callers hand it text and get
//! values or errors that name the file and key at fault.
//!
//! - [`concepts`]: word lists the offline agents and the checker share (scam requests, pressure).
//! - [`vocab`]: preset cases, relations, speakers, decision labels, violation kinds.
//! - [`dialogue`]: [`Dialogue`] as the interchange format and the corpus hold it.
//! - [`scenario`]: the schema of `scenarios/*.toml`, validation, feasible castings per cell.
//! - [`owner`]: synthetic owner profiles drawn from the library's pools.
//! - [`method`]: the seam between `evaluate` and the assistant methods it scores.
//! - [`split`]: the train / validation / test split, from the seed and the id.
//! - [`plan`]: `(seed, count, distribution)` → cells, ids and sub-seeds.
//!
//! ```
//! use callbench_model::{Relation, PresetCase};
//! assert_eq!("conflict".parse::<Relation>().unwrap(), Relation::Conflict);
//! assert_eq!(PresetCase::None.relations(), &[Relation::None]);
//! ```
#![deny(missing_docs)]

pub mod agent;
pub mod concepts;
pub mod dialogue;
pub mod error;
pub mod method;
pub mod owner;
pub mod plan;
pub mod scenario;
pub mod split;
pub mod vocab;

pub use agent::{AgentError, AssistantAgent, AssistantReply, CallerAgent, CallerReply};
pub use dialogue::{
    Caller, Dialogue, GenInfo, JUDGE_DIMENSIONS, JudgeScores, JudgeTurn, Owner, Preset, QcResult,
    Turn, Violation,
};
pub use error::{ModelError, Result};
pub use method::{CallView, Method, MethodReply, MethodUsage, TraceStep};
pub use plan::{Allocation, Cell, Distribution, Plan, PlannedDialogue};
pub use scenario::{Casting, PresetRef, Scenario, ScenarioSet};
pub use split::SplitRatios;
pub use vocab::{Action, PresetCase, PresetKind, Relation, Speaker, Split, UnknownWord};
