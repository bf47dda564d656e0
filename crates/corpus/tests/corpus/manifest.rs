//! The manifest.

use crate::support::{files_in, mix};
use callbench_model::{PresetCase, Relation};
use corpus::{
    CellCount, MANIFEST_FORMAT_VERSION, Manifest, ShardWriterConfig, Totals, read_manifest,
    write_manifest, write_shard,
};
use std::collections::BTreeMap;

fn manifest(out: &std::path::Path) -> Manifest {
    let shard = write_shard(out, 0, &mix(3), &ShardWriterConfig::default()).unwrap();
    Manifest {
        format_version: MANIFEST_FORMAT_VERSION,
        tool_version: "0.1.0".into(),
        created_at: "2025-01-02T03:04:05Z".into(),
        seed: 7,
        count: 3,
        fingerprint: "00c0ffee00c0ffee".into(),
        cells: vec![CellCount {
            scenario: "takeout".into(),
            preset_case: PresetCase::Regular,
            relation: Relation::Conflict,
            planned: 3,
            written: 3,
            rejected: 1,
            findings: Default::default(),
        }],
        shards: vec![shard],
        rejects: vec!["rejects/part-00000.jsonl".into()],
        totals: Totals {
            dialogues: 3,
            turns: 8,
            rejected: 1,
            failed: 0,
        },
        splits: BTreeMap::from([("train".into(), 2), ("test".into(), 1)]),
        findings: BTreeMap::from([("safety.privacy".into(), 1)]),
        config: serde_json::json!({"backend": "sim", "concurrency": 8}),
        usage: serde_json::json!({"requests": 0}),
        library_digest: "abc123".into(),
        diversity: None,
        report: Default::default(),
        steps: Vec::new(),
    }
}

#[test]
fn write_then_read_round_trips_atomically() {
    let out = tempfile::tempdir().unwrap();
    let m = manifest(out.path());
    write_manifest(out.path(), &m).unwrap();
    assert_eq!(files_in(out.path()), ["manifest.json", "shards"]);
    assert_eq!(read_manifest(out.path()).unwrap(), m);
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("manifest.json")).unwrap())
            .unwrap();
    for key in [
        "format_version",
        "tool_version",
        "created_at",
        "seed",
        "count",
        "fingerprint",
        "cells",
        "shards",
        "rejects",
        "totals",
        "splits",
        "findings",
        "config",
        "usage",
        "library_digest",
    ] {
        assert!(json.get(key).is_some(), "{key}");
    }
    assert_eq!(json["cells"][0]["preset_case"], "regular");
    assert_eq!(json["shards"][0]["file"], "shards/part-00000.parquet");
    assert!(json["shards"][0].get("rejects").is_none());
}

#[test]
fn errors_name_the_manifest() {
    let out = tempfile::tempdir().unwrap();
    let err = read_manifest(out.path()).unwrap_err().to_string();
    assert!(err.contains("manifest.json"), "{err}");
    std::fs::write(out.path().join("manifest.json"), "{\"format_version\": 1,").unwrap();
    let err = read_manifest(out.path()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}: ", out.path().join("manifest.json").display())),
        "{err}"
    );
}
