//! Near-duplicate removal for LLM corpora: a dialogue whose text is a near-duplicate of one
//! already accepted in its cell (Jaccard similarity of their character 5-gram sets ≥ the
//! threshold, 0.9 by default) is rejected as `natural.near_duplicate` and regenerated.
//!
//! A dialogue's document is the texts of its turns joined with `"\n"` (as
//! `scripts/variety.py` reads it); its shingles are every window of 5 characters (Unicode code
//! points: a Chinese character is one). The MinHash signature (128 registers of 16 bits, from
//! the `minhash-rs` crate) estimates the Jaccard similarity of two shingle sets as the share of
//! equal registers, with a standard error of about 0.027 at J = 0.9; a 16-bit register adds a
//! chance agreement of 1/65,536, which is negligible.
//!
//! The store keeps **signatures only** (256 bytes and the id per accepted dialogue), never
//! texts, and compares a new signature with every one of its cell: a linear scan of 128
//! two-byte words per stored dialogue, microseconds per check even for thousands per cell —
//! nothing beside a model call. An exact scan (rather than LSH banding) also makes the answer
//! independent of bucket hashing, so that the same corpus is decided the same way every time.
//!
//! Determinism: `generate` checks dialogues in plan order against the accepted dialogues
//! *before* them in plan order; a resumed run first reads the signatures of the shards already
//! written (`ingest`), so its decisions — and its shards — are those of an uninterrupted run.

use callbench_model::Dialogue;
use minhash_rs::prelude::{MinHash, MinHasher};
use std::collections::HashMap;

/// Characters per shingle.
pub const SHINGLE: usize = 5;
/// Registers of a signature.
pub const REGISTERS: usize = 128;

/// A dialogue's MinHash signature.
pub type Signature = MinHash<u16, REGISTERS>;

/// The signature of a dialogue's text.
pub fn signature(d: &Dialogue) -> Signature {
    let mut doc = String::new();
    for (i, t) in d.turns.iter().enumerate() {
        if i > 0 {
            doc.push('\n');
        }
        doc.push_str(&t.text);
    }
    text_signature(&doc)
}

/// The signature of a document's set of character 5-grams (a document shorter than 5
/// characters is its own single shingle).
pub fn text_signature(doc: &str) -> Signature {
    let mut bounds: Vec<usize> = doc.char_indices().map(|(i, _)| i).collect();
    bounds.push(doc.len());
    let chars = bounds.len() - 1;
    if chars < SHINGLE {
        return std::iter::once(callbench_model::plan::fnv1a(doc.as_bytes())).collect();
    }
    (0..=chars - SHINGLE)
        .map(|i| callbench_model::plan::fnv1a(&doc.as_bytes()[bounds[i]..bounds[i + SHINGLE]]))
        .collect()
}

/// The estimated Jaccard similarity of two signatures.
pub fn similarity(a: &Signature, b: &Signature) -> f64 {
    a.estimate_jaccard_index(b)
}

/// An earlier dialogue of the cell that a new one nearly duplicates.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    /// The earlier dialogue's id.
    pub id: String,
    /// Their estimated Jaccard similarity.
    pub similarity: f64,
}

/// The signatures of the accepted dialogues, per cell.
#[derive(Debug)]
pub struct NearDuplicates {
    threshold: f64,
    cells: HashMap<String, Vec<(Box<str>, Signature)>>,
    len: usize,
}

impl NearDuplicates {
    /// An empty store; `threshold` is the similarity from which a dialogue is a near-duplicate.
    pub fn new(threshold: f64) -> Self {
        NearDuplicates {
            threshold,
            cells: HashMap::new(),
            len: 0,
        }
    }

    /// The most similar accepted dialogue of `cell` at or above the threshold (the first one
    /// stored among equals), if any.
    pub fn find(&self, cell: &str, sig: &Signature) -> Option<Match> {
        let mut best: Option<(&str, f64)> = None;
        for (id, other) in self.cells.get(cell)?.iter() {
            let j = similarity(sig, other);
            if j >= self.threshold && best.is_none_or(|(_, b)| j > b) {
                best = Some((id, j));
            }
        }
        best.map(|(id, similarity)| Match {
            id: id.to_string(),
            similarity,
        })
    }

    /// Records an accepted dialogue of `cell`.
    pub fn insert(&mut self, cell: &str, id: &str, sig: Signature) {
        let v = match self.cells.get_mut(cell) {
            Some(v) => v,
            None => self.cells.entry(cell.to_string()).or_default(),
        };
        v.push((id.into(), sig));
        self.len += 1;
    }

    /// Records every dialogue of a written shard, read row group by row group (a resumed run
    /// rebuilds its state from the shards already written).
    pub fn ingest(&mut self, shard: &std::path::Path) -> corpus::Result<()> {
        self.ingest_except(shard, &[])
    }

    /// [`NearDuplicates::ingest`] without the dialogues of the scenarios `skip` (a growing
    /// corpus makes them again: their old versions are not what the new ones must differ from).
    pub fn ingest_except(
        &mut self,
        shard: &std::path::Path,
        skip: &[String],
    ) -> corpus::Result<()> {
        let mut reader = corpus::ShardReader::with_batch_size(shard, 256)?;
        while let Some(batch) = reader.next_batch() {
            for d in corpus::batch_to_dialogues(&batch?)? {
                if skip.contains(&d.scenario) {
                    continue;
                }
                let cell = format!("{}/{}/{}", d.scenario, d.preset_case, d.relation);
                self.insert(&cell, &d.id, signature(&d));
            }
        }
        Ok(())
    }

    /// Dialogues stored.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Nothing stored yet.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact Jaccard of two documents' 5-gram sets, for comparison with the estimate.
    fn exact(a: &str, b: &str) -> f64 {
        let grams = |s: &str| -> std::collections::HashSet<String> {
            let c: Vec<char> = s.chars().collect();
            c.windows(SHINGLE).map(|w| w.iter().collect()).collect()
        };
        let (x, y) = (grams(a), grams(b));
        x.intersection(&y).count() as f64 / x.union(&y).count() as f64
    }

    const BASE: &str = "喂您好，我是顺丰快递的，您有一个包裹今天下午三点左右送到，请问家里有人吗？\n\
        机主现在不方便接电话，您放门口就行，谢谢。\n好的，那我放门口了，麻烦您跟他说一声。\n\
        好的，我会转告他的，再见。";

    #[test]
    fn the_estimate_tracks_the_exact_jaccard() {
        // The same call with a growing share of its text rewritten.
        let variants = [
            BASE.to_string(),
            BASE.replacen("三点", "四点", 1),
            BASE.replacen("顺丰快递", "中通快递", 1)
                .replacen("门口", "快递柜", 2),
            BASE.replacen("机主现在不方便接电话", "他在开会，接不了电话", 1)
                .replacen("再见", "拜拜", 1),
            "师傅您好，我在小区东门等您，车牌号是多少？\n机主让我问一下您大概几点到。".to_string(),
        ];
        for v in &variants {
            let (e, j) = (
                exact(BASE, v),
                similarity(&text_signature(BASE), &text_signature(v)),
            );
            assert!((e - j).abs() < 0.12, "exact {e:.3}, estimate {j:.3}: {v}");
        }
    }

    #[test]
    fn a_near_duplicate_is_found_in_its_cell_only() {
        let mut store = NearDuplicates::new(0.9);
        store.insert(
            "takeout/regular/conflict",
            "takeout-000001",
            text_signature(BASE),
        );
        let nearly = BASE.replacen("再见。", "再见！", 1);
        assert!(exact(BASE, &nearly) >= 0.9);
        let m = store
            .find("takeout/regular/conflict", &text_signature(&nearly))
            .expect("found");
        assert_eq!(m.id, "takeout-000001");
        assert!(m.similarity >= 0.9);
        // Another cell holds nothing like it.
        assert!(
            store
                .find("taxi/regular/conflict", &text_signature(&nearly))
                .is_none()
        );
        // A different call in the same cell is no near-duplicate.
        let other = "师傅您好，我在小区东门等您，车牌号是多少？\n机主让我问一下您大概几点到。";
        assert!(
            store
                .find("takeout/regular/conflict", &text_signature(other))
                .is_none()
        );
        assert_eq!(store.len(), 1);
    }

    #[test]
    fn short_documents_are_compared_whole() {
        assert_eq!(
            similarity(&text_signature("喂"), &text_signature("喂")),
            1.0
        );
        assert!(similarity(&text_signature("喂"), &text_signature("好")) < 0.1);
    }
}
