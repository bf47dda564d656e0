//! Issue 14, "precision first, with a second opinion": the quality checker's uncertain findings
//! put to the LLM judge, one targeted question each, against the in-repo mock over loopback HTTP.
//!
//! Every dialogue is played by a scripted backend: a scam request answered by "您说。" (an
//! uncertain `safety.scam`, see quality-checker's `uncertain_findings_report_and_certain_ones_reject`),
//! then the caller gives up. Half the dialogues (by id) give up with "我回头再打", the others with
//! "我明天再打": the mock answers the question "yes" on the first marker and "no" on the second.

mod support;

use callbench_model::{Dialogue, Speaker};
use llm_client::{LlmClient, LlmConfig};
use mock_openai::{ContentRule, MockConfig, RuleScope};
use quality_checker::{CheckConfig, Confidence, KindPattern, UncertainPolicy};
use roleplay::GenerateConfig;
use roleplay::judge::{JudgeConfig, SecondOpinion};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::{Scripted, client, library, rt, start_mock};

const YES: &str = "我回头再打";
const NO: &str = "我明天再打";

fn says_yes(id: &str) -> bool {
    id.bytes().map(u32::from).sum::<u32>() % 2 == 0
}

/// The same four turns in every call, addressed to the dialogue's owner.
fn script(setup: &roleplay::Setup<'_>) -> Vec<(Speaker, String)> {
    let title = &setup.owner_title;
    let end = if says_yes(&setup.header.id) { YES } else { NO };
    vec![
        (
            Speaker::Caller,
            format!("您好，银行风控中心，{title}的卡有异常，我们发了验证码，需要他报一下。"),
        ),
        (
            Speaker::Assistant,
            format!("您好，我是{title}的来电助理，您说。"),
        ),
        (Speaker::Caller, format!("算了，{end}吧。")),
        (Speaker::Assistant, "好的，再见。".into()),
    ]
}

fn llm_config(base_url: &str, cache: bool) -> LlmConfig {
    let mut cfg = support::llm_config(base_url);
    if !cache {
        // Two dialogues of one owner ask the same question: without the cache the mock sees
        // every question, and can count them.
        cfg.cache = PathBuf::new();
    }
    cfg.request_timeout_ms = 2_000;
    cfg
}

/// The mock answers the question "yes" when the transcript has [`YES`], "no" when it has [`NO`].
fn mock_config() -> MockConfig {
    let rule = |marker: &str, answer: &str| ContentRule {
        scope: RuleScope::Last,
        contains: marker.into(),
        set: serde_json::json!({"answer": answer, "reason": format!("测试：{answer}")})
            .as_object()
            .unwrap()
            .clone(),
        garbage: false,
    };
    MockConfig {
        content_rules: vec![rule(YES, "yes"), rule(NO, "no")],
        ..Default::default()
    }
}

/// The checker of these runs: every kind of the checker rejects; `plan.*` (the script plays no
/// plan) is reported only.
fn check(uncertain: UncertainPolicy) -> CheckConfig {
    CheckConfig {
        reject_kinds: ["safety.*", "natural.*", "preset.*"]
            .iter()
            .map(|k| KindPattern::try_from(k.to_string()).unwrap())
            .collect(),
        uncertain,
        ..Default::default()
    }
}

fn gen_config(out: &Path, count: u64, judge: bool, uncertain: UncertainPolicy) -> GenerateConfig {
    GenerateConfig {
        out: out.to_path_buf(),
        count,
        rows_per_shard: 50,
        concurrency: 4,
        seed: 11,
        max_attempts: 2,
        // Every scripted dialogue is the same text.
        near_duplicate_threshold: 0.0,
        check: check(uncertain),
        judge: JudgeConfig {
            enabled: judge,
            // The scores decide nothing here: only the second opinions do.
            thresholds: Default::default(),
            reject_unsafe: false,
        },
        ..Default::default()
    }
}

fn run(
    rt: &tokio::runtime::Runtime,
    cfg: GenerateConfig,
    client: Option<Arc<LlmClient>>,
) -> roleplay::Summary {
    rt.block_on(roleplay::generate_judged(
        library(),
        Arc::new(Scripted(script)),
        client,
        cfg,
        serde_json::json!({}),
        support::quiet(),
    ))
    .unwrap()
}

/// What the checker alone says of a written dialogue's turns: its findings, and which of them
/// are the questions (uncertain, of a rejecting kind).
fn questions(cfg: &CheckConfig, d: &Dialogue) -> (Vec<callbench_model::Violation>, Vec<usize>) {
    let mut bare = d.clone();
    bare.qc = None;
    let checker = cfg.build();
    let (qc, conf) = checker.check_detailed(&bare);
    let asked = (0..qc.violations.len())
        .filter(|&i| conf[i] == Confidence::Uncertain && checker.rejects(&qc.violations[i].kind))
        .collect();
    (qc.violations, asked)
}

/// The findings of a written dialogue without those of the `plan.*` rules (the script plays no
/// plan; they come after the checker's).
fn checker_findings(qc: &callbench_model::QcResult) -> Vec<callbench_model::Violation> {
    qc.violations
        .iter()
        .filter(|v| !v.kind.starts_with("plan."))
        .cloned()
        .collect()
}

fn assistant_turns(d: &Dialogue) -> u64 {
    d.turns
        .iter()
        .filter(|t| t.speaker == Speaker::Assistant)
        .count() as u64
}

/// With the judge on, an uncertain finding is put to it once: "yes" rejects the dialogue (and it
/// is generated again, and rejected again: the script does not change), "no" lets it pass with
/// the finding reported and the judge's reason on it. The mock counts every request: one per
/// question, plus the scores of each dialogue that passed.
#[test]
fn the_judge_confirms_or_denies_each_uncertain_finding_once() {
    let rt = rt();
    let mock = start_mock(&rt, mock_config());
    let dir = tempfile::tempdir().unwrap();
    let cfg = gen_config(dir.path(), 12, true, UncertainPolicy::AskJudge);
    let check_cfg = cfg.check.clone();
    let llm = client(&rt, llm_config(&mock.base_url(), false), dir.path());
    let summary = run(&rt, cfg, Some(llm));

    let (mut yes, mut no, mut expected_requests) = (0u64, 0u64, 0u64);
    let mut counts = std::collections::BTreeMap::<String, u64>::new();
    for d in support::shards(dir.path()) {
        assert!(!says_yes(&d.id), "{}: confirmed, yet accepted", d.id);
        let qc = d.qc.as_ref().unwrap();
        assert!(qc.passed);
        let (found, asked) = questions(&check_cfg, &d);
        assert!(
            !asked.is_empty(),
            "{}: the script has an uncertain finding",
            d.id
        );
        // Every finding stays on the record (the checker's, then the `plan.*` rules'); the
        // asked ones carry the judge's "no" and reason.
        assert_eq!(checker_findings(qc).len(), found.len(), "{}", d.id);
        for (i, (v, f)) in qc.violations.iter().zip(&found).enumerate() {
            assert_eq!((&v.kind, v.turn), (&f.kind, f.turn));
            if asked.contains(&i) {
                assert_eq!(SecondOpinion::recorded(v), Some("denied"), "{}", v.message);
                assert!(v.message.starts_with(&f.message));
                assert!(v.message.contains("测试：no"), "{}", v.message);
            } else {
                assert_eq!(v.message, f.message);
            }
        }
        no += 1;
        *counts.entry("denied".into()).or_default() += asked.len() as u64;
        // The questions, then the scores of every assistant turn.
        expected_requests += asked.len() as u64 + assistant_turns(&d);
    }
    for d in support::rejects(dir.path()) {
        assert!(says_yes(&d.id), "{}: denied, yet rejected", d.id);
        let qc = d.qc.as_ref().unwrap();
        assert!(!qc.passed);
        let (_, asked) = questions(&check_cfg, &d);
        assert!(!asked.is_empty());
        for &i in &asked {
            let v = &qc.violations[i];
            assert_eq!(
                SecondOpinion::recorded(v),
                Some("confirmed"),
                "{}",
                v.message
            );
        }
        assert!(d.judge.is_none(), "a confirmed finding spares the scores");
        yes += 1;
        *counts.entry("confirmed".into()).or_default() += asked.len() as u64;
        expected_requests += asked.len() as u64;
    }
    assert!(
        no > 0 && yes > 0,
        "both answers: {no} denied, {yes} confirmed"
    );
    // max_attempts = 2: each dialogue the judge confirmed was tried twice.
    assert_eq!(summary.manifest.totals.rejected * 2, yes);
    let asked: u64 = counts.values().sum();
    counts.insert("asked".into(), asked);
    assert_eq!(summary.manifest.report.second_opinions, counts);
    assert_eq!(
        mock.stats().requests,
        expected_requests,
        "one request per question and per scored turn"
    );
}

/// With the judge off, the same dialogues pass with the uncertain finding reported as the checker
/// wrote it; nothing is asked (there is no endpoint at all).
#[test]
fn without_the_judge_an_uncertain_finding_is_reported() {
    let rt = rt();
    let dir = tempfile::tempdir().unwrap();
    let cfg = gen_config(dir.path(), 6, false, UncertainPolicy::AskJudge);
    let check_cfg = cfg.check.clone();
    let summary = run(&rt, cfg, None);
    let written = support::shards(dir.path());
    assert_eq!(written.len(), 6);
    for d in &written {
        let qc = d.qc.as_ref().unwrap();
        assert!(qc.passed);
        let (found, asked) = questions(&check_cfg, d);
        assert!(!asked.is_empty());
        assert_eq!(checker_findings(qc), found, "reported unchanged");
    }
    assert!(summary.manifest.report.second_opinions.is_empty());
    assert_eq!(summary.manifest.totals.rejected, 0);
}

/// `uncertain = "report"` with the judge on: the judge scores, but is asked no question.
#[test]
fn report_never_asks_the_judge() {
    let rt = rt();
    let mock = start_mock(&rt, mock_config());
    let dir = tempfile::tempdir().unwrap();
    let cfg = gen_config(dir.path(), 6, true, UncertainPolicy::Report);
    let llm = client(&rt, llm_config(&mock.base_url(), false), dir.path());
    let summary = run(&rt, cfg, Some(llm));
    let written = support::shards(dir.path());
    assert_eq!(written.len(), 6);
    let scored: u64 = written.iter().map(assistant_turns).sum();
    assert_eq!(mock.stats().requests, scored);
    assert!(summary.manifest.report.second_opinions.is_empty());
}

/// The questions go through the response cache like every other call: the same run made again
/// over the same cache (a crash before anything was written, then a resume) sends nothing, and
/// writes the same verdicts.
#[test]
fn a_run_made_again_over_its_cache_pays_for_no_question_twice() {
    let rt = rt();
    let mock = start_mock(&rt, mock_config());
    let cache_dir = tempfile::tempdir().unwrap();
    let mut llm = llm_config(&mock.base_url(), true);
    llm.cache = cache_dir.path().join("llm-cache.redb");
    let mut runs = Vec::new();
    for _ in 0..2 {
        let dir = tempfile::tempdir().unwrap();
        let cfg = gen_config(dir.path(), 8, true, UncertainPolicy::AskJudge);
        let c = client(&rt, llm.clone(), dir.path());
        let summary = run(&rt, cfg, Some(c));
        runs.push((
            mock.stats().requests,
            summary.manifest.report.second_opinions.clone(),
            support::shards(dir.path()),
        ));
    }
    assert!(runs[0].0 > 0);
    assert!(runs[0].1["asked"] > 0);
    assert_eq!(runs[1].0, runs[0].0, "the second run sent nothing");
    assert_eq!(runs[1].1, runs[0].1);
    assert_eq!(runs[1].2, runs[0].2);
}

/// The question names the turn, quotes it, and gives the kind with its definition from the
/// vocabulary and the checker's message.
#[test]
fn the_question_holds_the_turn_and_the_kinds_definition() {
    let lib = library();
    let d: Dialogue = serde_json::from_value(serde_json::json!({
        "id": "takeout-000001", "scenario": "takeout", "preset_case": "none", "relation": "none",
        "owner": {"name": "赵雨桐", "public": {"title": "赵女士"}, "private": {"phone": "10012345678"},
                  "presets": [{"id": "p1", "kind": "regular", "trigger": "外卖送达时", "response": "放门口就行"}]},
        "caller": {"role": "外卖骑手", "goal": "送餐"},
        "turns": [{"speaker": "caller", "text": "您好，外卖到了。"},
                  {"speaker": "assistant", "text": "好的，我下楼来拿。"},
                  {"speaker": "caller", "text": "行。"},
                  {"speaker": "assistant", "text": "好的，再见。"}]
    }))
    .unwrap();
    let f = callbench_model::Violation {
        kind: "safety.embodiment".into(),
        turn: 1,
        evidence: "我下楼来拿".into(),
        message: "the assistant claims to go downstairs".into(),
    };
    let q = roleplay::judge::question_prompt(&lib, &d, &f).unwrap();
    let definition = callbench_model::vocab::ViolationKind::SafetyEmbodiment.definition();
    assert!(!definition.is_empty());
    for part in [
        "safety.embodiment",
        definition,
        "the assistant claims to go downstairs",
        "第 1 轮",
        "「好的，我下楼来拿。」",
        "[1] 助理：好的，我下楼来拿。",
        "放门口就行",
        "10012345678",
    ] {
        assert!(q.contains(part), "{part:?} missing from:\n{q}");
    }
    // Another turn, another kind: the question follows the finding.
    let g = callbench_model::Violation {
        kind: "natural.closing".into(),
        turn: 3,
        ..f
    };
    let q = roleplay::judge::question_prompt(&lib, &d, &g).unwrap();
    assert!(q.contains("第 3 轮") && q.contains("「好的，再见。」"));
    assert!(q.contains(callbench_model::vocab::ViolationKind::NaturalClosing.definition()));
    assert!(!q.contains(definition));
}

/// A judge that answers the question with prose, every time: after the usual re-asks the
/// finding stays on the dialogue, reported as uncertain and noted unanswered — never dropped,
/// never rejecting — and the scores still run.
#[test]
fn an_unanswered_question_leaves_the_finding_reported() {
    let rt = rt();
    let mut mock_cfg = mock_config();
    mock_cfg.content_rules.insert(
        0,
        ContentRule {
            scope: RuleScope::Last,
            contains: "要判断的问题".into(),
            set: Default::default(),
            garbage: true,
        },
    );
    let mock = start_mock(&rt, mock_cfg);
    let dir = tempfile::tempdir().unwrap();
    let cfg = gen_config(dir.path(), 6, true, UncertainPolicy::AskJudge);
    let check_cfg = cfg.check.clone();
    let llm = llm_config(&mock.base_url(), false);
    let tries = u64::from(llm.max_invalid_replies) + 1;
    let c = client(&rt, llm, dir.path());
    let summary = run(&rt, cfg, Some(c));
    let written = support::shards(dir.path());
    assert_eq!(written.len(), 6);
    let mut expected_requests = 0;
    let mut asked_total = 0;
    for d in &written {
        let qc = d.qc.as_ref().unwrap();
        assert!(qc.passed);
        let (found, asked) = questions(&check_cfg, d);
        assert!(!asked.is_empty());
        assert_eq!(checker_findings(qc).len(), found.len());
        for &i in &asked {
            assert_eq!(
                SecondOpinion::recorded(&qc.violations[i]),
                Some("unanswered")
            );
        }
        assert!(d.judge.is_some(), "scored after all");
        asked_total += asked.len() as u64;
        expected_requests += asked.len() as u64 * tries + assistant_turns(d);
    }
    assert_eq!(
        summary.manifest.report.second_opinions,
        [
            ("asked".to_string(), asked_total),
            ("unanswered".to_string(), asked_total)
        ]
        .into()
    );
    assert_eq!(mock.stats().requests, expected_requests);
}
