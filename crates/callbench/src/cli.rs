//! Command-line arguments. Flags override the config file; the config file overrides defaults.

use clap::{Args as ClapArgs, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// CallBench: generate, check and inspect a corpus of Chinese phone calls between a caller and
/// a phone-call assistant answering for the phone's owner.
#[derive(Debug, Parser)]
#[command(name = "callbench", version, about)]
pub struct Args {
    /// More log output (also RUST_LOG=debug).
    #[arg(short, long, global = true)]
    pub verbose: bool,
    #[command(subcommand)]
    pub command: Command,
}

/// Flags every subcommand that reads the config takes.
#[derive(Debug, Clone, ClapArgs, Default)]
pub struct Common {
    /// TOML config file (see README: "The config file").
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output directory.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run seed.
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Dialogues in the finished corpus.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub count: Option<i64>,
    /// Scenario files laid over the built-in library: a file named like a built-in one
    /// (`takeout.toml`, `common/owners.toml`) replaces it, a new file adds a scenario.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Phrase banks and prompts laid over the built-in ones (`caller.toml`, `assistant.toml`,
    /// `lexicon.toml`, `prompts/*.tera`): a file replaces the built-in one of its name.
    #[arg(long, value_name = "DIR")]
    pub templates: Option<PathBuf>,
}

/// Which backend speaks the turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum BackendKind {
    /// The embedded offline simulator.
    Sim,
    /// Any OpenAI-compatible endpoint.
    Openai,
}

/// Export formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The interchange format of CONTRACT.md.
    Jsonl,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Plan, role-play, check and write the corpus (resumes when --out holds the same run).
    Generate {
        #[command(flatten)]
        common: Common,
        /// Who speaks the turns.
        #[arg(long, value_enum)]
        backend: Option<BackendKind>,
        /// Base URL of the OpenAI-compatible endpoint.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// Model for every role.
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Dialogues in flight at once.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        concurrency: Option<i64>,
        /// Requests per minute.
        #[arg(long, value_name = "N")]
        rpm: Option<u32>,
        /// Tokens per minute.
        #[arg(long, value_name = "N")]
        tpm: Option<u32>,
        /// Dialogues per Parquet shard.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        rows_per_shard: Option<i64>,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
        /// Print what the run would keep, add and make again in --out, and estimate the calls,
        /// tokens and cost on the LLM; spend nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Print the allocation of dialogues to scenario × preset case × relation; spend nothing.
    Plan {
        #[command(flatten)]
        common: Common,
    },
    /// List the scenario library a run would use: each scenario's source, fingerprint, cells
    /// and dialogues at the configured count, and the shared files.
    Scenarios {
        #[command(flatten)]
        common: Common,
    },
    /// Write the built-in library (scenarios/, templates/, methods/) out as files to edit;
    /// DIR must be new or empty.
    Init {
        /// Where to write it.
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
    /// Load and check the scenario library and phrase banks.
    Validate {
        #[command(flatten)]
        common: Common,
    },
    /// Run the quality checker on dialogues in the interchange format.
    Check {
        #[command(flatten)]
        common: Common,
        /// Dialogues, one JSON object a line.
        #[arg(long, value_name = "F.jsonl")]
        input: PathBuf,
        /// Where to write the report, one line per input dialogue.
        #[arg(long, value_name = "R.jsonl")]
        report: PathBuf,
    },
    /// Write a corpus (or an inspection sample) in the interchange format.
    Export {
        #[command(flatten)]
        common: Common,
        /// The corpus directory (holding manifest.json and shards/).
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value = "jsonl")]
        format: Format,
    },
    /// Draw the stratified manual-inspection sample into DIR/inspection/.
    Sample {
        #[command(flatten)]
        common: Common,
        /// The corpus directory.
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
        /// Share of each stratum to sample (default 0.10, or `sample.rate` of the config).
        #[arg(long, value_name = "R")]
        rate: Option<f64>,
        /// Share of the rejected dialogues to sample beside them (0 for none).
        #[arg(long, value_name = "R")]
        reject_rate: Option<f64>,
        /// Replace a sample that auditors have already reviewed.
        #[arg(long)]
        replace_reviewed: bool,
        /// Draw judged assistant turns of this `evaluate` run (turn mode) instead, into
        /// RUN/inspection/ (review and audit then take `--corpus RUN`); `--corpus` is the corpus
        /// the run scored.
        #[arg(long, value_name = "RUN")]
        from_eval: Option<PathBuf>,
    },
    /// Serve the auditors' review page (127.0.0.1 unless --addr and --allow-remote say otherwise).
    Review {
        #[command(flatten)]
        common: Common,
        /// The corpus directory.
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
        /// Address to listen on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
        addr: std::net::SocketAddr,
        /// Allow an address other than loopback (anyone who can reach it can record verdicts).
        #[arg(long)]
        allow_remote: bool,
        /// Plan who reviews what (comma-separated names) before serving; the page shows each
        /// auditor their queue (DIR/inspection/assignments.json).
        #[arg(long, value_name = "A,B,C", value_delimiter = ',')]
        auditors: Vec<String>,
        /// With --auditors: the share of the sample seen by two auditors (default 0.2).
        #[arg(long, value_name = "R", requires = "auditors")]
        overlap: Option<f64>,
    },
    /// Benchmark assistant methods on the corpus's test split (resumes when --out holds the same run).
    Evaluate {
        #[command(flatten)]
        common: Common,
        /// The corpus directory.
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
        /// Methods, comma-separated (e.g. `reference`).
        #[arg(long, value_name = "A,B", value_delimiter = ',', required = true)]
        methods: Vec<String>,
        /// Turn mode (default, reproducible) or live mode.
        #[arg(long, value_enum, default_value = "turn")]
        mode: EvalMode,
        /// The judge.
        #[arg(long, value_enum, default_value = "rules")]
        judge: JudgeKind,
        /// Caller seeds per dialogue (live mode).
        #[arg(
            long,
            value_name = "K",
            default_value_t = 1,
            allow_negative_numbers = true
        )]
        trials: i64,
        /// The split to score.
        #[arg(long, value_enum, default_value = "test")]
        split: SplitArg,
        /// Base URL of the candidate assistant's endpoint.
        #[arg(long, value_name = "URL")]
        base_url: Option<String>,
        /// The candidate assistant's model.
        #[arg(long, value_name = "NAME")]
        model: Option<String>,
        /// Base URL of the judge's endpoint.
        #[arg(long, value_name = "URL")]
        judge_base_url: Option<String>,
        /// The judge's model.
        #[arg(long, value_name = "NAME")]
        judge_model: Option<String>,
        /// Dialogues in flight at once.
        #[arg(long, value_name = "N", allow_negative_numbers = true)]
        concurrency: Option<i64>,
        /// Requests per minute.
        #[arg(long, value_name = "N")]
        rpm: Option<u32>,
        /// Tokens per minute.
        #[arg(long, value_name = "N")]
        tpm: Option<u32>,
        /// Print the calls, tokens and cost of the run; spend nothing.
        #[arg(long)]
        dry_run: bool,
        /// No progress bar.
        #[arg(long)]
        quiet: bool,
    },
    /// Write a publishable release of a finished corpus into --out REL (splits as Parquet, dataset
    /// card, stats.json, figures, checksums), leaving out what the auditors rejected.
    Release {
        #[command(flatten)]
        common: Common,
        /// The corpus directory.
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
        /// Which auditors' rejections leave a dialogue out.
        #[arg(long, value_enum, default_value = "any")]
        leave_out: LeaveOutArg,
        /// Most dialogues in one data file.
        #[arg(long, value_name = "N", default_value_t = 100_000)]
        rows_per_file: u64,
    },
    /// Print the agreement report.
    Audit {
        #[command(flatten)]
        common: Common,
        /// The corpus directory.
        #[arg(long, value_name = "DIR")]
        corpus: PathBuf,
    },
}

/// Which rejections leave a dialogue out of a release.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LeaveOutArg {
    /// A dialogue any auditor rejected (each auditor's latest verdict).
    Any,
    /// A dialogue a strict majority of its auditors rejected.
    Majority,
}

/// How `evaluate` meets the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvalMode {
    /// At each assistant turn of a test dialogue, the method answers the call so far.
    Turn,
    /// The method plays whole calls against the caller agent.
    Live,
}

/// Who scores the assistant turns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum JudgeKind {
    /// The paper's LLM judge.
    Llm,
    /// The offline judge on the quality checker.
    Rules,
}

/// Which split `evaluate` scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SplitArg {
    /// `train`.
    Train,
    /// `validation`.
    Validation,
    /// `test` (the benchmark's).
    Test,
}

/// Logs go to stderr; RUST_LOG overrides the level.
pub fn init_tracing(verbose: bool) {
    use tracing_subscriber::EnvFilter;
    let default = if verbose { "debug" } else { "warn" };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}
