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
    /// LLM backends: a dialogue whose character 5-gram set has a Jaccard similarity of at
    /// least this with one already accepted in its cell (MinHash estimate, [`crate::dedup`]) is
    /// rejected as `natural.near_duplicate` and regenerated (0: off). The offline backend is
    /// not checked: its corpus has no near-duplicates (BENCHMARKS.md, "Variety").
    pub near_duplicate_threshold: f64,
    /// How the corpus spreads over cells.
    pub distribution: Distribution,
    /// Parquet settings.
    pub parquet: ShardWriterConfig,
    /// Quality-check settings.
    pub check: CheckConfig,
    /// The LLM judge stage.
    pub judge: crate::judge::JudgeConfig,
    /// The shares of the train / validation / test splits (each dialogue's split is drawn from
    /// the run seed and its id: see `callbench_model::split`).
    pub split: callbench_model::SplitRatios,
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
            near_duplicate_threshold: 0.9,
            distribution: Distribution::default(),
            parquet: ShardWriterConfig::default(),
            check: CheckConfig::default(),
            judge: crate::judge::JudgeConfig::default(),
            split: callbench_model::SplitRatios::default(),
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
        let t = self.near_duplicate_threshold;
        if !(t == 0.0 || (t > 0.0 && t <= 1.0)) {
            return Err(Error::Config(format!(
                "near_duplicate_threshold must be 0 (off) or in (0, 1], got {t}"
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
    /// The run grows the corpus in its folder (sent before anything is spent).
    Grow {
        /// Dialogues kept as they are.
        kept: u64,
        /// Dialogues added.
        added: u64,
        /// Dialogues made again.
        regenerated: u64,
        /// Scenarios made again (their file changed).
        regenerate: Vec<String>,
        /// Scenarios new to the corpus.
        new_scenarios: Vec<String>,
    },
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
    /// Accepted dialogues per split.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub splits: BTreeMap<String, u64>,
    /// Uncertain findings put to the LLM judge (`asked`) and its answers (`confirmed`,
    /// `denied`, `unanswered`), over every recorded attempt, as their messages record them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub second_opinions: BTreeMap<String, u64>,
    /// Written by a run that stopped before the shard was complete: it holds what was
    /// finished, and a resumed run generates it again, whole.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
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
    /// The plan position.
    position: u64,
    accepted: Option<Dialogue>,
    /// The accepted dialogue's signature, when near-duplicates are removed.
    signature: Option<crate::dedup::Signature>,
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
    /// Remove near-duplicates at this similarity (LLM backends with a threshold above 0).
    dedup: Option<f64>,
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

/// Plays, checks (and judges) one planned dialogue from attempt `first_attempt` on,
/// regenerating a rejected one with a new sub-seed up to the attempt budget.
async fn produce<B: Backend>(stages: Arc<Stages<B>>, index: u64, first_attempt: u32) -> Outcome {
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
            position: index,
            accepted: None,
            signature: None,
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
    for attempt in first_attempt..cfg.max_attempts {
        if stages.stopped() {
            return Outcome {
                position: index,
                accepted: None,
                signature: None,
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
        // The models that played (and judged) this dialogue: no judge's when the judge is off.
        let mut models = backend.models();
        match (&judge, cfg.judge.enabled) {
            (Some(j), true) => {
                models.insert("judge".into(), j.config().judge.model.clone());
            }
            _ => {
                models.remove("judge");
            }
        }
        let gen_info = GenInfo {
            backend: backend.name().to_string(),
            models,
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
                let (mut qc, confidence) = checker.check_detailed(&dialogue);
                if *plan_checks {
                    let found = crate::plan::check(&director.lib, &setup, &dialogue, cfg.min_turns);
                    // Like the checker's own kinds, a `plan.*` finding rejects when
                    // `reject_kinds` names it (by default every kind) — except an event missing,
                    // which is read from words alone (its cues, two pairs of its description)
                    // while a caller model says the matter in its own: on 288 real-model calls
                    // it was wrong 34 times in 36 (BENCHMARKS.md, "plan.event_missing on
                    // real-model calls"). Like the checker's uncertain findings it is reported,
                    // and rejects only under `uncertain = "reject"`.
                    let strict = cfg.check.uncertain == quality_checker::UncertainPolicy::Reject;
                    qc.passed &= !found.iter().any(|v| {
                        checker.rejects(&v.kind)
                            && (strict
                                || v.kind
                                    != callbench_model::vocab::ViolationKind::PlanEventMissing
                                        .as_str())
                    });
                    qc.violations.extend(found);
                }
                // The rules' uncertain findings, each put to the judge as one question: only
                // in what the rules passed (a rejected dialogue is regenerated anyway), and
                // before the scores, which a confirmed finding makes unnecessary.
                let ask = cfg.check.uncertain.effective(cfg.judge.enabled)
                    == quality_checker::UncertainPolicy::AskJudge;
                if let (true, true, Some(client)) = (qc.passed, ask, judge.as_ref()) {
                    crate::judge::ask_uncertain(
                        &director.lib,
                        &**client,
                        checker,
                        &dialogue,
                        &mut qc,
                        &confidence,
                        client.config().max_invalid_replies,
                    )
                    .await;
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
                    dialogue.split = Some(cfg.split.assign(cfg.seed, &d.id));
                    return Outcome {
                        position: index,
                        signature: stages.dedup.map(|_| crate::dedup::signature(&dialogue)),
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
                    split: None,
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
        position: index,
        accepted: None,
        signature: None,
        rejects,
        failure,
        cell_key,
        skipped: false,
    }
}

/// Spawns the production of one plan position; every task of a run has this one future type.
fn launch<B: Backend>(
    stages: &Arc<Stages<B>>,
    seq: usize,
    position: u64,
    first_attempt: u32,
) -> impl std::future::Future<Output = (usize, std::result::Result<Outcome, tokio::task::JoinError>)>
+ use<B> {
    let handle = tokio::spawn(produce(stages.clone(), position, first_attempt));
    async move { (seq, handle.await) }
}

struct ShardJob {
    index: u32,
    accepted: Vec<Dialogue>,
    rejects: Vec<Dialogue>,
    stats: ShardStats,
}

impl ShardJob {
    fn new(index: u32) -> Self {
        ShardJob {
            index,
            accepted: Vec::new(),
            rejects: Vec::new(),
            stats: ShardStats::default(),
        }
    }

    /// Takes a finished dialogue into the shard and its counts. A skipped one (the run stopped
    /// before it) brings only the attempts it had rejected.
    fn add(&mut self, outcome: Outcome) {
        for d in outcome
            .rejects
            .iter()
            .chain(outcome.accepted.iter())
            .chain(outcome.failure.iter())
        {
            count_second_opinions(&mut self.stats.second_opinions, d);
        }
        for r in &outcome.rejects {
            self.stats.rejected_attempts += 1;
            count_findings(&mut self.stats.findings, r);
            count_findings(
                self.stats
                    .cell_findings
                    .entry(outcome.cell_key.clone())
                    .or_default(),
                r,
            );
        }
        if let Some(d) = outcome.accepted {
            self.stats.turns += d.turns.len() as u64;
            for key in d.r#gen.iter().flat_map(|g| g.repairs.keys()) {
                let field = key.split_once('.').map_or(key.as_str(), |(_, f)| f);
                *self.stats.repairs.entry(field.to_string()).or_default() += 1;
            }
            *self.stats.written.entry(cell_key(&d)).or_default() += 1;
            if let Some(split) = d.split {
                *self.stats.splits.entry(split.to_string()).or_default() += 1;
            }
            count_findings(&mut self.stats.findings, &d);
            count_findings(
                self.stats
                    .cell_findings
                    .entry(outcome.cell_key.clone())
                    .or_default(),
                &d,
            );
            self.accepted.push(d);
        } else if let Some(f) = outcome.failure {
            tracing::warn!(id = %f.id, reason = ?f.qc.as_ref().and_then(|q| q.violations.first()).map(|v| &v.message), "dialogue failed");
            self.stats.failed += 1;
            let reason =
                f.qc.as_ref()
                    .and_then(|q| q.violations.first())
                    .map(|v| failure_kind(&v.message).0)
                    .unwrap_or_default();
            *self.stats.failure_reasons.entry(reason).or_default() += 1;
            self.rejects.push(f);
        } else if !outcome.skipped {
            *self
                .stats
                .rejected
                .entry(outcome.cell_key.clone())
                .or_default() += 1;
            let last = outcome.rejects.last().and_then(|r| r.qc.as_ref());
            let kinds: std::collections::BTreeSet<&str> = last
                .iter()
                .flat_map(|q| q.violations.iter().map(|v| v.kind.as_str()))
                .collect();
            for k in kinds {
                *self.stats.rejected_kinds.entry(k.to_string()).or_default() += 1;
            }
        }
        self.rejects.extend(outcome.rejects);
    }
}

/// Marks a dialogue rejected as a near-duplicate of `m`.
fn near_duplicate(d: &mut Dialogue, m: &crate::dedup::Match, threshold: f64) {
    let qc = d.qc.get_or_insert_with(Default::default);
    qc.passed = false;
    qc.violations.push(Violation {
        kind: callbench_model::vocab::ViolationKind::NaturalNearDuplicate
            .as_str()
            .into(),
        turn: 0,
        evidence: m.id.clone(),
        message: format!(
            "a near-duplicate of {}, accepted earlier in the cell (estimated Jaccard similarity \
             of their character 5-grams {:.2} ≥ {threshold})",
            m.id, m.similarity
        ),
    });
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
    cfg.split
        .validate("split")
        .map_err(|e| Error::Config(e.to_string()))?;
    let started = Instant::now();
    let (fingerprint, shared) = run_fingerprint(&lib, backend.name(), &backend.models(), &cfg);
    let step = crate::grow::plan_step(&lib, &cfg, &fingerprint, &shared)?;
    let plan = Arc::new(step.plan.clone());
    let layout = crate::grow::Layout::of(&step.header, plan.len());
    let (mut ledger, done) = match step.kind {
        crate::grow::StepKind::Grow => Ledger::open_next_step(&cfg.out, step.header.clone())?,
        _ => Ledger::open(&cfg.out, step.header.clone())?,
    };
    if step.kind == crate::grow::StepKind::Grow {
        on_event(Event::Grow {
            kept: step.kept,
            added: step.added,
            regenerated: step.regenerated,
            regenerate: step.header.regenerate.clone(),
            new_scenarios: step.new_scenarios.clone(),
        });
        tracing::info!(
            step = step.header.step,
            kept = step.kept,
            added = step.added,
            regenerated = step.regenerated,
            "growing the corpus"
        );
    }
    // What earlier runs of this corpus spent, from their manifest (the ledger accepted the
    // directory as this corpus's, so the manifest, if any, is of the same corpus).
    let earlier_usage = corpus::read_manifest(&cfg.out)
        .ok()
        .filter(|m| m.fingerprint == fingerprint)
        .map(|m| m.report.usage_all_runs.unwrap_or(m.usage))
        .filter(|u| u.as_object().is_some_and(|o| !o.is_empty()));
    let mut done_by_index: BTreeMap<u32, ShardInfo> =
        done.into_iter().map(|s| (s.index, s)).collect();
    // A partial shard (a stopped run's) of this step is generated again, whole; shards past
    // the step's (a larger count asked before, never finished) do not count.
    let step_shards = layout.indices();
    done_by_index.retain(|&i, s| {
        if step_shards.contains(&i) {
            !s.shard_stats().partial
        } else {
            i < layout.first_shard || s.replaces.iter().any(|r| *r < layout.first_shard)
        }
    });
    let done_rows: u64 = done_by_index
        .values()
        .filter(|s| step_shards.contains(&s.index))
        .map(|s| s.rows + s.stats_rejected_or_failed())
        .sum();
    on_event(Event::Started {
        total: plan.len(),
        done: done_rows,
        done_shards: step_shards
            .clone()
            .filter(|i| done_by_index.contains_key(i))
            .count(),
    });

    let todo: Vec<u32> = step_shards
        .clone()
        .filter(|i| !done_by_index.contains_key(i))
        .collect();
    let cfg = Arc::new(cfg);
    let stages = Arc::new(Stages {
        director: Director::new(lib.clone()),
        backend: backend.clone(),
        checker: lib.checker(&cfg.check),
        plan: plan.clone(),
        cfg: cfg.clone(),
        versions: versions(&lib),
        judge,
        plan_checks: backend.name() != "sim",
        dedup: (backend.name() != "sim" && cfg.near_duplicate_threshold > 0.0)
            .then_some(cfg.near_duplicate_threshold),
        breaker: Default::default(),
        stop: Default::default(),
    });

    // The writer: a blocking thread that writes shards in order and records them.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<ShardJob>(2);
    let out = cfg.out.clone();
    let parquet_cfg = cfg.parquet.clone();
    let writer_events = on_event.clone();
    let writer = tokio::task::spawn_blocking(
        move || -> Result<(Ledger, Vec<ShardInfo>, corpus::DiversityCounter)> {
            let mut written = Vec::new();
            // The manifest's structural-diversity figures, counted as shards are written.
            let mut diversity = corpus::DiversityCounter::new();
            while let Some(job) = rx.blocking_recv() {
                job.accepted.iter().for_each(|d| diversity.add(d));
                let mut info = corpus::write_shard(&out, job.index, &job.accepted, &parquet_cfg)?;
                info.rejects = corpus::write_rejects(&out, job.index, &job.rejects)?;
                info.stats = Some(serde_json::to_value(&job.stats).unwrap_or_default());
                ledger.record(&info)?;
                tracing::info!(file = %info.file, rows = info.rows, bytes = info.bytes, rejects = job.rejects.len(), "shard written");
                writer_events(Event::Shard(info.clone()));
                written.push(info);
            }
            Ok((ledger, written, diversity))
        },
    );

    // The plan positions to generate, in order: walked lazily, not held.
    let mut positions = todo.iter().flat_map(|&k| layout.positions(k));
    let generated_now: u64 = todo
        .iter()
        .map(|&k| layout.positions(k).count() as u64)
        .sum();
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
    let mut current: Option<(u32, u64)> = shard_iter
        .next()
        .map(|k| (k, layout.positions(k).count() as u64));
    let mut job = ShardJob {
        index: 0,
        accepted: Vec::new(),
        rejects: Vec::new(),
        stats: ShardStats::default(),
    };
    let mut in_shard = 0u64;
    let mut halted = false;
    let mut dedup = stages.dedup.map(crate::dedup::NearDuplicates::new);
    // Shards of earlier runs whose signatures are not read yet, in order.
    let mut unread_done: Vec<u32> = if dedup.is_some() {
        done_by_index.keys().copied().collect()
    } else {
        Vec::new()
    };
    // Rejected attempts of a dialogue being regenerated (a near-duplicate), by sequence number.
    let mut carried: HashMap<usize, Vec<Dialogue>> = HashMap::new();
    'run: loop {
        while inflight.len() < cfg.concurrency
            && !stages.stopped()
            && next_dispatch < n_positions
            && next_dispatch - next_emit < max_ahead
        {
            let seq = next_dispatch;
            let position = positions.next().expect("n_positions positions");
            inflight.push(launch(&stages, seq, position, 0));
            next_dispatch += 1;
        }
        let Some((seq, res)) = inflight.next().await else {
            break;
        };
        let mut outcome =
            res.map_err(|e| Error::Config(format!("a generation task panicked: {e}")))?;
        if let Some(mut earlier) = carried.remove(&seq) {
            earlier.append(&mut outcome.rejects);
            outcome.rejects = earlier;
        }
        finished.insert(seq, outcome);
        // Once a dialogue was skipped (the run stopped), nothing after it is emitted: its
        // shard cannot be complete. The tasks still in flight are drained (they stop at their
        // next attempt), and the shards already complete are written.
        while !halted {
            let Some(mut outcome) = finished.remove(&next_emit) else {
                break;
            };
            if outcome.skipped {
                // Kept: its rejected attempts go into the partial shard written below.
                finished.insert(next_emit, outcome);
                halted = true;
                break;
            }
            let Some((k, len)) = current else { break 'run };
            // Near-duplicates, in plan order: a dialogue is compared with the accepted ones
            // before it in its cell — those of the shards already written (read in once the
            // shard being collected is past them) and those emitted so far.
            if let Some(store) = dedup.as_mut() {
                while let Some(&i) = unread_done.first()
                    && i < k
                {
                    store.ingest_except(
                        &cfg.out.join(&done_by_index[&i].file),
                        &step.header.regenerate,
                    )?;
                    unread_done.remove(0);
                }
                if let Some(d) = &outcome.accepted {
                    let sig = outcome
                        .signature
                        .take()
                        .unwrap_or_else(|| crate::dedup::signature(d));
                    match store.find(&outcome.cell_key, &sig) {
                        None => store.insert(&outcome.cell_key, &d.id, sig),
                        Some(m) => {
                            let next_attempt =
                                d.r#gen.as_ref().map_or(0, |g| g.attempt).saturating_add(1);
                            let mut dup = outcome.accepted.take().expect("checked above");
                            near_duplicate(&mut dup, &m, cfg.near_duplicate_threshold);
                            tracing::debug!(id = %dup.id, of = %m.id, "near-duplicate");
                            outcome.rejects.push(dup);
                            if next_attempt < cfg.max_attempts {
                                if stages.stopped() {
                                    // Not regenerated now: the run is stopping before this
                                    // dialogue, as if it had not been reached.
                                    outcome.skipped = true;
                                    finished.insert(next_emit, outcome);
                                    halted = true;
                                    break;
                                }
                                // Regenerated with the next attempt's seed; this position
                                // waits for it, the rejects so far travel with it.
                                carried.insert(next_emit, std::mem::take(&mut outcome.rejects));
                                inflight.push(launch(
                                    &stages,
                                    next_emit,
                                    outcome.position,
                                    next_attempt,
                                ));
                                break;
                            }
                            // The attempt budget is spent: given up as rejected, below.
                        }
                    }
                }
            }
            next_emit += 1;
            on_event(Event::Dialogue);
            job.index = k;
            job.add(outcome);
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
                current = shard_iter
                    .next()
                    .map(|k| (k, layout.positions(k).count() as u64));
            }
        }
    }
    // A stopped run writes what it has: the shard being collected and every dialogue finished
    // past the one it stopped before, as partial shards (`ShardStats::partial`). They are in
    // the manifest like any shard; a resumed run regenerates them whole (the calls already
    // made come from the response cache), so the finished corpus is an uninterrupted run's.
    // (The breaker may trip on a dialogue's last attempt: then nothing was skipped, and the
    // loop ends because nothing more was dispatched.)
    if halted || stages.stopped() {
        let mut partial: BTreeMap<u32, ShardJob> = BTreeMap::new();
        if let Some((k, _)) = current {
            job.index = k;
            partial.insert(k, job);
        }
        for (_, mut outcome) in std::mem::take(&mut finished) {
            let k = layout.first_shard + (outcome.position / layout.rows) as u32;
            // Past the gap there is no regenerating: a near-duplicate is only rejected.
            if let (Some(store), Some(d)) = (dedup.as_mut(), outcome.accepted.as_ref()) {
                let sig = outcome
                    .signature
                    .take()
                    .unwrap_or_else(|| crate::dedup::signature(d));
                match store.find(&outcome.cell_key, &sig) {
                    None => store.insert(&outcome.cell_key, &d.id, sig),
                    Some(m) => {
                        let mut dup = outcome.accepted.take().expect("checked above");
                        near_duplicate(&mut dup, &m, cfg.near_duplicate_threshold);
                        outcome.rejects.push(dup);
                        outcome.skipped = true;
                    }
                }
            }
            partial
                .entry(k)
                .or_insert_with(|| ShardJob::new(k))
                .add(outcome);
        }
        for (_, mut j) in partial {
            if j.accepted.is_empty() && j.rejects.is_empty() {
                continue;
            }
            j.stats.partial = true;
            tracing::warn!(
                shard = j.index,
                dialogues = j.accepted.len(),
                "writing a partial shard: the run stopped"
            );
            if tx.send(j).await.is_err() {
                break;
            }
        }
    }
    drop(tx);
    let (mut ledger, written, mut diversity) = writer
        .await
        .map_err(|e| Error::Config(format!("the shard writer panicked: {e}")))??;
    let written_now: std::collections::HashSet<u32> = written.iter().map(|s| s.index).collect();
    for info in written {
        done_by_index.insert(info.index, info);
    }
    // A step that made scenarios again: once its own shards are all there, the shards before
    // it are rewritten without those scenarios' old dialogues.
    let step_written = layout.indices().all(|k| {
        done_by_index
            .get(&k)
            .is_some_and(|s| !s.shard_stats().partial)
    });
    if step_written && !stages.stopped() && !step.header.regenerate.is_empty() {
        let out = cfg.out.clone();
        let parquet_cfg = cfg.parquet.clone();
        let header = step.header.clone();
        let next = layout.indices().end;
        done_by_index = tokio::task::spawn_blocking(move || {
            prune(
                &out,
                &header,
                done_by_index,
                &mut ledger,
                &parquet_cfg,
                next,
            )
        })
        .await
        .map_err(|e| Error::Config(format!("the shard rewriter panicked: {e}")))??;
    }
    // Shards this run did not write (earlier steps, a resumed run, shards rewritten without a
    // remade scenario) are read back for the diversity figures: they cover the final corpus.
    diversity.add_shards(
        done_by_index
            .values()
            .filter(|s| !written_now.contains(&s.index))
            .map(|s| cfg.out.join(&s.file)),
    )?;
    let mut manifest = build_manifest(
        &plan,
        &cfg,
        &fingerprint,
        &lib,
        done_by_index.into_values().collect(),
        effective_config,
    );
    manifest.steps = step_records(&step.steps);
    manifest.diversity = Some(diversity.finish());
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

/// The counts of a ledger's shard line.
pub fn stats_of(info: &ShardInfo) -> ShardStats {
    info.shard_stats()
}

/// A shard's counts made again from what it holds: its dialogues and its rejects file, grouped
/// by id as the pipeline collected them (an accepted dialogue with its rejected attempts; a
/// dialogue given up as rejected; one that failed).
fn recount(accepted: Vec<Dialogue>, rejects: Vec<Dialogue>) -> ShardStats {
    let mut job = ShardJob::new(0);
    let mut by_id: BTreeMap<String, Vec<Dialogue>> = BTreeMap::new();
    for r in rejects {
        by_id.entry(r.id.clone()).or_default().push(r);
    }
    let failed_kind = callbench_model::vocab::ViolationKind::NaturalGenerationFailed.as_str();
    for d in accepted {
        let rejects = by_id.remove(&d.id).unwrap_or_default();
        job.add(Outcome {
            position: 0,
            cell_key: cell_key(&d),
            accepted: Some(d),
            signature: None,
            rejects,
            failure: None,
            skipped: false,
        });
    }
    for (_, mut rejects) in by_id {
        let last_failed = rejects.last().is_some_and(|r| {
            r.qc.as_ref()
                .is_some_and(|q| q.violations.iter().any(|v| v.kind == failed_kind))
        });
        let failure = if last_failed { rejects.pop() } else { None };
        let Some(first) = failure.as_ref().or(rejects.first()) else {
            continue;
        };
        job.add(Outcome {
            position: 0,
            cell_key: cell_key(first),
            accepted: None,
            signature: None,
            rejects,
            failure,
            skipped: false,
        });
    }
    job.stats
}

/// Rewrites the shards before `header`'s step that hold dialogues of the scenarios it made
/// again, without them, as new shards from index `next` on that `replace` the old ones (one
/// ledger line each, so a crash leaves either the old shard or its replacement counted, never
/// both); the old files are deleted. Returns the shards that count.
fn prune(
    out: &std::path::Path,
    header: &RunHeader,
    mut done: BTreeMap<u32, ShardInfo>,
    ledger: &mut Ledger,
    parquet: &ShardWriterConfig,
    next: u32,
) -> Result<BTreeMap<u32, ShardInfo>> {
    let all: Vec<ShardInfo> = done.values().cloned().collect();
    let stale: Vec<ShardInfo> = crate::grow::stale_shards(header, &all)
        .into_iter()
        .cloned()
        .collect();
    let first = done.keys().map(|k| k + 1).max().unwrap_or(0).max(next);
    let keep = |d: &Dialogue| !header.regenerate.contains(&d.scenario);
    for (next, old) in (first..).zip(stale) {
        let accepted: Vec<Dialogue> = corpus::read_shard(&out.join(&old.file))?
            .into_iter()
            .filter(keep)
            .collect();
        let mut rejects: Vec<Dialogue> = Vec::new();
        if let Some(r) = &old.rejects {
            let path = out.join(r);
            for (line, d) in corpus::read_jsonl(&path)? {
                let d = d.map_err(|message| Error::Io {
                    path: path.clone(),
                    message: format!("line {line}: {message}"),
                })?;
                if keep(&d) {
                    rejects.push(d);
                }
            }
        }
        let mut info = corpus::write_shard(out, next, &accepted, parquet)?;
        info.rejects = corpus::write_rejects(out, next, &rejects)?;
        info.stats = Some(serde_json::to_value(recount(accepted, rejects)).unwrap_or_default());
        info.replaces = vec![old.index];
        ledger.record(&info)?;
        for rel in [Some(&old.file), old.rejects.as_ref()]
            .into_iter()
            .flatten()
        {
            let path = out.join(rel);
            if let Err(e) = std::fs::remove_file(&path)
                && e.kind() != std::io::ErrorKind::NotFound
            {
                return Err(Error::Io {
                    path,
                    message: e.to_string(),
                });
            }
        }
        tracing::info!(
            old = old.index,
            new = next,
            rows = info.rows,
            "rewrote a shard without the regenerated scenarios"
        );
        done.remove(&old.index);
        done.insert(next, info);
    }
    Ok(done)
}

/// The manifest's record of every generation step, from the ledger's headers.
fn step_records(steps: &[RunHeader]) -> Vec<corpus::StepRecord> {
    let mut out = Vec::new();
    let mut before: BTreeMap<String, u64> = BTreeMap::new();
    let mut scenarios_before: BTreeMap<String, String> = BTreeMap::new();
    for h in steps {
        let total: u64 = h.cells.values().sum();
        let regenerated: u64 = before
            .iter()
            .filter(|(k, _)| {
                let s = k.split('/').next().unwrap_or_default();
                h.regenerate.iter().any(|r| r == s)
            })
            .map(|(_, v)| v)
            .sum();
        let kept = before.values().sum::<u64>() - regenerated;
        out.push(corpus::StepRecord {
            step: h.step,
            count: h.count,
            first_shard: h.first_shard,
            kept,
            added: total - kept - regenerated,
            regenerated: h.regenerate.clone(),
            new_scenarios: h
                .scenarios
                .keys()
                .filter(|s| !scenarios_before.contains_key(*s))
                .cloned()
                .collect(),
            scenarios: h.scenarios.clone(),
        });
        before = h.cells.clone();
        scenarios_before = h.scenarios.clone();
    }
    out
}

/// The run fingerprint — seed, the shared library files the run's dialogues depend on and every
/// setting that changes them — and those files' fingerprints. Scenario files and counts are
/// not in it: a growing corpus compares them one by one.
pub fn run_fingerprint(
    lib: &Library,
    backend: &str,
    models: &BTreeMap<String, String>,
    cfg: &GenerateConfig,
) -> (String, BTreeMap<String, String>) {
    let llm = backend != "sim";
    let mut shared = lib.fingerprints.shared.clone();
    if llm || cfg.judge.enabled {
        shared.extend(lib.fingerprints.prompts.clone());
    }
    let extra = format!(
        "{}{}|{}|{}|{:?}|{}|{}|split {}/{}/{}",
        cfg.max_turns,
        // The minimum length changes LLM dialogues only; the offline corpus keeps its
        // fingerprint (and its resumable ledgers).
        if llm {
            // So do near-duplicate removal and the prompts.
            format!(
                "-{}-nd{}-p{}",
                cfg.min_turns, cfg.near_duplicate_threshold, lib.prompts_digest
            )
        } else {
            String::new()
        },
        cfg.max_attempts,
        backend,
        // The uncertain-finding policy as it acts: `ask_judge` without the judge is `report`,
        // so the default did not change the fingerprint of runs without the judge.
        CheckConfig {
            uncertain: cfg.check.uncertain.effective(cfg.judge.enabled),
            ..cfg.check.clone()
        },
        serde_json::to_string(models).unwrap_or_default(),
        // The judge changes which dialogues are accepted (and its prompt, how).
        if cfg.judge.enabled {
            serde_json::to_string(&cfg.judge).unwrap_or_default() + &lib.prompts_digest
        } else {
            String::new()
        },
        // The splits are written into the shards: a ledger of shards without them (or with
        // other shares) is another run.
        cfg.split.train,
        cfg.split.validation,
        cfg.split.test
    );
    let mut h = callbench_model::plan::mix64(cfg.seed);
    for (k, v) in &shared {
        h = callbench_model::plan::mix64(
            h ^ callbench_model::plan::fnv1a(format!("{k}={v}").as_bytes()),
        );
    }
    (
        format!(
            "{h:016x}-{:016x}",
            callbench_model::plan::fnv1a(extra.as_bytes())
        ),
        shared,
    )
}

fn count_second_opinions(counts: &mut BTreeMap<String, u64>, d: &Dialogue) {
    for v in d.qc.iter().flat_map(|q| &q.violations) {
        if let Some(word) = crate::judge::SecondOpinion::recorded(v) {
            *counts.entry("asked".into()).or_default() += 1;
            *counts.entry(word.into()).or_default() += 1;
        }
    }
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
    let mut splits = BTreeMap::new();
    for s in &shards {
        let st = s.shard_stats();
        for (into, from) in [
            (&mut report.failure_reasons, &st.failure_reasons),
            (&mut report.rejected_kinds, &st.rejected_kinds),
            (&mut report.repairs, &st.repairs),
            (&mut report.second_opinions, &st.second_opinions),
            (&mut splits, &st.splits),
        ] {
            for (k, v) in from {
                *into.entry(k.clone()).or_default() += v;
            }
        }
        report.rejected_attempts += st.rejected_attempts;
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
        splits,
        findings,
        config: effective_config,
        usage: serde_json::json!({}),
        library_digest: lib.set.digest.clone(),
        diversity: None,
        report,
        steps: Vec::new(),
    }
}
