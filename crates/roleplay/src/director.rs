//! Casting: turning a planned dialogue into a concrete setup — owner, preset, caller role, goal
//! and event — deterministically from the dialogue's sub-seed.

use crate::error::{Error, Result};
use crate::library::Library;
use callbench_model::owner;
use callbench_model::plan::{Cell, PlannedDialogue, mix64};
use callbench_model::scenario::{Casting, PresetDef, Scenario, ScenarioSet};
use callbench_model::{Caller, Dialogue, Preset, PresetCase, Relation};
use phrasebook::Vars;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Every casting of every feasible cell, computed once per run.
pub struct Director {
    /// The library the castings index into.
    pub lib: Arc<Library>,
    castings: HashMap<(String, PresetCase, Relation), Vec<Casting>>,
}

/// A dialogue ready to be played: the header that will be stored, and what the agents need.
pub struct Setup<'a> {
    /// The dialogue without turns.
    pub header: Dialogue,
    /// The scenario.
    pub scenario: &'a Scenario,
    /// Role, goal, event, preset.
    pub casting: Casting,
    /// The rendered variables of this dialogue.
    pub vars: Vars,
    /// The active preset's definition (its cues).
    pub preset_def: Option<&'a PresetDef>,
    /// How the owner is addressed (`王先生`).
    pub owner_title: String,
    /// The caller's synthetic name.
    pub caller_name: String,
    /// The caller's own seed.
    pub caller_seed: u64,
    /// The assistant's own seed.
    pub assistant_seed: u64,
}

impl Director {
    /// Precomputes the castings of every cell.
    pub fn new(lib: Arc<Library>) -> Director {
        let mut castings = HashMap::new();
        for s in &lib.set.scenarios {
            for &case in PresetCase::ALL {
                for &rel in case.relations() {
                    castings.insert(
                        (s.name().to_string(), case, rel),
                        lib.set.castings(s, case, rel),
                    );
                }
            }
        }
        Director { lib, castings }
    }

    /// Casts dialogue `d` of cell `cell` with seed `seed` (the sub-seed of the attempt).
    pub fn cast(&self, cell: &Cell, d: &PlannedDialogue, seed: u64) -> Result<Setup<'_>> {
        let set: &ScenarioSet = &self.lib.set;
        let book = &self.lib.book;
        let cast_err = |message: String| Error::Cast {
            id: d.id.clone(),
            message,
        };
        let scenario = set
            .get(&cell.scenario)
            .ok_or_else(|| cast_err(format!("unknown scenario {}", cell.scenario)))?;
        let options = self
            .castings
            .get(&(cell.scenario.clone(), cell.preset_case, cell.relation))
            .filter(|c| !c.is_empty())
            .ok_or_else(|| {
                cast_err(format!(
                    "{} × {} cannot be cast in {}",
                    cell.preset_case, cell.relation, cell.scenario
                ))
            })?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let casting = options[rng.random_range(0..options.len())];
        let drawn = owner::draw(&set.owners, &mut rng);
        let f = &scenario.file;
        let mut slots = BTreeMap::new();
        for (k, v) in set.slots.iter().chain(f.slots.iter()) {
            if let Some(x) = v.choose(&mut rng) {
                slots.insert(k.clone(), x.clone());
            }
        }
        let caller_name = set
            .caller_names
            .choose(&mut rng)
            .cloned()
            .unwrap_or_default();
        let pron = if drawn.title.ends_with("女士") {
            "她"
        } else {
            "他"
        };
        let vars = Vars::new(&slots, &drawn.title, pron, &caller_name);
        let role = &f.roles[casting.role];
        let phrases = book
            .scenario(scenario.name())
            .ok_or_else(|| cast_err("no phrases".into()))?;
        let render =
            |p: &phrasebook::Phrase| book.render(p, &vars).map_err(|e| cast_err(e.to_string()));
        let goal = render(&phrases.goals[casting.goal].goal)?;
        let events = match casting.event {
            Some(e) => vec![render(&phrases.events[e].description)?],
            None => Vec::new(),
        };
        let mut header_owner = drawn.owner;
        let mut preset_def = None;
        if let Some(r) = casting.preset {
            let def = set.preset_def(scenario, r);
            let phrase = match r {
                callbench_model::PresetRef::Regular(i) => &phrases.regular_presets[i].response,
                callbench_model::PresetRef::ScenarioEmergent(i) => {
                    &phrases.emergent_presets[i].response
                }
                callbench_model::PresetRef::SharedEmergent(i) => &book.shared_emergent[i].response,
            };
            header_owner.presets.push(Preset {
                id: "p1".into(),
                kind: ScenarioSet::preset_kind(r),
                trigger: def.trigger.clone(),
                response: render(phrase)?,
            });
            preset_def = Some(def);
        }
        let persona = role.personas.choose(&mut rng).cloned();
        let header = Dialogue {
            id: d.id.clone(),
            scenario: cell.scenario.clone(),
            preset_case: cell.preset_case,
            relation: cell.relation,
            owner: header_owner,
            caller: Caller {
                role: role.role.clone(),
                goal,
                persona,
                events,
            },
            turns: Vec::new(),
            split: None,
            qc: None,
            r#gen: None,
            judge: None,
        };
        Ok(Setup {
            header,
            scenario,
            casting,
            vars,
            preset_def,
            owner_title: drawn.title.clone(),
            caller_name: caller_name.clone(),
            caller_seed: mix64(seed ^ 0xca11e4),
            assistant_seed: mix64(seed ^ 0xa551_57a7),
        })
    }
}
