//! The resume ledger.

use crate::support::{files_in, mix};
use corpus::{
    CorpusError, Ledger, RunHeader, ShardInfo, ShardWriterConfig, write_rejects, write_shard,
};
use std::io::Write;
use std::path::Path;

fn header() -> RunHeader {
    RunHeader {
        fingerprint: "00c0ffee00c0ffee".into(),
        seed: 7,
        count: 1000,
        rows_per_shard: 4,
        ..Default::default()
    }
}

/// Writes shard `index` (4 dialogues) and records it.
fn finish_shard(out: &Path, ledger: &mut Ledger, index: u32) -> ShardInfo {
    let dialogues = mix(4);
    let info = write_shard(out, index, &dialogues, &ShardWriterConfig::default()).unwrap();
    ledger.record(&info).unwrap();
    info
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn a_new_ledger_starts_with_the_run_header() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("output");
    let (ledger, done) = Ledger::open(&dir, header()).unwrap();
    assert!(done.is_empty());
    assert_eq!(ledger.path(), dir.join("ledger.jsonl"));
    assert_eq!(
        std::fs::read_to_string(dir.join("ledger.jsonl")).unwrap(),
        "{\"kind\":\"run\",\"fingerprint\":\"00c0ffee00c0ffee\",\"seed\":7,\"count\":1000,\"rows_per_shard\":4}\n"
    );
    assert_eq!(files_in(&dir), ["ledger.jsonl"]);
}

#[test]
fn resume_returns_exactly_the_done_shards() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    let s2 = finish_shard(out.path(), &mut ledger, 2);
    let s0 = finish_shard(out.path(), &mut ledger, 0);
    let mut s5 = finish_shard(out.path(), &mut ledger, 5);
    // Shard 5's rejects are written and the shard recorded again with them: the last record wins.
    s5.rejects = write_rejects(out.path(), 5, &mix(1)).unwrap();
    ledger.record(&s5).unwrap();
    // Shard 3 is on disk but was never recorded (crash before the append): not done.
    write_shard(out.path(), 3, &mix(4), &ShardWriterConfig::default()).unwrap();
    drop(ledger);

    let (_, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, [s0, s2, s5]);
    let text = std::fs::read_to_string(out.path().join("ledger.jsonl")).unwrap();
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with(
            r#"{"kind":"shard","file":"shards/part-00005.parquet","index":5,"rows":4,"#
        ),
        "{last}"
    );
    assert!(
        last.ends_with(r#""rejects":"rejects/part-00005.jsonl"}"#),
        "{last}"
    );
}

#[test]
fn a_torn_last_line_is_ignored_and_cut_before_appending() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    let s0 = finish_shard(out.path(), &mut ledger, 0);
    drop(ledger);
    let path = out.path().join("ledger.jsonl");
    let whole = std::fs::read(&path).unwrap();
    append(&path, br#"{"kind":"shard","file":"shards/part-00001.parq"#);

    let (mut ledger, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, std::slice::from_ref(&s0));
    assert_eq!(std::fs::read(&path).unwrap(), whole, "the torn tail is cut");
    let s1 = finish_shard(out.path(), &mut ledger, 1);
    drop(ledger);

    let (_, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, [s0, s1]);
    assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3);
}

#[test]
fn a_complete_but_garbled_last_line_is_torn_too() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    let s0 = finish_shard(out.path(), &mut ledger, 0);
    drop(ledger);
    append(&out.path().join("ledger.jsonl"), b"\0\0\0\0\n");
    let (_, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, [s0]);
}

#[test]
fn a_torn_header_starts_the_run_afresh() {
    let out = tempfile::tempdir().unwrap();
    std::fs::write(out.path().join("ledger.jsonl"), br#"{"kind":"run","finger"#).unwrap();
    let (_, done) = Ledger::open(out.path(), header()).unwrap();
    assert!(done.is_empty());
    let text = std::fs::read_to_string(out.path().join("ledger.jsonl")).unwrap();
    assert!(
        text.starts_with(r#"{"kind":"run","fingerprint":"00c0ffee00c0ffee""#)
            && text.ends_with("}\n")
    );
}

#[test]
fn a_different_run_is_refused_and_nothing_is_touched() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("output");
    let (mut ledger, _) = Ledger::open(&dir, header()).unwrap();
    finish_shard(&dir, &mut ledger, 0);
    drop(ledger);
    let path = dir.join("ledger.jsonl");
    append(&path, b"{\"kind\":\"sh"); // a torn line, which must not be cut either
    std::fs::write(dir.join("shards/.part-00001.parquet.tmp"), b"half").unwrap();
    let before = std::fs::read(&path).unwrap();

    for other in [
        RunHeader {
            fingerprint: "ffffffffffffffff".into(),
            ..header()
        },
        RunHeader {
            seed: 8,
            ..header()
        },
        RunHeader {
            count: 999,
            ..header()
        },
        RunHeader {
            rows_per_shard: 5,
            ..header()
        },
    ] {
        let err = Ledger::open(&dir, other).unwrap_err();
        assert!(matches!(err, CorpusError::DifferentRun { .. }), "{err}");
        let msg = err.to_string();
        assert!(
            msg.starts_with(&format!(
                "{}/ holds a different run (seed 7, count 1000,",
                dir.display()
            )),
            "{msg}"
        );
        assert!(msg.ends_with("use another --out or delete it"), "{msg}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(
        files_in(&dir.join("shards")),
        [".part-00001.parquet.tmp", "part-00000.parquet"]
    );
}

#[test]
fn a_corrupted_or_missing_shard_is_not_done() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    let s0 = finish_shard(out.path(), &mut ledger, 0);
    let s1 = finish_shard(out.path(), &mut ledger, 1);
    let s2 = finish_shard(out.path(), &mut ledger, 2);
    let mut s3 = finish_shard(out.path(), &mut ledger, 3);
    s3.rejects = Some("rejects/part-00003.jsonl".into()); // recorded, but the file is not there
    ledger.record(&s3).unwrap();
    drop(ledger);

    // Same size, one byte changed: only the sha256 tells.
    let p1 = out.path().join(&s1.file);
    let mut bytes = std::fs::read(&p1).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&p1, bytes).unwrap();
    std::fs::remove_file(out.path().join(&s2.file)).unwrap();

    let (mut ledger, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, std::slice::from_ref(&s0));

    // Regenerated and recorded again, shard 1 counts.
    let s1 = finish_shard(out.path(), &mut ledger, 1);
    drop(ledger);
    let (_, done) = Ledger::open(out.path(), header()).unwrap();
    assert_eq!(done, [s0, s1]);
}

#[test]
fn leftover_temp_files_are_deleted_on_open() {
    let out = tempfile::tempdir().unwrap();
    let (ledger, _) = Ledger::open(out.path(), header()).unwrap();
    drop(ledger);
    std::fs::create_dir_all(out.path().join("shards")).unwrap();
    std::fs::create_dir_all(out.path().join("rejects")).unwrap();
    std::fs::write(out.path().join("shards/.part-00004.parquet.tmp"), b"x").unwrap();
    std::fs::write(out.path().join("shards/keep.parquet"), b"x").unwrap();
    std::fs::write(out.path().join("rejects/.part-00004.jsonl.tmp"), b"x").unwrap();
    std::fs::write(out.path().join(".manifest.json.tmp"), b"x").unwrap();
    std::fs::write(out.path().join("notes.tmp"), b"not ours").unwrap();
    Ledger::open(out.path(), header()).unwrap();
    assert_eq!(files_in(&out.path().join("shards")), ["keep.parquet"]);
    assert!(files_in(&out.path().join("rejects")).is_empty());
    assert_eq!(
        files_in(out.path()),
        ["ledger.jsonl", "notes.tmp", "rejects", "shards"]
    );
}

#[test]
fn a_damaged_middle_line_is_an_error_naming_it() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    finish_shard(out.path(), &mut ledger, 0);
    drop(ledger);
    let path = out.path().join("ledger.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    let last = lines.pop().unwrap().to_string();
    lines.push("not json");
    lines.push(&last);
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let err = Ledger::open(out.path(), header()).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}:2: not a ledger line", path.display())),
        "{err}"
    );
}

/// A corpus that grows: a second header opens the next step; the earlier step's shards stay
/// done, the new step's are recorded after it, and a shard line that `replaces` an earlier one
/// takes its place (its files deleted) in one line.
#[test]
fn a_next_step_keeps_the_earlier_shards_and_a_replacement_takes_a_shards_place() {
    let out = tempfile::tempdir().unwrap();
    let (mut ledger, _) = Ledger::open(out.path(), header()).unwrap();
    let s0 = finish_shard(out.path(), &mut ledger, 0);
    finish_shard(out.path(), &mut ledger, 1);
    drop(ledger);
    let next = RunHeader {
        count: 2000,
        step: 1,
        first_shard: 2,
        ..header()
    };
    // Not the same run: `open` refuses, `open_next_step` appends the step.
    assert!(Ledger::open(out.path(), next.clone()).is_err());
    let (mut ledger, done) = Ledger::open_next_step(out.path(), next.clone()).unwrap();
    assert_eq!(done.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1]);
    finish_shard(out.path(), &mut ledger, 2);
    let mut replacement = finish_shard(out.path(), &mut ledger, 3);
    replacement.replaces = vec![0];
    ledger.record(&replacement).unwrap();
    drop(ledger);

    let history = Ledger::history(out.path()).unwrap().unwrap();
    assert_eq!(history.steps, [header(), next.clone()]);
    assert_eq!(
        history.done.iter().map(|s| s.index).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    // Reopened as the same step: the replaced shard's file is gone, the rest is done.
    let (_, done) = Ledger::open(out.path(), next).unwrap();
    assert_eq!(done.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 2, 3]);
    assert!(!out.path().join(&s0.file).exists());
}
