//! Hand-made corpora in temporary directories, written with the corpus crate.

use callbench_model::{
    Caller, Dialogue, GenInfo, JudgeScores, JudgeTurn, Owner, Preset, PresetCase, PresetKind,
    QcResult, Relation, Speaker, Turn, Violation,
};
use corpus::{ShardWriterConfig, write_rejects, write_shard};
use inspection::{Decision, Verdict};
use std::collections::BTreeMap;
use std::path::Path;

/// A stratum as the tests write it: scenario, preset case, relation.
pub type Cell = (&'static str, PresetCase, Relation);

pub const TAKEOUT_CONFLICT: Cell = ("takeout", PresetCase::Regular, Relation::Conflict);
pub const TAKEOUT_ALIGN: Cell = ("takeout", PresetCase::Regular, Relation::Alignment);
pub const DELIVERY_EMERGENT: Cell = ("delivery", PresetCase::Emergent, Relation::Irrelevance);
pub const LIFE_NONE: Cell = ("life", PresetCase::None, Relation::None);
pub const WORK_NONE: Cell = ("work", PresetCase::None, Relation::None);

/// A passed dialogue of `cell` with `turns` alternating turns.
pub fn dialogue(id: &str, cell: Cell, turns: usize) -> Dialogue {
    let (scenario, preset_case, relation) = cell;
    Dialogue {
        id: id.to_string(),
        scenario: scenario.to_string(),
        preset_case,
        relation,
        owner: Owner {
            name: "王小明".into(),
            public: BTreeMap::from([("称呼".into(), "王先生".into())]),
            private: BTreeMap::from([("phone".into(), "138 0000 0000".into())]),
            presets: if preset_case == PresetCase::None {
                vec![]
            } else {
                vec![Preset {
                    id: "p1".into(),
                    kind: PresetKind::Regular,
                    trigger: "外卖到了".into(),
                    response: "放门口".into(),
                }]
            },
        },
        caller: Caller {
            role: "骑手".into(),
            goal: "送餐".into(),
            persona: None,
            events: vec![],
        },
        turns: (0..turns)
            .map(|i| Turn {
                speaker: if i % 2 == 0 {
                    Speaker::Caller
                } else {
                    Speaker::Assistant
                },
                text: format!("第 {i} 句"),
                action: (i % 2 == 1).then_some(callbench_model::Action::Respond),
                preset_id: None,
            })
            .collect(),
        qc: Some(QcResult {
            passed: true,
            violations: vec![],
        }),
        r#gen: Some(GenInfo {
            backend: "sim".into(),
            seed: 1,
            ..GenInfo::default()
        }),
        judge: None,
        split: None,
    }
}

/// The same dialogue as rejected by the checker at `attempt`, with `violations` (kind, turn).
pub fn rejected(id: &str, cell: Cell, attempt: u32, violations: &[(&str, usize)]) -> Dialogue {
    let mut d = dialogue(id, cell, 6);
    d.r#gen.as_mut().unwrap().attempt = attempt;
    d.qc = Some(QcResult {
        passed: false,
        violations: violations
            .iter()
            .map(|(k, t)| Violation {
                kind: k.to_string(),
                turn: *t,
                evidence: "…".into(),
                message: format!("{k} at {t}"),
            })
            .collect(),
    });
    d
}

/// Judge scores with one judged turn, every dimension at `score`.
pub fn judge(score: f64) -> JudgeScores {
    JudgeScores {
        model: "judge-model".into(),
        turns: vec![JudgeTurn {
            turn: 1,
            semantic_understanding: score,
            context_use: score,
            active_guidance: score,
            response_quality: score,
            preset_compliance: score,
            dialogue_rhythm: score,
            safety: 1.0,
            reason: String::new(),
        }],
    }
}

/// Ids `{scenario}-{n:06}` for `(cell, count)` strata, numbered across the whole corpus.
pub fn make(strata: &[(Cell, usize)]) -> Vec<Dialogue> {
    let mut out = Vec::new();
    for &(cell, count) in strata {
        for _ in 0..count {
            let id = format!("{}-{:06}", cell.0, out.len());
            out.push(dialogue(&id, cell, 4 + out.len() % 5));
        }
    }
    out
}

/// Writes `dialogues` as `shards` shards of (nearly) equal size under `dir` (no manifest).
pub fn write_corpus(dir: &Path, dialogues: &[Dialogue], shards: usize) {
    let per = dialogues.len().div_ceil(shards).max(1);
    for (i, chunk) in dialogues.chunks(per).enumerate() {
        write_shard(dir, i as u32, chunk, &ShardWriterConfig::default()).unwrap();
    }
}

/// Writes rejects files under `dir`, one per slice.
pub fn write_rejects_files(dir: &Path, files: &[Vec<Dialogue>]) {
    for (i, f) in files.iter().enumerate() {
        write_rejects(dir, i as u32, f).unwrap();
    }
}

/// A verdict with no findings and no ratings, stamped by the store.
pub fn verdict(auditor: &str, id: &str, decision: Decision) -> Verdict {
    Verdict {
        auditor: auditor.into(),
        id: id.into(),
        verdict: decision,
        findings: vec![],
        ratings: BTreeMap::new(),
        note: String::new(),
        at: String::new(),
    }
}
