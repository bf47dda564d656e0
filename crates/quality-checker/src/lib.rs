//! The quality checker: finds what is wrong in a dialogue and returns a report, never an error.
//!
//! This first stage checks structure — the caller speaks first, speakers alternate, no turn is
//! empty, the call stays within the turn cap and ends with the assistant. Findings use the
//! contract's vocabulary (`natural.*` for structural faults). The safety, naturalness and
//! preset-timing detectors extend the same [`check`] entry point.
#![deny(missing_docs)]

use callbench_model::{Dialogue, QcResult, Speaker, Violation};
use serde::{Deserialize, Serialize};

/// What the checker holds dialogues to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckConfig {
    /// Most turns a call may have.
    pub max_turns: usize,
    /// Fewest turns a call may have (a caller turn and an assistant turn at least).
    pub min_turns: usize,
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_turns: 24,
            min_turns: 2,
        }
    }
}

/// The checker, built from its config.
#[derive(Debug, Clone)]
pub struct Checker {
    cfg: CheckConfig,
}

impl CheckConfig {
    /// Builds the checker.
    pub fn build(&self) -> Checker {
        Checker { cfg: self.clone() }
    }
}

fn violation(kind: &str, turn: usize, evidence: &str, message: String) -> Violation {
    Violation {
        kind: kind.to_string(),
        turn,
        evidence: evidence.chars().take(80).collect(),
        message,
    }
}

impl Checker {
    /// Checks one dialogue.
    pub fn check(&self, d: &Dialogue) -> QcResult {
        let mut v = Vec::new();
        for (i, t) in d.turns.iter().enumerate() {
            let expected = if i % 2 == 0 {
                Speaker::Caller
            } else {
                Speaker::Assistant
            };
            if t.speaker != expected {
                v.push(violation(
                    "natural.turn_order",
                    i,
                    &t.text,
                    format!("turn {i} is spoken by the {}, expected the {expected} (the caller speaks first, then they alternate)", t.speaker),
                ));
            }
            if t.text.trim().is_empty() {
                v.push(violation(
                    "natural.empty_turn",
                    i,
                    "",
                    format!("turn {i} is empty"),
                ));
            }
        }
        let n = d.turns.len();
        if n > self.cfg.max_turns {
            v.push(violation(
                "natural.turn_cap",
                n - 1,
                "",
                format!("{n} turns, more than the cap of {}", self.cfg.max_turns),
            ));
        }
        if n < self.cfg.min_turns {
            v.push(violation(
                "natural.turn_cap",
                n.saturating_sub(1),
                "",
                format!(
                    "{n} turns, fewer than the minimum of {}",
                    self.cfg.min_turns
                ),
            ));
        }
        if let Some(last) = d.turns.last()
            && last.speaker != Speaker::Assistant
        {
            v.push(violation(
                "natural.closing",
                n - 1,
                &last.text,
                "the call ends on the caller; the assistant never closed it".into(),
            ));
        }
        QcResult {
            passed: v.is_empty(),
            violations: v,
        }
    }
}

/// Checks a dialogue with the default config.
pub fn check(d: &Dialogue) -> QcResult {
    CheckConfig::default().build().check(d)
}
