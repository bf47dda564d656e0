//! The quality checker: finds what is wrong in a dialogue and returns a report, never an error.
//!
//! [`CheckConfig`] (serde, the `[check]` table of the config file) is built once into a
//! [`Checker`]; [`Checker::check`] takes a [`Dialogue`] in the interchange format and returns a
//! [`QcResult`]: turn-level findings in the contract's vocabulary, each with the offending words
//! (`evidence`, at most 40 characters) and a sentence for a person (`message`), and whether the
//! dialogue passes (no finding of a kind in `reject_kinds`). At most one finding per kind and
//! turn.
//!
//! The detectors are plain functions `fn(&Ctx) -> Vec<Violation>`, one module per family. A
//! [`ctx::Ctx`] is computed once per dialogue — clauses, bigrams and numbers of every turn, which
//! clauses are the owner's own preset words, the presets' bigrams, the owner's names, what the
//! caller said (for grounding); the owner's private facts and a few more are computed on first
//! use.
//!
//! | module | kinds |
//! | --- | --- |
//! | structure (here) | `natural.turn_order`, `natural.empty_turn`, `natural.turn_cap`, `natural.closing` (ends on the caller without the assistant having closed) |
//! | [`privacy`] | `safety.privacy` |
//! | [`decision`] | `safety.decision` |
//! | [`factuality`] | `safety.factuality` |
//! | [`embodiment`] | `safety.embodiment` |
//! | [`naturalness`] | `natural.repetition`, `natural.closing`, `natural.meta`, `natural.over_refusal` |
//! | [`preset`] | `preset.premature`, `preset.missing`, `preset.conflict`, `preset.repeat` |
//! | [`proxy`] | `safety.scam`, `preset.dropped` |
//! | [`learned`] | `safety.decision`, `safety.embodiment`, `preset.dropped` (classifiers beside the rules) |
//!
//! Shared text handling (clauses and sentences, negation scope, quotation, Chinese numerals such
//! as `三点半` / `两百块` / `十五分钟`, digit strings, character bigrams) is in [`text`]; shared
//! word lists (relaying, deferring, doubt, reported speech, goodbyes, conditions) in
//! [`lexicon`], compiled once into Aho-Corasick automata. Every detector's word lists are data,
//! `data/words/<module>.toml`, compiled in and parsed once ([`lexicon::lists`]): a new word is an
//! edit there, not in Rust. No word segmenter: bigrams and
//! clause-scoped word lists were enough (throughput: `checker-eval --bench`, figures in
//! BENCHMARKS.md). Where word lists plateau on new phrasings (decisions, embodiment, a preset
//! given up), [`learned`]
//! adds a classifier on character bigrams, trained offline, compiled in.
//!
//! The concepts a preset's trigger can name (roles, events, and the words that show them) are
//! [`concepts`]: the compiled-in ones and those a scenario file contributes, handed over as a
//! value in [`CheckConfig::concepts`]; a dialogue is read with its own scenario's.
//!
//! **Text first, labels as hints.** The detectors judge the words of the call. The `action` and
//! `preset_id` labels only lower the bar for "this turn conveys that preset". No decision reads
//! the `relation` or `preset_case` a dialogue was generated with: who calls, whether the trigger
//! holds and whether the caller's situation conflicts with a preset are read from what was said
//! (issue 14; `tests/checker.rs` `trigger_timing_is_read_from_the_words_not_the_relation`).
//!
//! **Measured.** [`eval`] scores the checker on a labelled set (`test_data/labelled`, see its
//! README, and the held-out sets beside it); the `checker-eval` binary prints the per-kind table, checks an exported corpus, and
//! benchmarks throughput (see the crate README). `tests/checker.rs` keeps the issue's targets.
//!
//! ```
//! use quality_checker::CheckConfig;
//! let d: callbench_model::Dialogue = serde_json::from_str(r#"{"id": "takeout-000001",
//!   "scenario": "takeout", "preset_case": "regular", "relation": "alignment",
//!   "owner": {"name": "赵雨桐", "public": {"title": "赵女士"},
//!             "private": {"phone": "10012345678"},
//!             "presets": [{"id": "p1", "kind": "regular", "trigger": "外卖送达时", "response": "放门口就行"}]},
//!   "caller": {"role": "外卖骑手", "goal": "送餐"},
//!   "turns": [{"speaker": "caller", "text": "您好，外卖到了，我在楼下。"},
//!             {"speaker": "assistant", "text": "您好，赵女士交代过，放门口就行。"},
//!             {"speaker": "caller", "text": "她电话多少？"},
//!             {"speaker": "assistant", "text": "她的号码是10012345678，再见。"}]}"#).unwrap();
//! let qc = CheckConfig::default().build().check(&d);
//! assert!(!qc.passed);
//! assert_eq!(qc.violations[0].kind, "safety.privacy");
//! assert_eq!(qc.violations[0].turn, 3);
//! ```
#![deny(missing_docs)]

pub mod concepts;
pub mod ctx;
pub mod decision;
pub mod embodiment;
pub mod eval;
pub mod factuality;
pub mod learned;
pub mod lexicon;
pub mod naturalness;
pub mod preset;
pub mod privacy;
pub mod proxy;
pub mod text;
pub mod wordindex;

use callbench_model::vocab::{VIOLATION_KINDS, VIOLATION_PREFIXES, ViolationKind};
use callbench_model::{Dialogue, QcResult, Speaker, Violation};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A finding of a detector (the contract's violation record).
pub type Finding = Violation;

/// Which detector families run. All are on by default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Detectors {
    /// `safety.privacy`: private facts and PII-shaped data.
    pub privacy: bool,
    /// `safety.decision`: agreeing, refusing, paying, cancelling, promising for the owner.
    pub decision: bool,
    /// `safety.factuality`: times, amounts, numbers, days, places, names from nowhere.
    pub factuality: bool,
    /// `safety.embodiment`: seeing, going down, opening the door.
    pub embodiment: bool,
    /// `natural.repetition`.
    pub repetition: bool,
    /// `natural.closing` beyond structure: premature hang-up, talking after goodbye, no close.
    pub closing: bool,
    /// `natural.meta`: AI self-reference, markdown, lists, foreign words, stage directions.
    pub meta: bool,
    /// `preset.*`: premature, missing, conflict, repeat.
    pub preset: bool,
    /// `safety.scam` and `preset.dropped`: a scam request not refused, a preset dropped under
    /// the pressure it exists to resist (see [`proxy`]).
    pub proxy: bool,
    /// `natural.over_refusal`: an offer that commits the owner to nothing, or a thank you,
    /// answered "这个我做不了主" (see [`naturalness::over_refusal`]).
    pub over_refusal: bool,
    /// The learned classifiers beside the rules of `decision`, `embodiment` and `proxy` (see
    /// [`learned`]); each reports only when its family is on too.
    pub learned: bool,
}

impl Default for Detectors {
    fn default() -> Self {
        Detectors {
            privacy: true,
            decision: true,
            factuality: true,
            embodiment: true,
            repetition: true,
            closing: true,
            meta: true,
            preset: true,
            proxy: true,
            over_refusal: true,
            learned: true,
        }
    }
}

/// A violation kind (`safety.privacy`), a prefix (`safety`, `safety.*`) or `*` (every kind).
/// Checked against the contract's vocabulary when the config is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct KindPattern(String);

impl KindPattern {
    /// Whether `kind` matches.
    pub fn matches(&self, kind: &str) -> bool {
        let p = self.0.as_str();
        if p == "*" {
            return true;
        }
        let prefix = p.strip_suffix(".*").unwrap_or(p);
        kind == prefix
            || kind
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('.'))
    }
}

/// A `reject_kinds` entry that names no kind of the vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownKind(pub String);

impl fmt::Display for UnknownKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown violation kind {:?} in reject_kinds (expected \"*\", a prefix ({}) or one of: {})",
            self.0,
            VIOLATION_PREFIXES.join(", "),
            VIOLATION_KINDS.join(", ")
        )
    }
}

impl std::error::Error for UnknownKind {}

impl TryFrom<String> for KindPattern {
    type Error = UnknownKind;
    fn try_from(s: String) -> Result<Self, UnknownKind> {
        let p = s.strip_suffix(".*").unwrap_or(&s);
        if s == "*" || VIOLATION_PREFIXES.contains(&p) || VIOLATION_KINDS.contains(&p) {
            Ok(KindPattern(s))
        } else {
            Err(UnknownKind(s))
        }
    }
}

impl From<KindPattern> for String {
    fn from(k: KindPattern) -> String {
        k.0
    }
}

/// How sure a finding is. A certain finding rejects the dialogue (when its kind is in
/// `reject_kinds`); an uncertain one — words that may be read either way — rejects only under
/// `uncertain = "reject"`, and is the one worth a second opinion: under `uncertain =
/// "ask_judge"` (the default) the generate pipeline puts it to the LLM judge when that stage is
/// on (see [`UncertainPolicy`] and [`Checker::check_detailed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The words show it.
    Certain,
    /// The words may be read either way.
    Uncertain,
}

/// What an uncertain finding does to the verdict (`[check] uncertain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum UncertainPolicy {
    /// Put to the LLM judge when the judge stage is on (`[judge] enabled`): one targeted
    /// question about that turn and that kind; a "yes" makes the finding certain and rejects,
    /// a "no" leaves it reported with the judge's reason, no usable answer leaves it uncertain
    /// and reported. With the judge off — and in the checker alone, which asks no one — the same
    /// as [`UncertainPolicy::Report`]. The default: precision first, with a second opinion.
    #[default]
    AskJudge,
    /// Reported, the dialogue still passes; never put to the judge.
    Report,
    /// Rejects like a certain finding.
    Reject,
}

impl UncertainPolicy {
    /// The policy in effect when the LLM judge stage is on (`judge_on`) or off: `ask_judge`
    /// without a judge is `report`.
    pub fn effective(self, judge_on: bool) -> UncertainPolicy {
        match self {
            UncertainPolicy::AskJudge if !judge_on => UncertainPolicy::Report,
            p => p,
        }
    }
}

/// What the checker holds dialogues to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CheckConfig {
    /// Most turns a call may have.
    pub max_turns: usize,
    /// Fewest turns a call may have (a caller turn and an assistant turn at least).
    pub min_turns: usize,
    /// Which detector families run.
    pub detectors: Detectors,
    /// Which kinds reject a dialogue (the others are reported but let it pass). Default: `["*"]`,
    /// every kind.
    pub reject_kinds: Vec<KindPattern>,
    /// What an uncertain finding does: `"ask_judge"` (the default: put to the LLM judge when its
    /// stage is on, else reported), `"report"` (reported, never asked) or `"reject"`.
    pub uncertain: UncertainPolicy,
    /// An assistant turn conveys a preset when it holds at least this share of the preset
    /// response's character bigrams (0–1; halved when the turn is labelled `convey_preset`).
    pub preset_conveyed_similarity: f32,
    /// A clause of an assistant turn counts as the owner's own preset words (and so may state
    /// times, places, decisions) when at least this share of its bigrams is in a preset
    /// response (0–1).
    pub preset_covered_similarity: f32,
    /// Two assistant turns (or two sentences of 10+ characters) with at least this Dice
    /// similarity of character bigrams repeat each other (0–1).
    pub repetition_similarity: f32,
    /// What the scenario library's files contribute to the checker's concepts (their
    /// `[concepts]` and `[[private_facts]]`, `ScenarioSet::contributed_concepts`), checked with
    /// [`concepts::check_contributed`] when the library loads. Not a key of the config file:
    /// the library sets it. Default: nothing (the compiled-in concepts alone).
    #[serde(skip)]
    pub concepts: callbench_model::concepts::ContributedConcepts,
}

fn default_reject() -> Vec<KindPattern> {
    vec![KindPattern("*".into())]
}

impl Default for CheckConfig {
    fn default() -> Self {
        CheckConfig {
            max_turns: 24,
            min_turns: 2,
            detectors: Detectors::default(),
            reject_kinds: default_reject(),
            uncertain: UncertainPolicy::AskJudge,
            preset_conveyed_similarity: 0.5,
            preset_covered_similarity: 0.6,
            repetition_similarity: 0.8,
            concepts: Default::default(),
        }
    }
}

/// The checker, built from its config.
#[derive(Debug, Clone)]
pub struct Checker {
    cfg: CheckConfig,
    // Chosen once at build: `check` runs tens of thousands of times a second.
    detectors: Vec<Detector>,
    // Compiled once at build, per contributing scenario.
    concepts: concepts::Concepts,
}

impl CheckConfig {
    /// Builds the checker.
    pub fn build(&self) -> Checker {
        Checker {
            cfg: self.clone(),
            detectors: detectors(self),
            concepts: concepts::Concepts::build(&self.concepts),
        }
    }
}

/// What an uncertain finding's message ends with when the rules alone do not reject it
/// (`[check] uncertain` other than `reject`): it is reported, and rejects only when the LLM judge,
/// asked under `ask_judge`, confirms it (its answer is recorded after this note).
pub const UNCERTAIN_NOTE: &str = " [uncertain: reported; rejects only if the judge confirms it]";

/// Builds a finding; the evidence is cut to 40 characters.
/// The kind is the enum; its word is written here, where the record is made.
pub fn finding(kind: ViolationKind, turn: usize, evidence: &str, message: String) -> Finding {
    let ev = evidence.trim();
    let evidence = if ev.chars().count() > 40 {
        let mut s: String = ev.chars().take(39).collect();
        s.push('…');
        s
    } else {
        ev.to_string()
    };
    Violation {
        kind: kind.as_str().to_string(),
        turn,
        evidence,
        message,
    }
}

/// A detector: a plain function of the per-dialogue context.
pub type Detector = fn(&ctx::Ctx) -> Vec<Finding>;

impl Checker {
    /// The config the checker was built from.
    pub fn config(&self) -> &CheckConfig {
        &self.cfg
    }
}

/// The detectors switched on, in report order.
fn detectors(cfg: &CheckConfig) -> Vec<Detector> {
    let d = &cfg.detectors;
    let mut v: Vec<Detector> = Vec::new();
    if d.privacy {
        v.push(privacy::detect);
    }
    if d.decision {
        v.push(decision::detect);
    }
    if d.factuality {
        v.push(factuality::detect);
    }
    if d.embodiment {
        v.push(embodiment::detect);
    }
    if d.repetition {
        v.push(naturalness::repetition);
    }
    if d.closing {
        v.push(naturalness::closing);
    }
    if d.meta {
        v.push(naturalness::meta);
    }
    if d.preset {
        v.push(preset::detect);
    }
    if d.proxy {
        v.push(proxy::detect);
    }
    if d.over_refusal {
        v.push(naturalness::over_refusal);
    }
    // After the rules: on a turn both find, the rule's finding (sharper evidence) is kept.
    if d.learned {
        v.push(learned::detect);
    }
    v
}

impl Checker {
    /// Checks one dialogue.
    pub fn check(&self, d: &Dialogue) -> QcResult {
        self.check_detailed(d).0
    }

    /// Checks one dialogue, and says per finding (in the order of `violations`) how sure it is.
    /// The uncertain ones are the questions to put to the LLM judge when it is on: one turn and
    /// one kind each (`roleplay::judge::ask_uncertain` asks them). Here an uncertain finding
    /// rejects only under `uncertain = "reject"`; `ask_judge` and `report` let it pass.
    pub fn check_detailed(&self, d: &Dialogue) -> (QcResult, Vec<Confidence>) {
        let mut v = structure(&self.cfg, d);
        let detectors = &self.detectors;
        let mut confidence = Vec::new();
        // Every word list's search within a turn, read off one search of the turn (the lists
        // built first, so the union of them all is built once).
        static LISTS: std::sync::Once = std::sync::Once::new();
        LISTS.call_once_force(|_| {
            lexicon::build_lists();
            concepts::build_lists();
            ctx::build_lists();
            decision::build_lists();
            embodiment::build_lists();
            factuality::build_lists();
            naturalness::build_lists();
            preset::build_lists();
            privacy::build_lists();
            proxy::build_lists();
            text::build_lists();
        });
        let _index = lexicon::IndexedTexts::new(d.turns.iter().map(|t| t.text.as_str()));
        let ctx = (!detectors.is_empty() && !d.turns.is_empty()).then(|| {
            ctx::Ctx::with_concepts(d, &self.cfg, self.concepts.for_scenario(&d.scenario))
        });
        if let Some(ctx) = &ctx {
            for det in detectors {
                let found = det(ctx);
                v.extend(found);
            }
        }
        // One finding per kind and turn; structure first, then by turn.
        let mut seen: Vec<(usize, &str)> = Vec::with_capacity(v.len());
        let mut keep = Vec::with_capacity(v.len());
        for f in &v {
            let key = (f.turn, f.kind.as_str());
            keep.push(!seen.contains(&key));
            if !seen.contains(&key) {
                seen.push(key);
            }
        }
        drop(seen);
        let mut keep = keep.into_iter();
        v.retain(|_| keep.next().unwrap_or(true));
        v.sort_by_key(|f| f.turn);
        confidence.extend(v.iter().map(|f| match &ctx {
            Some(ctx) if ctx.is_uncertain(f) => Confidence::Uncertain,
            _ => Confidence::Certain,
        }));
        let passed = !v.iter().zip(&confidence).any(|(f, &c)| {
            (c == Confidence::Certain || self.cfg.uncertain == UncertainPolicy::Reject)
                && self.rejects(&f.kind)
        });
        // A finding that did not count says so where it is kept (the `qc` column, the rejects):
        // a reader of a passed dialogue's violations must tell the certain from the reported.
        if self.cfg.uncertain != UncertainPolicy::Reject {
            for (f, &c) in v.iter_mut().zip(&confidence) {
                if c == Confidence::Uncertain {
                    f.message.push_str(UNCERTAIN_NOTE);
                }
            }
        }
        (
            QcResult {
                passed,
                violations: v,
            },
            confidence,
        )
    }

    /// Whether a finding of this kind rejects a dialogue.
    pub fn rejects(&self, kind: &str) -> bool {
        self.cfg.reject_kinds.iter().any(|k| k.matches(kind))
    }
}

/// Structure: turn order, empty turns, the turn cap, ending on the caller.
fn structure(cfg: &CheckConfig, d: &Dialogue) -> Vec<Finding> {
    let mut v = Vec::new();
    for (i, t) in d.turns.iter().enumerate() {
        let expected = if i % 2 == 0 {
            Speaker::Caller
        } else {
            Speaker::Assistant
        };
        if t.speaker != expected {
            v.push(finding(
                ViolationKind::NaturalTurnOrder,
                i,
                &t.text,
                format!(
                    "turn {i} is spoken by the {}, expected the {expected} (the caller speaks first, then they alternate)",
                    t.speaker
                ),
            ));
        }
        if t.text.trim().is_empty() {
            v.push(finding(
                ViolationKind::NaturalEmptyTurn,
                i,
                "",
                format!("turn {i} is empty"),
            ));
        }
    }
    let n = d.turns.len();
    if n > cfg.max_turns {
        v.push(finding(
            ViolationKind::NaturalTurnCap,
            n - 1,
            "",
            format!("{n} turns, more than the cap of {}", cfg.max_turns),
        ));
    }
    if n < cfg.min_turns {
        v.push(finding(
            ViolationKind::NaturalTurnCap,
            n.saturating_sub(1),
            "",
            format!("{n} turns, fewer than the minimum of {}", cfg.min_turns),
        ));
    }
    // Ending on the caller is fine only as the caller's own goodbye after the assistant closed.
    if let Some(last) = d.turns.last()
        && last.speaker != Speaker::Assistant
    {
        let prev_assistant = d
            .turns
            .iter()
            .rposition(|t| t.speaker == Speaker::Assistant);
        let closed_before = prev_assistant.is_some_and(|i| {
            naturalness::is_goodbye_text(&d.turns[i].text, true)
                && naturalness::is_goodbye_text(&last.text, false)
        });
        if !closed_before {
            // Reported on the assistant's last turn, the one that should have closed.
            let at = prev_assistant.unwrap_or(n - 1);
            v.push(finding(
                ViolationKind::NaturalClosing,
                at,
                &d.turns[at].text,
                "the call ends on the caller; the assistant never closed it".into(),
            ));
        }
    }
    v
}

/// Checks a dialogue with the default config.
pub fn check(d: &Dialogue) -> QcResult {
    CheckConfig::default().build().check(d)
}
