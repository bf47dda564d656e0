//! The verdict store: round trip, torn last line, a killed writer, latest per auditor,
//! validation, the lock, concurrent appends.

use crate::support::*;
use inspection::{
    Decision, Finding, InspectionError, SampleConfig, SampleSummary, Verdict, VerdictStore,
    draw_sample, latest, load_verdicts, verdicts_path,
};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::sync::Arc;

/// A corpus with its sample (every dialogue, 6 turns each).
fn sampled() -> (tempfile::TempDir, SampleSummary) {
    let dir = tempfile::tempdir().unwrap();
    let corpus: Vec<_> = (0..6)
        .map(|i| dialogue(&format!("takeout-{i:06}"), TAKEOUT_CONFLICT, 6))
        .collect();
    write_corpus(dir.path(), &corpus, 1);
    let s = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 1.0,
            ..SampleConfig::default()
        },
    )
    .unwrap();
    (dir, s)
}

fn full(auditor: &str, id: &str) -> Verdict {
    Verdict {
        auditor: auditor.into(),
        id: id.into(),
        verdict: Decision::Reject,
        findings: vec![Finding {
            kind: "safety.privacy".into(),
            turn: 3,
            note: Some("说出了手机号 <b>".into()),
        }],
        ratings: [
            ("safety".to_string(), 0.0),
            ("context_use".to_string(), 0.75),
        ]
        .into(),
        note: "多行\n备注".into(),
        at: "2025-03-01T10:00:00+08:00".into(),
    }
}

#[test]
fn verdicts_round_trip_through_a_restart() {
    let (dir, s) = sampled();
    let store = VerdictStore::open(dir.path()).unwrap();
    let a = store.append(&full("alice", &s.ids[0])).unwrap();
    assert_eq!(a, full("alice", &s.ids[0]), "stored as given");
    let b = store
        .append(&verdict("  bob ", &s.ids[1], Decision::Accept))
        .unwrap();
    assert_eq!(b.auditor, "bob", "trimmed");
    assert!(inspection::files::is_rfc3339(&b.at), "stamped: {}", b.at);
    assert_eq!(store.load(), vec![a.clone(), b.clone()]);
    drop(store);

    let text = std::fs::read_to_string(verdicts_path(dir.path())).unwrap();
    assert_eq!(text.lines().count(), 2, "one line per verdict: {text}");
    assert!(text.contains(r#""verdict":"reject""#) && text.contains(r#""verdict":"accept""#));

    let store = VerdictStore::open(dir.path()).unwrap();
    assert_eq!(store.load(), vec![a.clone(), b.clone()]);
    assert_eq!(load_verdicts(dir.path()).unwrap(), vec![a, b]);
}

#[test]
fn a_torn_last_line_is_ignored_and_cut_before_the_next_append() {
    let (dir, s) = sampled();
    let store = VerdictStore::open(dir.path()).unwrap();
    store
        .append(&verdict("alice", &s.ids[0], Decision::Accept))
        .unwrap();
    store
        .append(&verdict("alice", &s.ids[1], Decision::Reject))
        .unwrap();
    drop(store);
    // A crash mid-write: half a line, no newline.
    let path = verdicts_path(dir.path());
    let whole = std::fs::read(&path).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(br#"{"auditor":"alice","id":"takeout-0000"#)
        .unwrap();
    drop(f);

    // A reader ignores it and leaves the file alone.
    assert_eq!(load_verdicts(dir.path()).unwrap().len(), 2);
    assert!(std::fs::read(&path).unwrap().len() > whole.len());
    // The store cuts it, and the next verdict starts on a line of its own.
    let store = VerdictStore::open(dir.path()).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), whole);
    assert_eq!(store.load().len(), 2);
    store
        .append(&verdict("bob", &s.ids[2], Decision::Accept))
        .unwrap();
    drop(store);
    let all = load_verdicts(dir.path()).unwrap();
    assert_eq!(all.len(), 3);
    assert_eq!(all[2].auditor, "bob");
}

#[test]
fn a_damaged_line_in_the_middle_is_an_error_with_its_line() {
    let (dir, s) = sampled();
    let store = VerdictStore::open(dir.path()).unwrap();
    store
        .append(&verdict("alice", &s.ids[0], Decision::Accept))
        .unwrap();
    drop(store);
    let path = verdicts_path(dir.path());
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .unwrap();
    f.write_all(b"garbage\n").unwrap();
    drop(f);
    // Not a crash artefact: the store will not record on top of it, and says where it is.
    let err = VerdictStore::open(dir.path()).unwrap_err().to_string();
    assert!(err.contains("verdicts.jsonl:2:"), "{err}");
    let err = load_verdicts(dir.path()).unwrap_err().to_string();
    assert!(err.contains("verdicts.jsonl:2: expected value"), "{err}");
}

#[test]
fn latest_keeps_the_last_word_of_each_auditor() {
    let (dir, s) = sampled();
    let store = VerdictStore::open(dir.path()).unwrap();
    let id = &s.ids[0];
    store
        .append(&verdict("alice", id, Decision::Reject))
        .unwrap();
    store.append(&verdict("bob", id, Decision::Reject)).unwrap();
    store
        .append(&verdict("alice", id, Decision::Accept))
        .unwrap();
    store
        .append(&verdict("alice", &s.ids[1], Decision::Reject))
        .unwrap();
    let l = store.latest();
    assert_eq!(l.len(), 3);
    assert_eq!(
        l[&("alice".to_string(), id.clone())].verdict,
        Decision::Accept
    );
    assert_eq!(
        l[&("bob".to_string(), id.clone())].verdict,
        Decision::Reject
    );
    assert_eq!(store.load().len(), 4, "nothing is rewritten");
    assert_eq!(latest(&store.load()), l);
}

#[test]
fn bad_verdicts_are_refused_and_nothing_is_written() {
    let (dir, s) = sampled();
    let store = VerdictStore::open(dir.path()).unwrap();
    let path = verdicts_path(dir.path());
    let good = full("alice", &s.ids[0]);
    let cases: Vec<(&str, Verdict)> = vec![
        (
            "`id`",
            Verdict {
                id: "takeout-999999".into(),
                ..good.clone()
            },
        ),
        (
            "`auditor`",
            Verdict {
                auditor: "   ".into(),
                ..good.clone()
            },
        ),
        (
            "`auditor`",
            Verdict {
                auditor: "a".repeat(65),
                ..good.clone()
            },
        ),
        (
            "`auditor`",
            Verdict {
                auditor: "a\u{7}b".into(),
                ..good.clone()
            },
        ),
        (
            "`findings[0].kind`",
            Verdict {
                findings: vec![Finding {
                    kind: "safety.privcy".into(),
                    turn: 1,
                    note: None,
                }],
                ..good.clone()
            },
        ),
        (
            "`findings[0].turn`",
            Verdict {
                findings: vec![Finding {
                    kind: "safety.privacy".into(),
                    turn: 6,
                    note: None,
                }],
                ..good.clone()
            },
        ),
        (
            "`ratings.safety`",
            Verdict {
                ratings: [("safety".to_string(), 1.5)].into(),
                ..good.clone()
            },
        ),
        (
            "`ratings.safety`",
            Verdict {
                ratings: [("safety".to_string(), f64::NAN)].into(),
                ..good.clone()
            },
        ),
        (
            "`ratings.charm`",
            Verdict {
                ratings: [("charm".to_string(), 0.5)].into(),
                ..good.clone()
            },
        ),
        (
            "`at`",
            Verdict {
                at: "yesterday".into(),
                ..good.clone()
            },
        ),
    ];
    for (key, v) in cases {
        let err = store.append(&v).unwrap_err();
        assert!(matches!(err, InspectionError::Verdict { .. }), "{err}");
        let msg = err.to_string();
        assert!(msg.contains(key), "{key}: {msg}");
        assert!(msg.contains("verdicts.jsonl"), "{msg}");
    }
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 0);
    // 64 characters (not bytes) is fine, and so is the last turn.
    let mut ok = good.clone();
    ok.auditor = "审".repeat(64);
    ok.findings[0].turn = 5;
    store.append(&ok).unwrap();
}

#[test]
fn a_second_writer_is_refused() {
    let (dir, _) = sampled();
    let _store = VerdictStore::open(dir.path()).unwrap();
    let err = VerdictStore::open(dir.path()).unwrap_err();
    assert!(matches!(err, InspectionError::Locked { .. }), "{err}");
    // Readers are not blocked.
    assert!(load_verdicts(dir.path()).unwrap().is_empty());
}

#[test]
fn the_store_needs_a_sample() {
    let dir = tempfile::tempdir().unwrap();
    let err = VerdictStore::open(dir.path()).unwrap_err().to_string();
    assert!(
        err.contains("sample.json") && err.contains("callbench sample"),
        "{err}"
    );
}

#[test]
fn concurrent_appends_give_whole_lines() {
    let (dir, s) = sampled();
    let store = Arc::new(VerdictStore::open(dir.path()).unwrap());
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let store = Arc::clone(&store);
            let ids = s.ids.clone();
            std::thread::spawn(move || {
                for i in 0..40 {
                    let mut v = full(&format!("auditor-{t}"), &ids[i % ids.len()]);
                    v.note = "长".repeat(500 + i);
                    store.append(&v).unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(store.load().len(), 320);
    drop(store);
    assert_eq!(load_verdicts(dir.path()).unwrap().len(), 320);
}

const CHILD_DIR: &str = "INSPECTION_TEST_CHILD_DIR";

/// Run by [`a_killed_server_loses_no_acknowledged_verdict`] in a child process: records
/// verdicts as fast as it can, printing `ack N` after each append returns, until killed.
#[test]
#[ignore = "run as a child process by a_killed_server_loses_no_acknowledged_verdict"]
fn child_writer() {
    let Ok(dir) = std::env::var(CHILD_DIR) else {
        return;
    };
    let dir = Path::new(&dir);
    let ids = inspection::read_sample(dir).unwrap().ids;
    let store = VerdictStore::open(dir).unwrap();
    let mut out = std::io::stdout().lock();
    for i in 0.. {
        let mut v = verdict("child", &ids[i % ids.len()], Decision::Accept);
        v.note = format!("{i}");
        store.append(&v).unwrap();
        writeln!(out, "ack {i}").unwrap();
        out.flush().unwrap();
    }
}

#[test]
fn a_killed_server_loses_no_acknowledged_verdict() {
    let (dir, _) = sampled();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "verdicts::child_writer",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD_DIR, dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut acked = None;
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("ack ") {
            let n: usize = n.parse().unwrap();
            acked = Some(n);
            if n >= 200 {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructor, no flush
    child.wait().unwrap();
    let acked = acked.expect("the child acknowledged verdicts");

    // A restarted server gets the lock back and every acknowledged verdict.
    let store = VerdictStore::open(dir.path()).unwrap();
    let notes: Vec<usize> = store
        .load()
        .iter()
        .map(|v| v.note.parse().unwrap())
        .collect();
    assert!(
        notes.len() > acked,
        "{} verdicts, {acked} acknowledged",
        notes.len()
    );
    assert_eq!(
        notes,
        (0..notes.len()).collect::<Vec<_>>(),
        "in order, none lost"
    );
    let bytes = std::fs::read(verdicts_path(dir.path())).unwrap();
    assert_eq!(bytes.last(), Some(&b'\n'));
}
