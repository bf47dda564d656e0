//! SOP graphs of a ChatSOP-style method: one file per scenario (`<scenario>.toml`) and
//! `default.toml` for scenarios without one.
//!
//! ```toml
//! start = "greet"
//! [[node]]
//! id = "greet"
//! instruction = "问候来电者，问清来意。"
//! next = ["convey", "relay"]
//! ```

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

/// One step of a standard operating procedure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SopNode {
    /// The node's id (an enum value of the selection schema).
    pub id: String,
    /// What the assistant does at this node.
    pub instruction: String,
    /// The nodes that may follow.
    #[serde(default)]
    pub next: Vec<String>,
}

/// A scenario's procedure.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SopGraph {
    /// Where a call starts.
    pub start: String,
    /// The nodes.
    #[serde(rename(deserialize = "node"))]
    pub nodes: Vec<SopNode>,
}

impl SopGraph {
    /// A node by id.
    pub fn node(&self, id: &str) -> Option<&SopNode> {
        self.nodes.iter().find(|n| n.id == id)
    }
}

fn err(file: &Path, key: &str, message: impl Into<String>) -> Error {
    Error::Method {
        file: file.display().to_string(),
        key: key.into(),
        message: message.into(),
    }
}

/// Reads every graph of `dir` (which `method_file`'s `sop.dir` names), checking that ids are
/// unique, `start` and every `next` name a node, and that `default.toml` exists.
pub(crate) fn load_graphs(
    dir: &Path,
    method_file: &Path,
    hash: &mut Sha256,
) -> Result<BTreeMap<String, Arc<SopGraph>>> {
    let rd = std::fs::read_dir(dir)
        .map_err(|e| err(method_file, "sop.dir", format!("{}: {e}", dir.display())))?;
    let mut files: Vec<std::path::PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut graphs = BTreeMap::new();
    for path in files {
        let text = std::fs::read_to_string(&path).map_err(|e| Error::Io {
            path: path.clone(),
            message: e.to_string(),
        })?;
        hash.update([0]);
        hash.update(text.as_bytes());
        let g: SopGraph = toml::from_str(&text).map_err(|e| {
            let (key, msg) = super::toml_message(&text, &e);
            err(&path, &key, msg)
        })?;
        if g.nodes.is_empty() {
            return Err(err(&path, "node", "a graph needs at least one node"));
        }
        for (i, n) in g.nodes.iter().enumerate() {
            if g.nodes[..i].iter().any(|m| m.id == n.id) {
                return Err(err(
                    &path,
                    &format!("node[{i}].id"),
                    format!("{:?} is used twice", n.id),
                ));
            }
        }
        if g.node(&g.start).is_none() {
            return Err(err(
                &path,
                "start",
                format!("{:?} is not a node of the graph", g.start),
            ));
        }
        for (i, n) in g.nodes.iter().enumerate() {
            if let Some(bad) = n.next.iter().find(|x| g.node(x).is_none()) {
                return Err(err(
                    &path,
                    &format!("node[{i}].next"),
                    format!("{bad:?} is not a node of the graph"),
                ));
            }
        }
        let scenario = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        graphs.insert(scenario, Arc::new(g));
    }
    if !graphs.contains_key("default") {
        return Err(err(
            method_file,
            "sop.dir",
            format!(
                "{} has no default.toml, the graph for scenarios without their own",
                dir.display()
            ),
        ));
    }
    Ok(graphs)
}
