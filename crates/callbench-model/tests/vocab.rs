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
