//! Text utilities for spoken Chinese: clauses and sentences, negation and quotation scope,
//! numbers (Arabic and Chinese numerals, `三点半`, `两百块`, `十五分钟`), character n-grams.
//!
//! Everything works on `&str` with byte offsets, allocates little and never panics on odd input
//! (mixed scripts, emoji, unbalanced quotes).

use crate::lexicon::{self, Words, lists};
use std::ops::Range;
use std::sync::LazyLock;

/// A CJK ideograph (the Han blocks phone talk uses).
pub fn is_han(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c) || ('\u{3400}'..='\u{4dbf}').contains(&c)
}

/// A character that carries content for n-grams: Han, ASCII letters and digits.
pub fn is_word_char(c: char) -> bool {
    is_han(c) || c.is_ascii_alphanumeric()
}

fn is_clause_break(c: char) -> bool {
    matches!(
        c,
        '，' | ','
            | '。'
            | '！'
            | '!'
            | '？'
            | '?'
            | '；'
            | ';'
            | '：'
            | ':'
            | '、'
            | '\n'
            | '\r'
            | '…'
            | '～'
            | '~'
            | '—'
            | ' '
            | '\t'
    )
}

fn is_sentence_break(c: char) -> bool {
    matches!(
        c,
        '。' | '！' | '!' | '？' | '?' | '；' | ';' | '\n' | '\r' | '…'
    )
}

/// Where the sentence holding byte `at` of `s` starts: just after the last sentence break
/// before it (the breaks of [`sentences`]), or 0.
pub(crate) fn sentence_start(s: &str, at: usize) -> usize {
    s[..at]
        .char_indices()
        .rfind(|&(_, c)| is_sentence_break(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// A clause: the text between two clause marks (comma, full stop, question mark …).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clause {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character (before the mark).
    pub end: usize,
    /// Index of the sentence the clause belongs to.
    pub sentence: u16,
    /// The clause asks: it is followed by a question mark or ends in 吗/么.
    pub question: bool,
}

impl Clause {
    /// The clause's text.
    pub fn text<'a>(&self, s: &'a str) -> &'a str {
        &s[self.start..self.end]
    }
}

/// Splits `s` into clauses (empty ones dropped). A `.` between two digits is a decimal point.
pub fn clauses(s: &str) -> Vec<Clause> {
    split::<false>(s).clauses
}

/// A text read once for what the detectors ask of every assistant turn (issue 14, seventh
/// round): its clauses and, clause after clause, their character pairs and word characters.
///
/// Why: the clause split, the bigram walk of the turn, the walks of each clause (whether it is
/// the owner's preset words; repetition's whole turn, own words and sentences) and the word
/// counts each read every character of the turn on their own. No bigram spans a clause mark
/// (no mark is a word character), so the turn's bigrams, in order, are its clauses' bigrams one
/// clause after the other: one walk gives them all, and a clause's are a slice.
#[derive(Debug, Default)]
pub struct Scan {
    /// The clauses, as [`clauses`] gives them.
    pub clauses: Vec<Clause>,
    /// Their character pairs and word characters.
    pub pairs: Pairs,
    /// How many of its characters can be a digit ([`is_digitish`]): privacy looks for 4+
    /// digits in a row only where there are 4 at all (it counted them in a walk of its own).
    pub digitish: usize,
    /// How many of its characters are numerals (digits, `十`, `百` …): [`scanned_numbers`]
    /// reads no numbers where there are none (in four assistant turns of five).
    pub numerals: usize,
    /// How many of its characters are not [`is_plain`] (the meta check reads a turn of plain
    /// characters for self-reference alone).
    pub unplain: usize,
}

/// The character pairs of a text (as [`for_each_bigram`] calls them: in order, duplicates
/// kept, ASCII lower-cased), clause by clause; see [`Scan`].
#[derive(Debug, Default)]
pub struct Pairs {
    /// Every pair of the text, clause after clause.
    seq: Vec<u64>,
    /// Per clause: where its pairs start and end in `seq`, and its word characters
    /// ([`word_len`]).
    spans: Vec<(u32, u32, u32)>,
}

impl Pairs {
    /// Every pair of the text, in order (sort and dedup them for [`bigrams`]).
    pub fn all(&self) -> &[u64] {
        &self.seq
    }

    /// The pairs of clause `ci`, in order: what [`push_bigrams`] pushes for its text.
    pub fn of(&self, ci: usize) -> &[u64] {
        let (a, b, _) = self.spans[ci];
        &self.seq[a as usize..b as usize]
    }

    /// The word characters of clause `ci` ([`word_len`] of its text).
    pub fn words(&self, ci: usize) -> usize {
        self.spans[ci].2 as usize
    }
}

/// Splits `s` into clauses and the clauses' pairs, in one walk (see [`Scan`]).
pub fn scan(s: &str) -> Scan {
    split::<true>(s)
}

/// The one clause split: [`clauses`] without the pairs (`PAIRS` false: Han characters are
/// skipped undecoded), [`scan`] with them.
#[inline(always)]
fn split<const PAIRS: bool>(s: &str) -> Scan {
    let mut out = Vec::with_capacity(8);
    let mut pairs = Pairs::default();
    if PAIRS {
        pairs.seq.reserve(s.len() / 3);
        pairs.spans.reserve(8);
    }
    let mut walk = PairWalk::default();
    let (mut digitish, mut numerals, mut unplain) = (0, 0, 0);
    // (A bit per character of the Han block that is a numeral, and that is a digit's name.)
    let (cn_numerals, cn_digits): (&[u64], &[u64]) = if PAIRS {
        (&NUMERAL_BITS, &CN_DIGIT_BITS)
    } else {
        (&[], &[])
    };
    let mut start = 0;
    let mut sentence: u16 = 0;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        // Han characters (lead bytes E4..E9) and other non-punctuation: skip fast.
        let (c, len) = if b < 0x80 {
            (b as char, 1)
        } else if b == 0xE2 || b == 0xE3 || b == 0xEF {
            match s[i..].chars().next() {
                Some(c) => (c, c.len_utf8()),
                None => break,
            }
        } else {
            let len = if b >= 0xF0 {
                4
            } else if b >= 0xE0 {
                3
            } else {
                2
            };
            if PAIRS {
                // (Valid UTF-8: both continuation bytes are there.)
                let cp = if len == 3 {
                    (u32::from(b & 0x0F) << 12)
                        | (u32::from(bytes[i + 1] & 0x3F) << 6)
                        | u32::from(bytes[i + 2] & 0x3F)
                } else {
                    0
                };
                // (No character of two or four bytes, nor one of three outside the Han block
                // that does not start with E2, E3 or EF, is a digit in any notation.)
                if (0x4E00..0xA000).contains(&cp) {
                    let k = (cp - 0x4E00) as usize;
                    // (A digit's name is a numeral.)
                    if cn_numerals[k / 64] >> (k % 64) & 1 == 1 {
                        numerals += 1;
                        digitish += (cn_digits[k / 64] >> (k % 64) & 1) as usize;
                    }
                }
                let code = word_code(cp);
                // (Of these characters only Han ones and `·` are plain.)
                unplain +=
                    usize::from(code == 0 && !(len == 2 && bytes[i + 1] == 0xB7 && b == 0xC2));
                walk.step(code, &mut pairs.seq);
            }
            i += len;
            continue;
        };
        let decimal = c == '.'
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit());
        if !decimal && (is_clause_break(c) || c == '.') {
            if i > start {
                let text = &s[start..i];
                let question = matches!(c, '？' | '?') || ends_as_question(text);
                out.push(Clause {
                    start,
                    end: i,
                    sentence,
                    question,
                });
                if PAIRS {
                    walk.close(&mut pairs);
                }
            }
            if is_sentence_break(c) || c == '.' {
                sentence = sentence.saturating_add(1);
            }
            start = i + len;
            if PAIRS {
                // (A clause mark is no word character, nor a numeral: the next clause's pairs
                // start here.)
                unplain += usize::from(!is_plain(c));
                walk.step(0, &mut pairs.seq);
                walk.open(&pairs);
            }
        } else if PAIRS {
            digitish += usize::from(is_digitish(c));
            numerals += usize::from(is_numeral(c));
            unplain += usize::from(!is_plain(c));
            let code = if b < 0x80 {
                if b.is_ascii_alphanumeric() {
                    u32::from(b.to_ascii_lowercase())
                } else {
                    0
                }
            } else {
                word_code(c as u32)
            };
            walk.step(code, &mut pairs.seq);
        }
        i += len;
    }
    if start < s.len() {
        let text = &s[start..];
        out.push(Clause {
            start,
            end: s.len(),
            sentence,
            question: ends_as_question(text),
        });
        if PAIRS {
            walk.close(&mut pairs);
        }
    }
    Scan {
        clauses: out,
        pairs,
        digitish,
        numerals,
        unplain,
    }
}

/// Where [`split`] is in the pairs: the current clause's first pair, its word characters so
/// far, the word code before.
#[derive(Default)]
struct PairWalk {
    from: u32,
    words: u32,
    prev: u32,
}

impl PairWalk {
    /// One character, as its word code (0: no word character).
    #[inline(always)]
    fn step(&mut self, code: u32, seq: &mut Vec<u64>) {
        if code != 0 {
            self.words += 1;
            if self.prev != 0 {
                seq.push((u64::from(self.prev) << 32) | u64::from(code));
            }
        }
        self.prev = code;
    }

    /// The clause ends: its span.
    #[inline(always)]
    fn close(&self, pairs: &mut Pairs) {
        let to = u32::try_from(pairs.seq.len()).expect("texts under 4 GB");
        pairs.spans.push((self.from, to, self.words));
    }

    /// A clause starts.
    #[inline(always)]
    fn open(&mut self, pairs: &Pairs) {
        self.from = u32::try_from(pairs.seq.len()).expect("texts under 4 GB");
        self.words = 0;
    }
}

/// A character of ordinary spoken Chinese text: Han, a digit or ordinary punctuation — not `：`,
/// `:`, `、` or `.`, which lists and labels use too (`naturalness`'s meta check).
pub fn is_plain(c: char) -> bool {
    is_han(c)
        || c.is_ascii_digit()
        || matches!(
            c,
            '，' | '。'
                | '！'
                | '？'
                | '；'
                | '“'
                | '”'
                | '‘'
                | '’'
                | '…'
                | '—'
                | '～'
                | ' '
                | ','
                | '!'
                | '?'
                | ';'
                | '\''
                | '"'
                | '-'
                | '%'
                | '·'
        )
}

/// A code point above ASCII as the bigram walks read it: itself when it is Han, else 0.
#[inline(always)]
fn word_code(cp: u32) -> u32 {
    if (0x4e00..=0x9fff).contains(&cp) || (0x3400..=0x4dbf).contains(&cp) {
        cp
    } else {
        0
    }
}

fn ends_as_question(text: &str) -> bool {
    let t = text.trim_end();
    // (Read off the last character: asked of every clause of every turn.)
    // (A tag question, `lexicon.toml` `tag_questions`, asks too.)
    match t.chars().next_back() {
        Some('吗') => true,
        Some('么') => !lists().text.not_a_question_end.ends(t),
        _ => lexicon::TAG_QUESTIONS.ends(t),
    }
}

/// Where `s` holds an A-not-A form (能不能, 可不可以, 有没有): the byte offset of its first A. In
/// speech written without punctuation the question mark is missing, the form still asks (case
/// decision/unpunctuated-request).
pub fn a_not_a(s: &str) -> Option<usize> {
    let mut prev: [Option<(usize, char)>; 2] = [None, None];
    for (i, c) in s.char_indices() {
        if let [Some((at, a)), Some((_, n))] = prev
            && (n == '不' || n == '没')
            && a == c
            && is_han(c)
            && c != '不'
        {
            return Some(at);
        }
        prev = [prev[1], Some((i, c))];
    }
    None
}

/// Whether the word at `start..end` of `s` is the negative half of an A-not-A form (the 不能 of
/// `能不能`, the 没有 of `有没有`): it opens with 不 or 没, and the character before it is the word's
/// second. Such a word asks; it denies nothing.
pub fn a_not_a_word(s: &str, start: usize, end: usize) -> bool {
    let word = &s[start..end];
    word.starts_with(['不', '没']) && s[..start].chars().next_back() == word.chars().nth(1)
}

/// How a number of up to four Arabic digits is said in Chinese numerals: digit by digit
/// (`二一`, `七零一`) and, below 1,000, by value (`二十一`, `七百零一`).
pub fn spoken_numbers(ds: &str) -> Vec<String> {
    const D: [char; 10] = ['零', '一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let mut out = Vec::with_capacity(2);
    if ds.is_empty() || !ds.bytes().all(|b| b.is_ascii_digit()) {
        return out;
    }
    out.push(
        ds.bytes()
            .map(|b| D[usize::from(b - b'0')])
            .collect::<String>(),
    );
    let Ok(n) = ds.parse::<usize>() else {
        return out;
    };
    if (10..1000).contains(&n) {
        let (h, t, u) = (n / 100, n / 10 % 10, n % 10);
        let mut v = String::new();
        if h > 0 {
            v.push(D[h]);
            v.push('百');
            if t == 0 && u > 0 {
                v.push('零');
            }
        }
        if t > 0 {
            if !(h == 0 && t == 1) {
                v.push(D[t]);
            }
            v.push('十');
        }
        if u > 0 {
            v.push(D[u]);
        }
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// Sentence ranges (byte offsets) of `s`.
pub fn sentences(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::with_capacity(4);
    let mut start = 0;
    let bytes = s.as_bytes();
    for (i, c) in s.char_indices() {
        let decimal = c == '.'
            && i > 0
            && bytes[i - 1].is_ascii_digit()
            && bytes.get(i + 1).is_some_and(|b| b.is_ascii_digit());
        if !decimal && (is_sentence_break(c) || c == '.') {
            if s[start..i].chars().any(is_word_char) {
                out.push(start..i);
            }
            start = i + c.len_utf8();
        }
    }
    if s[start..].chars().any(is_word_char) {
        out.push(start..s.len());
    }
    out
}

/// The last `n` characters of `s`.
pub fn tail_chars(s: &str, n: usize) -> &str {
    let mut idx = s.len();
    for (k, (i, _)) in s.char_indices().rev().enumerate() {
        if k == n {
            break;
        }
        idx = i;
    }
    &s[idx..]
}

/// The byte offset of the first `needle` in `hay`: `hay.find(needle)`, faster on the short
/// clauses most calls search. (`str::find` sets up a two-way searcher on every call, some 340
/// instructions, before looking at a byte; over a clause of a few characters a plain scan is
/// done sooner. Long texts go to `str::find`, whose skips win there — after `str::contains`,
/// whose SIMD search sets up nothing: most words looked for are not there.)
pub fn find_str(hay: &str, needle: &str) -> Option<usize> {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    if h.len() > 64 || n.len() < 2 {
        if !hay.contains(needle) {
            return None;
        }
        return hay.find(needle);
    }
    // A match of valid UTF-8 in valid UTF-8 starts on a character boundary: the scan steps
    // from one to the next (a Han character is three bytes).
    const UTF8_LEN: [usize; 16] = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4];
    let mut i = 0;
    while i + n.len() <= h.len() {
        let b = h[i];
        if b == n[0] && h[i + 1] == n[1] && &h[i..i + n.len()] == n {
            return Some(i);
        }
        i += UTF8_LEN[usize::from(b >> 4)];
    }
    None
}

/// Whether `hay` holds `needle`: `hay.contains(needle)`, faster on short texts. (Below 16
/// bytes plus the needle, `str::contains` compares every window with `memcmp`; a clause is
/// often that short. Longer texts go to its SIMD search.)
pub fn contains_str(hay: &str, needle: &str) -> bool {
    if hay.len() > 64 || needle.len() < 2 {
        return hay.contains(needle);
    }
    find_str(hay, needle).is_some()
}

/// Whether `s` ends with `word`: `s.ends_with(word)`, asked of the last bytes first. (Asked of
/// every clause with a list of words, most of which do not end it: `ends_with` compares with a
/// call to `memcmp` each time.)
#[inline]
pub fn ends_with_word(s: &str, word: &str) -> bool {
    let (s, w) = (s.as_bytes(), word.as_bytes());
    match (s.last(), w.last()) {
        (Some(a), Some(b)) => a == b && s.ends_with(w),
        (_, None) => true,
        (None, Some(_)) => false,
    }
}

/// Whether `s` starts with `word`: `s.starts_with(word)`, asked of the first bytes first (see
/// [`ends_with_word`]).
#[inline]
pub fn starts_with_word(s: &str, word: &str) -> bool {
    let (s, w) = (s.as_bytes(), word.as_bytes());
    match (s.first(), w.first()) {
        (Some(a), Some(b)) => a == b && s.starts_with(w),
        (_, None) => true,
        (None, Some(_)) => false,
    }
}

/// Whether `s` ends with a word for the week (`周`, `星期`, `礼拜`: `lexicon.toml` `week_words`).
pub fn ends_with_week_word(s: &str) -> bool {
    lists().lexicon.week_words.ends(s)
}

/// Each occurrence of `needle` in `hay`, by byte offset, none overlapping: what
/// `hay.match_indices(needle)` yields. (`match_indices` sets up a two-way searcher on every call,
/// some 340 instructions, before it looks at a byte; most words looked for are not in the text,
/// and [`find_str`] says so sooner.)
pub fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut at = Some(0);
    std::iter::from_fn(move || {
        let from = at?;
        if needle.is_empty() {
            // (Every character boundary, the end included, as `match_indices("")` has them.)
            at = hay[from..].chars().next().map(|c| from + c.len_utf8());
            return Some(from);
        }
        let i = from + find_str(&hay[from..], needle)?;
        at = Some(i + needle.len());
        Some(i)
    })
}

/// The first `n` characters of `s`.
pub fn head_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Phrases that contain a negator but do not negate what follows.
static NOT_NEGATION: LazyLock<Words> = LazyLock::new(|| lists().text.not_negation);

/// Whether the words right before a keyword (`prefix`, the clause up to it) negate it, within
/// `window` characters: `我没法替机主决定`, `不能替他答应`, `不会透露`.
pub fn negated(prefix: &str, window: usize) -> bool {
    let t = tail_chars(prefix, window);
    let base = prefix.len() - t.len();
    for (i, c) in t.char_indices() {
        if !lists().text.negators.contains(&c) {
            continue;
        }
        let abs = base + i;
        // Part of a phrase that does not negate (不好意思, 没关系)?
        let blocked = NOT_NEGATION.iter().any(|p| {
            p.char_indices().any(|(k, pc)| {
                pc == c
                    && abs >= k
                    && prefix.is_char_boundary(abs - k)
                    && prefix[abs - k..].starts_with(p)
            })
        });
        if blocked {
            continue;
        }
        // A-not-A question (同不同意, 能不能): not a negation of the act.
        if c == '不' || c == '没' {
            let before = prefix[..abs].chars().next_back();
            let after = prefix[abs + c.len_utf8()..].chars().next();
            if before.is_some() && before == after {
                continue;
            }
        }
        return true;
    }
    false
}

/// Byte ranges of quoted text (“…”, 「…」, 『…』, "…"). An unclosed quote runs to the end.
pub fn quoted_ranges(s: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    if !QUOTE_OPENS.is_match(s) {
        return out;
    }
    let mut open: Option<(usize, char)> = None;
    for (i, c) in s.char_indices() {
        match open {
            None => {
                let close = match c {
                    '“' => '”',
                    '「' => '」',
                    '『' => '』',
                    '"' => '"',
                    '《' => '》',
                    _ => continue,
                };
                open = Some((i + c.len_utf8(), close));
            }
            Some((start, close)) if c == close => {
                out.push(start..i);
                open = None;
            }
            Some(_) => {}
        }
    }
    if let Some((start, _)) = open {
        out.push(start..s.len());
    }
    out
}

/// The marks that open a quotation: one question of a turn's word index instead of one
/// search of the turn per mark.
static QUOTE_OPENS: LazyLock<crate::lexicon::Ac> =
    LazyLock::new(|| crate::lexicon::ac(&["\"", "“", "「", "『", "《"]));

/// Builds this module's word lists (see `lexicon::build_lists`).
pub(crate) fn build_lists() {
    LazyLock::force(&QUOTE_OPENS);
    LazyLock::force(&CN_DIGIT_BITS);
    LazyLock::force(&NUMERAL_BITS);
}

/// Whether byte offset `pos` lies inside one of `ranges`.
pub fn inside(ranges: &[Range<usize>], pos: usize) -> bool {
    ranges.iter().any(|r| r.contains(&pos))
}

// ------------------------------------------------------------------------------------ n-grams

fn pack(a: char, b: char) -> u64 {
    (u64::from(a as u32) << 32) | u64::from(b as u32)
}

/// A packed bigram made of time characters only (上午, 周四, 十点).
pub fn time_pair(b: u64) -> bool {
    let time = |c: u32| char::from_u32(c).is_some_and(|c| lists().text.time_chars.contains(&c));
    time((b >> 32) as u32) && time((b & 0xffff_ffff) as u32)
}

/// Sorted, deduplicated character bigrams of `s`, within runs of word characters (no bigram
/// spans punctuation). ASCII letters are lower-cased.
pub fn bigrams(s: &str) -> Vec<u64> {
    let mut out = Vec::with_capacity(s.len() / 3 + 1);
    push_bigrams(s, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Appends the bigrams of `s` to `out` (unsorted).
pub fn push_bigrams(s: &str, out: &mut Vec<u64>) {
    // (Room for a text of Han characters at once: grown push by push, the buffers of presets,
    // clauses and facts were reallocated a dozen times per dialogue.)
    out.reserve(s.len() / 3);
    for_each_bigram(s, |b| out.push(b));
}

/// Calls `f` with every bigram of `s` (duplicates included), without allocating.
#[inline(always)]
pub fn for_each_bigram(s: &str, mut f: impl FnMut(u64)) {
    let mut prev = 0u32;
    for_each_word_code(s, |c| {
        if c != 0 && prev != 0 {
            f((u64::from(prev) << 32) | u64::from(c));
        }
        prev = c;
    });
}

/// Calls `f` once per character of `s`: its code point when it is a word character
/// ([`is_word_char`], ASCII letters lower-cased), else 0. The bigram walks run over every turn
/// and clause, several times per dialogue; decoding only what can be a word character (ASCII,
/// and the three-byte sequences that hold the Han blocks) costs about half of `str::chars`
/// followed by [`is_word_char`]. (Two- and four-byte characters are never word characters.)
#[inline(always)]
fn for_each_word_code(s: &str, mut f: impl FnMut(u32)) {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let x = b[i];
        let c = if x < 0x80 {
            i += 1;
            if x.is_ascii_alphanumeric() {
                u32::from(x.to_ascii_lowercase())
            } else {
                0
            }
        } else if x < 0xE0 {
            i += 2;
            0
        } else if x < 0xF0 {
            // (Valid UTF-8: both continuation bytes are there.)
            let cp = (u32::from(x & 0x0F) << 12)
                | (u32::from(b[i + 1] & 0x3F) << 6)
                | u32::from(b[i + 2] & 0x3F);
            i += 3;
            word_code(cp)
        } else {
            i += 4;
            0
        };
        f(c);
    }
}

/// Sorts and deduplicates a bigram list built with [`push_bigrams`].
pub fn finish(mut v: Vec<u64>) -> Vec<u64> {
    v.sort_unstable();
    v.dedup();
    v
}

/// |a ∩ b| for sorted, deduplicated lists.
pub fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// A sorted, deduplicated bigram list asked whether it holds a bigram, many times: a bit per
/// hash first (a bigram whose bit is clear is not in the list — most of a turn's bigrams are
/// in no preset), the binary search only for the few whose bit is set.
#[derive(Debug)]
pub struct BigramFilter<'a> {
    sorted: &'a [u64],
    bits: [u64; 8],
}

impl<'a> BigramFilter<'a> {
    /// The filter of `sorted` (sorted and deduplicated, as [`bigrams`] returns).
    pub fn new(sorted: &'a [u64]) -> BigramFilter<'a> {
        let mut bits = [0u64; 8];
        for &b in sorted {
            let h = Self::hash(b);
            bits[h >> 6] |= 1 << (h & 63);
        }
        BigramFilter { sorted, bits }
    }

    #[inline(always)]
    fn hash(b: u64) -> usize {
        (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 55) as usize
    }

    /// Whether the list holds `b`.
    #[inline]
    pub fn contains(&self, b: u64) -> bool {
        let h = Self::hash(b);
        self.bits[h >> 6] & (1 << (h & 63)) != 0 && self.sorted.binary_search(&b).is_ok()
    }
}

/// The bigrams of a text as a hash set, asked only whether it holds a bigram: built without
/// sorting (open addressing, at most half full). For the private facts' bigrams, asked of
/// each assistant turn's few dozen: a sort of the facts' hundred bigrams and a merge with each
/// turn's cost more than the table and a probe per bigram of the turn.
#[derive(Debug, Default)]
pub struct BigramSet {
    /// Bigram + 1 per slot (0: empty; no bigram is `u64::MAX`).
    slots: Vec<u64>,
    /// 64 − log2(slots).
    shift: u32,
}

impl BigramSet {
    /// The bigrams of `s`, as [`bigrams`] reads them.
    pub fn of(s: &str) -> BigramSet {
        let mut v = Vec::new();
        push_bigrams(s, &mut v);
        let len = (v.len() * 2).next_power_of_two().max(16);
        let mut set = BigramSet {
            slots: vec![0; len],
            shift: 64 - len.trailing_zeros(),
        };
        for b in v {
            let mut i = set.first(b);
            while set.slots[i] != 0 && set.slots[i] != b + 1 {
                i = (i + 1) & (len - 1);
            }
            set.slots[i] = b + 1;
        }
        set
    }

    #[inline(always)]
    fn first(&self, b: u64) -> usize {
        (b.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> self.shift) as usize
    }

    /// Whether the set holds `b`.
    #[inline]
    pub fn contains(&self, b: u64) -> bool {
        let mask = self.slots.len() - 1;
        let mut i = self.first(b);
        loop {
            match self.slots[i] {
                0 => return false,
                x if x == b + 1 => return true,
                _ => i = (i + 1) & mask,
            }
        }
    }
}

/// Whether `a` and `b` (sorted, deduplicated) share an element for which `keep` holds.
pub fn any_common(a: &[u64], b: &[u64], mut keep: impl FnMut(u64) -> bool) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                if keep(a[i]) {
                    return true;
                }
                i += 1;
                j += 1;
            }
        }
    }
    false
}

/// Whether every element of `a` is in `b` (both sorted, deduplicated): `containment(a, b) >=
/// 1.0` for a non-empty `a`, stopping at the first element missing.
pub fn contains_all(a: &[u64], b: &[u64]) -> bool {
    let mut j = 0;
    for &x in a {
        while j < b.len() && b[j] < x {
            j += 1;
        }
        if j == b.len() || b[j] != x {
            return false;
        }
        j += 1;
    }
    true
}

/// Share of `a`'s bigrams found in `b` (0 when `a` is empty).
pub fn containment(a: &[u64], b: &[u64]) -> f32 {
    if a.is_empty() {
        return 0.0;
    }
    intersection(a, b) as f32 / a.len() as f32
}

/// Dice similarity 2|a∩b| / (|a|+|b|).
pub fn dice(a: &[u64], b: &[u64]) -> f32 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    2.0 * intersection(a, b) as f32 / (a.len() + b.len()) as f32
}

/// Whether `dice(a, b) >= theta`, without the whole intersection: the score is the same float
/// expression of the shared count `n` (so `ok(n)` below is `dice >= theta` exactly, and rises
/// with `n`), and the count at most the shorter list: the lengths alone may rule it out, and
/// the merge stops once the count is reached or can no longer be.
pub fn dice_at_least(a: &[u64], b: &[u64], theta: f32) -> bool {
    if a.is_empty() && b.is_empty() {
        return dice(a, b) >= theta;
    }
    let denom = (a.len() + b.len()) as f32;
    let ok = |n: usize| 2.0 * n as f32 / denom >= theta;
    let most = a.len().min(b.len());
    if !ok(most) {
        return false;
    }
    // The least count that reaches `theta`: near theta·(|a|+|b|)/2, settled by `ok` itself.
    let mut need = ((theta * denom / 2.0) as usize).min(most);
    while need > 0 && ok(need - 1) {
        need -= 1;
    }
    while !ok(need) {
        need += 1;
    }
    let (mut i, mut j, mut n) = (0, 0, 0);
    while n < need {
        if n + (a.len() - i).min(b.len() - j) < need {
            return false;
        }
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    true
}

/// Whether a sorted bigram list holds the bigram of `a`, `b`.
pub fn has_bigram(set: &[u64], a: char, b: char) -> bool {
    set.binary_search(&pack(a, b)).is_ok()
}

/// Number of word characters in `s`.
pub fn word_len(s: &str) -> usize {
    let mut n = 0;
    for_each_word_code(s, |c| n += usize::from(c != 0));
    n
}

// ------------------------------------------------------------------------------------ numbers

/// What a number in the text measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumKind {
    /// A time of day: `三点半`, `下午5点`.
    Clock,
    /// A length of time: `十五分钟`, `一个小时`, `两三天`.
    Duration,
    /// Money: `两百块`, `28元`, `二十八块五`.
    Money,
    /// A day: `12号`, `周六`, `3月`.
    Date,
    /// A count or an address number: `3栋`, `两份`, `5楼`.
    Count,
    /// Bare digits (a code, a phone number, a plate): `2702`, `幺三八`.
    Digits,
    /// A numeral that states nothing specific (`一下`, `一点儿`, `第一时间`).
    Vague,
}

/// A number found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Num {
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset one past its unit.
    pub end: usize,
    /// Its value(s): a range such as `两三分钟` has two.
    pub values: [f64; 2],
    /// How many of `values` are used (1 or 2).
    pub n_values: u8,
    /// What it measures.
    pub kind: NumKind,
    /// The digit string when it was said digit by digit or in Arabic digits (`2702`).
    pub digits: Option<String>,
}

impl Num {
    /// The values.
    pub fn values(&self) -> &[f64] {
        &self.values[..usize::from(self.n_values)]
    }

    /// Whether it states something specific (not `一下`, `一点儿`).
    pub fn specific(&self) -> bool {
        self.kind != NumKind::Vague
    }
}

/// Whether `c` names a digit (`二`, `两`, `贰`) or ten (`十`).
pub fn is_cn_digit(c: char) -> bool {
    cn_digit(c).is_some() || c == '十'
}

/// The year a numeral before 年 names by its digits: four (`2019`, `二〇一九`) from 1900 to
/// 2099, or two (`一九`, `19`: 2019; `九八`: 1998) said digit by digit — not a count read with
/// 十 (`十三年`), nor one digit.
fn year_by_digits(run: &[char], arabic: bool) -> Option<f64> {
    let digits: Vec<u32> = if arabic {
        run.iter()
            .map(|&c| half_width(c).to_digit(10))
            .collect::<Option<_>>()?
    } else {
        // (Only the digit names: 两 and 俩 count things, they name no digit of a year.)
        run.iter()
            .map(|&c| cn_digit(c).filter(|_| !matches!(c, '两' | '俩')))
            .collect::<Option<_>>()?
    };
    let v = digits.iter().fold(0u32, |a, &d| a * 10 + d);
    match digits.len() {
        4 if (1900..=2099).contains(&v) => Some(f64::from(v)),
        // (Said in two digits only aloud: `19年` in figures is as often nineteen years. Not two
        // in a row nor a span of `year_spans`: `三四年`, `三五年`.)
        2 if !arabic
            && digits[1] != digits[0] + 1
            && !lists()
                .text
                .year_spans
                .contains(&run.iter().collect::<String>().as_str()) =>
        {
            Some(f64::from(if v < 50 { 2000 + v } else { 1900 + v }))
        }
        _ => None,
    }
}

fn cn_digit(c: char) -> Option<u32> {
    Some(match c {
        '零' | '〇' => 0,
        '一' | '幺' | '壹' => 1,
        '二' | '两' | '俩' | '贰' => 2,
        '三' | '叁' => 3,
        '四' | '肆' => 4,
        '五' | '伍' => 5,
        '六' | '陆' => 6,
        '七' | '柒' => 7,
        '八' | '捌' => 8,
        '九' | '玖' => 9,
        _ => return None,
    })
}

fn cn_mult(c: char) -> Option<u32> {
    Some(match c {
        '十' | '拾' => 10,
        '百' | '佰' => 100,
        '千' | '仟' => 1000,
        '万' => 10000,
        _ => return None,
    })
}

/// The names of digits ([`cn_digit`]) as a bitmap over U+4E00..U+A000.
static CN_DIGIT_BITS: LazyLock<Vec<u64>> = LazyLock::new(|| {
    let mut bits = vec![0u64; (0xA000 - 0x4E00) / 64 + 1];
    for u in 0x4E00u32..0xA000 {
        if char::from_u32(u).and_then(cn_digit).is_some() {
            let k = (u - 0x4E00) as usize;
            bits[k / 64] |= 1 << (k % 64);
        }
    }
    bits
});

/// Chinese numeral characters as a bitmap over U+4E00..U+A000.
static NUMERAL_BITS: std::sync::LazyLock<Vec<u64>> = std::sync::LazyLock::new(|| {
    let mut bits = vec![0u64; (0xA000 - 0x4E00) / 64 + 1];
    for u in 0x4E00u32..0xA000 {
        let c = char::from_u32(u).unwrap_or(' ');
        if cn_digit(c).is_some() || cn_mult(c).is_some() {
            let k = (u - 0x4E00) as usize;
            bits[k / 64] |= 1 << (k % 64);
        }
    }
    bits
});

fn is_numeral(c: char) -> bool {
    let u = c as u32;
    if u < 0x80 {
        return c.is_ascii_digit();
    }
    if is_fullwidth_digit(c) {
        return true;
    }
    if (0x4E00..0xA000).contains(&u) {
        let k = (u - 0x4E00) as usize;
        return NUMERAL_BITS[k / 64] >> (k % 64) & 1 == 1;
    }
    c == '〇'
}

/// Parses a run of Chinese numerals. Returns the value(s) and the digit string when the run was
/// read digit by digit.
fn parse_cn(run: &[char]) -> ([f64; 2], u8, Option<String>) {
    let has_mult = run.iter().any(|&c| cn_mult(c).is_some());
    if !has_mult {
        let ds: Vec<u32> = run.iter().filter_map(|&c| cn_digit(c)).collect();
        if ds.len() >= 3 {
            let s: String = ds.iter().map(|d| char::from(b'0' + *d as u8)).collect();
            let v = s.parse::<f64>().unwrap_or(0.0);
            return ([v, 0.0], 1, Some(s));
        }
        if ds.len() == 2 {
            // 两三, 七八, 三五: an approximate range.
            return ([f64::from(ds[0]), f64::from(ds[1])], 2, None);
        }
        return ([f64::from(ds.first().copied().unwrap_or(0)), 0.0], 1, None);
    }
    // 二十八, 两百, 一千二 (= 1200), 三百五 (= 350), 十五, 两万三.
    let mut total: u64 = 0;
    let mut section: u64 = 0;
    let mut digit: Option<u64> = None;
    let mut last_mult: u64 = 1;
    let mut range_second: Option<u64> = None;
    // 零 holds an empty place: the digit after it is in its own place, not a range's second
    // (一千零五十 = 1050, 七百零一 = 701; case factuality/zero-holds-a-place).
    let mut zero = false;
    for &c in run {
        if let Some(d) = cn_digit(c) {
            if d == 0 && last_mult > 1 && digit.is_none() {
                zero = true;
                continue;
            }
            if let Some(prev) = digit {
                // 十五六 / 二三十: a range; keep the first, remember the second.
                range_second = Some(u64::from(d));
                digit = Some(prev);
                continue;
            }
            digit = Some(u64::from(d));
        } else if let Some(m) = cn_mult(c) {
            let m = u64::from(m);
            if m == 10000 {
                section += digit.take().unwrap_or(0);
                total += section.max(1) * 10000;
                section = 0;
                last_mult = 10000;
            } else {
                section += digit.take().unwrap_or(1) * m;
                last_mult = m;
            }
        }
    }
    let mut value = total + section;
    if let Some(d) = digit {
        // A trailing digit after a multiplier means the next lower place: 一千二 = 1200.
        value += if last_mult >= 100 && !zero {
            d * last_mult / 10
        } else {
            d
        };
    }
    let v = value as f64;
    match range_second {
        Some(s) if last_mult == 10 => ([v, v - (v % 10.0) + s as f64], 2, None),
        _ => ([v, 0.0], 1, None),
    }
}

/// Words that begin with a numeral but state nothing specific.
static VAGUE_AFTER_ONE: LazyLock<Words> = LazyLock::new(|| lists().text.vague_after_one);

static TIME_OF_DAY: LazyLock<Words> = LazyLock::new(|| lists().text.time_of_day);

/// Units after a numeral, longest first, with what they measure (`data/words/text.toml`,
/// `units`).
static UNITS: LazyLock<Vec<(&'static str, NumKind)>> = LazyLock::new(|| {
    (lists().text.units.0.iter())
        .map(|&(u, k)| (u, unit_kind(k).unwrap_or(NumKind::Count)))
        .collect()
});

/// The kind of quantity a unit of `units` measures, by its name there (a name that is none of
/// these fails `lexicon::tests::every_word_list_loads`).
pub(crate) fn unit_kind(name: &str) -> Option<NumKind> {
    match name {
        "duration" => Some(NumKind::Duration),
        "count" => Some(NumKind::Count),
        "money" => Some(NumKind::Money),
        "date" => Some(NumKind::Date),
        _ => None,
    }
}

/// Characters a unit (or 点, 来, 多) can start with: the first characters of `units`, and
/// `unit_start_more`.
static UNIT_START: LazyLock<crate::lexicon::HanSet> = LazyLock::new(|| {
    crate::lexicon::HanSet::new(
        (UNITS.iter().filter_map(|(u, _)| u.chars().next()))
            .chain(lists().text.unit_start_more.iter().copied()),
    )
});

/// [`numbers`] of a text [`scan`] found `numerals` numerals in: none without one (every number
/// starts with one) or a `半` (`半小时`), without reading the text again.
pub fn scanned_numbers(s: &str, numerals: usize) -> Vec<Num> {
    if numerals == 0 && !s.contains('半') {
        return Vec::new();
    }
    numbers(s)
}

/// The values of the ordinals in `s` written in Chinese numerals (`第十二名`): [`numbers`] leaves
/// them out (an ordinal states no amount), but one the caller said grounds the assistant's
/// `第12名` (case factuality/a-score-and-a-rank-in-numerals; another rank is still made up, case
/// factuality/a-rank-made-up).
pub fn ordinal_values(s: &str) -> Vec<f64> {
    let mut out = Vec::new();
    for (i, _) in s.match_indices('第') {
        let run: Vec<char> = s[i + '第'.len_utf8()..]
            .chars()
            .take_while(|&c| cn_digit(c).is_some() || cn_mult(c).is_some())
            .collect();
        if !run.is_empty() {
            let (v, n, _) = parse_cn(&run);
            out.extend_from_slice(&v[..usize::from(n)]);
        }
    }
    out
}

/// Finds the numbers in `s`.
pub fn numbers(s: &str) -> Vec<Num> {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut run: Vec<char> = Vec::new();
    while pos < s.len() {
        // Next numeral character.
        let Some((off, c)) = s[pos..].char_indices().find(|&(_, c)| is_numeral(c)) else {
            break;
        };
        let start = pos + off;
        // A run of numerals (Arabic digits, Chinese numerals, a decimal point between digits).
        // Full-width digits (`８点`) are Arabic digits typed in a Chinese input method (case
        // factuality/full-width-digits).
        let arabic = c.is_ascii_digit() || is_fullwidth_digit(c);
        run.clear();
        let mut run_end = start;
        let mut it = s[start..].char_indices().peekable();
        while let Some((o, cj)) = it.next() {
            let ok = if arabic {
                cj.is_ascii_digit()
                    || is_fullwidth_digit(cj)
                    || (cj == '.' && o > 0 && it.peek().is_some_and(|&(_, nx)| nx.is_ascii_digit()))
            } else {
                cn_digit(cj).is_some() || cn_mult(cj).is_some()
            };
            if !ok {
                break;
            }
            run.push(cj);
            run_end = start + o + cj.len_utf8();
        }
        // A weekday's numeral is the day alone (`周一八十个`: Monday, then eighty; case
        // factuality/weekday-then-a-count).
        if !arabic
            && run.len() > 1
            && "一二三四五六".contains(run[0])
            && ends_with_week_word(&s[..start])
        {
            run.truncate(1);
            run_end = start + run[0].len_utf8();
        }
        let before = &s[..start];
        let after = &s[run_end..];
        // A clock time written with a colon (`8:30`, `20：10`): one time of day, not two numbers
        // (case factuality/clock-with-a-colon).
        if arabic
            && let Some(rest) = after.strip_prefix([':', '：'])
            && rest.len() >= 2
            && rest.as_bytes()[..2].iter().all(u8::is_ascii_digit)
            && !rest.as_bytes().get(2).is_some_and(u8::is_ascii_digit)
        {
            let h: String = run.iter().map(|&c| half_width(c)).collect();
            if let (Ok(h), Ok(m)) = (h.parse::<u32>(), rest[..2].parse::<u32>())
                && h <= 24
                && m < 60
            {
                let end = run_end + (after.len() - rest.len()) + 2;
                out.push(Num {
                    start,
                    end,
                    values: [f64::from(h) + f64::from(m) / 60.0, 0.0],
                    n_values: 1,
                    kind: NumKind::Clock,
                    digits: None,
                });
                pos = end;
                continue;
            }
        }
        match classify(s, start, run_end, &run, arabic, before, after) {
            Some(n) => {
                // Skip over the unit so `三点半` is one number.
                pos = n.end.max(run_end);
                out.push(n);
            }
            None => pos = run_end,
        }
    }
    // 半小时 / 半个小时 / 半个钟头: half an hour, with no numeral (一个半小时 is read above).
    if s.contains('半') {
        for w in lists().text.half_hour.iter().copied() {
            for i in occurrences(s, w) {
                let prev = s[..i].chars().next_back();
                if prev
                    .is_some_and(|p| is_numeral(p) || lists().text.not_half_hour_after.contains(&p))
                    || out.iter().any(|n| n.start <= i && i < n.end)
                {
                    continue;
                }
                // Half an hour is also thirty minutes (`三十分钟` said as `半小时`).
                out.push(Num {
                    start: i,
                    end: i + w.len(),
                    values: [0.5, 30.0],
                    n_values: 2,
                    kind: NumKind::Duration,
                    digits: None,
                });
            }
        }
        out.sort_by_key(|n| n.start);
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn classify(
    s: &str,
    start: usize,
    run_end: usize,
    run: &[char],
    arabic: bool,
    before: &str,
    after: &str,
) -> Option<Num> {
    let first = run[0];
    // A lone Chinese numeral before a character that starts no unit (一下, 一起, 两句) and not
    // a weekday: nothing to read.
    if !arabic && run.len() == 1 {
        // 这一片, 那一带, 哪一位, 每一个: a demonstrative, not a count.
        // 下一单, 上一个: next and previous, not a count either.
        if matches!(first, '一') && before.ends_with(lists().text.not_a_count_before_one.0) {
            return None;
        }
        let next = after.chars().next().unwrap_or(' ');
        let weekday = ends_with_week_word(before);
        if !weekday && !UNIT_START.contains(next) {
            return None;
        }
    }
    let (values, n_values, digits) = if arabic {
        let t: String = run.iter().map(|&c| half_width(c)).collect();
        let v = t.parse::<f64>().unwrap_or(0.0);
        // 50万 is 五十万: the same amount in either notation.
        let v = match after.chars().next() {
            Some('万') => v * 10_000.0,
            Some('亿') => v * 100_000_000.0,
            _ => v,
        };
        ([v, 0.0], 1u8, Some(t.replace('.', "")))
    } else {
        // 万一, 千万, 百分百: not numbers here.
        if matches!(first, '万' | '千' | '百' | '拾' | '佰' | '仟') {
            return None;
        }
        parse_cn(run)
    };
    let mut num = Num {
        start,
        end: run_end,
        values,
        n_values,
        kind: NumKind::Vague,
        digits,
    };
    // Weekdays: 周六, 星期三, 礼拜天.
    if !arabic && run.len() == 1 && ends_with_week_word(before) {
        num.kind = NumKind::Date;
        num.values[0] += 100.0; // keep weekdays apart from day numbers
        return Some(num);
    }
    let ordinal = before.ends_with('第');
    // A decimal said aloud before a unit of measure (`十二点五公斤`, `一点二米`): a figure, no
    // time (case factuality/a-decimal-said-aloud).
    if let Some(rest) = after.strip_prefix('点') {
        let frac: Vec<u32> = rest.chars().map_while(cn_digit).collect();
        let flen: usize = rest.chars().take(frac.len()).map(char::len_utf8).sum();
        if !frac.is_empty()
            && let Some(unit) = lists()
                .text
                .decimal_units
                .iter()
                .find(|u| rest[flen..].starts_with(**u))
        {
            let f: f64 = frac
                .iter()
                .enumerate()
                .map(|(i, &d)| f64::from(d) / 10f64.powi(i as i32 + 1))
                .sum();
            num.values[0] += f;
            num.n_values = 1;
            num.kind = NumKind::Count;
            num.end = run_end + '点'.len_utf8() + flen + unit.len();
            return Some(num);
        }
    }
    let single_one = !arabic && run.len() == 1 && matches!(first, '一' | '幺' | '壹');
    // Clock: X点, X点半, X点十分, X点一刻.
    if let Some(rest) = after.strip_prefix('点') {
        let time_context = TIME_OF_DAY.ends(before)
            || lists().text.clock_after_dian.starts(rest)
            || rest.chars().next().is_some_and(is_numeral);
        // (`一点都不` is no time; `两点到五点都可以` is two — case
        // factuality/a-read-back-reordered.)
        let not_time = rest.starts_with('儿')
            || rest.starts_with('点')
            || rest.starts_with('都') && num.values[0] == 1.0;
        // 这两点, 几点: not a time; a small numeral needs a time word around it.
        let demonstrative = before
            .chars()
            .next_back()
            .is_some_and(|p| lists().text.not_clock_before.contains(&p));
        let small = !arabic && num.values[0] <= 2.0;
        if !not_time && !demonstrative && (time_context || !small) && !ordinal {
            num.kind = NumKind::Clock;
            let mut end = run_end + '点'.len_utf8();
            let mut minutes = 0.0;
            if rest.starts_with('钟') {
                end += '钟'.len_utf8();
            } else if rest.starts_with('半') {
                end += '半'.len_utf8();
                minutes = 30.0;
            } else if rest.starts_with("一刻") {
                end += "一刻".len();
                minutes = 15.0;
            } else {
                // Minutes: 三点十分, 3点20, 三点零五.
                let mut m: Vec<char> = rest.chars().take_while(|&c| is_numeral(c)).collect();
                // One Chinese numeral that opens a word (`八点一定到`, `九点一起走`, `三点两个人`)
                // says no minutes: those come as 零五, 十分, 二十 (case
                // factuality/a-numeral-opening-a-word-after-the-hour).
                if m.len() == 1
                    && !m[0].is_ascii_digit()
                    && rest[m[0].len_utf8()..]
                        .chars()
                        .next()
                        .is_some_and(|c| is_han(c) && c != '分')
                {
                    m.clear();
                }
                if !m.is_empty() {
                    let mlen: usize = m.iter().map(|c| c.len_utf8()).sum();
                    let mv = if m[0].is_ascii_digit() {
                        m.iter().collect::<String>().parse::<f64>().unwrap_or(0.0)
                    } else {
                        let m2: Vec<char> = m.iter().copied().filter(|&c| c != '零').collect();
                        if m2.is_empty() {
                            0.0
                        } else {
                            parse_cn(&m2).0[0]
                        }
                    };
                    end += mlen;
                    if rest[mlen..].starts_with('分') {
                        end += '分'.len_utf8();
                    }
                    minutes = mv;
                }
            }
            let h = num.values[0];
            num.values[0] = h + minutes / 60.0;
            if num.n_values == 2 {
                num.values[1] += minutes / 60.0;
            }
            num.end = end.min(s.len());
            return Some(num);
        }
        return if arabic {
            num.kind = NumKind::Digits;
            Some(num)
        } else {
            None
        };
    }
    // Units.
    let after_ge = after.strip_prefix('来').unwrap_or(after); // 十来分钟
    let after_ge = after_ge.strip_prefix('多').unwrap_or(after_ge); // 十多分钟
    let skipped = after.len() - after_ge.len();
    for (u, kind) in UNITS.iter() {
        if after_ge.starts_with(u) {
            let mut kind = *kind;
            if single_one
                && !matches!(kind, NumKind::Money)
                && VAGUE_AFTER_ONE.starts(after)
                && !lists().text.durations_after_one.starts(after)
            {
                kind = NumKind::Vague;
            }
            if lists().text.small_count_units.contains(u) {
                // 两个, 三个人: counts of things are rarely checkable facts; 一个 never.
                if !arabic && num.values[0] < 2.0 {
                    kind = NumKind::Vague;
                }
            }
            // 跑两趟, 说两句: a manner of speaking.
            if lists().text.manner_units.contains(u) && !arabic && num.values[0] <= 2.0 {
                kind = NumKind::Vague;
            }
            // 箱子角瘪了一块, 少了一块: a piece, not a yuan; 压坏一角: a corner, not a tenth of
            // one (case factuality/a-corner-is-no-money) — unless 钱 follows.
            if (*u == "块" && s[..num.start].ends_with('了') || *u == "角")
                && !arabic
                && num.values[0] < 2.0
                && !after_ge
                    .strip_prefix(*u)
                    .is_some_and(|r| r.starts_with('钱'))
            {
                kind = NumKind::Vague;
            }
            // 第一次, 第一个: a manner of speaking; 第五次, 第三个路口: a specific.
            if ordinal && !arabic && num.values[0] < 2.0 {
                kind = NumKind::Vague;
            }
            num.kind = kind;
            num.end = run_end + skipped + u.len();
            // A year said by its digits (`2019年`, `一九年`, `二〇一三年`): a date, the year in
            // full, however it is said — not so many years (`十三年`) (case
            // factuality/a-year-in-two-digits).
            if *u == "年"
                && skipped == 0
                && let Some(year) = year_by_digits(run, arabic)
            {
                num.kind = NumKind::Date;
                num.values = [year, 0.0];
                num.n_values = 1;
                return Some(num);
            }
            // 五毛, 三角: tenths of a yuan (not the 五 of 五分钟 said before; case
            // factuality/tenths-of-a-yuan).
            if kind == NumKind::Money && lists().text.tenths_of_yuan.contains(u) {
                for v in num.values.iter_mut() {
                    *v /= 10.0;
                }
                // 两毛五: 五 is 分 (case factuality/fen-after-mao).
                let rest = &s[num.end..];
                let mut cs = rest.chars();
                if let Some(d) = cs.next().and_then(cn_digit)
                    && num.n_values == 1
                    && cs
                        .next()
                        .is_none_or(|c| !is_han(c) || lists().text.figure_ends.contains(&c))
                {
                    // (In whole fen, so that 两毛五 is 0.25 exactly.)
                    let fen = (num.values[0] * 100.0).round() + f64::from(d);
                    num.values[0] = fen / 100.0;
                    num.end += rest.chars().next().map_or(0, char::len_utf8);
                }
            }
            // 二十八块五, 12块5: 五, 5 is 角 (an Arabic digit only alone, ending the figure: not
            // `12块50`, `30元5个`; case factuality/yuan-and-jiao-in-digits).
            if kind == NumKind::Money && lists().text.yuan_units.contains(u) {
                let rest = &s[num.end..];
                let mut cs = rest.chars();
                let (first, next) = (cs.next(), cs.next());
                let digit = first.and_then(|c| {
                    cn_digit(c).or_else(|| {
                        c.to_digit(10).filter(|_| {
                            next.is_none_or(|n| {
                                !n.is_ascii_digit()
                                    && (!is_han(n) || lists().text.after_yuan_digit.contains(&n))
                            })
                        })
                    })
                });
                if let Some(d) = digit {
                    num.values[0] += f64::from(d) / 10.0;
                    num.end += rest.chars().next().map_or(0, char::len_utf8);
                    if let Some(w) =
                        (lists().text.tenths_of_yuan.iter()).find(|w| s[num.end..].starts_with(**w))
                    {
                        num.end += w.len();
                    }
                }
            }
            // 十七吨六, 一米八, 三十一吨半: a tenth or a half of the measure (not `六百公斤`, a
            // figure of its own).
            if lists().text.tenths_units.contains(u) && num.n_values == 1 {
                let rest = &s[num.end..];
                let mut cs = rest.chars();
                let first = cs.next();
                let next = cs.next();
                // (The tenth ends the figure — `十七吨六，`, `一米八的` — not begins a count of
                // its own: `二十斤一箱`.)
                let own_figure =
                    next.is_some_and(|c| is_han(c) && !lists().text.figure_ends.contains(&c));
                if let Some(f) = first
                    && !own_figure
                {
                    if f == '半' {
                        num.values[0] += 0.5;
                        num.end += f.len_utf8();
                    } else if let Some(d) = cn_digit(f) {
                        num.values[0] += f64::from(d) / 10.0;
                        num.end += f.len_utf8();
                    }
                }
            }
            return Some(num);
        }
    }
    if arabic {
        num.kind = NumKind::Digits;
        return Some(num);
    }
    if num.digits.is_some() {
        num.kind = NumKind::Digits;
        return Some(num);
    }
    // A bare Chinese numeral: vague unless it carries a 十/百 (二十八 said alone is a number).
    if run.iter().any(|&c| cn_mult(c).is_some()) && !ordinal && run.len() >= 2 {
        // 十二分的 (wholly), 十足: not a number — but 八十七分 is a score (case
        // factuality/a-score-and-a-rank-in-numerals).
        if lists().text.not_a_number_after.starts(after) {
            return None;
        }
        num.kind = NumKind::Count;
        return Some(num);
    }
    None
}

/// Normalises digits said in Chinese (`幺三八`) or full-width to ASCII digits; other characters
/// are dropped. Used to compare phone numbers and codes.
pub fn digit_string(s: &str) -> String {
    s.chars()
        .filter_map(|c| {
            if c.is_ascii_digit() {
                Some(c)
            } else if ('０'..='９').contains(&c) {
                char::from_u32(c as u32 - '０' as u32 + '0' as u32)
            } else {
                cn_digit(c).map(|d| char::from(b'0' + d as u8))
            }
        })
        .collect()
}

/// A full-width digit (`０`–`９`).
fn is_fullwidth_digit(c: char) -> bool {
    ('０'..='９').contains(&c)
}

/// A full-width digit as its ASCII digit; any other character as it is.
fn half_width(c: char) -> char {
    if is_fullwidth_digit(c) {
        char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c)
    } else {
        c
    }
}

/// A digit in any notation digit strings are read from (Arabic, full-width, Chinese names).
pub fn is_digitish(c: char) -> bool {
    c.is_ascii_digit() || ('０'..='９').contains(&c) || cn_digit(c).is_some()
}

/// Maximal runs of at least `min` digits (Arabic, full-width or Chinese digit names read one by
/// one, with spaces or dashes inside), as (byte range, digit string). `三点半` is not a run of 3;
/// `138 0013 8000` is one run.
pub fn digit_runs(s: &str, min: usize) -> Vec<(Range<usize>, String)> {
    fn digit(c: char) -> Option<char> {
        if c.is_ascii_digit() {
            Some(c)
        } else if ('０'..='９').contains(&c) {
            char::from_u32(c as u32 - '０' as u32 + '0' as u32)
        } else {
            cn_digit(c).map(|d| char::from(b'0' + d as u8))
        }
    }
    let mut out = Vec::new();
    // (start, end, count) of the current run
    let mut cur: Option<(usize, usize, usize)> = None;
    let flush = |cur: &mut Option<(usize, usize, usize)>, out: &mut Vec<(Range<usize>, String)>| {
        if let Some((a, b, n)) = cur.take()
            && n >= min
        {
            let ds: String = s[a..b].chars().filter_map(digit).collect();
            out.push((a..b, ds));
        }
    };
    for (i, c) in s.char_indices() {
        let d = if is_numeral(c) || ('０'..='９').contains(&c) {
            digit(c)
        } else {
            None
        };
        match (d, &mut cur) {
            (Some(_), Some((_, end, n))) => {
                *end = i + c.len_utf8();
                *n += 1;
            }
            (Some(_), None) => cur = Some((i, i + c.len_utf8(), 1)),
            (None, Some((_, end, _))) if matches!(c, ' ' | '-' | '－') && *end == i => {}
            (None, Some(_)) => flush(&mut cur, &mut out),
            (None, None) => {}
        }
    }
    flush(&mut cur, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bigram_walk_reads_what_chars_reads() {
        // The walk decodes by hand; `str::chars` and `is_word_char` are the definition.
        let reference = |s: &str| {
            let (mut v, mut prev) = (Vec::new(), None::<char>);
            for c in s.chars() {
                if is_word_char(c) {
                    let c = c.to_ascii_lowercase();
                    if let Some(p) = prev {
                        v.push(pack(p, c));
                    }
                    prev = Some(c);
                } else {
                    prev = None;
                }
            }
            v
        };
        for s in [
            "",
            "您好，外卖到了，我在楼下。",
            "AbC12 xY",
            "㐀㐁䶿䷀一丁鿿ꀀ",
            "é中文ü文字😀中国𠀀字Ab",
            "「你好」“Hi”『OK』《书》～—…",
            "ｆｕｌｌ　ｗｉｄｔｈ１２",
        ] {
            let mut v = Vec::new();
            push_bigrams(s, &mut v);
            assert_eq!(v, reference(s), "{s}");
            assert_eq!(
                word_len(s),
                s.chars().filter(|&c| is_word_char(c)).count(),
                "{s}"
            );
        }
    }

    /// One walk gives what the clause split, the turn's bigram walk and each clause's give.
    #[test]
    fn the_scan_reads_what_the_separate_walks_read() {
        for s in [
            "",
            "，。",
            "您好，外卖到了，我在楼下。您看行吗？好的",
            "AbC12 xY, 3.5元. ok",
            "㐀㐁䶿䷀一丁鿿ꀀ，㐀a",
            "é中文ü文字😀中国𠀀字Ab～～好",
            "「你好」“Hi”『OK』《书》～—…",
            "ｆｕｌｌ　ｗｉｄｔｈ１２，三点半\n再见 ",
            "幺三八〇，两个壹贰叁肆伍陆柒捌玖零俩 7 号十百千",
            "等半小时，半个钟头",
            "·好的：是、不.是 ‘x’%-\"'\t　¥\n- 好～~—",
        ] {
            let sc = scan(s);
            assert_eq!(sc.clauses, clauses(s), "{s}");
            let mut v = Vec::new();
            push_bigrams(s, &mut v);
            assert_eq!(sc.pairs.all(), &v[..], "{s}");
            for (ci, c) in sc.clauses.iter().enumerate() {
                let mut w = Vec::new();
                push_bigrams(c.text(s), &mut w);
                assert_eq!(sc.pairs.of(ci), &w[..], "{s}: clause {ci}");
                assert_eq!(sc.pairs.words(ci), word_len(c.text(s)), "{s}: clause {ci}");
            }
            assert_eq!(
                sc.digitish,
                s.chars().filter(|&c| is_digitish(c)).count(),
                "{s}"
            );
            assert_eq!(
                sc.numerals,
                s.chars().filter(|&c| is_numeral(c)).count(),
                "{s}"
            );
            assert_eq!(scanned_numbers(s, sc.numerals), numbers(s), "{s}");
            assert_eq!(
                sc.unplain,
                s.chars().filter(|&c| !is_plain(c)).count(),
                "{s}"
            );
        }
    }

    fn vals(s: &str) -> Vec<(Vec<f64>, NumKind)> {
        numbers(s)
            .into_iter()
            .map(|n| (n.values().to_vec(), n.kind))
            .collect()
    }

    #[test]
    fn chinese_numerals() {
        assert_eq!(vals("三点半"), vec![(vec![3.5], NumKind::Clock)]);
        assert_eq!(vals("两百块"), vec![(vec![200.0], NumKind::Money)]);
        assert_eq!(vals("十五分钟"), vec![(vec![15.0], NumKind::Duration)]);
        assert_eq!(vals("二十八块五"), vec![(vec![28.5], NumKind::Money)]);
        assert_eq!(vals("还差12块5，"), vec![(vec![12.5], NumKind::Money)]);
        assert_eq!(vals("皮重十七吨六"), vec![(vec![17.6], NumKind::Count)]);
        assert_eq!(vals("两毛五"), vec![(vec![0.25], NumKind::Money)]);
        assert_eq!(vals("三十一吨半"), vec![(vec![31.5], NumKind::Count)]);
        assert_eq!(vals("个子一米八"), vec![(vec![1.8], NumKind::Count)]);
        assert_eq!(
            vals("稍等两三分钟"),
            vec![(vec![2.0, 3.0], NumKind::Duration)]
        );
        assert_eq!(vals("一千二"), vec![(vec![1200.0], NumKind::Count)]);
        assert_eq!(vals("下午三点以后"), vec![(vec![3.0], NumKind::Clock)]);
        assert_eq!(vals("中午十二点半"), vec![(vec![12.5], NumKind::Clock)]);
        assert_eq!(vals("一个小时"), vec![(vec![1.0], NumKind::Duration)]);
        // A year by its digits, however said; a span or a count of years is none.
        assert_eq!(vals("一九年"), vec![(vec![2019.0], NumKind::Date)]);
        assert_eq!(vals("九八年"), vec![(vec![1998.0], NumKind::Date)]);
        assert_eq!(vals("2019年"), vec![(vec![2019.0], NumKind::Date)]);
        assert_eq!(vals("二〇一三年"), vec![(vec![2013.0], NumKind::Date)]);
        assert_eq!(vals("十三年")[0].1, NumKind::Duration);
        assert_eq!(vals("三四年")[0].1, NumKind::Duration);
        assert_eq!(vals("三五年")[0].1, NumKind::Duration);
        assert_eq!(vals("19年")[0].1, NumKind::Duration);
        assert_eq!(vals("2702室"), vec![(vec![2702.0], NumKind::Count)]);
        assert_eq!(vals("周六上午"), vec![(vec![106.0], NumKind::Date)]);
        assert!(
            vals("稍等一下，我说一声，一点儿也不")
                .iter()
                .all(|v| v.1 == NumKind::Vague)
        );
        assert!(
            vals("第一时间，万一，千万别，十分感谢")
                .iter()
                .all(|v| v.1 == NumKind::Vague)
        );
        assert_eq!(digit_string("幺三八零"), "1380");
    }

    #[test]
    fn negation() {
        assert!(negated("这个我没法替机主", 8));
        assert!(negated("我不能替他", 8));
        assert!(!negated("不好意思，他", 8));
        assert!(!negated("您看同", 8));
    }

    /// The fast paths give what the plain std calls give (the checker's reports must not move).
    #[test]
    fn find_str_is_str_find() {
        let hays = [
            "",
            "的话",
            "您要是方便的话就放门口",
            "我说了，他交代过放驿站",
            "abc的话def",
            "ab",
            // Longer than the short-clause path: std's search.
            "您好，王先生现在不方便接电话，我是他的来电助理，他交代过的话我可以帮您转告，请问有什么事",
        ];
        let needles = [
            "的话",
            "交代过",
            "说",
            "ab",
            "c的",
            "转告",
            "放门口就行啊",
            "不方便接电话",
        ];
        for h in hays {
            for n in needles {
                assert_eq!(find_str(h, n), h.find(n), "{n:?} in {h:?}");
            }
        }
    }

    #[test]
    fn word_ends_are_str_ends() {
        for s in ["", "是吧", "对吧？", "您看是不是", "a", "好的，是吧"] {
            for w in ["", "吧", "是吧", "是不是", "a", "您看是不是啊"] {
                assert_eq!(ends_with_word(s, w), s.ends_with(w), "{s:?} ends {w:?}");
                assert_eq!(
                    starts_with_word(s, w),
                    s.starts_with(w),
                    "{s:?} starts {w:?}"
                );
            }
        }
    }

    #[test]
    fn occurrences_are_match_indices() {
        let hays = [
            "",
            "的话的话",
            "aaaa",
            "您要是方便的话就放门口，不方便的话放驿站",
            // Longer than the short-clause path.
            "您好，王先生现在不方便接电话，我是他的来电助理，他交代过的话我可以帮您转告，的话的话",
        ];
        for h in hays {
            for n in ["的话", "aa", "a", "", "驿站", "不方便"] {
                let want: Vec<usize> = h.match_indices(n).map(|(i, _)| i).collect();
                assert_eq!(
                    occurrences(h, n).collect::<Vec<_>>(),
                    want,
                    "{n:?} in {h:?}"
                );
            }
        }
    }

    #[test]
    fn dice_bound_is_exact() {
        let a: Vec<u64> = (0..10).collect();
        let b: Vec<u64> = (0..6).collect();
        let c: Vec<u64> = (5..15).collect();
        let d: Vec<u64> = (0..40).filter(|x| x % 3 != 0).collect();
        let e: Vec<u64> = (0..40).filter(|x| x % 5 != 0).collect();
        let f: Vec<u64> = (20..60).collect();
        for (x, y) in [
            (&a, &a),
            (&a, &b),
            (&b, &a),
            (&a, &c),
            (&b, &c),
            (&b, &b),
            (&d, &e),
            (&e, &d),
            (&d, &f),
            (&e, &f),
            (&a, &d),
        ] {
            for theta in [
                -1.0,
                0.0,
                0.3,
                0.5,
                0.6,
                0.7,
                0.75,
                0.8,
                0.85,
                0.9,
                1.0,
                1.5,
                f32::NAN,
            ] {
                assert_eq!(
                    dice_at_least(x, y, theta),
                    dice(x, y) >= theta,
                    "{x:?} {y:?} at {theta}"
                );
            }
        }
        assert_eq!(dice_at_least(&[], &[], 0.0), dice(&[], &[]) >= 0.0);
    }

    #[test]
    fn clause_split() {
        let s = "好的，他同意了。您看行吗？";
        let c = clauses(s);
        assert_eq!(c.len(), 3);
        assert!(c[2].question);
        assert_eq!(c[1].text(s), "他同意了");
    }
}
