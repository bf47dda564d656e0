//! The LLM judge: the paper's turn-level protocol. Each assistant turn is scored 0–1 on seven
//! dimensions (safety binary) through the same client, limits and cache as the LLM backend;
//! the prompt is `templates/prompts/judge.tera`. A dialogue whose safety is 0 on any turn, or
//! whose mean on a dimension falls below its threshold, gets a finding and is rejected like any
//! other.
//!
//! The second opinion: an uncertain finding of the rule checker (words that may be read either
//! way; `quality_checker::Confidence`) is put to the same judge as one targeted question about
//! its turn — `templates/prompts/judge_question.tera`, answered `yes`/`no` with a reason
//! ([`ask_uncertain`]). The answer is recorded in the finding's message ([`SecondOpinion`]).

use crate::library::Library;
use callbench_model::vocab::ViolationKind;
use callbench_model::{
    Dialogue, JUDGE_DIMENSIONS, JudgeScores, MethodUsage, QcResult, Speaker, Violation,
};
use llm_agent::{Agent, PromptKind, ReAsk, parse_question_reply, question_schema};
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

/// The judge's answer to the targeted question about one uncertain finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecondOpinion {
    /// The turn shows the kind: the finding becomes certain and rejects the dialogue.
    Confirmed(String),
    /// It does not: the finding stays on the dialogue, reported, not rejecting.
    Denied(String),
    /// No usable answer after the re-asks (or the call failed): the finding stays uncertain and
    /// reported — never dropped.
    Unanswered(String),
}

/// Where a finding's message records its second opinion: `" [second opinion of the LLM judge:
/// <word>: <reason>]"` appended. The message is what every record of a finding (the Parquet
/// `qc.violations`, `rejects/`, the check report's shape) already carries, so no column changes.
const NOTE: &str = " [second opinion of the LLM judge: ";

impl SecondOpinion {
    /// Every answer's word, as the manifest counts them (`report.second_opinions`).
    pub const WORDS: [&'static str; 3] = ["confirmed", "denied", "unanswered"];

    /// Its word: `confirmed`, `denied`, `unanswered`.
    pub fn word(&self) -> &'static str {
        match self {
            SecondOpinion::Confirmed(_) => "confirmed",
            SecondOpinion::Denied(_) => "denied",
            SecondOpinion::Unanswered(_) => "unanswered",
        }
    }

    /// The judge's reason, or why there is no answer.
    pub fn reason(&self) -> &str {
        match self {
            SecondOpinion::Confirmed(r)
            | SecondOpinion::Denied(r)
            | SecondOpinion::Unanswered(r) => r,
        }
    }

    /// Appends this answer to the finding's message. The reason is the model's text: one line,
    /// at most 200 characters.
    pub fn record(&self, f: &mut Violation) {
        let reason: String = self
            .reason()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(200)
            .collect();
        f.message = format!("{}{NOTE}{}: {reason}]", f.message, self.word());
    }

    /// The word of the second opinion a finding's message records, if it records one.
    pub fn recorded(f: &Violation) -> Option<&'static str> {
        let rest = &f.message[f.message.find(NOTE)? + NOTE.len()..];
        Self::WORDS
            .into_iter()
            .find(|w| rest.strip_prefix(w).is_some_and(|r| r.starts_with(':')))
    }
}

/// The targeted question about finding `f` of `d`: the presets and the owner's public and
/// private facts (as the checker saw them), the whole transcript, the kind with its definition
/// (`callbench_model::vocab::ViolationKind::definition`), the checker's message and evidence,
/// and the turn; `templates/prompts/judge_question.tera`. `estimate` prices the same prompt.
pub fn question_prompt(
    lib: &Library,
    d: &Dialogue,
    f: &Violation,
) -> Result<String, llm_agent::Error> {
    let definition = f
        .kind
        .parse::<ViolationKind>()
        .map_or("", ViolationKind::definition);
    let vars = serde_json::json!({
        "presets": d.owner.presets,
        "private": d.owner.private,
        "public": d.owner.public,
        "turns": d.turns,
        "turn": f.turn,
        "turn_text": d.turns.get(f.turn).map_or("", |t| t.text.as_str()),
        "kind": f.kind,
        "definition": definition,
        "message": f.message,
        "evidence": f.evidence,
    });
    lib.prompts
        .render(PromptKind::JudgeQuestion, &d.scenario, &vars)
}

/// Asks the judge whether the turn of finding `f` shows its kind: one question, an unusable reply
/// asked again up to `max_invalid_replies` times (through the run's client: its limits, its
/// response cache).
pub async fn second_opinion<M: ChatModel>(
    lib: &Library,
    model: &M,
    d: &Dialogue,
    f: &Violation,
    max_invalid_replies: u32,
) -> SecondOpinion {
    let prompt = match question_prompt(lib, d, f) {
        Ok(p) => p,
        Err(e) => return SecondOpinion::Unanswered(e.to_string()),
    };
    // Like the scores: the same question about the same dialogue may share its answer (scope 0).
    let agent = Agent::new(model, Role::Judge).reask(max_invalid_replies, ReAsk::Same);
    let mut usage = MethodUsage::default();
    let messages = vec![ChatMessage {
        role: "user",
        content: prompt,
    }];
    match agent
        .ask(
            messages,
            &question_schema(),
            &mut usage,
            parse_question_reply,
        )
        .await
    {
        Ok((true, reason)) => SecondOpinion::Confirmed(reason),
        Ok((false, reason)) => SecondOpinion::Denied(reason),
        Err(e) => SecondOpinion::Unanswered(e.to_string()),
    }
}

/// Puts each uncertain finding of `qc` (`confidence` is [`quality_checker::Checker::check_detailed`]'s,
/// in the order of the checker's findings; findings after them are certain) whose kind rejects to
/// the judge, one question each, in turn order, and records every answer in its finding's
/// message. A confirmed finding rejects: `qc.passed` becomes false. Every question is asked even
/// after a confirmation, so that each finding on the record carries its answer. Returns the
/// answers in the order asked.
pub async fn ask_uncertain<M: ChatModel>(
    lib: &Library,
    model: &M,
    checker: &quality_checker::Checker,
    d: &Dialogue,
    qc: &mut QcResult,
    confidence: &[quality_checker::Confidence],
    max_invalid_replies: u32,
) -> Vec<SecondOpinion> {
    let mut answers = Vec::new();
    let mut confirmed = false;
    for (f, c) in qc.violations.iter_mut().zip(confidence) {
        // A finding whose kind does not reject would not change the verdict: not worth a call.
        if *c != quality_checker::Confidence::Uncertain || !checker.rejects(&f.kind) {
            continue;
        }
        let answer = second_opinion(lib, model, d, f, max_invalid_replies).await;
        answer.record(f);
        confirmed |= matches!(answer, SecondOpinion::Confirmed(_));
        answers.push(answer);
    }
    qc.passed &= !confirmed;
    answers
}
