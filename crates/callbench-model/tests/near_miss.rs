//! A preset's near misses (`[[regular_presets.near_misses]]`) are checked where they are
//! declared: the goals exist, and the preset does not apply to their callers.

use callbench_model::scenario::parse_scenario;
use std::path::Path;

fn takeout_with(extra: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/takeout.toml");
    let text = std::fs::read_to_string(p).unwrap();
    // The first regular preset is `leave_at_door` (arrival); its near misses follow it.
    let at = text
        .find("[[regular_presets]]\nid = \"way_hint\"")
        .expect("way_hint");
    format!("{}{extra}\n{}", &text[..at], &text[at..])
}

fn validate(text: &str) -> Result<(), String> {
    let f = parse_scenario("takeout.toml", text).map_err(|e| e.to_string())?;
    f.validate("takeout.toml").map_err(|e| e.to_string())
}

#[test]
fn the_shipped_near_misses_validate() {
    validate(&takeout_with("")).unwrap();
}

#[test]
fn a_near_miss_where_the_preset_applies_is_named() {
    let e = validate(&takeout_with(
        "[[regular_presets.near_misses]]\ngoals = [\"arrived\"]\nlines = [\"我还没到楼下\"]\n",
    ))
    .unwrap_err();
    assert!(e.contains("takeout.toml"), "{e}");
    assert!(e.contains("regular_presets[0].near_misses["), "{e}");
    assert!(e.contains("holds for goal \"arrived\""), "{e}");
}

#[test]
fn a_near_miss_of_an_unknown_goal_is_named() {
    let e = validate(&takeout_with(
        "[[regular_presets.near_misses]]\ngoals = [\"nobody_goal\"]\nlines = [\"我还没到楼下\"]\n",
    ))
    .unwrap_err();
    assert!(
        e.contains("near_misses[") && e.contains("nobody_goal"),
        "{e}"
    );
    let e = validate(&takeout_with(
        "[[regular_presets.near_misses]]\ngoals = [\"running_late\"]\nlines = []\n",
    ))
    .unwrap_err();
    assert!(e.contains("lines"), "{e}");
}

#[test]
fn a_preset_answering_an_unknown_event_is_named() {
    // `answers_events` of a scenario's preset name events of its own file.
    let text = takeout_with("").replacen(
        "[[regular_presets]]\nid = \"way_hint\"",
        "[[regular_presets]]\nid = \"way_hint\"\nanswers_events = [\"nobody_event\"]",
        1,
    );
    let e = validate(&text).unwrap_err();
    assert!(e.contains("takeout.toml"), "{e}");
    assert!(
        e.contains("answers_events[0]") && e.contains("nobody_event"),
        "{e}"
    );
}
