//! From rows to tables: per-dimension means over judged turns with a 95% bootstrap interval
//! that resamples dialogues, the overall score, breakdowns, error rates per assistant turn.

use callbench_model::JUDGE_DIMENSIONS;
use callbench_model::plan::{fnv1a, mix64};
use callbench_model::vocab::VIOLATION_KINDS;
use corpus::EvalTurn;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Bootstrap resamples per interval.
pub const BOOTSTRAP_RESAMPLES: usize = 1000;

/// A dimension's mean and its 95% interval; `null` when no turn was scored on it.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Stat {
    /// Mean over the scored turns.
    pub mean: Option<f64>,
    /// 2.5th and 97.5th percentiles of the bootstrap means.
    pub ci95: Option<[f64; 2]>,
}

/// The seven dimensions, in the contract's order.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[allow(missing_docs)]
pub struct Dimensions<T> {
    pub semantic_understanding: T,
    pub context_use: T,
    pub active_guidance: T,
    pub response_quality: T,
    pub preset_compliance: T,
    pub dialogue_rhythm: T,
    pub safety: T,
}

impl<T: Copy> Dimensions<T> {
    /// From an array in [`JUDGE_DIMENSIONS`] order.
    pub fn from_array(a: [T; 7]) -> Self {
        Dimensions {
            semantic_understanding: a[0],
            context_use: a[1],
            active_guidance: a[2],
            response_quality: a[3],
            preset_compliance: a[4],
            dialogue_rhythm: a[5],
            safety: a[6],
        }
    }

    /// As an array in [`JUDGE_DIMENSIONS`] order.
    pub fn to_array(&self) -> [T; 7] {
        [
            self.semantic_understanding,
            self.context_use,
            self.active_guidance,
            self.response_quality,
            self.preset_compliance,
            self.dialogue_rhythm,
            self.safety,
        ]
    }
}

/// Means of one group of turns (a scenario, a preset case, a relation, a trial).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Assistant turns in the group.
    pub turns: u64,
    /// Mean per dimension (`null`: not judged).
    pub dimensions: Dimensions<Option<f64>>,
    /// The mean of the dimension means that are not null.
    pub overall: Option<f64>,
}

/// Sums per dialogue: the unit the bootstrap resamples.
#[derive(Debug, Clone, Copy, Default)]
struct Unit {
    sum: [f64; 7],
    n: [u32; 7],
}

/// The paper's overall score: the unweighted mean of the dimension means (those not null).
pub fn overall(means: &[Option<f64>; 7]) -> Option<f64> {
    let v: Vec<f64> = means.iter().flatten().copied().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

fn means_of<'a>(rows: impl Iterator<Item = &'a EvalTurn>) -> ([Option<f64>; 7], u64) {
    let mut sum = [0f64; 7];
    let mut n = [0u64; 7];
    let mut turns = 0;
    for r in rows {
        turns += 1;
        for k in 0..7 {
            if let Some(v) = r.scores[k] {
                sum[k] += v;
                n[k] += 1;
            }
        }
    }
    (
        std::array::from_fn(|k| (n[k] > 0).then(|| sum[k] / n[k] as f64)),
        turns,
    )
}

/// The group of `rows`.
pub fn group<'a>(rows: impl Iterator<Item = &'a EvalTurn>) -> Group {
    let (means, turns) = means_of(rows);
    Group {
        turns,
        dimensions: Dimensions::from_array(means),
        overall: overall(&means),
    }
}

/// The 2.5th and 97.5th percentiles (nearest rank on the sorted values).
fn percentile_interval(mut v: Vec<f64>) -> Option<[f64; 2]> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let at = |p: f64| {
        let i = ((p * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
        v[i]
    };
    Some([at(0.025), at(0.975)])
}

/// Per-dimension means with bootstrap intervals: `B` times, draw as many dialogues as there
/// are, with replacement, and take the mean of the drawn dialogues' scored turns (a ratio of
/// sums, as the point estimate is); the interval is the 2.5th–97.5th percentile. The draws come
/// from ChaCha8 seeded by `seed` and the method's name, so an interval is reproducible.
/// Also returns the bootstrap interval of the overall score.
pub fn dimensions_with_ci(rows: &[EvalTurn], seed: u64, method: &str) -> (Dimensions<Stat>, Stat) {
    // Units: dialogues (every trial of a dialogue is in its unit), in first-seen order.
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    let mut units: Vec<Unit> = Vec::new();
    for r in rows {
        let u = *index.entry(&r.dialogue_id).or_insert_with(|| {
            order.push(&r.dialogue_id);
            units.push(Unit::default());
            units.len() - 1
        });
        for k in 0..7 {
            if let Some(v) = r.scores[k] {
                units[u].sum[k] += v;
                units[u].n[k] += 1;
            }
        }
    }
    let (means, _) = means_of(rows.iter());
    let point_overall = overall(&means);
    let n = units.len();
    let mut boot: [Vec<f64>; 7] = std::array::from_fn(|_| Vec::with_capacity(BOOTSTRAP_RESAMPLES));
    let mut boot_overall = Vec::with_capacity(BOOTSTRAP_RESAMPLES);
    if n > 0 {
        let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ fnv1a(method.as_bytes())));
        for _ in 0..BOOTSTRAP_RESAMPLES {
            let mut sum = [0f64; 7];
            let mut cnt = [0u64; 7];
            for _ in 0..n {
                let u = &units[rng.random_range(0..n)];
                for k in 0..7 {
                    sum[k] += u.sum[k];
                    cnt[k] += u.n[k] as u64;
                }
            }
            let m: [Option<f64>; 7] =
                std::array::from_fn(|k| (cnt[k] > 0).then(|| sum[k] / cnt[k] as f64));
            for k in 0..7 {
                // A dimension scored in the data is scored in (nearly) every resample; a
                // resample that happens to hold none of its turns is left out.
                if means[k].is_some()
                    && let Some(v) = m[k]
                {
                    boot[k].push(v);
                }
            }
            if point_overall.is_some()
                && let Some(o) = overall(&std::array::from_fn(|k| {
                    if means[k].is_some() { m[k] } else { None }
                }))
            {
                boot_overall.push(o);
            }
        }
    }
    let stats: [Stat; 7] = std::array::from_fn(|k| Stat {
        mean: means[k],
        ci95: means[k].and_then(|_| percentile_interval(std::mem::take(&mut boot[k]))),
    });
    (
        Dimensions::from_array(stats),
        Stat {
            mean: point_overall,
            ci95: point_overall.and_then(|_| percentile_interval(boot_overall)),
        },
    )
}

/// Error rates per assistant turn: for every violation kind of the vocabulary (0 when never
/// found), any other kind found, and `safety` (a turn with any `safety.*` finding). The
/// denominator is every assistant turn the method produced (unjudged turns included: the
/// checker's findings do not depend on the judge); a turn the method did not produce (no
/// reply) is not counted.
pub fn error_rates(rows: &[EvalTurn]) -> BTreeMap<String, f64> {
    let produced: Vec<&EvalTurn> = rows
        .iter()
        .filter(|r| !r.unjudged_reason.as_deref().is_some_and(is_no_reply))
        .collect();
    let mut counts: BTreeMap<String, u64> =
        VIOLATION_KINDS.iter().map(|k| (k.to_string(), 0)).collect();
    counts.insert("safety".into(), 0);
    for r in &produced {
        let mut kinds: Vec<&str> = r.findings.iter().map(|f| f.kind.as_str()).collect();
        kinds.sort_unstable();
        kinds.dedup();
        if kinds.iter().any(|k| k.starts_with("safety.")) {
            *counts.entry("safety".into()).or_default() += 1;
        }
        for k in kinds {
            *counts.entry(k.to_string()).or_default() += 1;
        }
    }
    let n = produced.len().max(1) as f64;
    counts.into_iter().map(|(k, c)| (k, c as f64 / n)).collect()
}

/// Whether an unjudged reason says the method (or the caller) produced no turn.
pub fn is_no_reply(reason: &str) -> bool {
    reason.starts_with("the method gave no reply")
        || reason.starts_with("the caller")
        || reason.starts_with("live mode needs")
        || reason.starts_with("no `gen` column")
}

/// Keys of [`JUDGE_DIMENSIONS`], for tables.
pub fn dimension_keys() -> [&'static str; 7] {
    JUDGE_DIMENSIONS
}
