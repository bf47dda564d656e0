//! What the roleplay tests share: the shipped library, the runtimes, the mock server on
//! loopback with an LLM client pointed at it, and what a run wrote read back. Each test file
//! includes it (`mod support;`) and uses the part it needs, as `crates/callbench/tests/support`
//! does for the binary's tests.
#![allow(dead_code)]

use callbench_model::Dialogue;
use llm_client::{EndpointConfig, LlmClient, LlmConfig};
use mock_openai::{MockConfig, MockServer};
use roleplay::{Event, Library, LibraryPaths};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::runtime::Runtime;

/// The repository root, where `scenarios/` and `templates/` are.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shipped scenario library and phrase banks, read from the repository's files (so a test
/// sees an edit to them without a rebuild of the embedded copy).
pub fn library() -> Arc<Library> {
    Arc::new(
        LibraryPaths {
            scenario_dirs: vec![repo().join("scenarios")],
            templates_dir: repo().join("templates"),
        }
        .load()
        .unwrap_or_else(|e| panic!("the library loads: {e}")),
    )
}

/// Two worker threads with IO and timers: the mock server and the LLM client run on it, and a
/// run's tasks interleave as they do in the binary.
pub fn rt() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// One thread, no IO: for what plays offline or only computes (the dry-run's estimate, the
/// offline agents), where a result must not depend on scheduling.
pub fn local_rt() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

/// The mock server, started on `rt` on a loopback port of its own.
pub fn start_mock(rt: &Runtime, cfg: MockConfig) -> MockServer {
    rt.block_on(MockServer::start(cfg)).unwrap()
}

/// One endpoint, the mock at `base_url`, under a key variable no one sets (the mock asks for
/// none), with retries quick enough for a test; timeouts and the breaker are each file's.
pub fn llm_config(base_url: &str) -> LlmConfig {
    let mut cfg = LlmConfig {
        endpoints: vec![EndpointConfig {
            base_url: base_url.into(),
            api_key_env: "CALLBENCH_TEST_NO_KEY".into(),
            ..Default::default()
        }],
        ..Default::default()
    };
    cfg.retry.base_ms = 5;
    cfg.retry.max_ms = 40;
    cfg
}

/// A client for `llm` keeping its files (the response cache) under `out`; made inside `rt`,
/// whose reactor its connections use.
pub fn client(rt: &Runtime, llm: LlmConfig, out: &Path) -> Arc<LlmClient> {
    let _g = rt.enter();
    Arc::new(LlmClient::new(llm, out).unwrap())
}

/// A progress sink that drops every event.
pub fn quiet() -> Arc<dyn Fn(Event) + Send + Sync> {
    Arc::new(|_| {})
}

/// The dialogues of a finished run's shards, in shard order.
pub fn shards(out: &Path) -> Vec<Dialogue> {
    let m = corpus::read_manifest(out).unwrap();
    m.shards
        .iter()
        .flat_map(|s| corpus::read_shard(&out.join(&s.file)).unwrap())
        .collect()
}

/// The dialogues of a finished run's rejects files (rejected attempts and failures).
pub fn rejects(out: &Path) -> Vec<Dialogue> {
    let m = corpus::read_manifest(out).unwrap();
    m.rejects
        .iter()
        .flat_map(|r| {
            corpus::read_jsonl(&out.join(r))
                .unwrap()
                .map(|(_, d)| d.unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A backend that plays every call as `script` writes it from the call's setup: (speaker, text)
/// turns, no decision labels, the call closed.
pub struct Scripted(pub fn(&roleplay::Setup<'_>) -> Vec<(callbench_model::Speaker, String)>);

impl roleplay::Backend for Scripted {
    fn name(&self) -> &'static str {
        "scripted"
    }

    fn models(&self) -> std::collections::BTreeMap<String, String> {
        [("caller".to_string(), "script".to_string())].into()
    }

    async fn play(
        &self,
        _lib: &Library,
        setup: &roleplay::Setup<'_>,
        _max_turns: usize,
        _min_turns: usize,
    ) -> Result<roleplay::Played, callbench_model::AgentError> {
        Ok(roleplay::Played {
            turns: (self.0)(setup)
                .into_iter()
                .map(|(speaker, text)| callbench_model::Turn {
                    speaker,
                    text,
                    action: None,
                    preset_id: None,
                })
                .collect(),
            ending: roleplay::engine::Ending::Closed,
            repairs: Default::default(),
        })
    }
}
