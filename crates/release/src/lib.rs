//! `callbench release --corpus DIR --out REL`: a folder that can be published as it is
//! (CONTRACT.md, "Release"):
//!
//! ```text
//! REL/README.md                     the dataset card: YAML front matter + text written from the data
//! REL/data/{train,validation,test}-NNNNN-of-NNNNN.parquet
//! REL/stats.json                    the card's numbers, machine-readable (stats::Stats)
//! REL/figures/*.svg                 dialogues per cell, turn lengths, decisions by relation, findings
//! REL/checksums.sha256              `sha256sum -c` checks every other file
//! ```
//!
//! A tour: [`ReleaseConfig`] says what to release; [`build`] checks that the corpus is finished
//! (its manifest and ledger agree, no partial shard, every shard intact), reads the auditors'
//! verdicts (each auditor's latest per id; by default a dialogue any auditor rejected is left
//! out, counted per finding kind), streams the shards once — a released dialogue goes to its
//! split's data file and into the tallies, memory holds one record batch — then writes the
//! statistics ([`stats`]), the pictures ([`figures`], drawn with `charts`), the card ([`card`])
//! and the checksums.
//!
//! **Invariants.** Nothing is written at `REL` until everything is: the release is built in a
//! hidden folder beside it and renamed into place at the end (an error or a crash leaves no
//! `REL`; the hidden folder of a crashed build is removed by the next). The same corpus and
//! verdicts give the same bytes: no timestamp, no local path, every map in key order. The
//! corpus is only read.
#![deny(missing_docs)]

pub mod card;
mod error;
pub mod figures;
pub mod stats;

pub use error::{ReleaseError, Result};
pub use stats::Stats;

use callbench_model::Split;
use corpus::{Dialogue, Manifest, ShardReader, ShardStreamWriter, ShardWriterConfig};
use inspection::{Decision, Origin};
use sha2::{Digest, Sha256};
use stats::{CellStats, CheckerStats, DataFile, LeftOut, LeftOutId, Tally};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};

/// Which auditors' rejections leave a dialogue out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeaveOut {
    /// A dialogue any auditor rejected (each auditor's latest verdict).
    #[default]
    AnyReject,
    /// A dialogue a strict majority of its auditors rejected (a tie keeps it).
    MajorityReject,
}

impl LeaveOut {
    /// `any` or `majority`.
    pub fn as_str(self) -> &'static str {
        match self {
            LeaveOut::AnyReject => "any",
            LeaveOut::MajorityReject => "majority",
        }
    }
}

/// What to release, and how.
#[derive(Debug, Clone, PartialEq)]
pub struct ReleaseConfig {
    /// The corpus folder (`callbench generate --out`).
    pub corpus: PathBuf,
    /// The release folder to create (absent or empty).
    pub out: PathBuf,
    /// Most dialogues in one data file (a split with more is cut into several files).
    pub rows_per_file: u64,
    /// Which rejections leave a dialogue out.
    pub leave_out: LeaveOut,
    /// The card's `license` (a Hugging Face licence id).
    pub license: String,
}

impl ReleaseConfig {
    /// The defaults for a corpus and an output folder: 100,000 dialogues per data file (about
    /// 20 MB), any rejection leaves a dialogue out, Apache-2.0 like the tool.
    pub fn new(corpus: impl Into<PathBuf>, out: impl Into<PathBuf>) -> ReleaseConfig {
        ReleaseConfig {
            corpus: corpus.into(),
            out: out.into(),
            rows_per_file: 100_000,
            leave_out: LeaveOut::AnyReject,
            license: "apache-2.0".into(),
        }
    }
}

/// What [`build`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// The release folder.
    pub out: PathBuf,
    /// The statistics as written to `stats.json`.
    pub stats: Stats,
}

/// The hidden folder a release is built in, removed unless it was renamed into place.
struct Staging {
    dir: PathBuf,
    done: bool,
}

impl Drop for Staging {
    fn drop(&mut self) {
        if !self.done {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Builds the release; see the crate documentation.
pub fn build(cfg: &ReleaseConfig) -> Result<Summary> {
    if cfg.rows_per_file == 0 {
        return Err(ReleaseError::Config(
            "rows_per_file must be at least 1".into(),
        ));
    }
    check_out(&cfg.out)?;
    let manifest = finished_manifest(&cfg.corpus)?;

    // The auditors' word: each auditor's latest verdict per id.
    let verdicts = inspection::load_verdicts(&cfg.corpus)?;
    let latest = inspection::latest(&verdicts);
    let mut by_id: BTreeMap<&str, Vec<&inspection::Verdict>> = BTreeMap::new();
    for ((_, id), v) in &latest {
        by_id.entry(id.as_str()).or_default().push(v);
    }
    // A sampled reject shares its id with the dialogue regenerated in its place: a verdict on
    // it is about the rejected attempt, never about the released dialogue.
    let sampled_rejects: BTreeSet<String> = if verdicts.is_empty() {
        BTreeSet::new()
    } else {
        inspection::read_sample(&cfg.corpus)?
            .dialogues
            .into_iter()
            .filter(|e| e.origin == Origin::Rejects)
            .map(|e| e.id)
            .collect()
    };
    let leave: BTreeMap<&str, (Vec<String>, Vec<String>)> = by_id
        .iter()
        .filter(|(id, _)| !sampled_rejects.contains(**id))
        .filter(|(_, vs)| {
            let rejects = vs.iter().filter(|v| v.verdict == Decision::Reject).count();
            match cfg.leave_out {
                LeaveOut::AnyReject => rejects > 0,
                LeaveOut::MajorityReject => rejects * 2 > vs.len(),
            }
        })
        .map(|(id, vs)| {
            let rejecting: Vec<_> = vs
                .iter()
                .filter(|v| v.verdict == Decision::Reject)
                .collect();
            let auditors = rejecting.iter().map(|v| v.auditor.clone()).collect();
            let mut reasons: BTreeSet<String> = rejecting
                .iter()
                .flat_map(|v| v.findings.iter().map(|f| f.kind.clone()))
                .collect();
            if reasons.is_empty() {
                reasons.insert("unspecified".into());
            }
            (*id, (auditors, reasons.into_iter().collect()))
        })
        .collect();

    // Build beside the destination, so that the final rename stays on one file system.
    let parent = match cfg.out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&parent).map_err(|e| ReleaseError::io(&parent, e))?;
    let name = cfg
        .out
        .file_name()
        .ok_or_else(|| ReleaseError::Config(format!("{}: not a folder name", cfg.out.display())))?;
    let staging = Staging {
        dir: parent.join(format!(".{}.release-tmp", name.to_string_lossy())),
        done: false,
    };
    if staging.dir.exists() {
        // Left by a build that crashed: ours by its name.
        std::fs::remove_dir_all(&staging.dir).map_err(|e| ReleaseError::io(&staging.dir, e))?;
    }
    for sub in ["data", "figures"] {
        let d = staging.dir.join(sub);
        std::fs::create_dir_all(&d).map_err(|e| ReleaseError::io(&d, e))?;
    }

    // One pass over the shards.
    let mut tally = Tally::default();
    let mut writers: BTreeMap<Split, SplitFiles> = BTreeMap::new();
    let mut seen_verdict_ids: BTreeSet<&str> = BTreeSet::new();
    let mut left_out_ids: Vec<LeftOutId> = Vec::new();
    let mut left_out_cells: BTreeMap<String, u64> = BTreeMap::new();
    for shard in &manifest.shards {
        let path = cfg.corpus.join(&shard.file);
        for batch in ShardReader::open(&path)? {
            let mut per_split: BTreeMap<Split, Vec<Dialogue>> = BTreeMap::new();
            for d in batch? {
                let Some(split) = d.split else {
                    return Err(ReleaseError::Dialogue {
                        path: path.clone(),
                        id: d.id.clone(),
                        message: "no `split`: the corpus was written before splits existed; \
                                  regenerate it with this version"
                            .into(),
                    });
                };
                if let Some((id, _)) = by_id.get_key_value(d.id.as_str()) {
                    seen_verdict_ids.insert(id);
                }
                if let Some((auditors, reasons)) = leave.get(d.id.as_str()) {
                    *left_out_cells
                        .entry(stats::cell_key(
                            &d.scenario,
                            d.preset_case.as_str(),
                            d.relation.as_str(),
                        ))
                        .or_default() += 1;
                    left_out_ids.push(LeftOutId {
                        id: d.id.clone(),
                        split: split.to_string(),
                        rejected_by: auditors.clone(),
                        reasons: reasons.clone(),
                    });
                    continue;
                }
                tally.add(&d, split.as_str());
                per_split.entry(split).or_default().push(d);
            }
            for (split, ds) in per_split {
                writers
                    .entry(split)
                    .or_insert_with(|| SplitFiles::new(split))
                    .write(&staging.dir, ds, cfg.rows_per_file)?;
            }
        }
    }

    // Verdicts on ids the corpus does not hold: only sampled rejects may be outside the shards.
    let unknown: Vec<&str> = {
        let rest: Vec<&str> = by_id
            .keys()
            .copied()
            .filter(|id| !seen_verdict_ids.contains(id))
            .collect();
        rest.into_iter()
            .filter(|id| !sampled_rejects.contains(*id))
            .collect()
    };
    if !unknown.is_empty() {
        return Err(ReleaseError::UnknownIds {
            path: inspection::verdicts_path(&cfg.corpus),
            count: unknown.len(),
            first: unknown
                .iter()
                .take(5)
                .copied()
                .collect::<Vec<_>>()
                .join(", "),
        });
    }

    // The data files get their final names once each split's count is known.
    let mut files = Vec::new();
    for w in writers.into_values() {
        files.extend(w.finish(&staging.dir)?);
    }

    left_out_ids.sort_by(|a, b| a.id.cmp(&b.id));
    let mut by_reason = BTreeMap::new();
    for l in &left_out_ids {
        for r in &l.reasons {
            *by_reason.entry(r.clone()).or_default() += 1;
        }
    }
    let audit = audit_report(&cfg.corpus, &verdicts)?;
    let stats = Stats {
        format_version: stats::STATS_FORMAT_VERSION,
        provenance: stats::Provenance {
            tool_version: manifest.tool_version.clone(),
            seed: manifest.seed,
            count: manifest.count,
            fingerprint: manifest.fingerprint.clone(),
            library_digest: manifest.library_digest.clone(),
            ..std::mem::take(&mut tally.provenance)
        },
        dialogues: tally.dialogues,
        splits: tally.splits.clone(),
        cells: manifest
            .cells
            .iter()
            .map(|c| {
                let key = stats::cell_key(&c.scenario, c.preset_case.as_str(), c.relation.as_str());
                let (n, splits) = tally.cells.get(&key).cloned().unwrap_or_default();
                CellStats {
                    scenario: c.scenario.clone(),
                    preset_case: c.preset_case.to_string(),
                    relation: c.relation.to_string(),
                    dialogues: n,
                    splits,
                    left_out: left_out_cells.get(&key).copied().unwrap_or(0),
                }
            })
            .collect(),
        turns: tally.turn_stats(),
        decisions: tally.decisions.clone(),
        diversity: tally.diversity.finish(),
        checker: checker_stats(&manifest, &tally.in_release),
        audit,
        left_out: LeftOut {
            rule: cfg.leave_out.as_str().into(),
            dialogues: left_out_ids.len() as u64,
            by_reason,
            ids: left_out_ids,
        },
        files,
    };

    // Statistics, pictures, card, checksums.
    let mut json = serde_json::to_vec_pretty(&stats).expect("stats serialise");
    json.push(b'\n');
    write(&staging.dir.join("stats.json"), &json)?;
    let figs = figures::draw(&stats);
    for (name, svg) in &figs {
        write(&staging.dir.join("figures").join(name), svg.as_bytes())?;
    }
    let card = card::write_card(&stats, &cfg.license, &figs);
    write(&staging.dir.join("README.md"), card.as_bytes())?;
    write_checksums(&staging.dir)?;
    corpus::sync_dir(&staging.dir)?;

    // Into place: onto an absent or empty folder (rename replaces an empty one).
    if cfg.out.exists() {
        check_out(&cfg.out)?;
    }
    std::fs::rename(&staging.dir, &cfg.out).map_err(|e| ReleaseError::io(&cfg.out, e))?;
    let mut staging = staging;
    staging.done = true;
    corpus::sync_dir(&parent)?;
    Ok(Summary {
        out: cfg.out.clone(),
        stats,
    })
}

/// The output folder must be absent or empty.
fn check_out(out: &Path) -> Result<()> {
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(ReleaseError::NotEmpty(out.to_path_buf()));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            Err(ReleaseError::NotEmpty(out.to_path_buf()))
        }
        Err(e) => Err(ReleaseError::io(out, e)),
    }
}

/// The corpus's manifest, if the corpus is finished: the manifest lists every planned shard,
/// none partial, the ledger records nothing the manifest does not hold (a running `generate`
/// records shards before it rewrites the manifest), and every shard is intact.
fn finished_manifest(dir: &Path) -> Result<Manifest> {
    let unfinished = |message: String| ReleaseError::Unfinished {
        dir: dir.to_path_buf(),
        message,
    };
    if !dir.is_dir() {
        return Err(unfinished("no such corpus folder".into()));
    }
    if !corpus::manifest_path(dir).exists() {
        return Err(unfinished(
            "no manifest.json: not a corpus, or its generation has not finished yet \
             (run or resume `callbench generate --out` on it first)"
                .into(),
        ));
    }
    let manifest = corpus::read_manifest(dir)?;
    if let Some(why) = &manifest.report.stopped {
        return Err(unfinished(format!(
            "the run that wrote it stopped before the plan was done ({why}); resume it with \
             `callbench generate --out` first"
        )));
    }
    // The ledger's view of the corpus: every generation step, and the shards that count
    // (latest record per index, replaced ones left out).
    let Some(history) = corpus::Ledger::history(dir)? else {
        return Err(unfinished(
            "no ledger.jsonl: not a corpus written by `callbench generate`".into(),
        ));
    };
    if history.steps.last().map(|h| &h.fingerprint) != Some(&manifest.fingerprint) {
        return Err(unfinished(
            "the ledger belongs to another run than the manifest: a generation is under way; \
             wait for it to finish"
                .into(),
        ));
    }
    let latest: BTreeMap<u32, &corpus::ShardInfo> =
        history.done.iter().map(|l| (l.index, l)).collect();
    let listed: BTreeMap<u32, &corpus::ShardInfo> =
        manifest.shards.iter().map(|s| (s.index, s)).collect();
    let accounted = manifest.totals.dialogues + manifest.totals.rejected + manifest.totals.failed;
    if accounted < manifest.count {
        return Err(unfinished(format!(
            "the manifest accounts for {accounted} of {} planned dialogues: the generation is \
             unfinished; resume it with `callbench generate --out`",
            manifest.count
        )));
    }
    for s in &manifest.shards {
        if s.stats
            .as_ref()
            .and_then(|v| v.get("partial"))
            .and_then(|v| v.as_bool())
            == Some(true)
        {
            return Err(unfinished(format!(
                "{} is a partial shard of a stopped run; resume it with `callbench generate --out`",
                s.file
            )));
        }
        if latest.get(&s.index).map(|l| &l.sha256) != Some(&s.sha256) {
            return Err(unfinished(format!(
                "the ledger and the manifest disagree on {}: a generation is under way; wait \
                 for it to finish",
                s.file
            )));
        }
        corpus::verify_shard(dir, s).map_err(|e| {
            unfinished(format!(
                "{} does not match the manifest ({e}); resume `callbench generate --out` to \
                 repair it",
                s.file
            ))
        })?;
    }
    if latest.len() != listed.len() {
        return Err(unfinished(
            "the ledger records shards the manifest does not list: the generation is unfinished \
             or under way; wait for it to finish or resume it with `callbench generate --out`"
                .into(),
        ));
    }
    Ok(manifest)
}

fn checker_stats(m: &Manifest, in_release: &BTreeMap<String, u64>) -> CheckerStats {
    let removed = m
        .findings
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.saturating_sub(in_release.get(k).copied().unwrap_or(0)),
            )
        })
        .filter(|(_, v)| *v > 0)
        .collect();
    CheckerStats {
        corpus_dialogues: m.totals.dialogues,
        rejected: m.totals.rejected,
        failed: m.totals.failed,
        rejected_attempts: m.report.rejected_attempts,
        found: m.findings.clone(),
        in_release: in_release.clone(),
        removed,
        given_up: m.report.rejected_kinds.clone(),
    }
}

/// The audit report (crates/inspection's) when there are verdicts and a sample; with its time
/// and the local path left out, so that the release's bytes depend on the data only.
fn audit_report(
    dir: &Path,
    verdicts: &[inspection::Verdict],
) -> Result<Option<inspection::AuditReport>> {
    if verdicts.is_empty() {
        return Ok(None);
    }
    let summary = inspection::read_sample(dir)?;
    let dialogues = inspection::read_sample_dialogues(dir)?;
    let mut report = inspection::build_report(&summary, &dialogues, verdicts);
    report.created_at = String::new();
    report.corpus = String::new();
    Ok(Some(report))
}

/// The data files of one split: `data/<split>-part-NNNNN.parquet` while written, renamed to
/// `data/<split>-NNNNN-of-NNNNN.parquet` once the number of files is known.
struct SplitFiles {
    split: Split,
    current: Option<ShardStreamWriter>,
    done: Vec<(PathBuf, corpus::StreamedShard)>,
}

impl SplitFiles {
    fn new(split: Split) -> SplitFiles {
        SplitFiles {
            split,
            current: None,
            done: Vec::new(),
        }
    }

    fn write(&mut self, dir: &Path, mut ds: Vec<Dialogue>, max_rows: u64) -> Result<()> {
        while !ds.is_empty() {
            if self.current.is_none() {
                let path = dir.join("data").join(format!(
                    "{}-part-{:05}.parquet",
                    self.split,
                    self.done.len()
                ));
                self.current = Some(ShardStreamWriter::create(
                    &path,
                    &ShardWriterConfig::default(),
                )?);
            }
            let w = self.current.as_mut().expect("just set");
            let room = (max_rows - w.rows()) as usize;
            let rest = if ds.len() > room {
                ds.split_off(room)
            } else {
                Vec::new()
            };
            w.write_owned(ds)?;
            ds = rest;
            if w.rows() >= max_rows {
                self.close()?;
            }
        }
        Ok(())
    }

    fn close(&mut self) -> Result<()> {
        if let Some(w) = self.current.take() {
            let path = w.path().to_path_buf();
            let info = w.finish()?;
            self.done.push((path, info));
        }
        Ok(())
    }

    fn finish(mut self, dir: &Path) -> Result<Vec<DataFile>> {
        self.close()?;
        let n = self.done.len();
        let mut out = Vec::with_capacity(n);
        for (k, (path, info)) in self.done.into_iter().enumerate() {
            let name = format!("{}-{k:05}-of-{n:05}.parquet", self.split);
            let dest = dir.join("data").join(&name);
            std::fs::rename(&path, &dest).map_err(|e| ReleaseError::io(&path, e))?;
            out.push(DataFile {
                path: format!("data/{name}"),
                split: self.split.to_string(),
                rows: info.rows,
                bytes: info.bytes,
                sha256: info.sha256,
            });
        }
        Ok(out)
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(corpus::write_atomic(path, bytes)?)
}

/// `checksums.sha256` over every other file, relative paths in byte order, in the format
/// `sha256sum -c` reads (`HASH  PATH`).
fn write_checksums(dir: &Path) -> Result<()> {
    let mut files = Vec::new();
    walk(dir, dir, &mut files)?;
    files.sort();
    let mut out = String::new();
    for rel in files {
        let path = dir.join(&rel);
        let mut f = std::fs::File::open(&path).map_err(|e| ReleaseError::io(&path, e))?;
        let mut h = Sha256::new();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = f.read(&mut buf).map_err(|e| ReleaseError::io(&path, e))?;
            if n == 0 {
                break;
            }
            h.update(&buf[..n]);
        }
        out.push_str(&format!("{}  {rel}\n", hex::encode(h.finalize())));
    }
    write(&dir.join(CHECKSUMS), out.as_bytes())
}

/// The checksum file's name.
pub const CHECKSUMS: &str = "checksums.sha256";

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for e in std::fs::read_dir(dir).map_err(|e| ReleaseError::io(dir, e))? {
        let e = e.map_err(|e| ReleaseError::io(dir, e))?;
        let p = e.path();
        if p.is_dir() {
            walk(root, &p, out)?;
        } else {
            let rel = p.strip_prefix(root).expect("under root");
            let rel = rel.to_string_lossy().replace('\\', "/");
            if rel != CHECKSUMS {
                out.push(rel);
            }
        }
    }
    Ok(())
}
