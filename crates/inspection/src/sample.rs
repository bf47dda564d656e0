//! The stratified manual-inspection sample: which dialogues the auditors read.
//!
//! The corpus is read streaming: twice only the id and stratum columns (scenario × preset case ×
//! relation) — to size the strata, then to pick each stratum's share — and once whole, for the
//! chosen dialogues themselves. Each stratum gets its share of
//! the sample ([`allocate`]), and within a stratum the dialogues are taken in the order of a
//! keyed hash of `(seed, id)` ([`rank`]), so a draw depends only on the seed and the set of ids —
//! not on how the corpus was split into shards, nor on the order the shards are read.
//!
//! **Rejects.** A sample of accepted dialogues alone cannot measure the checker: every one of
//! them was accepted, so agreement on accept/reject is degenerate and the checker's findings on
//! rejected dialogues are never seen. So a second, separate stratified sample is drawn from
//! `DIR/rejects/*.jsonl` at [`SampleConfig::reject_rate`] (default the same 10 %; 0 turns it
//! off). Each sampled entry says where it came from ([`Origin`]); the human acceptance rate is
//! computed over the corpus part only, the checker's agreement over both. A rejected dialogue
//! that was regenerated may appear in the rejects more than once (one line per attempt); the
//! sampler keeps its last rejected attempt, skips generation failures (no turns), and never
//! takes an id that is already in the corpus part, so an id names one dialogue in the sample.
//!
//! **Bounded memory.** The sample files hold the dialogues in review order, which is not the
//! order they are read in. The full read therefore sorts them into chunks of review positions
//! ([`SAMPLE_CHUNK`] each, 4,096): with one chunk they are simply kept; with more, every sampled
//! dialogue is appended as it is read to one staging file of length-prefixed records (JSON, with
//! serde_json's `float_roundtrip` so that judge scores read back exactly) under
//! `DIR/inspection/.sample-staging/`, and an index keeps each review position's offset and
//! length (16 bytes per sampled dialogue). The chunks are then taken one after the other, their
//! records read back by offset, and written in order. `sample.parquet` is encoded a whole row
//! group (8,192 rows) at a time from the chunks' Arrow arrays, so its bytes do not depend on the
//! chunk size. So the sampler holds 8 bytes per corpus dialogue (its rank, to find a repeated
//! id), the sampled ids, entries and index, about one chunk of dialogues and one row group of
//! Arrow arrays, and reads the corpus three times (twice only the id and stratum columns)
//! however many chunks there are; nothing grows with the number of chunks. `sample.parquet`,
//! `sample.jsonl` and `sample.html` are each streamed to a temp file beside it and renamed into
//! place only when complete.

use crate::error::{InspectionError, Result};
use crate::files::{
    self, SAMPLE_HTML, SAMPLE_JSON, SAMPLE_JSONL, SAMPLE_PARQUET, VERDICTS_JSONL, inspection_dir,
};
use crate::html::SamplePage;
use callbench_model::{Dialogue, PresetCase, Relation};
use corpus::{
    AtomicFile, JsonlReader, JsonlWriter, KeyReader, ShardReader, ShardStreamWriter,
    ShardWriterConfig,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet};
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The format of `sample.json` this crate writes.
pub const SAMPLE_FORMAT_VERSION: u32 = 1;

/// The generation-failure kind the pipeline records for a dialogue it could not produce at all;
/// such entries of the rejects files are not checker decisions and are never sampled.
const GENERATION_FAILED: &str = "natural.generation_failed";

/// How the sample is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SampleConfig {
    /// Share of each stratum of the corpus to inspect, in (0, 1]. The paper inspects 10 %.
    #[serde(default = "default_rate")]
    pub rate: f64,
    /// The seed of the draw; the same seed and corpus give the same sample.
    pub seed: u64,
    /// Share of each stratum of the checker's rejects to inspect beside the corpus, in [0, 1];
    /// 0 draws no rejects. See the module documentation for why they are sampled.
    #[serde(default = "default_rate")]
    pub reject_rate: f64,
    /// Draw even when auditors have recorded verdicts on a different earlier sample (their
    /// verdicts then no longer match the sample). Off by default.
    pub replace_reviewed: bool,
}

fn default_rate() -> f64 {
    0.10
}

impl Default for SampleConfig {
    fn default() -> Self {
        SampleConfig {
            rate: default_rate(),
            seed: 0,
            reject_rate: default_rate(),
            replace_reviewed: false,
        }
    }
}

impl SampleConfig {
    /// Checks the rates: `rate` in (0, 1], `reject_rate` in [0, 1].
    pub fn validate(&self) -> Result<()> {
        if !(self.rate.is_finite() && self.rate > 0.0 && self.rate <= 1.0) {
            return Err(InspectionError::Config {
                key: "rate",
                message: format!("{} is not in (0, 1]", self.rate),
            });
        }
        if !(self.reject_rate.is_finite() && (0.0..=1.0).contains(&self.reject_rate)) {
            return Err(InspectionError::Config {
                key: "reject_rate",
                message: format!("{} is not in [0, 1]", self.reject_rate),
            });
        }
        Ok(())
    }
}

/// A stratum: scenario × preset case × relation, the plan's cell.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Stratum {
    /// Scenario name.
    pub scenario: String,
    /// Preset case.
    pub preset_case: PresetCase,
    /// Relation between the owner's goal and the caller's.
    pub relation: Relation,
}

impl Stratum {
    /// The stratum of a dialogue key.
    pub fn of_key(k: corpus::DialogueKey) -> Stratum {
        Stratum {
            scenario: k.scenario,
            preset_case: k.preset_case,
            relation: k.relation,
        }
    }

    /// The stratum of a dialogue.
    pub fn of(d: &Dialogue) -> Stratum {
        Stratum {
            scenario: d.scenario.clone(),
            preset_case: d.preset_case,
            relation: d.relation,
        }
    }
}

impl fmt::Display for Stratum {
    /// `takeout/regular/conflict`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.scenario, self.preset_case, self.relation
        )
    }
}

/// Where a sampled dialogue comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    /// The finished corpus (`shards/`): the checker accepted it.
    Corpus,
    /// The checker's rejects (`rejects/`), sampled to measure the checker.
    Rejects,
}

impl Origin {
    /// `corpus` or `rejects`.
    pub fn as_str(self) -> &'static str {
        match self {
            Origin::Corpus => "corpus",
            Origin::Rejects => "rejects",
        }
    }
}

/// One stratum's population and sample counts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StratumSample {
    /// The stratum.
    #[serde(flatten)]
    pub stratum: Stratum,
    /// Dialogues of the stratum in the corpus.
    pub population: u64,
    /// Of them, sampled.
    pub sampled: u64,
    /// Distinct rejected dialogues of the stratum in the rejects files.
    #[serde(default)]
    pub rejects_population: u64,
    /// Of them, sampled.
    #[serde(default)]
    pub rejects_sampled: u64,
}

/// One sampled dialogue, as the review page and the audit need it without reading the dialogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleEntry {
    /// The dialogue id; unique within the sample.
    pub id: String,
    /// Its stratum.
    #[serde(flatten)]
    pub stratum: Stratum,
    /// Corpus or rejects.
    pub origin: Origin,
    /// The generation attempt (0 = first try), from `gen.attempt`.
    #[serde(default)]
    pub attempt: u32,
    /// Number of turns; a finding's turn must be below it.
    pub turns: usize,
    /// The checker's verdict (`qc.passed`; a corpus dialogue without `qc` counts as passed).
    pub checker_passed: bool,
    /// The violation kinds the checker reported, sorted, each once.
    #[serde(default)]
    pub checker_kinds: Vec<String>,
}

/// What was drawn: the content of `DIR/inspection/sample.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SampleSummary {
    /// [`SAMPLE_FORMAT_VERSION`].
    pub format_version: u32,
    /// When the sample was drawn, RFC 3339.
    pub created_at: String,
    /// The corpus rate used.
    pub rate: f64,
    /// The rejects rate used.
    pub reject_rate: f64,
    /// The seed used.
    pub seed: u64,
    /// Dialogues in the corpus.
    pub population: u64,
    /// Of them, sampled.
    pub sampled: u64,
    /// Distinct rejected dialogues in the rejects files (generation failures left out).
    pub rejects_population: u64,
    /// Of them, sampled.
    pub rejects_sampled: u64,
    /// Per stratum, in stratum order.
    pub strata: Vec<StratumSample>,
    /// The sampled ids in review order (corpus and rejects interleaved by the keyed hash, so
    /// that any prefix the auditors get through spreads over the strata).
    pub ids: Vec<String>,
    /// The sampled dialogues' entries, in the order of `ids`.
    pub dialogues: Vec<SampleEntry>,
}

impl SampleSummary {
    /// The entry of a sampled id.
    pub fn entry(&self, id: &str) -> Option<&SampleEntry> {
        self.dialogues.iter().find(|e| e.id == id)
    }
}

/// Reads `DIR/inspection/sample.json`; a missing file is [`InspectionError::NoSample`].
pub fn read_sample(corpus_dir: &Path) -> Result<SampleSummary> {
    let path = inspection_dir(corpus_dir).join(SAMPLE_JSON);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(InspectionError::NoSample {
                path,
                corpus: corpus_dir.to_path_buf(),
            });
        }
        Err(e) => return Err(InspectionError::io(&path, e)),
    };
    serde_json::from_slice(&bytes).map_err(|e| InspectionError::json(&path, None, e))
}

/// Reads the sampled dialogues back from `DIR/inspection/sample.jsonl`, in review order.
pub fn read_sample_dialogues(corpus_dir: &Path) -> Result<Vec<Dialogue>> {
    let path = inspection_dir(corpus_dir).join(SAMPLE_JSONL);
    let mut out = Vec::new();
    for (line, item) in JsonlReader::<Dialogue>::open(&path)? {
        out.push(item.map_err(|m| InspectionError::json(&path, Some(line), m))?);
    }
    Ok(out)
}

/// The keyed hash that orders a stratum's dialogues for the draw: the first 8 bytes of
/// SHA-256 over a domain tag, the seed (little-endian) and the id.
pub fn rank(seed: u64, origin: Origin, id: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(b"callbench-inspection-sample\0");
    h.update(origin.as_str().as_bytes());
    h.update(b"\0");
    h.update(seed.to_le_bytes());
    h.update(id.as_bytes());
    let d = h.finalize();
    u64::from_be_bytes(d[..8].try_into().expect("8 bytes"))
}

/// How many dialogues each stratum gives, for the quotas `rate × size`: every stratum gets
/// ⌊quota⌋, a non-empty stratum at least one, and the rest of `round(rate × Σ sizes)` goes one
/// each to the strata with the largest remainders (ties to the earlier stratum; a stratum
/// raised to one has used its remainder). So each stratum gets ⌊quota⌋ or one more — within
/// ±1 of its quota — never more than its size, and the total exceeds the rounded rate only by
/// what the minimum of one adds.
pub fn allocate(sizes: &[u64], rate: f64) -> Vec<u64> {
    const EPS: f64 = 1e-9;
    let quotas: Vec<f64> = sizes.iter().map(|&n| rate * n as f64).collect();
    let floors: Vec<u64> = quotas.iter().map(|q| (q + EPS).floor() as u64).collect();
    let mut out: Vec<u64> = floors
        .iter()
        .zip(sizes)
        .map(|(&f, &n)| if n > 0 { f.max(1) } else { 0 })
        .collect();
    let total = (rate * sizes.iter().sum::<u64>() as f64 + EPS).round() as u64;
    let mut extra = total.saturating_sub(out.iter().sum());
    let rems: Vec<f64> = quotas
        .iter()
        .zip(&floors)
        .map(|(q, &f)| q - f as f64)
        .collect();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| rems[b].total_cmp(&rems[a]).then(a.cmp(&b)));
    for i in order {
        if extra == 0 {
            break;
        }
        if rems[i] > EPS && out[i] == floors[i] && out[i] < sizes[i] {
            out[i] += 1;
            extra -= 1;
        }
    }
    for (k, &n) in out.iter_mut().zip(sizes) {
        *k = (*k).min(n);
    }
    out
}

/// The corpus's shard files: those the manifest lists, or, without a manifest, every
/// `shards/*.parquet` in name order.
fn shard_paths(corpus_dir: &Path) -> Result<Vec<PathBuf>> {
    if corpus::manifest_path(corpus_dir).exists() {
        let m = corpus::read_manifest(corpus_dir)?;
        return Ok(m.shards.iter().map(|s| corpus_dir.join(&s.file)).collect());
    }
    list(&corpus_dir.join(corpus::SHARDS_DIR), ".parquet")
}

/// The corpus's rejects files: those the manifest lists, or every `rejects/*.jsonl`.
fn rejects_paths(corpus_dir: &Path) -> Result<Vec<PathBuf>> {
    if corpus::manifest_path(corpus_dir).exists() {
        let m = corpus::read_manifest(corpus_dir)?;
        return Ok(m.rejects.iter().map(|f| corpus_dir.join(f)).collect());
    }
    list(&corpus_dir.join(corpus::REJECTS_DIR), ".jsonl")
}

fn list(dir: &Path, suffix: &str) -> Result<Vec<PathBuf>> {
    let rd = match std::fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(InspectionError::io(dir, e)),
    };
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| InspectionError::io(dir, e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(suffix) && !name.starts_with('.') {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Rows per batch when streaming shards: bounds what is held beside the ids.
const BATCH: usize = 1024;

/// Rows per batch when reading only the id and cell columns.
const KEY_BATCH: usize = 8192;

/// A rejected dialogue the sampler may take: its last rejected attempt.
struct RejectRef {
    stratum: Stratum,
    attempt: u32,
}

/// Draws the sample of the corpus in `corpus_dir` and writes it under `DIR/inspection/`:
/// `sample.parquet` (the shard schema), `sample.jsonl` (interchange), `sample.html` (printable)
/// and, last, `sample.json` ([`SampleSummary`]), each atomically. Returns the summary.
///
/// Refuses ([`InspectionError::SampleInUse`]) to replace a sample that auditors have recorded
/// verdicts on by a different one, unless [`SampleConfig::replace_reviewed`] is set; drawing
/// the same sample again (same seed and corpus) is always allowed.
pub fn draw_sample(corpus_dir: &Path, cfg: &SampleConfig) -> Result<SampleSummary> {
    draw_sample_in_chunks(corpus_dir, cfg, SAMPLE_CHUNK)
}

/// Sampled dialogues held in memory at a time while the sample files are written (see the
/// module documentation). Below the 10 % sample of a 50,000-dialogue corpus, so that the
/// default corpus already takes the bounded path and larger ones hold no more. `sample.parquet`
/// is still encoded a whole row group at a time, from the row group's Arrow arrays
/// ([`corpus::ShardStreamWriter::buffer`]), so its bytes do not depend on the chunk.
pub const SAMPLE_CHUNK: usize = 4096;

/// [`draw_sample`], holding at most `chunk` sampled dialogues at a time (0 counts as 1) while it
/// writes the files. The sample is the same for every chunk size: the same ids, and the same
/// dialogues in the same order in `sample.jsonl`, `sample.html` and `sample.parquet`.
pub fn draw_sample_in_chunks(
    corpus_dir: &Path,
    cfg: &SampleConfig,
    chunk: usize,
) -> Result<SampleSummary> {
    cfg.validate()?;
    let shards = shard_paths(corpus_dir)?;

    // Pass 1: each stratum's size, from the id and cell columns only. Per dialogue only its
    // rank is kept (8 bytes), to find a repeated id: equal ids have equal ranks.
    let mut sizes_of: BTreeMap<Stratum, u64> = BTreeMap::new();
    let mut ranks: Vec<u64> = Vec::new();
    for path in &shards {
        for keys in KeyReader::with_batch_size(path, KEY_BATCH)? {
            for k in keys? {
                ranks.push(rank(cfg.seed, Origin::Corpus, &k.id));
                *sizes_of.entry(Stratum::of_key(k)).or_default() += 1;
            }
        }
    }
    if ranks.is_empty() {
        return Err(InspectionError::BadCorpus {
            path: corpus_dir.join(corpus::SHARDS_DIR),
            message: "the corpus holds no dialogues to sample".into(),
        });
    }
    refuse_duplicates(&shards, cfg.seed, ranks)?;

    // Rejects, pass 1: the last rejected attempt of each id.
    let rejects_files = if cfg.reject_rate > 0.0 {
        rejects_paths(corpus_dir)?
    } else {
        Vec::new()
    };
    let mut rejects: HashMap<String, RejectRef> = HashMap::new();
    for path in &rejects_files {
        for_each_reject(path, |d| {
            let attempt = d.r#gen.as_ref().map_or(0, |g| g.attempt);
            let keep = rejects.get(&d.id).is_none_or(|r| attempt >= r.attempt);
            if keep {
                rejects.insert(
                    d.id.clone(),
                    RejectRef {
                        stratum: Stratum::of(&d),
                        attempt,
                    },
                );
            }
            Ok(())
        })?;
    }

    // Allocation and draw, corpus first.
    let keys: Vec<Stratum> = sizes_of
        .keys()
        .cloned()
        .chain(rejects.values().map(|r| r.stratum.clone()))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let sizes: Vec<u64> = keys
        .iter()
        .map(|k| sizes_of.get(k).copied().unwrap_or(0))
        .collect();
    drop(sizes_of);
    let ks = allocate(&sizes, cfg.rate);
    let mut picked: Vec<(u64, Origin, String)> = Vec::new();
    let mut chosen: HashSet<String> = HashSet::new();
    let mut counts: Vec<StratumSample> = Vec::new();
    for (i, (key, members)) in keys
        .iter()
        .zip(lowest_ranks(&shards, cfg.seed, &keys, &ks)?)
        .enumerate()
    {
        for (r, id) in members {
            chosen.insert(id.clone());
            picked.push((r, Origin::Corpus, id));
        }
        counts.push(StratumSample {
            stratum: key.clone(),
            population: sizes[i],
            sampled: ks[i],
            rejects_population: 0,
            rejects_sampled: 0,
        });
    }

    let mut reject_strata: BTreeMap<Stratum, Vec<(u64, String)>> = BTreeMap::new();
    for (id, r) in &rejects {
        let rk = rank(cfg.seed, Origin::Rejects, id);
        reject_strata
            .entry(r.stratum.clone())
            .or_default()
            .push((rk, id.clone()));
    }
    let rsizes: Vec<u64> = keys
        .iter()
        .map(|k| reject_strata.get(k).map_or(0, |v| v.len() as u64))
        .collect();
    let rks = if cfg.reject_rate > 0.0 {
        allocate(&rsizes, cfg.reject_rate)
    } else {
        vec![0; keys.len()]
    };
    let mut reject_picks: HashMap<String, u32> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        let mut members = reject_strata.remove(key).unwrap_or_default();
        members.sort_unstable();
        let mut taken = 0;
        for (r, id) in members {
            if taken == rks[i] {
                break;
            }
            if chosen.contains(&id) {
                continue;
            }
            reject_picks.insert(id.clone(), rejects[&id].attempt);
            picked.push((r, Origin::Rejects, id));
            taken += 1;
        }
        counts[i].rejects_population = rsizes[i];
        counts[i].rejects_sampled = taken;
    }
    drop(rejects);

    // Review order: a position for each sampled dialogue.
    picked.sort();
    drop(chosen);
    let mut corpus_pos: HashMap<String, usize> = HashMap::new();
    let mut reject_pos: HashMap<String, (u32, usize)> = HashMap::new();
    for (p, (_, origin, id)) in picked.iter().enumerate() {
        match origin {
            Origin::Corpus => {
                corpus_pos.insert(id.clone(), p);
            }
            Origin::Rejects => {
                reject_pos.insert(id.clone(), (reject_picks[id], p));
            }
        }
    }
    drop(reject_picks);
    let origins: Vec<Origin> = picked.iter().map(|&(_, origin, _)| origin).collect();
    let ids: Vec<String> = picked.into_iter().map(|(_, _, id)| id).collect();

    let mut summary = SampleSummary {
        format_version: SAMPLE_FORMAT_VERSION,
        created_at: files::now_rfc3339(),
        rate: cfg.rate,
        reject_rate: cfg.reject_rate,
        seed: cfg.seed,
        population: counts.iter().map(|c| c.population).sum(),
        sampled: counts.iter().map(|c| c.sampled).sum(),
        rejects_population: counts.iter().map(|c| c.rejects_population).sum(),
        rejects_sampled: counts.iter().map(|c| c.rejects_sampled).sum(),
        strata: counts,
        dialogues: Vec::with_capacity(ids.len()),
        ids,
    };
    refuse_replacing_reviewed(corpus_dir, &summary, cfg)?;

    // Pass 2: the chosen dialogues themselves, sorted into chunks of review positions.
    let dir = inspection_dir(corpus_dir);
    std::fs::create_dir_all(&dir).map_err(|e| InspectionError::io(&dir, e))?;
    let mut chunks = Chunks::new(&dir, summary.ids.len(), chunk)?;
    for path in &shards {
        for batch in ShardReader::with_batch_size(path, BATCH)? {
            for d in batch? {
                if let Some(&p) = corpus_pos.get(&d.id) {
                    chunks.push(p, d)?;
                }
            }
        }
    }
    for path in &rejects_files {
        for_each_reject(path, |d| {
            let attempt = d.r#gen.as_ref().map_or(0, |g| g.attempt);
            match reject_pos.get(&d.id) {
                Some(&(a, p)) if a == attempt => chunks.push(p, d),
                _ => Ok(()),
            }
        })?;
    }
    drop(corpus_pos);
    drop(reject_pos);

    // Write the files chunk by chunk, in review order.
    let mut out = SampleFiles::create(&dir, &summary)?;
    for c in 0..chunks.count() {
        let (start, dialogues) = chunks.take(c, &summary.ids, corpus_dir)?;
        for (i, d) in dialogues.iter().enumerate() {
            let entry = entry_of(d, origins[start + i]);
            out.dialogue(&entry, d)?;
            summary.dialogues.push(entry);
        }
        out.parquet
            .buffer(dialogues)
            .map_err(InspectionError::from)?;
    }
    out.finish()?;
    chunks.close()?;
    let path = dir.join(SAMPLE_JSON);
    // Streamed: the summary of a large sample is megabytes of JSON.
    let mut file = AtomicFile::create(&path)?;
    serde_json::to_writer_pretty(&mut file, &summary)
        .map_err(|e| InspectionError::json(&path, None, e))?;
    file.write_all(b"\n")
        .map_err(|e| InspectionError::io(file.temp_path(), e))?;
    file.commit()?;

    tracing::info!(
        sampled = summary.sampled,
        rejects = summary.rejects_sampled,
        population = summary.population,
        "drew the inspection sample"
    );
    Ok(summary)
}

/// Fails if an id occurs twice in the corpus, naming it and both files. `ranks` holds every
/// corpus dialogue's rank: distinct ranks mean distinct ids, and only the ids of a rank that
/// occurs twice (a repeated id, or, rarely, two ids of the same rank) are looked at again.
fn refuse_duplicates(shards: &[PathBuf], seed: u64, mut ranks: Vec<u64>) -> Result<()> {
    ranks.sort_unstable();
    let twice: HashSet<u64> = ranks
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    drop(ranks);
    if twice.is_empty() {
        return Ok(());
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (si, path) in shards.iter().enumerate() {
        for keys in KeyReader::with_batch_size(path, KEY_BATCH)? {
            for k in keys? {
                if !twice.contains(&rank(seed, Origin::Corpus, &k.id)) {
                    continue;
                }
                if let Some(&first) = seen.get(&k.id) {
                    return Err(InspectionError::BadCorpus {
                        path: path.clone(),
                        message: format!(
                            "dialogue id {:?} also appears in {}",
                            k.id,
                            shards[first].display()
                        ),
                    });
                }
                seen.insert(k.id, si);
            }
        }
    }
    Ok(())
}

/// For each stratum of `keys` (sorted), its `ks[i]` corpus dialogues of the lowest
/// `(rank, id)`, in that order: a second read of the id and cell columns that keeps, per
/// stratum, a max-heap of at most its share, so that what is held grows with the sample, not
/// with the corpus. The ids are distinct ([`refuse_duplicates`]).
fn lowest_ranks(
    shards: &[PathBuf],
    seed: u64,
    keys: &[Stratum],
    ks: &[u64],
) -> Result<Vec<Vec<(u64, String)>>> {
    let mut heaps: Vec<BinaryHeap<(u64, String)>> = ks
        .iter()
        .map(|&k| BinaryHeap::with_capacity(k as usize))
        .collect();
    for path in shards {
        for batch in KeyReader::with_batch_size(path, KEY_BATCH)? {
            for k in batch? {
                let cell = (k.scenario.as_str(), k.preset_case, k.relation);
                let Ok(i) = keys.binary_search_by(|s| {
                    (s.scenario.as_str(), s.preset_case, s.relation).cmp(&cell)
                }) else {
                    continue;
                };
                let want = ks[i] as usize;
                if want == 0 {
                    continue;
                }
                let r = rank(seed, Origin::Corpus, &k.id);
                let heap = &mut heaps[i];
                if heap.len() < want {
                    heap.push((r, k.id));
                } else if let Some(top) = heap.peek()
                    && (r, k.id.as_str()) < (top.0, top.1.as_str())
                {
                    heap.pop();
                    heap.push((r, k.id));
                }
            }
        }
    }
    Ok(heaps.into_iter().map(BinaryHeap::into_sorted_vec).collect())
}

/// The staging folder of the spilled dialogues, inside the inspection folder.
const STAGING_DIR: &str = ".sample-staging";

/// The one staging file in [`STAGING_DIR`].
const STAGING_FILE: &str = "dialogues.bin";

/// The sampled dialogues of the second read, sorted into chunks of `size` review positions
/// (chunk `c` holds positions `c × size ..`): kept in memory when there is one chunk, else
/// spilled as they come to one staging file of length-prefixed records in reading order, with
/// an index from review position to record, so that what is held is 16 bytes per sampled
/// dialogue and one chunk of dialogues at a time however many chunks there are.
struct Chunks {
    size: usize,
    total: usize,
    /// The one chunk, when there is only one.
    memory: Vec<(usize, Dialogue)>,
    /// The staging file, when there are more.
    spill: Option<Spill>,
}

/// The staging file: each record a little-endian `u32` length and the dialogue as JSON
/// (serde_json with `float_roundtrip`, so that every `f64` reads back exactly).
struct Spill {
    path: PathBuf,
    /// Open while the dialogues are read; flushed and dropped before the first chunk is taken.
    writer: Option<std::io::BufWriter<std::fs::File>>,
    /// The file, opened for reading once written.
    reader: Option<std::fs::File>,
    /// Where the next record goes.
    end: u64,
    /// Per review position, its record's offset and length (a length of 0: not read). A
    /// position read twice (a rejects line repeated) points at its last reading.
    index: Vec<(u64, u32)>,
    /// The record being encoded or decoded.
    buf: Vec<u8>,
    /// Removes the staging folder when dropped, whether the draw succeeded or not.
    _staging: Staging,
}

/// The staging folder; removed when dropped, whether the draw succeeded or not.
struct Staging(PathBuf);

impl Drop for Staging {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

impl Chunks {
    fn new(inspection: &Path, total: usize, size: usize) -> Result<Chunks> {
        let size = size.max(1);
        let count = total.div_ceil(size);
        let staging_dir = inspection.join(STAGING_DIR);
        // A staging folder left by an interrupted draw (or by an older version) goes first.
        match std::fs::remove_dir_all(&staging_dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(InspectionError::io(&staging_dir, e)),
        }
        let mut chunks = Chunks {
            size,
            total,
            memory: Vec::new(),
            spill: None,
        };
        if count > 1 {
            std::fs::create_dir_all(&staging_dir)
                .map_err(|e| InspectionError::io(&staging_dir, e))?;
            let staging = Staging(staging_dir.clone());
            let path = staging_dir.join(STAGING_FILE);
            let file = std::fs::File::create(&path).map_err(|e| InspectionError::io(&path, e))?;
            chunks.spill = Some(Spill {
                path,
                writer: Some(std::io::BufWriter::with_capacity(1 << 16, file)),
                reader: None,
                end: 0,
                index: vec![(0, 0); total],
                buf: Vec::new(),
                _staging: staging,
            });
        }
        Ok(chunks)
    }

    fn count(&self) -> usize {
        self.total.div_ceil(self.size)
    }

    /// Files the dialogue of review position `p`.
    fn push(&mut self, p: usize, d: Dialogue) -> Result<()> {
        match &mut self.spill {
            None => {
                self.memory.push((p, d));
                Ok(())
            }
            Some(spill) => spill.push(p, &d),
        }
    }

    /// Chunk `c` in review order, with its first position. Where a dialogue was read twice (a
    /// rejects line repeated) the last reading counts; a missing one is an error naming it.
    fn take(
        &mut self,
        c: usize,
        ids: &[String],
        corpus_dir: &Path,
    ) -> Result<(usize, Vec<Dialogue>)> {
        let start = c * self.size;
        let end = (start + self.size).min(self.total);
        let vanished = |id: &String| InspectionError::BadCorpus {
            path: corpus_dir.to_path_buf(),
            message: format!("dialogue {id:?} vanished between the two reads of the corpus"),
        };
        let mut out = Vec::with_capacity(end - start);
        match &mut self.spill {
            None => {
                let mut items = std::mem::take(&mut self.memory);
                // Stable: repeated readings of a position stay in reading order.
                items.sort_by_key(|&(p, _)| p);
                let mut items = items.into_iter().peekable();
                for (want, id) in (start..end).zip(&ids[start..end]) {
                    let mut found = None;
                    while let Some((_, d)) = items.next_if(|&(p, _)| p == want) {
                        found = Some(d);
                    }
                    out.push(found.ok_or_else(|| vanished(id))?);
                }
            }
            Some(spill) => {
                for (p, id) in (start..end).zip(&ids[start..end]) {
                    out.push(spill.read(p)?.ok_or_else(|| vanished(id))?);
                }
            }
        }
        Ok((start, out))
    }

    /// Removes the staging folder (the guard would too, but silently).
    fn close(self) -> Result<()> {
        if let Some(spill) = self.spill {
            let Spill {
                writer,
                reader,
                _staging: staging,
                ..
            } = spill;
            drop(writer);
            drop(reader);
            let dir = &staging.0;
            std::fs::remove_dir_all(dir).map_err(|e| InspectionError::io(dir, e))?;
        }
        Ok(())
    }
}

impl Spill {
    /// Appends the record of review position `p`.
    fn push(&mut self, p: usize, d: &Dialogue) -> Result<()> {
        let Some(w) = &mut self.writer else {
            unreachable!("the staging file is written before any chunk is taken");
        };
        self.buf.clear();
        serde_json::to_writer(&mut self.buf, d)
            .map_err(|e| InspectionError::json(&self.path, None, e))?;
        let len = u32::try_from(self.buf.len()).map_err(|_| {
            InspectionError::json(
                &self.path,
                None,
                format!("dialogue {:?} encodes to over 4 GiB", d.id),
            )
        })?;
        w.write_all(&len.to_le_bytes())
            .and_then(|()| w.write_all(&self.buf))
            .map_err(|e| InspectionError::io(&self.path, e))?;
        self.index[p] = (self.end, len);
        self.end += 4 + u64::from(len);
        Ok(())
    }

    /// The dialogue of review position `p`, if it was read.
    fn read(&mut self, p: usize) -> Result<Option<Dialogue>> {
        use std::io::{Read, Seek, SeekFrom};
        if let Some(w) = self.writer.take() {
            w.into_inner()
                .map_err(|e| InspectionError::io(&self.path, e.into_error()))?;
            let file =
                std::fs::File::open(&self.path).map_err(|e| InspectionError::io(&self.path, e))?;
            self.reader = Some(file);
        }
        let (offset, len) = self.index[p];
        if len == 0 {
            return Ok(None);
        }
        let file = self.reader.as_mut().expect("opened above");
        self.buf.resize(4 + len as usize, 0);
        file.seek(SeekFrom::Start(offset))
            .and_then(|_| file.read_exact(&mut self.buf))
            .map_err(|e| InspectionError::io(&self.path, e))?;
        if self.buf[..4] != len.to_le_bytes() {
            return Err(InspectionError::json(
                &self.path,
                None,
                format!("the record at offset {offset} is not {len} bytes long"),
            ));
        }
        serde_json::from_slice(&self.buf[4..])
            .map(Some)
            .map_err(|e| InspectionError::json(&self.path, None, e))
    }
}

/// `sample.parquet`, `sample.jsonl` and `sample.html` being written, each to a temp file beside
/// it; [`SampleFiles::finish`] puts them in place in that order. Dropped unfinished, they leave
/// the earlier files as they were.
struct SampleFiles {
    parquet: ShardStreamWriter,
    jsonl: JsonlWriter,
    html: SamplePage<AtomicFile>,
    html_path: PathBuf,
}

impl SampleFiles {
    fn create(dir: &Path, summary: &SampleSummary) -> Result<SampleFiles> {
        let parquet =
            ShardStreamWriter::create(&dir.join(SAMPLE_PARQUET), &ShardWriterConfig::default())?;
        let jsonl = JsonlWriter::create(&dir.join(SAMPLE_JSONL))?;
        let html_path = dir.join(SAMPLE_HTML);
        let file = AtomicFile::create(&html_path)?;
        let tmp = file.temp_path().to_path_buf();
        let html = SamplePage::begin(file, summary).map_err(|e| InspectionError::io(tmp, e))?;
        Ok(SampleFiles {
            parquet,
            jsonl,
            html,
            html_path,
        })
    }

    /// The next dialogue's JSONL line and HTML section (the Parquet rows go a chunk at a time).
    fn dialogue(&mut self, entry: &SampleEntry, d: &Dialogue) -> Result<()> {
        self.jsonl.write(d)?;
        self.html
            .dialogue(entry, d)
            .map_err(|e| InspectionError::io(&self.html_path, e))
    }

    fn finish(self) -> Result<()> {
        let SampleFiles {
            parquet,
            jsonl,
            html,
            html_path,
        } = self;
        parquet.finish()?;
        jsonl.finish()?;
        let file = html
            .finish()
            .map_err(|e| InspectionError::io(&html_path, e))?;
        file.commit()?;
        Ok(())
    }
}

/// Calls `f` with every rejected dialogue of a rejects file that the checker judged (not a
/// generation failure, at least one turn).
fn for_each_reject(path: &Path, mut f: impl FnMut(Dialogue) -> Result<()>) -> Result<()> {
    for (line, item) in JsonlReader::<Dialogue>::open(path)? {
        let d = item.map_err(|m| InspectionError::json(path, Some(line), m))?;
        let failed =
            d.qc.as_ref()
                .is_some_and(|q| q.violations.iter().any(|v| v.kind == GENERATION_FAILED));
        if !failed && !d.turns.is_empty() {
            f(d)?;
        }
    }
    Ok(())
}

fn entry_of(d: &Dialogue, origin: Origin) -> SampleEntry {
    let mut kinds: Vec<String> =
        d.qc.iter()
            .flat_map(|q| q.violations.iter().map(|v| v.kind.clone()))
            .collect();
    kinds.sort();
    kinds.dedup();
    SampleEntry {
        id: d.id.clone(),
        stratum: Stratum::of(d),
        origin,
        attempt: d.r#gen.as_ref().map_or(0, |g| g.attempt),
        turns: d.turns.len(),
        checker_passed: d.qc.as_ref().is_none_or(|q| q.passed),
        checker_kinds: kinds,
    }
}

fn refuse_replacing_reviewed(
    corpus_dir: &Path,
    new: &SampleSummary,
    cfg: &SampleConfig,
) -> Result<()> {
    if cfg.replace_reviewed {
        return Ok(());
    }
    let verdicts = inspection_dir(corpus_dir).join(VERDICTS_JSONL);
    let reviewed = std::fs::metadata(&verdicts).is_ok_and(|m| m.len() > 0);
    if !reviewed {
        return Ok(());
    }
    let same = match read_sample(corpus_dir) {
        Ok(old) => old.ids == new.ids,
        Err(InspectionError::NoSample { .. }) => false,
        Err(e) => return Err(e),
    };
    if same {
        Ok(())
    } else {
        Err(InspectionError::SampleInUse { path: verdicts })
    }
}

/// Writes a sample drawn elsewhere — `callbench sample --from-eval RUN`: judged assistant turns
/// of an evaluation run, each as a dialogue that ends with the judged turn — into
/// `DIR/inspection/` as [`draw_sample`] does (`sample.json` with the entries filled in from the
/// dialogues, `sample.parquet`, `sample.jsonl`, `sample.html`), so that `review` and `audit`
/// work on it unchanged. `summary.ids` must list the dialogues' ids in the order given. A
/// sample that auditors have reviewed is replaced only with `replace_reviewed`.
pub fn write_sample(
    dir_root: &Path,
    mut summary: SampleSummary,
    dialogues: &[Dialogue],
    replace_reviewed: bool,
) -> Result<SampleSummary> {
    let cfg = SampleConfig {
        rate: summary.rate,
        reject_rate: summary.reject_rate,
        seed: summary.seed,
        replace_reviewed,
    };
    summary.dialogues = dialogues
        .iter()
        .map(|d| entry_of(d, Origin::Corpus))
        .collect();
    summary.ids = dialogues.iter().map(|d| d.id.clone()).collect();
    refuse_replacing_reviewed(dir_root, &summary, &cfg)?;
    let dir = inspection_dir(dir_root);
    std::fs::create_dir_all(&dir).map_err(|e| InspectionError::io(&dir, e))?;
    let mut out = SampleFiles::create(&dir, &summary)?;
    for (entry, d) in summary.dialogues.iter().zip(dialogues) {
        out.dialogue(entry, d)?;
    }
    out.parquet
        .buffer(dialogues.to_vec())
        .map_err(InspectionError::from)?;
    out.finish()?;
    let path = dir.join(SAMPLE_JSON);
    let mut file = AtomicFile::create(&path)?;
    serde_json::to_writer_pretty(&mut file, &summary)
        .map_err(|e| InspectionError::json(&path, None, e))?;
    file.write_all(b"\n")
        .map_err(|e| InspectionError::io(file.temp_path(), e))?;
    file.commit()?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocation_by_hand() {
        // 10 % of 25, 14 and 1: quotas 2.5, 1.4, 0.1; floors 2, 1, 0, the third raised to 1;
        // that makes round(4.0) = 4 already, so no extra.
        assert_eq!(allocate(&[25, 14, 1], 0.10), vec![2, 1, 1]);
        // 10 % of 25, 14, 6: quotas 2.5, 1.4, .6 → 2, 1, 1 (raised) = 4 of round(4.5) = 5:
        // one extra to the largest remainder not raised, 2.5.
        assert_eq!(allocate(&[25, 14, 6], 0.10), vec![3, 1, 1]);
        // 50 % of 1, 1, 3: quotas .5 .5 1.5 → 1, 1, 1 = 3 of round(2.5) = 3.
        assert_eq!(allocate(&[1, 1, 3], 0.5), vec![1, 1, 1]);
        assert_eq!(allocate(&[0, 10], 0.10), vec![0, 1]);
        assert_eq!(allocate(&[3, 3], 1.0), vec![3, 3]);
        assert_eq!(allocate(&[100, 200, 300], 0.10), vec![10, 20, 30]);
        // 0.29 × 100 is 28.999…96 in floating point: still 29.
        assert_eq!(allocate(&[100], 0.29), vec![29]);
    }

    #[test]
    fn rank_depends_on_seed_and_id_only() {
        // The first 8 bytes (big-endian) of SHA-256("callbench-inspection-sample\0" origin
        // "\0" seed-LE id), computed apart with Python's hashlib: a sample drawn with a seed
        // stays the same across versions.
        assert_eq!(rank(1, Origin::Corpus, "a"), 0x1e32_7e6c_fa47_2c24);
        assert_eq!(rank(1, Origin::Rejects, "a"), 0x2fc2_c186_9279_1206);
        assert_ne!(rank(1, Origin::Corpus, "a"), rank(2, Origin::Corpus, "a"));
        assert_ne!(rank(1, Origin::Corpus, "a"), rank(1, Origin::Corpus, "b"));
        assert_ne!(rank(1, Origin::Corpus, "a"), rank(1, Origin::Rejects, "a"));
    }
}
