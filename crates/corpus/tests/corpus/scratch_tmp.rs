use crate::support::{generated, mix};
#[test]
#[ignore]
fn scratch_timing_and_dump() {
    for judge_every in [0usize, 20, 1] {
        let dialogues: Vec<_> = (0..50_000)
            .map(|i| {
                let mut d = generated(i, 12);
                if judge_every == 0 || i % judge_every != 0 {
                    d.judge = None;
                } else if d.judge.is_none() {
                    d.judge = Some(crate::support::judge_scores());
                }
                d
            })
            .collect();
        let t = std::time::Instant::now();
        let batch = corpus::dialogues_to_batch(&dialogues).unwrap();
        let w = t.elapsed();
        let t = std::time::Instant::now();
        let back = corpus::batch_to_dialogues(&batch).unwrap();
        let r = t.elapsed();
        assert_eq!(back.len(), 50_000);
        eprintln!("judge every {judge_every}: to_batch {w:?}, from_batch {r:?}");
    }
    let out = std::path::Path::new("/tmp/judge_check");
    corpus::write_shard(out, 0, &mix(9), &corpus::ShardWriterConfig::default()).unwrap();
}
