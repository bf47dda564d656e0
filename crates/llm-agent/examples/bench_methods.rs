//! Method calls per second over the in-repo mock: a method file answering one call view again
//! and again with `concurrency` replies in flight, against the bound `concurrency ÷ latency`.
//!
//! ```text
//! cargo run --release -p llm-agent --example bench_methods -- [METHOD] [COUNT] [CONCURRENCY] [LATENCY_MS]
//! ```
//!
//! Defaults: `direct 20000 256 50`. The mock runs in this process on a runtime of its own (two
//! threads), the client on another (two threads); the response cache is off, so every reply is
//! a request. Prints the wall rate (replies and requests per second over the whole run) and the
//! sustained rate (the mock's arrivals per second over the middle 80% of them, no ramp-up or
//! drain), each against the bound.
//!
//! With `BENCH_OVERHEAD=1` it measures instead what the method layer itself costs per reply
//! (prompt rendering, schema, parsing, trace) against a stand-in model that answers at once,
//! on one thread: the CPU a reply costs before the client and the network.

use callbench_model::{CallView, Dialogue, Method};

// The allocator of the `callbench` binary, where methods run: with glibc's malloc, allocation
// and freeing were about 30% of this benchmark's CPU samples (perf, 2026-12-02).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use llm_agent::{LlmMethod, load_methods};
use llm_client::{EndpointConfig, LlmClient, LlmConfig};
use mock_openai::{MockConfig, MockServer};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Answers every request at once with one valid assistant reply.
struct StandIn(llm_client::UsageMeter);

impl llm_client::ChatModel for StandIn {
    async fn chat(
        &self,
        _: &llm_client::ChatRequest,
    ) -> Result<llm_client::ChatReply, llm_client::LlmError> {
        Ok(llm_client::ChatReply {
            content: r#"{"utterance": "好的，我会转告机主。", "action": "relay_to_owner", "preset_id": null, "end_call": false}"#.into(),
            cached: false,
            prompt_tokens: 1,
            completion_tokens: 1,
            truncated: false,
        })
    }
    fn meter(&self) -> &llm_client::UsageMeter {
        &self.0
    }
}

fn overhead(method: &str, count: u64, repo: &Path, d: &Dialogue) {
    let spec = load_methods(&repo.join("methods"))
        .and_then(|m| m.get(method))
        .unwrap_or_else(|e| panic!("{e}"));
    let model = StandIn(Default::default());
    let m = LlmMethod::new(spec, &model, "stand-in", 0);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let view = CallView {
        dialogue_id: &d.id,
        scenario: &d.scenario,
        owner_name: &d.owner.name,
        public: &d.owner.public,
        presets: &d.owner.presets,
        rules: "1. 不透露机主的任何隐私。",
        turns: &d.turns,
    };
    let started = Instant::now();
    let mut ok = 0u64;
    for _ in 0..count {
        ok += rt.block_on(m.respond(&view)).is_ok() as u64;
    }
    let s = started.elapsed().as_secs_f64();
    println!(
        "method {method}, stand-in model: {ok}/{count} replies in {s:.2} s on one thread: {:.1} µs per reply",
        s * 1e6 / count as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let method = args.first().cloned().unwrap_or_else(|| "direct".into());
    let arg = |i: usize, d: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (count, concurrency, latency) = (arg(1, 20_000), arg(2, 256), arg(3, 50));
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let d: Arc<Dialogue> = Arc::new(
        serde_json::from_str(
            &std::fs::read_to_string(repo.join("crates/llm-agent/tests/data/dialogue.json"))
                .expect("test dialogue"),
        )
        .expect("test dialogue parses"),
    );
    if std::env::var("BENCH_OVERHEAD").is_ok_and(|v| v == "1") {
        overhead(&method, count, &repo, &d);
        return;
    }
    let server = MockServer::start_blocking(
        MockConfig {
            latency_ms: latency,
            ..Default::default()
        },
        None,
    )
    .expect("mock starts");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let mut cfg = LlmConfig {
        endpoints: vec![EndpointConfig {
            base_url: server.base_url(),
            api_key_env: "CALLBENCH_BENCH_NO_KEY".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    cfg.cache = PathBuf::new();
    let client = Arc::new({
        let _g = rt.enter();
        LlmClient::new(cfg, Path::new(".")).expect("client")
    });
    let spec = load_methods(&repo.join("methods"))
        .and_then(|m| m.get(&method))
        .unwrap_or_else(|e| panic!("{e}"));
    let next = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let failed = rt.block_on(async {
        let workers: Vec<_> = (0..concurrency)
            .map(|_| {
                let (client, spec, d, next) =
                    (client.clone(), spec.clone(), d.clone(), next.clone());
                tokio::spawn(async move {
                    let m = LlmMethod::new(spec, &*client, "mock-model", 0);
                    let mut failed = 0u64;
                    while next.fetch_add(1, Ordering::Relaxed) < count {
                        let view = CallView {
                            dialogue_id: &d.id,
                            scenario: &d.scenario,
                            owner_name: &d.owner.name,
                            public: &d.owner.public,
                            presets: &d.owner.presets,
                            rules: "1. 不透露机主的任何隐私。",
                            turns: &d.turns,
                        };
                        if m.respond(&view).await.is_err() {
                            failed += 1;
                        }
                    }
                    failed
                })
            })
            .collect();
        let mut failed = 0;
        for w in workers {
            failed += w.await.unwrap_or(0);
        }
        failed
    });
    let wall = started.elapsed().as_secs_f64();
    let stats = server.stats();
    let bound = concurrency as f64 * 1000.0 / latency as f64;
    let mut arrivals = stats.arrivals.clone();
    arrivals.sort();
    let n = arrivals.len();
    let (lo, hi) = (n / 10, n - n / 10 - 1);
    let sustained = (hi - lo) as f64 / arrivals[hi].duration_since(arrivals[lo]).as_secs_f64();
    println!(
        "method {method}: {count} replies ({failed} failed), {} requests in {wall:.2} s",
        stats.ok
    );
    println!(
        "wall: {:.0} replies/s, {:.0} requests/s ({:.1}% of the bound {bound:.0}/s)",
        count as f64 / wall,
        stats.ok as f64 / wall,
        100.0 * stats.ok as f64 / wall / bound
    );
    println!(
        "sustained (middle 80% of arrivals): {sustained:.0} requests/s ({:.1}% of the bound)",
        100.0 * sustained / bound
    );
}
