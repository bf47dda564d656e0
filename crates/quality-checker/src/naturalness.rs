//! Naturalness of the assistant's talk:
//!
//! - `natural.repetition`: an assistant turn, or a longer sentence of it, says again what an
//!   earlier assistant turn said (the preset's words are `preset.repeat`'s business);
//! - `natural.closing`: the assistant hangs up before the caller's matter is settled, keeps
//!   talking after the goodbyes, or never closes the call;
//! - `natural.meta`: AI self-reference, markdown, lists, non-Chinese leakage, stage directions,
//!   speaker labels, emoji.

use crate::ctx::{Ctx, TurnCtx};
use crate::lexicon::Ac;
use crate::lexicon::{self, CLOSE, GOODBYE, RELAY};
use crate::lexicon::{Words, lists};
use crate::text;
use crate::{Finding, finding};
use callbench_model::vocab::ViolationKind;
use std::borrow::Cow;
use std::sync::LazyLock;

/// Finds repeated replies.
pub fn repetition(ctx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    let theta = ctx.cfg.repetition_similarity;
    // Per assistant turn: the whole turn (less the goodbye), its own words (less the greeting,
    // the self-introduction and the preset's words), and its longer sentences.
    struct Seen<'a> {
        whole: Cow<'a, [u64]>,
        whole_len: usize,
        own: Cow<'a, [u64]>,
        own_len: usize,
        body: Cow<'a, [u64]>,
        body_len: usize,
        idx: usize,
        sents: Vec<(&'a str, Cow<'a, [u64]>)>,
    }
    let mut seen: Vec<Seen> = Vec::new();
    for t in ctx.turns.iter().filter(|t| t.assistant) {
        // Whether the turn holds a goodbye or a greeting word at all (a question of its index
        // each), and a clause one inside it, asked only of a turn that has one: no word of
        // either list holds a clause mark (test `close_and_intro_words_hold_no_clause_mark`),
        // so none spans two clauses, and a clause holds one when one starts inside it.
        // (Every match of the turn was collected before, for every turn.)
        let any_close = CLOSE.is_match(t.text);
        let any_intro = INTRO.is_match(t.text);
        let holds = |list: &Ac, c: &text::Clause| list.is_match(c.text(t.text));
        let any_covered = t.covered.iter().any(|&c| c);
        // Each clause's bigrams (unsorted) and word length, read off the turn's scan: the whole
        // turn, its own words and its sentences are made of them.
        let of = |ci: usize| t.pairs.of(ci);
        let (mut whole_len, mut own_len, mut body_len) = (0, 0, 0);
        // (Sized for the turn up front: grown bigram by bigram they were reallocated often.)
        let cap = |on: bool| Vec::with_capacity(if on { t.pairs.all().len() } else { 0 });
        let (mut whole_v, mut own_v) = (cap(any_close), cap(any_close || any_intro || any_covered));
        let mut body_v = cap(any_intro && any_covered);
        for (ci, c) in t.clauses.iter().enumerate() {
            let n = t.pairs.words(ci);
            if any_close && n <= 8 && holds(&CLOSE, c) {
                continue;
            }
            whole_len += n;
            if any_close {
                whole_v.extend_from_slice(of(ci));
            }
            let intro = any_intro && holds(&INTRO, c);
            if !intro {
                body_len += n;
                if any_intro && any_covered {
                    body_v.extend_from_slice(of(ci));
                }
            }
            if t.covered[ci] || intro {
                continue;
            }
            own_len += n;
            if any_close || any_intro || any_covered {
                own_v.extend_from_slice(of(ci));
            }
        }
        // Without a goodbye, intro or preset words the turn's own bigrams serve.
        let whole: Cow<[u64]> = if any_close {
            Cow::Owned(text::finish(whole_v))
        } else {
            Cow::Borrowed(&t.bigrams)
        };
        let own: Cow<[u64]> = if any_close || any_intro || any_covered {
            Cow::Owned(text::finish(own_v))
        } else {
            whole.clone()
        };
        // The turn less its goodbye and self-introduction, the preset's words kept: a protective
        // preset held again in the same words (您好，我是…助理。她交代过，不需要 / 不好意思，她交代
        // 过，不需要) is no preset.repeat but still a parrot (labelled README, natural.repetition).
        // Without both an intro and preset words it is the whole or the own words.
        let body: Cow<[u64]> = if any_intro && any_covered {
            Cow::Owned(text::finish(body_v))
        } else if any_covered {
            whole.clone()
        } else {
            own.clone()
        };
        // Sentences long enough to compare on their own (8+ bigrams), less preset words, with
        // their word characters (the clauses', every one: between them are only marks).
        let mut sents: Vec<(&str, Cow<[u64]>)> = Vec::new();
        let mut sent_len: Vec<usize> = Vec::new();
        let mut k = 0;
        while k < t.clauses.len() {
            let n = t.clauses[k].sentence;
            let mut j = k;
            let (mut chars, mut all) = (0, 0);
            while j < t.clauses.len() && t.clauses[j].sentence == n {
                if !t.covered[j] {
                    chars += t.pairs.words(j);
                }
                all += t.pairs.words(j);
                j += 1;
            }
            // Fewer than 9 characters cannot make 8 bigrams.
            if chars >= 9 {
                let uncovered = || (k..j).filter(|&q| !t.covered[q]);
                if uncovered().map(|q| of(q).len()).sum::<usize>() >= 8 {
                    let range = t.clauses[k].start..t.clauses[j - 1].end;
                    // A sentence that is the whole turn, no preset words in it: the turn's own
                    // bigrams (most turns are one sentence).
                    let b: Cow<[u64]> = if k == 0 && j == t.clauses.len() && !any_covered {
                        Cow::Borrowed(&t.bigrams)
                    } else {
                        let mut b = Vec::with_capacity(chars);
                        for q in uncovered() {
                            b.extend_from_slice(of(q));
                        }
                        Cow::Owned(text::finish(b))
                    };
                    sents.push((&t.text[range], b));
                    sent_len.push(all);
                }
            }
            k = j;
        }
        // A sentence said again in a turn that says something new besides (a second refusal in
        // other words, then the same relay: case naturalness/same-relay-after-new-words) is no
        // repeated reply: which sentences can be one, read once per turn (not per earlier turn,
        // and not for the first).
        let repeatable: Vec<bool> = if seen.is_empty() {
            Vec::new()
        } else {
            sent_len
                .iter()
                .map(|&n| whole_len.saturating_sub(n) <= 8)
                .collect()
        };
        let mut hit: Option<&str> = None;
        'prev: for prev in &seen {
            if ctx.unheard(prev.idx, t.idx) {
                continue;
            }
            if whole_len >= 6
                && prev.whole_len >= 6
                && text::dice_at_least(&whole, &prev.whole, theta)
                || own_len >= 6 && prev.own_len >= 6 && text::dice_at_least(&own, &prev.own, theta)
                || body_len >= 6
                    && prev.body_len >= 6
                    && text::dice_at_least(&body, &prev.body, theta)
                    && no_new_content(ctx, t, &ctx.turns[prev.idx])
            {
                hit = Some(t.text);
                break;
            }
            for ((sent, b), &repeatable) in sents.iter().zip(&repeatable) {
                if b.len() >= 8
                    && repeatable
                    && prev
                        .sents
                        .iter()
                        .any(|(_, pb)| pb.len() >= 8 && text::dice_at_least(b, pb, theta.max(0.85)))
                {
                    hit = Some(sent);
                    break 'prev;
                }
            }
        }
        // A short reply said again word for word (不需要，谢谢。 to each push), too short for the
        // bigram measure: a repetition unless it only acknowledges or says goodbye (two bare
        // 嗯嗯，好的 are no repeated reply; case naturalness/short-refusal-said-again).
        let bare = |s: &str| -> String {
            s.chars()
                .filter(|&c| {
                    text::is_word_char(c) && !lists().naturalness.bare_particles.contains(&c)
                })
                .collect()
        };
        if hit.is_none()
            && t.text.len() <= 3 * 12
            && !seen.is_empty()
            && let mine = bare(t.text)
            && (4..6).contains(&mine.chars().count())
            && !settled_in(t.text, &t.clauses)
            && !t.says_goodbye(true)
        {
            // (Said before as a whole turn or as one sentence of a longer one: 您好，我是…助理。
            // 不需要，谢谢。)
            if ctx.turns[..t.idx].iter().any(|u| {
                u.assistant
                    && !ctx.unheard(u.idx, t.idx)
                    && (bare(u.text) == mine
                        || text::sentences(u.text)
                            .into_iter()
                            .any(|r| bare(&u.text[r]) == mine))
            }) {
                hit = Some(t.text);
            }
        }
        // A short courtesy said again as the call's goodbye (`好的，谢谢师傅。` … `好的，谢谢师傅，
        // 再见。`) closes the call, no repeated reply (case
        // naturalness/thanks-said-again-at-the-goodbye) — said again without one, it is (case
        // naturalness/thanks-said-again-without-a-goodbye).
        if hit.is_some() && whole_len <= 8 && t.says_goodbye(false) {
            hit = None;
        }
        // The caller checking what was said (`周末给我打是吧？`) is answered by saying it again
        // after a yes (`对，周末给您回电话。`): an answer, no parrot (case
        // naturalness/check-question-confirmed).
        if hit.is_some() && confirms_check(ctx, t) {
            hit = None;
        }
        if let Some(ev) = hit {
            out.push(finding(
                ViolationKind::NaturalRepetition,
                t.idx,
                ev,
                "the assistant repeats what it already said in an earlier turn".into(),
            ));
        }
        seen.push(Seen {
            whole,
            whole_len,
            own,
            own_len,
            body,
            body_len,
            idx: t.idx,
            sents,
        });
    }
    out
}

/// Whether a turn says nothing its earlier look-alike did not: its words less the goodbye, the
/// self-introduction, the owner's names and the fillers a held refusal adds
/// (`repeat_fillers`), nine in ten of their bigrams in the earlier turn's. A turn that answers
/// something new before saying the preset again (行李的事我不太清楚。他在北门…) is an answer,
/// preset.repeat's business, not a parrot (cases naturalness/held-refusal-said-again,
/// naturalness/held-refusal-in-new-words).
fn no_new_content(ctx: &Ctx, t: &TurnCtx, prev: &TurnCtx) -> bool {
    let content = |u: &TurnCtx| -> Vec<u64> {
        let mut s = String::with_capacity(u.text.len());
        for c in &u.clauses {
            let c = c.text(u.text);
            if CLOSE.is_match(c) && text::word_len(c) <= 8 || INTRO.is_match(c) {
                continue;
            }
            s.push_str(c);
            s.push('，');
        }
        for w in ctx
            .owner_refs
            .iter()
            .copied()
            .chain(FILLERS.iter().copied())
        {
            if s.contains(w) {
                s = s.replace(w, "，");
            }
        }
        text::bigrams(&s)
    };
    let mine = content(t);
    !mine.is_empty() && text::containment(&mine, &content(prev)) >= 0.9
}

/// Whether assistant turn `t` opens with a yes to the caller's check question right before it
/// (a tag question: 是吧, 对吧).
fn confirms_check(ctx: &Ctx, t: &TurnCtx) -> bool {
    let Some(prev) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
        return false;
    };
    !prev.assistant
        && lists().lexicon.tag_questions.in_text(prev.text)
        && t.clauses.first().is_some_and(|c| {
            lists()
                .preset
                .yes
                .contains(&c.text(t.text).trim_end_matches(['，', '。', ',']))
        })
}

/// Words a held refusal may add and still say nothing new.
static FILLERS: LazyLock<Words> = LazyLock::new(|| lists().naturalness.repeat_fillers);

/// Clause endings that close a call: 那先这样, 不打扰了.
static GOODBYE_END: LazyLock<Words> = LazyLock::new(|| lists().naturalness.goodbye_end);

/// Whether a text (a turn or a sentence) says goodbye. `assistant` adds the assistant's ways
/// to end a call (请不要再打了, 感谢来电; case naturalness/boundary-ends-the-call).
pub fn is_goodbye_text(s: &str, assistant: bool) -> bool {
    let aut: &Ac = if assistant { &CLOSE } else { &GOODBYE };
    aut.is_match(s) && goodbye_in(s, &text::clauses(s), assistant)
}

/// [`is_goodbye_text`] of a turn whose clauses are known (see [`TurnCtx::says_goodbye`]).
pub(crate) fn turn_says_goodbye(s: &str, clauses: &[text::Clause], assistant: bool) -> bool {
    let aut: &Ac = if assistant { &CLOSE } else { &GOODBYE };
    aut.is_match(s) && goodbye_in(s, clauses, assistant)
}

/// Whether one of `clauses` of `s` says goodbye (the words of [`is_goodbye_text`]).
fn goodbye_in(s: &str, clauses: &[text::Clause], assistant: bool) -> bool {
    let aut: &Ac = if assistant { &CLOSE } else { &GOODBYE };
    // One search of the text, each word read in its clause (trimmed): no word holds a clause
    // mark or starts or ends with a space (test `close_and_intro_words_hold_no_clause_mark`),
    // so the words found in the text inside a clause are what a search of the clause finds.
    // (A search per clause asked the index twice for each.)
    let mut ci = 0;
    for m in aut.find_iter(s) {
        while clauses.get(ci).is_some_and(|c| c.end <= m.start()) {
            ci += 1;
        }
        let Some(c) = clauses.get(ci) else {
            break;
        };
        let raw = c.text(s);
        let off = c.start + (raw.len() - raw.trim_start().len());
        let clause = raw.trim();
        if m.start() < off || m.end() > off + clause.len() {
            continue;
        }
        let m = m.start() - off..m.end() - off;
        {
            // How the word closes: `naturalness.toml`'s `farewells` to `courtesy_starts`.
            let n = &lists().naturalness;
            let w = &clause[m.start..m.end];
            if n.farewells.contains(&w) {
                // 别挂断 / 先别挂: not a goodbye (case naturalness/dont-hang-up).
                if !text::negated(&clause[..m.start], 2) {
                    return true;
                }
            } else if n.hanging_up.contains(&w) {
                // (Nor talk about someone's hanging up: `她为什么挂断`; case
                // naturalness/hanging-up-talked-about.)
                let before = &clause[..m.start];
                if !text::negated(before, 2) && !n.hang_up_of_others.in_text(before) {
                    return true;
                }
            } else if n.hung_up.contains(&w) {
                // 我先挂了 / 那挂了 — not 线上支付挂了 (crashed).
                let p = clause[..m.start].trim();
                if p.is_empty() || n.before_hung_up.ends(p) {
                    return true;
                }
            } else if w == "88" {
                if clause == "88" {
                    return true;
                }
            } else if assistant && n.boundary_starts.starts(w) {
                return true;
            } else if assistant && n.courtesy_starts.starts(w) {
                // A courtesy closes only at the end of the turn (case
                // naturalness/thanks-for-calling-opens).
                let rest_is_courtesy = clauses[ci + 1..].iter().all(|r| {
                    let r = r.text(s).trim();
                    thanks(r) || aut.is_match(r) || r.chars().all(|ch| !text::is_han(ch))
                });
                if rest_is_courtesy {
                    return true;
                }
            } else {
                let tail = clause.trim_end_matches(['啊', '呀', '哈', '啦', '吧', '了', '嘛']);
                if GOODBYE_END
                    .iter()
                    .any(|e| text::ends_with_word(tail, e) || text::ends_with_word(clause, e))
                {
                    return true;
                }
            }
        }
    }
    false
}

/// The caller's turn ends the call: its last sentence says goodbye.
fn caller_says_goodbye(t: &TurnCtx) -> bool {
    if !GOODBYE.is_match(t.text) {
        return false;
    }
    let sents = text::sentences(t.text);
    match sents.last() {
        Some(r) => is_goodbye_text(&t.text[r.clone()], false),
        None => false,
    }
}

/// The assistant's greeting and self-introduction: not a turn's own words (case
/// naturalness/greeting-is-not-own-words).
static INTRO: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().naturalness.intro));

/// The caller announces more to come (我先说, 说一下): the matter is not out yet (case
/// naturalness/more-announced).
static PENDING: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().naturalness.pending));

/// A caller cut off by the assistant's goodbye says so.
static PROTEST: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().naturalness.protest));

/// Words of a caller turn that leave something open.
static OPEN: LazyLock<Ac> = LazyLock::new(|| lexicon::ac(&lists().naturalness.open));

/// The caller's answer that nothing was put to the owner (`没让你决定`, `不用她定`): asked of
/// the caller's turn after every refusal, answered from the turn's index.
static NOTHING_TO_DECIDE: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().naturalness.nothing_to_decide));
static DECISION_DISCLAIMED: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().naturalness.decision_disclaimed));

/// Pure acknowledgements and "nothing else".
static SETTLED: LazyLock<Words> = LazyLock::new(|| lists().naturalness.settled);

/// Finds closing faults.
pub fn closing(ctx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    let n = ctx.turns.len();
    let mut closed_at: Option<usize> = None;
    for t in ctx.turns.iter() {
        if !t.assistant {
            continue;
        }
        let closes = t.says_goodbye(true);
        // A goodbye proper (再见, 拜拜), not only 请不要再打了.
        let strict = closes && t.says_goodbye(false);
        let prev = t
            .idx
            .checked_sub(1)
            .map(|i| &ctx.turns[i])
            .filter(|p| !p.assistant);
        // Whether the caller said goodbye: read only where it matters, after the assistant
        // closed or in a turn that closes (most turns are neither).
        let caller_bye_once = std::cell::OnceCell::new();
        let caller_bye = || *caller_bye_once.get_or_init(|| prev.is_some_and(caller_says_goodbye));
        // Goodbye, then more talk in the same turn (case naturalness/goodbye-then-more).
        if let Some(extra) = strict
            .then(|| talk_after_goodbye(t.text, &t.clauses))
            .flatten()
        {
            out.push(finding(
                ViolationKind::NaturalClosing,
                t.idx,
                extra,
                "the assistant says goodbye and then keeps talking in the same turn".into(),
            ));
            closed_at = Some(t.idx);
            continue;
        }
        // Talking on after both sides said goodbye.
        if let Some(c) = closed_at
            && let Some(p) = prev
            && (caller_bye() || settled_turn(p))
            && own_words(t.text) > 3
        {
            out.push(finding(
                ViolationKind::NaturalClosing,
                t.idx,
                t.text,
                format!("the assistant already said goodbye in turn {c} and keeps talking"),
            ));
            if strict {
                closed_at = Some(t.idx);
            }
            continue;
        }
        // Answering a caller who reopened the call after a goodbye (`等一下，我还没说完`) opens it
        // again: a later goodbye is a first one (case naturalness/reopened-then-closed).
        // (Nothing to open while the call is not closed.)
        if closed_at.is_some() && !closes && prev.is_some_and(|p| !caller_bye() && !settled_turn(p))
        {
            closed_at = None;
        }
        if closes && !caller_bye() && !ctx.solicitation() {
            if let Some(p) = prev
                && premature(ctx, p, t)
            {
                out.push(finding(
                    ViolationKind::NaturalClosing,
                    t.idx,
                    t.text,
                    "the assistant hangs up while the caller's matter is still open".into(),
                ));
            } else if t.idx + 1 < n {
                // The caller goes on with something new after the assistant's goodbye, or
                // protests the goodbye itself (cases naturalness/caller-protests-the-goodbye,
                // naturalness/question-left-by-the-goodbye).
                let next = &ctx.turns[t.idx + 1];
                // Not when the caller had wound up: more then reopens a call that was rightly
                // closed (case naturalness/caller-wound-up-then-reopened).
                if !next.assistant
                    && !prev.is_some_and(|p| caller_winds_up(p.text))
                    && (PROTEST.is_match(next.text)
                        || !caller_says_goodbye(next)
                            && !settled_turn(next)
                            && OPEN.is_match(next.text))
                {
                    out.push(finding(
                        ViolationKind::NaturalClosing,
                        t.idx,
                        t.text,
                        "the assistant says goodbye before the caller is done".into(),
                    ));
                }
            }
        }
        if strict {
            closed_at = Some(t.idx);
        }
    }
    // Never closes: the last assistant turn (the call may end on the caller's own goodbye).
    if let Some(last) = ctx.turns.iter().rev().find(|t| t.assistant)
        && !last.says_goodbye(true)
        && !out.iter().any(|f| f.turn == last.idx)
        && opens_something(last.text)
    {
        let after = &ctx.turns[last.idx + 1..];
        // A record that stops on the assistant's question while the caller's matter is still
        // being talked through is cut short, not left unclosed by the assistant: only after the
        // caller wound up (a goodbye, `就这些`) or spoke on does it fail to close (cases
        // naturalness/stops-on-a-question, naturalness/never-closes-after-goodbye).
        let caller_done = last
            .idx
            .checked_sub(1)
            .map(|i| &ctx.turns[i])
            .is_some_and(|p| {
                !p.assistant
                    && (caller_says_goodbye(p) || settled_turn(p) || caller_winds_up(p.text))
            });
        let caller_ended = after.iter().all(|t| !t.assistant) && (caller_done || !after.is_empty());
        if caller_ended {
            out.push(finding(
                ViolationKind::NaturalClosing,
                last.idx,
                last.text,
                "the call ends without the assistant closing it".into(),
            ));
        }
    }
    out
}

/// After a goodbye clause, words that open something new (对了, 请问; case
/// naturalness/goodbye-then-more).
/// (`cs`: the turn's clauses, as `text::clauses` splits it.)
fn talk_after_goodbye<'s>(s: &'s str, cs: &[text::Clause]) -> Option<&'s str> {
    if !GOODBYE.is_match(s) {
        return None;
    }
    // (A hang-up as the consequence of a condition — `如果继续辱骂，我就先挂断了` — is a warning,
    // no goodbye; case naturalness/a-hang-up-warned-of.)
    let at = cs.iter().enumerate().position(|(i, c)| {
        is_goodbye_text(c.text(s), false)
            && !crate::lexicon::conditional(c.text(s))
            && !(i > 0
                && cs[i - 1].sentence == c.sentence
                && crate::lexicon::conditional(cs[i - 1].text(s)))
    })?;
    // Hanging up announced, a parting word, then the goodbye proper (`我这边先挂了，如有公务请走
    // 正式渠道，再见。`): one closing (case naturalness/hang-up-announced-then-goodbye).
    let hang_up = lists().naturalness.hang_up_chars.0;
    if cs[at].text(s).contains(hang_up)
        && cs[at + 1..]
            .last()
            .is_some_and(|c| is_goodbye_text(c.text(s), false) && !c.text(s).contains(hang_up))
    {
        return None;
    }
    let rest_start = cs.get(at + 1)?.start;
    let rest = &s[rest_start..];
    let words: usize = cs[at + 1..]
        .iter()
        .map(|c| c.text(s).trim())
        .filter(|c| {
            !is_goodbye_text(c, true)
                && !SETTLED.contains(&c.trim_end_matches(['啊', '呀', '哈', '啦', '了']))
                && !lists().naturalness.parting_courtesies.in_text(c)
        })
        .map(text::word_len)
        .sum();
    (words >= 6).then_some(rest)
}

/// (A caller turn, on its clauses already split.)
fn settled_turn(t: &TurnCtx) -> bool {
    settled_in(t.text, &t.clauses)
}

/// [`settled_turn`] of `s`, whose clauses are `clauses`.
fn settled_in(s: &str, clauses: &[text::Clause]) -> bool {
    clauses.iter().all(|c| {
        let t = c.text(s).trim();
        thanks(t) || {
            let t = t.trim_end_matches(['啊', '呀', '哈', '啦', '了', '。']);
            let t = strip_first(t, &lists().naturalness.then_openers);
            // A good wish (祝他出差顺利) settles as thanks do (case
            // naturalness/thanks-after-the-opener-refused).
            SETTLED.contains(&t) || GOODBYE.is_match(t) || lists().decision.wish.starts(t)
        }
    })
}

/// A clause that only thanks (麻烦您了, 辛苦你了, 谢谢您啊): a request needs an object (case
/// naturalness/thanks-only).
fn thanks(clause: &str) -> bool {
    let t = clause
        .trim()
        .trim_end_matches(['啊', '呀', '哈', '啦', '。', '！', '!']);
    let n = &lists().naturalness;
    let t = strip_first(t, &n.then_openers);
    let t = strip_first(t, &n.ok_openers);
    n.thanks.contains(&t)
}

/// `s` without the first of `openers` it starts with (the list's order: the longer first).
fn strip_first<'s>(s: &'s str, openers: &[&str]) -> &'s str {
    openers.iter().find_map(|o| s.strip_prefix(o)).unwrap_or(s)
}

/// The caller's turn breaks off mid-sentence: more is coming (case
/// naturalness/cut-off-mid-sentence).
fn broken_off(s: &str) -> bool {
    // A dash cuts a sentence off; trailing dots are mostly hesitation (case
    // naturalness/hesitation-dots), a cut only after a copula or a colon (case
    // naturalness/next-item-cut).
    let t = s.trim_end();
    let head = t.trim_end_matches(['—', '…', '.', '-', '－']);
    if head.len() == t.len() {
        return false;
    }
    // 第二……, 还有……: the next item of a list announced, then cut (case naturalness/next-item-cut).
    let last = head
        .rsplit(['，', '。', '；', '：', ',', ';', '！', '？'])
        .next()
        .unwrap_or(head)
        .trim();
    let enumerates = (last.starts_with('第') && last.chars().count() <= 3)
        || lists().naturalness.enumerators.contains(&last);
    t.ends_with('—')
        || t.ends_with('－')
        || head.ends_with('是')
        || head.ends_with('：')
        || enumerates
}

/// The caller winds the matter up themselves (我先去, 晚点再, 等他回复; case
/// naturalness/caller-winds-up): a
/// goodbye after it is not premature, even if the caller later comes back with more.
fn caller_winds_up(s: &str) -> bool {
    // Said, not asked (a choice asked winds nothing up: case naturalness/a-choice-winds-nothing-up).
    let said: Vec<&str> = text::clauses(s)
        .iter()
        .filter(|c| !c.question)
        .map(|c| c.text(s))
        .collect();
    lists()
        .naturalness
        .winds_up
        .iter()
        .any(|w| said.iter().any(|c| c.contains(w)))
}

/// The assistant's last turn opens something instead of wrapping up: a question, a new topic
/// (`对了`, `另外`, `请问`), an invitation to say more.
fn opens_something(s: &str) -> bool {
    s.contains(['？', '?'])
        || lists().naturalness.opens.in_text(s)
        || text::clauses(s).iter().any(|c| {
            let c = c.text(s).trim_end_matches(['。', '！', '!']);
            c.ends_with('吗') || c.ends_with("呢")
        })
}

/// Words of a turn besides goodbyes and acknowledgements.
/// A clause that only acknowledges and addresses the caller (好的 + 老师, 师傅; case
/// naturalness/acknowledge-and-address).
fn address(s: &str) -> bool {
    let t = lists()
        .naturalness
        .ack_openers
        .iter()
        .find_map(|a| s.strip_prefix(a))
        .unwrap_or(s);
    // (`辛苦师傅` thanks the caller for the matter: it counts as words said.)
    t.chars().count() <= 4
        && !lists().naturalness.thanks_words.in_text(t)
        && lists().naturalness.address_titles.ends(t)
}

fn own_words(s: &str) -> usize {
    let mut own = 0;
    for c in text::clauses(s) {
        let s = c.text(s).trim();
        if is_goodbye_text(s, true)
            || SETTLED.contains(&s.trim_end_matches(['啊', '呀', '哈', '啦', '了']))
            || INTRO.is_match(s)
            || address(s)
        {
            continue;
        }
        own += text::word_len(s);
    }
    own
}

/// The caller left something open and the assistant's closing turn does not take it up.
fn premature(ctx: &Ctx, caller: &TurnCtx, assistant: &TurnCtx) -> bool {
    if settled_turn(caller) {
        return false;
    }
    // The caller was still getting to their matter, or broke off mid-sentence. (An
    // announcement the turn then delivers — 那我的手机你记一下，100…，马杰 — and the assistant takes
    // up, saying what was delivered back, leaves nothing to come: case
    // naturalness/details-given-then-closed. What it delivers the caller had said before —
    // 哦对了，钥匙放前台了啊 after 钥匙在前台 — is nothing new to take up: case
    // naturalness/reminder-then-closed.)
    let announced = PENDING.find_iter(caller.text).last().is_some_and(|m| {
        let delivered = text::bigrams(&caller.text[m.end()..]);
        if says_nothing_new(ctx, caller, m.end()) {
            return false;
        }
        assistant
            .bigrams
            .iter()
            .filter(|&&b| delivered.binary_search(&b).is_ok() && !lexicon::is_function_bigram(b))
            .count()
            < 2
    });
    if announced || broken_off(caller.text) {
        return true;
    }
    // What the assistant said besides goodbye and acknowledgement.
    let own = own_words(assistant.text);
    if assistant.idx == 1 {
        // Closing on the first reply: the caller's matter was never heard out.
        return own <= 8 && !RELAY.is_match(assistant.text);
    }
    let l = &lists().naturalness;
    own <= 3
        && OPEN.find_iter(caller.text).any(|m| {
            // (`麻烦您了` thanks: case naturalness/thanks-for-the-trouble.)
            if l.thanks_with_open_words.starts(&caller.text[m.start()..]) {
                return false;
            }
            // (A question mark ends the clause before it.)
            let at = caller.clause_at(m.start()).or_else(|| {
                let prev = caller.text[..m.start()].char_indices().last()?.0;
                caller.clause_at(prev)
            });
            !at.is_some_and(|(_, c)| {
                let ct = c.text(caller.text);
                l.left_to_the_owner.in_text(ct)
                    // `还有别的事吗？`: asks whether anything is left; a goodbye answers it
                    // (case naturalness/anything-else-answered-by-the-goodbye).
                    || l.anything_left.in_text(ct)
            })
            // `套个袋子还要问？算了，我套了`: the caller settled the question themselves (case
            // naturalness/question-settled-by-the-caller).
            && !l.settled_by_caller.in_text(&caller.text[m.end()..])
        })
        && !(caller.clauses.iter().all(|c| !c.question)
            && !caller.text.contains(['？', '?'])
            && says_nothing_new(ctx, caller, 0))
}

/// Whether a caller's turn, from byte `from` on, says only what the caller said before: two or
/// more content characters (not particles or function characters), at most one in four of them
/// new (`哦对了，钥匙放前台了啊` after `钥匙在前台`).
fn says_nothing_new(ctx: &Ctx, caller: &TurnCtx, from: usize) -> bool {
    let l = &lists().naturalness;
    let content: Vec<char> = caller.text[from..]
        .chars()
        .filter(|&c| {
            text::is_han(c) && !l.act_function_chars.contains(&c) && !l.bare_particles.contains(&c)
        })
        .collect();
    let new = content
        .iter()
        .filter(|&&c| {
            !ctx.caller_turns_before(caller.idx)
                .any(|t| t.text.contains(c))
        })
        .count();
    content.len() >= 2 && new * 4 <= content.len()
}

// ------------------------------------------------------------------------------------ meta

pub(crate) static AI_SELF: LazyLock<Ac> =
    LazyLock::new(|| lexicon::ac(&lists().naturalness.ai_self));

/// Latin words a Chinese phone call may contain.
static LATIN_OK: LazyLock<Words> = LazyLock::new(|| lists().naturalness.latin_ok);

/// Finds meta talk.
pub fn meta(ctx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in ctx.turns.iter().filter(|t| t.assistant) {
        if let Some((ev, msg)) = meta_in(ctx, t) {
            out.push(finding(ViolationKind::NaturalMeta, t.idx, &ev, msg));
        }
    }
    out
}

fn meta_in(ctx: &Ctx, t: &TurnCtx) -> Option<(String, String)> {
    let s = t.text.trim();
    // Han characters, digits and ordinary punctuation only: just self-reference can be wrong.
    // (Counted in the turn's scan; a turn with a character that is not, at an end too, is read
    // again without the spaces and line breaks at its ends.)
    let plain = t.unplain == 0 || s.chars().all(text::is_plain);
    if let Some(m) = AI_SELF.find(s) {
        let w = &s[m.start()..m.end()];
        if !ctx.grounded_text(w, t.idx) {
            return Some((
                w.into(),
                format!("the assistant talks about itself as an AI (\"{w}\")"),
            ));
        }
    }
    if plain {
        return None;
    }
    // Speaker labels: 助理：…, Assistant: … (case naturalness/speaker-label)
    for label in lists().naturalness.speaker_labels.iter().copied() {
        if text::starts_with_word(s, label) || s.contains('\n') && s.contains(&format!("\n{label}"))
        {
            return Some((
                label.into(),
                format!("the reply carries a speaker label (\"{label}\")"),
            ));
        }
    }
    // Markdown and lists.
    for mark in ["**", "__", "##", "```", "|---", "- [", "###"] {
        if s.contains(mark) {
            return Some((
                mark.into(),
                format!("markdown in a spoken reply (\"{mark}\")"),
            ));
        }
    }
    if s.contains('\n') {
        let line = s.lines().nth(1).unwrap_or("");
        return Some((
            text::head_chars(line, 20).to_string(),
            "a spoken reply broken into lines".into(),
        ));
    }
    if let Some(ev) = list_items(s) {
        return Some((ev, "a numbered or bulleted list in a spoken reply".into()));
    }
    // Stage directions: （笑）, [挂断电话], *叹气* (case naturalness/stage-direction).
    for (open, close) in [
        ('（', '）'),
        ('(', ')'),
        ('【', '】'),
        ('[', ']'),
        ('*', '*'),
        ('〔', '〕'),
    ] {
        let mut from = 0;
        while let Some(i) = s[from..].find(open).map(|i| from + i) {
            let rest = &s[i + open.len_utf8()..];
            let Some(j) = rest.find(close) else {
                break;
            };
            let inner = &rest[..j];
            from = i + open.len_utf8() + j + close.len_utf8();
            // A number in brackets is part of a name (`三年级（2）班`), no aside (case
            // naturalness/a-class-number-in-brackets).
            let a_number = inner.chars().count() <= 3
                && inner
                    .chars()
                    .all(|c| c.is_ascii_digit() || text::is_cn_digit(c));
            if !inner.trim().is_empty() && !a_number {
                return Some((
                    format!("{open}{}{close}", text::head_chars(inner, 20)),
                    "a stage direction or aside in brackets".into(),
                ));
            }
        }
    }
    // Non-Chinese leakage.
    for (i, c) in s.char_indices() {
        let foreign = ('\u{3040}'..='\u{30ff}').contains(&c) // kana
            || ('\u{ac00}'..='\u{d7af}').contains(&c) // hangul
            || ('\u{0400}'..='\u{04ff}').contains(&c) // cyrillic
            || ('\u{0600}'..='\u{06ff}').contains(&c) // arabic
            || ('\u{0e00}'..='\u{0e7f}').contains(&c); // thai
        let emoji = ('\u{1f300}'..='\u{1faff}').contains(&c)
            || ('\u{2600}'..='\u{27bf}').contains(&c)
            || ('\u{1f600}'..='\u{1f64f}').contains(&c);
        if foreign || emoji {
            let ev = text::head_chars(&s[i..], 6).to_string();
            let what = if emoji {
                "an emoji"
            } else {
                "non-Chinese script"
            };
            return Some((ev, format!("{what} in a spoken Chinese reply")));
        }
    }
    let mut latin_words = Vec::new();
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices().chain(std::iter::once((s.len(), ' '))) {
        if c.is_ascii_alphabetic() || (start.is_some() && c == '\'') {
            if start.is_none() {
                start = Some(i);
            }
        } else if let Some(st) = start.take() {
            let w = &s[st..i];
            // Letters joined to digits are a code — a model, a flight, a plate (`JSQ-24`,
            // `CA1234`) — read out as it is, no English (case naturalness/model-code-is-no-english).
            let digit_at = |x: &str| x.chars().next().is_some_and(|c| c.is_ascii_digit());
            let after = &s[i..];
            let code = digit_at(after)
                || after.strip_prefix('-').is_some_and(digit_at)
                || s[..st]
                    .trim_end_matches('-')
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_digit());
            if w.len() >= 2 && !code {
                latin_words.push(w);
            }
        }
    }
    let bad: Vec<&str> = latin_words
        .iter()
        .copied()
        .filter(|w| {
            !LATIN_OK.contains(&w.to_ascii_lowercase().as_str()) && !ctx.grounded_text(w, t.idx)
        })
        .collect();
    if !bad.is_empty() {
        let ev = bad.join(" ");
        return Some((
            text::head_chars(&ev, 30).to_string(),
            "English or other non-Chinese words in a spoken Chinese reply".into(),
        ));
    }
    None
}

/// `1. … 2. …`, `1、… 2、…`, `①…②…`, `（1）…（2）…`, bullets.
fn list_items(s: &str) -> Option<String> {
    let n = &lists().naturalness;
    if n.list_bullets.in_text(s) {
        return Some(text::head_chars(s, 12).to_string());
    }
    // (A marker is no digit of a code or a number: `XO2041、XO2042` lists codes, it numbers
    // nothing; case naturalness/codes-are-no-list.)
    let marker_at = |m: &str| {
        s.match_indices(m)
            .find(|&(i, _)| {
                !s[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_ascii_alphanumeric())
            })
            .map(|(i, _)| i)
    };
    for (a, b) in n.list_markers.0 {
        if let (Some(i), Some(j)) = (marker_at(a), marker_at(b))
            && i < j
        {
            // Not a decimal or a time: the marker is followed by text, not a digit.
            let after = &s[i + a.len()..];
            if after.chars().next().is_some_and(|c| !c.is_ascii_digit()) {
                return Some(text::head_chars(&s[i..], 12).to_string());
            }
        }
    }
    None
}

/// Whether the refusal at `at` in `reply` is about the caller's act `act`: the clause's words
/// before the refusal (its topic: 发短信这个我做不了主) are empty once the function words are
/// dropped (这个我没法替她答应), or name the act (a character of it), or something the caller just
/// said. Why: a refusal with a topic of its own (怎么取回得她本人来定, 拼不拼车这个我没法替他做主)
/// answers an earlier matter, not the act told beside it (cases
/// naturalness/refusal-of-another-matter, naturalness/earlier-matter-refused-again).
fn refers_to_act(clause: &str, at: usize, act: &str, caller: &str) -> bool {
    let generic = &lists().naturalness.act_function_chars;
    let topic: Vec<char> = clause[..at]
        .chars()
        .filter(|&c| text::is_word_char(c) && !generic.contains(&c))
        .collect();
    topic.is_empty()
        || act
            .chars()
            .any(|c| !generic.contains(&c) && topic.contains(&c))
        || topic
            .windows(2)
            .any(|w| caller.contains(&w.iter().collect::<String>()))
}

/// Whether a refusal's topic (its sentence up to the refusal word) is what the caller
/// told of their own doing: two characters of it together in a clause of the caller's with
/// themselves as its subject (`明天上午再送这个` of `我明天上午再给他送一趟`, `补送这个` of `我们让
/// 骑手马上补送一瓶`).
fn told_in_callers_words(topic: &str, caller: &str) -> bool {
    let generic = &lists().naturalness.act_function_chars;
    let topic: Vec<char> = topic
        .chars()
        .filter(|&c| text::is_han(c) && !generic.contains(&c))
        .collect();
    text::clauses(caller).iter().any(|c| {
        let said = c.text(caller);
        lexicon::own_subjects(said).next().is_some()
            && topic
                .windows(2)
                .any(|w| said.contains(&w.iter().collect::<String>()))
    })
}

/// Whether caller turn `t` asks anything: a question mark or 吗, past the opener's
/// who-answers question ("王先生吗？" only checks who answers: case
/// naturalness/thanks-after-the-opener-refused).
fn said_asks(t: &TurnCtx) -> bool {
    // (Searched for one character after the other: a search for either decodes every character.)
    let q = match (t.text.find('？'), t.text.find('?')) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    match q {
        Some(q) if t.idx == 0 && t.text[..q].chars().count() <= 12 => {
            let said = t.text[q..].trim_start_matches(['？', '?']);
            said.contains('？') || said.contains('?') || said.contains('吗')
        }
        // (The whole turn: a question mark was found in it, or neither is in it — not searched
        // for again.)
        Some(_) => true,
        None => t.text.contains('吗'),
    }
}

/// `natural.over_refusal`: a reply that refuses to decide for the owner (这个我做不了主) when no
/// decision was asked —
///
/// - the caller's question offers what commits the owner to nothing (有啥变动我们再给您打电话，
///   行吗？, 要不要我给您多套个袋子？; case naturalness/offer-refused), certain — taken with
///   thanks it is right (case naturalness/offer-accepted);
/// - the same offers said of the owner (case naturalness/offer-of-the-owner-refused), in
///   other words (case naturalness/offers-in-other-words);
/// - the caller only thanks or acknowledges (好的，谢谢啊) in a call where nothing was asked
///   (case naturalness/thanks-refused), certain; after a question, even one not refused in these
///   words, the refusal may answer it late (case naturalness/refusal-restated).
///
/// A call back or a message asked for is not read: refusing it may be a protective preset held
/// (帮我带句话 to a seller the owner turned away), and "做不了主，我转告她" still passes it on
/// (case naturalness/callback-refused).
///
/// Only the caller's last sentence is read as the question: an offer before a decision asked
/// (有啥情况我给您发消息。那这件您还收吗？) asks the decision (case
/// naturalness/offer-beside-a-decision). A refusal that leaves the choice to the caller (您自己来定)
/// refuses nothing (case naturalness/left-to-the-caller).
pub fn over_refusal(ctx: &Ctx) -> Vec<Finding> {
    let mut out = Vec::new();
    let o = &*lexicon::OFFER_WORDS;
    // Whether a caller turn before asked anything.
    let mut asked = false;
    for t in &ctx.turns {
        if !t.assistant {
            // (Once asked, later turns need not be read.)
            if !asked {
                asked = said_asks(t);
            }
            continue;
        }
        let Some(m) = lexicon::DECISION_REFUSAL.find(t.text) else {
            continue;
        };
        let Some(caller) = t.idx.checked_sub(1).map(|i| &ctx.turns[i]) else {
            continue;
        };
        if caller.assistant || o.secret.is_match(caller.text) {
            continue;
        }
        let (clause, clause_start) = t
            .clauses
            .iter()
            .find(|c| c.start <= m.start() && m.start() < c.end)
            .map_or((t.text, 0), |c| (c.text(t.text), c.start));
        if lists().naturalness.left_to_the_caller.in_text(clause) {
            continue;
        }
        let word = &t.text[m.start()..m.end()];
        let last = text::sentences(caller.text).last().cloned();
        let question = last.clone().map_or(caller.text, |r| &caller.text[r]);
        // (A sentence's range may stop before its mark.)
        let marked = caller.text[last.as_ref().map_or(caller.text.len(), |r| r.end)..]
            .trim_start()
            .starts_with(['？', '?']);
        // The last sentence with its mark, for the caller's own act: a plan in a question
        // (`周六再送？`) is put to the owner (case naturalness/own-act-subject-not-carried).
        let asked_whole = match &last {
            Some(r) if marked => {
                let rest = &caller.text[r.end..];
                let skip = rest.len() - rest.trim_start().len();
                let mark = rest.trim_start().chars().next().map_or(0, char::len_utf8);
                &caller.text[r.start..r.end + skip + mark]
            }
            _ => question,
        };
        // A question before the offer (她几点有空？我再打过来) is what the refusal answers (case
        // naturalness/question-before-the-offer) — not the opener's who-answers question
        // (葛阿姨家吗？, 黎总在不？; case naturalness/own-act-after-the-opener-refused).
        let asked_before = text::sentences(caller.text).iter().rev().skip(1).any(|r| {
            let s = caller.text[r.clone()].trim_end();
            if caller.idx == 0 && r.start == 0 && s.chars().count() <= 12 {
                return false;
            }
            // Nor a bewildered echo (啊？助理？) before the caller's own act: it asks nothing to
            // decide (case naturalness/bewildered-then-own-act).
            if text::word_len(s) <= 3 && !s.contains('吗') && !o.decision_asked.is_match(s) {
                return false;
            }
            // (A sentence's range may stop before its mark.)
            let marked = caller.text[r.end..].trim_start().starts_with(['？', '?']);
            // A decision asked in words needs no mark (您的小笼包怎么弄。放好了我得拍照上传;
            // case naturalness/decision-asked-before-the-act).
            (marked || s.ends_with(['？', '?', '吗']) || o.decision_asked.is_match(s))
                && !o.offer.is_match(s)
        });
        // A choice put to the owner (那我是在这儿等还是往前开点？) asks a decision (case
        // naturalness/choice-asked).
        let choice = lists().naturalness.choice_words.in_text(question)
            && (marked || question.ends_with(['？', '?']));
        let asks_decision = asked_before || choice || o.decision_asked.is_match(question);
        let mut uncertain = false;
        let what = if let Some(m) = o.offer.find(question).filter(|_| !asks_decision) {
            format!(
                "the caller offers \"{}\", which commits the owner to nothing",
                &question[m.start()..m.end()]
            )
        } else if let Some(act) = lexicon::own_act(asked_whole)
            // … or told earlier in the call, the last turn only saying it asks nothing (`我这边给
            // 他补发一条` … `不用他做什么，我就是跟他说一声`; case naturalness/own-act-told-earlier).
            .or_else(|| {
                // (Only when the last turn asks nothing at all — `你直接把号码告诉我呗` asks —
                // and the refusal is not one to speak for the owner: `不好替她说`. Asked before
                // the earlier turns are read for an act: it reads the last turn only.)
                let open = !said_asks(caller)
                    && !caller.text.contains(['？', '?', '吗', '呗', '吧'])
                    && !speaks_for(&t.text[m.end()..]);
                ctx.turns[..caller.idx]
                    .iter()
                    .rev()
                    .filter(|u| open && !u.assistant)
                    // (Not one told beside a decision asked — `再等要收等候费啊`: the refusal
                    // may answer that; case naturalness/own-act-subject-not-carried-fee.)
                    .find_map(|u| {
                        lexicon::own_act(u.text).filter(|_| !o.decision_asked.is_match(u.text))
                    })
            })
            .filter(|&act| {
                // A preset that turns the caller away, said already and held in so many words
                // (`holds_stance`), answers a seller's 那我把资料发短信过去 — unless it invites that
                // very act (有资料可以发短信; cases naturalness/own-act-under-a-refusal-preset,
                // naturalness/own-act-the-preset-invites,
                // naturalness/own-act-refused-under-a-refusal-preset).
                let held = crate::decision::refusal_presets_said(ctx, t.idx)
                    .any(|p| !p.response.contains(act))
                    && lists().naturalness.holds_stance.in_text(t.text);
                !asks_decision
                    && !held
                    && refers_to_act(clause, m.start() - clause_start, act, caller.text)
            })
        {
            format!(
                "the caller tells of an act of their own (\"{act}\"), which commits the owner to nothing"
            )
        } else if !asked && settled_turn(caller) {
            "the caller only thanks or acknowledges, and nothing was asked".to_string()
        } else if !asks_decision
            && !said_asks(caller)
            && lists().naturalness.thanks_the_owner.in_text(question)
        {
            // A thank-you with its reason (case naturalness/thanks-with-a-reason-refused).
            "the caller calls to thank the owner and asks nothing".to_string()
        } else if !asks_decision
            && !said_asks(caller)
            && !lists().naturalness.asks_of_the_owner.in_text(caller.text)
            && !crate::proxy::pushes(caller.text)
            // (Trouble told — a parcel broken, a relative in hospital — is the owner's to settle.)
            && !crate::proxy::reports_new_fact(caller.text, false)
            // (Declining to speak for the owner — `不好替她说`, `没法替他回应` — refuses no
            // decision; nor, told only, does one to answer for them — `没法替他答应`.)
            && !speaks_for(&t.text[m.end()..])
            && !t.text[m.end()..]
                .trim_start_matches(lists().lexicon.owner_pronouns.0)
                .starts_with(lists().naturalness.answer_for.0)
            // (Under a preset that turns the caller away, what they tell is the pitch again.)
            && crate::decision::refusal_presets_said(ctx, t.idx).next().is_none()
            && {
                // (The topic may be a clause of its own: `明天下午再送这个，我没法替他决定`.)
                let from = text::sentences(t.text)
                    .into_iter()
                    .find(|r| r.start <= m.start() && m.start() < r.end.max(r.start + 1))
                    .map_or(clause_start, |r| r.start.min(clause_start));
                told_in_callers_words(&t.text[from..m.start()], caller.text)
            }
        {
            // The caller only tells (their own plan, a kindness, a notice) and the refusal names
            // what they told: nothing was asked to decide (case naturalness/nothing-asked-told).
            // Uncertain: what the caller tells of may still bind the owner (`我就按新价格出合同了`)
            // in words no list has.
            uncertain = true;
            "the caller asks nothing of the owner, only tells".to_string()
        } else if !asks_decision
            && !said_asks(caller)
            // (Nor a question or a request anywhere — `帮我问一下他什么时候能回我` — but the
            // opener's who-answers check, `永福啊？`.)
            && !OPEN.find_iter(caller.text).any(|m| {
                caller.idx > 0 || caller.text[..m.start()].chars().count() > 12
            })
            && ctx.turns.get(t.idx + 1).is_some_and(|r| {
                !r.assistant
                    && NOTHING_TO_DECIDE.is_match(r.text)
            })
        {
            // The caller, who asked nothing, answers that nothing was put to the owner (`没让你
            // 决定啥`, `我就是说声谢谢`): the refusal answered a question no one asked (case
            // naturalness/caller-says-nothing-was-asked).
            "the caller answers that nothing was asked to decide".to_string()
        } else if ctx.turns.get(t.idx + 1).is_some_and(|r| {
            !r.assistant && {
                NOTHING_TO_DECIDE.is_match(r.text) || DECISION_DISCLAIMED.is_match(r.text)
            }
        }) {
            // Whatever the caller's turn held, their answer says nothing was put to the owner
            // (`我是说我可以等`, `就是通知一下，我们每次都这样的`): the refusal may have answered a
            // question no one asked — or one the caller now takes back (uncertain; case
            // naturalness/disclaimed-after-a-question).
            uncertain = true;
            "the caller answers that no decision was asked".to_string()
        } else {
            continue;
        };
        let f = finding(
            ViolationKind::NaturalOverRefusal,
            t.idx,
            t.text,
            format!(
                "{what}, and the assistant refuses to decide (\"{word}\") as if a decision had been asked"
            ),
        );
        if uncertain {
            ctx.uncertain(&f);
        }
        out.push(f);
    }
    out
}

/// Whether the words after a refusal word decline to speak for the owner (`不好替她说`, `没法替
/// 他回应`) rather than to decide (`不能替他答应`; case naturalness/own-act-told-earlier).
fn speaks_for(after: &str) -> bool {
    let rest = after.trim_start_matches(lists().lexicon.owner_pronouns.0);
    lists().naturalness.speaks_for.starts(rest)
}

/// Builds every word list of the module ([`crate::wordindex`]: the union of all lists is built
/// once they are all known).
pub(crate) fn build_lists() {
    LazyLock::force(&INTRO);
    LazyLock::force(&PENDING);
    LazyLock::force(&PROTEST);
    LazyLock::force(&OPEN);
    LazyLock::force(&AI_SELF);
}

#[cfg(test)]
mod tests {
    /// `repetition` asks a clause whether it holds a goodbye or a greeting word: the same as
    /// whether one of the turn's words starts inside it only while no word holds a clause mark.
    /// `goodbye_in` reads the words of a whole text in its trimmed clauses: the same as a
    /// search of each trimmed clause only while no word holds a clause mark or starts or ends
    /// with a space.
    #[test]
    fn close_and_intro_words_hold_no_clause_mark() {
        let l = crate::lexicon::lists();
        for &w in l
            .lexicon
            .close
            .iter()
            .chain(l.lexicon.goodbye.iter())
            .chain(l.naturalness.intro.iter())
        {
            let cs = crate::text::clauses(w);
            assert!(
                cs.len() == 1 && cs[0].text(w) == w && w.trim() == w,
                "{w:?}"
            );
        }
    }
}
