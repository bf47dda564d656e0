//! The crate's one error type. Every variant names where: the file, and the line, row or
//! column where that applies, so a message can be shown to a person as it is.

use std::path::{Path, PathBuf};

/// What can go wrong while writing or reading a corpus.
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// Reading, writing, renaming or syncing a file or directory failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A Parquet file could not be written or read.
    #[error("{}: {source}", .path.display())]
    Parquet {
        /// The Parquet file.
        path: PathBuf,
        /// The Parquet library's error.
        #[source]
        source: parquet::errors::ParquetError,
    },
    /// A record batch does not hold what the corpus schema says, or a dialogue does not fit it.
    #[error("{}", column_message(.path.as_deref(), *.row, .column, .message))]
    Column {
        /// The file the batch came from, when there is one.
        path: Option<PathBuf>,
        /// The row (0-based, within the file when `path` is set), when one is at fault.
        row: Option<usize>,
        /// The column, as a dotted path (`turns.speaker`).
        column: String,
        /// What is wrong.
        message: String,
    },
    /// A JSON file or a JSONL line could not be read or written.
    #[error("{}{}: {message}", .path.display(), .line.map(|l| format!(":{l}")).unwrap_or_default())]
    Json {
        /// The file.
        path: PathBuf,
        /// The 1-based line, for JSONL files.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// The resume ledger is damaged in a way other than a torn last line.
    #[error("{}:{line}: {message}", .path.display())]
    Ledger {
        /// The ledger file.
        path: PathBuf,
        /// The 1-based line at fault.
        line: usize,
        /// What is wrong and what to do.
        message: String,
    },
    /// The output directory holds the ledger of another run.
    #[error(
        "{}/ holds a different run ({found}); this run is ({wanted}); use another --out or delete it",
        .dir.display().to_string().trim_end_matches('/')
    )]
    DifferentRun {
        /// The output directory.
        dir: PathBuf,
        /// The run found there, in words (`seed 7, count 1000, …`).
        found: String,
        /// The run asked for, in words.
        wanted: String,
    },
    /// A file does not match what the ledger or manifest recorded for it.
    #[error("{}: {message}", .path.display())]
    Mismatch {
        /// The file.
        path: PathBuf,
        /// What differs.
        message: String,
    },
}

/// Result with [`CorpusError`].
pub type Result<T, E = CorpusError> = std::result::Result<T, E>;

fn column_message(path: Option<&Path>, row: Option<usize>, column: &str, message: &str) -> String {
    let mut s = String::new();
    if let Some(p) = path {
        s.push_str(&format!("{}: ", p.display()));
    }
    if let Some(r) = row {
        s.push_str(&format!("row {r}: "));
    }
    s.push_str(&format!("column `{column}`: {message}"));
    s
}

impl CorpusError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CorpusError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn parquet(path: impl Into<PathBuf>, source: parquet::errors::ParquetError) -> Self {
        CorpusError::Parquet {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn column(
        column: impl Into<String>,
        row: Option<usize>,
        message: impl Into<String>,
    ) -> Self {
        CorpusError::Column {
            path: None,
            row,
            column: column.into(),
            message: message.into(),
        }
    }

    /// Places a batch-level error in a file: sets the path and shifts the row by `row_offset`.
    pub(crate) fn in_file(self, file: &Path, row_offset: usize) -> Self {
        match self {
            CorpusError::Column {
                path: None,
                row,
                column,
                message,
            } => CorpusError::Column {
                path: Some(file.to_path_buf()),
                row: row.map(|r| r + row_offset),
                column,
                message,
            },
            other => other,
        }
    }
}
