//! A small load loop: `cargo run --release -p mock-openai --example load -- [CONCURRENCY]
//! [LATENCY_MS] [SECONDS]` drives the mock with that many concurrent clients for that long
//! and prints the sustained rate against the bound `concurrency / latency`.
//!
//! Client and server share one two-worker runtime, as in a test run on a two-core machine.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mock_openai::{MockConfig, MockServer};
use serde_json::json;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("numbers: CONCURRENCY LATENCY_MS SECONDS"))
        .collect();
    let concurrency = args.first().copied().unwrap_or(256);
    let latency_ms = args.get(1).copied().unwrap_or(50);
    let seconds = args.get(2).copied().unwrap_or(5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(run(concurrency, latency_ms, seconds));
}

async fn run(concurrency: u64, latency_ms: u64, seconds: u64) {
    let server = MockServer::start(MockConfig {
        latency_ms,
        ..MockConfig::default()
    })
    .await
    .expect("the mock starts");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(concurrency as usize)
        .build()
        .expect("a client");
    let url = format!("{}/chat/completions", server.base_url());
    let schema = json!({
        "type": "object",
        "properties": {
            "utterance": {"type": "string"},
            "action": {"type": "string", "enum": ["answer", "ask", "close"]},
            "end_call": {"type": "boolean"},
            "preset_id": {"type": ["string", "null"]}
        },
        "required": ["utterance", "action", "end_call", "preset_id"],
        "additionalProperties": false
    });
    let body = Arc::new(
        serde_json::to_vec(&json!({
            "model": "gpt-4o-mini",
            "messages": [
                {"role": "system", "content": "你是机主的电话助理。机主的预设：p1 外卖放门口。".repeat(10)},
                {"role": "user", "content": "喂，你好，我是送外卖的。"},
                {"role": "assistant", "content": "您好，请放门口就行。"},
                {"role": "user", "content": "好的，那我放门口了。"}
            ],
            "response_format": {"type": "json_schema", "json_schema": {"name": "turn", "strict": true, "schema": schema}}
        }))
        .expect("a body"),
    );

    // Warm up the connections, then measure.
    let warm_until = Instant::now() + Duration::from_millis(500);
    let measure_until = warm_until + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for _ in 0..concurrency {
        let (client, url, body) = (client.clone(), url.clone(), body.clone());
        tasks.push(tokio::spawn(async move {
            let mut done = 0u64;
            loop {
                let now = Instant::now();
                if now >= measure_until {
                    break;
                }
                let r = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .body(body.to_vec())
                    .send()
                    .await
                    .expect("a response");
                assert!(r.status().is_success());
                r.bytes().await.expect("a body");
                if now >= warm_until {
                    done += 1;
                }
            }
            done
        }));
    }
    let mut done = 0;
    for t in tasks {
        done += t.await.expect("a task");
    }
    let rate = done as f64 / seconds as f64;
    let bound = concurrency as f64 * 1000.0 / latency_ms.max(1) as f64;
    println!(
        "{concurrency} clients, {latency_ms} ms latency, {seconds} s: {done} requests, {rate:.0} requests/s = {:.1}% of the bound {bound:.0}/s",
        100.0 * rate / bound
    );
    server.shutdown().await;
}
