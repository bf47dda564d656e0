//! The corpus split: from the seed and the id, stable when the corpus grows, about 80/10/10 in
//! every cell.

use crate::support::{generate, library};
use callbench_model::{Plan, Split, SplitRatios};
use std::collections::{BTreeMap, HashMap};

fn splits(dir: &std::path::Path) -> HashMap<String, Split> {
    let m = corpus::read_manifest(dir).unwrap();
    let mut out = HashMap::new();
    for s in &m.shards {
        for d in corpus::read_shard(&dir.join(&s.file)).unwrap() {
            out.insert(d.id.clone(), d.split.expect("every corpus row has a split"));
        }
    }
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for s in out.values() {
        *counts.entry(s.to_string()).or_default() += 1;
    }
    assert_eq!(m.splits, counts, "the manifest counts per split");
    out
}

#[test]
fn a_dialogue_keeps_its_split_when_the_corpus_grows() {
    let small = tempfile::tempdir().unwrap();
    let large = tempfile::tempdir().unwrap();
    generate(small.path(), 150, 99);
    generate(large.path(), 450, 99);
    let (s, l) = (splits(small.path()), splits(large.path()));
    assert_eq!(s.len(), 150);
    for (id, split) in &s {
        assert_eq!(l.get(id), Some(split), "{id}");
    }
    let other = tempfile::tempdir().unwrap();
    generate(other.path(), 150, 100);
    let o = splits(other.path());
    let differ = s.iter().filter(|(id, sp)| o.get(*id) != Some(sp)).count();
    assert!(
        differ > 10,
        "another seed draws other splits ({differ} of 150 differ)"
    );
}

#[test]
fn every_cell_is_split_about_80_10_10() {
    let lib = library();
    let seed = 20260728;
    let plan = Plan::build(&lib.set, seed, 60_000, &Default::default()).unwrap();
    let ratios = SplitRatios::default();
    let mut per_cell: Vec<[u64; 3]> = vec![[0; 3]; plan.allocations.len()];
    for i in 0..plan.len() {
        let d = plan.get(i).unwrap();
        let k = match ratios.assign(seed, &d.id) {
            Split::Train => 0,
            Split::Validation => 1,
            Split::Test => 2,
        };
        per_cell[d.cell][k] += 1;
    }
    for (a, c) in plan.allocations.iter().zip(&per_cell) {
        let n = c.iter().sum::<u64>() as f64;
        if n < 400.0 {
            continue;
        }
        for (k, share) in [0.8, 0.1, 0.1].into_iter().enumerate() {
            let sd = (n * share * (1.0 - share)).sqrt();
            let got = c[k] as f64;
            assert!(
                (got - n * share).abs() < 5.0 * sd,
                "{:?}: {got} of {n} in split {k}, expected about {}",
                a.cell,
                n * share
            );
        }
    }
}

#[test]
fn split_shares_that_do_not_sum_to_one_are_refused() {
    let bad = SplitRatios {
        train: 0.8,
        validation: 0.1,
        test: 0.2,
    };
    let msg = bad.validate("split").unwrap_err().to_string();
    assert!(msg.contains("split") && msg.contains("sum to 1"), "{msg}");
}
