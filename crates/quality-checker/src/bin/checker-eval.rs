//! `checker-eval`: measures the checker (the rules and the learned classifiers).
//!
//! ```text
//! checker-eval DIR [--no-fail] [--verbose] [--kind KIND] [--only privacy,decision,…]
//!     per-kind TP/FP/FN, precision, recall on DIR/*.jsonl (labelled dialogues); exits 1 when
//!     the targets are missed (safety recall >= 0.95, clean rejected <= 5%, every kind's
//!     recall >= 0.8) unless --no-fail
//! checker-eval --corpus-jsonl FILE [--examples N] [--kind KIND]
//!     pass rate and findings per kind, with examples, on an exported corpus
//! checker-eval --bench FILE [--n N] [--only privacy,decision,…]
//!     checks N dialogues (parse excluded) on one thread and prints dialogues per second
//!
//! --only: the detector families to run (privacy, decision, factuality, embodiment,
//! repetition, closing, meta, preset, learned); all of them by default. Without `learned`:
//! the rules alone.
//! ```

use callbench_model::Dialogue;

// The callbench binary's allocator, so `--bench` measures what the pipeline runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use quality_checker::CheckConfig;
use quality_checker::eval::{self, Labelled, Targets};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// `println!` that ends the run quietly when stdout is closed (`checker-eval … | head`): a
/// reader that stops early is no error, and no reason to panic.
macro_rules! out {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($t)*).is_err() {
            std::process::exit(0);
        }
    }};
}

enum Mode {
    Labelled(PathBuf),
    Corpus(PathBuf),
    Bench(PathBuf),
}

struct Args {
    mode: Mode,
    no_fail: bool,
    verbose: bool,
    kind: Option<String>,
    examples: usize,
    n: usize,
    ids: Vec<String>,
    report: Option<PathBuf>,
    only: Option<String>,
}

const USAGE: &str = "usage: checker-eval DIR [--no-fail] [--verbose] [--kind KIND] [--only privacy,decision,…]\n       checker-eval --corpus-jsonl FILE [--examples N] [--kind KIND] [--ids ID,ID] [--report R.jsonl]\n       checker-eval --bench FILE [--n N] [--only privacy,decision,…]";

fn parse_args() -> Result<Args, String> {
    let mut mode = None;
    let mut a = Args {
        mode: Mode::Labelled(PathBuf::new()),
        no_fail: false,
        verbose: false,
        kind: None,
        examples: 3,
        n: 100_000,
        ids: Vec::new(),
        report: None,
        only: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let mut value = |name: &str| it.next().ok_or(format!("{name} needs a value"));
        match arg.as_str() {
            "--no-fail" => a.no_fail = true,
            "--verbose" | "-v" => a.verbose = true,
            "--kind" => a.kind = Some(value("--kind")?),
            "--examples" => {
                a.examples = value("--examples")?
                    .parse()
                    .map_err(|e| format!("--examples: {e}"))?
            }
            "--only" => a.only = Some(value("--only")?),
            "--report" => a.report = Some(value("--report")?.into()),
            "--ids" => a.ids = value("--ids")?.split(',').map(str::to_string).collect(),
            "--n" => a.n = value("--n")?.parse().map_err(|e| format!("--n: {e}"))?,
            "--corpus-jsonl" => mode = Some(Mode::Corpus(value("--corpus-jsonl")?.into())),
            "--bench" => mode = Some(Mode::Bench(value("--bench")?.into())),
            "--help" | "-h" => return Err(USAGE.into()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}\n{USAGE}")),
            s => mode = Some(Mode::Labelled(s.into())),
        }
    }
    a.mode = mode.ok_or(USAGE.to_string())?;
    Ok(a)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let r = match &args.mode {
        Mode::Labelled(dir) => labelled(dir, &args),
        Mode::Corpus(file) => corpus(file, &args),
        Mode::Bench(file) => bench(file, &args),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

fn read_labelled(dir: &Path) -> Result<Vec<Labelled>, String> {
    let (items, warnings) = eval::read_set(dir)?;
    for w in &warnings {
        eprintln!("warning: {w}");
    }
    Ok(items)
}

/// The default config, with only the detector families `--only` names switched on.
fn config(args: &Args) -> CheckConfig {
    let mut cfg = CheckConfig::default();
    if let Some(only) = &args.only {
        let d = &mut cfg.detectors;
        let want = |name: &str| only.split(',').any(|o| o == name);
        d.privacy = want("privacy");
        d.decision = want("decision");
        d.factuality = want("factuality");
        d.embodiment = want("embodiment");
        d.repetition = want("repetition");
        d.closing = want("closing");
        d.meta = want("meta");
        d.preset = want("preset");
        d.proxy = want("proxy");
        d.learned = want("learned");
    }
    cfg
}

fn labelled(dir: &Path, args: &Args) -> Result<ExitCode, String> {
    let items = read_labelled(dir)?;
    let checker = config(args).build();
    let report = eval::evaluate(&checker, &items);
    if args.verbose || args.kind.is_some() {
        for m in &report.mismatches {
            if args
                .kind
                .as_ref()
                .is_some_and(|k| !m.kind.starts_with(k.as_str()))
            {
                continue;
            }
            out!(
                "{} {} {} {}@{}\n    turn: {}\n    {}\n    note: {}",
                m.source,
                m.id,
                m.what,
                m.kind,
                m.turn,
                m.text,
                m.detail,
                m.note
            );
        }
        out!();
    }
    print!("{}", report.table());
    // The figures above count every uncertain finding as found and none as rejecting: a second
    // opinion right every time. What the rules do alone, and with every uncertain finding
    // rejecting, bound what a real judge can do.
    let alone = eval::evaluate_upheld(&checker, &items, |_, _| false);
    let all = eval::evaluate_upheld(&checker, &items, |_, _| true);
    out!(
        "rules alone (uncertain findings reject nothing, count for nothing): {}",
        alone.summary(&Targets::default())
    );
    out!(
        "every uncertain finding upheld (uncertain = \"reject\"): {}",
        all.summary(&Targets::default())
    );
    let missed = report.missed(&Targets::default());
    if missed.is_empty() {
        out!("targets: met");
        Ok(ExitCode::SUCCESS)
    } else {
        out!("targets missed: {}", missed.join("; "));
        Ok(if args.no_fail {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    }
}

fn read_dialogues(file: &Path) -> Result<Vec<Dialogue>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", file.display(), i + 1))
        })
        .collect()
}

fn corpus(file: &Path, args: &Args) -> Result<ExitCode, String> {
    let mut ds = read_dialogues(file)?;
    let checker = config(args).build();
    if !args.ids.is_empty() {
        ds.retain(|d| args.ids.contains(&d.id));
        for d in &ds {
            let qc = checker.check(d);
            out!(
                "== {} {} {} {}",
                d.id,
                d.scenario,
                d.preset_case,
                d.relation
            );
            for p in &d.owner.presets {
                out!("   preset {}: {} => {}", p.id, p.trigger, p.response);
            }
            out!("   private: {:?}", d.owner.private);
            for (i, t) in d.turns.iter().enumerate() {
                out!("   {i} {}: {}", t.speaker, t.text);
                for v in qc.violations.iter().filter(|v| v.turn == i) {
                    out!("      !! {} \"{}\" {}", v.kind, v.evidence, v.message);
                }
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let mut report = String::new();
    let mut passed = 0;
    let mut per_kind: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
    for d in &ds {
        let qc = checker.check(d);
        if args.report.is_some() {
            let line =
                serde_json::json!({"id": d.id, "passed": qc.passed, "violations": qc.violations});
            report.push_str(&line.to_string());
            report.push('\n');
        }
        passed += usize::from(qc.passed);
        let mut kinds_here: Vec<&str> = Vec::new();
        for v in &qc.violations {
            if kinds_here.contains(&v.kind.as_str()) {
                continue;
            }
            kinds_here.push(&v.kind);
            let e = per_kind.entry(v.kind.clone()).or_default();
            e.0 += 1;
            let show = args.kind.as_ref().map_or(args.examples, |k| {
                if v.kind.starts_with(k.as_str()) {
                    args.examples.max(20)
                } else {
                    0
                }
            });
            if e.1.len() < show {
                let turn = d.turns.get(v.turn).map_or("", |t| t.text.as_str());
                let prev = v
                    .turn
                    .checked_sub(1)
                    .and_then(|i| d.turns.get(i))
                    .map_or("", |t| t.text.as_str());
                e.1.push(format!(
                    "{} turn {} [{} {}]: \"{}\" — {}\n        before: {}\n        turn:   {}",
                    d.id, v.turn, d.preset_case, d.relation, v.evidence, v.message, prev, turn
                ));
            }
        }
    }
    if let Some(path) = &args.report {
        std::fs::write(path, report).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let n = ds.len().max(1);
    out!(
        "{} dialogues, {} passed ({:.2}%)",
        ds.len(),
        passed,
        100.0 * passed as f64 / n as f64
    );
    for (k, (count, ex)) in &per_kind {
        out!(
            "{k}: {count} dialogues ({:.2}%)",
            100.0 * *count as f64 / n as f64
        );
        for e in ex {
            out!("    {e}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bench(file: &Path, args: &Args) -> Result<ExitCode, String> {
    let ds = read_dialogues(file)?;
    if ds.is_empty() {
        return Err(format!("{}: no dialogues", file.display()));
    }
    let cfg = config(args);
    let checker = cfg.build();
    // Warm up (word lists compile on first use).
    for d in ds.iter().take(100) {
        std::hint::black_box(checker.check(d));
    }
    let n = args.n;
    if args.only.as_deref() == Some("ctx") {
        let start = Instant::now();
        for i in 0..n {
            std::hint::black_box(quality_checker::ctx::Ctx::new(&ds[i % ds.len()], &cfg));
        }
        let secs = start.elapsed().as_secs_f64();
        out!("context only: {:.1} µs each", 1e6 * secs / n as f64);
        return Ok(ExitCode::SUCCESS);
    }
    let start = Instant::now();
    let cpu0 = thread_cpu_ns();
    let mut rejected = 0usize;
    for i in 0..n {
        let qc = checker.check(&ds[i % ds.len()]);
        rejected += usize::from(!qc.passed);
    }
    let secs = start.elapsed().as_secs_f64();
    out!(
        "{n} dialogues in {secs:.3} s wall on one thread: {:.0} dialogues/s ({:.1} µs each; {rejected} rejected)",
        n as f64 / secs,
        1e6 * secs / n as f64
    );
    // CPU time of this thread: the per-core figure, whatever else the machine runs.
    if let (Some(a), Some(b)) = (cpu0, thread_cpu_ns()) {
        let cpu = (b - a) as f64 / 1e9;
        out!(
            "{:.3} s of CPU time: {:.0} dialogues/s per core ({:.1} µs each)",
            cpu,
            n as f64 / cpu,
            1e6 * cpu / n as f64
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Nanoseconds this thread has run on a CPU (Linux `/proc/thread-self/schedstat`), if known.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}
