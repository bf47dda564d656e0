//! How the offline assistant hears a cue word that the caller denies (`negation` in
//! `templates/lexicon.toml`): the cases are in `test_data/negation.tsv`.

use phrasebook::Lexicon;
use std::path::Path;

fn lexicon() -> Lexicon {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../templates/lexicon.toml");
    toml::from_str(&std::fs::read_to_string(dir).unwrap()).expect("templates/lexicon.toml")
}

#[test]
fn a_denied_cue_is_not_heard() {
    let lex = lexicon();
    assert!(!lex.negation.is_empty(), "the lexicon lists negations");
    let cases = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/test_data/negation.tsv"),
    )
    .unwrap();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for (n, line) in cases.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 3, "negation.tsv line {}: three fields", n + 1);
        let heard = lex.affirms(&[f[1].to_string()], f[0]);
        if heard != (f[2] == "yes") {
            wrong.push(format!(
                "line {}: {:?} / {:?}: heard {heard}",
                n + 1,
                f[0],
                f[1]
            ));
        }
        // Without the negation list every cue is heard.
        assert!(
            Lexicon::has(&[f[1].to_string()], f[0]),
            "line {}: the cue is in the text",
            n + 1
        );
        checked += 1;
    }
    assert!(checked >= 10, "the cases were read");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
