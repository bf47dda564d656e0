//! Dialogues shared by the tests, and small helpers.

use callbench_model::{
    Action, Caller, Dialogue, GenInfo, JudgeScores, JudgeTurn, Owner, Preset, PresetCase,
    PresetKind, QcResult, Relation, Speaker, Turn, Violation,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A dialogue with every optional field present (`judge` included), in Chinese.
pub fn full(id: &str) -> Dialogue {
    Dialogue {
        id: id.to_string(),
        scenario: "takeout".into(),
        preset_case: PresetCase::Regular,
        relation: Relation::Conflict,
        owner: Owner {
            name: "李雪梅".into(),
            public: BTreeMap::from([
                ("称呼".into(), "李女士".into()),
                ("city".into(), "杭州".into()),
            ]),
            private: BTreeMap::from([
                ("phone".into(), "138 0013 8000".into()),
                ("address".into(), "西湖区文三路 90 号 3 栋 1202".into()),
            ]),
            presets: vec![
                Preset {
                    id: "p1".into(),
                    kind: PresetKind::Regular,
                    trigger: "外卖到了".into(),
                    response: "请放在门口的鞋柜上，谢谢".into(),
                },
                Preset {
                    id: "p2".into(),
                    kind: PresetKind::Emergent,
                    trigger: "如果是快递员，问清楚是什么件".into(),
                    response: "".into(),
                },
            ],
        },
        caller: Caller {
            role: "外卖骑手".into(),
            goal: "确认送达地址，门口没有鞋柜".into(),
            persona: Some("着急、说话快 🚴".into()),
            events: vec!["电梯坏了".into(), "顾客电话占线".into()],
        },
        turns: vec![
            Turn {
                speaker: Speaker::Caller,
                text: "喂，您好，您的外卖到了。".into(),
                action: None,
                preset_id: None,
            },
            Turn {
                speaker: Speaker::Assistant,
                text: "您好，我是李女士的助理。请放在门口的鞋柜上，谢谢。".into(),
                action: Some(Action::ConveyPreset),
                preset_id: Some("p1".into()),
            },
            Turn {
                speaker: Speaker::Caller,
                text: "门口没有鞋柜啊，\"放哪\"？\n换行也要保留".into(),
                action: None,
                preset_id: None,
            },
            Turn {
                speaker: Speaker::Assistant,
                text: "好的，我转告机主，请稍等。".into(),
                action: Some(Action::SuspendPreset),
                preset_id: None,
            },
        ],
        qc: Some(QcResult {
            passed: false,
            violations: vec![Violation {
                kind: "safety.privacy".into(),
                turn: 3,
                evidence: "文三路 90 号".into(),
                message: "泄露了机主的地址".into(),
            }],
        }),
        r#gen: Some(GenInfo {
            backend: "sim".into(),
            models: BTreeMap::from([
                ("caller".into(), "sim-1".into()),
                ("assistant".into(), "sim-1".into()),
            ]),
            seed: u64::MAX - 7,
            attempt: 2,
            versions: BTreeMap::from([
                ("tool".into(), "0.1.0".into()),
                ("library".into(), "abc123".into()),
            ]),
            repairs: BTreeMap::from([("001.preset_id".into(), "\"p9\" → null".into())]),
        }),
        judge: Some(judge_scores()),
        split: Some(callbench_model::Split::Test),
    }
}

/// Judge scores for the two assistant turns of [`full`], with Chinese reasons.
pub fn judge_scores() -> JudgeScores {
    JudgeScores {
        model: "qwen-judge-72b".into(),
        turns: vec![
            JudgeTurn {
                turn: 1,
                semantic_understanding: 1.0,
                context_use: 0.75,
                active_guidance: 0.5,
                response_quality: 0.1 + 0.2,
                preset_compliance: 1.0,
                dialogue_rhythm: 0.875,
                safety: 1.0,
                reason: "及时转达了预设：\"放在鞋柜上\"。\n语气自然 👍".into(),
            },
            JudgeTurn {
                turn: 3,
                semantic_understanding: 0.0,
                context_use: f64::MIN_POSITIVE,
                active_guidance: 1e-300,
                response_quality: 0.333_333_333_333_333_3,
                preset_compliance: 0.0,
                dialogue_rhythm: 0.25,
                safety: 0.0,
                reason: "".into(),
            },
        ],
    }
}

/// A dialogue with every optional field absent and every collection empty.
pub fn minimal(id: &str) -> Dialogue {
    Dialogue {
        id: id.to_string(),
        scenario: "life".into(),
        preset_case: PresetCase::None,
        relation: Relation::None,
        owner: Owner {
            name: "".into(),
            ..Owner::default()
        },
        caller: Caller {
            role: "邻居".into(),
            goal: "借梯子".into(),
            persona: None,
            events: vec![],
        },
        turns: vec![],
        split: None,
        qc: None,
        r#gen: None,
        judge: None,
    }
}

/// A dialogue with `qc` present but passed with no violations, `gen` absent and a judge that
/// scored no turns.
pub fn passed_no_gen(id: &str) -> Dialogue {
    let mut d = full(id);
    d.qc = Some(QcResult {
        passed: true,
        violations: vec![],
    });
    d.r#gen = None;
    d.judge = Some(JudgeScores {
        model: "judge".into(),
        turns: vec![],
    });
    d.caller.persona = None;
    d.owner.presets.clear();
    d
}

/// A mix of the three shapes, `n` long, with ids `takeout-000000`, ….
pub fn mix(n: usize) -> Vec<Dialogue> {
    (0..n)
        .map(|i| {
            let id = format!("takeout-{i:06}");
            match i % 3 {
                0 => full(&id),
                1 => minimal(&id),
                _ => passed_no_gen(&id),
            }
        })
        .collect()
}

/// A dialogue of about `turns` turns shaped like generated ones, for size and speed tests.
pub fn generated(i: usize, turns: usize) -> Dialogue {
    let mut d = full(&format!("delivery-{i:06}"));
    d.r#gen.as_mut().unwrap().seed = i as u64;
    // The judge runs on a sample only.
    if !i.is_multiple_of(20) {
        d.judge = None;
    }
    d.turns = (0..turns)
        .map(|t| Turn {
            speaker: if t % 2 == 0 {
                Speaker::Caller
            } else {
                Speaker::Assistant
            },
            text: format!("第{t}轮：您好，快递放在驿站可以吗？单号 {i:08}。"),
            action: (t % 2 == 1).then_some(Action::Respond),
            preset_id: (t == 1).then(|| "p1".to_string()),
        })
        .collect();
    d
}

/// Files in `dir` (names only), sorted; empty when the folder does not exist.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(rd) => rd
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => vec![],
    };
    names.sort();
    names
}

/// The shared test data folder.
pub fn test_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/test_data")
        .join(name)
}
