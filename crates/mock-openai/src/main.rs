//! `mock-openai`: runs the mock OpenAI-compatible server from the command line.
//!
//! Prints the base URL (`http://ADDR/v1`) on the first line of standard output, logs to
//! standard error (`RUST_LOG=mock_openai=debug` shows every request), and stops on Ctrl-C
//! with a summary of what it served.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use mock_openai::{MockConfig, MockServer, Outcome};

/// A mock OpenAI-compatible chat-completions server with latency and injected faults.
///
/// Flags override the config file; the config file overrides the defaults.
#[derive(Debug, Parser)]
#[command(name = "mock-openai", version)]
struct Args {
    /// Address to listen on. Anything but loopback is served with a warning.
    #[arg(long, default_value = "127.0.0.1:8089")]
    addr: SocketAddr,
    /// TOML file with `MockConfig` fields (latency_ms, p_429, ...).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Base latency of a reply, in milliseconds.
    #[arg(long)]
    latency_ms: Option<u64>,
    /// Latency jitter: each latency is drawn from [latency - jitter, latency + jitter].
    #[arg(long)]
    jitter_ms: Option<u64>,
    /// Probability of a 429 with Retry-After.
    #[arg(long = "p-429")]
    p_429: Option<f64>,
    /// Retry-After of a 429, in seconds.
    #[arg(long)]
    retry_after_secs: Option<u64>,
    /// Probability of a 500.
    #[arg(long = "p-500")]
    p_500: Option<f64>,
    /// Probability of a hang (held for --hang-ms before answering).
    #[arg(long)]
    p_hang: Option<f64>,
    /// How long a hang lasts, in milliseconds.
    #[arg(long)]
    hang_ms: Option<u64>,
    /// Probability of a 200 with a truncated JSON body.
    #[arg(long)]
    p_truncated: Option<f64>,
    /// Probability of a connection reset without a response.
    #[arg(long)]
    p_reset: Option<f64>,
    /// Leave `usage` out of replies.
    #[arg(long)]
    omit_usage: bool,
    /// Report the model as "/models/<model>.gguf".
    #[arg(long)]
    model_as_path: bool,
    /// Wrap JSON replies in ```json fences when the request sets no response_format.
    #[arg(long)]
    fence_json: bool,
    /// Seed of replies and fault draws.
    #[arg(long)]
    seed: Option<u64>,
    /// Messages after which role-play replies end the call.
    #[arg(long)]
    end_after_turns: Option<u32>,
    /// Require `Authorization: Bearer $VAR`, the key read from this environment variable.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// Model id listed by /v1/models (repeatable).
    #[arg(long = "model")]
    models: Vec<String>,
    /// Do not record request arrival times.
    #[arg(long)]
    no_record_arrivals: bool,
    /// On Ctrl-C, write every recorded arrival to FILE: seconds since the first arrival, one
    /// per line, in order (for benchmarks: sustained rates, rate-limit windows).
    #[arg(long, value_name = "FILE", conflicts_with = "no_record_arrivals")]
    arrivals_out: Option<PathBuf>,
    /// What replies hold: roleplay (default), arbitrary (any value of the schema's types),
    /// garbage (prose, no JSON), cut_short (JSON cut half-way, finish_reason "length") or
    /// repeat (the same lines at the same turn of every conversation; see --repeat-variants).
    #[arg(long, value_name = "MODE")]
    reply_mode: Option<mock_openai::ReplyMode>,
    /// `--reply-mode repeat`: how many scripts each party repeats (default 1).
    #[arg(long, value_name = "N")]
    repeat_variants: Option<u32>,
}

impl Args {
    /// The validated configuration: defaults, then the file, then the flags.
    fn to_config(&self) -> Result<MockConfig, String> {
        let mut config = match &self.config {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                toml::from_str::<MockConfig>(&text)
                    .map_err(|e| format!("{}: {e}", path.display()))?
            }
            None => MockConfig::default(),
        };
        macro_rules! set {
            ($($field:ident),*) => {$(
                if let Some(v) = self.$field { config.$field = v; }
            )*};
        }
        set!(
            latency_ms,
            jitter_ms,
            p_429,
            retry_after_secs,
            p_500,
            p_hang,
            hang_ms,
            p_truncated,
            p_reset,
            seed,
            end_after_turns,
            reply_mode,
            repeat_variants
        );
        config.omit_usage |= self.omit_usage;
        config.model_as_path |= self.model_as_path;
        config.fence_json_when_unconstrained |= self.fence_json;
        if self.no_record_arrivals {
            config.record_arrivals = false;
        }
        if !self.models.is_empty() {
            config.models = self.models.clone();
        }
        if let Some(var) = &self.api_key_env {
            let key = std::env::var(var)
                .map_err(|_| format!("--api-key-env: the environment variable {var} is not set"))?;
            config.required_api_key = Some(key);
        }
        config.validate().map_err(|e| e.to_string())?;
        Ok(config)
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("mock_openai=info")),
        )
        .with_writer(std::io::stderr)
        .init();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("mock-openai: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: &Args) -> Result<(), String> {
    let config = args.to_config()?;
    if !args.addr.ip().is_loopback() {
        tracing::warn!(
            addr = %args.addr,
            "serving beyond loopback: anyone who can reach this address can use the mock"
        );
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async {
        let server = MockServer::start_on(config.clone(), args.addr)
            .await
            .map_err(|e| e.to_string())?;
        println!("{}", server.base_url());
        tracing::info!(?config, "mock-openai serving; Ctrl-C stops it");
        tokio::signal::ctrl_c()
            .await
            .map_err(|e| format!("cannot wait for Ctrl-C: {e}"))?;
        let stats = server.stats();
        let by_outcome: Vec<String> = Outcome::ALL
            .iter()
            .map(|o| format!("{}={}", o.as_str(), stats.count(*o)))
            .collect();
        eprintln!(
            "mock-openai: served {} chat completions ({}), {} model lists",
            stats.requests,
            by_outcome.join(" "),
            stats.model_list
        );
        server.shutdown().await;
        if let Some(path) = &args.arrivals_out {
            write_arrivals(path, &stats.arrivals)
                .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        }
        Ok(())
    })
}

fn write_arrivals(path: &std::path::Path, arrivals: &[std::time::Instant]) -> std::io::Result<()> {
    use std::io::Write;
    let mut sorted = arrivals.to_vec();
    sorted.sort();
    let mut out = std::io::BufWriter::new(std::fs::File::create(path)?);
    if let Some(first) = sorted.first().copied() {
        for t in &sorted {
            writeln!(out, "{:.6}", t.duration_since(first).as_secs_f64())?;
        }
    }
    out.flush()
}
