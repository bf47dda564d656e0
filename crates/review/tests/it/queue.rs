//! Assigned review (`callbench review --auditors a,b --overlap R`): the page's queue per
//! auditor and its progress, over loopback HTTP; a plan of another sample refused.

use std::time::Duration;

use serde_json::Value;

use crate::support::{self, Server, config, verdict_body};

async fn get(url: &str) -> Value {
    let res = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
        .get(url)
        .send()
        .await
        .expect("GET");
    assert!(res.status().is_success(), "{url}: {}", res.status());
    res.json().await.expect("JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_auditor_sees_their_queue_and_progress() {
    let dir = support::corpus();
    let sample = inspection::read_sample(dir.path()).unwrap();
    let who = vec!["ana".to_string(), "bo".to_string()];
    let plan = inspection::plan_assignments(&sample, &who, 0.5).unwrap();
    inspection::write_assignments(dir.path(), &plan).unwrap();
    let server = Server::start(dir.path());

    let s = get(&server.url("/api/sample")).await;
    assert_eq!(
        s["assignments"],
        serde_json::to_value(&plan.queues).unwrap()
    );

    let q = get(&server.url("/api/queue?auditor=ana")).await;
    assert_eq!(q["planned"], true);
    assert_eq!(
        q["queue"],
        serde_json::to_value(&plan.queues["ana"]).unwrap()
    );
    assert_eq!(q["done"], 0);
    let first = plan.queues["ana"][0].clone();

    // A verdict on a queued dialogue counts toward ana's progress, not bo's.
    let res = reqwest::Client::new()
        .post(server.url("/api/verdict"))
        .json(&verdict_body("ana", &first, "accept"))
        .send()
        .await
        .unwrap();
    assert!(res.status().is_success());
    let q = get(&server.url("/api/queue?auditor=ana")).await;
    assert_eq!(q["done"], 1);
    assert_eq!(q["total"], plan.queues["ana"].len());
    let q = get(&server.url("/api/queue?auditor=bo")).await;
    assert_eq!(q["done"], 0);

    // A name the plan does not hold gets the whole sample.
    let q = get(&server.url("/api/queue?auditor=zed")).await;
    assert_eq!(q["planned"], false);
    assert_eq!(q["total"], sample.ids.len());
    server.kill().await;

    // A plan of another sample is refused when the server starts.
    let mut other = plan.clone();
    other.sample_drawn_at = "2000-01-01T00:00:00Z".into();
    inspection::write_assignments(dir.path(), &other).unwrap();
    let e = config(dir.path()).build().unwrap_err().to_string();
    assert!(
        e.contains("assignments.json") && e.contains("plan again"),
        "{e}"
    );
}
