//! Plan properties on the shipped scenario library (read here; the crate itself does no IO).

use callbench_model::plan::{apportion, sub_seed, webster};
use callbench_model::scenario::{parse_library, parse_scenario};
use callbench_model::{Distribution, Plan, PresetCase, Relation, ScenarioSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn library() -> ScenarioSet {
    library_with(&[])
}

/// The shipped library and the scenario directories `extra` (relative to the repository).
fn library_with(extra: &[&str]) -> ScenarioSet {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let root = repo.join("scenarios");
    let mut scenarios = Vec::new();
    let mut libraries = Vec::new();
    let mut dirs = vec![root.clone(), root.join("common")];
    dirs.extend(extra.iter().map(|d| repo.join(d)));
    for dir in dirs {
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for p in files
            .into_iter()
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        {
            let text = std::fs::read_to_string(&p).unwrap();
            let name = p.display().to_string();
            if !dir.ends_with("common") {
                scenarios.push((name.clone(), parse_scenario(&name, &text).unwrap()));
            } else {
                libraries.push((name.clone(), parse_library(&name, &text).unwrap()));
            }
        }
    }
    ScenarioSet::build(scenarios, libraries, "test".into()).unwrap()
}

#[test]
fn the_plan_is_deterministic_and_complete() {
    let set = library();
    let a = Plan::build(&set, 42, 50_000, &Distribution::default()).unwrap();
    let b = Plan::build(&set, 42, 50_000, &Distribution::default()).unwrap();
    assert_eq!(a.len(), 50_000);
    let ids_a: Vec<_> = a.range(0..a.len()).collect();
    let ids_b: Vec<_> = b.range(0..b.len()).collect();
    assert_eq!(ids_a, ids_b);
    let unique: BTreeSet<_> = ids_a.iter().map(|d| d.id.clone()).collect();
    assert_eq!(unique.len(), 50_000, "ids are unique");
    let seeds: BTreeSet<_> = ids_a.iter().map(|d| d.seed).collect();
    assert_eq!(seeds.len(), 50_000, "sub-seeds are distinct");
    assert_eq!(a.allocations.iter().map(|x| x.count).sum::<u64>(), 50_000);
    let c = Plan::build(&set, 43, 50_000, &Distribution::default()).unwrap();
    assert_ne!(
        ids_a[0..100],
        c.range(0..100).collect::<Vec<_>>()[..],
        "another seed, another order"
    );
}

#[test]
fn cells_follow_the_contract() {
    let set = library();
    let plan = Plan::build(&set, 1, 50_000, &Distribution::default()).unwrap();
    let mut seen: BTreeMap<&str, BTreeSet<(PresetCase, Relation)>> = BTreeMap::new();
    for a in &plan.allocations {
        assert!(a.count > 0, "{:?} gets dialogues", a.cell);
        let regular_scenario = ["takeout", "delivery", "taxi"].contains(&a.cell.scenario.as_str());
        if a.cell.preset_case == PresetCase::Regular {
            assert!(
                regular_scenario,
                "regular presets only in service scenarios: {:?}",
                a.cell
            );
        }
        if a.cell.preset_case == PresetCase::None {
            assert_eq!(a.cell.relation, Relation::None);
        } else {
            assert_ne!(a.cell.relation, Relation::None);
        }
        seen.entry(a.cell.scenario.as_str())
            .or_default()
            .insert((a.cell.preset_case, a.cell.relation));
    }
    for (scenario, cells) in seen {
        let want = if ["takeout", "delivery", "taxi"].contains(&scenario) {
            9
        } else {
            5
        };
        assert_eq!(cells.len(), want, "{scenario}: {cells:?}");
    }
}

#[test]
fn ids_count_within_their_cell_and_seeds_depend_only_on_seed_and_id() {
    let set = library();
    let plan = Plan::build(&set, 5, 600, &Distribution::default()).unwrap();
    let mut next: BTreeMap<String, u32> = BTreeMap::new();
    let mut ids = std::collections::HashSet::new();
    for d in plan.range(0..plan.len()) {
        let cell = plan.cell(&d);
        let n = next.entry(cell.key()).or_insert(0);
        // The id names the scenario and nothing else of the cell.
        assert_eq!(d.id, cell.id(u64::from(*n)));
        assert!(
            !d.id.contains(cell.relation.as_str()) && !d.id.contains("none"),
            "{} gives its labels away",
            d.id
        );
        assert!(ids.insert(d.id.clone()), "{} twice", d.id);
        assert!(d.id.starts_with(&format!("{}-", cell.scenario)));
        *n += 1;
        assert_eq!(d.seed, sub_seed(5, &d.id, 0));
    }
    assert_ne!(
        sub_seed(5, "takeout-000001", 0),
        sub_seed(5, "takeout-000001", 1),
        "attempts differ"
    );
}

#[test]
fn bad_plans_are_refused_with_a_reason() {
    let set = library();
    let err = Plan::build(&set, 1, 0, &Distribution::default())
        .unwrap_err()
        .to_string();
    assert!(err.contains("count"), "{err}");
    let mut d = Distribution::default();
    d.scenarios.insert("nowhere".into(), 1.0);
    let err = Plan::build(&set, 1, 10, &d).unwrap_err().to_string();
    assert!(err.contains("nowhere"), "{err}");
    let mut d = Distribution::default();
    d.scenarios.insert("takeout".into(), -1.0);
    assert!(Plan::build(&set, 1, 10, &d).is_err());
}

#[test]
fn apportionment_is_exact_and_fair() {
    assert_eq!(apportion(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
    assert_eq!(apportion(7, &[0.5, 0.25, 0.25]).iter().sum::<u64>(), 7);
    assert_eq!(apportion(5, &[0.0, 0.0]), vec![0, 0]);
    let counts = apportion(50_000, &[0.3, 0.3, 0.4]);
    assert_eq!(counts, vec![15_000, 15_000, 20_000]);
}

#[test]
fn a_scenario_weight_moves_the_allocation() {
    let set = library();
    let mut d = Distribution::default();
    d.scenarios.insert("takeout".into(), 3.0);
    d.scenarios.insert("work".into(), 1.0);
    let plan = Plan::build(&set, 1, 4_000, &d).unwrap();
    let per = |s: &str| {
        plan.allocations
            .iter()
            .filter(|a| a.cell.scenario == s)
            .map(|a| a.count)
            .sum::<u64>()
    };
    assert_eq!(per("takeout"), 3_000);
    assert_eq!(per("work"), 1_000);
    assert_eq!(per("life"), 0);
}

/// Every (id, sub-seed, cell) of a plan.
fn identities(plan: &Plan) -> BTreeMap<String, (u64, String)> {
    plan.range(0..plan.len())
        .map(|d| (d.id.clone(), (d.seed, plan.cell(&d).key())))
        .collect()
}

#[test]
fn a_new_scenario_or_a_larger_count_leaves_every_identity_as_it_was() {
    let six = library();
    let seven = library_with(&["crates/roleplay/tests/test_data/seventh"]);
    let small = identities(&Plan::build(&six, 9, 600, &Distribution::default()).unwrap());
    // A seventh scenario and its share on top: the 600 are all there, with their seeds.
    let grown = identities(&Plan::build(&seven, 9, 700, &Distribution::default()).unwrap());
    for (id, v) in &small {
        assert_eq!(grown.get(id), Some(v), "{id}");
    }
    assert_eq!(
        grown.keys().filter(|i| i.starts_with("repair-")).count(),
        100
    );
    // A larger count: every cell keeps its dialogues (house-monotone), ids and seeds included.
    for n in [601, 650, 1_000, 5_003] {
        let larger = identities(&Plan::build(&six, 9, n, &Distribution::default()).unwrap());
        for (id, v) in &small {
            assert_eq!(larger.get(id), Some(v), "{id} at count {n}");
        }
    }
    // The split is a function of seed and id: it cannot move when the corpus grows.
    let ratios = callbench_model::SplitRatios::default();
    for id in small.keys() {
        assert_eq!(ratios.assign(9, id), ratios.assign(9, id));
    }
}

#[test]
fn a_grown_plan_makes_only_the_difference() {
    let six = library();
    let seven = library_with(&["crates/roleplay/tests/test_data/seventh"]);
    let first = Plan::build(&six, 3, 600, &Distribution::default()).unwrap();
    let base = first.targets();
    let step = Plan::grow(&seven, 3, 700, &Distribution::default(), &base).unwrap();
    assert_eq!(step.len(), 100);
    assert_eq!(step.total(), 700);
    let first_ids = identities(&first);
    let step_ids = identities(&step);
    assert!(step_ids.keys().all(|id| !first_ids.contains_key(id)));
    let fresh = identities(&Plan::build(&seven, 3, 700, &Distribution::default()).unwrap());
    let mut union = first_ids.clone();
    union.extend(step_ids);
    assert_eq!(
        union, fresh,
        "first step + second = a fresh plan of the whole"
    );
    // Shrinking is refused with the cell named.
    let err = Plan::grow(&six, 3, 500, &Distribution::default(), &base)
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds"), "{err}");
    assert!(Plan::smallest_count_keeping(&six, &Distribution::default(), &base, 500) == Some(600));
}

#[test]
fn webster_is_house_monotone() {
    let weights = [
        0.5 * 0.25,
        0.5 * 0.25,
        0.3 * 0.25,
        0.3 * 0.25,
        0.2,
        0.7,
        1e-3,
    ];
    let mut last = vec![0; weights.len()];
    for n in 0..2_000 {
        let c = webster(n, &weights);
        assert_eq!(c.iter().sum::<u64>(), n);
        assert!(
            c.iter().zip(&last).all(|(a, b)| a >= b),
            "{n}: {c:?} after {last:?}"
        );
        last = c;
    }
    assert_eq!(webster(10, &[1.0, 1.0, 1.0]), vec![4, 3, 3]);
    assert_eq!(webster(5, &[0.0, 0.0]), vec![0, 0]);
}

#[test]
fn fixed_scenario_counts_are_kept_and_the_rest_is_shared() {
    let set = library();
    let mut d = Distribution::default();
    d.scenario_counts.insert("takeout".into(), 123);
    let plan = Plan::build(&set, 1, 1_123, &d).unwrap();
    let per = |s: &str| {
        plan.allocations
            .iter()
            .filter(|a| a.cell.scenario == s)
            .map(|a| a.count)
            .sum::<u64>()
    };
    assert_eq!(per("takeout"), 123);
    assert_eq!(per("work"), 200);
    let err = Plan::build(&set, 1, 100, &d).unwrap_err().to_string();
    assert!(err.contains("scenario_counts"), "{err}");
}

/// A preset is never cast with an event it answers itself (`answers_events`): the shipped
/// `sales_sms_only` ("有资料可以发短信") with a seller's `send_material`.
#[test]
fn a_preset_is_never_cast_with_an_event_it_answers() {
    let set = library();
    let mut checked = 0;
    for s in &set.scenarios {
        for rel in [
            Relation::Complementarity,
            Relation::Conflict,
            Relation::Irrelevance,
        ] {
            for c in set.castings(s, PresetCase::Emergent, rel) {
                let (Some(pr), Some(e)) = (c.preset, c.event) else {
                    continue;
                };
                let p = set.preset_def(s, pr);
                if !p.answers_events.is_empty() {
                    checked += 1;
                    assert!(
                        !p.answers_events.contains(&s.file.events[e].id),
                        "{} cast with {}",
                        p.id,
                        s.file.events[e].id
                    );
                }
            }
        }
    }
    assert!(checked > 0, "no casting of a preset with answers_events");
}
