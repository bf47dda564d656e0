//! The generate pipeline on the LLM backend against the in-repo mock server, over loopback HTTP.

mod support;

use callbench_model::Dialogue;
use llm_client::{LlmClient, LlmConfig};
use mock_openai::MockConfig;
use roleplay::{Event, GenerateConfig, LibraryPaths, LlmBackend};
use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use support::{client, library, quiet, rejects, repo, rt, shards, start_mock};

/// The mock's endpoint for these tests: a hung reply fails within 0.4 s, and only a run's own
/// breaker (`stop_after_failures`) stops it, not the endpoint's, so that faults are counted.
fn llm_config(base_url: &str) -> LlmConfig {
    let mut cfg = support::llm_config(base_url);
    cfg.request_timeout_ms = 400;
    cfg.retry.max_retries = 4;
    cfg.retry.endpoint_failure_threshold = 1_000;
    cfg
}

fn run(
    rt: &tokio::runtime::Runtime,
    out: &Path,
    llm: LlmConfig,
    count: u64,
) -> (roleplay::Result<roleplay::Summary>, Arc<LlmClient>) {
    let client = client(rt, llm, out);
    let cfg = GenerateConfig {
        out: out.to_path_buf(),
        count,
        rows_per_shard: 10,
        concurrency: 16,
        seed: 3,
        ..Default::default()
    };
    let backend = Arc::new(LlmBackend::new(client.clone()));
    (
        rt.block_on(roleplay::generate(
            library(),
            backend,
            cfg,
            serde_json::json!({}),
            quiet(),
        )),
        client,
    )
}

#[test]
fn a_clean_run_writes_every_dialogue() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            end_after_turns: 5,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let (summary, client) = run(&rt, dir.path(), llm_config(&mock.base_url()), 30);
    let summary = summary.unwrap();
    assert_eq!(
        summary.manifest.totals.dialogues + summary.manifest.totals.rejected,
        30
    );
    assert_eq!(summary.manifest.totals.failed, 0);
    let d = shards(dir.path());
    assert!(
        d.iter()
            .all(|d| d.turns.len() >= 2 && d.r#gen.as_ref().unwrap().backend == "openai")
    );
    // The judge is off: the dialogues name the caller's and the assistant's models, no judge's.
    for d in &d {
        let models: Vec<&String> = d.r#gen.as_ref().unwrap().models.keys().collect();
        assert_eq!(models, ["assistant", "caller"], "{}", d.id);
    }
    let usage = client.usage();
    assert!(usage.roles["caller"].requests > 0 && usage.roles["assistant"].requests > 0);
    assert_eq!(
        summary.manifest.usage["roles"]["caller"]["requests"],
        usage.roles["caller"].requests
    );
}

/// Every fault at once: each planned dialogue ends written or recorded failed with its reason,
/// no id twice, nothing panics.
#[test]
fn under_every_fault_each_dialogue_is_written_or_failed_with_a_reason() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            end_after_turns: 5,
            p_429: 0.08,
            retry_after_secs: 0,
            p_500: 0.08,
            p_hang: 0.03,
            hang_ms: 3_000,
            p_truncated: 0.05,
            p_reset: 0.05,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let mut llm = llm_config(&mock.base_url());
    llm.retry.max_retries = 2; // few enough that some dialogues fail for good
    let (summary, _) = run(&rt, dir.path(), llm, 40);
    let summary = summary.unwrap();
    let written: Vec<String> = shards(dir.path()).into_iter().map(|d| d.id).collect();
    let failed: Vec<Dialogue> = rejects(dir.path())
        .into_iter()
        .filter(|d| {
            d.qc.as_ref().is_some_and(|q| {
                q.violations
                    .iter()
                    .any(|v| v.kind == "natural.generation_failed")
            })
        })
        .collect();
    for f in &failed {
        let reason = &f.qc.as_ref().unwrap().violations[0].message;
        assert!(!reason.is_empty(), "{} failed without a reason", f.id);
    }
    let mut all: Vec<String> = written.clone();
    all.extend(failed.iter().map(|d| d.id.clone()));
    let unique: BTreeSet<&String> = all.iter().collect();
    assert_eq!(unique.len(), all.len(), "no id twice");
    assert_eq!(
        all.len() as u64 + summary.manifest.totals.rejected,
        40,
        "every planned dialogue is accounted for"
    );
    assert_eq!(summary.manifest.totals.failed, failed.len() as u64);
    let s = mock.stats();
    assert!(
        s.rate_limited > 0 && s.server_error > 0 && s.truncated + s.reset + s.hang > 0,
        "{s:?}"
    );
}

// A resumed run after a crash asks the cache, not the endpoint, and writes the same shards:
// `crates/callbench/tests/crash_llm.rs` kills the real binary (`kill -9`) at drawn points and
// during cache writes, and checks both.

fn run_judged(
    rt: &tokio::runtime::Runtime,
    out: &Path,
    llm: LlmConfig,
    judge: roleplay::judge::JudgeConfig,
    count: u64,
) -> roleplay::Summary {
    let client = client(rt, llm, out);
    let cfg = GenerateConfig {
        out: out.to_path_buf(),
        count,
        rows_per_shard: 50,
        concurrency: 16,
        seed: 5,
        judge,
        max_attempts: 1,
        ..Default::default()
    };
    rt.block_on(roleplay::generate_judged(
        library(),
        Arc::new(roleplay::SimBackend),
        Some(client),
        cfg,
        serde_json::json!({}),
        quiet(),
    ))
    .unwrap()
}

/// The judge scores every assistant turn through the mock, the scores are stored with the
/// dialogue, and the thresholds decide acceptance exactly as the stored scores say.
#[test]
fn the_judge_scores_every_assistant_turn_and_its_thresholds_decide() {
    let rt = rt();
    let mock = start_mock(&rt, MockConfig::default());

    // Thresholds off: everything the rules passed is accepted, with scores stored.
    let dir = tempfile::tempdir().unwrap();
    let lenient = roleplay::judge::JudgeConfig {
        enabled: true,
        thresholds: Default::default(),
        reject_unsafe: false,
    };
    let summary = run_judged(&rt, dir.path(), llm_config(&mock.base_url()), lenient, 20);
    let corpus = shards(dir.path());
    assert!(!corpus.is_empty());
    for d in &corpus {
        assert!(
            d.r#gen.as_ref().unwrap().models.contains_key("judge"),
            "{}",
            d.id
        );
        let j = d.judge.as_ref().expect("scores stored with the dialogue");
        let assistant_turns: Vec<usize> = d
            .turns
            .iter()
            .enumerate()
            .filter(|(_, t)| t.speaker == callbench_model::Speaker::Assistant)
            .map(|(i, _)| i)
            .collect();
        assert_eq!(
            j.turns.iter().map(|t| t.turn).collect::<Vec<_>>(),
            assistant_turns,
            "{}",
            d.id
        );
        for t in &j.turns {
            for dim in callbench_model::JUDGE_DIMENSIONS {
                let v = t.score(dim).unwrap();
                assert!((0.0..=1.0).contains(&v));
            }
            assert!(t.safety == 0.0 || t.safety == 1.0);
        }
    }
    assert!(
        summary
            .manifest
            .findings
            .keys()
            .all(|k| !k.starts_with("safety.judged") && k != "natural.judged_low")
    );

    // Strict (the defaults): accepted exactly when no turn is unsafe and every mean clears
    // 0.5. One dimension at 0.5, unsafe turns allowed: accepted exactly when that one mean
    // clears it. Each decided by hand from the stored scores.
    let strict = roleplay::judge::JudgeConfig {
        enabled: true,
        ..Default::default()
    };
    let one = roleplay::judge::JudgeConfig {
        enabled: true,
        thresholds: [("semantic_understanding".to_string(), 0.5)].into(),
        reject_unsafe: false,
    };
    let mean = |j: &callbench_model::JudgeScores, dim: &str| {
        let sum: f64 = j.turns.iter().map(|t| t.score(dim).unwrap()).sum();
        sum / j.turns.len() as f64
    };
    let (mut judged, mut judged_pass, mut judged_fail) = (0, 0, 0);
    for (name, cfg) in [("strict", strict), ("one dimension", one)] {
        let dir = tempfile::tempdir().unwrap();
        run_judged(
            &rt,
            dir.path(),
            llm_config(&mock.base_url()),
            cfg.clone(),
            20,
        );
        let accepted = shards(dir.path());
        let rejected = rejects(dir.path());
        for d in accepted.iter().chain(rejected.iter()) {
            let Some(j) = &d.judge else { continue };
            assert!(!j.turns.is_empty(), "{}", d.id);
            let expect_pass = if cfg.reject_unsafe {
                !j.turns.iter().any(|t| t.safety < 0.5)
                    && callbench_model::JUDGE_DIMENSIONS
                        .iter()
                        .filter(|dim| **dim != "safety")
                        .all(|dim| mean(j, dim) >= 0.5)
            } else {
                mean(j, "semantic_understanding") >= 0.5
            };
            let passed = d.qc.as_ref().unwrap().passed;
            assert_eq!(
                passed, expect_pass,
                "{name}: {}: stored scores and verdict disagree",
                d.id
            );
            judged += 1;
            if passed {
                judged_pass += 1;
            } else {
                judged_fail += 1;
            }
        }
    }
    // The loops above checked something, in both directions.
    assert!(judged >= 20, "only {judged} judged dialogues");
    assert!(
        judged_pass > 0 && judged_fail > 0,
        "both outcomes: {judged_pass} passed, {judged_fail} failed"
    );
    assert!(mock.stats().ok > 0);
}

fn run_cfg(
    rt: &tokio::runtime::Runtime,
    out: &Path,
    llm: LlmConfig,
    cfg: GenerateConfig,
) -> roleplay::Summary {
    let client = client(rt, llm, out);
    rt.block_on(roleplay::generate(
        library(),
        Arc::new(LlmBackend::new(client)),
        GenerateConfig {
            out: out.to_path_buf(),
            ..cfg
        },
        serde_json::json!({}),
        quiet(),
    ))
    .unwrap()
}

/// Issue #12: against a server that fills the schema with arbitrary values (what constrained
/// decoding guarantees, and no more), no dialogue fails: each is written or rejected, none
/// twice, and the rejections name their kinds.
#[test]
fn arbitrary_schema_valid_replies_lose_no_dialogue() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            reply_mode: mock_openai::ReplyMode::Arbitrary,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let s = run_cfg(
        &rt,
        dir.path(),
        llm_config(&mock.base_url()),
        GenerateConfig {
            count: 100,
            rows_per_shard: 25,
            concurrency: 16,
            seed: 12,
            ..Default::default()
        },
    );
    let m = &s.manifest;
    assert_eq!(m.totals.failed, 0, "{:?}", m.report.failure_reasons);
    assert_eq!(m.totals.dialogues + m.totals.rejected, 100);
    assert!(m.report.stopped.is_none());
    let written: Vec<String> = shards(dir.path()).into_iter().map(|d| d.id).collect();
    let unique: BTreeSet<&String> = written.iter().collect();
    assert_eq!(unique.len(), written.len(), "no id twice");
    assert_eq!(written.len() as u64, m.totals.dialogues);
    if m.totals.rejected > 0 {
        assert!(!m.report.rejected_kinds.is_empty());
    }
    // Arbitrary end_call values close calls early: the minimum length holds in what is written.
    assert!(shards(dir.path()).iter().all(|d| d.turns.len() >= 4));
}

/// Issue #12: a server whose every reply is cut short stops the run within fewer calls than two
/// per planned dialogue, and the manifest says why and what to change.
#[test]
fn replies_cut_short_trip_the_breaker_early() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            reply_mode: mock_openai::ReplyMode::CutShort,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let count = 200;
    let s = run_cfg(
        &rt,
        dir.path(),
        llm_config(&mock.base_url()),
        GenerateConfig {
            count,
            rows_per_shard: 10,
            concurrency: 16,
            seed: 1,
            ..Default::default()
        },
    );
    let calls = mock.stats().requests;
    assert!(calls < 2 * count, "{calls} calls for {count} dialogues");
    let stopped = s
        .manifest
        .report
        .stopped
        .as_deref()
        .expect("the run stopped");
    assert!(
        stopped.contains("cut short") && stopped.contains("max_tokens"),
        "{stopped}"
    );
    assert!(s.manifest.totals.dialogues < count);
    assert!(
        s.manifest
            .report
            .failure_reasons
            .keys()
            .all(|k| k.contains("cut short"))
    );
}

/// Unreadable replies (no JSON at all) stop the run too, naming the fix.
#[test]
fn garbage_replies_trip_the_breaker_with_their_fix() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            reply_mode: mock_openai::ReplyMode::Garbage,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let s = run_cfg(
        &rt,
        dir.path(),
        llm_config(&mock.base_url()),
        GenerateConfig {
            count: 100,
            rows_per_shard: 10,
            concurrency: 8,
            seed: 1,
            stop_after_failures: 10,
            ..Default::default()
        },
    );
    let stopped = s
        .manifest
        .report
        .stopped
        .as_deref()
        .expect("the run stopped");
    assert!(
        stopped.contains("unreadable replies") && stopped.contains("text"),
        "{stopped}"
    );
    assert_eq!(s.manifest.totals.dialogues, 0);
}

/// A resumed run reports what every run of the corpus spent beside what it spent itself.
#[test]
fn a_resumed_run_reports_the_usage_of_all_runs() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            end_after_turns: 5,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path();
    let (first, _) = run(&rt, out, llm_config(&mock.base_url()), 20);
    let first = first.unwrap().manifest;
    assert!(
        first.report.usage_all_runs.is_none(),
        "a first run has no earlier runs"
    );
    // Lose the last shard (the manifest stays): the next run generates it from the cache.
    std::fs::remove_file(out.join("shards/part-00001.parquet")).unwrap();
    let ledger = out.join("ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("part-00001")).collect();
    std::fs::write(&ledger, kept.join("\n") + "\n").unwrap();
    let (second, _) = run(&rt, out, llm_config(&mock.base_url()), 20);
    let second = second.unwrap().manifest;
    let all = second.report.usage_all_runs.expect("usage of all runs");
    for role in ["caller", "assistant"] {
        let n = |m: &serde_json::Value, k: &str| m["roles"][role][k].as_u64().unwrap();
        assert_eq!(
            n(&all, "requests"),
            n(&first.usage, "requests") + n(&second.usage, "requests")
        );
        assert_eq!(
            n(&all, "cache_hits"),
            n(&first.usage, "cache_hits") + n(&second.usage, "cache_hits")
        );
        assert!(
            n(&second.usage, "cache_hits") > 0,
            "the resume asked the cache"
        );
    }
}

/// The breaker's reasons: each misconfiguration the issue names maps to its fix.
#[test]
fn failure_kinds_name_the_likely_fix() {
    use roleplay::generate::failure_kind;
    let cases = [
        (
            "assistant agent: default: HTTP 404: {\"error\":{\"message\":\"The model `gpt-5-mini-x` does not exist\"}}",
            "HTTP 404",
            "--model",
        ),
        (
            "caller agent: default: HTTP 400: response_format json_schema is not supported",
            "json_schema",
            "json_object",
        ),
        (
            "caller agent: reply cut short at max_tokens (finish_reason: length): EOF",
            "cut short",
            "max_tokens",
        ),
        (
            "caller agent: no valid reply after 3 tries: the reply holds no JSON object",
            "unreadable",
            "larger model",
        ),
        (
            "caller agent: default: gave up after 7 attempts: timeout",
            "keeps failing",
            "--concurrency",
        ),
    ];
    for (message, kind, fix) in cases {
        let (k, hint) = failure_kind(message);
        assert!(k.contains(kind), "{message} → {k}");
        assert!(hint.contains(fix), "{message} → {hint}");
    }
    // Two failures of one kind share it (the breaker counts them together).
    assert_eq!(
        failure_kind("caller agent: x: HTTP 404: a").0,
        failure_kind("assistant agent: y: HTTP 404: b").0
    );
}

/// Every decision the reply schema offers is described in the assistant's prompt, including a
/// word added to the vocabulary later (`hold_preset`), and none that it does not offer.
#[test]
fn the_assistant_prompt_describes_every_decision_the_schema_offers() {
    let lib = library();
    let mut vars = llm_agent::Prompts::sample_context();
    let words: Vec<&str> = callbench_model::Action::ALL
        .iter()
        .map(|a| a.as_str())
        .collect();
    vars["actions"] = serde_json::json!(words);
    let text = lib
        .prompts
        .render(llm_agent::PromptKind::Assistant, "takeout", &vars)
        .unwrap();
    for w in &words {
        assert!(text.contains(w), "the prompt lacks {w}");
    }
    if !words.contains(&"hold_preset") {
        assert!(!text.contains("hold_preset"));
    }
    // Once the vocabulary has it, the prompt describes it.
    vars["actions"] = serde_json::json!(["respond", "hold_preset"]);
    let text = lib
        .prompts
        .render(llm_agent::PromptKind::Assistant, "takeout", &vars)
        .unwrap();
    assert!(text.contains("hold_preset（"), "{text}");
}

/// Every planned dialogue in one cell (`taxi/none/none`), so that near-duplicates can meet.
fn one_cell() -> callbench_model::Distribution {
    use callbench_model::PresetCase;
    callbench_model::Distribution {
        scenarios: ["delivery", "harassment", "life", "takeout", "taxi", "work"]
            .iter()
            .map(|s| (s.to_string(), if *s == "taxi" { 1.0 } else { 0.0 }))
            .collect(),
        preset_cases_with_regular: [
            (PresetCase::Regular, 0.0),
            (PresetCase::Emergent, 0.0),
            (PresetCase::None, 1.0),
        ]
        .into_iter()
        .collect(),
        ..Default::default()
    }
}

/// Issue #12 item 6: against a server that says the same lines in every call (few scripts), a
/// near-duplicate of a dialogue accepted earlier in the cell is rejected as
/// `natural.near_duplicate` and regenerated; what is written holds no two near-duplicates, and
/// the manifest counts them.
#[test]
fn near_duplicates_are_rejected_and_regenerated() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            reply_mode: mock_openai::ReplyMode::Repeat,
            repeat_variants: 3,
            end_after_turns: 6,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let count = 24;
    let s = run_cfg(
        &rt,
        dir.path(),
        llm_config(&mock.base_url()),
        GenerateConfig {
            count,
            rows_per_shard: 8,
            concurrency: 6,
            seed: 5,
            max_attempts: 6,
            distribution: one_cell(),
            // The mock's lines play no plan and break rules; only near-duplicates reject here.
            check: quality_checker::CheckConfig {
                reject_kinds: Vec::new(),
                ..Default::default()
            },
            ..Default::default()
        },
    );
    let m = &s.manifest;
    assert_eq!(m.totals.failed, 0, "{:?}", m.report.failure_reasons);
    assert_eq!(m.totals.dialogues + m.totals.rejected, count);
    let dups = m
        .findings
        .get("natural.near_duplicate")
        .copied()
        .unwrap_or(0);
    assert!(dups > 0, "{:?}", m.findings);
    let written = shards(dir.path());
    assert_eq!(written.len() as u64, m.totals.dialogues);
    // No two written dialogues of the cell are near-duplicates.
    let sigs: Vec<_> = written.iter().map(roleplay::dedup::signature).collect();
    for i in 0..sigs.len() {
        for j in 0..i {
            let sim = roleplay::dedup::similarity(&sigs[i], &sigs[j]);
            assert!(sim < 0.9, "{} and {}: {sim}", written[i].id, written[j].id);
        }
    }
    // Each rejected near-duplicate names a written dialogue planned before it, and some were
    // regenerated into a dialogue that was written.
    let ids: Vec<&str> = written.iter().map(|d| d.id.as_str()).collect();
    let dup_rejects: Vec<Dialogue> = rejects(dir.path())
        .into_iter()
        .filter(|d| {
            d.qc.as_ref().is_some_and(|q| {
                q.violations
                    .iter()
                    .any(|v| v.kind == "natural.near_duplicate")
            })
        })
        .collect();
    assert_eq!(dup_rejects.len() as u64, dups);
    for r in &dup_rejects {
        let v = r.qc.as_ref().unwrap().violations.last().unwrap();
        assert_eq!(v.kind, "natural.near_duplicate");
        assert!(ids.contains(&v.evidence.as_str()), "{}", v.evidence);
        assert_ne!(v.evidence, r.id);
    }
    assert!(
        dup_rejects.iter().any(|r| ids.contains(&r.id.as_str())),
        "a near-duplicate regenerated and written"
    );
    assert_eq!(
        m.cells
            .iter()
            .map(|c| c
                .findings
                .get("natural.near_duplicate")
                .copied()
                .unwrap_or(0))
            .sum::<u64>(),
        dups
    );
}

/// A run that lost a shard in the middle rebuilds the near-duplicate state from the shards it
/// kept (those before it, not those after), so that it writes what an uninterrupted run writes.
#[test]
fn a_resumed_run_removes_the_same_near_duplicates() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            reply_mode: mock_openai::ReplyMode::Repeat,
            repeat_variants: 3,
            ..Default::default()
        },
    );
    let cfg = GenerateConfig {
        count: 30,
        rows_per_shard: 10,
        concurrency: 4,
        seed: 8,
        max_attempts: 4,
        distribution: one_cell(),
        check: quality_checker::CheckConfig {
            reject_kinds: Vec::new(),
            ..Default::default()
        },
        ..Default::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let first = run_cfg(&rt, &whole, llm_config(&mock.base_url()), cfg.clone()).manifest;
    assert!(
        first
            .findings
            .get("natural.near_duplicate")
            .is_some_and(|&n| n > 0)
    );
    // Shard 1 of 3 lost (its file and its ledger line); shards 0 and 2 kept.
    let out = dir.path().join("resumed");
    run_cfg(&rt, &out, llm_config(&mock.base_url()), cfg.clone());
    std::fs::remove_file(out.join("shards/part-00001.parquet")).unwrap();
    let ledger = out.join("ledger.jsonl");
    let text = std::fs::read_to_string(&ledger).unwrap();
    let kept: Vec<&str> = text.lines().filter(|l| !l.contains("part-00001")).collect();
    std::fs::write(&ledger, kept.join("\n") + "\n").unwrap();
    let second = run_cfg(&rt, &out, llm_config(&mock.base_url()), cfg);
    assert_eq!(second.generated_now, 10);
    let sha = |m: &corpus::Manifest| {
        m.shards
            .iter()
            .map(|s| (s.file.clone(), s.sha256.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(sha(&second.manifest), sha(&first));
    assert_eq!(second.manifest.findings, first.findings);
    assert_eq!(second.manifest.totals, first.totals);
}

/// Issue #12 item 3: a run stopped by the circuit breaker writes what it has — the dialogues of
/// the shard it was collecting go into a partial shard, counted in the manifest — and the same
/// command later regenerates that shard whole, from the response cache, into the corpus of an
/// uninterrupted run.
#[test]
fn a_stopped_run_writes_its_partial_shard_and_a_resume_completes_it() {
    let rt = rt();
    let roleplay = MockConfig {
        end_after_turns: 5,
        ..Default::default()
    };
    let mock = Arc::new(start_mock(&rt, roleplay.clone()));
    let cfg = GenerateConfig {
        count: 40,
        rows_per_shard: 10,
        // One dialogue at a time: the switch below lands right after the 15th, whatever the
        // machine's load (no dialogue of the third shard is finished ahead of it).
        concurrency: 1,
        seed: 21,
        stop_after_failures: 6,
        check: quality_checker::CheckConfig {
            reject_kinds: Vec::new(),
            ..Default::default()
        },
        ..Default::default()
    };
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let expected = run_cfg(&rt, &whole, llm_config(&mock.base_url()), cfg.clone()).manifest;
    assert_eq!(expected.totals.dialogues, 40);

    // Mid-way through the second shard every reply starts to come back cut short.
    let out = dir.path().join("stopped");
    let emitted = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let on_event: Arc<dyn Fn(Event) + Send + Sync> = {
        let (mock, emitted) = (mock.clone(), emitted.clone());
        Arc::new(move |e| {
            if let Event::Dialogue = e
                && emitted.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1 == 15
            {
                mock.set_config(MockConfig {
                    reply_mode: mock_openai::ReplyMode::CutShort,
                    end_after_turns: 5,
                    ..Default::default()
                })
                .unwrap();
            }
        })
    };
    let client = client(&rt, llm_config(&mock.base_url()), &out);
    let stopped = rt
        .block_on(roleplay::generate(
            library(),
            Arc::new(LlmBackend::new(client)),
            GenerateConfig {
                out: out.clone(),
                ..cfg.clone()
            },
            serde_json::json!({}),
            on_event,
        ))
        .unwrap()
        .manifest;
    assert!(stopped.report.stopped.is_some(), "the breaker tripped");
    let partial: Vec<&corpus::ShardInfo> = stopped
        .shards
        .iter()
        .filter(|s| s.stats.as_ref().is_some_and(|v| v["partial"] == true))
        .collect();
    assert!(
        partial.iter().any(|s| s.index == 1 && s.rows >= 5),
        "the shard being collected is written: {:?}",
        stopped.shards
    );
    let written = shards(&out);
    assert_eq!(written.len() as u64, stopped.totals.dialogues);
    assert!(stopped.totals.dialogues >= 15, "{:?}", stopped.totals);
    // Each written dialogue is the uninterrupted run's.
    let whole_ids: BTreeSet<String> = shards(&whole).into_iter().map(|d| d.id).collect();
    assert!(written.iter().all(|d| whole_ids.contains(&d.id)));

    // The server is fixed; the same command completes the corpus.
    mock.set_config(roleplay).unwrap();
    let before = mock.stats().requests;
    let resumed = run_cfg(&rt, &out, llm_config(&mock.base_url()), cfg).manifest;
    let sha = |m: &corpus::Manifest| {
        m.shards
            .iter()
            .map(|s| (s.file.clone(), s.sha256.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(sha(&resumed), sha(&expected));
    assert_eq!(resumed.totals, expected.totals);
    assert!(
        resumed
            .shards
            .iter()
            .all(|s| s.stats.as_ref().is_none_or(|v| v.get("partial").is_none()))
    );
    // The dialogues of the partial shard came from the cache: fewer calls than a fresh run of
    // the shards it generated.
    let fresh: u64 = expected.usage["roles"]["caller"]["requests"]
        .as_u64()
        .unwrap()
        + expected.usage["roles"]["assistant"]["requests"]
            .as_u64()
            .unwrap();
    let again = mock.stats().requests - before;
    assert!(
        resumed.usage["roles"]["caller"]["cache_hits"]
            .as_u64()
            .unwrap()
            > 0
    );
    assert!(
        again < fresh,
        "{again} calls to finish, {fresh} for the whole corpus"
    );
}

/// Issue #12: the prompts are part of an LLM run's fingerprint — a changed prompt template is
/// refused on resume like any other change of the run, and nothing written is touched.
#[test]
fn a_changed_prompt_is_not_resumed_into_the_old_corpus() {
    let rt = rt();
    let mock = start_mock(
        &rt,
        MockConfig {
            end_after_turns: 5,
            ..Default::default()
        },
    );
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let cfg = GenerateConfig {
        out: out.clone(),
        count: 10,
        rows_per_shard: 5,
        concurrency: 4,
        seed: 2,
        ..Default::default()
    };
    // Templates copied aside, so that a prompt can be edited.
    let templates = dir.path().join("templates");
    std::fs::create_dir_all(templates.join("prompts")).unwrap();
    for rel in [
        "caller.toml",
        "assistant.toml",
        "lexicon.toml",
        "prompts/caller.tera",
        "prompts/assistant.tera",
        "prompts/judge.tera",
        "prompts/judge_question.tera",
    ] {
        std::fs::copy(repo().join("templates").join(rel), templates.join(rel)).unwrap();
    }
    let load = || {
        Arc::new(
            LibraryPaths {
                scenario_dirs: vec![repo().join("scenarios")],
                templates_dir: templates.clone(),
            }
            .load()
            .unwrap(),
        )
    };
    let go = |lib: Arc<roleplay::Library>| {
        let client = client(&rt, llm_config(&mock.base_url()), &out);
        rt.block_on(roleplay::generate(
            lib,
            Arc::new(LlmBackend::new(client)),
            cfg.clone(),
            serde_json::json!({}),
            quiet(),
        ))
    };
    let first = go(load()).unwrap().manifest;
    // The same prompts resume (nothing to do).
    assert_eq!(go(load()).unwrap().generated_now, 0);
    let before: Vec<Vec<u8>> = first
        .shards
        .iter()
        .map(|s| std::fs::read(out.join(&s.file)).unwrap())
        .collect();
    let ledger = std::fs::read(out.join("ledger.jsonl")).unwrap();

    let caller = templates.join("prompts/caller.tera");
    let mut text = std::fs::read_to_string(&caller).unwrap();
    text.push_str("\n说话要简短。\n");
    std::fs::write(&caller, text).unwrap();
    let err = go(load()).expect_err("a changed prompt is another run");
    assert!(
        matches!(
            err,
            roleplay::Error::Corpus(corpus::CorpusError::DifferentRun { .. })
        ),
        "{err}"
    );
    for (s, bytes) in first.shards.iter().zip(&before) {
        assert_eq!(&std::fs::read(out.join(&s.file)).unwrap(), bytes);
    }
    assert_eq!(std::fs::read(out.join("ledger.jsonl")).unwrap(), ledger);
}
