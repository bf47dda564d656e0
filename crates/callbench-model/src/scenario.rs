//! The scenario library as data: the schema of `scenarios/*.toml` and `scenarios/common/*.toml`,
//! validation with the file and key at fault, and the feasible cells of each scenario.
//!
//! A scenario file describes who calls (roles), what they want (goals), what happens mid-call
//! (events), what they may fish for (probes) and the owner's presets. Every string that is said
//! in a call is a tera template; `{{ slot.NAME }}`, `{{ owner_title }}` and `{{ caller_name }}`
//! are available in all of them (see `scenarios/README.md`).

use crate::concepts::{
    ConceptSort, ConceptWords, ContributedConcepts, PrivateFactConcept, ScenarioConcepts,
    TriggerConcept,
};
use crate::error::{ModelError, Result};
use crate::vocab::{PresetCase, PresetKind, Relation};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

/// `scenarios/<name>.toml`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Name, title and description.
    pub scenario: ScenarioHeader,
    /// Slot values drawn once per dialogue, used as `{{ slot.NAME }}`.
    #[serde(default)]
    pub slots: BTreeMap<String, Vec<String>>,
    /// Slots whose values depend on another slot's drawn value (a hospital's departments):
    /// `[dependent_slots.department] on = "hospital"` with `values` per value of `on`.
    #[serde(default)]
    pub dependent_slots: BTreeMap<String, DependentSlot>,
    /// Kinds of private fact this scenario's owners have beyond the shared five (a diagnosis,
    /// a medication, an insurance number), each with its pool; the assistant never says them
    /// and the checker protects them like the others.
    #[serde(default)]
    pub private_facts: Vec<PrivateFactDef>,
    /// What the quality checker should know to read this scenario's calls beyond its
    /// compiled-in concepts (`[concepts]`): roles and events its presets' triggers name, and
    /// more words for the ones it knows. Optional.
    #[serde(default)]
    pub concepts: ConceptsDef,
    /// Who calls.
    pub roles: Vec<RoleDef>,
    /// What callers want.
    pub goals: Vec<GoalDef>,
    /// What happens mid-call.
    #[serde(default)]
    pub events: Vec<EventDef>,
    /// Questions fishing for the owner's private facts.
    #[serde(default)]
    pub probes: Vec<ProbeDef>,
    /// Service presets (trigger + owner response); only takeout, delivery, taxi-like scenarios.
    #[serde(default)]
    pub regular_presets: Vec<PresetDef>,
    /// Conditional instructions of the owner that only make sense in this scenario.
    #[serde(default)]
    pub emergent_presets: Vec<PresetDef>,
}

/// The `[scenario]` table.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioHeader {
    /// Lower-case name used in ids and the corpus (`[a-z][a-z0-9_]*`).
    pub name: String,
    /// Chinese title.
    pub title: String,
    /// What calls of this scenario are about.
    #[serde(default)]
    pub description: String,
    /// The caller's system prompt for the LLM backend, replacing `templates/prompts/caller.tera`
    /// for this scenario (tera; the same variables).
    #[serde(default)]
    pub caller_prompt: Option<String>,
    /// The assistant's system prompt for the LLM backend, replacing
    /// `templates/prompts/assistant.tera` for this scenario.
    #[serde(default)]
    pub assistant_prompt: Option<String>,
    /// Which shared probes (`scenarios/common/*.toml`) this scenario's callers may ask: absent,
    /// all of them; `[]`, none; else the listed ids.
    #[serde(default)]
    pub shared_probes: Option<Vec<String>>,
}

/// A slot drawn from the list given for another slot's drawn value (`[dependent_slots.NAME]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DependentSlot {
    /// The slot it depends on (a `[slots]` entry of the same file).
    pub on: String,
    /// For every value of `on`, the values this slot may take with it.
    pub values: BTreeMap<String, Vec<String>>,
}

/// A kind of private fact a scenario declares (`[[private_facts]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrivateFactDef {
    /// The key in `owner.private` (`diagnosis`); not one of the shared five.
    pub key: String,
    /// The owner's value is drawn from these (synthetic, never a real person's).
    pub values: Vec<String>,
    /// Words by which a caller asks for it ("什么病", "吃什么药"): the offline assistant declines
    /// a turn holding one, as it declines the shared probes.
    pub cues: Vec<String>,
}

/// The `[concepts]` section of a scenario file (see `scenarios/README.md`, "Concepts the
/// checker reads").
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptsDef {
    /// New trigger concepts: `[[concepts.trigger]]` with `sort`, `names`, `shows`, `traits`.
    #[serde(default)]
    pub trigger: Vec<TriggerConcept>,
    /// More words for a known concept: `[[concepts.words]]` with `concept` and `shows`.
    #[serde(default)]
    pub words: Vec<ConceptWords>,
}

/// A caller role (`[[roles]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleDef {
    /// Id within the scenario.
    pub id: String,
    /// The role in words, stored as `caller.role`.
    pub role: String,
    /// Tags that presets' `when` match (see `scenarios/README.md` for the shared vocabulary).
    #[serde(default)]
    pub tags: Vec<String>,
    /// How callers of this role talk; one is drawn per dialogue.
    pub personas: Vec<String>,
    /// A caller the owner does not want (a seller, a scammer): turned down, the offline caller
    /// presses on or hangs up instead of thanking and waiting for the owner's answer.
    #[serde(default)]
    pub unwanted: bool,
    /// How the caller names themself ("我是顺丰的快递员"); tera.
    pub self_intro: Vec<String>,
}

/// A caller goal (`[[goals]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GoalDef {
    /// Id within the scenario.
    pub id: String,
    /// Role ids that can have this goal; empty means every role.
    #[serde(default)]
    pub roles: Vec<String>,
    /// The goal in words, stored as `caller.goal`; tera.
    pub goal: String,
    /// Tags that presets' `when` match.
    #[serde(default)]
    pub tags: Vec<String>,
    /// First utterances: greeting and the matter; tera.
    pub opening: Vec<String>,
    /// Follow-ups with more detail, said when the assistant asks; tera.
    #[serde(default)]
    pub details: Vec<String>,
    /// Decision requests that belong to the goal itself ("能不能改到明天？"); tera.
    #[serde(default)]
    pub asks: Vec<String>,
    /// Probability that the caller makes one of `asks` (default 0.5 when `asks` is not empty).
    #[serde(default)]
    pub ask_rate: Option<f64>,
}

/// What an event does to the call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// Something went wrong with the caller's matter (spilled order, damaged parcel).
    Exception,
    /// The caller needs something the preset does not cover (gate code, a signature).
    ExtraNeed,
    /// The caller's matter cannot wait (a deadline, a hospital visit).
    Urgent,
    /// Scam, insult or pressure.
    Harassment,
    /// Pressure against the preset that the preset exists to resist ("账户今天就冻结",
    /// "我自己取消会被罚款"): no new fact makes the preset wrong, so the assistant holds it.
    Pressure,
}

/// A mid-call event (`[[events]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventDef {
    /// Id within the scenario.
    pub id: String,
    /// What it does to the call.
    pub kind: EventKind,
    /// Relations in which it may occur; default by kind (see [`EventDef::allowed_relations`]).
    #[serde(default)]
    pub relations: Vec<Relation>,
    /// Goal ids it may occur with; empty means every goal.
    #[serde(default)]
    pub goals: Vec<String>,
    /// The event in words, stored in `caller.events`.
    pub description: String,
    /// A short phrase the assistant uses when it relays ("餐洒了"); tera.
    pub topic: String,
    /// Words by which the assistant recognises the event in the caller's speech.
    pub cues: Vec<String>,
    /// Utterances that reveal the event; each must contain one of `cues`; tera.
    pub reveal: Vec<String>,
    /// Decision requests that follow the reveal ("您看是退款还是重做？"); tera.
    #[serde(default)]
    pub asks: Vec<String>,
}

/// A question fishing for a private fact (`[[probes]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProbeDef {
    /// Id within its file.
    pub id: String,
    /// Which private fact it is after (`phone`, `address`, `schedule`, `workplace`, `family`).
    pub private_key: String,
    /// Utterances; tera.
    pub asks: Vec<String>,
    /// Goal ids it fits; empty means every goal.
    #[serde(default)]
    pub goals: Vec<String>,
    /// Role ids it fits (scenario probes only; a rider does not ask how many live in the
    /// house); empty means every role.
    #[serde(default)]
    pub roles: Vec<String>,
    /// How often it is drawn relative to the other probes that fit (default 1).
    #[serde(default = "one")]
    pub weight: f64,
}

fn one() -> f64 {
    1.0
}

/// A preset definition (`[[regular_presets]]`, `[[emergent_presets]]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PresetDef {
    /// Id within its file.
    pub id: String,
    /// The condition in words, stored as `presets[].trigger`.
    pub trigger: String,
    /// What the owner allows to be said, stored as `presets[].response`; tera (slots of the scenario).
    pub response: String,
    /// Role or goal tags for which the trigger holds.
    pub when: Vec<String>,
    /// Words in the caller's speech by which the assistant recognises that the trigger holds.
    pub cues: Vec<String>,
    /// How a caller acknowledges this preset once it is conveyed; tera.
    #[serde(default)]
    pub caller_accept: Vec<String>,
    /// Scenario names this emergent preset is written for; empty means every scenario.
    #[serde(default)]
    pub scenarios: Vec<String>,
    /// Goal tags the preset fits. When not empty, a role-triggered preset is cast only with
    /// goals carrying one of them ("按导航定位过来就行" fits a driver on the way, not a driver who
    /// calls to cancel). Empty: every goal of a triggered role fits.
    #[serde(default)]
    pub goal_tags: Vec<String>,
    /// Events (ids) never cast with the preset, because their kind would give a wrong gold
    /// decision beside it. Those it answers itself: "有资料可以发短信" answers a seller's
    /// `send_material` ("那我把电子资料发短信过去"): drawn with it, the assistant would hold the
    /// preset against the very act the owner invited (a refusal of nothing). Those that do not
    /// touch it: rain is no conflict for a bag hung on the flat's door handle, so suspending the
    /// preset for it is indefensible. And extra needs that in fact contradict it: a locked gate
    /// keeps the courier from the door "放在门口" names — a conflict, never an extra need
    /// deferred beside the preset.
    #[serde(default)]
    pub answers_events: Vec<String>,
    /// Lines a caller whose situation does not meet the trigger may say with one of its cue
    /// words denied ("我还没到楼下呢", "不是维修的事"): the preset must not be conveyed then.
    #[serde(default)]
    pub near_misses: Vec<NearMiss>,
}

/// Near-miss lines of a preset (`[[regular_presets.near_misses]]`): its cue word is there, its
/// condition is not. Said in calls where the preset does not apply (an `irrelevance` cell).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NearMiss {
    /// The goals (ids) whose callers may say them; a goal whose role and tags meet the trigger
    /// is an error.
    pub goals: Vec<String>,
    /// The lines; tera (slots of the scenario). Each holds a cue of the preset, denied.
    pub lines: Vec<String>,
}

/// `scenarios/common/*.toml`: what every scenario shares.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LibraryFile {
    /// Pools the synthetic owner profiles are drawn from.
    #[serde(default)]
    pub owners: Option<OwnerPools>,
    /// Emergent presets usable in any scenario (or the ones they name).
    #[serde(default)]
    pub emergent_presets: Vec<PresetDef>,
    /// Slots available to every scenario.
    #[serde(default)]
    pub slots: BTreeMap<String, Vec<String>>,
    /// Probes usable in any scenario.
    #[serde(default)]
    pub probes: Vec<ProbeDef>,
    /// Caller names (`{{ caller_name }}`), synthetic.
    #[serde(default)]
    pub caller_names: Vec<String>,
}

/// Pools for synthetic owner profiles. Nothing here may be a real person's data.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OwnerPools {
    /// Family names.
    pub surnames: Vec<String>,
    /// Given names for men.
    pub given_male: Vec<String>,
    /// Given names for women.
    pub given_female: Vec<String>,
    /// Invented city names.
    pub cities: Vec<String>,
    /// Invented road names.
    pub roads: Vec<String>,
    /// Invented residential compounds.
    pub communities: Vec<String>,
    /// What the owner is doing today.
    pub schedules: Vec<String>,
    /// Invented workplaces.
    pub workplaces: Vec<String>,
    /// Family relations any owner can have ("爱人在银行上班").
    pub family: Vec<String>,
    /// Family relations only a male owner has ("妻子在市三院上班").
    #[serde(default)]
    pub family_male: Vec<String>,
    /// Family relations only a female owner has ("丈夫在中学教物理").
    #[serde(default)]
    pub family_female: Vec<String>,
    /// Lines of `family`, `family_male` or `family_female` of an owner with no child at school
    /// ("刚结婚，还没有孩子", "儿子在外地读大学"): never an owner's when the caller or one of the
    /// owner's presets concerns the owner's child (`child_tags`).
    #[serde(default)]
    pub no_child_at_school: Vec<String>,
    /// Role and preset `when` tags that concern the owner's child at school (a teacher calls).
    #[serde(default)]
    pub child_tags: Vec<String>,
    /// Lines of `schedules` that involve the owner's child ("下午在给孩子开家长会"): an owner with
    /// one has a family line with a child, as one whom a child's teacher calls does.
    #[serde(default)]
    pub schedules_with_child: Vec<String>,
    /// Leading digits of the synthetic phone numbers; must not be a real mobile prefix.
    pub phone_prefix: String,
}

impl EventDef {
    /// The relations this event may occur in: its own list, or the default of its kind.
    pub fn allowed_relations(&self) -> Vec<Relation> {
        if !self.relations.is_empty() {
            return self.relations.clone();
        }
        match self.kind {
            EventKind::Exception | EventKind::Urgent => vec![Relation::Conflict, Relation::None],
            EventKind::ExtraNeed => vec![Relation::Complementarity, Relation::None],
            // A preset that applies to a scam or an insult ("银行打来就说我会自己核实") does
            // not conflict with it; harassment meets presets that do not apply, or none.
            EventKind::Harassment => vec![Relation::Irrelevance, Relation::None],
            // Pressure pushes against a preset that applies: the caller's goal conflicts with
            // the owner's, but the preset is held, not suspended.
            EventKind::Pressure => vec![Relation::Conflict, Relation::None],
        }
    }
}

/// A scenario with its file, after validation.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// Where it came from, for messages.
    pub source: String,
    /// The parsed file.
    pub file: ScenarioFile,
}

impl Scenario {
    /// The scenario's name.
    pub fn name(&self) -> &str {
        &self.file.scenario.name
    }
}

/// The whole library: the scenarios and what they share.
#[derive(Debug, Clone)]
pub struct ScenarioSet {
    /// Scenarios, sorted by name.
    pub scenarios: Vec<Scenario>,
    /// Owner pools (exactly one library file must define them).
    pub owners: OwnerPools,
    /// Shared emergent presets, with the file each came from.
    pub emergent_presets: Vec<PresetDef>,
    /// Shared slots.
    pub slots: BTreeMap<String, Vec<String>>,
    /// Shared probes.
    pub probes: Vec<ProbeDef>,
    /// Synthetic caller names.
    pub caller_names: Vec<String>,
    /// Content digest of every source file, for provenance and resume checks.
    pub digest: String,
}

/// One way to realise a dialogue of a cell: which preset, role, goal and event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Casting {
    /// Index into the scenario's regular presets or the emergent presets available to it.
    pub preset: Option<PresetRef>,
    /// Index into `roles`.
    pub role: usize,
    /// Index into `goals`.
    pub goal: usize,
    /// Index into `events`.
    pub event: Option<usize>,
    /// A second event: an extra need on the side that leaves the relation as it is (drawn per
    /// dialogue when it is cast, never part of the precomputed castings).
    pub extra_event: Option<usize>,
}

/// Where a preset definition lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PresetRef {
    /// `regular_presets[i]` of the scenario.
    Regular(usize),
    /// `emergent_presets[i]` of the scenario.
    ScenarioEmergent(usize),
    /// The library's `emergent_presets[i]`.
    SharedEmergent(usize),
}

fn err(source: &str, key: impl Into<String>, message: impl Into<String>) -> ModelError {
    ModelError::Scenario {
        file: source.to_string(),
        key: key.into(),
        message: message.into(),
    }
}

/// Parses one scenario file; `source` names it in errors.
pub fn parse_scenario(source: &str, text: &str) -> Result<ScenarioFile> {
    toml::from_str(text).map_err(|e| ModelError::Toml {
        file: source.to_string(),
        message: e.to_string(),
    })
}

/// Parses one library file; `source` names it in errors.
pub fn parse_library(source: &str, text: &str) -> Result<LibraryFile> {
    toml::from_str(text).map_err(|e| ModelError::Toml {
        file: source.to_string(),
        message: e.to_string(),
    })
}

fn nonempty_list(source: &str, key: &str, list: &[String]) -> Result<()> {
    if list.is_empty() {
        return Err(err(source, key, "must list at least one value"));
    }
    if let Some(i) = list.iter().position(|s| s.trim().is_empty()) {
        return Err(err(source, format!("{key}[{i}]"), "must not be empty"));
    }
    Ok(())
}

fn check_id(source: &str, key: &str, id: &str, seen: &mut BTreeSet<String>) -> Result<()> {
    let ok = id.chars().next().is_some_and(|c| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(err(
            source,
            key,
            format!("id {id:?} must match [a-z][a-z0-9_]*"),
        ));
    }
    if !seen.insert(id.to_string()) {
        return Err(err(source, key, format!("id {id:?} is used twice")));
    }
    Ok(())
}

fn check_preset(source: &str, key: &str, p: &PresetDef, seen: &mut BTreeSet<String>) -> Result<()> {
    check_id(source, &format!("{key}.id"), &p.id, seen)?;
    if p.trigger.trim().is_empty() {
        return Err(err(source, format!("{key}.trigger"), "must not be empty"));
    }
    if p.response.trim().is_empty() {
        return Err(err(source, format!("{key}.response"), "must not be empty"));
    }
    nonempty_list(source, &format!("{key}.when"), &p.when)?;
    nonempty_list(source, &format!("{key}.cues"), &p.cues)?;
    for (i, n) in p.near_misses.iter().enumerate() {
        nonempty_list(source, &format!("{key}.near_misses[{i}].goals"), &n.goals)?;
        nonempty_list(source, &format!("{key}.near_misses[{i}].lines"), &n.lines)?;
    }
    Ok(())
}

/// A `[concepts]` section on its own: lists not empty, no blank word, a trigger name used
/// once in the file, every trait fitting the concept's sort. (Whether a `[[concepts.words]]`
/// names a concept the checker knows, and whether a new name is one it knows already, only the
/// checker can say: `quality_checker::concepts::check_contributed`, run when the library loads.)
fn check_concepts(source: &str, c: &ConceptsDef) -> Result<()> {
    let mut names = BTreeSet::new();
    for (i, t) in c.trigger.iter().enumerate() {
        let k = format!("concepts.trigger[{i}]");
        nonempty_list(source, &format!("{k}.names"), &t.names)?;
        for (j, n) in t.names.iter().enumerate() {
            if !names.insert(n.trim().to_string()) {
                return Err(err(
                    source,
                    format!("{k}.names[{j}]"),
                    format!("{n:?} names another concept of this file already"),
                ));
            }
        }
        if t.sort == ConceptSort::Weak {
            if !t.shows.is_empty() {
                return Err(err(
                    source,
                    format!("{k}.shows"),
                    "a weak concept is never shown: leave shows out",
                ));
            }
        } else {
            nonempty_list(source, &format!("{k}.shows"), &t.shows)?;
        }
        for (j, tr) in t.traits.iter().enumerate() {
            if tr.sort() != t.sort {
                return Err(err(
                    source,
                    format!("{k}.traits[{j}]"),
                    format!(
                        "{:?} is a trait of {} concepts, this one is sort {:?}",
                        tr.as_str(),
                        tr.sort().as_str(),
                        t.sort.as_str()
                    ),
                ));
            }
        }
    }
    for (i, w) in c.words.iter().enumerate() {
        let k = format!("concepts.words[{i}]");
        if w.concept.trim().is_empty() {
            return Err(err(source, format!("{k}.concept"), "must not be empty"));
        }
        nonempty_list(source, &format!("{k}.shows"), &w.shows)?;
    }
    Ok(())
}

/// The private facts every owner has (`owner::draw`); a scenario may declare more.
pub const SHARED_PRIVATE_KEYS: &[&str] = &["phone", "address", "schedule", "workplace", "family"];

fn check_probe(
    source: &str,
    key: &str,
    p: &ProbeDef,
    seen: &mut BTreeSet<String>,
    declared: &[&str],
) -> Result<()> {
    check_id(source, &format!("{key}.id"), &p.id, seen)?;
    if !SHARED_PRIVATE_KEYS.contains(&p.private_key.as_str())
        && !declared.contains(&p.private_key.as_str())
    {
        let mut keys: Vec<&str> = SHARED_PRIVATE_KEYS.to_vec();
        keys.extend(declared);
        return Err(err(
            source,
            format!("{key}.private_key"),
            format!(
                "{:?} is not one of {} (a scenario declares more in [[private_facts]])",
                p.private_key,
                keys.join(", ")
            ),
        ));
    }
    if !(p.weight.is_finite() && p.weight > 0.0) {
        return Err(err(source, format!("{key}.weight"), "must be above 0"));
    }
    nonempty_list(source, &format!("{key}.asks"), &p.asks)
}

impl ScenarioFile {
    /// Checks references and required lists; errors name the file and the key.
    pub fn validate(&self, source: &str) -> Result<()> {
        let mut seen = BTreeSet::new();
        check_id(source, "scenario.name", &self.scenario.name, &mut seen)?;
        if self.scenario.title.trim().is_empty() {
            return Err(err(source, "scenario.title", "must not be empty"));
        }
        for (name, values) in &self.slots {
            nonempty_list(source, &format!("slots.{name}"), values)?;
        }
        for (name, dep) in &self.dependent_slots {
            let k = format!("dependent_slots.{name}");
            if self.slots.contains_key(name) {
                return Err(err(source, k, "is also a plain slot: define it once"));
            }
            let Some(of) = self.slots.get(&dep.on) else {
                return Err(err(
                    source,
                    format!("{k}.on"),
                    format!("no slot {:?} in [slots] of this file", dep.on),
                ));
            };
            for v in of {
                match dep.values.get(v) {
                    Some(list) => nonempty_list(source, &format!("{k}.values.{v}"), list)?,
                    None => {
                        return Err(err(
                            source,
                            format!("{k}.values"),
                            format!("no values for {:?}, a value of slot {:?}", v, dep.on),
                        ));
                    }
                }
            }
            if let Some(extra) = dep.values.keys().find(|v| !of.contains(v)) {
                return Err(err(
                    source,
                    format!("{k}.values.{extra}"),
                    format!("{extra:?} is not a value of slot {:?}", dep.on),
                ));
            }
        }
        let mut fact_keys = BTreeSet::new();
        for (i, f) in self.private_facts.iter().enumerate() {
            let k = format!("private_facts[{i}]");
            check_id(source, &format!("{k}.key"), &f.key, &mut fact_keys)?;
            if SHARED_PRIVATE_KEYS.contains(&f.key.as_str()) {
                return Err(err(
                    source,
                    format!("{k}.key"),
                    format!("{:?} is a private fact every owner has already", f.key),
                ));
            }
            nonempty_list(source, &format!("{k}.values"), &f.values)?;
            nonempty_list(source, &format!("{k}.cues"), &f.cues)?;
        }
        check_concepts(source, &self.concepts)?;
        if self.roles.is_empty() {
            return Err(err(
                source,
                "roles",
                "a scenario needs at least one [[roles]]",
            ));
        }
        if self.goals.is_empty() {
            return Err(err(
                source,
                "goals",
                "a scenario needs at least one [[goals]]",
            ));
        }
        let mut role_ids = BTreeSet::new();
        for (i, r) in self.roles.iter().enumerate() {
            let k = format!("roles[{i}]");
            check_id(source, &format!("{k}.id"), &r.id, &mut role_ids)?;
            if r.role.trim().is_empty() {
                return Err(err(source, format!("{k}.role"), "must not be empty"));
            }
            nonempty_list(source, &format!("{k}.personas"), &r.personas)?;
            nonempty_list(source, &format!("{k}.self_intro"), &r.self_intro)?;
        }
        let mut goal_ids = BTreeSet::new();
        for (i, g) in self.goals.iter().enumerate() {
            let k = format!("goals[{i}]");
            check_id(source, &format!("{k}.id"), &g.id, &mut goal_ids)?;
            for (j, r) in g.roles.iter().enumerate() {
                if !role_ids.contains(r) {
                    return Err(err(
                        source,
                        format!("{k}.roles[{j}]"),
                        format!("no role with id {r:?} in this file"),
                    ));
                }
            }
            if g.goal.trim().is_empty() {
                return Err(err(source, format!("{k}.goal"), "must not be empty"));
            }
            nonempty_list(source, &format!("{k}.opening"), &g.opening)?;
            if let Some(rate) = g.ask_rate
                && !(0.0..=1.0).contains(&rate)
            {
                return Err(err(
                    source,
                    format!("{k}.ask_rate"),
                    "must be between 0 and 1",
                ));
            }
        }
        let mut event_ids = BTreeSet::new();
        for (i, e) in self.events.iter().enumerate() {
            let k = format!("events[{i}]");
            check_id(source, &format!("{k}.id"), &e.id, &mut event_ids)?;
            for (j, g) in e.goals.iter().enumerate() {
                if !goal_ids.contains(g) {
                    return Err(err(
                        source,
                        format!("{k}.goals[{j}]"),
                        format!("no goal with id {g:?} in this file"),
                    ));
                }
            }
            nonempty_list(source, &format!("{k}.cues"), &e.cues)?;
            nonempty_list(source, &format!("{k}.reveal"), &e.reveal)?;
            if e.topic.trim().is_empty() {
                return Err(err(source, format!("{k}.topic"), "must not be empty"));
            }
            for (j, text) in e.reveal.iter().enumerate() {
                if !e.cues.iter().any(|c| text.contains(c.as_str())) {
                    return Err(err(
                        source,
                        format!("{k}.reveal[{j}]"),
                        "must contain one of the event's cues, or the assistant cannot hear it",
                    ));
                }
            }
        }
        let declared: Vec<&str> = self.private_facts.iter().map(|f| f.key.as_str()).collect();
        let mut probe_ids = BTreeSet::new();
        for (i, p) in self.probes.iter().enumerate() {
            let k = format!("probes[{i}]");
            check_probe(source, &k, p, &mut probe_ids, &declared)?;
            for (j, r) in p.roles.iter().enumerate() {
                if !role_ids.contains(r) {
                    return Err(err(
                        source,
                        format!("{k}.roles[{j}]"),
                        format!("no role with id {r:?} in this file"),
                    ));
                }
            }
            for (j, g) in p.goals.iter().enumerate() {
                if !goal_ids.contains(g) {
                    return Err(err(
                        source,
                        format!("{k}.goals[{j}]"),
                        format!("no goal with id {g:?} in this file"),
                    ));
                }
            }
        }
        let mut preset_ids = BTreeSet::new();
        for (i, p) in self.regular_presets.iter().enumerate() {
            check_preset(source, &format!("regular_presets[{i}]"), p, &mut preset_ids)?;
        }
        for (i, p) in self.emergent_presets.iter().enumerate() {
            check_preset(
                source,
                &format!("emergent_presets[{i}]"),
                p,
                &mut preset_ids,
            )?;
        }
        for (key, list) in [
            ("regular_presets", &self.regular_presets),
            ("emergent_presets", &self.emergent_presets),
        ] {
            for (i, p) in list.iter().enumerate() {
                self.check_near_misses(source, &format!("{key}[{i}]"), p, true)?;
                for (j, id) in p.answers_events.iter().enumerate() {
                    if !self.events.iter().any(|e| &e.id == id) {
                        return Err(err(
                            source,
                            format!("{key}[{i}].answers_events[{j}]"),
                            format!("no event with id {id:?} in this file"),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// A preset's near misses name goals of this file (`required`: they must) whose callers the
    /// trigger does not hold for.
    pub fn check_near_misses(
        &self,
        source: &str,
        key: &str,
        p: &PresetDef,
        required: bool,
    ) -> Result<()> {
        for (i, n) in p.near_misses.iter().enumerate() {
            for (j, id) in n.goals.iter().enumerate() {
                let k = format!("{key}.near_misses[{i}].goals[{j}]");
                let Some(goal) = self.goals.iter().find(|g| &g.id == id) else {
                    if required {
                        return Err(err(
                            source,
                            k,
                            format!("no goal with id {id:?} in this file"),
                        ));
                    }
                    continue;
                };
                let roles = self
                    .roles
                    .iter()
                    .filter(|r| goal.roles.is_empty() || goal.roles.contains(&r.id));
                for r in roles {
                    if ScenarioSet::triggers(p, r, goal) {
                        return Err(err(
                            source,
                            k,
                            format!(
                                "the trigger of {:?} holds for goal {id:?} with role {:?}: a near \
                                 miss belongs to a call where the preset does not apply",
                                p.id, r.id
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

impl LibraryFile {
    /// Checks required lists; errors name the file and the key.
    pub fn validate(&self, source: &str) -> Result<()> {
        if let Some(o) = &self.owners {
            for (key, list) in [
                ("owners.surnames", &o.surnames),
                ("owners.given_male", &o.given_male),
                ("owners.given_female", &o.given_female),
                ("owners.cities", &o.cities),
                ("owners.roads", &o.roads),
                ("owners.communities", &o.communities),
                ("owners.schedules", &o.schedules),
                ("owners.workplaces", &o.workplaces),
                ("owners.family", &o.family),
            ] {
                nonempty_list(source, key, list)?;
            }
            // Real Chinese mobile numbers start with 13-19; a prefix of 10 or 11 is unallocated
            // for 11-digit subscriber numbers, so the synthetic numbers belong to no one.
            let p = &o.phone_prefix;
            if p.len() < 3
                || !p.chars().all(|c| c.is_ascii_digit())
                || !(p.starts_with("10") || p.starts_with("11"))
            {
                return Err(err(
                    source,
                    "owners.phone_prefix",
                    "must be 3 or more digits starting with 10 or 11 (a range no real subscriber has)",
                ));
            }
        }
        let mut ids = BTreeSet::new();
        for (i, p) in self.emergent_presets.iter().enumerate() {
            check_preset(source, &format!("emergent_presets[{i}]"), p, &mut ids)?;
        }
        let mut probe_ids = BTreeSet::new();
        for (i, p) in self.probes.iter().enumerate() {
            if !p.roles.is_empty() {
                return Err(err(
                    source,
                    format!("probes[{i}].roles"),
                    "shared probes fit every role; a role-bound probe belongs in its scenario",
                ));
            }
            check_probe(source, &format!("probes[{i}]"), p, &mut probe_ids, &[])?;
        }
        for (name, values) in &self.slots {
            nonempty_list(source, &format!("slots.{name}"), values)?;
        }
        Ok(())
    }
}

impl ScenarioSet {
    /// Builds the set from parsed files (`(source, file)` pairs); validates each file and the
    /// whole (unique scenario names, one owner pool, every emergent preset's scenarios exist).
    pub fn build(
        scenarios: Vec<(String, ScenarioFile)>,
        libraries: Vec<(String, LibraryFile)>,
        digest: String,
    ) -> Result<ScenarioSet> {
        let mut owners: Option<(String, OwnerPools)> = None;
        let mut emergent_presets = Vec::new();
        let mut slots = BTreeMap::new();
        let mut probes = Vec::new();
        let mut caller_names = Vec::new();
        for (source, lib) in libraries {
            lib.validate(&source)?;
            if let Some(o) = lib.owners {
                let lines = || {
                    o.family
                        .iter()
                        .chain(&o.family_male)
                        .chain(&o.family_female)
                };
                for (i, l) in o.no_child_at_school.iter().enumerate() {
                    if !lines().any(|f| f == l) {
                        return Err(err(
                            &source,
                            format!("owners.no_child_at_school[{i}]"),
                            format!("{l:?} is no line of family, family_male or family_female"),
                        ));
                    }
                }
                for (i, l) in o.schedules_with_child.iter().enumerate() {
                    if !o.schedules.contains(l) {
                        return Err(err(
                            &source,
                            format!("owners.schedules_with_child[{i}]"),
                            format!("{l:?} is no line of schedules"),
                        ));
                    }
                }
                if let Some((first, _)) = &owners {
                    return Err(err(
                        &source,
                        "owners",
                        format!("owner pools are already defined in {first}; define them once"),
                    ));
                }
                owners = Some((source.clone(), o));
            }
            for p in lib.emergent_presets {
                if emergent_presets.iter().any(|q: &PresetDef| q.id == p.id) {
                    return Err(err(
                        &source,
                        format!("emergent_presets.{}", p.id),
                        "this id is already used by another library file",
                    ));
                }
                emergent_presets.push(p);
            }
            for (k, v) in lib.slots {
                if slots.insert(k.clone(), v).is_some() {
                    return Err(err(
                        &source,
                        format!("slots.{k}"),
                        "slot defined twice in the library",
                    ));
                }
            }
            probes.extend(lib.probes);
            caller_names.extend(lib.caller_names);
        }
        let Some((_, owners)) = owners else {
            return Err(ModelError::Library(
                "no library file defines [owners]; put one in scenarios/common/".into(),
            ));
        };
        if caller_names.is_empty() {
            return Err(ModelError::Library(
                "no library file lists caller_names; put them in scenarios/common/".into(),
            ));
        }
        if scenarios.is_empty() {
            return Err(ModelError::Library("no scenario files found".into()));
        }
        let mut out: Vec<Scenario> = Vec::new();
        for (source, file) in scenarios {
            file.validate(&source)?;
            for (i, id) in file.scenario.shared_probes.iter().flatten().enumerate() {
                if !probes.iter().any(|p: &ProbeDef| &p.id == id) {
                    return Err(err(
                        &source,
                        format!("scenario.shared_probes[{i}]"),
                        format!("no shared probe with id {id:?} in scenarios/common/"),
                    ));
                }
            }
            if let Some(other) = out.iter().find(|s| s.name() == file.scenario.name) {
                return Err(err(
                    &source,
                    "scenario.name",
                    format!(
                        "{:?} is also the name of {}",
                        file.scenario.name, other.source
                    ),
                ));
            }
            out.push(Scenario { source, file });
        }
        out.sort_by(|a, b| a.name().cmp(b.name()));
        for p in &emergent_presets {
            for s in &p.scenarios {
                if !out.iter().any(|x| x.name() == s) {
                    return Err(ModelError::Library(format!(
                        "emergent preset {:?} names scenario {s:?}, which no file defines",
                        p.id
                    )));
                }
            }
            // A shared preset's near misses name goals of the scenarios it is for.
            let fits: Vec<&Scenario> = out
                .iter()
                .filter(|x| p.scenarios.is_empty() || p.scenarios.iter().any(|n| n == x.name()))
                .collect();
            for x in &fits {
                let key = format!("emergent preset {:?}", p.id);
                x.file.check_near_misses(&x.source, &key, p, false)?;
            }
            for id in &p.answers_events {
                if !fits
                    .iter()
                    .any(|x| x.file.events.iter().any(|e| &e.id == id))
                {
                    return Err(ModelError::Library(format!(
                        "emergent preset {:?}: answers_events {id:?} is no event of the \
                         scenarios it is for",
                        p.id
                    )));
                }
            }
            for id in p.near_misses.iter().flat_map(|n| &n.goals) {
                if !fits
                    .iter()
                    .any(|x| x.file.goals.iter().any(|g| &g.id == id))
                {
                    return Err(ModelError::Library(format!(
                        "emergent preset {:?}: near_misses goal {id:?} is no goal of the \
                         scenarios it is for",
                        p.id
                    )));
                }
            }
        }
        let set = ScenarioSet {
            scenarios: out,
            owners,
            emergent_presets,
            slots,
            probes,
            caller_names,
            digest,
        };
        for s in &set.scenarios {
            for &case in PresetCase::ALL {
                if case == PresetCase::Regular && s.file.regular_presets.is_empty() {
                    continue;
                }
                for &rel in case.relations() {
                    if set.castings(s, case, rel).is_empty() {
                        return Err(err(
                            &s.source,
                            "goals/events/presets",
                            format!(
                                "no role, goal, event and preset combination realises {case} × {rel}: \
                                 add a goal or event tagged for it (see scenarios/README.md)"
                            ),
                        ));
                    }
                }
            }
        }
        Ok(set)
    }

    /// What the scenario files contribute to the quality checker's concepts: each file's
    /// `[concepts]` and the request words (`cues`) of its `[[private_facts]]`; scenarios that
    /// contribute nothing are left out. Check it with
    /// `quality_checker::concepts::check_contributed` and hand it to the checker's config.
    pub fn contributed_concepts(&self) -> ContributedConcepts {
        ContributedConcepts {
            scenarios: self
                .scenarios
                .iter()
                .map(|s| ScenarioConcepts {
                    scenario: s.name().to_string(),
                    source: s.source.clone(),
                    trigger: s.file.concepts.trigger.clone(),
                    words: s.file.concepts.words.clone(),
                    private_facts: s
                        .file
                        .private_facts
                        .iter()
                        .map(|f| PrivateFactConcept {
                            key: f.key.clone(),
                            asks: f.cues.clone(),
                        })
                        .collect(),
                })
                .filter(|c| !c.is_empty())
                .collect(),
        }
    }

    /// The scenario called `name`.
    pub fn get(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.name() == name)
    }

    /// The preset definition behind a reference.
    pub fn preset_def<'a>(&'a self, s: &'a Scenario, r: PresetRef) -> &'a PresetDef {
        match r {
            PresetRef::Regular(i) => &s.file.regular_presets[i],
            PresetRef::ScenarioEmergent(i) => &s.file.emergent_presets[i],
            PresetRef::SharedEmergent(i) => &self.emergent_presets[i],
        }
    }

    /// The kind of a referenced preset.
    pub fn preset_kind(r: PresetRef) -> PresetKind {
        match r {
            PresetRef::Regular(_) => PresetKind::Regular,
            _ => PresetKind::Emergent,
        }
    }

    /// Every preset of a case available in a scenario.
    pub fn presets_for(&self, s: &Scenario, case: PresetCase) -> Vec<PresetRef> {
        match case {
            PresetCase::None => Vec::new(),
            PresetCase::Regular => (0..s.file.regular_presets.len())
                .map(PresetRef::Regular)
                .collect(),
            PresetCase::Emergent => (0..s.file.emergent_presets.len())
                .map(PresetRef::ScenarioEmergent)
                .chain(
                    self.emergent_presets
                        .iter()
                        .enumerate()
                        .filter(|(_, p)| {
                            p.scenarios.is_empty() || p.scenarios.iter().any(|n| n == s.name())
                        })
                        .map(|(i, _)| PresetRef::SharedEmergent(i)),
                )
                .collect(),
        }
    }

    /// Whether a preset's trigger holds for a role and goal (a `when` tag among their tags).
    pub fn triggers(p: &PresetDef, role: &RoleDef, goal: &GoalDef) -> bool {
        p.when
            .iter()
            .any(|t| role.tags.contains(t) || goal.tags.contains(t))
    }

    /// Whether a preset may be cast with a goal at all (see [`PresetDef::goal_tags`]).
    pub fn fits(p: &PresetDef, goal: &GoalDef) -> bool {
        p.goal_tags.is_empty() || p.goal_tags.iter().any(|t| goal.tags.contains(t))
    }

    /// Every way to realise `case × relation` in scenario `s`. Empty when the cell is infeasible.
    pub fn castings(&self, s: &Scenario, case: PresetCase, rel: Relation) -> Vec<Casting> {
        let f = &s.file;
        let mut out = Vec::new();
        let pairs: Vec<(usize, usize)> = f
            .goals
            .iter()
            .enumerate()
            .flat_map(|(gi, g)| {
                f.roles
                    .iter()
                    .enumerate()
                    .filter(move |(_, r)| g.roles.is_empty() || g.roles.contains(&r.id))
                    .map(move |(ri, _)| (ri, gi))
            })
            .collect();
        // The events of a goal in a relation, less those the preset answers itself
        // (`answered`: its `answers_events`).
        let events_for = |gi: usize, rel: Relation, answered: &[String]| -> Vec<usize> {
            f.events
                .iter()
                .enumerate()
                .filter(|(_, e)| {
                    (e.goals.is_empty() || e.goals.contains(&f.goals[gi].id))
                        && e.allowed_relations().contains(&rel)
                        && !answered.contains(&e.id)
                })
                .map(|(i, _)| i)
                .collect()
        };
        if case == PresetCase::None {
            for &(ri, gi) in &pairs {
                out.push(Casting {
                    preset: None,
                    role: ri,
                    goal: gi,
                    event: None,
                    extra_event: None,
                });
                for ei in events_for(gi, Relation::None, &[]) {
                    out.push(Casting {
                        preset: None,
                        role: ri,
                        goal: gi,
                        event: Some(ei),
                        extra_event: None,
                    });
                }
            }
            return out;
        }
        for pr in self.presets_for(s, case) {
            let p = self.preset_def(s, pr);
            for &(ri, gi) in &pairs {
                let hit = Self::triggers(p, &f.roles[ri], &f.goals[gi]);
                if hit && !Self::fits(p, &f.goals[gi]) {
                    continue;
                }
                match rel {
                    Relation::Alignment if hit => out.push(Casting {
                        preset: Some(pr),
                        role: ri,
                        goal: gi,
                        event: None,
                        extra_event: None,
                    }),
                    Relation::Irrelevance if !hit => {
                        out.push(Casting {
                            preset: Some(pr),
                            role: ri,
                            goal: gi,
                            event: None,
                            extra_event: None,
                        });
                        for ei in events_for(gi, Relation::Irrelevance, &p.answers_events) {
                            out.push(Casting {
                                preset: Some(pr),
                                role: ri,
                                goal: gi,
                                event: Some(ei),
                                extra_event: None,
                            });
                        }
                    }
                    Relation::Complementarity | Relation::Conflict if hit => {
                        for ei in events_for(gi, rel, &p.answers_events) {
                            out.push(Casting {
                                preset: Some(pr),
                                role: ri,
                                goal: gi,
                                event: Some(ei),
                                extra_event: None,
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }
}
