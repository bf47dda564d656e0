//! The auditors' review page: a local web app over a corpus's manual-inspection sample
//! (`DIR/inspection/`), where each auditor accepts or rejects each sampled dialogue, tags
//! findings on its turns in the contract's vocabulary, may rate the judge's seven dimensions and
//! writes a note. Every verdict goes through [`inspection::VerdictStore`], which appends it to
//! `DIR/inspection/verdicts.jsonl` and fsyncs before the page is told "saved", so a verdict the
//! page acknowledged survives a killed server and is there again on restart.
//!
//! A tour:
//!
//! - [`ReviewConfig`]: the corpus directory, the address (loopback by default; another address
//!   only with [`ReviewConfig::allow_remote`]). [`ReviewConfig::build`] reads the sample and
//!   opens the verdict store.
//! - [`Review`]: [`Review::bind`] binds the socket and tells the address (port 0 picks one);
//!   [`Review::serve`] answers until the shutdown future resolves.
//! - The HTTP API ([`routes`]): `GET /` the page, `GET /app.js`, `GET /app.css`,
//!   `GET /api/sample`, `GET /api/dialogue/{id}`, `GET /api/verdicts?auditor=NAME`,
//!   `POST /api/verdict`.
//!
//! **Generated text is untrusted.** The page's HTML carries no data; dialogues arrive as JSON
//! and the script puts every string into the page with `textContent`. A strict
//! Content-Security-Policy (`script-src 'self'`, no inline script) is the second line.
//!
//! ```no_run
//! # async fn run() -> Result<(), review::ReviewError> {
//! let mut review = review::ReviewConfig::new("out").build()?;
//! let addr = review.bind()?;
//! println!("review at http://{addr}/");
//! review.serve(async { let _ = tokio::signal::ctrl_c().await; }).await
//! # }
//! ```
#![deny(missing_docs)]

mod error;
pub mod routes;
mod server;

pub use error::{Result, ReviewError};
pub use server::{DEFAULT_ADDR, Review, ReviewConfig};

/// The finding kinds an auditor tags, as CONTRACT.md lists them, in the page's picker order.
/// (The verdict store also accepts kinds the checker reported in the sample.)
pub const AUDITOR_KINDS: &[&str] = callbench_model::vocab::CONTRACT_KINDS;
