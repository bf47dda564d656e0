//! The `callbench` command as a user runs it: exit codes, messages that say where, resume after
//! `kill -9`, and nothing already written damaged by a bad run.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};
use support::{callbench, data, fails_with, repo, stderr, stdout};

fn manifest_shas(out: &Path) -> Vec<(String, String)> {
    let m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    m["shards"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["file"].as_str().unwrap().to_string(),
                s["sha256"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn plan_prints_every_cell_and_the_total() {
    let o = callbench(&["plan", "--count", "1000", "--seed", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    for word in [
        "takeout",
        "harassment",
        "regular",
        "emergent",
        "conflict",
        "irrelevance",
    ] {
        assert!(out.contains(word), "{word} missing from\n{out}");
    }
    let total = out
        .lines()
        .find(|l| l.starts_with("total"))
        .expect("a total line");
    assert!(total.contains("1000"), "{total}");
    assert!(
        !out.lines()
            .any(|l| l.starts_with("work") && l.contains("regular")),
        "no regular preset in work:\n{out}"
    );
}

#[test]
fn count_must_be_positive() {
    for bad in ["0", "-5"] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("o");
        let o = callbench(&[
            "generate",
            "--count",
            bad,
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        fails_with(&o, &["--count"]);
        assert!(!out.exists(), "nothing is written for a bad count");
    }
}

#[test]
fn unknown_config_key_is_named_with_its_file() {
    let o = callbench(&[
        "plan",
        "--config",
        data("unknown_key.toml").to_str().unwrap(),
    ]);
    fails_with(&o, &["unknown_key.toml", "rows_per_shrad"]);
}

#[test]
fn malformed_scenario_is_named_with_file_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let sc = dir.path().join("scenarios");
    std::fs::create_dir_all(sc.join("common")).unwrap();
    for f in std::fs::read_dir(repo().join("scenarios/common")).unwrap() {
        let p = f.unwrap().path();
        std::fs::copy(&p, sc.join("common").join(p.file_name().unwrap())).unwrap();
    }
    std::fs::copy(data("bad_role_ref.toml"), sc.join("bad.toml")).unwrap();
    let o = callbench(&["validate", "--scenarios", sc.to_str().unwrap()]);
    fails_with(&o, &["bad.toml", "goals[0].roles[0]", "nobody"]);

    std::fs::write(
        sc.join("bad.toml"),
        "[scenario]\nname = \"x\"\ntitle = \"坏\"\nmood = 3\n",
    )
    .unwrap();
    let o = callbench(&["validate", "--scenarios", sc.to_str().unwrap()]);
    fails_with(&o, &["bad.toml", "mood"]);
}

#[test]
fn unwritable_output_directory_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let out = file.join("corpus");
    let o = callbench(&[
        "generate",
        "--count",
        "10",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    fails_with(&o, &["a-file"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}

#[test]
fn another_run_in_the_same_directory_is_refused_without_damage() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = callbench(&[
        "generate",
        "--count",
        "300",
        "--seed",
        "1",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = manifest_shas(&out);
    let ledger = std::fs::read(out.join("ledger.jsonl")).unwrap();
    let o = callbench(&[
        "generate",
        "--count",
        "300",
        "--seed",
        "2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    fails_with(&o, &["different run", "seed 1"]);
    assert_eq!(manifest_shas(&out), before);
    assert_eq!(std::fs::read(out.join("ledger.jsonl")).unwrap(), ledger);
}

/// `kill -9` at an arbitrary moment, then the same command again: the finished corpus is
/// byte-identical to an uninterrupted run's.
#[test]
fn resume_after_kill_9_gives_the_uninterrupted_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let args = |out: &Path| -> Vec<String> {
        [
            "generate",
            "--count",
            "60000",
            "--rows-per-shard",
            "2000",
            "--seed",
            "11",
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let o = support::command_in(&repo())
        .args(args(&whole))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = manifest_shas(&whole);
    assert_eq!(expected.len(), 30);

    for (round, kill_after_lines) in [3usize, 12].into_iter().enumerate() {
        let out = dir.path().join(format!("killed-{round}"));
        let mut child = support::spawn_in(&repo(), &args(&out));
        // Kill once the ledger has a few shards: mid-run, with more shards in flight.
        let ledger = out.join("ledger.jsonl");
        let lines = || {
            std::fs::read_to_string(&ledger)
                .map(|t| t.lines().count())
                .unwrap_or(0)
        };
        let interrupted = support::kill_when(
            &mut child,
            &format!("{kill_after_lines} ledger lines"),
            Duration::from_secs(300),
            || lines() >= kill_after_lines,
        );
        assert!(interrupted, "round {round}: the run ended before the kill");
        assert!(!out.join("manifest.json").exists(), "killed before the end");
        let o = support::command_in(&repo())
            .args(args(&out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(manifest_shas(&out), expected, "round {round}");
        let shards: Vec<_> = std::fs::read_dir(out.join("shards"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(shards.len(), 30, "no stray files: {shards:?}");
    }
}

#[test]
fn check_reports_every_line_and_goes_on_past_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let report = dir.path().join("r.jsonl");
    let o = callbench(&[
        "check",
        "--input",
        data("dialogues.jsonl").to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "an unreadable line makes the exit non-zero: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("dialogues.jsonl:2"), "{}", stderr(&o));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["id"], "takeout-000001");
    assert_eq!(lines[0]["passed"], true);
    assert_eq!(lines[1]["line"], 2);
    assert!(lines[1]["error"].is_string());
    assert_eq!(lines[2]["id"], "taxi-000009");
    assert_eq!(lines[2]["passed"], false);
    assert_eq!(lines[2]["violations"][0]["kind"], "natural.turn_order");
    assert_eq!(lines[2]["violations"][0]["turn"], 0);
}

/// A decision outside the vocabulary makes its line unreadable: stderr names the file, the line
/// and the word, the report gives the line an error, and the next line is checked.
#[test]
fn check_names_the_line_and_the_word_of_an_unknown_action() {
    let dir = tempfile::tempdir().unwrap();
    let first = std::fs::read_to_string(data("dialogues.jsonl"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    let mut bad: serde_json::Value = serde_json::from_str(&first).unwrap();
    let turns = bad["turns"].as_array_mut().unwrap();
    let t = turns
        .iter()
        .position(|t| t["speaker"] == "assistant")
        .unwrap();
    turns[t]["action"] = "relay".into();
    let input = dir.path().join("in.jsonl");
    std::fs::write(&input, format!("{bad}\n{first}\n")).unwrap();
    let report = dir.path().join("r.jsonl");
    let o = callbench(&[
        "check",
        "--input",
        input.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("in.jsonl:1: unknown variant `relay`"), "{err}");
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["line"], 1);
    assert!(
        lines[0]["error"].as_str().unwrap().contains("`relay`"),
        "{}",
        lines[0]
    );
    assert_eq!(lines[1]["id"], "takeout-000001");
}

/// `check --scenarios DIR` reads each dialogue with the concepts its scenario's file contributes
/// (`[concepts]`, `[[private_facts]]`): the pet_care calls of the roleplay tests get the findings
/// that file teaches (see `crates/roleplay/tests/test_data/concepts/expected.toml`), and a
/// malformed section stops the command naming the file and the key.
#[test]
fn check_reads_the_concepts_a_scenario_file_contributes() {
    let dir = tempfile::tempdir().unwrap();
    let scenarios = repo().join("crates/roleplay/tests/test_data/pet_care");
    let calls = repo().join("crates/roleplay/tests/test_data/concepts/calls.jsonl");
    let report = dir.path().join("r.jsonl");
    let kinds = |extra: &[&str]| -> Vec<(String, bool, Vec<String>)> {
        let mut args = vec!["check", "--input", calls.to_str().unwrap()];
        args.extend(["--report", report.to_str().unwrap()]);
        args.extend(extra);
        let o = callbench(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        std::fs::read_to_string(&report)
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                let found = v["violations"].as_array().unwrap().iter();
                (
                    v["id"].as_str().unwrap().to_string(),
                    v["passed"].as_bool().unwrap(),
                    found
                        .map(|f| format!("{}@{}", f["kind"].as_str().unwrap(), f["turn"]))
                        .collect(),
                )
            })
            .collect()
    };
    let with = kinds(&["--scenarios", scenarios.to_str().unwrap()]);
    let without = kinds(&[]);
    let find = |r: &[(String, bool, Vec<String>)], id: &str| {
        r.iter().find(|x| x.0 == id).cloned().unwrap()
    };
    let premature = "pet_care-premature";
    assert_eq!(find(&with, premature).2, ["preset.premature@1"]);
    assert!(find(&without, premature).2.is_empty());
    let missing = "pet_care-missing";
    assert!(!find(&with, missing).1, "certain with the file's concepts");
    assert!(
        find(&without, missing).1,
        "uncertain without them: it passes"
    );
    let member = "pet_care-member-no";
    assert!(find(&with, member).2.is_empty());
    assert_eq!(find(&without, member).2, ["safety.scam@1"]);

    let bad = dir.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    let text = std::fs::read_to_string(scenarios.join("pet_care.toml")).unwrap();
    let text = text.replacen(r#"concept = "送到""#, r#"concept = "宠物到家""#, 1);
    std::fs::write(bad.join("pet_care.toml"), text).unwrap();
    let o = callbench(&[
        "check",
        "--input",
        calls.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
        "--scenarios",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    fails_with(&o, &["pet_care.toml", "concepts.words[0].concept"]);
}

#[test]
fn export_writes_the_interchange_format() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = callbench(&[
        "generate",
        "--count",
        "50",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = callbench(&[
        "export",
        "--corpus",
        out.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 50);
    for r in &rows {
        for key in [
            "id",
            "scenario",
            "preset_case",
            "relation",
            "owner",
            "caller",
            "turns",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert_eq!(r["turns"][0]["speaker"], "caller");
        assert!(
            r["owner"]["private"]["phone"]
                .as_str()
                .unwrap()
                .starts_with("100"),
            "synthetic phone range"
        );
    }
    // And the exported file checks clean with `check`.
    let exported = dir.path().join("e.jsonl");
    std::fs::write(&exported, text).unwrap();
    let report = dir.path().join("r.jsonl");
    let o = callbench(&[
        "check",
        "--input",
        exported.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("50 passed"), "{}", stdout(&o));
}

/// Every config example in the README (provider configs included) loads as it stands.
#[test]
fn every_readme_toml_example_loads() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let blocks: Vec<&str> = readme
        .split("```toml")
        .skip(1)
        .filter_map(|b| b.split("```").next())
        .collect();
    assert!(
        blocks.len() >= 7,
        "the config block and six provider examples"
    );
    let dir = tempfile::tempdir().unwrap();
    for (i, block) in blocks.iter().enumerate() {
        let cfg = dir.path().join(format!("example-{i}.toml"));
        std::fs::write(&cfg, block).unwrap();
        let o = callbench(&["plan", "--config", cfg.to_str().unwrap(), "--count", "10"]);
        assert!(
            o.status.success(),
            "README toml block {i} does not load:\n{block}\n{}",
            stderr(&o)
        );
    }
}

/// The README's config block is the documentation of every key: it must load as it stands.
#[test]
fn the_readme_config_block_loads() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme
        .split("## The config file")
        .nth(1)
        .expect("a config section");
    let block = section
        .split("```toml")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a toml block");
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("callbench.toml");
    std::fs::write(&cfg, block).unwrap();
    let o = callbench(&["plan", "--config", cfg.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("total") && l.contains("50000")),
        "{}",
        stdout(&o)
    );
}

/// `.ci/run` runs the test command with `CI=1`, so that the Python readers' test and the
/// browser test fail rather than skip when their tools are missing. Run here with stand-ins for
/// python3, chromium and cargo on `PATH` that record what they were started with.
#[test]
fn ci_run_makes_environment_dependent_tests_mandatory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let record = dir.path().join("record");
    let stub = |name: &str, body: &str| {
        let p = bin.join(name);
        std::fs::write(&p, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    stub("python3", "exit 0");
    stub("chromium", "exit 0");
    stub(
        "cargo",
        &format!("echo \"CI=${{CI-unset}} $*\" >> '{}'", record.display()),
    );
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let o = Command::new("bash")
        .arg(repo().join(".ci/run"))
        .env_clear()
        .env("PATH", path)
        .env("HOME", dir.path())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let seen = std::fs::read_to_string(&record).expect("cargo was run");
    assert!(
        seen.lines()
            .any(|l| l.starts_with("CI=1 ") && l.contains("test")),
        "cargo test runs with CI=1: {seen}"
    );
}

/// The README's reading examples (scripts/read_corpus.py) open a generated corpus in pyarrow,
/// DuckDB and polars without options. CI installs the three; elsewhere the test says what is
/// missing and passes only outside CI.
#[test]
fn the_corpus_opens_in_pyarrow_duckdb_and_polars() {
    if !support::python_has("pyarrow, duckdb, polars") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = callbench(&[
        "generate",
        "--count",
        "700",
        "--rows-per-shard",
        "300",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    support::python_succeeds(&repo().join("scripts/read_corpus.py"), &out);
}

/// Every file the run wrote.
fn all_files(dir: &Path) -> Vec<PathBuf> {
    support::files(dir).into_values().collect()
}

/// The API key is sent (the mock refuses requests without it) but appears in no log line, no
/// progress output and no output file — with logging at its most verbose.
#[test]
fn the_api_key_never_leaves_the_http_client() {
    let secret = "sk-callbench-test-4f1c9a7e2b";
    let mock = mock_openai::MockServer::start_blocking(
        mock_openai::MockConfig {
            required_api_key: Some(secret.into()),
            end_after_turns: 4,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = support::command_in(&repo())
        .args([
            "generate",
            "--backend",
            "openai",
            "--base-url",
            &mock.base_url(),
            "--model",
            "mock",
            "--count",
            "12",
        ])
        .args(["--out", out.to_str().unwrap()])
        .env("OPENAI_API_KEY", secret)
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    // 0, or 3 when the mock's dialogues were rejected (`plan.*`): the run itself went through.
    assert!(matches!(o.status.code(), Some(0 | 3)), "{}", stderr(&o));
    assert!(mock.stats().ok > 0, "the key was accepted");
    assert!(
        !stdout(&o).contains(secret) && !stderr(&o).contains(secret),
        "the key is in the output"
    );
    assert!(stderr(&o).len() > 1000, "trace logging was on");
    for f in all_files(&out) {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(secret.len()).any(|w| w == secret.as_bytes()),
            "the key is in {}",
            f.display()
        );
    }
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("OPENAI_API_KEY"),
        "the manifest names the variable"
    );
}

#[test]
fn llm_flags_without_the_llm_backend_are_an_error() {
    let o = callbench(&["generate", "--model", "x", "--count", "5", "--quiet"]);
    fails_with(&o, &["--backend openai"]);
    let o = callbench(&[
        "generate",
        "--backend",
        "openai",
        "--base-url",
        "ftp://nowhere",
        "--count",
        "5",
        "--quiet",
    ]);
    fails_with(&o, &["ftp://nowhere"]);
}

#[test]
fn dry_run_estimates_without_calling_anything() {
    // (An --out of its own: the dry run plans against --out, and the checkout's `output/` may
    // hold the README's corpus, which a run of other settings is refused.)
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("out");
    let o = callbench(&[
        "generate",
        "--backend",
        "openai",
        "--dry-run",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--count",
        "5000",
        "--rpm",
        "600",
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(
        out.contains("caller") && out.contains("assistant") && out.contains("calls"),
        "{out}"
    );
    assert!(out.contains("hours"), "{out}");
}

/// `generate` draws the inspection sample; `sample` redraws it deterministically; `audit`
/// reports the verdicts auditors recorded.
#[test]
fn sample_and_audit_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = callbench(&[
        "generate",
        "--count",
        "600",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("inspection sample"), "{}", stdout(&o));
    for f in [
        "sample.parquet",
        "sample.jsonl",
        "sample.html",
        "sample.json",
    ] {
        assert!(out.join("inspection").join(f).exists(), "{f}");
    }
    let first = std::fs::read(out.join("inspection/sample.jsonl")).unwrap();
    let o = callbench(&[
        "sample",
        "--corpus",
        out.to_str().unwrap(),
        "--rate",
        "0.2",
        "--seed",
        "9",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let twenty = std::fs::read(out.join("inspection/sample.jsonl")).unwrap();
    assert!(twenty.len() > first.len());
    let o = callbench(&[
        "sample",
        "--corpus",
        out.to_str().unwrap(),
        "--rate",
        "0.2",
        "--seed",
        "9",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(out.join("inspection/sample.jsonl")).unwrap(),
        twenty,
        "same seed, same sample"
    );
    let o = callbench(&["sample", "--corpus", out.to_str().unwrap(), "--rate", "1.5"]);
    fails_with(&o, &["rate"]);

    // Two auditors' verdicts on the first sampled dialogue, as the review page writes them.
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("inspection/sample.json")).unwrap())
            .unwrap();
    // 甲 accepts the first two sampled dialogues and rejects the third; 乙 accepts the first.
    // Reviewed 3, accepted 2: 66.7 %, Wilson 95 % interval 20.8 % – 93.9 %; the two auditors
    // share one dialogue and agree on it.
    let ids: Vec<String> = summary["ids"].as_array().unwrap()[..3]
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let mut lines = String::new();
    for (auditor, id, verdict) in [
        ("甲", &ids[0], "accept"),
        ("甲", &ids[1], "accept"),
        ("甲", &ids[2], "reject"),
        ("乙", &ids[0], "accept"),
    ] {
        lines.push_str(&serde_json::json!({"auditor": auditor, "id": id, "verdict": verdict, "findings": [], "ratings": {}, "note": "", "at": "2026-11-29T10:00:00Z"}).to_string());
        lines.push('\n');
    }
    std::fs::write(out.join("inspection/verdicts.jsonl"), lines).unwrap();
    let o = callbench(&["audit", "--corpus", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = stdout(&o);
    let overall = report
        .lines()
        .find(|l| l.starts_with("| overall |"))
        .unwrap_or_else(|| panic!("an overall row in\n{report}"));
    assert!(
        overall.ends_with("| 3 | 2 | 66.7% | 20.8% – 93.9% |"),
        "{overall}"
    );
    let md = std::fs::read_to_string(out.join("inspection/audit.md")).unwrap();
    assert_eq!(
        report.trim_end(),
        md.trim_end(),
        "printed and written reports agree"
    );
    assert!(out.join("inspection/audit.html").exists());
}

/// A provider whose 401 repeats the key (whole, and a 12-character prefix): every dialogue
/// fails with that error, and the key appears in no log line (trace level), no output, no
/// reject reason, no manifest and no other file of the run; the reason says it was redacted.
#[test]
fn a_key_echoed_in_a_401_is_redacted_everywhere() {
    key_echoed_with_status_is_redacted_everywhere(401);
}

#[test]
fn a_key_echoed_in_a_403_is_redacted_everywhere() {
    key_echoed_with_status_is_redacted_everywhere(403);
}

fn key_echoed_with_status_is_redacted_everywhere(status: u16) {
    let secret = "sk-callbench-echo-9f3b2c71d4e8a6";
    let prefix = &secret[..12];
    let mock = mock_openai::MockServer::start_blocking(
        mock_openai::MockConfig {
            echo_key_status: status,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = support::command_in(&repo())
        .args([
            "generate",
            "--backend",
            "openai",
            "--base-url",
            &mock.base_url(),
            "--model",
            "mock",
            "--count",
            "4",
        ])
        .args(["--out", out.to_str().unwrap()])
        .env("OPENAI_API_KEY", secret)
        .env("RUST_LOG", "trace")
        .output()
        .unwrap();
    let (so, se) = (stdout(&o), stderr(&o));
    assert!(!se.contains("panicked"), "{se}");
    // The key went out, and the mock answered with it in its message.
    let stats = mock.stats();
    assert!(stats.unauthorized > 0 && stats.ok == 0, "{stats:?}");
    for text in [&so, &se] {
        assert!(!text.contains(secret), "the key is in the output");
        assert!(!text.contains(prefix), "the key's prefix is in the output");
    }
    assert!(se.len() > 1000, "trace logging was on");
    let mut reasons = Vec::new();
    for f in all_files(&out) {
        let bytes = std::fs::read(&f).unwrap();
        for needle in [secret, prefix] {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_bytes()),
                "{needle:?} is in {}",
                f.display()
            );
        }
        if f.to_string_lossy().contains("rejects") && f.extension().is_some_and(|e| e == "jsonl") {
            for line in String::from_utf8_lossy(&bytes).lines() {
                let d: serde_json::Value = serde_json::from_str(line).unwrap();
                for v in d["qc"]["violations"].as_array().unwrap() {
                    reasons.push(v["message"].as_str().unwrap().to_string());
                }
            }
        }
    }
    // Every dialogue failed with the provider's message, the key in it redacted.
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["totals"]["failed"], 4, "{manifest}");
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    for r in &reasons {
        assert!(
            r.contains(&status.to_string()) && r.contains("Incorrect API key provided: [redacted]"),
            "{r}"
        );
    }
}

/// `--dry-run` against a live endpoint (the mock): not one request reaches it, nothing is
/// written, and the printed totals are the sums of the printed per-role figures.
#[test]
fn dry_run_sends_no_request_and_its_totals_add_up() {
    let mock = mock_openai::MockServer::start_blocking(Default::default(), None).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let cfg = dir.path().join("prices.toml");
    std::fs::write(
        &cfg,
        "[llm.prices]\n\"m\" = { input_per_million = 2.0, output_per_million = 8.0 }\n",
    )
    .unwrap();
    let o = callbench(&[
        "generate",
        "--config",
        cfg.to_str().unwrap(),
        "--backend",
        "openai",
        "--dry-run",
        "--base-url",
        &mock.base_url(),
        "--model",
        "m",
        "--count",
        "5000",
        "--rpm",
        "600",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(mock.stats().requests, 0, "a dry run sends nothing");
    assert!(!out.exists(), "a dry run writes nothing");
    let text = stdout(&o);
    let num = |s: &str| -> f64 { s.parse().unwrap_or_else(|_| panic!("{s:?} in\n{text}")) };
    let (mut calls, mut tokens, mut cost) = (0.0, 0.0, 0.0);
    let mut roles = Vec::new();
    for l in text.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.len() == 6 && (f[0] == "caller" || f[0] == "assistant") {
            roles.push(f[0]);
            assert_eq!(f[1], "m");
            calls += num(f[2]);
            tokens += num(f[3]) + num(f[4]);
            let role_cost = (num(f[3]) * 2.0 + num(f[4]) * 8.0) / 1e6;
            assert!((num(f[5]) - role_cost).abs() <= 0.005 + 1e-9, "{l}");
            cost += role_cost;
        }
    }
    assert_eq!(roles, ["assistant", "caller"], "{text}");
    assert!(calls > 0.0);
    let total = text
        .lines()
        .find_map(|l| l.strip_prefix("total: "))
        .expect("a total line");
    let f: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(num(f[0]), calls, "{total}");
    assert_eq!(num(f[2]), tokens, "{total}");
    assert!((num(f[4]) - cost).abs() <= 0.005 + 1e-9, "{total}");
    let hours = text
        .lines()
        .find_map(|l| l.strip_prefix("at the configured requests-per-minute limits: "))
        .and_then(|h| h.strip_suffix(" hours"))
        .expect("an hours line");
    assert!(
        (num(hours) - calls / 600.0 / 60.0).abs() <= 0.05 + 1e-9,
        "{hours}"
    );
    assert!(
        text.starts_with("5000 dialogues, estimated from 400 played offline"),
        "{text}"
    );
}

/// Runs `args` to its end, failing (not hanging) if it has not exited within a minute: for
/// commands that would serve forever if they wrongly accepted their input.
fn callbench_to_exit(args: &[&str]) -> Output {
    let mut child = support::command_in(&repo())
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let o = child.wait_with_output().unwrap();
            panic!(
                "{args:?} did not exit: it accepted its input; {}",
                stdout(&o)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

fn small_corpus(dir: &Path, sample: bool) -> PathBuf {
    let out = dir.join("corpus");
    let cfg = dir.join("no-sample.toml");
    std::fs::write(&cfg, format!("[sample]\nafter_generate = {sample}\n")).unwrap();
    let o = callbench(&[
        "generate",
        "--config",
        cfg.to_str().unwrap(),
        "--count",
        "40",
        "--rows-per-shard",
        "20",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

#[test]
fn check_with_a_missing_input_file_names_it_and_writes_no_report() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("no-such-dialogues.jsonl");
    let report = dir.path().join("r.jsonl");
    let o = callbench(&[
        "check",
        "--input",
        input.to_str().unwrap(),
        "--report",
        report.to_str().unwrap(),
    ]);
    fails_with(&o, &["no-such-dialogues.jsonl"]);
    assert!(
        !report.exists(),
        "no report for an input that cannot be read"
    );
    // A report that cannot be written (its folder is a file) is named too.
    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let o = callbench(&[
        "check",
        "--input",
        data("dialogues.jsonl").to_str().unwrap(),
        "--report",
        file.join("r.jsonl").to_str().unwrap(),
    ]);
    fails_with(&o, &["a-file"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "an error, not a report with findings"
    );
}

#[test]
fn export_refuses_bad_corpora_naming_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    // No corpus at all.
    let missing = dir.path().join("nowhere");
    let o = callbench(&["export", "--corpus", missing.to_str().unwrap()]);
    fails_with(&o, &["nowhere"]);
    assert!(stdout(&o).is_empty(), "nothing exported");

    // A manifest that is not JSON.
    let broken = dir.path().join("broken");
    std::fs::create_dir_all(&broken).unwrap();
    std::fs::write(broken.join("manifest.json"), "{ not json").unwrap();
    let o = callbench(&["export", "--corpus", broken.to_str().unwrap()]);
    fails_with(&o, &["manifest.json"]);

    // A shard damaged after the run: the export fails and names the shard.
    let out = small_corpus(dir.path(), false);
    let shard = out.join("shards/part-00001.parquet");
    let len = std::fs::metadata(&shard).unwrap().len();
    let bytes = std::fs::read(&shard).unwrap();
    std::fs::write(&shard, &bytes[..(len / 2) as usize]).unwrap();
    let o = callbench(&["export", "--corpus", out.to_str().unwrap()]);
    fails_with(&o, &["part-00001.parquet"]);
    // A shard the manifest lists but that is gone.
    std::fs::remove_file(&shard).unwrap();
    let target = dir.path().join("x");
    let o = callbench(&[
        "export",
        "--corpus",
        out.to_str().unwrap(),
        "--out",
        target.to_str().unwrap(),
    ]);
    fails_with(&o, &["part-00001.parquet"]);
}

#[test]
fn sample_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let o = callbench(&[
        "sample",
        "--corpus",
        dir.path().join("nowhere").to_str().unwrap(),
    ]);
    fails_with(&o, &["nowhere"]);
    let out = small_corpus(dir.path(), false);
    for (flag, bad) in [
        ("--rate", "0"),
        ("--rate", "-0.1"),
        ("--rate", "NaN"),
        ("--reject-rate", "2"),
    ] {
        let arg = format!("{flag}={bad}");
        let o = callbench(&["sample", "--corpus", out.to_str().unwrap(), &arg]);
        fails_with(&o, &["rate"]);
        assert!(
            !out.join("inspection/sample.json").exists(),
            "{flag} {bad}: nothing drawn"
        );
    }
}

#[test]
fn audit_refuses_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let o = callbench(&[
        "audit",
        "--corpus",
        dir.path().join("nowhere").to_str().unwrap(),
    ]);
    fails_with(&o, &["nowhere"]);
    // A corpus without a sample: there is nothing to audit, and the message says how to draw one.
    let out = small_corpus(dir.path(), false);
    let o = callbench(&["audit", "--corpus", out.to_str().unwrap()]);
    fails_with(&o, &["sample"]);
    assert!(!out.join("inspection/audit.md").exists());
    // A verdict line that is not a verdict is named with its line number.
    let o = callbench(&["sample", "--corpus", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::write(
        out.join("inspection/verdicts.jsonl"),
        "{\"auditor\": \"甲\", \"id\": 7}\n",
    )
    .unwrap();
    let o = callbench(&["audit", "--corpus", out.to_str().unwrap()]);
    fails_with(&o, &["verdicts.jsonl", "1"]);
}

#[test]
fn review_refuses_bad_input_instead_of_serving() {
    let dir = tempfile::tempdir().unwrap();
    let o = callbench_to_exit(&[
        "review",
        "--corpus",
        dir.path().join("nowhere").to_str().unwrap(),
        "--addr",
        "127.0.0.1:0",
    ]);
    fails_with(&o, &["nowhere"]);
    let out = small_corpus(dir.path(), false);
    // No sample drawn yet.
    let o = callbench_to_exit(&[
        "review",
        "--corpus",
        out.to_str().unwrap(),
        "--addr",
        "127.0.0.1:0",
    ]);
    fails_with(&o, &["sample"]);
    // Not loopback, without --allow-remote.
    let o = callbench(&["sample", "--corpus", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = callbench_to_exit(&[
        "review",
        "--corpus",
        out.to_str().unwrap(),
        "--addr",
        "0.0.0.0:0",
    ]);
    fails_with(&o, &["0.0.0.0", "allow remote access"]);
    // An address that is taken.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let o = callbench_to_exit(&["review", "--corpus", out.to_str().unwrap(), "--addr", &addr]);
    fails_with(&o, &[&addr]);
    // Clap rejects an address that is not one.
    let o = callbench(&[
        "review",
        "--corpus",
        out.to_str().unwrap(),
        "--addr",
        "here",
    ]);
    fails_with(&o, &["--addr"]);
}

/// Issue #12: a server whose every reply is cut short stops the run early with exit code 4;
/// the last lines name the cause and the fix, and say what was written.
#[test]
fn a_run_whose_replies_are_cut_short_stops_early_and_says_why() {
    let mock = mock_openai::MockServer::start_blocking(
        mock_openai::MockConfig {
            reply_mode: mock_openai::ReplyMode::CutShort,
            ..Default::default()
        },
        None,
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = support::command_in(&repo())
        .args([
            "generate",
            "--backend",
            "openai",
            "--base-url",
            &mock.base_url(),
            "--model",
            "mock",
            "--count",
            "150",
            "--rows-per-shard",
            "10",
            "--concurrency",
            "8",
            "--quiet",
        ])
        .args(["--out", out.to_str().unwrap()])
        .env("RUST_LOG", "error")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(4), "{}\n{}", stdout(&o), stderr(&o));
    let text = stdout(&o);
    let last: Vec<&str> = text.lines().rev().take(2).collect();
    assert!(
        last[0].starts_with("0 of 150 written;") && last[0].contains("cut short"),
        "{text}"
    );
    assert!(
        last[1].contains("stopped") && last[1].contains("max_tokens"),
        "{text}"
    );
    assert!(text.contains("inspection sample skipped"), "{text}");
    assert!(mock.stats().requests < 300, "{:?}", mock.stats());
    assert!(!stderr(&o).contains("panicked"));
    let manifest = std::fs::read_to_string(out.join("manifest.json")).unwrap();
    assert!(manifest.contains("cut short"), "{manifest}");
}

/// Issue #12: `--dry-run` works from the offline backend too ("what would this run cost on
/// model X") and prices the judge's calls when the judge is on.
#[test]
fn dry_run_prices_the_judge_and_works_from_the_offline_backend() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("c.toml");
    std::fs::write(&cfg, "[judge]\nenabled = true\n").unwrap();
    // (An --out of its own, as above.)
    let out_dir = dir.path().join("out");
    let o = callbench(&[
        "generate",
        "--dry-run",
        "--model",
        "some-model-x",
        "--count",
        "300",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out_dir.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let judge = out
        .lines()
        .find(|l| l.starts_with("judge"))
        .unwrap_or_else(|| panic!("no judge line: {out}"));
    assert!(judge.contains("some-model-x"), "{out}");
    let calls: u64 = judge.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert!(calls > 300, "at least one judged turn per dialogue: {out}");
}

/// Naming only some scenarios in `[distribution] scenarios` leaves the rest out: the run says so,
/// naming them, instead of dropping them silently; naming one with weight 0 is on purpose.
#[test]
fn a_distribution_naming_some_scenarios_warns_about_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = dir.path().join("some.toml");
    std::fs::write(
        &cfg,
        "[distribution.scenarios]\ntakeout = 1.0\ntaxi = 1.0\nwork = 0\n",
    )
    .unwrap();
    let o = callbench(&["plan", "--config", cfg.to_str().unwrap(), "--count", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    let warning = err
        .lines()
        .find(|l| l.contains("get no dialogues"))
        .unwrap_or_else(|| panic!("no warning in\n{err}"));
    let (_, left) = warning.split_once("get no dialogues:").unwrap();
    for left_out in ["delivery", "harassment", "life"] {
        assert!(left.contains(left_out), "{left_out} not named: {warning}");
    }
    for named in ["takeout", "taxi", "work"] {
        assert!(
            !left.contains(named),
            "{named} was named (work with 0): {warning}"
        );
    }
    // With every scenario named, nothing is said.
    std::fs::write(
        &cfg,
        "[distribution.scenarios]\ntakeout = 1\ntaxi = 1\nwork = 1\ndelivery = 1\nharassment = 1\nlife = 1\n",
    )
    .unwrap();
    let o = callbench(&["plan", "--config", cfg.to_str().unwrap(), "--count", "100"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("get no dialogues"), "{}", stderr(&o));
}

/// `scenarios` with a scenario folder that is not there, or a scenario file that is not TOML,
/// names the folder or the file and its line; nothing is listed.
#[test]
fn scenarios_refuses_a_bad_library_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-scenarios");
    let o = callbench(&["scenarios", "--scenarios", missing.to_str().unwrap()]);
    fails_with(&o, &["no-such-scenarios", "does not exist"]);
    assert!(stdout(&o).is_empty(), "nothing listed: {}", stdout(&o));

    let sc = dir.path().join("scenarios");
    std::fs::create_dir_all(&sc).unwrap();
    std::fs::write(
        sc.join("broken.toml"),
        "[scenario]\nname = \"x\"\ntitle = [\n",
    )
    .unwrap();
    let o = callbench(&["scenarios", "--scenarios", sc.to_str().unwrap()]);
    fails_with(&o, &["broken.toml", "line 3"]);
    assert!(stdout(&o).is_empty(), "nothing listed: {}", stdout(&o));
}

/// `init` into a folder that holds something refuses and leaves it as it was; into a path
/// under a file, it names the path.
#[test]
fn init_refuses_a_folder_that_is_not_empty_and_a_path_under_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    std::fs::create_dir_all(lib.join("scenarios")).unwrap();
    std::fs::write(lib.join("scenarios/takeout.toml"), "# mine\n").unwrap();
    let o = callbench(&["init", lib.to_str().unwrap()]);
    fails_with(&o, &["lib", "not empty"]);
    assert_eq!(
        std::fs::read_to_string(lib.join("scenarios/takeout.toml")).unwrap(),
        "# mine\n",
        "nothing overwritten"
    );
    assert!(!lib.join("templates").exists(), "nothing added");

    let file = dir.path().join("a-file");
    std::fs::write(&file, "not a directory").unwrap();
    let o = callbench(&["init", file.join("lib").to_str().unwrap()]);
    fails_with(&o, &["a-file"]);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "not a directory");
}
