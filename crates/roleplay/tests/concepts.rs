//! A scenario file contributes its own concepts to the quality checker (issue 14, item 1): the
//! roles and events its presets' triggers name, more words for the checker's own concepts, and
//! how a caller asks for the private facts it declares — data, no Rust. The scenario is
//! `test_data/pet_care/pet_care.toml`; the calls, the expected findings and the broken copies
//! are in `test_data/concepts/`.

mod support;

use callbench_model::Dialogue;
use quality_checker::{CheckConfig, Checker, Confidence};
use roleplay::{GenerateConfig, Library, LibraryPaths, SimBackend};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use support::{quiet, repo, shards};

fn test_data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/test_data")
        .join(name)
}

/// The shipped library with the scenario files of `dir` laid over it.
fn library_with(dir: &Path) -> roleplay::Result<Library> {
    LibraryPaths {
        scenario_dirs: vec![repo().join("scenarios"), dir.to_path_buf()],
        templates_dir: repo().join("templates"),
    }
    .load()
}

/// The certain findings (those that reject) of a dialogue, as `kind@turn`.
fn certain(checker: &Checker, d: &Dialogue) -> Vec<String> {
    let (qc, confidence) = checker.check_detailed(d);
    qc.violations
        .iter()
        .zip(confidence)
        .filter(|(_, c)| *c == Confidence::Certain)
        .map(|(v, _)| format!("{}@{}", v.kind, v.turn))
        .collect()
}

#[derive(serde::Deserialize)]
struct Expected {
    call: Vec<ExpectedCall>,
}

#[derive(serde::Deserialize)]
struct ExpectedCall {
    id: String,
    why: String,
    with_concepts: Vec<String>,
    without: Vec<String>,
}

#[test]
fn a_scenario_file_teaches_the_checker_its_concepts() {
    let lib = library_with(&test_data("pet_care")).unwrap_or_else(|e| panic!("{e}"));
    let with_concepts = lib.checker(&CheckConfig::default());
    let without = CheckConfig::default().build();
    let dir = test_data("concepts");
    let calls: Vec<Dialogue> = std::fs::read_to_string(dir.join("calls.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let expected: Expected =
        toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).unwrap()).unwrap();
    assert_eq!(calls.len(), expected.call.len(), "a line per expected call");
    for e in &expected.call {
        let d = calls
            .iter()
            .find(|d| d.id == e.id)
            .unwrap_or_else(|| panic!("no call {} in calls.jsonl", e.id));
        assert_eq!(
            certain(&with_concepts, d),
            e.with_concepts,
            "{} with the scenario's concepts ({})",
            e.id,
            e.why
        );
        assert_eq!(
            certain(&without, d),
            e.without,
            "{} with the compiled-in concepts alone",
            e.id
        );
    }
    // A scenario's concepts are its own: another scenario's dialogue with the same words is
    // read as before (a new file changes no verdict on the corpus it grows).
    let mut other = calls[0].clone();
    other.scenario = "life".into();
    assert_eq!(
        certain(&with_concepts, &other),
        certain(&without, &other),
        "the pet_care concepts reach only pet_care dialogues"
    );
}

#[derive(serde::Deserialize)]
struct Malformed {
    case: Vec<Case>,
}

#[derive(serde::Deserialize)]
struct Case {
    name: String,
    replace: String,
    with: String,
    says: String,
}

#[test]
fn a_malformed_concepts_section_is_refused_naming_file_and_key() {
    let good = std::fs::read_to_string(test_data("pet_care").join("pet_care.toml")).unwrap();
    let cases: Malformed = toml::from_str(
        &std::fs::read_to_string(test_data("concepts").join("malformed.toml")).unwrap(),
    )
    .unwrap();
    for c in &cases.case {
        assert!(
            good.contains(&c.replace),
            "{}: pet_care.toml holds no {:?}",
            c.name,
            c.replace
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pet_care.toml"),
            good.replacen(&c.replace, &c.with, 1),
        )
        .unwrap();
        let message = match library_with(dir.path()) {
            Ok(_) => panic!("{}: the library loads", c.name),
            Err(e) => e.to_string(),
        };
        assert!(
            message.contains("pet_care.toml") && message.contains(&c.says),
            "{}: {message:?} should name pet_care.toml and hold {:?}",
            c.name,
            c.says
        );
    }
}

/// The offline generator plays the scenario from its file alone (`callbench validate` has nothing
/// to say of it), and the checker, reading its calls with the file's concepts, passes them.
#[test]
fn the_offline_generator_plays_the_file_alone() {
    let lib = Arc::new(library_with(&test_data("pet_care")).unwrap_or_else(|e| panic!("{e}")));
    // `callbench validate` finds nothing the offline agents would misunderstand: its probes are
    // heard by the cues of its own [[private_facts]].
    let findings: Vec<String> = roleplay::lint::lint(&lib)
        .iter()
        .map(ToString::to_string)
        .filter(|f| f.contains("pet_care"))
        .collect();
    assert!(findings.is_empty(), "{findings:#?}");
    let dir = tempfile::tempdir().unwrap();
    let cfg = GenerateConfig {
        out: dir.path().to_path_buf(),
        count: 1_400,
        rows_per_shard: 1_400,
        seed: 7,
        ..GenerateConfig::default()
    };
    support::rt()
        .block_on(roleplay::generate(
            lib.clone(),
            Arc::new(SimBackend),
            cfg,
            serde_json::json!({}),
            quiet(),
        ))
        .unwrap();
    let calls: Vec<Dialogue> = shards(dir.path())
        .into_iter()
        .filter(|d| d.scenario == "pet_care")
        .collect();
    assert!(calls.len() >= 150, "{} pet_care calls", calls.len());
    let checker = lib.checker(&CheckConfig::default());
    for d in &calls {
        let qc = checker.check(d);
        assert!(qc.passed, "{}: {:?}", d.id, qc.violations);
    }
    assert!(
        calls
            .iter()
            .any(|d| d.turns.iter().any(|t| t.text.contains("七点左右去接"))),
        "the boarding preset is conveyed"
    );
}
