//! `plan.*` findings: an LLM-played dialogue that does not play its plan, by cheap rules.
//!
//! The offline agents play their agenda by construction, so these rules run only for LLM
//! backends (the offline corpus is unchanged). A finding rejects the attempt, and the pipeline
//! regenerates it like any other rejection, so that a cell's count holds dialogues that play
//! the cell.
//!
//! - `plan.too_short`: fewer turns than `min_turns`.
//! - `plan.stage_direction`: a turn reads a stage direction aloud — text in full-width
//!   parentheses or 【】, or a phrase of `data/stage_directions.txt` ("请你先开口", …).
//! - `plan.no_goal`: no caller turn shares a character pair with the goal or its opening lines
//!   beyond the pairs of `data/goal_stop_bigrams.txt` (greetings, the call, function words).
//! - `plan.event_missing`: the planned event is never brought up — none of its cues, and no
//!   two pairs of its description, in the caller's words.

use crate::director::Setup;
use crate::library::Library;
use callbench_model::{Dialogue, Speaker, Violation};
use std::collections::BTreeSet;
use std::sync::LazyLock;

fn lines(text: &'static str) -> Vec<&'static str> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

static STAGE_DIRECTIONS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| lines(include_str!("../data/stage_directions.txt")));

static STOP_BIGRAMS: LazyLock<BTreeSet<&'static str>> = LazyLock::new(|| {
    lines(include_str!("../data/goal_stop_bigrams.txt"))
        .into_iter()
        .collect()
});

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF)
}

/// Adjacent pairs of CJK characters, without template markup (`{{ … }}`, `{% … %}`).
fn bigrams(text: &str) -> BTreeSet<String> {
    let mut plain = String::with_capacity(text.len());
    let mut depth = 0u32;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('{', Some('{' | '%')) => {
                depth += 1;
                chars.next();
            }
            ('}' | '%', Some('}')) if depth > 0 => {
                depth -= 1;
                chars.next();
                plain.push(' ');
            }
            _ if depth == 0 => plain.push(c),
            _ => {}
        }
    }
    let cs: Vec<char> = plain.chars().collect();
    cs.windows(2)
        .filter(|w| is_cjk(w[0]) && is_cjk(w[1]))
        .map(|w| w.iter().collect())
        .collect()
}

/// The stage direction a turn reads aloud, if any: a parenthesised or bracketed aside, or a
/// listed phrase.
pub fn stage_direction(text: &str) -> Option<String> {
    for (open, close) in [('（', '）'), ('【', '】')] {
        if let Some(start) = text.find(open) {
            let rest = &text[start..];
            let end = rest
                .find(close)
                .map_or(rest.len(), |e| e + close.len_utf8());
            return Some(rest[..end].to_string());
        }
    }
    STAGE_DIRECTIONS
        .iter()
        .find(|w| text.contains(**w))
        .map(|w| w.to_string())
}

/// The `plan.*` findings of a played dialogue against its setup.
pub fn check(_lib: &Library, setup: &Setup<'_>, d: &Dialogue, min_turns: usize) -> Vec<Violation> {
    let mut out = Vec::new();
    let last = d.turns.len().saturating_sub(1);
    if d.turns.len() < min_turns {
        out.push(Violation {
            kind: callbench_model::vocab::ViolationKind::PlanTooShort
                .as_str()
                .into(),
            turn: last,
            evidence: String::new(),
            message: format!(
                "the call has {} turns; a call with a goal has at least {min_turns}",
                d.turns.len()
            ),
        });
    }
    if let Some((i, aside)) = d
        .turns
        .iter()
        .enumerate()
        .find_map(|(i, t)| stage_direction(&t.text).map(|a| (i, a)))
    {
        out.push(Violation {
            kind: callbench_model::vocab::ViolationKind::PlanStageDirection
                .as_str()
                .into(),
            turn: i,
            message: "the turn reads a stage direction aloud".into(),
            evidence: aside,
        });
    }
    let caller: Vec<(usize, &str)> = d
        .turns
        .iter()
        .enumerate()
        .filter(|(_, t)| t.speaker == Speaker::Caller)
        .map(|(i, t)| (i, t.text.as_str()))
        .collect();
    let said: BTreeSet<String> = caller.iter().flat_map(|(_, t)| bigrams(t)).collect();
    let file = &setup.scenario.file;
    let mut goal_words = bigrams(&d.caller.goal);
    if let Some(g) = file.goals.get(setup.casting.goal) {
        for line in &g.opening {
            goal_words.extend(bigrams(line));
        }
    }
    goal_words.retain(|b| !STOP_BIGRAMS.contains(b.as_str()));
    if !goal_words.is_empty() && goal_words.is_disjoint(&said) {
        out.push(Violation {
            kind: callbench_model::vocab::ViolationKind::PlanNoGoal
                .as_str()
                .into(),
            turn: caller.first().map_or(0, |(i, _)| *i),
            evidence: caller
                .first()
                .map_or("", |(_, t)| t)
                .chars()
                .take(60)
                .collect(),
            message: format!("the caller never brings up its goal ({})", d.caller.goal),
        });
    }
    let planned = [setup.casting.event, setup.casting.extra_event];
    for e in planned.iter().flatten().filter_map(|&i| file.events.get(i)) {
        let cued = caller.iter().any(|(_, t)| {
            e.cues
                .iter()
                .any(|c| !c.is_empty() && t.contains(c.as_str()))
        });
        let described = bigrams(&e.description)
            .iter()
            .filter(|b| !STOP_BIGRAMS.contains(b.as_str()) && said.contains(*b))
            .count()
            >= 2;
        if !cued && !described {
            out.push(Violation {
                kind: callbench_model::vocab::ViolationKind::PlanEventMissing
                    .as_str()
                    .into(),
                turn: last,
                evidence: String::new(),
                message: format!("the planned event never comes up ({})", e.description),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asides_and_listed_phrases_are_stage_directions() {
        assert_eq!(
            stage_direction("（电话接通了，对方还没说话，请你先开口。）").as_deref(),
            Some("（电话接通了，对方还没说话，请你先开口。）")
        );
        assert_eq!(stage_direction("好的【微笑】").as_deref(), Some("【微笑】"));
        assert_eq!(stage_direction("请先开口。").as_deref(), Some("请先开口"));
        assert!(stage_direction("你这一句要说的话").is_some());
        assert_eq!(stage_direction("您好，您的外卖到楼下了。"), None);
    }

    fn library() -> std::sync::Arc<Library> {
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::sync::Arc::new(
            crate::LibraryPaths {
                scenario_dirs: vec![repo.join("scenarios")],
                templates_dir: repo.join("templates"),
            }
            .load()
            .unwrap(),
        )
    }

    /// The offline agents play their plan: over 300 planned dialogues the rules find nothing
    /// (no false rejections of calls that do play their goal and event), while the same setups
    /// with a caller who only reads a stage direction are found on every count.
    #[test]
    fn the_rules_pass_calls_that_play_their_plan_and_find_those_that_do_not() {
        use crate::Backend;
        let lib = library();
        let director = crate::Director::new(lib.clone());
        let plan = callbench_model::Plan::build(&lib.set, 7, 300, &Default::default()).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let (mut with_event, mut found) = (0, Vec::new());
        for i in 0..plan.len() {
            let d = plan.get(i).unwrap();
            let setup = director.cast(plan.cell(&d), &d, d.seed).unwrap();
            let played = rt
                .block_on(crate::SimBackend.play(&lib, &setup, 20, 0))
                .unwrap();
            let mut dialogue = setup.header.clone();
            dialogue.turns = played.turns;
            for v in check(&lib, &setup, &dialogue, 2) {
                found.push(format!("{} {}: {}", dialogue.id, v.kind, v.message));
            }
            with_event += setup.casting.event.is_some() as u32;

            dialogue.turns = vec![
                callbench_model::Turn {
                    speaker: Speaker::Caller,
                    text: "请先开口。".into(),
                    action: None,
                    preset_id: None,
                },
                callbench_model::Turn {
                    speaker: Speaker::Assistant,
                    text: "您好，请问有什么事？".into(),
                    action: Some(callbench_model::Action::Respond),
                    preset_id: None,
                },
            ];
            let kinds: Vec<String> = check(&lib, &setup, &dialogue, 4)
                .into_iter()
                .map(|v| v.kind)
                .collect();
            let mut want = vec!["plan.too_short", "plan.stage_direction", "plan.no_goal"];
            // One finding per planned event that never came up.
            for e in [setup.casting.event, setup.casting.extra_event] {
                if e.is_some() {
                    want.push("plan.event_missing");
                }
            }
            assert_eq!(kinds, want, "{}", dialogue.id);
        }
        assert!(with_event > 20, "the sample holds events: {with_event}");
        assert!(
            found.is_empty(),
            "{} false findings:\n{}",
            found.len(),
            found.join("\n")
        );
    }

    #[test]
    fn bigrams_skip_template_markup_and_punctuation() {
        let b = bigrams("您点的{{ slot.item }}到了，好");
        assert!(b.contains("您点") && b.contains("点的") && b.contains("到了"));
        assert!(!b.iter().any(|x| x.contains('的') && x.contains('到')));
        assert!(!b.iter().any(|x| x.contains('，')));
    }
}
