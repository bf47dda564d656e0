//! Configuration of the LLM client: endpoints, per-role models, response format, retry policy,
//! cache and prices. Plain serde data; secrets are never here — only the *name* of the
//! environment variable that holds an endpoint's API key.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Which role a request is made for: usage and models are kept apart per role.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The caller agent.
    Caller,
    /// The assistant agent.
    Assistant,
    /// The LLM judge of the quality checker.
    Judge,
}

impl Role {
    /// Every role.
    pub const ALL: [Role; 3] = [Role::Caller, Role::Assistant, Role::Judge];

    /// The role's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Caller => "caller",
            Role::Assistant => "assistant",
            Role::Judge => "judge",
        }
    }
}

/// How structured replies are asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ResponseFormatMode {
    /// `response_format: {type: json_schema, json_schema: {...}}` (OpenAI, vLLM, SGLang,
    /// llama.cpp server).
    JsonSchema,
    /// `response_format: {type: json_object}`; the schema is described in the prompt.
    JsonObject,
    /// No `response_format`; the reply is parsed tolerantly (fenced blocks, surrounding prose).
    Text,
}

/// One OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EndpointConfig {
    /// A name for logs and the manifest.
    pub name: String,
    /// Base URL including the version path, e.g. `https://api.openai.com/v1` or
    /// `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// Environment variable holding the API key; unset or empty sends no key (local servers).
    pub api_key_env: String,
    /// Share of the load relative to the other endpoints.
    pub weight: f64,
    /// Requests per minute this endpoint allows (0: unlimited).
    pub rpm: u32,
    /// Tokens per minute this endpoint allows (0: unlimited).
    pub tpm: u32,
}

impl Default for EndpointConfig {
    fn default() -> Self {
        EndpointConfig {
            name: "default".into(),
            base_url: "https://api.openai.com/v1".into(),
            api_key_env: "OPENAI_API_KEY".into(),
            weight: 1.0,
            rpm: 0,
            tpm: 0,
        }
    }
}

/// The model and sampling settings of one role, and optionally its own endpoints.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoleModel {
    /// Model name as the endpoint knows it.
    pub model: String,
    /// Sampling temperature.
    pub temperature: f32,
    /// Most tokens in a reply.
    pub max_tokens: u32,
    /// This role's own endpoints (`[[llm.judge.endpoints]]`: the judge on a cloud API, the
    /// assistant under test on a local server), sharing this role's load by weight. Empty (the
    /// default): the role uses the shared `[[llm.endpoints]]`. Left out of the serialised config
    /// when empty, so that a config without it reads and writes as before.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<EndpointConfig>,
}

impl Default for RoleModel {
    fn default() -> Self {
        RoleModel {
            model: "gpt-4o-mini".into(),
            temperature: 0.8,
            max_tokens: 300,
            endpoints: Vec::new(),
        }
    }
}

/// Prices of a model, per million tokens, in any currency (the manifest says which).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Price {
    /// Per million prompt tokens.
    pub input_per_million: f64,
    /// Per million completion tokens.
    pub output_per_million: f64,
}

/// Retries with exponential backoff and full jitter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryPolicy {
    /// Retries after the first attempt (429, 5xx, timeouts, connection errors, unreadable bodies).
    pub max_retries: u32,
    /// First backoff.
    pub base_ms: u64,
    /// Longest backoff.
    pub max_ms: u64,
    /// Consecutive failures after which a whole endpoint is paused.
    pub endpoint_failure_threshold: u32,
    /// How long a failing endpoint is paused (doubles while it keeps failing, up to 16×).
    pub endpoint_pause_ms: u64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_retries: 6,
            base_ms: 500,
            max_ms: 60_000,
            endpoint_failure_threshold: 8,
            endpoint_pause_ms: 10_000,
        }
    }
}

/// The whole LLM configuration (`[llm]` in the config file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// Endpoints sharing the load by weight, for every role without endpoints of its own.
    pub endpoints: Vec<EndpointConfig>,
    /// The caller's model.
    pub caller: RoleModel,
    /// The assistant's model.
    pub assistant: RoleModel,
    /// The judge's model.
    pub judge: RoleModel,
    /// How structured replies are requested.
    pub response_format: ResponseFormatMode,
    /// Per-request timeout.
    pub request_timeout_ms: u64,
    /// Retry policy.
    pub retry: RetryPolicy,
    /// The response cache file; relative paths are under the output directory. Empty: no cache.
    pub cache: PathBuf,
    /// How many times an agent asks again after an invalid reply before the dialogue fails.
    pub max_invalid_replies: u32,
    /// Prices per model name.
    pub prices: BTreeMap<String, Price>,
    /// Currency of `prices`, for the summary.
    pub currency: String,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            endpoints: vec![EndpointConfig::default()],
            caller: RoleModel::default(),
            assistant: RoleModel::default(),
            judge: RoleModel {
                temperature: 0.0,
                max_tokens: 400,
                ..RoleModel::default()
            },
            response_format: ResponseFormatMode::JsonSchema,
            request_timeout_ms: 60_000,
            retry: RetryPolicy::default(),
            cache: PathBuf::from("llm-cache.redb"),
            max_invalid_replies: 2,
            prices: BTreeMap::new(),
            currency: "USD".into(),
        }
    }
}

impl LlmConfig {
    /// The model settings of a role.
    pub fn role(&self, role: Role) -> &RoleModel {
        match role {
            Role::Caller => &self.caller,
            Role::Assistant => &self.assistant,
            Role::Judge => &self.judge,
        }
    }

    /// The model settings of a role, to change.
    pub fn role_mut(&mut self, role: Role) -> &mut RoleModel {
        match role {
            Role::Caller => &mut self.caller,
            Role::Assistant => &mut self.assistant,
            Role::Judge => &mut self.judge,
        }
    }

    /// The endpoints a role's requests go to: its own, else the shared ones.
    pub fn endpoints_of(&self, role: Role) -> &[EndpointConfig] {
        let own = &self.role(role).endpoints;
        if own.is_empty() { &self.endpoints } else { own }
    }
}
