//! Methods are data: `methods/<name>.toml` plus tera prompts (and, for some kinds, data files),
//! interpreted here. Adding a method needs no Rust; a new *kind* of method does.
//!
//! A method file:
//!
//! ```toml
//! # What the method is, and how faithful to its paper it is.
//! kind = "single"            # single | think_then_speak | react | state_tracking | schema_driven | sop_graph
//! description = "…"
//! decision = true            # the reply carries a decision label (default true)
//!
//! [prompts]                  # tera files, relative to the methods directory
//! system = "prompts/direct.tera"
//! ```
//!
//! and per kind: `[think] fields = [...]` with `prompts.think`; `[react] max_steps`, `tools`;
//! `[state] slots = [...]`, `candidates`; `[schema] file` (per-scenario task schemas);
//! `[sop] dir` (a graph per scenario, `default.toml` the fallback) with `prompts.select`.
//! Every prompt sees `owner_name`, `public`, `presets`, `rules`, `scenario`, `actions` (the
//! decision words) and `turns`; each kind adds its own (`thought`, `steps`, `node`, `task`,
//! `graph`).

mod runner;
mod sop;

pub use runner::LlmMethod;
pub use sop::{SopGraph, SopNode};

use crate::error::{Error, Result, tera_chain};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The kinds of step sequence a method file can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// One call: prompt and call so far in, utterance and decision out (Direct Prompting).
    Single,
    /// A hidden reasoning call (fields of the method's choosing), then the reply with the
    /// reasoning in the prompt (CoT / ProCoT-style).
    ThinkThenSpeak,
    /// A bounded thought → tool → observation loop over proxy tools (ReAct).
    React,
    /// Belief state → system act → response in one structured reply (SimpleTOD-style).
    StateTracking,
    /// A per-scenario task schema and instructions drive one structured reply (AutoTOD-style).
    SchemaDriven,
    /// A per-scenario SOP graph: pick the node the call is at, then speak by its instruction
    /// (ChatSOP-style).
    SopGraph,
}

impl StepKind {
    /// The word in method files.
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Single => "single",
            StepKind::ThinkThenSpeak => "think_then_speak",
            StepKind::React => "react",
            StepKind::StateTracking => "state_tracking",
            StepKind::SchemaDriven => "schema_driven",
            StepKind::SopGraph => "sop_graph",
        }
    }
}

/// The proxy tools a ReAct-style method may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    /// Read the owner's presets.
    ReadPresets,
    /// Read what the owner allows to be said about them.
    ReadPublic,
    /// Leave a message for the owner (recorded in the trace).
    LeaveMessage,
    /// Say the input and end the call.
    EndCall,
    /// Say the input (the step's reply to the caller).
    Respond,
}

impl Tool {
    /// Every tool, in the order the schema offers them.
    pub const ALL: [Tool; 5] = [
        Tool::ReadPresets,
        Tool::ReadPublic,
        Tool::LeaveMessage,
        Tool::EndCall,
        Tool::Respond,
    ];

    /// The tool's name in the schema and the prompts.
    pub fn as_str(self) -> &'static str {
        match self {
            Tool::ReadPresets => "read_presets",
            Tool::ReadPublic => "read_public",
            Tool::LeaveMessage => "leave_message",
            Tool::EndCall => "end_call",
            Tool::Respond => "respond",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MethodFile {
    name: Option<String>,
    kind: StepKind,
    #[serde(default)]
    description: String,
    #[serde(default = "yes")]
    decision: bool,
    prompts: BTreeMap<String, String>,
    think: Option<ThinkSection>,
    react: Option<ReactSection>,
    state: Option<StateSection>,
    schema: Option<SchemaSection>,
    sop: Option<SopSection>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ThinkSection {
    fields: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReactSection {
    #[serde(default = "default_steps")]
    max_steps: u32,
    tools: Option<Vec<Tool>>,
}

fn default_steps() -> u32 {
    4
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StateSection {
    slots: Vec<String>,
    #[serde(default)]
    candidates: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SchemaSection {
    file: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SopSection {
    dir: String,
}

/// A scenario's task schema for a schema-driven method: what to find out and how to behave.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskSchema {
    /// The instructions for this kind of call.
    pub instructions: String,
    /// The slots the assistant tracks (names; keys of the reply's `slots` object).
    pub slots: Vec<String>,
}

/// What a kind needs beyond the prompts, checked at load.
#[derive(Debug, Clone)]
pub enum KindSpec {
    /// Nothing more.
    Single,
    /// The hidden reasoning's fields.
    ThinkThenSpeak {
        /// Keys of the thought object, in order.
        fields: Vec<String>,
    },
    /// The loop's bound and tools.
    React {
        /// Most thought → tool steps before the method must answer.
        max_steps: u32,
        /// The tools offered.
        tools: Vec<Tool>,
    },
    /// The belief state's slots and the candidates to draw (0: one response).
    StateTracking {
        /// Belief-state slots.
        slots: Vec<String>,
        /// Candidate responses to produce and choose from (DivTOD-style); 0 or 1: one.
        candidates: u32,
    },
    /// Task schemas by scenario (`default` the fallback).
    SchemaDriven {
        /// By scenario id.
        tasks: BTreeMap<String, TaskSchema>,
    },
    /// SOP graphs by scenario (`default` the fallback).
    SopGraph {
        /// By scenario id.
        graphs: BTreeMap<String, Arc<SopGraph>>,
    },
}

/// A loaded, validated method file.
#[derive(Debug, Clone)]
pub struct MethodSpec {
    /// The method's name (the file's stem).
    pub name: String,
    /// The method file.
    pub file: PathBuf,
    /// The method's step kind.
    pub kind: StepKind,
    /// What it is.
    pub description: String,
    /// The reply carries a decision label.
    pub decision: bool,
    /// What the kind needs.
    pub spec: KindSpec,
    /// The prompts, compiled (template names: the `[prompts]` keys).
    pub(crate) tera: Arc<tera::Tera>,
    /// SHA-256 of the method file, its prompts and data files, in a fixed order.
    pub content_hash: String,
}

/// The prompt keys each kind needs.
fn needed_prompts(kind: StepKind) -> &'static [&'static str] {
    match kind {
        StepKind::ThinkThenSpeak => &["think", "system"],
        StepKind::SopGraph => &["select", "system"],
        _ => &["system"],
    }
}

/// Stand-in variables every method prompt may use, for the render check at load.
pub(crate) fn sample_vars() -> serde_json::Value {
    serde_json::json!({
        "scenario": "takeout", "owner_name": "王先生",
        "public": {"title": "王先生"},
        "presets": [{"id": "p1", "kind": "regular", "trigger": "外卖送到时", "response": "放门口"}],
        "rules": "1. 不透露机主隐私。",
        "actions": callbench_model::Action::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
        "turns": [{"speaker": "caller", "text": "外卖到了"}],
        "thought": {"caller_goal": "送外卖"},
        "steps": [{"thought": "想一想", "tool": "read_presets", "input": "", "observation": "p1"}],
        "tools": ["read_presets", "respond"],
        "max_steps": 4,
        "slots": ["caller_intent"],
        "candidates": 3,
        "task": {"instructions": "记录来电事项", "slots": ["order"]},
        "graph": {"start": "greet", "nodes": [{"id": "greet", "instruction": "问候", "next": []}]},
        "node": {"id": "greet", "instruction": "问候", "next": []},
        "fields": ["caller_goal"],
    })
}

fn method_err(file: &Path, key: &str, message: impl Into<String>) -> Error {
    Error::Method {
        file: file.display().to_string(),
        key: key.into(),
        message: message.into(),
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// A TOML error's key (`table.key`, from the line the parser points at, or the field it names)
/// and its message with the line.
pub(crate) fn toml_message(text: &str, e: &toml::de::Error) -> (String, String) {
    let msg = e.message().trim().to_string();
    let named = msg.split('`').nth(1).map(str::to_string);
    let Some(span) = e.span().filter(|_| !msg.starts_with("missing field")) else {
        return (named.unwrap_or_else(|| "?".into()), msg);
    };
    let start = span.start.min(text.len());
    let idx = text[..start].matches('\n').count();
    let lines: Vec<&str> = text.lines().collect();
    let line = lines.get(idx).copied().unwrap_or("").trim();
    let header = |l: &str| {
        let l = l.trim();
        (l.starts_with('[')).then(|| l.trim_matches(|c| c == '[' || c == ']').trim().to_string())
    };
    let key = if let Some(h) = header(line) {
        h
    } else {
        let k = line.split('=').next().unwrap_or("").trim().to_string();
        let table = lines[..idx.min(lines.len())]
            .iter()
            .rev()
            .find_map(|l| header(l));
        match (table, k.is_empty()) {
            (_, true) => named.unwrap_or_else(|| "?".into()),
            (Some(t), false) => format!("{t}.{k}"),
            (None, false) => k,
        }
    };
    (key, format!("line {}: {msg}", idx + 1))
}

impl MethodSpec {
    /// Reads and checks one method file; prompts and data files are resolved against `dir`.
    pub fn load(dir: &Path, file: &Path) -> Result<MethodSpec> {
        let text = read(file)?;
        let name = file
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let f: MethodFile = toml::from_str(&text).map_err(|e| {
            let (key, msg) = toml_message(&text, &e);
            method_err(file, &key, msg)
        })?;
        if let Some(n) = &f.name
            && *n != name
        {
            return Err(method_err(
                file,
                "name",
                format!("{n:?} differs from the file's name {name:?}"),
            ));
        }
        let mut hash = Sha256::new();
        hash.update(text.as_bytes());
        // Prompts: every one the kind needs, each compiling and rendering with stand-ins.
        for key in needed_prompts(f.kind) {
            if !f.prompts.contains_key(*key) {
                return Err(method_err(
                    file,
                    &format!("prompts.{key}"),
                    format!("a {} method needs this prompt", f.kind.as_str()),
                ));
            }
        }
        let mut tera = tera::Tera::default();
        let mut sources: Vec<(String, String)> = Vec::new();
        for (key, rel) in &f.prompts {
            let path = dir.join(rel);
            let body = std::fs::read_to_string(&path).map_err(|e| {
                method_err(
                    file,
                    &format!("prompts.{key}"),
                    format!("{}: {e}", path.display()),
                )
            })?;
            hash.update([0]);
            hash.update(key.as_bytes());
            hash.update([0]);
            hash.update(body.as_bytes());
            sources.push((key.clone(), body));
        }
        for (key, body) in &sources {
            tera.add_raw_template(key, body)
                .map_err(|e| method_err(file, &format!("prompts.{key}"), tera_chain(&e)))?;
        }
        let ctx = tera::Context::from_value(sample_vars()).unwrap_or_default();
        for (key, _) in &sources {
            tera.render(key, &ctx)
                .map_err(|e| method_err(file, &format!("prompts.{key}"), tera_chain(&e)))?;
        }
        let missing = |section: &str| {
            method_err(
                file,
                section,
                format!("a {} method needs a [{section}] section", f.kind.as_str()),
            )
        };
        let spec = match f.kind {
            StepKind::Single => KindSpec::Single,
            StepKind::ThinkThenSpeak => {
                let t = f.think.ok_or_else(|| missing("think"))?;
                check_keys(file, "think.fields", &t.fields)?;
                KindSpec::ThinkThenSpeak { fields: t.fields }
            }
            StepKind::React => {
                let r = f.react.ok_or_else(|| missing("react"))?;
                if !(1..=16).contains(&r.max_steps) {
                    return Err(method_err(
                        file,
                        "react.max_steps",
                        format!("must be 1–16, got {}", r.max_steps),
                    ));
                }
                let tools = r.tools.unwrap_or_else(|| Tool::ALL.to_vec());
                if !tools.contains(&Tool::Respond) {
                    return Err(method_err(
                        file,
                        "react.tools",
                        "must offer `respond`: the loop ends by answering",
                    ));
                }
                KindSpec::React {
                    max_steps: r.max_steps,
                    tools,
                }
            }
            StepKind::StateTracking => {
                let s = f.state.ok_or_else(|| missing("state"))?;
                check_keys(file, "state.slots", &s.slots)?;
                if s.candidates > 5 {
                    return Err(method_err(
                        file,
                        "state.candidates",
                        format!("at most 5, got {}", s.candidates),
                    ));
                }
                KindSpec::StateTracking {
                    slots: s.slots,
                    candidates: s.candidates,
                }
            }
            StepKind::SchemaDriven => {
                let s = f.schema.ok_or_else(|| missing("schema"))?;
                let path = dir.join(&s.file);
                let body = std::fs::read_to_string(&path).map_err(|e| {
                    method_err(file, "schema.file", format!("{}: {e}", path.display()))
                })?;
                hash.update([0]);
                hash.update(body.as_bytes());
                let tasks: BTreeMap<String, TaskSchema> = toml::from_str(&body).map_err(|e| {
                    let (key, msg) = toml_message(&body, &e);
                    method_err(&path, &key, msg)
                })?;
                if !tasks.contains_key("default") {
                    return Err(method_err(
                        &path,
                        "default",
                        "a [default] task schema is the fallback for scenarios without one",
                    ));
                }
                for (scenario, t) in &tasks {
                    check_keys(&path, &format!("{scenario}.slots"), &t.slots)?;
                }
                KindSpec::SchemaDriven { tasks }
            }
            StepKind::SopGraph => {
                let s = f.sop.ok_or_else(|| missing("sop"))?;
                let graphs = sop::load_graphs(&dir.join(&s.dir), file, &mut hash)?;
                KindSpec::SopGraph { graphs }
            }
        };
        Ok(MethodSpec {
            name,
            file: file.to_path_buf(),
            kind: f.kind,
            description: f.description,
            decision: f.decision,
            spec,
            tera: Arc::new(tera),
            content_hash: hex::encode(hash.finalize()),
        })
    }

    /// Requests one reply takes, at least and at most (re-asks aside): for `--dry-run`.
    pub fn requests_per_reply(&self) -> (u32, u32) {
        match &self.spec {
            KindSpec::Single | KindSpec::StateTracking { .. } | KindSpec::SchemaDriven { .. } => {
                (1, 1)
            }
            KindSpec::ThinkThenSpeak { .. } | KindSpec::SopGraph { .. } => (2, 2),
            KindSpec::React { max_steps, .. } => (1, max_steps + 1),
        }
    }

    /// The method's `system` prompt for `view` as its first step would render it (without what
    /// later steps add): for `--dry-run`'s token estimate.
    pub fn system_prompt(&self, view: &callbench_model::CallView<'_>) -> Result<String> {
        let mut vars = runner::view_vars(view);
        // Kind-specific variables with empty values, so that every prompt renders.
        for (k, v) in [
            ("thought", serde_json::json!({})),
            ("steps", serde_json::json!([])),
            ("tools", serde_json::json!(["respond"])),
            ("max_steps", serde_json::json!(0)),
            ("fields", serde_json::json!([])),
            ("slots", serde_json::json!([])),
            ("candidates", serde_json::json!(0)),
        ] {
            vars[k] = v;
        }
        match &self.spec {
            KindSpec::SchemaDriven { tasks } => {
                let task = tasks.get(view.scenario).or_else(|| tasks.get("default"));
                vars["task"] = serde_json::json!(task);
            }
            KindSpec::SopGraph { graphs } => {
                let g = graphs.get(view.scenario).or_else(|| graphs.get("default"));
                vars["graph"] = serde_json::json!(g.map(|g| &**g));
                vars["node"] = serde_json::json!(g.and_then(|g| g.node(&g.start)));
            }
            KindSpec::StateTracking { slots, candidates } => {
                vars["slots"] = serde_json::json!(slots);
                vars["candidates"] = serde_json::json!(candidates);
            }
            KindSpec::ThinkThenSpeak { fields } => vars["fields"] = serde_json::json!(fields),
            _ => {}
        }
        self.render("system", &vars)
    }

    /// Renders prompt `key` with `vars`.
    pub(crate) fn render(&self, key: &str, vars: &serde_json::Value) -> Result<String> {
        let ctx = tera::Context::from_value(vars.clone()).map_err(|e| Error::Render {
            name: format!("{}:{key}", self.name),
            message: tera_chain(&e),
        })?;
        self.tera.render(key, &ctx).map_err(|e| Error::Render {
            name: format!("{}:{key}", self.name),
            message: tera_chain(&e),
        })
    }
}

/// Keys of a reply object a method names: non-empty, `[a-z0-9_]`, no repeats.
fn check_keys(file: &Path, key: &str, names: &[String]) -> Result<()> {
    if names.is_empty() {
        return Err(method_err(file, key, "name at least one"));
    }
    for (i, n) in names.iter().enumerate() {
        if n.is_empty()
            || !n
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        {
            return Err(method_err(
                file,
                key,
                format!("{n:?}: use lower-case letters, digits and _"),
            ));
        }
        if names[..i].contains(n) {
            return Err(method_err(file, key, format!("{n:?} is named twice")));
        }
    }
    Ok(())
}

/// The name of the embedded offline assistant, which no method file may take.
pub const RESERVED: &str = "reference";

/// The methods of a directory, by name.
#[derive(Debug, Clone, Default)]
pub struct MethodSet {
    methods: BTreeMap<String, Arc<MethodSpec>>,
}

/// Reads every `*.toml` of `dir` as a method file (sorted by name). The first bad file stops
/// the load with an error naming it and the key.
pub fn load_methods(dir: &Path) -> Result<MethodSet> {
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Io {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut methods = BTreeMap::new();
    for f in files {
        if f.file_stem().is_some_and(|s| s == RESERVED) {
            return Err(method_err(
                &f,
                "name",
                format!("{RESERVED:?} is the embedded offline assistant; name the file otherwise"),
            ));
        }
        let m = MethodSpec::load(dir, &f)?;
        methods.insert(m.name.clone(), Arc::new(m));
    }
    Ok(MethodSet { methods })
}

impl MethodSet {
    /// The methods' names, sorted.
    pub fn names(&self) -> Vec<&str> {
        self.methods.keys().map(String::as_str).collect()
    }

    /// A method by name; an unknown name is an error listing the available ones.
    pub fn get(&self, name: &str) -> Result<Arc<MethodSpec>> {
        self.methods
            .get(name)
            .cloned()
            .ok_or_else(|| Error::UnknownMethod {
                name: name.to_string(),
                available: self.methods.keys().cloned().collect(),
            })
    }
}
