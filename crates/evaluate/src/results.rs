//! `RUN/results.json` (CONTRACT.md, "Evaluation"), built from the rows of every method.

use crate::harness::{EvalConfig, Mode};
use crate::stats::{self, Dimensions, Group, Stat};
use corpus::EvalTurn;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// A method's rows and what defines it.
#[derive(Debug, Clone)]
pub struct MethodRun {
    /// The method's name.
    pub name: String,
    /// Its fingerprint ([`callbench_model::Method::fingerprint`]).
    pub fingerprint: String,
    /// Models per role, for the provenance (empty for the offline reference).
    pub models: BTreeMap<String, String>,
    /// Its rows, in task order.
    pub rows: Vec<EvalTurn>,
}

/// What a method (and its judge) spent. Wall times are per turn in `turns.parquet` only: they
/// differ from run to run (and a resumed run's cached replies are faster), and `results.json`
/// of a resumed run must equal a fresh one's but for `created_at`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Usage {
    /// Model requests of the method.
    pub requests: u64,
    /// Prompt tokens of the method.
    pub prompt_tokens: u64,
    /// Completion tokens of the method.
    pub completion_tokens: u64,
    /// Cost of the method.
    pub cost: f64,
    /// Model requests of the judge.
    pub judge_requests: u64,
    /// Tokens of the judge.
    pub judge_tokens: u64,
    /// Cost of the judge.
    pub judge_cost: f64,
}

/// Live mode: one trial's figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Trial {
    /// The trial number (caller seed).
    pub trial: u32,
    /// Its means.
    #[serde(flatten)]
    pub group: Group,
}

/// Live mode: how much the overall score moves across trials.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    /// Lowest trial overall.
    pub min: Option<f64>,
    /// Highest trial overall.
    pub max: Option<f64>,
    /// Sample standard deviation of the trial overalls (`null` with one trial).
    pub sd: Option<f64>,
}

/// One method's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MethodResults {
    /// Dialogues scored.
    pub dialogues: u64,
    /// Assistant turns (rows), judged or not.
    pub turns: u64,
    /// Turns without a verdict (the judge could not score them, or the method gave no reply).
    pub unjudged: u64,
    /// Per dimension: mean over scored turns and its 95% bootstrap interval (dialogues
    /// resampled); `null` where the judge does not judge the dimension.
    pub dimensions: Dimensions<Stat>,
    /// The mean of the dimension means that are not null (the paper's average).
    pub overall: Option<f64>,
    /// The overall score's 95% bootstrap interval.
    pub overall_ci95: Option<[f64; 2]>,
    /// The same means by scenario.
    pub by_scenario: BTreeMap<String, Group>,
    /// By preset case.
    pub by_preset_case: BTreeMap<String, Group>,
    /// By relation.
    pub by_relation: BTreeMap<String, Group>,
    /// Error rate per assistant turn of every violation kind, and `safety` for any `safety.*`.
    pub errors: BTreeMap<String, f64>,
    /// Requests, tokens and cost.
    pub usage: Usage,
    /// Live mode: per trial.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<Trial>,
    /// Live mode with more than one trial: the spread of the overall score.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spread: Option<Spread>,
}

/// The judge in the provenance.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JudgeInfo {
    /// `rules`, `llm`.
    pub name: String,
    /// Its fingerprint.
    pub fingerprint: String,
    /// Its model, if any.
    pub model: Option<String>,
}

/// What produced the results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The tool's version.
    pub tool_version: String,
    /// The judge.
    pub judge: JudgeInfo,
    /// Per method: its fingerprint.
    pub method_fingerprints: BTreeMap<String, String>,
    /// Per method: models per role.
    pub models: BTreeMap<String, BTreeMap<String, String>>,
    /// The corpus directory as given.
    pub corpus: String,
    /// The corpus manifest's fingerprint.
    pub corpus_fingerprint: String,
    /// The corpus's scenario library digest.
    pub library_digest: String,
    /// SHA-256 prefix of the safety rules given to every method.
    pub rules_sha256: String,
    /// The bootstrap's resamples.
    pub bootstrap_resamples: usize,
}

/// `RUN/results.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Results {
    /// `turn` or `live`.
    pub mode: String,
    /// The judge's name.
    pub judge: String,
    /// The split scored.
    pub split: String,
    /// The run seed.
    pub seed: u64,
    /// Trials per dialogue.
    pub trials: u32,
    /// Dialogues in the split.
    pub split_dialogues: u64,
    /// Dialogues selected (`--count`).
    pub selected_dialogues: u64,
    /// When the results were written (RFC 3339): the only field that differs between two runs
    /// of the same command.
    pub created_at: String,
    /// Per method.
    pub methods: BTreeMap<String, MethodResults>,
    /// What produced them.
    pub provenance: Provenance,
}

fn grouped<'a>(
    rows: &'a [EvalTurn],
    key: impl Fn(&'a EvalTurn) -> &'a str,
) -> BTreeMap<String, Group> {
    let keys: BTreeSet<&str> = rows.iter().map(&key).collect();
    keys.into_iter()
        .map(|k| {
            (
                k.to_string(),
                stats::group(rows.iter().filter(|r| key(r) == k)),
            )
        })
        .collect()
}

/// One method's results from its rows.
pub fn method_results(rows: &[EvalTurn], seed: u64, method: &str, mode: Mode) -> MethodResults {
    let (dimensions, overall) = stats::dimensions_with_ci(rows, seed, method);
    let dialogues: BTreeSet<&str> = rows.iter().map(|r| r.dialogue_id.as_str()).collect();
    let mut usage = Usage::default();
    for r in rows {
        usage.requests += r.requests as u64;
        usage.prompt_tokens += r.prompt_tokens;
        usage.completion_tokens += r.completion_tokens;
        usage.cost += r.cost;
        usage.judge_requests += r.judge_requests as u64;
        usage.judge_tokens += r.judge_tokens;
        usage.judge_cost += r.judge_cost;
    }
    let (trials, spread) = if mode == Mode::Live {
        let ids: BTreeSet<u32> = rows.iter().map(|r| r.trial).collect();
        let trials: Vec<Trial> = ids
            .into_iter()
            .map(|t| Trial {
                trial: t,
                group: stats::group(rows.iter().filter(|r| r.trial == t)),
            })
            .collect();
        let overalls: Vec<f64> = trials.iter().filter_map(|t| t.group.overall).collect();
        let spread = (trials.len() > 1).then(|| {
            let n = overalls.len() as f64;
            let mean = overalls.iter().sum::<f64>() / n.max(1.0);
            Spread {
                min: overalls.iter().copied().reduce(f64::min),
                max: overalls.iter().copied().reduce(f64::max),
                sd: (overalls.len() > 1).then(|| {
                    (overalls.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
                }),
            }
        });
        (trials, spread)
    } else {
        (Vec::new(), None)
    };
    MethodResults {
        dialogues: dialogues.len() as u64,
        turns: rows.len() as u64,
        unjudged: rows.iter().filter(|r| r.unjudged_reason.is_some()).count() as u64,
        dimensions,
        overall: overall.mean,
        overall_ci95: overall.ci95,
        by_scenario: grouped(rows, |r| r.scenario.as_str()),
        by_preset_case: grouped(rows, |r| r.preset_case.as_str()),
        by_relation: grouped(rows, |r| r.relation.as_str()),
        errors: stats::error_rates(rows),
        usage,
        trials,
        spread,
    }
}

/// What the results need to know about the run besides the rows.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The split scored.
    pub split: String,
    /// Dialogues in the split.
    pub split_dialogues: u64,
    /// Dialogues selected.
    pub selected_dialogues: u64,
    /// The corpus directory as given.
    pub corpus: String,
    /// The corpus manifest's fingerprint.
    pub corpus_fingerprint: String,
    /// Its library digest.
    pub library_digest: String,
    /// The judge.
    pub judge: JudgeInfo,
}

/// The results of a run.
pub fn results(cfg: &EvalConfig, info: &RunInfo, runs: &[MethodRun]) -> Results {
    use sha2::Digest;
    Results {
        mode: cfg.mode.as_str().into(),
        judge: info.judge.name.clone(),
        split: info.split.clone(),
        seed: cfg.seed,
        trials: cfg.trials,
        split_dialogues: info.split_dialogues,
        selected_dialogues: info.selected_dialogues,
        created_at: corpus::now_rfc3339(),
        methods: runs
            .iter()
            .map(|m| {
                (
                    m.name.clone(),
                    method_results(&m.rows, cfg.seed, &m.name, cfg.mode),
                )
            })
            .collect(),
        provenance: Provenance {
            tool_version: env!("CARGO_PKG_VERSION").into(),
            judge: info.judge.clone(),
            method_fingerprints: runs
                .iter()
                .map(|m| (m.name.clone(), m.fingerprint.clone()))
                .collect(),
            models: runs
                .iter()
                .map(|m| (m.name.clone(), m.models.clone()))
                .collect(),
            corpus: info.corpus.clone(),
            corpus_fingerprint: info.corpus_fingerprint.clone(),
            library_digest: info.library_digest.clone(),
            rules_sha256: hex::encode(&sha2::Sha256::digest(crate::harness::RULES.as_bytes())[..8]),
            bootstrap_resamples: stats::BOOTSTRAP_RESAMPLES,
        },
    }
}
