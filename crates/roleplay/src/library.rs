//! Loading the scenario library and the phrase banks: the library embedded in the binary, with
//! directories laid over it (`--scenarios DIR`, `--templates DIR`: a file named like an
//! embedded one replaces it, a new file adds to it).

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
    /// Per-scenario and shared-file fingerprints (a growing corpus compares them).
    pub fingerprints: Fingerprints,
    /// The scenario files, by scenario name, in load order.
    pub scenario_files: Vec<(String, LibraryFile)>,
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn files_with(dir: &Path, ext: &str) -> Result<Vec<PathBuf>> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == ext))
        .collect();
    files.sort();
    Ok(files)
}

/// The library compiled into the binary (`build.rs`): `scenarios/`, `templates/` and
/// `methods/` of the repository as (relative path, text), sorted by path.
pub mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded.rs"));
}

impl Library {
    /// The quality checker of `cfg`, reading each scenario's dialogues with the concepts its
    /// file contributes (`[concepts]`, `[[private_facts]]`) as well as the compiled-in ones.
    /// `generate`, `check` and `evaluate` build their checker here.
    pub fn checker(&self, cfg: &quality_checker::CheckConfig) -> quality_checker::Checker {
        quality_checker::CheckConfig {
            concepts: self.set.contributed_concepts(),
            ..cfg.clone()
        }
        .build()
    }
}

/// Where a library file was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// Compiled into the binary.
    Embedded,
    /// Read from this file (`--scenarios DIR`, `--templates DIR`).
    File(PathBuf),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Embedded => f.write_str("embedded"),
            Source::File(p) => write!(f, "{}", p.display()),
        }
    }
}

/// One file of the library.
#[derive(Debug, Clone)]
pub struct LibraryFile {
    /// Its path in the library: `scenarios/takeout.toml`, `scenarios/common/owners.toml`,
    /// `templates/caller.toml`, `templates/prompts/judge.tera`.
    pub rel: String,
    /// Its text.
    pub text: String,
    /// Where it was read from.
    pub source: Source,
}

impl LibraryFile {
    /// The file's fingerprint: a digest of its text only, so that the same file embedded or
    /// written out by `init` and read back has the same one.
    pub fn fingerprint(&self) -> String {
        format!("{:016x}", fnv1a(self.text.as_bytes()))
    }

    /// How error messages name it: the file it was read from, or `embedded:<rel>`.
    fn name(&self) -> String {
        match &self.source {
            Source::Embedded => format!("embedded:{}", self.rel),
            Source::File(p) => p.display().to_string(),
        }
    }
}

/// The files a run's library is made of, by library path: the embedded library, with
/// directories laid over it (a file of the same library path replaces the embedded one; a new
/// file adds to it).
#[derive(Debug, Clone, Default)]
pub struct LibrarySources {
    files: std::collections::BTreeMap<String, LibraryFile>,
}

/// Every scenario's fingerprint (by scenario name) and every shared file's (by library path):
/// a growing corpus regenerates a scenario whose file changed, and is another corpus when a
/// shared file (owner pools, shared presets, phrase banks, lexicon, prompts) changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fingerprints {
    /// Scenario name → fingerprint of its file.
    pub scenarios: std::collections::BTreeMap<String, String>,
    /// Library path → fingerprint, of the files every scenario's dialogues depend on.
    pub shared: std::collections::BTreeMap<String, String>,
    /// Library path → fingerprint, of the LLM prompts (`templates/prompts/*.tera`): shared by
    /// LLM-played dialogues only.
    pub prompts: std::collections::BTreeMap<String, String>,
}

impl LibrarySources {
    /// The embedded library: scenarios and templates (the methods are kept for `init`).
    pub fn embedded() -> LibrarySources {
        let mut files = std::collections::BTreeMap::new();
        for (rel, text) in embedded::FILES {
            files.insert(
                rel.to_string(),
                LibraryFile {
                    rel: rel.to_string(),
                    text: text.to_string(),
                    source: Source::Embedded,
                },
            );
        }
        LibrarySources { files }
    }

    /// No files: directories alone make the library.
    pub fn empty() -> LibrarySources {
        LibrarySources::default()
    }

    fn add(&mut self, rel: String, path: &Path) -> Result<()> {
        let text = read(path)?;
        self.files.insert(
            rel.clone(),
            LibraryFile {
                rel,
                text,
                source: Source::File(path.to_path_buf()),
            },
        );
        Ok(())
    }

    /// Lays the scenario directory `dir` over the library: its `*.toml` are scenario files,
    /// `common/*.toml` shared library files; a file named like one already there replaces it.
    pub fn overlay_scenarios(&mut self, dir: &Path) -> Result<()> {
        if !dir.is_dir() {
            return Err(Error::Config(format!(
                "scenario directory {} does not exist (--scenarios or scenarios_dir)",
                dir.display()
            )));
        }
        for path in files_with(dir, "toml")? {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            self.add(format!("scenarios/{name}"), &path)?;
        }
        let common = dir.join("common");
        if common.is_dir() {
            for path in files_with(&common, "toml")? {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                self.add(format!("scenarios/common/{name}"), &path)?;
            }
        }
        Ok(())
    }

    /// Lays the template directory `dir` over the library: `caller.toml`, `assistant.toml`,
    /// `lexicon.toml` and `prompts/*.tera`, each replacing the one of the same name.
    pub fn overlay_templates(&mut self, dir: &Path) -> Result<()> {
        if !dir.is_dir() {
            return Err(Error::Config(format!(
                "template directory {} does not exist (--templates or templates_dir)",
                dir.display()
            )));
        }
        for path in files_with(dir, "toml")? {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            self.add(format!("templates/{name}"), &path)?;
        }
        let prompts = dir.join("prompts");
        if prompts.is_dir() {
            for path in files_with(&prompts, "tera")? {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                self.add(format!("templates/prompts/{name}"), &path)?;
            }
        }
        Ok(())
    }

    /// The files, by library path.
    pub fn files(&self) -> impl Iterator<Item = &LibraryFile> {
        self.files.values()
    }

    fn under<'a>(&'a self, dir: &'a str) -> impl Iterator<Item = &'a LibraryFile> + 'a {
        // Direct children only: `scenarios/x.toml`, not `scenarios/common/y.toml`.
        self.files.values().filter(move |f| {
            f.rel
                .strip_prefix(dir)
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|r| !r.contains('/') && r.ends_with(".toml"))
        })
    }

    fn template(&self, name: &str) -> Result<&LibraryFile> {
        let rel = format!("templates/{name}");
        self.files.get(&rel).ok_or_else(|| {
            Error::Config(format!(
                "the library has no {rel} (give --templates a directory that holds {name})"
            ))
        })
    }

    /// Reads, validates and compiles the library. Errors name the file and the key at fault.
    pub fn load(&self) -> Result<Library> {
        let mut scenarios = Vec::new();
        let mut libraries = Vec::new();
        let mut digest_input = Vec::new();
        let mut library_names = Vec::new();
        let mut fingerprints = Fingerprints::default();
        let mut files = Vec::new();
        for f in self.under("scenarios") {
            let source = f.name();
            digest_input.extend_from_slice(f.rel.as_bytes());
            digest_input.extend_from_slice(f.text.as_bytes());
            let parsed = parse_scenario(&source, &f.text)?;
            let name = parsed.scenario.name.clone();
            if let Some(old) = fingerprints.scenarios.insert(name.clone(), f.fingerprint()) {
                let _ = old;
                return Err(Error::Config(format!(
                    "{source}: scenario {name:?} is also declared by another file of the library \
                     (a file named like the embedded one replaces it; a new name adds a scenario)"
                )));
            }
            files.push((name, f.clone()));
            scenarios.push((source, parsed));
        }
        for f in self.under("scenarios/common") {
            let source = f.name();
            digest_input.extend_from_slice(f.rel.as_bytes());
            digest_input.extend_from_slice(f.text.as_bytes());
            fingerprints.shared.insert(f.rel.clone(), f.fingerprint());
            library_names.push(source.clone());
            libraries.push((source, parse_library(&f.name(), &f.text)?));
        }
        if scenarios.is_empty() {
            return Err(Error::Config(
                "the library has no scenario file (scenarios/*.toml)".into(),
            ));
        }
        let (caller, assistant, lexicon) = (
            self.template("caller.toml")?,
            self.template("assistant.toml")?,
            self.template("lexicon.toml")?,
        );
        for f in [caller, assistant, lexicon] {
            digest_input.extend_from_slice(f.text.as_bytes());
            fingerprints.shared.insert(f.rel.clone(), f.fingerprint());
        }
        let digest = format!("{:016x}", fnv1a(&digest_input));
        let set = ScenarioSet::build(scenarios, libraries, digest)?;
        // What the files add to the checker's concepts must fit the concepts it knows (a
        // `[[concepts.words]]` names one of them): said here, with the file and key, not
        // discovered by a checker that would ignore it.
        quality_checker::concepts::check_contributed(&set.contributed_concepts())?;
        let book = Phrasebook::build(
            &set,
            (&caller.name(), &caller.text),
            (&assistant.name(), &assistant.text),
            (&lexicon.name(), &lexicon.text),
            &library_names,
        )?;
        let mut defaults = Vec::new();
        let mut prompt_bytes = Vec::new();
        for kind in PromptKind::ALL {
            let f = self.template(&format!("prompts/{}.tera", kind.name()))?;
            prompt_bytes.extend_from_slice(f.text.as_bytes());
            prompt_bytes.push(0);
            fingerprints.prompts.insert(f.rel.clone(), f.fingerprint());
            defaults.push((kind, f.name(), f.text.clone()));
        }
        let prompts = Prompts::build(&defaults, &set)?;
        Ok(Library {
            set,
            book,
            prompts,
            prompts_digest: format!("{:016x}", fnv1a(&prompt_bytes)),
            fingerprints,
            scenario_files: files,
        })
    }

    /// Writes every file out under `dir` at its library path (`dir/scenarios/takeout.toml`, …).
    /// Refuses a `dir` that exists and is not empty: nothing there is overwritten.
    pub fn write_out(&self, dir: &Path) -> Result<usize> {
        if let Ok(mut rd) = std::fs::read_dir(dir)
            && rd.next().is_some()
        {
            return Err(Error::Config(format!(
                "{} is not empty: `init` writes the library only into a new or empty directory",
                dir.display()
            )));
        }
        let mut n = 0;
        for f in self.files.values() {
            let path = dir.join(&f.rel);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(|e| Error::Io {
                    path: parent.to_path_buf(),
                    message: e.to_string(),
                })?;
            }
            std::fs::write(&path, &f.text).map_err(|e| Error::Io {
                path: path.clone(),
                message: e.to_string(),
            })?;
            n += 1;
        }
        Ok(n)
    }
}

/// The library a run uses: the embedded one with, optionally, a scenario directory and a
/// template directory laid over it.
#[derive(Debug, Clone, Default)]
pub struct LibraryOverlay {
    /// Scenario files laid over the embedded ones (`--scenarios DIR`).
    pub scenarios_dir: Option<PathBuf>,
    /// Phrase banks and prompts laid over the embedded ones (`--templates DIR`).
    pub templates_dir: Option<PathBuf>,
}

impl LibraryOverlay {
    /// The library's files.
    pub fn sources(&self) -> Result<LibrarySources> {
        let mut sources = LibrarySources::embedded();
        if let Some(dir) = &self.scenarios_dir {
            sources.overlay_scenarios(dir)?;
        }
        if let Some(dir) = &self.templates_dir {
            sources.overlay_templates(dir)?;
        }
        Ok(sources)
    }

    /// Reads, validates and compiles the library. Errors name the file and the key at fault.
    pub fn load(&self) -> Result<Library> {
        self.sources()?.load()
    }
}

/// Where the library lives on disk, read without the embedded one: the directories alone.
#[derive(Debug, Clone)]
pub struct LibraryPaths {
    /// Directories of scenario files; each may have a `common/` subdirectory of library files.
    /// A later directory's file replaces an earlier one's of the same name.
    pub scenario_dirs: Vec<PathBuf>,
    /// The directory of `caller.toml`, `assistant.toml`, `lexicon.toml` and `prompts/`.
    pub templates_dir: PathBuf,
}

impl LibraryPaths {
    /// Reads, validates and compiles the library. Errors name the file and the key at fault.
    pub fn load(&self) -> Result<Library> {
        let mut sources = LibrarySources::empty();
        for dir in &self.scenario_dirs {
            sources.overlay_scenarios(dir)?;
        }
        sources.overlay_templates(&self.templates_dir)?;
        sources.load()
    }
}
