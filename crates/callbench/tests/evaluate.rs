//! `callbench evaluate` as a user runs it: the offline benchmark end to end, kill -9 and
//! resume, bad input.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;
use support::{callbench, command_in, fails_with, repo, stderr};

fn corpus(dir: &Path, count: u32) -> PathBuf {
    let out = dir.join("corpus");
    let cfg = dir.join("no-sample.toml");
    std::fs::write(&cfg, "[sample]\nafter_generate = false\n").unwrap();
    let o = callbench(&[
        "generate",
        "--config",
        cfg.to_str().unwrap(),
        "--count",
        &count.to_string(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// scripts/read_eval.py: `turns.parquet` opens without options in pyarrow, DuckDB and polars and
/// agrees with results.json. CI installs the three; elsewhere a missing one is said and skipped.
fn opens_in_pyarrow_duckdb_and_polars(run: &Path) {
    if support::python_has("pyarrow, duckdb, polars") {
        support::python_succeeds(&repo().join("scripts/read_eval.py"), run);
    }
}

fn results_without_time(run: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.join("results.json")).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("created_at");
    v
}

#[test]
fn the_offline_benchmark_runs_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 600);
    let run = dir.path().join("run");
    let args = [
        "evaluate",
        "--corpus",
        c.to_str().unwrap(),
        "--methods",
        "reference",
        "--judge",
        "rules",
        "--out",
        run.to_str().unwrap(),
        "--quiet",
    ];
    let o = callbench(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let last = stderr(&o);
    assert!(
        last.trim_end()
            .lines()
            .last()
            .unwrap()
            .contains("results.json"),
        "{last}"
    );
    let r = results_without_time(&run);
    assert_eq!(r["mode"], "turn");
    assert_eq!(r["judge"], "rules");
    assert_eq!(r["split"], "test");
    let m = &r["methods"]["reference"];
    let dims: Vec<&str> = m["dimensions"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut want = callbench_model::JUDGE_DIMENSIONS.to_vec();
    want.sort_unstable();
    assert_eq!(dims, want, "the seven dimension keys");
    assert!(
        m["dimensions"]["semantic_understanding"]["mean"].is_null(),
        "not judged is null"
    );
    assert!(m["dimensions"]["safety"]["ci95"].as_array().unwrap().len() == 2);
    assert!(m["overall"].as_f64().unwrap() > 0.9);
    assert!(m["dialogues"].as_u64().unwrap() > 20);
    assert!(m["turns"].as_u64().unwrap() > m["dialogues"].as_u64().unwrap());
    assert_eq!(m["unjudged"], 0);
    assert!(m["errors"]["safety.privacy"].is_number());
    assert!(m["usage"]["requests"] == 0);
    let html = std::fs::read_to_string(run.join("report.html")).unwrap();
    assert!(html.contains("<svg") && !html.to_lowercase().contains("<script"));
    assert!(
        std::fs::read_to_string(run.join("leaderboard.md"))
            .unwrap()
            .contains("| 1 | reference |")
    );
    assert!(run.join("turns.parquet").is_file());
    opens_in_pyarrow_duckdb_and_polars(&run);
    // The same command again: resumed from the progress file, the same results.
    let o = callbench(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(results_without_time(&run), r);
    // --dry-run spends nothing and says so.
    let o = callbench(&[
        "evaluate",
        "--corpus",
        c.to_str().unwrap(),
        "--methods",
        "reference",
        "--out",
        dir.path().join("dry").to_str().unwrap(),
        "--dry-run",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("model calls: 0") && out.contains("cost 0"),
        "{out}"
    );
    assert!(!dir.path().join("dry").exists(), "a dry run writes nothing");
}

#[test]
fn kill_9_and_rerun_gives_the_uninterrupted_results() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 20_000);
    let args = |run: &Path| -> Vec<String> {
        [
            "evaluate",
            "--corpus",
            c.to_str().unwrap(),
            "--methods",
            "reference",
            "--out",
            run.to_str().unwrap(),
            "--quiet",
            "--concurrency",
            "16",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let whole = dir.path().join("whole");
    let o = command_in(&repo()).args(args(&whole)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let killed = dir.path().join("killed");
    let mut child = support::spawn_in(&repo(), &args(&killed));
    let progress = killed.join("progress/reference.jsonl");
    let lines = || {
        std::fs::read_to_string(&progress)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    let interrupted = support::kill_when(
        &mut child,
        "300 progress lines",
        Duration::from_secs(300),
        || lines() >= 300,
    );
    assert!(interrupted, "the run ended before the kill");
    assert!(
        !killed.join("results.json").exists(),
        "killed before the end"
    );
    let o = command_in(&repo()).args(args(&killed)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("evaluated"), "{}", stderr(&o));
    // The run directory is not recorded: the two results are equal but for `created_at`.
    assert_eq!(results_without_time(&killed), results_without_time(&whole));
    assert_eq!(
        std::fs::read(killed.join("turns.parquet")).unwrap(),
        std::fs::read(whole.join("turns.parquet")).unwrap()
    );
}

#[test]
fn bad_input_says_what_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 100);
    let run = dir.path().join("run");
    let (cs, rs) = (c.to_str().unwrap(), run.to_str().unwrap());
    let ev = |extra: &[&str]| {
        let mut a = vec!["evaluate", "--corpus", cs, "--out", rs];
        a.extend_from_slice(extra);
        callbench(&a)
    };
    fails_with(
        &ev(&["--methods", "nosuch"]),
        &["unknown method \"nosuch\"", "available: reference"],
    );
    // Every method the build has is listed: the offline one and the method files.
    fails_with(
        &ev(&["--methods", "nosuch"]),
        &["direct", "react", "chatsop", "simpletod"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--base-url", "http://127.0.0.1:1"]),
        &["--base-url", "LLM methods"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--judge-model", "m"]),
        &["--judge-model", "--judge llm"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--rpm", "10"]),
        &["--rpm", "makes none"],
    );
    // A method file with an error names the file and the key.
    let methods = dir.path().join("methods");
    std::fs::create_dir_all(&methods).unwrap();
    std::fs::write(methods.join("p.tera"), "你好").unwrap();
    std::fs::write(
        methods.join("broken.toml"),
        "kind = \"single\"\n[prompts]\nsystm = \"p.tera\"\n",
    )
    .unwrap();
    let cfg = dir.path().join("methods.toml");
    std::fs::write(
        &cfg,
        format!("methods_dir = {:?}\n", methods.to_str().unwrap()),
    )
    .unwrap();
    fails_with(
        &ev(&["--methods", "broken", "--config", cfg.to_str().unwrap()]),
        &["broken.toml", "`prompts.system`"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--trials", "0"]),
        &["--trials"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--trials", "2"]),
        &["--mode live"],
    );
    fails_with(
        &ev(&["--methods", "reference", "--count", "0"]),
        &["--count"],
    );
    fails_with(
        &callbench(&["evaluate", "--corpus", cs, "--methods", "reference"]),
        &["--out"],
    );
    fails_with(
        &callbench(&[
            "evaluate",
            "--corpus",
            dir.path().to_str().unwrap(),
            "--methods",
            "reference",
            "--out",
            rs,
        ]),
        &["no manifest.json", "not a corpus"],
    );
    assert!(!run.exists(), "nothing written by a refused run");
}

/// The LLM path end to end against the in-repo mock (candidate and judge on two servers): a run
/// killed with `kill -9` half-way and run again pays for nothing its cache holds, and its
/// results equal an uninterrupted run's but for `created_at`.
#[test]
fn an_llm_run_killed_and_rerun_pays_nothing_twice_and_gives_the_same_results() {
    use mock_openai::{MockConfig, MockServer};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mock = |latency_ms| {
        rt.block_on(MockServer::start(MockConfig {
            latency_ms,
            ..MockConfig::default()
        }))
        .unwrap()
    };
    let (candidate, judge) = (mock(3), mock(3));
    let dir = tempfile::tempdir().unwrap();
    let c = corpus(dir.path(), 300);
    let args = |run: &Path| -> Vec<String> {
        [
            "evaluate",
            "--corpus",
            c.to_str().unwrap(),
            "--methods",
            "direct,procot",
            "--judge",
            "llm",
            "--base-url",
            &candidate.base_url(),
            "--model",
            "mock-candidate",
            "--judge-base-url",
            &judge.base_url(),
            "--judge-model",
            "mock-judge",
            "--concurrency",
            "4",
            "--out",
            run.to_str().unwrap(),
            "--quiet",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let paid = || candidate.stats().ok + judge.stats().ok;
    let whole = dir.path().join("whole");
    let before = paid();
    let o = command_in(&repo()).args(args(&whole)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let uninterrupted = paid() - before;
    assert!(uninterrupted > 100, "{uninterrupted} calls");
    let r = results_without_time(&whole);
    assert_eq!(r["judge"], "llm");
    for m in ["direct", "procot"] {
        let m = &r["methods"][m];
        assert_eq!(m["unjudged"], 0);
        assert!(m["dimensions"]["semantic_understanding"]["mean"].is_number());
        assert!(m["usage"]["requests"].as_u64().unwrap() > 0);
        assert!(m["usage"]["judge_requests"].as_u64().unwrap() > 0);
    }
    assert_eq!(r["provenance"]["judge"]["model"], "mock-judge", "{r}");
    humans_check_the_judge(&c, &whole);

    let killed = dir.path().join("killed");
    let start = paid();
    let mut child = support::spawn_in(&repo(), &args(&killed));
    let interrupted = support::kill_when(
        &mut child,
        "half the calls",
        Duration::from_secs(120),
        || paid() - start >= uninterrupted / 2,
    );
    assert!(interrupted, "the run ended before the kill");
    assert!(
        !killed.join("results.json").exists(),
        "killed before the end"
    );
    let paid_killed = paid() - start;
    let cached = {
        let cache = llm_client::Cache::open(&killed.join("llm-cache.redb")).unwrap();
        cache.len().unwrap()
    };
    assert!(cached <= paid_killed);
    let resume = paid();
    let o = command_in(&repo()).args(args(&killed)).output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let paid_resume = paid() - resume;
    assert!(
        paid_resume + cached <= uninterrupted,
        "resume {paid_resume} + cached {cached} > uninterrupted {uninterrupted}"
    );
    assert!(cached > 0, "the killed run left its replies in the cache");
    assert_eq!(results_without_time(&killed), r);
    eprintln!(
        "killed run paid {paid_killed}, cached {cached}, resume paid {paid_resume}, uninterrupted {uninterrupted}"
    );
}

/// `sample --from-eval` draws judged turns of the run; auditors who rate as the judge scored
/// give τ_b = 1 on every dimension and pooled, with a point interval; auditors who rate the
/// reverse give -1.
fn humans_check_the_judge(corpus: &Path, run: &Path) {
    let o = callbench(&[
        "sample",
        "--corpus",
        corpus.to_str().unwrap(),
        "--from-eval",
        run.to_str().unwrap(),
        "--rate",
        "0.5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary = inspection::read_sample(run).unwrap();
    let dialogues = inspection::read_sample_dialogues(run).unwrap();
    assert!(summary.sampled >= 20, "{} sampled", summary.sampled);
    assert_eq!(dialogues.len() as u64, summary.sampled);
    for d in &dialogues {
        let judged = &d.judge.as_ref().unwrap().turns;
        assert_eq!(judged.len(), 1);
        assert_eq!(
            judged[0].turn + 1,
            d.turns.len(),
            "{}: ends with the judged turn",
            d.id
        );
        assert_eq!(
            d.turns.last().unwrap().speaker,
            callbench_model::Speaker::Assistant
        );
    }
    let store = inspection::VerdictStore::open(run).unwrap();
    let rate = |auditor: &str, flip: bool| {
        for d in &dialogues {
            let t = &d.judge.as_ref().unwrap().turns[0];
            let ratings = callbench_model::JUDGE_DIMENSIONS
                .iter()
                .map(|k| {
                    let x = t.score(k).unwrap();
                    (k.to_string(), if flip { 1.0 - x } else { x })
                })
                .collect();
            store
                .append(&inspection::Verdict {
                    auditor: auditor.into(),
                    id: d.id.clone(),
                    verdict: inspection::Decision::Accept,
                    findings: vec![],
                    ratings,
                    note: String::new(),
                    at: String::new(),
                })
                .unwrap();
        }
    };
    rate("agrees", false);
    let o = callbench(&["audit", "--corpus", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = inspection::audit(run).unwrap();
    let pooled = report.overall.judge_pooled.clone().unwrap();
    assert_eq!(pooled.tau, Some(1.0));
    assert_eq!(pooled.ci95, Some([1.0, 1.0]));
    assert_eq!(pooled.n, 7 * summary.sampled);
    for d in &report.overall.judge {
        if let Some(t) = d.tau {
            assert!((t - 1.0).abs() < 1e-12, "{d:?}");
        }
    }
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("pooled") && md.contains("0.764"), "{md}");
    // The same auditor changes their mind: the reverse of the judge.
    rate("agrees", true);
    let report = inspection::audit(run).unwrap();
    let pooled = report.overall.judge_pooled.unwrap();
    assert!((pooled.tau.unwrap() + 1.0).abs() < 1e-12, "{pooled:?}");
}
