//! The seam between the benchmark harness (`callbench evaluate`) and the assistant methods it
//! scores. A method sees what a deployed assistant would see — the owner's presets and public
//! facts, the safety rules, the call so far — never the owner's private facts, and answers with
//! the next utterance. Hidden reasoning and tool traces travel beside the utterance so that the
//! results can keep them; only `text` (and the optional decision) reaches the caller.
//!
//! The offline reference assistant and every LLM method (`methods/*.toml`) implement
//! [`Method`]; the harness does not know which one speaks.

use crate::agent::AgentError;
use crate::dialogue::{Preset, Turn};
use crate::vocab::Action;
use std::collections::BTreeMap;
use std::future::Future;

/// What a method is given at one assistant turn.
#[derive(Debug, Clone, Copy)]
pub struct CallView<'a> {
    /// The dialogue's id (methods may seed from it; the reference assistant does).
    pub dialogue_id: &'a str,
    /// The scenario's id, e.g. `delivery` (a ChatSOP-style method picks its graph by it).
    pub scenario: &'a str,
    /// The owner's name as the assistant may say it.
    pub owner_name: &'a str,
    /// Facts about the owner the assistant may share.
    pub public: &'a BTreeMap<String, String>,
    /// The owner's presets, in the order the owner gave them.
    pub presets: &'a [Preset],
    /// The safety rules of a proxy, one per line, as the harness words them for every method.
    pub rules: &'a str,
    /// The call so far; the last turn is the caller's.
    pub turns: &'a [Turn],
}

/// One step of a method's hidden work: a thought, a tool call and what it returned, a belief
/// state. Kept in the results, never shown to the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceStep {
    /// `thought`, `tool`, `observation`, `state`, `sop_node`, …
    pub kind: String,
    /// What the step said or returned.
    pub text: String,
}

/// Tokens, requests and time spent on one reply.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct MethodUsage {
    /// Model requests made (0 for the offline reference).
    pub requests: u32,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Wall time of the reply in milliseconds, including retries.
    pub latency_ms: u64,
    /// Cost in the configured currency, when prices are configured.
    pub cost: f64,
}

/// A method's next assistant turn.
#[derive(Debug, Clone, PartialEq)]
pub struct MethodReply {
    /// What the assistant says.
    pub text: String,
    /// The decision behind it, when the method gives one.
    pub action: Option<Action>,
    /// The preset the decision concerns.
    pub preset_id: Option<String>,
    /// The assistant closes the call with this turn.
    pub end_call: bool,
    /// Hidden reasoning and tool traces, in order.
    pub trace: Vec<TraceStep>,
    /// What the reply cost.
    pub usage: MethodUsage,
}

/// An assistant method under evaluation.
pub trait Method: Send + Sync {
    /// The method's name as `--methods` takes it.
    fn name(&self) -> &str;
    /// A hash of everything that defines the method (its file, its prompts, its model), for the
    /// results' provenance and the resume check.
    fn fingerprint(&self) -> String;
    /// The next assistant turn for `view`.
    fn respond(
        &self,
        view: &CallView<'_>,
    ) -> impl Future<Output = Result<MethodReply, AgentError>> + Send;
}
