//! The plan: from `(seed, count, distribution)` a deterministic allocation of dialogues to cells
//! scenario × preset case × relation, a stable id and a sub-seed for every dialogue.
//!
//! Ids are `<scenario>-<ordinal>` where the ordinal counts within the scenario, and sub-seeds
//! depend only on the run seed and the id, so any dialogue can be regenerated alone and the plan
//! can be split across machines by id range.

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
            .filter(|n| !self.scenarios.contains_key(*n))
            .collect()
    }
}

impl Default for Distribution {
    fn default() -> Self {
        Distribution {
            scenarios: BTreeMap::new(),
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

/// The deterministic plan of a run.
#[derive(Debug, Clone)]
pub struct Plan {
    /// Run seed.
    pub seed: u64,
    /// Cells with their counts, in a fixed order.
    pub allocations: Vec<Allocation>,
    // Per position: its cell index.
    cells: Cells,
    // Per cell: the index of its scenario.
    scenario_of: Vec<u32>,
    // How many scenarios there are.
    scenarios: usize,
    // Per block of `ORDINAL_STRIDE` positions and scenario: how many of the scenario's
    // dialogues come before the block. A position's ordinal within its scenario is the block's
    // count plus a scan of at most `ORDINAL_STRIDE - 1` positions.
    checkpoints: Vec<u32>,
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

/// The slots of a plan, one per dialogue, each its cell index, shuffled by `rng`. The shuffle
/// draws the same swaps whatever the element type, so narrow and wide slots agree.
fn shuffled_slots<T: Copy + TryFrom<usize>>(
    allocations: &[Allocation],
    count: u64,
    rng: &mut ChaCha8Rng,
) -> Vec<T> {
    let mut slots: Vec<T> = Vec::with_capacity(count as usize);
    for (i, a) in allocations.iter().enumerate() {
        let c = T::try_from(i).ok().expect("cell index fits");
        slots.extend(std::iter::repeat_n(c, a.count as usize));
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

impl Plan {
    /// Makes the plan. Fails when `count` is 0, a weight is negative or names an unknown
    /// scenario, or no cell has weight.
    pub fn build(set: &ScenarioSet, seed: u64, count: u64, dist: &Distribution) -> Result<Plan> {
        if count == 0 {
            return Err(ModelError::Plan("count must be at least 1".into()));
        }
        if count > u32::MAX as u64 {
            return Err(ModelError::Plan(format!(
                "count {count} is more than one plan holds ({})",
                u32::MAX
            )));
        }
        let defaults = Distribution::default();
        for (name, w) in &dist.scenarios {
            if set.get(name).is_none() {
                return Err(ModelError::Plan(format!(
                    "distribution.scenarios names {name:?}, which is not a loaded scenario"
                )));
            }
            if !(*w >= 0.0 && w.is_finite()) {
                return Err(ModelError::Plan(format!(
                    "distribution.scenarios.{name} must be a number ≥ 0"
                )));
            }
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
            if !(*w >= 0.0 && w.is_finite()) {
                return Err(ModelError::Plan(format!(
                    "distribution weight for {k} must be a number ≥ 0"
                )));
            }
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
        let mut cells = Vec::new();
        let mut weights = Vec::new();
        for s in &set.scenarios {
            let sw = if dist.scenarios.is_empty() {
                1.0
            } else {
                dist.scenarios.get(s.name()).copied().unwrap_or(0.0)
            };
            let has_regular = !s.file.regular_presets.is_empty();
            let cases = if has_regular { &with_reg } else { &without_reg };
            let case_sum: f64 = cases.values().sum();
            let rel_sum: f64 = rels.values().sum();
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
                    weights.push(sw * cw / case_sum.max(f64::MIN_POSITIVE) * rw);
                }
            }
        }
        if weights.iter().sum::<f64>() <= 0.0 {
            return Err(ModelError::Plan(
                "the distribution gives no cell any weight".into(),
            ));
        }
        let counts = apportion(count, &weights);
        let allocations: Vec<Allocation> = cells
            .into_iter()
            .zip(counts)
            .map(|(cell, count)| Allocation { cell, count })
            .collect();
        // Interleave the cells so that any prefix of the plan (a shard, a partial run) is a fair
        // sample of the whole, then number dialogues within their scenario.
        let mut rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0x5ca1_ab1e));
        let cells = if allocations.len() <= u16::MAX as usize + 1 {
            Cells::Narrow(shuffled_slots(&allocations, count, &mut rng))
        } else {
            Cells::Wide(shuffled_slots(&allocations, count, &mut rng))
        };
        let mut scenario_index: BTreeMap<&str, u32> = BTreeMap::new();
        let scenario_of: Vec<u32> = allocations
            .iter()
            .map(|a| {
                let next = scenario_index.len() as u32;
                *scenario_index
                    .entry(a.cell.scenario.as_str())
                    .or_insert(next)
            })
            .collect();
        let scenarios = scenario_index.len();
        let mut checkpoints = Vec::with_capacity(cells.len().div_ceil(ORDINAL_STRIDE) * scenarios);
        let mut counts = vec![0u32; scenarios];
        for i in 0..cells.len() {
            if i % ORDINAL_STRIDE == 0 {
                checkpoints.extend_from_slice(&counts);
            }
            counts[scenario_of[cells.get(i)] as usize] += 1;
        }
        Ok(Plan {
            seed,
            allocations,
            cells,
            scenario_of,
            scenarios,
            checkpoints,
        })
    }

    /// Number of planned dialogues.
    pub fn len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Whether the plan is empty (never, for a built plan).
    pub fn is_empty(&self) -> bool {
        self.cells.len() == 0
    }

    /// The dialogue at position `index`.
    pub fn get(&self, index: u64) -> Option<PlannedDialogue> {
        let i = usize::try_from(index)
            .ok()
            .filter(|&i| i < self.cells.len())?;
        let cell = self.cells.get(i);
        let scenario = self.scenario_of[cell];
        let block = i / ORDINAL_STRIDE;
        let before = (block * ORDINAL_STRIDE..i)
            .filter(|&j| self.scenario_of[self.cells.get(j)] == scenario)
            .count() as u32;
        let ord = self.checkpoints[block * self.scenarios + scenario as usize] + before;
        let id = format!("{}-{:06}", self.allocations[cell].cell.scenario, ord);
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

    /// A fingerprint of everything that decides the plan's dialogues.
    pub fn fingerprint(&self, library_digest: &str) -> String {
        let mut h = fnv1a(library_digest.as_bytes()) ^ mix64(self.seed);
        for a in &self.allocations {
            let line = format!(
                "{}|{}|{}|{}",
                a.cell.scenario, a.cell.preset_case, a.cell.relation, a.count
            );
            h = mix64(h ^ fnv1a(line.as_bytes()));
        }
        format!("{h:016x}")
    }
}
