//! The generate pipeline: plan → role-play → check → write, streaming, with bounded
//! concurrency and memory, resumable at shard granularity.
//!
//! Shard `k` holds plan positions `k*R .. (k+1)*R`. Dialogues are generated concurrently but
//! collected in plan order, so a shard's content depends only on the plan and the backend,
//! never on scheduling: a resumed run writes the same shards an uninterrupted one would have.
//! A shard is written aside and renamed into place, then recorded in the ledger; on restart the
//! ledger tells which shards are done and verified, and only the rest is generated.

use crate::backend::Backend;
use crate::director::Director;
use crate::error::{Error, Result};
use crate::library::Library;
use callbench_model::plan::sub_seed;
use callbench_model::{Dialogue, Distribution, GenInfo, Plan, QcResult, Violation};
use corpus::{CellCount, Ledger, Manifest, RunHeader, ShardInfo, ShardWriterConfig, Totals};
use futures::StreamExt;
use quality_checker::{CheckConfig, Checker};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Everything that decides a generate run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GenerateConfig {
    /// Output directory.
    pub out: PathBuf,
    /// Run seed.
    pub seed: u64,
    /// Dialogues in the finished corpus.
    pub count: u64,
    /// Dialogues per Parquet shard.
    pub rows_per_shard: u64,
    /// Dialogues in flight at once.
    pub concurrency: usize,
    /// Most turns in a call.
    pub max_turns: usize,
    /// Generation attempts per dialogue before it is given up as rejected.
    pub max_attempts: u32,
    /// Fewest turns of an LLM-played call (every planned caller has a goal): the assistant's
    /// `end_call` before that is not taken, and a shorter dialogue is rejected as
    /// `plan.too_short` and regenerated. The offline backend plays its agenda and ignores it.
    pub min_turns: usize,
    /// Stop the run when this many dialogue attempts in a row fail for the same reason
    /// (0: never), naming the reason and the likely fix: a misconfigured run (wrong model
    /// name, a server without `json_schema`, replies cut short) must not spend its budget.
    pub stop_after_failures: u32,
    /// How the corpus spreads over cells.
    pub distribution: Distribution,
    /// Parquet settings.
    pub parquet: ShardWriterConfig,
    /// Quality-check settings.
    pub check: CheckConfig,
    /// The LLM judge stage.
    pub judge: crate::judge::JudgeConfig,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        GenerateConfig {
            out: PathBuf::from("output"),
            seed: 20260728,
            count: 50_000,
            rows_per_shard: 5_000,
            concurrency: 64,
            max_turns: 20,
            max_attempts: 3,
            min_turns: 4,
            stop_after_failures: 50,
            distribution: Distribution::default(),
            parquet: ShardWriterConfig::default(),
            check: CheckConfig::default(),
            judge: crate::judge::JudgeConfig::default(),
        }
    }
}

impl GenerateConfig {
    /// Checks the values a user can get wrong.
    pub fn validate(&self) -> Result<()> {
        if self.count == 0 {
            return Err(Error::Config("count must be at least 1".into()));
        }
        if self.rows_per_shard == 0 {
            return Err(Error::Config("rows_per_shard must be at least 1".into()));
        }
        if self.concurrency == 0 {
            return Err(Error::Config("concurrency must be at least 1".into()));
        }
        if self.max_turns < 2 {
            return Err(Error::Config("max_turns must be at least 2".into()));
        }
        if self.min_turns > self.max_turns {
            return Err(Error::Config(format!(
                "min_turns ({}) must not exceed max_turns ({})",
                self.min_turns, self.max_turns
            )));
        }
        if self.max_attempts == 0 {
            return Err(Error::Config("max_attempts must be at least 1".into()));
        }
        if !(1..=22).contains(&self.parquet.compression_level) {
            return Err(Error::Config(
                "parquet.compression_level must be between 1 and 22".into(),
            ));
        }
        self.judge.validate().map_err(Error::Config)?;
        if self.parquet.row_group_size == 0 {
            return Err(Error::Config(
                "parquet.row_group_size must be at least 1".into(),
            ));
        }
        Ok(())
    }
}

/// What the pipeline reports while it runs (the CLI draws progress from these).
#[derive(Debug, Clone)]
pub enum Event {
    /// The plan is made; `done` dialogues are in shards from an earlier run.
    Started {
        /// Planned dialogues.
        total: u64,
        /// Already written by an earlier run of the same command.
        done: u64,
        /// Shards already written.
        done_shards: usize,
    },
    /// One dialogue finished (accepted, rejected or failed).
    Dialogue,
    /// A shard was written.
    Shard(ShardInfo),
}

/// Per-shard counts, kept in the ledger beside the shard so a resumed run can total them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ShardStats {
    /// Turns in the shard.
    pub turns: u64,
    /// Accepted dialogues per cell key `scenario/preset_case/relation`.
    pub written: BTreeMap<String, u64>,
    /// Dialogues given up as rejected, per cell key.
    pub rejected: BTreeMap<String, u64>,
    /// Rejected attempts (including those later regenerated successfully).
    pub rejected_attempts: u64,
    /// Dialogues the backend could not produce.
    pub failed: u64,
    /// Findings per violation kind.
    pub findings: BTreeMap<String, u64>,
    /// Findings per cell key and violation kind.
    #[serde(default)]
    pub cell_findings: BTreeMap<String, BTreeMap<String, u64>>,
    /// Failed dialogues per reason kind ([`failure_kind`]).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub failure_reasons: BTreeMap<String, u64>,
    /// Dialogues given up as rejected, per violation kind of their last attempt.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub rejected_kinds: BTreeMap<String, u64>,
    /// Repaired replies per field in the written dialogues.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repairs: BTreeMap<String, u64>,
}

/// What a run did.
#[derive(Debug, Clone)]
pub struct Summary {
    /// The manifest as written.
    pub manifest: Manifest,
    /// Dialogues generated by this run (not counting resumed shards).
    pub generated_now: u64,
    /// Wall time of this run.
    pub seconds: f64,
}

struct Outcome {
    accepted: Option<Dialogue>,
    rejects: Vec<Dialogue>,
    failure: Option<Dialogue>,
    cell_key: String,
    /// Not generated: the run was stopped before its turn.
    skipped: bool,
}

/// Why a dialogue attempt failed, as a kind shared by every attempt that failed the same way,
/// and the likely fix. Read from the error's words: the agents' errors are text.
pub fn failure_kind(message: &str) -> (String, &'static str) {
    let m = message;
    let has = |w: &str| m.contains(w);
    let (kind, hint): (&str, &str) = if has("HTTP 404") || has("model_not_found") {
        (
            "the endpoint does not know the model or the URL (HTTP 404)",
            "check --model (or [llm.*].model) against the server's /v1/models, and that --base-url ends in /v1",
        )
    } else if has("HTTP 401") || has("HTTP 403") {
        (
            "the endpoint refuses the API key (HTTP 401/403)",
            "set the API key's environment variable (OPENAI_API_KEY, or the endpoint's api_key_env)",
        )
    } else if has("HTTP 400") && (has("response_format") || has("json_schema") || has("schema")) {
        (
            "the server does not accept response_format json_schema (HTTP 400)",
            "set response_format = \"json_object\" (or \"text\") under [llm]",
        )
    } else if has("HTTP 4") {
        (
            "the endpoint refuses the requests (HTTP 4xx)",
            "read the server's message in rejects/; check the model, max_tokens and response_format",
        )
    } else if has("cut short") {
        (
            "replies cut short at max_tokens",
            "raise max_tokens of [llm.caller] and [llm.assistant] (and [llm.judge])",
        )
    } else if has("no JSON object") || has("`utterance` is missing") || has("no valid reply") {
        (
            "unreadable replies (no JSON object with an utterance)",
            "use response_format = \"json_schema\" if the server supports it, a larger model, or response_format = \"text\"",
        )
    } else if has("gave up after") {
        (
            "the endpoint keeps failing (timeouts, 429, 5xx, resets)",
            "check that the server is up; lower --concurrency or --rpm, or raise request_timeout_ms",
        )
    } else {
        let short: String = m.chars().take(80).collect();
        return (short, "read the reasons in rejects/");
    };
    (kind.to_string(), hint)
}

/// Consecutive failed attempts of one kind, in completion order; any success resets it.
#[derive(Default)]
struct Breaker {
    kind: String,
    hint: &'static str,
    streak: u32,
    tripped: Option<String>,
}

fn cell_key(d: &Dialogue) -> String {
    format!("{}/{}/{}", d.scenario, d.preset_case, d.relation)
}

/// The versions recorded with every dialogue.
pub fn versions(lib: &Library) -> BTreeMap<String, String> {
    BTreeMap::from([
        (
            "callbench".to_string(),
            env!("CARGO_PKG_VERSION").to_string(),
        ),
        ("library".to_string(), lib.set.digest.clone()),
    ])
}

/// What every generation task shares: the stages of the run.
struct Stages<B> {
    director: Director,
    backend: Arc<B>,
    checker: Checker,
    plan: Arc<Plan>,
    cfg: Arc<GenerateConfig>,
    versions: BTreeMap<String, String>,
    judge: Option<Arc<llm_client::LlmClient>>,
    /// Run the `plan.*` rules (LLM backends: the offline agents play their plan by design).
    plan_checks: bool,
    breaker: std::sync::Mutex<Breaker>,
    stop: std::sync::atomic::AtomicBool,
}

impl<B> Stages<B> {
    fn attempt_failed(&self, message: &str) {
        let limit = self.cfg.stop_after_failures;
        if limit == 0 {
            return;
        }
        let (kind, hint) = failure_kind(message);
        let mut b = self.breaker.lock().unwrap_or_else(|p| p.into_inner());
        if b.kind == kind {
            b.streak += 1;
        } else {
            (b.kind, b.hint, b.streak) = (kind, hint, 1);
        }
        if b.streak >= limit && b.tripped.is_none() {
            b.tripped = Some(format!(
                "stopped after {} dialogue attempts in a row failed: {}; likely fix: {}",
                b.streak, b.kind, b.hint
            ));
            self.stop.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn attempt_played(&self) {
        let mut b = self.breaker.lock().unwrap_or_else(|p| p.into_inner());
        b.streak = 0;
    }

    fn stopped(&self) -> bool {
        self.stop.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// Plays, checks (and judges) one planned dialogue, regenerating a rejected one with a new
/// sub-seed up to the attempt budget.
async fn produce<B: Backend>(stages: Arc<Stages<B>>, index: u64) -> Outcome {
    let Stages {
        director,
        backend,
        checker,
        plan,
        cfg,
        versions,
        judge,
        plan_checks,
        ..
    } = &*stages;
    let Some(d) = plan.get(index) else {
        return Outcome {
            accepted: None,
            rejects: Vec::new(),
            failure: None,
            cell_key: String::new(),
            skipped: false,
        };
    };
    let cell = plan.cell(&d).clone();
    let cell_key = format!("{}/{}/{}", cell.scenario, cell.preset_case, cell.relation);
    let mut rejects = Vec::new();
    let mut last_failure = None;
    for attempt in 0..cfg.max_attempts {
        if stages.stopped() {
            return Outcome {
                accepted: None,
                rejects: Vec::new(),
                failure: None,
                cell_key,
                skipped: true,
            };
        }
        let seed = sub_seed(plan.seed, &d.id, attempt);
        let setup = match director.cast(&cell, &d, seed) {
            Ok(s) => s,
            Err(e) => {
                last_failure = Some((None, e.to_string()));
                continue;
            }
        };
        let gen_info = GenInfo {
            backend: backend.name().to_string(),
            models: backend.models(),
            seed,
            attempt,
            versions: versions.clone(),
            repairs: BTreeMap::new(),
        };
        match backend
            .play(&director.lib, &setup, cfg.max_turns, cfg.min_turns)
            .await
        {
            Ok(played) => {
                stages.attempt_played();
                let mut dialogue = setup.header.clone();
                dialogue.turns = played.turns;
                dialogue.r#gen = Some(GenInfo {
                    repairs: played.repairs,
                    ..gen_info
                });
                let mut qc = checker.check(&dialogue);
                if *plan_checks {
                    let found = crate::plan::check(&director.lib, &setup, &dialogue, cfg.min_turns);
                    qc.passed &= found.is_empty();
                    qc.violations.extend(found);
                }
                // The judge scores only what the rules passed: its calls cost money.
                if let (true, true, Some(client)) = (qc.passed, cfg.judge.enabled, judge.as_ref()) {
                    let model = client.config().judge.model.clone();
                    let max_invalid = client.config().max_invalid_replies;
                    match crate::judge::judge(
                        &director.lib,
                        &**client,
                        &model,
                        &dialogue,
                        max_invalid,
                    )
                    .await
                    {
                        Ok(scores) => {
                            let findings = crate::judge::findings(&cfg.judge, &scores);
                            qc.passed = findings.is_empty();
                            qc.violations.extend(findings);
                            dialogue.judge = Some(scores);
                        }
                        Err(reason) => {
                            stages.attempt_failed(&reason);
                            last_failure = Some((
                                Some((
                                    setup.header.clone(),
                                    dialogue.r#gen.clone().unwrap_or_default(),
                                )),
                                reason,
                            ));
                            continue;
                        }
                    }
                }
                let passed = qc.passed;
                dialogue.qc = Some(qc);
                if passed {
                    return Outcome {
                        accepted: Some(dialogue),
                        rejects,
                        failure: None,
                        cell_key,
                        skipped: false,
                    };
                }
                tracing::debug!(id = %d.id, attempt, "rejected by the checker");
                rejects.push(dialogue);
            }
            Err(e) => {
                let reason = e.to_string();
                stages.attempt_failed(&reason);
                last_failure = Some((Some((setup.header.clone(), gen_info)), reason));
            }
        }
    }
    let failure = last_failure.map(|(header, reason)| {
        let (mut dialogue, gen_info) = header.unwrap_or_else(|| {
            (
                Dialogue {
                    id: d.id.clone(),
                    scenario: cell.scenario.clone(),
                    preset_case: cell.preset_case,
                    relation: cell.relation,
                    owner: Default::default(),
                    caller: Default::default(),
                    turns: Vec::new(),
                    qc: None,
                    r#gen: None,
                    judge: None,
                },
                GenInfo::default(),
            )
        });
        dialogue.r#gen = Some(gen_info);
        dialogue.qc = Some(QcResult {
            passed: false,
            violations: vec![Violation {
                kind: callbench_model::vocab::ViolationKind::NaturalGenerationFailed
                    .as_str()
                    .into(),
                turn: 0,
                evidence: String::new(),
                message: reason,
            }],
        });
        dialogue
    });
    Outcome {
        accepted: None,
        rejects,
        failure,
        cell_key,
        skipped: false,
    }
}

struct ShardJob {
    index: u32,
    accepted: Vec<Dialogue>,
    rejects: Vec<Dialogue>,
    stats: ShardStats,
}

/// Runs `generate`: resumes what an earlier run of the same command left, generates the rest,
/// and writes the manifest. `effective_config` (secrets removed) is stored in the manifest.
pub async fn generate<B: Backend>(
    lib: Arc<Library>,
    backend: Arc<B>,
    cfg: GenerateConfig,
    effective_config: serde_json::Value,
    on_event: Arc<dyn Fn(Event) + Send + Sync>,
) -> Result<Summary> {
    generate_judged(lib, backend, None, cfg, effective_config, on_event).await
}

/// [`generate`] with the LLM judge stage: `judge` is the client it scores through (required
/// when `cfg.judge.enabled`).
pub async fn generate_judged<B: Backend>(
    lib: Arc<Library>,
    backend: Arc<B>,
    judge: Option<Arc<llm_client::LlmClient>>,
    cfg: GenerateConfig,
    effective_config: serde_json::Value,
    on_event: Arc<dyn Fn(Event) + Send + Sync>,
) -> Result<Summary> {
    if cfg.judge.enabled && judge.is_none() {
        return Err(Error::Config(
            "judge.enabled needs an LLM endpoint for the judge ([llm] config)".into(),
        ));
    }
    cfg.validate()?;
    let started = Instant::now();
    let plan = Arc::new(Plan::build(
        &lib.set,
        cfg.seed,
        cfg.count,
        &cfg.distribution,
    )?);
    // Everything that changes the dialogues goes into the fingerprint, so that a different run
    // is refused instead of being mixed into this one's shards.
    let fingerprint = {
        let extra = format!(
            "{}{}|{}|{}|{:?}|{}|{}",
            cfg.max_turns,
            // The minimum length changes LLM dialogues only; the offline corpus keeps its
            // fingerprint (and its resumable ledgers).
            if backend.name() == "sim" {
                String::new()
            } else {
                format!("-{}", cfg.min_turns)
            },
            cfg.max_attempts,
            backend.name(),
            cfg.check,
            serde_json::to_string(&backend.models()).unwrap_or_default(),
            // The judge changes which dialogues are accepted.
            if cfg.judge.enabled {
                serde_json::to_string(&cfg.judge).unwrap_or_default()
            } else {
                String::new()
            }
        );
        format!(
            "{}-{:016x}",
            plan.fingerprint(&lib.set.digest),
            callbench_model::plan::fnv1a(extra.as_bytes())
        )
    };
    let header = RunHeader {
        fingerprint: fingerprint.clone(),
        seed: cfg.seed,
        count: cfg.count,
        rows_per_shard: cfg.rows_per_shard,
    };
    let (mut ledger, done) = Ledger::open(&cfg.out, header)?;
    // What earlier runs of this corpus spent, from their manifest (the ledger accepted the
    // directory as this run's, so the manifest, if any, is of the same corpus).
    let earlier_usage = corpus::read_manifest(&cfg.out)
        .ok()
        .filter(|m| m.fingerprint == fingerprint)
        .map(|m| m.report.usage_all_runs.unwrap_or(m.usage))
        .filter(|u| u.as_object().is_some_and(|o| !o.is_empty()));
    let n_shards = cfg.count.div_ceil(cfg.rows_per_shard);
    let mut done_by_index: BTreeMap<u32, ShardInfo> =
        done.into_iter().map(|s| (s.index, s)).collect();
    done_by_index.retain(|&i, _| (i as u64) < n_shards);
    let done_rows: u64 = done_by_index
        .values()
        .map(|s| s.rows + s.stats_rejected_or_failed())
        .sum();
    on_event(Event::Started {
        total: cfg.count,
        done: done_rows,
        done_shards: done_by_index.len(),
    });

    let todo: Vec<u32> = (0..n_shards as u32)
        .filter(|i| !done_by_index.contains_key(i))
        .collect();
    let cfg = Arc::new(cfg);
    let stages = Arc::new(Stages {
        director: Director::new(lib.clone()),
        backend: backend.clone(),
        checker: cfg.check.build(),
        plan: plan.clone(),
        cfg: cfg.clone(),
        versions: versions(&lib),
        judge,
        plan_checks: backend.name() != "sim",
        breaker: Default::default(),
        stop: Default::default(),
    });

    // The writer: a blocking thread that writes shards in order and records them.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<ShardJob>(2);
    let out = cfg.out.clone();
    let parquet_cfg = cfg.parquet.clone();
    let writer_events = on_event.clone();
    let writer = tokio::task::spawn_blocking(move || -> Result<Vec<ShardInfo>> {
        let mut written = Vec::new();
        while let Some(job) = rx.blocking_recv() {
            let mut info = corpus::write_shard(&out, job.index, &job.accepted, &parquet_cfg)?;
            info.rejects = corpus::write_rejects(&out, job.index, &job.rejects)?;
            info.stats = Some(serde_json::to_value(&job.stats).unwrap_or_default());
            ledger.record(&info)?;
            tracing::info!(file = %info.file, rows = info.rows, bytes = info.bytes, rejects = job.rejects.len(), "shard written");
            writer_events(Event::Shard(info.clone()));
            written.push(info);
        }
        Ok(written)
    });

    // The plan positions to generate, in order: walked lazily, not held.
    let mut positions = todo.iter().flat_map(|&k| {
        let start = k as u64 * cfg.rows_per_shard;
        let end = ((k as u64 + 1) * cfg.rows_per_shard).min(cfg.count);
        start..end
    });
    let generated_now: u64 = todo.iter().map(|&k| shard_len(k, &cfg)).sum();
    let n_positions = generated_now as usize;
    // `concurrency` dialogues run at once; finished ones wait in a reorder buffer so that they
    // are written in plan order. A slow or regenerated dialogue no longer holds up the slots
    // behind it; dispatch stops only when the buffer is `max_ahead` past the oldest unfinished
    // dialogue, which bounds memory.
    let max_ahead = cfg.concurrency.saturating_mul(8).max(cfg.concurrency + 1);
    let mut inflight = futures::stream::FuturesUnordered::new();
    let mut finished: BTreeMap<usize, Outcome> = BTreeMap::new();
    let (mut next_dispatch, mut next_emit) = (0usize, 0usize);
    let mut shard_iter = todo.iter().copied();
    let mut current: Option<(u32, u64)> = shard_iter.next().map(|k| (k, shard_len(k, &cfg)));
    let mut job = ShardJob {
        index: 0,
        accepted: Vec::new(),
        rejects: Vec::new(),
        stats: ShardStats::default(),
    };
    let mut in_shard = 0u64;
    let mut halted = false;
    'run: loop {
        while inflight.len() < cfg.concurrency
            && !stages.stopped()
            && next_dispatch < n_positions
            && next_dispatch - next_emit < max_ahead
        {
            let seq = next_dispatch;
            let position = positions.next().expect("n_positions positions");
            let handle = tokio::spawn(produce(stages.clone(), position));
            inflight.push(async move { (seq, handle.await) });
            next_dispatch += 1;
        }
        let Some((seq, res)) = inflight.next().await else {
            break;
        };
        let outcome = res.map_err(|e| Error::Config(format!("a generation task panicked: {e}")))?;
        finished.insert(seq, outcome);
        // Once a dialogue was skipped (the run stopped), nothing after it is emitted: its
        // shard cannot be complete. The tasks still in flight are drained (they stop at their
        // next attempt), and the shards already complete are written.
        while !halted {
            let Some(outcome) = finished.remove(&next_emit) else {
                break;
            };
            if outcome.skipped {
                halted = true;
                break;
            }
            next_emit += 1;
            on_event(Event::Dialogue);
            let Some((k, len)) = current else { break 'run };
            job.index = k;
            for r in &outcome.rejects {
                job.stats.rejected_attempts += 1;
                count_findings(&mut job.stats.findings, r);
                count_findings(
                    job.stats
                        .cell_findings
                        .entry(outcome.cell_key.clone())
                        .or_default(),
                    r,
                );
            }
            if let Some(d) = outcome.accepted {
                job.stats.turns += d.turns.len() as u64;
                for key in d.r#gen.iter().flat_map(|g| g.repairs.keys()) {
                    let field = key.split_once('.').map_or(key.as_str(), |(_, f)| f);
                    *job.stats.repairs.entry(field.to_string()).or_default() += 1;
                }
                *job.stats.written.entry(cell_key(&d)).or_default() += 1;
                count_findings(&mut job.stats.findings, &d);
                count_findings(
                    job.stats
                        .cell_findings
                        .entry(outcome.cell_key.clone())
                        .or_default(),
                    &d,
                );
                job.accepted.push(d);
            } else if let Some(f) = outcome.failure {
                tracing::warn!(id = %f.id, reason = ?f.qc.as_ref().and_then(|q| q.violations.first()).map(|v| &v.message), "dialogue failed");
                job.stats.failed += 1;
                let reason =
                    f.qc.as_ref()
                        .and_then(|q| q.violations.first())
                        .map(|v| failure_kind(&v.message).0)
                        .unwrap_or_default();
                *job.stats.failure_reasons.entry(reason).or_default() += 1;
                job.rejects.push(f);
            } else {
                *job.stats
                    .rejected
                    .entry(outcome.cell_key.clone())
                    .or_default() += 1;
                let last = outcome.rejects.last().and_then(|r| r.qc.as_ref());
                let kinds: std::collections::BTreeSet<&str> = last
                    .iter()
                    .flat_map(|q| q.violations.iter().map(|v| v.kind.as_str()))
                    .collect();
                for k in kinds {
                    *job.stats.rejected_kinds.entry(k.to_string()).or_default() += 1;
                }
            }
            job.rejects.extend(outcome.rejects);
            in_shard += 1;
            if in_shard == len {
                let full = std::mem::replace(
                    &mut job,
                    ShardJob {
                        index: 0,
                        accepted: Vec::new(),
                        rejects: Vec::new(),
                        stats: ShardStats::default(),
                    },
                );
                if tx.send(full).await.is_err() {
                    break 'run; // the writer failed; its error is reported below
                }
                in_shard = 0;
                current = shard_iter.next().map(|k| (k, shard_len(k, &cfg)));
            }
        }
    }
    drop(tx);
    let written = writer
        .await
        .map_err(|e| Error::Config(format!("the shard writer panicked: {e}")))??;
    for info in written {
        done_by_index.insert(info.index, info);
    }
    let mut manifest = build_manifest(
        &plan,
        &cfg,
        &fingerprint,
        &lib,
        done_by_index.into_values().collect(),
        effective_config,
    );
    // Usage of this run (a resumed run counts what it sent, and its cache hits).
    manifest.usage = backend.usage();
    manifest.report.usage_all_runs = earlier_usage.map(|e| corpus::add_usage(&e, &manifest.usage));
    manifest.report.stopped = stages
        .breaker
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .tripped
        .clone();
    corpus::write_manifest(&cfg.out, &manifest)?;
    tracing::info!(
        dialogues = manifest.totals.dialogues,
        rejected = manifest.totals.rejected,
        failed = manifest.totals.failed,
        "manifest written"
    );
    Ok(Summary {
        manifest,
        generated_now,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn shard_len(k: u32, cfg: &GenerateConfig) -> u64 {
    let start = k as u64 * cfg.rows_per_shard;
    ((k as u64 + 1) * cfg.rows_per_shard).min(cfg.count) - start
}

fn count_findings(findings: &mut BTreeMap<String, u64>, d: &Dialogue) {
    if let Some(qc) = &d.qc {
        for v in &qc.violations {
            *findings.entry(v.kind.clone()).or_default() += 1;
        }
    }
}

trait StatsExt {
    fn shard_stats(&self) -> ShardStats;
    fn stats_rejected_or_failed(&self) -> u64;
}

impl StatsExt for ShardInfo {
    fn shard_stats(&self) -> ShardStats {
        self.stats
            .clone()
            .and_then(|v| serde_json::from_value(v).ok())
            .unwrap_or_default()
    }
    fn stats_rejected_or_failed(&self) -> u64 {
        let s = self.shard_stats();
        s.rejected.values().sum::<u64>() + s.failed
    }
}

fn build_manifest(
    plan: &Plan,
    cfg: &GenerateConfig,
    fingerprint: &str,
    lib: &Library,
    shards: Vec<ShardInfo>,
    effective_config: serde_json::Value,
) -> Manifest {
    let mut written: HashMap<String, u64> = HashMap::new();
    let mut rejected: HashMap<String, u64> = HashMap::new();
    let mut findings = BTreeMap::new();
    let mut cell_findings: HashMap<String, BTreeMap<String, u64>> = HashMap::new();
    let mut totals = Totals::default();
    let mut report = corpus::RunReport::default();
    for s in &shards {
        let st = s.shard_stats();
        for (into, from) in [
            (&mut report.failure_reasons, &st.failure_reasons),
            (&mut report.rejected_kinds, &st.rejected_kinds),
            (&mut report.repairs, &st.repairs),
        ] {
            for (k, v) in from {
                *into.entry(k.clone()).or_default() += v;
            }
        }
        totals.dialogues += s.rows;
        totals.turns += st.turns;
        totals.failed += st.failed;
        for (k, v) in st.written {
            *written.entry(k).or_default() += v;
        }
        for (k, v) in st.rejected {
            totals.rejected += v;
            *rejected.entry(k).or_default() += v;
        }
        for (k, v) in st.findings {
            *findings.entry(k).or_default() += v;
        }
        for (cell, kinds) in st.cell_findings {
            let e: &mut BTreeMap<String, u64> = cell_findings.entry(cell).or_default();
            for (k, v) in kinds {
                *e.entry(k).or_default() += v;
            }
        }
    }
    let cells = plan
        .allocations
        .iter()
        .map(|a| {
            let key = format!(
                "{}/{}/{}",
                a.cell.scenario, a.cell.preset_case, a.cell.relation
            );
            CellCount {
                scenario: a.cell.scenario.clone(),
                preset_case: a.cell.preset_case,
                relation: a.cell.relation,
                planned: a.count,
                written: written.get(&key).copied().unwrap_or(0),
                rejected: rejected.get(&key).copied().unwrap_or(0),
                findings: cell_findings.remove(&key).unwrap_or_default(),
            }
        })
        .collect();
    Manifest {
        format_version: corpus::MANIFEST_FORMAT_VERSION,
        tool_version: env!("CARGO_PKG_VERSION").to_string(),
        created_at: corpus::now_rfc3339(),
        seed: cfg.seed,
        count: cfg.count,
        fingerprint: fingerprint.to_string(),
        cells,
        rejects: shards.iter().filter_map(|s| s.rejects.clone()).collect(),
        shards,
        totals,
        findings,
        config: effective_config,
        usage: serde_json::json!({}),
        library_digest: lib.set.digest.clone(),
        report,
    }
}
