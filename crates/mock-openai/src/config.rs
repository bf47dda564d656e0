//! [`MockConfig`]: everything the mock can be told, as plain data.

use serde::{Deserialize, Serialize};

use crate::MockError;

/// How the mock behaves. Every field has a default, so a TOML file (or a struct literal with
/// `..MockConfig::default()`) names only what it changes.
///
/// Fault probabilities are drawn independently for every chat-completion request (see
/// [`MockConfig::seed`]); they must each lie in `[0, 1]` and add up to at most 1. The draw
/// picks at most one fault: 429, then 500, hang, truncated body, connection reset, in that
/// order of the cumulative probabilities.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MockConfig {
    /// Base service time of a chat completion, in milliseconds, measured from the moment the
    /// request is routed; accurate on average to well under a millisecond, each one within
    /// about ±1 ms (the timer's granularity). Applies to successful replies, 500s, truncated
    /// bodies and resets; a 429 is answered at once (a rate limiter rejects before doing
    /// work). Default 0.
    pub latency_ms: u64,
    /// Each request's latency is drawn uniformly from
    /// `[latency_ms - jitter_ms, latency_ms + jitter_ms]` (clamped at 0). Default 0.
    pub jitter_ms: u64,
    /// Probability of `429 Too Many Requests` with a `Retry-After` header. Default 0.
    pub p_429: f64,
    /// The `Retry-After` value (whole seconds) sent with a 429; `retry-after-ms` carries the
    /// same value in milliseconds. Default 1.
    pub retry_after_secs: u64,
    /// Probability of `500 Internal Server Error` with an OpenAI-style error body. Default 0.
    pub p_500: f64,
    /// Probability that the request hangs: the mock waits [`hang_ms`](Self::hang_ms) before
    /// answering normally (by then the client should have timed out). Default 0.
    pub p_hang: f64,
    /// How long a hanging request waits, in milliseconds. Default 60,000 — longer than any
    /// sensible client timeout.
    pub hang_ms: u64,
    /// Probability of `200 OK` whose JSON body is cut off half-way (with a matching
    /// `Content-Length`, so the client reads it whole and fails to parse it). Default 0.
    pub p_truncated: f64,
    /// Probability that the connection is reset (TCP RST) after the latency, without any
    /// response bytes. Default 0.
    pub p_reset: f64,
    /// Leave `usage` out of successful replies, as some servers do. Default false.
    pub omit_usage: bool,
    /// Report the model as a file path, `"/models/<model>.gguf"`, as llama.cpp's server does.
    /// Default false.
    pub model_as_path: bool,
    /// When the request has no `response_format` of type `json_schema` or `json_object`,
    /// wrap the JSON reply in a ```` ```json ```` fenced block, as chat models often do.
    /// Default false.
    pub fence_json_when_unconstrained: bool,
    /// Seed of everything random. Reply content depends only on `(seed, request body)`;
    /// faults and jitter depend on `(seed, request counter)`, so a retried request draws
    /// again and can succeed. Default 0.
    pub seed: u64,
    /// Role-play awareness: once a request carries at least this many `user` + `assistant`
    /// messages, a boolean `end_call` property is set to true and an `action` enum that
    /// offers `"close"` answers `"close"`. Default 6.
    pub end_after_turns: u32,
    /// When set, every request must carry `Authorization: Bearer <this>`; others get 401.
    /// The key is never logged, echoed or printed by `Debug`. Default none.
    pub required_api_key: Option<String>,
    /// A provider that repeats the key in its error: when `401` or `403`, every
    /// chat-completion request is refused with that status and an OpenAI-style error whose
    /// message quotes the `Authorization` bearer key the request carried — whole, and its first
    /// 12 characters again, as masked keys are often shown. For testing that a client keeps
    /// keys out of its errors, logs and reports. Counted as
    /// [`Outcome::Unauthorized`](crate::Outcome::Unauthorized). `0` (the default) turns it off.
    pub echo_key_status: u16,
    /// Record the arrival instant of every chat-completion request (see
    /// [`Stats::arrivals`](crate::Stats::arrivals)); at most
    /// [`MAX_ARRIVALS`](crate::MAX_ARRIVALS) are kept. Default true.
    pub record_arrivals: bool,
    /// Model ids listed by `GET /v1/models`. Any model name is accepted by chat completions.
    /// Default `["mock-model"]`.
    pub models: Vec<String>,
    /// What successful replies hold (see [`ReplyMode`]). Default [`ReplyMode::Roleplay`].
    pub reply_mode: ReplyMode,
    /// Replies by content, for tests that need the model to answer a given prompt a given way
    /// (a judge that scores a turn by what it says, a bad method prompt that makes the reply
    /// leak a fact): every rule whose text is found in the request sets its fields in the reply
    /// object, in order. Default none.
    pub content_rules: Vec<ContentRule>,
    /// [`ReplyMode::Repeat`]: how many scripts each party repeats; a conversation's script is
    /// its system prompt's hash modulo this. `1` (the default): every conversation of a party
    /// says the same lines.
    pub repeat_variants: u32,
}

/// Where a [`ContentRule`] looks for its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleScope {
    /// The last message of the request (the turn a judge scores, the caller's latest words).
    #[default]
    Last,
    /// The system messages (a method's prompt).
    System,
    /// Any message.
    Any,
}

/// A reply by content: when `contains` is found in the request (where `scope` says), the reply
/// object gets the fields of `set` (over what the schema walk produced, valid for the schema or
/// not), or, with `garbage`, no JSON at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentRule {
    /// Where to look.
    #[serde(default)]
    pub scope: RuleScope,
    /// The text to find (non-empty).
    pub contains: String,
    /// Fields to set at the top level of the reply object.
    #[serde(default)]
    pub set: serde_json::Map<String, serde_json::Value>,
    /// Answer prose without JSON instead (the rule's `set` is then ignored).
    #[serde(default)]
    pub garbage: bool,
}

/// What the content of a successful reply is. Faults ([`MockConfig::p_500`], …) come on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyMode {
    /// JSON valid for the request's schema, role-play aware: calls end after
    /// [`MockConfig::end_after_turns`], `action` and `preset_id` fit the stage of the call.
    #[default]
    Roleplay,
    /// JSON valid for the schema and nothing more, as constrained decoding guarantees: every
    /// field arbitrary text, number or boolean of its type, `enum`s honoured (any option, at
    /// any turn), nothing role-play aware. Strings are never empty.
    Arbitrary,
    /// No JSON at all: a sentence of prose, as an unconstrained small model might answer.
    Garbage,
    /// The schema's JSON cut off half-way with `finish_reason: "length"`, as a server whose
    /// `max_tokens` is too small answers.
    CutShort,
    /// Like [`ReplyMode::Roleplay`], but the reply depends only on the number of turns so far
    /// and the conversation's script (see [`MockConfig::repeat_variants`]), not on what was
    /// said: conversations repeat each other word for word, as a model at temperature 0 with
    /// a fixed prompt does. For near-duplicate tests.
    Repeat,
}

impl ReplyMode {
    /// The mode's name, as in the config and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyMode::Roleplay => "roleplay",
            ReplyMode::Arbitrary => "arbitrary",
            ReplyMode::Garbage => "garbage",
            ReplyMode::CutShort => "cut_short",
            ReplyMode::Repeat => "repeat",
        }
    }
}

impl std::str::FromStr for ReplyMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.replace('-', "_").as_str() {
            "roleplay" => Ok(ReplyMode::Roleplay),
            "arbitrary" => Ok(ReplyMode::Arbitrary),
            "garbage" => Ok(ReplyMode::Garbage),
            "cut_short" => Ok(ReplyMode::CutShort),
            "repeat" => Ok(ReplyMode::Repeat),
            _ => Err(format!(
                "unknown reply mode {s:?} (expected roleplay, arbitrary, garbage, cut_short or repeat)"
            )),
        }
    }
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            latency_ms: 0,
            jitter_ms: 0,
            p_429: 0.0,
            retry_after_secs: 1,
            p_500: 0.0,
            p_hang: 0.0,
            hang_ms: 60_000,
            p_truncated: 0.0,
            p_reset: 0.0,
            omit_usage: false,
            model_as_path: false,
            fence_json_when_unconstrained: false,
            seed: 0,
            end_after_turns: 6,
            required_api_key: None,
            echo_key_status: 0,
            record_arrivals: true,
            models: vec!["mock-model".to_owned()],
            reply_mode: ReplyMode::Roleplay,
            content_rules: Vec::new(),
            repeat_variants: 1,
        }
    }
}

impl std::fmt::Debug for MockConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MockConfig")
            .field("latency_ms", &self.latency_ms)
            .field("jitter_ms", &self.jitter_ms)
            .field("p_429", &self.p_429)
            .field("retry_after_secs", &self.retry_after_secs)
            .field("p_500", &self.p_500)
            .field("p_hang", &self.p_hang)
            .field("hang_ms", &self.hang_ms)
            .field("p_truncated", &self.p_truncated)
            .field("p_reset", &self.p_reset)
            .field("omit_usage", &self.omit_usage)
            .field("model_as_path", &self.model_as_path)
            .field(
                "fence_json_when_unconstrained",
                &self.fence_json_when_unconstrained,
            )
            .field("seed", &self.seed)
            .field("end_after_turns", &self.end_after_turns)
            .field(
                "required_api_key",
                &self.required_api_key.as_ref().map(|_| "<redacted>"),
            )
            .field("echo_key_status", &self.echo_key_status)
            .field("record_arrivals", &self.record_arrivals)
            .field("models", &self.models)
            .field("reply_mode", &self.reply_mode)
            .field("content_rules", &self.content_rules)
            .field("repeat_variants", &self.repeat_variants)
            .finish()
    }
}

impl MockConfig {
    /// Checks ranges: each probability in `[0, 1]`, their sum at most 1, a non-empty model
    /// list. [`MockServer::start`](crate::MockServer::start) and
    /// [`MockServer::set_config`](crate::MockServer::set_config) call it.
    pub fn validate(&self) -> Result<(), MockError> {
        let probabilities = [
            ("p_429", self.p_429),
            ("p_500", self.p_500),
            ("p_hang", self.p_hang),
            ("p_truncated", self.p_truncated),
            ("p_reset", self.p_reset),
        ];
        let mut sum = 0.0;
        for (key, p) in probabilities {
            if !p.is_finite() || !(0.0..=1.0).contains(&p) {
                return Err(MockError::InvalidConfig {
                    key,
                    message: format!("a probability must lie in [0, 1], got {p}"),
                });
            }
            sum += p;
        }
        if sum > 1.0 + 1e-9 {
            return Err(MockError::InvalidConfig {
                key: "p_429",
                message: format!(
                    "the fault probabilities p_429 + p_500 + p_hang + p_truncated + p_reset add up to {sum}, more than 1"
                ),
            });
        }
        if self.models.is_empty() || self.models.iter().any(|m| m.trim().is_empty()) {
            return Err(MockError::InvalidConfig {
                key: "models",
                message: "list at least one non-empty model id".to_owned(),
            });
        }
        if self.repeat_variants == 0 {
            return Err(MockError::InvalidConfig {
                key: "repeat_variants",
                message: "at least 1 script to repeat".to_owned(),
            });
        }
        if ![0, 401, 403].contains(&self.echo_key_status) {
            return Err(MockError::InvalidConfig {
                key: "echo_key_status",
                message: format!("0 (off), 401 or 403, got {}", self.echo_key_status),
            });
        }
        if self.content_rules.iter().any(|r| r.contains.is_empty()) {
            return Err(MockError::InvalidConfig {
                key: "content_rules",
                message: "a rule's `contains` must not be empty".to_owned(),
            });
        }
        if matches!(&self.required_api_key, Some(k) if k.is_empty()) {
            return Err(MockError::InvalidConfig {
                key: "required_api_key",
                message: "an empty key cannot be required; leave it unset instead".to_owned(),
            });
        }
        Ok(())
    }
}
