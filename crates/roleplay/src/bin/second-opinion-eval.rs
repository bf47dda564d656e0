//! `second-opinion-eval`: the rule checker's uncertain findings on labelled sets, put to an LLM
//! judge as `generate` puts them, and each set's figures with the judge's answers.
//!
//! ```text
//! second-opinion-eval --config FILE [--out DIR] [--concurrency N] [--answers FILE] SET_DIR…
//!     FILE: TOML whose [llm] table is the one of `callbench generate`'s config (endpoints,
//!     [llm.judge] model, retries, cache); other tables are ignored, so a generate config will do.
//!     DIR: where the client keeps its response cache (a rerun answers from it); default
//!     `second-opinion-out`. --answers: every question and its answer, one JSON line each.
//! ```
//!
//! Per set and in total: the judge's answers against the labels, and safety recall, clean
//! dialogues rejected and the targets under four counts of uncertain findings (see
//! `roleplay::judge_eval::Mode`). Exits 2 on bad input or when the client cannot be set up.

use llm_client::{LlmClient, LlmConfig};
use quality_checker::CheckConfig;
use quality_checker::eval::{self, Targets};
use roleplay::judge_eval::{self, Mode, Tally};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: second-opinion-eval --config FILE [--out DIR] [--concurrency N] [--answers FILE] SET_DIR…";

struct Args {
    config: PathBuf,
    out: PathBuf,
    concurrency: usize,
    answers: Option<PathBuf>,
    sets: Vec<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut config = None;
    let mut a = Args {
        config: PathBuf::new(),
        out: PathBuf::from("second-opinion-out"),
        concurrency: 4,
        answers: None,
        sets: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--config" => config = Some(PathBuf::from(value("--config")?)),
            "--out" => a.out = value("--out")?.into(),
            "--answers" => a.answers = Some(value("--answers")?.into()),
            "--concurrency" => {
                a.concurrency = value("--concurrency")?
                    .parse()
                    .map_err(|e| format!("--concurrency: {e}"))?;
                if a.concurrency == 0 {
                    return Err("--concurrency must be at least 1".into());
                }
            }
            "--help" | "-h" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => a.sets.push(s.into()),
        }
    }
    a.config = config.ok_or(format!("--config is required\n{USAGE}"))?;
    if a.sets.is_empty() {
        return Err(format!("no set given\n{USAGE}"));
    }
    Ok(a)
}

/// The `[llm]` table of the config file; the rest of the file is not this tool's.
#[derive(serde::Deserialize)]
struct File {
    #[serde(default)]
    llm: LlmConfig,
}

fn read_config(path: &std::path::Path) -> Result<LlmConfig, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file: File = toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(file.llm)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let llm = read_config(&args.config)?;
    // Every set is read before the first question, so a bad line ends the run before it costs.
    let mut sets = Vec::new();
    for dir in &args.sets {
        let (items, warnings) = eval::read_set(dir)?;
        for w in warnings {
            eprintln!("warning: {}: {w}", dir.display());
        }
        sets.push((dir, items));
    }
    let lib = roleplay::LibrarySources::embedded()
        .load()
        .map_err(|e| format!("the embedded library: {e}"))?;
    // `checker-eval`'s checker, so that the bounds it prints and the figures here agree.
    let checker = CheckConfig::default().build();
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("starting the runtime: {e}"))?;
    let max_invalid = llm.max_invalid_replies;
    let client = {
        let _g = rt.enter();
        LlmClient::new(llm, &args.out).map_err(|e| format!("the LLM client: {e}"))?
    };
    let mut answers_file = match &args.answers {
        Some(p) => Some(std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?),
        None => None,
    };
    let targets = Targets::default();
    let mut total = Tally::default();
    let mut met: BTreeMap<Mode, usize> = BTreeMap::new();
    for (dir, items) in &sets {
        let name = dir.display().to_string();
        let progress = |n: usize, of: usize| {
            if n == of || n.is_multiple_of(10) {
                eprintln!("{name}: {n} of {of} questions answered");
            }
        };
        let asked = rt.block_on(judge_eval::ask_set(
            &lib,
            &client,
            &checker,
            items,
            args.concurrency,
            max_invalid,
            &progress,
        ));
        if let Some(f) = answers_file.as_mut() {
            for a in &asked {
                let line = serde_json::json!({"set": name, "question": a});
                writeln!(f, "{line}").map_err(|e| format!("writing the answers: {e}"))?;
            }
        }
        let tally = Tally::of(&asked);
        total.add(&tally);
        println!("== {name} ({} dialogues)", items.len());
        println!("second opinions: {}", tally.line());
        for (mode, report) in judge_eval::reports(&checker, items, &asked) {
            if report.missed(&targets).is_empty() {
                *met.entry(mode).or_default() += 1;
            }
            println!("{}: {}", mode.label(), report.summary(&targets));
        }
    }
    println!("== all {} sets", sets.len());
    println!("second opinions: {}", total.line());
    for mode in Mode::ALL {
        println!(
            "{}: all targets met by {} of {} sets",
            mode.label(),
            met.get(&mode).copied().unwrap_or(0),
            sets.len()
        );
    }
    Ok(())
}
