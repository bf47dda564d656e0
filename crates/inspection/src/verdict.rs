//! The auditors' verdicts: `DIR/inspection/verdicts.jsonl`, one [`Verdict`] a line, append-only.
//!
//! [`VerdictStore::append`] validates a verdict against the sample, writes it as one line with
//! `O_APPEND` and fsyncs the file before it returns, so a review server that answers only after
//! `append` never acknowledges a verdict that a crash could lose. Appends from several request
//! handlers are serialised by a mutex; a second process that tries to record into the same file
//! is refused (an advisory lock on the file), so lines never interleave.
//!
//! A crash mid-append leaves at most a torn last line (no newline). Readers ignore it;
//! [`VerdictStore::open`] cuts it away before appending anything, so the next line starts clean.
//! Nothing is ever rewritten: a changed mind is a new line, and [`latest`] keeps the last line per
//! auditor and dialogue.

use crate::error::{InspectionError, Result};
use crate::files::{self, VERDICTS_JSONL, inspection_dir};
use crate::sample::read_sample;
use callbench_model::JUDGE_DIMENSIONS;
use callbench_model::vocab::VIOLATION_KINDS;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The longest auditor name accepted, in characters.
pub const MAX_AUDITOR_CHARS: usize = 64;

/// An auditor's decision on a dialogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// The dialogue belongs in the corpus.
    Accept,
    /// The dialogue should have been rejected.
    Reject,
}

impl Decision {
    /// `true` for [`Decision::Accept`].
    pub fn accepted(self) -> bool {
        self == Decision::Accept
    }
}

/// A problem an auditor tagged on a turn, in the checker's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// A violation kind of the contract's vocabulary (`safety.privacy`, …).
    pub kind: String,
    /// 0-based index into the dialogue's turns.
    pub turn: usize,
    /// The auditor's remark.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One auditor's verdict on one sampled dialogue: a line of `verdicts.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// Who gave it (1–64 characters, trimmed).
    pub auditor: String,
    /// The sampled dialogue's id.
    pub id: String,
    /// Accept or reject (`"accept"` / `"reject"`).
    pub verdict: Decision,
    /// The problems found, turn by turn.
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// Ratings on the judge's dimensions ([`JUDGE_DIMENSIONS`]), each in 0–1; any subset.
    #[serde(default)]
    pub ratings: BTreeMap<String, f64>,
    /// A free remark.
    #[serde(default)]
    pub note: String,
    /// When it was given, RFC 3339. Left empty, [`VerdictStore::append`] stamps the current time.
    #[serde(default)]
    pub at: String,
}

/// What the store knows of a sampled dialogue to validate a verdict on it.
#[derive(Debug, Clone)]
struct Known {
    turns: usize,
}

struct Inner {
    file: File,
    /// Bytes in the file: every byte up to here is a complete line.
    len: u64,
    /// Every verdict in the file, in order.
    verdicts: Vec<Verdict>,
}

/// The append-only verdict file of a sample, open for recording. Share it between request
/// handlers (`Arc<VerdictStore>`); it is `Send + Sync`.
pub struct VerdictStore {
    path: PathBuf,
    sample: HashMap<String, Known>,
    kinds: BTreeSet<String>,
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for VerdictStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VerdictStore")
            .field("path", &self.path)
            .field("sampled", &self.sample.len())
            .finish_non_exhaustive()
    }
}

/// The path of the verdict file of a corpus.
pub fn verdicts_path(corpus_dir: &Path) -> PathBuf {
    inspection_dir(corpus_dir).join(VERDICTS_JSONL)
}

impl VerdictStore {
    /// Opens `DIR/inspection/verdicts.jsonl` for recording (creating it), after reading the
    /// sample (`sample.json`, which must exist) and every verdict already recorded. A torn last
    /// line left by a crash is cut away. Fails with [`InspectionError::Locked`] while another
    /// process has the file open for recording.
    pub fn open(corpus_dir: &Path) -> Result<VerdictStore> {
        let summary = read_sample(corpus_dir)?;
        let path = verdicts_path(corpus_dir);
        let dir = inspection_dir(corpus_dir);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(&path)
            .map_err(|e| InspectionError::io(&path, e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                return Err(InspectionError::Locked { path });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(InspectionError::io(&path, e)),
        }
        files::sync_dir(&dir)?;
        let bytes = std::fs::read(&path).map_err(|e| InspectionError::io(&path, e))?;
        let (verdicts, keep) = parse(&bytes, &path)?;
        if keep < bytes.len() {
            tracing::warn!(
                file = %path.display(),
                bytes = bytes.len() - keep,
                "cutting a torn last verdict line (a crash mid-write; it was never acknowledged)"
            );
            file.set_len(keep as u64)
                .and_then(|()| file.sync_all())
                .map_err(|e| InspectionError::io(&path, e))?;
        }
        let mut kinds: BTreeSet<String> = VIOLATION_KINDS.iter().map(|k| k.to_string()).collect();
        let mut sample = HashMap::new();
        for e in &summary.dialogues {
            kinds.extend(e.checker_kinds.iter().cloned());
            sample.insert(e.id.clone(), Known { turns: e.turns });
        }
        Ok(VerdictStore {
            path,
            sample,
            kinds,
            inner: Mutex::new(Inner {
                file,
                len: keep as u64,
                verdicts,
            }),
        })
    }

    /// The verdict file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The violation kinds an auditor may tag: the contract's, and any further kind the checker
    /// reported in the sample.
    pub fn kinds(&self) -> impl Iterator<Item = &str> {
        self.kinds.iter().map(String::as_str)
    }

    /// Checks a verdict and returns it as it would be stored: the auditor's name trimmed and an
    /// empty `at` stamped with the current time. Refusals are [`InspectionError::Verdict`]
    /// naming the key at fault.
    pub fn validate(&self, v: &Verdict) -> Result<Verdict> {
        let refuse = |message: String| InspectionError::Verdict {
            path: self.path.clone(),
            auditor: v.auditor.clone(),
            id: v.id.clone(),
            message,
        };
        let mut out = v.clone();
        out.auditor = v.auditor.trim().to_string();
        let n = out.auditor.chars().count();
        if n == 0 {
            return Err(refuse("`auditor`: a name is required".into()));
        }
        if n > MAX_AUDITOR_CHARS {
            return Err(refuse(format!(
                "`auditor`: {n} characters, at most {MAX_AUDITOR_CHARS}"
            )));
        }
        if out.auditor.chars().any(char::is_control) {
            return Err(refuse(
                "`auditor`: control characters are not allowed".into(),
            ));
        }
        let Some(known) = self.sample.get(&v.id) else {
            return Err(refuse(
                "`id`: not a dialogue of the inspection sample".into(),
            ));
        };
        for (i, f) in v.findings.iter().enumerate() {
            if !self.kinds.contains(&f.kind) {
                return Err(refuse(format!(
                    "`findings[{i}].kind`: unknown violation kind {:?} (expected one of: {})",
                    f.kind,
                    self.kinds.iter().cloned().collect::<Vec<_>>().join(", ")
                )));
            }
            if f.turn >= known.turns {
                return Err(refuse(format!(
                    "`findings[{i}].turn`: turn {} is past the last turn (the dialogue has {} turns, 0-based)",
                    f.turn, known.turns
                )));
            }
        }
        for (dim, &r) in &v.ratings {
            if !JUDGE_DIMENSIONS.contains(&dim.as_str()) {
                return Err(refuse(format!(
                    "`ratings.{dim}`: unknown dimension (expected one of: {})",
                    JUDGE_DIMENSIONS.join(", ")
                )));
            }
            if !(r.is_finite() && (0.0..=1.0).contains(&r)) {
                return Err(refuse(format!("`ratings.{dim}`: {r} is not in 0–1")));
            }
        }
        if out.at.is_empty() {
            out.at = files::now_rfc3339();
        } else if !files::is_rfc3339(&out.at) {
            return Err(refuse(format!(
                "`at`: {:?} is not an RFC 3339 time",
                out.at
            )));
        }
        Ok(out)
    }

    /// Validates a verdict, appends it as one line and fsyncs the file; returns the verdict as
    /// stored. When this returns `Ok`, the verdict survives a crash; when it returns an error,
    /// nothing of it is in the file.
    pub fn append(&self, v: &Verdict) -> Result<Verdict> {
        let v = self.validate(v)?;
        let mut line =
            serde_json::to_vec(&v).map_err(|e| InspectionError::json(&self.path, None, e))?;
        line.push(b'\n');
        let mut inner = self.lock();
        let written = inner
            .file
            .write_all(&line)
            .and_then(|()| inner.file.sync_data());
        if let Err(e) = written {
            // Take back whatever part of the line reached the file, so the next append starts
            // on a line of its own.
            let len = inner.len;
            let _ = inner
                .file
                .set_len(len)
                .and_then(|()| inner.file.sync_data());
            return Err(InspectionError::io(&self.path, e));
        }
        inner.len += line.len() as u64;
        inner.verdicts.push(v.clone());
        Ok(v)
    }

    /// Every verdict recorded, in the order recorded (including those of earlier runs of the
    /// server).
    pub fn load(&self) -> Vec<Verdict> {
        self.lock().verdicts.clone()
    }

    /// The latest verdict per (auditor, dialogue id); see [`latest`].
    pub fn latest(&self) -> BTreeMap<(String, String), Verdict> {
        latest(&self.lock().verdicts)
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A handler that panicked mid-append leaves the file as consistent as a crash would.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Reads every verdict of a corpus without opening the file for recording (the audit does this
/// while a review server may be running). A torn last line is ignored; a missing file is no
/// verdicts. A damaged line elsewhere is an error naming the file and line.
pub fn load_verdicts(corpus_dir: &Path) -> Result<Vec<Verdict>> {
    let path = verdicts_path(corpus_dir);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(InspectionError::io(&path, e)),
    };
    Ok(parse(&bytes, &path)?.0)
}

/// The last verdict per (auditor, dialogue id), in file order: an auditor who changed their
/// mind is counted once, with their latest word.
pub fn latest(verdicts: &[Verdict]) -> BTreeMap<(String, String), Verdict> {
    let mut out = BTreeMap::new();
    for v in verdicts {
        out.insert((v.auditor.clone(), v.id.clone()), v.clone());
    }
    out
}

/// Parses the complete lines of a verdict file; returns the verdicts and the length of the
/// complete part (what follows the last newline is a torn line).
fn parse(bytes: &[u8], path: &Path) -> Result<(Vec<Verdict>, usize)> {
    let keep = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let mut out = Vec::new();
    for (i, line) in bytes[..keep].split(|&b| b == b'\n').enumerate() {
        let line_no = i + 1;
        let text = std::str::from_utf8(line).map_err(|e| {
            InspectionError::json(
                path,
                Some(line_no),
                format!("not valid UTF-8 (byte {})", e.valid_up_to() + 1),
            )
        })?;
        if text.trim().is_empty() {
            continue;
        }
        let v: Verdict = serde_json::from_str(text)
            .map_err(|e| InspectionError::json_line(path, line_no, &e))?;
        out.push(v);
    }
    Ok((out, keep))
}
