//! A small offline corpus generated once per test binary, and helpers to run the harness.

use callbench_model::{Dialogue, Method};
use evaluate::{EvalConfig, Judge, Mode};
use roleplay::{Director, Event, GenerateConfig, Library, LibraryPaths, SimBackend};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

pub fn library() -> Arc<Library> {
    static LIB: OnceLock<Arc<Library>> = OnceLock::new();
    LIB.get_or_init(|| {
        Arc::new(
            LibraryPaths {
                scenario_dirs: vec![repo().join("scenarios")],
                templates_dir: repo().join("templates"),
            }
            .load()
            .unwrap_or_else(|e| panic!("the library loads: {e}")),
        )
    })
    .clone()
}

pub fn director() -> Arc<Director> {
    static D: OnceLock<Arc<Director>> = OnceLock::new();
    D.get_or_init(|| Arc::new(Director::new(library()))).clone()
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime")
}

/// Generates an offline corpus of `count` dialogues with `seed` into `out`.
pub fn generate(out: &Path, count: u64, seed: u64) {
    let quiet: Arc<dyn Fn(Event) + Send + Sync> = Arc::new(|_| {});
    runtime()
        .block_on(roleplay::generate(
            library(),
            Arc::new(SimBackend),
            GenerateConfig {
                out: out.to_path_buf(),
                count,
                rows_per_shard: 200,
                seed,
                ..GenerateConfig::default()
            },
            serde_json::json!({}),
            quiet,
        ))
        .unwrap_or_else(|e| panic!("generate: {e}"));
}

/// A corpus of 400 dialogues (about 40 in the test split), generated once.
pub fn corpus() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        generate(dir.path(), 400, 11);
        dir
    })
    .path()
}

/// The test split of [`corpus`].
pub fn test_split() -> Arc<Vec<Dialogue>> {
    static D: OnceLock<Arc<Vec<Dialogue>>> = OnceLock::new();
    D.get_or_init(|| {
        Arc::new(
            evaluate::load_split(corpus(), callbench_model::Split::Test)
                .expect("the test split loads")
                .dialogues,
        )
    })
    .clone()
}

pub fn config(out: &Path, mode: Mode) -> EvalConfig {
    EvalConfig {
        out: out.to_path_buf(),
        mode,
        concurrency: 8,
        ..EvalConfig::default()
    }
}

/// Runs `method` with `judge` over `dialogues` into `out` (turn mode unless `cfg` says).
pub fn run<M: Method + 'static, J: Judge>(
    cfg: &EvalConfig,
    dialogues: Arc<Vec<Dialogue>>,
    method: M,
    judge: J,
) -> Vec<corpus::EvalTurn> {
    runtime()
        .block_on(evaluate::run_method(
            cfg,
            dialogues,
            "test-corpus",
            Arc::new(method),
            Arc::new(judge),
            Some(director()),
            &|_| {},
        ))
        .unwrap_or_else(|e| panic!("run: {e}"))
}

pub fn reference(dialogues: &[Dialogue]) -> evaluate::ReferenceMethod {
    evaluate::ReferenceMethod::new(director(), dialogues).expect("reference method")
}
