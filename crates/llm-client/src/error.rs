//! The client's one error type.

/// Why a chat request did not produce a reply.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LlmError {
    /// The configuration cannot work (no endpoint, bad URL, zero weight everywhere).
    #[error("llm config: {0}")]
    Config(String),
    /// The endpoint refused the request in a way retrying cannot fix (400, 401, 403, 404).
    #[error("{endpoint}: HTTP {status}: {message}")]
    Rejected {
        /// Endpoint name.
        endpoint: String,
        /// HTTP status.
        status: u16,
        /// What the server said (truncated).
        message: String,
    },
    /// Every retry failed; `last` is the last failure.
    #[error("{endpoint}: gave up after {attempts} attempts: {last}")]
    Exhausted {
        /// Endpoint of the last attempt.
        endpoint: String,
        /// Attempts made.
        attempts: u32,
        /// The last failure.
        last: String,
    },
    /// The response cache could not be opened or written.
    #[error("response cache {path}: {message}")]
    Cache {
        /// The cache file.
        path: String,
        /// What failed.
        message: String,
    },
}
