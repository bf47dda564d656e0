//! The `mock-openai` binary as a user runs it.

use std::io::{BufRead, BufReader, Read};
use std::process::{Command, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_mock-openai");
const KEY: &str = "sk-binary-secret-42";

#[tokio::test]
async fn binary_serves_prints_the_base_url_and_stops_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mock.toml");
    std::fs::write(&config, "latency_ms = 5\nomit_usage = true\n").unwrap();
    let mut child = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--config"])
        .arg(&config)
        .args(["--model-as-path", "--api-key-env", "MOCK_TEST_KEY"])
        .env("MOCK_TEST_KEY", KEY)
        .env("RUST_LOG", "mock_openai=trace")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut base_url = String::new();
    stdout.read_line(&mut base_url).unwrap();
    let base_url = base_url.trim();
    assert!(
        base_url.starts_with("http://127.0.0.1:") && base_url.ends_with("/v1"),
        "{base_url}"
    );

    let reply: serde_json::Value = reqwest::Client::new()
        .post(format!("{base_url}/chat/completions"))
        .bearer_auth(KEY)
        .json(&crate::support::chat_request("系统", 1, None))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(reply["model"], "/models/gpt-4o-mini.gguf", "flags apply");
    assert!(reply.get("usage").is_none(), "the file applies");

    // Ctrl-C.
    let status = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let exit = child.wait().unwrap();
    assert!(exit.success(), "{exit:?}");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(stderr.contains("served 1 chat completions"), "{stderr}");
    assert!(!stderr.contains(KEY), "{stderr}");
}

#[test]
fn binary_names_the_file_and_key_of_a_bad_config() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("mock.toml");
    std::fs::write(&config, "latency_ms = 5\nlatency = 3\n").unwrap();
    let out = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--config"])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("mock.toml") && stderr.contains("latency"),
        "{stderr}"
    );

    let out = Command::new(BIN)
        .args(["--addr", "127.0.0.1:0", "--p-429", "1.5"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("p_429"));
}
