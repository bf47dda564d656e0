//! The HTTP API and the page's assets.
//!
//! | route | answers |
//! | --- | --- |
//! | `GET /` | the page (HTML without data) |
//! | `GET /app.js`, `GET /app.css` | its script and style, embedded in the binary |
//! | `GET /api/sample` | `{total, kinds, accepted_kinds, dimensions, auditors, dialogues: [{id, scenario, preset_case, relation, stratum, origin, turns, checker_passed, checker_kinds, reviews: {auditor: "accept"\|"reject"}}]}` |
//! | `GET /api/dialogue/{id}` | `{stratum, origin, dialogue}`, the dialogue in the interchange format |
//! | `GET /api/verdicts?auditor=NAME` | `{auditor, verdicts: [Verdict]}`: that auditor's latest verdict per dialogue (all auditors' without `auditor`) |
//! | `GET /api/queue?auditor=NAME` | `{auditor, planned, queue: [id], done, total}`: the auditor's queue of the assignment plan (`DIR/inspection/assignments.json`, written by `callbench review --auditors`) and how much of it they have reviewed; without a plan, or for a name the plan does not hold, `planned` is false and the queue is the whole sample |
//! | `POST /api/verdict` | a [`Verdict`] without `at` (JSON); answers `{verdict}` as stored, after the fsync |
//!
//! Errors are `{"error": "…"}` with a 4xx status: 400 for a refused verdict (the message names the
//! key at fault), 404 for an unknown id, 415 for a body that is not JSON. Every response carries
//! a strict Content-Security-Policy, `nosniff`, `no-referrer` and `no-store`. When the server
//! listens on loopback it answers only requests whose `Host` is a loopback name, so a web page
//! elsewhere cannot reach it through DNS rebinding.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use callbench_model::{Dialogue, JUDGE_DIMENSIONS};
use inspection::{Decision, InspectionError, SampleEntry, Verdict, VerdictStore};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::{AUDITOR_KINDS, Result, ReviewError};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// The Content-Security-Policy of every response: the page's own script and style only, no
/// inline script or style element, no plugins, no frames, fetches to this server only.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self'; font-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The keys a posted verdict may have (`at` is stamped by the server).
const VERDICT_KEYS: [&str; 6] = ["auditor", "id", "verdict", "findings", "ratings", "note"];
/// The keys a posted finding may have.
const FINDING_KEYS: [&str; 3] = ["kind", "turn", "note"];

/// One sampled dialogue as the server holds it.
#[derive(Debug)]
struct Entry {
    summary: SampleEntry,
    dialogue: Dialogue,
}

/// What the handlers share: the sample, in review order, and the verdict store.
#[derive(Debug)]
pub(crate) struct AppState {
    entries: Vec<Entry>,
    index: HashMap<String, usize>,
    store: VerdictStore,
    /// Every kind the store accepts: the contract's, then those the checker reported.
    kinds: Vec<String>,
    /// Who reviews what, when a plan was made for this sample.
    assignments: Option<inspection::Assignments>,
}

impl AppState {
    /// Reads `DIR/inspection/sample.json` and `sample.jsonl` and opens the verdict store.
    pub(crate) fn load(corpus: &Path) -> Result<AppState> {
        let summary = inspection::read_sample(corpus)?;
        let assignments = inspection::read_assignments(corpus, &summary)?;
        let dialogues = inspection::read_sample_dialogues(corpus)?;
        let mut by_id: HashMap<String, Dialogue> =
            dialogues.into_iter().map(|d| (d.id.clone(), d)).collect();
        let mut entries = Vec::with_capacity(summary.dialogues.len());
        for e in summary.dialogues {
            let Some(dialogue) = by_id.remove(&e.id) else {
                let dir = inspection::inspection_dir(corpus);
                return Err(ReviewError::SampleMismatch {
                    summary: dir.join(inspection::files::SAMPLE_JSON),
                    dialogues: dir.join(inspection::files::SAMPLE_JSONL),
                    id: e.id,
                });
            };
            entries.push(Entry {
                summary: e,
                dialogue,
            });
        }
        let store = VerdictStore::open(corpus)?;
        let mut kinds: Vec<String> = AUDITOR_KINDS.iter().map(|k| k.to_string()).collect();
        kinds.extend(
            store
                .kinds()
                .filter(|k| !AUDITOR_KINDS.contains(k))
                .map(str::to_string),
        );
        let index = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.summary.id.clone(), i))
            .collect();
        Ok(AppState {
            entries,
            index,
            store,
            kinds,
            assignments,
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }
}

/// Which `Host` headers are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HostPolicy {
    /// Only `127.0.0.1`, `localhost`, `[::1]` (any port): the server listens on loopback.
    Loopback,
    /// Any (the server was asked to listen beyond this machine).
    Any,
}

/// The app's routes with their middleware.
pub(crate) fn router(state: Arc<AppState>, hosts: HostPolicy) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/app.js", get(app_js))
        .route("/app.css", get(app_css))
        .route("/favicon.ico", get(favicon))
        .route("/api/sample", get(sample))
        .route("/api/dialogue/{id}", get(dialogue))
        .route("/api/verdicts", get(verdicts))
        .route("/api/queue", get(queue))
        .route("/api/verdict", post(record_verdict))
        .fallback(not_found)
        .with_state(state)
        .layer(middleware::from_fn_with_state(hosts, check_host))
        .layer(middleware::from_fn(security_headers))
}

/// Adds the security headers to every response.
async fn security_headers(request: Request, next: Next) -> Response {
    let mut response = next.run(request).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Refuses requests for another host name when listening on loopback (DNS rebinding).
async fn check_host(State(policy): State<HostPolicy>, request: Request, next: Next) -> Response {
    if policy == HostPolicy::Loopback {
        let host = request
            .headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        if !is_loopback_host(host) {
            return error(
                StatusCode::MISDIRECTED_REQUEST,
                format!("this review server answers only for 127.0.0.1 or localhost, not {host:?}"),
            );
        }
    }
    next.run(request).await
}

/// `127.0.0.1`, `localhost` or `[::1]`, with or without a port.
fn is_loopback_host(host: &str) -> bool {
    let name = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((ip, _port)) => {
                return ip
                    .parse::<std::net::Ipv6Addr>()
                    .is_ok_and(|ip| ip.is_loopback());
            }
            None => return false,
        }
    } else {
        host.rsplit_once(':').map_or(host, |(name, _port)| name)
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn error(status: StatusCode, message: impl Into<String>) -> Response {
    (status, axum::Json(json!({ "error": message.into() }))).into_response()
}

fn asset(content_type: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn index() -> Response {
    asset("text/html; charset=utf-8", INDEX_HTML)
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", APP_JS)
}

async fn app_css() -> Response {
    asset("text/css; charset=utf-8", APP_CSS)
}

async fn favicon() -> StatusCode {
    StatusCode::NO_CONTENT
}

async fn not_found() -> Response {
    error(StatusCode::NOT_FOUND, "no such page")
}

/// One dialogue of `GET /api/sample`.
#[derive(Serialize)]
struct SampleItem<'a> {
    #[serde(flatten)]
    entry: &'a SampleEntry,
    /// `scenario/preset_case/relation`.
    stratum: String,
    /// Each auditor's latest decision.
    reviews: BTreeMap<&'a str, Decision>,
}

async fn sample(State(state): State<Arc<AppState>>) -> Response {
    let latest = state.store.latest();
    let mut reviews: HashMap<&str, BTreeMap<&str, Decision>> = HashMap::new();
    let mut auditors = BTreeSet::new();
    for ((auditor, id), v) in &latest {
        auditors.insert(auditor.as_str());
        reviews
            .entry(id.as_str())
            .or_default()
            .insert(auditor.as_str(), v.verdict);
    }
    let dialogues: Vec<SampleItem<'_>> = state
        .entries
        .iter()
        .map(|e| SampleItem {
            entry: &e.summary,
            stratum: e.summary.stratum.to_string(),
            reviews: reviews.remove(e.summary.id.as_str()).unwrap_or_default(),
        })
        .collect();
    axum::Json(json!({
        "total": dialogues.len(),
        "kinds": AUDITOR_KINDS,
        "accepted_kinds": state.kinds,
        "dimensions": JUDGE_DIMENSIONS,
        "auditors": auditors,
        "assignments": state.assignments.as_ref().map(|a| &a.queues),
        "dialogues": dialogues,
    }))
    .into_response()
}

async fn dialogue(State(state): State<Arc<AppState>>, UrlPath(id): UrlPath<String>) -> Response {
    let Some(&i) = state.index.get(&id) else {
        return error(
            StatusCode::NOT_FOUND,
            format!("{id:?} is not a dialogue of the inspection sample"),
        );
    };
    let e = &state.entries[i];
    axum::Json(json!({
        "stratum": e.summary.stratum.to_string(),
        "origin": e.summary.origin,
        "dialogue": e.dialogue,
    }))
    .into_response()
}

#[derive(Deserialize)]
struct VerdictsQuery {
    auditor: Option<String>,
}

async fn queue(State(state): State<Arc<AppState>>, Query(q): Query<VerdictsQuery>) -> Response {
    let Some(auditor) = q
        .auditor
        .as_deref()
        .map(str::trim)
        .filter(|a| !a.is_empty())
    else {
        return error(
            StatusCode::BAD_REQUEST,
            "`auditor`: give the auditor's name",
        );
    };
    let planned = state
        .assignments
        .as_ref()
        .and_then(|a| a.queues.get(auditor));
    let queue: Vec<&str> = match planned {
        Some(q) => q.iter().map(String::as_str).collect(),
        None => state
            .entries
            .iter()
            .map(|e| e.summary.id.as_str())
            .collect(),
    };
    let latest = state.store.latest();
    let done = queue
        .iter()
        .filter(|id| latest.contains_key(&(auditor.to_string(), id.to_string())))
        .count();
    axum::Json(json!({
        "auditor": auditor,
        "planned": planned.is_some(),
        "total": queue.len(),
        "done": done,
        "queue": queue,
    }))
    .into_response()
}

async fn verdicts(State(state): State<Arc<AppState>>, Query(q): Query<VerdictsQuery>) -> Response {
    let auditor = q.auditor.as_deref().map(str::trim);
    let list: Vec<Verdict> = state
        .store
        .latest()
        .into_values()
        .filter(|v| auditor.is_none_or(|a| v.auditor == a))
        .collect();
    axum::Json(json!({ "auditor": auditor, "verdicts": list })).into_response()
}

/// `POST /api/verdict`: checks the body's shape, stamps the time, appends through the store
/// (which validates and fsyncs) and answers the verdict as stored.
async fn record_verdict(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "send the verdict as JSON with `Content-Type: application/json`",
        );
    }
    let verdict = match parse_verdict(&body) {
        Ok(v) => v,
        Err(message) => return error(StatusCode::BAD_REQUEST, message),
    };
    let state2 = state.clone();
    let stored = tokio::task::spawn_blocking(move || state2.store.append(&verdict)).await;
    match stored {
        Ok(Ok(v)) => {
            tracing::debug!(auditor = %v.auditor, id = %v.id, verdict = ?v.verdict, "verdict recorded");
            axum::Json(json!({ "verdict": v })).into_response()
        }
        Ok(Err(InspectionError::Verdict { message, .. })) => error(
            StatusCode::BAD_REQUEST,
            format!("verdict refused: {message}"),
        ),
        Ok(Err(e)) => {
            tracing::error!(error = %e, "cannot record a verdict");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("the verdict was NOT saved: {e}"),
            )
        }
        Err(e) => {
            tracing::error!(error = %e, "the verdict writer failed");
            error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "the verdict was NOT saved: the writer failed",
            )
        }
    }
}

/// Parses a posted verdict, refusing unknown keys (a misspelt `ratings` must not vanish) and
/// `at` (the server stamps the time). The message names the key at fault.
fn parse_verdict(body: &[u8]) -> std::result::Result<Verdict, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("the body is not JSON: {e}"))?;
    let Value::Object(map) = &value else {
        return Err("the verdict must be a JSON object".into());
    };
    if map.contains_key("at") {
        return Err("`at`: the server stamps the time; leave it out".into());
    }
    if let Some(key) = map.keys().find(|k| !VERDICT_KEYS.contains(&k.as_str())) {
        return Err(format!(
            "`{key}`: unknown key (expected: {})",
            VERDICT_KEYS.join(", ")
        ));
    }
    for key in ["auditor", "id", "verdict"] {
        if !map.contains_key(key) {
            return Err(format!("`{key}`: missing"));
        }
    }
    if let Some(Value::Array(findings)) = map.get("findings") {
        for (i, f) in findings.iter().enumerate() {
            if let Value::Object(f) = f
                && let Some(key) = f.keys().find(|k| !FINDING_KEYS.contains(&k.as_str()))
            {
                return Err(format!(
                    "`findings[{i}].{key}`: unknown key (expected: {})",
                    FINDING_KEYS.join(", ")
                ));
            }
        }
    }
    serde_json::from_value::<Verdict>(value).map_err(|e| format!("invalid verdict: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_hosts() {
        for ok in [
            "127.0.0.1:8765",
            "localhost:1",
            "LOCALHOST",
            "[::1]:8765",
            "127.1.2.3",
        ] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8765",
            "192.168.1.2:8765",
            "",
            "[::2]:1",
            "localhost.evil.example",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
    }

    #[test]
    fn verdict_shape() {
        let ok = br#"{"auditor":"li","id":"x","verdict":"accept","findings":[{"kind":"safety.privacy","turn":1}]}"#;
        assert_eq!(parse_verdict(ok).unwrap().verdict, Decision::Accept);
        let cases: [(&[u8], &str); 7] = [
            (b"nope", "not JSON"),
            (b"[]", "JSON object"),
            (br#"{"auditor":"li","id":"x","verdict":"accept","at":"2025-01-01T00:00:00Z"}"#, "`at`"),
            (br#"{"auditor":"li","id":"x","verdict":"accept","ratngs":{}}"#, "`ratngs`"),
            (br#"{"auditor":"li","verdict":"accept"}"#, "`id`: missing"),
            (br#"{"auditor":"li","id":"x","verdict":"maybe"}"#, "maybe"),
            (br#"{"auditor":"li","id":"x","verdict":"accept","findings":[{"kind":"a","turn":0,"why":1}]}"#, "`findings[0].why`"),
        ];
        for (body, want) in cases {
            let err = parse_verdict(body).unwrap_err();
            assert!(err.contains(want), "{err:?} should mention {want:?}");
        }
    }

    #[test]
    fn page_assets_never_parse_data_as_html() {
        // The script builds the page with createElement/textContent only.
        for banned in [
            "innerHTML",
            "outerHTML",
            "insertAdjacentHTML",
            "document.write",
            "eval(",
            "new Function",
        ] {
            assert!(!APP_JS.contains(banned), "app.js uses {banned}");
        }
        // No inline script or style for the CSP to forbid, no external resources.
        assert!(!INDEX_HTML.contains("<script>"));
        assert!(!INDEX_HTML.contains("style="));
        for asset in [INDEX_HTML, APP_JS, APP_CSS] {
            assert!(!asset.contains("http://") && !asset.contains("https://"));
        }
    }

    #[test]
    fn auditor_kinds_are_the_contracts() {
        // The eleven of CONTRACT.md; the pipeline's structural kinds are not the auditor's.
        assert_eq!(AUDITOR_KINDS.len(), 11);
        for k in AUDITOR_KINDS {
            assert!(callbench_model::vocab::VIOLATION_KINDS.contains(k), "{k}");
            assert!(
                ![
                    "natural.turn_order",
                    "natural.empty_turn",
                    "natural.turn_cap"
                ]
                .contains(k),
                "{k}"
            );
        }
        assert!(AUDITOR_KINDS.contains(&"preset.repeat"));
    }
}
