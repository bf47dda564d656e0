//! What the tests of the `callbench` command share: the binary run as a user runs it, what it
//! wrote read back, a run killed with `kill -9` at a point it reaches, and the environment
//! checks that `.ci/run` makes mandatory. Each test file includes it (`mod support;`) and uses
//! the part it needs.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The repository root, where `scenarios/` and `templates/` are.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A file of `tests/test_data/`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/test_data")
        .join(name)
}

/// The binary, to be started in `dir` (logging as the environment says).
pub fn command_in(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_callbench"));
    c.current_dir(dir);
    c
}

/// The binary run to its end in `dir`, logging warnings only.
pub fn run_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Output {
    command_in(dir)
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("the binary runs")
}

/// The binary run to its end from the repository root, logging warnings only.
pub fn callbench<S: AsRef<OsStr>>(args: &[S]) -> Output {
    run_in(&repo(), args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Standard output, then standard error.
pub fn text(o: &Output) -> String {
    format!("{}\n{}", stdout(o), stderr(o))
}

/// The run failed (no panic) and its error names every one of `needles`.
pub fn fails_with(o: &Output, needles: &[&str]) {
    assert!(
        !o.status.success(),
        "expected failure; stdout: {}",
        stdout(o)
    );
    let e = stderr(o);
    for n in needles {
        assert!(e.contains(n), "stderr lacks {n:?}: {e}");
    }
    assert!(!e.contains("panicked"), "{e}");
}

/// `CI` set and non-empty (as `.ci/run` exports it): environment-dependent tests are mandatory.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty())
}

/// Whether `python3` can `import {modules}` (e.g. `"pyarrow, duckdb, polars"`). When it cannot,
/// the test is failed under CI (`.ci/run` installs them) and elsewhere the skip is said.
pub fn python_has(modules: &str) -> bool {
    let probe = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output();
    if probe.as_ref().is_ok_and(|o| o.status.success()) {
        return true;
    }
    assert!(
        !under_ci(),
        "CI is set but python3 with {modules} is missing (see .ci/run)"
    );
    eprintln!("skipped: python3 with {modules} is not installed here");
    false
}

/// `python3 script args…` run to its end, which must succeed.
pub fn python_succeeds(script: &Path, arg: &Path) {
    let o = Command::new("python3")
        .arg(script)
        .arg(arg)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o));
}

/// Every file under `dir` (none when it does not exist), by path relative to it.
pub fn files(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, p);
            }
        }
    }
    out
}

/// Every file under `dir` with its bytes, by relative path.
pub fn file_bytes(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    files(dir)
        .into_iter()
        .map(|(rel, p)| (rel, std::fs::read(&p).unwrap()))
        .collect()
}

/// The shard and rejects files of the corpus `out` with their bytes (`shards/…`, `rejects/…`).
pub fn shards_and_rejects(out: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut all = BTreeMap::new();
    for sub in ["shards", "rejects"] {
        for (rel, bytes) in file_bytes(&out.join(sub)) {
            all.insert(format!("{sub}/{rel}"), bytes);
        }
    }
    all
}

pub fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The corpus's `manifest.json`.
pub fn manifest(out: &Path) -> serde_json::Value {
    json(&out.join("manifest.json"))
}

/// The binary started in the background in `dir`, its output discarded, to be killed.
pub fn spawn_in<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Child {
    command_in(dir)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts")
}

/// Kills `child` with SIGKILL the moment `reached()` holds (polled without sleeping, so that a
/// short-lived point is seen), or once it has exited by itself. Fails if neither happens within
/// `limit`: a point never reached is a failure, not a pass. Returns whether the kill interrupted
/// a running process.
pub fn kill_when(
    child: &mut Child,
    what: &str,
    limit: Duration,
    mut reached: impl FnMut() -> bool,
) -> bool {
    let start = Instant::now();
    let mut finished = false;
    while !reached() {
        if child.try_wait().unwrap().is_some() {
            finished = true;
            break;
        }
        assert!(start.elapsed() < limit, "{what}: not reached in {limit:?}");
        std::thread::yield_now();
    }
    let _ = child.kill(); // SIGKILL
    let status = child.wait().unwrap();
    // Killed by a signal: no exit code. Exited by itself: the point came too late to catch.
    !finished && status.code().is_none()
}
