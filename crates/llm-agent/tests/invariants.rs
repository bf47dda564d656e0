//! ARCHITECTURE.md's invariant: the offline agents (and what they are built from) have no
//! network dependency — everything a model plays lives in `llm-agent`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const NETWORK: &[&str] = &[
    "llm-client",
    "llm-agent",
    "mock-openai",
    "reqwest",
    "async-openai",
    "hyper",
    "hyper-util",
    "axum",
    "tokio",
];

fn crates() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The names of a crate's normal dependencies.
fn deps(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(crates().join(name).join("Cargo.toml")).unwrap();
    let manifest: toml::Table = toml::from_str(&text).unwrap();
    manifest
        .get("dependencies")
        .and_then(|d| d.as_table())
        .map(|d| d.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn the_offline_agents_have_no_network_dependency() {
    for root in ["caller-agent", "assistant-agent"] {
        // Follow the workspace's own crates; a registry crate is checked by name.
        let mut seen = BTreeSet::new();
        let mut todo = vec![root.to_string()];
        while let Some(c) = todo.pop() {
            if !seen.insert(c.clone()) {
                continue;
            }
            for d in deps(&c) {
                assert!(
                    !NETWORK.contains(&d.as_str()),
                    "{root} depends (through {c}) on {d}, a network crate"
                );
                if crates().join(&d).join("Cargo.toml").is_file() {
                    todo.push(d);
                }
            }
        }
        assert!(seen.contains("phrasebook") && seen.contains("callbench-model"));
    }
}
