//! Measuring the second opinion on labelled sets: the rule checker's uncertain findings put to a
//! judge exactly as `generate` puts them ([`crate::judge::second_opinion`], the same prompt,
//! schema and re-asks), and the set's figures with the judge's answers deciding which of them
//! count. The `second-opinion-eval` binary runs it.
//!
//! `checker-eval` bounds what a judge can do (the rules alone; every uncertain finding upheld;
//! the headline, which counts each as found and none as rejecting). This is the figure between
//! those bounds for one real judge: a confirmed finding counts as found and rejects; a denied or
//! unanswered one counts for nothing, as in the pipeline, where it is only reported.

use crate::judge::{SecondOpinion, second_opinion};
use crate::library::Library;
use callbench_model::Violation;
use futures::StreamExt;
use llm_client::ChatModel;
use quality_checker::eval::{self, Labelled, Report};
use quality_checker::{Checker, Confidence};
use serde::Serialize;
use std::collections::BTreeMap;

/// One uncertain finding of a labelled dialogue and the judge's answer to it.
#[derive(Debug, Clone, Serialize)]
pub struct Asked {
    /// `file:line` of the dialogue in its set.
    pub source: String,
    /// The dialogue's id.
    pub id: String,
    /// The finding's kind.
    pub kind: String,
    /// The finding's turn.
    pub turn: usize,
    /// Whether the labels expect this kind at this turn: whether a "yes" is right.
    pub expected: bool,
    /// `confirmed`, `denied` or `unanswered`.
    pub answer: &'static str,
    /// The judge's reason, or why there is no answer.
    pub reason: String,
}

/// The questions of a set: every uncertain finding of a kind that rejects, per dialogue in the
/// order of the checker's findings. Their answers change a verdict; the others would not, and
/// `generate` does not ask them either.
pub fn questions<'a>(
    checker: &Checker,
    items: &'a [Labelled],
) -> Vec<(&'a Labelled, Violation, bool)> {
    let mut out = Vec::new();
    for item in items {
        let (qc, confidence) = checker.check_detailed(&item.dialogue);
        for (v, c) in qc.violations.into_iter().zip(confidence) {
            if c == Confidence::Uncertain && checker.rejects(&v.kind) {
                let expected = item
                    .expected
                    .iter()
                    .any(|e| e.kind == v.kind && e.turn == v.turn);
                out.push((item, v, expected));
            }
        }
    }
    out
}

/// Asks the judge every question of `items`, `concurrency` at a time, and returns the answers in
/// the order of [`questions`]. `progress` is called after each answer with (answered, asked).
pub async fn ask_set<M: ChatModel>(
    lib: &Library,
    model: &M,
    checker: &Checker,
    items: &[Labelled],
    concurrency: usize,
    max_invalid_replies: u32,
    progress: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Asked> {
    let qs = questions(checker, items);
    let total = qs.len();
    let answered = std::sync::atomic::AtomicUsize::new(0);
    let answered = &answered;
    futures::stream::iter(qs)
        .map(|(item, v, expected)| async move {
            let answer = second_opinion(lib, model, &item.dialogue, &v, max_invalid_replies).await;
            let n = answered.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            progress(n, total);
            Asked {
                source: item.source.clone(),
                id: item.dialogue.id.clone(),
                kind: v.kind,
                turn: v.turn,
                expected,
                answer: answer.word(),
                reason: answer.reason().to_string(),
            }
        })
        .buffered(concurrency.max(1))
        .collect()
        .await
}

/// The set's figures with the judge's answers: an uncertain finding counts (as found, and as
/// rejecting) when the judge confirmed it.
pub fn judged_report(checker: &Checker, items: &[Labelled], asked: &[Asked]) -> Report {
    let confirmed: std::collections::BTreeSet<(&str, &str, usize)> = asked
        .iter()
        .filter(|a| a.answer == SecondOpinion::WORDS[0])
        .map(|a| (a.source.as_str(), a.kind.as_str(), a.turn))
        .collect();
    eval::evaluate_upheld(checker, items, |item, v| {
        confirmed.contains(&(item.source.as_str(), v.kind.as_str(), v.turn))
    })
}

/// How the judge's answers compare with the labels.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    /// Confirmed, and the labels expect the finding.
    pub confirmed_right: usize,
    /// Confirmed, and the labels do not expect it.
    pub confirmed_wrong: usize,
    /// Denied, and the labels do not expect it.
    pub denied_right: usize,
    /// Denied, and the labels expect it.
    pub denied_wrong: usize,
    /// No usable answer.
    pub unanswered: usize,
}

impl Tally {
    /// Counts the answers.
    pub fn of(asked: &[Asked]) -> Tally {
        let mut t = Tally::default();
        for a in asked {
            match (a.answer, a.expected) {
                ("confirmed", true) => t.confirmed_right += 1,
                ("confirmed", false) => t.confirmed_wrong += 1,
                ("denied", false) => t.denied_right += 1,
                ("denied", true) => t.denied_wrong += 1,
                _ => t.unanswered += 1,
            }
        }
        t
    }

    /// Adds another set's answers.
    pub fn add(&mut self, o: &Tally) {
        self.confirmed_right += o.confirmed_right;
        self.confirmed_wrong += o.confirmed_wrong;
        self.denied_right += o.denied_right;
        self.denied_wrong += o.denied_wrong;
        self.unanswered += o.unanswered;
    }

    /// Questions asked.
    pub fn asked(&self) -> usize {
        self.confirmed_right
            + self.confirmed_wrong
            + self.denied_right
            + self.denied_wrong
            + self.unanswered
    }

    /// One line: the answers against the labels, and the share the judge got right.
    pub fn line(&self) -> String {
        let answered = self.asked() - self.unanswered;
        let right = self.confirmed_right + self.denied_right;
        let share = if answered == 0 {
            String::from("-")
        } else {
            format!("{:.1}%", 100.0 * right as f64 / answered as f64)
        };
        format!(
            "asked {}: confirmed {} (right {}, wrong {}); denied {} (right {}, wrong {}); unanswered {}; right on {} of {} answered ({share})",
            self.asked(),
            self.confirmed_right + self.confirmed_wrong,
            self.confirmed_right,
            self.confirmed_wrong,
            self.denied_right + self.denied_wrong,
            self.denied_right,
            self.denied_wrong,
            self.unanswered,
            right,
            answered,
        )
    }
}

/// The four ways of counting uncertain findings, for one set: the headline of `checker-eval`,
/// the rules alone, the rules with this judge, every uncertain finding upheld.
pub fn reports(checker: &Checker, items: &[Labelled], asked: &[Asked]) -> BTreeMap<Mode, Report> {
    BTreeMap::from([
        (Mode::Reported, eval::evaluate(checker, items)),
        (
            Mode::Alone,
            eval::evaluate_upheld(checker, items, |_, _| false),
        ),
        (Mode::Judged, judged_report(checker, items, asked)),
        (
            Mode::AllUpheld,
            eval::evaluate_upheld(checker, items, |_, _| true),
        ),
    ])
}

/// How uncertain findings are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mode {
    /// `checker-eval`'s headline: found, rejecting nothing.
    Reported,
    /// The rules alone: counting for nothing.
    Alone,
    /// Counting where the judge confirmed them.
    Judged,
    /// All upheld (`uncertain = "reject"`).
    AllUpheld,
}

impl Mode {
    /// Every mode, in the order printed.
    pub const ALL: [Mode; 4] = [Mode::Reported, Mode::Alone, Mode::Judged, Mode::AllUpheld];

    /// What the mode counts, in words.
    pub fn label(self) -> &'static str {
        match self {
            Mode::Reported => "reported (uncertain findings found, rejecting nothing)",
            Mode::Alone => "rules alone (uncertain findings count for nothing)",
            Mode::Judged => "rules with this judge (confirmed findings count and reject)",
            Mode::AllUpheld => "every uncertain finding upheld (uncertain = \"reject\")",
        }
    }
}
