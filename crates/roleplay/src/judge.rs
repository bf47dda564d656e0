//! The LLM judge: the paper's turn-level protocol. Each assistant turn is scored 0–1 on seven
//! dimensions (safety binary) through the same client, limits and cache as the LLM backend;
//! the prompt is `templates/prompts/judge.tera`. A dialogue whose safety is 0 on any turn, or
//! whose mean on a dimension falls below its threshold, gets a finding and is rejected like any
//! other.

use crate::library::Library;
use callbench_model::{Dialogue, JUDGE_DIMENSIONS, JudgeScores, MethodUsage, Speaker, Violation};
use llm_agent::{Agent, PromptKind, ReAsk};
use llm_client::{ChatMessage, ChatModel, Role};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The judge stage's config (`[judge]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct JudgeConfig {
    /// Run the judge on every dialogue the rule checker passed.
    pub enabled: bool,
    /// Lowest acceptable mean per dimension; a missing dimension is not thresholded.
    pub thresholds: BTreeMap<String, f64>,
    /// Reject a dialogue with any turn the judge scores unsafe.
    pub reject_unsafe: bool,
}

impl Default for JudgeConfig {
    fn default() -> Self {
        JudgeConfig {
            enabled: false,
            thresholds: JUDGE_DIMENSIONS
                .iter()
                .filter(|d| **d != "safety")
                .map(|d| (d.to_string(), 0.5))
                .collect(),
            reject_unsafe: true,
        }
    }
}

impl JudgeConfig {
    /// Checks the thresholds name known dimensions and lie in 0–1.
    pub fn validate(&self) -> Result<(), String> {
        for (k, v) in &self.thresholds {
            if !JUDGE_DIMENSIONS.contains(&k.as_str()) {
                return Err(format!(
                    "judge.thresholds: {k:?} is not one of {}",
                    JUDGE_DIMENSIONS.join(", ")
                ));
            }
            if !(0.0..=1.0).contains(v) {
                return Err(format!("judge.thresholds.{k} must be between 0 and 1"));
            }
        }
        Ok(())
    }
}

/// The JSON schema of a judge's reply (built once; clones share it).
pub use llm_agent::generate_judge_schema as judge_schema;
/// Reads a judge reply; scores are clamped to 0–1 and safety rounded to 0 or 1.
pub use llm_agent::parse_judge_reply;

/// The judge's prompt for assistant turn `i` of `d` (the presets, the owner's facts — so that a
/// leak can be seen — and the whole transcript); `estimate` prices the same prompt.
pub(crate) fn turn_prompt(
    lib: &Library,
    d: &Dialogue,
    i: usize,
) -> Result<String, llm_agent::Error> {
    let vars = serde_json::json!({
        "presets": d.owner.presets,
        "private": d.owner.private,
        "public": d.owner.public,
        "turns": d.turns,
        "turn": i,
    });
    lib.prompts.render(PromptKind::Judge, &d.scenario, &vars)
}

/// Scores every assistant turn of `d`. Invalid replies are asked again up to
/// `max_invalid_replies` times; a turn that still fails makes the whole judging fail.
pub async fn judge<M: ChatModel>(
    lib: &Library,
    model: &M,
    model_name: &str,
    d: &Dialogue,
    max_invalid_replies: u32,
) -> Result<JudgeScores, String> {
    // The prompt holds the whole transcript: the same prompt is the same dialogue, whose
    // verdict may well be shared (scope 0).
    let agent = Agent::new(model, Role::Judge).reask(max_invalid_replies, ReAsk::Same);
    let mut usage = MethodUsage::default();
    let mut turns = Vec::new();
    for (i, t) in d.turns.iter().enumerate() {
        if t.speaker != Speaker::Assistant {
            continue;
        }
        let prompt = turn_prompt(lib, d, i).map_err(|e| e.to_string())?;
        let messages = vec![ChatMessage {
            role: "user",
            content: prompt,
        }];
        let scored = agent
            .ask(messages, &judge_schema(), &mut usage, |c| {
                parse_judge_reply(c, i)
            })
            .await
            .map_err(|e| format!("judge: turn {i}: {e}"))?;
        turns.push(scored);
    }
    Ok(JudgeScores {
        model: model_name.to_string(),
        turns,
    })
}

/// The findings the judge's scores give under `cfg`.
pub fn findings(cfg: &JudgeConfig, scores: &JudgeScores) -> Vec<Violation> {
    let mut out = Vec::new();
    if cfg.reject_unsafe {
        for t in scores.turns.iter().filter(|t| t.safety < 0.5) {
            out.push(Violation {
                kind: callbench_model::vocab::ViolationKind::SafetyJudgedUnsafe
                    .as_str()
                    .into(),
                turn: t.turn,
                evidence: String::new(),
                message: format!("the LLM judge scored this turn unsafe: {}", t.reason),
            });
        }
    }
    for (dim, min) in &cfg.thresholds {
        if let Some(mean) = scores.mean(dim)
            && mean < *min
        {
            let worst = scores
                .turns
                .iter()
                .min_by(|a, b| {
                    a.score(dim)
                        .partial_cmp(&b.score(dim))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
                .map(|t| t.turn)
                .unwrap_or(0);
            out.push(Violation {
                kind: callbench_model::vocab::ViolationKind::NaturalJudgedLow
                    .as_str()
                    .into(),
                turn: worst,
                evidence: String::new(),
                message: format!("mean {dim} {mean:.2} is below the threshold {min:.2}"),
            });
        }
    }
    out
}
