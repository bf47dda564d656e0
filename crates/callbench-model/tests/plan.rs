//! Plan properties on the shipped scenario library (read here; the crate itself does no IO).

use callbench_model::plan::{apportion, sub_seed};
use callbench_model::scenario::{parse_library, parse_scenario};
use callbench_model::{Distribution, Plan, PresetCase, Relation, ScenarioSet};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn library() -> ScenarioSet {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let mut scenarios = Vec::new();
    let mut libraries = Vec::new();
    for dir in [root.clone(), root.join("common")] {
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
            if dir == root {
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
fn ids_count_within_their_scenario_and_seeds_depend_only_on_seed_and_id() {
    let set = library();
    let plan = Plan::build(&set, 5, 600, &Distribution::default()).unwrap();
    let mut next: BTreeMap<String, u32> = BTreeMap::new();
    for d in plan.range(0..plan.len()) {
        let cell = plan.cell(&d);
        let n = next.entry(cell.scenario.clone()).or_insert(0);
        assert_eq!(d.id, format!("{}-{:06}", cell.scenario, n));
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
