//! The generic banks: every bank an agent can draw from is checked at load, and a missing one
//! is an error that names it — never an agent that silently says nothing.

use callbench_model::ScenarioSet;
use callbench_model::scenario::{parse_library, parse_scenario};
use phrasebook::{ASSISTANT_BANKS, CALLER_BANKS, PhraseError, Phrasebook, Vars};
use rand::SeedableRng;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

/// The shipped scenario set, read as the library loader reads it.
fn set() -> ScenarioSet {
    let dir = repo().join("scenarios");
    let scenarios = toml_files(&dir)
        .into_iter()
        .map(|p| {
            let s = p.display().to_string();
            let f = parse_scenario(&s, &read(&p)).unwrap();
            (s, f)
        })
        .collect();
    let libraries = toml_files(&dir.join("common"))
        .into_iter()
        .map(|p| {
            let s = p.display().to_string();
            let f = parse_library(&s, &read(&p)).unwrap();
            (s, f)
        })
        .collect();
    ScenarioSet::build(scenarios, libraries, "test".into()).unwrap()
}

fn build(caller: &str, assistant: &str) -> Result<Phrasebook, PhraseError> {
    let lexicon = read(&repo().join("templates/lexicon.toml"));
    Phrasebook::build(
        &set(),
        ("templates/caller.toml", caller),
        ("templates/assistant.toml", assistant),
        ("templates/lexicon.toml", &lexicon),
        &[],
    )
}

fn shipped(file: &str) -> String {
    read(&repo().join("templates").join(file))
}

/// `text` without the bank `name`.
fn without(text: &str, name: &str) -> String {
    let mut t: toml::Table = toml::from_str(text).unwrap();
    assert!(t.remove(name).is_some(), "{name} is in the shipped file");
    toml::to_string(&t).unwrap()
}

/// `text` with the bank `name` emptied.
fn emptied(text: &str, name: &str) -> String {
    let mut t: toml::Table = toml::from_str(text).unwrap();
    t.insert(name.into(), toml::Value::Array(vec![]));
    toml::to_string(&t).unwrap()
}

#[test]
fn every_required_bank_ships_with_variants() {
    let book = build(&shipped("caller.toml"), &shipped("assistant.toml")).unwrap();
    for (prefix, names) in [("caller", CALLER_BANKS), ("assistant", ASSISTANT_BANKS)] {
        for name in names {
            let bank = book.try_bank(&format!("{prefix}.{name}")).unwrap();
            assert!(!bank.is_empty(), "{prefix}.{name}");
        }
    }
}

#[test]
fn a_missing_or_empty_bank_is_a_load_error_naming_it() {
    let (caller, assistant) = (shipped("caller.toml"), shipped("assistant.toml"));
    for name in ASSISTANT_BANKS {
        for text in [without(&assistant, name), emptied(&assistant, name)] {
            let e = build(&caller, &text)
                .err()
                .unwrap_or_else(|| panic!("{name}"));
            assert!(
                matches!(&e, PhraseError::MissingBank { file, bank }
                    if file == "templates/assistant.toml" && bank == name),
                "{name}: {e}"
            );
            assert!(e.to_string().contains(&format!("`{name}`")), "{e}");
        }
    }
    for name in CALLER_BANKS {
        let e = build(&without(&caller, name), &assistant).err().unwrap();
        assert!(
            matches!(&e, PhraseError::MissingBank { file, bank }
                if file == "templates/caller.toml" && bank == name),
            "{name}: {e}"
        );
    }
}

/// The bank the assistant uses when it suspends a preset before conveying it: once missing
/// from the validated list, so a file without it loaded and the assistant said nothing.
#[test]
fn suspend_before_is_validated() {
    assert!(ASSISTANT_BANKS.contains(&"suspend_before"));
    let e = build(
        &shipped("caller.toml"),
        &without(&shipped("assistant.toml"), "suspend_before"),
    )
    .err()
    .expect("refused");
    assert!(e.to_string().contains("suspend_before"), "{e}");
}

/// Drawing from a bank that does not exist is an error naming it, not an empty string.
#[test]
fn drawing_from_an_unknown_bank_is_an_error() {
    let book = build(&shipped("caller.toml"), &shipped("assistant.toml")).unwrap();
    let vars = Vars::new(&BTreeMap::new(), "王先生", "他", "小李");
    let mut rng = rand::rngs::StdRng::seed_from_u64(1);
    let e = book
        .say_bank("assistant.no_such_bank", &mut rng, &vars)
        .unwrap_err();
    assert!(e.to_string().contains("no_such_bank"), "{e}");
    assert!(book.try_bank("caller.nothing").is_err());
    let said = book.say_bank("assistant.close", &mut rng, &vars).unwrap();
    assert!(!said.is_empty());
}

/// A persona's words pick its style: the shipped `[styles]` give a hurried courier fewer
/// greetings and more interruptions than a polite one, and words a persona quotes are its tics.
#[test]
fn personas_change_how_the_caller_speaks() {
    let book = build(&shipped("caller.toml"), &shipped("assistant.toml")).unwrap();
    let styles = &book.caller_styles;
    let (plain, tics) = styles.for_persona(None);
    assert!(tics.is_empty());
    let (hurried, _) = styles.for_persona(Some("手上几百个件，说话特别快，恨不得三句话说完"));
    let (polite, _) = styles.for_persona(Some("新来的快递员，说话客气，有点拘谨"));
    assert!(hurried.greet < polite.greet, "{hurried:?} vs {polite:?}");
    assert!(hurried.interrupt > polite.interrupt);
    assert!(hurried.react < plain.react);
    let (_, tics) = styles.for_persona(Some("带点口音，爱说“得嘞”“没事儿”"));
    assert_eq!(tics, ["得嘞", "没事儿"]);
}

/// A chance outside 0..1 or a style without cue words is a load error naming the key.
#[test]
fn a_bad_style_is_a_load_error_naming_the_key() {
    let caller = shipped("caller.toml");
    let bad = caller.replacen("push = 0.3", "push = 3.0", 1);
    assert_ne!(bad, caller, "the shipped hurried style sets push = 0.3");
    let err = build(&bad, &shipped("assistant.toml"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("styles.persona[0].push"), "{err}");
    let mut t: toml::Table = toml::from_str(&caller).unwrap();
    t.remove("styles");
    let err = build(&toml::to_string(&t).unwrap(), &shipped("assistant.toml"))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("styles"), "{err}");
}
