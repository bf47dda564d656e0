//! The one crate that talks to the network: a chat client for any OpenAI-compatible endpoint
//! (OpenAI, vLLM, SGLang, llama.cpp's llama-server, cloud providers), built on async-openai.
//!
//! - [`LlmConfig`]: endpoints with weights and rate limits, per-role models, the response
//!   format (`json_schema`, `json_object` or plain text), retry policy, cache, prices.
//! - [`LlmClient`]: [`ChatModel::chat`] picks a healthy endpoint by weight, waits for its
//!   requests-per-minute and tokens-per-minute limits (governor, explicit bursts), sends one
//!   attempt, and retries 429, 5xx, timeouts, connection errors and unreadable bodies with
//!   exponential backoff and full jitter, honouring `Retry-After`; an endpoint that keeps failing
//!   is paused as a whole. Replies are cached on disk by the full request.
//! - [`UsageMeter`] / [`Usage`]: requests, cache hits, tokens, retries and cost per role.
//! - [`extract_json`]: tolerant JSON extraction for servers that fence or wrap their JSON.
//!
//! API keys come only from environment variables named in the config, are read once when the
//! client is built, and are never logged or returned: what a server sends back (error bodies,
//! replies) passes a [`Redactor`] first, so a provider that repeats the key in an error does not
//! put it into [`LlmError`], logs or reports.
#![deny(missing_docs)]

mod cache;
mod client;
mod config;
mod error;
mod parse;
mod redact;
mod usage;

pub use cache::{Cache, CachedReply};
pub use client::{
    ChatMessage, ChatModel, ChatReply, ChatRequest, LlmClient, ReplyError, ReplySchema,
    RequestBody, chat_parsed,
};
pub use config::{
    EndpointConfig, LlmConfig, Price, ResponseFormatMode, RetryPolicy, Role, RoleModel,
};
pub use error::LlmError;
pub use parse::extract_json;
pub use redact::{MIN_FRAGMENT, REDACTED, Redactor};
pub use usage::{RoleUsage, Usage, UsageMeter, estimate_tokens};
