//! The crate's one error type.

use std::net::SocketAddr;
use std::path::PathBuf;

/// What can go wrong building or running a [`Review`](crate::Review).
///
/// Requests never produce a `ReviewError`: a refused verdict is a `400` with the store's message,
/// and the page shows it to the auditor.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// Reading the sample or opening the verdict file failed; the message names the file (and
    /// line), or says that another server is recording into it.
    #[error(transparent)]
    Inspection(#[from] inspection::InspectionError),
    /// `sample.json` and `sample.jsonl` disagree: an id of the one is missing from the other.
    #[error("{}: the sample lists {id:?}, but {} has no such dialogue; draw the sample again", .summary.display(), .dialogues.display())]
    SampleMismatch {
        /// `DIR/inspection/sample.json`.
        summary: PathBuf,
        /// `DIR/inspection/sample.jsonl`.
        dialogues: PathBuf,
        /// The id without a dialogue.
        id: String,
    },
    /// A non-loopback address was asked for without `allow_remote`.
    #[error(
        "refusing to listen on {addr}: the review page has no login, so anyone who can reach it \
         could read the sample and record verdicts; listen on 127.0.0.1 or allow remote access explicitly"
    )]
    RemoteNotAllowed {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The listening socket could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: SocketAddr,
        /// The operating system's reason.
        source: std::io::Error,
    },
}

/// Result with [`ReviewError`].
pub type Result<T, E = ReviewError> = std::result::Result<T, E>;
