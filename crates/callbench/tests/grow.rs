//! A corpus that grows in place, and a binary that carries its library: the real `callbench`
//! run as a user runs it — over the in-repo mock for the LLM backend, from an empty folder for
//! the embedded library.

mod support;

use mock_openai::{MockConfig, MockServer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{manifest, repo, run_in, shards_and_rejects as files, text};

/// The seventh scenario of the roleplay tests: a file, no code.
fn seventh() -> PathBuf {
    repo().join("crates/roleplay/tests/test_data/seventh")
}

/// Every dialogue of the corpus by id: its scenario, split and turn texts.
fn dialogues(out: &Path) -> BTreeMap<String, (String, String, Vec<String>)> {
    let m = manifest(out);
    let mut all = BTreeMap::new();
    for s in m["shards"].as_array().unwrap() {
        let path = out.join(s["file"].as_str().unwrap());
        for d in corpus::read_shard(&path).unwrap() {
            let split = d.split.map(|s| s.to_string()).unwrap_or_default();
            let turns = d.turns.iter().map(|t| t.text.clone()).collect();
            assert!(
                all.insert(d.id.clone(), (d.scenario.clone(), split, turns))
                    .is_none(),
                "{} is in the corpus once",
                d.id
            );
        }
    }
    all
}

fn planned(m: &serde_json::Value, scenario: &str) -> u64 {
    m["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["scenario"] == scenario)
        .map(|c| c["planned"].as_u64().unwrap())
        .sum()
}

fn llm_args<'a>(out: &'a str, url: &'a str, count: &'a str, cfg: &'a str) -> Vec<&'a str> {
    vec![
        "generate",
        "--config",
        cfg,
        "--backend",
        "openai",
        "--base-url",
        url,
        "--model",
        "mock",
        "--count",
        count,
        "--rows-per-shard",
        "100",
        "--concurrency",
        "16",
        "--out",
        out,
        "--quiet",
    ]
}

/// The target: 600 dialogues over the mock, then a seventh scenario and `--count 700`
/// into the same folder. The 600 are there with identical text (their shards' bytes untouched),
/// the new scenario has its share, and the second run pays under 30% of the first's calls.
#[test]
fn a_seventh_scenario_grows_an_llm_corpus_for_a_fraction_of_its_cost() {
    let mock = MockServer::start_blocking(
        MockConfig {
            end_after_turns: 6,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let url = mock.base_url();
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("run.toml");
    // The mock plays no plan and repeats itself: every dialogue is kept (no near-duplicate
    // removal, no kind rejects), so that the corpus is the plan and its cost is its calls.
    std::fs::write(
        &cfg,
        "near_duplicate_threshold = 0\n[check]\nreject_kinds = []\n[sample]\nafter_generate = false\n",
    )
    .unwrap();
    let cfg = cfg.to_str().unwrap();
    let out = dir.path().join("corpus");
    let out_s = out.to_str().unwrap();
    let seventh = seventh();
    let seventh = seventh.to_str().unwrap();

    let before = mock.stats().ok;
    let o = run_in(dir.path(), &llm_args(out_s, &url, "600", cfg));
    assert!(o.status.success(), "{}", text(&o));
    let first_calls = mock.stats().ok - before;
    let first_files = files(&out);
    let first = dialogues(&out);
    assert_eq!(first.len(), 600);
    let m1 = manifest(&out);

    // The dry run says what it would do and spends nothing.
    let mut dry = llm_args(out_s, &url, "700", cfg);
    dry.extend(["--scenarios", seventh, "--dry-run"]);
    let at = mock.stats().ok;
    let o = run_in(dir.path(), &dry);
    assert!(o.status.success(), "{}", text(&o));
    let said = text(&o);
    assert!(
        said.contains("kept: 600; added: 100; regenerated: 0"),
        "{said}"
    );
    assert!(said.contains("new scenarios: repair"), "{said}");
    assert!(said.contains("total:"), "{said}");
    assert_eq!(mock.stats().ok, at, "a dry run sends nothing");
    assert_eq!(files(&out), first_files, "a dry run writes nothing");

    let mut grow = llm_args(out_s, &url, "700", cfg);
    grow.extend(["--scenarios", seventh]);
    let at = mock.stats().ok;
    let o = run_in(dir.path(), &grow);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("growing the corpus"), "{}", text(&o));
    let second_calls = mock.stats().ok - at;
    eprintln!(
        "calls: first run (600) {first_calls}, second run (+100, a seventh scenario) {second_calls} ({:.1}%)",
        100.0 * second_calls as f64 / first_calls as f64
    );
    assert!(
        (second_calls as f64) < 0.3 * first_calls as f64,
        "the second run paid {second_calls} calls, the first {first_calls}"
    );

    // The first run's files are all there, byte for byte.
    let grown_files = files(&out);
    for (rel, bytes) in &first_files {
        assert!(grown_files.get(rel) == Some(bytes), "{rel} changed");
    }
    // Its dialogues too: same ids, text and split.
    let grown = dialogues(&out);
    for (id, d) in &first {
        assert_eq!(grown.get(id), Some(d), "{id}");
    }
    // The new scenario has its share: 700 over seven equal weights, as many as each other.
    let m2 = manifest(&out);
    assert_eq!(planned(&m2, "repair"), 100);
    for s in ["takeout", "delivery", "taxi", "work", "life", "harassment"] {
        assert_eq!(planned(&m2, s), planned(&m1, s), "{s} keeps its dialogues");
    }
    let repair = grown.values().filter(|d| d.0 == "repair").count() as u64;
    let written_repair: u64 = m2["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["scenario"] == "repair")
        .map(|c| c["written"].as_u64().unwrap())
        .sum();
    assert_eq!(repair, written_repair);
    assert_eq!(repair, 100);
    assert_eq!(grown.len(), 700);
    assert!(grown.keys().filter(|id| id.starts_with("repair-")).count() as u64 == repair);
    // Every generation step is in the manifest.
    let steps = m2["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{}", m2["steps"]);
    assert_eq!(steps[1]["kept"], 600);
    assert_eq!(steps[1]["added"], 100);
    assert_eq!(steps[1]["new_scenarios"], serde_json::json!(["repair"]));

    // The same command again: nothing to do, nothing paid.
    let at = mock.stats().ok;
    let o = run_in(dir.path(), &grow);
    assert!(o.status.success(), "{}", text(&o));
    assert_eq!(mock.stats().ok, at);
    assert_eq!(files(&out), grown_files);
}

/// A changed scenario file makes that scenario's dialogues again (same ids) and no other's;
/// the run says so before it spends.
#[test]
fn a_changed_scenario_is_made_again_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    let out_s = out.to_str().unwrap();
    let base = [
        "generate",
        "--count",
        "600",
        "--rows-per-shard",
        "100",
        "--out",
        out_s,
        "--quiet",
    ];
    let o = run_in(dir.path(), &base);
    assert!(o.status.success(), "{}", text(&o));
    let first = dialogues(&out);

    // taxi, with its owners told something else: a new line of its text.
    let sc = dir.path().join("sc");
    std::fs::create_dir_all(&sc).unwrap();
    let taxi = std::fs::read_to_string(repo().join("scenarios/taxi.toml")).unwrap();
    std::fs::write(
        sc.join("taxi.toml"),
        format!("{taxi}\n# edited by the team\n"),
    )
    .unwrap();
    let mut changed = base.to_vec();
    changed.extend(["--scenarios", sc.to_str().unwrap()]);

    let mut dry = changed.clone();
    dry.push("--dry-run");
    let o = run_in(dir.path(), &dry);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("regenerated: 100"), "{}", text(&o));
    assert!(
        text(&o).contains("the file of taxi changed"),
        "{}",
        text(&o)
    );

    let o = run_in(dir.path(), &changed);
    assert!(o.status.success(), "{}", text(&o));
    assert!(
        text(&o).contains("the file of taxi changed"),
        "{}",
        text(&o)
    );
    let again = dialogues(&out);
    assert_eq!(
        again.keys().collect::<Vec<_>>(),
        first.keys().collect::<Vec<_>>(),
        "the same ids"
    );
    for (id, d) in &first {
        if d.0 != "taxi" {
            assert_eq!(again.get(id), Some(d), "{id}");
        }
    }
    let m = manifest(&out);
    assert_eq!(
        m["totals"]["dialogues"].as_u64().unwrap(),
        again.len() as u64
    );
    let steps = m["steps"].as_array().unwrap();
    assert_eq!(
        steps.last().unwrap()["regenerated"],
        serde_json::json!(["taxi"])
    );
    // No shard of the corpus holds a taxi dialogue twice (the old ones were rewritten).
    let taxi_rows: u64 = m["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            corpus::read_shard(&out.join(s["file"].as_str().unwrap()))
                .unwrap()
                .iter()
                .filter(|d| d.scenario == "taxi")
                .count() as u64
        })
        .sum();
    assert_eq!(taxi_rows, 100);
}

/// Shrinking, another seed, a scenario taken away: errors that say what to do, and nothing
/// already written is touched.
#[test]
fn a_corpus_does_not_shrink_or_change_seed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("corpus");
    let out_s = out.to_str().unwrap();
    let o = run_in(
        dir.path(),
        &[
            "generate",
            "--count",
            "300",
            "--out",
            out_s,
            "--scenarios",
            seventh().to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let before = files(&out);
    let ledger = std::fs::read(out.join("ledger.jsonl")).unwrap();

    let o = run_in(
        dir.path(),
        &[
            "generate",
            "--count",
            "200",
            "--out",
            out_s,
            "--scenarios",
            seventh().to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("does not shrink"), "{}", text(&o));
    assert!(
        text(&o).contains("raise --count to at least"),
        "{}",
        text(&o)
    );

    let o = run_in(
        dir.path(),
        &[
            "generate",
            "--count",
            "300",
            "--seed",
            "5",
            "--out",
            out_s,
            "--scenarios",
            seventh().to_str().unwrap(),
            "--quiet",
        ],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("--seed 20260728"), "{}", text(&o));

    // Without the seventh scenario's file: it would be taken away.
    let o = run_in(
        dir.path(),
        &["generate", "--count", "300", "--out", out_s, "--quiet"],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("repair"), "{}", text(&o));
    assert!(!text(&o).contains("panicked"), "{}", text(&o));

    assert_eq!(files(&out), before);
    assert_eq!(std::fs::read(out.join("ledger.jsonl")).unwrap(), ledger);
}

/// Per-scenario counts: a team pins each scenario's dialogues, and a new scenario gets its own
/// without taking any.
#[test]
fn fixed_scenario_counts_keep_the_others_when_a_scenario_is_added() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("counts.toml");
    std::fs::write(
        &cfg,
        "[distribution.scenario_counts]\n\
         takeout = 50\ndelivery = 50\ntaxi = 50\nwork = 50\nlife = 50\nharassment = 50\n",
    )
    .unwrap();
    let o = run_in(
        dir.path(),
        &[
            "plan",
            "--config",
            cfg.to_str().unwrap(),
            "--count",
            "340",
            "--scenarios",
            seventh().to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "{}", text(&o));
    let plan = String::from_utf8_lossy(&o.stdout).into_owned();
    let total = |s: &str| {
        plan.lines()
            .rev()
            .find_map(|l| {
                let mut w = l.split_whitespace();
                (w.next() == Some(s))
                    .then(|| w.next()?.parse::<u64>().ok())
                    .flatten()
            })
            .unwrap_or(0)
    };
    assert_eq!(total("takeout"), 50, "{plan}");
    assert_eq!(total("repair"), 40, "{plan}");
    // More fixed dialogues than the count: an error that names the key.
    let o = run_in(
        dir.path(),
        &["plan", "--config", cfg.to_str().unwrap(), "--count", "100"],
    );
    assert!(!o.status.success());
    assert!(text(&o).contains("scenario_counts"), "{}", text(&o));
}

/// The release binary alone in an empty folder: it generates 1000 dialogues from the library
/// it carries, lists that library, and writes it out to edit.
#[test]
fn the_binary_alone_carries_its_library() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("callbench");
    std::fs::copy(env!("CARGO_BIN_EXE_callbench"), &bin).unwrap();
    let run = |args: &[&str]| {
        // Another test thread that forks while the copy's write handle is open lends it to its
        // child until that child execs: starting the copy then fails with ETXTBSY ("text file
        // busy"). The handle is gone within moments; a bounded retry is the usual cure.
        let mut tries = 0;
        loop {
            match Command::new(&bin)
                .args(args)
                .current_dir(dir.path())
                .env("RUST_LOG", "warn")
                .output()
            {
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                other => break other.unwrap(),
            }
        }
    };
    let o = run(&["generate", "--count", "1000", "--quiet"]);
    assert!(o.status.success(), "{}", text(&o));
    let m = manifest(&dir.path().join("output"));
    assert_eq!(m["totals"]["dialogues"], 1000);
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["callbench", "output"]);

    let o = run(&["scenarios"]);
    assert!(o.status.success(), "{}", text(&o));
    let listed = String::from_utf8_lossy(&o.stdout).into_owned();
    for s in ["takeout", "delivery", "taxi", "work", "life", "harassment"] {
        assert!(
            listed
                .lines()
                .any(|l| l.starts_with(s) && l.ends_with("embedded")),
            "{listed}"
        );
    }

    let o = run(&["init", "lib"]);
    assert!(o.status.success(), "{}", text(&o));
    for f in [
        "lib/scenarios/takeout.toml",
        "lib/scenarios/common/owners.toml",
        "lib/templates/caller.toml",
        "lib/templates/prompts/judge.tera",
        "lib/methods/direct.toml",
    ] {
        assert!(dir.path().join(f).is_file(), "{f}");
    }
    let o = run(&["init", "lib"]);
    assert!(!o.status.success());
    assert!(text(&o).contains("not empty"), "{}", text(&o));

    // The written-out library, read back as files, is the same library: same fingerprints.
    let o = run(&[
        "scenarios",
        "--scenarios",
        "lib/scenarios",
        "--templates",
        "lib/templates",
    ]);
    assert!(o.status.success(), "{}", text(&o));
    let from_files = String::from_utf8_lossy(&o.stdout).into_owned();
    let fingerprints = |s: &str| -> Vec<String> {
        s.lines()
            .filter_map(|l| {
                let w: Vec<&str> = l.split_whitespace().collect();
                (w.len() >= 2 && w[1].len() == 16).then(|| format!("{} {}", w[0], w[1]))
            })
            .collect()
    };
    assert_eq!(fingerprints(&from_files), fingerprints(&listed));
    assert!(
        from_files.contains("lib/scenarios/takeout.toml"),
        "{from_files}"
    );
}

/// `kill -9` while a corpus grows, then the same command again: the grown corpus is the one an
/// uninterrupted grow writes, and the first run's shards are untouched throughout.
#[test]
fn kill_9_while_growing_then_resume_gives_the_uninterrupted_growth() {
    let dir = tempfile::tempdir().unwrap();
    let args = |out: &Path, count: &str| -> Vec<String> {
        [
            "generate",
            "--count",
            count,
            "--rows-per-shard",
            "100",
            "--concurrency",
            "4",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let cfg = dir.path().join("run.toml");
    std::fs::write(&cfg, "[sample]\nafter_generate = false\n").unwrap();
    let with_cfg = |mut a: Vec<String>| {
        a.extend(["--config".to_string(), cfg.to_str().unwrap().to_string()]);
        a
    };
    let run = |a: Vec<String>| {
        let o = run_in(dir.path(), &with_cfg(a));
        assert!(o.status.success(), "{}", text(&o));
    };
    let whole = dir.path().join("whole");
    run(args(&whole, "600"));
    run(args(&whole, "3000"));
    let expected = files(&whole);

    let out = dir.path().join("killed");
    run(args(&out, "600"));
    let first = files(&out);
    let ledger = out.join("ledger.jsonl");
    let shard_lines = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .lines()
            .filter(|l| l.contains("\"kind\":\"shard\""))
            .count()
    };
    let mut child = support::spawn_in(dir.path(), &with_cfg(args(&out, "3000")));
    // Killed once the growing step has recorded some of its shards, not all.
    let interrupted = support::kill_when(
        &mut child,
        "three shards of the growing step",
        std::time::Duration::from_secs(120),
        || shard_lines(&ledger) >= 6 + 3,
    );
    assert!(interrupted, "the growing run ended before the kill");
    for (rel, bytes) in &first {
        assert_eq!(
            std::fs::read(out.join(rel)).ok().as_ref(),
            Some(bytes),
            "{rel}"
        );
    }
    run(args(&out, "3000"));
    assert_eq!(
        files(&out),
        expected,
        "the grown corpus is the uninterrupted one's"
    );
}
