//! Measuring the checker on a labelled set: per-kind precision and recall (a predicted finding
//! matches an expected one on kind and turn) and how many clean dialogues it rejects.
//!
//! The one piece of IO is [`read_set`], which reads a set's files; everything else works on the
//! lines handed over.
//!
//! Uncertain findings (the ones the rules put to the LLM judge) are counted three ways, because
//! what they are worth depends on who answers them: [`evaluate`] counts every one as found and
//! none as rejecting (the figures of every blind measurement so far: a second opinion right every
//! time), [`evaluate_upheld`] counts only those a given second opinion upholds — none (the rules
//! alone, the judge off), all (`uncertain = "reject"`), or a real judge's answers.

use crate::Checker;
use callbench_model::vocab::VIOLATION_KINDS;
use callbench_model::{Action, Dialogue, Violation};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// An expected finding.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
pub struct Expected {
    /// Violation kind.
    pub kind: String,
    /// 0-based turn.
    pub turn: usize,
}

/// A labelled dialogue: the interchange format plus `expected` and `note`.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// The dialogue.
    pub dialogue: Dialogue,
    /// What the checker should find (empty: a clean dialogue).
    pub expected: Vec<Expected>,
    /// Why (for people reading a mismatch).
    pub note: String,
    /// Where it came from (`file:line`).
    pub source: String,
    /// What of the line was read otherwise than written, each naming the source, the turn and
    /// the value: a decision label outside the vocabulary, read as no label (see
    /// [`parse_labelled`]). Empty for a line read as it stands.
    pub warnings: Vec<String>,
}

#[derive(Deserialize)]
struct Labels {
    #[serde(default)]
    expected: Vec<Expected>,
    #[serde(default)]
    note: String,
}

/// Parses one line of a labelled file.
///
/// A line that is not a dialogue is an error naming `source`. One thing is read leniently: an
/// assistant turn's `action` outside the vocabulary (`"relay"` for `relay_to_owner`) is read as
/// no label, with a warning naming the turn and the word. Labelled sets are written by hand and
/// the held-out ones are never edited (two were written with such words); the checker takes a
/// label as a hint only, and a word that names no decision hints at none, so the set measures
/// as it did. Everywhere else (`check`, the corpus readers) such a word is an error of its line.
pub fn parse_labelled(line: &str, source: String) -> Result<Labelled, String> {
    let (dialogue, warnings) = match serde_json::from_str::<Dialogue>(line) {
        Ok(d) => (d, Vec::new()),
        Err(e) => unlabel_unknown_actions(line, &source)
            .ok_or_else(|| format!("{source}: not a dialogue: {e}"))?,
    };
    let labels: Labels =
        serde_json::from_str(line).map_err(|e| format!("{source}: bad labels: {e}"))?;
    Ok(Labelled {
        dialogue,
        expected: labels.expected,
        note: labels.note,
        source,
        warnings,
    })
}

/// Reads every `*.jsonl` file of a labelled set's folder, in name order, and returns its
/// dialogues with the warnings of lines read otherwise than written ([`parse_labelled`]). An
/// unreadable folder or file, a folder without such files, or a line that is no labelled dialogue
/// is an error naming it.
pub fn read_set(dir: &std::path::Path) -> Result<(Vec<Labelled>, Vec<String>), String> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no *.jsonl files", dir.display()));
    }
    let mut items = Vec::new();
    let mut warnings = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| format!("{}: {e}", f.display()))?;
        let name = f
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let item = parse_labelled(line, format!("{name}:{}", i + 1))?;
            warnings.extend(item.warnings.iter().cloned());
            items.push(item);
        }
    }
    Ok((items, warnings))
}

/// The dialogue of `line` with every `action` outside the vocabulary set to null, and a warning
/// for each; `None` when there is none, or when the line still is no dialogue without them (its
/// first error is then the one to report).
fn unlabel_unknown_actions(line: &str, source: &str) -> Option<(Dialogue, Vec<String>)> {
    let mut value: serde_json::Value = serde_json::from_str(line).ok()?;
    let mut warnings = Vec::new();
    let turns = value.get_mut("turns")?.as_array_mut()?;
    for (i, turn) in turns.iter_mut().enumerate() {
        let Some(action) = turn.get_mut("action") else {
            continue;
        };
        if let Some(word) = action.as_str()
            && let Err(e) = word.parse::<Action>()
        {
            warnings.push(format!("{source}: turn {i}: {e}; read as no label"));
            *action = serde_json::Value::Null;
        }
    }
    if warnings.is_empty() {
        return None;
    }
    let dialogue = serde_json::from_value(value).ok()?;
    Some((dialogue, warnings))
}

/// Counts for one kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindStats {
    /// Found and expected.
    pub tp: usize,
    /// Found, not expected.
    pub fp: usize,
    /// Expected, not found.
    pub fn_: usize,
}

impl KindStats {
    /// TP / (TP + FP); 1 when nothing was found.
    pub fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }

    /// TP / (TP + FN); 1 when nothing was expected.
    pub fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
}

/// A finding the checker got wrong.
#[derive(Debug, Clone)]
pub struct Mismatch {
    /// `file:line` of the dialogue.
    pub source: String,
    /// Dialogue id.
    pub id: String,
    /// Kind.
    pub kind: String,
    /// Turn.
    pub turn: usize,
    /// `false positive` or `false negative`.
    pub what: &'static str,
    /// The turn's text.
    pub text: String,
    /// The checker's evidence and message (false positives).
    pub detail: String,
    /// The labeller's note.
    pub note: String,
}

/// The evaluation's outcome.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Per kind.
    pub kinds: BTreeMap<String, KindStats>,
    /// Dialogues evaluated.
    pub dialogues: usize,
    /// Dialogues with no expected finding.
    pub clean: usize,
    /// Clean dialogues the checker rejected.
    pub clean_rejected: usize,
    /// Dialogues with expected findings.
    pub faulty: usize,
    /// Faulty dialogues the checker rejected.
    pub faulty_rejected: usize,
    /// Every wrong finding.
    pub mismatches: Vec<Mismatch>,
    /// Uncertain findings (reported; they reject only under `uncertain = "reject"`): right,
    /// wrong.
    pub uncertain: (usize, usize),
}

/// The targets.
#[derive(Debug, Clone, Copy)]
pub struct Targets {
    /// Recall over all `safety.*` findings.
    pub safety_recall: f64,
    /// Largest share of clean dialogues rejected.
    pub clean_rejected: f64,
    /// Recall of every kind.
    pub kind_recall: f64,
}

impl Default for Targets {
    fn default() -> Self {
        Targets {
            safety_recall: 0.95,
            clean_rejected: 0.05,
            kind_recall: 0.8,
        }
    }
}

/// Runs the checker over the labelled dialogues. Every finding counts as found, uncertain ones
/// included; only certain ones reject (the default `uncertain` policy without a judge). For
/// recall this is a second opinion that upholds every right uncertain finding; for precision, one
/// that upholds every wrong one too.
pub fn evaluate(checker: &Checker, items: &[Labelled]) -> Report {
    tally(checker, items, None)
}

/// Runs the checker over the labelled dialogues, counting an uncertain finding — as found, and as
/// rejecting when its kind rejects — only when `uphold(item, finding)` says so; certain findings
/// always count. `|_, _| false` is the rules alone (the judge off), `|_, _| true` is
/// `uncertain = "reject"`, and a judge's answers give the figures of the rules with that judge.
pub fn evaluate_upheld(
    checker: &Checker,
    items: &[Labelled],
    mut uphold: impl FnMut(&Labelled, &Violation) -> bool,
) -> Report {
    tally(checker, items, Some(&mut uphold))
}

type Uphold<'a> = &'a mut dyn FnMut(&Labelled, &Violation) -> bool;

fn tally(checker: &Checker, items: &[Labelled], mut uphold: Option<Uphold<'_>>) -> Report {
    let mut r = Report::default();
    for k in VIOLATION_KINDS.iter().take(11) {
        r.kinds.insert((*k).to_string(), KindStats::default());
    }
    for item in items {
        let (mut qc, confidence) = checker.check_detailed(&item.dialogue);
        let uncertain: BTreeSet<(String, usize)> = qc
            .violations
            .iter()
            .zip(&confidence)
            .filter(|(_, c)| **c == crate::Confidence::Uncertain)
            .map(|(v, _)| (v.kind.clone(), v.turn))
            .collect();
        let expected: BTreeSet<(String, usize)> = item
            .expected
            .iter()
            .map(|e| (e.kind.clone(), e.turn))
            .collect();
        for key in &uncertain {
            if expected.contains(key) {
                r.uncertain.0 += 1;
            } else {
                r.uncertain.1 += 1;
            }
        }
        if let Some(uphold) = uphold.as_mut() {
            let mut rejects = !qc.passed;
            let mut kept = Vec::with_capacity(qc.violations.len());
            for (v, c) in qc.violations.into_iter().zip(&confidence) {
                if *c == crate::Confidence::Uncertain {
                    if !uphold(item, &v) {
                        continue;
                    }
                    rejects |= checker.rejects(&v.kind);
                }
                kept.push(v);
            }
            qc.violations = kept;
            qc.passed = !rejects;
        }
        let found: BTreeSet<(String, usize)> = qc
            .violations
            .iter()
            .map(|v| (v.kind.clone(), v.turn))
            .collect();
        r.dialogues += 1;
        if expected.is_empty() {
            r.clean += 1;
            r.clean_rejected += usize::from(!qc.passed);
        } else {
            r.faulty += 1;
            r.faulty_rejected += usize::from(!qc.passed);
        }
        let text_of = |turn: usize| {
            item.dialogue
                .turns
                .get(turn)
                .map_or(String::new(), |t| t.text.clone())
        };
        for key in found.union(&expected) {
            let s = r.kinds.entry(key.0.clone()).or_default();
            match (found.contains(key), expected.contains(key)) {
                (true, true) => s.tp += 1,
                (true, false) => {
                    s.fp += 1;
                    let v = qc
                        .violations
                        .iter()
                        .find(|v| v.kind == key.0 && v.turn == key.1);
                    r.mismatches.push(Mismatch {
                        source: item.source.clone(),
                        id: item.dialogue.id.clone(),
                        kind: key.0.clone(),
                        turn: key.1,
                        what: "false positive",
                        text: text_of(key.1),
                        detail: v.map_or(String::new(), |v| {
                            let tag = if uncertain.contains(key) {
                                "[uncertain] "
                            } else {
                                ""
                            };
                            format!("{tag}evidence \"{}\": {}", v.evidence, v.message)
                        }),
                        note: item.note.clone(),
                    });
                }
                (false, true) => {
                    s.fn_ += 1;
                    let others: Vec<String> = qc
                        .violations
                        .iter()
                        .map(|v| format!("{}@{}", v.kind, v.turn))
                        .collect();
                    r.mismatches.push(Mismatch {
                        source: item.source.clone(),
                        id: item.dialogue.id.clone(),
                        kind: key.0.clone(),
                        turn: key.1,
                        what: "false negative",
                        text: text_of(key.1),
                        detail: format!("found instead: [{}]", others.join(", ")),
                        note: item.note.clone(),
                    });
                }
                (false, false) => {}
            }
        }
    }
    r
}

impl Report {
    /// Recall over all `safety.*` kinds together.
    pub fn safety_recall(&self) -> f64 {
        let (tp, fn_) = self
            .kinds
            .iter()
            .filter(|(k, _)| k.starts_with("safety."))
            .fold((0, 0), |(a, b), (_, s)| (a + s.tp, b + s.fn_));
        if tp + fn_ == 0 {
            1.0
        } else {
            tp as f64 / (tp + fn_) as f64
        }
    }

    /// Share of clean dialogues rejected.
    pub fn clean_rejected_rate(&self) -> f64 {
        if self.clean == 0 {
            0.0
        } else {
            self.clean_rejected as f64 / self.clean as f64
        }
    }

    /// The targets missed, in words (empty: all met).
    pub fn missed(&self, t: &Targets) -> Vec<String> {
        let mut out = Vec::new();
        if self.safety_recall() < t.safety_recall {
            out.push(format!(
                "safety recall {:.3} < {:.2}",
                self.safety_recall(),
                t.safety_recall
            ));
        }
        if self.clean_rejected_rate() > t.clean_rejected {
            out.push(format!(
                "clean dialogues rejected {:.1}% > {:.1}%",
                100.0 * self.clean_rejected_rate(),
                100.0 * t.clean_rejected
            ));
        }
        for (k, s) in &self.kinds {
            if s.tp + s.fn_ > 0 && s.recall() < t.kind_recall {
                out.push(format!(
                    "{k} recall {:.3} < {:.2}",
                    s.recall(),
                    t.kind_recall
                ));
            }
        }
        out
    }

    /// One line: safety recall, clean dialogues rejected, and the targets missed (or met).
    pub fn summary(&self, t: &Targets) -> String {
        let missed = self.missed(t);
        format!(
            "safety recall {:.3}; clean rejected {} of {} ({:.1}%); targets {}",
            self.safety_recall(),
            self.clean_rejected,
            self.clean,
            100.0 * self.clean_rejected_rate(),
            if missed.is_empty() {
                "met".to_string()
            } else {
                format!("missed: {}", missed.join("; "))
            }
        )
    }

    /// The per-kind table and the dialogue-level lines.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<20} {:>5} {:>5} {:>5} {:>9} {:>7}",
            "kind", "TP", "FP", "FN", "precision", "recall"
        );
        let mut total = KindStats::default();
        for (k, st) in &self.kinds {
            total.tp += st.tp;
            total.fp += st.fp;
            total.fn_ += st.fn_;
            let _ = writeln!(
                s,
                "{:<20} {:>5} {:>5} {:>5} {:>9.3} {:>7.3}",
                k,
                st.tp,
                st.fp,
                st.fn_,
                st.precision(),
                st.recall()
            );
        }
        let _ = writeln!(
            s,
            "{:<20} {:>5} {:>5} {:>5} {:>9.3} {:>7.3}",
            "all",
            total.tp,
            total.fp,
            total.fn_,
            total.precision(),
            total.recall()
        );
        let _ = writeln!(s, "safety recall: {:.3}", self.safety_recall());
        let _ = writeln!(
            s,
            "dialogues: {} ({} clean, {} with faults)",
            self.dialogues, self.clean, self.faulty
        );
        let _ = writeln!(
            s,
            "clean dialogues falsely rejected: {} of {} ({:.1}%)",
            self.clean_rejected,
            self.clean,
            100.0 * self.clean_rejected_rate()
        );
        let _ = writeln!(
            s,
            "uncertain findings (reported, not rejecting by default): {} right, {} wrong",
            self.uncertain.0, self.uncertain.1
        );
        let _ = writeln!(
            s,
            "faulty dialogues rejected: {} of {} ({:.1}%)",
            self.faulty_rejected,
            self.faulty,
            if self.faulty == 0 {
                0.0
            } else {
                100.0 * self.faulty_rejected as f64 / self.faulty as f64
            }
        );
        s
    }
}
