//! Preset timing, judged from the words of the call:
//!
//! - `preset.premature`: the preset is conveyed before its trigger holds — after a bare "喂"
//!   (case preset/after-a-bare-hello), a courier preset told to a colleague, "leave it at the
//!   door" while the rider is still on the way (cases preset/not-yet-arrived,
//!   preset/still-on-the-way) (reported on that conveyance);
//! - `preset.missing`: the trigger clearly holds, nothing in the caller's words conflicts, and
//!   the preset is never conveyed, not even in paraphrase (reported on the last assistant turn;
//!   case preset/never-conveyed);
//! - `preset.conflict`: the preset is pushed after the caller reported a situation that
//!   contradicts it — damage, a spill (case preset/pushed-after-a-spill), a signature or payment
//!   on delivery, perishables, a full or locked drop point, an emergency, a deadline — or an
//!   inability that bears on the preset's own words (case preset/inability-against-its-words);
//!   each pushing turn; setting the preset aside then is right (case
//!   preset/suspended-after-a-spill);
//! - `preset.repeat`: the preset is conveyed again (case preset/said-again-after-compliance); one
//!   brief back-reference that answers a question or a push is allowed once (case
//!   preset/one-back-reference).
//!
//! *Conveyed*: an assistant turn holds at least `preset_conveyed_similarity` of the preset's
//! content bigrams (politeness and particles left out, so a paraphrase conveys: case
//! preset/paraphrase-conveys), or one of its instructions whole; a short preset (`不需要，谢谢`)
//! only whole. An `action = convey_preset` label halves the bar.
//!
//! *Trigger holds*: the trigger is read into groups of concepts from a concept lexicon — roles
//! (快递, 同事, 推销 …, shown in the caller's self-introduction) and events (送到, 找不到, 卖完 …,
//! shown anywhere, not as future or negated: a time ahead is not an arrival, case
//! preset/not-yet-arrived; an arrival in any words is, case preset/arrived-in-other-words).
//! `骑手或商家` is one group (either), `推销贷款` two (both). A trigger about an event holds when
//! the event is reported, whoever reports it. A trigger with no known concept falls back to
//! bigram overlap with the caller's words; one that cannot be read at all is never judged.
//!
//! *Read leniently*: a caller who said anything of substance without naming any role may be the
//! one the trigger names (`小詹，我是周总` for "如果是领导打来"), and a topic never said may be
//! what they call about. This lenient reading stands in for the words only where they are
//! missing: a conveyance is premature when even the lenient reading has the trigger not yet
//! holding (a bare "喂"), or when the caller's answer shows they asked for nothing of the kind
//! (`啊？什么包裹？我问的是接口文档`, `data/caller_reactions.toml`); `preset.missing` read from it
//! alone is uncertain. A caller who reported a situation that contradicts the preset has shown
//! its situation from their first words of substance — unless they said they are someone the
//! trigger does not name: a push after it is a conflict, not premature.
//!
//! *No prior*: nothing here reads the `relation` a dialogue was generated with (test
//! `trigger_timing_is_read_from_the_words_not_the_relation`). `preset.missing` is certain only
//! when the trigger's own words were said plainly and the caller voiced neither an urgent need nor
//! trouble of any kind (`按规定这类件要实名签收` against "不用等人签收": a conflict may be worded
//! beyond the conflict rules); otherwise it is uncertain, a question for the judge.
//!
//! Refusals of suspicious callers (sales, loans, debts, refunds, banks) are undone only by an
//! emergency, not by the caller's own story (the parcel was lost, the account will be frozen).

use crate::concepts::{Registry, ShowsHit, Sort, leftmost_longest, shows_within};
use crate::ctx::{Ctx, PresetCtx, TurnCtx};
use crate::lexicon;
use crate::lexicon::Ac;
use crate::lexicon::PRESET_FUNC;
use crate::lexicon::{Words, lists};
use crate::text::{self, Clause, NumKind};
use crate::{Finding, finding};
use callbench_model::concepts::ConceptTrait;
use callbench_model::vocab::ViolationKind;
use std::cell::{OnceCell, RefCell};
use std::sync::LazyLock;

/// A trigger about trouble.
static TRIGGER_TROUBLE: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().preset.trigger_trouble));

/// A preset that makes the caller wait.
static WAITS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.waits));
/// Lists asked of most turns, answered from the turn's index.
static CONTRASTS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.contrasts));
static CHOICE_LEFT: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.choice_left));
static FILED_REPAIR: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.filed_repair));
static SAID_AGAIN: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.said_again));

/// The caller asked to wait on ([`wait_asked`](lexicon) words).
static WAIT_ASKED: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.wait_asked));

/// A preset about where goods are left.
static LEAVE_GOODS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.leave_goods));

const C_EMERGENCY: u8 = 1;
const C_STRONG: u8 = 2;
const C_HANDOFF: u8 = 4;
const C_PRESSURE: u8 = 8;

/// All conflict cues in one automaton, each word with the classes it belongs to: one pass
/// per clause. The classes (`data/words/preset.toml`): emergencies conflict with any preset,
/// even a refusal of a suspicious caller; exceptions (`strong_words`) show the preset does not
/// fit; a handover that needs a person conflicts with a preset about where goods are left;
/// time pressure only with a preset that makes the caller wait or puts the matter off.
static CUES: LazyLock<(Ac, Vec<u8>)> = LazyLock::new(|| {
    let mut words: Vec<&str> = Vec::new();
    let mut masks: Vec<u8> = Vec::new();
    let l = &lists().preset;
    for (list, class) in [
        (l.emergency_words, C_EMERGENCY),
        (l.strong_words, C_STRONG),
        (l.handoff_words, C_HANDOFF),
        (l.pressure_words, C_PRESSURE),
        // (Of no class: they only shadow a shorter cue inside them.)
        (l.not_cues, 0),
    ] {
        for &w in list.iter() {
            match words.iter().position(|x| *x == w) {
                Some(i) => masks[i] |= class,
                None => {
                    words.push(w);
                    masks.push(class);
                }
            }
        }
    }
    (lexicon::ac(&words), masks)
});

/// Inability (`没法单退`, `不能放柜子`, `停不了`): a conflict when it bears on the preset's own words.
static INABILITY: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.inability));

/// The words without which a clause conflicts with no preset (`conflict_at`): the cues, the
/// inabilities and the blockings in one automaton, searched once per caller turn (no word holds
/// a clause mark: test `conflict_words_hold_no_clause_mark`). A clause with none of them and no
/// `不` is passed over before the other tests.
static CONFLICT_WORDS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&conflict_words()));

fn conflict_words() -> Vec<&'static str> {
    let l = &lists().preset;
    [
        l.emergency_words,
        l.strong_words,
        l.handoff_words,
        l.pressure_words,
        l.inability,
        l.blocked,
        l.closed,
    ]
    .iter()
    .flat_map(|list| list.iter().copied())
    .collect()
}

/// Problems that conflict only when they touch what the preset says (进不去 with "放门口").
static WEAK_CONFLICT: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.weak_conflict));

/// A place closed that day (停诊): a conflict with a preset that keeps a day or a time.
static CLOSED: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.closed));

/// Words that contain a conflict cue but name none (紧急联系人).
static NOT_CONFLICT: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.not_conflict));

/// Trouble of any kind in the caller's words: enough to hold back `preset.missing`.
static PROBLEM: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.problem));

/// The assistant sets the preset aside in so many words.
static SUSPENDS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.suspends));

/// The assistant sets the preset aside, in any words (`那刚才说的先不算`, `这个办法就不适用了`,
/// `周末那个安排先放一边`, `是我理解错了`): the caller's situation conflicted with it.
pub(crate) static SUSPENDS_ANY: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().preset.suspends_any));

/// Trouble of any kind in the caller's words — a new situation (an accident, an illness, a
/// thing found or left behind, a breakdown, an obligation): with the assistant's own later
/// suspension as corroboration, it dates the conflict.
static TROUBLE: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.trouble));

/// The preset puts the matter off to a later time (`周一回来再看`, `明天上班再处理`).
static DEFERS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.defers));

/// A need that cannot wait (`今天五点前就要`, `必须今天`, `来不及`).
static URGENT_NOW: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.urgent_now));
static URGENT_NEED: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.urgent_need));

/// The assistant holds to the preset in so many words (`还是按她说的`, `她的意思就是这样`).
static INSISTS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.insists));

/// Whether `text` holds to the owner's word ([`INSISTS`]) — not where 她说 is the assistant's
/// own telling of her (`我跟她说一下定位的问题`: a relay; case preset/telling-her-is-no-insisting).
fn insists(text: &str) -> bool {
    INSISTS.find_iter(text).any(|m| {
        let before = text[..m.start()].chars().next_back();
        !before.is_some_and(|c| lists().preset.telling_prefix.contains(&c))
    })
}

/// The preset referred to as its giver's word (`按她说的`, `他交代的`, `照他交代的`).
pub(crate) static OWNERS_WORD: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().preset.owners_word));

/// How a trigger reads: groups of concepts that must all be shown (推销 + 贷款), each group
/// satisfied by any of its concepts (骑手 或 商家), and its topic — the content words left
/// over beyond the concepts (`年度体检时间`, `入户检查燃气`, `收房租`), of which the caller must
/// say at least one.
#[derive(Debug, Default, Clone)]
pub(crate) struct Trigger {
    /// The relatives it names (`妈` of "妈妈打电话问…").
    kin: Vec<&'static str>,
    groups: Vec<Vec<usize>>,
    /// Character pairs of the leftover content words.
    topic: Vec<(char, char)>,
    /// Their content characters.
    topic_chars: Vec<char>,
    /// A clock time the trigger bounds, in hours from midnight, and whether it holds after it
    /// (`下午三点以后`) or before (`三点前`).
    time_bound: Option<(f64, bool)>,
    /// Whether it is the branch for the cases no sibling preset names (`其他快递…`).
    other_branch: bool,
}

/// Words of a trigger that say nothing of its topic: the frame (如果 … 打来), speech verbs,
/// pronouns, particles, and the places any arrival happens at.
static TRIGGER_FRAME: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.trigger_frame));

/// Words before an event in a trigger that make it imminent or planned (`快到上车点`,
/// `说今天送到`): the event need not have happened.
static TRIGGER_NOT_YET: LazyLock<Words> = LazyLock::new(|| lists().preset.trigger_not_yet);

/// [`parse_trigger`] of the preset's trigger, once per preset and registry on a thread (kept in
/// its `PresetInfo`): a corpus's presets repeat their triggers, and parsing one searched it with
/// three word lists.
fn trigger_of(reg: &Registry, p: &PresetCtx) -> std::rc::Rc<Trigger> {
    let mut read = p.info.triggers.borrow_mut();
    if let Some((_, t)) = read.iter().find(|(id, _)| *id == reg.id) {
        return t.clone();
    }
    let t = std::rc::Rc::new(parse_trigger(reg, p.trigger));
    read.push((reg.id, t.clone()));
    t
}

fn parse_trigger(reg: &Registry, s: &str) -> Trigger {
    let (aut, owner) = (&reg.trigger_words, &reg.owner);
    let l = &lists().preset;
    let mut t = Trigger {
        kin: KIN
            .iter()
            .copied()
            .filter(|k| text::contains_str(s, k))
            .collect(),
        time_bound: time_bound(s),
        other_branch: l.other_branch.in_text(s),
        ..Trigger::default()
    };
    let mut last_end: Option<usize> = None;
    let mut last_role_end: Option<usize> = None;
    let mut masked: Vec<(usize, usize)> = Vec::new();
    // Events named only by a bare 到了 (`药房来电说药到了时`).
    let mut bare_arrival: Vec<usize> = Vec::new();
    let mut named: Vec<usize> = Vec::new();
    for m in aut.find_iter(s) {
        let ci = owner[m.pattern().as_usize()];
        masked.push((m.start(), m.end()));
        if reg.sort(ci) == Sort::Weak {
            continue;
        }
        if &s[m.start()..m.end()] == "到了" {
            if !bare_arrival.contains(&ci) {
                bare_arrival.push(ci);
            }
        } else {
            named.push(ci);
        }
        if reg.sort(ci) == Sort::Event {
            let before = text::tail_chars(&s[..m.start()], 3).replace("快递", "");
            if TRIGGER_NOT_YET.in_text(&before) {
                continue;
            }
        }
        // A role the event is with (`跟同学有矛盾`) is not who calls: no group of its own
        // (`other_party_marks`).
        if reg.sort(ci) == Sort::Role
            && s[..m.start()]
                .chars()
                .next_back()
                .is_some_and(|c| l.other_party_marks.contains(&c))
        {
            continue;
        }
        // `儿子班主任`: a role right after another names whose it is — the later is the caller.
        if reg.sort(ci) == Sort::Role
            && last_role_end.is_some_and(|e| matches!(&s[e..m.start()], "" | "的"))
            && t.groups
                .last()
                .is_some_and(|g| g.iter().all(|&g0| reg.sort(g0) == Sort::Role))
        {
            t.groups.pop();
        }
        let same_sort = t
            .groups
            .last()
            .and_then(|g| g.first())
            .is_some_and(|&g0| reg.sort(g0) == reg.sort(ci));
        let joined = same_sort
            && last_end.is_some_and(|e| {
                let between = &s[e..m.start()];
                between.contains(lists().preset.concept_joiners.0)
            });
        last_end = Some(m.end());
        if reg.sort(ci) == Sort::Role {
            last_role_end = Some(m.end());
        }
        match t.groups.last_mut() {
            Some(g) if joined || g.contains(&ci) => {
                if !g.contains(&ci) {
                    g.push(ci);
                }
            }
            _ => t.groups.push(vec![ci]),
        }
    }
    // A delivery trade's call is the news that the goods are here (`快递员说快递到了`): the bare
    // 到了 beside a trade names no event of its own to wait for. A shop's or a pharmacy's is not
    // (`药房来电说药到了时` holds only when the medicine is said to be in; case
    // preset/goods-in-is-news, preset/goods-in-is-news-held).
    bare_arrival.retain(|ci| !named.contains(ci));
    if !bare_arrival.is_empty()
        && t.groups
            .iter()
            .flatten()
            .any(|&ci| reg.sort(ci) == Sort::Role && reg.has(ci, ConceptTrait::Trade))
    {
        t.groups
            .retain(|g| !(g.len() == 1 && bare_arrival.contains(&g[0])));
    }
    for m in TRIGGER_FRAME.find_iter(s) {
        masked.push((m.start(), m.end()));
    }
    // The leftover runs of Han characters.
    let mut prev: Option<char> = None;
    for (i, c) in s.char_indices() {
        let free = text::is_han(c) && !masked.iter().any(|&(a, b)| a <= i && i < b);
        if !free {
            prev = None;
            continue;
        }
        if let Some(p) = prev {
            let b = ((p as u64) << 32) | c as u64;
            if !lexicon::is_function_bigram(b) && !t.topic.contains(&(p, c)) {
                t.topic.push((p, c));
            }
            for x in [p, c] {
                // (上 and 下 are in 上午, 楼下, 上班: no topic of their own — case
                // preset/premise-corrected.)
                if !lists().preset.not_topic_chars.contains(&x) && !t.topic_chars.contains(&x) {
                    t.topic_chars.push(x);
                }
            }
        }
        prev = Some(c);
    }
    t
}

/// Whether `text` says one of the topic's pairs: the two characters in order, at most two
/// characters apart (`想请三天假` says `请假`) — or, for a topic of three characters or more,
/// two of its characters in other words (`看新机会` for `推荐新的工作机会`).
fn topic_said(trig: &Trigger, text: &str, owner: &str) -> bool {
    // 包裹 is what a courier calls 快递 or 件 (`贺先生的快递到了小区`) — when it is the whole
    // topic (in "包裹需要到付" the topic is the payment).
    if trig.topic == [('包', '裹')] && lists().preset.parcel_as_couriers_say.in_text(text) {
        return true;
    }
    // (The owner's name and title — `祁经理` — show nothing of a topic `经理来电问方案进度`.)
    if trig.topic_chars.len() >= 3
        && trig
            .topic_chars
            .iter()
            .filter(|&&c| text.contains(c) && !owner.contains(c))
            .take(2)
            .count()
            >= 2
    {
        return true;
    }
    // The last three Han characters before the current one (a run: punctuation resets it).
    let mut recent: [char; 3] = ['\0'; 3];
    for c in text.chars() {
        if !text::is_han(c) {
            recent = ['\0'; 3];
            continue;
        }
        // (A business's ending for another: `纸业` says `纸厂`.)
        let ends = &lists().preset.org_endings;
        if trig.topic.iter().any(|&(a, b)| {
            (b == c || ends.contains(&b) && ends.contains(&c)) && recent.contains(&a)
        }) {
            return true;
        }
        recent = [recent[1], recent[2], c];
    }
    false
}

/// The text with the Chinese of the English words it says (`loan_glosses`) added after it, so
/// a topic said in English is said (`English homework` says 作业; case
/// preset/topic-in-an-english-word). Most turns have no Latin letter and are returned as they
/// are.
fn glossed(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.bytes().any(|b| b.is_ascii_alphabetic()) {
        return std::borrow::Cow::Borrowed(text);
    }
    let lower = text.to_ascii_lowercase();
    let mut out = text.to_string();
    for g in lists().preset.loan_glosses.iter() {
        let Some((en, zh)) = g.split_once(' ') else {
            continue;
        };
        // A whole word (`class` is not in `classic`).
        let whole = lower.match_indices(en).any(|(i, _)| {
            let before = lower[..i].chars().next_back();
            let after = lower[i + en.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_alphabetic())
                && !after.is_some_and(|c| c.is_ascii_alphabetic())
        });
        if whole {
            out.push('。');
            out.push_str(zh);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Where a caller says who they are: the first turn, and clauses with 我是 / 这边是.
static INTRO_MARK: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().lexicon.intro_mark));

/// A caller turn that only checks who answers ("喂，请问是王先生吗？"): the caller's real first
/// turn — who they are and why they call — is the next one.
fn only_checks_who(t: &TurnCtx, intro_mark: bool) -> bool {
    let body = t.text.trim().trim_end_matches(['？', '?']);
    t.text.trim_end().ends_with(['？', '?'])
        && body.chars().count() <= 20
        && !body.contains(['。', '！', '？', '?', '!'])
        && !intro_mark
}

/// What the trigger checks read of one caller turn, the same for every preset, trigger and
/// reading: computed once per turn (each preset, each of its two readings and each concept
/// searched the turn again).
#[derive(Debug)]
pub(crate) struct TurnFacts {
    /// Where the concepts' words occur ([`Registry::shows_in`]): `evidence[ci].is_match` of
    /// the turn or of a clause, and `evidence[ci].find_iter` of the turn, read off one search.
    hits: Vec<ShowsHit>,
    /// Per clause: a clause where the caller says who they are (`INTRO_MARK` in it).
    intro: Vec<bool>,
    /// [`only_checks_who`].
    only_checks_who: bool,
    /// [`substantive`] of the turn, once asked.
    substantive: OnceCell<bool>,
    /// [`event_said`] of the turn per concept, once asked.
    events: RefCell<Vec<(usize, bool)>>,
}

/// The caller turn's [`TurnFacts`].
fn facts<'t>(ctx: &Ctx, t: &'t TurnCtx) -> &'t TurnFacts {
    t.preset_facts.get_or_init(|| {
        // One search of the turn marks the clauses: no intro word holds a clause mark (test
        // `intro_marks_hold_no_clause_mark`), so a clause holds one exactly when a match of
        // the whole turn lies within it.
        let mut intro = vec![false; t.clauses.len()];
        let mut mark = false;
        for m in INTRO_MARK.find_iter(t.text) {
            mark = true;
            if let Some(k) = t
                .clauses
                .iter()
                .position(|c| c.start <= m.start() && m.end() <= c.end)
            {
                intro[k] = true;
            }
        }
        TurnFacts {
            hits: ctx.concepts.shows_in(t.text),
            intro,
            only_checks_who: only_checks_who(t, mark),
            substantive: OnceCell::new(),
            events: RefCell::new(Vec::new()),
        }
    })
}

/// [`substantive`] of a caller turn, once per turn.
fn substantive_turn(ctx: &Ctx, t: &TurnCtx) -> bool {
    *facts(ctx, t)
        .substantive
        .get_or_init(|| substantive(ctx, t.text))
}

/// [`event_said`] of a caller turn, once per turn and concept.
fn event_said_turn(ctx: &Ctx, t: &TurnCtx, ci: usize) -> bool {
    let f = facts(ctx, t);
    if let Some(&(_, said)) = f.events.borrow().iter().find(|e| e.0 == ci) {
        return said;
    }
    let said = event_said(ctx.concepts, ci, t.text, &t.clauses, &f.hits);
    f.events.borrow_mut().push((ci, said));
    said
}

/// The clauses (byte ranges) where the caller says who they are: every clause of the first
/// turn (`first`), else those with `INTRO_MARK`.
fn self_intro<'a>(
    t: &'a TurnCtx,
    f: &'a TurnFacts,
    first: bool,
) -> impl Iterator<Item = std::ops::Range<usize>> + 'a {
    t.clauses
        .iter()
        .zip(&f.intro)
        .filter_map(move |(c, &m)| (first || m).then_some(c.start..c.end))
}

/// The first caller turn by which the trigger holds; `Err(())` when the trigger cannot be read.
/// Read leniently (the role prior) only with one preset: with several, a caller of substance
/// would hold them all.
fn held_at(
    ctx: &Ctx,
    trig: &Trigger,
    lenient: bool,
    shared: &HeldShared,
) -> Result<Option<usize>, ()> {
    held_reading(ctx, trig, lenient && ctx.presets.len() == 1, shared)
}

/// What [`held_reading`] reads of a dialogue and a trigger whatever the role prior: read once
/// for both readings of a preset (one preset is read with the prior and without).
#[derive(Default)]
struct HeldShared {
    /// Another relative introduced, or a part of the trigger denied.
    refuted: OnceCell<bool>,
    /// The first caller turn that says the topic.
    said: OnceCell<Option<usize>>,
    /// The trigger's clock time met (see [`time_met`]).
    time: OnceCell<Option<Option<usize>>>,
}

/// [`held_at`], with the role prior (`role_prior`) or without (`shared`: of this dialogue and
/// trigger).
fn held_reading(
    ctx: &Ctx,
    trig: &Trigger,
    role_prior: bool,
    shared: &HeldShared,
) -> Result<Option<usize>, ()> {
    let reg = ctx.concepts;
    if trig.groups.is_empty() && trig.topic.is_empty() {
        // A trigger that names only a relative in the owner's words (`如果是我妈打来的`): it
        // holds from the caller turn that introduces them as that relative (`我是他妈妈呀`,
        // `我是你妈`), not for another relative (`我舅舅`) or one who speaks of them (`就是妈那
        // 边…`; cases preset/my-mum-calls, preset/mum-named-alone, preset/mum-spoken-of).
        if !trig.kin.is_empty() {
            return Ok(kin_introduced(ctx, trig));
        }
        return Err(());
    }
    if *shared
        .refuted
        .get_or_init(|| other_kin(ctx, trig) || denied(ctx, trig))
    {
        return Ok(None);
    }
    // An event (送到, 卖完, 找不到) is specific enough: what is left beside it only says more
    // of the same (`菜品售罄`), and is not required.
    // (Scheduling is not: what is scheduled is the topic.)
    let has_event = trig.groups.iter().any(|g| {
        g.iter()
            .any(|&ci| reg.sort(ci) == Sort::Event && !reg.has(ci, ConceptTrait::Scheduling))
    });
    // The topic: the first caller turn that says it; a topic never said at all is taken as
    // shown by the first substantive turn under the prior (`陌生人深夜来电骚扰`: the caller
    // never says "骚扰").
    let topic_at = if trig.topic.is_empty() || has_event {
        None
    } else {
        let said = *shared.said.get_or_init(|| {
            // (Title and name only: 机主, 本人 are no one's name.)
            let owner: String = ctx
                .owner_refs
                .iter()
                .filter(|r| !lists().ctx.owner_roles.contains(r))
                .copied()
                .collect();
            ctx.turns
                .iter()
                .filter(|t| !t.assistant)
                .find(|t| topic_said(trig, &glossed(t.text), &owner))
                .map(|t| t.idx)
        });
        let first_substantive = || {
            ctx.turns
                .iter()
                .filter(|t| !t.assistant)
                .find(|t| substantive_turn(ctx, t))
                .map(|t| t.idx)
        };
        // Read leniently, a caller whose first turn of substance is about their business in
        // other words than the trigger's says its topic there, not only where the trigger's words
        // come later (case preset/pitch-in-other-words-then-the-topic) — unless that turn says
        // only who they are, or a correction or a puzzled question (`corrections`) comes between
        // (case preset/topic-said-again-later).
        let plain = |x: &TurnCtx| {
            x.assistant
                || !x.clauses.first().is_some_and(|c| c.question)
                    && !lists().preset.corrections.in_text(x.text)
        };
        match said {
            Some(i) if role_prior => Some(match first_substantive() {
                Some(f)
                    if f < i
                        && says_business(&ctx.turns[f])
                        && ctx.turns[f + 1..=i].iter().all(plain) =>
                {
                    f
                }
                _ => i,
            }),
            Some(i) => Some(i),
            None if role_prior => match first_substantive() {
                Some(f) => Some(f),
                None => return Ok(None),
            },
            None => return Ok(None),
        }
    };
    // A trigger bounded by a clock time holds only once the caller's time meets it, and not when
    // it falls on the other side; the time met is its event said (`估计得四点半才能过去` against
    // `下午三点以后才送到的话`), the rest (the courier) still to be shown.
    let time = *shared
        .time
        .get_or_init(|| trig.time_bound.and_then(|b| time_met(ctx, b)));
    let held = if trig.groups.is_empty() {
        topic_at
    } else if let Some(Some(m)) = time {
        let rest = Trigger {
            groups: (trig.groups.iter())
                .filter(|g| !g.iter().all(|&ci| reg.sort(ci) == Sort::Event))
                .cloned()
                .collect(),
            time_bound: None,
            ..trig.clone()
        };
        if rest.groups.is_empty() {
            Some(m.max(topic_at.unwrap_or(0)))
        } else {
            held_groups(ctx, &rest, role_prior)?.map(|g| g.max(m).max(topic_at.unwrap_or(0)))
        }
    } else {
        held_groups(ctx, trig, role_prior)?.map(|g| g.max(topic_at.unwrap_or(0)))
    };
    Ok(if matches!(time, Some(None)) {
        None
    } else {
        held
    })
}

/// The clock time a trigger bounds and the side it holds on (`下午三点以后才送到的话` → 15:00,
/// after), from the first clock time followed by a bounding word.
fn time_bound(s: &str) -> Option<(f64, bool)> {
    let l = &lists().preset;
    text::numbers(s).into_iter().find_map(|n| {
        if n.kind != NumKind::Clock || n.values().len() != 1 {
            return None;
        }
        let rest = &s[n.end..];
        let rest = rest.strip_prefix('钟').unwrap_or(rest);
        let after = l.time_after.starts(rest);
        let before = l.time_before.starts(rest);
        (after || before).then(|| (clock_hours(s, &n), after))
    })
}

/// A clock time in hours from midnight: after noon when said so (`下午三点`) or when the hour,
/// unmarked, is one a working day's errands fall on only after noon (one to seven o'clock).
fn clock_hours(s: &str, n: &text::Num) -> f64 {
    let h = n.values()[0];
    let before = text::tail_chars(&s[..n.start], 3);
    let pm = lists().preset.afternoon.in_text(before);
    let morning = lists().preset.morning.in_text(before);
    if h < 12.0 && (pm || !morning && (1.0..8.0).contains(&h)) {
        h + 12.0
    } else {
        h
    }
}

/// Whether the caller's first clock time meets a time bound of the trigger: `Some(turn)` where
/// it does, `None` when it does not, and the trigger's reading unchanged when no caller says a
/// time (case preset/time-bound-branch).
fn time_met(ctx: &Ctx, bound: (f64, bool)) -> Option<Option<usize>> {
    let (at, after) = bound;
    ctx.turns.iter().filter(|t| !t.assistant).find_map(|t| {
        // (A caller turn's numbers are not read before: read here, for time-bound triggers only.)
        let n = text::numbers(t.text)
            .into_iter()
            .find(|n| n.kind == NumKind::Clock && n.values().len() == 1)?;
        let h = clock_hours(t.text, &n);
        let met = if after { h >= at } else { h < at };
        Some(met.then_some(t.idx))
    })
}

/// Whether the caller says they are someone (a role of the concept lexicon) that no concept
/// group of the trigger names.
fn names_other_role(ctx: &Ctx, trig: &Trigger) -> bool {
    other_role_in(ctx, trig, false)
}

/// Whether the caller offers or demands what a pitch concept of the trigger names (推销, 贷款:
/// the `pitch` trait), anywhere in what they say — one who pitches nothing is read by who they
/// say they are (`我是市场部的领导` against "如果是推销电话"; case
/// preset/another-role-against-a-pitch-trigger).
fn pitch_offered(ctx: &Ctx, trig: &Trigger) -> bool {
    let reg = ctx.concepts;
    let pitch =
        |ci: usize| reg.has(ci, ConceptTrait::Pitch) && trig.groups.iter().any(|g| g.contains(&ci));
    // (Each caller turn's concept hits, read once per turn: `facts`.)
    ctx.turns
        .iter()
        .filter(|t| !t.assistant)
        .any(|t| facts(ctx, t).hits.iter().any(|h| pitch(h.2 as usize)))
}

/// [`names_other_role`]; `own`: only in a clause where the caller speaks of themselves
/// (`我是橙风快递的派件员`, `我青墨印社小冯`) — not one that addresses the owner (`邵主管吗`) or
/// tells of the household (`家里没人`).
fn other_role_in(ctx: &Ctx, trig: &Trigger, own: bool) -> bool {
    let reg = ctx.concepts;
    let mut first = true;
    for t in ctx.turns.iter().filter(|t| !t.assistant) {
        let f = facts(ctx, t);
        for r in self_intro(t, f, first) {
            if own && !lists().preset.self_words.in_text(&t.text[r.clone()]) {
                continue;
            }
            let (mut shown, mut named) = (false, false);
            for ci in 0..reg.len() {
                if reg.sort(ci) == Sort::Role && shows_within(&f.hits, ci, r.clone()) {
                    shown = true;
                    named = named || trig.groups.iter().any(|g| g.contains(&ci));
                }
            }
            if shown && !named {
                return true;
            }
        }
        first = first && f.only_checks_who;
    }
    false
}

/// What a caller's reactions look like (`data/caller_reactions.toml`, compiled in).
static REACTIONS: LazyLock<(aho_corasick::AhoCorasick, Ac, Ac, Ac)> = LazyLock::new(|| {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        confused_openings: String,
        confused_words: String,
        premise_corrections: String,
        purpose_denials: String,
    }
    let file: File = toml::from_str(include_str!("../data/caller_reactions.toml"))
        .unwrap_or_else(|e| panic!("quality-checker data/caller_reactions.toml: {e}"));
    (
        aho_corasick::AhoCorasick::builder()
            .start_kind(aho_corasick::StartKind::Anchored)
            .build(file.confused_openings.split_whitespace())
            .expect("caller_reactions.toml: confused_openings"),
        lexicon::words(&file.confused_words),
        lexicon::words(&file.premise_corrections),
        lexicon::words(&file.purpose_denials),
    )
});

/// Whether the caller's answer to assistant turn `t` shows they did not ask for what it said.
/// (case preset/premise-corrected: a correction of the premise, `就是通知…`, shows it too)
fn confused_after(ctx: &Ctx, t: usize) -> bool {
    let Some(r) = caller_answer(ctx, t) else {
        return false;
    };
    let text = r.text.trim_start();
    let (openings, words, _, _) = &*REACTIONS;
    openings
        .find(aho_corasick::Input::new(text).anchored(aho_corasick::Anchored::Yes))
        .is_some()
        || words.is_match(text)
}

/// Whether the caller's answer to assistant turn `t` corrects the premise in words
/// (`premise_corrections`: `我是说续保报价`, `我不是问这个`) — not only a puzzled reply (`啊？`,
/// `什么意思`), which may be at anything else the turn said (case
/// preset/the-premise-corrected-after-a-first-telling).
fn premise_corrected(ctx: &Ctx, t: usize, content: &[u64], trigger: &str) -> bool {
    caller_answer(ctx, t).is_some_and(|r| {
        // (Asking about the preset's own words — `啥子？敲门？我是问敲不敲门哦` — is a
        // caller who misheard it, not one it was never meant for: case
        // preset/said-again-to-a-caller-who-did-not-understand. Read in the correction's
        // own clause: the preset's words denied before it are no question about them;
        // case preset/the-presets-words-denied-then-the-premise-corrected.)
        REACTIONS.2.find_iter(r.text).any(|m| {
            let said = &r.text[m.start()..clause_end_after(r, m.start(), m.end())];
            // (Nor trouble said again, which holds to a conflict — as a question's A-not-A
            // form does not; case preset/trouble-said-again-is-no-correction.)
            let trouble = OBJECTION
                .find_iter(said)
                .any(|o| !text::a_not_a_word(said, o.start(), o.end()));
            !names_content(said, content) && !trouble
        })
    }) || purpose_denied(ctx, t, content, trigger)
}

/// The caller's answer to assistant turn `t`: the next turn, when it is the caller's.
fn caller_answer<'c, 'a>(ctx: &'c Ctx<'a>, t: usize) -> Option<&'c TurnCtx<'a>> {
    ctx.turns.get(t + 1).filter(|r| !r.assistant)
}

/// The end of the clause of turn `r` that holds the word at `start..end` (the turn's end when no
/// clause holds it), never before the word's end.
fn clause_end_after(r: &TurnCtx, start: usize, end: usize) -> usize {
    r.clause_at(start)
        .map_or(r.text.len(), |(_, c)| c.end.max(end))
}

/// Whether the caller's answer to assistant turn `t` denies calling for the trigger's or the
/// preset's matter (`purpose_denials`: `我不是来催的` to "…不用电话催", `我不是嫌吵` for
/// "邻居反映练琴声音吵"; case preset/the-purpose-denied) — not for another (`我不是来纠缠的`
/// from a caller the trigger names by who they are): puzzled, and the premise corrected.
fn purpose_denied(ctx: &Ctx, t: usize, content: &[u64], trigger: &str) -> bool {
    caller_answer(ctx, t).is_some_and(|r| {
        REACTIONS.3.find_iter(r.text).any(|m| {
            // (A denial after a puzzled question opens the answer, `啊？不是面试啊`: case
            // preset/the-purpose-denied-after-a-puzzled-ah — not one said to someone else later
            // on, `你是不是叫了车？不是啊？`: case preset/a-denial-to-someone-else.)
            if r.text[m.start()..].starts_with(['？', '?'])
                && r.text[..m.start()]
                    .chars()
                    .filter(|&c| text::is_han(c))
                    .count()
                    > 2
            {
                return false;
            }
            let denied = &r.text[m.end()..clause_end_after(r, m.start(), m.end())];
            names_content(denied, content)
                || denied
                    .chars()
                    .any(|ch| text::is_han(ch) && !PRESET_FUNC.contains(ch) && trigger.contains(ch))
        })
    })
}

/// Whether turn `i` (a caller's) tells of an emergency (`冒烟`, `着火`).
fn emergency_in(ctx: &Ctx, i: usize) -> bool {
    ctx.turns
        .get(i)
        .is_some_and(|t| !t.assistant && emergency_cue(t.text))
}

/// The spans of `text` that tell trouble the preset rules know (`emergency_words`, and against a
/// preset that does not turn the caller away `strong_words` too), read as [`CUES`] reads them
/// (`not_cues` shadow a shorter cue inside them): the new facts of proxy's reading are these
/// and `concepts.toml`'s `new_fact`, one vocabulary of trouble for both detectors (case
/// proxy/trouble-the-preset-rules-know).
pub(crate) fn trouble_spans(
    text: &str,
    protective: bool,
) -> impl Iterator<Item = (usize, usize)> + '_ {
    let (aut, masks) = &*CUES;
    let want = if protective {
        C_EMERGENCY
    } else {
        C_EMERGENCY | C_STRONG
    };
    aut.find_iter(text)
        .filter(move |m| masks[m.pattern().as_usize()] & want != 0)
        .map(|m| (m.start(), m.end()))
}

/// Whether `text` holds an emergency cue (`emergency_words`).
fn emergency_cue(text: &str) -> bool {
    let (aut, masks) = &*CUES;
    aut.find_iter(text)
        .any(|m| masks[m.pattern().as_usize()] & C_EMERGENCY != 0)
}

/// Whether the words right before a trigger's word deny it (`不是停水啊`, `没超时`, `我不是推销`,
/// `您先别取消订单啊`, `不用问怎么走`): the checker's one reading of negation, `text::negated`,
/// within two characters, and the literary 并非 it does not know.
fn denies(before: &str) -> bool {
    before.ends_with("并非") || text::negated(before, 2) || denied_by_identity(before)
}

/// `我们这边不是搞推广的`, `我不是来推销的`: 不是 with a light verb between it and the word
/// denies who the caller is — not inside 是不是 (a question; case preset/not-here-to-sell).
fn denied_by_identity(before: &str) -> bool {
    lists().preset.identity_denial.iter().any(|d| {
        text::ends_with_word(before, d) && !before[..before.len() - d.len()].ends_with('是')
    })
}

/// The caller denies a part of the trigger: some concept group of it is named by the callers only
/// right after a denial, never plainly. No prior then stands in for it.
fn denied(ctx: &Ctx, trig: &Trigger) -> bool {
    trig.groups.iter().any(|g| {
        let mut negated = false;
        for t in ctx.turns.iter().filter(|t| !t.assistant) {
            let hits = &facts(ctx, t).hits;
            for &ci in g {
                for (start, end) in leftmost_longest(hits, ci) {
                    let before = &t.text[..start];
                    if denies(before) {
                        negated = true;
                    } else if !echoed(ctx, t, start, end) {
                        return false;
                    }
                }
            }
        }
        negated
    })
}

/// Whether the caller's words at `start..end` only echo the assistant's word just said, puzzled
/// (`面试？我不是约面试的` after the interview preset): a short question of the word itself, said
/// in the turn before — it names nothing of the caller's own (case
/// preset/the-trigger-word-echoed-then-denied).
fn echoed(ctx: &Ctx, t: &TurnCtx, start: usize, end: usize) -> bool {
    let Some(prev) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    let word = &t.text[start..end];
    prev.assistant
        && text::contains_str(prev.text, word)
        && t.clause_at(start).is_some_and(|(_, c)| {
            let ct = c.text(t.text);
            (c.question || t.text[c.end..].starts_with(['？', '?']))
                && ct.chars().filter(|&ch| text::is_han(ch)).count() <= word.chars().count() + 2
        })
}

/// Kin words: a trigger for one relative (`妈妈打电话问…`) does not hold for another.
static KIN: LazyLock<Words> = LazyLock::new(|| lists().preset.kin);

/// The first caller turn with a clause that introduces the caller (`我是…`, `我…`) as one of the
/// relatives the trigger names, within its first six characters, or names them alone.
fn kin_introduced(ctx: &Ctx, trig: &Trigger) -> Option<usize> {
    ctx.turns.iter().filter(|t| !t.assistant).find_map(|t| {
        t.clauses
            .iter()
            .enumerate()
            .any(|(ci, c)| {
                let s = c
                    .text(t.text)
                    .trim_start_matches(lists().preset.before_kin_intro.0);
                // The relative named alone after the owner's name (`晓雯？妈呀，…`, `晓雯呀，
                // 妈。`) — not first, where a bare 妈 or 哥 addresses the owner.
                let bare = s.trim_end_matches(['呀', '啊', '哈', '呢', '。', ' ']);
                if ci > 0
                    && !s.is_empty()
                    && bare.chars().count() <= 2
                    && trig
                        .kin
                        .iter()
                        .any(|k| kin_words(k).any(|w| text::contains_str(bare, w)))
                {
                    return true;
                }
                let Some(rest) = s.strip_prefix('我') else {
                    return false;
                };
                let rest = rest.strip_prefix('是').unwrap_or(rest);
                let head = text::head_chars(rest, 6);
                trig.kin
                    .iter()
                    .any(|k| kin_words(k).any(|w| text::contains_str(head, w)))
            })
            .then_some(t.idx)
    })
}

/// The trigger names relatives, and the caller introduces themselves as another one
/// (`我是你小姑` for "妈妈打电话问周末回不回家").
fn other_kin(ctx: &Ctx, trig: &Trigger) -> bool {
    let named = &trig.kin;
    if named.is_empty() {
        return false;
    }
    let Some(first) = ctx.turns.iter().find(|t| !t.assistant) else {
        return false;
    };
    let Some(i) = text::find_str(first.text, "我是") else {
        return false;
    };
    let intro = &first.text[i + "我是".len()..];
    let intro = &intro[..intro
        .find(['，', '。', ',', '！', '？'])
        .unwrap_or(intro.len())];
    let said: Vec<&str> = KIN
        .iter()
        .copied()
        .filter(|k| text::contains_str(intro, k))
        .collect();
    !said.is_empty()
        && !said
            .iter()
            .any(|k| named.iter().any(|n| kin_words(n).any(|w| w == *k)))
}

/// Kin word `k` and the words for the same relative (`kin_same`: 爸 for 父亲).
fn kin_words(k: &'static str) -> impl Iterator<Item = &'static str> {
    let same = lists()
        .preset
        .kin_same
        .iter()
        .find(|g| g.split_whitespace().any(|w| w == k));
    std::iter::once(k).chain(same.into_iter().flat_map(|g| g.split_whitespace()))
}

/// The first caller turn by which every concept group of the trigger is shown.
fn held_groups(ctx: &Ctx, trig: &Trigger, role_prior: bool) -> Result<Option<usize>, ()> {
    let reg = ctx.concepts;
    // A trigger about an event (送到, 找不到, 卖完) holds when the event is reported, whoever
    // reports it (the platform's customer service for the shop, a dispatcher for the driver).
    let has_event = trig
        .groups
        .iter()
        .any(|g| g.iter().any(|&ci| reg.sort(ci) == Sort::Event));
    // …unless the caller says they are another of the delivery trades (a courier's arrival does
    // not hold "外卖送到").
    let mut ok: Vec<bool> = trig
        .groups
        .iter()
        .map(|g| {
            has_event && g.iter().all(|&ci| reg.sort(ci) == Sort::Role) && !other_trade(ctx, g)
        })
        .collect();
    // Prior: in a dialogue generated with the trigger holding (alignment, complementarity,
    // conflict), a caller who has said anything of substance has said who they are, even
    // without a role word ("我是周总", "琳琳，我小悠呀"). Events always need words.
    // With several presets the relation is about one of them: no prior then.
    let mut first = true;
    let mut named_role = false;
    let mut named_trade = false;
    for t in ctx.turns.iter().filter(|t| !t.assistant) {
        let f = facts(ctx, t);
        let hits = &f.hits;
        // A caller who names a role (快递, 同事) is judged by it, not by the prior.
        named_role = named_role
            || self_intro(t, f, false).any(|r| {
                hits.iter().any(|&(a, b, ci)| {
                    reg.sort(ci as usize) == Sort::Role
                        && a as usize >= r.start
                        && b as usize <= r.end
                })
            });
        let intro: Vec<std::ops::Range<usize>> = self_intro(t, f, first).collect();
        // … and one who says they are not selling (人事, 物业, 快递) pitches only in words that
        // say so, not in `产品经理岗位` or `办理入职`.
        named_trade = named_trade
            || intro.iter().any(|r| {
                hits.iter().any(|&(a, b, ci)| {
                    let ci = ci as usize;
                    reg.sort(ci) == Sort::Role
                        && !reg.has(ci, ConceptTrait::Pitch)
                        && a as usize >= r.start
                        && b as usize <= r.end
                })
            });
        let needs_role = trig
            .groups
            .iter()
            .zip(&ok)
            .any(|(g, &o)| !o && g.iter().any(|&ci| reg.sort(ci) == Sort::Role));
        let substantive = needs_role && role_prior && !named_role && substantive_turn(ctx, t);
        for (gi, g) in trig.groups.iter().enumerate() {
            if ok[gi] {
                continue;
            }
            ok[gi] = g.iter().any(|&ci| match reg.sort(ci) {
                // A pitch (推销, 贷款, 催收) shows in what is said, anywhere, not in who says it.
                Sort::Role if reg.has(ci, ConceptTrait::Pitch) => {
                    substantive
                        || if named_trade {
                            pitch_shown(ci, t.text, hits)
                        } else {
                            hits.iter().any(|h| h.2 as usize == ci)
                        }
                }
                Sort::Role => {
                    substantive || intro.iter().any(|r| shows_within(hits, ci, r.clone()))
                }
                Sort::Event => event_said_turn(ctx, t, ci),
                Sort::Weak => true,
            });
        }
        first = first && f.only_checks_who;
        if ok.iter().all(|&x| x) {
            return Ok(Some(t.idx));
        }
    }
    Ok(None)
}

/// Words of a pitch that ordinary calls say too (`产品经理`, `推荐信`, `办理入职`): one
/// alone shows no pitch, two different ones do.
static COMMON_PITCH_WORDS: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().preset.common_pitch_words));

/// Whether `text` shows the pitch of concept `ci` (推销, 贷款, 催收): one of its own words, or
/// two different common ones.
fn pitch_shown(ci: usize, text: &str, hits: &[ShowsHit]) -> bool {
    let mut common: Vec<&str> = Vec::new();
    for (start, end) in leftmost_longest(hits, ci) {
        let w = &text[start..end];
        if !COMMON_PITCH_WORDS.is_match(w) {
            return true;
        }
        if !common.contains(&w) {
            common.push(w);
        }
    }
    common.len() >= 2
}

/// Whether the caller introduces themselves as one of the delivery trades (外卖, 快递, 司机)
/// that group `g` does not name, and as none that it does.
fn other_trade(ctx: &Ctx, g: &[usize]) -> bool {
    let reg = ctx.concepts;
    let trade = |ci: usize| reg.has(ci, ConceptTrait::Trade);
    if !g.iter().any(|&ci| trade(ci)) {
        return false;
    }
    let mut first = true;
    let mut other = false;
    for t in ctx.turns.iter().filter(|t| !t.assistant) {
        let f = facts(ctx, t);
        for r in self_intro(t, f, first) {
            for ci in (0..reg.len()).filter(|&ci| trade(ci)) {
                if shows_within(&f.hits, ci, r.clone()) {
                    if g.contains(&ci) {
                        return false;
                    }
                    other = true;
                }
            }
        }
        first = first && f.only_checks_who;
    }
    other
}

/// Words before an event word that make it not (yet) happen: 快到了, 二十分钟送到, 还没到.
static NOT_YET: LazyLock<Words> = LazyLock::new(|| lists().preset.not_yet);

/// A way still to go before the event (还有, 再过一站, 下一站; case preset/still-on-the-way).
static AHEAD: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.ahead));

/// Days and times ahead: an event said with them is planned, not happened.
static FUTURE: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.future));

/// Times gone by: trouble said with them is over.
static PAST: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.past));

/// Whether the caller's text reports the event (not as future, not negated).
/// (`clauses`: the text's clauses, [`text::clauses`].)
fn event_said(
    reg: &Registry,
    ci: usize,
    text: &str,
    clauses: &[Clause],
    hits: &[ShowsHit],
) -> bool {
    if reg.has(ci, ConceptTrait::Arrival) && arrived(text, clauses) {
        return true;
    }
    leftmost_longest(hits, ci).any(|(m_start, m_end)| {
        // Asking whether anyone is home tells an arrival only from one who has not just said they
        // are not there yet (`我还没到楼下，还在路上，家里有人吗？`; case preset/not-there-yet).
        if lists()
            .preset
            .anyone_home
            .iter()
            .any(|w| &text[m_start..m_end] == *w)
            && lists().preset.not_there_yet.in_text(text)
        {
            return false;
        }
        // 没人的话我放哪儿, 明天上午…放哪儿: a condition or a plan, not a report.
        if let Some(c) = clauses
            .iter()
            .find(|c| c.start <= m_start && m_start < c.end)
        {
            let ct = c.text(text);
            // (But a question after the condition is asked now: `家里没人的话放快递柜行吗？`
            // asks about the locker, case preset/asked-after-a-condition.)
            if ct.contains("的话") && (!c.question || text[m_end..c.end].contains("的话"))
                || lists().preset.conditions.starts(ct.trim_start())
            {
                return false;
            }
            // A time ahead said before the event word, in its sentence or the one before.
            let from = clauses
                .iter()
                .find(|d| d.sentence == c.sentence || d.sentence + 1 == c.sentence)
                .map_or(c.start, |d| d.start);
            // (Scheduling is about the future by nature.)
            // (Nor is news announced ahead: `这周六的课得取消`.)
            if !reg.has(ci, ConceptTrait::Scheduling)
                && !reg.has(ci, ConceptTrait::Announced)
                && FUTURE.is_match(&text[from..m_start])
            {
                return false;
            }
        }
        // 还有…就到了, 下一站就到: still on the way (case preset/still-on-the-way).
        if let Some(c) = clauses
            .iter()
            .find(|c| c.start <= m_start && m_start < c.end)
            && AHEAD.is_match(&text[c.start..m_start])
        {
            return false;
        }
        // 到锦澜苑附近了: near, not there.
        if let Some(c) = clauses
            .iter()
            .find(|c| c.start <= m_start && m_start < c.end)
            && text[m_end..c.end].contains("附近")
        {
            return false;
        }
        // 到了再打给你, 到了就放, 到了给您打电话: a condition about the future, not a report
        // (preset.toml `then_words`).
        let after = text[m_end..].trim_start_matches(|c: char| {
            let l = &lists().lexicon;
            c == '我' || l.caller_pronouns.contains(&c) || l.owner_pronouns.contains(&c)
        });
        if lists().preset.then_words.starts(after) {
            return false;
        }
        // Announced news is reported by being announced (`得取消`, `要取消`: case
        // preset/cancellation-announced).
        // So is an appointment asked for (`要入户检查`, `要上门看`): what is to come is the
        // appointment itself (case preset/visit-announced).
        if reg.has(ci, ConceptTrait::Announced) || reg.has(ci, ConceptTrait::Scheduling) {
            return true;
        }
        let before = text::tail_chars(&text[..m_start], 4);
        !NOT_YET.iter().any(|w| {
            text::ends_with_word(before, w)
                || text::contains_str(before, w) && w.chars().count() >= 2
        })
    })
}

/// Verbs ending in 到 that are not arriving (收到, 看到, 接到单, 拿到餐).
static NOT_ARRIVE: LazyLock<lexicon::HanSet> =
    LazyLock::new(|| lexicon::HanSet::new(lists().preset.not_arrive.iter().copied()));

/// The caller says they (or the goods) are there: `我到栖云府了`, `件到松塘新村了`,
/// `到地铁站这边了`, `我现在在你家门口`, `我在6号楼楼下` — arrival told in any words, not as
/// future (`再过两个路口就到`) and not negated.
/// (`clauses`: the text's clauses, [`text::clauses`].)
fn arrived(text: &str, clauses: &[Clause]) -> bool {
    for c in clauses {
        let clause = c
            .text(text)
            .trim_end_matches(['。', '！', '!', '，', ',', '啊', '呀', '哈', '啦']);
        // 到 … 了 within one clause — at its end, or, in speech written without commas, before
        // what comes next (`我到老码头路口了青B·6K239黑色的`; case preset/arrival-run-on).
        for (li, _) in clause.match_indices('了') {
            let end = &clause[..li];
            let next = clause[li + '了'.len_utf8()..].chars().next();
            if next.is_some_and(|c| lists().preset.not_done_after_le.contains(&c)) {
                continue;
            }
            for (i, _) in end.match_indices('到') {
                let before = &end[..i];
                let prev = before.chars().next_back();
                if prev.is_some_and(|p| NOT_ARRIVE.contains(p)) && !before.ends_with("送") {
                    continue;
                }
                let place = &end[i + '到'.len_utf8()..];
                let n = place.chars().count();
                let tail4 = text::tail_chars(before, 4);
                let future = NOT_YET.iter().any(|w| {
                    text::ends_with_word(tail4, w)
                        || text::contains_str(tail4, w) && w.chars().count() >= 2
                });
                // The parcel come to the courier's own depot (`您有个件今天到站了`, `件到我们网点了`)
                // is not at the door (case preset/parcel-at-the-depot); a driver's `我到东站了`
                // is an arrival (case preset/driver-at-the-station).
                let depot = lists().preset.depots.in_text(place)
                    && lists().preset.parcel_words.in_text(tail4);
                if (1..=12).contains(&n)
                    && !future
                    && !depot
                    && !AHEAD.is_match(before)
                    && !place.contains(lists().preset.arrival_asked_or_denied.0)
                    && !place.contains("附近")
                {
                    return true;
                }
            }
        }
        // 在 … 楼下 / 门口.
        for (i, _) in clause.match_indices('在') {
            let rest = &clause[i + '在'.len_utf8()..];
            let head = text::head_chars(rest, 12);
            if lists().preset.arrival_spots.in_text(head)
                && !text::negated(&clause[..i], 2)
                && !clause[..i].ends_with(lists().preset.will_be.0)
                // (No 在 of 实在, 现在…: `not_zai_before`; case preset/shizai-is-no-at.)
                && !clause[..i].ends_with(lists().lexicon.not_zai_before.0)
                // Someone else there (`他在小区门口等还是我进去？`), or asked about, reports no
                // arrival of the caller's (case preset/where-the-passenger-waits).
                && !clause[..i].ends_with(lists().lexicon.owner_pronouns.0)
                && !clause[..i].ends_with(lists().lexicon.caller_pronouns.0)
                && !c.question
            {
                return true;
            }
        }
    }
    false
}

/// Fillers that say nothing about who calls or why.
static FILLER: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.filler));

/// The caller's turn says what the call is about, not only who calls (`喂，小姚啊，我是房东老陈。`
/// is an introduction; case preset/topic-said-again-later): ten characters at least beyond the
/// fillers.
fn says_business(t: &TurnCtx) -> bool {
    han_beyond_fillers(t.text) >= 10
}

/// The Han characters of `text` that are not in a filler (`FILLER`).
fn han_beyond_fillers(text: &str) -> usize {
    let han = text.chars().filter(|&c| text::is_han(c)).count();
    let filler: usize = FILLER
        .find_iter(text)
        .map(|m| text[m.start()..m.end()].chars().count())
        .sum();
    han.saturating_sub(filler)
}

/// The caller said something of substance (who they are or what they want), beyond greetings
/// and the owner's name.
fn substantive(ctx: &Ctx, text: &str) -> bool {
    let left = han_beyond_fillers(text);
    // (Owner references only lower the count: too few characters left already, none needed.)
    if left < 4 {
        return false;
    }
    let mut names = 0;
    for (i, c) in text.char_indices() {
        if let Some(len) = ctx.owner_ref_ending(&text[..i + c.len_utf8()]) {
            names += text[i + c.len_utf8() - len..i + c.len_utf8()]
                .chars()
                .count();
        }
    }
    left.saturating_sub(names) >= 4
}

/// Characters and bigrams that carry no instruction of their own in a preset (politeness,
/// particles, pronouns): a paraphrase may drop or change them (`麻烦…就行，谢谢` → `…就好`).
static PRESET_FILLER_CHARS: LazyLock<&[char]> =
    LazyLock::new(|| lists().preset.preset_filler_chars.0);
static PRESET_FILLER_BIGRAMS: LazyLock<Words> =
    LazyLock::new(|| lists().preset.preset_filler_bigrams);

/// A preset's words without the frame that tells the assistant to pass them on
/// (`跟对方说不用了` → `不用了`, `告诉她我这周六回家` → `我这周六回家`).
pub(crate) fn preset_core(response: &str) -> &str {
    static FRAMES: LazyLock<Words> = LazyLock::new(|| lists().preset.frames);
    // The frames' first characters (None when a frame is empty: then every response is tried).
    static FIRST: LazyLock<Option<lexicon::HanSet>> = LazyLock::new(|| {
        FRAMES
            .iter()
            .map(|f| f.chars().next())
            .collect::<Option<Vec<char>>>()
            .map(lexicon::HanSet::new)
    });
    let r = response.trim_start();
    // (Most responses start with no frame's first character: one lookup, not a comparison
    // per frame; asked several times per preset.)
    if let Some(first) = &*FIRST
        && !r.chars().next().is_some_and(|c| first.contains(c))
    {
        return r;
    }
    for f in FRAMES.iter() {
        if let Some(rest) = r.strip_prefix(f) {
            let rest = rest.trim_start_matches(['，', ',', '：', ':']);
            if rest.chars().count() >= 2 {
                return rest;
            }
        }
    }
    r
}

/// Which of the word lists about a preset its own words hold: read once per preset (see
/// `PresetInfo`), not per check.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PresetWords {
    /// The trigger is about trouble (`TRIGGER_TROUBLE`).
    trigger_trouble: bool,
    /// The response (its core) is about where goods are left (`LEAVE_GOODS`).
    leaves_goods: bool,
    /// The response makes the caller wait (`WAITS`).
    waits: bool,
    /// The response puts the matter off (`DEFERS`).
    defers: bool,
}

/// The preset's [`PresetWords`].
fn preset_words(p: &PresetCtx) -> PresetWords {
    *p.info.words.get_or_init(|| {
        let core = preset_core(p.response);
        PresetWords {
            trigger_trouble: TRIGGER_TROUBLE.is_match(p.trigger),
            leaves_goods: LEAVE_GOODS.is_match(core),
            waits: WAITS.is_match(core),
            defers: DEFERS.is_match(core),
        }
    })
}

/// The content bigrams of a preset response.
pub(crate) fn preset_content(response: &str) -> Vec<u64> {
    let response = preset_core(response);
    let mut v = Vec::new();
    text::push_bigrams(response, &mut v);
    // (The two lists as a bit set and packed bigrams, built once: this runs per preset and
    // dialogue.)
    static FILLER: LazyLock<(lexicon::HanSet, Vec<u64>)> = LazyLock::new(|| {
        let chars = lexicon::HanSet::new(PRESET_FILLER_CHARS.iter().copied());
        let mut pairs: Vec<u64> = PRESET_FILLER_BIGRAMS
            .iter()
            .flat_map(|w| text::bigrams(w))
            .collect();
        pairs.sort_unstable();
        (chars, pairs)
    });
    let (chars, pairs) = &*FILLER;
    v.retain(|&b| {
        let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
        let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
        !chars.contains(a) && !chars.contains(c) && pairs.binary_search(&b).is_err()
    });
    text::finish(v)
}

/// Whether turn `t` says another preset clearly better than `p`: two presets of one owner share
/// words (`正在开会，请先把事情发到工作群里，下午五点左右回电话` and `材料正在整理，下午五点左右会把进展发到您邮箱`),
/// and a turn that gives one gives only that one (case preset/the-better-fitting-preset).
fn another_fits_better(ctx: &Ctx, t: &TurnCtx, p: &PresetCtx) -> bool {
    if ctx.presets.len() < 2 {
        return false;
    }
    let mine = text::containment(p.core_bigrams(), &t.bigrams);
    // (A turn that gives two presets, `普通件放门口拍照发她，到付件不收`, says most of each.)
    mine < 0.5
        && ctx
            .presets
            .iter()
            .any(|o| o.id != p.id && text::containment(o.core_bigrams(), &t.bigrams) >= mine + 0.25)
}

/// The preset's instructions that turn `t` says whole (`放门口就行` of `放门口就行，不用等人签收`).
fn instructions_said<'c, 't>(
    t: &'t TurnCtx,
    clause_bigrams: &dyn Fn() -> &'c [Vec<u64>],
) -> impl Iterator<Item = &'c Vec<u64>> + 't
where
    'c: 't,
{
    clause_bigrams()
        .iter()
        .filter(move |cb| cb.len() >= 3 && text::contains_all(cb, &t.bigrams))
}

/// Whether turn `t` names the preset (most of `content`) in a sentence that refuses to decide it
/// for the owner, and does not give it as the owner's word.
fn refused_as_a_decision(t: &TurnCtx, content: &[u64]) -> bool {
    let Some(m) = lexicon::DECISION_REFUSAL.find(t.text) else {
        return false;
    };
    if OWNERS_WORD.is_match(t.text) || content.is_empty() {
        return false;
    }
    text::sentences(t.text)
        .into_iter()
        .find(|r| r.start <= m.start() && m.start() < r.end)
        .is_some_and(|r| {
            let b = text::bigrams(&t.text[r.start..m.start()]);
            text::containment(content, &text::finish(b)) >= 0.5
        })
}

/// Whether turn `t` conveys preset `p` (`content` = [`preset_content`] of it): most of its
/// content bigrams are there; a short preset (`不需要，谢谢`) only whole.
fn conveys<'c>(
    ctx: &Ctx,
    t: &TurnCtx,
    p: &PresetCtx,
    content: &[u64],
    clause_bigrams: &dyn Fn() -> &'c [Vec<u64>],
) -> bool {
    // The preset's words as the topic of a refusal to decide (`放快递柜这个我这边没法替她决定`):
    // the owner's instruction withheld, not told (case preset/played-safe-is-missing). (Asked
    // only of a turn that says the words: most turns do not.)
    says_words(ctx, t, p, content, clause_bigrams) && !refused_as_a_decision(t, content)
}

/// Whether turn `t` says the words of preset `p` ([`conveys`] before a refusal is read).
fn says_words<'c>(
    ctx: &Ctx,
    t: &TurnCtx,
    p: &PresetCtx,
    content: &[u64],
    clause_bigrams: &dyn Fn() -> &'c [Vec<u64>],
) -> bool {
    // A turn that shares no character pair with the response conveys nothing of it: the core's,
    // the content's and the instructions' bigrams below are all the response's, so every score
    // is 0, short of no threshold above 0 (most turns, for most presets).
    if ctx.cfg.preset_conveyed_similarity > 0.0
        && !text::any_common(&t.bigrams, p.bigrams(), |_| true)
    {
        return false;
    }
    let whole = p.core_bigrams();
    let short = whole.len() <= 4 || content.len() <= 2;
    // Words the caller has just said are an echo, not the owner's instruction (`您先绕一圈、
    // 大概五分钟回来` does not convey "在原地等他五分钟"): judge on the rest when enough is left.
    let echo: Vec<u64> = match t.idx.checked_sub(1).map(|i| &ctx.turns[i]) {
        Some(prev) if !prev.assistant && !short => {
            let said = prev.all_bigrams();
            content
                .iter()
                .copied()
                .filter(|b| said.binary_search(b).is_err())
                .collect()
        }
        _ => Vec::new(),
    };
    let full = content;
    let content: &[u64] = if echo.len() >= 2 && echo.len() < content.len() {
        &echo
    } else {
        content
    };
    // The caller's words confirmed as the owner's (`南门丰驿驿站正好是她交代的地方` after `我已经
    // 放到南门丰驿驿站了`): the preset told, by its giver's name (case
    // preset/echo-confirmed-as-the-owners-word).
    if !short
        && content.len() < full.len()
        && OWNERS_WORD.is_match(t.text)
        && text::containment(full, &t.bigrams) >= ctx.cfg.preset_conveyed_similarity
    {
        return true;
    }
    let (score, theta) = if short {
        (text::containment(whole, &t.bigrams), 1.0)
    } else {
        (
            text::containment(content, &t.bigrams),
            ctx.cfg.preset_conveyed_similarity,
        )
    };
    if score >= theta {
        return true;
    }
    if instructions_said(t, clause_bigrams).next().is_some() {
        return true;
    }
    let turn = &ctx.d.turns[t.idx];
    let labelled = turn.action == Some(callbench_model::Action::ConveyPreset)
        && turn.preset_id.as_deref().is_none_or(|id| id == p.id);
    labelled && score >= theta / 2.0
}

/// The first caller turn (index) whose words conflict with preset `p`: `strong` for
/// `preset.conflict`, any problem at all (`strong = false`) to hold back `preset.missing`.
/// Whether the caller's turn right before assistant turn `t` pushes against the preset (pressure
/// that reports no new fact, or a request only a scam makes): restating the preset there holds it.
fn held_against_pressure(ctx: &Ctx, p: &PresetCtx, t: usize, content: &[u64]) -> bool {
    t.checked_sub(1)
        .and_then(|c| ctx.turns.get(c))
        .is_some_and(|c| {
            // A caller who did what the preset asks and then pleads for something else (`好嘞，放
            // 门口了。能不能给个五星好评？`) is not pushing against it: the preset said again is
            // no hold (case preset/done-then-a-plea).
            if reports_done(c, content) {
                return false;
            }
            // Nor is one who gives in, whatever penalty they grumble about (`唉，行吧，那我自己
            // 取消，扣分就扣分吧`; case preset/told-again-after-giving-in).
            if gave_in(c) {
                return false;
            }
            // A protective preset is held against a plea as well (guilt, others cited: case
            // proxy/rhetorical-danger), as `preset.dropped` reads it.
            let protective = crate::proxy::protective(p);
            !c.assistant
                && (crate::proxy::pressure_only_at(ctx, c.idx, protective)
                    || protective
                        && crate::proxy::pushes(c.text)
                        && !crate::proxy::reports_new_fact(c.text, true)
                    || crate::proxy::scam_request_in(ctx, c.text).is_some())
        })
}

fn conflict_at(
    ctx: &Ctx,
    p: &PresetCtx,
    trig: &Trigger,
    first_told: Option<usize>,
) -> Option<usize> {
    let strong = true;
    let content = p.content();
    // A refusal of a suspicious caller (sales, loans, debts, refunds, banks) is not undone by
    // the caller's story (the parcel was lost, the account is frozen) — only by an emergency.
    let protective_preset = trig
        .groups
        .iter()
        .flatten()
        .any(|&ci| ctx.concepts.has(ci, ConceptTrait::Protective));
    // A preset that refuses in its own words what the caller demands (`不接受私下加价`,
    // `一律拒收`, `不能私下提供`): the caller's reasons for the demand (`下雨天，我得加十块`) are
    // its occasion: only an emergency is a conflict by its cue alone, any other cue only when it
    // names what the preset settles or the turn reports a new fact (`路上出了点小事故`) (case
    // preset/a-demand-refused-in-its-own-words).
    // (Protective by its words alone: a preset that says no to its trigger's request
    // (`proxy::protective`) may send the caller elsewhere, and trouble there — the app down — is
    // a conflict; case preset/payment-failing-in-the-app.)
    let in_words = crate::proxy::protective_in_words(p);
    let refuses_demand = protective_preset || in_words;
    // A trigger about trouble (`说进不了小区`, `说堵车会迟到`): the trouble it anticipates is
    // the preset's own situation, not a conflict with it.
    let words = preset_words(p);
    let anticipates = words.trigger_trouble && trig.topic_chars.len() >= 2; // (case preset/repair-reported)
    let leaves_goods = words.leaves_goods;
    let waits = words.waits || words.defers;
    for t in ctx.turns.iter().filter(|t| !t.assistant) {
        // Pressure (a penalty, a deadline, a threat) reports no new fact: it is what a preset is
        // held against, not a situation that makes it wrong (`我自己取消会被罚款`).
        if crate::proxy::pressure_only_at(ctx, t.idx, in_words) {
            continue;
        }
        // Nothing that could conflict in this turn at all?
        let (cue_aut, cue_masks) = &*CUES;
        // (One character after the other: a search for any of them decodes every character.)
        if !((lists().preset.negative_cue_chars.iter()).any(|&c| t.text.contains(c))
            || cue_aut.is_match(t.text)
            || CLOSED.is_match(t.text))
        {
            continue;
        }
        if anticipates
            && trig
                .topic_chars
                .iter()
                .filter(|&&x| t.text.contains(x))
                .count()
                >= 2
        {
            continue;
        }
        // Which clauses hold a word that could make a conflict (`CONFLICT_WORDS`).
        let mut candidate = vec![false; t.clauses.len()];
        for m in CONFLICT_WORDS.find_iter(t.text) {
            if let Some(k) = t
                .clauses
                .iter()
                .position(|c| c.start <= m.start() && m.end() <= c.end)
            {
                candidate[k] = true;
            }
        }
        let trigger_trouble_told = OnceCell::new();
        // (Whether the turn's cues block one side of an either-or preset: once per turn.)
        let one_side_blocked = OnceCell::new();
        // Told the preset, the caller takes it in its own words (`好，周四前发邮箱，没问题。`,
        // `好嘞，给你放门口台阶上了`): the trouble told beside it is another matter (`听说她家里
        // 漏水了？`, `那张专票抬头开错了`, `下雨淋不着`) — a conflict only where it names the
        // preset's own words or reports an emergency (cases preset/taken-then-another-matter,
        // preset/taken-then-its-place-troubled).
        // (Taken: a glad opening, then a clause of its first sentence with the preset's words
        // and no reluctance of its own — not `好的，不过放门口不行`.)
        // (Read on first need: most turns have no clause that could conflict.)
        let taking = OnceCell::new();
        let takes = || {
            *taking.get_or_init(|| {
                first_told.is_some_and(|f| f < t.idx)
                    && opens_glad(t.text)
                    && text::sentences(t.text).first().is_some_and(|r| {
                        let first = &t.text[r.clone()];
                        text::clauses(first).iter().any(|c| {
                            let ct = c.text(first);
                            !c.question
                                && names_content(ct, content)
                                && !lists().preset.reluctance.in_text(ct)
                        })
                    })
            })
        };
        for (ci, c) in t.clauses.iter().enumerate() {
            let clause = c.text(t.text);
            // No cue, inability or blocking, and no `不`: nothing below can find a conflict
            // (`hit` needs a cue, `bears_on_preset` an inability or `不`, `blocked` a blocking).
            if !candidate[ci] && !clause.contains('不') {
                continue;
            }
            if !names_content(clause, content) && (c.question || !emergency_cue(clause)) && takes()
            {
                continue;
            }
            // Once told the preset, a caller who turns to another matter with a question (`还有个
            // 事，那个遥控器是不是没电了？`) asks about that matter — a conflict only where it names
            // the preset's own words or is an emergency (case preset/dad-introduced-as-your-dad).
            // (Trouble told as news after the shift may bear on the preset: `对了，这件是生鲜，冰
            // 袋都快化了`.)
            if c.question
                && first_told.is_some_and(|f| f < t.idx)
                && TOPIC_SHIFT
                    .find(t.text)
                    .is_some_and(|m| m.start() <= c.start)
                && !names_content(clause, content)
                && !emergency_cue(clause)
            {
                continue;
            }
            // A list (`老人摔倒、孩子烫伤的事特别多`) is one phrase: what frames its last item frames
            // every item (case preset/an-emergency-in-general).
            let mut list_end = c.end;
            for next in &t.clauses[ci + 1..] {
                if !t.text[list_end..].starts_with('、') {
                    break;
                }
                list_end = next.end;
            }
            if NOT_CONFLICT.is_match(&t.text[c.start..list_end]) {
                continue;
            }
            if lexicon::conditional(clause) {
                continue;
            }
            // A repair the owner filed, not getting worse anywhere in its sentence (`filed_repair`,
            // `worsening`).
            let pl = &lists().preset;
            if FILED_REPAIR.is_match(clause)
                && !t
                    .clauses
                    .iter()
                    .filter(|d| d.sentence == c.sentence)
                    .any(|d| pl.worsening.in_text(d.text(t.text)))
            {
                continue;
            }
            // `她还有个到付件明天到`: another matter, later — not the situation at hand; nor trouble
            // gone by (`上回热水器坏了`; case preset/past-trouble-asked-about).
            if FUTURE.is_match(clause) || PAST.is_match(clause) {
                continue;
            }
            // Trouble with the very thing both the trigger and the preset name (`单元门锁着进
            // 不去` against "到楼下单元门" → "单元门密码是…"): the occasion the preset answers.
            if occasion(clause, p) {
                continue;
            }
            // The trigger's own event in the caller's words (`牛肉没了，做不了` for "卖完了、缺货"):
            // the preset's occasion, not a conflict with it (case preset/the-trigger-event-reported).
            let trigger_event: Vec<(usize, usize)> = facts(ctx, t)
                .hits
                .iter()
                .filter(|&&(a, b, k)| {
                    let k = k as usize;
                    c.start <= a as usize
                        && b as usize <= c.end
                        && ctx.concepts.sort(k) == Sort::Event
                        // (An appointment to make is shown by any time said: not a report; case
                        // preset/a-time-is-no-appointment-reported.)
                        && !ctx.concepts.has(k, ConceptTrait::Scheduling)
                        && trig.groups.iter().flatten().any(|&g| g == k)
                })
                .map(|&(a, b, _)| (a as usize, b as usize))
                .collect();
            // ... unless an emergency is reported beside it (`我在门口闻到挺重的煤气味`: the
            // arrival is the occasion, the gas smell a conflict; case preset/emergency-beside-the-arrival).
            // (Or, against a preset about where goods are left, goods it cannot take told with
            // the arrival, `冷链件到楼下了`; case preset/cannot-be-left-at-the-door.)
            let news_beside = !trigger_event.is_empty()
                && cue_aut.find_iter(clause).any(|m| {
                    let (a, b) = (c.start + m.start(), c.start + m.end());
                    let mask = cue_masks[m.pattern().as_usize()];
                    (mask & C_EMERGENCY != 0 || leaves_goods && mask & C_HANDOFF != 0)
                        && trigger_event.iter().all(|&(x, y)| b <= x || y <= a)
                        && !text::negated(&clause[..m.start()], 2)
                });
            if !trigger_event.is_empty() && !news_beside {
                continue;
            }
            // `是到付还是寄付的？`: a choice asked about, not a situation reported; nor an offer
            // (`需不需要帮您把外包装拆了带走？`).
            let alternative = c.question && lists().preset.choice_asked.in_text(clause);
            // A place closed that day, against a preset that keeps a day or a time.
            if CLOSED.is_match(clause)
                && p.bigrams().iter().any(|&b| text::time_pair(b))
                && !lists().preset.moves.in_text(p.response)
            {
                return Some(t.idx);
            }
            // A cue the preset itself says (`否则我会报警`, echoed `报警？`) is no new situation.
            let hit = cue_aut.find_iter(clause).any(|m| {
                let word = &clause[m.start()..m.end()];
                if text::contains_str(p.response, word)
                    || text::contains_str(p.trigger, word)
                    || lists().preset.trade_name_ends.starts(&clause[m.end()..])
                {
                    return false;
                }
                let mask = cue_masks[m.pattern().as_usize()];
                // An emergency against a preset for emergencies (`请立刻打急救电话`) is its
                // occasion (case preset/an-emergency-preset-meets-an-emergency).
                if mask & C_EMERGENCY != 0
                    && mask & C_STRONG == 0
                    && lists().preset.emergency_presets.in_text(p.response)
                {
                    return false;
                }
                // One alternative of the preset blocked, the other left (no emergency).
                // (Read over the turn's clauses with a cue: `柜子满了，驿站也满了` blocks both.)
                if mask & C_EMERGENCY == 0
                    && *one_side_blocked.get_or_init(|| {
                        one_alternative_blocked(
                            // (Within the cue's clause: `能不能放驿站。这是保价的件` blocks no
                            // station; case preset/the-station-asked-then-a-signature.)
                            &cue_aut
                                .find_iter(t.text)
                                .map(|m| {
                                    let before = &t.text[..m.start()];
                                    let from = before
                                        .rfind(['，', '。', '？', '！', ',', '?', '!', '；'])
                                        .map_or(0, |i| {
                                            i + before[i..].chars().next().map_or(0, char::len_utf8)
                                        });
                                    // (With the cue itself: `柜子满了` names its place; case
                                    // preset/the-place-in-the-cue. Six characters back: case
                                    // preset/a-drop-point-said-further-back.)
                                    let tail = text::tail_chars(&before[from..], 6);
                                    &t.text[m.start() - tail.len()..m.end()]
                                })
                                .collect::<Vec<_>>(),
                            p,
                        )
                    })
                {
                    return false;
                }
                // The trigger's own trouble reported in the turn (`路上洒了` for "餐洒了"): the
                // other troubles told with it (`汤漏了一袋子`) describe it — only an emergency is
                // news beside it (case preset/the-triggers-trouble-described).
                // (Exceptions only: `能不能放快递柜` in a trigger names no trouble.)
                if mask == C_STRONG
                    && *trigger_trouble_told.get_or_init(|| {
                        cue_aut.find_iter(t.text).any(|m| {
                            let w = &t.text[m.start()..m.end()];
                            cue_masks[m.pattern().as_usize()] == C_STRONG
                                && text::contains_str(p.trigger, w)
                        })
                    })
                {
                    return false;
                }
                if !protective_preset && mask & C_EMERGENCY != 0 {
                    return true;
                }
                if alternative {
                    return false;
                }
                let applies = if protective_preset {
                    mask & C_EMERGENCY != 0
                } else if refuses_demand {
                    mask & C_EMERGENCY != 0
                        || mask & C_STRONG != 0
                            && (crate::proxy::about_preset(word, p.response)
                                || crate::proxy::reports_new_fact(t.text, true))
                } else if crate::proxy::protective(p) && crate::proxy::hardship(word) {
                    // The caller's own trouble (`下雨天路太堵了`) pleads for the demand the
                    // response refuses (`不额外加价` to "司机要求加价"), as proxy reads it: no
                    // conflict (case proxy/a-surcharge-refused-with-an-adverb).
                    false
                } else {
                    mask & C_STRONG != 0
                        || leaves_goods
                            && mask & C_HANDOFF != 0
                            && !names_another_drop_point(clause, m.start(), m.end(), p.response)
                        || waits && mask & C_PRESSURE != 0
                        || waits && lists().preset.perishable.contains(&word)
                };
                let prefix = &clause[..m.start()];
                // 能不能放: an A-not-A question, not "cannot put".
                let a_not_a = text::a_not_a_word(clause, m.start(), m.end());
                // 没洒, 没坏: denied; a cue that is itself negative is not denied by its 不.
                let denied =
                    !word.contains('不') && !word.contains('没') && text::negated(prefix, 2);
                applies && !a_not_a && !denied
            });
            if hit {
                return Some(t.idx);
            }
            if !protective_preset
                && !c.question
                && (bears_on_preset(clause, p) || blocked(t, ci, p))
            {
                return Some(t.idx);
            }
            if !strong && WEAK_CONFLICT.is_match(clause) {
                // Any problem at all (a weak cue touching the preset's own words counts too).
                let b = text::bigrams(clause);
                let touches = b
                    .iter()
                    .filter(|x| !lexicon::is_function_bigram(**x))
                    .any(|x| p.bigrams().binary_search(x).is_ok());
                if touches {
                    return Some(t.idx);
                }
            }
            // The trouble the trigger itself names (`餐洒了` for "骑手说餐撒了或者洒了") is the
            // preset's occasion, no problem with it (case preset/the-triggers-own-trouble).
            if !strong
                && PROBLEM
                    .find_iter(clause)
                    .any(|m| !p.trigger.contains(&clause[m.start()..m.end()]))
            {
                return Some(t.idx);
            }
        }
    }
    None
}

/// Something the preset names is blocked (`东门这边在修路，封了，车进不去` against "在小区东门等",
/// `定位点在高架桥上面，高架上不能停车` against "按定位的位置等"): clause `ci` says a blocking
/// word, and it or the clause before it in the same sentence one of the preset's content words.
fn blocked(t: &TurnCtx, ci: usize, p: &PresetCtx) -> bool {
    let c = t.clauses[ci];
    let Some(m) = BLOCKED.find(c.text(t.text)) else {
        return false;
    };
    // Not getting into the compound blocks nothing the preset leaves at its gate
    // (`我这车进不去` against "放到小区门口的驿站").
    let word = &c.text(t.text)[m.start()..m.end()];
    if word.contains('进') && lists().preset.compound_gate.in_text(p.response) {
        return false;
    }
    // `保安不让进` for a trigger "到了小区门口进不来": the trouble the preset answers.
    let occasion = c.text(t.text)[m.start()..m.end()]
        .chars()
        .any(|ch| !lists().preset.blocking_frame_chars.contains(&ch) && p.trigger.contains(ch));
    let content = p.content();
    let names = |d: &Clause| {
        text::bigrams(d.text(t.text))
            .iter()
            .any(|b| !lexicon::is_function_bigram(*b) && content.binary_search(b).is_ok())
    };
    // A trigger about trouble (`到了小区门口进不来`) makes it the preset's occasion, said anywhere
    // near the place.
    names(&c)
        || !occasion
            && !preset_words(p).trigger_trouble
            && ci
                .checked_sub(1)
                .map(|k| t.clauses[k])
                .is_some_and(|d| d.sentence == c.sentence && !d.question && names(&d))
}

/// A way, a door or a place that is shut.
static BLOCKED: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.blocked));

/// An inability right before one of the preset's own content characters (没法单退 against a
/// preset's 退掉; case preset/inability-against-its-words) — not an echo of the preset, not 能不能.
/// The characters of no content (`not_content`: 的, 了, 都…).
static NOT_CONTENT: LazyLock<lexicon::HanSet> =
    LazyLock::new(|| lexicon::HanSet::new(lists().preset.not_content.iter().copied()));

/// Whether the handover cue at `start..end` of `clause` (with the few characters before it)
/// names drop points and none of them is the preset `response`'s (`驿站今天爆仓` against
/// "快递直接放小区快递柜就行"): another drop point is blocked, the preset's is left (case
/// preset/another-drop-point-blocked).
fn names_another_drop_point(clause: &str, start: usize, end: usize, response: &str) -> bool {
    let tail = text::tail_chars(&clause[..start], 4);
    let near = &clause[start - tail.len()..end];
    let points = &lists().preset.drop_points;
    let mut named = points.iter().filter(|w| near.contains(**w)).peekable();
    named.peek().is_some() && named.all(|w| !response.contains(w))
}

/// Whether the troubles of a turn (`before_cues`: the few characters before each cue of it) bear
/// on one alternative of the preset only (`柜子都满了` against "放快递柜或驿站都行"): the other is
/// left, and the preset still fits (case preset/one-alternative-blocked). The places the cues
/// follow meet one side of the preset's 或 and never the other (`柜子满了，驿站也满了` blocks
/// both: case preset/both-alternatives-blocked; `柜子里放一天冰就化了` says what the goods are, no
/// place blocked).
fn one_alternative_blocked(before_cues: &[&str], p: &PresetCtx) -> bool {
    let content = || {
        before_cues.iter().flat_map(|s| {
            s.chars().filter(|&c| {
                text::is_han(c)
                    && !NOT_CONTENT.contains(c)
                    && !PRESET_FUNC.contains(c)
                    && !lists().preset.handling_acts.contains(&c)
            })
        })
    };
    text::clauses(p.response).iter().any(|pc| {
        let s = pc.text(p.response);
        let Some(i) = s.find('或') else {
            return false;
        };
        let (a, b) = (&s[..i], s[i + '或'.len_utf8()..].trim_start_matches('者'));
        let in_a = content().any(|c| a.contains(c));
        let in_b = content().any(|c| b.contains(c));
        in_a != in_b
    })
}

/// Whether assistant turn `t` takes the caller's trouble of turn `c` as its condition (`驿站不收
/// 的话，那就放物业前台吧，他下班去拿`): it works around it, and what of the preset it keeps is
/// not pushed against it (case preset/worked-around-the-trouble). The condition (…的话), no
/// clause of a preset, names a pair of the caller's words that no preset has, in its trigger or
/// its response (`孩子发烧的话先请保健医生看一下` conveys the fever preset).
fn adapts_to(ctx: &Ctx, t: &TurnCtx, c: usize) -> bool {
    let said = ctx.turns[c].all_bigrams();
    t.clauses.iter().enumerate().any(|(ci, cl)| {
        let s = cl.text(t.text);
        !t.covered[ci]
            && t.conditional(ci)
            && text::find_str(s, "的话").is_some_and(|i| {
                let cond: Vec<(usize, char)> = s[..i].char_indices().collect();
                cond.windows(2).any(|w| {
                    let pair = &s[w[0].0..w[1].0 + w[1].1.len_utf8()];
                    let b = text::bigrams(pair);
                    b.len() == 1
                        && !lexicon::is_function_bigram(b[0])
                        && said.binary_search(&b[0]).is_ok()
                        && !ctx.presets.iter().any(|p| {
                            text::contains_str(p.trigger, pair)
                                || text::contains_str(p.response, pair)
                        })
                })
            })
    })
}

fn bears_on_preset(clause: &str, p: &PresetCtx) -> bool {
    if text::containment(&text::bigrams(clause), p.bigrams()) >= 0.5 {
        return false;
    }
    // 等不了, 来不及 — a verb of the preset that cannot be done.
    let cs: Vec<char> = clause.chars().collect();
    // (等不了 is time pressure, judged against presets that make the caller wait.)
    let v_not = cs.windows(3).any(|w| {
        w[1] == '不'
            && w[0] != '等'
            && matches!(w[2], '了' | '及')
            && text::is_han(w[0])
            && !NOT_CONTENT.contains(w[0])
            && p.response.contains(w[0])
    });
    if v_not {
        return true;
    }
    // 没法单退, 不能放柜子: the first word after the inability is the preset's.
    INABILITY.find_iter(clause).any(|m| {
        let prefix = &clause[..m.start()];
        let word = &clause[m.start()..m.end()];
        if prefix.chars().next_back() == word.chars().nth(1) || prefix.ends_with('要') {
            return false;
        }
        let mut rest = &clause[m.end()..];
        for w in lists().preset.adverbs_after_inability.iter() {
            rest = rest.strip_prefix(w).unwrap_or(rest);
        }
        rest.chars().next().is_some_and(|ch| {
            text::is_han(ch) && !NOT_CONTENT.contains(ch) && p.response.contains(ch)
        })
    })
}

/// Finds preset timing faults.
pub fn detect(ctx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    for p in &ctx.presets {
        let trig = trigger_of(ctx.concepts, p);
        let trig = &*trig;
        let content = p.content();
        // The preset's own instructions, for conveyance of a part; a generic ending of a call
        // (`请不要再打来`) conveys no instruction of its own, nor does a courtesy with fewer than
        // two content bigrams (an apology: case preset/apology-is-no-instruction).
        // (Read on first use: most turns share too little with the preset to need them; once
        // per preset, see `PresetInfo`.)
        let clause_bigrams = || -> &[Vec<u64>] {
            p.info.instructions.get_or_init(|| {
                text::clauses(p.response)
                    .iter()
                    .map(|c| c.text(p.response))
                    .filter(|c| !lexicon::CLOSE.is_match(c) && preset_content(c).len() >= 2)
                    // (Without the courtesy it opens with: `放门口鞋柜上就行` says the
                    // instruction `麻烦放门口鞋柜上就行`; case preset/two-presets-one-in-part.)
                    .map(|c| {
                        let polite = lists().preset.polite.find_start(c);
                        text::bigrams(polite.map_or(c, |w| &c[w.len()..]))
                    })
                    .collect()
            })
        };
        // A turn that sets the preset aside (`那放前台的安排先不算`) names it without conveying it.
        let suspended: Vec<usize> = ctx
            .turns
            .iter()
            .filter(|t| {
                t.assistant
                    // (Not in the preset's own words: "…中午忙顾不上" sets nothing aside; case
                    // preset/suspending-word-in-the-preset.)
                    && SUSPENDS_ANY
                        .find_iter(t.text)
                        .any(|m| !p.response.contains(&t.text[m.start()..m.end()]))
                    // With several presets, the one set aside is the one named or referred to.
                    && (ctx.presets.len() == 1
                        || content.iter().any(|b| t.bigrams.binary_search(b).is_ok())
                        || lists().preset.referring_back.in_text(t.text))
            })
            .map(|t| t.idx)
            .collect();
        let conveyed: Vec<usize> = ctx
            .turns
            .iter()
            .filter(|t| {
                t.assistant
                    && !suspended.contains(&t.idx)
                    && conveys(ctx, t, p, content, &clause_bigrams)
                    // (A turn that gives another preset whole and one instruction of this one
                    // whole, an instruction the other does not share, gives both: case
                    // preset/two-presets-one-in-part; not a shared one: case
                    // preset/shared-instruction-not-the-others.)
                    && (!another_fits_better(ctx, t, p)
                        || instructions_said(t, &clause_bigrams).any(|cb| {
                            !ctx.presets
                                .iter()
                                .any(|o| o.id != p.id && text::contains_all(cb, o.bigrams()))
                        }))
            })
            .map(|t| t.idx)
            .collect();
        let held_shared = HeldShared::default();
        let held = held_at(ctx, trig, false, &held_shared);
        // (Read leniently only where the prior applies, one preset: otherwise the same reading.)
        let lenient = if ctx.presets.len() == 1 {
            held_at(ctx, trig, true, &held_shared)
        } else {
            held
        };
        // Whether the caller names another role, and their first turn of substance: read only
        // for a conveyance after a conflict (`shown_by_conflict`), once.
        let other_role = OnceCell::new();
        let first_said = OnceCell::new();
        // Not yet judged from the words alone: in a dialogue generated as `conflict` or
        // `irrelevance`, the lexicon reads the trigger too eagerly and misses conflicts worded
        // beyond it (measured: ARCHITECTURE.md, "What the checker still reads of the plan"), so
        // nothing is reported missing there.
        if conveyed.is_empty() && !matches!(held, Ok(Some(_))) && !matches!(lenient, Ok(Some(_))) {
            continue;
        }
        let conflict_any = conflict_at(ctx, p, trig, conveyed.first().copied());
        // A seller's or scammer's pressure (名额今天失效, 账户要冻结) is part of the pitch, not a
        // situation that makes the owner's refusal wrong.
        let conflict =
            if conflict_any.is_some() && lexicon::SCAM_OR_THREAT.is_match(ctx.caller_text()) {
                None
            } else {
                conflict_any
            };
        // The caller is the judge of their own situation: told the preset, they take it gladly
        // — the trouble they mentioned was the occasion for the preset (a relative in hospital
        // for a leave request), not a conflict with it (case preset/caller-goes-along).
        let conflict = conflict.filter(|&c| {
            let Some(&first) = conveyed.iter().find(|&&t| t > c) else {
                return true;
            };
            !(suspended.is_empty()
                && ctx
                    .turns
                    .get(first + 1)
                    .is_some_and(|r| !r.assistant && accepts(r.text)))
        });
        // A need that cannot wait for the preset's later time, and a conflict the assistant
        // itself acknowledged by setting the preset aside afterwards.
        let objection = objection_at(ctx, p, trig, content, &conveyed);
        // An objection the caller gives up once the preset is held to (`周四太晚了吧` — `还是
        // 周四` — `行吧。对了，…`) was a wish, not a situation the preset cannot meet.
        let objection = objection.filter(|o| {
            let Some(&held_to) = conveyed.iter().find(|&&t| t > o.0) else {
                return true;
            };
            !ctx.turns
                .get(held_to + 1)
                .is_some_and(|r| !r.assistant && gives_up(r.text))
        });
        let conflict = [
            conflict,
            deadline_at(ctx, p),
            corroborated_at(ctx, p, trig, &suspended),
            objection.as_ref().map(|o| o.0),
        ]
        .into_iter()
        .flatten()
        .min();
        // After a conflict, a turn that holds to the preset in so many words (`还是按她说的`,
        // `她的意思就是这样，请不要再打了`) pushes it even when it says only a part of it.
        let mut conveyed = conveyed;
        let mut insisting: Vec<usize> = Vec::new();
        if let Some(c) = conflict {
            // A wait preset pushed in other words: the caller asked to wait on (`您就在那儿停一
            // 会儿吧`), not a question (case preset/wait-pushed-in-other-words).
            let waits = preset_words(p).waits;
            let asks_to_wait =
                |c: &text::Clause, cs: &str| waits && !c.question && WAIT_ASKED.is_match(cs);
            for t in ctx.turns.iter().filter(|t| {
                t.assistant
                    && t.idx > c
                    && !suspended.contains(&t.idx)
                    && !conveyed.contains(&t.idx)
            }) {
                // (The preset's words in a clause that says the assistant cannot, `我没法签收`,
                // hold nothing to; case preset/cannot-sign-is-no-hold.)
                let said_not_refused = || {
                    t.clauses.iter().any(|c| {
                        let cs = c.text(t.text);
                        !INABILITY.is_match(cs)
                            && (text::bigrams(cs)
                                .iter()
                                .any(|b| content.binary_search(b).is_ok())
                                || asks_to_wait(c, cs))
                    })
                };
                let holds_to = insists(t.text)
                    && (said_not_refused()
                        // `那还是按她说的放那边就好`: the one preset referred to by its giver.
                        || ctx.presets.len() == 1 && OWNERS_WORD.is_match(t.text))
                    // In a clause said not as a question, relaying nothing, leaving no choice to
                    // the owner (not `放家门口还是物业那儿得她本人定`: 还是 between choices; case
                    // preset/choice-left-after-a-conflict):
                    // - `那就麻烦您还是放柜子里吧`, `还是等他回来再说吧`: 还是 and the preset's own
                    //   words;
                    // - an instruction in the preset's own words, whatever its opening (`对，放门口
                    //   就行`, `您先发群里吧`): the preset said to the caller who reported the
                    //   conflict (case preset/instruction-after-a-conflict) — not a decline
                    //   (`这个我这边不方便透露哈`, whose words may be the preset's), nor a 哈 alone,
                    //   a softener as often as an instruction.
                    || t.clauses.iter().enumerate().any(|(ci, c)| {
                        let cs = c.text(t.text);
                        // (The choice may be left in the next clause of the sentence: `拒收还是先
                        // 签收再申请理赔，得他本人定`; case preset/choice-left-in-the-next-clause.)
                        let sentence = t
                            .clauses
                            .iter()
                            .filter(|x| x.sentence == c.sentence)
                            .map(|x| x.text(t.text));
                        if c.question
                            || RELAYS.is_match(cs)
                            || CHOICE_LEFT.is_match(cs)
                        {
                            return false;
                        }
                        let still = cs.contains("还是")
                            && !sentence
                                .clone()
                                .any(|x| CHOICE_LEFT.is_match(x))
                            && cs
                                .chars()
                                .filter(|&ch| {
                                    text::is_han(ch)
                                        && !PRESET_FUNC.contains(ch)
                                        && p.response.contains(ch)
                                })
                                .count()
                                >= 2;
                        still
                            || !t.clause_has(ci, lexicon::M_UNCERTAIN)
                                && lists().preset.instruction_endings.iter().any(|e| {
                                    *e != "哈"
                                        && text::ends_with_word(cs.trim_end_matches(['。', '！', '!', '，']), e)
                                })
                                // (A pair that is no time word: `那就改到周五上午九点吧` shares
                                // only 上午 with "复诊按原定的周四上午十点"; case
                                // preset/another-time-decided.)
                                && (text::bigrams(cs).iter().any(|&b| {
                                    content.binary_search(&b).is_ok() && !text::time_pair(b)
                                }) || asks_to_wait(c, cs))
                    });
                // The very words the caller objected to, said again without relaying the matter
                // (`她是希望放驿站那边的`, `他那边定的就是周四下午`).
                let again = objection
                    .as_ref()
                    .is_some_and(|(_, ch)| ch.iter().any(|b| t.bigrams.binary_search(b).is_ok()))
                    && !RELAYS.is_match(t.text);
                // (A turn that says another preset — the one for the conflict, `他交代过这种情况：
                // 不用重送，拍张照片发过来` — holds to that one, whatever words they share; case
                // preset/another-preset-for-the-conflict.)
                let says_another = || {
                    ctx.presets.iter().any(|q| {
                        !std::ptr::eq(q, p) && text::containment(q.bigrams(), &t.bigrams) >= 0.5
                    })
                };
                if (holds_to || again)
                    && !answers_callers_own_word(ctx, t, content)
                    && !says_another()
                {
                    insisting.push(t.idx);
                }
            }
            conveyed.extend_from_slice(&insisting);
            conveyed.sort_unstable();
        }
        let ev = text::head_chars(p.response, 30);
        let mut first = true;
        // The first conveyance while the trigger holds; one later brief back-reference that
        // answers the caller is allowed once.
        let mut legit: Option<usize> = None;
        let mut allowance = true;
        // Restatements of a part (`好的，这两天她就去取，麻烦一定先帮忙留着`, `材料在整理，五点左右发您
        // 邮箱`): after a conveyance, they count as conveying it again.
        // And once the caller took the preset (`好，放好了`), the instruction said again in
        // short (`好的，东西搁鞋柜上就行了`, `记得放前台哈`).
        // (The caller took it in the turn before, or in any turn since the first telling — `好嘞，
        // 放好了` then `没事，那我走了啊`; case preset/reminded-on-the-goodbye.)
        // (Taken earlier, a reminder — `记得…` — only.)
        let after_taking = |t: &TurnCtx| {
            // (Taking it in the preset's own words counts, its 不 too: `好嘞 那我给您放门口了
            // 不敲门`; case preset/told-again-as-a-request.)
            let takes_it_back = |c: &TurnCtx| {
                opens_glad(c.text)
                    && c.clauses.iter().all(|x| {
                        let xt = x.text(c.text);
                        !x.question && (complied(xt) || names_content(xt, content))
                    })
            };
            let just_now = ctx.turns.get(t.idx - 1).is_some_and(|c| {
                !c.assistant
                    && (turn_complied(c)
                        || accepts(c.text)
                        || takes_it_back(c)
                        // (Or gave in, grudgingly, asking nothing: `唉，行吧，那我自己取消`, `……算了
                        // 算了，那我自己取消吧` — case preset/told-again-after-giving-in — in
                        // words not all the caller's: `算了，等她下来我问她` then `您等她下来直接
                        // 问她吧` agrees with the caller's plan; case
                        // preset/callers-plan-agreed-after-giving-in.)
                        || gave_in(c) && {
                            let said = c.all_bigrams();
                            t.bigrams.iter().any(|b| {
                                content.binary_search(b).is_ok() && said.binary_search(b).is_err()
                            })
                        })
            });
            conflict.is_none()
                && (just_now
                    || conveyed.first().is_some_and(|&f| {
                        ctx.turns[f + 1..t.idx].iter().any(|c| {
                            !c.assistant
                                && (reports_done(c, content) || turn_complied(c) || accepts(c.text))
                        })
                    }))
                && t.clauses.iter().any(|c| {
                    let cs = c
                        .text(t.text)
                        .trim_end_matches(['。', '！', '!', '，', ' ']);
                    !c.question
                        && (cs.contains("记得") || just_now)
                        && (cs.contains("记得")
                            || ends_as_instruction(cs)
                            // (Or opens as one: `麻烦就放门口，千万别敲门啊`; case
                            // preset/told-again-as-a-request.)
                            || opens_as_instruction(cs) && !thanks_by_mafan(cs)
                            // (Or names the preset's own figure again — `那您再等她两三分钟` to
                            // a driver who waits; case
                            // preset/wait-restated-after-the-driver-waits — not one the caller
                            // said, `您先登记周六` to `那我先登记周六`.)
                            || text::numbers(p.response).iter().any(|n| {
                                let fig = &p.response[n.start..n.end];
                                // (Not in a guess, `他这两天去取应该来得及`: reasoning on
                                // the preset, no telling; case preset/a-guess-on-the-presets-days.)
                                n.specific()
                                    && text::contains_str(cs, fig)
                                    && !lists().preset.hedges.in_text(cs)
                                    && !ctx.caller_turns_before(t.idx).any(|c| {
                                        text::numbers(c.text)
                                            .iter()
                                            .any(|x| x.values() == n.values())
                                    })
                            }))
                        && !lexicon::UNCERTAIN.is_match(cs)
                        && names_content(cs, content)
                })
                || just_now && {
                    // An instruction that ends its sentence spans it: the preset's words in an
                    // earlier clause of it (`货就搁他自己那个库位，单子照了发给他就可以`) are told
                    // again (case preset/retold-across-a-sentence).
                    t.clauses.iter().enumerate().any(|(ci, c)| {
                        let last = t.clauses[ci + 1..].iter().all(|x| x.sentence != c.sentence);
                        let in_sentence = || t.clauses.iter().filter(|x| x.sentence == c.sentence);
                        let cs = c
                            .text(t.text)
                            .trim_end_matches(['。', '！', '!', '，', ' ']);
                        // (The instruction itself about the preset, a character of it in the
                        // clause — not the caller's own act, `尾号4391放门口，您拍照就行`; case
                        // preset/callers-own-act-after-an-echo.)
                        let of_the_preset = || {
                            let end = lists()
                                .preset
                                .instruction_endings
                                .iter()
                                .filter(|e| text::ends_with_word(cs, e))
                                .map(|e| e.len())
                                .max()
                                .unwrap_or(0);
                            cs[..cs.len() - end].chars().any(|ch| {
                                text::is_han(ch)
                                    && !PRESET_FUNC.contains(ch)
                                    && preset_core(p.response).contains(ch)
                            })
                        };
                        last && ci > 0
                            && t.clauses[ci - 1].sentence == c.sentence
                            && ends_as_instruction(cs)
                            && of_the_preset()
                            && in_sentence().all(|x| {
                                !x.question && !lexicon::UNCERTAIN.is_match(x.text(t.text))
                            })
                            && in_sentence().any(|x| names_content(x.text(t.text), content))
                    })
                }
        };
        let partial: Vec<usize> = ctx
            .turns
            .iter()
            .filter(|t| {
                t.assistant
                    && conveyed.first().is_some_and(|&c| t.idx > c)
                    && !conveyed.contains(&t.idx)
                    && !suspended.contains(&t.idx)
                    // (Each way below names a character pair of the response.)
                    && text::any_common(&t.bigrams, p.bigrams(), |_| true)
                    // A turn that gives another preset (`不需要升级，也不办卡，按原订单就行`)
                    // restates none of this one's words it shares (`按原订单入住…`; case
                    // preset/another-preset-sharing-words).
                    && !another_fits_better(ctx, t, p)
                    && (content.len() >= 4
                        && content
                            .iter()
                            .filter(|b| t.bigrams.binary_search(b).is_ok())
                            .count()
                            >= 3
                        && text::containment(content, &t.bigrams) >= 0.45
                        || after_taking(t)
                        // Said again in so many words (`再说一次，借贷的业务他都不办`), two of its
                        // pairs in it (case preset/said-again-in-so-many-words).
                        || SAID_AGAIN.is_match(t.text)
                            && {
                                let mut said = content
                                    .iter()
                                    .filter(|b| t.bigrams.binary_search(b).is_ok());
                                said.clone().any(|b| contentful(*b)) && said.nth(1).is_some()
                            }
                        // Retold in other words (`东西搁门卫室，他一会儿自己下来取` for "放小区门卫
                        // 室就行，我下楼拿"): most of its content characters, two of its pairs.
                        // Asked only once the caller took it (complied, accepted): then a
                        // retelling answers nothing.
                        || conflict.is_none()
                            && conveyed.first().is_some_and(|&f| {
                                ctx.turns[f + 1..t.idx].iter().any(|c| {
                                    !c.assistant
                                        && (reports_done(c, content)
                                            || turn_complied(c)
                                            || accepts(c.text)
                                            // (A yes with the prohibition kept, `行，我就停这不动
                                            // 了`; case preset/a-prohibition-kept-then-retold.)
                                            || opens_glad(c.text) && keeps_prohibition(p, c.text)
                                            // (Taken in the first sentence, whatever is asked
                                            // after: `行，我就在定位这儿。对了，她行李多不多？`.)
                                            || takes_it_first(c, content))
                                })
                            })
                            && (retold_in_other_words(t, p, content)
                                // Made of the preset in short, to another question or to a
                                // bare yes (`行，那我等着`): it answers nothing (cases
                                // preset/retold-in-short-to-another-question,
                                // preset/said-again-in-short-after-a-bare-yes).
                                || (to_another_question(ctx, t, content)
                                    || ctx.turns.get(t.idx - 1).is_some_and(|c| {
                                        !c.assistant && turn_complied(c)
                                    }))
                                    && made_of_the_preset(t, p, content))
                        // A protective preset said again to a caller who just gave up (`行吧行吧，
                        // 那不打扰了` → `好的。还是那句话，他不需要贷款…`): two of its content
                        // pairs, or one after a said-again word — no push left to hold it against
                        // (`quits`; case preset/said-again-after-the-caller-gave-up).
                        || ctx.turns.get(t.idx - 1).is_some_and(|c| {
                            !c.assistant && lists().preset.quits.in_text(c.text)
                        }) && crate::proxy::protective(p)
                            && {
                                let shared = content
                                    .iter()
                                    .filter(|b| t.bigrams.binary_search(b).is_ok());
                                let said = shared.clone().filter(|b| contentful(**b)).count();
                                // (Or one of its instructions' pairs with its refusal in the
                                // preset's words, three pairs in all: `借贷的事他一概不办，以后也麻烦
                                // 别再打这个号码了`; case
                                // preset/its-refusal-said-again-after-the-caller-gave-up — not its
                                // closing `请不要再打来` alone as the goodbye: case
                                // preset/do-not-call-again-as-the-goodbye.)
                                said >= 2
                                    || said >= 1
                                        && (shared.count() >= 3
                                            && clause_bigrams().iter().flatten().any(|b| {
                                                contentful(*b) && t.bigrams.binary_search(b).is_ok()
                                            })
                                            || SAID_AGAIN.is_match(t.text))
                            }
                        // Said again on the goodbye, the caller asking nothing (`好的，放门口就行，
                        // 不用签收，辛苦了，再见` after `放好了，走了啊`): it answers nothing (case
                        // preset/said-again-on-the-goodbye).
                        || conflict.is_none() && said_again_on_the_goodbye(ctx, t, content)
                        // Most of one instruction of a longer preset (`包裹放鞋柜上就行` of
                        // `包裹放门口鞋柜上就行，以后也不用专门打电话`).
                        || clause_bigrams().len() > 1
                            && clause_bigrams().iter().any(|cb| {
                                cb.len() >= 4
                                    && cb
                                        .iter()
                                        .filter(|b| {
                                            contentful(**b) && t.bigrams.binary_search(b).is_ok()
                                        })
                                        .count()
                                        >= 3
                                    && text::containment(cb, &t.bigrams) >= 0.6
                            }))
            })
            .map(|t| t.idx)
            .collect();
        conveyed.extend_from_slice(&partial);
        conveyed.sort_unstable();
        for &t in &conveyed {
            if partial.contains(&t) && (legit.is_none() || conflict.is_some_and(|c| c < t)) {
                continue;
            }
            if insisting.contains(&t) {
                out.push(finding(
                    ViolationKind::PresetConflict,
                    t,
                    ev,
                    format!(
                        "the preset \"{}\" is held to although the caller said something that conflicts with it",
                        p.id
                    ),
                ));
                continue;
            }
            // Pushed after a conflict: a conflict whatever the trigger. A caller who reported a
            // situation that contradicts the preset has shown they are in its situation, from
            // their first words of substance (`这个定位点是在高架桥上`, `箱子破了，在往外漏`).
            let before = |h: &Result<Option<usize>, ()>| {
                matches!(h, Ok(None)) || matches!(h, Ok(Some(h)) if *h > t)
            };
            // (Who calls is not shown by a conflict: not when they name another role.)
            let shown_by_conflict = conflict.is_some_and(|c| c < t)
                && first_said
                    .get_or_init(|| {
                        ctx.turns
                            .iter()
                            .find(|t| !t.assistant && substantive_turn(ctx, t))
                            .map(|t| t.idx)
                    })
                    .is_some_and(|f| f <= t)
                && !*other_role.get_or_init(|| names_other_role(ctx, trig));
            // Read leniently (a caller who names no role may be the one the trigger names), the
            // trigger holds: still premature when the caller's answer shows they asked for
            // nothing of the kind (`啊？什么包裹？我问的是接口文档`).
            // (A caller puzzled over the emergency they reported is puzzled about it: `什么不需
            // 要？真冒烟了！`.)
            let puzzled_by_emergency = conflict.is_some_and(|c| c < t) && emergency_in(ctx, t + 1);
            // (Confusion after a telling once taken — `行。` then `……我问的是他在不在公司` —
            // is at the preset said again to another question: a repeat, not a sign the trigger
            // never held; case preset/said-again-to-another-question.)
            let confused = || {
                (confused_after(ctx, t) || purpose_denied(ctx, t, content, p.trigger))
                    && !puzzled_by_emergency
                    && legit.is_none()
            };
            // (The caller's answer to a first telling correcting its premise — `不是定损，车没出险，
            // 我是说续保报价`, `我就是通知入库的` — outweighs a reading of the trigger from who they
            // are: case preset/the-premise-corrected-after-a-first-telling.)
            let not_yet = (before(&held)
                || first && premise_corrected(ctx, t, content, p.trigger) && confused())
                && (before(&lenient) || confused())
                && !shown_by_conflict
                && objection.as_ref().is_none_or(|o| o.0 >= t);
            if not_yet {
                if first {
                    let f = finding(
                        ViolationKind::PresetPremature,
                        t,
                        ev,
                        format!(
                            "the preset \"{}\" is conveyed before its trigger (\"{}\") holds",
                            p.id, p.trigger
                        ),
                    );
                    // With several presets there is no role prior, so a caller whose role or
                    // topic is in words no concept has (`悦齿口腔` for 诊所, `我是小罗` for 同事)
                    // reads as not yet: certain only when even the prior has the trigger not
                    // holding (a bare "喂", an event still ahead, another role named) or the
                    // caller's answer shows they asked for nothing of the kind (case
                    // preset/unknown-role-among-presets; certain: preset/bare-hello-among-presets).
                    if ctx.presets.len() > 1
                        && !confused_after(ctx, t)
                        && !before(&held_reading(ctx, trig, true, &held_shared))
                    {
                        ctx.uncertain(&f);
                    }
                    out.push(f);
                }
            } else if let Some(c) = conflict
                && c < t
                && !adapts_to(ctx, &ctx.turns[t], c)
            {
                out.push(finding(
                    ViolationKind::PresetConflict,
                    t,
                    ev,
                    format!(
                        "the preset \"{}\" is pushed although the caller said something that conflicts with it (turn {c})",
                        p.id
                    ),
                ));
            } else if legit.is_some_and(|pc| ctx.unheard(pc, t)) {
                // Said to someone who did not hear it before (the line broke up, the phone was
                // handed over): a first telling to them, with its own allowance (cases
                // preset/said-again-to-a-caller-who-did-not-hear, preset/said-again-after-a-hand-over).
                legit = Some(t);
                allowance = true;
            } else if let Some(pc) = legit {
                // The caller pushed against the preset (a penalty, a deadline, a scam's demand):
                // saying it again is holding it, which is right, not a repeat. A protective
                // preset may be held so as often as the caller pitches (`holds_against_pitch`;
                // case preset/held-then-told-again); any other once, like a back-reference, and a
                // short holding in between (`还是那句话…`) was that one.
                if ctx.turns[pc + 1..t].iter().any(|x| {
                    x.assistant
                        && insists(x.text)
                        && !RELAYS.is_match(x.text)
                        && content.iter().any(|b| x.bigrams.binary_search(b).is_ok())
                }) {
                    allowance = false;
                }
                if confirms_callers_words(ctx, t, content) {
                    // A short yes to the caller's taking of it, in the caller's words (`对，周六上
                    // 午十点` to `行，那就周六上午十点见`): no telling (case
                    // preset/yes-in-the-callers-words).
                } else if says_callers_words_back(ctx, t, content) {
                    // The caller's own words said back (their request, their read-back of the
                    // preset): no telling at all (cases preset/caller-read-back-confirmed,
                    // preset/callers-request-echoed).
                } else if only_as_a_relayed_matter(&ctx.turns[t], content) {
                    // The preset's words only as the matter the turn relays (`外卖放门口的情况我会
                    // 转告他`): the caller's act reported to the owner, no telling (case
                    // preset/relayed-as-a-matter).
                } else if only_thanked(ctx, &ctx.turns[t], content) {
                    // The preset's words only as what the caller is thanked for (`谢谢您帮忙留着`
                    // after the caller's `行，给他留着`): no telling (case
                    // preset/thanks-for-what-the-caller-did).
                } else if holds_against_pitch(ctx, p, t) {
                    // A preset that turns the caller away, held against the caller's next
                    // pitch, as often as they pitch: holding, never a repeat (a copy of an
                    // earlier turn is natural.repetition's business) (cases
                    // preset/held-against-every-pitch, preset/hold-after-giving-up-is-a-repeat).
                } else if allowance
                    && !given_up_before(ctx, p, t)
                    // (Whether the allowance goes to a back-reference, `Some(true)`, or to a
                    // hold against pressure, `Some(false)`: the tier below reads only the first.)
                    && let Some(back) =
                        if back_reference(ctx, p, t, content, held_whole(ctx, p, t, pc)) {
                            Some(true)
                        } else {
                            held_against_pressure(ctx, p, t, content).then_some(false)
                        }
                {
                    allowance = false;
                    // (A third of the preset's words at least: a courtesy that shares a few
                    // with it, `有情况您发消息过来就行` beside "按导航定位过来就行…", retells none.)
                    if back
                        && settled_before(p, &ctx.turns[t - 1], content)
                        && text::containment(content, &ctx.turns[t].bigrams) >= 0.3
                        && !held_against_pressure(ctx, p, t, content)
                    {
                        let f = finding(
                            ViolationKind::PresetRepeat,
                            t,
                            ev,
                            format!(
                                "the preset \"{}\" is conveyed again (already in turn {pc}) after the caller took it or turned to another matter",
                                p.id
                            ),
                        );
                        ctx.uncertain(&f);
                        out.push(f);
                    }
                } else {
                    let f = finding(
                        ViolationKind::PresetRepeat,
                        t,
                        ev,
                        format!(
                            "the preset \"{}\" is conveyed again (already in turn {pc})",
                            p.id
                        ),
                    );
                    // Opened by saying the caller's new offer changes nothing (`no_difference`):
                    // a hold against it, most often — or the preset stretched to another matter
                    // (case preset/no-difference-is-a-hold).
                    if text::clauses(ctx.turns[t].text).first().is_some_and(|c| {
                        let first = c.text(ctx.turns[t].text);
                        lists().preset.no_difference.in_text(first)
                    }) {
                        ctx.uncertain(&f);
                    }
                    out.push(f);
                }
            } else {
                legit = Some(t);
            }
            first = false;
        }
        // Read as holding, yet the caller's answer to the first telling is puzzled or corrects
        // its premise (`续租？我们不是说续租的事，是打药`, `不是挪摊，是交管理费`): the trigger may
        // never have held — or the caller misheard, or is puzzled at something else the turn
        // said (uncertain; case preset/puzzled-at-a-first-telling-read-as-holding).
        if let Some(&t) = conveyed.first()
            && !out
                .iter()
                .any(|f| f.turn == t && f.kind == ViolationKind::PresetPremature.as_str())
            && (confused_after(ctx, t) || premise_corrected(ctx, t, content, p.trigger))
            // (Puzzled at the preset's own words — `啊？出差了？`, `啥子？敲门？` — is news taken
            // in or misheard, not a trigger that never held: cases preset/family-by-dinner,
            // preset/said-again-to-a-caller-who-did-not-understand.)
            && !ctx.turns.get(t + 1).is_some_and(|r| names_content(r.text, content))
            && !(conflict.is_some_and(|c| c < t) && emergency_in(ctx, t + 1))
        {
            let f = finding(
                ViolationKind::PresetPremature,
                t,
                p.response,
                format!(
                    "the preset \"{}\" may be conveyed before its trigger (\"{}\") holds: the caller's answer is puzzled",
                    p.id, p.trigger
                ),
            );
            ctx.uncertain(&f);
            out.push(f);
        }
        // No conflict the lexicons know, but a caller who, told the preset, sets trouble against
        // it (`可今天一早安监站把工地叫停了`) rather than a yes, and is told the preset again: the
        // trouble may be one the preset cannot meet, or only the occasion it answers — a second
        // opinion's to say (uncertain).
        if conflict.is_none()
            && !crate::proxy::protective(p)
            && !lexicon::SCAM_OR_THREAT.is_match(ctx.caller_text())
            && let Some(&first) = conveyed.first()
            && let Some(at) = held_against_new_fact(ctx, first, content, &conveyed, &suspended)
        {
            let f = finding(
                ViolationKind::PresetConflict,
                at,
                p.response,
                format!(
                    "the preset \"{}\" is held after the caller answered it with something new (turn {})",
                    p.id,
                    at - 1
                ),
            );
            ctx.uncertain(&f);
            out.push(f);
        }
        // Never conveyed while its trigger held, with no conflict, no suspension and none of its
        // words said: missing (certain or not, below).
        if conveyed.is_empty()
            // (Read leniently, a trigger of a topic alone would hold for any caller.)
            && let Some(h) = held
                .ok()
                .flatten()
                .or_else(|| lenient.ok().flatten().filter(|_| !trig.groups.is_empty()))
            && conflict_any.is_none()
            && !touched(ctx, content)
            && !ctx
                .turns
                .iter()
                .any(|t| t.assistant && SUSPENDS.is_match(t.text))
            // Set aside in so many words (`原来放柜子的办法就先不算了`): not conveying is right.
            && suspended.is_empty()
            // The branch for the cases no sibling names, silent while a sibling was conveyed
            // (case preset/other-branch-stays-silent).
            && !(trig.other_branch
                && ctx
                    .presets
                    .iter()
                    .any(|q| q.id != p.id && touched(ctx, q.content())))
            && let Some(at) = missing_turn(ctx, h)
            // Read leniently only for a caller who did not say they are someone the trigger does
            // not name (`我是橙风快递的派件员` against "如果是人事打来"; case
            // preset/another-role-is-not-read-leniently) — a pitch is known by what is offered,
            // whoever the caller says they are (`我这边是盛源金融的客户经理…低息信用贷`). (Asked
            // last: reading the self-introductions is the dear part.)
            && (matches!(held, Ok(Some(_)))
                || pitch_offered(ctx, trig)
                || !other_role_in(ctx, trig, true))
        {
            let f = finding(
                ViolationKind::PresetMissing,
                at,
                ev,
                format!(
                    "the trigger of preset \"{}\" (\"{}\") holds from turn {h}, but the preset is never conveyed",
                    p.id, p.trigger
                ),
            );
            // Read from a topic or from who the caller seems to be, not from the trigger's own
            // words, the trigger may not hold at all: a question for a second opinion.
            // And a caller who needs something now may have a reason the preset does not fit,
            // in words no lexicon of conflicts has (`一个小时之内给我个准话`).
            if !matches!(held, Ok(Some(_)))
                || !plainly_said(ctx, trig, h)
                || URGENT_NEED.is_match(ctx.caller_text())
                // … or trouble of any kind (`按规定这类件要实名签收` against "不用等人签收"):
                // the conflict may be worded beyond the conflict rules.
                || TROUBLE.is_match(ctx.caller_text())
                // … or the caller's turn was answered with a sibling preset (`我放小区快递柜可以
                // 吗？` — "可以，放快递柜或者南门的驿站都行"): the assistant chose the one that
                // answers what was asked, which may be right (case preset/a-sibling-answered).
                || ctx.turns.get(h + 1).is_some_and(|a| {
                    a.assistant
                        && ctx.presets.iter().any(|q| {
                            q.id != p.id && text::containment(q.content(), &a.bigrams) >= 0.5
                        })
                })
            {
                ctx.uncertain(&f);
            }
            out.push(f);
        }
    }
    out
}

/// Whether every concept group of the trigger is said plainly by turn `h`: an event reported
/// (not ahead, not conditional), a role's or another concept's own words not right after a
/// denial (不是…). A trigger of a topic only is never plainly said.
fn plainly_said(ctx: &Ctx, trig: &Trigger, h: usize) -> bool {
    let reg = ctx.concepts;
    let callers = || {
        ctx.turns[..=h.min(ctx.turns.len() - 1)]
            .iter()
            .filter(|t| !t.assistant)
    };
    // A topic (停水 of a trigger about a water cut) is said when one of its character pairs is,
    // not right after a denial (case preset/denied-topic: then missing is only uncertain).
    let topic_plain = trig.topic.is_empty()
        || callers().any(|t| {
            let mut prev: Option<(usize, char)> = None;
            t.text.char_indices().any(|(i, c)| {
                let hit = prev
                    .is_some_and(|(j, a)| trig.topic.contains(&(a, c)) && !denies(&t.text[..j]));
                prev = Some((i, c));
                hit
            })
        });
    topic_plain
        && !trig.groups.is_empty()
        && trig.groups.iter().all(|g| {
            callers().any(|t| {
                g.iter().any(|&ci| match reg.sort(ci) {
                    Sort::Event => event_said_turn(ctx, t, ci),
                    Sort::Weak => true,
                    Sort::Role => leftmost_longest(&facts(ctx, t).hits, ci)
                        .any(|(start, _)| !denies(&t.text[..start])),
                })
            })
        })
}

/// The first caller turn that states a need the preset's later time cannot meet (`今天五点前
/// 就要` against "周一回来再看").
fn deadline_at(ctx: &Ctx, p: &PresetCtx) -> Option<usize> {
    if !preset_words(p).defers {
        return None;
    }
    ctx.turns.iter().filter(|t| !t.assistant).find_map(|t| {
        if !URGENT_NOW.is_match(t.text) && !TOO_LATE.is_match(t.text) {
            return None;
        }
        // The need and its time in one clause or two neighbours, and no later day in the
        // need's clause (`合同上写的是后天中午之前交` is no hurry for "明天上午回复").
        let cs: Vec<&str> = t.clauses.iter().map(|c| c.text(t.text)).collect();
        (0..cs.len())
            .any(|i| {
                let c = cs[i];
                let near = (i.saturating_sub(1)..(i + 2).min(cs.len()))
                    .any(|k| URGENT_NOW.is_match(cs[k]));
                (near && URGENT_NEED.is_match(c)
                    && sooner(c, preset_core(p.response)).unwrap_or(!FUTURE.is_match(c))
                    // The preset's own day, too late (`明天上午来不及了`; case
                    // preset/its-own-day-too-late).
                    || same_day_too_late(c, preset_core(p.response)))
                    && !NOT_CONFLICT.is_match(c)
                    && !lexicon::conditional(c)
            })
            .then_some(t.idx)
    })
}

/// The preset's own day said to be too late (`too_late`).
static TOO_LATE: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.too_late));

/// Whether a clause says the preset's own day is too late (`明天上午来不及了` against "明天上午统一
/// 处理"): a `too_late` word after the day the preset names.
fn same_day_too_late(clause: &str, preset: &str) -> bool {
    let Some(m) = TOO_LATE.find(clause) else {
        return false;
    };
    lists()
        .preset
        .day_ranks
        .0
        .iter()
        .any(|(w, _)| text::contains_str(preset, w) && text::contains_str(&clause[..m.start()], w))
}

/// Whether the need's day comes before the preset's (`明天上午九点就要看` against "周五前会发出";
/// not `后天中午之前交` against "明天上午回复", not `月底之前给就行` against "下周一前发"); `None`
/// when either names no day.
fn sooner(need: &str, preset: &str) -> Option<bool> {
    // Days in order; a weekday is taken to lie beyond the day after tomorrow, as in a preset
    // that puts the matter off to one.
    let ranks = lists().preset.day_ranks.0;
    let rank = |s: &str| {
        ranks
            .iter()
            .filter_map(|(w, r)| text::find_str(s, w).map(|i| (i, *r)))
            .min()
            .map(|(_, r)| r)
    };
    Some(rank(need)? < rank(preset)?)
}

/// The assistant set the preset aside at some turn: the conflict dates from the first caller
/// turn before it that reports trouble the assistant names when it sets the preset aside
/// (`签收要核对身份证啊，那之前说的先放一放` dates from `要实名签收`), or else from the caller's turn
/// right before.
fn corroborated_at(ctx: &Ctx, p: &PresetCtx, trig: &Trigger, suspended: &[usize]) -> Option<usize> {
    let &s = suspended.first()?;
    // A caller who took the preset (`行，那就放门口`) had no conflict with it yet: the trouble
    // comes after.
    let from = ctx.turns[..s]
        .iter()
        .rposition(|t| !t.assistant && (accepts(t.text) || turn_complied(t)))
        .map_or(0, |i| i + 1);
    // A refusal of a suspicious caller is undone only by an emergency, not by the pretext of
    // the call (`订单出了点问题，需要给您办理退款`).
    let protective = trig
        .groups
        .iter()
        .flatten()
        .any(|&ci| ctx.concepts.has(ci, ConceptTrait::Protective));
    // (The trigger's words name the occasion — `快递` of "快递员说…" — not the trouble.)
    let trigger_bigrams = p.trigger_bigrams();
    // (The owner's names' bigrams, once: they were read again for every bigram of the turn.)
    let ref_bigrams = text::finish(
        ctx.owner_refs
            .iter()
            .flat_map(|r| text::bigrams(r))
            .collect(),
    );
    let own = |b: &u64| {
        lexicon::is_function_bigram(*b)
            || p.bigrams().binary_search(b).is_ok()
            || trigger_bigrams.binary_search(b).is_ok()
            || ref_bigrams.binary_search(b).is_ok()
    };
    let named: Vec<u64> = ctx.turns[s]
        .bigrams
        .iter()
        .copied()
        .filter(|b| !own(b))
        .collect();
    let before = || ctx.turns[from.min(s)..s].iter().filter(|t| !t.assistant);
    before()
        .find(|t| {
            t.clauses.iter().map(|c| c.text(t.text)).any(|c| {
                if protective && !emergency_cue(c) {
                    return false;
                }
                TROUBLE.find_iter(c).any(|m| {
                    let prefix = &c[..m.start()];
                    !text::a_not_a_word(c, m.start(), m.end()) && !text::negated(prefix, 2)
                }) && !NOT_CONFLICT.is_match(c)
                    && !lexicon::conditional(c)
                    && text::bigrams(c)
                        .iter()
                        .any(|b| named.binary_search(b).is_ok())
            })
        })
        .or_else(|| before().last())
        .map(|t| t.idx)
}

/// Some assistant turn says part of the preset in other words (`他这就下来，劳烦您再等个两三分钟`
/// for `马上就下来，麻烦师傅稍等两三分钟`): enough to hold `preset.missing` back.
/// The caller's own words echoed (`您是问这周末回不回家对吧` for "就说这周要加班，下周末回去")
/// say nothing of the preset.
fn touched(ctx: &Ctx, content: &[u64]) -> bool {
    ctx.turns.iter().any(|t| {
        t.assistant && text::containment(content, &t.bigrams) >= 0.3 && {
            let said = |b: u64| {
                let pair: String = [(b >> 32) as u32, (b & 0xffff_ffff) as u32]
                    .iter()
                    .filter_map(|&c| char::from_u32(c))
                    .collect();
                ctx.caller_turns_before(t.idx)
                    .any(|c| text::contains_str(c.text, &pair))
            };
            let own = content
                .iter()
                .filter(|&&b| t.bigrams.binary_search(&b).is_ok() && !said(b))
                .count();
            own * 10 >= content.len() * 3
        }
    })
}

/// Where a missing preset is reported: the last assistant turn (the call ended without it).
fn missing_turn(ctx: &Ctx, held: usize) -> Option<usize> {
    ctx.turns
        .iter()
        .rev()
        .find(|t| t.assistant && t.idx > held)
        .map(|t| t.idx)
}

/// The caller turns to another matter.
static TOPIC_SHIFT: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.topic_shift));

/// The caller takes what they were told gladly: an acknowledgement first, and no reluctance,
/// objection or negation anywhere (好的…, 谢谢理解…; case preset/caller-goes-along).
fn accepts(s: &str) -> bool {
    opens_glad(s) && !lists().preset.reluctance.in_text(s)
}

/// Whether a caller's turn opens with a glad acknowledgement (`好的`, `好嘞`, `收到`).
fn opens_glad(s: &str) -> bool {
    let t = s.trim_start();
    lists().preset.glad_acks.starts(t)
}

/// Whether the caller says they will not do what preset `p` prohibits (`我不动` to "别挪地方"):
/// a prohibition in the preset, no `but`, and every objection word a 不 of two characters that
/// tells no inability (`不能`, `不让`: `我说了高架上不能停` holds to trouble).
fn keeps_prohibition(p: &PresetCtx, text: &str) -> bool {
    let l = &lists().preset;
    l.prohibitions.in_text(p.response)
        && !l.but.in_text(text)
        && OBJECTION.is_match(text)
        && OBJECTION.find_iter(text).all(|m| {
            let w = &text[m.start()..m.end()];
            w.starts_with('不') && w.chars().count() == 2 && !l.inability.contains(&w)
        })
}

/// The caller lets an objection go: a turn opening with a grudging yes (`行吧`, `好吧`,
/// `那行`) that does not go on about the trouble (`好吧，那只能…`, `行吧，可是…`).
pub(crate) fn gives_up(s: &str) -> bool {
    let t = s
        .trim_start()
        .trim_start_matches(lists().preset.before_give_up.0);
    lists().preset.give_up.starts(t) && !lists().preset.give_up_reluctantly.in_text(s)
}

/// The caller gives in grudgingly (`行吧`, `算了`) in a turn that asks nothing and raises no
/// "but" (case preset/told-again-after-giving-in).
fn gave_in(t: &TurnCtx) -> bool {
    let l = &lists().preset;
    l.gave_in.in_text(t.text)
        && !t.clauses.iter().any(|c| c.question)
        // (The reluctance words that are no giving in — 可是, 只能 — not 算了, which is both.)
        && !l
            .give_up_reluctantly
            .iter()
            .any(|w| !l.gave_in.contains(w) && t.text.contains(w))
}

/// The caller only acknowledges or complies (好的, 放好了, 我知道了; case
/// preset/said-again-after-compliance).
fn complied(s: &str) -> bool {
    complied_in(s, &text::clauses(s))
}

/// [`complied`] of a whole turn: on its clauses, split already, and once per turn (asked of the
/// same caller turn per preset and per assistant turn after it).
fn turn_complied(t: &TurnCtx) -> bool {
    *t.complied.get_or_init(|| complied_in(t.text, &t.clauses))
}

/// [`complied`] of `s` split into `clauses`.
fn complied_in(s: &str, clauses: &[text::Clause]) -> bool {
    clauses.iter().all(|c| {
        // (Its particles off before its 了, so that `走了啊` still reads as `走了`; case
        // preset/reminded-as-the-rider-walks-off.)
        let t = c
            .text(s)
            .trim()
            .trim_end_matches(['。', '！', '!', '啊', '哈']);
        let bare = t.trim_end_matches('了');
        lists()
            .preset
            .ack_clauses
            .iter()
            .any(|w| text::starts_with_word(t, w) || text::starts_with_word(bare, w))
    })
}

/// Whether assistant turn `t` may say protective preset `p` whole and still be the one allowed
/// back-reference: the caller renewed the push (`别急着拒嘛`, a deadline, a plea), and the turn
/// answers it in new words, not as a copy of the first telling `pc` (a copy: natural.repetition's
/// business as well). (Against a pitch, [`holds_against_pitch`] answers first: case
/// preset/refusal-held-once-whole.)
fn held_whole(ctx: &Ctx, p: &PresetCtx, t: usize, pc: usize) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    // (`要不要` asks; it pushes nothing.)
    let pushes_back = || {
        let text = prev.text.replace("要不要", "");
        lists().preset.pushback.in_text(&text)
    };
    crate::proxy::protective(p)
        && !prev.assistant
        && (pushes_back() || crate::proxy::pushes(prev.text))
        && !text::dice_at_least(
            &ctx.turns[t].bigrams,
            &ctx.turns[pc].bigrams,
            ctx.cfg.repetition_similarity,
        )
}

/// Whether assistant turn `t`, after a conflict, holds to the preset only as the caller's own
/// word, so pushes nothing: the caller reported the owner's new reply (`他在App里回了，说放门口就
/// 行`) and the turn passes it on (case preset/owners-reply-passed-on); the caller proposed the
/// preset's part the conflict left standing and the turn says yes (`彩超还是等他回电再说是吧？` —
/// `对，按刚才说的`; case preset/callers-proposal-confirmed); or every preset word of the turn is
/// the caller's last turn said back (`那我就停定位这儿不动了` — `…您已经停在定位这里等她了`; case
/// preset/callers-plan-said-back-after-a-conflict).
fn answers_callers_own_word(ctx: &Ctx, t: &TurnCtx, content: &[u64]) -> bool {
    let Some(prev) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    if prev.assistant {
        return false;
    }
    let l = &lists().preset;
    if l.owner_replied.in_text(prev.text) {
        return true;
    }
    let said: Vec<&u64> = content
        .iter()
        .filter(|b| t.bigrams.binary_search(b).is_ok())
        .collect();
    let prev_bigrams = prev.all_bigrams();
    let in_prev = |b: &&u64| prev_bigrams.binary_search(b).is_ok();
    // (Seeking a yes to the caller's own proposal — 是吧, 对吧 — not an open question: `还放门口
    // 吗？` answered `对，放门口就行` holds to the preset against the spill.)
    let proposes = l.proposes.in_text(prev.text);
    let asks = prev.text.contains(['？', '?', '吗']);
    let head = t.text.trim_start();
    (proposes && said.iter().any(in_prev) && l.yes.starts(head))
        || (!asks
            && !l.objection_strong.in_text(prev.text)
            && !l.but.in_text(prev.text)
            // (Telling the owner by name, `我告诉王先生…`, relays as well.)
            && ((0..t.clauses.len()).any(|j| t.clause_has(j, lexicon::M_RELAY))
                || t.text.contains("告诉") && ctx.mentions_owner(t.text))
            && !said.is_empty()
            && said.iter().all(in_prev))
}

/// Whether `t` has a clause holding a word pair of the preset's `content`, and `each` holds of
/// every such clause (its index, its text and its bigrams).
fn each_preset_clause(
    t: &TurnCtx,
    content: &[u64],
    mut each: impl FnMut(usize, &str, &[u64]) -> bool,
) -> bool {
    let mut any = false;
    for (ci, c) in t.clauses.iter().enumerate() {
        let cs = c.text(t.text);
        let bs = text::bigrams(cs);
        if !bs.iter().any(|b| content.binary_search(b).is_ok()) {
            continue;
        }
        any = true;
        if !each(ci, cs, &bs) {
            return false;
        }
    }
    any
}

/// Whether every clause of `t` holding a word pair of the preset's `content` names it as a
/// matter (`…的情况`, `…的事`) and relays it: the turn reports, it does not tell the preset.
fn only_as_a_relayed_matter(t: &TurnCtx, content: &[u64]) -> bool {
    let l = &lists().preset;
    each_preset_clause(t, content, |ci, cs, _| {
        // (Or the caller's act told as done: `我马上发消息告诉她外卖放在大门的外卖架上了`; case
        // preset/relayed-as-done.)
        let done = cs.trim_end_matches(['。', '！', '!', '，']).ends_with('了');
        (l.matter_marks.in_text(cs) || done) && t.clause_has(ci, lexicon::M_RELAY)
    })
}

/// Whether every clause of `t` holding the preset's words thanks the caller for them (`谢谢您帮忙
/// 留着`: `thanked_for` at its head, after an acknowledgement) — for what the caller said they
/// do (`行，给他留着`), not for a wait the clause asks for (`辛苦您多等两三分钟`; case
/// preset/thanks-for-a-wait-asks-it).
fn only_thanked(ctx: &Ctx, t: &TurnCtx, content: &[u64]) -> bool {
    let l = &lists().preset;
    // (Thanks said at the goodbye thank the caller for the call's outcome, in whatever words:
    // `好的，谢谢您帮忙留着，再见`; case preset/thanks-at-the-goodbye.)
    each_preset_clause(t, content, |_, cs, bs| {
        let head = cs.trim_start_matches(l.before_thanks.0);
        l.thanked_for.starts(head)
            && (t.says_goodbye(false)
                || bs.iter().any(|b| {
                    content.binary_search(b).is_ok()
                        && ctx
                            .caller_turns_before(t.idx)
                            .any(|c| c.all_bigrams().binary_search(b).is_ok())
                }))
    })
}

/// Whether the caller just gave up against a preset that turns callers away (`那行吧，打扰了`,
/// `行，行，那我们就寄律师函过去`): nothing is left to answer, so even a brief back-reference to it
/// (`还是那句话，…`) says it again for nothing (case preset/back-reference-after-giving-up).
fn given_up_before(ctx: &Ctx, p: &PresetCtx, t: usize) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    // (Only giving up: one sentence, asking nothing — `行行行，那我把资料发短信过去。您看他哪天
    // 方便…` goes on to a new push.)
    crate::proxy::protective(p)
        && !prev.assistant
        && !prev.clauses.iter().any(|c| c.question)
        && text::sentences(prev.text).len() <= 1
        && (gives_up(prev.text)
            || lists().preset.impatient_yes.starts(prev.text.trim_start())
            || lists().preset.quits.in_text(prev.text) && !crate::proxy::pushes(prev.text))
}

/// Whether assistant turn `t` holds protective preset `p` against the caller's turn before it:
/// that turn pitches on — it neither gives up nor only thanks or says goodbye, reports no new
/// fact, and does not ask who the assistant is (an identity question answered with the preset
/// is a repeat).
fn holds_against_pitch(ctx: &Ctx, p: &PresetCtx, t: usize) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    let l = &lists().preset;
    crate::proxy::protective(p)
        && !prev.assistant
        && !accepts(prev.text)
        && !gives_up(prev.text)
        // (Quitting — `行行行，那算了，打扰了` — pitches nothing, unless it pushes on; case
        // preset/said-again-after-the-caller-quit.)
        && (!l.quits.in_text(prev.text) || crate::proxy::pushes(prev.text))
        && !turn_complied(prev)
        && !lexicon::GOODBYE.is_match(prev.text)
        && !l.asks_who.in_text(prev.text)
        && !crate::proxy::reports_new_fact(prev.text, true)
        && !asks_another_matter(prev, p.content())
        && !given_up_before(ctx, p, t)
        // Given in, and nothing pushed after it (`我取消要扣分的……算了算了，我自己取消吧`): the
        // plea before it is withdrawn, no pitch is left to hold against (case
        // preset/told-once-more-after-giving-in).
        && !(gave_in(prev) && {
            let tail = l
                .gave_in
                .iter()
                .filter_map(|w| prev.text.rfind(w).map(|i| i + w.len()))
                .max()
                .unwrap_or(0);
            !crate::proxy::pushes(&prev.text[tail..])
        })
}

/// Whether a caller's turn asks about another matter and presses nothing (`月底前是吧，那发票要
/// 不要重新开？`): the preset said again to it holds nothing (case
/// preset/protective-said-again-to-another-question). Keeping the pitch open (`pitch_kept_open`)
/// is no other matter (case preset/held-against-a-wechat-ask).
fn asks_another_matter(prev: &TurnCtx, content: &[u64]) -> bool {
    !crate::proxy::pushes(prev.text)
        && !lists().preset.pitch_kept_open.in_text(prev.text)
        && prev.clauses.iter().any(|c| {
            let ct = c.text(prev.text);
            (c.question || ct.contains(['？', '?'])) && asks_new(ct) && !names_content(ct, content)
        })
}

/// Whether assistant turn `t` says back the caller's previous turn — a read-back to check, a
/// request for the owner, or words the turn says are the caller's (`您说…`) — and its share of
/// the preset's words is the caller's: at most two of them are not there. (A caller who
/// complied and is told again is not read back: that is a repeat.)
fn says_callers_words_back(ctx: &Ctx, t: usize, content: &[u64]) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    let l = &lists().preset;
    let turn = &ctx.turns[t];
    if prev.assistant {
        return false;
    }
    // The caller's message read back whole (`好的，周六上午十点，三号诊室，一个小时左右，我转告她`
    // after `周六上午十点，有号，…三号诊室，大概一个小时`): every word of the preset in the turn is
    // the caller's, and so are details of their own beyond it (case
    // preset/callers-message-read-back).
    let said = prev.all_bigrams();
    let preset_said = content
        .iter()
        .filter(|b| turn.bigrams.binary_search(b).is_ok())
        .count();
    if preset_said > 0
        && content
            .iter()
            .all(|b| turn.bigrams.binary_search(b).is_err() || said.binary_search(b).is_ok())
        && turn
            .bigrams
            .iter()
            .filter(|b| {
                contentful(**b)
                    && said.binary_search(b).is_ok()
                    && content.binary_search(b).is_err()
            })
            .count()
            >= 3
    {
        return true;
    }
    if !l.read_back.in_text(prev.text)
        && !l.asks_of_owner.in_text(prev.text)
        && !l.callers_words.in_text(turn.text)
    {
        return false;
    }
    let own = content
        .iter()
        .filter(|b| turn.bigrams.binary_search(b).is_ok() && said.binary_search(b).is_err())
        .count();
    own <= 2
}

/// Whether a clause (trimmed of its end marks) ends like an instruction (`…就行`, `…吧`).
fn ends_as_instruction(cs: &str) -> bool {
    lists().preset.instruction_endings.ends(cs)
}

/// Whether a clause opens like an instruction (`麻烦…`, `千万…`).
fn opens_as_instruction(cs: &str) -> bool {
    lists().preset.instruction_openers.starts(cs.trim_start())
}
/// `麻烦师傅了`, `麻烦您了`: thanks, no instruction — a few characters between 麻烦 and 了 (case
/// preset/thanks-by-mafan).
fn thanks_by_mafan(cs: &str) -> bool {
    let cs = cs.trim();
    cs.starts_with("麻烦") && cs.ends_with('了') && cs.chars().count() <= 7
}

/// Whether assistant turn `t` is a short yes (`对`, `好的`) to the caller's turn before it, whose
/// words of the preset are all the caller's, told again as no instruction, with little beyond
/// them (case preset/yes-in-the-callers-words; a retelling in other words is no yes: case
/// preset/retold-in-other-words).
fn confirms_callers_words(ctx: &Ctx, t: usize, content: &[u64]) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    let turn = &ctx.turns[t];
    if prev.assistant || text::word_len(turn.text) > 20 {
        return false;
    }
    let l = &lists().preset;
    let opens_yes = turn.clauses.first().is_some_and(|c| {
        let ct = c.text(turn.text).trim();
        l.yes.contains(&ct) || l.yes_to_a_taking.contains(&ct)
    });
    let said = prev.all_bigrams();
    // The preset's pairs the turn says and the caller did not.
    let new_pairs = || {
        content
            .iter()
            .filter(|b| turn.bigrams.binary_search(b).is_ok() && said.binary_search(b).is_err())
    };
    let own = new_pairs().count();
    // (Not an instruction said again in them: `好的，放门口就行` to `好，放门口了` tells it.)
    let ends_as_instruction = turn
        .clauses
        .iter()
        .any(|c| ends_as_instruction(c.text(turn.text).trim_end_matches(['。', '！', '!', '，'])));
    let opens_as_instruction = turn
        .clauses
        .iter()
        .any(|c| opens_as_instruction(c.text(turn.text)));
    let instructs = ends_as_instruction || opens_as_instruction;
    // (Nor the preset retold in other words: `东西搁门卫室，他一会儿自己下来取` to `好，我放门卫
    // 室了` says more than the caller did.)
    let beyond = turn
        .text
        .chars()
        .filter(|&c| {
            text::is_han(c)
                && !PRESET_FUNC.contains(c)
                && !prev.text.contains(c)
                && !l.courtesy_chars.contains(&c)
        })
        .count();
    // (A yes to the caller's own plan — `那我放青松路口那个快递柜里` — may say it as an
    // instruction: `好的，放快递柜就行`; case preset/yes-to-the-callers-plan.)
    // (`那我上去放门口了` announces the plan, whatever its 了: case
    // preset/yes-to-the-callers-plan-in-brief.)
    let plans = || {
        prev.clauses.iter().any(|c| {
            let ct = c.text(prev.text).trim();
            l.plan_openers.starts(ct) && !l.done_anyway.in_text(ct)
        })
    };
    // (Read as done too, the yes adds no word of the preset the caller did not say: `嗯，门口就行，
    // 别敲门啊` to it tells the rest again.)
    let proposes = prev.text.contains("那我")
        && (!reports_done(prev, content) || plans() && !new_pairs().any(|b| contentful(*b)));
    // (Not asked again — `麻烦就放门口，千万别敲门啊` to `那我给您放门口了` — which is a request.)
    opens_yes
        && (own == 0 && !instructs
            || proposes && ends_as_instruction && !opens_as_instruction && own <= 1)
        && beyond <= 3
}

/// A brief back-reference (按刚才说的, 还是那句话; case preset/one-back-reference) answering the caller's
/// current turn (a question, a push, or the preset's own matter) — not a full restatement,
/// unless the preset turns the caller away (`lenient`): saying it whole to the caller's renewed
/// push is holding it (case preset/refusal-held-once-whole).
fn back_reference(ctx: &Ctx, p: &PresetCtx, t: usize, content: &[u64], lenient: bool) -> bool {
    let Some(prev) = t.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    if prev.assistant {
        return false;
    }
    let turn = &ctx.turns[t];
    let marker = lists().preset.restating.in_text(turn.text);
    let weak_marker = lists().preset.restating_weak.in_text(turn.text);
    // (A short preset said whole in answer to a question about it — `就周五前是吧？` — is as
    // brief as it gets.)
    let asked_about = content.len() <= 6
        && turn
            .clauses
            .first()
            .is_some_and(|c| lists().preset.yes.contains(&c.text(turn.text).trim()))
        && prev.clauses.iter().any(|c| {
            let ct = c.text(prev.text);
            c.question && lists().lexicon.tag_questions.in_text(ct) && names_content(ct, content)
        });
    let not_understood = lists().preset.not_understood.in_text(prev.text);
    // (Asked how long of a wait and told first that it cannot be said — `具体几分钟我这边说不准，
    // 您在定位这儿等着就行…` —, the wait said again whole answers it; parroted with no word on
    // the question, it does not: case preset/wait-said-again-to-how-long.)
    let how_long = prev.clauses.iter().any(|c| {
        (c.question || c.text(prev.text).contains(['？', '?']))
            && asks_how_long(c.text(prev.text), p)
    }) && text::clauses(turn.text).first().is_some_and(|c| {
        let first = c.text(turn.text);
        lists().preset.declined_first.in_text(first)
    });
    let brief = lenient
        || marker
        || weak_marker
        || asked_about
        || not_understood
        || how_long
        || text::containment(content, &turn.bigrams) < 0.75;
    // A question or a push — not an acknowledgement or compliance (`好，那我发邮箱`).
    // A question answers unless it turns to another matter (`另外…模板在哪个文件夹？`) or only
    // checks whether anything is left (`还有别的吗？`).
    let shift = TOPIC_SHIFT
        .find(prev.text)
        .map_or(prev.text.len(), |m| m.start());
    // (Whether the caller took the preset in their first sentence, read once for both uses below.)
    let taken_first = takes_it_first(prev, content);
    // (A question about another matter — `发票要不要重新开？` to "月底前付清" — is not
    // answered by the preset said again: case preset/said-again-to-another-question.)
    let answers = prev.clauses.iter().any(|c| {
        let ct = c.text(prev.text);
        (c.question || ct.contains(['？', '?']))
            && c.start < shift
            && !lists().preset.anything_else.in_text(ct)
            && (names_content(ct, content) || !asks_new(ct) || asks_how_long(ct, p))
    }) || lists().preset.pushback.in_text(&prev.text[..shift])
        // (Or doubt about following the preset's own words — `备注写的是三期北门进，也不知道是
        // 不是北门`; case preset/back-reference-to-a-doubt.)
        || names_content(&prev.text[..shift], content)
            && lists().preset.doubt.in_text(&prev.text[..shift])
        // (Or the turn first declines what the caller asked instead of the preset:
        // `declined_first` — not another matter asked once the preset was taken, `好的，那我把时间
        // 发短信给他。顺便问一下，他现在是在职看机会吗？`; case
        // preset/taken-then-declined-then-the-preset.)
        || !taken_first && text::sentences(turn.text).first().is_some_and(|r| {
            let first = &turn.text[r.clone()];
            lists().preset.declined_first.in_text(first)
        });
    // `…我转告他。另外他说了，请您在北门外等`: the preset added on after the answer.
    let added_on = TOPIC_SHIFT.is_match(turn.text);
    // (`好，放鞋柜了。这个件是…的吧？`: the caller had complied; the preset said again is no answer.)
    let taken = !prev.text.contains(['？', '?']) && taken_first;
    // (A yes with the prohibition kept, `行，我就停这不动了`, is compliance, not a push; case
    // preset/a-prohibition-kept-then-retold.)
    let had_complied = reports_done(prev, content)
        || taken
        || opens_glad(prev.text) && keeps_prohibition(p, prev.text);
    let asks_about_it = prev
        .clauses
        .iter()
        .any(|c| c.question && names_content(c.text(prev.text), content));
    if had_complied && !marker && !asks_about_it {
        return false;
    }
    // The caller said the preset back unasked and asks nothing (`好的，行程不变，按原订单出票…
    // 那没别的事了。`): taken, like compliance — the preset said once more answers nothing
    // (case preset/said-again-after-a-read-back). A caller who asks to check it (`我再跟您确认
    // 一下：…`) is answered (`says_callers_words_back`).
    let read_back = !prev.clauses.iter().any(|c| c.question)
        && !lists().preset.read_back.in_text(prev.text)
        && text::containment(content, prev.all_bigrams()) >= 0.6;
    if read_back {
        return false;
    }
    // An explicit back-reference (`还是那句话`) is an answer by its form, unless the caller
    // only acknowledged or complied.
    // (Nor after the caller complied and turned to another matter — `知道了知道了。对了，看房的客户
    // 也养狗…` —: the back-reference answers neither; case preset/said-again-after-a-turn-to-another-matter.)
    // (Or gave up — `好吧。那顺便问一句，…` —; case preset/gave-up-then-asked-another-matter.)
    // (Not a caller who took it in their own words and asked on, `行，那我照备注再找找。对了，…密
    // 码多少啊？`: a pointer back after declining that answers them.)
    let turned =
        (had_complied || gives_up(prev.text) && !taken_first) && TOPIC_SHIFT.is_match(prev.text);
    brief
        && !added_on
        && (answers
            || (marker || weak_marker && !had_complied)
                && !lexicon::CLOSE.is_match(prev.text)
                && !turn_complied(prev)
                && !taken
                && !turned)
}

/// Whether the caller's turn before a back-reference had the preset settled: it asks about
/// another matter (`好的，不着急。他行李多不多？`, `好，那我发邮箱。对了，下个月的货还送老地方吗？`),
/// or only says yes (`好，我等着。`). The preset said again may still answer something (a doubt
/// behind the yes, a question it bears on in other words), so such a back-reference is a
/// doubtful one: an uncertain repeat, for a second opinion (cases
/// preset/said-again-after-a-yes-and-another-question,
/// preset/said-again-after-a-taking-and-another-matter).
fn settled_before(p: &PresetCtx, prev: &TurnCtx, content: &[u64]) -> bool {
    if prev.assistant {
        return false;
    }
    // Each sentence that asks something, and whether it names the preset: a question about the
    // preset itself (`放门口是吧？`, `门口有个纸壳箱，跟它放一起？`) or how long it takes is answered
    // by it (case preset/asked-about-it-answered-by-it).
    let mut other_matter = false;
    for r in text::sentences(prev.text) {
        let sentence = &prev.text[r.clone()];
        let asks = prev.clauses.iter().any(|c| {
            (c.question || c.text(prev.text).contains(['？', '?']))
                && c.start >= r.start
                && c.start < r.end
        });
        if !asks {
            continue;
        }
        if names_content(sentence, content) || asks_how_long(sentence, p) {
            return false;
        }
        other_matter = true;
    }
    let l = &lists().preset;
    let opens_yes = text::clauses(prev.text)
        .first()
        .is_some_and(|c| l.yes_to_a_taking.contains(&c.text(prev.text).trim()));
    other_matter
        || !prev.text.contains(['？', '?'])
            && (opens_yes || opens_glad(prev.text) || gives_up(prev.text) || turn_complied(prev))
}

/// The first assistant turn after a preset was conveyed (at `first`; `content`, its words) that
/// holds it again — conveys it, or insists in the preset's words — right after a caller's turn
/// that neither takes it nor only presses, but sets something new against it: trouble or a need
/// that cannot wait, with a word of contrast (`contrasts`; case
/// preset/held-after-trouble-set-against-it).
fn held_against_new_fact(
    ctx: &Ctx,
    first: usize,
    content: &[u64],
    conveyed: &[usize],
    suspended: &[usize],
) -> Option<usize> {
    let l = &lists().preset;
    (first + 1..ctx.turns.len().saturating_sub(1)).find_map(|c| {
        let caller = &ctx.turns[c];
        let answer = &ctx.turns[c + 1];
        // (The cheap tests first: most calls have no contrast word at all.)
        let held = || {
            conveyed.contains(&answer.idx)
                || insists(answer.text)
                    && content
                        .iter()
                        .any(|b| answer.bigrams.binary_search(b).is_ok())
        };
        let trouble = || {
            TROUBLE.is_match(caller.text)
                || URGENT_NEED.is_match(caller.text)
                || OBJECTION_STRONG.is_match(caller.text)
                || emergency_cue(caller.text)
        };
        (!caller.assistant
            && answer.assistant
            && CONTRASTS.is_match(caller.text)
            && !text::clauses(caller.text)
                .first()
                .is_some_and(|c| l.yes_to_a_taking.contains(&c.text(caller.text).trim()))
            && !suspended.contains(&answer.idx)
            && held()
            && trouble()
            && !asks_another_matter(caller, content)
            && !accepts(caller.text)
            && !gives_up(caller.text)
            && !crate::proxy::pressure_only(caller.text, false)
            && !RELAYS.is_match(answer.text))
        .then_some(answer.idx)
    })
}

/// Whether a caller's turn opens by taking the preset up as their own plan (`好，那我发短信。`,
/// `行，我让秘书发邮件。`): each clause of its first sentence an acknowledgement or one opening
/// with 我 that names the preset's content, and one of the latter — whatever the turn asks after
/// (`好的，那我把时间发短信给他。顺便问一下，他现在是在职看机会吗？`). Asking nothing as well, it took
/// the preset: said again after it, the preset answers nothing, even as `还是那句…` (case
/// preset/taken-up-then-said-again).
fn takes_it_first(prev: &TurnCtx, content: &[u64]) -> bool {
    text::sentences(prev.text).first().is_some_and(|r| {
        let first = &prev.text[r.clone()];
        let mut own = false;
        let all = text::clauses(first).iter().all(|c| {
            let ct = c.text(first).trim();
            if complied(ct) {
                return true;
            }
            let mine = ct
                .trim_start_matches(lists().preset.before_own_plan.0)
                .starts_with('我')
                && names_content(ct, content);
            own |= mine;
            mine
        });
        all && own
    })
}

/// Whether a question clause asks about something of its own — a question word with at least
/// two content characters beside it (`发票要不要重新开？`, `前台在几楼？`), or a yes/no ending
/// (`附近有加油站没？`; not a proposal put up for a yes, `可以吗？`) — rather than only checking what
/// was said (`是吧？`, `真的假的？`, `那怎么办？`).
fn asks_new(q: &str) -> bool {
    asks_new_with(q, 5)
}

/// [`asks_new`] with at least `min` content characters beside the question word.
fn asks_new_with(q: &str, min: usize) -> bool {
    (ASKS.is_match(q) || text::a_not_a(q).is_some() || {
        let bare = q.trim_end_matches(['？', '?', '。', '！', ' ', '呢', '啊']);
        lists().preset.yes_no_ends.ends(bare) && !lists().preset.proposal_ends.ends(bare)
    }) && q
        .chars()
        .filter(|&c| text::is_han(c) && !PRESET_FUNC.contains(c))
        .count()
        >= min
}

/// Whether a caller's turn opens by reporting the preset's own action done (`好，放鞋柜了。`):
/// each clause of its first sentence an acknowledgement or that action with 了 — done, not only
/// acknowledged (`好。`).
fn reports_done(prev: &TurnCtx, content: &[u64]) -> bool {
    text::sentences(prev.text).first().is_some_and(|r| {
        let first = &prev.text[r.clone()];
        let done = text::clauses(first).iter().all(|c| {
            let ct = c.text(first).trim();
            complied(ct)
                || ct.trim_end_matches(['。', '！', '!']).ends_with('了')
                    && names_content(ct, content)
        });
        done && first.contains('了') && first.chars().count() > 3
    })
}

/// Problem, negation and impossibility markers: generic, not tied to any situation. Next to
/// one of the preset's own content words they say the preset's place, action or time does not
/// work (`外卖柜全满了`, `驿站今天关门了`, `周四就来不及了`, `放门口也没法吃了`).
static OBJECTION: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.objection));

/// The strong part of [`OBJECTION`] — impossibility, breakage, a place shut or full — enough
/// before the preset is said; the weak rest (`看不到人`, `还没到账`) is often the very occasion
/// for the preset and counts only as a reaction to it.
static OBJECTION_STRONG: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().preset.objection_strong));

/// The caller holds to what they said before (`我说了高架上不能停`): the situation predates.
static RESTATES: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.restates));

/// The assistant relays or defers the matter rather than pushing the preset.
static RELAYS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.relays));

/// The caller objects to the preset itself: a clause with one of the preset's content words
/// (not the trigger's) and a problem marker, or — right after the preset was said — its words
/// echoed or named beside trouble (`周末？水现在就在往下流`, `等到周一，损失谁担得起？`), in a
/// turn that does not accept it. Returns the turn, dated back to the caller's earlier turn the
/// objection restates, and the preset's words it challenges.
fn objection_at(
    ctx: &Ctx,
    p: &PresetCtx,
    trig: &Trigger,
    content: &[u64],
    conveyed: &[usize],
) -> Option<(usize, Vec<u64>)> {
    // Nothing said to push (what is never conveyed is no conflict finding).
    if content.is_empty() || conveyed.is_empty() {
        return None;
    }
    let trig_b = p.trigger_bigrams();
    let protective = trig
        .groups
        .iter()
        .flatten()
        .any(|&ci| ctx.concepts.has(ci, ConceptTrait::Protective));
    let anticipates = preset_words(p).trigger_trouble;
    // (Not its courtesies: `麻烦就麻烦在…` objects to nothing the preset asks, and a later
    // `麻烦您了，再见` holds to nothing.)
    static POLITE: LazyLock<Vec<u64>> =
        LazyLock::new(|| text::bigrams(&lists().preset.polite.join(" ")));
    let polite = &*POLITE;
    // (Once per preset, see `PresetInfo`.)
    let own: &[u64] = p.info.objection_words.get_or_init(|| {
        text::bigrams(preset_core(p.response))
            .into_iter()
            .filter(|b| {
                contentful(*b)
                    && trig_b.binary_search(b).is_err()
                    && polite.binary_search(b).is_err()
            })
            .collect()
    });
    if own.is_empty() {
        return None;
    }
    // A marker that is not the preset's or the trigger's own word, not 能不能, not denied.
    let marker_in = |clause: &str, aut: &Ac| {
        aut.find_iter(clause).any(|m| {
            let word = &clause[m.start()..m.end()];
            let prefix = &clause[..m.start()];
            let a_not_a = text::a_not_a_word(clause, m.start(), m.end());
            // 也不是不行: denied twice.
            let twice = lists().preset.denials.ends(prefix);
            !a_not_a
                && !twice
                && !text::contains_str(p.trigger, word)
                && !text::contains_str(p.response, word)
                && (word.starts_with('不') || word.starts_with('没') || !text::negated(prefix, 2))
        }) && !NOT_CONFLICT.is_match(clause)
            && !lexicon::conditional(clause)
    };
    for t in ctx.turns.iter().filter(|t| !t.assistant) {
        // Pressure that reports no new fact objects to nothing the preset cannot meet: it is what
        // the preset is held against, as in `conflict_at` (case proxy/held-and-relayed: "拒收退回去要
        // 扣你十五块的").
        if crate::proxy::pressure_only_at(ctx, t.idx, crate::proxy::protective(p)) {
            continue;
        }
        // Before the preset is said, trouble the trigger anticipates is its occasion.
        if anticipates && conveyed.first().is_none_or(|&f| f > t.idx) {
            continue;
        }
        let after_conveyance = t.idx > 0 && conveyed.contains(&(t.idx - 1));
        // Trouble stated in this turn, outside questions (judged once, when needed).
        let mut trouble_memo: Option<bool> = None;
        let mut trouble = || {
            *trouble_memo.get_or_insert_with(|| {
                after_conveyance
                    && !accepts(t.text)
                    && !agrees(t)
                    && !turn_complied(t)
                    && t.clauses.iter().any(|o| {
                        let ot = o.text(t.text);
                        !o.question
                            && (marker_in(ot, &OBJECTION)
                                || marker_in(ot, &TROUBLE)
                                || marker_in(ot, &CUES.0))
                    })
            })
        };
        // The caller turns to ask about something else (`又加班啊……那他最近身体怎么样？`): the
        // echo was a sigh, the trouble belongs to the new matter. (A question that protests,
        // `公司损失谁担得起？`, turns to nothing.)
        let moves_on = || {
            t.clauses.iter().any(|q| {
                let qt = q.text(t.text).trim_start_matches(['…', '.', ' ']);
                let mut own_word = false;
                text::for_each_bigram(qt, |b| {
                    own_word |= own.binary_search(&b).is_ok();
                });
                q.question && !own_word && lists().preset.topic_openers.starts(qt)
            })
        };
        let mut challenged: Vec<u64> = Vec::new();
        let mut hit: Vec<u64> = Vec::new();
        for c in &t.clauses {
            let clause = c.text(t.text);
            hit.clear();
            text::for_each_bigram(clause, |b| {
                if own.binary_search(&b).is_ok() {
                    hit.push(b);
                }
            });
            if hit.is_empty() || NOT_CONFLICT.is_match(clause) || lexicon::conditional(clause) {
                continue;
            }
            // Told not to do something (`别挪地方`), a caller who says yes and that they will
            // not (`行，我就停在定位这儿不动`) complies: the 不 is the preset's own (case
            // preset/a-prohibition-complied-with).
            let complies_with_prohibition = || {
                opens_glad(t.text)
                    && lists().preset.prohibitions.in_text(p.response)
                    && !lists().preset.but.in_text(t.text)
                    && OBJECTION.find_iter(clause).all(|m| {
                        let w = &clause[m.start()..m.end()];
                        w.starts_with('不') && w.chars().count() == 2
                    })
            };
            let marker = if after_conveyance {
                marker_in(clause, &OBJECTION) && !complies_with_prohibition()
            } else {
                marker_in(clause, &OBJECTION_STRONG)
            };
            // Echoed or named right after the preset, beside trouble: an objection, not a
            // check (`8021是吧？好的`).
            let han = clause.chars().filter(|&ch| text::is_han(ch)).count();
            let reaction =
                !protective && han <= 6 && !ASKS.is_match(clause) && trouble() && !moves_on();
            if (marker && !c.question) || reaction {
                challenged.extend_from_slice(&hit);
            }
        }
        // `我说了高架上不能停`: the caller holds to a problem they stated before.
        // (Not a yes said again, crossly, to a prohibition: `我说了我不动` to "别挪地方"; case
        // preset/compliance-said-again-crossly.)
        let restates = after_conveyance
            && RESTATES.is_match(t.text)
            && !turn_complied(t)
            && marker_in(t.text, &OBJECTION)
            && !keeps_prohibition(p, t.text);
        if challenged.is_empty() && !restates {
            continue;
        }
        // Reacting to the preset with a situation stated before it was said (the same words
        // again, or trouble in the caller's turn before it): the conflict dates from then.
        let mut at = t.idx;
        if after_conveyance {
            // (Not the words any call has — `时间`, `下午` — that date nothing.)
            let mine: Vec<u64> = t
                .all_bigrams()
                .iter()
                .copied()
                .filter(|b| {
                    contentful(*b)
                        && !lexicon::is_function_bigram(*b)
                        && p.bigrams().binary_search(b).is_err()
                        && trig_b.binary_search(b).is_err()
                })
                .collect();
            let before = || ctx.turns[..t.idx - 1].iter().filter(|e| !e.assistant);
            // (The earlier turn must state trouble too: `我在三号门这儿` asked the way; only
            // `三号门那儿把人拦下来了` is the situation.)
            if let Some(e) = before().find(|e| {
                e.all_bigrams()
                    .iter()
                    .filter(|b| mine.binary_search(b).is_ok())
                    .count()
                    >= 2
                    && e.clauses.iter().any(|o| {
                        let ot = o.text(e.text);
                        !o.question
                            && (marker_in(ot, &TROUBLE)
                                || marker_in(ot, &CUES.0)
                                || marker_in(ot, &OBJECTION))
                    })
            }) {
                at = e.idx;
            } else if let Some(e) = before().last().filter(|e| {
                restates
                    || e.clauses
                        .iter()
                        .any(|o| !o.question && marker_in(o.text(e.text), &CUES.0))
            }) {
                at = e.idx;
            }
        }
        // A seller's or scammer's pressure is part of the pitch.
        if lexicon::SCAM_OR_THREAT.is_match(ctx.caller_text()) {
            return None;
        }
        return Some((at, challenged));
    }
    None
}

/// A bigram of two content characters (`周一`, `驿站`; not `这儿`, `先记`).
/// Whether `s` names one of the preset's content words (`content`: sorted bigrams).
fn names_content(s: &str, content: &[u64]) -> bool {
    let mut named = false;
    text::for_each_bigram(s, |b| {
        named |= contentful(b) && content.binary_search(&b).is_ok() && !courtesy_pair(b);
    });
    named
}

/// Whether a word pair is made of the courtesies a preset may hold (`麻烦师傅…`, `烦师` across
/// them; `courtesy_words`): it names none of its matter (case preset/courtesy-on-the-goodbye).
fn courtesy_pair(b: u64) -> bool {
    static CHARS: LazyLock<lexicon::HanSet> = LazyLock::new(|| {
        lexicon::HanSet::new(lists().preset.courtesy_words.iter().flat_map(|w| w.chars()))
    });
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    CHARS.contains(a) && CHARS.contains(c)
}

/// Whether turn `t` says two of the preset's content pairs (`content`).
fn two_content_pairs(t: &TurnCtx, content: &[u64]) -> bool {
    content
        .iter()
        .filter(|b| contentful(**b) && t.bigrams.binary_search(b).is_ok())
        .nth(1)
        .is_some()
}

/// A character as the first of its `paraphrase_chars` group (搁 read as 放), so that a retelling
/// in the group's other characters matches.
fn canon(c: char) -> char {
    lexicon::paraphrase_group(c)
        .and_then(|g| g.chars().next())
        .unwrap_or(c)
}

/// Whether assistant turn `t` retells preset `p` in other words: two of its content pairs, and
/// three in five of the content characters of its core, characters said one for the other
/// (`paraphrase_chars`: 搁 for 放, 取 for 拿) read as one (case preset/retold-in-other-words).
/// Asked only of a turn after the preset was told: a first telling needs its words.
fn retold_in_other_words(t: &TurnCtx, p: &PresetCtx, content: &[u64]) -> bool {
    if !two_content_pairs(t, content) {
        return false;
    }
    let mut chars: Vec<char> = preset_core(p.response)
        .chars()
        .filter(|&c| text::is_han(c) && !PRESET_FUNC.contains(c))
        .map(canon)
        .collect();
    chars.sort_unstable();
    chars.dedup();
    // (A short preset — `麻烦放门口，不用敲门` — is retold by any mention: `对，就放门口`.)
    if chars.len() < 8 {
        return false;
    }
    let said: Vec<char> = t.text.chars().map(canon).collect();
    let hit = chars.iter().filter(|c| said.contains(c)).count();
    hit * 5 >= chars.len() * 3
}

/// Whether a clause only closes the call (`再见`, `谢谢师傅再见`): a goodbye of four characters
/// of Chinese at most.
fn closing_only(clause: &str) -> bool {
    clause.chars().filter(|&ch| text::is_han(ch)).count() <= 4
        && crate::naturalness::is_goodbye_text(clause, true)
}

/// Whether assistant turn `t` says goodbye and, outside its goodbye, says the preset again — two
/// word pairs of its `content` the caller did not just say — to a caller who closes and asks
/// nothing (cases preset/said-again-on-the-goodbye, preset/held-on-the-goodbye-against-a-threat,
/// preset/callers-plan-relayed-on-the-goodbye).
fn said_again_on_the_goodbye(ctx: &Ctx, t: &TurnCtx, content: &[u64]) -> bool {
    let Some(prev) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    if prev.assistant
        || prev.clauses.iter().any(|c| c.question)
        || prev.text.contains(['？', '?'])
        || !t.says_goodbye(true)
        // (What the turn relays, `周日下午两点，我转告她`, it tells the owner, not the caller.)
        || RELAYS.is_match(t.text)
    {
        return false;
    }
    // The caller closes: took the preset, did it, or says goodbye — no push, no threat (held
    // against, the preset said again is a hold: `地址我不方便提供，材料请走正规渠道，再见`).
    let closes = turn_complied(prev)
        || accepts(prev.text)
        || reports_done(prev, content)
        || prev.says_goodbye(false)
        || lists().preset.quits.in_text(prev.text)
        || lists().preset.caller_closes.in_text(prev.text);
    if !closes || crate::proxy::pushes(prev.text) || lexicon::SCAM_OR_THREAT.is_match(prev.text) {
        return false;
    }
    // (A turn that declines what the caller asked, `地址我不方便提供`, answers them.)
    if t.clauses
        .first()
        .is_some_and(|c| lists().preset.declined_first.in_text(c.text(t.text)))
    {
        return false;
    }
    // A question (`对了，验收要准备什么资料吗？`) is no restatement; read outside the goodbye.
    if t.clauses.iter().any(|c| c.question) {
        return false;
    }
    let rest: Vec<&str> = t
        .clauses
        .iter()
        .map(|c| c.text(t.text))
        .filter(|c| !closing_only(c))
        .collect();
    if rest.is_empty() {
        return false;
    }
    let said = prev.all_bigrams();
    // (Not a courtesy the preset holds, `麻烦师傅…`: `麻烦师傅路上开稳一点，再见` tells nothing.)
    let mut pairs: Vec<u64> = Vec::new();
    for c in &rest {
        text::for_each_bigram(c, |b| {
            if contentful(b)
                && content.binary_search(&b).is_ok()
                && said.binary_search(&b).is_err()
                && !courtesy_pair(b)
            {
                pairs.push(b);
            }
        });
    }
    pairs.sort_unstable();
    pairs.dedup();
    // Two of its pairs: one alone is often a word any goodbye may hold (`这事我这边不会处理，
    // 我挂了，再见` beside "…打官方客服电话处理").
    pairs.len() >= 2
}

/// Whether an assistant turn is made of the preset in other words: two of its content pairs,
/// and seven in ten of the turn's own content characters the preset's (`您就在定位那儿停着别动，她
/// 会照着车牌找您` for "按订单上的定位停车等着，别挪地方，她会按车牌号找过去") — the preset said again
/// in short, with nothing of the turn's own (case preset/retold-in-short-to-another-question).
fn made_of_the_preset(t: &TurnCtx, p: &PresetCtx, content: &[u64]) -> bool {
    if !two_content_pairs(t, content) {
        return false;
    }
    let own = |c: &char| text::is_han(*c) && !PRESET_FUNC.contains(*c);
    let preset: Vec<char> = p.response.chars().filter(own).map(canon).collect();
    // (A goodbye closing the turn, `…别转给老师，再见`, is no word of its own: case
    // preset/retold-in-short-before-the-goodbye.)
    let said: Vec<char> = t
        .clauses
        .iter()
        .map(|c| c.text(t.text))
        .filter(|c| !closing_only(c))
        .flat_map(str::chars)
        .filter(own)
        .map(canon)
        .collect();
    let hit = said.iter().filter(|c| preset.contains(c)).count();
    said.len() >= 4 && hit * 10 >= said.len() * 7
}

/// Whether the caller's turn just before asked about another matter (`对了，她行李多不多？`: a
/// question of its own that names nothing of the preset) and the assistant's turn relays nothing
/// to the owner — then the preset in short answers nothing (case
/// preset/retold-in-short-to-another-question).
fn to_another_question(ctx: &Ctx, t: &TurnCtx, content: &[u64]) -> bool {
    let Some(prev) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    !prev.assistant
        && !RELAYS.is_match(t.text)
        && prev.clauses.iter().any(|c| {
            let ct = c.text(prev.text);
            // (`她行李多不多？` — three characters of its own are enough beside an A-not-A.)
            (c.question || ct.contains(['？', '?']))
                && !names_content(ct, content)
                && asks_new_with(ct, 3)
        })
}

/// Whether a question asks how long (`她大概几分钟能到？`) of a preset that makes the caller wait:
/// the wait said again answers it (case preset/wait-said-again-to-how-long).
fn asks_how_long(q: &str, p: &PresetCtx) -> bool {
    preset_words(p).waits && lists().preset.asks_how_long.in_text(q)
}

fn contentful(b: u64) -> bool {
    static FUNC: LazyLock<lexicon::HanSet> = LazyLock::new(|| {
        lexicon::HanSet::new(lists().preset.not_content_in_bigrams.iter().copied())
    });
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    text::is_han(a) && text::is_han(c) && !FUNC.contains(a) && !FUNC.contains(c)
}

/// Question words: a clause that asks something new (`乘客有几件行李？`) is no echo.
static ASKS: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().preset.asks));

/// The caller goes along with what was said (`那行，就搁驿站`, `好，照定位开过去`).
fn agrees(t: &TurnCtx) -> bool {
    t.clauses.iter().any(|c| {
        let x = c
            .text(t.text)
            .trim_start_matches(lists().preset.before_agreement.0);
        let l = &lists().preset;
        l.agreements.starts(x) && !l.agreement_asked.starts(x)
    })
}

/// The clause names a thing (two content characters) that both the trigger and the preset's
/// response name.
fn occasion(clause: &str, p: &PresetCtx) -> bool {
    let mut found = false;
    text::for_each_bigram(clause, |b| {
        if !found && contentful(b) && p.bigrams().binary_search(&b).is_ok() {
            let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
            let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
            let mut w = String::new();
            w.push(a);
            w.push(c);
            found = text::contains_str(p.trigger, &w);
        }
    });
    found
}

/// Builds every word list of the module ([`crate::wordindex`]: the union of all lists is built
/// once they are all known).
pub(crate) fn build_lists() {
    LazyLock::force(&TRIGGER_TROUBLE);
    LazyLock::force(&WAITS);
    LazyLock::force(&WAIT_ASKED);
    LazyLock::force(&LEAVE_GOODS);
    LazyLock::force(&CUES);
    LazyLock::force(&INABILITY);
    LazyLock::force(&CONFLICT_WORDS);
    LazyLock::force(&WEAK_CONFLICT);
    LazyLock::force(&NOT_CONFLICT);
    LazyLock::force(&CLOSED);
    LazyLock::force(&PROBLEM);
    LazyLock::force(&SUSPENDS);
    LazyLock::force(&SUSPENDS_ANY);
    LazyLock::force(&TROUBLE);
    LazyLock::force(&DEFERS);
    LazyLock::force(&URGENT_NOW);
    LazyLock::force(&URGENT_NEED);
    LazyLock::force(&TOO_LATE);
    LazyLock::force(&INSISTS);
    LazyLock::force(&OWNERS_WORD);
    LazyLock::force(&TRIGGER_FRAME);
    LazyLock::force(&INTRO_MARK);
    LazyLock::force(&REACTIONS);
    LazyLock::force(&COMMON_PITCH_WORDS);
    LazyLock::force(&AHEAD);
    LazyLock::force(&FUTURE);
    LazyLock::force(&FILLER);
    LazyLock::force(&BLOCKED);
    LazyLock::force(&TOPIC_SHIFT);
    LazyLock::force(&OBJECTION);
    LazyLock::force(&OBJECTION_STRONG);
    LazyLock::force(&RESTATES);
    LazyLock::force(&RELAYS);
    LazyLock::force(&ASKS);
}

#[cfg(test)]
mod tests {
    /// Words read off one search of a whole caller turn, clause by clause: the same as
    /// searching each clause alone only while no word holds a clause mark.
    fn hold_no_clause_mark(words: &[&str]) {
        for &w in words {
            let cs = crate::text::clauses(w);
            assert!(cs.len() == 1 && cs[0].text(w) == w, "{w:?}");
        }
    }

    #[test]
    fn intro_marks_hold_no_clause_mark() {
        hold_no_clause_mark(&crate::lexicon::lists().lexicon.intro_mark);
    }

    #[test]
    fn conflict_words_hold_no_clause_mark() {
        hold_no_clause_mark(&super::conflict_words());
    }
}
