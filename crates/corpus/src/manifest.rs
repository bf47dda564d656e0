//! `OUT/manifest.json`: what a finished (or partial) corpus holds — counts per cell, the shards
//! with their row counts and SHA-256, the effective config without secrets, and usage.

use crate::atomic::write_atomic;
use crate::error::{CorpusError, Result};
use crate::jsonl::read_json_file;
use crate::shard::ShardInfo;
use callbench_model::{PresetCase, Relation};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name inside the output directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// The manifest format this crate writes. Raised when a field changes meaning or goes away.
pub const MANIFEST_FORMAT_VERSION: u32 = 1;

/// The manifest of a corpus. Plain data: the caller fills it, this crate writes and reads it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT_VERSION`] when written by this crate.
    pub format_version: u32,
    /// Version of the tool that wrote the corpus.
    pub tool_version: String,
    /// When the manifest was written, RFC 3339 (given by the caller).
    pub created_at: String,
    /// The run seed.
    pub seed: u64,
    /// Dialogues asked for.
    pub count: u64,
    /// The plan's fingerprint, as in the ledger.
    pub fingerprint: String,
    /// Counts per cell of the plan.
    pub cells: Vec<CellCount>,
    /// The shards, by index.
    pub shards: Vec<ShardInfo>,
    /// Rejects files, relative to the output directory.
    #[serde(default)]
    pub rejects: Vec<String>,
    /// Corpus-wide counts.
    pub totals: Totals,
    /// Dialogues in the shards per split (`train`, `validation`, `test`); empty for a corpus
    /// written before splits existed.
    #[serde(default)]
    pub splits: BTreeMap<String, u64>,
    /// Violations found by the checker, per kind (rejected and accepted dialogues alike).
    #[serde(default)]
    pub findings: BTreeMap<String, u64>,
    /// The effective configuration, secrets already removed by the caller.
    #[serde(default)]
    pub config: serde_json::Value,
    /// Requests, tokens and time spent, as the caller reports them.
    #[serde(default)]
    pub usage: serde_json::Value,
    /// Digest of the scenario library the run used.
    pub library_digest: String,
    /// Structural-diversity figures of the dialogues in the shards ([`crate::diversity`]);
    /// absent in manifests written before they were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diversity: Option<crate::diversity::Diversity>,
    /// Why dialogues failed or were given up, replies repaired, and whether the run stopped
    /// early; absent when there is nothing to say.
    #[serde(default, skip_serializing_if = "RunReport::is_empty")]
    pub report: RunReport,
    /// Every generation step of the corpus, in order: its first run, then each run that grew
    /// it (a larger count, a new scenario) or made a changed scenario's dialogues again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepRecord>,
}

/// One generation step of a corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The step's number (0: the first run).
    pub step: u32,
    /// Dialogues in the corpus once the step is done (`--count`).
    pub count: u64,
    /// Index of the step's first shard.
    pub first_shard: u32,
    /// Dialogues of earlier steps kept as they were.
    pub kept: u64,
    /// Dialogues the step added.
    pub added: u64,
    /// Scenarios whose dialogues the step made again (their file had changed).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub regenerated: Vec<String>,
    /// Scenarios the step brought into the corpus.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub new_scenarios: Vec<String>,
    /// Fingerprint of every scenario file the step used, by scenario name.
    #[serde(default)]
    pub scenarios: BTreeMap<String, String>,
}

/// What went wrong in a run, counted: the last line of `generate` is made from it.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RunReport {
    /// Failed dialogues per reason (the reason's kind, e.g. "replies cut short at max_tokens").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failure_reasons: BTreeMap<String, u64>,
    /// Dialogues given up as rejected, per violation kind of their last attempt.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rejected_kinds: BTreeMap<String, u64>,
    /// Repaired replies per field (`action`, `preset_id`, `end_call`) in written dialogues.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repairs: BTreeMap<String, u64>,
    /// The quality checker's uncertain findings put to the LLM judge, one question each
    /// (`asked`), and its answers: `confirmed` (the finding rejected its attempt), `denied`
    /// (reported, with the judge's reason in its message), `unanswered` (reported as uncertain).
    /// Over every recorded attempt, accepted and rejected.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub second_opinions: BTreeMap<String, u64>,
    /// Attempts the checker rejected, all kept in `rejects/`: those of dialogues given up as
    /// rejected and those regenerated into a dialogue that passed.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rejected_attempts: u64,
    /// Set when the run stopped before the plan was done: why, and what to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
    /// Usage of every run of this corpus whose manifest was written (this one and those it
    /// resumed), beside [`Manifest::usage`], this run's; set when an earlier run had usage. A
    /// run killed before its manifest was written is not in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage_all_runs: Option<serde_json::Value>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl RunReport {
    /// Nothing to report.
    pub fn is_empty(&self) -> bool {
        self.failure_reasons.is_empty()
            && self.rejected_kinds.is_empty()
            && self.repairs.is_empty()
            && self.second_opinions.is_empty()
            && self.rejected_attempts == 0
            && self.stopped.is_none()
            && self.usage_all_runs.is_none()
    }
}

/// Planned and actual counts of one cell: scenario × preset case × relation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellCount {
    /// Scenario name.
    pub scenario: String,
    /// Preset case.
    pub preset_case: PresetCase,
    /// Relation.
    pub relation: Relation,
    /// Dialogues the plan gave the cell.
    pub planned: u64,
    /// Dialogues of the cell in the shards.
    pub written: u64,
    /// Dialogues of the cell the checker rejected (in the rejects files).
    pub rejected: u64,
    /// Findings per violation kind in the cell's dialogues and rejected attempts.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub findings: BTreeMap<String, u64>,
}

/// Corpus-wide counts.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Totals {
    /// Dialogues in the shards.
    pub dialogues: u64,
    /// Turns in the shards.
    pub turns: u64,
    /// Dialogues rejected by the checker.
    pub rejected: u64,
    /// Dialogues that could not be generated at all (backend errors after retries).
    pub failed: u64,
}

/// The manifest path of an output directory.
pub fn manifest_path(out_dir: &Path) -> PathBuf {
    out_dir.join(MANIFEST_FILE)
}

/// Writes `out_dir/manifest.json` atomically, pretty-printed.
pub fn write_manifest(out_dir: &Path, manifest: &Manifest) -> Result<()> {
    let path = manifest_path(out_dir);
    let mut bytes = serde_json::to_vec_pretty(manifest).map_err(|e| CorpusError::Json {
        path: path.clone(),
        line: None,
        message: e.to_string(),
    })?;
    bytes.push(b'\n');
    write_atomic(&path, &bytes)
}

/// Reads `out_dir/manifest.json`.
pub fn read_manifest(out_dir: &Path) -> Result<Manifest> {
    read_json_file(&manifest_path(out_dir))
}

/// The current UTC time as RFC 3339 (`2025-01-31T08:15:00Z`), from the system clock (civil from
/// days, so no time crate is needed for one timestamp).
pub fn now_rfc3339() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// `a + b` for usage reports: numbers at the same place are added, anything else is taken
/// from `b` (the later run: its model names and currency) or kept from `a`.
pub fn add_usage(a: &serde_json::Value, b: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut out = x.clone();
            for (k, v) in y {
                let sum = match x.get(k) {
                    Some(old) => add_usage(old, v),
                    None => v.clone(),
                };
                out.insert(k.clone(), sum);
            }
            Value::Object(out)
        }
        (Value::Number(x), Value::Number(y)) => match (x.as_u64(), y.as_u64()) {
            (Some(p), Some(q)) => Value::from(p.saturating_add(q)),
            _ => {
                serde_json::Number::from_f64(x.as_f64().unwrap_or(0.0) + y.as_f64().unwrap_or(0.0))
                    .map_or(Value::Null, Value::Number)
            }
        },
        (_, Value::Null) => a.clone(),
        _ => b.clone(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn usage_adds_numbers_and_keeps_the_latest_words() {
        let a = serde_json::json!({"roles": {"caller": {"model": "m1", "requests": 3, "cost": 0.5}}, "currency": "USD"});
        let b = serde_json::json!({"roles": {"caller": {"model": "m2", "requests": 4, "cost": 0.25}, "judge": {"requests": 1}}, "currency": "USD"});
        let sum = super::add_usage(&a, &b);
        assert_eq!(sum["roles"]["caller"]["requests"], 7);
        assert_eq!(sum["roles"]["caller"]["cost"], 0.75);
        assert_eq!(sum["roles"]["caller"]["model"], "m2");
        assert_eq!(sum["roles"]["judge"]["requests"], 1);
    }
}
