//! The plan: from `(seed, count, distribution)` a deterministic allocation of dialogues to cells
//! scenario × preset case × relation, a stable id and a sub-seed for every dialogue.
//!
//! A dialogue's identity is its cell and its ordinal within the cell: the id is the scenario and a
//! 64-bit hash of the two (`takeout-3f9c0a4e51b27d86` — the cell is not spelled out, so that the
//! id does not give a method its labels), and its sub-seeds depend only on the run seed and the
//! id. Nothing in it depends on the other scenarios or on the total count, so adding a
//! scenario or raising a count leaves every existing dialogue's identity (and an LLM run's
//! cached calls) as it was, and a corpus can grow in place ([`Plan::grow`]).
//!
//! Counts are shared out in two levels — the scenarios first (fixed counts, then weights), then
//! each scenario's cells by its own weights — both with Webster's divisor method, which is
//! house-monotone: a larger count never gives any cell fewer dialogues.

use crate::error::{ModelError, Result};
use crate::scenario::ScenarioSet;
use crate::vocab::{PresetCase, Relation};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How the corpus is spread over cells. Weights are relative; a missing key weighs 0 unless the
/// whole map is empty, in which case the default applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Distribution {
    /// Weight per scenario name; empty means every scenario weighs the same.
    pub scenarios: BTreeMap<String, f64>,
    /// Fixed dialogue counts per scenario name, taken from the total first; the scenarios not
    /// named here share the rest by `scenarios` weight. Lets a team add a scenario without
    /// taking dialogues from the others.
    pub scenario_counts: BTreeMap<String, u64>,
    /// Preset-case weights in scenarios that have regular presets.
    pub preset_cases_with_regular: BTreeMap<PresetCase, f64>,
    /// Preset-case weights in scenarios without regular presets.
    pub preset_cases_without_regular: BTreeMap<PresetCase, f64>,
    /// Relation weights when a preset is active.
    pub relations: BTreeMap<Relation, f64>,
}

impl Distribution {
    /// The loaded scenarios that a non-empty `scenarios` map does not name: they get no
    /// dialogues, which is easy to do by accident when a team adds a scenario file and forgets
    /// the config. Naming a scenario with weight 0 says it on purpose. Empty when the map is.
    pub fn unnamed_scenarios<'a>(&self, set: &'a ScenarioSet) -> Vec<&'a str> {
        if self.scenarios.is_empty() {
            return Vec::new();
        }
        set.scenarios
            .iter()
            .map(|s| s.name())
            .filter(|n| !self.scenarios.contains_key(*n) && !self.scenario_counts.contains_key(*n))
            .collect()
    }
}

impl Default for Distribution {
    fn default() -> Self {
        Distribution {
            scenarios: BTreeMap::new(),
            scenario_counts: BTreeMap::new(),
            preset_cases_with_regular: BTreeMap::from([
                (PresetCase::Regular, 0.5),
                (PresetCase::Emergent, 0.3),
                (PresetCase::None, 0.2),
            ]),
            preset_cases_without_regular: BTreeMap::from([
                (PresetCase::Emergent, 0.75),
                (PresetCase::None, 0.25),
            ]),
            relations: BTreeMap::from([
                (Relation::Alignment, 0.25),
                (Relation::Complementarity, 0.25),
                (Relation::Irrelevance, 0.25),
                (Relation::Conflict, 0.25),
            ]),
        }
    }
}

/// One cell of the plan.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cell {
    /// Scenario name.
    pub scenario: String,
    /// Preset case.
    pub preset_case: PresetCase,
    /// Relation.
    pub relation: Relation,
}

impl Cell {
    /// The cell's key in manifests and ledgers: `scenario/preset_case/relation`.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.scenario, self.preset_case, self.relation)
    }

    /// The id of the cell's dialogue number `ordinal`: the scenario and a 64-bit hash of the
    /// cell and the ordinal (`takeout-3f9c0a4e51b27d86`), stable whatever else the plan holds.
    pub fn id(&self, ordinal: u64) -> String {
        // The cell is hashed, not spelled out: an id that said `conflict` would hand a method
        // (which sees the id) the very label it is scored on.
        let h = mix64(fnv1a(self.key().as_bytes()) ^ mix64(ordinal));
        format!("{}-{h:016x}", self.scenario)
    }
}

/// A cell and how many dialogues it gets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Allocation {
    /// The cell.
    #[serde(flatten)]
    pub cell: Cell,
    /// Dialogues planned in it.
    pub count: u64,
}

/// One planned dialogue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlannedDialogue {
    /// Position in the plan (0-based); shards hold consecutive positions.
    pub index: u64,
    /// Stable id.
    pub id: String,
    /// Index into [`Plan::allocations`].
    pub cell: usize,
    /// The dialogue's own seed.
    pub seed: u64,
}

/// The deterministic plan of a run, or of one step of a growing corpus: the dialogues of every
/// cell from its `base` (made by earlier steps, kept) up to its count.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Run seed.
    pub seed: u64,
    /// Cells with their counts in the finished corpus, in a fixed order.
    pub allocations: Vec<Allocation>,
    /// Per cell: the dialogues earlier steps made (ordinals below it); this plan makes the rest.
    pub base: Vec<u64>,
    // Per position: its cell index.
    cells: Cells,
    // Per block of `ORDINAL_STRIDE` positions and cell: how many of the cell's dialogues of
    // this plan come before the block. A position's ordinal within its cell is its base plus
    // the block's count plus a scan of at most `ORDINAL_STRIDE - 1` positions.
    checkpoints: Vec<u32>,
}

/// A cell the new plan gives fewer dialogues than the corpus already holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shrink {
    /// Cell key, `scenario/preset_case/relation`.
    pub cell: String,
    /// Dialogues of the cell in the corpus.
    pub have: u64,
    /// Dialogues the new plan gives it.
    pub planned: u64,
}

/// Positions per ordinal checkpoint of a [`Plan`].
const ORDINAL_STRIDE: usize = 64;

/// The cell of every position: two bytes each while there are at most 65,536 cells.
#[derive(Debug, Clone)]
enum Cells {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

impl Cells {
    fn len(&self) -> usize {
        match self {
            Cells::Narrow(v) => v.len(),
            Cells::Wide(v) => v.len(),
        }
    }

    fn get(&self, i: usize) -> usize {
        match self {
            Cells::Narrow(v) => v[i] as usize,
            Cells::Wide(v) => v[i] as usize,
        }
    }
}

/// The slots of a plan, one per dialogue to make, each its cell index, shuffled by `rng`. The
/// shuffle draws the same swaps whatever the element type, so narrow and wide slots agree.
fn shuffled_slots<T: Copy + TryFrom<usize>>(
    todo: &[u64],
    count: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<T> {
    let mut slots: Vec<T> = Vec::with_capacity(count as usize);
    for (i, &n) in todo.iter().enumerate() {
        let c = T::try_from(i).ok().expect("cell index fits");
        slots.extend(std::iter::repeat_n(c, n as usize));
    }
    slots.shuffle(rng);
    slots
}

/// splitmix64: a well-mixed 64-bit hash step, so that neighbouring ids get unrelated seeds.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// FNV-1a over bytes; stable across platforms and releases, unlike `DefaultHasher`.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The sub-seed of dialogue `id` in a run with `seed`, for generation attempt `attempt`.
///
/// Sub-seeds are kept to 63 bits so that they survive readers that go through a signed 64-bit
/// integer (or a JavaScript number for small tools).
pub fn sub_seed(seed: u64, id: &str, attempt: u32) -> u64 {
    mix64(seed ^ mix64(fnv1a(id.as_bytes())) ^ mix64(attempt as u64 + 1).rotate_left(17))
        & (i64::MAX as u64)
}

fn weights_or_default<K: Ord + Copy>(
    given: &BTreeMap<K, f64>,
    fallback: &BTreeMap<K, f64>,
) -> BTreeMap<K, f64> {
    if given.is_empty() {
        fallback.clone()
    } else {
        given.clone()
    }
}

/// Largest-remainder apportionment of `total` over `weights`; ties go to the earlier entry.
pub fn apportion(total: u64, weights: &[f64]) -> Vec<u64> {
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let quotas: Vec<f64> = weights.iter().map(|w| w / sum * total as f64).collect();
    let mut counts: Vec<u64> = quotas.iter().map(|q| q.floor() as u64).collect();
    let assigned: u64 = counts.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let ra = quotas[a] - quotas[a].floor();
        let rb = quotas[b] - quotas[b].floor();
        rb.partial_cmp(&ra)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.cmp(&b))
    });
    for &i in order.iter().take((total - assigned.min(total)) as usize) {
        counts[i] += 1;
    }
    counts
}

/// Webster's (Sainte-Laguë) divisor apportionment of `total` over `weights`, seat by seat to the
/// largest `w / (2c + 1)`, ties to the earlier entry. House-monotone: `webster(n + 1, w)` gives
/// no entry less than `webster(n, w)`, so a growing corpus never has to take a dialogue back.
pub fn webster(total: u64, weights: &[f64]) -> Vec<u64> {
    let mut counts = vec![0u64; weights.len()];
    if weights.iter().all(|w| *w <= 0.0) {
        return counts;
    }
    for _ in 0..total {
        let mut best: Option<usize> = None;
        for (i, &w) in weights.iter().enumerate() {
            if w <= 0.0 {
                continue;
            }
            best = match best {
                // w_i / (2c_i + 1) > w_b / (2c_b + 1), cross-multiplied.
                Some(b)
                    if w * (2 * counts[b] + 1) as f64
                        <= weights[b] * (2 * counts[i] + 1) as f64 =>
                {
                    Some(b)
                }
                _ => Some(i),
            };
        }
        counts[best.expect("a positive weight")] += 1;
    }
    counts
}

fn check_weight(key: &str, w: f64) -> Result<()> {
    if w >= 0.0 && w.is_finite() {
        Ok(())
    } else {
        Err(ModelError::Plan(format!("{key} must be a number ≥ 0")))
    }
}

impl Plan {
    /// The cells and their counts for a corpus of `count` dialogues: fixed scenario counts
    /// first, the rest over the other scenarios by weight, then each scenario's count over its
    /// cells. Fails when a weight is negative, a name is not a loaded scenario, the fixed counts
    /// exceed `count`, or dialogues are left that no scenario may take.
    pub fn allocate(set: &ScenarioSet, count: u64, dist: &Distribution) -> Result<Vec<Allocation>> {
        let defaults = Distribution::default();
        for (name, w) in &dist.scenarios {
            if set.get(name).is_none() {
                return Err(ModelError::Plan(format!(
                    "distribution.scenarios names {name:?}, which is not a loaded scenario"
                )));
            }
            check_weight(&format!("distribution.scenarios.{name}"), *w)?;
        }
        for name in dist.scenario_counts.keys() {
            if set.get(name).is_none() {
                return Err(ModelError::Plan(format!(
                    "distribution.scenario_counts names {name:?}, which is not a loaded scenario"
                )));
            }
        }
        let fixed: u64 = dist.scenario_counts.values().sum();
        if fixed > count {
            return Err(ModelError::Plan(format!(
                "distribution.scenario_counts add up to {fixed} dialogues, more than count {count}: \
                 raise --count (or `count`) to at least {fixed}"
            )));
        }
        let with_reg = weights_or_default(
            &dist.preset_cases_with_regular,
            &defaults.preset_cases_with_regular,
        );
        let without_reg = weights_or_default(
            &dist.preset_cases_without_regular,
            &defaults.preset_cases_without_regular,
        );
        let rels = weights_or_default(&dist.relations, &defaults.relations);
        for (k, w) in with_reg
            .iter()
            .map(|(k, w)| (k.to_string(), w))
            .chain(without_reg.iter().map(|(k, w)| (k.to_string(), w)))
            .chain(rels.iter().map(|(k, w)| (k.to_string(), w)))
        {
            check_weight(&format!("distribution weight for {k}"), *w)?;
        }
        if without_reg
            .get(&PresetCase::Regular)
            .copied()
            .unwrap_or(0.0)
            > 0.0
        {
            return Err(ModelError::Plan(
                "distribution.preset_cases_without_regular gives weight to `regular`, which those scenarios cannot have".into(),
            ));
        }
        if rels.get(&Relation::None).copied().unwrap_or(0.0) > 0.0 {
            return Err(ModelError::Plan(
                "distribution.relations gives weight to `none`; it is implied by preset case `none`".into(),
            ));
        }
        // The scenarios' counts: the fixed ones, then the rest by weight.
        let weighted: Vec<f64> = set
            .scenarios
            .iter()
            .map(|s| {
                if dist.scenario_counts.contains_key(s.name()) {
                    0.0
                } else if dist.scenarios.is_empty() {
                    1.0
                } else {
                    dist.scenarios.get(s.name()).copied().unwrap_or(0.0)
                }
            })
            .collect();
        let rest = count - fixed;
        if rest > 0 && weighted.iter().all(|w| *w <= 0.0) {
            return Err(ModelError::Plan(format!(
                "{rest} of the {count} dialogues go to no scenario: every scenario has a fixed \
                 count or weight 0 (set count to {fixed}, or give a scenario a weight)"
            )));
        }
        let shares = webster(rest, &weighted);
        let mut allocations = Vec::new();
        for (s, share) in set.scenarios.iter().zip(shares) {
            let n = dist.scenario_counts.get(s.name()).copied().unwrap_or(share);
            let has_regular = !s.file.regular_presets.is_empty();
            let cases = if has_regular { &with_reg } else { &without_reg };
            let case_sum: f64 = cases.values().sum();
            let rel_sum: f64 = rels.values().sum();
            let mut cells = Vec::new();
            let mut weights = Vec::new();
            for &case in PresetCase::ALL {
                if case == PresetCase::Regular && !has_regular {
                    continue;
                }
                let cw = cases.get(&case).copied().unwrap_or(0.0);
                for &rel in case.relations() {
                    let rw = if case == PresetCase::None {
                        1.0
                    } else {
                        rels.get(&rel).copied().unwrap_or(0.0) / rel_sum.max(f64::MIN_POSITIVE)
                    };
                    cells.push(Cell {
                        scenario: s.name().to_string(),
                        preset_case: case,
                        relation: rel,
                    });
                    weights.push(cw / case_sum.max(f64::MIN_POSITIVE) * rw);
                }
            }
            if n > 0 && weights.iter().all(|w| *w <= 0.0) {
                return Err(ModelError::Plan(format!(
                    "the distribution gives no cell of scenario {} any weight",
                    s.name()
                )));
            }
            for (cell, count) in cells.into_iter().zip(webster(n, &weights)) {
                allocations.push(Allocation { cell, count });
            }
        }
        Ok(allocations)
    }

    /// Makes the plan of a fresh corpus. Fails when `count` is 0 or as [`Plan::allocate`] does.
    pub fn build(set: &ScenarioSet, seed: u64, count: u64, dist: &Distribution) -> Result<Plan> {
        Plan::grow(set, seed, count, dist, &BTreeMap::new())
    }

    /// The cells whose count in `allocations` is below what `base` (cell key → dialogues the
    /// corpus holds) says is there; a cell of `base` missing from `allocations` counts as 0.
    pub fn shrinks(allocations: &[Allocation], base: &BTreeMap<String, u64>) -> Vec<Shrink> {
        let planned: BTreeMap<String, u64> = allocations
            .iter()
            .map(|a| (a.cell.key(), a.count))
            .collect();
        base.iter()
            .filter_map(|(k, &have)| {
                let p = planned.get(k).copied().unwrap_or(0);
                (p < have).then(|| Shrink {
                    cell: k.clone(),
                    have,
                    planned: p,
                })
            })
            .collect()
    }

    /// The smallest count from `from` on whose allocation keeps every cell of `base`, if the
    /// distribution can keep them at all (a removed scenario or cell never comes back).
    pub fn smallest_count_keeping(
        set: &ScenarioSet,
        dist: &Distribution,
        base: &BTreeMap<String, u64>,
        from: u64,
    ) -> Option<u64> {
        let ok =
            |n: u64| Plan::allocate(set, n, dist).is_ok_and(|a| Plan::shrinks(&a, base).is_empty());
        // House-monotone allocation: once a count keeps every cell, every larger one does.
        let mut hi = from.max(1);
        while !ok(hi) {
            hi = hi.checked_mul(2)?;
            if hi > 100_000_000 {
                return None;
            }
        }
        let mut lo = from.max(1);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if ok(mid) { hi = mid } else { lo = mid + 1 }
        }
        Some(hi)
    }

    /// The plan of one step of a growing corpus: `base` (cell key → dialogues earlier steps
    /// made, ordinals `0..n`) is kept and the rest of each cell's count is planned. Fails when a
    /// cell would shrink, naming it, and as [`Plan::build`] does.
    pub fn grow(
        set: &ScenarioSet,
        seed: u64,
        count: u64,
        dist: &Distribution,
        base: &BTreeMap<String, u64>,
    ) -> Result<Plan> {
        if count == 0 {
            return Err(ModelError::Plan("count must be at least 1".into()));
        }
        if count > u32::MAX as u64 {
            return Err(ModelError::Plan(format!(
                "count {count} is more than one plan holds ({})",
                u32::MAX
            )));
        }
        let allocations = Plan::allocate(set, count, dist)?;
        if allocations.iter().map(|a| a.count).sum::<u64>() == 0 {
            return Err(ModelError::Plan(
                "the distribution gives no cell any weight".into(),
            ));
        }
        if let Some(s) = Plan::shrinks(&allocations, base).first() {
            return Err(ModelError::Plan(format!(
                "the corpus holds {} dialogues of {}, the plan gives it {}",
                s.have, s.cell, s.planned
            )));
        }
        let base: Vec<u64> = allocations
            .iter()
            .map(|a| base.get(&a.cell.key()).copied().unwrap_or(0))
            .collect();
        let todo: Vec<u64> = allocations
            .iter()
            .zip(&base)
            .map(|(a, b)| a.count - b)
            .collect();
        let n: u64 = todo.iter().sum();
        let kept: u64 = base.iter().sum();
        // Interleave the cells so that any prefix of the plan (a shard, a partial run) is a fair
        // sample of the whole. A later step of a growing corpus shuffles with its own stream.
        let salt = if kept == 0 { 0 } else { mix64(kept) };
        let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0x5ca1_ab1e) ^ salt);
        let cells = if allocations.len() <= u16::MAX as usize + 1 {
            Cells::Narrow(shuffled_slots(&todo, n, &mut rng))
        } else {
            Cells::Wide(shuffled_slots(&todo, n, &mut rng))
        };
        let ncells = allocations.len();
        let mut checkpoints = Vec::with_capacity(cells.len().div_ceil(ORDINAL_STRIDE) * ncells);
        let mut counts = vec![0u32; ncells];
        for i in 0..cells.len() {
            if i % ORDINAL_STRIDE == 0 {
                checkpoints.extend_from_slice(&counts);
            }
            counts[cells.get(i)] += 1;
        }
        Ok(Plan {
            seed,
            allocations,
            base,
            cells,
            checkpoints,
        })
    }

    /// Number of dialogues this plan makes.
    pub fn len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Whether the plan makes nothing (a corpus already complete).
    pub fn is_empty(&self) -> bool {
        self.cells.len() == 0
    }

    /// Dialogues in the finished corpus.
    pub fn total(&self) -> u64 {
        self.allocations.iter().map(|a| a.count).sum()
    }

    /// The dialogue at position `index`.
    pub fn get(&self, index: u64) -> Option<PlannedDialogue> {
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.cells.len())?;
        let cell = self.cells.get(i);
        let block = i / ORDINAL_STRIDE;
        let before = (block * ORDINAL_STRIDE..i)
            .filter(|&j| self.cells.get(j) == cell)
            .count() as u64;
        let ordinal = self.base[cell]
            + self.checkpoints[block * self.allocations.len() + cell] as u64
            + before;
        let id = self.allocations[cell].cell.id(ordinal);
        let seed = sub_seed(self.seed, &id, 0);
        Some(PlannedDialogue {
            index,
            id,
            cell,
            seed,
        })
    }

    /// The dialogues at positions `range`.
    pub fn range(&self, range: std::ops::Range<u64>) -> impl Iterator<Item = PlannedDialogue> + '_ {
        range.filter_map(move |i| self.get(i))
    }

    /// The cell of a planned dialogue.
    pub fn cell(&self, d: &PlannedDialogue) -> &Cell {
        &self.allocations[d.cell].cell
    }

    /// The count of every cell by key, `scenario/preset_case/relation`.
    pub fn targets(&self) -> BTreeMap<String, u64> {
        self.allocations
            .iter()
            .map(|a| (a.cell.key(), a.count))
            .collect()
    }
}
