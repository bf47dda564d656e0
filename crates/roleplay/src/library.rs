//! Loading the scenario library and the phrase banks from disk.

use crate::error::{Error, Result};
use callbench_model::ScenarioSet;
use callbench_model::plan::fnv1a;
use callbench_model::scenario::{parse_library, parse_scenario};
use llm_agent::{PromptKind, Prompts};
use phrasebook::Phrasebook;
use std::path::{Path, PathBuf};

/// The scenario set and the compiled phrasebook: everything the offline agents speak from.
pub struct Library {
    /// Scenarios, owner pools, shared presets.
    pub set: ScenarioSet,
    /// Compiled templates.
    pub book: Phrasebook,
    /// The LLM prompts.
    pub prompts: Prompts,
    /// Content digest of the prompt templates (`templates/prompts/*.tera`): LLM runs put it in
    /// their fingerprint, so that a changed prompt is not resumed into a corpus made with the
    /// old one. (A scenario's own prompts are in its file, and so in `set.digest`.) Kept apart
    /// from `set.digest`, which every dialogue records: the offline corpus does not change
    /// when a prompt does.
    pub prompts_digest: String,
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn toml_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Where the library lives.
#[derive(Debug, Clone)]
pub struct LibraryPaths {
    /// Directories of scenario files; each may have a `common/` subdirectory of library files.
    pub scenario_dirs: Vec<PathBuf>,
    /// The directory of `caller.toml`, `assistant.toml`, `lexicon.toml`.
    pub templates_dir: PathBuf,
}

impl LibraryPaths {
    /// Reads, validates and compiles the library. Errors name the file and the key at fault.
    pub fn load(&self) -> Result<Library> {
        let mut scenarios = Vec::new();
        let mut libraries = Vec::new();
        let mut digest_input = Vec::new();
        let mut library_names = Vec::new();
        for dir in &self.scenario_dirs {
            if !dir.is_dir() {
                return Err(Error::Config(format!(
                    "scenario directory {} does not exist (run from the repository root, or set scenarios_dir)",
                    dir.display()
                )));
            }
            for path in toml_files(dir)? {
                let text = read(&path)?;
                let source = path.display().to_string();
                digest_input.extend_from_slice(source.as_bytes());
                digest_input.extend_from_slice(text.as_bytes());
                scenarios.push((source.clone(), parse_scenario(&source, &text)?));
            }
            let common = dir.join("common");
            if common.is_dir() {
                for path in toml_files(&common)? {
                    let text = read(&path)?;
                    let source = path.display().to_string();
                    digest_input.extend_from_slice(source.as_bytes());
                    digest_input.extend_from_slice(text.as_bytes());
                    library_names.push(source.clone());
                    libraries.push((source.clone(), parse_library(&source, &text)?));
                }
            }
        }
        let t = &self.templates_dir;
        let caller = t.join("caller.toml");
        let assistant = t.join("assistant.toml");
        let lexicon = t.join("lexicon.toml");
        let (ct, at, lt) = (read(&caller)?, read(&assistant)?, read(&lexicon)?);
        for x in [&ct, &at, &lt] {
            digest_input.extend_from_slice(x.as_bytes());
        }
        let digest = format!("{:016x}", fnv1a(&digest_input));
        let set = ScenarioSet::build(scenarios, libraries, digest)?;
        let book = Phrasebook::build(
            &set,
            (&caller.display().to_string(), &ct),
            (&assistant.display().to_string(), &at),
            (&lexicon.display().to_string(), &lt),
            &library_names,
        )?;
        let mut defaults = Vec::new();
        let mut prompt_bytes = Vec::new();
        for kind in PromptKind::ALL {
            let file = t.join("prompts").join(format!("{}.tera", kind.name()));
            let text = read(&file)?;
            prompt_bytes.extend_from_slice(text.as_bytes());
            prompt_bytes.push(0);
            defaults.push((kind, file.display().to_string(), text));
        }
        let prompts = Prompts::build(&defaults, &set)?;
        Ok(Library {
            set,
            book,
            prompts,
            prompts_digest: format!("{:016x}", fnv1a(&prompt_bytes)),
        })
    }
}
