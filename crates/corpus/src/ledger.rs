//! The resume ledger `OUT/ledger.jsonl`: an append-only record of the shards a run has finished,
//! so that re-running `generate` with the same `--out` picks up where it stopped.
//!
//! The first line is the run header, `{"kind":"run","fingerprint":…,"seed":…,"count":…,
//! "rows_per_shard":…}`; every further line is `{"kind":"shard", …ShardInfo}`, appended and
//! fsynced after the shard (and its rejects file) is safely on disk. A crash mid-append leaves a
//! torn last line, which is ignored and cut away; a shard that was recorded but whose file has
//! since gone missing or changed is not counted as done and will be regenerated.

use crate::atomic::{sync_dir, write_atomic};
use crate::error::{CorpusError, Result};
use crate::shard::{REJECTS_DIR, SHARDS_DIR, ShardInfo, verify_shard};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The ledger's file name inside the output directory.
pub const LEDGER_FILE: &str = "ledger.jsonl";

/// What identifies a run: a ledger written for another header is another run's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunHeader {
    /// The plan's fingerprint (scenario library, distribution, seed).
    pub fingerprint: String,
    /// The run seed.
    pub seed: u64,
    /// Dialogues in the finished corpus.
    pub count: u64,
    /// Dialogues per shard.
    pub rows_per_shard: u64,
}

impl RunHeader {
    fn describe(&self) -> String {
        format!(
            "seed {}, count {}, {} rows per shard, fingerprint {}",
            self.seed, self.count, self.rows_per_shard, self.fingerprint
        )
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Line {
    Run(RunHeader),
    Shard(ShardInfo),
}

/// An open ledger, ready to record finished shards.
#[derive(Debug)]
pub struct Ledger {
    path: PathBuf,
    file: File,
    header: RunHeader,
}

impl Ledger {
    /// Opens the ledger of `out_dir` for the run `header`, creating the directory and the
    /// ledger when absent, and returns the shards already done, verified and sorted by index.
    ///
    /// - A ledger of a different run (fingerprint, seed, count or rows per shard) is a
    ///   [`CorpusError::DifferentRun`]; nothing is touched.
    /// - A torn last line (a crash mid-append) is ignored and cut from the file.
    /// - A damaged line before the last is a [`CorpusError::Ledger`] naming the line.
    /// - A shard recorded twice counts as its last record; a recorded shard whose file (or
    ///   rejects file) is missing, or whose size or SHA-256 differs, is not done.
    /// - Leftover temp files (`*.tmp`) of interrupted writes are deleted from `shards/` and
    ///   `rejects/`, and `.*.tmp` ones from `out_dir`.
    pub fn open(out_dir: &Path, header: RunHeader) -> Result<(Ledger, Vec<ShardInfo>)> {
        std::fs::create_dir_all(out_dir).map_err(|e| CorpusError::io(out_dir, e))?;
        let path = out_dir.join(LEDGER_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(CorpusError::io(&path, e)),
        };

        let parsed = match &bytes {
            Some(b) => parse(&path, b)?,
            None => Parsed {
                header: None,
                shards: Vec::new(),
                keep: 0,
            },
        };
        let Some(found) = parsed.header else {
            // No ledger, or only a torn header: a fresh run.
            let mut line =
                serde_json::to_vec(&Line::Run(header.clone())).expect("a header serialises");
            line.push(b'\n');
            write_atomic(&path, &line)?;
            remove_temp_files(out_dir)?;
            let file = open_append(&path)?;
            tracing::info!(ledger = %path.display(), "started a new run");
            return Ok((Ledger { path, file, header }, Vec::new()));
        };
        if found != header {
            return Err(CorpusError::DifferentRun {
                dir: out_dir.to_path_buf(),
                found: found.describe(),
                wanted: header.describe(),
            });
        }

        let len = bytes.as_ref().map_or(0, |b| b.len());
        let file = open_append(&path)?;
        if parsed.keep < len {
            tracing::warn!(ledger = %path.display(), bytes = len - parsed.keep, "cutting a torn last line");
            file.set_len(parsed.keep as u64)
                .map_err(|e| CorpusError::io(&path, e))?;
            file.sync_all().map_err(|e| CorpusError::io(&path, e))?;
        }
        remove_temp_files(out_dir)?;

        let mut latest: BTreeMap<u32, ShardInfo> = BTreeMap::new();
        for info in parsed.shards {
            latest.insert(info.index, info);
        }
        let mut done = Vec::with_capacity(latest.len());
        for info in latest.into_values() {
            match verify_shard(out_dir, &info) {
                Ok(()) => done.push(info),
                Err(e) => tracing::warn!(
                    shard = info.index,
                    "not counted as done, will regenerate: {e}"
                ),
            }
        }
        tracing::info!(ledger = %path.display(), done = done.len(), "resuming a run");
        Ok((Ledger { path, file, header }, done))
    }

    /// Appends a finished shard and fsyncs the ledger. Call it after the shard and its rejects
    /// file are written.
    pub fn record(&mut self, info: &ShardInfo) -> Result<()> {
        let mut line =
            serde_json::to_vec(&Line::Shard(info.clone())).map_err(|e| CorpusError::Json {
                path: self.path.clone(),
                line: None,
                message: e.to_string(),
            })?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .map_err(|e| CorpusError::io(&self.path, e))?;
        self.file
            .sync_data()
            .map_err(|e| CorpusError::io(&self.path, e))
    }

    /// The ledger file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The run this ledger is for.
    pub fn header(&self) -> &RunHeader {
        &self.header
    }
}

fn open_append(path: &Path) -> Result<File> {
    OpenOptions::new()
        .append(true)
        .open(path)
        .map_err(|e| CorpusError::io(path, e))
}

struct Parsed {
    header: Option<RunHeader>,
    shards: Vec<ShardInfo>,
    /// Bytes of the file to keep: everything up to the end of the last good line.
    keep: usize,
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Parsed> {
    // Complete lines end with '\n'; whatever follows the last one is torn.
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' {
            lines.push((start, i + 1));
            start = i + 1;
        }
    }
    let mut parsed = Parsed {
        header: None,
        shards: Vec::new(),
        keep: 0,
    };
    let last = lines.len();
    for (n, &(from, to)) in lines.iter().enumerate() {
        let number = n + 1;
        let text = &bytes[from..to];
        if text.iter().all(u8::is_ascii_whitespace) {
            parsed.keep = to;
            continue;
        }
        let line: Line = match serde_json::from_slice(text) {
            Ok(l) => l,
            // A complete but unreadable last line is torn as well (e.g. zero-filled).
            Err(_) if number == last => break,
            Err(e) => {
                return Err(CorpusError::Ledger {
                    path: path.to_path_buf(),
                    line: number,
                    message: format!(
                        "not a ledger line ({e}); delete the output directory to start over"
                    ),
                });
            }
        };
        match (line, parsed.header.is_some()) {
            (Line::Run(h), false) => parsed.header = Some(h),
            (Line::Shard(_), false) => {
                return Err(CorpusError::Ledger {
                    path: path.to_path_buf(),
                    line: number,
                    message: "a shard line before the run header; delete the output directory to start over".into(),
                });
            }
            (Line::Run(_), true) => {
                return Err(CorpusError::Ledger {
                    path: path.to_path_buf(),
                    line: number,
                    message: "a second run header; delete the output directory to start over"
                        .into(),
                });
            }
            (Line::Shard(s), true) => parsed.shards.push(s),
        }
        parsed.keep = to;
    }
    Ok(parsed)
}

/// Deletes temp files left by interrupted atomic writes.
fn remove_temp_files(out_dir: &Path) -> Result<()> {
    remove_matching(out_dir, |name| {
        name.starts_with('.') && name.ends_with(".tmp")
    })?;
    for sub in [SHARDS_DIR, REJECTS_DIR] {
        remove_matching(&out_dir.join(sub), |name| name.ends_with(".tmp"))?;
    }
    Ok(())
}

fn remove_matching(dir: &Path, matches: impl Fn(&str) -> bool) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(CorpusError::io(dir, e)),
    };
    let mut removed = false;
    for entry in entries {
        let entry = entry.map_err(|e| CorpusError::io(dir, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !matches(name) || !entry.file_type().map(|t| t.is_file()).unwrap_or(false) {
            continue;
        }
        let path = entry.path();
        std::fs::remove_file(&path).map_err(|e| CorpusError::io(&path, e))?;
        tracing::debug!(file = %path.display(), "removed a leftover temp file");
        removed = true;
    }
    if removed {
        sync_dir(dir)?;
    }
    Ok(())
}

/// Reads `out_dir/ledger.jsonl` without opening it for appending or touching anything (for a
/// reader such as `release` that must tell a finished corpus from one being generated): the
/// run header and every shard line in order (a later line of a shard replaces an earlier one
/// at resume). A torn last line is ignored; `None` when there is no ledger.
pub fn read_ledger(out_dir: &Path) -> Result<Option<(RunHeader, Vec<ShardInfo>)>> {
    let path = out_dir.join(LEDGER_FILE);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CorpusError::io(&path, e)),
    };
    let parsed = parse(&path, &bytes)?;
    Ok(parsed.header.map(|h| (h, parsed.shards)))
}
