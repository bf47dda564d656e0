//! Parquet shards and rejects files.

use crate::support::{files_in, full, generated, minimal, mix};
use corpus::{
    AtomicFile, COLUMNS, ShardReader, ShardStreamWriter, ShardWriterConfig, read_jsonl, read_shard,
    sha256_file, write_atomic, write_rejects, write_shard,
};
use parquet::basic::Compression;
use parquet::file::reader::{FileReader, SerializedFileReader};
use std::fs::File;
use std::io::Write;

#[test]
fn write_then_read_round_trips_and_reports_the_shard() {
    let out = tempfile::tempdir().unwrap();
    let dialogues = mix(25);
    let info = write_shard(out.path(), 3, &dialogues, &ShardWriterConfig::default()).unwrap();
    let path = out.path().join("shards/part-00003.parquet");
    assert_eq!(info.file, "shards/part-00003.parquet");
    assert_eq!(info.index, 3);
    assert_eq!(info.rows, 25);
    assert_eq!(info.bytes, std::fs::metadata(&path).unwrap().len());
    assert_eq!(info.sha256, sha256_file(&path).unwrap());
    assert_eq!(info.sha256.len(), 64);
    assert_eq!(info.first_id, "takeout-000000");
    assert_eq!(info.last_id, "takeout-000024");
    assert_eq!(info.rejects, None);
    assert_eq!(read_shard(&path).unwrap(), dialogues);
}

#[test]
fn atomic_write_leaves_no_temp_file() {
    let out = tempfile::tempdir().unwrap();
    write_shard(out.path(), 0, &mix(5), &ShardWriterConfig::default()).unwrap();
    // Replacing a shard goes through a temp file too, and leaves only the new file.
    let info = write_shard(
        out.path(),
        0,
        &[full("takeout-000009")],
        &ShardWriterConfig::default(),
    )
    .unwrap();
    assert_eq!(files_in(&out.path().join("shards")), ["part-00000.parquet"]);
    assert_eq!(files_in(out.path()), ["shards"]);
    assert_eq!(info.rows, 1);
    assert_eq!(
        read_shard(&out.path().join(&info.file)).unwrap(),
        [full("takeout-000009")]
    );
}

#[test]
fn the_parquet_file_has_the_contracts_columns() {
    let out = tempfile::tempdir().unwrap();
    let info = write_shard(out.path(), 1, &mix(6), &ShardWriterConfig::default()).unwrap();
    let reader =
        SerializedFileReader::new(File::open(out.path().join(&info.file)).unwrap()).unwrap();
    let meta = reader.metadata();
    let root = meta.file_metadata().schema_descr().root_schema();
    let names: Vec<&str> = root.get_fields().iter().map(|f| f.name()).collect();
    assert_eq!(names, COLUMNS);
    // Leaf columns by their dotted path, as DuckDB and pyarrow flatten them.
    let leaves: Vec<String> = meta
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.path().string())
        .collect();
    for want in [
        "owner.presets.list.item.trigger",
        "turns.list.item.idx",
        "turns.list.item.speaker",
        "turns.list.item.text",
        "turns.list.item.action",
        "turns.list.item.preset_id",
        "qc.passed",
        "qc.violations.list.item.kind",
        "gen.backend",
        "gen.models.list.item.key",
        "gen.seed",
        "gen.versions.list.item.value",
        "judge.model",
        "judge.turns.list.item.turn",
        "judge.turns.list.item.safety",
        "judge.turns.list.item.reason",
    ] {
        assert!(leaves.iter().any(|l| l == want), "{want} not in {leaves:?}");
    }
    let rg = meta.row_group(0);
    assert!(
        rg.columns()
            .iter()
            .all(|c| matches!(c.compression(), Compression::ZSTD(_)))
    );
    assert_eq!(meta.file_metadata().num_rows(), 6);
}

#[test]
fn row_groups_hold_at_most_row_group_size_rows() {
    let out = tempfile::tempdir().unwrap();
    let cfg = ShardWriterConfig {
        compression_level: 9,
        row_group_size: 10,
    };
    let info = write_shard(out.path(), 0, &mix(25), &cfg).unwrap();
    let reader =
        SerializedFileReader::new(File::open(out.path().join(&info.file)).unwrap()).unwrap();
    let rows: Vec<i64> = reader
        .metadata()
        .row_groups()
        .iter()
        .map(|g| g.num_rows())
        .collect();
    assert_eq!(rows, [10, 10, 5]);
    assert_eq!(read_shard(&out.path().join(&info.file)).unwrap(), mix(25));
}

#[test]
fn a_bad_compression_level_names_the_file() {
    let out = tempfile::tempdir().unwrap();
    let cfg = ShardWriterConfig {
        compression_level: 99,
        ..ShardWriterConfig::default()
    };
    let err = write_shard(out.path(), 0, &mix(1), &cfg)
        .unwrap_err()
        .to_string();
    assert!(err.contains("part-00000.parquet"), "{err}");
    assert!(files_in(&out.path().join("shards")).is_empty());
}

#[test]
fn streaming_reader_yields_every_batch() {
    let out = tempfile::tempdir().unwrap();
    let dialogues = mix(20);
    let info = write_shard(out.path(), 0, &dialogues, &ShardWriterConfig::default()).unwrap();
    let reader = ShardReader::with_batch_size(&out.path().join(&info.file), 7).unwrap();
    assert_eq!(reader.rows(), 20);
    let chunks: Vec<Vec<_>> = reader.map(Result::unwrap).collect();
    assert_eq!(chunks.iter().map(Vec::len).collect::<Vec<_>>(), [7, 7, 6]);
    assert_eq!(chunks.concat(), dialogues);
}

#[test]
// Speed is measured by scripts/bench_generate.sh (BENCHMARKS.md), not asserted here.
fn fifty_thousand_dialogues_in_one_shard() {
    let out = tempfile::tempdir().unwrap();
    let dialogues: Vec<_> = (0..50_000).map(|i| generated(i, 12)).collect();
    let info = write_shard(out.path(), 0, &dialogues, &ShardWriterConfig::default()).unwrap();
    assert_eq!(info.rows, 50_000);
    assert_eq!(read_shard(&out.path().join(&info.file)).unwrap(), dialogues);
}

#[test]
fn reading_a_broken_file_names_it() {
    let out = tempfile::tempdir().unwrap();
    let path = out.path().join("part-00000.parquet");
    std::fs::write(&path, b"PAR1 not really").unwrap();
    let err = read_shard(&path).unwrap_err().to_string();
    assert!(err.starts_with(&format!("{}: ", path.display())), "{err}");
    let missing = out.path().join("nope.parquet");
    let err = read_shard(&missing).unwrap_err().to_string();
    assert!(
        err.starts_with(&format!("{}: ", missing.display())),
        "{err}"
    );
}

#[test]
fn rejects_are_written_as_interchange_json_with_violations() {
    let out = tempfile::tempdir().unwrap();
    assert_eq!(write_rejects(out.path(), 2, &[]).unwrap(), None);
    assert!(!out.path().join("rejects").exists());

    let rejects = vec![full("takeout-000004"), minimal("life-000009")];
    let file = write_rejects(out.path(), 2, &rejects).unwrap().unwrap();
    assert_eq!(file, "rejects/part-00002.jsonl");
    assert_eq!(files_in(&out.path().join("rejects")), ["part-00002.jsonl"]);
    let text = std::fs::read_to_string(out.path().join(&file)).unwrap();
    assert_eq!(text.lines().count(), 2);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains(r#""violations":[{"kind":"safety.privacy","turn":3"#)
    );
    let back: Vec<_> = read_jsonl(&out.path().join(&file))
        .unwrap()
        .map(|(_, d)| d.unwrap())
        .collect();
    assert_eq!(back, rejects);

    // A later attempt at the shard with no rejects removes the stale file.
    assert_eq!(write_rejects(out.path(), 2, &[]).unwrap(), None);
    assert!(files_in(&out.path().join("rejects")).is_empty());
}

/// A shard written before the `judge` column existed opens, with no judge.
#[test]
fn an_older_shard_without_judge_reads_as_none() {
    let out = tempfile::tempdir().unwrap();
    let dialogues = mix(9);
    let batch = corpus::dialogues_to_batch(&dialogues).unwrap();
    let judge = batch.schema().index_of("judge").unwrap();
    let keep: Vec<usize> = (0..batch.num_columns()).filter(|&i| i != judge).collect();
    let old = batch.project(&keep).unwrap();
    let path = out.path().join("old.parquet");
    let mut w =
        parquet::arrow::ArrowWriter::try_new(File::create(&path).unwrap(), old.schema(), None)
            .unwrap();
    w.write(&old).unwrap();
    w.close().unwrap();
    let back = read_shard(&path).unwrap();
    assert_eq!(back.len(), 9);
    for (b, mut d) in back.into_iter().zip(dialogues) {
        assert!(b.judge.is_none());
        d.judge = None;
        assert_eq!(b, d);
    }
}

#[test]
fn stream_writer_in_row_group_chunks_writes_the_bytes_of_write_shard() {
    let out = tempfile::tempdir().unwrap();
    let dialogues: Vec<_> = (0..95).map(|i| generated(i, 7)).collect();
    let cfg = ShardWriterConfig {
        compression_level: 3,
        row_group_size: 16,
    };
    let info = write_shard(out.path(), 0, &dialogues, &cfg).unwrap();
    let dest = out.path().join("streamed.parquet");
    let mut w = ShardStreamWriter::create(&dest, &cfg).unwrap();
    assert_eq!(w.path(), dest);
    for chunk in dialogues.chunks(16) {
        w.write(chunk).unwrap();
    }
    w.write(&[]).unwrap();
    assert_eq!(w.rows(), 95);
    let streamed = w.finish().unwrap();
    assert_eq!(
        std::fs::read(&dest).unwrap(),
        std::fs::read(out.path().join(&info.file)).unwrap()
    );
    assert_eq!(streamed.rows, 95);
    assert_eq!(streamed.bytes, info.bytes);
    assert_eq!(streamed.sha256, info.sha256);
    assert_eq!(streamed.first_id, "delivery-000000");
    assert_eq!(streamed.last_id, "delivery-000094");
}

#[test]
fn stream_writer_in_any_chunks_holds_the_same_rows_and_row_groups() {
    let out = tempfile::tempdir().unwrap();
    let dialogues = mix(40);
    let cfg = ShardWriterConfig {
        compression_level: 3,
        row_group_size: 16,
    };
    for chunk_size in [1, 3, 7, 16, 40] {
        let dest = out.path().join(format!("s-{chunk_size}.parquet"));
        let mut w = ShardStreamWriter::create(&dest, &cfg).unwrap();
        for chunk in dialogues.chunks(chunk_size) {
            w.write(chunk).unwrap();
        }
        let streamed = w.finish().unwrap();
        assert_eq!(streamed.sha256, sha256_file(&dest).unwrap());
        assert_eq!(
            read_shard(&dest).unwrap(),
            dialogues,
            "chunks of {chunk_size}"
        );
        let reader = SerializedFileReader::new(File::open(&dest).unwrap()).unwrap();
        let rows: Vec<i64> = reader
            .metadata()
            .row_groups()
            .iter()
            .map(|g| g.num_rows())
            .collect();
        assert_eq!(rows, [16, 16, 8], "chunks of {chunk_size}");
    }
}

#[test]
fn an_unfinished_stream_leaves_the_old_file_and_no_temp_file() {
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("sample.parquet");
    // No file before: none after.
    let mut w = ShardStreamWriter::create(&dest, &ShardWriterConfig::default()).unwrap();
    w.write(&mix(30)).unwrap();
    assert_eq!(files_in(out.path()), [".sample.parquet.tmp"]);
    drop(w);
    assert!(files_in(out.path()).is_empty());

    // An old file stays whole when a new one is abandoned half-way.
    let mut w = ShardStreamWriter::create(&dest, &ShardWriterConfig::default()).unwrap();
    w.write(&mix(3)).unwrap();
    w.finish().unwrap();
    let old = std::fs::read(&dest).unwrap();
    let cfg = ShardWriterConfig {
        compression_level: 3,
        row_group_size: 4,
    };
    let mut w = ShardStreamWriter::create(&dest, &cfg).unwrap();
    w.write(&mix(30)).unwrap(); // several row groups already on disk, in the temp file
    drop(w);
    assert_eq!(std::fs::read(&dest).unwrap(), old);
    assert_eq!(files_in(out.path()), ["sample.parquet"]);
    assert_eq!(read_shard(&dest).unwrap(), mix(3));
}

#[test]
fn atomic_file_appears_whole_on_commit_only() {
    let out = tempfile::tempdir().unwrap();
    let dest = out.path().join("sub/page.html");
    let mut f = AtomicFile::create(&dest).unwrap();
    assert_eq!(f.path(), dest);
    f.write_all(b"<p>").unwrap();
    f.write_all(&vec![b'x'; 200_000]).unwrap();
    assert!(!dest.exists());
    assert!(f.temp_path().exists());
    drop(f);
    assert!(files_in(&out.path().join("sub")).is_empty());

    write_atomic(&dest, b"old").unwrap();
    let mut f = AtomicFile::create(&dest).unwrap();
    f.write_all(b"new").unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), b"old");
    f.commit().unwrap();
    assert_eq!(std::fs::read(&dest).unwrap(), b"new");
    assert_eq!(files_in(&out.path().join("sub")), ["page.html"]);
}
