//! The HTTP side: [`MockServer`], its accept loop and its handlers.

use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arc_swap::ArcSwap;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Request, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Serialize;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, watch};
use tokio::task::{JoinHandle, JoinSet};
use tower::ServiceExt;

use crate::reply::{self, Completion};
use crate::rng::{SplitMix64, mix};
use crate::stats::{Counters, Outcome};
use crate::{MockConfig, MockError, Stats};

/// State shared by the handlers and the [`MockServer`] handle.
#[derive(Debug)]
struct Shared {
    /// Swapped whole by [`MockServer::set_config`]; read without a lock.
    config: ArcSwap<MockConfig>,
    /// Numbers chat-completion requests; seeds each request's fault draw.
    counter: AtomicU64,
    counters: Counters,
}

/// A running mock server. Dropping it stops the server (without waiting); prefer
/// [`shutdown`](Self::shutdown) in async code to wait until every connection is closed.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
    /// The private runtime of [`start_blocking`](Self::start_blocking).
    runtime: Option<tokio::runtime::Runtime>,
}

impl MockServer {
    /// Starts a server on `127.0.0.1` with a free port, on the current tokio runtime.
    pub async fn start(config: MockConfig) -> Result<MockServer, MockError> {
        Self::start_on(config, SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await
    }

    /// Starts a server on `addr` (port 0 picks a free port), on the current tokio runtime.
    pub async fn start_on(config: MockConfig, addr: SocketAddr) -> Result<MockServer, MockError> {
        config.validate()?;
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| MockError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| MockError::Bind { addr, source })?;
        let shared = Arc::new(Shared {
            config: ArcSwap::from_pointee(config),
            counter: AtomicU64::new(0),
            counters: Counters::default(),
        });
        let router = Router::new()
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/models", get(list_models))
            .route("/health", get(health))
            .fallback(not_found)
            .with_state(shared.clone());
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(accept_loop(listener, router, stopped));
        tracing::debug!(%addr, "mock-openai listening");
        Ok(MockServer {
            addr,
            shared,
            stop,
            task: Some(task),
            runtime: None,
        })
    }

    /// Starts a server on `addr` (or `127.0.0.1` with a free port) on a runtime of its own
    /// with two worker threads, for synchronous code such as tests that drive a binary.
    pub fn start_blocking(
        config: MockConfig,
        addr: Option<SocketAddr>,
    ) -> Result<MockServer, MockError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mock-openai")
            .enable_all()
            .build()
            .map_err(MockError::Runtime)?;
        let addr = addr.unwrap_or(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)));
        let mut server = runtime.block_on(Self::start_on(config, addr))?;
        server.runtime = Some(runtime);
        Ok(server)
    }

    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL an OpenAI client takes, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> Stats {
        self.shared.counters.snapshot()
    }

    /// Zeroes the counters and forgets the arrivals (for example after a warm-up).
    /// The request counter that seeds fault draws keeps running.
    pub fn clear_stats(&self) {
        self.shared.counters.clear();
    }

    /// The configuration in force.
    pub fn config(&self) -> MockConfig {
        MockConfig::clone(&self.shared.config.load())
    }

    /// Replaces the configuration; requests that arrive afterwards use the new one (a request
    /// already being served keeps the one it started with).
    pub fn set_config(&self, config: MockConfig) -> Result<(), MockError> {
        config.validate()?;
        self.shared.config.store(Arc::new(config));
        Ok(())
    }

    /// Stops accepting, closes every connection (hanging requests included) and waits until
    /// the server's tasks are gone.
    pub async fn shutdown(mut self) {
        self.stop.send_replace(true);
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.stop.send_replace(true);
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Marks a response that must not be sent: the connection is reset instead.
#[derive(Debug, Clone, Copy)]
struct ResetConnection;

/// Accepts connections until told to stop, then aborts the connections and waits for them.
async fn accept_loop(listener: TcpListener, router: Router, mut stopped: watch::Receiver<bool>) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            biased;
            _ = stopped.changed() => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(serve_connection(stream, router.clone()));
                }
                Err(e) => {
                    // Typically EMFILE: back off instead of spinning.
                    tracing::warn!(error = %e, "mock-openai: accept failed");
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            },
        }
    }
    drop(listener);
    connections.shutdown().await;
}

/// Serves one HTTP/1.1 connection. A response marked [`ResetConnection`] is never sent:
/// the socket gets `SO_LINGER = 0` and is closed, which makes the kernel send a TCP RST.
async fn serve_connection(stream: TcpStream, router: Router) {
    let _ = stream.set_nodelay(true);
    let reset = Arc::new(Notify::new());
    let service = {
        let reset = reset.clone();
        hyper::service::service_fn(move |request: Request<Incoming>| {
            let router = router.clone();
            let reset = reset.clone();
            Box::pin(async move {
                let response = match router.oneshot(request).await {
                    Ok(response) => response,
                    Err(never) => match never {},
                };
                if response.extensions().get::<ResetConnection>().is_some() {
                    reset.notify_one();
                    std::future::pending::<()>().await;
                }
                Ok::<_, Infallible>(response)
            })
        })
    };
    let mut connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        // Idle keep-alive connections stay open until the client closes them: closing them
        // after a timeout (hyper's default is 30 s) races with a client reusing them, and
        // the mock must fail only when a fault says so.
        .header_read_timeout(None)
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::select! {
        result = &mut connection => {
            if let Err(e) = result {
                tracing::trace!(error = %e, "mock-openai: connection ended with an error");
            }
        }
        () = reset.notified() => {
            let stream = connection.into_parts().io.into_inner();
            if let Err(e) = stream.set_zero_linger() {
                tracing::warn!(error = %e, "mock-openai: cannot set SO_LINGER; the reset becomes a plain close");
            }
            drop(stream);
        }
    }
}

/// `POST /v1/chat/completions`.
async fn chat_completions(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let arrived = Instant::now();
    let config = shared.config.load_full();
    let n = shared.counter.fetch_add(1, Ordering::Relaxed);
    shared.counters.arrived(arrived, config.record_arrivals);

    if config.echo_key_status != 0 {
        let response = echoing_key(&headers, config.echo_key_status);
        return finish(&shared, n, Outcome::Unauthorized, response);
    }
    if !authorized(&headers, &config) {
        return finish(&shared, n, Outcome::Unauthorized, unauthorized());
    }
    let completion = match reply::complete(&body, &config) {
        Ok(c) => c,
        Err(bad) => {
            let response = error_response(
                StatusCode::BAD_REQUEST,
                &bad.message,
                "invalid_request_error",
                bad.param,
                None,
            );
            return finish(&shared, n, Outcome::BadRequest, response);
        }
    };

    let mut rng = SplitMix64::new(mix(config.seed, n));
    let outcome = draw_outcome(&mut rng, &config);
    let latency = draw_latency(&mut rng, &config);
    match outcome {
        Outcome::RateLimited => {
            return finish(&shared, n, outcome, rate_limited(&config));
        }
        Outcome::Hang => {
            shared.counters.outcome(outcome);
            tracing::debug!(request = n, outcome = outcome.as_str(), "chat completion");
            tokio::time::sleep_until((arrived + Duration::from_millis(config.hang_ms)).into())
                .await;
            return completion_response(&completion, &config);
        }
        _ => {}
    }
    shared.counters.outcome(outcome);
    tracing::debug!(request = n, outcome = outcome.as_str(), "chat completion");
    sleep_latency(arrived, latency).await;
    match outcome {
        Outcome::ServerError => error_response(
            StatusCode::INTERNAL_SERVER_ERROR,
            "The server had an error while processing your request. Sorry about that!",
            "server_error",
            None,
            Some("internal_error"),
        ),
        Outcome::Truncated => {
            let full = completion_json(&completion, &config);
            let mut cut = full.len() / 2;
            while !full.is_char_boundary(cut) {
                cut -= 1;
            }
            json_response(StatusCode::OK, full[..cut].to_owned())
        }
        Outcome::Reset => {
            let mut response = StatusCode::OK.into_response();
            response.extensions_mut().insert(ResetConnection);
            response
        }
        _ => completion_response(&completion, &config),
    }
}

/// Tokio's timer rounds a deadline up to the next millisecond and the OS wait rounds up
/// again, so a plain sleep overshoots by about 1 ms on average — 2 % of a 50 ms latency,
/// which would be charged to the client in a throughput benchmark. Aiming this much early
/// centres the actual latency on the configured one (within about ±1 ms).
const TIMER_LEAD: Duration = Duration::from_millis(1);

/// Waits until `latency` after `arrived`, on average.
async fn sleep_latency(arrived: Instant, latency: Duration) {
    if latency.is_zero() {
        return;
    }
    let target = arrived + latency.saturating_sub(TIMER_LEAD);
    tokio::time::sleep_until(target.into()).await;
}

/// Counts and logs an outcome decided without waiting.
fn finish(shared: &Shared, n: u64, outcome: Outcome, response: Response) -> Response {
    shared.counters.outcome(outcome);
    tracing::debug!(request = n, outcome = outcome.as_str(), "chat completion");
    response
}

/// At most one fault per request, by cumulative probability; otherwise [`Outcome::Ok`].
fn draw_outcome(rng: &mut SplitMix64, config: &MockConfig) -> Outcome {
    let u = rng.unit();
    let mut edge = 0.0;
    for (p, outcome) in [
        (config.p_429, Outcome::RateLimited),
        (config.p_500, Outcome::ServerError),
        (config.p_hang, Outcome::Hang),
        (config.p_truncated, Outcome::Truncated),
        (config.p_reset, Outcome::Reset),
    ] {
        edge += p;
        if p > 0.0 && u < edge {
            return outcome;
        }
    }
    Outcome::Ok
}

/// Uniform in `[latency - jitter, latency + jitter]`, clamped at zero.
fn draw_latency(rng: &mut SplitMix64, config: &MockConfig) -> Duration {
    let base = config.latency_ms as i64;
    let jitter = config.jitter_ms as i64;
    let ms = if jitter == 0 {
        base
    } else {
        rng.range_inclusive(base - jitter, base + jitter)
    };
    Duration::from_millis(ms.max(0) as u64)
}

fn authorized(headers: &HeaderMap, config: &MockConfig) -> bool {
    let Some(required) = &config.required_api_key else {
        return true;
    };
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|key| key.trim() == required)
}

#[derive(Serialize)]
struct ChatCompletion<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    model: &'a str,
    choices: [Choice<'a>; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    usage: Option<Usage>,
    system_fingerprint: &'static str,
}

#[derive(Serialize)]
struct Choice<'a> {
    index: u32,
    message: Message<'a>,
    logprobs: Option<()>,
    finish_reason: &'a str,
}

#[derive(Serialize)]
struct Message<'a> {
    role: &'static str,
    content: &'a str,
}

#[derive(Serialize)]
struct Usage {
    prompt_tokens: u64,
    completion_tokens: u64,
    total_tokens: u64,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn completion_json(completion: &Completion, config: &MockConfig) -> String {
    let body = ChatCompletion {
        id: &completion.id,
        object: "chat.completion",
        created: unix_now(),
        model: &completion.model,
        choices: [Choice {
            index: 0,
            message: Message {
                role: "assistant",
                content: &completion.content,
            },
            logprobs: None,
            finish_reason: completion.finish_reason,
        }],
        usage: (!config.omit_usage).then(|| Usage {
            prompt_tokens: completion.prompt_tokens,
            completion_tokens: completion.completion_tokens,
            total_tokens: completion.prompt_tokens + completion.completion_tokens,
        }),
        system_fingerprint: "mock-openai",
    };
    serde_json::to_string(&body).expect("the reply serializes")
}

fn completion_response(completion: &Completion, config: &MockConfig) -> Response {
    json_response(StatusCode::OK, completion_json(completion, config))
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: ErrorDetail<'a>,
}

#[derive(Serialize)]
struct ErrorDetail<'a> {
    message: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    param: Option<&'a str>,
    code: Option<&'a str>,
}

/// An OpenAI-style error: `{"error": {"message", "type", "param", "code"}}`.
fn error_response(
    status: StatusCode,
    message: &str,
    kind: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Response {
    let body = ErrorBody {
        error: ErrorDetail {
            message,
            kind,
            param,
            code,
        },
    };
    json_response(
        status,
        serde_json::to_string(&body).expect("the error serializes"),
    )
}

/// `401`. The message never repeats the key that was sent.
fn unauthorized() -> Response {
    error_response(
        StatusCode::UNAUTHORIZED,
        "Incorrect API key provided. The mock server expects the key it was configured with.",
        "invalid_request_error",
        None,
        Some("invalid_api_key"),
    )
}

/// `401` or `403` whose message repeats the key that was sent ([`MockConfig::echo_key_status`]).
fn echoing_key(headers: &HeaderMap, status: u16) -> Response {
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("")
        .trim();
    let prefix: String = key.chars().take(12).collect();
    let message = format!(
        "Incorrect API key provided: {key}. The key starting {prefix}*** is not valid for this project."
    );
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::UNAUTHORIZED);
    error_response(
        status,
        &message,
        "invalid_request_error",
        None,
        Some("invalid_api_key"),
    )
}

fn rate_limited(config: &MockConfig) -> Response {
    let mut response = error_response(
        StatusCode::TOO_MANY_REQUESTS,
        "Rate limit reached for requests (mock server). Please try again later.",
        "requests",
        None,
        Some("rate_limit_exceeded"),
    );
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, config.retry_after_secs.into());
    headers.insert(
        "retry-after-ms",
        config.retry_after_secs.saturating_mul(1000).into(),
    );
    response
}

#[derive(Serialize)]
struct ModelList<'a> {
    object: &'static str,
    data: Vec<ModelEntry<'a>>,
}

#[derive(Serialize)]
struct ModelEntry<'a> {
    id: &'a str,
    object: &'static str,
    created: u64,
    owned_by: &'static str,
}

/// `GET /v1/models`.
async fn list_models(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    shared.counters.model_list();
    let config = shared.config.load();
    if !authorized(&headers, &config) {
        return unauthorized();
    }
    let list = ModelList {
        object: "list",
        data: config
            .models
            .iter()
            .map(|id| ModelEntry {
                id,
                object: "model",
                created: 0,
                owned_by: "mock-openai",
            })
            .collect(),
    };
    json_response(
        StatusCode::OK,
        serde_json::to_string(&list).expect("the list serializes"),
    )
}

/// `GET /health`, as llama.cpp's server has it.
async fn health() -> Response {
    json_response(StatusCode::OK, r#"{"status":"ok"}"#.to_owned())
}

async fn not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        "Unknown endpoint: the mock serves POST /v1/chat/completions and GET /v1/models.",
        "invalid_request_error",
        None,
        Some("unknown_url"),
    )
}
