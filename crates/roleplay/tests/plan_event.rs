//! `plan.event_missing` is reported, and rejects only under `[check] uncertain = "reject"`: it
//! reads the planned event from words alone, and a caller model says its matter in words of its
//! own (on 288 real-model calls it was wrong 34 times in 36; BENCHMARKS.md).
//!
//! A scripted backend plays every call with the same four turns, which bring up no planned
//! event: each dialogue whose setup plans one gets the finding.

mod support;

use callbench_model::Speaker;
use quality_checker::{CheckConfig, KindPattern, UncertainPolicy};
use roleplay::GenerateConfig;
use std::path::Path;
use std::sync::Arc;
use support::{Scripted, library, rt};

const EVENT_MISSING: &str = "plan.event_missing";

/// Four turns that say nothing of any planned event.
fn script(setup: &roleplay::Setup<'_>) -> Vec<(Speaker, String)> {
    let title = &setup.owner_title;
    vec![
        (Speaker::Caller, format!("您好，请问是{title}吗？")),
        (
            Speaker::Assistant,
            format!("您好，我是{title}的来电助理，他现在不方便接电话，您有什么事？"),
        ),
        (Speaker::Caller, "没什么事了，再见。".into()),
        (Speaker::Assistant, "好的，再见。".into()),
    ]
}

/// Only `plan.event_missing` may reject: the script plays no goal either.
fn gen_config(out: &Path, uncertain: UncertainPolicy) -> GenerateConfig {
    GenerateConfig {
        out: out.to_path_buf(),
        count: 24,
        rows_per_shard: 50,
        concurrency: 4,
        seed: 5,
        max_attempts: 1,
        min_turns: 4,
        near_duplicate_threshold: 0.0,
        check: CheckConfig {
            reject_kinds: vec![KindPattern::try_from(EVENT_MISSING.to_string()).unwrap()],
            uncertain,
            ..Default::default()
        },
        ..Default::default()
    }
}

fn run(out: &Path, uncertain: UncertainPolicy) {
    rt().block_on(roleplay::generate_judged(
        library(),
        Arc::new(Scripted(script)),
        None,
        gen_config(out, uncertain),
        serde_json::json!({}),
        support::quiet(),
    ))
    .unwrap();
}

fn has_event_missing(d: &callbench_model::Dialogue) -> bool {
    d.qc.as_ref()
        .is_some_and(|qc| qc.violations.iter().any(|v| v.kind == EVENT_MISSING))
}

#[test]
fn an_event_missing_is_reported_not_rejecting_by_default() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), UncertainPolicy::Report);
    let written = support::shards(dir.path());
    assert_eq!(written.len(), 24, "every call is kept");
    let flagged: Vec<_> = written.iter().filter(|d| has_event_missing(d)).collect();
    assert!(
        !flagged.is_empty(),
        "some calls plan an event the script never brings up"
    );
    for d in &flagged {
        assert!(d.qc.as_ref().unwrap().passed, "{} was not passed", d.id);
    }
}

#[test]
fn an_event_missing_rejects_under_uncertain_reject() {
    let dir = tempfile::tempdir().unwrap();
    run(dir.path(), UncertainPolicy::Reject);
    let written = support::shards(dir.path());
    assert!(
        written.iter().all(|d| !has_event_missing(d)),
        "no written call misses its event"
    );
    let rejected = support::rejects(dir.path());
    assert!(
        rejected.iter().any(has_event_missing),
        "the calls that miss their event are in rejects/"
    );
}
