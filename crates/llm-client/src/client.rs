//! The client: endpoint choice by weight and health, rate limits, retries with backoff and
//! jitter honouring `Retry-After`, the response cache and usage accounting — all in one place,
//! so that no retry policy multiplies another.

use crate::cache::{Cache, CachedReply};
use crate::config::{EndpointConfig, LlmConfig, ResponseFormatMode, Role};
use crate::error::LlmError;
use crate::redact::Redactor;
use crate::usage::{Usage, UsageMeter, estimate_tokens};
use async_openai::Client;
use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use governor::clock::DefaultClock;
use governor::state::{InMemoryState, NotKeyed};
use governor::{Quota, RateLimiter};
use rand::Rng;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::borrow::Cow;
use std::num::NonZeroU32;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

type Limiter = RateLimiter<NotKeyed, InMemoryState, DefaultClock>;

/// A message of the conversation sent to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatMessage {
    /// `system`, `user` or `assistant`.
    pub role: &'static str,
    /// The text.
    pub content: String,
}

/// A JSON schema a structured reply must follow. Cheap to clone: every request of a role
/// carries the same schema.
#[derive(Debug, Clone, PartialEq)]
pub struct ReplySchema {
    /// Schema name (`[a-zA-Z0-9_-]`, at most 64).
    pub name: Arc<str>,
    /// The JSON schema.
    pub schema: Arc<serde_json::Value>,
}

/// One chat request.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// Whose request (model and usage are per role).
    pub role: Role,
    /// The conversation.
    pub messages: Vec<ChatMessage>,
    /// The reply's schema, when structured.
    pub schema: Option<ReplySchema>,
    /// Distinguishes otherwise identical requests in the cache (e.g. a re-ask after an invalid
    /// reply): 0 for the first.
    pub nonce: u32,
    /// The conversation this request belongs to (a dialogue attempt's seed; 0 when there is
    /// none). Part of the cache key: two dialogues whose prompts happen to be identical (the
    /// caller's first turn often is) must not share a reply a sampling model would have drawn
    /// twice, while a resumed or repeated run — same plan, same seeds — still hits.
    pub scope: u64,
}

/// A reply.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatReply {
    /// The content of the first choice.
    pub content: String,
    /// Served from the cache.
    pub cached: bool,
    /// Prompt tokens (reported, or estimated when the server omits usage).
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// The server stopped at `max_tokens` (`finish_reason: "length"`): the content is cut short.
    pub truncated: bool,
}

/// Something that answers chat requests: the real client, or a stand-in in tests.
pub trait ChatModel: Send + Sync {
    /// Answers one request.
    fn chat(
        &self,
        req: &ChatRequest,
    ) -> impl std::future::Future<Output = Result<ChatReply, LlmError>> + Send;
    /// Usage so far.
    fn meter(&self) -> &UsageMeter;
}

/// A non-2xx response, with what the retry policy needs from it.
#[derive(Debug)]
struct HttpStatus {
    status: u16,
    retry_after: Option<Duration>,
    body: String,
}

impl std::fmt::Display for HttpStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HTTP {}: {}", self.status, self.body)
    }
}

impl std::error::Error for HttpStatus {}

#[derive(Debug, Default)]
struct Health {
    consecutive_failures: u32,
    paused_until: Option<Instant>,
    pause_level: u32,
}

struct Endpoint {
    cfg: EndpointConfig,
    client: Client<OpenAIConfig>,
    rpm: Option<Limiter>,
    tpm: Option<(Limiter, u32)>,
    health: Mutex<Health>,
    /// Keeps this endpoint's key out of everything taken from its responses.
    redactor: Redactor,
}

/// The OpenAI-compatible client.
pub struct LlmClient {
    cfg: LlmConfig,
    endpoints: Vec<Endpoint>,
    /// Indices into `endpoints` each role's requests may go to, in [`Role::ALL`] order: the
    /// shared endpoints, or the role's own.
    pools: [Vec<usize>; 3],
    cache: Option<Cache>,
    meter: Arc<UsageMeter>,
}

#[derive(Deserialize)]
struct LenientResponse {
    #[serde(default)]
    choices: Vec<LenientChoice>,
    #[serde(default)]
    usage: Option<LenientUsage>,
}

#[derive(Deserialize)]
struct LenientChoice {
    #[serde(default)]
    message: Option<LenientMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct LenientMessage {
    #[serde(default)]
    content: Option<String>,
}

#[derive(Deserialize)]
struct LenientUsage {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
}

enum Failure {
    Retry {
        message: String,
        retry_after: Option<Duration>,
    },
    Fatal {
        status: u16,
        message: String,
    },
}

/// Tokens of the messages of a request body: their contents plus a few per message.
fn estimate_messages(body: &RequestBody<'_>) -> u64 {
    body.messages
        .iter()
        .map(|m| estimate_tokens(&m.content) + 4)
        .sum()
}

/// A request body as sent (`POST /chat/completions`), borrowing from the [`ChatRequest`].
#[derive(Debug, Serialize)]
pub struct RequestBody<'a> {
    model: &'a str,
    messages: Vec<BodyMessage<'a>>,
    temperature: f32,
    max_tokens: u32,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    response_format: Option<ResponseFormat<'a>>,
}

#[derive(Debug, Serialize)]
struct BodyMessage<'a> {
    role: &'a str,
    content: Cow<'a, str>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ResponseFormat<'a> {
    JsonSchema { json_schema: JsonSchemaFormat<'a> },
    JsonObject,
}

#[derive(Debug, Serialize)]
struct JsonSchemaFormat<'a> {
    name: &'a str,
    schema: &'a serde_json::Value,
    strict: bool,
}

/// Feeds serialised bytes straight into a hasher.
struct HashWriter<'a>(&'a mut Sha256);

impl std::io::Write for HashWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn parse_retry_after(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let v = headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim();
    v.parse::<f64>()
        .ok()
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| Duration::from_secs_f64(s.min(3600.0)))
}

/// The requests-per-minute quota. Bursts are set explicitly: governor's `per_minute(N)` alone
/// lets N through at once; here one request waits for the next after `60 s / N`.
fn rpm_quota(n: NonZeroU32) -> Quota {
    Quota::per_minute(n).allow_burst(NonZeroU32::MIN)
}

/// The tokens-per-minute quota and its burst: a second's worth, at least 4,096 tokens (one
/// large request), at most the whole minute's.
fn tpm_quota(n: NonZeroU32) -> (Quota, u32) {
    let burst = (n.get() / 60).max(4096).min(n.get());
    let burst = NonZeroU32::new(burst).unwrap_or(NonZeroU32::MIN);
    (Quota::per_minute(n).allow_burst(burst), burst.get())
}

/// Characters of an error body kept (before redaction; messages keep fewer still).
const MAX_ERROR_BODY: usize = 4096;

impl Failure {
    /// The same failure with the endpoint's key taken out of its message.
    fn redacted(self, r: &Redactor) -> Failure {
        match self {
            Failure::Retry {
                message,
                retry_after,
            } => Failure::Retry {
                message: r.redact(&message).into_owned(),
                retry_after,
            },
            Failure::Fatal { status, message } => Failure::Fatal {
                status,
                message: r.redact(&message).into_owned(),
            },
        }
    }
}

fn classify(e: OpenAIError) -> Failure {
    match e {
        OpenAIError::Boxed(b) => match b.downcast::<HttpStatus>() {
            Ok(h) => {
                let message: String = format!(
                    "HTTP {}: {}",
                    h.status,
                    h.body.chars().take(300).collect::<String>()
                );
                if h.status == 429 || h.status == 408 || h.status >= 500 {
                    Failure::Retry {
                        message,
                        retry_after: h.retry_after,
                    }
                } else {
                    Failure::Fatal {
                        status: h.status,
                        message,
                    }
                }
            }
            Err(other) => Failure::Retry {
                message: other.to_string(),
                retry_after: None,
            },
        },
        OpenAIError::Reqwest(e) => {
            let kind = if e.is_timeout() {
                "timeout"
            } else if e.is_connect() {
                "connection failed"
            } else if e.is_body() || e.is_decode() {
                "broken body"
            } else {
                "transport error"
            };
            Failure::Retry {
                message: format!("{kind}: {e}"),
                retry_after: None,
            }
        }
        OpenAIError::JSONDeserialize(e, _) => Failure::Retry {
            message: format!("unreadable reply: {e}"),
            retry_after: None,
        },
        OpenAIError::ApiError(a) => {
            let status = a.status_code.as_u16();
            if status == 429 || status >= 500 {
                Failure::Retry {
                    message: a.to_string(),
                    retry_after: None,
                }
            } else {
                Failure::Fatal {
                    status,
                    message: a.to_string(),
                }
            }
        }
        other => Failure::Fatal {
            status: 0,
            message: other.to_string(),
        },
    }
}

impl LlmClient {
    /// Builds the client. API keys are read here from the environment variables the endpoints
    /// name, and are held only inside the HTTP client. The cache path, when relative, is
    /// resolved against `out_dir`.
    pub fn new(cfg: LlmConfig, out_dir: &Path) -> Result<LlmClient, LlmError> {
        for role in Role::ALL {
            let pool = cfg.endpoints_of(role);
            if pool.is_empty() {
                return Err(LlmError::Config(format!(
                    "no endpoint configured for the {} ([[llm.endpoints]] or [[llm.{}.endpoints]])",
                    role.as_str(),
                    role.as_str()
                )));
            }
            if !pool.iter().any(|e| e.weight > 0.0) {
                let key = if cfg.role(role).endpoints.is_empty() {
                    "llm.endpoints".to_string()
                } else {
                    format!("llm.{}.endpoints", role.as_str())
                };
                return Err(LlmError::Config(format!(
                    "every endpoint of {key} has weight 0"
                )));
            }
        }
        let http = reqwest::Client::builder()
            .timeout(Duration::from_millis(cfg.request_timeout_ms.max(1)))
            .pool_max_idle_per_host(1024)
            .build()
            .map_err(|e| LlmError::Config(format!("building the HTTP client: {e}")))?;
        // The shared endpoints first, then each role's own (named after the role unless named).
        let mut all: Vec<EndpointConfig> = cfg.endpoints.clone();
        let mut pools: [Vec<usize>; 3] = [(0..all.len()).collect(), Vec::new(), Vec::new()];
        pools[1] = pools[0].clone();
        pools[2] = pools[0].clone();
        for (i, role) in Role::ALL.iter().enumerate() {
            let own = &cfg.role(*role).endpoints;
            if own.is_empty() {
                continue;
            }
            pools[i] = (all.len()..all.len() + own.len()).collect();
            for e in own {
                let mut e = e.clone();
                if e.name == EndpointConfig::default().name {
                    e.name = role.as_str().to_string();
                }
                all.push(e);
            }
        }
        let mut endpoints = Vec::new();
        for e in &all {
            let url = e.base_url.trim_end_matches('/');
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(LlmError::Config(format!(
                    "endpoint {:?}: base_url {:?} is not an http(s) URL",
                    e.name, e.base_url
                )));
            }
            let key = std::env::var(&e.api_key_env).unwrap_or_default();
            let redactor = Redactor::new(&key);
            let config = OpenAIConfig::new().with_api_base(url).with_api_key(key);
            // Our own service: one attempt per call, non-2xx turned into an error that keeps
            // the status and Retry-After, so the retry policy below is the only one.
            let http = http.clone();
            let body_redactor = redactor.clone();
            let service = tower::service_fn(move |factory: HttpRequestFactory| {
                let http = http.clone();
                let redactor = body_redactor.clone();
                async move {
                    let request = factory.build().await?;
                    let response = http.execute(request).await.map_err(OpenAIError::Reqwest)?;
                    if response.status().is_success() {
                        return Ok(response);
                    }
                    let status = response.status().as_u16();
                    let retry_after = parse_retry_after(response.headers());
                    let body = response.text().await.unwrap_or_default();
                    // A provider may repeat the key in its error: it stops here.
                    let body: String = body.chars().take(MAX_ERROR_BODY).collect();
                    let body = redactor.redact(&body).into_owned();
                    Err(OpenAIError::Boxed(Box::new(HttpStatus {
                        status,
                        retry_after,
                        body,
                    })))
                }
            });
            let client = Client::with_config(config).with_http_service(service);
            let rpm = NonZeroU32::new(e.rpm).map(|n| Limiter::direct(rpm_quota(n)));
            let tpm = NonZeroU32::new(e.tpm).map(|n| {
                let (quota, burst) = tpm_quota(n);
                (Limiter::direct(quota), burst)
            });
            endpoints.push(Endpoint {
                cfg: e.clone(),
                client,
                rpm,
                tpm,
                health: Mutex::new(Health::default()),
                redactor,
            });
        }
        let cache = if cfg.cache.as_os_str().is_empty() {
            None
        } else {
            let path = if cfg.cache.is_absolute() {
                cfg.cache.clone()
            } else {
                out_dir.join(&cfg.cache)
            };
            Some(Cache::open(&path)?)
        };
        Ok(LlmClient {
            cfg,
            endpoints,
            pools,
            cache,
            meter: Arc::new(UsageMeter::default()),
        })
    }

    /// Commits every reply stored so far to the cache file and stops its writer (replies
    /// after this are still served from memory for the rest of the run). Dropping the client
    /// does the same; a client that lives to the end of the process (`evaluate` leaks one so
    /// that its tasks can borrow it) calls this before exiting.
    pub fn flush_cache(&self) {
        if let Some(c) = &self.cache {
            c.flush();
        }
    }

    /// The configuration.
    pub fn config(&self) -> &LlmConfig {
        &self.cfg
    }

    /// Usage so far, with costs.
    pub fn usage(&self) -> Usage {
        self.meter.snapshot(&self.cfg)
    }

    /// The request body sent for `req`, borrowing from it. It is serialised twice per call —
    /// into the cache key's hasher and by the HTTP client — and never built as a
    /// `serde_json::Value` tree: building, cloning and dropping that tree (schema included) was
    /// a measurable share of the client's CPU per call.
    pub fn body<'a>(&'a self, req: &'a ChatRequest) -> RequestBody<'a> {
        let m = self.cfg.role(req.role);
        let mut messages: Vec<BodyMessage<'a>> = req
            .messages
            .iter()
            .map(|x| BodyMessage {
                role: x.role,
                content: Cow::Borrowed(&x.content),
            })
            .collect();
        if let (Some(schema), ResponseFormatMode::JsonObject | ResponseFormatMode::Text) =
            (&req.schema, self.cfg.response_format)
        {
            // Unconstrained servers learn the shape from the prompt.
            messages.push(BodyMessage {
                role: "system",
                content: Cow::Owned(format!(
                    "只输出一个 JSON 对象，不要输出其他内容。JSON Schema：{}",
                    schema.schema
                )),
            });
        }
        let response_format = match (&req.schema, self.cfg.response_format) {
            (Some(s), ResponseFormatMode::JsonSchema) => Some(ResponseFormat::JsonSchema {
                json_schema: JsonSchemaFormat {
                    name: &s.name,
                    schema: &s.schema,
                    strict: true,
                },
            }),
            (Some(_), ResponseFormatMode::JsonObject) => Some(ResponseFormat::JsonObject),
            _ => None,
        };
        RequestBody {
            model: &m.model,
            messages,
            temperature: m.temperature,
            max_tokens: m.max_tokens,
            stream: false,
            response_format,
        }
    }

    fn cache_key(body: &RequestBody<'_>, nonce: u32, scope: u64) -> [u8; 32] {
        let mut h = Sha256::new();
        // Serialising into the hasher: no intermediate buffer. Writing to a hasher cannot fail.
        let _ = serde_json::to_writer(HashWriter(&mut h), body);
        h.update(nonce.to_le_bytes());
        h.update(scope.to_le_bytes());
        h.finalize().into()
    }

    async fn pick(&self, role: Role) -> &Endpoint {
        let pool = &self.pools[Role::ALL.iter().position(|r| *r == role).unwrap_or(0)];
        loop {
            let now = Instant::now();
            let mut earliest: Option<Instant> = None;
            let available: Vec<&Endpoint> = pool
                .iter()
                .map(|&i| &self.endpoints[i])
                .filter(|e| e.cfg.weight > 0.0)
                .filter(|e| {
                    let h = e.health.lock().unwrap_or_else(|p| p.into_inner());
                    match h.paused_until {
                        Some(t) if t > now => {
                            earliest = Some(earliest.map_or(t, |x: Instant| x.min(t)));
                            false
                        }
                        _ => true,
                    }
                })
                .collect();
            if !available.is_empty() {
                let total: f64 = available.iter().map(|e| e.cfg.weight).sum();
                let mut x = rand::rng().random_range(0.0..total);
                for e in &available {
                    if x < e.cfg.weight {
                        return e;
                    }
                    x -= e.cfg.weight;
                }
                return available[available.len() - 1];
            }
            let wait = earliest
                .map(|t| t.saturating_duration_since(now))
                .unwrap_or(Duration::from_millis(100));
            tokio::time::sleep(wait.max(Duration::from_millis(1))).await;
        }
    }

    fn note_success(e: &Endpoint) {
        let mut h = e.health.lock().unwrap_or_else(|p| p.into_inner());
        h.consecutive_failures = 0;
        h.pause_level = 0;
        h.paused_until = None;
    }

    fn note_failure(&self, e: &Endpoint) {
        let mut h = e.health.lock().unwrap_or_else(|p| p.into_inner());
        h.consecutive_failures += 1;
        if h.consecutive_failures >= self.cfg.retry.endpoint_failure_threshold.max(1) {
            let pause = self
                .cfg
                .retry
                .endpoint_pause_ms
                .saturating_mul(1 << h.pause_level.min(4));
            h.paused_until = Some(Instant::now() + Duration::from_millis(pause));
            h.pause_level += 1;
            h.consecutive_failures = 0;
            tracing::warn!(endpoint = %e.cfg.name, pause_ms = pause, "endpoint keeps failing; pausing it");
        }
    }

    fn backoff(&self, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let r = &self.cfg.retry;
        let cap = r
            .base_ms
            .saturating_mul(1u64 << attempt.min(20))
            .min(r.max_ms)
            .max(1);
        // Full jitter: spread retries so that callers who failed together do not return together.
        let jittered = Duration::from_millis(rand::rng().random_range(0..=cap));
        match retry_after {
            Some(ra) => ra.max(jittered / 4),
            None => jittered,
        }
    }

    async fn send_once(
        &self,
        e: &Endpoint,
        body: &RequestBody<'_>,
        prompt_est: u64,
        estimate: u64,
    ) -> Result<(String, u64, u64, bool), Failure> {
        if let Some(l) = &e.rpm {
            l.until_ready().await;
        }
        if let Some((l, burst)) = &e.tpm {
            let n = NonZeroU32::new((estimate.min(*burst as u64)).max(1) as u32)
                .unwrap_or(NonZeroU32::MIN);
            let _ = l.until_n_ready(n).await;
        }
        let reply: LenientResponse = e
            .client
            .chat()
            .create_byot(body)
            .await
            .map_err(|err| classify(err).redacted(&e.redactor))?;
        let (content, truncated) = reply
            .choices
            .into_iter()
            .find_map(|c| {
                let cut = c.finish_reason.as_deref() == Some("length");
                c.message.and_then(|m| m.content).map(|m| (m, cut))
            })
            .ok_or(Failure::Retry {
                message: "reply without content".into(),
                retry_after: None,
            })?;
        let content = e.redactor.redact(&content).into_owned();
        let (prompt, completion) = match reply.usage {
            Some(LenientUsage {
                prompt_tokens: Some(p),
                completion_tokens: c,
            }) => (p, c.unwrap_or_else(|| estimate_tokens(&content))),
            _ => (prompt_est, estimate_tokens(&content)),
        };
        // Correct the tokens-per-minute reservation from what the server reports.
        if let Some((l, burst)) = &e.tpm {
            let used = prompt + completion;
            if used > estimate
                && let Some(extra) = NonZeroU32::new((used - estimate).min(*burst as u64) as u32)
            {
                let _ = l.until_n_ready(extra).await;
            }
        }
        Ok((content, prompt, completion, truncated))
    }
}

impl ChatModel for LlmClient {
    async fn chat(&self, req: &ChatRequest) -> Result<ChatReply, LlmError> {
        let body = self.body(req);
        let key = Self::cache_key(&body, req.nonce, req.scope);
        if let Some(cache) = &self.cache
            && let Some(hit) = cache.get(&key)?
        {
            self.meter.cache_hit(req.role);
            return Ok(ChatReply {
                content: hit.content,
                cached: true,
                prompt_tokens: hit.prompt_tokens,
                completion_tokens: hit.completion_tokens,
                truncated: false,
            });
        }
        let prompt_est = estimate_messages(&body);
        let estimate = prompt_est + self.cfg.role(req.role).max_tokens as u64;
        let max_attempts = self.cfg.retry.max_retries + 1;
        let mut last = String::new();
        let mut last_endpoint = String::new();
        for attempt in 0..max_attempts {
            let e = self.pick(req.role).await;
            last_endpoint = e.cfg.name.clone();
            match self.send_once(e, &body, prompt_est, estimate).await {
                Ok((content, prompt, completion, truncated)) => {
                    Self::note_success(e);
                    self.meter.answered(req.role, prompt, completion);
                    // A reply cut short at `max_tokens` is not kept: it is the server's limit,
                    // not the model's answer, and a run with a larger `max_tokens` (or the
                    // same run asked again) should not be served the stump.
                    if let Some(cache) = self.cache.as_ref().filter(|_| !truncated) {
                        cache.put(
                            &key,
                            &CachedReply {
                                content: content.clone(),
                                prompt_tokens: prompt,
                                completion_tokens: completion,
                            },
                        )?;
                    }
                    return Ok(ChatReply {
                        content,
                        cached: false,
                        prompt_tokens: prompt,
                        completion_tokens: completion,
                        truncated,
                    });
                }
                Err(Failure::Fatal { status, message }) => {
                    self.meter.failure(req.role);
                    return Err(LlmError::Rejected {
                        endpoint: e.cfg.name.clone(),
                        status,
                        message,
                    });
                }
                Err(Failure::Retry {
                    message,
                    retry_after,
                }) => {
                    tracing::debug!(endpoint = %e.cfg.name, attempt, %message, "retrying");
                    self.note_failure(e);
                    last = message;
                    if attempt + 1 < max_attempts {
                        self.meter.retry(req.role);
                        tokio::time::sleep(self.backoff(attempt, retry_after)).await;
                    }
                }
            }
        }
        self.meter.failure(req.role);
        Err(LlmError::Exhausted {
            endpoint: last_endpoint,
            attempts: max_attempts,
            last,
        })
    }

    fn meter(&self) -> &UsageMeter {
        &self.meter
    }
}

/// Why a structured reply could not be had.
#[derive(Debug, Clone)]
pub enum ReplyError {
    /// The request itself failed.
    Chat(LlmError),
    /// Every reply was unusable; the last problem.
    Invalid(String),
    /// The reply was cut short at `max_tokens` and unusable; it is not asked again, since the
    /// same limit would cut it again.
    CutShort(String),
}

impl std::fmt::Display for ReplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplyError::Chat(e) => write!(f, "{e}"),
            ReplyError::Invalid(m) => f.write_str(m),
            ReplyError::CutShort(m) => write!(
                f,
                "reply cut short at max_tokens (finish_reason: length): {m}"
            ),
        }
    }
}

impl std::error::Error for ReplyError {}

/// Asks `model` and parses the reply with `parse`; an unusable reply is counted and asked again
/// (with a new nonce, so the cache does not answer with the same reply) up to `max_invalid`
/// times. The agents and the judge share this loop.
pub async fn chat_parsed<M: ChatModel, T>(
    model: &M,
    role: Role,
    scope: u64,
    messages: Vec<ChatMessage>,
    schema: ReplySchema,
    max_invalid: u32,
    parse: impl Fn(&str) -> Result<T, String>,
) -> Result<T, ReplyError> {
    let mut problem = String::new();
    for nonce in 0..=max_invalid {
        let req = ChatRequest {
            role,
            messages: messages.clone(),
            schema: Some(schema.clone()),
            nonce,
            scope,
        };
        let reply = model.chat(&req).await.map_err(ReplyError::Chat)?;
        match parse(&reply.content) {
            Ok(v) => return Ok(v),
            Err(p) if reply.truncated => {
                model.meter().invalid_reply(role);
                return Err(ReplyError::CutShort(p));
            }
            Err(p) => {
                model.meter().invalid_reply(role);
                problem = p;
            }
        }
    }
    Err(ReplyError::Invalid(format!(
        "no valid reply after {} tries: {problem}",
        max_invalid + 1
    )))
}

#[cfg(test)]
mod limit_tests {
    //! The limiters' quotas on a virtual clock: exact counts, no waiting, no wall time.
    use super::*;
    use governor::clock::FakeRelativeClock;

    /// How many single permits `limiter` grants in `ms` milliseconds of virtual time, asking
    /// every millisecond as often as it says yes.
    fn granted(quota: Quota, ms: u64, n: u32) -> u32 {
        let clock = FakeRelativeClock::default();
        let limiter = RateLimiter::direct_with_clock(quota, clock.clone());
        let n = NonZeroU32::new(n).unwrap();
        let mut count = 0;
        for _ in 0..ms {
            while matches!(limiter.check_n(n), Ok(Ok(()))) {
                count += 1;
            }
            clock.advance(Duration::from_millis(1));
        }
        count
    }

    #[test]
    fn requests_per_minute_are_spread_evenly_with_no_burst() {
        let q = rpm_quota(NonZeroU32::new(1_200).unwrap()); // one every 50 ms
        assert_eq!(granted(q, 1, 1), 1, "one at once, not a minute's worth");
        assert_eq!(granted(q, 50, 1), 1, "the second waits the full 50 ms");
        assert_eq!(granted(q, 51, 1), 2);
        assert_eq!(granted(q, 1_000, 1), 20, "20 a second");
        assert_eq!(granted(q, 60_000, 1), 1_200, "1,200 a minute");
        let q = rpm_quota(NonZeroU32::new(7).unwrap());
        assert_eq!(granted(q, 60_000, 1), 7);
    }

    #[test]
    fn tokens_per_minute_allow_one_large_request_then_the_rate() {
        // 60,000 a minute: 1,000 a second, but a burst of 4,096 so that one large request fits.
        let (q, burst) = tpm_quota(NonZeroU32::new(60_000).unwrap());
        assert_eq!(burst, 4_096);
        assert_eq!(granted(q, 1, 4_096), 1);
        assert_eq!(granted(q, 1, 1), 4_096, "the burst, token by token");
        // After the burst, one token a millisecond: 4,096 + 999 in the first second.
        assert_eq!(granted(q, 1_000, 1), 4_096 + 999);
        // A big budget: the burst is a second's worth.
        let (_, burst) = tpm_quota(NonZeroU32::new(6_000_000).unwrap());
        assert_eq!(burst, 100_000);
        // A tiny budget: never more than the minute's.
        let (q, burst) = tpm_quota(NonZeroU32::new(100).unwrap());
        assert_eq!(burst, 100);
        assert_eq!(granted(q, 60_000, 1), 100 + 99);
    }
}
