//! The crate's one error type.

use std::net::SocketAddr;

/// What can go wrong starting or configuring a [`MockServer`](crate::MockServer).
///
/// Requests themselves never produce a `MockError`: a bad request gets an OpenAI-style error
/// response, and injected faults are the point of the mock.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// A configuration value is out of range; `key` names the field as it is spelled in TOML.
    #[error("invalid mock config: `{key}`: {message}")]
    InvalidConfig {
        /// The offending field.
        key: &'static str,
        /// Why it is refused.
        message: String,
    },
    /// The listening socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The background runtime of [`MockServer::start_blocking`](crate::MockServer::start_blocking)
    /// could not be built.
    #[error("cannot start the mock's runtime: {0}")]
    Runtime(std::io::Error),
}
