//! Injected faults, each alone and all at once.

use std::time::{Duration, Instant};

use mock_openai::{MockConfig, Outcome};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::support::*;

#[tokio::test]
async fn rate_limit_429_with_retry_after() {
    let server = start(MockConfig {
        p_429: 1.0,
        retry_after_secs: 3,
        // Far above the bound below: a 429 that waited for the latency could not pass, and a
        // loaded machine is nowhere near 30 s for one loopback request.
        latency_ms: 120_000,
        ..MockConfig::default()
    })
    .await;
    let started = Instant::now();
    let (status, headers, body) = post(&client(), &server, &chat_request("系统", 1, None)).await;
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "a 429 is answered at once"
    );
    assert_eq!(status, 429);
    assert_eq!(headers["retry-after"], "3");
    assert_eq!(headers["retry-after-ms"], "3000");
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"]["code"], "rate_limit_exceeded");
    assert!(error["error"]["message"].is_string());
    assert!(error["error"]["type"].is_string());
    assert_eq!(server.stats().rate_limited, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn server_error_500() {
    let server = start(MockConfig {
        p_500: 1.0,
        ..MockConfig::default()
    })
    .await;
    let (status, _, body) = post(&client(), &server, &chat_request("系统", 1, None)).await;
    assert_eq!(status, 500);
    let error: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(error["error"]["type"], "server_error");
    assert_eq!(server.stats().server_error, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn truncated_body_is_invalid_json() {
    let server = start(MockConfig {
        p_truncated: 1.0,
        ..MockConfig::default()
    })
    .await;
    let (status, headers, body) = post(&client(), &server, &chat_request("系统", 1, None)).await;
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "application/json");
    assert!(body.starts_with("{\"id\":\"chatcmpl-"), "{body}");
    assert!(serde_json::from_str::<Value>(&body).is_err(), "{body}");
    assert_eq!(server.stats().truncated, 1);
    server.shutdown().await;
}

#[tokio::test]
async fn reset_is_a_connection_error_without_a_response() {
    let server = start(MockConfig {
        p_reset: 1.0,
        ..MockConfig::default()
    })
    .await;
    // Through an HTTP client: an error that is neither a status nor a timeout.
    let error = client()
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&chat_request("系统", 1, None))
        .send()
        .await
        .expect_err("the connection is reset");
    assert!(error.status().is_none() && !error.is_timeout(), "{error:?}");
    assert!(error.is_request() || error.is_connect(), "{error:?}");

    // On the wire: not one byte of response, then a reset (or at least an end of stream).
    let mut stream = tokio::net::TcpStream::connect(server.addr()).await.unwrap();
    let body = serde_json::to_string(&chat_request("系统", 1, None)).unwrap();
    let request = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        server.addr(),
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut received = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut received))
        .await
        .expect("the server closes the connection");
    assert!(
        received.is_empty(),
        "{:?}",
        String::from_utf8_lossy(&received)
    );
    match read {
        Err(e) => assert_eq!(e.kind(), std::io::ErrorKind::ConnectionReset, "{e}"),
        Ok(n) => assert_eq!(n, 0),
    }
    assert_eq!(server.stats().reset, 2);
    server.shutdown().await;
}

#[tokio::test]
async fn hang_outlasts_a_client_timeout_and_shutdown_ends_it() {
    let server = start(MockConfig {
        p_hang: 1.0,
        hang_ms: 120_000,
        ..MockConfig::default()
    })
    .await;
    let started = Instant::now();
    let error = client_with_timeout(Duration::from_millis(300))
        .post(format!("{}/chat/completions", server.base_url()))
        .json(&chat_request("系统", 1, None))
        .send()
        .await
        .expect_err("the client times out");
    assert!(error.is_timeout(), "{error:?}");
    // The hang lasts 120 s: ending within 30 s is the client's timeout, however loaded the machine.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(server.stats().hang, 1);

    // A hang that the client waits out ends in a normal reply.
    server
        .set_config(MockConfig {
            p_hang: 1.0,
            hang_ms: 200,
            ..MockConfig::default()
        })
        .unwrap();
    let started = Instant::now();
    completion(&client(), &server, &chat_request("系统", 1, None)).await;
    assert!(started.elapsed() >= Duration::from_millis(200));

    // Shutdown does not wait for a pending hang.
    server
        .set_config(MockConfig {
            p_hang: 1.0,
            ..MockConfig::default()
        })
        .unwrap();
    let url = format!("{}/chat/completions", server.base_url());
    let pending = tokio::spawn(async move {
        client()
            .post(url)
            .json(&chat_request("系统", 1, None))
            .send()
            .await
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.stats().hang < 3 {
        assert!(Instant::now() < deadline, "the third hang never arrived");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let started = Instant::now();
    server.shutdown().await;
    // The pending hangs last the default 60 s: a shutdown that waited for them would take that
    // long, one that does not is far below 30 s even on a loaded machine.
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(pending.await.unwrap().is_err());
}

#[tokio::test]
async fn latency_and_jitter_hold() {
    let server = start(MockConfig {
        latency_ms: 80,
        jitter_ms: 20,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    for _ in 0..5 {
        let started = Instant::now();
        completion(&client, &server, &chat_request("系统", 1, None)).await;
        let took = started.elapsed();
        // The lower bound is the property (latency 80 ± 20 ms is served, never skipped); the upper
        // one only catches a latency gone wrong by orders of magnitude, not a busy machine.
        assert!(took >= Duration::from_millis(58), "{took:?}");
        assert!(took < Duration::from_secs(20), "{took:?}");
    }
    server.shutdown().await;
}

/// What a client saw of one request.
fn observe(result: Result<(u16, String), reqwest::Error>) -> Outcome {
    match result {
        Err(e) if e.is_timeout() => Outcome::Hang,
        Err(_) => Outcome::Reset,
        Ok((200, body)) if serde_json::from_str::<Value>(&body).is_ok() => Outcome::Ok,
        Ok((200, _)) => Outcome::Truncated,
        Ok((429, _)) => Outcome::RateLimited,
        Ok((500, _)) => Outcome::ServerError,
        Ok((status, body)) => panic!("unexpected {status}: {body}"),
    }
}

async fn run_mix(seed: u64, n: usize) -> (Vec<Outcome>, mock_openai::Stats) {
    let server = start(MockConfig {
        seed,
        p_429: 0.15,
        retry_after_secs: 0,
        p_500: 0.15,
        p_hang: 0.1,
        hang_ms: 2_000,
        p_truncated: 0.15,
        p_reset: 0.15,
        ..MockConfig::default()
    })
    .await;
    let client = client_with_timeout(Duration::from_millis(250));
    let mut seen = Vec::new();
    for turns in 0..n {
        let result = async {
            let r = client
                .post(format!("{}/chat/completions", server.base_url()))
                .json(&chat_request("系统", turns % 8, None))
                .send()
                .await?;
            let status = r.status().as_u16();
            Ok((status, r.text().await?))
        }
        .await;
        seen.push(observe(result));
    }
    let stats = server.stats();
    server.shutdown().await;
    (seen, stats)
}

#[tokio::test]
async fn all_faults_at_once_are_counted_and_repeatable() {
    let (seen, stats) = run_mix(7, 60).await;
    assert_eq!(stats.requests, 60);
    let total: u64 = Outcome::ALL.iter().map(|o| stats.count(*o)).sum();
    assert_eq!(total, 60);
    for outcome in [
        Outcome::Ok,
        Outcome::RateLimited,
        Outcome::ServerError,
        Outcome::Hang,
        Outcome::Truncated,
        Outcome::Reset,
    ] {
        let observed = seen.iter().filter(|o| **o == outcome).count() as u64;
        assert_eq!(observed, stats.count(outcome), "{outcome:?}: {seen:?}");
        assert!(observed > 0, "{outcome:?} never happened: {seen:?}");
    }
    // Requests sent one after another meet the same faults on every run with the same seed.
    let (again, _) = run_mix(7, 60).await;
    assert_eq!(seen, again);
    let (other, _) = run_mix(8, 60).await;
    assert_ne!(seen, other);
}

/// The echo-key mode refuses every request with its status and quotes the key that was sent,
/// whole and its first 12 characters, whatever key is required.
#[tokio::test]
async fn echo_key_mode_quotes_the_key_in_a_401_or_403() {
    let key = "sk-echo-0123456789abcdef";
    for status in [401u16, 403] {
        let server = start(MockConfig {
            echo_key_status: status,
            ..MockConfig::default()
        })
        .await;
        let response = client()
            .post(format!("{}/chat/completions", server.base_url()))
            .bearer_auth(key)
            .json(&chat_request("系统", 1, None))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), status);
        let body: Value = response.json().await.unwrap();
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(key), "{message}");
        assert!(message.contains("sk-echo-0123***"), "{message}");
        assert_eq!(body["error"]["code"], "invalid_api_key");
        let stats = server.stats();
        assert_eq!((stats.requests, stats.unauthorized, stats.ok), (1, 1, 0));
        server.shutdown().await;
    }
    for bad in [200u16, 404, 500] {
        let e = MockConfig {
            echo_key_status: bad,
            ..MockConfig::default()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().contains("echo_key_status"), "{e}");
    }
}
