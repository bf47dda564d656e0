//! Coherence of the library: the offline agents understand each other only through cue words,
//! so the words written in scenario files must fit the cues. This finds, with file and key,
//! every place where they do not:
//!
//! - a preset whose trigger holds for a role and goal, but whose cues the caller never says
//!   (the assistant would never convey it), or whose trigger does not hold but whose cues the
//!   caller may say (the assistant would convey it where it does not apply);
//! - an event cue, a goodbye or a harassment word in a caller line that is not that;
//! - a probe the assistant would not hear as a probe, a decision request it would not hear as one.

use crate::library::Library;
use callbench_model::ScenarioSet;
use callbench_model::scenario::{EventKind, PresetRef, Scenario};
use phrasebook::{Bank, Phrase, Vars};
use std::collections::BTreeMap;

/// One incoherence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The file.
    pub file: String,
    /// The key (`goals[3].opening[2]`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for Finding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: key `{}`: {}", self.file, self.key, self.message)
    }
}

struct Ctx<'a> {
    lib: &'a Library,
    out: Vec<Finding>,
}

impl Ctx<'_> {
    fn render_all(&self, bank: &Bank, vars: &Vars) -> Vec<String> {
        bank.pieces().map(|p| self.render(p, vars)).collect()
    }
    fn render(&self, p: &Phrase, vars: &Vars) -> String {
        self.lib.book.render(p, vars).unwrap_or_default()
    }
    fn push(&mut self, file: &str, key: String, message: String) {
        self.out.push(Finding {
            file: file.to_string(),
            key,
            message,
        });
    }
}

fn first_slots(set: &ScenarioSet, s: &Scenario) -> Vars {
    let mut slots = BTreeMap::new();
    for (k, v) in set.slots.iter().chain(s.file.slots.iter()) {
        if let Some(x) = v.first() {
            slots.insert(k.clone(), x.clone());
        }
    }
    Vars::new(&slots, "王先生", "他", "小刘")
}

fn hit<'c>(cues: &'c [String], text: &str) -> Option<&'c str> {
    cues.iter()
        .find(|c| text.contains(c.as_str()))
        .map(String::as_str)
}

/// Lints the whole library. An empty result means the offline agents will understand every
/// line as it was meant.
pub fn lint(lib: &Library) -> Vec<Finding> {
    let mut cx = Ctx {
        lib,
        out: Vec::new(),
    };
    let set = &lib.set;
    let book = &lib.book;
    let lex = &book.lexicon;
    for s in &set.scenarios {
        let f = &s.file;
        let file = s.source.as_str();
        let vars = first_slots(set, s);
        let Some(sp) = book.scenario(s.name()) else {
            continue;
        };
        let intros: Vec<Vec<String>> = sp
            .roles
            .iter()
            .map(|r| cx.render_all(&r.self_intro, &vars))
            .collect();
        let openings: Vec<Vec<String>> = sp
            .goals
            .iter()
            .map(|g| cx.render_all(&g.opening, &vars))
            .collect();
        let details: Vec<Vec<String>> = sp
            .goals
            .iter()
            .map(|g| cx.render_all(&g.details, &vars))
            .collect();
        let goal_asks: Vec<Vec<String>> = sp
            .goals
            .iter()
            .map(|g| cx.render_all(&g.asks, &vars))
            .collect();
        let reveals: Vec<Vec<String>> = sp
            .events
            .iter()
            .map(|e| cx.render_all(&e.reveal, &vars))
            .collect();
        let event_asks: Vec<Vec<String>> = sp
            .events
            .iter()
            .map(|e| cx.render_all(&e.asks, &vars))
            .collect();
        let probes: Vec<Vec<String>> = sp.probes.iter().map(|b| cx.render_all(b, &vars)).collect();
        let shared_probes: Vec<Vec<String>> = book
            .shared_probes
            .iter()
            .map(|b| cx.render_all(b, &vars))
            .collect();

        // Lines that are neither an event nor a goodbye nor harassment.
        let mut plain: Vec<(String, &str)> = Vec::new();
        for (i, v) in intros.iter().enumerate() {
            plain.extend(
                v.iter()
                    .enumerate()
                    .map(|(j, t)| (format!("roles[{i}].self_intro[{j}]"), t.as_str())),
            );
        }
        for i in 0..f.goals.len() {
            plain.extend(
                openings[i]
                    .iter()
                    .enumerate()
                    .map(|(j, t)| (format!("goals[{i}].opening[{j}]"), t.as_str())),
            );
            plain.extend(
                details[i]
                    .iter()
                    .enumerate()
                    .map(|(j, t)| (format!("goals[{i}].details[{j}]"), t.as_str())),
            );
            plain.extend(
                goal_asks[i]
                    .iter()
                    .enumerate()
                    .map(|(j, t)| (format!("goals[{i}].asks[{j}]"), t.as_str())),
            );
        }
        for (i, v) in probes.iter().enumerate() {
            plain.extend(
                v.iter()
                    .enumerate()
                    .map(|(j, t)| (format!("probes[{i}].asks[{j}]"), t.as_str())),
            );
        }
        // Near misses of the presets this scenario's owners may hold: (key, goals, preset, lines).
        let mut near: Vec<(String, &[String], PresetRef, Vec<String>)> = Vec::new();
        for case in [
            callbench_model::PresetCase::Regular,
            callbench_model::PresetCase::Emergent,
        ] {
            for r in set.presets_for(s, case) {
                let (key, banks) = match r {
                    PresetRef::Regular(i) => {
                        (format!("regular_presets[{i}]"), &sp.regular_presets[i])
                    }
                    PresetRef::ScenarioEmergent(i) => {
                        (format!("emergent_presets[{i}]"), &sp.emergent_presets[i])
                    }
                    PresetRef::SharedEmergent(i) => (
                        format!("shared emergent preset {:?}", set.emergent_presets[i].id),
                        &book.shared_emergent[i],
                    ),
                };
                let p = set.preset_def(s, r);
                for (i, (n, b)) in p.near_misses.iter().zip(&banks.near_misses).enumerate() {
                    let k = format!("{key}.near_misses[{i}].lines");
                    near.push((k, &n.goals, r, cx.render_all(b, &vars)));
                }
            }
        }
        // A near miss says the preset's cue and denies it: the assistant must not hear it as
        // the trigger.
        for (key, _, r, lines) in &near {
            let p = set.preset_def(s, *r);
            for (j, t) in lines.iter().enumerate() {
                let k = format!("{key}[{j}]");
                if hit(&p.cues, t).is_none() {
                    cx.push(
                        file,
                        k,
                        format!(
                            "a near miss of {:?} says none of its cues {:?}: {t:?}",
                            p.id, p.cues
                        ),
                    );
                } else if lex.affirms(&p.cues, t) {
                    cx.push(file, k, format!("the assistant hears {t:?} as the trigger of {:?}: deny the cue right before it (one of `negation` in templates/lexicon.toml)", p.id));
                }
            }
        }
        for (key, _, _, lines) in &near {
            plain.extend(
                lines
                    .iter()
                    .enumerate()
                    .map(|(j, t)| (format!("{key}[{j}]"), t.as_str())),
            );
        }
        // Event asks are said after their own event: other events' cues must not be in them.
        let mut asks_lines: Vec<(String, usize, &str)> = Vec::new();
        for (i, v) in event_asks.iter().enumerate() {
            asks_lines.extend(
                v.iter()
                    .enumerate()
                    .map(|(j, t)| (format!("events[{i}].asks[{j}]"), i, t.as_str())),
            );
        }
        for (i, v) in reveals.iter().enumerate() {
            asks_lines.extend(
                v.iter()
                    .enumerate()
                    .map(|(j, t)| (format!("events[{i}].reveal[{j}]"), i, t.as_str())),
            );
        }
        for (key, own, text) in &asks_lines {
            for (ei, e) in f.events.iter().enumerate() {
                if ei == *own {
                    continue;
                }
                if let Some(c) = hit(&e.cues, text) {
                    cx.push(file, key.clone(), format!("says {c:?}, a cue of event {:?}: the assistant would hear that event too in {text:?}", e.id));
                }
            }
            if let Some(c) = hit(&lex.goodbye, text) {
                cx.push(
                    file,
                    key.clone(),
                    format!("says {c:?}, a goodbye cue, in {text:?}"),
                );
            }
            if f.events[*own].kind != EventKind::Harassment
                && let Some(c) = hit(&lex.harassment, text)
            {
                cx.push(file, key.clone(), format!("says {c:?}, a harassment cue of templates/lexicon.toml, in {text:?}, which is not a harassment event"));
            }
        }
        // How callers accept a preset: said before the caller goes on, so no goodbye, no event.
        let mut accepts: Vec<(String, String, String)> = Vec::new();
        for (i, p) in sp.regular_presets.iter().enumerate() {
            accepts.extend(cx.render_all(&p.accept, &vars).into_iter().enumerate().map(
                |(j, t)| {
                    (
                        file.to_string(),
                        format!("regular_presets[{i}].caller_accept[{j}]"),
                        t,
                    )
                },
            ));
        }
        for (i, p) in sp.emergent_presets.iter().enumerate() {
            accepts.extend(cx.render_all(&p.accept, &vars).into_iter().enumerate().map(
                |(j, t)| {
                    (
                        file.to_string(),
                        format!("emergent_presets[{i}].caller_accept[{j}]"),
                        t,
                    )
                },
            ));
        }
        for (i, p) in book.shared_emergent.iter().enumerate() {
            let id = &set.emergent_presets[i].id;
            accepts.extend(cx.render_all(&p.accept, &vars).into_iter().enumerate().map(
                |(j, t)| {
                    (
                        "scenarios/common".to_string(),
                        format!("emergent preset {id:?} caller_accept[{j}]"),
                        t,
                    )
                },
            ));
        }
        for (afile, key, text) in &accepts {
            if let Some(c) = hit(&lex.goodbye, text) {
                cx.push(
                    afile,
                    key.clone(),
                    format!(
                        "says {c:?}, a goodbye cue, in {text:?}: the caller goes on after accepting"
                    ),
                );
            }
            for e in &f.events {
                if let Some(c) = hit(&e.cues, text) {
                    cx.push(
                        afile,
                        key.clone(),
                        format!(
                            "says {c:?}, a cue of event {:?} of scenario {}, in {text:?}",
                            e.id,
                            s.name()
                        ),
                    );
                }
            }
        }
        for (key, text) in &plain {
            for (ei, e) in f.events.iter().enumerate() {
                if let Some(c) = hit(&e.cues, text) {
                    cx.push(file, key.clone(), format!("says {c:?}, a cue of event {:?}: the assistant would hear that event in {text:?}", f.events[ei].id));
                }
            }
            if !key.starts_with("probes")
                && let Some(c) = hit(&lex.private_probe, text)
            {
                cx.push(file, key.clone(), format!("says {c:?}, a private_probe cue of templates/lexicon.toml: the assistant would decline to give private facts in {text:?}"));
            }
            if let Some(c) = hit(&lex.goodbye, text) {
                cx.push(
                    file,
                    key.clone(),
                    format!("says {c:?}, a goodbye cue, in {text:?}"),
                );
            }
            if let Some(c) = hit(&lex.harassment, text) {
                cx.push(file, key.clone(), format!("says {c:?}, a harassment cue of templates/lexicon.toml, in {text:?}: put scam and abuse in a `harassment` event"));
            }
        }
        // Probes must be heard as probes.
        for (i, v) in probes.iter().enumerate() {
            for (j, t) in v.iter().enumerate() {
                // (The assistant also hears a private fact the scenario declares by its cues.)
                let declared = f.private_facts.iter().any(|p| hit(&p.cues, t).is_some());
                if hit(&lex.private_probe, t).is_none() && !declared {
                    cx.push(file, format!("probes[{i}].asks[{j}]"), format!("the assistant does not hear {t:?} as a private probe (no private_probe cue of templates/lexicon.toml nor a cue of this file's [[private_facts]])"));
                }
            }
        }
        // Decision requests must be heard as such.
        let question = |t: &str| assistant_agent::asks_something(t, lex);
        for (i, v) in goal_asks.iter().enumerate() {
            for (j, t) in v.iter().enumerate() {
                if !question(t) {
                    cx.push(file, format!("goals[{i}].asks[{j}]"), format!("the assistant does not hear {t:?} as a decision request (not a question to the owner)"));
                }
            }
        }
        for (i, v) in event_asks.iter().enumerate() {
            for (j, t) in v.iter().enumerate() {
                if !question(t) {
                    cx.push(file, format!("events[{i}].asks[{j}]"), format!("the assistant does not hear {t:?} as a decision request (not a question to the owner)"));
                }
            }
        }
        // Presets: heard exactly where their trigger holds.
        let mut presets: Vec<(PresetRef, String)> = Vec::new();
        for case in [
            callbench_model::PresetCase::Regular,
            callbench_model::PresetCase::Emergent,
        ] {
            for r in set.presets_for(s, case) {
                let key = match r {
                    PresetRef::Regular(i) => format!("regular_presets[{i}]"),
                    PresetRef::ScenarioEmergent(i) => format!("emergent_presets[{i}]"),
                    PresetRef::SharedEmergent(i) => {
                        format!("shared emergent preset {:?}", set.emergent_presets[i].id)
                    }
                };
                presets.push((r, key));
            }
        }
        for (r, pkey) in &presets {
            let p = set.preset_def(s, *r);
            for (gi, g) in f.goals.iter().enumerate() {
                for (ri, role) in f.roles.iter().enumerate() {
                    if !(g.roles.is_empty() || g.roles.contains(&role.id)) {
                        continue;
                    }
                    let triggered = ScenarioSet::triggers(p, role, g);
                    if triggered && !ScenarioSet::fits(p, g) {
                        continue;
                    }
                    if triggered {
                        let by_role = p.when.iter().any(|t| role.tags.contains(t));
                        let lines: Vec<(String, &String)> = if by_role {
                            intros[ri]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("roles[{ri}].self_intro[{j}]"), t))
                                .collect()
                        } else {
                            openings[gi]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("goals[{gi}].opening[{j}]"), t))
                                .collect()
                        };
                        for (key, t) in lines {
                            if !lex.affirms(&p.cues, t) {
                                cx.push(file, key, format!("{pkey} ({:?}) applies to role {:?} with goal {:?} but none of its cues {:?} is in {t:?}", p.id, role.id, g.id, p.cues));
                            }
                        }
                    } else {
                        let mut lines: Vec<(String, &String)> = Vec::new();
                        lines.extend(
                            intros[ri]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("roles[{ri}].self_intro[{j}]"), t)),
                        );
                        lines.extend(
                            openings[gi]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("goals[{gi}].opening[{j}]"), t)),
                        );
                        lines.extend(
                            details[gi]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("goals[{gi}].details[{j}]"), t)),
                        );
                        lines.extend(
                            goal_asks[gi]
                                .iter()
                                .enumerate()
                                .map(|(j, t)| (format!("goals[{gi}].asks[{j}]"), t)),
                        );
                        for (ei, e) in f.events.iter().enumerate() {
                            if e.goals.is_empty() || e.goals.contains(&g.id) {
                                lines.extend(
                                    reveals[ei]
                                        .iter()
                                        .enumerate()
                                        .map(|(j, t)| (format!("events[{ei}].reveal[{j}]"), t)),
                                );
                                lines.extend(
                                    event_asks[ei]
                                        .iter()
                                        .enumerate()
                                        .map(|(j, t)| (format!("events[{ei}].asks[{j}]"), t)),
                                );
                            }
                        }
                        for (pi, pr) in f.probes.iter().enumerate() {
                            if pr.goals.is_empty() || pr.goals.contains(&g.id) {
                                lines.extend(
                                    probes[pi]
                                        .iter()
                                        .enumerate()
                                        .map(|(j, t)| (format!("probes[{pi}].asks[{j}]"), t)),
                                );
                            }
                        }
                        for v in &shared_probes {
                            lines.extend(v.iter().map(|t| ("shared probes".to_string(), t)));
                        }
                        for (key, goals, _, v) in &near {
                            if goals.contains(&g.id) {
                                lines.extend(
                                    v.iter()
                                        .enumerate()
                                        .map(|(j, t)| (format!("{key}[{j}]"), t)),
                                );
                            }
                        }
                        for (key, t) in lines {
                            if let Some(c) = lex.affirmed(&p.cues, t) {
                                cx.push(file, key, format!("{pkey} ({:?}) does not apply to role {:?} with goal {:?}, yet its cue {c:?} is in {t:?}", p.id, role.id, g.id));
                            }
                        }
                    }
                }
            }
        }
    }
    // The generic caller banks are said by everyone: no preset or event cue, no stray goodbye.
    for name in phrasebook::CALLER_BANKS {
        let bank = book.bank(&format!("caller.{name}"));
        for s in &set.scenarios {
            let vars = first_slots(set, s);
            for (j, t) in cx.render_all(bank, &vars).iter().enumerate() {
                let key = format!("{name}[{j}]");
                for r in set
                    .presets_for(s, callbench_model::PresetCase::Regular)
                    .into_iter()
                    .chain(set.presets_for(s, callbench_model::PresetCase::Emergent))
                {
                    let p = set.preset_def(s, r);
                    if let Some(c) = hit(&p.cues, t) {
                        cx.push(
                            "templates/caller.toml",
                            key.clone(),
                            format!(
                                "says {c:?}, a cue of preset {:?} (scenario {}), in {t:?}",
                                p.id,
                                s.name()
                            ),
                        );
                    }
                }
                for e in &s.file.events {
                    if let Some(c) = hit(&e.cues, t) {
                        cx.push(
                            "templates/caller.toml",
                            key.clone(),
                            format!(
                                "says {c:?}, a cue of event {:?} (scenario {}), in {t:?}",
                                e.id,
                                s.name()
                            ),
                        );
                    }
                }
            }
        }
    }
    cx.out
        .sort_by(|a, b| (&a.file, &a.key, &a.message).cmp(&(&b.file, &b.key, &b.message)));
    cx.out.dedup();
    cx.out
}
