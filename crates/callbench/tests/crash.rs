//! Crash harness: `kill -9` of the real `callbench generate` (offline backend) at many points —
//! while a shard is being written aside, right after a ledger line, once rejects exist, while
//! the manifest is written, while the inspection sample is written — then the same command
//! again. Everything the run writes (shards, rejects, the sample, the manifest's figures) must
//! equal an uninterrupted run's, with no stray file left.
//!
//! A point is reached by watching the output directory (no sleeping for a time); the child is
//! killed the moment the point is seen. A round whose point the child ran past before it could
//! be seen still checks the resume, and the rounds of the shard phase must each have killed a
//! run that had not finished.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;
use support::{files, repo};

/// The run's config: calls longer than 9 turns are rejected (`natural.turn_cap`), so that
/// the offline backend gives rejects files too (about a third of the attempts).
fn config(out: &Path) -> PathBuf {
    let cfg = out.parent().unwrap().join("short-calls.toml");
    std::fs::write(&cfg, "[check]\nmax_turns = 9\n").unwrap();
    cfg
}

fn args(out: &Path) -> Vec<String> {
    let cfg = config(out);
    [
        "generate",
        "--config",
        cfg.to_str().unwrap(),
        "--count",
        "12000",
        "--rows-per-shard",
        "1000",
        "--seed",
        "23",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_to_end(out: &Path) {
    let o = support::run_in(&repo(), &args(out));
    // The config rejects long calls, so the corpus ends short of its count by design: exit 3
    // ("incomplete", README), with the rejects named in the last line. Anything else — a crash,
    // an error, a complete corpus — is not the run this harness compares.
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}");
    let stdout = String::from_utf8_lossy(&o.stdout);
    let last = stdout.lines().last().unwrap_or("");
    assert!(
        last.contains("of 12000 written") && last.contains("natural.turn_cap"),
        "last line: {last}"
    );
}

/// What a finished run must reproduce: every file's bytes, except the two that carry a
/// timestamp, which are compared without it.
fn snapshot(out: &Path) -> BTreeMap<String, Vec<u8>> {
    files(out)
        .into_iter()
        .map(|(rel, p)| {
            let bytes = std::fs::read(&p).unwrap();
            let bytes = match rel.as_str() {
                "manifest.json" | "inspection/sample.json" => {
                    let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                    let o = v.as_object_mut().unwrap();
                    o.remove("created_at");
                    // Each run has its own --out.
                    if let Some(c) = o.get_mut("config").and_then(|c| c.as_object_mut()) {
                        c.remove("out");
                    }
                    // Usage of the sim backend is empty; time spent is not a figure of the corpus.
                    if let Some(u) = o.get_mut("usage").and_then(|u| u.as_object_mut()) {
                        u.remove("seconds");
                    }
                    serde_json::to_vec_pretty(&v).unwrap()
                }
                "inspection/sample.html" => without_draw_time(&bytes),
                _ => bytes,
            };
            (rel, bytes)
        })
        .collect()
}

/// The page with its "drawn 2026-12-01T23:15:38Z" stamp blanked.
fn without_draw_time(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let tag = b"drawn ";
    let mut i = 0;
    while let Some(at) = out[i..].windows(tag.len()).position(|w| w == tag) {
        let start = i + at + tag.len();
        let stamp = out.get(start..start + 20).map(<[u8]>::to_vec);
        if let Some(stamp) = stamp
            && stamp[10] == b'T'
            && stamp[19] == b'Z'
        {
            out[start..start + 20].fill(b'-');
        }
        i = start;
    }
    out
}

/// The points at which a run is killed: a description and a test on the output directory.
type Point = (&'static str, bool, fn(&Path) -> bool);

fn ledger_lines(out: &Path) -> usize {
    std::fs::read_to_string(out.join("ledger.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn any_file(dir: &Path, pred: impl Fn(&str) -> bool) -> bool {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .any(|e| pred(&e.file_name().to_string_lossy()))
        })
        .unwrap_or(false)
}

const POINTS: &[Point] = &[
    // (what, must the kill land before the end, when)
    ("the run header, before any shard", true, |o| {
        ledger_lines(o) >= 1
    }),
    ("a shard written aside, not yet renamed", true, |o| {
        any_file(&o.join("shards"), |n| n.ends_with(".tmp"))
    }),
    ("right after the second shard's ledger line", true, |o| {
        ledger_lines(o) >= 3
    }),
    ("a rejects file written", true, |o| {
        any_file(&o.join("rejects"), |_| true)
    }),
    ("half the shards", true, |o| ledger_lines(o) >= 7),
    ("the last shard's ledger line", false, |o| {
        ledger_lines(o) >= 13
    }),
    ("the manifest", false, |o| {
        any_file(o, |n| {
            n.starts_with("manifest") || n.starts_with(".manifest")
        })
    }),
    ("the inspection sample", false, |o| {
        o.join("inspection").exists()
    }),
    ("the sample's Parquet file", false, |o| {
        any_file(&o.join("inspection"), |n| n.contains("sample.parquet"))
    }),
];

#[test]
fn kill_9_at_every_stage_then_resume_gives_the_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    run_to_end(&whole);
    let expected = snapshot(&whole);
    assert_eq!(
        expected.keys().filter(|k| k.starts_with("shards/")).count(),
        12
    );
    assert!(
        expected.keys().any(|k| k.starts_with("rejects/")),
        "{:?}",
        expected.keys()
    );
    assert!(expected.contains_key("inspection/sample.parquet"));

    let mut killed_late = 0;
    for (round, (what, must_interrupt, reached)) in POINTS.iter().enumerate() {
        let out = dir.path().join(format!("killed-{round}"));
        let mut child = support::spawn_in(&repo(), &args(&out));
        let interrupted =
            support::kill_when(&mut child, what, Duration::from_secs(120), || reached(&out));
        if *must_interrupt {
            assert!(interrupted, "{what}: the run ended before it was killed");
            assert!(
                !out.join("manifest.json").exists(),
                "{what}: killed before the manifest"
            );
        } else if interrupted {
            killed_late += 1;
        } else {
            eprintln!("note: {what}: the run finished before the kill");
        }
        run_to_end(&out);
        let got = snapshot(&out);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{what}: the same files, no stray ones"
        );
        for (rel, bytes) in &expected {
            if got[rel] != *bytes {
                let (a, b) = (
                    String::from_utf8_lossy(bytes),
                    String::from_utf8_lossy(&got[rel]),
                );
                let first = a.lines().zip(b.lines()).find(|(x, y)| x != y);
                panic!("{what}: {rel} differs from the uninterrupted run's: {first:?}");
            }
        }
    }
    // The late points are reached while the process still runs at least once.
    assert!(killed_late >= 1, "no kill landed after the shards");
}
