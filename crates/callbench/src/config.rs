//! The config file and how flags override it.

use crate::cli::Common;
use anyhow::{Context, Result, bail};
use callbench_model::Distribution;
use corpus::ShardWriterConfig;
use quality_checker::CheckConfig;
use roleplay::{GenerateConfig, LibraryOverlay};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The TOML config file. Every key is optional; see README "The config file".
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FileConfig {
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
    /// Generation attempts per dialogue.
    pub max_attempts: u32,
    /// Fewest turns of an LLM-played call (the offline backend ignores it).
    pub min_turns: usize,
    /// Stop when this many dialogue attempts in a row fail for one reason (0: never).
    pub stop_after_failures: u32,
    /// LLM backends: reject a dialogue this similar (Jaccard of character 5-grams) to one
    /// accepted earlier in its cell as `natural.near_duplicate`, and regenerate it (0: off).
    pub near_duplicate_threshold: f64,
    /// Scenario files laid over the built-in library (a same-named file replaces, a new one
    /// adds); absent: the built-in library alone.
    pub scenarios_dir: Option<PathBuf>,
    /// Phrase banks and prompts laid over the built-in ones; absent: the built-in ones.
    pub templates_dir: Option<PathBuf>,
    /// `evaluate`'s method files (`methods/<name>.toml` and their prompts). Not written into
    /// a corpus's manifest (`generate` does not use it; its effective config stays as it was).
    #[serde(skip_serializing)]
    pub methods_dir: PathBuf,
    /// `sim` or `openai`.
    pub backend: String,
    /// How the corpus spreads over cells.
    pub distribution: Distribution,
    /// Parquet settings.
    pub parquet: ShardWriterConfig,
    /// Quality-check settings.
    pub check: CheckConfig,
    /// The LLM backend: endpoints, models, limits, retries, cache, prices.
    pub llm: llm_client::LlmConfig,
    /// The LLM judge stage (uses the `[llm]` endpoints and the judge model).
    pub judge: roleplay::judge::JudgeConfig,
    /// The manual-inspection sample drawn at the end of `generate` (and by `sample`).
    pub sample: SampleSection,
    /// `[split]`: the shares of train, validation and test (default 0.8 / 0.1 / 0.1).
    pub split: callbench_model::SplitRatios,
}

/// `[sample]`: the manual-inspection sample.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SampleSection {
    /// Draw the sample at the end of `generate`.
    pub after_generate: bool,
    /// Share of each stratum.
    pub rate: f64,
    /// Share of the rejected dialogues sampled beside them (0: none).
    pub reject_rate: f64,
    /// Seed of the draw; absent: the run seed.
    pub seed: Option<u64>,
}

impl Default for SampleSection {
    fn default() -> Self {
        SampleSection {
            after_generate: true,
            rate: 0.10,
            reject_rate: 0.10,
            seed: None,
        }
    }
}

impl SampleSection {
    /// The inspection crate's config for a run with `run_seed`.
    pub fn config(&self, run_seed: u64) -> inspection::SampleConfig {
        inspection::SampleConfig {
            rate: self.rate,
            reject_rate: self.reject_rate,
            seed: self.seed.unwrap_or(run_seed),
            ..Default::default()
        }
    }
}

impl Default for FileConfig {
    fn default() -> Self {
        let g = GenerateConfig::default();
        FileConfig {
            out: g.out,
            seed: g.seed,
            count: g.count,
            rows_per_shard: g.rows_per_shard,
            concurrency: g.concurrency,
            max_turns: g.max_turns,
            max_attempts: g.max_attempts,
            min_turns: g.min_turns,
            stop_after_failures: g.stop_after_failures,
            near_duplicate_threshold: g.near_duplicate_threshold,
            scenarios_dir: None,
            templates_dir: None,
            methods_dir: PathBuf::from("methods"),
            backend: "sim".into(),
            distribution: g.distribution,
            parquet: g.parquet,
            check: g.check,
            llm: llm_client::LlmConfig::default(),
            judge: roleplay::judge::JudgeConfig::default(),
            sample: SampleSection::default(),
            split: g.split,
        }
    }
}

/// Reads the config file (or defaults) and applies the common flags.
pub fn load(common: &Common) -> Result<FileConfig> {
    let mut cfg = match &common.config {
        Some(path) => read_file(path)?,
        None => FileConfig::default(),
    };
    if let Some(out) = &common.out {
        cfg.out = out.clone();
    }
    if let Some(seed) = common.seed {
        cfg.seed = seed;
    }
    if let Some(count) = common.count {
        if count <= 0 {
            bail!("--count must be a positive number of dialogues, got {count}");
        }
        cfg.count = count as u64;
    }
    if let Some(dir) = &common.scenarios {
        cfg.scenarios_dir = Some(dir.clone());
    }
    if let Some(dir) = &common.templates {
        cfg.templates_dir = Some(dir.clone());
    }
    if cfg.count == 0 {
        bail!("count must be a positive number of dialogues (config key `count`)");
    }
    Ok(cfg)
}

fn read_file(path: &Path) -> Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading config {}", path.display()))?;
    toml::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

impl FileConfig {
    /// The library: the built-in one with the configured directories laid over it.
    pub fn library_paths(&self) -> LibraryOverlay {
        LibraryOverlay {
            scenarios_dir: self.scenarios_dir.clone(),
            templates_dir: self.templates_dir.clone(),
        }
    }

    /// The generate stage's config.
    pub fn generate(&self) -> GenerateConfig {
        GenerateConfig {
            out: self.out.clone(),
            seed: self.seed,
            count: self.count,
            rows_per_shard: self.rows_per_shard,
            concurrency: self.concurrency,
            max_turns: self.max_turns,
            max_attempts: self.max_attempts,
            min_turns: self.min_turns,
            stop_after_failures: self.stop_after_failures,
            near_duplicate_threshold: self.near_duplicate_threshold,
            distribution: self.distribution.clone(),
            parquet: self.parquet.clone(),
            check: self.check.clone(),
            judge: self.judge.clone(),
            split: self.split,
        }
    }
}
