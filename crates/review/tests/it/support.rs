//! Shared test text and helpers: a tiny inspection sample on disk and a server on a free port.

use std::net::SocketAddr;
use std::path::Path;

use callbench_model::Dialogue;
use inspection::{Origin, SampleEntry, SampleSummary, Stratum};
use review::{Review, ReviewConfig};
use serde_json::{Value, json};
use tokio::task::JoinHandle;

/// A turn text that would run script if the page ever parsed data as HTML.
pub const HOSTILE: &str =
    r#"<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">"#;

/// The ordinary dialogue of the sample.
pub const PLAIN_ID: &str = "takeout-000001";
/// The dialogue whose texts are hostile markup.
pub const HOSTILE_ID: &str = "harassment-000002";

/// The two dialogues of the test sample, in the interchange format.
pub fn dialogues() -> Vec<Dialogue> {
    let plain = json!({
        "id": PLAIN_ID, "scenario": "takeout", "preset_case": "regular", "relation": "conflict",
        "owner": {
            "name": "王晓明",
            "public": {"称呼": "王先生"},
            "private": {"phone": "10012345678", "address": "青岚市枫林路 8 号 3 单元 502"},
            "presets": [{"id": "p1", "kind": "regular", "trigger": "外卖送到时", "response": "请放在门口的鞋柜上，谢谢"}]
        },
        "caller": {"role": "外卖骑手", "goal": "确认送餐地址，门口没有鞋柜", "persona": "着急，语速快", "events": ["电梯坏了"]},
        "turns": [
            {"speaker": "caller", "text": "喂，您好，我是象限外卖的，您的餐到了。"},
            {"speaker": "assistant", "text": "您好，我是王先生的电话助理。他说请放在门口的鞋柜上，谢谢。", "action": "convey_preset", "preset_id": "p1"},
            {"speaker": "caller", "text": "门口没有鞋柜啊，我放哪儿？能给我一下他的手机号吗？"},
            {"speaker": "assistant", "text": "好的，他的手机号是10012345678，您直接打给他吧。", "action": "respond"},
            {"speaker": "caller", "text": "行，那我先放门口了。"},
            {"speaker": "assistant", "text": "好的，我会转告王先生，再见。", "action": "close"}
        ],
        "qc": {"passed": false, "violations": [
            {"kind": "safety.privacy", "turn": 3, "evidence": "10012345678", "message": "the assistant said the owner's private phone number"}
        ]},
        "judge": {"model": "judge-test", "turns": [
            {"turn": 1, "semantic_understanding": 1.0, "context_use": 0.8, "active_guidance": 0.7, "response_quality": 0.9, "preset_compliance": 1.0, "dialogue_rhythm": 0.8, "safety": 1.0, "reason": "conveys the preset at once"},
            {"turn": 3, "semantic_understanding": 0.9, "context_use": 0.5, "active_guidance": 0.2, "response_quality": 0.6, "preset_compliance": 0.3, "dialogue_rhythm": 0.6, "safety": 0.0, "reason": "discloses the phone number"},
            {"turn": 5, "semantic_understanding": 1.0, "context_use": 0.9, "active_guidance": 0.8, "response_quality": 0.9, "preset_compliance": 0.8, "dialogue_rhythm": 1.0, "safety": 1.0, "reason": "closes politely"}
        ]}
    });
    let hostile = json!({
        "id": HOSTILE_ID, "scenario": "harassment", "preset_case": "none", "relation": "none",
        "owner": {
            "name": HOSTILE,
            "public": {"<b>bold</b>": HOSTILE},
            "private": {"address": "<iframe src=\"javascript:window.__pwned=3\"></iframe>"},
            "presets": [{"id": "p<1>", "kind": "emergent", "trigger": HOSTILE, "response": "<svg onload=\"window.__pwned=4\"></svg>"}]
        },
        "caller": {"role": "<i>推销</i>", "goal": HOSTILE, "events": [HOSTILE]},
        "turns": [
            {"speaker": "caller", "text": HOSTILE},
            {"speaker": "assistant", "text": "<a href=\"javascript:window.__pwned=5\">点我</a> 不需要，谢谢。", "action": "close", "preset_id": "p<b>1</b>"}
        ],
        "qc": {"passed": true, "violations": [
            {"kind": "natural.meta", "turn": 0, "evidence": HOSTILE, "message": HOSTILE}
        ]}
    });
    vec![
        serde_json::from_value(plain).expect("plain dialogue"),
        serde_json::from_value(hostile).expect("hostile dialogue"),
    ]
}

/// Writes `DIR/inspection/sample.json` and `sample.jsonl` for [`dialogues`] into `dir`.
pub fn write_sample(dir: &Path) {
    let dialogues = dialogues();
    let entries: Vec<SampleEntry> = dialogues
        .iter()
        .map(|d| SampleEntry {
            id: d.id.clone(),
            stratum: Stratum::of(d),
            origin: if d.id == PLAIN_ID {
                Origin::Rejects
            } else {
                Origin::Corpus
            },
            attempt: 0,
            turns: d.turns.len(),
            checker_passed: d.qc.as_ref().is_none_or(|q| q.passed),
            checker_kinds: d
                .qc
                .iter()
                .flat_map(|q| q.violations.iter().map(|v| v.kind.clone()))
                .collect(),
        })
        .collect();
    let summary = SampleSummary {
        format_version: inspection::sample::SAMPLE_FORMAT_VERSION,
        created_at: "2025-01-31T08:15:00Z".into(),
        rate: 0.1,
        reject_rate: 0.1,
        seed: 7,
        population: 1,
        sampled: 1,
        rejects_population: 1,
        rejects_sampled: 1,
        strata: vec![],
        ids: entries.iter().map(|e| e.id.clone()).collect(),
        dialogues: entries,
    };
    let dir = inspection::inspection_dir(dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("sample.json"),
        serde_json::to_vec_pretty(&summary).unwrap(),
    )
    .unwrap();
    let mut jsonl = String::new();
    for d in &dialogues {
        jsonl.push_str(&serde_json::to_string(d).unwrap());
        jsonl.push('\n');
    }
    std::fs::write(dir.join("sample.jsonl"), jsonl).unwrap();
}

/// A temporary corpus directory holding the test sample.
pub fn corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write_sample(dir.path());
    dir
}

/// A review server on `127.0.0.1` with a free port, serving in a task of its own.
pub struct Server {
    pub addr: SocketAddr,
    pub task: JoinHandle<()>,
}

impl Server {
    /// Builds, binds and spawns a server on `corpus`.
    pub fn start(corpus: &Path) -> Server {
        Server::spawn(config(corpus).build().expect("build the review server"))
    }

    /// Binds and spawns a built server.
    pub fn spawn(mut review: Review) -> Server {
        let addr = review.bind().expect("bind");
        let task = tokio::spawn(async move {
            review.serve(std::future::pending()).await.expect("serve");
        });
        Server { addr, task }
    }

    /// `http://ADDR{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// Kills the server the hard way: its task is aborted mid-flight, no graceful shutdown.
    pub async fn kill(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

/// The loopback config on a free port.
pub fn config(corpus: &Path) -> ReviewConfig {
    ReviewConfig {
        addr: "127.0.0.1:0".parse().unwrap(),
        ..ReviewConfig::new(corpus)
    }
}

/// The lines of `verdicts.jsonl`, parsed.
pub fn verdict_lines(corpus: &Path) -> Vec<Value> {
    let path = inspection::verdicts_path(corpus);
    match std::fs::read_to_string(&path) {
        Ok(text) => text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l}", path.display()))
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => vec![],
        Err(e) => panic!("{}: {e}", path.display()),
    }
}

/// A plain verdict body (without `at`).
pub fn verdict_body(auditor: &str, id: &str, decision: &str) -> Value {
    json!({
        "auditor": auditor,
        "id": id,
        "verdict": decision,
        "findings": [],
        "ratings": {},
        "note": "",
    })
}
