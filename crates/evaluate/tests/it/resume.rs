//! An interrupted run resumed gives the rows — and the results but for `created_at` — of an
//! uninterrupted one.

use crate::support::{config, reference, run, test_split};
use evaluate::{Mode, RulesJudge};
use std::io::Write;

fn outputs(dir: &std::path::Path, rows: Vec<corpus::EvalTurn>) -> (serde_json::Value, Vec<u8>) {
    let cfg = config(dir, Mode::Turn);
    let info = evaluate::RunInfo {
        split: "test".into(),
        split_dialogues: 1,
        selected_dialogues: 1,
        corpus: "c".into(),
        corpus_fingerprint: "f".into(),
        library_digest: "l".into(),
        judge: evaluate::results::JudgeInfo {
            name: "rules".into(),
            fingerprint: "x".into(),
            model: None,
        },
    };
    let runs = vec![evaluate::MethodRun {
        name: "reference".into(),
        fingerprint: "fp".into(),
        models: Default::default(),
        rows,
    }];
    let results = evaluate::results::results(&cfg, &info, &runs);
    evaluate::write_outputs(dir, &results, &runs).unwrap();
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    json.as_object_mut().unwrap().remove("created_at");
    (json, std::fs::read(dir.join("turns.parquet")).unwrap())
}

#[test]
fn a_torn_progress_file_resumes_to_the_same_results() {
    let dialogues = test_split();
    let whole_dir = tempfile::tempdir().unwrap();
    let cfg = config(whole_dir.path(), Mode::Turn);
    let whole = run(&cfg, dialogues.clone(), reference(&dialogues), RulesJudge);

    // A run killed after 7 tasks, in the middle of writing the 8th line.
    let cut_dir = tempfile::tempdir().unwrap();
    let progress = evaluate::harness::progress_path(whole_dir.path(), "reference");
    let text = std::fs::read_to_string(&progress).unwrap();
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    assert_eq!(
        lines.len(),
        dialogues.len() + 1,
        "a header and a line per dialogue"
    );
    let cut = evaluate::harness::progress_path(cut_dir.path(), "reference");
    std::fs::create_dir_all(cut.parent().unwrap()).unwrap();
    let mut f = std::fs::File::create(&cut).unwrap();
    for l in &lines[..8] {
        f.write_all(l.as_bytes()).unwrap();
    }
    f.write_all(&lines[8].as_bytes()[..lines[8].len() / 2])
        .unwrap();
    drop(f);

    let cfg = config(cut_dir.path(), Mode::Turn);
    let resumed = run(&cfg, dialogues.clone(), reference(&dialogues), RulesJudge);
    assert_eq!(resumed, whole);
    assert_eq!(
        std::fs::read_to_string(&cut).unwrap(),
        text,
        "the progress file heals"
    );
    // A finished run reruns for free and identically.
    let again = run(&cfg, dialogues.clone(), reference(&dialogues), RulesJudge);
    assert_eq!(again, whole);

    let (a_json, a_parquet) = outputs(whole_dir.path(), whole);
    let (b_json, b_parquet) = outputs(cut_dir.path(), resumed);
    assert_eq!(a_json, b_json);
    assert_eq!(a_parquet, b_parquet);
}

#[test]
fn generated_text_is_escaped_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), Mode::Turn);
    let evil = "<script>alert(1)</script>|x";
    let mut row = corpus::EvalTurn {
        dialogue_id: "d1".into(),
        method: evil.into(),
        relation: "<img src=x onerror=alert(1)>".into(),
        ..Default::default()
    };
    row.scores[evaluate::judge::dim("safety")] = Some(1.0);
    let info = evaluate::RunInfo {
        split: "test".into(),
        split_dialogues: 1,
        selected_dialogues: 1,
        corpus: "<b>corpus</b>".into(),
        corpus_fingerprint: "f".into(),
        library_digest: "l".into(),
        judge: evaluate::results::JudgeInfo {
            name: "rules".into(),
            fingerprint: "x".into(),
            model: None,
        },
    };
    let runs = vec![evaluate::MethodRun {
        name: evil.into(),
        fingerprint: "\"quoted\"".into(),
        models: Default::default(),
        rows: vec![row],
    }];
    let r = evaluate::results::results(&cfg, &info, &runs);
    let html = evaluate::report::report_html(&r);
    assert!(!html.contains("<script"), "{html}");
    assert!(!html.contains("<img"), "{html}");
    assert!(!html.contains("<b>corpus"), "{html}");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    let md = evaluate::report::leaderboard(&r);
    assert!(
        md.contains("\\|x"),
        "a pipe in a name does not break the table: {md}"
    );
}
