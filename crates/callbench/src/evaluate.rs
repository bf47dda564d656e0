//! `callbench evaluate`: flags to an [`evaluate::EvalConfig`], the methods and the judge by name,
//! the endpoints of each role, a progress bar, the run, the outputs and the last line.

use crate::cli::{Common, EvalMode, JudgeKind, SplitArg};
use crate::config::{self, FileConfig};
use anyhow::{Context, Result, bail};
use callbench_model::{Dialogue, Method, Split};
use evaluate::{
    EvalConfig, EvalError, Judge, LiveCaller, LlmJudge, MethodRun, Mode, Progress, RulesJudge,
};
use indicatif::{ProgressBar, ProgressStyle};
use llm_agent::{LlmMethod, MethodSpec};
use llm_client::{EndpointConfig, LlmClient, LlmConfig};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

pub struct EvaluateArgs {
    pub common: Common,
    pub corpus: PathBuf,
    pub methods: Vec<String>,
    pub mode: EvalMode,
    pub judge: JudgeKind,
    pub trials: i64,
    pub split: SplitArg,
    pub llm: LlmFlags,
    pub concurrency: Option<i64>,
    pub dry_run: bool,
    pub quiet: bool,
}

/// The endpoint flags: `--base-url/--model` are the candidate assistant's, `--judge-*` the
/// judge's; `--rpm/--tpm` limit every endpoint a role of the run uses.
#[derive(Debug, Default)]
pub struct LlmFlags {
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub judge_base_url: Option<String>,
    pub judge_model: Option<String>,
    pub rpm: Option<u32>,
    pub tpm: Option<u32>,
}

/// A method of the run: the embedded offline assistant, or a method file played by a model.
enum Chosen {
    Reference,
    Llm(Arc<MethodSpec>),
}

/// What the run needs a model for.
struct Needs {
    methods: bool,
    judge: bool,
    caller: bool,
}

impl Needs {
    fn any(&self) -> bool {
        self.methods || self.judge || self.caller
    }
}

/// The endpoint `url` for a role, keeping the API-key variable the role (or the shared pool)
/// names: `--base-url` moves a role, it does not change whose key it sends.
fn endpoint_for(cfg: &LlmConfig, role: llm_client::Role, url: &str) -> EndpointConfig {
    let key = cfg
        .endpoints_of(role)
        .first()
        .map(|e| e.api_key_env.clone())
        .unwrap_or_else(|| EndpointConfig::default().api_key_env);
    EndpointConfig {
        name: format!("{}-flag", role.as_str()),
        base_url: url.to_string(),
        api_key_env: key,
        ..EndpointConfig::default()
    }
}

/// The LLM settings of the run: the config's `[llm]` with the flags applied. The candidate and
/// the judge answer at temperature 0 (a benchmark's turn must not depend on a draw; the cache
/// makes a rerun answer alike anyway); the judge gets at least
/// [`evaluate::llm::JUDGE_MIN_MAX_TOKENS`] tokens for its seven reasons.
fn llm_config(file: &FileConfig, f: &LlmFlags, needs: &Needs) -> Result<LlmConfig> {
    use llm_client::Role;
    let mut cfg = file.llm.clone();
    if let Some(url) = &f.base_url {
        if !needs.methods {
            bail!(
                "--base-url is the candidate assistant's endpoint: it applies to the LLM methods (e.g. --methods direct), not to `reference`"
            );
        }
        cfg.assistant.endpoints = vec![endpoint_for(&cfg, Role::Assistant, url)];
    }
    if let Some(m) = &f.model {
        if !needs.methods {
            bail!(
                "--model is the candidate assistant's model: it applies to the LLM methods (e.g. --methods direct), not to `reference`"
            );
        }
        cfg.assistant.model = m.clone();
    }
    if let Some(url) = &f.judge_base_url {
        if !needs.judge {
            bail!("--judge-base-url applies to --judge llm");
        }
        cfg.judge.endpoints = vec![endpoint_for(&cfg, Role::Judge, url)];
    }
    if let Some(m) = &f.judge_model {
        if !needs.judge {
            bail!("--judge-model applies to --judge llm");
        }
        cfg.judge.model = m.clone();
    }
    if (f.rpm.is_some() || f.tpm.is_some()) && !needs.any() {
        bail!(
            "--rpm and --tpm limit the model calls, and this run makes none (`reference` with --judge rules)"
        );
    }
    let limit = |e: &mut EndpointConfig| {
        if let Some(r) = f.rpm {
            e.rpm = r;
        }
        if let Some(t) = f.tpm {
            e.tpm = t;
        }
    };
    cfg.endpoints.iter_mut().for_each(limit);
    for role in Role::ALL {
        cfg.role_mut(role).endpoints.iter_mut().for_each(limit);
    }
    cfg.assistant.temperature = 0.0;
    cfg.judge.temperature = 0.0;
    cfg.judge.max_tokens = cfg
        .judge
        .max_tokens
        .max(evaluate::llm::JUDGE_MIN_MAX_TOKENS);
    Ok(cfg)
}

/// The method files' folder (config `methods_dir`, default `methods`, relative to the working
/// directory like `scenarios_dir`).
fn methods_dir(file: &FileConfig) -> PathBuf {
    file.methods_dir.clone()
}

/// The method files embedded in the binary (`methods/` of the repository), written out.
fn embedded_methods() -> Result<tempfile::TempDir> {
    let tmp = tempfile::tempdir()?;
    for (rel, text) in roleplay::library::embedded::FILES {
        if let Some(name) = rel.strip_prefix("methods/") {
            let path = tmp.path().join(name);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&path, text)?;
        }
    }
    Ok(tmp)
}

/// Checks the names of `--methods` and loads the method files they need. An unknown name lists
/// the available ones; a method file with an error names the file and the key.
fn choose(names: &[String], dir: &Path) -> Result<Vec<(String, Chosen)>> {
    let mut out: Vec<(String, Chosen)> = Vec::new();
    let mut set: Option<llm_agent::MethodSet> = None;
    for m in names {
        let m = m.trim();
        if m.is_empty() {
            bail!("--methods has an empty name (give names separated by commas, e.g. `reference`)");
        }
        if out.iter().any(|(x, _)| x == m) {
            bail!("--methods names {m} twice");
        }
        if evaluate::OFFLINE_METHODS.contains(&m) {
            out.push((m.to_string(), Chosen::Reference));
            continue;
        }
        if set.is_none() {
            // Every method file is checked, not only the ones named: a broken file is found
            // on the first run that loads the folder.
            // The default folder, absent (run outside the repository): the method files built
            // into the binary, written out to a temporary folder for the loader.
            let embedded = (!dir.exists() && dir == Path::new("methods"))
                .then(embedded_methods)
                .transpose()?;
            let dir = embedded.as_ref().map_or(dir, |t| t.path());
            let loaded = llm_agent::load_methods(dir).map_err(|e| match e {
                llm_agent::Error::Io { .. } if !dir.exists() => anyhow::anyhow!(
                    "method {m:?} is not `reference` and the methods folder {} does not exist \
                     (run from the repository, or set `methods_dir` in the config); available \
                     without it: {}",
                    dir.display(),
                    evaluate::OFFLINE_METHODS.join(", ")
                ),
                e => anyhow::Error::new(e),
            })?;
            set = Some(loaded);
        }
        let loaded = set.as_ref().unwrap_or_else(|| unreachable!());
        match loaded.get(m) {
            Ok(spec) => out.push((m.to_string(), Chosen::Llm(spec))),
            Err(_) => {
                let mut available: Vec<String> = evaluate::OFFLINE_METHODS
                    .iter()
                    .map(|s| s.to_string())
                    .collect();
                available.extend(loaded.names().iter().map(|s| s.to_string()));
                return Err(EvalError::UnknownMethod {
                    name: m.to_string(),
                    available,
                }
                .into());
            }
        }
    }
    Ok(out)
}

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
    let chosen = choose(&a.methods, &methods_dir(&cfg_file))?;
    let mode = match a.mode {
        EvalMode::Turn => Mode::Turn,
        EvalMode::Live => Mode::Live,
    };
    let needs = Needs {
        methods: chosen.iter().any(|(_, c)| matches!(c, Chosen::Llm(_))),
        judge: a.judge == JudgeKind::Llm,
        // Live mode's caller is a model when the config's backend is (`backend = "openai"`).
        caller: mode == Mode::Live && cfg_file.backend == "openai",
    };
    let llm_cfg = llm_config(&cfg_file, &a.llm, &needs)?;
    let split = match a.split {
        SplitArg::Train => Split::Train,
        SplitArg::Validation => Split::Validation,
        SplitArg::Test => Split::Test,
    };
    let mut cfg = EvalConfig {
        out: out.clone(),
        mode,
        trials: a.trials as u32,
        seed: cfg_file.seed,
        concurrency,
        max_turns: cfg_file.max_turns,
        check: cfg_file.check.clone(),
        caller: LiveCaller::Offline,
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
        return dry_run(&cfg, &dialogues, &chosen, &llm_cfg, &needs, split);
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
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    // One client for every role, each on its endpoints; its cache (`RUN/llm-cache.redb` by
    // default) is what makes a rerun pay nothing twice. Tasks borrow it for the whole run, so
    // it lives as long as the process, and its cache is flushed explicitly at the end.
    let client: Option<&'static LlmClient> = if needs.any() {
        let _guard = rt.enter();
        let c = LlmClient::new(llm_cfg.clone(), &out).context("setting up the LLM client")?;
        Some(Box::leak(Box::new(c)))
    } else {
        None
    };
    let max_invalid = llm_cfg.max_invalid_replies;
    if needs.caller
        && let Some(client) = client
    {
        cfg.caller = LiveCaller::Llm {
            client,
            max_invalid_replies: max_invalid,
        };
    }
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
    let ctx = RunCtx {
        cfg: &cfg,
        dialogues: &dialogues,
        corpus_fingerprint: &manifest.fingerprint,
        director: &director,
        client,
        max_invalid,
        on_progress: &on_progress,
    };
    let outcome = match a.judge {
        JudgeKind::Rules => rt.block_on(run_all(&ctx, &chosen, Arc::new(RulesJudge))),
        JudgeKind::Llm => {
            let client = client.unwrap_or_else(|| unreachable!("the llm judge needs the client"));
            let judge = Arc::new(LlmJudge::new(client, max_invalid)?);
            rt.block_on(run_all(&ctx, &chosen, judge))
        }
    };
    if let Some(c) = client {
        c.flush_cache();
    }
    bar.finish_and_clear();
    let (runs, judge_info) = outcome?;
    let info = evaluate::RunInfo {
        split: split.to_string(),
        split_dialogues: split_size as u64,
        selected_dialogues: dialogues.len() as u64,
        corpus: a.corpus.display().to_string(),
        corpus_fingerprint: manifest.fingerprint.clone(),
        library_digest: manifest.library_digest.clone(),
        judge: judge_info,
    };
    let results = evaluate::results::results(&cfg, &info, &runs);
    evaluate::write_outputs(&out, &results, &runs)?;
    print!("{}", evaluate::report::leaderboard(&results));
    let rows = || runs.iter().flat_map(|r| &r.rows);
    let turns: u64 = results.methods.values().map(|m| m.turns).sum();
    let unjudged: u64 = results.methods.values().map(|m| m.unjudged).sum();
    let no_reply = rows()
        .filter(|r| {
            r.unjudged_reason
                .as_deref()
                .is_some_and(evaluate::stats::is_no_reply)
        })
        .count() as u64;
    let first_reason = || {
        rows()
            .find_map(|r| r.unjudged_reason.clone())
            .unwrap_or_default()
    };
    if turns > 0 && no_reply == turns {
        eprintln!(
            "evaluate: no method produced a turn ({turns} turns without a reply; the first: {}); results in {}",
            first_reason(),
            out.display()
        );
        return Ok(ExitCode::from(3));
    }
    if turns > 0 && unjudged == turns {
        eprintln!(
            "evaluate: the judge scored no turn ({turns} turns unjudged; the first: {}); results in {}",
            first_reason(),
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

/// What every method's run shares.
struct RunCtx<'a> {
    cfg: &'a EvalConfig,
    dialogues: &'a Arc<Vec<Dialogue>>,
    corpus_fingerprint: &'a str,
    director: &'a Arc<roleplay::Director>,
    client: Option<&'static LlmClient>,
    max_invalid: u32,
    on_progress: &'a (dyn Fn(Progress) + Send + Sync),
}

/// Runs every chosen method with `judge`, in the order given.
async fn run_all<J: Judge>(
    ctx: &RunCtx<'_>,
    chosen: &[(String, Chosen)],
    judge: Arc<J>,
) -> Result<(Vec<MethodRun>, evaluate::results::JudgeInfo)> {
    let mut runs = Vec::new();
    for (name, c) in chosen {
        let mut models = BTreeMap::new();
        if let LiveCaller::Llm { client, .. } = ctx.cfg.caller {
            models.insert("caller".to_string(), client.config().caller.model.clone());
        }
        let run = match c {
            Chosen::Reference => {
                let method = Arc::new(evaluate::ReferenceMethod::new(
                    ctx.director.clone(),
                    ctx.dialogues,
                )?);
                models.insert("assistant".into(), "sim-rule-assistant".into());
                run_one(ctx, name, method, judge.clone(), models).await?
            }
            Chosen::Llm(spec) => {
                let client = ctx
                    .client
                    .unwrap_or_else(|| unreachable!("an LLM method needs the client"));
                let model = client.config().assistant.model.clone();
                let price = client
                    .config()
                    .prices
                    .get(&model)
                    .copied()
                    .unwrap_or_default();
                let method = Arc::new(
                    LlmMethod::new(spec.clone(), client, &model, ctx.max_invalid).price(price),
                );
                models.insert("assistant".into(), model);
                run_one(ctx, name, method, judge.clone(), models).await?
            }
        };
        runs.push(run);
    }
    let info = evaluate::results::JudgeInfo {
        name: judge.name().to_string(),
        fingerprint: judge.fingerprint(),
        model: judge.model(),
    };
    Ok((runs, info))
}

async fn run_one<M: Method + 'static, J: Judge>(
    ctx: &RunCtx<'_>,
    name: &str,
    method: Arc<M>,
    judge: Arc<J>,
    models: BTreeMap<String, String>,
) -> Result<MethodRun> {
    debug_assert_eq!(method.name(), name);
    let fingerprint = method.fingerprint();
    let rows = evaluate::run_method(
        ctx.cfg,
        ctx.dialogues.clone(),
        ctx.corpus_fingerprint,
        method,
        judge,
        Some(ctx.director.clone()),
        ctx.on_progress,
    )
    .await?;
    Ok(MethodRun {
        name: name.to_string(),
        fingerprint,
        models,
        rows,
    })
}

/// `--dry-run`: the calls, tokens and cost of the run, judge (and live caller) included.
fn dry_run(
    cfg: &EvalConfig,
    dialogues: &[Dialogue],
    chosen: &[(String, Chosen)],
    llm: &LlmConfig,
    needs: &Needs,
    split: Split,
) -> Result<ExitCode> {
    let specs: Vec<Arc<MethodSpec>> = chosen
        .iter()
        .filter_map(|(_, c)| match c {
            Chosen::Llm(s) => Some(s.clone()),
            Chosen::Reference => None,
        })
        .collect();
    let d = if needs.any() {
        evaluate::llm::dry_run_llm(
            cfg,
            dialogues,
            &specs,
            chosen.len(),
            llm,
            needs.judge,
            needs.caller,
        )
    } else {
        evaluate::dry_run_offline(cfg, dialogues)
    };
    println!(
        "dry run: {} method(s) × {} task(s) ({} dialogues of the {split} split × {} trial(s)), {} assistant turns to score per method",
        chosen.len(),
        d.tasks,
        dialogues.len(),
        cfg.trials,
        d.turns
    );
    if !needs.any() {
        println!(
            "model calls: 0 (method {}, judge {}), tokens 0, cost 0: offline methods and the rules judge spend nothing",
            d.method_calls, d.judge_calls
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "model calls (at most): {} (methods {} on {}, judge {} on {}, caller {} on {}); tokens ≈ {}; cost ≈ {:.4} {}",
        d.method_calls + d.judge_calls + d.caller_calls,
        d.method_calls,
        if needs.methods {
            llm.assistant.model.as_str()
        } else {
            "-"
        },
        d.judge_calls,
        if needs.judge {
            llm.judge.model.as_str()
        } else {
            "rules"
        },
        d.caller_calls,
        if needs.caller {
            llm.caller.model.as_str()
        } else {
            "offline"
        },
        d.tokens,
        d.cost,
        llm.currency
    );
    if llm.prices.is_empty() {
        println!("(no [llm.prices] in the config: the cost is 0 until prices are given)");
    }
    Ok(ExitCode::SUCCESS)
}
