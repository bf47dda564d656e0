//! The role-play crate's one error type.

use std::path::PathBuf;

/// What can stop a run before or while it starts. Failures of single dialogues are not errors:
/// they are recorded with the dialogue and the run goes on.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading a file or directory failed.
    #[error("{}: {message}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        message: String,
    },
    /// The scenario library is wrong.
    #[error(transparent)]
    Model(#[from] callbench_model::ModelError),
    /// A template is wrong.
    #[error(transparent)]
    Phrase(#[from] phrasebook::PhraseError),
    /// An LLM prompt is wrong.
    #[error(transparent)]
    Prompt(#[from] llm_agent::Error),
    /// The corpus could not be read or written.
    #[error(transparent)]
    Corpus(#[from] corpus::CorpusError),
    /// The configuration is wrong.
    #[error("config: {0}")]
    Config(String),
    /// The output directory holds a corpus this run cannot continue or grow.
    #[error("{}: {message}", dir.display())]
    Grow {
        /// The output directory.
        dir: PathBuf,
        /// What differs and what to do.
        message: String,
    },
    /// A dialogue could not be cast.
    #[error("casting {id}: {message}")]
    Cast {
        /// The dialogue.
        id: String,
        /// Why.
        message: String,
    },
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;
