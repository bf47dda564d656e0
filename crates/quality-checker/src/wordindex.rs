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
//! The union is a trie over characters ([`CharTrie`], round five; it was a byte DFA of ≈ 10 MB
//! that missed the caches on every turn).
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
    /// A trie over characters ([`CharTrie`]): the byte DFA of the union (≈ 10 MB of
    /// transitions) missed the caches on every turn.
    aut: CharTrie,
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

/// The first of `hits` (by start) starting at or after byte `from`: at once for a search
/// from the text's start (most are), else a binary search.
#[inline(always)]
fn start_at(hits: &[Hit], from: u32) -> usize {
    if hits.first().is_none_or(|h| h.start >= from) {
        0
    } else {
        hits.partition_point(|h| h.start < from)
    }
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
    /// Its place in the union.
    member: Member,
}

/// A list's place in the union: its words' ids and its own id.
struct Member {
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

impl Member {
    /// Registers the list of `words` (pattern id = index) with the union.
    fn new<P: AsRef<str>>(words: &[P]) -> Member {
        if words.iter().any(|w| w.as_ref().is_empty()) {
            return Member {
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
                let w = w.as_ref();
                let id = match reg.ids.get(w) {
                    Some(&id) => id,
                    None => {
                        let id = u32::try_from(reg.words.len()).expect("fewer than 2^32 words");
                        reg.words.push(w.into());
                        reg.ids.insert(w.into(), id);
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
        Member {
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
        let i = start_at(hits, from);
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
        Ac {
            aut,
            member: Member::new(words),
        }
    }

    /// The list's leftmost-longest match in `hay[from..]` off the index, if `hay` lies within a
    /// text indexed now: `Some(None)` for no match, `None` when the index cannot answer.
    #[inline]
    fn indexed(&self, hay: &str, from: usize) -> Option<Option<Match>> {
        STATE.with(|st| {
            let mut st = st.try_borrow_mut().ok()?;
            let m = &self.member;
            let (t, off) = st.locate(hay, m.need, m.list)?;
            if !st.present(t, m.list) {
                return Some(None);
            }
            // Offsets within a text fit in `u32` (longer texts are not indexed).
            let end = off + hay.len() as u32;
            let from = off + from as u32;
            Some(m.first(&st.hits[t], from, end).map(|h| {
                Match::must(
                    m.local(h.id),
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
            let m = &self.member;
            let (t, off) = st.locate(hay, m.need, m.list)?;
            if !st.present(t, m.list) {
                return Some(false);
            }
            // The whole text: a word of the list is in it (the bit says so). A slice: one of
            // the list's occurrences lies within it. (No pattern to look up either way.)
            let (ta, te, _) = st.texts[t];
            if off == 0 && hay.len() == te - ta {
                return Some(true);
            }
            let end = off + hay.len() as u32;
            Some(m.first(&st.hits[t], off, end).is_some())
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
            let (t, _) = st.locate(hay, self.member.need, self.member.list)?;
            Some(st.present(t, self.member.list))
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
    /// (start address, text) by address: the text a search falls in is found by a binary
    /// search (a scan of the texts, a third of the searches, mispredicted its exit).
    by_start: Vec<(usize, usize)>,
    /// Two texts share bytes (the same text given twice): the texts are scanned instead.
    overlap: bool,
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
    /// A text's characters, as [`CharTrie::all_matches`] reads them (kept for its allocation).
    chars: Vec<(u32, u32)>,
}

impl State {
    /// The text `hay` lies in and `hay`'s offset in it (its index built), if indexed and the
    /// union holds list `list` and its words (`need`).
    #[inline(always)]
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
                // The text starting last at or before `hay` (texts that overlap: the first
                // holding it; any text holding `hay` answers alike).
                let holds = |&(ta, te, _): &(usize, usize, usize)| ta <= a && e <= te;
                let t = if self.overlap {
                    self.texts.iter().position(holds)?
                } else if let Some(t) =
                    (self.last + 1..self.last + 3).find(|&k| self.texts.get(k).is_some_and(holds))
                {
                    // The next turn or the one after (a walk over the turns, or over one
                    // speaker's): the one text holding `hay`, without the binary search.
                    t
                } else {
                    let k = self.by_start.partition_point(|&(ta, _)| ta <= a);
                    let t = self.by_start[k.checked_sub(1)?].1;
                    if e > self.texts[t].1 {
                        return None;
                    }
                    t
                };
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
        // Every occurrence of every word, by start, then longest first (no two words share a
        // start and an end).
        union.aut.all_matches(text, &mut self.chars, hits);
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

/// A word list asked for every occurrence of every word (Standard semantics). Within a text
/// indexed now (a turn, or a slice of one), read off the turn's index like an [`Ac`]'s searches
/// (round eight: the relay marks, the concepts and the attributions walked every turn again);
/// elsewhere walked by hand over a DFA, as [`AhoCorasick::find_overlapping_iter`] reports them
/// (the iterator returns to its caller on every match and resumes from a saved state, which
/// costs more than the walk over the short texts searched here; a list with an empty word, or
/// too large for a DFA, is searched with the iterator).
pub(crate) struct AllMatches {
    aut: AllAut,
    /// Its place in the union.
    member: Member,
}

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
        let aut = match dfa {
            Some(Ok(d)) => AllAut::Dfa(Box::new(d)),
            _ => AllAut::Iter(
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::Standard)
                    .build(bytes())?,
            ),
        };
        Ok(AllMatches {
            aut,
            member: Member::new(words),
        })
    }

    /// Calls `f(start, end, pattern)` for every occurrence of every word in `text`, in no
    /// order to rely on (off the index: by start, longest first; else by end); a word listed
    /// twice is reported once off the index, as its first pattern.
    #[inline]
    pub(crate) fn for_each(&self, text: &str, mut f: impl FnMut(usize, usize, usize)) {
        let indexed = STATE.with(|st| {
            let mut st = st.try_borrow_mut().ok()?;
            let m = &self.member;
            let (t, off) = st.locate(text, m.need, m.list)?;
            if !st.present(t, m.list) {
                return Some(());
            }
            let end = off + text.len() as u32;
            let hits = &st.hits[t];
            let i = start_at(hits, off);
            for h in hits[i..].iter().take_while(|h| h.start < end) {
                if h.end <= end && m.has(h.id) {
                    f(
                        (h.start - off) as usize,
                        (h.end - off) as usize,
                        m.local(h.id),
                    );
                }
            }
            Some(())
        });
        if indexed.is_some() {
            return;
        }
        match &self.aut {
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

/// The union's automaton: a trie over characters, walked from every character of a text
/// (round five). Every character of any word has a dense id (every other character id 0, which
/// no word holds), and the trie is a double array: node `n`'s child by character id `c` is cell
/// `base[n] + c` if that cell's `check` is `n`. One step is one load from a table of some 5,000
/// cells (≈ 60 KB, and ≈ 50 KB of character ids: 2,232 words in 2026-12; against the byte DFA's
/// ≈ 10 MB, whose transitions missed the caches on every turn), and a Han character is one step
/// instead of three.
///
/// A word's occurrences are the same as the byte automaton's: the words and the texts are
/// UTF-8, whose characters never start inside another's bytes, so every occurrence of a word
/// starts and ends on character boundaries.
struct CharTrie {
    /// Per code point's high bits (`c >> 8`): the page of `ids` holding its low byte's ids
    /// (page 0: no word character in it).
    page_of: Box<[u16]>,
    /// Pages of 256 character ids.
    ids: Box<[u16]>,
    /// The double array; cell 0 is the root. Every `base + id` is within it.
    cells: Box<[Cell]>,
}

#[derive(Clone, Copy)]
struct Cell {
    /// Where the node's children are: child by character id `c` at `base + c`.
    base: u32,
    /// The cell's parent (`FREE`: no node; the root has none either).
    check: u32,
    /// The word the node ends (`NO_WORD`: none).
    word: u32,
}

const NO_WORD: u32 = u32::MAX;
const FREE: u32 = u32::MAX;

impl CharTrie {
    /// The trie of `words` (word id = index; no empty word, none twice).
    fn new(words: &[Box<str>]) -> CharTrie {
        // Character ids, in order of first appearance.
        let mut id_of: BTreeMap<char, u32> = BTreeMap::new();
        for w in words {
            for c in w.chars() {
                let n = u32::try_from(id_of.len() + 1).expect("fewer than 2^32 characters");
                id_of.entry(c).or_insert(n);
            }
        }
        let mut page_of = vec![0u16; (char::MAX as usize >> 8) + 1];
        let mut ids = vec![0u16; 256];
        for (&c, &id) in &id_of {
            let hi = c as usize >> 8;
            if page_of[hi] == 0 {
                page_of[hi] = u16::try_from(ids.len() / 256).expect("fewer than 2^16 pages");
                ids.resize(ids.len() + 256, 0);
            }
            ids[page_of[hi] as usize * 256 + (c as usize & 255)] =
                u16::try_from(id).expect("fewer than 2^16 characters in the word lists");
        }
        // The trie with a map per node first.
        let mut kids: Vec<BTreeMap<u32, usize>> = vec![BTreeMap::new()];
        let mut word_at: Vec<u32> = vec![NO_WORD];
        for (w, word) in words.iter().enumerate() {
            let mut node = 0usize;
            for c in word.chars() {
                let next = kids.len();
                let n = *kids[node].entry(id_of[&c]).or_insert(next);
                if n == next {
                    kids.push(BTreeMap::new());
                    word_at.push(NO_WORD);
                }
                node = n;
            }
            debug_assert_eq!(word_at[node], NO_WORD, "a word listed once");
            word_at[node] = u32::try_from(w).expect("fewer than 2^32 words");
        }
        // Then laid out, breadth first: each node's children at the first base where their
        // cells are all free (the root's at base 0, cells 1..).
        let alphabet = id_of.len() + 1;
        let free = Cell {
            base: 0,
            check: FREE,
            word: NO_WORD,
        };
        let mut cells = vec![free; alphabet];
        cells[0].check = FREE - 1; // (the root: taken, and no one's child)
        let mut queue = std::collections::VecDeque::from([(0usize, 0usize)]); // (node, cell)
        let mut lowest_free = 1;
        while let Some((node, cell)) = queue.pop_front() {
            cells[cell].word = word_at[node];
            let Some((&first, _)) = kids[node].first_key_value() else {
                continue;
            };
            while lowest_free < cells.len() && cells[lowest_free].check != FREE {
                lowest_free += 1;
            }
            let mut base = if cell == 0 {
                0
            } else {
                lowest_free.saturating_sub(first as usize)
            };
            loop {
                let fits = kids[node].keys().all(|&c| {
                    cells
                        .get(base + c as usize)
                        .is_none_or(|x| x.check == FREE && base + c as usize != 0)
                });
                if fits {
                    break;
                }
                base += 1;
            }
            if cells.len() < base + alphabet {
                cells.resize(base + alphabet, free);
            }
            cells[cell].base = u32::try_from(base).expect("fewer than 2^32 cells");
            let parent = u32::try_from(cell).expect("fewer than 2^32 cells");
            for (&c, &child) in &kids[node] {
                let at = base + c as usize;
                cells[at].check = parent;
                queue.push_back((child, at));
            }
        }
        CharTrie {
            page_of: page_of.into_boxed_slice(),
            ids: ids.into_boxed_slice(),
            cells: cells.into_boxed_slice(),
        }
    }

    /// The character id of code point `c` (0: in no word).
    #[inline]
    fn id(&self, c: u32) -> u32 {
        let page = self.page_of[c as usize >> 8] as usize;
        u32::from(self.ids[page * 256 + (c as usize & 255)])
    }

    /// Appends to `hits` every occurrence of every word in `text`, by start and, at one start,
    /// longest first. `chars` is scratch space.
    fn all_matches(&self, text: &str, chars: &mut Vec<(u32, u32)>, hits: &mut Vec<Hit>) {
        // (character id, byte offset) per character, and the end: written into room for one
        // per byte (a push per character reloaded the vector and tested its capacity), and only
        // the slots written are read. The room is grown, never cut: `resize` to each text's
        // length, then `truncate`, wrote the buffer whole on every turn.
        if chars.len() < text.len() + 1 {
            chars.resize(text.len() + 1, (0, 0));
        }
        let mut n = 0;
        for (i, c) in text.char_indices() {
            chars[n] = (self.id(c as u32), i as u32);
            n += 1;
        }
        chars[n] = (0, text.len() as u32);
        let chars = &chars[..n + 1];
        let root = self.cells[0].base;
        for (s, &(first, start)) in chars[..n].iter().enumerate() {
            // The root's child by the first character (none for most characters in no word,
            // id 0: the root's own cell, no one's child).
            let at = root + first;
            let mut cell = self.cells[at as usize];
            if cell.check != 0 {
                continue;
            }
            let mark = hits.len();
            let mut node = at;
            // Down the trie, one character after the other: `j` is the character after the
            // node's. (The end's id 0 is no node's child: the walk stops there.)
            let mut j = s + 1;
            loop {
                let (next_id, end) = chars[j];
                if cell.word != NO_WORD {
                    hits.push(Hit {
                        start,
                        end,
                        id: cell.word,
                    });
                }
                let at = cell.base + next_id;
                let next = self.cells[at as usize];
                if next.check != node {
                    break;
                }
                (node, cell) = (at, next);
                j += 1;
            }
            // Longest first at one start (most starts have one word or none).
            if hits.len() > mark + 1 {
                hits[mark..].reverse();
            }
        }
    }
}

/// The union of `words` (kept out of line: a one-time cost, counted apart).
#[inline(never)]
fn build_union(words: &[Box<str>], lists: &[Vec<u32>]) -> Union {
    let aut = CharTrie::new(words);
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
            st.by_start.clear();
            st.by_start
                .extend(st.texts.iter().enumerate().map(|(t, &(ta, _, _))| (ta, t)));
            st.by_start.sort_unstable();
            st.overlap = st.by_start.windows(2).any(|w| w[1].0 < st.texts[w[0].1].1);
            st.built.clear();
            st.built.resize(n, false);
            if st.hits.len() < n {
                st.hits.resize_with(n, Vec::new);
            }
            let k = st.stride;
            st.present.resize(n * k, 0);
            st.last = 0;
            // Every text is built here, not on its first search: every turn of a dialogue is
            // asked (38,345 builds for as many turns in the bench's 4,100 checks), and a profile
            // then charges the builds to the index, not to whichever rule asks a turn first.
            for t in 0..n {
                st.build(t);
            }
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
                    st.by_start.clear();
                    st.built.clear();
                }
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The character trie finds every occurrence the byte automaton finds (as the index sorts
    /// them): words that nest, overlap and share prefixes, in texts mixing ASCII, two-, three-
    /// and four-byte characters and characters in no word.
    #[test]
    fn char_trie_finds_what_the_byte_automaton_finds() {
        let words: Vec<Box<str>> = [
            "不能",
            "不能去",
            "能去",
            "去了",
            "了吗",
            "我们",
            "我",
            "们去",
            "我们去了",
            "吗",
            "了",
            "去",
            "ok",
            "o",
            "k了",
            "é",
            "éa",
            "😀",
            "😀去",
            "不",
            "不存在",
            "ü",
        ]
        .into_iter()
        .map(Into::into)
        .collect();
        let trie = CharTrie::new(&words);
        let bytes = AllMatches::new(&words).unwrap();
        let texts = [
            "我们不能去了吗？我们去了，去了。",
            "不能不能去能去了吗了",
            "ok了，éa😀去了 ü不存在的不",
            "",
            "x",
            "ooook了😀😀去",
        ];
        let mut chars = Vec::new();
        for t in texts {
            let mut want = Vec::new();
            bytes.for_each(t, |s, e, id| want.push((s as u32, e as u32, id as u32)));
            want.sort_unstable_by_key(|&(s, e, _)| (s, std::cmp::Reverse(e)));
            let mut hits = Vec::new();
            trie.all_matches(t, &mut chars, &mut hits);
            let got: Vec<_> = hits.iter().map(|h| (h.start, h.end, h.id)).collect();
            assert_eq!(got, want, "{t}");
        }
    }

    /// Every search of every slice of an indexed text answers what the list's own automaton
    /// does: words that overlap, nest, repeat, and a list built after the union.
    #[test]
    fn index_answers_as_the_automaton() {
        let lists = [
            Ac::new(&["不能", "不能去", "能去", "去了", "了吗"]),
            Ac::new(&["我们", "我", "们去", "我们去了"]),
            Ac::new(&["吗", "了", "去", "去"]),
            Ac::new(&["不存在的词"]),
            // (A word in two lists, 了, and one in three, 我们.)
            Ac::new(&["我们", "了"]),
            Ac::new(&["我们", "不能去"]),
        ];
        let all =
            AllMatches::new(&["不能", "不能去", "能去", "我们", "我", "了", "去了吗"]).unwrap();
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
                    // Every occurrence, off the index and (a copy, not indexed) off the
                    // automaton: the same, in another order.
                    let every = |h: &str| {
                        let mut v = Vec::new();
                        all.for_each(h, |s, e, p| v.push((s, e, p)));
                        v.sort_unstable();
                        v
                    };
                    let copy = String::from(hay);
                    assert_eq!(every(hay), every(&copy), "{hay}");
                }
            }
        }
        // The index did answer (the texts are indexed, the union holds the lists).
        assert!(lists[0].indexed(&owned[0][..], 0).is_some());
        assert!(late.indexed(&owned[0][..], 0).is_none());
        assert!(STATE.with(|st| {
            let mut st = st.borrow_mut();
            st.locate(&owned[0], all.member.need, all.member.list)
                .is_some()
        }));
    }
}
