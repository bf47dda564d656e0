//! Casting: turning a planned dialogue into a concrete setup — owner, preset, caller role, goal
//! and event — deterministically from the dialogue's sub-seed.

use crate::error::{Error, Result};
use crate::library::Library;
use callbench_model::owner;
use callbench_model::plan::{Cell, PlannedDialogue, mix64};
use callbench_model::scenario::{Casting, EventKind, PresetDef, PresetRef, Scenario, ScenarioSet};
use callbench_model::{Caller, Dialogue, Preset, PresetCase, Relation};
use phrasebook::Vars;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// Share of owners with a preset who also hold a second one that does not apply to the call.
const SECOND_PRESET_RATE: f64 = 0.3;

/// Share of calls (where one fits) with a second event: an extra need on the side.
const EXTRA_EVENT_RATE: f64 = 0.25;

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
    /// The definitions of every preset the owner holds, in `header.owner.presets` order (the
    /// active one and any that do not apply to this call).
    pub preset_defs: Vec<&'a PresetDef>,
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
        // Slots drawn with another's value (an eye hospital's departments, not cardiology).
        for (k, dep) in &f.dependent_slots {
            let drawn = slots.get(&dep.on).and_then(|v| dep.values.get(v));
            if let Some(x) = drawn.and_then(|list| list.choose(&mut rng)) {
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
        // The scenario's own kinds of private fact (a diagnosis, a medication).
        for fact in &f.private_facts {
            if let Some(v) = fact.values.choose(&mut rng) {
                header_owner.private.insert(fact.key.clone(), v.clone());
            }
        }
        let preset_of = |r: PresetRef, id: &str| -> Result<Preset> {
            let def = set.preset_def(scenario, r);
            let phrase = match r {
                PresetRef::Regular(i) => &phrases.regular_presets[i].response,
                PresetRef::ScenarioEmergent(i) => &phrases.emergent_presets[i].response,
                PresetRef::SharedEmergent(i) => &book.shared_emergent[i].response,
            };
            Ok(Preset {
                id: id.into(),
                kind: ScenarioSet::preset_kind(r),
                trigger: def.trigger.clone(),
                response: render(phrase)?,
            })
        };
        let mut preset_def = None;
        let mut preset_defs = Vec::new();
        if let Some(r) = casting.preset {
            let def = set.preset_def(scenario, r);
            header_owner.presets.push(preset_of(r, "p1")?);
            preset_defs.push(def);
            preset_def = Some(def);
            // Owners leave more than one instruction, and most calls concern at most one of
            // them: some owners also hold a preset (of either kind) that this caller's role and
            // goal do not trigger, so that the assistant must pick the one that applies.
            if rng.random_bool(SECOND_PRESET_RATE) {
                let (rd, gd) = (role, &f.goals[casting.goal]);
                let others: Vec<PresetRef> = [PresetCase::Regular, PresetCase::Emergent]
                    .into_iter()
                    .flat_map(|c| set.presets_for(scenario, c))
                    .filter(|&o| {
                        o != r && !ScenarioSet::triggers(set.preset_def(scenario, o), rd, gd)
                    })
                    .collect();
                if let Some(&o) = others.choose(&mut rng) {
                    // Either order: the preset that applies is not always the first. Ids
                    // follow the order (p1, p2).
                    let at = if rng.random_bool(0.5) { 1 } else { 0 };
                    header_owner.presets.insert(at, preset_of(o, "")?);
                    preset_defs.insert(at, set.preset_def(scenario, o));
                    for (k, p) in header_owner.presets.iter_mut().enumerate() {
                        p.id = format!("p{}", k + 1);
                    }
                }
            }
        }
        // A teacher calls about the owner's child, the owner left word for one, or the owner's
        // day is spent with one (`下午在给孩子开家长会`): the owner has a child at school
        // ("刚结婚，还没有孩子" would contradict it). Drawn from its own stream so that every
        // other draw of the dialogue stays as it was.
        let tags = &set.owners.child_tags;
        let about_child = role.tags.iter().any(|t| tags.contains(t))
            || preset_defs
                .iter()
                .any(|p| p.when.iter().any(|t| tags.contains(t)))
            || header_owner
                .private
                .get("schedule")
                .is_some_and(|s| set.owners.schedules_with_child.contains(s));
        let family = header_owner.private.get("family");
        if about_child && family.is_some_and(|f| set.owners.no_child_at_school.contains(f)) {
            let mut family_rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0xc4_11_d0));
            let female = drawn.title.ends_with("女士");
            if let Some(f) = owner::family_with_child(&set.owners, female, &mut family_rng) {
                header_owner.private.insert("family".to_string(), f);
            }
        }
        let persona = role.personas.choose(&mut rng).cloned();
        // A second event on the side: an extra need that none of the owner's presets answers
        // (so the relation stays what the cell says), nor one a preset keeps from being cast
        // with it (`answers_events`: a locked gate beside "放在门口" is a conflict). Drawn from its own stream so that every
        // other draw of the dialogue stays as it was. Not in alignment: an extra need there
        // would make the call a complementary one.
        let mut casting = casting;
        let mut events = events;
        let mut extra_rng = ChaCha8Rng::seed_from_u64(mix64(seed ^ 0xe7_e4_7a));
        // Nor for a caller the owner does not want: a second pitch only gets it turned away
        // sooner.
        if cell.relation != Relation::Alignment
            && !role.unwanted
            && extra_rng.random_bool(EXTRA_EVENT_RATE)
        {
            let goal_id = &f.goals[casting.goal].id;
            let fits: Vec<usize> = f
                .events
                .iter()
                .enumerate()
                .filter(|&(i, e)| {
                    Some(i) != casting.event
                        && e.kind == EventKind::ExtraNeed
                        && (e.goals.is_empty() || e.goals.contains(goal_id))
                        && !preset_defs.iter().any(|p| p.answers_events.contains(&e.id))
                        && !preset_defs.iter().any(|p| {
                            p.cues.iter().any(|c| {
                                e.reveal
                                    .iter()
                                    .chain(&e.asks)
                                    .chain(&e.cues)
                                    .any(|t| t.contains(c.as_str()))
                            })
                        })
                })
                .map(|(i, _)| i)
                .collect();
            if let Some(&e) = fits.choose(&mut extra_rng) {
                casting.extra_event = Some(e);
                events.push(render(&phrases.events[e].description)?);
            }
        }
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
            preset_defs,
            owner_title: drawn.title.clone(),
            caller_name: caller_name.clone(),
            caller_seed: mix64(seed ^ 0xca11e4),
            assistant_seed: mix64(seed ^ 0xa551_57a7),
        })
    }
}
