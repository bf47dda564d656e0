//! `REL/stats.json`: the release's numbers, machine-readable — the same the card shows.

use callbench_model::{Action, Dialogue, Speaker};
use corpus::{Diversity, DiversityCounter};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The format of `stats.json`; raised when a field changes meaning or goes away.
pub const STATS_FORMAT_VERSION: u32 = 1;

/// Width of a turn-length bin, in characters.
pub const CHAR_BIN: usize = 10;
/// Turns of this many characters or more share the last bin.
pub const CHAR_CAP: usize = 150;

/// Everything `stats.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// [`STATS_FORMAT_VERSION`].
    pub format_version: u32,
    /// How the corpus was made.
    pub provenance: Provenance,
    /// Dialogues released.
    pub dialogues: u64,
    /// Released dialogues per split.
    pub splits: BTreeMap<String, u64>,
    /// Per cell (scenario × preset case × relation), in the manifest's order.
    pub cells: Vec<CellStats>,
    /// Turns and their lengths.
    pub turns: TurnStats,
    /// The assistant's decisions.
    pub decisions: Decisions,
    /// Structural diversity of the released dialogues (`corpus::diversity`).
    pub diversity: Diversity,
    /// What the quality checker found while the corpus was generated.
    pub checker: CheckerStats,
    /// The auditors' figures; `None` when no verdict was recorded.
    pub audit: Option<inspection::AuditReport>,
    /// Dialogues the auditors rejected, left out of the release.
    pub left_out: LeftOut,
    /// The data files, in path order.
    pub files: Vec<DataFile>,
}

/// How the corpus was made, from its manifest and its `gen` column.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// The tool version that wrote the corpus.
    pub tool_version: String,
    /// The run seed.
    pub seed: u64,
    /// Dialogues the run was asked for.
    pub count: u64,
    /// The run's fingerprint.
    pub fingerprint: String,
    /// The scenario library's digest.
    pub library_digest: String,
    /// Backends that played the dialogues (`sim`, `openai`).
    pub backends: BTreeSet<String>,
    /// Models per role, every one seen.
    pub models: BTreeMap<String, BTreeSet<String>>,
    /// Versions (tool, library, templates), every one seen.
    pub versions: BTreeMap<String, BTreeSet<String>>,
}

/// One cell.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CellStats {
    /// Scenario.
    pub scenario: String,
    /// Preset case.
    pub preset_case: String,
    /// Relation.
    pub relation: String,
    /// Released dialogues.
    pub dialogues: u64,
    /// Released dialogues per split.
    pub splits: BTreeMap<String, u64>,
    /// Left out by the auditors.
    pub left_out: u64,
}

/// Turn counts and lengths.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct TurnStats {
    /// Turns in the released dialogues.
    pub total: u64,
    /// Dialogues per number of turns.
    pub per_dialogue: BTreeMap<usize, u64>,
    /// Characters per turn, per speaker (`caller`, `assistant`).
    pub chars: BTreeMap<String, Lengths>,
}

/// A length distribution.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Lengths {
    /// Turns.
    pub n: u64,
    /// Mean characters.
    pub mean: f64,
    /// Median.
    pub median: u64,
    /// 90th percentile.
    pub p90: u64,
    /// Longest.
    pub max: u64,
    /// Turns per bin of [`CHAR_BIN`] characters (`bins[i]`: `i*CHAR_BIN ..`); the last bin holds
    /// every turn of [`CHAR_CAP`] characters or more.
    pub bins: Vec<u64>,
}

/// Decision counts.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Decisions {
    /// Assistant turns per action (`unlabelled` for a turn without one).
    pub overall: BTreeMap<String, u64>,
    /// The same per relation.
    pub by_relation: BTreeMap<String, BTreeMap<String, u64>>,
}

/// The checker's figures.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CheckerStats {
    /// Dialogues in the corpus (before the auditors).
    pub corpus_dialogues: u64,
    /// Dialogues given up as rejected.
    pub rejected: u64,
    /// Dialogues that could not be generated.
    pub failed: u64,
    /// Attempts the checker rejected (regenerated or given up).
    pub rejected_attempts: u64,
    /// Findings per kind over every attempt, accepted and rejected (the manifest's).
    pub found: BTreeMap<String, u64>,
    /// Findings per kind still in the released dialogues (findings that do not reject).
    pub in_release: BTreeMap<String, u64>,
    /// Found but not in the corpus: removed by regenerating or giving up the dialogue.
    pub removed: BTreeMap<String, u64>,
    /// Dialogues given up as rejected, per kind of their last attempt.
    pub given_up: BTreeMap<String, u64>,
}

/// Dialogues left out by the auditors.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct LeftOut {
    /// How: `any` (a dialogue any auditor rejected) or `majority`.
    pub rule: String,
    /// Dialogues left out.
    pub dialogues: u64,
    /// Left-out dialogues per reason (the finding kinds of the rejecting verdicts; `unspecified`
    /// for a rejection without a finding). A dialogue counts once per reason.
    pub by_reason: BTreeMap<String, u64>,
    /// Each one, in id order.
    pub ids: Vec<LeftOutId>,
}

/// One dialogue left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LeftOutId {
    /// Its id.
    pub id: String,
    /// The split it would have been in.
    pub split: String,
    /// The auditors who rejected it.
    pub rejected_by: Vec<String>,
    /// Their reasons (finding kinds), each once.
    pub reasons: Vec<String>,
}

/// A data file of the release.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DataFile {
    /// Path inside the release (`data/train-00000-of-00001.parquet`).
    pub path: String,
    /// The split.
    pub split: String,
    /// Dialogues.
    pub rows: u64,
    /// Bytes.
    pub bytes: u64,
    /// SHA-256, lower-case hex.
    pub sha256: String,
}

/// Accumulates the per-dialogue figures of the released dialogues.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    pub provenance: Provenance,
    pub dialogues: u64,
    pub splits: BTreeMap<String, u64>,
    pub cells: BTreeMap<String, (u64, BTreeMap<String, u64>)>,
    pub turns: u64,
    pub per_dialogue: BTreeMap<usize, u64>,
    pub chars: BTreeMap<String, BTreeMap<usize, u64>>,
    pub decisions: Decisions,
    pub diversity: DiversityCounter,
    pub in_release: BTreeMap<String, u64>,
}

pub(crate) fn cell_key(scenario: &str, preset_case: &str, relation: &str) -> String {
    format!("{scenario}/{preset_case}/{relation}")
}

impl Tally {
    pub fn add(&mut self, d: &Dialogue, split: &str) {
        self.dialogues += 1;
        *self.splits.entry(split.to_string()).or_default() += 1;
        let cell = self
            .cells
            .entry(cell_key(
                &d.scenario,
                d.preset_case.as_str(),
                d.relation.as_str(),
            ))
            .or_default();
        cell.0 += 1;
        *cell.1.entry(split.to_string()).or_default() += 1;
        self.turns += d.turns.len() as u64;
        *self.per_dialogue.entry(d.turns.len()).or_default() += 1;
        let by_rel = self
            .decisions
            .by_relation
            .entry(d.relation.to_string())
            .or_default();
        for t in &d.turns {
            let n = t.text.chars().count();
            *self
                .chars
                .entry(t.speaker.as_str().to_string())
                .or_default()
                .entry(n)
                .or_default() += 1;
            if t.speaker == Speaker::Assistant {
                let a = t.action.map_or("unlabelled", Action::as_str);
                *self.decisions.overall.entry(a.to_string()).or_default() += 1;
                *by_rel.entry(a.to_string()).or_default() += 1;
            }
        }
        if let Some(qc) = &d.qc {
            for v in &qc.violations {
                *self.in_release.entry(v.kind.clone()).or_default() += 1;
            }
        }
        if let Some(g) = &d.r#gen {
            let p = &mut self.provenance;
            if !p.backends.contains(&g.backend) {
                p.backends.insert(g.backend.clone());
            }
            for (role, m) in &g.models {
                let e = p.models.entry(role.clone()).or_default();
                if !e.contains(m) {
                    e.insert(m.clone());
                }
            }
            for (k, v) in &g.versions {
                let e = p.versions.entry(k.clone()).or_default();
                if !e.contains(v) {
                    e.insert(v.clone());
                }
            }
        }
        self.diversity.add(d);
    }

    pub fn turn_stats(&self) -> TurnStats {
        TurnStats {
            total: self.turns,
            per_dialogue: self.per_dialogue.clone(),
            chars: self
                .chars
                .iter()
                .map(|(k, h)| (k.clone(), lengths(h)))
                .collect(),
        }
    }
}

fn lengths(h: &BTreeMap<usize, u64>) -> Lengths {
    let n: u64 = h.values().sum();
    let sum: u64 = h.iter().map(|(k, c)| *k as u64 * c).sum();
    let quantile = |q: f64| -> u64 {
        // The smallest length with at least q of the turns at or below it.
        let want = ((n as f64) * q).ceil().max(1.0) as u64;
        let mut seen = 0;
        for (k, c) in h {
            seen += c;
            if seen >= want {
                return *k as u64;
            }
        }
        0
    };
    let mut bins = vec![0u64; CHAR_CAP / CHAR_BIN + 1];
    for (k, c) in h {
        bins[(*k).min(CHAR_CAP) / CHAR_BIN] += c;
    }
    Lengths {
        n,
        mean: if n == 0 { 0.0 } else { sum as f64 / n as f64 },
        median: quantile(0.5),
        p90: quantile(0.9),
        max: h.keys().next_back().map_or(0, |k| *k as u64),
        bins,
    }
}
