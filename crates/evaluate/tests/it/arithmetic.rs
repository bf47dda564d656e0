//! The tables against hand computations: a method that echoes the caller and a judge that
//! scores by content, on three hand-made dialogues.

use crate::support::{config, runtime};
use callbench_model::{
    AgentError, CallView, Caller, Dialogue, Method, MethodReply, MethodUsage, Owner, PresetCase,
    Relation, Speaker, Split, Turn,
};
use corpus::{EvalFinding, EvalTurn};
use evaluate::judge::dim;
use evaluate::results::method_results;
use evaluate::stats::dimensions_with_ci;
use evaluate::{Judge, JudgeReply, JudgeView, Mode, Scores, Verdict};
use std::sync::Arc;

/// Says what the caller just said.
pub(crate) struct Echo;

impl Method for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn fingerprint(&self) -> String {
        "echo-1".into()
    }
    async fn respond(&self, view: &CallView<'_>) -> Result<MethodReply, AgentError> {
        Ok(MethodReply {
            text: view
                .turns
                .last()
                .map(|t| t.text.clone())
                .unwrap_or_default(),
            action: None,
            preset_id: None,
            end_call: false,
            trace: vec![],
            usage: MethodUsage {
                requests: 1,
                prompt_tokens: 10,
                completion_tokens: 2,
                latency_ms: 0,
                cost: 0.5,
            },
        })
    }
}

/// 甲: safety 1, context_use 0.5; 乙: safety 0, context_use 1; 丙: cannot judge.
struct ByContent;

impl Judge for ByContent {
    fn name(&self) -> &str {
        "by-content"
    }
    fn fingerprint(&self) -> String {
        "by-content-1".into()
    }
    async fn judge(&self, view: &JudgeView<'_>) -> JudgeReply {
        let text = &view.turns.last().expect("a judged turn").text;
        let mut s = Scores::default();
        let verdict = match text.as_str() {
            "甲" => {
                s.values[dim("safety")] = Some(1.0);
                s.values[dim("context_use")] = Some(0.5);
                Verdict::Scored(s)
            }
            "乙" => {
                s.values[dim("safety")] = Some(0.0);
                s.values[dim("context_use")] = Some(1.0);
                Verdict::Scored(s)
            }
            _ => Verdict::Unjudged("cannot".into()),
        };
        JudgeReply {
            verdict,
            usage: MethodUsage {
                requests: 1,
                prompt_tokens: 100,
                completion_tokens: 20,
                latency_ms: 0,
                cost: 0.25,
            },
        }
    }
}

pub(crate) fn dialogue(id: &str, relation: Relation, callers: &[&str]) -> Dialogue {
    let mut turns = Vec::new();
    for c in callers {
        turns.push(Turn {
            speaker: Speaker::Caller,
            text: c.to_string(),
            action: None,
            preset_id: None,
        });
        turns.push(Turn {
            speaker: Speaker::Assistant,
            text: "好的。".into(),
            action: Some(callbench_model::Action::Respond),
            preset_id: None,
        });
    }
    Dialogue {
        id: id.into(),
        scenario: "life".into(),
        preset_case: if relation == Relation::None {
            PresetCase::None
        } else {
            PresetCase::Emergent
        },
        relation,
        owner: Owner {
            name: "王明".into(),
            ..Owner::default()
        },
        caller: Caller::default(),
        turns,
        split: Some(Split::Test),
        qc: None,
        r#gen: None,
        judge: None,
    }
}

fn rows() -> Vec<EvalTurn> {
    let dir = tempfile::tempdir().unwrap();
    let dialogues = Arc::new(vec![
        dialogue("life-000001", Relation::Alignment, &["甲", "乙"]),
        dialogue("life-000002", Relation::Conflict, &["甲", "甲", "丙"]),
        dialogue("life-000003", Relation::None, &["乙"]),
    ]);
    runtime()
        .block_on(evaluate::run_method(
            &config(dir.path(), Mode::Turn),
            dialogues,
            "hand",
            Arc::new(Echo),
            Arc::new(ByContent),
            None,
            &|_| {},
        ))
        .unwrap()
}

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

#[test]
fn tables_equal_a_hand_computation() {
    let rows = rows();
    // Rows in task order: d1 甲 乙, d2 甲 甲 丙, d3 乙; turn indices 1, 3, 5.
    let got: Vec<(&str, u32, &str)> = rows
        .iter()
        .map(|r| (r.dialogue_id.as_str(), r.turn, r.utterance.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("life-000001", 1, "甲"),
            ("life-000001", 3, "乙"),
            ("life-000002", 1, "甲"),
            ("life-000002", 3, "甲"),
            ("life-000002", 5, "丙"),
            ("life-000003", 1, "乙"),
        ]
    );
    assert_eq!(rows[1].reference.as_deref(), Some("好的。"));
    let m = method_results(&rows, 1, "echo", Mode::Turn);
    assert_eq!((m.dialogues, m.turns, m.unjudged), (3, 6, 1));
    let d = m.dimensions.to_array();
    // safety over the five judged turns: 1, 0, 1, 1, 0.
    assert!(
        close(d[dim("safety")].mean, 3.0 / 5.0),
        "{:?}",
        d[dim("safety")]
    );
    // context_use: 0.5, 1, 0.5, 0.5, 1.
    assert!(close(d[dim("context_use")].mean, 3.5 / 5.0));
    for k in [
        "semantic_understanding",
        "active_guidance",
        "response_quality",
    ] {
        assert_eq!(d[dim(k)].mean, None, "{k} is not judged");
        assert_eq!(d[dim(k)].ci95, None);
    }
    assert!(close(m.overall, (0.6 + 0.7) / 2.0));
    let rel = |r: &str| m.by_relation[r].overall;
    assert!(close(rel("alignment"), (0.5 + 0.75) / 2.0));
    assert!(close(rel("conflict"), (1.0 + 0.5) / 2.0));
    assert!(close(rel("none"), (0.0 + 1.0) / 2.0));
    assert_eq!(m.by_relation["conflict"].turns, 3);
    assert!(close(
        m.by_preset_case["emergent"].overall,
        (3.0 / 4.0 + 2.5 / 4.0) / 2.0
    ));
    assert_eq!(m.usage.requests, 6);
    assert_eq!(m.usage.prompt_tokens, 60);
    assert_eq!(m.usage.judge_requests, 6);
    assert_eq!(m.usage.judge_tokens, 720);
    assert!((m.usage.cost - 3.0).abs() < 1e-12);
    assert!((m.usage.judge_cost - 1.5).abs() < 1e-12);
    for s in d.iter().chain([&evaluate::stats::Stat {
        mean: m.overall,
        ci95: m.overall_ci95,
    }]) {
        if let (Some(mean), Some([lo, hi])) = (s.mean, s.ci95) {
            assert!(lo <= mean && mean <= hi, "{s:?}");
        }
    }
}

#[test]
fn bootstrap_is_reproducible_for_a_seed_and_moves_with_it() {
    let rows = rows();
    let a = dimensions_with_ci(&rows, 42, "echo");
    let b = dimensions_with_ci(&rows, 42, "echo");
    assert_eq!(a, b);
    let seeds: Vec<_> = (0..8)
        .map(|s| dimensions_with_ci(&rows, s, "echo").0.safety.ci95)
        .collect();
    assert!(
        seeds.windows(2).any(|w| w[0] != w[1]) || seeds[0] == Some([0.0, 1.0]),
        "intervals never depend on the seed: {seeds:?}"
    );
}

#[test]
fn a_constant_dimension_has_a_point_interval() {
    let rows: Vec<EvalTurn> = (0..5)
        .map(|i| {
            let mut r = EvalTurn {
                dialogue_id: format!("d{i}"),
                ..EvalTurn::default()
            };
            r.scores[dim("safety")] = Some(1.0);
            r
        })
        .collect();
    let (d, overall) = dimensions_with_ci(&rows, 3, "m");
    assert_eq!(d.safety.ci95, Some([1.0, 1.0]));
    assert_eq!(overall.mean, Some(1.0));
}

#[test]
fn error_rates_count_turns_not_findings() {
    let row = |kinds: &[&str], unjudged: Option<&str>| EvalTurn {
        findings: kinds
            .iter()
            .map(|k| EvalFinding {
                kind: k.to_string(),
                evidence: String::new(),
                message: String::new(),
            })
            .collect(),
        unjudged_reason: unjudged.map(String::from),
        ..EvalTurn::default()
    };
    let rows = vec![
        row(&["safety.privacy"], None),
        row(&["safety.privacy", "safety.decision"], None),
        row(
            &["natural.repetition"],
            Some("the judge could not score it"),
        ),
        row(&[], None),
        // No reply: not an assistant turn the method produced.
        row(&[], Some("the method gave no reply: timeout")),
    ];
    let e = evaluate::stats::error_rates(&rows);
    assert_eq!(e["safety"], 2.0 / 4.0);
    assert_eq!(e["safety.privacy"], 2.0 / 4.0);
    assert_eq!(e["safety.decision"], 1.0 / 4.0);
    assert_eq!(e["natural.repetition"], 1.0 / 4.0);
    assert_eq!(
        e["preset.missing"], 0.0,
        "every kind of the vocabulary is listed"
    );
}
