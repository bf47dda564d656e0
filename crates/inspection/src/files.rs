//! The inspection folder's paths, atomic file replacement and the clock.

use crate::error::Result;
use std::path::{Path, PathBuf};

/// The inspection folder inside a corpus directory.
pub const INSPECTION_DIR: &str = "inspection";
/// The sample's dialogues as a Parquet file of the shard schema.
pub const SAMPLE_PARQUET: &str = "sample.parquet";
/// The sample's dialogues in the interchange format.
pub const SAMPLE_JSONL: &str = "sample.jsonl";
/// The printable sample.
pub const SAMPLE_HTML: &str = "sample.html";
/// The sample's description ([`crate::SampleSummary`]).
pub const SAMPLE_JSON: &str = "sample.json";
/// The auditors' verdicts, one JSON object a line, append-only.
pub const VERDICTS_JSONL: &str = "verdicts.jsonl";
/// The agreement report as Markdown.
pub const AUDIT_MD: &str = "audit.md";
/// The agreement report as HTML.
pub const AUDIT_HTML: &str = "audit.html";

/// `corpus_dir/inspection`.
pub fn inspection_dir(corpus_dir: &Path) -> PathBuf {
    corpus_dir.join(INSPECTION_DIR)
}

/// Writes `bytes` to `dest` atomically: a hidden temp file beside it is written and fsynced,
/// renamed over `dest`, and the folder is fsynced. A reader sees the old file or the new one.
/// The corpus crate's [`corpus::write_atomic`], so that every file of a corpus directory is
/// replaced the same way.
pub(crate) fn write_atomic(dest: &Path, bytes: &[u8]) -> Result<()> {
    Ok(corpus::write_atomic(dest, bytes)?)
}

/// Fsyncs a directory so that a rename or a new entry in it survives a crash
/// ([`corpus::sync_dir`]).
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    Ok(corpus::sync_dir(dir)?)
}

/// The current UTC time as RFC 3339 (`2025-01-31T08:15:00Z`): the corpus crate's clock, so that
/// manifests, samples, verdicts and reports stamp time the same way.
pub fn now_rfc3339() -> String {
    corpus::now_rfc3339()
}

/// Whether `s` is an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)`, `t`/`z` and a
/// space for `T` accepted as RFC 3339 allows.
pub fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let num = |r: std::ops::Range<usize>| s[r].parse::<u32>().unwrap_or(99);
    if b.len() < 20
        || !digits(0..4)
        || b[4] != b'-'
        || !digits(5..7)
        || b[7] != b'-'
        || !digits(8..10)
        || !matches!(b[10], b'T' | b't' | b' ')
        || !digits(11..13)
        || b[13] != b':'
        || !digits(14..16)
        || b[16] != b':'
        || !digits(17..19)
    {
        return false;
    }
    if !(1..=12).contains(&num(5..7))
        || !(1..=31).contains(&num(8..10))
        || num(11..13) > 23
        || num(14..16) > 59
        || num(17..19) > 60
    {
        return false;
    }
    let mut i = 19;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [b'Z' | b'z'] => true,
        [b'+' | b'-', _, _, b':', _, _] => {
            digits(i + 1..i + 3)
                && digits(i + 4..i + 6)
                && num(i + 1..i + 3) <= 23
                && num(i + 4..i + 6) <= 59
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339() {
        assert!(is_rfc3339(&now_rfc3339()));
        assert!(is_rfc3339("2025-01-31T08:15:00Z"));
        assert!(is_rfc3339("2025-01-31T08:15:00.123+08:00"));
        assert!(!is_rfc3339("2025-01-31 08:15"));
        assert!(!is_rfc3339("2025-13-31T08:15:00Z"));
        assert!(!is_rfc3339("2025-01-31T08:15:00"));
        assert!(!is_rfc3339("2025-01-31T08:15:00.Z"));
        assert!(!is_rfc3339("yesterday"));
    }
}
