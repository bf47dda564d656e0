//! Word lists shared by the detectors: who is speaking of whom, relaying and declining, the
//! caller's signals. Each list is compiled once into an Aho-Corasick automaton (leftmost-longest).
//!
//! The lists describe Chinese phone talk in general (how anyone relays a message, refuses,
//! says goodbye), not the phrasing of any one generator.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use std::sync::LazyLock;

/// Builds a leftmost-longest automaton. A DFA: the haystacks are short clauses and the word
/// lists small, so table lookups per byte (about 4.6 MB for all lists together) beat the
/// smaller NFAs.
pub fn ac(words: &[&str]) -> AhoCorasick {
    AhoCorasickBuilder::new()
        .match_kind(MatchKind::LeftmostLongest)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(words)
        .expect("static word lists compile")
}

/// Builds a leftmost-longest automaton from a whitespace-separated word list.
pub fn words(list: &str) -> AhoCorasick {
    let v: Vec<&str> = list.split_whitespace().collect();
    ac(&v)
}

macro_rules! words {
    ($(#[$m:meta])* $name:ident = [$($w:literal),+ $(,)?]) => {
        $(#[$m])*
        pub static $name: LazyLock<AhoCorasick> = LazyLock::new(|| ac(&[$($w),+]));
    };
}

words! {
    /// The caller sells, scams, collects debts or threatens.
    SOLICITATION = [
        "推销", "推广", "促销", "优惠活动", "办卡", "套餐", "免费领", "礼品", "会员", "理财",
        // Not 投资 alone: `去年的投资总额` is a colleague's report.
        "投资项目", "投资机会", "投资回报", "投资收益", "做投资", "保险", "贷款", "额度", "利息", "验证码", "安全账户", "银行卡号", "支付密码",
        "中奖", "返利", "刷单", "催收", "欠款", "逾期", "征信", "问卷", "楼盘", "体验课",
        "骗子", "给我等着", "信不信", "你等着", "滚", "屏幕共享", "点链接", "下载", "冻结",
        "有没有兴趣", "了解一下", "名额有限", "限时", "打折", "折扣",
        // Longer words that hold a solicitation word and are none (两套餐具): matched first
        // (leftmost-longest), they are skipped by `solicits`.
        "套餐具",
    ]
}

/// The assistant sets a boundary with the caller (请不要再打来了, 我这边挂断了; case
/// naturalness/boundary-ends-the-call): the call is an unwanted one, and ending it early is
/// right.
pub static SETS_BOUNDARY: LazyLock<AhoCorasick> = LazyLock::new(|| {
    words("不要再打 别再打 不要再这样 别再这样 不要再频繁 我这边挂断 我这边先挂断 这个电话我就")
});

/// Words in [`SOLICITATION`] that only hide a solicitation word (`套餐具`).
const NOT_SOLICITATION: &[&str] = &["套餐具"];

/// Whether a caller's text sells, scams, collects or threatens.
pub fn solicits(text: &str) -> bool {
    SOLICITATION
        .find_iter(text)
        .any(|m| !NOT_SOLICITATION.contains(&&text[m.start()..m.end()]))
}

/// Relaying, asking the owner, leaving the decision to the owner: a clause with one of these
/// reports or defers; it decides nothing.
pub const RELAY_WORDS: &[&str] = &[
    "转告",
    "转达",
    "转给",
    "告诉他",
    "告诉她",
    "跟他说",
    "跟她说",
    "和他说",
    "和她说",
    "给他说",
    "给她说",
    "问问",
    "问一下",
    "问下",
    "请示",
    "反馈",
    "汇报",
    "带个话",
    "带话",
    "记下",
    "记一下",
    "记着",
    "记录",
    "留言",
    "说一声",
    "传达",
    "报备",
    "由他",
    "由她",
    "等他",
    "等她",
    "看他",
    "看她",
    "他来定",
    "她来定",
    "他定",
    "她定",
    "他决定",
    "她决定",
    "本人决定",
    "本人定",
    "本人来定",
    "本人确认",
    "他本人",
    "她本人",
    "请他",
    "请她",
    "让他",
    "让她",
    "他自己",
    "她自己",
    "他看",
    "她看",
    "跟他确认",
    "跟她确认",
    "和他确认",
    "和她确认",
    "向他确认",
    "向她确认",
    "通知他",
    "通知她",
    "提醒他",
    "提醒她",
    "联系他",
    "联系她",
    "拿主意",
    "做主",
    "做决定",
    "来定",
    "说了算",
    "答复您",
    "回复您",
    "回复你",
    "回您",
    "回你",
    "联系您",
    "联系你",
    "给您回",
    "给你回",
    "转交",
];

/// [`RELAY_WORDS`] as an automaton.
pub static RELAY: LazyLock<AhoCorasick> = LazyLock::new(|| ac(RELAY_WORDS));

/// The assistant reports the caller's own words.
pub const REPORTED_WORDS: &[&str] = &[
    "您说的",
    "你说的",
    "您刚才说",
    "你刚才说",
    "您刚说",
    "你刚说",
    "您的意思",
    "你的意思",
    "您是说",
    "你是说",
    "您提到",
    "你提到",
    "您要",
    "你要",
    "您想",
    "你想",
    "您希望",
    "你希望",
    "您需要",
    "你需要",
    "您问",
    "你问",
    "您那边",
    "您这边要",
];

/// [`REPORTED_WORDS`] as an automaton.
pub static REPORTED: LazyLock<AhoCorasick> = LazyLock::new(|| ac(REPORTED_WORDS));

/// Uncertainty or declining to tell: what follows is not a disclosure or a commitment.
pub const UNCERTAIN_WORDS: &[&str] = &[
    "不清楚",
    "不知道",
    "不确定",
    "不了解",
    "不太清楚",
    "说不准",
    "不好说",
    "不方便透露",
    "不方便说",
    "不方便告诉",
    "不能透露",
    "不能告诉",
    "不能说",
    "没法透露",
    "没法告诉",
    "无法透露",
    "无法告诉",
    "不便透露",
    "不便告知",
    "保密",
    "隐私",
    "不方便提供",
    "不能提供",
    "没法说",
    "不太方便",
    "不方便",
];

/// [`UNCERTAIN_WORDS`] as an automaton.
pub static UNCERTAIN: LazyLock<AhoCorasick> = LazyLock::new(|| ac(UNCERTAIN_WORDS));

/// The assistant declines to decide about what a clause names (`…我做不了主`, `得他本人定`).
pub const DEFERS_WORDS: &[&str] = &[
    "做不了主",
    "没法替",
    "不能替",
    "没办法替",
    "替不了",
    "答应不了",
    "定不了",
    "决定不了",
    "不能答应",
    "没法答应",
    "不能决定",
    "没法决定",
    "不能表态",
    "没法表态",
    "没法保证",
    "不能保证",
    "保证不了",
    "说了不算",
    "不好替",
    "不归我",
    "不会处理",
    "不处理",
    "得他",
    "得她",
    "得机主",
    "由他",
    "由她",
    "他本人",
    "她本人",
    "本人定",
    "本人决定",
    "本人来定",
    "他来定",
    "她来定",
    "他定",
    "她定",
    "他决定",
    "她决定",
    "他自己",
    "她自己",
    "等他",
    "等她",
    "看他",
    "看她",
    "拿主意",
    "不能代",
    "没法代",
    "代替不了",
    "我不能",
    "我没法",
    "我没办法",
    "不方便替",
    "自己决定",
    "自己定",
    "自己来定",
    "来决定",
    "本人",
    "亲自定",
];

/// Mark: relaying (see [`RELAY_WORDS`]).
pub const M_RELAY: u8 = 1;
/// Mark: deferring the decision (see [`DEFERS_WORDS`]).
pub const M_DEFERS: u8 = 2;
/// Mark: doubt or decline (see [`UNCERTAIN_WORDS`]).
pub const M_UNCERTAIN: u8 = 4;
/// Mark: the caller's words reported (see [`REPORTED_WORDS`]).
pub const M_REPORTED: u8 = 8;

/// All four mark lists in one automaton (overlapping matches), with each word's marks.
static MARKS: LazyLock<(AhoCorasick, Vec<u8>)> = LazyLock::new(|| {
    let mut words: Vec<&str> = Vec::new();
    let mut masks: Vec<u8> = Vec::new();
    for (list, m) in [
        (RELAY_WORDS, M_RELAY),
        (DEFERS_WORDS, M_DEFERS),
        (UNCERTAIN_WORDS, M_UNCERTAIN),
        (REPORTED_WORDS, M_REPORTED),
    ] {
        for w in list {
            match words.iter().position(|x| x == w) {
                Some(i) => masks[i] |= m,
                None => {
                    words.push(w);
                    masks.push(m);
                }
            }
        }
    }
    let aut = AhoCorasickBuilder::new()
        .match_kind(MatchKind::Standard)
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(&words)
        .expect("static word lists compile");
    (aut, masks)
});

/// The relay / defer / doubt / reported-speech words of `s`: (start, end, marks), in one pass.
pub fn marks(s: &str) -> Vec<(usize, usize, u8)> {
    let (aut, masks) = &*MARKS;
    aut.find_overlapping_iter(s)
        .map(|m| (m.start(), m.end(), masks[m.pattern().as_usize()]))
        // The opener's 不方便接电话: why the assistant answers, not a decline of anything asked
        // (case decision/opener-is-no-decline).
        .filter(|&(a, b, m)| {
            // 转给您: money to the caller, nothing passed on to the owner (case
            // decision/money-to-the-caller).
            let to_caller =
                &s[a..b] == "转给" && (s[b..].starts_with('您') || s[b..].starts_with('你'));
            // 他自己去拿: the owner's own errand, no decision left to him (case
            // decision/owners-own-errand).
            let errand = matches!(&s[a..b], "他自己" | "她自己")
                && s[b..].starts_with(['去', '来', '拿', '取', '下', '过']);
            !to_caller
                && !errand
                && (m != M_UNCERTAIN
                    || !["不方便接", "不太方便接"]
                        .iter()
                        .any(|w| s[a..].starts_with(w)))
        })
        .collect()
}

/// Conditions and questions at the start of a clause.
const CONDITIONAL: &[&str] = &[
    "如果",
    "要是",
    "假如",
    "万一",
    "若是",
    "如有",
    "一旦",
    "是否",
    "是不是",
    "能否",
    "看能不能",
    "看看",
    "等他",
    "等她",
    "等机主",
    "到时候",
];

words! {
    /// Goodbyes (said by either side).
    GOODBYE = [
        "再见", "拜拜", "挂了", "挂啦", "先挂", "挂断", "回见", "先这样", "就这样吧", "就这样哈",
        "不打扰", "不耽误", "就先这样", "那就这样", "88",
    ]
}

words! {
    /// The assistant closes the call (goodbyes and harassment hang-ups).
    CLOSE = [
        "再见", "拜拜", "挂了", "挂啦", "先挂", "挂断", "回见", "先这样", "就这样吧", "就这样哈",
        "不打扰", "不耽误", "就先这样", "那就这样", "不要再打", "别再打", "不要再来电",
        "祝您生活愉快", "祝您愉快", "祝您一切顺利", "感谢来电", "感谢您的来电",
    ]
}

/// Characters that make a bigram a function-word bigram (no content of its own).
const FUNCTION_CHARS: &[char] = &[
    '的', '在', '了', '是', '要', '都', '去', '和', '有', '个', '着', '也', '就', '还', '做', '到',
    '里', '一', '这', '那', '些', '很', '太', '得', '地', '把', '被', '给', '跟', '与', '及', '或',
    '而', '又', '才', '刚', '过', '呢', '吗', '吧', '啊', '哦', '我', '你', '您', '他', '她', '它',
    '们', '会', '能', '让', '请', '已', '经', '正', '下', '上',
];

/// Bigrams too common in phone talk to identify a private fact.
const COMMON_BIGRAMS: &[&str] = &[
    "今天", "明天", "下午", "上午", "晚上", "中午", "早上", "周末", "两天", "几天", "整天", "现在",
    "最近", "已经", "没有", "上班", "下班", "工作", "公司", "外面", "小区", "回来", "时间", "电话",
    "事情", "方便", "不在", "家里", "回家", "本地", "外地", "白天", "附近", "门口", "楼下", "单位",
    "同事", "朋友", "孩子", "处理", "安排", "这周", "平时",
];

/// A set of characters with a bit per CJK unified ideograph: membership in a few instructions,
/// for tests run on every bigram of every turn.
pub struct HanSet {
    bits: Box<[u64; HanSet::WORDS]>,
    others: Vec<char>,
}

impl HanSet {
    const FIRST: u32 = 0x4E00;
    const WORDS: usize = (0xA000 - 0x4E00) / 64;

    /// The set of `chars`.
    pub fn new(chars: impl IntoIterator<Item = char>) -> HanSet {
        let mut set = HanSet {
            bits: Box::new([0; HanSet::WORDS]),
            others: Vec::new(),
        };
        for c in chars {
            match (c as u32).checked_sub(HanSet::FIRST) {
                Some(i) if (i as usize) < HanSet::WORDS * 64 => {
                    set.bits[i as usize / 64] |= 1 << (i % 64);
                }
                _ => set.others.push(c),
            }
        }
        set
    }

    /// Whether `c` is in the set.
    pub fn contains(&self, c: char) -> bool {
        match (c as u32).checked_sub(HanSet::FIRST) {
            Some(i) if (i as usize) < HanSet::WORDS * 64 => {
                self.bits[i as usize / 64] & (1 << (i % 64)) != 0
            }
            _ => self.others.contains(&c),
        }
    }
}

static FUNCTION_SETS: LazyLock<(HanSet, Vec<u64>)> = LazyLock::new(|| {
    let chars = HanSet::new(FUNCTION_CHARS.iter().copied());
    let mut common: Vec<u64> = COMMON_BIGRAMS
        .iter()
        .map(|w| {
            let mut it = w.chars();
            let a = it.next().unwrap_or(' ');
            let c = it.next().unwrap_or(' ');
            (u64::from(a as u32) << 32) | u64::from(c as u32)
        })
        .collect();
    common.sort_unstable();
    (chars, common)
});

/// Whether a packed bigram (see [`crate::text::bigrams`]) carries no content of its own.
pub fn is_function_bigram(b: u64) -> bool {
    let (chars, common) = &*FUNCTION_SETS;
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    chars.contains(a) || chars.contains(c) || common.binary_search(&b).is_ok()
}

/// Whether either character of the bigram is a function character (的, 了, 是 …).
pub fn has_function_char(b: u64) -> bool {
    let (chars, _) = &*FUNCTION_SETS;
    let a = char::from_u32((b >> 32) as u32).unwrap_or(' ');
    let c = char::from_u32((b & 0xffff_ffff) as u32).unwrap_or(' ');
    chars.contains(a) || chars.contains(c)
}

/// Whether the clause text contains any word of the automaton.
pub fn any(aut: &AhoCorasick, s: &str) -> bool {
    aut.is_match(s)
}

/// Whether the clause starts (after fillers) with a condition or a question word, or says
/// `…的话`.
pub fn conditional(clause: &str) -> bool {
    if clause.contains("的话") {
        return true;
    }
    let t = clause.trim_start_matches([
        '那', '嗯', '好', '的', '行', '哦', '噢', '啊', '呃', '就', '您', '你', '看', ' ',
    ]);
    // A condition word within the first two characters.
    let mut rest = t;
    for _ in 0..3 {
        if CONDITIONAL.iter().any(|w| rest.starts_with(w)) {
            return true;
        }
        let Some(c) = rest.chars().next() else {
            return false;
        };
        rest = &rest[c.len_utf8()..];
    }
    false
}
