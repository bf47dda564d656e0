//! `callbench evaluate`: flags to an [`evaluate::EvalConfig`], the methods and the judge by name,
//! a progress bar, the run, the outputs and the last line.

use crate::cli::{Common, EvalMode, JudgeKind, SplitArg};
use crate::config;
use anyhow::{Context, Result, bail};
use callbench_model::{Method, Split};
use evaluate::{EvalConfig, EvalError, Judge, MethodRun, Mode, Progress, RulesJudge};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// The paper's methods as the contract names them: LLM methods that `methods/*.toml` defines.
/// They come with the LLM-agent crate; until it is in this build they are named in the error.
const LLM_METHODS: &[&str] = &[
    "direct",
    "react",
    "simpletod",
    "divtod",
    "autotod",
    "procot",
    "enpl",
    "chatsop",
];

pub struct EvaluateArgs {
    pub common: Common,
    pub corpus: PathBuf,
    pub methods: Vec<String>,
    pub mode: EvalMode,
    pub judge: JudgeKind,
    pub trials: i64,
    pub split: SplitArg,
    /// The LLM flags given (`--base-url`, …).
    pub llm_flags: Vec<&'static str>,
    pub concurrency: Option<i64>,
    pub dry_run: bool,
    pub quiet: bool,
}

const NOT_YET: &str = "not available yet in this build (the LLM methods, the LLM judge and \
their endpoints come with the LLM-agent crate); run the offline benchmark with \
`--methods reference --judge rules`";

pub fn run(a: EvaluateArgs) -> Result<ExitCode> {
    let Some(out) = a.common.out.clone() else {
        bail!(
            "evaluate needs --out RUN (the run directory; rerunning with the same --out resumes)"
        );
    };
    let cfg_file = config::load(&Common {
        count: None,
        ..a.common.clone()
    })?;
    if a.trials <= 0 {
        bail!("--trials must be at least 1, got {}", a.trials);
    }
    let count = match a.common.count {
        Some(c) if c <= 0 => bail!("--count must be a positive number of dialogues, got {c}"),
        Some(c) => Some(c as usize),
        None => None,
    };
    let concurrency = match a.concurrency {
        Some(c) if c <= 0 => bail!("--concurrency must be at least 1, got {c}"),
        Some(c) => c as usize,
        None => 64,
    };
    // Names first: an unknown method is the likeliest mistake and costs nothing to report.
    let mut methods: Vec<String> = Vec::new();
    for m in &a.methods {
        let m = m.trim();
        if m.is_empty() {
            bail!("--methods has an empty name (give names separated by commas, e.g. `reference`)");
        }
        if methods.iter().any(|x| x == m) {
            bail!("--methods names {m} twice");
        }
        if LLM_METHODS.contains(&m) {
            bail!("method {m} is an LLM method: {NOT_YET}");
        }
        if !evaluate::OFFLINE_METHODS.contains(&m) {
            let mut available: Vec<String> = evaluate::OFFLINE_METHODS
                .iter()
                .map(|s| s.to_string())
                .collect();
            available.extend(
                LLM_METHODS
                    .iter()
                    .map(|s| format!("{s} (not yet in this build)")),
            );
            return Err(EvalError::UnknownMethod {
                name: m.to_string(),
                available,
            }
            .into());
        }
        methods.push(m.to_string());
    }
    if a.judge == JudgeKind::Llm {
        bail!("--judge llm is {NOT_YET}");
    }
    if let Some(flag) = a.llm_flags.first() {
        bail!("{flag} is {NOT_YET}");
    }
    let split = match a.split {
        SplitArg::Train => Split::Train,
        SplitArg::Validation => Split::Validation,
        SplitArg::Test => Split::Test,
    };
    let cfg = EvalConfig {
        out: out.clone(),
        mode: match a.mode {
            EvalMode::Turn => Mode::Turn,
            EvalMode::Live => Mode::Live,
        },
        trials: a.trials as u32,
        seed: cfg_file.seed,
        concurrency,
        max_turns: cfg_file.max_turns,
        check: cfg_file.check.clone(),
    };
    cfg.validate()?;
    let selection = evaluate::load_split(&a.corpus, split)?;
    let split_size = selection.split_size;
    let manifest = selection.manifest;
    let dialogues = match count {
        Some(n) => evaluate::stratified_subset(selection.dialogues, n, cfg.seed),
        None => selection.dialogues,
    };
    if a.dry_run {
        let d = evaluate::dry_run_offline(&cfg, &dialogues);
        println!(
            "dry run: {} method(s) × {} task(s) ({} dialogues of the {split} split × {} trial(s)), {} assistant turns to score per method",
            methods.len(),
            d.tasks,
            dialogues.len(),
            cfg.trials,
            d.turns
        );
        println!(
            "model calls: 0 (method {}, judge {}), tokens 0, cost 0: offline methods and the rules judge spend nothing",
            d.method_calls, d.judge_calls
        );
        return Ok(ExitCode::SUCCESS);
    }
    std::fs::create_dir_all(&out).with_context(|| {
        format!(
            "cannot create the run directory {} (choose a writable --out)",
            out.display()
        )
    })?;
    let lib = Arc::new(cfg_file.library_paths().load()?);
    if lib.set.digest != manifest.library_digest {
        tracing::warn!(
            "the scenario library ({}) is not the one that generated the corpus ({}): the reference \
             assistant and the live caller may be refused for dialogues the library casts otherwise",
            lib.set.digest,
            manifest.library_digest
        );
    }
    let director = Arc::new(roleplay::Director::new(lib.clone()));
    let dialogues = Arc::new(dialogues);
    let judge = Arc::new(RulesJudge);
    let bar = if a.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(0)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} {bar:40} {pos}/{len} calls  {per_sec}  eta {eta}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let b = bar.clone();
    let on_progress = move |p: Progress| match p {
        Progress::Started {
            method,
            total,
            done,
        } => {
            b.set_length(total);
            b.set_position(done);
            b.set_message(method);
            if done > 0 {
                b.println(format!("resuming: {done} of {total} calls already scored"));
            }
        }
        Progress::Task => b.inc(1),
    };
    let mut runs = Vec::new();
    for name in &methods {
        // Only `reference` reaches here (the names were checked above).
        let method = Arc::new(evaluate::ReferenceMethod::new(
            director.clone(),
            &dialogues,
        )?);
        debug_assert_eq!(method.name(), name);
        let fingerprint = method.fingerprint();
        let rows = rt.block_on(evaluate::run_method(
            &cfg,
            dialogues.clone(),
            &manifest.fingerprint,
            method,
            judge.clone(),
            Some(director.clone()),
            &on_progress,
        ))?;
        runs.push(MethodRun {
            name: name.clone(),
            fingerprint,
            models: [("assistant".to_string(), "sim-rule-assistant".to_string())].into(),
            rows,
        });
    }
    bar.finish_and_clear();
    let info = evaluate::RunInfo {
        split: split.to_string(),
        split_dialogues: split_size as u64,
        selected_dialogues: dialogues.len() as u64,
        corpus: a.corpus.display().to_string(),
        corpus_fingerprint: manifest.fingerprint.clone(),
        library_digest: manifest.library_digest.clone(),
        judge: evaluate::results::JudgeInfo {
            name: judge.name().to_string(),
            fingerprint: judge.fingerprint(),
            model: judge.model(),
        },
    };
    let results = evaluate::results::results(&cfg, &info, &runs);
    evaluate::write_outputs(&out, &results, &runs)?;
    print!("{}", evaluate::report::leaderboard(&results));
    let turns: u64 = results.methods.values().map(|m| m.turns).sum();
    let unjudged: u64 = results.methods.values().map(|m| m.unjudged).sum();
    let no_reply: u64 = runs
        .iter()
        .flat_map(|r| &r.rows)
        .filter(|r| {
            r.unjudged_reason
                .as_deref()
                .is_some_and(evaluate::stats::is_no_reply)
        })
        .count() as u64;
    if turns > 0 && no_reply == turns {
        let first = runs
            .iter()
            .flat_map(|r| &r.rows)
            .find_map(|r| r.unjudged_reason.clone())
            .unwrap_or_default();
        eprintln!(
            "evaluate: no method produced a turn ({turns} turns without a reply; the first: {first}); results in {}",
            out.display()
        );
        return Ok(ExitCode::from(3));
    }
    eprintln!(
        "evaluated {} method(s) on {} dialogues ({} assistant turns, {} unjudged): {}, {}, {}, {}",
        runs.len(),
        dialogues.len(),
        turns,
        unjudged,
        out.join(evaluate::RESULTS_FILE).display(),
        out.join(evaluate::TURNS_FILE).display(),
        out.join(evaluate::LEADERBOARD_FILE).display(),
        out.join(evaluate::REPORT_FILE).display()
    );
    Ok(ExitCode::SUCCESS)
}
