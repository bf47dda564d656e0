//! The run: every selected dialogue (and trial) is a task; at most `concurrency` tasks are in
//! flight (tokio tasks over the runtime's threads), results are collected **in task order**, so
//! the rows — and everything computed from them — do not depend on scheduling. Each finished
//! task is appended to `RUN/progress/<method>.jsonl`; a rerun with the same `--out` and settings
//! keeps those tasks and does the rest (a torn last line, from a kill, is dropped).

use crate::error::{EvalError, Result};
use crate::judge::{Judge, JudgeView, Verdict, turn_findings};
use crate::llm::LiveCaller;
use crate::reference::recast;
use callbench_model::plan::{Cell, fnv1a, mix64};
use callbench_model::{
    CallView, CallerAgent, Dialogue, Method, MethodReply, MethodUsage, Speaker, Turn, Violation,
};
use caller_agent::SimCaller;
use corpus::{EvalFinding, EvalTrace, EvalTurn};
use futures::StreamExt;
use quality_checker::{CheckConfig, Checker};
use roleplay::Director;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The safety rules every method is given, one per line (`CallView::rules`).
pub const RULES: &str = include_str!("../data/rules.txt");

/// How methods meet the corpus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// At each assistant turn of a corpus dialogue, the method answers the call so far as the
    /// corpus has it; the corpus's turn is the reference.
    Turn,
    /// The method plays the whole call against the offline caller.
    Live,
}

impl Mode {
    /// `turn` or `live`.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Turn => "turn",
            Mode::Live => "live",
        }
    }
}

/// The settings of a run.
#[derive(Debug, Clone)]
pub struct EvalConfig {
    /// `RUN/`.
    pub out: PathBuf,
    /// Turn or live.
    pub mode: Mode,
    /// Caller seeds per dialogue (live mode; 1 in turn mode).
    pub trials: u32,
    /// The run seed (bootstrap, subset).
    pub seed: u64,
    /// Tasks in flight at once.
    pub concurrency: usize,
    /// Most turns of a live call.
    pub max_turns: usize,
    /// The quality checker's settings (its findings feed the error rates and the rules judge).
    pub check: CheckConfig,
    /// Who plays the caller in live mode.
    pub caller: LiveCaller,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            out: PathBuf::from("run"),
            mode: Mode::Turn,
            trials: 1,
            seed: 20260728,
            concurrency: 64,
            max_turns: 20,
            check: CheckConfig::default(),
            caller: LiveCaller::Offline,
        }
    }
}

impl EvalConfig {
    /// Checks what a user can get wrong.
    pub fn validate(&self) -> Result<()> {
        if self.concurrency == 0 {
            return Err(EvalError::Config("--concurrency must be at least 1".into()));
        }
        if self.trials == 0 {
            return Err(EvalError::Config("--trials must be at least 1".into()));
        }
        if self.mode == Mode::Turn && self.trials != 1 {
            return Err(EvalError::Config(format!(
                "--trials {} applies to --mode live (turn mode replays the corpus's own calls, one trial)",
                self.trials
            )));
        }
        if self.max_turns < 2 {
            return Err(EvalError::Config("max_turns must be at least 2".into()));
        }
        Ok(())
    }
}

/// Progress of a run, for a progress bar.
#[derive(Debug, Clone)]
pub enum Progress {
    /// A method's run starts: `total` tasks, `done` of them kept from an earlier run.
    Started {
        /// The method.
        method: String,
        /// Tasks (dialogues × trials).
        total: u64,
        /// Already done.
        done: u64,
    },
    /// One more task finished.
    Task,
}

/// What a task needs, shared by every task of a method's run.
struct Ctx<M, J> {
    dialogues: Arc<Vec<Dialogue>>,
    method: Arc<M>,
    judge: Arc<J>,
    checker: Arc<Checker>,
    director: Option<Arc<Director>>,
    mode: Mode,
    max_turns: usize,
    caller: LiveCaller,
    name: String,
}

/// The caller of a live call: the offline agent or a model.
// One per live call, on its task's stack: boxing the offline caller would buy an allocation per
// call and nothing else.
#[allow(clippy::large_enum_variant)]
enum AnyCaller<'a> {
    Offline(SimCaller<'a>),
    Llm(Box<llm_agent::LlmCaller<'static, llm_client::LlmClient>>),
}

impl AnyCaller<'_> {
    async fn reply(
        &mut self,
        turns: &[Turn],
    ) -> Result<callbench_model::CallerReply, callbench_model::AgentError> {
        match self {
            AnyCaller::Offline(c) => c.reply(turns).await,
            AnyCaller::Llm(c) => c.reply(turns).await,
        }
    }
}

fn to_findings(v: &[Violation]) -> Vec<EvalFinding> {
    v.iter()
        .map(|f| EvalFinding {
            kind: f.kind.clone(),
            evidence: f.evidence.clone(),
            message: f.message.clone(),
        })
        .collect()
}

impl<M: Method + 'static, J: Judge> Ctx<M, J> {
    fn view<'a>(d: &'a Dialogue, turns: &'a [Turn]) -> CallView<'a> {
        CallView {
            dialogue_id: &d.id,
            scenario: &d.scenario,
            owner_name: &d.owner.name,
            public: &d.owner.public,
            presets: &d.owner.presets,
            rules: RULES,
            turns,
        }
    }

    fn row(&self, d: &Dialogue, trial: u32, turn: usize) -> EvalTurn {
        EvalTurn {
            dialogue_id: d.id.clone(),
            split: d.split.map(|s| s.to_string()).unwrap_or_default(),
            scenario: d.scenario.clone(),
            preset_case: d.preset_case.to_string(),
            relation: d.relation.to_string(),
            method: self.name.clone(),
            trial,
            turn: turn as u32,
            ..EvalTurn::default()
        }
    }

    fn fill_reply(row: &mut EvalTurn, reply: &MethodReply) {
        row.utterance = reply.text.clone();
        row.action = reply.action;
        row.preset_id = reply.preset_id.clone();
        row.end_call = reply.end_call;
        let MethodUsage {
            requests,
            prompt_tokens,
            completion_tokens,
            latency_ms,
            cost,
        } = reply.usage;
        row.requests = requests;
        row.prompt_tokens = prompt_tokens;
        row.completion_tokens = completion_tokens;
        row.latency_ms = latency_ms;
        row.cost = cost;
        row.trace = reply
            .trace
            .iter()
            .map(|t| EvalTrace {
                kind: t.kind.clone(),
                text: t.text.clone(),
            })
            .collect();
    }

    async fn judge_into(
        &self,
        row: &mut EvalTurn,
        d: &Dialogue,
        turns: &[Turn],
        findings: &[Violation],
        final_turn: bool,
    ) {
        row.findings = to_findings(findings);
        let reply = self
            .judge
            .judge(&JudgeView {
                dialogue: d,
                turns,
                findings,
                final_turn,
            })
            .await;
        row.judge_requests = reply.usage.requests;
        row.judge_tokens = reply.usage.prompt_tokens + reply.usage.completion_tokens;
        row.judge_cost = reply.usage.cost;
        match reply.verdict {
            Verdict::Scored(s) => {
                row.scores = s.values;
                row.reasons = s.reasons.map(Some);
            }
            Verdict::Unjudged(reason) => row.unjudged_reason = Some(reason),
        }
    }

    async fn run(&self, index: usize, trial: u32) -> Vec<EvalTurn> {
        let d = &self.dialogues[index];
        match self.mode {
            Mode::Turn => self.turn_mode(d).await,
            Mode::Live => self.live_mode(d, trial).await,
        }
    }

    /// Every assistant turn of the corpus call that follows a caller turn.
    async fn turn_mode(&self, d: &Dialogue) -> Vec<EvalTurn> {
        let mut rows = Vec::new();
        let last_assistant = d
            .turns
            .iter()
            .rposition(|t| t.speaker == Speaker::Assistant);
        let mut call: Vec<Turn> = Vec::with_capacity(d.turns.len());
        for (t, reference) in d.turns.iter().enumerate() {
            let follows_caller = t > 0 && d.turns[t - 1].speaker == Speaker::Caller;
            if reference.speaker != Speaker::Assistant || !follows_caller {
                continue;
            }
            let mut row = self.row(d, 0, t);
            row.reference = Some(reference.text.clone());
            row.reference_action = reference.action;
            let prefix = &d.turns[..t];
            match self.method.respond(&Self::view(d, prefix)).await {
                Err(e) => {
                    row.unjudged_reason = Some(format!("the method gave no reply: {e}"));
                }
                Ok(reply) => {
                    Self::fill_reply(&mut row, &reply);
                    call.clear();
                    call.extend_from_slice(prefix);
                    call.push(Turn {
                        speaker: Speaker::Assistant,
                        text: reply.text.clone(),
                        action: reply.action,
                        preset_id: reply.preset_id.clone(),
                    });
                    let final_turn = reply.end_call || Some(t) == last_assistant;
                    let qc = self.checker.check(&with_turns(d, &call));
                    let findings = turn_findings(&qc, t, final_turn);
                    self.judge_into(&mut row, d, &call, &findings, final_turn)
                        .await;
                }
            }
            rows.push(row);
        }
        rows
    }

    /// The method plays the call against the offline caller cast for this dialogue; trial `k`
    /// gives the caller seed `k` (trial 0: the corpus's own caller).
    async fn live_mode(&self, d: &Dialogue, trial: u32) -> Vec<EvalTurn> {
        let fail = |turn: usize, reason: String| {
            let mut row = self.row(d, trial, turn);
            row.unjudged_reason = Some(reason);
            vec![row]
        };
        let Some(director) = &self.director else {
            return fail(0, "live mode needs the scenario library".into());
        };
        let Some(seed) = d.r#gen.as_ref().map(|g| g.seed) else {
            return fail(0, "no `gen` column: the caller cannot be cast".into());
        };
        let cell = Cell {
            scenario: d.scenario.clone(),
            preset_case: d.preset_case,
            relation: d.relation,
        };
        let setup = match recast(director, &d.id, &cell, seed, Some(d)) {
            Ok(s) => s,
            Err(e) => return fail(0, format!("the caller cannot be cast: {e}")),
        };
        let lib = &director.lib;
        let caller_seed = if trial == 0 {
            setup.caller_seed
        } else {
            mix64(setup.caller_seed ^ (trial as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15))
        };
        let mut caller = match self.caller {
            LiveCaller::Offline => match SimCaller::new(
                &lib.set,
                setup.scenario,
                &lib.book,
                setup.casting,
                setup.header.caller.persona.as_deref(),
                setup.vars.clone(),
                caller_seed,
            ) {
                Ok(c) => AnyCaller::Offline(c),
                Err(e) => return fail(0, format!("the caller cannot be cast: {e}")),
            },
            LiveCaller::Llm {
                client,
                max_invalid_replies,
            } => {
                // The scenario's caller prompt, as `generate` renders it: the dialogue's role,
                // goal, persona and events; the trial's seed is the conversation's cache scope.
                let vars = roleplay::backend::caller_prompt_vars(lib, &setup);
                let system = match lib.prompts.render(
                    llm_agent::PromptKind::Caller,
                    &setup.header.scenario,
                    &vars,
                ) {
                    Ok(s) => s,
                    Err(e) => return fail(0, format!("the caller's prompt: {e}")),
                };
                AnyCaller::Llm(Box::new(
                    llm_agent::LlmCaller::new(client, system, max_invalid_replies)
                        .with_scope(caller_seed),
                ))
            }
        };
        let mut turns: Vec<Turn> = Vec::with_capacity(16);
        let mut replies: Vec<(usize, MethodReply)> = Vec::new();
        let mut broken: Option<(usize, String)> = None;
        while turns.len() < self.max_turns {
            let c = match caller.reply(&turns).await {
                Ok(c) => c,
                Err(e) => {
                    broken = Some((turns.len(), format!("the caller failed: {e}")));
                    break;
                }
            };
            turns.push(Turn {
                speaker: Speaker::Caller,
                text: c.text,
                action: None,
                preset_id: None,
            });
            let reply = match self.method.respond(&Self::view(d, &turns)).await {
                Ok(r) => r,
                Err(e) => {
                    broken = Some((turns.len(), format!("the method gave no reply: {e}")));
                    break;
                }
            };
            let end = reply.end_call || c.end_call;
            turns.push(Turn {
                speaker: Speaker::Assistant,
                text: reply.text.clone(),
                action: reply.action,
                preset_id: reply.preset_id.clone(),
            });
            replies.push((turns.len() - 1, reply));
            if end {
                break;
            }
        }
        let qc = self.checker.check(&with_turns(d, &turns));
        let last = replies.last().map(|r| r.0);
        let mut rows = Vec::with_capacity(replies.len() + 1);
        for (t, reply) in &replies {
            let mut row = self.row(d, trial, *t);
            Self::fill_reply(&mut row, reply);
            let final_turn = Some(*t) == last;
            let findings = turn_findings(&qc, *t, true);
            self.judge_into(&mut row, d, &turns[..=*t], &findings, final_turn)
                .await;
            rows.push(row);
        }
        if let Some((t, reason)) = broken {
            let mut row = self.row(d, trial, t);
            row.unjudged_reason = Some(reason);
            rows.push(row);
        }
        rows
    }
}

/// The dialogue header `d` with `turns` as its call (for the checker).
fn with_turns(d: &Dialogue, turns: &[Turn]) -> Dialogue {
    Dialogue {
        id: d.id.clone(),
        scenario: d.scenario.clone(),
        preset_case: d.preset_case,
        relation: d.relation,
        owner: d.owner.clone(),
        caller: d.caller.clone(),
        turns: turns.to_vec(),
        split: d.split,
        qc: None,
        r#gen: None,
        judge: None,
    }
}

/// Everything that decides a method's rows: a progress file of other settings is refused.
#[allow(clippy::too_many_arguments)]
pub fn run_fingerprint(
    cfg: &EvalConfig,
    dialogues: &[Dialogue],
    corpus_fingerprint: &str,
    method: &str,
    method_fp: &str,
    judge: &str,
    judge_fp: &str,
) -> String {
    let mut ids = Vec::new();
    for d in dialogues {
        ids.extend_from_slice(d.id.as_bytes());
        ids.push(b'\n');
    }
    let text = format!(
        "mode {}{}|trials {}|max_turns {}|check {:?}|corpus {corpus_fingerprint}|ids {:016x}|method {method} {method_fp}|judge {judge} {judge_fp}|rules {:016x}",
        cfg.mode.as_str(),
        // The offline caller leaves the fingerprint as it was before the LLM caller existed.
        match (cfg.mode, cfg.caller) {
            (Mode::Live, LiveCaller::Llm { .. }) => format!(" caller {}", cfg.caller.describe()),
            _ => String::new(),
        },
        cfg.trials,
        cfg.max_turns,
        cfg.check,
        fnv1a(&ids),
        fnv1a(RULES.as_bytes()),
    );
    use sha2::Digest;
    hex::encode(&sha2::Sha256::digest(text.as_bytes())[..12])
}

/// The progress file of a method's run.
pub fn progress_path(out: &Path, method: &str) -> PathBuf {
    out.join("progress").join(format!("{method}.jsonl"))
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Header {
    callbench_evaluate: u32,
    method: String,
    fingerprint: String,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct TaskLine {
    task: u64,
    rows: Vec<EvalTurn>,
}

/// Reads the tasks an earlier run finished (in order from 0), truncating a torn tail; creates
/// the file with its header when there is none.
fn open_progress(path: &Path, method: &str, fingerprint: &str) -> Result<(Vec<EvalTurn>, u64)> {
    let header = Header {
        callbench_evaluate: 1,
        method: method.to_string(),
        fingerprint: fingerprint.to_string(),
    };
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| EvalError::io(dir, e))?;
    }
    let write_header = || -> Result<()> {
        let mut line = serde_json::to_vec(&header).unwrap_or_default();
        line.push(b'\n');
        corpus::write_atomic(path, &line)?;
        Ok(())
    };
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            write_header()?;
            return Ok((Vec::new(), 0));
        }
        Err(e) => return Err(EvalError::io(path, e)),
    };
    // Lines are read as bytes: a kill can cut a line in the middle of a character, and a
    // torn tail is dropped, never an error.
    let mut reader = std::io::BufReader::new(file);
    let mut line: Vec<u8> = Vec::new();
    let mut good_len: u64 = 0;
    reader
        .read_until(b'\n', &mut line)
        .map_err(|e| EvalError::io(path, e))?;
    match serde_json::from_slice::<Header>(line.trim_ascii_end()) {
        Ok(h) if h.fingerprint == fingerprint => good_len += line.len() as u64,
        Ok(_) => {
            return Err(EvalError::Resume {
                path: path.to_path_buf(),
                message: format!(
                    "this run directory holds a run of {method} with other settings (corpus, \
                     selection, mode, trials, judge or method changed): give another --out, or \
                     delete {} to start over",
                    path.display()
                ),
            });
        }
        Err(_) if !line.ends_with(b"\n") => {
            // Killed while writing the header: start over.
            write_header()?;
            return Ok((Vec::new(), 0));
        }
        Err(e) => {
            return Err(EvalError::Resume {
                path: path.to_path_buf(),
                message: format!(
                    "line 1 is not a progress header ({e}): delete the file to start over"
                ),
            });
        }
    }
    let mut rows = Vec::new();
    let mut done = 0u64;
    loop {
        line.clear();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| EvalError::io(path, e))?;
        if n == 0 || !line.ends_with(b"\n") {
            break;
        }
        match serde_json::from_slice::<TaskLine>(line.trim_ascii_end()) {
            Ok(t) if t.task == done => {
                rows.extend(t.rows);
                done += 1;
                good_len += n as u64;
            }
            _ => break,
        }
    }
    // Drop a torn or stray tail so that appends continue from the last whole task.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| EvalError::io(path, e))?;
    f.set_len(good_len).map_err(|e| EvalError::io(path, e))?;
    f.sync_all().map_err(|e| EvalError::io(path, e))?;
    Ok((rows, done))
}

/// Runs one method over the dialogues and returns its rows in task order (dialogue, then
/// trial). Resumes from `RUN/progress/<method>.jsonl`.
#[allow(clippy::too_many_arguments)]
pub async fn run_method<M: Method + 'static, J: Judge>(
    cfg: &EvalConfig,
    dialogues: Arc<Vec<Dialogue>>,
    corpus_fingerprint: &str,
    method: Arc<M>,
    judge: Arc<J>,
    director: Option<Arc<Director>>,
    on_progress: &(dyn Fn(Progress) + Send + Sync),
) -> Result<Vec<EvalTurn>> {
    cfg.validate()?;
    if cfg.mode == Mode::Live && director.is_none() {
        return Err(EvalError::Config(
            "live mode needs the scenario library (the offline caller is cast from it)".into(),
        ));
    }
    let name = method.name().to_string();
    let fingerprint = run_fingerprint(
        cfg,
        &dialogues,
        corpus_fingerprint,
        &name,
        &method.fingerprint(),
        judge.name(),
        &judge.fingerprint(),
    );
    let path = progress_path(&cfg.out, &name);
    let (mut rows, done) = open_progress(&path, &name, &fingerprint)?;
    let trials = cfg.trials as u64;
    let total = dialogues.len() as u64 * trials;
    on_progress(Progress::Started {
        method: name.clone(),
        total,
        done,
    });
    let ctx = Arc::new(Ctx {
        dialogues: dialogues.clone(),
        method,
        judge,
        // With the library, each scenario's own concepts (see `roleplay::Library::checker`).
        checker: Arc::new(match &director {
            Some(d) => d.lib.checker(&cfg.check),
            None => cfg.check.build(),
        }),
        director,
        mode: cfg.mode,
        max_turns: cfg.max_turns,
        caller: cfg.caller,
        name: name.clone(),
    });
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .map_err(|e| EvalError::io(&path, e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut file);
    let mut tasks = futures::stream::iter((done..total).map(|task| {
        let ctx = ctx.clone();
        let index = (task / trials) as usize;
        let trial = (task % trials) as u32;
        tokio::spawn(async move { (task, ctx.run(index, trial).await) })
    }))
    .buffered(cfg.concurrency);
    let mut since_sync = 0u32;
    while let Some(joined) = tasks.next().await {
        let (task, task_rows) = joined.map_err(|e| {
            EvalError::Config(format!(
                "an evaluation task failed: {e} (a bug: please report it)"
            ))
        })?;
        let line = TaskLine {
            task,
            rows: task_rows,
        };
        serde_json::to_writer(&mut out, &line).map_err(|e| EvalError::io(&path, e.into()))?;
        out.write_all(b"\n").map_err(|e| EvalError::io(&path, e))?;
        rows.extend(line.rows);
        since_sync += 1;
        // Whole lines reach the file in batches; a crash loses at most the unsynced tail,
        // which the rerun recomputes (the rows are deterministic).
        if since_sync >= 256 {
            out.flush().map_err(|e| EvalError::io(&path, e))?;
            out.get_ref()
                .sync_data()
                .map_err(|e| EvalError::io(&path, e))?;
            since_sync = 0;
        }
        on_progress(Progress::Task);
    }
    out.flush().map_err(|e| EvalError::io(&path, e))?;
    drop(out);
    file.sync_data().map_err(|e| EvalError::io(&path, e))?;
    Ok(rows)
}
