//! The server around the replies: auth, endpoints, stats, configuration, throughput, logs.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mock_openai::{MockConfig, MockError, MockServer, Outcome};
use serde_json::{Value, json};

use crate::support::*;

const KEY: &str = "sk-mock-secret-0123456789";

#[tokio::test]
async fn wrong_or_missing_key_is_401() {
    let server = start(MockConfig {
        required_api_key: Some(KEY.to_owned()),
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let url = format!("{}/chat/completions", server.base_url());
    let body = chat_request("系统", 1, None);

    let missing = client.post(&url).json(&body).send().await.unwrap();
    assert_eq!(missing.status(), 401);
    let wrong = client
        .post(&url)
        .bearer_auth("sk-wrong-key")
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(wrong.status(), 401);
    let error: Value = wrong.json().await.unwrap();
    assert_eq!(error["error"]["code"], "invalid_api_key");
    assert!(
        !error.to_string().contains("sk-wrong-key"),
        "the key is not echoed"
    );

    let right = client
        .post(&url)
        .bearer_auth(KEY)
        .json(&body)
        .send()
        .await
        .unwrap();
    assert_eq!(right.status(), 200);

    let models = client
        .get(format!("{}/models", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(models.status(), 401);

    let stats = server.stats();
    assert_eq!((stats.unauthorized, stats.ok, stats.requests), (2, 1, 3));
    server.shutdown().await;
}

#[tokio::test]
async fn models_are_listed() {
    let server = start(MockConfig {
        models: vec!["qwen2.5-7b".into(), "gpt-4o-mini".into()],
        ..MockConfig::default()
    })
    .await;
    let list: Value = client()
        .get(format!("{}/models", server.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(list["object"], "list");
    let ids: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["qwen2.5-7b", "gpt-4o-mini"]);
    assert_eq!(list["data"][0]["object"], "model");
    assert_eq!(server.stats().model_list, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn bad_requests_are_400_in_openai_style() {
    let server = start(MockConfig::default()).await;
    let client = client();
    let mut streaming = chat_request("系统", 1, None);
    streaming["stream"] = json!(true);
    for (body, param) in [
        (streaming, Value::from("stream")),
        (json!({"model": "m"}), Value::from("messages")),
        (
            json!({"model": "m", "messages": []}),
            Value::from("messages"),
        ),
        (
            json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "yaml"}}),
            Value::from("response_format"),
        ),
    ] {
        let (status, _, text) = post(&client, &server, &body).await;
        assert_eq!(status, 400, "{body}");
        let error: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(error["error"]["type"], "invalid_request_error");
        assert_eq!(error["error"]["param"], param);
        assert!(error["error"]["message"].is_string());
    }
    let not_json = client
        .post(format!("{}/chat/completions", server.base_url()))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(not_json.status(), 400);
    let unknown = client
        .get(format!("{}/nowhere", server.base_url()))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), 404);
    assert_eq!(server.stats().bad_request, 5);
    server.shutdown().await;
}

#[tokio::test]
async fn stats_count_outcomes_and_arrivals() {
    let server = start(MockConfig::default()).await;
    let client = client();
    let before = Instant::now();
    for _ in 0..3 {
        completion(&client, &server, &chat_request("系统", 1, None)).await;
    }
    server
        .set_config(MockConfig {
            p_500: 1.0,
            ..MockConfig::default()
        })
        .unwrap();
    let (status, _, _) = post(&client, &server, &chat_request("系统", 1, None)).await;
    assert_eq!(status, 500);
    let stats = server.stats();
    assert_eq!(stats.requests, 4);
    assert_eq!(stats.count(Outcome::Ok), 3);
    assert_eq!(stats.count(Outcome::ServerError), 1);
    assert_eq!(stats.arrivals.len(), 4);
    assert!(stats.arrivals.iter().all(|t| *t >= before));
    assert!(stats.arrivals.windows(2).all(|w| w[0] <= w[1]));

    server.clear_stats();
    assert_eq!(server.stats(), mock_openai::Stats::default());

    // Arrivals can be switched off.
    server
        .set_config(MockConfig {
            record_arrivals: false,
            ..MockConfig::default()
        })
        .unwrap();
    completion(&client, &server, &chat_request("系统", 1, None)).await;
    let stats = server.stats();
    assert_eq!((stats.requests, stats.arrivals.len()), (1, 0));
    server.shutdown().await;
}

#[tokio::test]
async fn set_config_lets_a_client_fail_then_recover() {
    let server = start(MockConfig {
        p_500: 1.0,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let body = chat_request("系统", 1, None);
    assert_eq!(post(&client, &server, &body).await.0, 500);
    server.set_config(MockConfig::default()).unwrap();
    assert_eq!(post(&client, &server, &body).await.0, 200);
    assert_eq!(server.config(), MockConfig::default());

    let bad = server.set_config(MockConfig {
        p_429: 0.7,
        p_500: 0.7,
        ..MockConfig::default()
    });
    assert!(
        matches!(bad, Err(MockError::InvalidConfig { .. })),
        "{bad:?}"
    );
    assert_eq!(
        server.config(),
        MockConfig::default(),
        "a refused config changes nothing"
    );
    server.shutdown().await;
}

#[test]
fn config_is_validated_and_strict() {
    let unknown = serde_json::from_str::<MockConfig>(r#"{"latency": 5}"#);
    assert!(
        unknown
            .unwrap_err()
            .to_string()
            .contains("unknown field `latency`")
    );
    let partial: MockConfig = toml::from_str("latency_ms = 50\np_429 = 0.1").unwrap();
    assert_eq!(partial.latency_ms, 50);
    assert_eq!(partial.hang_ms, 60_000);
    assert_eq!(partial.end_after_turns, 6);

    for (config, key) in [
        (
            MockConfig {
                p_reset: -0.1,
                ..MockConfig::default()
            },
            "p_reset",
        ),
        (
            MockConfig {
                p_hang: f64::NAN,
                ..MockConfig::default()
            },
            "p_hang",
        ),
        (
            MockConfig {
                models: vec![],
                ..MockConfig::default()
            },
            "models",
        ),
        (
            MockConfig {
                required_api_key: Some(String::new()),
                ..MockConfig::default()
            },
            "required_api_key",
        ),
    ] {
        match config.validate() {
            Err(MockError::InvalidConfig { key: k, .. }) => assert_eq!(k, key),
            other => panic!("{key}: {other:?}"),
        }
    }
    let with_key = MockConfig {
        required_api_key: Some(KEY.to_owned()),
        ..MockConfig::default()
    };
    assert!(!format!("{with_key:?}").contains(KEY));
}

#[tokio::test]
async fn binding_a_taken_address_fails_with_the_address() {
    let server = start(MockConfig::default()).await;
    let err = MockServer::start_on(MockConfig::default(), server.addr())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains(&server.addr().to_string()),
        "{err}"
    );
    server.shutdown().await;
}

#[test]
fn start_blocking_serves_synchronous_callers() {
    let server = MockServer::start_blocking(MockConfig::default(), None).unwrap();
    let base = server.base_url();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let reply = client()
            .post(format!("{base}/chat/completions"))
            .json(&chat_request("系统", 1, None))
            .send()
            .await
            .unwrap();
        assert_eq!(reply.status(), 200);
    });
    assert_eq!(server.stats().ok, 1);
    drop(server);
}

/// 64 requests are served at once: each hangs (for a minute) once it is routed, and all 64
/// are seen hanging together — a server that took them one at a time would see one. The
/// test waits for that event, not for a time, and fails if it never comes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_run_in_parallel() {
    let server = start(MockConfig {
        p_hang: 1.0,
        hang_ms: 60_000,
        ..MockConfig::default()
    })
    .await;
    let client = client_with_timeout(Duration::from_secs(120));
    let url = format!("{}/chat/completions", server.base_url());
    let body = Arc::new(chat_request("系统", 2, None));
    let mut tasks = Vec::new();
    for _ in 0..64 {
        let (client, url, body) = (client.clone(), url.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            let _ = client.post(&url).json(&*body).send().await;
        }));
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.stats().hang < 64 {
        assert!(
            Instant::now() < deadline,
            "only {} of 64 requests in flight at once",
            server.stats().hang
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(server.stats().requests, 64);
    for t in &tasks {
        t.abort();
    }
    server.shutdown().await;
}

/// A `MakeWriter` that keeps every log line.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_api_key_is_never_logged() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let config = MockConfig {
        required_api_key: Some(KEY.to_owned()),
        p_500: 0.3,
        ..MockConfig::default()
    };
    tracing::info!(?config, "starting");
    let server = start(config).await;
    let client = client();
    for key in [KEY, "sk-other-key-abcdef"] {
        for _ in 0..5 {
            client
                .post(format!("{}/chat/completions", server.base_url()))
                .bearer_auth(key)
                .json(&chat_request("系统", 1, None))
                .send()
                .await
                .unwrap();
        }
    }
    server.shutdown().await;
    let logs = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("chat completion"),
        "the test sees the logs: {logs}"
    );
    assert!(
        !logs.contains(KEY) && !logs.contains("sk-other-key"),
        "{logs}"
    );
}
