//! The crate's one error type; every variant says where (the file, the id, the folder).

use std::path::{Path, PathBuf};

/// What can stop a release.
#[derive(Debug, thiserror::Error)]
pub enum ReleaseError {
    /// Reading or writing a file or folder failed.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// The corpus could not be read.
    #[error(transparent)]
    Corpus(#[from] corpus::CorpusError),
    /// The auditors' sample or verdicts could not be read.
    #[error(transparent)]
    Inspection(#[from] inspection::InspectionError),
    /// The corpus is not finished (or not a corpus): nothing was written.
    #[error("{}: {message}", .dir.display())]
    Unfinished {
        /// The corpus folder.
        dir: PathBuf,
        /// What is missing and what to do.
        message: String,
    },
    /// The output folder exists and is not empty: nothing was written.
    #[error("{}: the output folder is not empty; give a new or empty folder (a release is never written over another)", .0.display())]
    NotEmpty(PathBuf),
    /// Verdicts name dialogues that are neither in the corpus nor among its sampled rejects.
    #[error("{}: verdicts name {count} id(s) not in the corpus (first: {first}); were they recorded on another corpus?", .path.display())]
    UnknownIds {
        /// The verdict file.
        path: PathBuf,
        /// How many distinct ids.
        count: usize,
        /// The first few, comma-separated.
        first: String,
    },
    /// A dialogue of the corpus cannot be released as it is.
    #[error("{}: dialogue {id}: {message}", .path.display())]
    Dialogue {
        /// The shard.
        path: PathBuf,
        /// The dialogue id.
        id: String,
        /// What is wrong.
        message: String,
    },
    /// A setting is out of range.
    #[error("release config: {0}")]
    Config(String),
}

impl ReleaseError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ReleaseError {
        ReleaseError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// `Result` with [`ReleaseError`].
pub type Result<T> = std::result::Result<T, ReleaseError>;
