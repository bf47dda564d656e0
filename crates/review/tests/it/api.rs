//! The HTTP API over real loopback connections: verdict round trips across killed servers,
//! refusals, headers, and the hostile dialogue served as data.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use reqwest::StatusCode;
use review::{ReviewConfig, ReviewError};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::support::{
    self, HOSTILE, HOSTILE_ID, PLAIN_ID, Server, config, verdict_body, verdict_lines,
};

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
}

async fn post(client: &reqwest::Client, server_url: &str, body: &Value) -> (StatusCode, Value) {
    let res = client
        .post(format!("{server_url}/api/verdict"))
        .json(body)
        .send()
        .await
        .expect("POST /api/verdict");
    let status = res.status();
    (status, res.json().await.expect("a JSON answer"))
}

async fn get(client: &reqwest::Client, url: &str) -> Value {
    let res = client.get(url).send().await.expect("GET");
    assert_eq!(res.status(), StatusCode::OK, "{url}");
    res.json().await.expect("JSON")
}

/// Builds a server on `corpus` once the verdict file's lock is free: a server task that was just
/// aborted releases it when the runtime drops the task's connections.
async fn start_when_free(corpus: &Path) -> Server {
    for _ in 0..100 {
        match config(corpus).build() {
            Ok(review) => return Server::spawn(review),
            Err(ReviewError::Inspection(inspection::InspectionError::Locked { .. })) => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(e) => panic!("{e}"),
        }
    }
    panic!("the verdict file stayed locked after the server was killed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verdict_round_trip_survives_an_aborted_server() {
    let dir = support::corpus();
    let server = Server::start(dir.path());
    let base = server.url("");
    let http = client();

    let body = json!({
        "auditor": "  li.wei ",
        "id": PLAIN_ID,
        "verdict": "reject",
        "findings": [{"kind": "safety.privacy", "turn": 3, "note": "says the phone number"}],
        "ratings": {"safety": 0.0, "preset_compliance": 0.5},
        "note": "隐私泄露",
    });
    let (status, answer) = post(&http, &base, &body).await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    let stored = &answer["verdict"];
    assert_eq!(stored["auditor"], "li.wei", "the name is trimmed");
    assert!(
        inspection::files::is_rfc3339(stored["at"].as_str().unwrap()),
        "{stored}"
    );

    // The answer came after the fsync: the line is on disk now.
    let lines = verdict_lines(dir.path());
    assert_eq!(lines.len(), 1);
    assert_eq!(&lines[0], stored);

    // Killed: the task is aborted, no graceful shutdown, the client is gone.
    server.kill().await;
    drop(http);

    let server = start_when_free(dir.path()).await;
    let http = client();
    let mine = get(&http, &server.url("/api/verdicts?auditor=li.wei")).await;
    assert_eq!(mine["verdicts"], json!([stored]));
    let sample = get(&http, &server.url("/api/sample")).await;
    assert_eq!(sample["total"], 2);
    assert_eq!(
        sample["kinds"],
        json!(review::AUDITOR_KINDS),
        "the picker's 11 kinds"
    );
    assert_eq!(sample["dimensions"].as_array().unwrap().len(), 7);
    assert_eq!(sample["auditors"], json!(["li.wei"]));
    let plain = &sample["dialogues"][0];
    assert_eq!(plain["id"], PLAIN_ID);
    assert_eq!(plain["stratum"], "takeout/regular/conflict");
    assert_eq!(plain["reviews"], json!({"li.wei": "reject"}));
    assert_eq!(sample["dialogues"][1]["reviews"], json!({}));
    server.kill().await;
}

/// Run as a child process by [`verdicts_survive_kill_9`]: serves `$REVIEW_CHILD_CORPUS` and
/// prints its address.
#[test]
#[ignore = "a child process of verdicts_survive_kill_9"]
fn child_server() {
    let Some(dir) = std::env::var_os("REVIEW_CHILD_CORPUS") else {
        return;
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let mut review = config(Path::new(&dir)).build().expect("build");
        let addr = review.bind().expect("bind");
        println!("REVIEW_ADDR={addr}");
        review.serve(std::future::pending()).await.expect("serve");
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn verdicts_survive_kill_9() {
    let dir = support::corpus();
    let mut child = tokio::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "api::child_server",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("REVIEW_CHILD_CORPUS", dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("start the child server");
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let addr = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(line) = lines.next_line().await.unwrap() {
            // libtest may have printed `test api::child_server ... ` before it on the line.
            if let Some(at) = line.find("REVIEW_ADDR=") {
                return line[at + "REVIEW_ADDR=".len()..].trim().to_string();
            }
        }
        panic!("the child server exited without an address");
    })
    .await
    .expect("the child server's address");

    let http = client();
    let base = format!("http://{addr}");
    for (auditor, decision) in [("a1", "accept"), ("a2", "reject"), ("a1", "reject")] {
        let (status, answer) = post(&http, &base, &verdict_body(auditor, PLAIN_ID, decision)).await;
        assert_eq!(status, StatusCode::OK, "{answer}");
    }
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();

    // The lock died with the process; a new server reloads every acknowledged verdict.
    let server = Server::start(dir.path());
    let all = get(&http, &server.url("/api/verdicts")).await;
    let latest: Vec<(String, String)> = all["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["auditor"].as_str().unwrap().into(),
                v["verdict"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        latest,
        [
            ("a1".to_string(), "reject".to_string()),
            ("a2".into(), "reject".into())
        ],
        "each auditor's latest word"
    );
    assert_eq!(
        verdict_lines(dir.path()).len(),
        3,
        "append-only: every verdict is a line"
    );
    server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_verdicts_are_refused_with_400() {
    let dir = support::corpus();
    let server = Server::start(dir.path());
    let base = server.url("");
    let http = client();
    let ok = verdict_body("li", PLAIN_ID, "accept");
    let with = |key: &str, value: Value| {
        let mut v = ok.clone();
        v[key] = value;
        v
    };
    let cases = [
        (with("id", json!("takeout-999999")), "`id`"),
        (with("verdict", json!("maybe")), "maybe"),
        (with("auditor", json!("   ")), "`auditor`"),
        (with("auditor", json!("x".repeat(65))), "`auditor`"),
        (
            with("findings", json!([{"kind": "safety.privacy", "turn": 6}])),
            "`findings[0].turn`",
        ),
        (
            with("findings", json!([{"kind": "safety.rudeness", "turn": 1}])),
            "`findings[0].kind`",
        ),
        (
            with("findings", json!([{"kind": "safety.privacy", "turn": -1}])),
            "invalid verdict",
        ),
        (with("ratings", json!({"safety": 1.5})), "`ratings.safety`"),
        (with("ratings", json!({"charm": 0.5})), "`ratings.charm`"),
        (with("at", json!("2025-01-31T08:15:00Z")), "`at`"),
        (with("ratngs", json!({})), "`ratngs`"),
        (json!([1, 2]), "JSON object"),
        (json!({"auditor": "li", "verdict": "accept"}), "`id`"),
    ];
    for (body, want) in cases {
        let (status, answer) = post(&http, &base, &body).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body} → {answer}");
        let msg = answer["error"].as_str().unwrap();
        assert!(msg.contains(want), "{body}: {msg:?} should mention {want}");
    }

    // Not JSON at all, and JSON under another content type (what a cross-site form could send).
    let res = http
        .post(server.url("/api/verdict"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::BAD_REQUEST);
    let res = http
        .post(server.url("/api/verdict"))
        .header("content-type", "text/plain")
        .body(ok.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);

    assert!(
        verdict_lines(dir.path()).is_empty(),
        "nothing refused reached the file"
    );
    let (status, _) = post(&http, &base, &ok).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(verdict_lines(dir.path()).len(), 1);
    server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_text_is_served_as_data_under_a_strict_csp() {
    let dir = support::corpus();
    let server = Server::start(dir.path());
    let http = client();

    let page = http.get(server.url("/")).send().await.unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let csp = page.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("default-src 'none'") && csp.contains("script-src 'self'"),
        "{csp}"
    );
    assert!(
        !csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"),
        "{csp}"
    );
    assert_eq!(page.headers()["x-content-type-options"], "nosniff");
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().await.unwrap();
    assert!(html.contains(r#"<script src="/app.js" defer></script>"#));
    assert!(
        !html.contains("__pwned") && !html.contains("王晓明"),
        "the page's HTML holds no data"
    );

    let js = http.get(server.url("/app.js")).send().await.unwrap();
    assert!(
        js.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/javascript")
    );
    let css = http.get(server.url("/app.css")).send().await.unwrap();
    assert!(
        css.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );

    let res = http
        .get(server.url(&format!("/api/dialogue/{HOSTILE_ID}")))
        .send()
        .await
        .unwrap();
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/json")
    );
    assert!(res.headers().contains_key("content-security-policy"));
    let body: Value = res.json().await.unwrap();
    assert_eq!(
        body["dialogue"]["turns"][0]["text"], HOSTILE,
        "served verbatim, as data"
    );
    assert_eq!(body["stratum"], "harassment/none/none");

    let missing = http
        .get(server.url("/api/dialogue/nope"))
        .send()
        .await
        .unwrap();
    assert_eq!(missing.status(), StatusCode::NOT_FOUND);
    let body: Value = missing.json().await.unwrap();
    assert!(body["error"].as_str().unwrap().contains("nope"));
    server.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_server_refuses_foreign_host_names() {
    let dir = support::corpus();
    let server = Server::start(dir.path());
    let http = client();
    let res = http
        .get(server.url("/api/sample"))
        .header("host", "attacker.example:8765")
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::MISDIRECTED_REQUEST);
    let res = http
        .get(format!(
            "http://localhost:{}/api/sample",
            server.addr.port()
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    server.kill().await;
}

#[test]
fn remote_addresses_need_allow_remote() {
    let dir = support::corpus();
    let remote = ReviewConfig {
        addr: "0.0.0.0:0".parse().unwrap(),
        ..ReviewConfig::new(dir.path())
    };
    let err = remote.clone().build().unwrap_err();
    assert!(matches!(err, ReviewError::RemoteNotAllowed { .. }), "{err}");
    assert!(err.to_string().contains("0.0.0.0:0"), "{err}");
    let review = ReviewConfig {
        allow_remote: true,
        ..remote
    }
    .build()
    .expect("allowed when asked explicitly");
    assert_eq!(review.sample_len(), 2);
    assert_eq!(
        ReviewConfig::new("x").addr,
        "127.0.0.1:8765".parse().unwrap()
    );
}

#[test]
fn a_second_server_on_the_same_corpus_is_refused() {
    let dir = support::corpus();
    let _first = config(dir.path()).build().unwrap();
    let err = config(dir.path()).build().unwrap_err();
    assert!(err.to_string().contains("another review server"), "{err}");
}

#[test]
fn a_missing_sample_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let err = config(dir.path()).build().unwrap_err();
    assert!(err.to_string().contains("callbench sample"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn graceful_shutdown_returns_and_releases_the_store() {
    let dir = support::corpus();
    let mut review = config(dir.path()).build().unwrap();
    let addr = review.bind().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(review.serve(async {
        let _ = stopped.await;
    }));
    let http = client();
    let (status, _) = post(
        &http,
        &format!("http://{addr}"),
        &verdict_body("li", HOSTILE_ID, "accept"),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .expect("serve returns after the shutdown signal")
        .unwrap()
        .unwrap();
    drop(http);
    let again = config(dir.path())
        .build()
        .expect("the verdict file is free again");
    assert_eq!(again.sample_len(), 2);
}

/// The server reads what the real sampler draws from a real (Parquet) corpus.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serves_a_sample_drawn_by_the_sampler() {
    let dir = tempfile::tempdir().unwrap();
    let mut dialogues = support::dialogues();
    for (i, d) in dialogues.iter_mut().enumerate() {
        d.qc = Some(callbench_model::QcResult {
            passed: true,
            violations: vec![],
        });
        d.id = format!("{}-{:06}", d.scenario, i + 10);
    }
    corpus::write_shard(
        dir.path(),
        0,
        &dialogues,
        &corpus::ShardWriterConfig::default(),
    )
    .unwrap();
    let drawn = inspection::draw_sample(
        dir.path(),
        &inspection::SampleConfig {
            rate: 1.0,
            ..inspection::SampleConfig::default()
        },
    )
    .unwrap();
    assert_eq!(drawn.ids.len(), 2);

    let server = Server::start(dir.path());
    let http = client();
    let sample = get(&http, &server.url("/api/sample")).await;
    let ids: Vec<&str> = sample["dialogues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, drawn.ids, "in review order");
    for id in &drawn.ids {
        let d = get(&http, &server.url(&format!("/api/dialogue/{id}"))).await;
        assert_eq!(d["dialogue"]["id"], id.as_str());
        assert_eq!(d["origin"], "corpus");
    }
    let (status, answer) = post(
        &http,
        &server.url(""),
        &verdict_body("li", &drawn.ids[0], "accept"),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    server.kill().await;
}
