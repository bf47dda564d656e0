//! The checker's rules, exemplified: every case file under `tests/cases/` (one per detector
//! module; the format is in `tests/cases/README.md`) is a list of small dialogues with the
//! findings the checker must give on them. The sources name these cases in their comments
//! instead of quoting example sentences, so a claim a comment makes is a claim a test checks.
//!
//! One test runs them all and lists every mismatching case with its file and id, not only the
//! first; a malformed file fails with the file, the case and the key named.

use callbench_model::Dialogue;
use callbench_model::vocab::{PresetCase, PresetKind, Relation, Speaker, VIOLATION_KINDS};
use quality_checker::{CheckConfig, Confidence};
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The file of examples that did not hold: each of its cases must mismatch.
const UNHELD: &str = "unheld";

/// A case file: defaults every case of the file shares, and the cases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CaseFile {
    #[serde(default)]
    defaults: Fields,
    #[serde(default)]
    case: Vec<Case>,
}

/// What a case may set and a file's `[defaults]` may give for all its cases.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    scenario: Option<String>,
    preset_case: Option<String>,
    relation: Option<String>,
    /// The owner's full name.
    name: Option<String>,
    public: Option<BTreeMap<String, String>>,
    private: Option<BTreeMap<String, String>>,
    presets: Option<Vec<PresetSpec>>,
    /// The caller's role and goal.
    role: Option<String>,
    goal: Option<String>,
    /// `[check]` keys, as in the config file (e.g. `{ uncertain = "reject" }`).
    config: Option<toml::Table>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PresetSpec {
    trigger: String,
    response: String,
    #[serde(default)]
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    id: String,
    /// The module and rule the case illustrates, in words.
    rule: String,
    #[serde(flatten)]
    fields: Fields,
    /// Caller first, then alternating; a turn is its text, or a table with `text` and
    /// optionally `speaker`, `action` and `preset_id`.
    turns: Vec<TurnSpec>,
    /// Every finding the checker gives: `[kind, turn]`, or `[kind, turn, "certain"|"uncertain"]`.
    expect: Vec<toml::Value>,
    /// Kinds that must not be found anywhere in the dialogue.
    #[serde(default)]
    not: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum TurnSpec {
    Text(String),
    Full(FullTurn),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FullTurn {
    text: String,
    speaker: Option<String>,
    action: Option<String>,
    preset_id: Option<String>,
}

/// One expected finding.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    kind: String,
    turn: usize,
    confidence: Option<Confidence>,
}

/// A case ready to run.
struct Ready {
    file: String,
    id: String,
    dialogue: Dialogue,
    config: CheckConfig,
    expect: Vec<Expected>,
    not: Vec<String>,
}

/// The case files, sorted.
fn case_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cases");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    files
}

/// Parses one case file; `file` names it in errors (its stem is the id prefix every case
/// carries). Every problem is an error naming the file, the case and the key.
fn parse_file(file: &str, stem: &str, text: &str) -> Result<Vec<Ready>, Vec<String>> {
    let parsed: CaseFile = toml::from_str(text).map_err(|e| vec![format!("{file}: {e}")])?;
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, case) in parsed.case.into_iter().enumerate() {
        let at = format!("{file}: case[{i}] (id {:?})", case.id);
        if !case.id.starts_with(&format!("{stem}/")) {
            errors.push(format!("{at}: key `id` must start with \"{stem}/\""));
        }
        if !ids.insert(case.id.clone()) {
            errors.push(format!("{at}: key `id` is used twice in the file"));
        }
        if case.rule.trim().is_empty() {
            errors.push(format!("{at}: key `rule` is empty"));
        }
        match build(&parsed.defaults, case) {
            Ok(mut r) => {
                r.file = file.to_string();
                out.push(r);
            }
            Err(e) => errors.extend(e.into_iter().map(|e| format!("{at}: {e}"))),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A case's dialogue, config and expectations, with the file's defaults under it.
fn build(defaults: &Fields, case: Case) -> Result<Ready, Vec<String>> {
    let mut errors = Vec::new();
    let f = &case.fields;
    let d = defaults;
    let pick = |a: &Option<String>, b: &Option<String>| a.clone().or_else(|| b.clone());
    let presets = f
        .presets
        .clone()
        .or_else(|| d.presets.clone())
        .unwrap_or_default();
    let mut word = |key: &str, given: Option<String>, default: &str| -> String {
        let w = given.unwrap_or_else(|| default.to_string());
        let ok = match key {
            "relation" => Relation::from_str(&w)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            "preset_case" => PresetCase::from_str(&w)
                .map(|_| ())
                .map_err(|e| e.to_string()),
            _ => PresetKind::from_str(&w)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        };
        if let Err(e) = ok {
            errors.push(format!("key `{key}`: {e}"));
        }
        w
    };
    let (case_default, relation_default) = if presets.is_empty() {
        ("none", "none")
    } else {
        ("regular", "alignment")
    };
    let preset_case = word(
        "preset_case",
        pick(&f.preset_case, &d.preset_case),
        case_default,
    );
    let relation = word("relation", pick(&f.relation, &d.relation), relation_default);
    let presets: Vec<serde_json::Value> = presets
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let kind = word(
                &format!("presets[{i}].kind"),
                p.kind.clone(),
                if preset_case == "emergent" {
                    "emergent"
                } else {
                    "regular"
                },
            );
            serde_json::json!({"id": format!("p{}", i + 1), "kind": kind,
                               "trigger": p.trigger, "response": p.response})
        })
        .collect();
    let mut need = |key: &str, v: Option<String>| {
        v.unwrap_or_else(|| {
            errors.push(format!(
                "key `{key}` is missing (in the case or the file's [defaults])"
            ));
            String::new()
        })
    };
    let scenario = need("scenario", pick(&f.scenario, &d.scenario));
    let name = need("name", pick(&f.name, &d.name));
    let public = f
        .public
        .clone()
        .or_else(|| d.public.clone())
        .unwrap_or_default();
    let private = f
        .private
        .clone()
        .or_else(|| d.private.clone())
        .unwrap_or_default();
    let role = pick(&f.role, &d.role).unwrap_or_default();
    let goal = pick(&f.goal, &d.goal).unwrap_or_default();

    let mut turns = Vec::new();
    for (i, t) in case.turns.iter().enumerate() {
        let alternate = if i % 2 == 0 { "caller" } else { "assistant" };
        let (text, speaker, action, preset_id) = match t {
            TurnSpec::Text(s) => (s.as_str(), alternate.to_string(), None, None),
            TurnSpec::Full(t) => (
                t.text.as_str(),
                t.speaker.clone().unwrap_or_else(|| alternate.to_string()),
                t.action.clone(),
                t.preset_id.clone(),
            ),
        };
        if let Err(e) = Speaker::from_str(&speaker) {
            errors.push(format!("key `turns[{i}].speaker`: {e}"));
        }
        let mut turn = serde_json::json!({"speaker": speaker, "text": text});
        if let Some(a) = action {
            turn["action"] = a.into();
        }
        if let Some(p) = preset_id {
            turn["preset_id"] = p.into();
        }
        turns.push(turn);
    }
    if turns.is_empty() {
        errors.push("key `turns` is empty".into());
    }

    let mut expect = Vec::new();
    for (i, e) in case.expect.iter().enumerate() {
        match expected(e, case.turns.len()) {
            Ok(x) => expect.push(x),
            Err(m) => errors.push(format!("key `expect[{i}]`: {m}")),
        }
    }
    for (i, k) in case.not.iter().enumerate() {
        if !VIOLATION_KINDS.contains(&k.as_str()) {
            errors.push(format!("key `not[{i}]`: unknown kind {k:?}"));
        } else if expect.iter().any(|x| &x.kind == k) {
            errors.push(format!("key `not[{i}]`: {k:?} is also expected"));
        }
    }

    let mut config = d.config.clone().unwrap_or_default();
    config.extend(f.config.clone().unwrap_or_default());
    let config: CheckConfig =
        toml::Value::Table(config)
            .try_into()
            .unwrap_or_else(|e: toml::de::Error| {
                errors.push(format!("key `config`: {}", e.message()));
                CheckConfig::default()
            });

    let dialogue = serde_json::from_value::<Dialogue>(serde_json::json!({
        "id": case.id, "scenario": scenario, "preset_case": preset_case, "relation": relation,
        "owner": {"name": name, "public": public, "private": private, "presets": presets},
        "caller": {"role": role, "goal": goal},
        "turns": turns,
    }));
    let dialogue = match dialogue {
        Ok(d) => Some(d),
        Err(e) => {
            errors.push(format!("the dialogue does not build: {e}"));
            None
        }
    };
    match dialogue {
        Some(dialogue) if errors.is_empty() => Ok(Ready {
            file: String::new(),
            id: case.id,
            dialogue,
            config,
            expect,
            not: case.not,
        }),
        _ => Err(errors),
    }
}

/// `[kind, turn]` or `[kind, turn, "certain"|"uncertain"]`.
fn expected(v: &toml::Value, n_turns: usize) -> Result<Expected, String> {
    let shape = "expected [kind, turn] or [kind, turn, \"certain\"|\"uncertain\"]";
    let a = v.as_array().ok_or(shape)?;
    let (kind, turn) = match (a.first(), a.get(1)) {
        (Some(toml::Value::String(k)), Some(toml::Value::Integer(t))) => (k.clone(), *t),
        _ => return Err(shape.into()),
    };
    if !VIOLATION_KINDS.contains(&kind.as_str()) {
        return Err(format!("unknown kind {kind:?}"));
    }
    let turn = usize::try_from(turn)
        .ok()
        .filter(|&t| t < n_turns)
        .ok_or_else(|| format!("turn {turn} is not a turn of the case (0..{n_turns})"))?;
    let confidence = match a.get(2) {
        None => None,
        Some(toml::Value::String(s)) if s == "certain" => Some(Confidence::Certain),
        Some(toml::Value::String(s)) if s == "uncertain" => Some(Confidence::Uncertain),
        Some(_) => return Err(shape.into()),
    };
    if a.len() > 3 {
        return Err(shape.into());
    }
    Ok(Expected {
        kind,
        turn,
        confidence,
    })
}

/// Runs one case; `None` when the checker gives exactly the expected findings.
fn mismatch(r: &Ready) -> Option<String> {
    let (qc, confidence) = r.config.build().check_detailed(&r.dialogue);
    let got: Vec<(&str, usize, Confidence)> = qc
        .violations
        .iter()
        .zip(&confidence)
        .map(|(v, &c)| (v.kind.as_str(), v.turn, c))
        .collect();
    let mut wrong = Vec::new();
    for x in &r.expect {
        match got.iter().find(|g| g.0 == x.kind && g.1 == x.turn) {
            None => wrong.push(format!("missing [{:?}, {}]", x.kind, x.turn)),
            Some(g) if x.confidence.is_some_and(|c| c != g.2) => wrong.push(format!(
                "[{:?}, {}] is {:?}, expected {:?}",
                x.kind, x.turn, g.2, x.confidence
            )),
            Some(_) => {}
        }
    }
    for g in &got {
        if !r.expect.iter().any(|x| x.kind == g.0 && x.turn == g.1) {
            let forbidden = if r.not.iter().any(|k| k == g.0) {
                " (a kind the case says must not be found)"
            } else {
                ""
            };
            wrong.push(format!("unexpected [{:?}, {}]{forbidden}", g.0, g.1));
        }
    }
    if wrong.is_empty() {
        return None;
    }
    let mut s = format!(
        "{} {}: {}\n  the checker found:",
        r.file,
        r.id,
        wrong.join("; ")
    );
    if qc.violations.is_empty() {
        s.push_str(" nothing");
    }
    for (v, c) in qc.violations.iter().zip(&confidence) {
        let _ = write!(
            s,
            "\n    [{:?}, {}] {c:?} `{}`: {}",
            v.kind, v.turn, v.evidence, v.message
        );
    }
    Some(s)
}

/// Every case of every file holds; the failure lists every mismatching case and every
/// malformed file.
#[test]
fn every_case_holds() {
    let mut problems = Vec::new();
    let mut counts = Vec::new();
    let mut all_ids = BTreeSet::new();
    for path in case_files() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let file = format!("tests/cases/{stem}.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        match parse_file(&file, &stem, &text) {
            Err(e) => problems.extend(e),
            Ok(cases) => {
                counts.push(format!("{stem} {}", cases.len()));
                for r in &cases {
                    all_ids.insert(r.id.clone());
                    let found = mismatch(r);
                    if stem == UNHELD {
                        // A claim a comment made that the checker does not bear out: it must
                        // still mismatch, or it has come true and belongs in its module's file.
                        if found.is_none() {
                            problems.push(format!(
                                "{file} {}: now holds; move it to its module's case file",
                                r.id
                            ));
                        }
                    } else {
                        problems.extend(found);
                    }
                }
            }
        }
    }
    problems.extend(references(&all_ids));
    println!("cases per file: {}", counts.join(", "));
    assert!(
        problems.is_empty(),
        "{} problem(s) in tests/cases:\n{}",
        problems.len(),
        problems.join("\n")
    );
    assert!(all_ids.len() >= 10, "the case files are there");
}

/// The comments of `src/`, `data/` and `data/words/` and the cases name each other: every case is named
/// by the comment it exemplifies, and every case a comment names exists.
fn references(ids: &BTreeSet<String>) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let prefixes: BTreeSet<String> = ids
        .iter()
        .filter_map(|id| id.split_once('/').map(|(p, _)| p.to_string()))
        .collect();
    let mut named = BTreeSet::new();
    let mut problems = Vec::new();
    // The word lists' comments too (`data/words/*.toml`, and the concept lexicon and the other
    // data files in `data/`): why a word is in or out of a list is said there, beside the word,
    // and names its case.
    let words = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/words");
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    let mut files: Vec<(PathBuf, &str)> = Vec::new();
    for (dir, ext, mark) in [
        (&src, "rs", "//"),
        (&words, "toml", "#"),
        (&data, "toml", "#"),
    ] {
        files.extend(
            std::fs::read_dir(dir)
                .expect("src, data, data/words")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == ext))
                .map(|p| (p, mark)),
        );
    }
    files.sort();
    for (path, mark) in files {
        let text = std::fs::read_to_string(&path).expect("readable source");
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let name = path
            .strip_prefix(env!("CARGO_MANIFEST_DIR"))
            .map_or(name, |p| {
                p.to_string_lossy().trim_start_matches('/').to_string()
            });
        for (n, line) in text.lines().enumerate() {
            let Some(comment) = line.find(mark).map(|i| &line[i..]) else {
                continue;
            };
            for id in case_ids_in(comment, &prefixes) {
                if !ids.contains(&id) {
                    problems.push(format!(
                        "{name}:{}: the comment names case {id}, which no case file has",
                        n + 1
                    ));
                }
                named.insert(id);
            }
        }
    }
    for id in ids.difference(&named) {
        problems.push(format!(
            "case {id} is named by no comment in src/, data/ or data/words/ (say which rule it exemplifies there)"
        ));
    }
    problems
}

/// The `prefix/name` words of a comment whose prefix is a case file's stem.
fn case_ids_in(comment: &str, prefixes: &BTreeSet<String>) -> Vec<String> {
    let is_id_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let mut out = Vec::new();
    for (i, _) in comment.match_indices('/') {
        let before = &comment[..i];
        let start = before
            .char_indices()
            .rev()
            .take_while(|&(_, c)| c.is_ascii_lowercase())
            .last()
            .map(|(j, _)| j);
        let Some(start) = start else { continue };
        // The prefix is a whole word: not the end of a path such as `src/x`.
        if before[..start]
            .chars()
            .last()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '/' || c == '_' || c == '.')
        {
            continue;
        }
        let prefix = &before[start..];
        if !prefixes.contains(prefix) {
            continue;
        }
        let rest: String = comment[i + 1..]
            .chars()
            .take_while(|&c| is_id_char(c))
            .collect();
        let rest = rest.trim_end_matches('-');
        if !rest.is_empty() {
            out.push(format!("{prefix}/{rest}"));
        }
    }
    out
}

/// A malformed case file is refused with the file, the case and the key named.
#[test]
fn a_malformed_case_file_names_file_case_and_key() {
    let err = |text: &str| {
        parse_file("tests/cases/x.toml", "x", text)
            .err()
            .unwrap()
            .join("\n")
    };
    let base = "[defaults]\nscenario = \"delivery\"\nname = \"王建国\"\n";
    let e = err(&format!(
        "{base}[[case]]\nid = \"x/a\"\nrule = \"r\"\nturns = [\"喂\", \"您好\"]\nexpect = [[\"safety.privcy\", 1]]\n"
    ));
    assert!(
        e.contains("tests/cases/x.toml") && e.contains("x/a") && e.contains("expect[0]"),
        "{e}"
    );
    assert!(e.contains("safety.privcy"), "{e}");
    let e = err(&format!(
        "{base}[[case]]\nid = \"x/a\"\nrule = \"r\"\nturns = [\"喂\", \"您好\"]\nexpect = [[\"safety.privacy\", 2]]\n"
    ));
    assert!(e.contains("expect[0]") && e.contains("turn 2"), "{e}");
    let e = err(&format!(
        "{base}[[case]]\nid = \"x/a\"\nrule = \"r\"\nturns = [\"喂\", \"您好\"]\nexpect = []\nexpct = []\n"
    ));
    assert!(
        e.contains("tests/cases/x.toml") && e.contains("expct"),
        "{e}"
    );
    let e = err(&format!(
        "{base}[[case]]\nid = \"x/a\"\nrule = \"r\"\nrelation = \"alignmnt\"\nturns = [\"喂\", \"您好\"]\nexpect = []\n"
    ));
    assert!(e.contains("x/a") && e.contains("`relation`"), "{e}");
    let e = err(&format!(
        "{base}[[case]]\nid = \"x/a\"\nrule = \"r\"\nconfig = {{ repetition_similarty = 0.5 }}\nturns = [\"喂\", \"您好\"]\nexpect = []\n"
    ));
    assert!(
        e.contains("`config`") && e.contains("repetition_similarty"),
        "{e}"
    );
    let e = err("[[case]]\nid = \"y/a\"\nrule = \"r\"\nturns = [\"喂\", \"您好\"]\nexpect = []\n");
    assert!(
        e.contains("`id` must start with \"x/\"") && e.contains("`scenario` is missing"),
        "{e}"
    );
}

/// Comment references are read as whole words with a known prefix.
#[test]
fn case_ids_are_read_from_comments() {
    let prefixes: BTreeSet<String> = ["preset".to_string()].into();
    assert_eq!(
        case_ids_in(
            "// Not yet an arrival (cases preset/not-yet-arrived, preset/eta).",
            &prefixes
        ),
        vec!["preset/not-yet-arrived", "preset/eta"]
    );
    assert!(case_ids_in("// see src/preset/x.rs and other/preset-y", &prefixes).is_empty());
}

/// `s` with `ins` after every `every`-th character.
fn interleave(s: &str, ins: &str, every: usize) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    for (i, c) in s.chars().enumerate() {
        out.push(c);
        if (i + 1) % every == 0 {
            out.push_str(ins);
        }
    }
    out
}

/// The text of a dialogue (turns, presets, the owner's profile, the caller) with `ins` put
/// after every `every`-th character; ids, names of kinds and enums untouched.
fn with_inserted(d: &Dialogue, ins: &str, every: usize) -> Dialogue {
    fn walk(v: &mut serde_json::Value, key: &str, ins: &str, every: usize, free: bool) {
        match v {
            serde_json::Value::String(s)
                if free || matches!(key, "text" | "trigger" | "response") =>
            {
                *s = interleave(s, ins, every);
            }
            serde_json::Value::Array(a) => {
                a.iter_mut().for_each(|x| walk(x, key, ins, every, free))
            }
            serde_json::Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    // (The owner's and the caller's strings are all free text but for ids and
                    // a preset's kind.)
                    let free = (free || k == "owner" || k == "caller")
                        && !matches!(k.as_str(), "id" | "kind");
                    walk(x, k, ins, every, free);
                }
            }
            _ => {}
        }
    }
    let mut v = serde_json::to_value(d).expect("a dialogue serialises");
    walk(&mut v, "", ins, every, false);
    serde_json::from_value(v).expect("text changed only")
}

/// No dialogue text makes the checker panic: every case with spaces, ASCII, a colon, wide
/// punctuation or an emoji put between its characters (a byte offset taken back from a Han
/// character may fall inside another: `女儿 周沐`, `，:30`; case
/// factuality/a-surname-after-a-space-in-the-profile) is checked without a panic.
#[test]
fn no_text_makes_the_checker_panic() {
    let mut panicked = Vec::new();
    let mut n = 0usize;
    for path in case_files() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let file = format!("tests/cases/{stem}.toml");
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        let Ok(cases) = parse_file(&file, &stem, &text) else {
            continue;
        };
        for r in &cases {
            for (ins, every) in [
                (" ", 2),
                ("a1", 3),
                (":", 2),
                ("，", 3),
                ("😀", 4),
                ("\u{301}", 5),
            ] {
                let d = with_inserted(&r.dialogue, ins, every);
                n += 1;
                let checker = r.config.build();
                if std::panic::catch_unwind(|| checker.check_detailed(&d)).is_err() {
                    panicked.push(format!("{file} {} with {ins:?} every {every}", r.id));
                }
            }
        }
    }
    assert!(n >= 1000, "the variants were made ({n})");
    assert!(
        panicked.is_empty(),
        "the checker panicked on {} variant(s):\n{}",
        panicked.len(),
        panicked.join("\n")
    );
}
