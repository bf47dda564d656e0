//! The client against the in-repo mock server over real loopback HTTP.

use llm_client::{
    ChatMessage, ChatModel, ChatRequest, EndpointConfig, LlmClient, LlmConfig, LlmError,
    ReplySchema, ResponseFormatMode, Role,
};
use mock_openai::{MockConfig, MockServer};
use std::time::{Duration, Instant};

fn schema() -> ReplySchema {
    ReplySchema {
        name: "caller_turn".into(),
        schema: serde_json::json!({
            "type": "object",
            "properties": {"utterance": {"type": "string"}, "end_call": {"type": "boolean"}},
            "required": ["utterance", "end_call"],
            "additionalProperties": false
        })
        .into(),
    }
}

fn request(n: u32) -> ChatRequest {
    ChatRequest {
        role: Role::Caller,
        messages: vec![
            ChatMessage {
                role: "system",
                content: "你是来电者。".into(),
            },
            ChatMessage {
                role: "user",
                content: format!("第{n}通电话接通了。"),
            },
        ],
        schema: Some(schema()),
        nonce: 0,
        scope: 0,
    }
}

fn config(base_url: &str, out: &std::path::Path) -> (LlmConfig, std::path::PathBuf) {
    let mut cfg = LlmConfig {
        endpoints: vec![EndpointConfig {
            base_url: base_url.into(),
            api_key_env: "CALLBENCH_TEST_NO_KEY".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    cfg.request_timeout_ms = 2_000;
    cfg.retry.base_ms = 5;
    cfg.retry.max_ms = 50;
    cfg.cache = std::path::PathBuf::new();
    (cfg, out.to_path_buf())
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn a_clean_call_returns_schema_json_and_counts_usage() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cfg, out) = config(&mock.base_url(), dir.path());
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let reply = rt.block_on(client.chat(&request(1))).unwrap();
    let v = llm_client::extract_json(&reply.content).expect("JSON");
    assert!(
        v["utterance"].is_string() && v["end_call"].is_boolean(),
        "{v}"
    );
    let u = client.usage();
    assert_eq!(u.roles["caller"].requests, 1);
    assert!(u.roles["caller"].prompt_tokens > 0);
}

#[test]
fn retries_429_and_500_and_honours_retry_after() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            p_429: 1.0,
            retry_after_secs: 1,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.retry.max_retries = 1;
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let t = Instant::now();
    let err = rt.block_on(client.chat(&request(1))).unwrap_err();
    assert!(
        matches!(err, LlmError::Exhausted { attempts: 2, .. }),
        "{err}"
    );
    assert!(
        t.elapsed() >= Duration::from_millis(950),
        "waited {:?}, Retry-After says 1 s",
        t.elapsed()
    );
    assert_eq!(mock.stats().rate_limited, 2);

    // A server that errors at random: every request still gets through with retries.
    mock.set_config(MockConfig {
        p_500: 0.4,
        p_429: 0.2,
        retry_after_secs: 0,
        ..Default::default()
    })
    .unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.retry.max_retries = 12;
    cfg.retry.endpoint_failure_threshold = 1000;
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    for n in 0..20 {
        rt.block_on(client.chat(&request(n))).unwrap();
    }
    assert!(client.usage().roles["caller"].retries > 0);
}

#[test]
fn a_rejected_request_is_not_retried() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            required_api_key: Some("right-key".into()),
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cfg, out) = config(&mock.base_url(), dir.path());
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let err = rt.block_on(client.chat(&request(1))).unwrap_err();
    assert!(
        matches!(err, LlmError::Rejected { status: 401, .. }),
        "{err}"
    );
    assert_eq!(mock.stats().requests, 1);
}

#[test]
fn timeouts_truncated_bodies_and_resets_are_retried() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            p_hang: 0.2,
            hang_ms: 5_000,
            p_truncated: 0.2,
            p_reset: 0.2,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.request_timeout_ms = 300;
    cfg.retry.max_retries = 20;
    cfg.retry.endpoint_failure_threshold = 1000;
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    for n in 0..15 {
        let r = rt.block_on(client.chat(&request(n))).unwrap();
        assert!(llm_client::extract_json(&r.content).is_some());
    }
    let s = mock.stats();
    assert!(
        s.hang + s.truncated + s.reset > 0,
        "faults were injected: {s:?}"
    );
}

/// A client with an on-disk cache in `dir`, and what reopens it.
fn cached_client(
    rt: &tokio::runtime::Runtime,
    base_url: &str,
    dir: &std::path::Path,
) -> (LlmClient, LlmConfig, std::path::PathBuf) {
    let (mut cfg, out) = config(base_url, dir);
    cfg.cache = "cache.redb".into();
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg.clone(), &out).unwrap()
    };
    (client, cfg, out)
}

#[test]
fn the_cache_answers_a_repeated_request() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (client, cfg, out) = cached_client(&rt, &mock.base_url(), dir.path());
    let a = rt.block_on(client.chat(&request(1))).unwrap();
    drop(client);
    // A new process (resumed run) reopens the cache and pays nothing.
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let b = rt.block_on(client.chat(&request(1))).unwrap();
    assert!(b.cached && !a.cached);
    assert_eq!(a.content, b.content);
    assert_eq!(mock.stats().requests, 1);
    assert_eq!(client.usage().roles["caller"].cache_hits, 1);
}

#[test]
fn identical_requests_of_different_dialogues_do_not_share_a_cached_reply() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (client, _, _) = cached_client(&rt, &mock.base_url(), dir.path());
    let of = |scope| ChatRequest {
        scope,
        ..request(1)
    };
    let a = rt.block_on(client.chat(&of(11))).unwrap();
    let b = rt.block_on(client.chat(&of(12))).unwrap();
    assert!(
        !a.cached && !b.cached,
        "another dialogue's reply was served"
    );
    assert_eq!(mock.stats().requests, 2);
    // The same dialogue asking again (a resumed run) is served from the cache.
    let c = rt.block_on(client.chat(&of(11))).unwrap();
    assert!(c.cached);
    assert_eq!(c.content, a.content);
    assert_eq!(mock.stats().requests, 2);
}

#[test]
fn quirky_servers_are_understood() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            omit_usage: true,
            model_as_path: true,
            fence_json_when_unconstrained: true,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.response_format = ResponseFormatMode::Text;
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let reply = rt.block_on(client.chat(&request(1))).unwrap();
    assert!(reply.content.contains("```"), "fenced: {}", reply.content);
    let v = llm_client::extract_json(&reply.content).expect("JSON inside the fence");
    assert!(v["utterance"].is_string());
    assert!(
        reply.prompt_tokens > 0 && reply.completion_tokens > 0,
        "estimated when usage is omitted"
    );
}

/// The limiter sits in front of the wire: 61 requests at 20 a second (no burst) cannot all
/// have been sent before 60 × 50 ms = 3 s. A lower bound only — a slow machine takes longer
/// and still passes; the rate itself is checked exactly on a virtual clock
/// (`client::limit_tests`).
#[test]
fn requests_per_minute_are_held() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            record_arrivals: true,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.endpoints[0].rpm = 1_200; // 20 per second
    let client = std::sync::Arc::new({
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    });
    let n = 61u32;
    let started = Instant::now();
    rt.block_on(async {
        let tasks: Vec<_> = (0..n)
            .map(|i| {
                let c = client.clone();
                tokio::spawn(async move { c.chat(&request(i)).await })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
    });
    let took = started.elapsed();
    assert_eq!(mock.stats().ok, n as u64);
    assert!(
        took >= Duration::from_millis(2_990),
        "61 requests at 20/s took {took:?}, less than 3 s"
    );
}

#[test]
fn a_failing_endpoint_is_paused_and_the_other_takes_the_load() {
    let rt = rt();
    let bad = rt
        .block_on(MockServer::start(MockConfig {
            p_500: 1.0,
            ..Default::default()
        }))
        .unwrap();
    let good = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&good.base_url(), dir.path());
    cfg.endpoints = vec![
        EndpointConfig {
            name: "bad".into(),
            base_url: bad.base_url(),
            api_key_env: "X_NO_KEY".into(),
            ..Default::default()
        },
        EndpointConfig {
            name: "good".into(),
            base_url: good.base_url(),
            api_key_env: "X_NO_KEY".into(),
            ..Default::default()
        },
    ];
    cfg.retry.max_retries = 10;
    cfg.retry.endpoint_failure_threshold = 3;
    cfg.retry.endpoint_pause_ms = 60_000;
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    for n in 0..40 {
        rt.block_on(client.chat(&request(n))).unwrap();
    }
    assert!(
        bad.stats().requests <= 3,
        "the bad endpoint was paused after 3 failures: {}",
        bad.stats().requests
    );
    assert_eq!(good.stats().ok, 40);
}

/// A reply cut short at `max_tokens` is flagged, not cached, and not asked again: the same
/// limit would cut the same reply again.
#[test]
fn a_cut_short_reply_is_not_asked_again_or_cached() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            reply_mode: mock_openai::ReplyMode::CutShort,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (mut cfg, out) = config(&mock.base_url(), dir.path());
    cfg.cache = "cache.redb".into();
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let reply = rt.block_on(client.chat(&request(1))).unwrap();
    assert!(reply.truncated && !reply.cached);
    let again = rt.block_on(client.chat(&request(1))).unwrap();
    assert!(
        !again.cached,
        "a cut-short reply is not served from the cache"
    );
    let before = mock.stats().requests;
    let r = rt.block_on(llm_client::chat_parsed(
        &client,
        Role::Caller,
        0,
        request(1).messages,
        schema(),
        3,
        |c| llm_client::extract_json(c).ok_or("no JSON".to_string()),
    ));
    let err = r.unwrap_err();
    assert!(matches!(err, llm_client::ReplyError::CutShort(_)), "{err}");
    assert!(err.to_string().contains("cut short"), "{err}");
    assert_eq!(
        mock.stats().requests - before,
        1,
        "asked once, not four times"
    );
}

/// A reply that is not JSON is asked again up to the limit, then reported with its problem.
#[test]
fn garbage_is_asked_again_then_reported() {
    let rt = rt();
    let mock = rt
        .block_on(MockServer::start(MockConfig {
            reply_mode: mock_openai::ReplyMode::Garbage,
            ..Default::default()
        }))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cfg, out) = config(&mock.base_url(), dir.path());
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, &out).unwrap()
    };
    let r = rt.block_on(llm_client::chat_parsed(
        &client,
        Role::Caller,
        0,
        request(1).messages,
        schema(),
        2,
        |c| llm_client::extract_json(c).ok_or("the reply holds no JSON object".to_string()),
    ));
    let err = r.unwrap_err();
    assert!(matches!(err, llm_client::ReplyError::Invalid(_)), "{err}");
    assert!(err.to_string().contains("no JSON object"), "{err}");
    assert_eq!(mock.stats().requests, 3);
    assert_eq!(client.usage().roles["caller"].invalid_replies, 3);
}

/// Each role on its own endpoint: the judge's requests go to the judge's server, the others to
/// the shared one; a config without role endpoints reads and
/// writes as before.
#[test]
fn a_role_with_endpoints_of_its_own_is_sent_there_and_only_there() {
    let rt = rt();
    let shared = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let judge = rt
        .block_on(MockServer::start(MockConfig::default()))
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[[endpoints]]
base_url = "{}"
api_key_env = "CALLBENCH_TEST_NO_KEY"

[judge]
model = "judge-model"
temperature = 0.0

[[judge.endpoints]]
base_url = "{}"
api_key_env = "CALLBENCH_TEST_JUDGE_KEY"
"#,
        shared.base_url(),
        judge.base_url()
    );
    let mut cfg: LlmConfig = toml::from_str(&text).unwrap();
    cfg.cache = std::path::PathBuf::new();
    assert_eq!(cfg.endpoints_of(Role::Judge)[0].base_url, judge.base_url());
    assert_eq!(
        cfg.endpoints_of(Role::Caller)[0].base_url,
        shared.base_url()
    );
    let client = {
        let _g = rt.enter();
        LlmClient::new(cfg, dir.path()).unwrap()
    };
    for n in 0..3 {
        rt.block_on(client.chat(&request(n))).unwrap();
        let mut r = request(n);
        r.role = Role::Judge;
        rt.block_on(client.chat(&r)).unwrap();
        r.role = Role::Assistant;
        rt.block_on(client.chat(&r)).unwrap();
    }
    assert_eq!(judge.stats().ok, 3, "the judge's requests");
    assert_eq!(shared.stats().ok, 6, "the caller's and the assistant's");
    let u = client.usage();
    assert_eq!(u.roles["judge"].requests, 3);

    // Backwards compatible: no role endpoints, nothing new in the serialised config.
    let plain = LlmConfig::default();
    let written = toml::to_string(&plain).unwrap();
    assert!(!written.contains("[[judge.endpoints]]") && !written.contains("caller.endpoints"));
    assert_eq!(toml::from_str::<LlmConfig>(&written).unwrap(), plain);
}
