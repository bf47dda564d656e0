//! The concepts a preset's trigger can name — roles (快递, 同事, 推销 …) and events (送到,
//! 找不到, 卖完 …), each with the words that name it in a trigger and the words that show it in
//! the caller's talk — and the private facts whose requests the checker recognises.
//!
//! Two sources, both data: the checker's own list (`data/trigger_concepts.toml`, compiled in)
//! and what a scenario file contributes (`[concepts]` and `[[private_facts]]`,
//! [`callbench_model::concepts::ContributedConcepts`], handed over in
//! [`crate::CheckConfig::concepts`] — the checker reads no file). [`Concepts`] is built once
//! per checker: the compiled-in registry, and for every contributing scenario the compiled-in
//! concepts with that scenario's merged in. A dialogue is read with its own scenario's registry
//! ([`Concepts::for_scenario`]), so one scenario's words never change the verdict on another's
//! dialogues.
//!
//! What a concept does beyond its sort is a trait of it, in the data (`pitch`, `protective`,
//! `trade`, `arrival`, `scheduling`: [`ConceptTrait`]), never its name in code.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, MatchKind};
use callbench_model::ModelError;
pub(crate) use callbench_model::concepts::ConceptSort as Sort;
use callbench_model::concepts::{ConceptTrait, ContributedConcepts, ScenarioConcepts};
use std::sync::{Arc, LazyLock};

/// One trigger concept.
#[derive(Debug, Clone)]
pub(crate) struct Concept {
    pub sort: Sort,
    /// Words naming it in a trigger; the first is its name in messages.
    pub names: Vec<String>,
    /// Words in the caller's talk that show it.
    pub shows: Vec<String>,
    traits: Vec<ConceptTrait>,
}

impl Concept {
    /// Whether the concept has trait `t`.
    pub fn has(&self, t: ConceptTrait) -> bool {
        self.traits.contains(&t)
    }
}

/// The concepts one dialogue is read with, compiled into automata.
#[derive(Debug)]
pub struct Registry {
    /// Unique among the registries of a process (a key of caches derived from it).
    pub(crate) id: u64,
    pub(crate) concepts: Vec<Concept>,
    /// Every trigger name, leftmost-longest, and per pattern the concept it names.
    pub(crate) trigger_words: AhoCorasick,
    pub(crate) owner: Vec<usize>,
    /// The words asking for a private fact the scenario declares (`医保卡号`), if it declares any.
    pub(crate) private_asks: Option<AhoCorasick>,
    /// Every concept's `shows` words in one automaton (each word once), searched for every
    /// occurrence: one search of a turn tells, for every concept, where its words are (see
    /// [`Registry::shows_in`]) — a search per concept and clause before.
    shows_all: crate::wordindex::AllMatches,
    /// Per pattern of `shows_all`, the concepts whose word it is.
    shows_owner: Vec<Vec<u32>>,
    /// The gapped words (`放…驿站`): per word, the patterns of its two parts and its concept.
    gapped: Vec<(u32, u32, u32)>,
    /// Per pattern of `shows_all`, whether it is a part of a gapped word.
    gap_part: Vec<bool>,
}

/// The most characters a gapped word's gap holds (`放…驿站` in `放到小区南门驿站`): a compound's
/// name, 小区 and a gate fit (`放…快递柜` in `放杏苑小区门口的快递柜`; case
/// preset/locker-past-a-compound-gate).
const GAP_CHARS: usize = 8;

/// Where a concept's word occurs in a text: (start, end, concept).
pub(crate) type ShowsHit = (u32, u32, u32);

/// Leftmost-longest, as every word list of the checker (`lexicon::ac`); a DFA where one can
/// be built (user words may make one too large), the library's choice otherwise.
fn automaton<S: AsRef<str>>(words: &[S]) -> AhoCorasick {
    let words: Vec<&str> = words.iter().map(AsRef::as_ref).collect();
    let build = |kind| {
        AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(kind)
            .build(&words)
    };
    build(Some(AhoCorasickKind::DFA))
        .or_else(|_| build(None))
        // Only more than u32::MAX patterns fail here.
        .expect("a word list compiles")
}

impl Registry {
    fn new(concepts: Vec<Concept>, private_asks: Vec<&str>) -> Registry {
        let mut words: Vec<&str> = Vec::new();
        let mut owner = Vec::new();
        for (i, c) in concepts.iter().enumerate() {
            for w in &c.names {
                words.push(w);
                owner.push(i);
            }
        }
        let trigger_words = automaton(&words);
        let mut all: Vec<&str> = Vec::new();
        let mut shows_owner: Vec<Vec<u32>> = Vec::new();
        let mut gapped: Vec<(u32, u32, u32)> = Vec::new();
        let mut parts: Vec<usize> = Vec::new();
        for (i, c) in concepts.iter().enumerate() {
            for w in &c.shows {
                // A gapped word (`放…驿站`): its two parts are patterns of their own, owned by
                // no concept unless listed alone too; `shows_in` joins them.
                if let Some((head, tail)) = w.split_once('…') {
                    let mut k = [0u32; 2];
                    for (j, x) in [head, tail].into_iter().enumerate() {
                        k[j] = match all.iter().position(|y| *y == x) {
                            Some(k) => k as u32,
                            None => {
                                all.push(x);
                                shows_owner.push(Vec::new());
                                (all.len() - 1) as u32
                            }
                        };
                        parts.push(k[j] as usize);
                    }
                    gapped.push((k[0], k[1], i as u32));
                    continue;
                }
                match all.iter().position(|x| x == w) {
                    Some(k) => {
                        if !shows_owner[k].contains(&(i as u32)) {
                            shows_owner[k].push(i as u32);
                        }
                    }
                    None => {
                        all.push(w);
                        shows_owner.push(vec![i as u32]);
                    }
                }
            }
        }
        let mut gap_part = vec![false; all.len()];
        for k in parts {
            gap_part[k] = true;
        }
        // Standard semantics: every occurrence of every word is reported.
        let shows_all = crate::wordindex::AllMatches::new(&all).expect("a word list compiles");
        static NEXT_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Registry {
            id: NEXT_ID.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            trigger_words,
            owner,
            private_asks: (!private_asks.is_empty()).then(|| automaton(&private_asks)),
            concepts,
            shows_all,
            shows_owner,
            gapped,
            gap_part,
        }
    }

    /// Every occurrence of every concept's `shows` words in `text`, sorted by start and, at
    /// one start, longest first. An automaton of concept `ci`'s words alone would match a
    /// slice `text[a..b]` exactly when an occurrence of `ci` lies within `a..b`
    /// ([`shows_within`]), and its leftmost-longest `find_iter` would find
    /// [`leftmost_longest`] of these.
    pub(crate) fn shows_in(&self, text: &str) -> Vec<ShowsHit> {
        let mut v: Vec<ShowsHit> = Vec::new();
        let mut parts: Vec<(u32, u32, u32)> = Vec::new();
        self.shows_all.for_each(text, |start, end, p| {
            for &ci in &self.shows_owner[p] {
                v.push((start as u32, end as u32, ci));
            }
            if self.gap_part[p] {
                parts.push((start as u32, end as u32, p as u32));
            }
        });
        // A gapped word: its head, then its tail after at most `GAP_CHARS` characters of the
        // same clause (no punctuation between; case preset/locker-gap-stops-at-a-clause).
        for &(h, t, ci) in &self.gapped {
            for &(hs, he, _) in parts.iter().filter(|x| x.2 == h) {
                let tail = parts.iter().filter(|x| x.2 == t && x.0 >= he).find(|x| {
                    let gap = &text[he as usize..x.0 as usize];
                    gap.chars().count() <= GAP_CHARS && gap.chars().all(crate::text::is_han)
                });
                if let Some(&(_, te, _)) = tail {
                    v.push((hs, te, ci));
                }
            }
        }
        v.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        v
    }

    /// Whether `text` shows a delivery trade's role (外卖, 快递, 司机: the `trade` trait)
    /// anywhere.
    pub(crate) fn trade_shown(&self, text: &str) -> bool {
        self.shows_in(text).iter().any(|&(_, _, ci)| {
            let ci = ci as usize;
            self.sort(ci) == Sort::Role && self.has(ci, ConceptTrait::Trade)
        })
    }

    /// The number of concepts.
    pub(crate) fn len(&self) -> usize {
        self.concepts.len()
    }

    /// Concept `ci`'s sort.
    pub(crate) fn sort(&self, ci: usize) -> Sort {
        self.concepts[ci].sort
    }

    /// Whether concept `ci` has trait `t`.
    pub(crate) fn has(&self, ci: usize, t: ConceptTrait) -> bool {
        self.concepts[ci].has(t)
    }

    /// Whether the match `range` of `text` lies inside a request for a private fact the
    /// scenario declares (`医保卡号` around the scam word `卡号`).
    pub(crate) fn asks_private_fact(&self, text: &str, range: std::ops::Range<usize>) -> bool {
        self.private_asks.as_ref().is_some_and(|a| {
            a.find_iter(text)
                .any(|m| m.start() <= range.start && range.end <= m.end())
        })
    }
}

/// Whether concept `ci` has an occurrence within bytes `range` (of the text `hits` are of).
pub(crate) fn shows_within(hits: &[ShowsHit], ci: usize, range: std::ops::Range<usize>) -> bool {
    hits.iter()
        .any(|&(a, b, c)| c as usize == ci && a as usize >= range.start && b as usize <= range.end)
}

/// Concept `ci`'s matches as its own leftmost-longest automaton finds them one after another:
/// (start, end).
pub(crate) fn leftmost_longest(
    hits: &[ShowsHit],
    ci: usize,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut pos = 0usize;
    let mut rest = hits.iter();
    std::iter::from_fn(move || {
        let &(a, b, _) = rest
            .by_ref()
            .find(|&&(a, _, c)| c as usize == ci && a as usize >= pos)?;
        pos = b as usize;
        Some((a as usize, b as usize))
    })
}

/// The checker's own concepts, `data/trigger_concepts.toml`.
fn compiled_in() -> &'static [Concept] {
    static C: LazyLock<Vec<Concept>> = LazyLock::new(|| {
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            concept: Vec<Entry>,
        }
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Entry {
            sort: Sort,
            names: String,
            shows: String,
            #[serde(default)]
            traits: Vec<ConceptTrait>,
        }
        // Shipped inside the crate and read by every test: a broken edit fails the tests,
        // never a user's run.
        let file: File = toml::from_str(include_str!("../data/trigger_concepts.toml"))
            .unwrap_or_else(|e| panic!("quality-checker data/trigger_concepts.toml: {e}"));
        file.concept
            .into_iter()
            .map(|e| Concept {
                sort: e.sort,
                names: e.names.split_whitespace().map(String::from).collect(),
                shows: e.shows.split_whitespace().map(String::from).collect(),
                traits: e.traits,
            })
            .collect()
    });
    &C
}

/// The registry of the compiled-in concepts alone.
fn base() -> &'static Registry {
    static R: LazyLock<Registry> =
        LazyLock::new(|| Registry::new(compiled_in().to_vec(), Vec::new()));
    &R
}

/// Builds the compiled-in registry, whose words are lists of the union ([`crate::wordindex`]:
/// the union of all lists is built once they are all known; a scenario's registry is built
/// with the checker).
pub(crate) fn build_lists() {
    base();
}

/// The concept a trigger name names among `concepts`.
fn named(concepts: &[Concept], name: &str) -> Option<usize> {
    concepts
        .iter()
        .position(|c| c.names.iter().any(|n| n == name.trim()))
}

/// The compiled-in concepts with a scenario's merged in: its new concepts after the
/// compiled-in ones (a trigger name is read as the longest concept name it holds, so
/// `宠物医院` is not read as `医院`), then its words added to the concepts they name. A words
/// entry naming no concept is left out (it cannot pass [`check_contributed`]).
fn merged(s: &ScenarioConcepts) -> Registry {
    let mut concepts = compiled_in().to_vec();
    concepts.extend(s.trigger.iter().map(|t| Concept {
        sort: t.sort,
        names: t.names.iter().map(|n| n.trim().to_string()).collect(),
        shows: t.shows.iter().map(|w| w.trim().to_string()).collect(),
        traits: t.traits.clone(),
    }));
    for w in &s.words {
        if let Some(ci) = named(&concepts, &w.concept) {
            concepts[ci]
                .shows
                .extend(w.shows.iter().map(|w| w.trim().to_string()));
        }
    }
    let asks: Vec<&str> = s
        .private_facts
        .iter()
        .flat_map(|f| f.asks.iter().map(|a| a.trim()))
        .collect();
    Registry::new(concepts, asks)
}

/// Checks what the scenario files contribute against the checker's own concepts: a new
/// trigger name must not be one the checker knows already (it would never be read as the new
/// concept: add words to the known one with `[[concepts.words]]` instead), and a
/// `[[concepts.words]]` entry must name a concept the checker knows or the file adds. The
/// error names the file and the key. (Each file on its own is checked when it is parsed,
/// `ScenarioFile::validate`.)
pub fn check_contributed(c: &ContributedConcepts) -> Result<(), ModelError> {
    let known = compiled_in();
    for s in &c.scenarios {
        let err = |key: String, message: String| ModelError::Scenario {
            file: s.source.clone(),
            key,
            message,
        };
        for (i, t) in s.trigger.iter().enumerate() {
            for (j, n) in t.names.iter().enumerate() {
                if let Some(ci) = named(known, n) {
                    return Err(err(
                        format!("concepts.trigger[{i}].names[{j}]"),
                        format!(
                            "{n:?} names a concept the checker knows already ({}, \
                             crates/quality-checker/data/trigger_concepts.toml): add words to \
                             it with [[concepts.words]] concept = {n:?}",
                            known[ci].names.join(" ")
                        ),
                    ));
                }
            }
        }
        for (i, w) in s.words.iter().enumerate() {
            let own = s
                .trigger
                .iter()
                .any(|t| t.names.iter().any(|n| n.trim() == w.concept.trim()));
            if !own && named(known, &w.concept).is_none() {
                return Err(err(
                    format!("concepts.words[{i}].concept"),
                    format!(
                        "{:?} is no trigger name of a concept the checker knows \
                         (crates/quality-checker/data/trigger_concepts.toml) nor of this \
                         file's [[concepts.trigger]]",
                        w.concept
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// Every registry a checker reads dialogues with: the compiled-in one, and one per scenario
/// that contributes concepts.
#[derive(Debug, Clone)]
pub struct Concepts {
    scenarios: Arc<Vec<(String, Registry)>>,
}

impl Concepts {
    /// Builds the registries (once per checker: automata are compiled here).
    pub fn build(c: &ContributedConcepts) -> Concepts {
        Concepts {
            scenarios: Arc::new(
                c.scenarios
                    .iter()
                    .map(|s| (s.scenario.clone(), merged(s)))
                    .collect(),
            ),
        }
    }

    /// The registry for a dialogue of scenario `name`: the compiled-in concepts, with the
    /// scenario's own when it contributes any.
    pub fn for_scenario(&self, name: &str) -> &Registry {
        self.scenarios
            .iter()
            .find(|(n, _)| n == name)
            .map_or(base(), |(_, r)| r)
    }

    /// The compiled-in registry.
    pub fn compiled_in() -> &'static Registry {
        base()
    }
}
