//! Generated text is untrusted: the printable sample and the audit page show it inert.

use crate::support::*;
use inspection::{Decision, SampleConfig, VerdictStore, audit, draw_sample};

const SCRIPT: &str = "<script>alert(document.cookie)</script>";
const IMG: &str = "<img src=x onerror=alert(1)>";

#[test]
fn a_script_in_a_turn_renders_inert() {
    let dir = tempfile::tempdir().unwrap();
    let mut d = dialogue("takeout-000001", TAKEOUT_CONFLICT, 4);
    d.turns[0].text = format!("喂 {SCRIPT} 你好");
    d.turns[1].text = format!("{IMG}\"'&");
    // The decision itself is a word of the vocabulary; the preset id beside it is free text.
    d.turns[1].preset_id = Some("<u>p1</u>".into());
    d.owner.name = "王\"><script>x()</script>".into();
    d.owner
        .private
        .insert("address".into(), "<iframe src=//evil>".into());
    d.owner.presets[0].response = "</td></tr></table><script>y()</script>".into();
    d.caller.goal = "<style>body{display:none}</style>".into();
    d.qc.as_mut()
        .unwrap()
        .violations
        .push(callbench_model::Violation {
            kind: "natural.meta".into(),
            turn: 1,
            evidence: "<svg onload=alert(2)>".into(),
            message: "<a href=javascript:alert(3)>x</a>".into(),
        });
    write_corpus(dir.path(), &[d], 1);
    draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 1.0,
            ..SampleConfig::default()
        },
    )
    .unwrap();

    let html = std::fs::read_to_string(dir.path().join("inspection/sample.html")).unwrap();
    for bad in [
        "<script",
        "<img",
        "<iframe",
        "<svg",
        "<a ",
        "<u>",
        "<style>body{display",
    ] {
        assert!(!html.contains(bad), "{bad} in the page");
    }
    assert!(html.contains("&lt;script&gt;alert(document.cookie)&lt;/script&gt;"));
    assert!(html.contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;"));
    assert!(html.contains("&lt;iframe src=//evil&gt;"));
    // Self-contained and printable: no remote resources, a print style, scripts forbidden.
    for remote in [
        "http://", "https://", " src=\"", " href=\"", "@import", "url(",
    ] {
        assert!(!html.contains(remote), "{remote} in the page");
    }
    assert!(html.contains("@media print"));
    assert!(html.contains("Content-Security-Policy"));
    // The owner's private facts are marked, the checker's finding sits on its turn.
    assert!(html.contains("class=\"private\""));
    assert!(html.contains("never to be disclosed"));
    assert!(html.contains("natural.meta"));
}

#[test]
fn an_auditor_name_with_markup_is_escaped_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &[dialogue("life-000001", LIFE_NONE, 4)], 1);
    let s = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 1.0,
            ..SampleConfig::default()
        },
    )
    .unwrap();
    let store = VerdictStore::open(dir.path()).unwrap();
    store
        .append(&verdict(SCRIPT, &s.ids[0], Decision::Accept))
        .unwrap();
    store
        .append(&verdict("a|b", &s.ids[0], Decision::Accept))
        .unwrap();
    drop(store);
    audit(dir.path()).unwrap();
    let html = std::fs::read_to_string(dir.path().join("inspection/audit.html")).unwrap();
    assert!(!html.contains("<script"));
    assert!(html.contains("&lt;script&gt;alert(document.cookie)&lt;/script&gt;"));
    let md = std::fs::read_to_string(dir.path().join("inspection/audit.md")).unwrap();
    assert!(!md.contains("<script"));
    assert!(md.contains(r"a\|b"), "a pipe cannot break a Markdown table");
}
