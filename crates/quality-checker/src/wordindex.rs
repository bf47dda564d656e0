//! One search per turn for every word list (issue 14, third round).
//!
//! Every word list of the checker ([`crate::lexicon::ac`]) is an [`Ac`]: its own leftmost-longest
//! automaton, as before, and its place in the *union* of all lists — one automaton holding
//! every word of every list built so far, each once. While a dialogue is checked
//! ([`IndexedTexts`], set up by `Checker::check_detailed`), a search of a list in a turn's text
//! — the whole turn or any slice of it, a clause, a head — is answered from the turn's index:
//! one overlapping search of the turn with the union (on first use), every occurrence of every
//! word, sorted by start and, at one start, longest first. The list's leftmost-longest match in
//! a slice is the first occurrence of one of its words that lies within the slice: exactly what
//! its own automaton finds (leftmost-longest semantics: the earliest start, the longest word
//! there; `find_iter` goes on from the match's end). Text that is not a turn's (a preset, a
//! string built on the way) is searched with the list's own automaton.
//!
//! The union grows as lists are built (most on first use): it is rebuilt, when it has grown,
//! at the start of a dialogue; until then a list it lacks is searched with its own automaton.

use aho_corasick::automaton::Automaton;
use aho_corasick::{AhoCorasick, AhoCorasickBuilder, AhoCorasickKind, Anchored, Match, MatchKind};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

/// Every word of every list built so far, once each, with its id (the order it came in).
struct Registry {
    words: Vec<Box<str>>,
    ids: BTreeMap<Box<str>, u32>,
    /// Per list (by list id): its words' ids.
    lists: Vec<Vec<u32>>,
    /// The union automaton of the first `len` words, once built.
    built: Option<Arc<Union>>,
    /// How often the union was built.
    builds: u32,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    words: Vec::new(),
    ids: BTreeMap::new(),
    lists: Vec::new(),
    built: None,
    builds: 0,
});

/// At most this many builds of the union per process: lists built after the last one are
/// searched with their own automata. (`Checker::check_detailed` builds the lists it knows
/// first, so one build is the rule; a list is meant to be built once, in a static.)
const MAX_BUILDS: u32 = 16;

/// The union automaton: every registered word (pattern id = word id), all occurrences.
struct Union {
    /// Walked by hand ([`AllMatches`]): the overlapping iterator's return per match cost more
    /// than the walk itself over a turn's dozen matches.
    aut: AllMatches,
    len: u32,
    /// The lists it was built with (ids `0..lists`).
    lists: u32,
    /// `u64`s per list bit set.
    stride: usize,
    /// Per word, the lists holding it: `list_ids[list_at[id]..list_at[id + 1]]` (a word is in
    /// one list or two, so setting their bits beats or-ing a row of `stride` words per match).
    list_at: Vec<u32>,
    list_ids: Vec<u32>,
}

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// An occurrence of a word of the union in a text: bytes `start..end`, word `id`.
#[derive(Debug, Clone, Copy)]
struct Hit {
    start: u32,
    end: u32,
    id: u32,
}

/// A word list: a leftmost-longest automaton whose searches within a turn are answered from
/// the turn's index of every list (see the module's notes). `find`, `is_match` and `find_iter`
/// report what [`AhoCorasick`]'s do.
pub struct Ac {
    aut: AhoCorasick,
    /// A bit per union word id: the word is one of this list's.
    bits: Box<[u64]>,
    /// (union word id, this list's pattern id: the first with that word), by union word id.
    locals: Box<[(u32, u32)]>,
    /// The union must hold this many words to answer for the list (`u32::MAX`: never, the
    /// list holds an empty word).
    need: u32,
    /// The list's id (its bit in a text's bit set of lists present).
    list: u32,
}

impl std::fmt::Debug for Ac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ac")
            .field("patterns", &self.aut.patterns_len())
            .finish()
    }
}

impl Ac {
    /// The list of `words`. A DFA of its own: the haystacks off the index are short and the
    /// lists small, so table lookups per byte beat the smaller NFAs.
    pub fn new(words: &[&str]) -> Ac {
        let aut = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .kind(Some(AhoCorasickKind::DFA))
            .build(words)
            .expect("static word lists compile");
        if words.iter().any(|w| w.is_empty()) {
            return Ac {
                aut,
                bits: Box::new([]),
                locals: Box::new([]),
                need: u32::MAX,
                list: u32::MAX,
            };
        }
        let mut locals: Vec<(u32, u32)> = Vec::with_capacity(words.len());
        let list;
        {
            let mut reg = registry();
            for (i, w) in words.iter().enumerate() {
                let id = match reg.ids.get(*w) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(reg.words.len()).expect("fewer than 2^32 words");
                        reg.words.push((*w).into());
                        reg.ids.insert((*w).into(), id);
                        id
                    }
                };
                locals.push((id, u32::try_from(i).expect("fewer than 2^32 words")));
            }
            list = u32::try_from(reg.lists.len()).expect("fewer than 2^32 lists");
            reg.lists.push(locals.iter().map(|x| x.0).collect());
        }
        // A word listed twice is reported as its first pattern (sorted by id, then pattern).
        locals.sort_unstable();
        locals.dedup_by_key(|x| x.0);
        let need = locals.last().map_or(0, |x| x.0 + 1);
        let mut bits = vec![0u64; need.div_ceil(64) as usize];
        for &(id, _) in &locals {
            bits[(id >> 6) as usize] |= 1 << (id & 63);
        }
        Ac {
            aut,
            bits: bits.into_boxed_slice(),
            locals: locals.into_boxed_slice(),
            need,
            list,
        }
    }

    #[inline]
    fn has(&self, id: u32) -> bool {
        self.bits
            .get((id >> 6) as usize)
            .is_some_and(|b| b & (1 << (id & 63)) != 0)
    }

    fn local(&self, id: u32) -> usize {
        let i = self
            .locals
            .binary_search_by_key(&id, |x| x.0)
            .expect("a word of the list");
        self.locals[i].1 as usize
    }

    /// The leftmost-longest match of the list in `hits` (a text's index) within bytes
    /// `from..to` of the text.
    fn first(&self, hits: &[Hit], from: u32, to: u32) -> Option<Hit> {
        let i = hits.partition_point(|h| h.start < from);
        for h in &hits[i..] {
            if h.start >= to {
                break;
            }
            if h.end <= to && self.has(h.id) {
                return Some(*h);
            }
        }
        None
    }

    /// The list's leftmost-longest match in `hay[from..]` off the index, if `hay` lies within a
    /// text indexed now: `Some(None)` for no match, `None` when the index cannot answer.
    #[inline]
    fn indexed(&self, hay: &str, from: usize) -> Option<Option<Match>> {
        STATE.with(|st| {
            let mut st = st.try_borrow_mut().ok()?;
            let (t, off) = st.locate(hay, self.need, self.list)?;
            if !st.present(t, self.list) {
                return Some(None);
            }
            // Offsets within a text fit in `u32` (longer texts are not indexed).
            let end = off + hay.len() as u32;
            let from = off + from as u32;
            Some(self.first(&st.hits[t], from, end).map(|h| {
                Match::must(
                    self.local(h.id),
                    (h.start - off) as usize..(h.end - off) as usize,
                )
            }))
        })
    }

    /// The first (leftmost-longest) match in `hay`.
    pub fn find(&self, hay: &str) -> Option<Match> {
        match self.indexed(hay, 0) {
            Some(m) => m,
            None => self.aut.find(hay),
        }
    }

    /// Whether a word of the list occurs in `hay`.
    pub fn is_match(&self, hay: &str) -> bool {
        let indexed = STATE.with(|st| {
            let mut st = st.try_borrow_mut().ok()?;
            let (t, off) = st.locate(hay, self.need, self.list)?;
            if !st.present(t, self.list) {
                return Some(false);
            }
            // The whole text: a word of the list is in it (the bit says so). A slice: one of
            // the list's occurrences lies within it. (No pattern to look up either way.)
            let (ta, te, _) = st.texts[t];
            if off == 0 && hay.len() == te - ta {
                return Some(true);
            }
            let end = off + hay.len() as u32;
            Some(self.first(&st.hits[t], off, end).is_some())
        });
        match indexed {
            Some(m) => m,
            None => self.aut.is_match(hay),
        }
    }

    /// The non-overlapping leftmost-longest matches in `hay`.
    pub fn find_iter<'a, 'h>(&'a self, hay: &'h str) -> AcIter<'a, 'h> {
        // Whether the index can answer (the text's index built now: then every step can),
        // and whether a word of the list is in the text at all (else there is nothing to find).
        let answer = STATE.with(|st| {
            let mut st = st.try_borrow_mut().ok()?;
            let (t, _) = st.locate(hay, self.need, self.list)?;
            Some(st.present(t, self.list))
        });
        let (inner, pos) = match answer {
            Some(true) => (None, 0),
            Some(false) => (None, hay.len()),
            None => (Some(self.aut.find_iter(hay)), 0),
        };
        AcIter {
            ac: self,
            hay,
            pos,
            inner,
        }
    }
}

/// The matches of [`Ac::find_iter`].
pub struct AcIter<'a, 'h> {
    ac: &'a Ac,
    hay: &'h str,
    pos: usize,
    inner: Option<aho_corasick::FindIter<'a, 'h>>,
}

impl Iterator for AcIter<'_, '_> {
    type Item = Match;

    fn next(&mut self) -> Option<Match> {
        if let Some(it) = &mut self.inner {
            return it.next();
        }
        if self.pos >= self.hay.len() {
            return None;
        }
        let m = match self.ac.indexed(self.hay, self.pos) {
            Some(m) => m,
            // Not reached (the texts stay indexed while a dialogue is checked); searched
            // with the list's own automaton from where the last match ended.
            None => self
                .ac
                .aut
                .find(aho_corasick::Input::new(self.hay).span(self.pos..self.hay.len())),
        }?;
        self.pos = m.end();
        Some(m)
    }
}

/// The texts indexed now on this thread and their indexes.
#[derive(Default)]
struct State {
    union: Option<Arc<Union>>,
    /// The union's words, lists and `stride` (0 without a union).
    words: u32,
    lists: u32,
    stride: usize,
    /// Each text: (start address, end address, offset in `buf`).
    texts: Vec<(usize, usize, usize)>,
    /// The texts, copied (the index is built from the copy, on first use).
    buf: String,
    /// Per text: its index is built.
    built: Vec<bool>,
    /// Per text: its index (every occurrence, by start, then longest first).
    hits: Vec<Vec<Hit>>,
    /// Per text, the union's `stride` words: a bit per list with a word in the text.
    present: Vec<u64>,
    /// The text the last search fell in.
    last: usize,
}

impl State {
    /// The text `hay` lies in and `hay`'s offset in it (its index built), if indexed and the
    /// union holds list `list` and its words (`need`).
    #[inline]
    fn locate(&mut self, hay: &str, need: u32, list: u32) -> Option<(usize, u32)> {
        // A list built after the union: its own automaton until the next build.
        if hay.is_empty() || self.words < need || self.lists <= list {
            return None;
        }
        let a = hay.as_ptr() as usize;
        let e = a + hay.len();
        let t = match self.texts.get(self.last) {
            Some(&(ta, te, _)) if ta <= a && e <= te => self.last,
            _ => {
                let t = self
                    .texts
                    .iter()
                    .position(|&(ta, te, _)| ta <= a && e <= te)?;
                self.last = t;
                t
            }
        };
        if !self.built[t] {
            self.build(t);
        }
        Some((t, (a - self.texts[t].0) as u32))
    }

    /// Whether a word of list `list` occurs in text `t`.
    #[inline]
    fn present(&self, t: usize, list: u32) -> bool {
        self.present[t * self.stride + (list >> 6) as usize] & (1 << (list & 63)) != 0
    }

    /// Text `t`'s index: one overlapping search with the union.
    #[inline(never)]
    fn build(&mut self, t: usize) {
        let Some(union) = &self.union else { return };
        let (ta, te, off) = self.texts[t];
        let text = &self.buf[off..off + (te - ta)];
        let hits = &mut self.hits[t];
        hits.clear();
        // Every occurrence of every word (sorted below: no two words share a start and an end).
        union.aut.for_each(text, |start, end, id| {
            hits.push(Hit {
                start: start as u32,
                end: end as u32,
                id: id as u32,
            });
        });
        hits.sort_unstable_by_key(|h| (h.start, std::cmp::Reverse(h.end)));
        let k = self.stride;
        let present = &mut self.present[t * k..(t + 1) * k];
        present.fill(0);
        for h in hits.iter() {
            let (from, to) = (
                union.list_at[h.id as usize],
                union.list_at[h.id as usize + 1],
            );
            for &l in &union.list_ids[from as usize..to as usize] {
                present[(l >> 6) as usize] |= 1 << (l & 63);
            }
        }
        self.built[t] = true;
    }
}

/// A word list asked for every occurrence of every word (Standard semantics), as
/// [`AhoCorasick::find_overlapping_iter`] reports them and in the same order, but walked by hand
/// over a DFA: the iterator returns to its caller on every match and resumes from a saved
/// state, which costs more than the walk over the short texts searched here. (A list with an
/// empty word, or too large for a DFA, is searched with the iterator.)
pub(crate) struct AllMatches(AllAut);

enum AllAut {
    // (Boxed: the DFA's header is some 400 bytes, the other's a pointer.)
    Dfa(Box<aho_corasick::dfa::DFA>),
    Iter(AhoCorasick),
}

impl std::fmt::Debug for AllMatches {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AllMatches").finish_non_exhaustive()
    }
}

impl AllMatches {
    /// The list of `words`.
    pub(crate) fn new<P: AsRef<str>>(words: &[P]) -> Result<AllMatches, aho_corasick::BuildError> {
        let bytes = || words.iter().map(|w| w.as_ref().as_bytes());
        let dfa = (!words.iter().any(|w| w.as_ref().is_empty())).then(|| {
            aho_corasick::dfa::DFA::builder()
                .match_kind(MatchKind::Standard)
                .prefilter(false)
                .build(bytes())
        });
        match dfa {
            Some(Ok(d)) => Ok(AllMatches(AllAut::Dfa(Box::new(d)))),
            _ => AhoCorasickBuilder::new()
                .match_kind(MatchKind::Standard)
                .build(bytes())
                .map(|a| AllMatches(AllAut::Iter(a))),
        }
    }

    /// Calls `f(start, end, pattern)` for every occurrence of every word in `text`: by end,
    /// and at one end in the automaton's order (`find_overlapping_iter`'s).
    #[inline]
    pub(crate) fn for_each(&self, text: &str, mut f: impl FnMut(usize, usize, usize)) {
        match &self.0 {
            AllAut::Dfa(dfa) => {
                // (No empty word: the start state is no match state.)
                let Ok(mut sid) = dfa.start_state(Anchored::No) else {
                    return;
                };
                for (i, &b) in text.as_bytes().iter().enumerate() {
                    sid = dfa.next_state(Anchored::No, sid, b);
                    if dfa.is_special(sid) {
                        if dfa.is_dead(sid) {
                            return;
                        }
                        for k in 0..dfa.match_len(sid) {
                            let pid = dfa.match_pattern(sid, k);
                            f(i + 1 - dfa.pattern_len(pid), i + 1, pid.as_usize());
                        }
                    }
                }
            }
            AllAut::Iter(aut) => {
                for m in aut.find_overlapping_iter(text) {
                    f(m.start(), m.end(), m.pattern().as_usize());
                }
            }
        }
    }
}

/// The union of `words` (kept out of line: a one-time cost, counted apart).
#[inline(never)]
fn build_union(words: &[Box<str>], lists: &[Vec<u32>]) -> Union {
    let aut = AllMatches::new(words).expect("the word lists compile");
    let stride = lists.len().div_ceil(64).max(1);
    let mut of_word: Vec<Vec<u32>> = vec![Vec::new(); words.len()];
    for (l, ids) in lists.iter().enumerate() {
        let l = u32::try_from(l).expect("fewer than 2^32 lists");
        for &id in ids {
            // (A list naming a word twice has its bit set once.)
            if of_word[id as usize].last() != Some(&l) {
                of_word[id as usize].push(l);
            }
        }
    }
    let mut list_at = Vec::with_capacity(words.len() + 1);
    let mut list_ids = Vec::new();
    for ls in &of_word {
        list_at.push(u32::try_from(list_ids.len()).expect("fewer than 2^32 entries"));
        list_ids.extend_from_slice(ls);
    }
    list_at.push(u32::try_from(list_ids.len()).expect("fewer than 2^32 entries"));
    Union {
        aut,
        len: u32::try_from(words.len()).expect("fewer than 2^32 words"),
        lists: u32::try_from(lists.len()).expect("fewer than 2^32 lists"),
        stride,
        list_at,
        list_ids,
    }
}

thread_local! {
    static STATE: RefCell<State> = RefCell::new(State::default());
}

/// While it lives, searches of [`Ac`] lists within the given texts (a dialogue's turns) are
/// answered from one index per text. Texts longer than 4 GB are not indexed.
pub struct IndexedTexts<'a> {
    active: bool,
    _texts: PhantomData<&'a str>,
}

impl<'a> IndexedTexts<'a> {
    /// Indexes `texts` (each on first use) until the value is dropped. Nested: the inner one
    /// indexes nothing more.
    pub fn new<I: IntoIterator<Item = &'a str>>(texts: I) -> IndexedTexts<'a> {
        let active = STATE.with(|st| {
            let Ok(mut st) = st.try_borrow_mut() else {
                return false;
            };
            if !st.texts.is_empty() {
                return false;
            }
            // The union, rebuilt when lists were built since.
            {
                let mut reg = registry();
                let n = u32::try_from(reg.words.len()).expect("fewer than 2^32 words");
                let lists = u32::try_from(reg.lists.len()).expect("fewer than 2^32 lists");
                if reg.builds < MAX_BUILDS
                    && reg
                        .built
                        .as_ref()
                        .is_none_or(|u| u.len < n || u.lists < lists)
                {
                    reg.built = Some(Arc::new(build_union(&reg.words, &reg.lists)));
                    reg.builds += 1;
                }
                if let Some(u) = &reg.built
                    && st.union.as_ref().is_none_or(|s| !Arc::ptr_eq(s, u))
                {
                    st.union = Some(Arc::clone(u));
                    (st.words, st.lists, st.stride) = (u.len, u.lists, u.stride);
                }
            }
            let st = &mut *st;
            st.buf.clear();
            for t in texts {
                if u32::try_from(t.len()).is_err() {
                    continue;
                }
                let a = t.as_ptr() as usize;
                st.texts.push((a, a + t.len(), st.buf.len()));
                st.buf.push_str(t);
            }
            let n = st.texts.len();
            st.built.clear();
            st.built.resize(n, false);
            if st.hits.len() < n {
                st.hits.resize_with(n, Vec::new);
            }
            let k = st.stride;
            st.present.resize(n * k, 0);
            st.last = 0;
            true
        });
        IndexedTexts {
            active,
            _texts: PhantomData,
        }
    }
}

impl Drop for IndexedTexts<'_> {
    fn drop(&mut self) {
        if self.active {
            STATE.with(|st| {
                if let Ok(mut st) = st.try_borrow_mut() {
                    st.texts.clear();
                    st.built.clear();
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every search of every slice of an indexed text answers what the list's own automaton
    /// does: words that overlap, nest, repeat, and a list built after the union.
    #[test]
    fn index_answers_as_the_automaton() {
        let lists = [
            Ac::new(&["不能", "不能去", "能去", "去了", "了吗"]),
            Ac::new(&["我们", "我", "们去", "我们去了"]),
            Ac::new(&["吗", "了", "去", "去"]),
            Ac::new(&["不存在的词"]),
        ];
        let texts = ["我们不能去了吗？我们去了，去了。", "不能不能去能去了吗了"];
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        let _index = IndexedTexts::new(owned.iter().map(String::as_str));
        let late = Ac::new(&["去了吗", "晚来的词"]);
        for t in &owned {
            let bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).chain([t.len()]).collect();
            for &a in &bounds {
                for &b in bounds.iter().filter(|&&b| b >= a) {
                    let hay = &t[a..b];
                    for l in lists.iter().chain([&late]) {
                        let want: Vec<_> = l.aut.find_iter(hay).collect();
                        assert_eq!(l.find_iter(hay).collect::<Vec<_>>(), want, "{hay}");
                        assert_eq!(l.find(hay), want.first().copied(), "{hay}");
                        assert_eq!(l.is_match(hay), !want.is_empty(), "{hay}");
                    }
                }
            }
        }
        // The index did answer (the texts are indexed, the union holds the lists).
        assert!(lists[0].indexed(&owned[0][..], 0).is_some());
        assert!(late.indexed(&owned[0][..], 0).is_none());
    }
}
