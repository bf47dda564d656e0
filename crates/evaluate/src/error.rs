//! The one error type of the harness; every variant says where (file, flag, key, dialogue).

use std::path::PathBuf;

/// What stops an evaluation run.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The corpus cannot be read.
    #[error("corpus {}: {message}", .dir.display())]
    Corpus {
        /// The corpus directory.
        dir: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// A file of the corpus or the run could not be read or written.
    #[error(transparent)]
    Store(#[from] corpus::CorpusError),
    /// IO on a file of the run.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The inspection sample of a run could not be written.
    #[error(transparent)]
    Inspection(#[from] inspection::InspectionError),
    /// A setting is wrong (a flag or a config key).
    #[error("{0}")]
    Config(String),
    /// `--methods` names a method that is not available.
    #[error("unknown method {name:?} in --methods (available: {})", .available.join(", "))]
    UnknownMethod {
        /// The name given.
        name: String,
        /// The methods this build has.
        available: Vec<String>,
    },
    /// `RUN/` holds a run with other settings.
    #[error("{}: {message}", .path.display())]
    Resume {
        /// The progress file.
        path: PathBuf,
        /// What differs and what to do.
        message: String,
    },
    /// A dialogue cannot be replayed (the scenario library differs from the corpus's).
    #[error("dialogue {id}: {message}")]
    Dialogue {
        /// The dialogue id.
        id: String,
        /// What is wrong and what to do.
        message: String,
    },
}

impl EvalError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        EvalError::Io {
            path: path.into(),
            source,
        }
    }
}

/// Result with [`EvalError`].
pub type Result<T, E = EvalError> = std::result::Result<T, E>;
