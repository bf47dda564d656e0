//! The `callbench` command as a user runs it: exit codes, messages that say where, resume after
//! `kill -9`, and nothing already written damaged by a bad run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/test_data")
        .join(name)
}

/// The binary, run from the repository root (where `scenarios/` and `templates/` are).
fn callbench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_callbench"))
        .args(args)
        .current_dir(repo())
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn fails_with(o: &Output, needles: &[&str]) {
    assert!(
        !o.status.success(),
        "expected failure; stdout: {}",
        stdout(o)
    );
    let e = stderr(o);
    for n in needles {
        assert!(e.contains(n), "stderr lacks {n:?}: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

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
    let o = Command::new(env!("CARGO_BIN_EXE_callbench"))
        .args(args(&whole))
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = manifest_shas(&whole);
    assert_eq!(expected.len(), 30);

    for (round, kill_after_lines) in [3usize, 12].into_iter().enumerate() {
        let out = dir.path().join(format!("killed-{round}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_callbench"))
            .args(args(&out))
            .current_dir(repo())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Kill once the ledger has a few shards: mid-run, with more shards in flight.
        let ledger = out.join("ledger.jsonl");
        let start = Instant::now();
        loop {
            let lines = std::fs::read_to_string(&ledger)
                .map(|t| t.lines().count())
                .unwrap_or(0);
            if lines >= kill_after_lines || start.elapsed() > Duration::from_secs(60) {
                break;
            }
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        assert!(
            !out.join("manifest.json").exists() || round > 9,
            "killed before the end"
        );
        let o = Command::new(env!("CARGO_BIN_EXE_callbench"))
            .args(args(&out))
            .current_dir(repo())
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

/// The README's reading examples (scripts/read_corpus.py) open a generated corpus in pyarrow,
/// DuckDB and polars without options. CI installs the three; elsewhere the test says what is
/// missing and passes only outside CI.
#[test]
fn the_corpus_opens_in_pyarrow_duckdb_and_polars() {
    let probe = Command::new("python3")
        .args(["-c", "import pyarrow, duckdb, polars"])
        .output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have pyarrow, duckdb and polars (see .ci/run)"
        );
        eprintln!("skipped: python3 with pyarrow, duckdb and polars is not installed here");
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
    let o = Command::new("python3")
        .arg(repo().join("scripts/read_corpus.py"))
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
}

fn all_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p)
            } else {
                out.push(p)
            }
        }
    }
    out
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
    let o = Command::new(env!("CARGO_BIN_EXE_callbench"))
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
        .current_dir(repo())
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
    let id = summary["ids"][0].as_str().unwrap().to_string();
    let mut lines = String::new();
    for (auditor, verdict) in [("甲", "accept"), ("乙", "reject")] {
        lines.push_str(&serde_json::json!({"auditor": auditor, "id": id, "verdict": verdict, "findings": [], "ratings": {}, "note": "", "at": "2026-11-29T10:00:00Z"}).to_string());
        lines.push('\n');
    }
    std::fs::write(out.join("inspection/verdicts.jsonl"), lines).unwrap();
    let o = callbench(&["audit", "--corpus", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("Wilson"), "{}", stdout(&o));
    assert!(out.join("inspection/audit.md").exists() && out.join("inspection/audit.html").exists());
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
    let o = Command::new(env!("CARGO_BIN_EXE_callbench"))
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
        .current_dir(repo())
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
    let o = callbench(&[
        "generate",
        "--dry-run",
        "--model",
        "some-model-x",
        "--count",
        "300",
        "--config",
        cfg.to_str().unwrap(),
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
