//! The sample written chunk by chunk: the files do not depend on the chunk size, and a draw
//! that fails part-way leaves the earlier sample whole.

use crate::support::*;
use callbench_model::Dialogue;
use inspection::{
    SAMPLE_CHUNK, SampleConfig, SampleSummary, draw_sample, draw_sample_in_chunks, inspection_dir,
};
use std::collections::HashMap;
use std::path::Path;

const STRATA: &[(Cell, usize)] = &[
    (TAKEOUT_CONFLICT, 95),
    (TAKEOUT_ALIGN, 23),
    (DELIVERY_EMERGENT, 7),
    (LIFE_NONE, 150),
    (WORK_NONE, 1),
];

fn cfg(seed: u64) -> SampleConfig {
    SampleConfig {
        rate: 0.5,
        reject_rate: 1.0,
        seed,
        replace_reviewed: false,
    }
}

/// A corpus of 276 dialogues in 4 shards, some judged with scores that JSON does not write
/// short (0.1 + 0.2, 1/3), and rejects in two files: attempts of the same id, and one line
/// written twice with a different text (the last reading counts).
fn corpus(dir: &Path) -> Vec<Dialogue> {
    let mut dialogues = make(STRATA);
    for (i, d) in dialogues.iter_mut().enumerate() {
        match i % 3 {
            0 => d.judge = Some(judge(0.1 + 0.2)),
            1 => d.judge = Some(judge(1.0 / 3.0)),
            _ => {}
        }
        d.turns[0].text = format!("<b>第 {i} 句</b> & 'x' \"y\"");
    }
    write_corpus(dir, &dialogues, 4);
    let mut first = Vec::new();
    for i in 0..30 {
        let id = format!("takeout-r{i:03}");
        first.push(rejected(&id, TAKEOUT_CONFLICT, 0, &[("safety.privacy", 1)]));
        first.push(rejected(
            &id,
            TAKEOUT_CONFLICT,
            1,
            &[("natural.closing", 3)],
        ));
    }
    let mut again = rejected("life-r000", LIFE_NONE, 0, &[("natural.meta", 2)]);
    let mut second = vec![again.clone()];
    again.turns[1].text = "the second reading".into();
    second.push(again);
    write_rejects_files(dir, &[first, second]);
    dialogues
}

/// What a draw wrote: the summary and the files, with the draw's time taken out.
#[derive(Debug, PartialEq)]
struct Drawn {
    summary: SampleSummary,
    jsonl: Vec<u8>,
    html: String,
    parquet: Vec<Dialogue>,
    parquet_bytes: Vec<u8>,
}

fn drawn(dir: &Path, mut summary: SampleSummary) -> Drawn {
    let insp = inspection_dir(dir);
    let html = std::fs::read_to_string(insp.join("sample.html"))
        .unwrap()
        .replace(&summary.created_at, "CREATED_AT");
    let json: SampleSummary =
        serde_json::from_slice(&std::fs::read(insp.join("sample.json")).unwrap()).unwrap();
    assert_eq!(json, summary, "sample.json is the returned summary");
    summary.created_at.clear();
    Drawn {
        summary,
        jsonl: std::fs::read(insp.join("sample.jsonl")).unwrap(),
        html,
        parquet: corpus::read_shard(&insp.join("sample.parquet")).unwrap(),
        parquet_bytes: std::fs::read(insp.join("sample.parquet")).unwrap(),
    }
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const SAMPLE_FILES: [&str; 4] = [
    "sample.html",
    "sample.json",
    "sample.jsonl",
    "sample.parquet",
];

#[test]
fn any_chunk_size_writes_the_same_sample() {
    let dir = tempfile::tempdir().unwrap();
    let dialogues = corpus(dir.path());
    let reference = drawn(dir.path(), draw_sample(dir.path(), &cfg(5)).unwrap());
    let n = reference.summary.ids.len();
    assert!(n > 150, "{n} sampled: enough for many chunks");
    assert!(reference.summary.rejects_sampled > 30);

    // The files hold the sampled dialogues in review order, exactly as read.
    let by_id: HashMap<&str, &Dialogue> = dialogues.iter().map(|d| (d.id.as_str(), d)).collect();
    let from_jsonl = inspection::read_sample_dialogues(dir.path()).unwrap();
    assert_eq!(from_jsonl, reference.parquet);
    for (id, d) in reference.summary.ids.iter().zip(&reference.parquet) {
        assert_eq!(&d.id, id);
        if reference.summary.entry(id).unwrap().origin == inspection::Origin::Corpus {
            assert_eq!(d, by_id[id.as_str()], "{id}: the corpus dialogue, exactly");
        }
    }
    let twice = reference
        .parquet
        .iter()
        .find(|d| d.id == "life-r000")
        .expect("every reject is sampled at rate 1");
    assert_eq!(twice.turns[1].text, "the second reading");

    // A stale staging folder of an interrupted draw is cleared.
    let staging = inspection_dir(dir.path()).join(".sample-staging");
    std::fs::create_dir_all(&staging).unwrap();
    std::fs::write(staging.join("chunk-00000.parquet"), b"junk").unwrap();

    for chunk in [0, 1, 2, 3, 7, 64, n - 1, n, SAMPLE_CHUNK] {
        let summary = draw_sample_in_chunks(dir.path(), &cfg(5), chunk).unwrap();
        let got = drawn(dir.path(), summary);
        assert_eq!(got.summary, reference.summary, "chunk {chunk}: sample.json");
        assert!(got.jsonl == reference.jsonl, "chunk {chunk}: sample.jsonl");
        assert!(got.html == reference.html, "chunk {chunk}: sample.html");
        assert!(
            got.parquet == reference.parquet,
            "chunk {chunk}: sample.parquet"
        );
        if chunk >= n {
            assert!(
                got.parquet_bytes == reference.parquet_bytes,
                "chunk {chunk}"
            );
        }
        assert_eq!(
            files_in(&inspection_dir(dir.path())),
            SAMPLE_FILES,
            "chunk {chunk}: no temp file or staging folder left"
        );
    }
}

#[test]
fn a_draw_that_fails_part_way_leaves_the_earlier_sample_whole() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let insp = inspection_dir(dir.path());
    draw_sample(dir.path(), &cfg(5)).unwrap();
    let before: Vec<Vec<u8>> = SAMPLE_FILES
        .iter()
        .map(|f| std::fs::read(insp.join(f)).unwrap())
        .collect();

    // sample.html cannot be written (its temp path is taken by a folder): the draw of another
    // seed has read the corpus, spilled its chunks and started sample.parquet and sample.jsonl
    // when it fails.
    let blocker = insp.join(".sample.html.tmp");
    std::fs::create_dir(&blocker).unwrap();
    let err = draw_sample_in_chunks(dir.path(), &cfg(6), 4).unwrap_err();
    assert!(err.to_string().contains(".sample.html.tmp"), "{err}");
    let after: Vec<Vec<u8>> = SAMPLE_FILES
        .iter()
        .map(|f| std::fs::read(insp.join(f)).unwrap())
        .collect();
    assert!(after == before, "the earlier sample is untouched");
    let mut expected: Vec<String> = SAMPLE_FILES.iter().map(|s| s.to_string()).collect();
    expected.insert(0, ".sample.html.tmp".into());
    assert_eq!(
        files_in(&insp),
        expected,
        "no partial file, no staging left"
    );

    std::fs::remove_dir(&blocker).unwrap();
    let s = draw_sample_in_chunks(dir.path(), &cfg(6), 4).unwrap();
    assert_eq!(inspection::read_sample(dir.path()).unwrap().ids, s.ids);
    assert_eq!(files_in(&insp), SAMPLE_FILES);
}
