//! The contract's words round-trip through serde and `FromStr`, and unknown words are named.

use callbench_model::{Action, PresetCase, Relation, Speaker};

#[test]
fn words_round_trip() {
    for r in Relation::ALL {
        let json = serde_json::to_string(r).unwrap();
        assert_eq!(json, format!("\"{}\"", r.as_str()));
        assert_eq!(serde_json::from_str::<Relation>(&json).unwrap(), *r);
        assert_eq!(r.as_str().parse::<Relation>().unwrap(), *r);
    }
    assert_eq!(
        PresetCase::ALL
            .iter()
            .map(|c| c.as_str())
            .collect::<Vec<_>>(),
        ["regular", "emergent", "none"]
    );
    assert_eq!(Speaker::Caller.as_str(), "caller");
    assert_eq!(
        "suspend_preset".parse::<Action>().unwrap(),
        Action::SuspendPreset
    );
}

#[test]
fn unknown_words_say_what_was_expected() {
    let err = "friendship".parse::<Relation>().unwrap_err().to_string();
    assert!(
        err.contains("friendship") && err.contains("alignment"),
        "{err}"
    );
}

/// A turn's decision is read and written as the contract's word (the JSONL and the Parquet
/// column hold the same string as before it was typed); a word outside the vocabulary is an
/// error that names it, never a panic and never a silent `None`.
#[test]
fn a_turns_action_is_a_word_of_the_vocabulary() {
    use callbench_model::Turn;
    let line = r#"{"speaker":"assistant","text":"放门口就行。","action":"convey_preset","preset_id":"p1"}"#;
    let t: Turn = serde_json::from_str(line).unwrap();
    assert_eq!(t.action, Some(Action::ConveyPreset));
    assert_eq!(serde_json::to_string(&t).unwrap(), line);
    let unlabelled = r#"{"speaker":"caller","text":"喂？"}"#;
    let t: Turn = serde_json::from_str(unlabelled).unwrap();
    assert_eq!(t.action, None);
    assert_eq!(serde_json::to_string(&t).unwrap(), unlabelled);

    let err = serde_json::from_str::<Turn>(&line.replace("convey_preset", "relay"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`relay`") && err.contains("relay_to_owner"),
        "{err}"
    );
}
