//! Structural-diversity figures of a corpus: how much of its structure a model could learn
//! instead of the task (issue 13). Computed in one place, here, and used by `generate` (the
//! manifest's `diversity`) and `release` (`stats.json` and the dataset card).
//!
//! The definitions are those of `scripts/corpus_truth.py` (its "Structure" part), so that the
//! two give the same numbers on a corpus:
//!
//! - **Decision sequences**: a dialogue's sequence of assistant `action`s (a missing action is
//!   a value of its own); distinct sequences per cell (scenario × preset case × relation) and
//!   over the corpus, the smallest per cell, and the smallest per cell of at least
//!   [`BIG_CELL`] dialogues.
//! - **First convey**: per relation, the 0-based assistant-turn index of the first
//!   `convey_preset` (a histogram; dialogues without one counted apart), and the share of the
//!   relation's dialogues whose *first* assistant turn is a `convey_preset`.
//! - **Top-20 share**: assistant turns with the owner's name masked (and the owner's surname
//!   followed by 先生/女士) are counted; the 20 most frequent make this share of all assistant
//!   turns.
//! - **Sentence skeletons**: the masked assistant turns split at 。！？, digits and Chinese
//!   numerals replaced by `#`: the number of distinct non-empty sentences.
//! - Odd turn counts and calls the caller ends, as shares of the dialogues.
//!
//! Memory is flat in the count's text: turns and skeletons are held as 64-bit hashes, decision
//! sequences per cell likewise (a few megabytes at 500,000 dialogues).

use crate::error::Result;
use crate::shard::ShardReader;
use callbench_model::{Action, Dialogue, Speaker};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::path::Path;

/// Cells of at least this many dialogues are the ones the decision-sequence target is about.
pub const BIG_CELL: u64 = 500;

/// The most frequent assistant turns whose share is reported.
pub const TOP_TURNS: usize = 20;

/// The figures, as the manifest and `stats.json` hold them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Diversity {
    /// Dialogues measured.
    pub dialogues: u64,
    /// Assistant turns measured.
    pub assistant_turns: u64,
    /// Distinct decision sequences over the corpus.
    pub decision_sequences_total: u64,
    /// The smallest number of distinct decision sequences of any cell (0 without dialogues).
    pub decision_sequences_min_per_cell: u64,
    /// The same over the cells of at least [`BIG_CELL`] dialogues; `None` when there is none.
    pub decision_sequences_min_per_big_cell: Option<u64>,
    /// Distinct decision sequences per cell (`scenario/preset_case/relation`).
    pub decision_sequences_per_cell: BTreeMap<String, u64>,
    /// Where the first `convey_preset` falls, per relation.
    pub first_convey: BTreeMap<String, FirstConvey>,
    /// Share of assistant turns made up by the [`TOP_TURNS`] most frequent (owner masked).
    pub top20_assistant_turn_share: f64,
    /// Distinct assistant turns (owner masked).
    pub distinct_assistant_turns: u64,
    /// Distinct assistant sentence skeletons.
    pub assistant_sentence_skeletons: u64,
    /// Share of dialogues with an odd number of turns.
    pub odd_turn_count_share: f64,
    /// Share of dialogues whose last turn is the caller's.
    pub caller_ends_share: f64,
}

/// Where the first `convey_preset` of a relation's dialogues falls.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct FirstConvey {
    /// Dialogues of the relation.
    pub dialogues: u64,
    /// `by_assistant_turn[i]`: dialogues whose first `convey_preset` is their assistant turn `i`
    /// (0-based).
    pub by_assistant_turn: Vec<u64>,
    /// Dialogues without a `convey_preset`.
    pub never: u64,
    /// Share of the relation's dialogues whose first assistant turn is a `convey_preset`.
    pub at_first_assistant_turn: f64,
}

/// Accumulates [`Diversity`] dialogue by dialogue, in any order.
#[derive(Debug, Default)]
pub struct DiversityCounter {
    dialogues: u64,
    assistant_turns: u64,
    cells: HashMap<String, (u64, HashSet<u64>)>,
    sequences: HashSet<u64>,
    first_convey: BTreeMap<String, FirstConvey>,
    turn_freq: HashMap<u64, u32>,
    skeletons: HashSet<u64>,
    odd: u64,
    caller_ends: u64,
}

fn hash_of<T: Hash + ?Sized>(t: &T) -> u64 {
    // SipHash with fixed keys: the same value hashes alike in every run of one build (only
    // counts of distinct hashes leave this module).
    let mut h = std::hash::DefaultHasher::new();
    t.hash(&mut h);
    h.finish()
}

impl DiversityCounter {
    /// A counter with nothing counted.
    pub fn new() -> DiversityCounter {
        DiversityCounter::default()
    }

    /// Counts one dialogue.
    pub fn add(&mut self, d: &Dialogue) {
        self.dialogues += 1;
        let cell = format!("{}/{}/{}", d.scenario, d.preset_case, d.relation);
        let acts: Vec<Option<Action>> = d
            .turns
            .iter()
            .filter(|t| t.speaker == Speaker::Assistant)
            .map(|t| t.action)
            .collect();
        let seq = hash_of(&acts);
        self.sequences.insert(seq);
        let entry = self.cells.entry(cell).or_default();
        entry.0 += 1;
        entry.1.insert(seq);
        if d.turns.len() % 2 == 1 {
            self.odd += 1;
        }
        if d.turns.last().is_some_and(|t| t.speaker == Speaker::Caller) {
            self.caller_ends += 1;
        }
        let fc = self.first_convey.entry(d.relation.to_string()).or_default();
        fc.dialogues += 1;
        match acts.iter().position(|a| *a == Some(Action::ConveyPreset)) {
            Some(i) => {
                if fc.by_assistant_turn.len() <= i {
                    fc.by_assistant_turn.resize(i + 1, 0);
                }
                fc.by_assistant_turn[i] += 1;
            }
            None => fc.never += 1,
        }
        let masker = Masker::new(&d.owner.name);
        for t in d.turns.iter().filter(|t| t.speaker == Speaker::Assistant) {
            self.assistant_turns += 1;
            let m = masker.mask(&t.text);
            *self.turn_freq.entry(hash_of(m.as_str())).or_default() += 1;
            for s in m.split(['。', '！', '？']).filter(|s| !s.is_empty()) {
                self.skeletons.insert(hash_of(skeleton(s).as_str()));
            }
        }
    }

    /// Counts every dialogue of the Parquet shards `files` (paths).
    pub fn add_shards<P: AsRef<Path>>(&mut self, files: impl IntoIterator<Item = P>) -> Result<()> {
        for f in files {
            for batch in ShardReader::open(f.as_ref())? {
                for d in &batch? {
                    self.add(d);
                }
            }
        }
        Ok(())
    }

    /// The figures.
    pub fn finish(&self) -> Diversity {
        let share = |n: u64, of: u64| if of == 0 { 0.0 } else { n as f64 / of as f64 };
        let mut freq: Vec<u32> = self.turn_freq.values().copied().collect();
        freq.sort_unstable_by(|a, b| b.cmp(a));
        let top: u64 = freq.iter().take(TOP_TURNS).map(|&c| c as u64).sum();
        let per_cell: BTreeMap<String, u64> = self
            .cells
            .iter()
            .map(|(k, (_, s))| (k.clone(), s.len() as u64))
            .collect();
        let first_convey = self
            .first_convey
            .iter()
            .map(|(rel, fc)| {
                let mut fc = fc.clone();
                fc.at_first_assistant_turn = share(
                    fc.by_assistant_turn.first().copied().unwrap_or(0),
                    fc.dialogues,
                );
                (rel.clone(), fc)
            })
            .collect();
        Diversity {
            dialogues: self.dialogues,
            assistant_turns: self.assistant_turns,
            decision_sequences_total: self.sequences.len() as u64,
            decision_sequences_min_per_cell: per_cell.values().copied().min().unwrap_or(0),
            decision_sequences_min_per_big_cell: self
                .cells
                .values()
                .filter(|(n, _)| *n >= BIG_CELL)
                .map(|(_, s)| s.len() as u64)
                .min(),
            decision_sequences_per_cell: per_cell,
            first_convey,
            top20_assistant_turn_share: share(top, self.assistant_turns),
            distinct_assistant_turns: self.turn_freq.len() as u64,
            assistant_sentence_skeletons: self.skeletons.len() as u64,
            odd_turn_count_share: share(self.odd, self.dialogues),
            caller_ends_share: share(self.caller_ends, self.dialogues),
        }
    }
}

/// Masks the owner in an assistant turn: the full name, then the surname followed by 先生 or
/// 女士, each replaced by `X` (as `corpus_truth.py`'s `mask`).
struct Masker<'a> {
    name: &'a str,
    title: String,
}

impl<'a> Masker<'a> {
    fn new(name: &'a str) -> Masker<'a> {
        Masker {
            name,
            title: name.chars().next().map(String::from).unwrap_or_default(),
        }
    }

    fn mask(&self, text: &str) -> String {
        let text = if self.name.is_empty() {
            text.to_string()
        } else {
            text.replace(self.name, "X")
        };
        // Left to right, as a regex alternation `title(先生|女士)` would.
        let pats = [format!("{}先生", self.title), format!("{}女士", self.title)];
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        'scan: while !rest.is_empty() {
            for p in &pats {
                if rest.starts_with(p.as_str()) {
                    out.push('X');
                    rest = &rest[p.len()..];
                    continue 'scan;
                }
            }
            let c = rest.chars().next().expect("not empty");
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
        out
    }
}

/// A sentence with every run of digits and Chinese numerals replaced by `#`.
fn skeleton(s: &str) -> String {
    let numeral = |c: char| {
        c.is_ascii_digit() || ('０'..='９').contains(&c) || "一二三四五六七八九十百千两".contains(c)
    };
    let mut out = String::with_capacity(s.len());
    let mut in_run = false;
    for c in s.chars() {
        if numeral(c) {
            if !in_run {
                out.push('#');
            }
            in_run = true;
        } else {
            out.push(c);
            in_run = false;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_name_and_title_and_numerals() {
        let m = Masker::new("王小明");
        assert_eq!(
            m.mask("王小明先生好，王先生，王女士，李先生"),
            "X先生好，X，X，李先生"
        );
        assert_eq!(skeleton("3点半到十二楼"), "#点半到#楼");
        assert_eq!(skeleton("１２号"), "#号");
    }
}
