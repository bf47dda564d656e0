//! The page end to end in headless Chromium, driven with real keyboard events over the DevTools
//! protocol: an auditor names themself, reviews with the keyboard, and the verdicts are on disk;
//! the hostile dialogue stays inert text.
//!
//! Without Chromium the test prints a note and passes, unless `CI` is set: there a missing
//! browser is a failure (`.ci/run` installs Debian's `chromium`).

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use crate::cdp::{Chromium, Page, find_chromium};
use crate::support::{self, HOSTILE, HOSTILE_ID, PLAIN_ID, Server, verdict_lines};

/// Chromium, or `None` when the test may be skipped here.
fn chromium_or_skip() -> Option<PathBuf> {
    match find_chromium() {
        Some(p) => Some(p),
        None if std::env::var_os("CI").is_some_and(|v| !v.is_empty()) => {
            panic!("CI is set but Chromium is missing: install Debian's `chromium` (see .ci/run)")
        }
        None => {
            eprintln!("note: skipping the browser test: no Chromium (apt-get install chromium)");
            None
        }
    }
}

/// Polls the verdict file until `pred` holds for some line.
async fn wait_for_line(corpus: &Path, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
    for _ in 0..200 {
        if let Some(v) = verdict_lines(corpus).into_iter().rev().find(|v| pred(v)) {
            return v;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("no verdict line {what} in {:?}", verdict_lines(corpus));
}

async fn text_of(page: &Page<'_>, selector: &str) -> String {
    let js = format!("(document.querySelector({selector:?}) || {{}}).textContent || ''");
    page.eval(&js)
        .await
        .unwrap()
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auditor_reviews_with_the_keyboard_in_chromium() {
    let Some(binary) = chromium_or_skip() else {
        return;
    };
    let dir = support::corpus();
    let corpus = dir.path();
    let server = Server::start(corpus);
    let browser = Chromium::launch(&binary)
        .await
        .unwrap_or_else(|e| panic!("{e}"));
    let result = run(&browser, &server, corpus).await;
    if let Err(e) = result {
        panic!("{e}\n--- chromium stderr ---\n{}", browser.stderr());
    }
    server.kill().await;
}

async fn run(browser: &Chromium, server: &Server, corpus: &Path) -> Result<(), String> {
    let page = browser.open(&server.url("/")).await?;

    // First visit: the page asks for the auditor's name; type it and press Enter.
    page.wait_for("!document.getElementById('name-dialog').hidden && document.activeElement.id === 'name-input'")
        .await?;
    let shot = std::env::var_os("REVIEW_SCREENSHOT").map(PathBuf::from);
    if let Some(path) = &shot {
        page.screenshot(&path.with_extension("name.png")).await?;
    }
    page.type_text("tester").await?;
    page.press("Enter").await?;
    page.wait_for(&format!("document.body.dataset.shown === {PLAIN_ID:?}"))
        .await?;
    assert_eq!(text_of(&page, "#auditor-name").await, "tester");
    assert_eq!(text_of(&page, "#progress-text").await, "0 / 2 reviewed");
    // The transcript, the decision labels, the private facts — and, blind, neither the
    // checker's findings nor the judge's scores before the auditor's own verdict.
    assert_eq!(
        page.eval("document.querySelectorAll('#transcript .turn').length")
            .await?,
        6
    );
    assert!(
        text_of(&page, "#transcript li:nth-child(2) .chip.action")
            .await
            .contains("convey_preset")
    );
    assert_eq!(
        page.eval("document.querySelectorAll('.qc-finding, .judge-line, .chip.judge, .chip.pass, .chip.fail, #list .qc-fail').length")
            .await?,
        0,
        "blind: no automatic verdict before the auditor's"
    );
    assert!(
        page.eval("[...document.querySelectorAll('#ratings td.num')].every((td) => td.textContent === '–')")
            .await?
            == true
    );
    // Safety is rated 0 or 1.
    assert_eq!(
        page.eval("[...document.querySelectorAll('#ratings select[aria-label=safety] option')].map((o) => o.value).join(',')")
            .await?,
        ",0,1"
    );
    assert!(
        text_of(&page, "#transcript li:nth-child(4) mark.private")
            .await
            .contains("10012345678")
    );
    assert!(text_of(&page, "#owner").await.contains("private"));

    // `a` accepts, and the verdict is on disk the moment the page says "saved".
    page.press("a").await?;
    let line = wait_for_line(corpus, "accepting the first dialogue", |v| {
        v["auditor"] == "tester" && v["id"] == PLAIN_ID && v["verdict"] == "accept"
    })
    .await;
    assert_eq!(line["findings"], serde_json::json!([]));
    page.wait_for("document.getElementById('status').textContent.includes('saved')")
        .await?;
    page.wait_for("document.getElementById('progress-text').textContent === '1 / 2 reviewed'")
        .await?;
    // Saved: the blind lifts, the checker's finding shows on its turn.
    page.wait_for(
        "document.querySelectorAll('#transcript li:nth-child(4) .qc-finding').length > 0",
    )
    .await?;
    assert!(
        text_of(&page, "#transcript li:nth-child(4) .qc-finding")
            .await
            .contains("safety.privacy")
    );

    // Change of mind: turn 4 (key 4), `f`, kind key 1 (safety.privacy), `r`: rejected with the finding.
    page.press("4").await?;
    page.press("f").await?;
    page.wait_for("!document.getElementById('kind-picker').hidden")
        .await?;
    if let Some(path) = &shot {
        page.screenshot(&path.with_extension("picker.png")).await?;
    }
    page.press("1").await?;
    page.wait_for("document.getElementById('kind-picker').hidden")
        .await?;
    page.press("r").await?;
    let line = wait_for_line(corpus, "rejecting with a finding", |v| {
        v["id"] == PLAIN_ID && v["verdict"] == "reject"
    })
    .await;
    assert_eq!(
        line["findings"],
        serde_json::json!([{"kind": "safety.privacy", "turn": 3}])
    );

    // `n` writes a note, Esc leaves it, `s` saves.
    page.press("n").await?;
    page.wait_for("document.activeElement.id === 'note'")
        .await?;
    page.type_text("泄露了手机号").await?;
    page.press("Escape").await?;
    page.press("s").await?;
    wait_for_line(corpus, "with the note", |v| {
        v["note"] == "泄露了手机号" && v["verdict"] == "reject"
    })
    .await;

    // `?` shows the shortcuts, Esc closes them.
    page.press("?").await?;
    page.wait_for("!document.getElementById('help').hidden")
        .await?;
    page.press("Escape").await?;
    page.wait_for("document.getElementById('help').hidden")
        .await?;

    // `j`: the hostile dialogue. Its markup is shown as text and never runs.
    page.press("j").await?;
    page.wait_for(&format!("document.body.dataset.shown === {HOSTILE_ID:?}"))
        .await?;
    // Not waiting to see whether injected code runs: it has nothing to run from. No element
    // that can run code, load anything or carry a handler exists anywhere in the document —
    // only the page's own script — so nothing can run later either.
    assert_eq!(page.eval("typeof window.__pwned").await?, "undefined");
    assert_eq!(
        page.eval("document.querySelectorAll('script:not([src=\"/app.js\"]), img, iframe, object, embed, svg, math, link[rel=import], a[href^=javascript], [onerror], [onload], [onclick], [onmouseover], [onfocus]').length").await?,
        0
    );
    assert_eq!(page.eval("document.scripts.length").await?, 1);
    assert_eq!(
        text_of(&page, "#transcript li:nth-child(1) .bubble").await,
        HOSTILE
    );
    assert!(text_of(&page, ".owner-name").await.contains("<script>"));
    // (An action is a word of the vocabulary, never free text: the free-text chip is the
    // preset id.)
    assert!(
        text_of(&page, "#transcript li:nth-child(2) .chip.preset")
            .await
            .contains("p<b>1</b>")
    );
    page.press("ArrowLeft").await?;
    page.wait_for(&format!("document.body.dataset.shown === {PLAIN_ID:?}"))
        .await?;
    page.press("ArrowRight").await?;
    page.wait_for(&format!("document.body.dataset.shown === {HOSTILE_ID:?}"))
        .await?;
    page.press("a").await?;
    wait_for_line(corpus, "accepting the hostile dialogue", |v| {
        v["id"] == HOSTILE_ID && v["verdict"] == "accept"
    })
    .await;
    page.wait_for("document.getElementById('progress-text').textContent === '2 / 2 reviewed'")
        .await?;

    // A reload remembers the name and restores this auditor's verdicts.
    page.eval(&format!("location.hash = '#' + {PLAIN_ID:?}"))
        .await?;
    page.reload().await?;
    page.wait_for(&format!("document.body.dataset.shown === {PLAIN_ID:?}"))
        .await?;
    assert_eq!(
        page.eval("document.getElementById('name-dialog').hidden")
            .await?,
        true
    );
    page.wait_for("document.getElementById('progress-text').textContent === '2 / 2 reviewed'")
        .await?;
    assert_eq!(
        page.eval("document.getElementById('reject').classList.contains('chosen')")
            .await?,
        true
    );
    assert_eq!(
        page.eval("document.getElementById('note').value").await?,
        "泄露了手机号"
    );
    assert!(text_of(&page, "#findings").await.contains("safety.privacy"));
    assert_eq!(page.eval("typeof window.__pwned").await?, "undefined");

    if let Some(path) = &shot {
        page.press("4").await?;
        page.screenshot(path).await?;
        page.press("j").await?;
        page.wait_for(&format!("document.body.dataset.shown === {HOSTILE_ID:?}"))
            .await?;
        page.screenshot(&path.with_extension("hostile.png")).await?;
    }

    let problems = browser.problems();
    assert!(
        problems.is_empty(),
        "the page reported problems: {problems:#?}"
    );
    Ok(())
}
