//! Keeping API keys out of what the client hands back: a provider may repeat the key (or part
//! of it) in an error message, and that message would travel through [`crate::LlmError`] into
//! logs, reject reasons and reports. Everything the client takes from a response — error bodies
//! and reply contents — passes through [`Redactor::redact`] first.

use std::borrow::Cow;

/// A fragment of the key at least this long is redacted (shorter ones say too little to matter,
/// and would redact ordinary words).
pub const MIN_FRAGMENT: usize = 8;

/// What a redacted stretch of text becomes.
pub const REDACTED: &str = "[redacted]";

/// Replaces every occurrence of one key, and of every fragment of it of at least
/// [`MIN_FRAGMENT`] characters (the whole key, if shorter), with [`REDACTED`].
#[derive(Clone, Default)]
pub struct Redactor {
    key: Vec<char>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Redactor(..)")
    }
}

impl Redactor {
    /// A redactor for `key` (an empty key redacts nothing).
    pub fn new(key: &str) -> Redactor {
        Redactor {
            key: key.trim().chars().collect(),
        }
    }

    /// `text` with the key and its long fragments replaced; borrowed when there were none.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let key = &self.key;
        if key.is_empty() {
            return Cow::Borrowed(text);
        }
        let min = MIN_FRAGMENT.min(key.len());
        let chars: Vec<char> = text.chars().collect();
        let mut covered = vec![false; chars.len()];
        let mut any = false;
        for i in 0..chars.len() {
            if chars.len() - i < min {
                break;
            }
            // The longest stretch from `i` that occurs somewhere in the key.
            let mut best = 0;
            for k in 0..key.len() {
                let mut l = 0;
                while i + l < chars.len() && k + l < key.len() && chars[i + l] == key[k + l] {
                    l += 1;
                }
                best = best.max(l);
            }
            if best >= min {
                covered[i..i + best].iter_mut().for_each(|c| *c = true);
                any = true;
            }
        }
        if !any {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut i = 0;
        while i < chars.len() {
            if covered[i] {
                out.push_str(REDACTED);
                while i < chars.len() && covered[i] {
                    i += 1;
                }
            } else {
                out.push(chars[i]);
                i += 1;
            }
        }
        Cow::Owned(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_and_its_long_fragments_are_redacted() {
        let r = Redactor::new("sk-live-ABCDEFGH12345678");
        assert_eq!(
            r.redact("bad key sk-live-ABCDEFGH12345678 given"),
            "bad key [redacted] given"
        );
        // A masked key shows a prefix and a suffix: each of 8 or more characters is redacted.
        assert_eq!(
            r.redact("key sk-live-AB****5678 / ABCDEFGH1 / 2345678"),
            "key [redacted]****5678 / [redacted] / 2345678"
        );
        // Twice, and adjacent to other text.
        assert_eq!(
            r.redact("xsk-live-ABCDEFGH12345678sk-live-ABCDEFGH12345678y"),
            "x[redacted]y"
        );
        assert!(matches!(
            r.redact("nothing here: sk-live"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            Redactor::new("").redact("sk-live-ABCDEFGH"),
            "sk-live-ABCDEFGH"
        );
        // A key shorter than the fragment length is redacted whole.
        assert_eq!(Redactor::new("abc12").redact("k=abc12;"), "k=[redacted];");
        // Non-ASCII text around it stays intact.
        assert_eq!(r.redact("密钥ABCDEFGH12无效"), "密钥[redacted]无效");
        assert_eq!(format!("{r:?}"), "Redactor(..)");
    }
}
