//! The dialogues a run scores: one split of a corpus (`test` by default), optionally a
//! stratified subset of it.

use crate::error::{EvalError, Result};
use callbench_model::plan::{fnv1a, mix64};
use callbench_model::{Dialogue, Split};
use std::collections::BTreeMap;
use std::path::Path;

/// A corpus split as a run scores it.
#[derive(Debug, Clone)]
pub struct Selection {
    /// The corpus's manifest (seed, fingerprint, library digest).
    pub manifest: corpus::Manifest,
    /// The selected dialogues, in corpus order.
    pub dialogues: Vec<Dialogue>,
    /// Dialogues of the split before `--count` took its subset.
    pub split_size: usize,
}

fn corpus_err(dir: &Path, message: impl Into<String>) -> EvalError {
    EvalError::Corpus {
        dir: dir.to_path_buf(),
        message: message.into(),
    }
}

/// The advice for a corpus without splits.
pub const REGENERATE: &str = "it was written by a callbench older than the train/validation/test \
split; regenerate it with this version (`callbench generate --out DIR` with the same --seed and \
--count gives the same dialogues, now with a split column)";

/// Reads the dialogues of `split` from the corpus in `dir`, in shard order. A corpus without
/// the `split` column (written before splits existed) is refused with the way to fix it.
pub fn load_split(dir: &Path, split: Split) -> Result<Selection> {
    if !dir.join(corpus::MANIFEST_FILE).is_file() {
        return Err(corpus_err(
            dir,
            "no manifest.json here: not a corpus directory (give the --out of `callbench generate`)",
        ));
    }
    let manifest = corpus::read_manifest(dir)?;
    if manifest.shards.is_empty() {
        return Err(corpus_err(
            dir,
            "the manifest lists no shards: the corpus is empty",
        ));
    }
    let mut dialogues = Vec::new();
    for info in &manifest.shards {
        let path = dir.join(&info.file);
        for batch in corpus::ShardReader::open(&path)? {
            for d in batch? {
                match d.split {
                    Some(s) if s == split => dialogues.push(d),
                    Some(_) => {}
                    None => {
                        return Err(corpus_err(
                            dir,
                            format!(
                                "{}: dialogue {} has no split: {REGENERATE}",
                                info.file, d.id
                            ),
                        ));
                    }
                }
            }
        }
    }
    if dialogues.is_empty() {
        return Err(corpus_err(
            dir,
            format!(
                "no dialogue in the {split} split ({} dialogues in the corpus): generate a larger corpus",
                manifest.totals.dialogues
            ),
        ));
    }
    let split_size = dialogues.len();
    Ok(Selection {
        manifest,
        dialogues,
        split_size,
    })
}

/// The cell of a dialogue: `scenario/preset_case/relation`.
pub fn cell_key(d: &Dialogue) -> String {
    format!("{}/{}/{}", d.scenario, d.preset_case, d.relation)
}

/// A stratified subset of `n` dialogues: each cell gets its share of `n` (largest remainders,
/// ties to the cell that sorts first), and within a cell the dialogues whose hash of
/// `(seed, id)` ranks lowest are taken — so a larger `n` keeps every dialogue of a smaller one
/// per cell when the shares allow, and the choice never depends on the corpus's order.
/// Corpus order is kept. `n` at least the whole is the whole.
pub fn stratified_subset(dialogues: Vec<Dialogue>, n: usize, seed: u64) -> Vec<Dialogue> {
    if n >= dialogues.len() {
        return dialogues;
    }
    let total = dialogues.len();
    let mut by_cell: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, d) in dialogues.iter().enumerate() {
        by_cell.entry(cell_key(d)).or_default().push(i);
    }
    // Largest remainder apportionment of n over the cells.
    let mut quota: Vec<(String, usize, f64)> = by_cell
        .iter()
        .map(|(k, v)| {
            let exact = v.len() as f64 * n as f64 / total as f64;
            (k.clone(), exact.floor() as usize, exact - exact.floor())
        })
        .collect();
    let mut left = n - quota.iter().map(|q| q.1).sum::<usize>();
    let mut order: Vec<usize> = (0..quota.len()).collect();
    order.sort_by(|&a, &b| quota[b].2.total_cmp(&quota[a].2).then(a.cmp(&b)));
    for i in order {
        if left == 0 {
            break;
        }
        quota[i].1 += 1;
        left -= 1;
    }
    let mut keep = vec![false; total];
    for (cell, q, _) in &quota {
        let mut members = by_cell[cell].clone();
        members.sort_by_key(|&i| mix64(seed ^ fnv1a(dialogues[i].id.as_bytes())));
        for &i in members.iter().take(*q) {
            keep[i] = true;
        }
    }
    dialogues
        .into_iter()
        .zip(keep)
        .filter_map(|(d, k)| k.then_some(d))
        .collect()
}
