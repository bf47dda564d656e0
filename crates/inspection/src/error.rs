//! The crate's one error type. Every variant names where: the file (and line), or the verdict
//! and the key at fault, so a message can be shown to an auditor or a user as it is.

use std::path::PathBuf;

/// What can go wrong while drawing a sample, recording verdicts or writing the report.
#[derive(Debug, thiserror::Error)]
pub enum InspectionError {
    /// Reading the corpus failed (a shard, a rejects file, the manifest); the message names the
    /// file and the line, row or column.
    #[error(transparent)]
    Corpus(#[from] corpus::CorpusError),
    /// Reading, writing, renaming, locking or syncing a file or directory failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A JSON or JSONL file of the inspection folder could not be read or written.
    #[error("{}{}: {message}", .path.display(), .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line, for JSONL files.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A sampling setting is out of range (`rate 1.5 is not in (0, 1]`).
    #[error("inspection config: `{key}`: {message}")]
    Config {
        /// The setting (`rate`, `reject_rate`).
        key: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The corpus holds something the sampler cannot work with (no shards, a duplicate id).
    #[error("{}: {message}", .path.display())]
    BadCorpus {
        /// The corpus directory or the file at fault.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// There is no sample to review or audit yet.
    #[error("{}: no inspection sample; run `callbench sample --corpus {}` first", .path.display(), .corpus.display())]
    NoSample {
        /// The missing `sample.json`.
        path: PathBuf,
        /// The corpus directory.
        corpus: PathBuf,
    },
    /// Drawing would replace a sample that auditors have already reviewed.
    #[error(
        "{}: auditors have recorded verdicts on the current sample, and the new draw differs from it; \
         move DIR/inspection/ aside to draw again, or set `replace_reviewed`",
        .path.display()
    )]
    SampleInUse {
        /// The verdict file that holds the reviews.
        path: PathBuf,
    },
    /// A verdict was refused (unknown id, bad auditor name, kind, turn or rating). Nothing was
    /// written.
    #[error("{}: verdict by {auditor:?} on {id:?} refused: {message}", .path.display())]
    Verdict {
        /// The verdict file it was meant for.
        path: PathBuf,
        /// The auditor, as given.
        auditor: String,
        /// The dialogue id, as given.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// Another process holds the verdict file open for writing.
    #[error("{}: another review server is recording verdicts in this file; stop it first", .path.display())]
    Locked {
        /// The verdict file.
        path: PathBuf,
    },
}

/// Result with [`InspectionError`].
pub type Result<T, E = InspectionError> = std::result::Result<T, E>;

impl InspectionError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        InspectionError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn json(
        path: impl Into<PathBuf>,
        line: Option<usize>,
        message: impl ToString,
    ) -> Self {
        InspectionError::Json {
            path: path.into(),
            line,
            message: message.to_string(),
        }
    }

    /// A JSONL line that serde_json could not read: its message without serde's
    /// " at line 1 column N" (the line is the file's), with the column kept.
    pub(crate) fn json_line(path: impl Into<PathBuf>, line: usize, e: &serde_json::Error) -> Self {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        let message = match full.strip_suffix(&suffix) {
            Some(msg) if e.column() > 0 => format!("{msg} (column {})", e.column()),
            Some(msg) => msg.to_string(),
            None => full,
        };
        Self::json(path, Some(line), message)
    }
}
