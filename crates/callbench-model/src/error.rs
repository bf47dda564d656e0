//! The model's one error type. Messages say where: the file and the key at fault.

/// What can go wrong while reading the scenario library or planning.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file is not valid TOML or does not fit the schema (unknown key, wrong type).
    #[error("{file}: {message}")]
    Toml {
        /// The file.
        file: String,
        /// The parser's message, which names the key and line.
        message: String,
    },
    /// A scenario or library file is well-formed but wrong.
    #[error("{file}: key `{key}`: {message}")]
    Scenario {
        /// The file.
        file: String,
        /// The key at fault, as a path (`goals[3].roles[0]`).
        key: String,
        /// What is wrong and what to do.
        message: String,
    },
    /// The library as a whole is incomplete.
    #[error("scenario library: {0}")]
    Library(String),
    /// The plan cannot be made.
    #[error("plan: {0}")]
    Plan(String),
}

/// Result with [`ModelError`].
pub type Result<T, E = ModelError> = std::result::Result<T, E>;
