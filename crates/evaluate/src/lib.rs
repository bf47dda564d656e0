//! `callbench evaluate`: the benchmark harness.
//!
//! A run scores assistant **methods** (anything implementing [`callbench_model::Method`]) on
//! the corpus's test split with a **judge** (anything implementing [`Judge`]):
//!
//! - [`load`]: the split (a corpus without splits is refused with the fix), `--count`'s
//!   stratified subset.
//! - [`harness`]: turn mode (the method answers each assistant turn of a corpus call, the
//!   corpus's turn kept as the reference) or live mode (the method plays the call against the
//!   offline caller, K caller seeds); bounded concurrency, ordered collection, resume.
//! - [`reference`]: the embedded offline assistant as the method `reference`.
//! - [`judge`]: the [`Judge`] seam and the offline [`RulesJudge`] on the quality checker.
//! - [`stats`], [`results`]: means, bootstrap intervals over dialogues, breakdowns, error rates,
//!   `results.json`.
//! - [`report`]: `leaderboard.md` and `report.html` with SVG pictures.
//!
//! Invariants: the rows, and so `results.json` but for `created_at`, depend only on the corpus,
//! the settings and the methods — never on scheduling or on an interruption; a method sees no
//! private fact of the owner (the judge does); a turn the judge cannot score is counted as
//! unjudged, never dropped and never scored 0.
#![deny(missing_docs)]

pub mod error;
pub mod harness;
pub mod judge;
pub mod llm;
pub mod load;
pub mod reference;
pub mod report;
pub mod results;
pub mod review;
pub mod stats;

pub use error::{EvalError, Result};
pub use harness::{EvalConfig, Mode, Progress, RULES, run_method};
pub use judge::{Judge, JudgeReply, JudgeView, RulesJudge, Scores, Verdict};
pub use llm::{LiveCaller, LlmJudge};
pub use load::{Selection, load_split, stratified_subset};
pub use reference::{REFERENCE, ReferenceMethod};
pub use results::{MethodRun, Results, RunInfo};

use std::path::Path;

/// The methods this build can run without a model.
pub const OFFLINE_METHODS: &[&str] = &[REFERENCE];

/// Files of `RUN/`.
pub const TURNS_FILE: &str = "turns.parquet";
/// See [`TURNS_FILE`].
pub const RESULTS_FILE: &str = "results.json";
/// See [`TURNS_FILE`].
pub const LEADERBOARD_FILE: &str = "leaderboard.md";
/// See [`TURNS_FILE`].
pub const REPORT_FILE: &str = "report.html";

/// Writes `turns.parquet`, `results.json`, `leaderboard.md` and `report.html` into `out`, each
/// atomically (a crash leaves the old file or the new one).
pub fn write_outputs(out: &Path, results: &Results, runs: &[MethodRun]) -> Result<()> {
    let rows: Vec<corpus::EvalTurn> = runs.iter().flat_map(|m| m.rows.iter().cloned()).collect();
    corpus::write_eval_turns(&out.join(TURNS_FILE), &rows)?;
    let mut json = serde_json::to_vec_pretty(results)
        .map_err(|e| EvalError::io(out.join(RESULTS_FILE), e.into()))?;
    json.push(b'\n');
    corpus::write_atomic(&out.join(RESULTS_FILE), &json)?;
    corpus::write_atomic(
        &out.join(LEADERBOARD_FILE),
        report::leaderboard(results).as_bytes(),
    )?;
    corpus::write_atomic(
        &out.join(REPORT_FILE),
        report::report_html(results).as_bytes(),
    )?;
    Ok(())
}

/// What a run would spend (`--dry-run`): the tasks, the assistant turns to score, and the
/// model calls — none for offline methods and the rules judge.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DryRun {
    /// Dialogues × trials.
    pub tasks: u64,
    /// Assistant turns to score (turn mode: exact; live mode: the corpus calls' count per
    /// trial, an estimate).
    pub turns: u64,
    /// Method calls to a model.
    pub method_calls: u64,
    /// Judge calls to a model.
    pub judge_calls: u64,
    /// Caller calls to a model (live mode with the LLM caller).
    pub caller_calls: u64,
    /// Tokens.
    pub tokens: u64,
    /// Cost.
    pub cost: f64,
}

/// The dry run of offline methods with the rules judge: turns counted, nothing spent.
pub fn dry_run_offline(cfg: &EvalConfig, dialogues: &[callbench_model::Dialogue]) -> DryRun {
    use callbench_model::Speaker;
    let turns: u64 = dialogues
        .iter()
        .map(|d| {
            d.turns
                .iter()
                .enumerate()
                .filter(|(i, t)| {
                    t.speaker == Speaker::Assistant
                        && *i > 0
                        && d.turns[i - 1].speaker == Speaker::Caller
                })
                .count() as u64
        })
        .sum();
    DryRun {
        tasks: dialogues.len() as u64 * cfg.trials as u64,
        turns: turns * cfg.trials as u64,
        ..DryRun::default()
    }
}
