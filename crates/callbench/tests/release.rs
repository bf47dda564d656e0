//! `callbench release` as a user runs it: a release of a small corpus with auditors' verdicts —
//! the card's YAML, the counts, the left-out ids, the checksums, the same bytes twice — and bad
//! input refused with nothing written.

mod support;

use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{callbench, fails_with, json, repo, stderr};

/// A 300-dialogue corpus in 3 shards, with its inspection sample.
fn corpus(dir: &Path) -> PathBuf {
    let out = dir.join("corpus");
    let o = callbench(&[
        "generate",
        "--count",
        "300",
        "--rows-per-shard",
        "100",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

/// Ids and splits of every dialogue of the corpus's shards (the `split` column is in `stats`
/// of each shard only as counts, so read them with `export`).
fn corpus_rows(corpus: &Path) -> Vec<(String, String, String)> {
    let o = callbench(&[
        "export",
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "jsonl",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let cell = format!(
                "{}/{}/{}",
                v["scenario"].as_str().unwrap(),
                v["preset_case"].as_str().unwrap(),
                v["relation"].as_str().unwrap()
            );
            (
                v["id"].as_str().unwrap().to_string(),
                v["split"].as_str().unwrap().to_string(),
                cell,
            )
        })
        .collect()
}

fn verdict(auditor: &str, id: &str, decision: &str, kinds: &[&str]) -> String {
    let findings: Vec<_> = kinds
        .iter()
        .map(|k| serde_json::json!({"kind": k, "turn": 1}))
        .collect();
    serde_json::json!({"auditor": auditor, "id": id, "verdict": decision, "findings": findings,
        "ratings": {}, "note": "", "at": "2026-01-01T00:00:00Z"})
    .to_string()
}

/// The card's front matter as (indentation, text) lines between the `---` fences.
fn front_matter(card: &str) -> Vec<String> {
    let mut lines = card.lines();
    assert_eq!(
        lines.next(),
        Some("---"),
        "the card opens with YAML front matter"
    );
    let fm: Vec<String> = lines
        .by_ref()
        .take_while(|l| *l != "---")
        .map(String::from)
        .collect();
    assert!(
        card.lines().filter(|l| *l == "---").count() >= 2,
        "the front matter is closed"
    );
    fm
}

/// The value list under a top-level key (`key:` followed by `- item` lines).
fn yaml_list(fm: &[String], key: &str) -> Vec<String> {
    let at = fm
        .iter()
        .position(|l| l == &format!("{key}:"))
        .unwrap_or_else(|| panic!("no `{key}:` in {fm:?}"));
    fm[at + 1..]
        .iter()
        .take_while(|l| l.starts_with("- "))
        .map(|l| l[2..].to_string())
        .collect()
}

#[test]
fn a_release_leaves_out_rejections_and_checks_out() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let sample = json(&corpus.join("inspection/sample.json"));
    let entries = sample["dialogues"].as_array().unwrap();
    let of = |origin: &str| -> Vec<String> {
        entries
            .iter()
            .filter(|e| e["origin"] == origin)
            .map(|e| e["id"].as_str().unwrap().to_string())
            .collect()
    };
    let sampled = of("corpus");
    let rejects = of("rejects");
    assert!(sampled.len() >= 4, "a sample to review");
    let (x, y, z, w) = (&sampled[0], &sampled[1], &sampled[2], &sampled[3]);
    // x: one auditor rejects (privacy), another accepts → left out under `any`, kept under
    // `majority`. y: rejected, then the same auditor changes their mind → kept. z: rejected
    // without a finding → left out as `unspecified`. w: accepted by all → kept.
    let mut lines = vec![
        verdict("ana", x, "reject", &["safety.privacy"]),
        verdict("bo", x, "accept", &[]),
        verdict("ana", y, "reject", &["natural.repetition"]),
        verdict("ana", y, "accept", &[]),
        verdict("bo", z, "reject", &[]),
        verdict("ana", w, "accept", &[]),
        verdict("bo", w, "accept", &[]),
    ];
    if let Some(r) = rejects.first() {
        // A verdict on a sampled reject is not an unknown id.
        lines.push(verdict("bo", r, "reject", &["safety.decision"]));
    }
    std::fs::write(
        corpus.join("inspection/verdicts.jsonl"),
        lines.join("\n") + "\n",
    )
    .unwrap();

    let rel = dir.path().join("rel");
    let o = callbench(&[
        "release",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        rel.to_str().unwrap(),
        "--rows-per-file",
        "100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));

    // Counts: every corpus dialogue but x and z, once, in its own split's files.
    let rows = corpus_rows(&corpus);
    assert_eq!(rows.len(), 300);
    let stats = json(&rel.join("stats.json"));
    let left: BTreeSet<&str> = stats["left_out"]["ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap())
        .collect();
    assert_eq!(left, BTreeSet::from([x.as_str(), z.as_str()]));
    assert_eq!(stats["left_out"]["dialogues"], 2);
    assert_eq!(
        stats["left_out"]["by_reason"],
        serde_json::json!({"safety.privacy": 1, "unspecified": 1})
    );
    assert_eq!(stats["dialogues"], 298);
    let mut want_splits: BTreeMap<String, u64> = BTreeMap::new();
    let mut want_cells: BTreeMap<String, u64> = BTreeMap::new();
    for (id, split, cell) in &rows {
        if !left.contains(id.as_str()) {
            *want_splits.entry(split.clone()).or_default() += 1;
            *want_cells.entry(cell.clone()).or_default() += 1;
        }
    }
    assert_eq!(stats["splits"], serde_json::to_value(&want_splits).unwrap());
    let got_cells: BTreeMap<String, u64> = stats["cells"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["dialogues"].as_u64().unwrap() > 0)
        .map(|c| {
            (
                format!(
                    "{}/{}/{}",
                    c["scenario"].as_str().unwrap(),
                    c["preset_case"].as_str().unwrap(),
                    c["relation"].as_str().unwrap()
                ),
                c["dialogues"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(got_cells, want_cells);
    // The data files: `<split>-NNNNN-of-NNNNN.parquet`, at most 100 rows each, every released
    // id once, in its split.
    let mut seen = BTreeSet::new();
    let files = stats["files"].as_array().unwrap();
    for f in files {
        let path = f["path"].as_str().unwrap();
        let split = f["split"].as_str().unwrap();
        let n = files.iter().filter(|g| g["split"] == split).count();
        assert!(
            path.starts_with(&format!("data/{split}-"))
                && path.ends_with(&format!("-of-{n:05}.parquet")),
            "{path}"
        );
        assert!(f["rows"].as_u64().unwrap() <= 100);
        for batch in corpus::ShardReader::open(&rel.join(path)).unwrap() {
            for d in batch.unwrap() {
                assert_eq!(d.split.unwrap().as_str(), split);
                assert!(seen.insert(d.id.clone()), "{} twice", d.id);
            }
        }
    }
    assert_eq!(seen.len(), 298);
    assert!(!seen.contains(x) && !seen.contains(z) && seen.contains(y) && seen.contains(w));
    // The auditors' figures are there (two auditors, x reviewed by both).
    assert_eq!(stats["audit"]["auditors"], serde_json::json!(["ana", "bo"]));

    // The card's YAML.
    let card = std::fs::read_to_string(rel.join("README.md")).unwrap();
    let fm = front_matter(&card);
    assert!(fm.contains(&"license: apache-2.0".to_string()), "{fm:?}");
    assert!(fm.contains(&"pretty_name: CallBench".to_string()), "{fm:?}");
    assert_eq!(yaml_list(&fm, "language"), ["zh"]);
    assert_eq!(yaml_list(&fm, "size_categories"), ["n<1K"]);
    assert!(!yaml_list(&fm, "task_categories").is_empty());
    let at = fm.iter().position(|l| l == "configs:").expect("configs");
    assert_eq!(fm[at + 1], "- config_name: default");
    assert_eq!(fm[at + 2], "  data_files:");
    let mut declared = Vec::new();
    for pair in fm[at + 3..].chunks(2) {
        let split = pair[0].strip_prefix("  - split: ").expect("a split entry");
        let path = pair[1].strip_prefix("    path: ").expect("its path");
        assert_eq!(path, format!("data/{split}-*.parquet"));
        declared.push(split.to_string());
    }
    let with_files: BTreeSet<String> = files
        .iter()
        .map(|f| f["split"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        declared.iter().cloned().collect::<BTreeSet<_>>(),
        with_files
    );
    assert_eq!(
        declared,
        ["train", "validation", "test"]
            .iter()
            .filter(|s| with_files.contains(**s))
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    );
    // The body's numbers are the data's.
    assert!(card.contains("298 dialogues"), "{card}");
    assert!(card.contains("figures/cells.svg") && card.contains("`safety.privacy` 1"));

    // Checksums: every other file, right hashes, `sha256sum -c` format.
    let all = support::file_bytes(&rel);
    let sums = String::from_utf8(all["checksums.sha256"].clone()).unwrap();
    let listed: BTreeMap<String, String> = sums
        .lines()
        .map(|l| {
            let (h, p) = l.split_once("  ").expect("HASH  PATH");
            (p.to_string(), h.to_string())
        })
        .collect();
    let others: BTreeSet<&String> = all.keys().filter(|k| *k != "checksums.sha256").collect();
    assert_eq!(listed.keys().collect::<BTreeSet<_>>(), others);
    for (p, h) in &listed {
        assert_eq!(&hex::encode(Sha256::digest(&all[p])), h, "{p}");
    }
    assert!(
        others
            .iter()
            .any(|p| p.starts_with("figures/") && p.ends_with(".svg"))
    );
    if let Ok(o) = Command::new("sha256sum")
        .args(["-c", "--quiet", "checksums.sha256"])
        .current_dir(&rel)
        .output()
    {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stdout));
    }

    // Same corpus and verdicts, same bytes.
    let rel2 = dir.path().join("rel2");
    let o = callbench(&[
        "release",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        rel2.to_str().unwrap(),
        "--rows-per-file",
        "100",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(support::file_bytes(&rel2), all);

    // Under `majority`, x (one of two rejects) stays; z (its only auditor rejects) goes.
    let rel3 = dir.path().join("rel3");
    let o = callbench(&[
        "release",
        "--corpus",
        corpus.to_str().unwrap(),
        "--out",
        rel3.to_str().unwrap(),
        "--leave-out",
        "majority",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let s3 = json(&rel3.join("stats.json"));
    assert_eq!(s3["left_out"]["ids"][0]["id"], z.as_str());
    assert_eq!(s3["dialogues"], 299);

    // The Python readers: datasets.load_dataset, pyarrow, DuckDB, polars.
    python_readers(&rel);
}

/// `scripts/read_release.py`: `datasets.load_dataset(REL)` and the three Parquet readers agree
/// with stats.json. CI installs them (.ci/run); elsewhere a missing one skips.
fn python_readers(rel: &Path) {
    if support::python_has("datasets, pyarrow, duckdb, polars") {
        support::python_succeeds(&repo().join("scripts/read_release.py"), rel);
    }
}

#[test]
fn bad_input_is_refused_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus(dir.path());
    let c = corpus.to_str().unwrap();
    let leftovers = |d: &Path| -> Vec<String> {
        std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.contains("release-tmp"))
            .collect()
    };

    // A folder that is not empty is left as it was.
    let busy = dir.path().join("busy");
    std::fs::create_dir(&busy).unwrap();
    std::fs::write(busy.join("keep.txt"), "mine").unwrap();
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", busy.to_str().unwrap()]),
        &["busy", "not empty"],
    );
    assert_eq!(
        std::fs::read_to_string(busy.join("keep.txt")).unwrap(),
        "mine"
    );
    assert_eq!(std::fs::read_dir(&busy).unwrap().count(), 1);

    // An empty folder is fine.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let o = callbench(&["release", "--corpus", c, "--out", empty.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(empty.join("checksums.sha256").exists());

    // Verdicts on an id the corpus does not hold.
    let verdicts = corpus.join("inspection/verdicts.jsonl");
    std::fs::write(
        &verdicts,
        verdict("ana", "takeout-999999", "reject", &[]) + "\n",
    )
    .unwrap();
    let rel = dir.path().join("rel");
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", rel.to_str().unwrap()]),
        &["verdicts.jsonl", "takeout-999999", "not in the corpus"],
    );
    assert!(!rel.exists());
    assert!(
        leftovers(dir.path()).is_empty(),
        "{:?}",
        leftovers(dir.path())
    );
    std::fs::remove_file(&verdicts).unwrap();

    // A corpus still being generated: the ledger records a shard the manifest does not list
    // (as between a shard written and the manifest rewritten), or no manifest yet.
    let manifest = std::fs::read(corpus.join("manifest.json")).unwrap();
    let mut m: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    m["shards"].as_array_mut().unwrap().pop();
    std::fs::write(
        corpus.join("manifest.json"),
        serde_json::to_vec(&m).unwrap(),
    )
    .unwrap();
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", rel.to_str().unwrap()]),
        &["unfinished"],
    );
    assert!(!rel.exists());
    std::fs::remove_file(corpus.join("manifest.json")).unwrap();
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", rel.to_str().unwrap()]),
        &["no manifest.json", "generate"],
    );
    assert!(!rel.exists());
    std::fs::write(corpus.join("manifest.json"), &manifest).unwrap();
    // A stopped run's manifest.
    let mut m: serde_json::Value = serde_json::from_slice(&manifest).unwrap();
    m["report"]["stopped"] = "the endpoint kept failing".into();
    std::fs::write(
        corpus.join("manifest.json"),
        serde_json::to_vec(&m).unwrap(),
    )
    .unwrap();
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", rel.to_str().unwrap()]),
        &["stopped", "resume"],
    );
    std::fs::write(corpus.join("manifest.json"), &manifest).unwrap();
    // A shard changed since the manifest.
    let shard = corpus.join("shards/part-00001.parquet");
    let bytes = std::fs::read(&shard).unwrap();
    std::fs::write(&shard, &bytes[..bytes.len() / 2]).unwrap();
    fails_with(
        &callbench(&["release", "--corpus", c, "--out", rel.to_str().unwrap()]),
        &["part-00001.parquet"],
    );
    assert!(!rel.exists());
    // Without --out.
    fails_with(&callbench(&["release", "--corpus", c]), &["--out"]);
    assert!(leftovers(dir.path()).is_empty());
}
