//! Crash harness of the LLM backend: `kill -9` of the real `callbench generate --backend openai`
//! against the in-repo mock, at points drawn from a seeded generator over the run's requests and
//! the moment the response cache is written, then the same command again. The finished corpus
//! (shards, rejects, the manifest's figures) must equal an uninterrupted run's, and nothing
//! whose reply reached the response cache is paid for twice.
//!
//! A point is reached by watching the mock's request counter or the cache file (no sleeping for a
//! time); the child is killed the moment it is seen.

mod support;

use mock_openai::{MockConfig, MockServer};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, SystemTime};
use support::repo;

const COUNT: &str = "60";

/// The run's config: no inspection sample (the offline harness, crash.rs, kills that stage),
/// and what the harness adds.
fn args(out: &Path, base_url: &str, extra: &str) -> Vec<String> {
    let cfg = out.parent().unwrap().join("run.toml");
    std::fs::write(&cfg, format!("{extra}\n[sample]\nafter_generate = false\n")).unwrap();
    [
        "generate",
        "--config",
        cfg.to_str().unwrap(),
        "--backend",
        "openai",
        "--base-url",
        base_url,
        "--model",
        "mock",
        "--count",
        COUNT,
        "--rows-per-shard",
        "10",
        "--concurrency",
        "8",
        "--seed",
        "31",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn run_to_end(out: &Path, base_url: &str, extra: &str) {
    let o = support::run_in(&repo(), &args(out, base_url, extra));
    // 0, or 3 when some dialogues were given up as rejected (the mock plays no plan).
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        matches!(o.status.code(), Some(0 | 3)),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let last = stdout.lines().last().unwrap_or("");
    assert!(last.contains(&format!("of {COUNT} written")), "{last}");
}

/// Every file of the corpus by relative path, the manifest without what differs between runs
/// by design (time, `--out`, what each run spent).
fn snapshot(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = support::shards_and_rejects(out);
    let mut m = support::manifest(out);
    let o = m.as_object_mut().unwrap();
    o.remove("created_at");
    o.remove("usage");
    if let Some(c) = o.get_mut("config").and_then(|c| c.as_object_mut()) {
        c.remove("out");
    }
    if let Some(r) = o.get_mut("report").and_then(|r| r.as_object_mut()) {
        r.remove("usage_all_runs");
    }
    files.insert(
        "manifest.json".into(),
        serde_json::to_vec_pretty(&m).unwrap(),
    );
    files
}

/// Size and modification time of the response cache (none before it exists).
fn cache_state(out: &Path) -> Option<(u64, SystemTime)> {
    let m = std::fs::metadata(out.join("llm-cache.redb")).ok()?;
    Some((m.len(), m.modified().ok()?))
}

fn cache_entries(out: &Path) -> u64 {
    let path = out.join("llm-cache.redb");
    if !path.exists() {
        return 0;
    }
    let cache = llm_client::Cache::open(&path).unwrap();
    cache.len().unwrap()
}

/// Where a round kills the run.
#[derive(Debug, Clone, Copy)]
enum Point {
    /// Once the mock has answered this many requests of the run.
    Requests(u64),
    /// The moment the cache file changes after this many requests: a group commit under way.
    CacheWrite(u64),
}

#[test]
fn kill_9_during_an_llm_run_then_resume_pays_nothing_twice() {
    harness(
        MockConfig {
            latency_ms: 3,
            end_after_turns: 5,
            ..Default::default()
        },
        "",
        5,
        3,
    );
}

/// The same with near-duplicates removed: every call in one cell, against a server that repeats
/// a few scripts, so that many dialogues are regenerated — the resumed run rebuilds its
/// signatures from the shards the killed one wrote and removes what an uninterrupted run removes.
#[test]
fn kill_9_while_near_duplicates_are_removed_then_resume_gives_the_same_corpus() {
    let m = harness(
        MockConfig {
            latency_ms: 3,
            end_after_turns: 6,
            reply_mode: mock_openai::ReplyMode::Repeat,
            repeat_variants: 4,
            ..Default::default()
        },
        "max_attempts = 4\n\
         [distribution]\n\
         scenarios = { taxi = 1, delivery = 0, harassment = 0, life = 0, takeout = 0, work = 0 }\n\
         preset_cases_with_regular = { regular = 0, emergent = 0, none = 1 }\n\
         [check]\nreject_kinds = []\n",
        2,
        2,
    );
    let dups = m["findings"]["natural.near_duplicate"]
        .as_u64()
        .unwrap_or(0);
    assert!(dups > 0, "{}", m["findings"]);
}

/// Runs the rounds; returns the uninterrupted run's manifest.
fn harness(
    mock_cfg: MockConfig,
    extra: &str,
    at_requests: usize,
    at_cache_writes: usize,
) -> serde_json::Value {
    let mock = MockServer::start_blocking(mock_cfg, None).unwrap();
    let url = mock.base_url();
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let before = mock.stats().ok;
    run_to_end(&whole, &url, extra);
    let uninterrupted = mock.stats().ok - before;
    let expected = snapshot(&whole);
    assert!(expected.keys().filter(|k| k.starts_with("shards/")).count() == 6);

    // Points drawn from a seeded xorshift over the run's requests (the same every time).
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut draw = |lo: u64, hi: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lo + x % (hi - lo)
    };
    let mut points: Vec<Point> = (0..at_requests)
        .map(|_| Point::Requests(draw(1, uninterrupted * 9 / 10)))
        .collect();
    points.extend((0..at_cache_writes).map(|_| Point::CacheWrite(draw(1, uninterrupted * 9 / 10))));

    let mut interrupted = 0;
    for (round, point) in points.iter().enumerate() {
        let out = dir.path().join(format!("killed-{round}"));
        let start_ok = mock.stats().ok;
        let mut child = support::spawn_in(&repo(), &args(&out, &url, extra));
        let mut last_cache = None;
        let reached = || {
            let sent = mock.stats().ok - start_ok;
            match *point {
                Point::Requests(n) => sent >= n,
                Point::CacheWrite(n) => {
                    let now = cache_state(&out);
                    let changed = sent >= n && last_cache.is_some() && now != last_cache;
                    last_cache = now;
                    changed
                }
            }
        };
        let what = format!("{point:?}");
        if support::kill_when(&mut child, &what, Duration::from_secs(120), reached) {
            interrupted += 1;
        } else {
            eprintln!("note: {point:?}: the run finished before the kill");
        }
        let paid_killed = mock.stats().ok - start_ok;
        let cached = cache_entries(&out);
        assert!(cached <= paid_killed);

        let resume_start = mock.stats().ok;
        run_to_end(&out, &url, extra);
        let paid_resume = mock.stats().ok - resume_start;
        let got = snapshot(&out);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            expected.keys().collect::<Vec<_>>(),
            "{point:?}: the same files"
        );
        for (rel, bytes) in &expected {
            assert!(
                got[rel] == *bytes,
                "{point:?}: {rel} differs from the uninterrupted run's"
            );
        }
        // Nothing in the cache is asked again: the resume asks at most what the whole run asks
        // less what the killed run left in the cache. (What the killed run was answered but had
        // not committed yet — at most the requests in flight and one commit window — is asked
        // again; that is printed.)
        assert!(
            paid_resume + cached <= uninterrupted,
            "{point:?}: resume {paid_resume} + cached {cached} > uninterrupted {uninterrupted}"
        );
        eprintln!(
            "{point:?}: killed run paid {paid_killed}, cached {cached} (answered, not committed: {}), resume paid {paid_resume}, uninterrupted {uninterrupted}",
            paid_killed - cached
        );
    }
    assert!(
        interrupted >= points.len() - 1,
        "only {interrupted} of {} rounds killed a running run",
        points.len()
    );
    serde_json::from_slice(&std::fs::read(whole.join("manifest.json")).unwrap()).unwrap()
}
