//! The sampler: shares per stratum, at least one per stratum, determinism, seeds, rates,
//! the files written, the rejects part.

use crate::support::*;
use callbench_model::Dialogue;
use inspection::{InspectionError, Origin, SampleConfig, Stratum, draw_sample, read_sample};
use std::collections::{BTreeMap, HashSet};

const STRATA: &[(Cell, usize)] = &[
    (TAKEOUT_CONFLICT, 95),
    (TAKEOUT_ALIGN, 23),
    (DELIVERY_EMERGENT, 7),
    (LIFE_NONE, 150),
    (WORK_NONE, 1),
];

fn cfg(seed: u64) -> SampleConfig {
    SampleConfig {
        seed,
        ..SampleConfig::default()
    }
}

#[test]
fn each_stratum_gets_its_share_and_at_least_one() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = make(STRATA);
    write_corpus(dir.path(), &corpus, 3);
    for rate in [0.10, 0.05, 0.33, 0.5] {
        let s = draw_sample(
            dir.path(),
            &SampleConfig {
                rate,
                seed: 11,
                ..SampleConfig::default()
            },
        )
        .unwrap();
        assert_eq!(s.population, 276);
        assert_eq!(s.strata.len(), STRATA.len());
        // What the dialogues in the sample actually are, per stratum.
        let mut actual: BTreeMap<Stratum, u64> = BTreeMap::new();
        for e in &s.dialogues {
            *actual.entry(e.stratum.clone()).or_default() += 1;
        }
        for st in &s.strata {
            let quota = rate * st.population as f64;
            assert!(
                (st.sampled as f64 - quota).abs() <= 1.0,
                "rate {rate}: {} sampled {} of {}",
                st.stratum,
                st.sampled,
                st.population
            );
            assert!(st.sampled >= 1 && st.sampled <= st.population);
            assert_eq!(actual.get(&st.stratum).copied().unwrap_or(0), st.sampled);
        }
        // The total is the rounded rate, plus what the minimum of one added.
        let bumps = s
            .strata
            .iter()
            .filter(|st| rate * (st.population as f64) < 1.0)
            .count() as i64;
        let total = (rate * 276.0).round() as i64;
        assert!(
            (s.sampled as i64 - total).abs() <= bumps,
            "rate {rate}: {}",
            s.sampled
        );
        assert_eq!(s.ids.len() as u64, s.sampled);
        assert_eq!(s.ids.iter().collect::<HashSet<_>>().len(), s.ids.len());
    }
}

#[test]
fn the_same_seed_gives_the_same_sample_however_sharded() {
    let corpus = make(STRATA);
    let one = tempfile::tempdir().unwrap();
    let many = tempfile::tempdir().unwrap();
    write_corpus(one.path(), &corpus, 1);
    // Other shard boundaries and another order of the dialogues.
    let mut shuffled = corpus.clone();
    shuffled.reverse();
    write_corpus(many.path(), &shuffled, 7);
    let a = draw_sample(one.path(), &cfg(42)).unwrap();
    let b = draw_sample(many.path(), &cfg(42)).unwrap();
    let again = draw_sample(one.path(), &cfg(42)).unwrap();
    assert_eq!(a.ids, b.ids);
    assert_eq!(a.ids, again.ids);
    assert_eq!(a.strata, b.strata);
    // The files hold the same dialogues too.
    let bytes = |d: &tempfile::TempDir, f: &str| {
        std::fs::read(d.path().join("inspection").join(f)).unwrap()
    };
    assert_eq!(bytes(&one, "sample.jsonl"), bytes(&many, "sample.jsonl"));
    assert_eq!(
        bytes(&one, "sample.parquet"),
        bytes(&many, "sample.parquet")
    );
}

#[test]
fn another_seed_gives_another_sample_with_the_same_shares() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &make(STRATA), 2);
    let a = draw_sample(dir.path(), &cfg(1)).unwrap();
    let b = draw_sample(dir.path(), &cfg(2)).unwrap();
    assert_ne!(a.ids, b.ids);
    let counts =
        |s: &inspection::SampleSummary| s.strata.iter().map(|x| x.sampled).collect::<Vec<_>>();
    assert_eq!(counts(&a), counts(&b));
}

#[test]
fn the_rate_is_validated() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &make(STRATA), 1);
    for rate in [0.0, -0.1, 1.5, f64::NAN, f64::INFINITY] {
        let err = draw_sample(dir.path(), &SampleConfig { rate, ..cfg(1) }).unwrap_err();
        assert!(
            matches!(err, InspectionError::Config { key: "rate", .. }),
            "{rate}: {err}"
        );
        assert!(err.to_string().contains("rate"), "{err}");
    }
    let err = draw_sample(
        dir.path(),
        &SampleConfig {
            reject_rate: 2.0,
            ..cfg(1)
        },
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            InspectionError::Config {
                key: "reject_rate",
                ..
            }
        ),
        "{err}"
    );
    assert!(
        !dir.path().join("inspection").exists(),
        "nothing written on bad config"
    );
    // 1 is the whole corpus.
    let all = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 1.0,
            ..cfg(1)
        },
    )
    .unwrap();
    assert_eq!(all.sampled, 276);
}

#[test]
fn the_files_agree_with_each_other() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &make(STRATA), 2);
    let s = draw_sample(dir.path(), &cfg(5)).unwrap();
    let insp = dir.path().join("inspection");
    let parquet = corpus::read_shard(&insp.join("sample.parquet")).unwrap();
    let jsonl: Vec<Dialogue> = corpus::read_jsonl(&insp.join("sample.jsonl"))
        .unwrap()
        .map(|(_, d)| d.unwrap())
        .collect();
    assert_eq!(parquet, jsonl);
    assert_eq!(
        parquet.iter().map(|d| d.id.clone()).collect::<Vec<_>>(),
        s.ids
    );
    assert_eq!(read_sample(dir.path()).unwrap(), s);
    let html = std::fs::read_to_string(insp.join("sample.html")).unwrap();
    for id in &s.ids {
        assert!(html.contains(id.as_str()));
    }
    // No staging or temp files left behind.
    let names: Vec<String> = std::fs::read_dir(&insp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");
    // sample.json holds rate, seed, strata, ids and created_at.
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(insp.join("sample.json")).unwrap()).unwrap();
    for key in ["rate", "seed", "strata", "ids", "created_at"] {
        assert!(json.get(key).is_some(), "{key}");
    }
    let takeout = json["strata"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["scenario"] == "takeout" && s["relation"] == "conflict")
        .unwrap();
    assert_eq!(takeout["population"], 95);
    assert_eq!(takeout["preset_case"], "regular");
}

#[test]
fn a_manifest_names_the_shards() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = make(STRATA);
    write_corpus(dir.path(), &corpus, 2);
    // A manifest that lists only the first shard: the second is not part of the corpus.
    let info = corpus::write_shard(dir.path(), 0, &corpus[..100], &Default::default()).unwrap();
    let manifest = corpus::Manifest {
        format_version: corpus::MANIFEST_FORMAT_VERSION,
        tool_version: "test".into(),
        created_at: "2025-01-01T00:00:00Z".into(),
        seed: 1,
        count: 100,
        fingerprint: "x".into(),
        cells: vec![],
        shards: vec![info],
        rejects: vec![],
        totals: Default::default(),
        splits: Default::default(),
        findings: Default::default(),
        config: Default::default(),
        usage: Default::default(),
        library_digest: String::new(),
        diversity: None,
        report: Default::default(),
        steps: Vec::new(),
    };
    corpus::write_manifest(dir.path(), &manifest).unwrap();
    let s = draw_sample(dir.path(), &cfg(1)).unwrap();
    assert_eq!(s.population, 100);
}

#[test]
fn a_duplicate_id_is_an_error_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let d = dialogue("life-000001", LIFE_NONE, 4);
    corpus::write_shard(dir.path(), 0, std::slice::from_ref(&d), &Default::default()).unwrap();
    corpus::write_shard(dir.path(), 1, &[d], &Default::default()).unwrap();
    let err = draw_sample(dir.path(), &cfg(1)).unwrap_err().to_string();
    assert!(
        err.contains("part-00000.parquet") && err.contains("part-00001.parquet"),
        "{err}"
    );
    assert!(err.contains("life-000001"), "{err}");
}

#[test]
fn an_empty_corpus_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let err = draw_sample(dir.path(), &cfg(1)).unwrap_err().to_string();
    assert!(err.contains("no dialogues"), "{err}");
}

#[test]
fn rejects_are_sampled_apart_once_per_id_at_their_last_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = make(&[(TAKEOUT_CONFLICT, 30), (LIFE_NONE, 30)]);
    write_corpus(dir.path(), &corpus, 1);
    let mut first = Vec::new();
    // 20 ids rejected twice (attempts 0 and 1) in the takeout stratum, given up.
    for i in 0..20 {
        let id = format!("takeout-{:06}", 100 + i);
        first.push(rejected(&id, TAKEOUT_CONFLICT, 0, &[("safety.privacy", 1)]));
        first.push(rejected(
            &id,
            TAKEOUT_CONFLICT,
            1,
            &[("natural.closing", 5)],
        ));
    }
    // A rejected attempt of a dialogue that is in the corpus (accepted later).
    first.push(rejected(
        "life-000030",
        LIFE_NONE,
        0,
        &[("natural.meta", 2)],
    ));
    // A generation failure: never sampled.
    let mut failed = rejected(
        "life-000099",
        LIFE_NONE,
        2,
        &[("natural.generation_failed", 0)],
    );
    failed.turns.clear();
    write_rejects_files(dir.path(), &[first, vec![failed]]);

    let s = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 0.1,
            reject_rate: 0.25,
            seed: 3,
            replace_reviewed: false,
        },
    )
    .unwrap();
    assert_eq!(s.rejects_population, 21);
    let take = s
        .strata
        .iter()
        .find(|x| x.stratum.scenario == "takeout")
        .unwrap();
    assert_eq!((take.rejects_population, take.rejects_sampled), (20, 5));
    let life = s
        .strata
        .iter()
        .find(|x| x.stratum.scenario == "life")
        .unwrap();
    assert_eq!(life.rejects_population, 1);
    // Its one reject shares its id with a corpus dialogue: taken unless that one is sampled.
    let in_corpus_part = s.ids.iter().any(|i| i == "life-000030")
        && s.entry("life-000030").unwrap().origin == Origin::Corpus;
    assert_eq!(life.rejects_sampled, u64::from(!in_corpus_part));
    let rejects: Vec<_> = s
        .dialogues
        .iter()
        .filter(|e| e.origin == Origin::Rejects)
        .collect();
    assert_eq!(rejects.len() as u64, s.rejects_sampled);
    for e in &rejects {
        assert!(!e.checker_passed);
        assert_ne!(e.id, "life-000099");
        if e.stratum.scenario == "takeout" {
            assert_eq!(e.attempt, 1, "the last attempt");
            assert_eq!(e.checker_kinds, vec!["natural.closing".to_string()]);
        }
    }
    // An id appears once in the sample.
    assert_eq!(s.ids.iter().collect::<HashSet<_>>().len(), s.ids.len());
    // The dialogues in the files are the rejected versions, marked by their qc.
    let dialogues = inspection::read_sample_dialogues(dir.path()).unwrap();
    for (e, d) in s.dialogues.iter().zip(&dialogues) {
        assert_eq!(e.id, d.id);
        assert_eq!(e.checker_passed, d.qc.as_ref().unwrap().passed);
    }

    // No rejects when their rate is 0.
    let none = draw_sample(
        dir.path(),
        &SampleConfig {
            reject_rate: 0.0,
            ..cfg(3)
        },
    )
    .unwrap();
    assert_eq!(none.rejects_sampled, 0);
    assert!(none.dialogues.iter().all(|e| e.origin == Origin::Corpus));
}

#[test]
fn a_reviewed_sample_is_not_replaced_by_another() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &make(STRATA), 1);
    let s = draw_sample(dir.path(), &cfg(1)).unwrap();
    let store = inspection::VerdictStore::open(dir.path()).unwrap();
    store
        .append(&verdict("alice", &s.ids[0], inspection::Decision::Accept))
        .unwrap();
    drop(store);
    // The same draw again is fine.
    assert_eq!(draw_sample(dir.path(), &cfg(1)).unwrap().ids, s.ids);
    let err = draw_sample(dir.path(), &cfg(2)).unwrap_err();
    assert!(matches!(err, InspectionError::SampleInUse { .. }), "{err}");
    assert!(err.to_string().contains("verdicts.jsonl"), "{err}");
    assert_eq!(read_sample(dir.path()).unwrap().ids, s.ids, "untouched");
    let forced = draw_sample(
        dir.path(),
        &SampleConfig {
            replace_reviewed: true,
            ..cfg(2)
        },
    )
    .unwrap();
    assert_ne!(forced.ids, s.ids);
}
