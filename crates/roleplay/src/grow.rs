//! A corpus that grows in place: what a `generate` run does with the output folder it is given.
//!
//! Every run is a *generation step* recorded in the ledger (`corpus::RunHeader`): the run
//! fingerprint (seed, shared library files, the settings that change every dialogue), the
//! per-cell counts once the step is done and the fingerprint of every scenario file. A run
//! compares what it would make with the ledger's last step:
//! - the same step: it resumes it (a crash, a stopped run) — or finds it done;
//! - the last step done, and only counts grew, scenarios were added or scenario files changed:
//!   it opens the next step, which makes the difference — every cell from the count the corpus
//!   holds to its new count, ids and sub-seeds continuing each cell's numbering — and makes a
//!   changed scenario's dialogues again (same ids, new text), writing new shards beside the
//!   old ones and then rewriting the old shards that held the changed scenario's dialogues
//!   without them;
//! - anything else (another seed, a changed shared file or setting, a cell that would shrink,
//!   a scenario taken away, the last step unfinished) is an error that says what to do.

use crate::error::{Error, Result};
use crate::generate::GenerateConfig;
use crate::library::Library;
use callbench_model::Plan;
use corpus::{History, Ledger, RunHeader, ShardInfo};
use std::collections::BTreeMap;

/// What kind of step a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    /// No corpus in the folder: the first step.
    Fresh,
    /// The ledger's last step, again: resumed (or already done).
    Resume,
    /// A new step after the last one: the corpus grows or a scenario is made again.
    Grow,
}

/// The step a run makes and what it keeps, adds and makes again.
#[derive(Debug, Clone)]
pub struct Step {
    /// Fresh, resumed or grown.
    pub kind: StepKind,
    /// The plan of this step: the dialogues it makes.
    pub plan: Plan,
    /// The ledger header of this step.
    pub header: RunHeader,
    /// Dialogues earlier steps made that stay as they are.
    pub kept: u64,
    /// Dialogues this step adds (cells that grew, new scenarios).
    pub added: u64,
    /// Dialogues this step makes again (scenarios whose file changed).
    pub regenerated: u64,
    /// Scenarios the corpus did not have.
    pub new_scenarios: Vec<String>,
    /// Every step's header, this one last.
    pub steps: Vec<RunHeader>,
}

/// How a step's plan positions fall into shards.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    /// The step's first shard index.
    pub first_shard: u32,
    /// Dialogues the step makes.
    pub len: u64,
    /// Dialogues per shard.
    pub rows: u64,
}

impl Layout {
    /// The layout of a step header with `len` dialogues.
    pub fn of(header: &RunHeader, len: u64) -> Layout {
        Layout {
            first_shard: header.first_shard,
            len,
            rows: header.rows_per_shard,
        }
    }

    /// Shards of the step.
    pub fn shards(&self) -> u32 {
        self.len.div_ceil(self.rows) as u32
    }

    /// The step's shard indices.
    pub fn indices(&self) -> std::ops::Range<u32> {
        self.first_shard..self.first_shard + self.shards()
    }

    /// The plan positions of shard `k` (a global index of this step).
    pub fn positions(&self, k: u32) -> std::ops::Range<u64> {
        let start = (k - self.first_shard) as u64 * self.rows;
        start..(start + self.rows).min(self.len)
    }
}

/// The dialogues a step's plan starts from: the counts of the step before (none for the
/// first), without the scenarios the step makes again.
fn base_of(steps: &[RunHeader], i: usize) -> BTreeMap<String, u64> {
    if i == 0 {
        return BTreeMap::new();
    }
    let regenerate = &steps[i].regenerate;
    steps[i - 1]
        .cells
        .iter()
        .filter(|(k, _)| {
            let scenario = k.split('/').next().unwrap_or_default();
            !regenerate.iter().any(|r| r == scenario)
        })
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

/// Whether a step's shards are all written whole, and the scenarios it makes again are gone
/// from the shards before it.
pub fn step_complete(header: &RunHeader, len: u64, done: &[ShardInfo]) -> bool {
    let layout = Layout::of(header, len);
    let by_index: BTreeMap<u32, &ShardInfo> = done.iter().map(|s| (s.index, s)).collect();
    let written = layout.indices().all(|k| {
        by_index
            .get(&k)
            .is_some_and(|s| !crate::generate::stats_of(s).partial)
    });
    written && stale_shards(header, done).is_empty()
}

/// The shards before `header`'s step that still hold dialogues of a scenario it makes again.
pub fn stale_shards<'a>(header: &RunHeader, done: &'a [ShardInfo]) -> Vec<&'a ShardInfo> {
    if header.regenerate.is_empty() {
        return Vec::new();
    }
    done.iter()
        .filter(|s| s.index < header.first_shard)
        .filter(|s| {
            let st = crate::generate::stats_of(s);
            let holds = |k: &String| {
                let scenario = k.split('/').next().unwrap_or_default();
                header.regenerate.iter().any(|r| r == scenario)
            };
            st.written.keys().any(holds)
                || st.rejected.keys().any(holds)
                || st.cell_findings.keys().any(holds)
        })
        .collect()
}

fn describe_changes(old: &BTreeMap<String, String>, new: &BTreeMap<String, String>) -> String {
    let mut parts = Vec::new();
    for (k, v) in new {
        match old.get(k) {
            None => parts.push(format!("{k} added")),
            Some(o) if o != v => parts.push(format!("{k} changed")),
            _ => {}
        }
    }
    for k in old.keys().filter(|k| !new.contains_key(*k)) {
        parts.push(format!("{k} removed"));
    }
    parts.join(", ")
}

/// Decides what a run on `cfg.out` does. `fingerprint` is the run fingerprint, `shared` the
/// fingerprints of the shared files the run's dialogues depend on.
pub fn plan_step(
    lib: &Library,
    cfg: &GenerateConfig,
    fingerprint: &str,
    shared: &BTreeMap<String, String>,
) -> Result<Step> {
    let history = Ledger::history(&cfg.out)?;
    let scenarios = lib.fingerprints.scenarios.clone();
    let allocations = Plan::allocate(&lib.set, cfg.count, &cfg.distribution)?;
    let targets: BTreeMap<String, u64> = allocations
        .iter()
        .map(|a| (a.cell.key(), a.count))
        .collect();
    let mut header = RunHeader {
        fingerprint: fingerprint.to_string(),
        seed: cfg.seed,
        count: cfg.count,
        rows_per_shard: cfg.rows_per_shard,
        step: 0,
        first_shard: 0,
        cells: targets.clone(),
        scenarios: scenarios.clone(),
        shared: shared.clone(),
        regenerate: Vec::new(),
    };
    let Some(History { steps, done }) = history else {
        let plan = Plan::build(&lib.set, cfg.seed, cfg.count, &cfg.distribution)?;
        return Ok(Step {
            kind: StepKind::Fresh,
            added: plan.len(),
            plan,
            kept: 0,
            regenerated: 0,
            new_scenarios: Vec::new(),
            steps: vec![header.clone()],
            header,
        });
    };
    let err = |message: String| Error::Grow {
        dir: cfg.out.clone(),
        message,
    };
    let last_i = steps.len() - 1;
    let last = steps[last_i].clone();
    if last.cells.is_empty() {
        return Err(err(
            "the corpus was written by an earlier callbench, before corpora could grow: \
             make it again in a new --out"
                .into(),
        ));
    }
    if last.seed != cfg.seed {
        return Err(corpus::CorpusError::DifferentRun {
            dir: cfg.out.clone(),
            found: format!("seed {}, count {}", last.seed, last.count),
            wanted: format!(
                "seed {}; a corpus grows only with its own seed: rerun with --seed {} to grow \
                 or resume it",
                cfg.seed, last.seed
            ),
        }
        .into());
    }
    if last.fingerprint != fingerprint {
        let what = describe_changes(&last.shared, shared);
        let what = if what.is_empty() {
            "other generation settings (max_turns, max_attempts, backend, models, check, judge, \
             split, min_turns, near_duplicate_threshold or the prompts)"
                .to_string()
        } else {
            format!("shared library files every dialogue depends on: {what}")
        };
        return Err(corpus::CorpusError::DifferentRun {
            dir: cfg.out.clone(),
            found: format!(
                "seed {}, count {}, fingerprint {}",
                last.seed, last.count, last.fingerprint
            ),
            wanted: format!(
                "{what}, so every dialogue would be made again; restore them to grow or resume \
                 this corpus"
            ),
        }
        .into());
    }
    // The same step again: resume it.
    let same = RunHeader {
        step: last.step,
        first_shard: last.first_shard,
        regenerate: last.regenerate.clone(),
        ..header.clone()
    };
    if same == last {
        let base = base_of(&steps, last_i);
        let plan = Plan::grow(&lib.set, cfg.seed, cfg.count, &cfg.distribution, &base)?;
        let kept = base.values().sum();
        let before = if last_i == 0 {
            BTreeMap::new()
        } else {
            steps[last_i - 1].cells.clone()
        };
        let regenerated: u64 = before
            .iter()
            .filter(|(k, _)| {
                let s = k.split('/').next().unwrap_or_default();
                last.regenerate.iter().any(|r| r == s)
            })
            .map(|(_, v)| v)
            .sum();
        return Ok(Step {
            kind: StepKind::Resume,
            added: plan.len() - regenerated,
            plan,
            header: last,
            kept,
            regenerated,
            new_scenarios: Vec::new(),
            steps,
        });
    }
    // A new step: only after the last one is finished.
    let last_len: u64 =
        last.cells.values().sum::<u64>() - base_of(&steps, last_i).values().sum::<u64>();
    if !step_complete(&last, last_len, &done) {
        return Err(err(format!(
            "the corpus's last run did not finish (seed {}, count {}, {} rows per shard): finish \
             it first by running generate again with the settings and library it was started \
             with, then grow the corpus",
            last.seed, last.count, last.rows_per_shard
        )));
    }
    let removed: Vec<&String> = last
        .scenarios
        .keys()
        .filter(|s| !scenarios.contains_key(*s))
        .collect();
    if !removed.is_empty() {
        return Err(err(format!(
            "the corpus holds dialogues of {}, which the library no longer has: a corpus does not \
             shrink. Put the scenario file back (--scenarios DIR), or use another --out",
            removed
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let shrinks = Plan::shrinks(&allocations, &last.cells);
    if !shrinks.is_empty() {
        let cells: Vec<String> = shrinks
            .iter()
            .take(3)
            .map(|s| {
                format!(
                    "{} holds {}, the plan gives it {}",
                    s.cell, s.have, s.planned
                )
            })
            .collect();
        let more = if shrinks.len() > 3 { ", …" } else { "" };
        let fix =
            match Plan::smallest_count_keeping(&lib.set, &cfg.distribution, &last.cells, cfg.count)
            {
                Some(n) => format!("raise --count to at least {n}, or "),
                None => String::new(),
            };
        return Err(err(format!(
            "a corpus does not shrink, and count {} would take dialogues away ({}{more}): {fix}\
             fix the scenarios' counts in [distribution] scenario_counts",
            cfg.count,
            cells.join("; ")
        )));
    }
    let regenerate: Vec<String> = last
        .scenarios
        .iter()
        .filter(|(s, fp)| scenarios.get(*s).is_some_and(|f| f != *fp))
        .map(|(s, _)| s.clone())
        .collect();
    let new_scenarios: Vec<String> = scenarios
        .keys()
        .filter(|s| !last.scenarios.contains_key(*s))
        .cloned()
        .collect();
    header.step = last.step + 1;
    header.first_shard = done
        .iter()
        .map(|s| s.index + 1)
        .max()
        .unwrap_or(0)
        .max(last.first_shard + Layout::of(&last, last_len).shards());
    header.regenerate = regenerate;
    let mut steps = steps;
    steps.push(header.clone());
    let base = base_of(&steps, steps.len() - 1);
    let plan = Plan::grow(&lib.set, cfg.seed, cfg.count, &cfg.distribution, &base)?;
    let kept: u64 = base.values().sum();
    let regenerated: u64 = last
        .cells
        .iter()
        .filter(|(k, _)| !base.contains_key(*k))
        .map(|(_, v)| v)
        .sum();
    Ok(Step {
        kind: StepKind::Grow,
        added: plan.len() - regenerated,
        plan,
        header,
        kept,
        regenerated,
        new_scenarios,
        steps,
    })
}
