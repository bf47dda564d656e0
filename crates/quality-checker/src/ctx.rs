//! What every detector needs about one dialogue, computed once: clauses, bigrams and numbers of
//! every turn, the presets' words, the owner's names and private facts, what the caller said.

use crate::CheckConfig;
use crate::lexicon;
use crate::lexicon::{Words, lists};
use crate::text::{self, Clause, Num};
use callbench_model::{Dialogue, Speaker};
use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::ops::Range;
use std::rc::Rc;
use std::sync::LazyLock;

/// One turn, analysed.
#[derive(Debug)]
pub struct TurnCtx<'a> {
    /// Index into `turns`.
    pub idx: usize,
    /// What was said.
    pub text: &'a str,
    /// Spoken by the assistant.
    pub assistant: bool,
    /// Its clauses.
    pub clauses: Vec<Clause>,
    /// Its character pairs, clause by clause (assistant turns only: read in the same walk as
    /// the clauses, see [`text::Scan`]); the clauses' bigrams and word counts are read off
    /// them instead of walking each clause again.
    pub pairs: text::Pairs,
    /// How many of its characters can be a digit (assistant turns only, see
    /// [`text::Scan::digitish`]).
    pub digitish: usize,
    /// How many of its characters are not plain (assistant turns only, see
    /// [`text::Scan::unplain`]).
    pub unplain: usize,
    /// Per clause: the clause is (nearly) the owner's own preset words.
    pub covered: Vec<bool>,
    /// Its bigrams (assistant turns only; use [`crate::text::bigrams`] on a caller's text).
    pub bigrams: Vec<u64>,
    /// Its numbers (assistant turns only; the caller's are in [`Ctx::caller_values`]).
    pub nums: Vec<Num>,
    /// Quoted spans.
    pub quoted: Vec<Range<usize>>,
    /// Relay / defer / doubt / reported-speech words (assistant turns): (start, end, marks), see
    /// [`lexicon::marks`].
    marks: OnceCell<Vec<(usize, usize, u8)>>,

    /// The owner claims of this turn (see [`crate::privacy::owner_claims`]), once computed.
    pub(crate) claims: OnceCell<Vec<OwnerClaim<'a>>>,
    /// A caller turn's bigrams, once asked for (see [`TurnCtx::all_bigrams`]).
    caller_bigrams: OnceCell<Vec<u64>>,
    /// Whether the turn says goodbye, in the caller's words and in the assistant's (see
    /// [`TurnCtx::says_goodbye`]), once asked for.
    goodbye: [OnceCell<bool>; 2],
    /// What the preset checks read of a caller turn for every preset and trigger (see
    /// `crate::preset::TurnFacts`), once asked for.
    pub(crate) preset_facts: OnceCell<crate::preset::TurnFacts>,
    /// What the proxy checks read of a caller turn, per preset and turn after it (see
    /// `crate::proxy::TurnMemo`), once asked for.
    pub(crate) proxy: crate::proxy::TurnMemo,
    /// Whether the turn only acknowledges or complies (`crate::preset`'s `complied`), once
    /// asked for.
    pub(crate) complied: OnceCell<bool>,
}

impl TurnCtx<'_> {
    /// [`crate::naturalness::is_goodbye_text`] of the turn, on the clauses already split, and
    /// once per turn (the closing checks ask it of the same turn more than once).
    pub fn says_goodbye(&self, assistant_words: bool) -> bool {
        *self.goodbye[usize::from(assistant_words)].get_or_init(|| {
            crate::naturalness::turn_says_goodbye(self.text, &self.clauses, assistant_words)
        })
    }

    /// The turn's bigrams, whoever speaks: [`TurnCtx::bigrams`] for the assistant, computed on
    /// first use for the caller (several detectors compare against what the caller said, some
    /// once per word: computing them there again was a sort per call).
    pub fn all_bigrams(&self) -> &[u64] {
        if self.assistant {
            &self.bigrams
        } else {
            self.caller_bigrams.get_or_init(|| text::bigrams(self.text))
        }
    }

    /// Whether a word with one of the `mask` marks lies within bytes `range` of the turn.
    pub fn has_mark(&self, range: Range<usize>, mask: u8) -> bool {
        self.marks
            .get_or_init(|| lexicon::marks(self.text))
            .iter()
            .any(|&(a, b, m)| m & mask != 0 && a >= range.start && b <= range.end)
    }

    /// Whether clause `ci` starts with a condition (`如果`, `要是`) or says `…的话`.
    pub fn conditional(&self, ci: usize) -> bool {
        lexicon::conditional(self.clauses[ci].text(self.text))
    }

    /// Whether clause `ci` holds a word with one of the `mask` marks.
    pub fn clause_has(&self, ci: usize, mask: u8) -> bool {
        let c = self.clauses[ci];
        self.has_mark(c.start..c.end, mask)
    }

    /// The clause holding byte offset `pos`.
    pub fn clause_at(&self, pos: usize) -> Option<(usize, &Clause)> {
        self.clauses
            .iter()
            .enumerate()
            .find(|(_, c)| c.start <= pos && pos < c.end.max(c.start + 1))
    }
}

/// A preset, analysed.
#[derive(Debug)]
pub struct PresetCtx<'a> {
    /// Its id.
    pub id: &'a str,
    /// The condition in words.
    pub trigger: &'a str,
    /// The owner's allowed words.
    pub response: &'a str,
    /// What is read of its trigger and response alone, shared by every dialogue with the same
    /// preset (see [`PresetInfo`]).
    pub(crate) info: Rc<PresetInfo>,
}

impl PresetCtx<'_> {
    /// Bigrams of the response.
    pub fn bigrams(&self) -> &[u64] {
        &self.info.bigrams
    }

    /// The content bigrams of the response: its words without the frame and the courtesies
    /// (`crate::preset::preset_content`), computed once per preset, not per turn.
    pub fn content(&self) -> &[u64] {
        self.info
            .content
            .get_or_init(|| crate::preset::preset_content(self.response))
    }

    /// Bigrams of the response without the frame that tells the assistant to pass it on
    /// (`crate::preset::preset_core`): [`PresetCtx::bigrams`] when there is no frame. Once per
    /// preset; it was computed again for every assistant turn.
    pub fn core_bigrams(&self) -> &[u64] {
        self.info
            .core_bigrams
            .get_or_init(|| {
                let core = crate::preset::preset_core(self.response);
                (core.len() != self.response.trim_start().len()).then(|| text::bigrams(core))
            })
            .as_deref()
            .unwrap_or(&self.info.bigrams)
    }

    /// The digits of the response and of the trigger, one after the other
    /// ([`text::digit_string`]).
    pub fn digits(&self) -> &str {
        self.info
            .digits
            .get_or_init(|| text::digit_string(self.response) + &text::digit_string(self.trigger))
    }

    /// Bigrams of the trigger.
    pub fn trigger_bigrams(&self) -> &[u64] {
        self.info
            .trigger_bigrams
            .get_or_init(|| text::bigrams(self.trigger))
    }
}

/// What the checks read of a preset's trigger and response alone — nothing of the dialogue, the
/// owner or the scenario: the same for every dialogue with that preset, so computed once per
/// distinct preset on a thread ([`preset_info`]) and shared. Presets repeat across dialogues
/// (an owner's are drawn from a scenario's pool: the export of 20,000 offline dialogues holds
/// 174 distinct presets in 20,254, and 20,000 distinct owners). Read on first use, as before.
#[derive(Debug)]
pub(crate) struct PresetInfo {
    /// The trigger and the response it was read from (the cache's key, compared in full).
    trigger: Box<str>,
    response: Box<str>,
    /// Bigrams of the response.
    bigrams: Vec<u64>,
    /// See [`PresetCtx::content`].
    content: OnceCell<Vec<u64>>,
    /// See [`PresetCtx::core_bigrams`].
    core_bigrams: OnceCell<Option<Vec<u64>>>,
    /// See [`PresetCtx::trigger_bigrams`].
    trigger_bigrams: OnceCell<Vec<u64>>,
    /// See [`PresetCtx::digits`].
    digits: OnceCell<String>,
    /// Whether the preset turns a kind of caller away (`crate::proxy::protective`).
    pub(crate) protective: OnceCell<bool>,
    /// Whether it does so by the protective words alone (`crate::proxy::protective_in_words`;
    /// asked by `crate::preset`'s `conflict_at` of every dialogue with the preset).
    pub(crate) protective_in_words: OnceCell<bool>,
    /// The bigrams of the response's own instructions (`crate::preset`'s conveyance of a part).
    pub(crate) instructions: OnceCell<Vec<Vec<u64>>>,
    /// The response's own content bigrams an objection names (`crate::preset`'s `objection_at`).
    pub(crate) objection_words: OnceCell<Vec<u64>>,
    /// Which word lists about presets its words hold (`crate::preset::PresetWords`).
    pub(crate) words: OnceCell<crate::preset::PresetWords>,
    /// Its trigger read with a concept registry, per registry id (`crate::preset`'s
    /// `trigger_of`).
    pub(crate) triggers: RefCell<Vec<(u64, Rc<crate::preset::Trigger>)>>,
}

/// The [`PresetInfo`] of a trigger and a response: from the thread's cache when a dialogue
/// checked before had the same preset (looked up by a hash of both, then compared in full),
/// else read now and kept. (Bounded: a long-running process may see any number of presets.)
pub(crate) fn preset_info(trigger: &str, response: &str) -> Rc<PresetInfo> {
    type Cache = HashMap<u64, Vec<Rc<PresetInfo>>>;
    thread_local! {
        static CACHE: RefCell<Cache> = RefCell::new(Cache::new());
    }
    let key = {
        let mut h = std::hash::DefaultHasher::new();
        (trigger, response).hash(&mut h);
        h.finish()
    };
    CACHE.with_borrow_mut(|c| {
        if let Some(p) = c.get(&key).and_then(|v| {
            v.iter()
                .find(|p| &*p.trigger == trigger && &*p.response == response)
        }) {
            return Rc::clone(p);
        }
        if c.len() >= 4096 {
            c.clear();
        }
        let p = Rc::new(PresetInfo {
            trigger: trigger.into(),
            response: response.into(),
            bigrams: text::bigrams(response),
            content: OnceCell::new(),
            core_bigrams: OnceCell::new(),
            trigger_bigrams: OnceCell::new(),
            digits: OnceCell::new(),
            protective: OnceCell::new(),
            protective_in_words: OnceCell::new(),
            instructions: OnceCell::new(),
            objection_words: OnceCell::new(),
            words: OnceCell::new(),
            triggers: RefCell::new(Vec::new()),
        });
        c.entry(key).or_default().push(Rc::clone(&p));
        p
    })
}

/// A private fact of the owner, cut into the fragments whose mention discloses it.
#[derive(Debug)]
pub struct PrivateFact<'a> {
    /// `phone`, `address`, `schedule`, … (the profile's key).
    pub key: &'a str,
    /// The fact.
    pub value: &'a str,
    /// Distinctive literal fragments (a compound's name, a road, `2702室`).
    pub fragments: Vec<&'a str>,
    /// The address's numbered parts as they are spoken (`三号楼` of `3号楼`, `二十一栋` and
    /// `二一栋` of `21栋`; case privacy/building-in-chinese-numerals), unless the caller said them
    /// first (case privacy/building-the-caller-said).
    pub spoken: Vec<String>,
    /// Digit strings (phone, room number).
    pub digits: Vec<String>,
    /// Content bigrams (free-text facts such as a schedule).
    pub bigrams: Vec<u64>,
}

/// A statement of the assistant about the owner's whereabouts, schedule, family or workplace (found by
/// [`crate::privacy::owner_claims`], kept per turn here; read by privacy and factuality).
#[derive(Debug)]
pub(crate) struct OwnerClaim<'a> {
    /// The clause saying it.
    pub clause: &'a str,
    /// The sentence around it.
    pub sentence: &'a str,
    /// `schedule or whereabouts`, `family` or `workplace`.
    pub what: &'static str,
    /// The word that shows it.
    pub word: &'a str,
}

/// The caller did not hear the last turn (`你刚才说什么？`; see [`Ctx::unheard`]).
static NOT_HEARD: LazyLock<lexicon::Ac> = LazyLock::new(|| lexicon::ac(&lists().ctx.not_heard));

/// The caller hands the phone to someone else (`我让他跟您说`; see [`Ctx::unheard`]).
static HANDS_OVER: LazyLock<lexicon::Ac> = LazyLock::new(|| lexicon::ac(&lists().ctx.hands_over));

/// The per-dialogue context handed to every detector.
#[derive(Debug)]
pub struct Ctx<'a> {
    /// The dialogue.
    pub d: &'a Dialogue,
    /// The checker's settings.
    pub cfg: &'a CheckConfig,
    /// The concepts the dialogue is read with: the compiled-in ones, with its scenario's own
    /// (see [`crate::concepts`]).
    pub concepts: &'a crate::concepts::Registry,
    /// Every turn, analysed.
    pub turns: Vec<TurnCtx<'a>>,
    /// The presets.
    pub presets: Vec<PresetCtx<'a>>,
    /// Bigrams of all preset responses.
    pub preset_bigrams: Vec<u64>,
    /// All preset responses and triggers and the owner's public facts, joined.
    pub allowed_text: String,
    /// Numbers of `allowed_text` (computed on first use, see [`Ctx::grounded_value`]).
    allowed_nums: OnceCell<Vec<(f64, text::NumKind)>>,
    /// Ways to name the owner: title, name, surname + 先生/女士, 机主.
    pub owner_refs: Vec<&'a str>,
    /// The owner's surname, if known.
    pub surname: Option<char>,
    /// Last characters of the owner references (sorted), to test `ends_with` cheaply.
    ref_last: Vec<char>,
    /// The owner's private facts (computed on first use, see [`Ctx::private`]).
    private: OnceCell<Vec<PrivateFact<'a>>>,
    /// The caller sells, scams, collects or harasses (refusing them is not a decision).
    solicitation: OnceCell<bool>,
    /// All private facts, joined (what only privacy may report).
    pub private_text: String,
    /// Bigrams of `private_text`, function bigrams included (computed on first use).
    private_bigrams: OnceCell<text::BigramSet>,
    /// Numbers of `private_text` (computed on first use).
    private_nums: OnceCell<Vec<f64>>,
    /// Digits of `allowed_text` (computed on first use, see [`Ctx::grounded_digits`]).
    allowed_digits: OnceCell<String>,
    /// Everything the caller said, turn after turn.
    caller_concat: String,
    /// Digits the caller said, turn after turn, and per turn index where they end before it
    /// (computed on first use).
    caller_digits: OnceCell<(String, Vec<usize>)>,
    /// Numbers the caller said: (turn, value) (computed on first use).
    caller_nums: OnceCell<Vec<(usize, f64, text::NumKind)>>,
    /// Per turn index: where `caller_concat` ends before that turn.
    caller_end: Vec<usize>,
    /// Per turn index: whether a caller turn says it did not hear, and whether it hands the
    /// phone over (computed on first use, see [`Ctx::unheard`]).
    hearing: OnceCell<Vec<(bool, bool)>>,
    /// Findings a detector reported as uncertain: (turn, kind) (see [`Ctx::uncertain`]).
    uncertain: std::cell::RefCell<Vec<(usize, String, String)>>,
}

impl<'a> Ctx<'a> {
    /// Whether what the assistant said in turn `earlier` had not reached whoever listens at
    /// turn `later` (both assistant turns): the caller said they did not hear it and `later` is
    /// the next reply, or the phone was handed to someone else in between who has spoken since.
    /// Said again then, it is said for the first time to that listener: no repetition (cases
    /// naturalness/said-again-to-a-caller-who-did-not-hear, preset/said-again-after-a-hand-over).
    pub fn unheard(&self, earlier: usize, later: usize) -> bool {
        let hearing = self.hearing.get_or_init(|| {
            self.turns
                .iter()
                .map(|t| {
                    if t.assistant {
                        return (false, false);
                    }
                    (NOT_HEARD.is_match(t.text), HANDS_OVER.is_match(t.text))
                })
                .collect()
        });
        if later == earlier + 2 && hearing.get(earlier + 1).is_some_and(|h| h.0) {
            return true;
        }
        let later = later.min(hearing.len());
        (earlier + 1..later)
            .any(|h| hearing[h].1 && (h + 1..later).any(|c| !self.turns[c].assistant))
    }

    /// Analyses a dialogue, with the compiled-in concepts alone.
    pub fn new(d: &'a Dialogue, cfg: &'a CheckConfig) -> Ctx<'a> {
        Ctx::with_concepts(d, cfg, crate::concepts::Concepts::compiled_in())
    }

    /// Analyses a dialogue, reading it with `concepts` (its scenario's: see
    /// [`crate::concepts::Concepts::for_scenario`]).
    pub fn with_concepts(
        d: &'a Dialogue,
        cfg: &'a CheckConfig,
        concepts: &'a crate::concepts::Registry,
    ) -> Ctx<'a> {
        let presets: Vec<PresetCtx<'a>> = d
            .owner
            .presets
            .iter()
            .map(|p| PresetCtx {
                id: &p.id,
                trigger: &p.trigger,
                response: &p.response,
                info: preset_info(&p.trigger, &p.response),
            })
            .collect();
        // (The union of the responses' bigram sets: one preset's own, or their merge.)
        let preset_bigrams = match &presets[..] {
            [p] => p.bigrams().to_vec(),
            ps => text::finish(ps.iter().flat_map(|p| p.bigrams()).copied().collect()),
        };

        let mut allowed_text = String::with_capacity(
            d.owner
                .presets
                .iter()
                .map(|p| p.response.len() + p.trigger.len() + 2)
                .chain(d.owner.public.values().map(|v| v.len() + 1))
                .sum(),
        );
        for p in &d.owner.presets {
            allowed_text.push_str(&p.response);
            allowed_text.push('|');
            allowed_text.push_str(&p.trigger);
            allowed_text.push('|');
        }
        for v in d.owner.public.values() {
            allowed_text.push_str(v);
            allowed_text.push('|');
        }

        let title = d.owner.public.get("title").map(String::as_str);
        let surname = title
            .and_then(|t| t.chars().next())
            .or_else(|| d.owner.name.chars().next())
            .filter(|c| text::is_han(*c));
        // Whole references; the surname-based ones (王先生, 小王) are checked structurally.
        let mut owner_refs: Vec<&'a str> = lists().ctx.owner_roles.to_vec();
        if let Some(t) = title {
            owner_refs.push(t);
        }
        if d.owner.name.chars().count() >= 2 {
            owner_refs.push(&d.owner.name);
        }
        // The last characters of the owner's references: the lists' sorted once
        // (`REF_LAST_OF_LISTS`), the title's, the name's and the surname put in their places.
        let mut ref_last: Vec<char> = REF_LAST_OF_LISTS.clone();
        for c in owner_refs[lists().ctx.owner_roles.len()..]
            .iter()
            .filter_map(|r| r.chars().next_back())
            .chain(surname)
        {
            if let Err(i) = ref_last.binary_search(&c) {
                ref_last.insert(i, c);
            }
        }
        let preset_filter = text::BigramFilter::new(&preset_bigrams);
        let turns: Vec<TurnCtx<'a>> = d
            .turns
            .iter()
            .enumerate()
            .map(|(idx, t)| {
                let assistant = t.speaker == Speaker::Assistant;
                // An assistant turn's clauses and pairs in one walk; a caller's clauses alone
                // (its bigrams are read on demand, for a third of the turns).
                let text::Scan {
                    clauses,
                    pairs,
                    digitish,
                    numerals,
                    unplain,
                } = if assistant {
                    text::scan(&t.text)
                } else {
                    text::Scan {
                        clauses: text::clauses(&t.text),
                        ..Default::default()
                    }
                };
                let bigrams = if assistant {
                    text::finish(pairs.all().to_vec())
                } else {
                    Vec::new()
                };
                // A clause's bigrams, its attribution cut or not, are bigrams of the turn: in a
                // turn that shares none with the presets no clause has one, and none is covered
                // (unless the threshold is 0 or below), so its clauses are not walked.
                let needs_a_hit = !matches!(
                    cfg.preset_covered_similarity.partial_cmp(&0.0),
                    Some(std::cmp::Ordering::Less | std::cmp::Ordering::Equal)
                );
                let covered = if assistant
                    && !preset_bigrams.is_empty()
                    // (Each of the turn's bigrams asked of the presets' filter: most are in no
                    // preset, turned away by a bit, where a merge walked both lists.)
                    && (!needs_a_hit || bigrams.iter().any(|&b| preset_filter.contains(b)))
                {
                    // The turn's attributions, every occurrence, read once (off its index): a
                    // clause's are those inside its head (each asked its head before).
                    let mut attrs: Vec<(usize, usize, usize)> = Vec::new();
                    ATTRIBUTIONS.for_each(&t.text, |i, end, k| attrs.push((i, end, k)));
                    clauses
                        .iter()
                        .enumerate()
                        .map(|(ci, c)| {
                            let clause = c.text(&t.text);
                            let said = if attrs.is_empty() {
                                clause
                            } else {
                                strip_attribution_in(clause, c.start, &attrs)
                            };
                            covered_by(&preset_filter, clause, said, Some(pairs.of(ci)), cfg)
                        })
                        .collect()
                } else {
                    vec![false; clauses.len()]
                };
                TurnCtx {
                    idx,
                    text: &t.text,
                    assistant,
                    covered,
                    bigrams,
                    nums: if assistant {
                        text::scanned_numbers(&t.text, numerals)
                    } else {
                        Vec::new()
                    },
                    quoted: if assistant {
                        text::quoted_ranges(&t.text)
                    } else {
                        Vec::new()
                    },
                    marks: OnceCell::new(),

                    claims: OnceCell::new(),
                    caller_bigrams: OnceCell::new(),
                    goodbye: Default::default(),
                    preset_facts: OnceCell::new(),
                    proxy: Default::default(),
                    complied: OnceCell::new(),
                    clauses,
                    pairs,
                    digitish,
                    unplain,
                }
            })
            .collect();

        let mut private_text =
            String::with_capacity(d.owner.private.values().map(|v| v.len() + 1).sum());
        for v in d.owner.private.values() {
            private_text.push_str(v);
            private_text.push('|');
        }
        let mut caller_concat = String::with_capacity(
            turns
                .iter()
                .filter(|t| !t.assistant)
                .map(|t| t.text.len() + 1)
                .sum(),
        );
        let mut caller_end = Vec::with_capacity(turns.len() + 1);
        for t in &turns {
            caller_end.push(caller_concat.len());
            if !t.assistant {
                caller_concat.push_str(t.text);
                caller_concat.push('|');
            }
        }
        caller_end.push(caller_concat.len());
        Ctx {
            caller_concat,
            caller_digits: OnceCell::new(),
            caller_nums: OnceCell::new(),
            private_nums: OnceCell::new(),
            private_bigrams: OnceCell::new(),
            caller_end,
            private_text,
            allowed_digits: OnceCell::new(),
            d,
            cfg,
            concepts,
            turns,
            presets,
            preset_bigrams,
            allowed_text,
            allowed_nums: OnceCell::new(),
            owner_refs,
            ref_last,
            surname,
            private: OnceCell::new(),
            solicitation: OnceCell::new(),
            uncertain: Default::default(),
            hearing: OnceCell::new(),
        }
    }

    /// Marks a finding as uncertain: the words may be read either way (see
    /// [`crate::Confidence`]). Certain is the default.
    pub fn uncertain(&self, f: &crate::Finding) {
        self.uncertain
            .borrow_mut()
            .push((f.turn, f.kind.clone(), f.message.clone()));
    }

    /// Whether finding `f` was marked uncertain (kind, turn and message: another detector's
    /// finding of the same kind on the same turn is not).
    pub fn is_uncertain(&self, f: &crate::Finding) -> bool {
        let u = self.uncertain.borrow();
        !u.is_empty()
            && u.iter()
                .any(|(t, k, m)| *t == f.turn && *k == f.kind && *m == f.message)
    }

    /// The owner's private facts, cut into fragments.
    pub fn private(&self) -> &[PrivateFact<'a>] {
        self.private.get_or_init(|| {
            // The allowed text's bigrams, once, not once per fact, and only for a fact with
            // bigrams: the presets' responses' (`preset_bigrams`, sorted already) and the
            // triggers' and public facts' (no bigram spans the `|` between them).
            let allowed = OnceCell::new();
            let allowed = || -> &Vec<u64> {
                allowed.get_or_init(|| {
                    let mut v: Vec<u64> = Vec::new();
                    for p in &self.presets {
                        v.extend_from_slice(p.trigger_bigrams());
                    }
                    for x in self.d.owner.public.values() {
                        text::push_bigrams(x, &mut v);
                    }
                    text::finish(v)
                })
            };
            self.d
                .owner
                .private
                .iter()
                .filter(|(_, v)| !v.trim().is_empty())
                .map(|(k, v)| {
                    // What the owner made public or put in a preset (the company of a private
                    // workplace, the compound of a preset's drop point) is not private.
                    let mut f = private_fact(k, v);
                    if !self.allowed_text.is_empty() {
                        f.fragments.retain(|fr| !self.allowed_text.contains(fr));
                        f.spoken
                            .retain(|fr| !self.allowed_text.contains(fr.as_str()));
                        if !f.bigrams.is_empty() {
                            let (pb, others) = (&self.preset_bigrams, allowed());
                            f.bigrams.retain(|b| {
                                pb.binary_search(b).is_err() && others.binary_search(b).is_err()
                            });
                        }
                    }
                    f
                })
                .collect()
        })
    }

    /// Whether assistant turn `t` could say anything of the private facts: it shares a content
    /// character pair with them, or says 4+ digits in a row. Cheap; decides whether the facts
    /// need cutting at all.
    pub fn may_touch_private(&self, t: &TurnCtx, has_digit_runs: bool) -> bool {
        if self.private_text.is_empty() {
            return false;
        }
        if has_digit_runs {
            return true;
        }
        // (The function bigrams are passed over among the shared ones, a few, rather than
        // taken out of all the facts' bigrams, some sixty per dialogue. The facts' bigrams are
        // a hash set: each of the turn's bigrams is one probe, where a sorted list cost a sort
        // per dialogue and a merge per turn.)
        let pb = self
            .private_bigrams
            .get_or_init(|| text::BigramSet::of(&self.private_text));
        t.bigrams
            .iter()
            .any(|&b| pb.contains(b) && !lexicon::is_function_bigram(b))
    }

    /// The caller sells, scams, collects or harasses (ending such a call early is fine).
    pub fn solicitation(&self) -> bool {
        *self.solicitation.get_or_init(|| {
            // From what was said: the caller sells, scams or threatens, or the assistant has to
            // tell them not to call again. The harassment scenario still counts too: without it,
            // 175 of the 50,000 offline dialogues (0.35%; rightful hang-ups on scammers whose
            // wording these signals miss) would be rejected.
            self.d.scenario == "harassment"
                || self.turns.iter().any(|t| {
                    if t.assistant {
                        lexicon::SETS_BOUNDARY.is_match(t.text)
                    } else {
                        // Selling, or asking what only a scam asks, or pressing with a threat.
                        lexicon::solicits(t.text)
                            || crate::proxy::scam_request_in(self, t.text).is_some()
                            || crate::proxy::threatens(t.text)
                    }
                })
        })
    }

    /// The numbers the caller said, with the turn they were said in and what they measure.
    pub fn caller_values(&self) -> &[(usize, f64, text::NumKind)] {
        self.caller_nums.get_or_init(|| {
            let mut v = Vec::new();
            for t in self.turns.iter().filter(|t| !t.assistant) {
                for n in text::numbers(t.text) {
                    // A lone digit inside a code (the `5` of a plate `霁A·5T318`) is no amount: it
                    // grounds the code's digits, not a `五分钟` (case
                    // factuality/preset-minutes-changed).
                    let in_code = t.text[..n.start]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphabetic() || c == '·')
                        || t.text[n.end..]
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic());
                    // (A longer run of a code — `802` of `5T802` — may ground the same run.)
                    if !in_code || t.text[n.start..n.end].chars().count() > 1 {
                        v.extend(n.values().iter().map(|&x| (t.idx, x, n.kind)));
                    }
                }
                if t.text.contains('第') {
                    v.extend(
                        text::ordinal_values(t.text)
                            .into_iter()
                            .map(|x| (t.idx, x, text::NumKind::Count)),
                    );
                }
            }
            v
        })
    }

    /// The numbers of the owner's private facts.
    pub fn private_nums(&self) -> &[f64] {
        self.private_nums.get_or_init(|| {
            text::numbers(&self.private_text)
                .iter()
                .flat_map(|n| n.values().to_vec())
                .collect()
        })
    }

    /// Everything the caller said, joined.
    pub fn caller_text(&self) -> &str {
        &self.caller_concat
    }

    /// Whether a word of `list` occurs in what the caller said: `list.is_match(caller_text())`,
    /// asked of each caller turn instead, where the turn's index answers at once (the joined
    /// text is no turn's and would be searched with the list's own automaton). The same answer
    /// when no word of the list holds the joining `|` (test `caller_words_hold_no_separator`).
    pub fn caller_says(&self, list: &lexicon::Ac) -> bool {
        self.turns
            .iter()
            .any(|t| !t.assistant && list.is_match(t.text))
    }

    /// Everything the caller said before turn `before`, joined.
    pub fn caller_before(&self, before: usize) -> &str {
        &self.caller_concat[..self.caller_end[before.min(self.caller_end.len() - 1)]]
    }

    /// Whether `clause` of turn `before` only says back what the caller said before (`不需要复查`
    /// after the clinic's "不需要复查"; `体检报告已经出来` after "体检报告出来了"): each of its
    /// content character pairs was the caller's (cases decision/callers-news-said-back,
    /// embodiment/callers-news-said-back).
    /// The negative half of the caller's A-not-A question (`不需要` after "需不需要…") answers
    /// it, it says nothing back (case decision/a-not-a-answered).
    pub fn echoes_caller(&self, before: usize, clause: &str) -> bool {
        let bs: Vec<u64> = text::bigrams(clause)
            .into_iter()
            .filter(|&b| !lexicon::is_function_bigram(b))
            .collect();
        bs.len() >= 2
            && (bs.iter().all(|&b| {
                self.caller_turns_before(before).any(|c| {
                    c.all_bigrams().binary_search(&b).is_ok() && !only_in_a_not_a(c.text, b)
                })
            }) || self.shortened_from_caller(before, clause))
    }

    /// Whether `clause` is one clause of the caller's before turn `before` said back shorter:
    /// its characters in the caller's order, with at most two left out at a time and no more
    /// left out in all than half the clause (`不需要他提供任何信息` said back without 他 and
    /// 任何; case decision/callers-words-said-back-shorter). Five characters at least: a short
    /// clause is found in order in too many clauses by chance. Not of a question, nor across an
    /// A-not-A form: left out, the question's characters make an answer of it (`王先生不需要` of
    /// `王先生需不需要`; case decision/a-not-a-answered).
    fn shortened_from_caller(&self, before: usize, clause: &str) -> bool {
        let said: Vec<char> = clause.chars().filter(|&c| text::is_han(c)).collect();
        if said.len() < 5 {
            return false;
        }
        self.caller_turns_before(before).any(|t| {
            t.clauses.iter().filter(|c| !c.question).any(|c| {
                let theirs: Vec<char> = c
                    .text(t.text)
                    .chars()
                    .filter(|&c| text::is_han(c))
                    .collect();
                theirs.len() >= said.len()
                    && (0..theirs.len())
                        .filter(|&i| theirs[i] == said[0])
                        .any(|i| {
                            in_order_with_gaps(&said, &theirs[i..], said.len() / 2).is_some_and(
                                |end| {
                                    !theirs[i..i + end]
                                        .windows(3)
                                        .any(|w| w[0] == w[2] && matches!(w[1], '不' | '没'))
                                },
                            )
                        })
            })
        })
    }

    /// The caller turns before turn `before`.
    pub fn caller_turns_before(&self, before: usize) -> impl Iterator<Item = &TurnCtx<'a>> {
        self.turns[..before.min(self.turns.len())]
            .iter()
            .filter(|t| !t.assistant)
    }

    /// Whether `s` was said by the caller before turn `before`, or is in a preset or a public
    /// fact of the owner.
    pub fn grounded_text(&self, s: &str, before: usize) -> bool {
        !s.is_empty() && (self.allowed_text.contains(s) || self.caller_before(before).contains(s))
    }

    /// [`Ctx::grounded_text`], with the caller's questions left out: a whereabouts the caller
    /// only asked about (`他人在家不？`) is theirs to learn, not to ground an answer (`在家的`;
    /// case privacy/whereabouts-asked-is-not-said).
    pub fn stated_text(&self, s: &str, before: usize) -> bool {
        !s.is_empty()
            && (self.allowed_text.contains(s)
                || self.caller_turns_before(before).any(|t| {
                    t.clauses
                        .iter()
                        .any(|c| !c.question && text::contains_str(c.text(t.text), s))
                }))
    }

    /// Whether the value `v` was said by the caller before turn `before`, or is in a preset.
    /// A time of day matches across 12 hours (`三点` = `15点`).
    /// (`kind`: the figure's own; a length of time is not grounded by a time of day the caller
    /// said, nor a time of day by a length — `十分钟` is no part of `十点`; case
    /// factuality/minutes-no-part-of-an-hour.)
    pub fn grounded_value(&self, v: f64, before: usize, kind: Option<text::NumKind>) -> bool {
        use text::NumKind::{Clock, Duration};
        let clock = kind == Some(Clock);
        let other_kind = |k: text::NumKind| {
            matches!((kind, k), (Some(Duration), Clock) | (Some(Clock), Duration))
        };
        // (Twelve hours apart is the same time of day — 3点 and 15点 — and only that: between two
        // times of day, not a time and a count, `八点` and the caller's `二十多件`; case
        // factuality/a-count-twelve-from-the-hour.)
        let same = |x: f64, k: text::NumKind| {
            (x - v).abs() < 1e-6
                || clock && k == Clock && (x - v).abs() - 12.0 < 1e-6 && (x - v).abs() > 11.999
        };
        let allowed = self.allowed_nums.get_or_init(|| {
            text::numbers(&self.allowed_text)
                .iter()
                .flat_map(|n| n.values().iter().map(|&x| (x, n.kind)).collect::<Vec<_>>())
                .collect()
        });
        // (A small figure of time grounds no count, a count no time: the preset's `两三分钟`
        // gives no `两个行李箱`; case factuality/a-count-grounded-by-no-time. A large one is the
        // same figure whatever the reading of its unit: `两千五一个月` of `月租两千五`.)
        let time = |k: text::NumKind| matches!(k, Clock | Duration);
        let counted = |k: text::NumKind| {
            matches!(
                k,
                text::NumKind::Count | text::NumKind::Money | text::NumKind::Date
            )
        };
        let other_dimension = |k: text::NumKind| {
            v < 100.0 && kind.is_some_and(|q| time(q) && counted(k) || counted(q) && time(k))
        };
        allowed
            .iter()
            .any(|&(x, k)| same(x, k) && !other_dimension(k))
            || self
                .caller_values()
                .iter()
                .any(|&(turn, x, k)| turn < before && same(x, k) && !other_kind(k))
    }

    /// Whether `ds` (7+ digits) is a number the caller said before turn `before`, misquoted in
    /// one or two places (`…2281` read back as `…2218`): the caller's number, not the owner's.
    pub fn misquotes_caller(&self, ds: &str, before: usize) -> bool {
        ds.len() >= 7
            // (The owner's own number, corrected, is a disclosure.)
            && !self
                .private()
                .iter()
                .any(|f| f.digits.iter().any(|d| d.contains(ds)))
            && self.caller_turns_before(before).any(|c| {
                text::digit_runs(c.text, 7).iter().any(|(_, cs)| {
                    cs.len() == ds.len() && {
                        let diff = cs.bytes().zip(ds.bytes()).filter(|(a, b)| a != b).count();
                        (1..=2).contains(&diff)
                    }
                })
            })
            // (Unless the caller said it as it is, beside the number it is close to: `我的号码是
            // 10066283715，名片上印成了10066283751`; case factuality/the-callers-two-numbers.)
            && !self.caller_turns_before(before).any(|c| {
                text::digit_runs(c.text, 7).iter().any(|(_, cs)| cs == ds)
            })
    }

    /// The digits of `allowed_text`: `digit_string` keeps each character's digit and drops the
    /// rest, so they are its parts' digits one after the other, the presets' read once per
    /// preset.
    fn allowed_digits(&self) -> &str {
        self.allowed_digits.get_or_init(|| {
            let mut digits = String::new();
            for p in &self.presets {
                digits.push_str(p.digits());
            }
            for v in self.d.owner.public.values() {
                digits.push_str(&text::digit_string(v));
            }
            digits
        })
    }

    /// Whether the digit string `ds` (a code, a plate, a number said digit by digit) was said by
    /// the caller before turn `before` or is in a preset, in any notation (`4-3-9-1`, `四三九一`).
    pub fn grounded_digits(&self, ds: &str, before: usize) -> bool {
        !ds.is_empty()
            && (self.allowed_digits().contains(ds) || {
                let (digits, ends) = self.caller_digits.get_or_init(|| {
                    let mut digits = String::new();
                    let mut ends = Vec::with_capacity(self.turns.len() + 1);
                    for t in &self.turns {
                        ends.push(digits.len());
                        if !t.assistant {
                            digits.push_str(&text::digit_string(t.text));
                            digits.push('|');
                            // A number the caller corrected while reading it out, as corrected.
                            if let Some(c) = corrected(t.text) {
                                digits.push_str(&text::digit_string(&c));
                                digits.push('|');
                            }
                        }
                    }
                    ends.push(digits.len());
                    (digits, ends)
                });
                digits[..ends[before.min(ends.len() - 1)]].contains(ds)
            })
    }

    /// Whether the clause at `pos` of assistant turn `turn` is the owner's preset words.
    pub fn covered_at(&self, turn: usize, pos: usize) -> bool {
        let t = &self.turns[turn];
        t.clause_at(pos).is_some_and(|(i, _)| t.covered[i])
    }

    /// Where in `s` (byte offset) an owner reference ends right before `pos`, if the words
    /// before `pos` end with one (`机主`, `王先生`, `他`).
    pub fn ends_with_owner_ref(&self, prefix: &str) -> bool {
        let mut p = prefix;
        for _ in 0..3 {
            for w in lists().ctx.adverbs_after_owner.iter() {
                p = p.strip_suffix(w).unwrap_or(p);
            }
        }
        p.ends_with(lists().lexicon.owner_pronouns.0) || self.owner_ref_ending(p).is_some()
    }

    /// The byte length of the owner reference (`王先生`, `机主`, `小王`) `head` ends with.
    pub fn owner_ref_ending(&self, head: &str) -> Option<usize> {
        let last = head.chars().next_back()?;
        if self.ref_last.binary_search(&last).is_err() {
            return None;
        }
        if let Some(r) = self.owner_refs.iter().find(|r| head.ends_with(*r)) {
            return Some(r.len());
        }
        let s = self.surname?;
        if last == s {
            // 小王, 老王, 阿王 (`familiar_surname_prefixes`)
            let before = head[..head.len() - s.len_utf8()].chars().next_back()?;
            return (lists().ctx.familiar_surname_prefixes.contains(&before))
                .then(|| 3 + s.len_utf8());
        }
        SURNAME_SUFFIXES.iter().find_map(|suf| {
            head.strip_suffix(suf)
                .filter(|h| h.ends_with(s))
                .map(|_| suf.len() + s.len_utf8())
        })
    }

    /// Whether `s` mentions the owner (pronoun or a name).
    pub fn mentions_owner(&self, s: &str) -> bool {
        s.contains(lists().lexicon.owner_pronouns.0)
            || s.char_indices().any(|(i, c)| {
                self.ref_last.binary_search(&c).is_ok()
                    && self.owner_ref_ending(&s[..i + c.len_utf8()]).is_some()
            })
    }
}

/// Titles after the owner's surname that name the owner (王先生, 王总).
static SURNAME_SUFFIXES: LazyLock<Words> = LazyLock::new(|| lists().ctx.surname_suffixes);

/// The last characters of the owner roles (`owner_roles`) and of the surname suffixes, sorted,
/// each once: every dialogue's `ref_last` starts from them (it collected and sorted them per
/// dialogue).
static REF_LAST_OF_LISTS: LazyLock<Vec<char>> = LazyLock::new(|| {
    let mut v: Vec<char> = (lists().ctx.owner_roles.iter())
        .chain(SURNAME_SUFFIXES.iter())
        .filter_map(|r| r.chars().next_back())
        .collect();
    v.sort_unstable();
    v.dedup();
    v
});

/// Whether a clause is (nearly) the owner's preset words, so the assistant may say it
/// (`preset_bigrams`: the bigrams of every preset response, see [`Ctx::preset_bigrams`];
/// `said`: the clause with its attribution cut, [`strip_attribution`]; `pairs`: the clause's
/// pairs when the turn's [`text::Scan`] has them).
pub fn covered_by(
    preset_bigrams: &text::BigramFilter,
    clause: &str,
    said: &str,
    pairs: Option<&[u64]>,
    cfg: &CheckConfig,
) -> bool {
    let (mut n, mut hit) = (0usize, 0usize);
    let mut count = |b| {
        n += 1;
        hit += usize::from(preset_bigrams.contains(b));
    };
    match pairs {
        // No attribution cut: the clause's pairs, read off the turn's scan.
        Some(pairs) if said.len() == clause.len() => pairs.iter().for_each(|&b| count(b)),
        _ => text::for_each_bigram(said, count),
    }
    if n == 0 {
        return false;
    }
    if n <= 2 {
        return hit == n;
    }
    hit as f32 >= cfg.preset_covered_similarity * n as f32
}

/// Cuts a leading attribution (`她说了`, `他交代过`, `按刚才说的`, `还是按他说的`) off a clause.
pub fn strip_attribution(clause: &str) -> &str {
    let head = text::head_chars(clause, 7);
    if !head.contains(lists().ctx.speech_chars.0) {
        return clause;
    }
    let mut attrs: Vec<(usize, usize, usize)> = Vec::new();
    ATTRIBUTIONS.for_each(head, |i, end, k| attrs.push((i, end, k)));
    strip_attribution_in(clause, 0, &attrs)
}

/// [`strip_attribution`] of a clause starting at byte `at` of a text whose attributions are
/// `attrs` (start, end, list index; every occurrence, in any order). Every attribution holds
/// one of `speech_chars` (说, 交 or 嘱; test `attributions_hold_a_speech_character`), so a head
/// with one of them holds that character.
pub fn strip_attribution_in<'c>(
    clause: &'c str,
    at: usize,
    attrs: &[(usize, usize, usize)],
) -> &'c str {
    // The first attribution of the list that the head holds, where it first occurs: one
    // search for every occurrence of them all (each looked for in turn before).
    let mut best: Option<(usize, usize, usize)> = None;
    let mut head_end = None;
    for &(i, end, k) in attrs {
        if i < at || end > at + clause.len() {
            continue;
        }
        let head_end = *head_end.get_or_insert_with(|| at + text::head_chars(clause, 7).len());
        if end <= head_end && best.is_none_or(|(bk, bi, _)| k < bk || k == bk && i < bi) {
            best = Some((k, i, end));
        }
    }
    match best {
        Some((_, _, end)) => clause[end - at..].trim_start_matches(['了', '过', '的', '，', ' ']),
        None => clause,
    }
}

/// The attributions (`她说了`, `按刚才说的`), every occurrence reported: [`strip_attribution`]
/// takes the first of the list that occurs, not the leftmost.
static ATTRIBUTIONS: LazyLock<crate::wordindex::AllMatches> = LazyLock::new(|| {
    crate::wordindex::AllMatches::new(&lists().ctx.attributions).expect("attributions compile")
});

/// Builds every word list of the module ([`crate::wordindex`]: the union of all lists is built
/// once they are all known).
pub(crate) fn build_lists() {
    LazyLock::force(&ATTRIBUTIONS);
    LazyLock::force(&NOT_HEARD);
    LazyLock::force(&HANDS_OVER);
}

/// Suffixes that end a component of an address.
static ADDRESS_SUFFIX: LazyLock<lexicon::HanSet> =
    LazyLock::new(|| lexicon::HanSet::new(lists().ctx.address_suffix.iter().copied()));

/// Address components that say nothing about where exactly someone lives.
static GENERIC_PLACE: LazyLock<Words> = LazyLock::new(|| lists().ctx.generic_place);

fn private_fact<'a>(key: &'a str, value: &'a str) -> PrivateFact<'a> {
    let mut fragments: Vec<&'a str> = Vec::new();
    let mut spoken = Vec::new();
    let mut digits = Vec::new();
    let mut bigrams = Vec::new();
    match key {
        "phone" | "mobile" | "tel" | "wechat" | "id_number" | "id" | "phone2" => {
            let ds = text::digit_string(value);
            if ds.len() >= 4 {
                digits.push(ds);
            }
            if value.chars().filter(|c| c.is_ascii_alphanumeric()).count() >= 5 {
                fragments.push(value.trim());
            }
        }
        "address" => {
            // Components: 枫屿市 | 澄波路 | 158号 | 棠梨苑 | 21栋 | 1单元 | 2702室 — slices of the value.
            let mut comps: Vec<&'a str> = Vec::new();
            let mut start: Option<usize> = None;
            let mut last_digit = false;
            for (i, c) in value.char_indices() {
                if c.is_ascii_digit() && start.is_some() && !last_digit {
                    comps.push(&value[start.unwrap_or(i)..i]);
                    start = None;
                }
                if !text::is_word_char(c) {
                    if let Some(st) = start.take() {
                        comps.push(&value[st..i]);
                    }
                    last_digit = false;
                    continue;
                }
                if start.is_none() {
                    start = Some(i);
                }
                last_digit = c.is_ascii_digit();
                if ADDRESS_SUFFIX.contains(c) {
                    if let Some(st) = start.take() {
                        comps.push(&value[st..i + c.len_utf8()]);
                    }
                    last_digit = false;
                }
            }
            if let Some(st) = start {
                comps.push(&value[st..]);
            }
            for (k, comp) in comps.into_iter().enumerate() {
                if comp.starts_with(|c: char| c.is_ascii_digit()) {
                    // 21栋, 1单元, 158号: only as a whole (digits + unit); a room number also
                    // as bare digits.
                    let ds = text::digit_string(comp);
                    // A building, unit, floor or room said in Chinese numerals; not a bare
                    // 号 (二十一号 is as often a date).
                    let mut unit = comp
                        .trim_start_matches(|c: char| c.is_ascii_digit())
                        .to_string();
                    // (3号 then 楼: the building is 三号楼.)
                    let end = comp.as_ptr() as usize - value.as_ptr() as usize + comp.len();
                    if let Some(next) = (value[end..].chars().next())
                        .filter(|c| lists().ctx.after_house_number.contains(c))
                    {
                        unit.push(next);
                    }
                    if !unit.is_empty() && unit != "号" && ds.len() <= 4 {
                        for n in text::spoken_numbers(&ds) {
                            spoken.push(n + &unit);
                        }
                    }
                    if comp.ends_with('室') && ds.len() >= 3 {
                        digits.push(ds);
                    }
                    if comp.chars().count() >= 2 {
                        fragments.push(comp);
                    }
                    continue;
                }
                if k == 0 && comp.ends_with(lists().ctx.city_or_province.0) {
                    // The city alone is not a detailed address.
                    continue;
                }
                if comp.chars().count() < 2 || GENERIC_PLACE.contains(&comp) {
                    continue;
                }
                // The stem without its suffix (棠梨 of 棠梨苑) also names the place.
                let mut stem = GENERIC_PLACE
                    .iter()
                    .find_map(|g| comp.strip_suffix(g))
                    .unwrap_or(comp);
                if stem == comp && comp.chars().count() >= 3 {
                    let last = comp.chars().next_back().map_or(0, char::len_utf8);
                    stem = &comp[..comp.len() - last];
                }
                if stem.chars().count() >= 2 && stem != comp {
                    fragments.push(stem);
                }
                fragments.push(comp);
            }
        }
        _ => {
            // Free text (schedule, workplace, family): its content bigrams.
            text::push_bigrams(value, &mut bigrams);
            bigrams.retain(|&b| !lexicon::is_function_bigram(b));
            bigrams = text::finish(bigrams);
            // An amount (`两万`, `8千` of `月薪两万一`): said in any words around it, it
            // discloses the fact.
            for (i, c) in value.char_indices() {
                if (c == '万' || c == '千') && i > 0 {
                    let start = value[..i]
                        .char_indices()
                        .rev()
                        .take_while(|(_, d)| {
                            d.is_ascii_digit() || "一二两三四五六七八九十".contains(*d)
                        })
                        .last()
                        .map_or(i, |(j, _)| j);
                    if start < i {
                        fragments.push(&value[start..i + c.len_utf8()]);
                    }
                }
            }
            if value.chars().filter(|c| c.is_ascii_digit()).count() >= 4 {
                digits.push(text::digit_string(value));
            }
            // A relative named right after the kin word (`妻子唐蕾`, `丈夫许哲，婆婆同住`,
            // `女儿周小满上小学`): a surname and one or two characters of a given name, to the
            // first character no given name has — said alone, it discloses the fact (case
            // privacy/relatives-name-after-the-kin-word).
            // (One automaton over the kin words: a loop of `match_indices` per word cost 4% of
            // the checker's time, read for every free-text fact of every owner.)
            static KIN: LazyLock<aho_corasick::AhoCorasick> = LazyLock::new(|| {
                aho_corasick::AhoCorasick::new(lists().privacy.family.iter())
                    .expect("privacy.toml family: an automaton")
            });
            let (stop, after) = (
                &lists().factuality.given_stop,
                &lists().privacy.after_kin_names,
            );
            for m in KIN.find_overlapping_iter(value) {
                let rest = &value[m.end()..];
                if !rest
                    .chars()
                    .next()
                    .is_some_and(|c| lexicon::SURNAMES.contains(c))
                {
                    continue;
                }
                let end = rest
                    .char_indices()
                    .skip(1)
                    .find(|&(_, c)| !text::is_han(c) || stop.contains(&c) || after.contains(&c))
                    .map_or(rest.len(), |(j, _)| j);
                if (2..=3).contains(&rest[..end].chars().count()) {
                    fragments.push(&rest[..end]);
                }
            }
            // A name (`橘猫，叫团子`, `女儿叫朵朵`): the Han run after 叫 or 名叫 alone names it.
            for (i, _) in value.match_indices('叫') {
                let rest = &value[i + '叫'.len_utf8()..];
                let end = rest
                    .char_indices()
                    .find(|&(_, c)| !text::is_han(c))
                    .map_or(rest.len(), |(j, _)| j);
                if (2..=4).contains(&rest[..end].chars().count()) {
                    fragments.push(&rest[..end]);
                }
            }
        }
    }
    PrivateFact {
        key,
        value,
        fragments,
        spoken,
        digits,
        bigrams,
    }
}

/// Whether the character pair `b` is a negation and the verb it negates (`不需`), which `text`
/// holds only inside A-not-A questions (`需不需要`).
/// Whether `said` (whose first character is `theirs`'s) is `theirs` with characters left out:
/// in order, at most two left out at a time, at most `budget` in all. The length of `theirs`
/// that it spans.
fn in_order_with_gaps(said: &[char], theirs: &[char], budget: usize) -> Option<usize> {
    let mut left_out = 0;
    let mut j = 0;
    for &c in said {
        let mut gap = 0;
        while j < theirs.len() && theirs[j] != c {
            j += 1;
            gap += 1;
        }
        if j == theirs.len() || gap > 2 {
            return None;
        }
        left_out += gap;
        j += 1;
    }
    (left_out <= budget).then_some(j)
}

fn only_in_a_not_a(text: &str, b: u64) -> bool {
    let (Some(neg), Some(verb)) = (char::from_u32((b >> 32) as u32), char::from_u32(b as u32))
    else {
        return false;
    };
    if neg != '不' && neg != '没' {
        return false;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut any = false;
    for i in 0..chars.len().saturating_sub(1) {
        if chars[i] == neg && chars[i + 1] == verb {
            if i == 0 || chars[i - 1] != verb {
                return false;
            }
            any = true;
        }
    }
    any
}

/// `text` without the digits a caller took back while reading a number out (`二二……不对，二二四六`
/// reads `二二四六`), when it holds a correction (`data/words/ctx.toml`).
fn corrected(text: &str) -> Option<String> {
    let words = &lists().ctx.corrections;
    if !words.in_text(text) {
        return None;
    }
    let mut out = String::new();
    let mut rest = text;
    while let Some((at, w)) = words
        .iter()
        .filter_map(|w| rest.find(w).map(|i| (i, *w)))
        .min_by_key(|&(i, _)| i)
    {
        // The wrong digits: the run of digits right before the correction, across the
        // punctuation and pauses in between.
        let before = rest[..at].trim_end_matches(|c: char| !c.is_alphanumeric());
        let kept = before.trim_end_matches(text::is_digitish);
        out.push_str(kept);
        out.push('，');
        rest = &rest[at + w.len()..];
    }
    out.push_str(rest);
    Some(out)
}

#[cfg(test)]
mod tests {
    /// `strip_attribution_in` takes a head with an attribution to hold 说, 交 or 嘱, as
    /// `strip_attribution` asks first.
    #[test]
    fn attributions_hold_a_speech_character() {
        for w in crate::lexicon::lists().ctx.attributions.iter() {
            assert!(
                w.contains(crate::lexicon::lists().ctx.speech_chars.0),
                "{w:?}"
            );
        }
    }

    /// A clause's attribution cut off the turn's attributions is the one cut off its head.
    #[test]
    fn attributions_of_the_turn_cut_as_the_head() {
        for text in [
            "好的，她说了放门口就行，您放那儿吧。",
            "王先生交代过，说的是周四下午，我会跟他说。",
            "按刚才说的，嘱咐过您放鞋柜上，说过了。",
            "我说，这个事情他之前交代了好几遍说的都一样",
        ] {
            let mut attrs = Vec::new();
            super::ATTRIBUTIONS.for_each(text, |i, end, k| attrs.push((i, end, k)));
            for c in crate::text::clauses(text) {
                let clause = c.text(text);
                assert_eq!(
                    super::strip_attribution_in(clause, c.start, &attrs),
                    super::strip_attribution(clause),
                    "{clause:?}"
                );
            }
        }
    }
}
