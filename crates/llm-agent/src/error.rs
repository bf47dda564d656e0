//! The LLM-agent crate's one error type. Every variant says where: the file and the key, or the
//! template.

use std::path::PathBuf;

/// What can be wrong with prompts and method files, found when they are loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// A file or directory could not be read.
    #[error("{}: {message}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What the OS said.
        message: String,
    },
    /// A prompt does not compile or does not render with the variables it may use.
    #[error("{file}: key `{key}`: {message}")]
    Template {
        /// The file.
        file: String,
        /// The key (`scenario.caller_prompt`, `prompts.system`, …).
        key: String,
        /// What tera said.
        message: String,
    },
    /// A prompt the agents need is missing.
    #[error("{file}: prompt `{prompt}` is missing")]
    MissingPrompt {
        /// The directory or file that should hold it.
        file: String,
        /// The prompt.
        prompt: String,
    },
    /// Rendering failed at run time.
    #[error("rendering {name}: {message}")]
    Render {
        /// The template.
        name: String,
        /// What tera said.
        message: String,
    },
    /// A method file is wrong.
    #[error("{file}: key `{key}`: {message}")]
    Method {
        /// The method file (or the data file it names).
        file: String,
        /// The key at fault (`kind`, `prompts.think`, `react.max_steps`, …).
        key: String,
        /// What is wrong.
        message: String,
    },
    /// `--methods` names a method there is no file for.
    #[error("unknown method {name:?}; available: {}", available.join(", "))]
    UnknownMethod {
        /// The name asked for.
        name: String,
        /// The methods there are.
        available: Vec<String>,
    },
}

/// Result with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// A tera error with its chain of causes, on one line.
pub(crate) fn tera_chain(e: &tera::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}
