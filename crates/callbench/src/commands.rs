//! The subcommands.

use crate::cli::{Args, BackendKind, Command, Format};
use crate::config::{self, FileConfig};
use anyhow::{Context, Result, bail};
use callbench_model::{Dialogue, Plan};
use indicatif::{ProgressBar, ProgressStyle};
use roleplay::{Event, Library, SimBackend};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Generate {
            common,
            backend,
            base_url,
            model,
            concurrency,
            rpm,
            tpm,
            rows_per_shard,
            quiet,
            dry_run,
        } => {
            let mut cfg = config::load(&common)?;
            if let Some(c) = concurrency {
                if c <= 0 {
                    bail!("--concurrency must be at least 1, got {c}");
                }
                cfg.concurrency = c as usize;
            }
            if let Some(r) = rows_per_shard {
                if r <= 0 {
                    bail!("--rows-per-shard must be at least 1, got {r}");
                }
                cfg.rows_per_shard = r as u64;
            }
            let kind = match backend {
                Some(k) => k,
                None => match cfg.backend.as_str() {
                    "sim" => BackendKind::Sim,
                    "openai" => BackendKind::Openai,
                    other => bail!("config key `backend`: {other:?} is not one of sim, openai"),
                },
            };
            cfg.backend = match kind {
                BackendKind::Sim => "sim".into(),
                BackendKind::Openai => "openai".into(),
            };
            // `--dry-run` prices the run on the configured (or `--model`) LLM whatever the
            // backend: "what would this corpus cost on model X".
            if kind == BackendKind::Sim
                && !dry_run
                && (base_url.is_some() || model.is_some() || rpm.is_some() || tpm.is_some())
            {
                bail!(
                    "--base-url, --model, --rpm, --tpm and --dry-run apply to the LLM backend: add --backend openai"
                );
            }
            if let Some(url) = base_url {
                let first = cfg.llm.endpoints.first().cloned().unwrap_or_default();
                cfg.llm.endpoints = vec![llm_client::EndpointConfig {
                    base_url: url,
                    ..first
                }];
            }
            if let Some(m) = model {
                cfg.llm.caller.model = m.clone();
                cfg.llm.assistant.model = m.clone();
                cfg.llm.judge.model = m;
            }
            if let Some(r) = rpm {
                cfg.llm.endpoints.iter_mut().for_each(|e| e.rpm = r);
            }
            if let Some(t) = tpm {
                cfg.llm.endpoints.iter_mut().for_each(|e| e.tpm = t);
            }
            if dry_run {
                return dry_run_estimate(&cfg, kind);
            }
            generate(cfg, kind, quiet)
        }
        Command::Plan { common } => {
            let cfg = config::load(&common)?;
            let lib = load_library(&cfg)?;
            let plan = Plan::build(&lib.set, cfg.seed, cfg.count, &cfg.distribution)?;
            print_plan(&plan);
            Ok(ExitCode::SUCCESS)
        }
        Command::Scenarios { common } => {
            let cfg = config::load(&common)?;
            list_scenarios(&cfg)
        }
        Command::Init { dir } => {
            let n = roleplay::LibrarySources::embedded().write_out(&dir)?;
            println!(
                "wrote the built-in library ({n} files) to {}: edit it, then pass --scenarios {} \
                 --templates {}",
                dir.display(),
                dir.join("scenarios").display(),
                dir.join("templates").display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Validate { common } => {
            let cfg = config::load(&common)?;
            let lib = load_library(&cfg)?;
            validate_report(&lib);
            let findings = roleplay::lint::lint(&lib);
            for f in &findings {
                println!("{f}");
            }
            if findings.is_empty() {
                println!("ok");
                Ok(ExitCode::SUCCESS)
            } else {
                println!(
                    "{} coherence finding(s): the offline agents would misunderstand these lines",
                    findings.len()
                );
                Ok(ExitCode::from(1))
            }
        }
        Command::Check {
            common,
            input,
            report,
        } => {
            let cfg = config::load(&common)?;
            check(&cfg, &input, &report)
        }
        Command::Export {
            common,
            corpus,
            format,
        } => {
            let Format::Jsonl = format;
            export(&corpus, common.out.as_deref())
        }
        Command::Sample {
            common,
            corpus,
            rate,
            reject_rate,
            replace_reviewed,
            from_eval,
        } => {
            let cfg = config::load(&common)?;
            if let Some(run) = from_eval {
                if reject_rate.is_some() {
                    anyhow::bail!("--reject-rate applies to a corpus sample, not to --from-eval");
                }
                let seed = cfg.sample.seed.unwrap_or(common.seed.unwrap_or(cfg.seed));
                let summary = evaluate::review::sample_from_eval(
                    &run,
                    &corpus,
                    rate.unwrap_or(cfg.sample.rate),
                    seed,
                    replace_reviewed,
                )?;
                print_sample(&summary, &run);
                eprintln!(
                    "review with `callbench review --corpus {0}`, then `callbench audit --corpus {0}`",
                    run.display()
                );
                return Ok(ExitCode::SUCCESS);
            }
            let mut sc = cfg.sample.config(common.seed.unwrap_or(cfg.seed));
            if let Some(r) = rate {
                sc.rate = r;
            }
            if let Some(r) = reject_rate {
                sc.reject_rate = r;
            }
            sc.replace_reviewed = replace_reviewed;
            let summary = inspection::draw_sample(&corpus, &sc)?;
            print_sample(&summary, &corpus);
            Ok(ExitCode::SUCCESS)
        }
        Command::Review {
            common: _,
            corpus,
            addr,
            allow_remote,
            auditors,
            overlap,
        } => {
            if !auditors.is_empty() {
                let sample = inspection::read_sample(&corpus)?;
                let plan =
                    inspection::plan_assignments(&sample, &auditors, overlap.unwrap_or(0.2))?;
                let path = inspection::write_assignments(&corpus, &plan)?;
                println!(
                    "assignments: {} of {} sampled dialogues seen by two auditors; queues: {} ({})",
                    plan.doubled,
                    sample.ids.len(),
                    plan.auditors
                        .iter()
                        .map(|a| format!("{a} {}", plan.queues[a].len()))
                        .collect::<Vec<_>>()
                        .join(", "),
                    path.display()
                );
            }
            review(&corpus, addr, allow_remote)
        }
        Command::Evaluate {
            common,
            corpus,
            methods,
            mode,
            judge,
            trials,
            split,
            base_url,
            model,
            judge_base_url,
            judge_model,
            concurrency,
            rpm,
            tpm,
            dry_run,
            quiet,
        } => crate::evaluate::run(crate::evaluate::EvaluateArgs {
            common,
            corpus,
            methods,
            mode,
            judge,
            trials,
            split,
            llm: crate::evaluate::LlmFlags {
                base_url,
                model,
                judge_base_url,
                judge_model,
                rpm,
                tpm,
            },
            concurrency,
            dry_run,
            quiet,
        }),
        Command::Release {
            common,
            corpus,
            leave_out,
            rows_per_file,
        } => {
            let Some(out) = common.out.clone() else {
                anyhow::bail!("release needs --out REL (a new or empty folder)");
            };
            let mut rc = release::ReleaseConfig::new(&corpus, &out);
            rc.rows_per_file = rows_per_file;
            rc.leave_out = match leave_out {
                crate::cli::LeaveOutArg::Any => release::LeaveOut::AnyReject,
                crate::cli::LeaveOutArg::Majority => release::LeaveOut::MajorityReject,
            };
            let started = std::time::Instant::now();
            let summary = release::build(&rc)?;
            let s = &summary.stats;
            println!(
                "released {} dialogues ({}) into {} in {:.1} s; left out {} rejected by auditors",
                s.dialogues,
                release::card::splits_in_order(s),
                summary.out.display(),
                started.elapsed().as_secs_f64(),
                s.left_out.dialogues
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Audit { common: _, corpus } => {
            let report = inspection::audit(&corpus)?;
            println!("{}", inspection::to_markdown(&report));
            eprintln!(
                "wrote {} and {}",
                corpus.join("inspection/audit.md").display(),
                corpus.join("inspection/audit.html").display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn print_sample(summary: &inspection::SampleSummary, corpus: &std::path::Path) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<36} {:>10} {:>8} {:>9} {:>8}",
        "stratum", "population", "sampled", "rejects", "sampled"
    );
    for s in &summary.strata {
        let _ = writeln!(
            out,
            "{:<36} {:>10} {:>8} {:>9} {:>8}",
            s.stratum.to_string(),
            s.population,
            s.sampled,
            s.rejects_population,
            s.rejects_sampled
        );
    }
    let _ = writeln!(
        out,
        "sampled {} of {} dialogues (rate {}) and {} of {} rejects (rate {}), seed {}, into {}",
        summary.sampled,
        summary.population,
        summary.rate,
        summary.rejects_sampled,
        summary.rejects_population,
        summary.reject_rate,
        summary.seed,
        corpus.join("inspection").display()
    );
}

fn review(
    corpus: &std::path::Path,
    addr: std::net::SocketAddr,
    allow_remote: bool,
) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    let mut server = review::ReviewConfig {
        corpus: corpus.to_path_buf(),
        addr,
        allow_remote,
    }
    .build()?;
    let bound = {
        let _guard = rt.enter();
        server.bind()?
    };
    println!("review page: http://{bound}/  (Ctrl-C stops; every verdict is already on disk)");
    rt.block_on(server.serve(async {
        let _ = tokio::signal::ctrl_c().await;
    }))?;
    Ok(ExitCode::SUCCESS)
}

fn load_library(cfg: &FileConfig) -> Result<Library> {
    let lib = cfg.library_paths().load()?;
    let unnamed = cfg.distribution.unnamed_scenarios(&lib.set);
    if !unnamed.is_empty() {
        tracing::warn!(
            "[distribution] scenarios names only {}; these loaded scenarios get no dialogues: {} \
             (give each a weight, or 0 to leave it out on purpose)",
            cfg.distribution
                .scenarios
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", "),
            unnamed.join(", ")
        );
    }
    Ok(lib)
}

fn generate(cfg: FileConfig, kind: BackendKind, quiet: bool) -> Result<ExitCode> {
    let lib = Arc::new(load_library(&cfg)?);
    std::fs::create_dir_all(&cfg.out).with_context(|| {
        format!(
            "cannot create the output directory {} (choose a writable --out)",
            cfg.out.display()
        )
    })?;
    let findings = roleplay::lint::lint(&lib).len();
    if findings > 0 {
        tracing::warn!(
            "the library has {findings} coherence finding(s); run `callbench validate` to see them"
        );
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the runtime")?;
    // One client serves the LLM backend and the judge: one set of limits, one cache.
    let client = if kind == BackendKind::Openai || cfg.judge.enabled {
        let _guard = rt.enter();
        Some(Arc::new(llm_client::LlmClient::new(
            cfg.llm.clone(),
            &cfg.out,
        )?))
    } else {
        None
    };
    let judge = client.clone().filter(|_| cfg.judge.enabled);
    let sample = cfg
        .sample
        .after_generate
        .then(|| (cfg.out.clone(), cfg.sample.config(cfg.seed)));
    let manifest = match (kind, client) {
        (BackendKind::Openai, Some(client)) => run_generate(
            &rt,
            lib,
            Arc::new(roleplay::LlmBackend::new(client)),
            judge,
            cfg,
            quiet,
        )?,
        _ => run_generate(&rt, lib, Arc::new(SimBackend), judge, cfg, quiet)?,
    };
    // The runtime's worker threads would keep what they allocated and other threads freed
    // (mimalloc collects a page's remote frees only when its owner allocates again): shut them
    // down first, so that the sample starts from what the run left alive.
    drop(rt);
    if let Some((out, sample_cfg)) = sample {
        // A run that wrote nothing still reports what happened (below) instead of ending on
        // the sampler's complaint about an empty corpus.
        if manifest.totals.dialogues == 0 {
            println!("inspection sample skipped: the corpus holds no dialogues");
        } else {
            match inspection::draw_sample(&out, &sample_cfg) {
                Ok(s) => println!(
                    "inspection sample: {} dialogues and {} rejects in {}",
                    s.sampled,
                    s.rejects_sampled,
                    out.join("inspection").display()
                ),
                // A reviewed sample is never replaced behind the auditors' backs.
                Err(e @ inspection::InspectionError::SampleInUse { .. }) => {
                    eprintln!("inspection sample kept: {e}")
                }
                Err(e) => return Err(e.into()),
            }
        }
    }
    let (line, code) = outcome_line(&manifest);
    if let Some(why) = &manifest.report.stopped {
        println!("{why}");
    }
    println!("{line}");
    Ok(code)
}

/// `generate` exits 0 only when the corpus is complete; see README "Commands".
const EXIT_INCOMPLETE: u8 = 3;
/// The circuit breaker stopped the run: the same failure, attempt after attempt.
const EXIT_STOPPED: u8 = 4;

/// The last line of `generate` — "N of M written; K failed (top reasons…); R rejected (top
/// kinds…)" — and the exit code that goes with it.
fn outcome_line(m: &corpus::Manifest) -> (String, ExitCode) {
    fn top(counts: &BTreeMap<String, u64>) -> String {
        if counts.is_empty() {
            return String::new();
        }
        let mut v: Vec<(&String, &u64)> = counts.iter().collect();
        v.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let parts: Vec<String> = v.iter().take(3).map(|(k, n)| format!("{k}: {n}")).collect();
        let more = if v.len() > 3 { ", …" } else { "" };
        format!(" ({}{more})", parts.join(", "))
    }
    let t = &m.totals;
    // rejects/ also holds the first tries of dialogues regenerated into one that passed: say
    // so, so that its size does not contradict "0 rejected".
    let regenerated = match m.report.rejected_attempts {
        0 => String::new(),
        n => format!("; {n} rejected attempts in rejects/ (regenerated where a later one passed)"),
    };
    // The uncertain findings put to the judge, when it was asked any.
    let asked = m.report.second_opinions.get("asked").copied().unwrap_or(0);
    let second = if asked == 0 {
        String::new()
    } else {
        let n = |w: &str| m.report.second_opinions.get(w).copied().unwrap_or(0);
        format!(
            "; {asked} uncertain findings put to the judge ({} confirmed, {} denied, {} unanswered)",
            n("confirmed"),
            n("denied"),
            n("unanswered")
        )
    };
    let line = format!(
        "{} of {} written; {} failed{}; {} rejected{}{regenerated}{second}",
        t.dialogues,
        m.count,
        t.failed,
        top(&m.report.failure_reasons),
        t.rejected,
        top(&m.report.rejected_kinds)
    );
    let code = if m.report.stopped.is_some() {
        ExitCode::from(EXIT_STOPPED)
    } else if t.dialogues < m.count {
        ExitCode::from(EXIT_INCOMPLETE)
    } else {
        ExitCode::SUCCESS
    };
    (line, code)
}

fn run_generate<B: roleplay::Backend>(
    rt: &tokio::runtime::Runtime,
    lib: Arc<Library>,
    backend: Arc<B>,
    judge: Option<Arc<llm_client::LlmClient>>,
    cfg: FileConfig,
    quiet: bool,
) -> Result<corpus::Manifest> {
    let gen_cfg = cfg.generate();
    // The effective config goes into the manifest: it names the environment variables that
    // hold API keys, never the keys.
    let effective = serde_json::to_value(&cfg).context("serialising the effective config")?;
    let bar = if quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(gen_cfg.count)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} {bar:40} {pos}/{len} dialogues  {per_sec}  eta {eta}  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let b = bar.clone();
    let failures = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let on_event: Arc<dyn Fn(Event) + Send + Sync> = Arc::new(move |e| match e {
        Event::Grow {
            kept,
            added,
            regenerated,
            regenerate,
            new_scenarios,
        } => {
            // Said whether or not there is a progress bar: the run is about to spend.
            println!(
                "{}",
                grow_line(kept, added, regenerated, &regenerate, &new_scenarios)
            );
        }
        Event::Started {
            total,
            done,
            done_shards,
        } => {
            b.set_length(total);
            b.set_position(done);
            if done_shards > 0 {
                b.println(format!("resuming: {done_shards} shard(s) already written"));
            }
        }
        Event::Dialogue => b.inc(1),
        Event::Shard(_) => {}
    });
    // LLM runs: calls per second, tokens, retries in the progress line, twice a second.
    let ticker = backend.counters().map(|_| {
        let (bar, backend, stop) = (
            bar.clone(),
            backend.clone(),
            Arc::new(std::sync::atomic::AtomicBool::new(false)),
        );
        let stop2 = stop.clone();
        let started = std::time::Instant::now();
        let handle = std::thread::spawn(move || {
            while !stop2.load(std::sync::atomic::Ordering::Relaxed) {
                if let Some((calls, tokens, retries)) = backend.counters() {
                    let rate = calls as f64 / started.elapsed().as_secs_f64().max(1e-3);
                    bar.set_message(format!(
                        "{calls} calls ({rate:.1}/s), {tokens} tokens, {retries} retries"
                    ));
                }
                std::thread::sleep(std::time::Duration::from_millis(500));
            }
        });
        (stop, handle)
    });
    let _ = failures;
    let judge_usage = judge.clone();
    let result = rt.block_on(roleplay::generate_judged(
        lib, backend, judge, gen_cfg, effective, on_event,
    ));
    if let Some((stop, handle)) = ticker {
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let _ = handle.join();
    }
    let mut summary = result?;
    // With the sim backend the judge's client is the only one: its usage is the run's.
    if summary
        .manifest
        .usage
        .as_object()
        .is_none_or(|o| o.is_empty())
        && let Some(j) = &judge_usage
    {
        summary.manifest.usage = serde_json::to_value(j.usage()).unwrap_or_default();
        corpus::write_manifest(&cfg.out, &summary.manifest)?;
    }
    bar.finish_and_clear();
    print_summary(&summary, &cfg);
    Ok(summary.manifest)
}

/// What a run growing a corpus keeps, adds and makes again, in one line.
fn grow_line(
    kept: u64,
    added: u64,
    regenerated: u64,
    regenerate: &[String],
    new_scenarios: &[String],
) -> String {
    let mut line = format!("growing the corpus: keeping {kept} dialogues, adding {added}");
    if !new_scenarios.is_empty() {
        line += &format!(" (new scenarios: {})", new_scenarios.join(", "));
    }
    if regenerated > 0 || !regenerate.is_empty() {
        line += &format!(
            ", making {regenerated} again: the file of {} changed since the corpus was made",
            regenerate.join(", ")
        );
    }
    line
}

fn dry_run_estimate(cfg: &FileConfig, kind: BackendKind) -> Result<ExitCode> {
    let lib = Arc::new(load_library(cfg)?);
    let gen_cfg = cfg.generate();
    // What the run would do with --out: the same step the run itself would plan.
    let (backend, models) = match kind {
        BackendKind::Sim => ("sim", roleplay::Backend::models(&SimBackend)),
        BackendKind::Openai => ("openai", roleplay::backend::llm_models(&cfg.llm)),
    };
    let (fingerprint, shared) =
        roleplay::generate::run_fingerprint(&lib, backend, &models, &gen_cfg);
    let step = roleplay::grow::plan_step(&lib, &gen_cfg, &fingerprint, &shared)?;
    let mut out = std::io::stdout().lock();
    match step.kind {
        // A new corpus: the estimate's first line says how many dialogues.
        roleplay::grow::StepKind::Fresh => {}
        roleplay::grow::StepKind::Resume => {
            let _ = writeln!(
                out,
                "{} holds this run: resuming it (what is already written is kept; its {} dialogues are priced in full below, calls in the response cache cost nothing)",
                cfg.out.display(),
                step.plan.len()
            );
        }
        roleplay::grow::StepKind::Grow => {
            let _ = writeln!(
                out,
                "{}",
                grow_line(
                    step.kept,
                    step.added,
                    step.regenerated,
                    &step.header.regenerate,
                    &step.new_scenarios
                )
            );
            let _ = writeln!(
                out,
                "kept: {}; added: {}; regenerated: {}",
                step.kept, step.added, step.regenerated
            );
        }
    }
    drop(out);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .context("starting the runtime")?;
    let est = rt.block_on(roleplay::estimate::estimate_plan(
        lib, &step.plan, &gen_cfg, &cfg.llm, 400,
    ))?;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{} dialogues, estimated from {} played offline ({:.1} turns each)",
        est.dialogues, est.sampled, est.mean_turns
    );
    let _ = writeln!(
        out,
        "{:<10} {:<24} {:>12} {:>16} {:>16} {:>12}",
        "role", "model", "calls", "prompt tokens", "output tokens", "cost"
    );
    for (role, r) in &est.roles {
        let _ = writeln!(
            out,
            "{role:<10} {:<24} {:>12} {:>16} {:>16} {:>12.2}",
            r.model, r.calls, r.prompt_tokens, r.completion_tokens, r.cost
        );
    }
    let _ = writeln!(
        out,
        "total: {} calls, {} tokens, {:.2} {}",
        est.calls, est.tokens, est.cost, est.currency
    );
    if est.hours_at_rpm_limit > 0.0 {
        let _ = writeln!(
            out,
            "at the configured requests-per-minute limits: {:.1} hours",
            est.hours_at_rpm_limit
        );
    }
    if cfg.llm.prices.is_empty() {
        let _ = writeln!(out, "(no [llm.prices] configured: costs are 0)");
    }
    Ok(ExitCode::SUCCESS)
}

fn list_scenarios(cfg: &FileConfig) -> Result<ExitCode> {
    let sources = cfg.library_paths().sources()?;
    let lib = load_library(cfg)?;
    let allocations = Plan::allocate(&lib.set, cfg.count, &cfg.distribution)?;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<12} {:<16} {:>6} {:>10}  source",
        "scenario", "fingerprint", "cells", "dialogues"
    );
    for (name, file) in &lib.scenario_files {
        let cells: Vec<_> = allocations
            .iter()
            .filter(|a| &a.cell.scenario == name)
            .collect();
        let _ = writeln!(
            out,
            "{:<12} {:<16} {:>6} {:>10}  {}",
            name,
            file.fingerprint(),
            cells.len(),
            cells.iter().map(|a| a.count).sum::<u64>(),
            file.source
        );
    }
    let _ = writeln!(out, "\nshared files (every dialogue depends on them)");
    for f in sources
        .files()
        .filter(|f| f.rel.starts_with("scenarios/common/") || f.rel.starts_with("templates/"))
    {
        let _ = writeln!(out, "{:<36} {:<16}  {}", f.rel, f.fingerprint(), f.source);
    }
    let _ = writeln!(
        out,
        "\ndialogues at count {} (seed {}); `callbench plan` shows every cell",
        cfg.count, cfg.seed
    );
    Ok(ExitCode::SUCCESS)
}

fn print_plan(plan: &Plan) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<12} {:<9} {:<16} {:>8}",
        "scenario", "preset", "relation", "count"
    );
    let mut per_scenario: BTreeMap<&str, u64> = BTreeMap::new();
    for a in &plan.allocations {
        let _ = writeln!(
            out,
            "{:<12} {:<9} {:<16} {:>8}",
            a.cell.scenario,
            a.cell.preset_case.as_str(),
            a.cell.relation.as_str(),
            a.count
        );
        *per_scenario.entry(&a.cell.scenario).or_default() += a.count;
    }
    let _ = writeln!(out);
    for (s, n) in per_scenario {
        let _ = writeln!(out, "{s:<12} {n:>8}");
    }
    let _ = writeln!(
        out,
        "{:<12} {:>8}  dialogues, seed {}",
        "total",
        plan.len(),
        plan.seed
    );
}

fn print_summary(summary: &roleplay::Summary, cfg: &FileConfig) {
    let m = &summary.manifest;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{:<12} {:<9} {:<16} {:>8} {:>8} {:>8}",
        "scenario", "preset", "relation", "planned", "written", "rejected"
    );
    for c in &m.cells {
        let _ = writeln!(
            out,
            "{:<12} {:<9} {:<16} {:>8} {:>8} {:>8}",
            c.scenario,
            c.preset_case.as_str(),
            c.relation.as_str(),
            c.planned,
            c.written,
            c.rejected
        );
    }
    let _ = writeln!(out);
    let t = &m.totals;
    let _ = writeln!(
        out,
        "{} dialogues ({} generated now), {} turns ({:.1} per dialogue), {} rejected, {} failed, {} shards in {}",
        t.dialogues,
        summary.generated_now,
        t.turns,
        if t.dialogues > 0 {
            t.turns as f64 / t.dialogues as f64
        } else {
            0.0
        },
        t.rejected,
        t.failed,
        m.shards.len(),
        cfg.out.display()
    );
    if !m.findings.is_empty() {
        let findings: Vec<String> = m.findings.iter().map(|(k, v)| format!("{k} {v}")).collect();
        let _ = writeln!(out, "findings: {}", findings.join(", "));
    }
    let rate = summary.generated_now as f64 / summary.seconds.max(1e-9);
    let _ = writeln!(
        out,
        "time: {:.2} s ({rate:.0} dialogues/s)",
        summary.seconds
    );
    print_usage(&mut out, &m.usage);
    if let Some(all) = &m.report.usage_all_runs {
        let n = |k: &str| {
            all.get("roles").and_then(|r| r.as_object()).map_or(0, |r| {
                r.values().filter_map(|u| u.get(k)?.as_u64()).sum::<u64>()
            })
        };
        let cost = all.get("cost").and_then(|v| v.as_f64()).unwrap_or(0.0);
        let cur = all.get("currency").and_then(|v| v.as_str()).unwrap_or("");
        let _ = writeln!(
            out,
            "all runs of this corpus: {} requests, {} prompt and {} output tokens, {cost:.4} {cur}",
            n("requests"),
            n("prompt_tokens"),
            n("completion_tokens")
        );
    }
}

fn print_usage(out: &mut impl Write, usage: &serde_json::Value) {
    let Some(roles) = usage.get("roles").and_then(|r| r.as_object()) else {
        return;
    };
    let _ = writeln!(
        out,
        "{:<10} {:<20} {:>9} {:>9} {:>12} {:>12} {:>8} {:>8} {:>10}",
        "role",
        "model",
        "requests",
        "cached",
        "prompt tok",
        "output tok",
        "retries",
        "failed",
        "cost"
    );
    for (role, u) in roles {
        let n = |k: &str| u.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
        let _ = writeln!(
            out,
            "{role:<10} {:<20} {:>9} {:>9} {:>12} {:>12} {:>8} {:>8} {:>10.4}",
            u.get("model").and_then(|v| v.as_str()).unwrap_or(""),
            n("requests"),
            n("cache_hits"),
            n("prompt_tokens"),
            n("completion_tokens"),
            n("retries"),
            n("failures"),
            u.get("cost").and_then(|v| v.as_f64()).unwrap_or(0.0)
        );
    }
    let cost = usage.get("cost").and_then(|v| v.as_f64()).unwrap_or(0.0);
    let cur = usage.get("currency").and_then(|v| v.as_str()).unwrap_or("");
    let _ = writeln!(out, "cost of this run: {cost:.4} {cur}");
}

fn validate_report(lib: &Library) {
    let mut out = std::io::stdout().lock();
    for s in &lib.set.scenarios {
        let f = &s.file;
        let _ = writeln!(
            out,
            "{:<12} {:>3} roles {:>3} goals {:>3} events {:>3} probes {:>3} regular presets  ({})",
            s.name(),
            f.roles.len(),
            f.goals.len(),
            f.events.len(),
            f.probes.len(),
            f.regular_presets.len(),
            s.source
        );
    }
    let _ = writeln!(
        out,
        "library: {} shared emergent presets, {} shared probes, {} templates compiled, digest {}",
        lib.set.emergent_presets.len(),
        lib.set.probes.len(),
        lib.book.template_count(),
        lib.set.digest
    );
}

fn check(cfg: &FileConfig, input: &std::path::Path, report: &std::path::Path) -> Result<ExitCode> {
    // The library (with --scenarios laid over it): a scenario file may contribute concepts
    // that its dialogues are read with.
    let checker = load_library(cfg)?.checker(&cfg.check);
    let reader = corpus::read_jsonl(input)?;
    let mut writer = corpus::JsonlWriter::create(report)?;
    let (mut total, mut passed, mut unreadable) = (0u64, 0u64, 0u64);
    let mut kinds: BTreeMap<String, u64> = BTreeMap::new();
    for (line, item) in reader {
        total += 1;
        match item {
            Ok(d) => {
                let qc = checker.check(&d);
                if qc.passed {
                    passed += 1;
                }
                for v in &qc.violations {
                    *kinds.entry(v.kind.clone()).or_default() += 1;
                }
                writer.write(&serde_json::json!({"id": d.id, "passed": qc.passed, "violations": qc.violations}))?;
            }
            Err(message) => {
                unreadable += 1;
                eprintln!("{}:{line}: {message}", input.display());
                writer
                    .write(&serde_json::json!({"line": line, "passed": false, "error": message}))?;
            }
        }
    }
    writer.finish()?;
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "{total} dialogues: {passed} passed, {} rejected, {unreadable} unreadable",
        total - passed - unreadable
    );
    for (k, n) in kinds {
        let _ = writeln!(out, "  {k:<22} {n:>8}");
    }
    Ok(if unreadable > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn export(corpus_dir: &std::path::Path, out: Option<&std::path::Path>) -> Result<ExitCode> {
    let manifest = corpus::read_manifest(corpus_dir)?;
    let write_all = |sink: &mut dyn FnMut(&Dialogue) -> Result<()>| -> Result<u64> {
        let mut n = 0;
        for s in &manifest.shards {
            for d in corpus::read_shard(&corpus_dir.join(&s.file))? {
                sink(&d)?;
                n += 1;
            }
        }
        Ok(n)
    };
    match out {
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            let path = dir.join("dialogues.jsonl");
            let mut w = corpus::JsonlWriter::create(&path)?;
            let n = write_all(&mut |d| Ok(w.write(d)?))?;
            w.finish()?;
            eprintln!("wrote {n} dialogues to {}", path.display());
        }
        None => {
            let stdout = std::io::stdout();
            let mut lock = std::io::BufWriter::new(stdout.lock());
            write_all(&mut |d| {
                serde_json::to_writer(&mut lock, d)?;
                lock.write_all(b"\n")?;
                Ok(())
            })?;
            lock.flush()?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    /// The last line says how many uncertain findings were put to the judge, and how it answered
    /// — only when it was asked any, so that a run without the judge prints what it always did.
    #[test]
    fn the_last_line_counts_the_judges_second_opinions() {
        let mut m: corpus::Manifest = serde_json::from_value(serde_json::json!({
            "format_version": 1, "tool_version": "0", "created_at": "", "seed": 1, "count": 10,
            "fingerprint": "", "cells": [], "shards": [], "library_digest": "",
            "totals": {"dialogues": 10, "turns": 80, "rejected": 0, "failed": 0}
        }))
        .unwrap();
        let (line, _) = super::outcome_line(&m);
        assert_eq!(line, "10 of 10 written; 0 failed; 0 rejected");
        m.report.second_opinions = [
            ("asked", 5),
            ("confirmed", 2),
            ("denied", 2),
            ("unanswered", 1),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let (line, _) = super::outcome_line(&m);
        assert_eq!(
            line,
            "10 of 10 written; 0 failed; 0 rejected; 5 uncertain findings put to the judge \
             (2 confirmed, 2 denied, 1 unanswered)"
        );
    }
}
