//! Every LLM-played part of CallBench, on one structured-reply agent.
//!
//! - [`agent`]: the agent — a conversation and a JSON schema out (schemas with dialogue-dependent
//!   enums built once per shape, [`schema_once`]), a tolerant parse back, a re-ask policy
//!   ([`ReAsk`]), usage per reply. Requests go through `llm-client` (limits, retries, cache).
//! - [`prompts`]: `generate`'s prompts (`templates/prompts/*.tera`, scenario overrides), tera.
//! - [`caller`], [`assistant`]: the LLM caller and assistant `generate` plays against each
//!   other, with the salvage of metadata ([`Repair`]) it records.
//! - [`judge`]: `generate`'s judge reply, and `evaluate`'s `llm` judge ([`TurnJudge`]).
//! - [`method`]: methods as data — `methods/<name>.toml` and tera prompts, loaded and checked
//!   by [`load_methods`], played by [`LlmMethod`] as a `callbench_model::Method`.
//!
//! The offline agents (`caller-agent`, `assistant-agent`) are not here and have no network
//! dependency; this crate is where the model-played counterparts live.
#![deny(missing_docs)]

pub mod agent;
pub mod assistant;
pub mod caller;
pub mod error;
pub mod judge;
pub mod method;
pub mod prompts;
#[cfg(test)]
mod testing;

pub use agent::{Agent, ReAsk, schema_once, transcript};
pub use assistant::{
    LlmAssistant, Repair, assistant_reply_schema, normalize_action, parse_assistant_reply,
};
pub use caller::{LlmCaller, caller_reply_schema, parse_caller_reply};
pub use error::{Error, Result};
pub use judge::{
    JudgeContext, JudgedTurn, TurnJudge, Unjudged, UnjudgedKind, generate_judge_schema,
    parse_judge_reply, parse_question_reply, question_schema,
};
pub use method::{LlmMethod, MethodSet, MethodSpec, RESERVED, StepKind, load_methods};
pub use prompts::{PromptKind, Prompts};
