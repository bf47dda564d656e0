//! Bad input says what is wrong and how to fix it; the subset is stratified and stable.

use crate::support::{config, corpus, run, test_split};
use callbench_model::Split;
use evaluate::{EvalError, Mode, RulesJudge};

#[test]
fn a_corpus_without_splits_says_regenerate() {
    let dir = tempfile::tempdir().unwrap();
    let mut old: Vec<_> = test_split()[..3].to_vec();
    for d in &mut old {
        d.split = None;
    }
    let info = corpus::write_shard(dir.path(), 0, &old, &Default::default()).unwrap();
    let mut manifest = corpus::read_manifest(corpus()).unwrap();
    manifest.shards = vec![info];
    manifest.splits.clear();
    corpus::write_manifest(dir.path(), &manifest).unwrap();
    let err = evaluate::load_split(dir.path(), Split::Test).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, EvalError::Corpus { .. }), "{msg}");
    assert!(msg.contains("has no split"), "{msg}");
    assert!(msg.contains("regenerate"), "{msg}");
    assert!(msg.contains("part-00000.parquet"), "names the file: {msg}");
}

#[test]
fn a_folder_that_is_no_corpus_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let msg = evaluate::load_split(dir.path(), Split::Test)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("no manifest.json"), "{msg}");
    assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
}

#[test]
fn the_subset_is_stratified_deterministic_and_in_corpus_order() {
    let all = test_split().to_vec();
    let n = all.len() / 2;
    let a = evaluate::stratified_subset(all.clone(), n, 5);
    let b = evaluate::stratified_subset(all.clone(), n, 5);
    assert_eq!(a, b);
    assert_eq!(a.len(), n);
    let pos = |id: &str| all.iter().position(|d| d.id == id).unwrap();
    assert!(a.windows(2).all(|w| pos(&w[0].id) < pos(&w[1].id)));
    let count = |v: &[callbench_model::Dialogue], cell: &str| {
        v.iter()
            .filter(|d| evaluate::load::cell_key(d) == cell)
            .count() as f64
    };
    for d in &all {
        let cell = evaluate::load::cell_key(d);
        let want = count(&all, &cell) * n as f64 / all.len() as f64;
        assert!(
            (count(&a, &cell) - want).abs() < 1.0 + 1e-9,
            "{cell}: {} of {want}",
            count(&a, &cell)
        );
    }
    assert_eq!(
        evaluate::stratified_subset(all.clone(), all.len() + 5, 5),
        all
    );
}

#[test]
fn a_run_directory_of_other_settings_is_refused_untouched() {
    let dialogues = std::sync::Arc::new(test_split()[..4].to_vec());
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(dir.path(), Mode::Turn);
    run(
        &cfg,
        dialogues.clone(),
        crate::support::reference(&dialogues),
        RulesJudge,
    );
    let progress = evaluate::harness::progress_path(dir.path(), "reference");
    let before = std::fs::read(&progress).unwrap();
    let mut live = config(dir.path(), Mode::Live);
    live.trials = 2;
    let err = crate::support::runtime()
        .block_on(evaluate::run_method(
            &live,
            dialogues.clone(),
            "test-corpus",
            std::sync::Arc::new(crate::support::reference(&dialogues)),
            std::sync::Arc::new(RulesJudge),
            Some(crate::support::director()),
            &|_| {},
        ))
        .unwrap_err();
    assert!(matches!(err, EvalError::Resume { .. }), "{err}");
    assert!(err.to_string().contains("another --out"), "{err}");
    assert_eq!(std::fs::read(&progress).unwrap(), before);
}

#[test]
fn trials_in_turn_mode_are_refused() {
    let mut cfg = config(std::path::Path::new("unused"), Mode::Turn);
    cfg.trials = 3;
    let msg = cfg.validate().unwrap_err().to_string();
    assert!(msg.contains("--mode live"), "{msg}");
}
