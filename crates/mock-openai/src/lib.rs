//! A mock OpenAI-compatible chat-completions server, for tests over real loopback HTTP, for
//! benchmarks, and for rehearsing a run without spending anything.
//!
//! # Tour
//!
//! - [`MockConfig`]: latency and jitter, injected faults (429 with `Retry-After`, 500, hangs,
//!   truncated JSON, connection resets), server quirks (no `usage`, the model as a file path,
//!   fenced JSON), the seed, the API key to require. Plain data, `serde`, every field
//!   defaulted.
//! - [`MockServer`]: binds `127.0.0.1:0` (or a given address), serves
//!   `POST /v1/chat/completions` (non-streaming) and `GET /v1/models`, and reports
//!   [`Stats`]: requests by [`Outcome`] and their arrival times. The configuration can be
//!   swapped while running ([`MockServer::set_config`]), so a test can fail a client first
//!   and let it recover.
//! - The `mock-openai` binary runs the same server from the command line.
//!
//! # Replies
//!
//! Replies follow the request's `response_format`:
//!
//! - `json_schema`: the content is a JSON value valid for the schema (objects, `required`,
//!   strings with `enum`, booleans, integers and numbers with bounds, arrays with
//!   `minItems`/`maxItems`, `anyOf`/`oneOf` (first non-null variant), `allOf`, nullable type
//!   lists, local `$ref`s). Strings are short colloquial Chinese sentences.
//! - `json_object`: the same, for the schema (or example object) written in the system
//!   prompt, else `{"utterance": "…", "end_call": bool}`.
//! - none, or `text`: that JSON as plain text, in a ```` ```json ```` fence when
//!   [`MockConfig::fence_json_when_unconstrained`] is set.
//!
//! Role-play awareness, so that generated dialogues end: once the request holds
//! [`MockConfig::end_after_turns`] `user` + `assistant` messages, a boolean `end_call` is
//! true, an `action` enum offering `"close"` says `"close"`, spoken fields (`utterance`,
//! `text`, …) say goodbye and `preset_id` is null. Before that, `action` is any other
//! option, and a nullable `preset_id` is usually null, sometimes an id (`p1`, …) that the
//! system prompt mentions. Problem lists (`violations`, `errors`, …) are left empty and
//! success flags (`passed`, `ok`, …) true, so a mock judge passes everything.
//!
//! [`MockConfig::reply_mode`] replaces this behaviour for robustness tests: `arbitrary` fills
//! every field with arbitrary values of its type (enums honoured, nothing role-play aware — what
//! constrained decoding guarantees and no more), `garbage` answers prose without JSON,
//! `cut_short` cuts the JSON half-way with `finish_reason: "length"`, and `repeat` says the same
//! lines at the same turn of every conversation (one of `repeat_variants` scripts per system
//! prompt), for near-duplicate tests.
//!
//! [`MockConfig::content_rules`] answer by content: a rule whose text is in the request's last
//! message (or its system prompt, or anywhere) sets fields of the reply — a judge's scores for a
//! turn that says something, an utterance for a prompt that asks for it — or makes the reply
//! prose without JSON.
//!
//! Token counts are estimated by [`estimate_tokens`] (CJK characters ÷ 1.5, other bytes ÷ 4)
//! plus 4 per prompt message; `max_tokens` / `max_completion_tokens` cut the content with
//! `finish_reason: "length"`, as real servers do.
//!
//! # Determinism
//!
//! The same seed and the same request body give the same content and `id`. Faults and jitter
//! are drawn per request from the seed and a request counter, so they are random per request:
//! a retried request draws again and can succeed, and a sequence of requests sent one after
//! another meets the same faults on every run.
//!
//! # Example
//!
//! ```
//! use mock_openai::{MockConfig, MockServer};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), mock_openai::MockError> {
//! let server = MockServer::start(MockConfig {
//!     latency_ms: 50,
//!     p_429: 0.05,
//!     required_api_key: Some("sk-test".into()),
//!     ..MockConfig::default()
//! })
//! .await?;
//! let base_url = server.base_url(); // "http://127.0.0.1:PORT/v1": give it to the client
//! assert!(base_url.starts_with("http://127.0.0.1:"));
//! // ... run the client ...
//! assert_eq!(server.stats().requests, 0);
//! server.shutdown().await;
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

mod config;
mod error;
mod reply;
mod rng;
mod server;
mod stats;

pub use config::{ContentRule, MockConfig, ReplyMode, RuleScope};
pub use error::MockError;
pub use reply::estimate_tokens;
pub use server::MockServer;
pub use stats::{MAX_ARRIVALS, Outcome, Stats};
