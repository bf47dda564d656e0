//! A small Chrome DevTools Protocol client: launches Debian's headless Chromium and drives one
//! page over the browser's WebSocket (tokio-tungstenite), with real keyboard events.
//!
//! A crate such as `chromiumoxide` would do the same with generated bindings for the whole
//! protocol, which costs minutes of compile time on a 2-core machine; the tests need six methods.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// How long one protocol call, a launch or a wait may take.
const TIMEOUT: Duration = Duration::from_secs(30);

type Pending = Arc<Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>>;

/// Where Chromium is: `$CHROMIUM`, else Debian's `/usr/bin/chromium`, else `chromium` on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let debian = Path::new("/usr/bin/chromium");
    if debian.exists() {
        return Some(debian.to_path_buf());
    }
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("chromium"))
            .find(|p| p.is_file())
    })
}

/// A running headless Chromium with a fresh profile; killed on drop.
pub struct Chromium {
    child: Child,
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    /// Console errors, uncaught exceptions and log entries (CSP reports among them), as text.
    problems: Arc<Mutex<Vec<String>>>,
    stderr: Arc<Mutex<String>>,
    next_id: AtomicU64,
    _profile: tempfile::TempDir,
}

impl Chromium {
    /// Starts `binary` headless with a fresh user-data directory and connects to it.
    pub async fn launch(binary: &Path) -> Result<Chromium, String> {
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut child = Command::new(binary)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--window-size=1400,900",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;

        // Chromium prints `DevTools listening on ws://…` on stderr; keep draining it afterwards
        // so that a full pipe never blocks the browser.
        let stderr = child.stderr.take().expect("piped stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let (found_tx, found_rx) = oneshot::channel::<String>();
        {
            let log = log.clone();
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                let mut found_tx = Some(found_tx);
                while let Ok(Some(line)) = lines.next_line().await {
                    if let Some(at) = line.find("ws://")
                        && let Some(tx) = found_tx.take()
                    {
                        let _ = tx.send(line[at..].trim().to_string());
                    }
                    let mut log = log.lock().unwrap();
                    log.push_str(&line);
                    log.push('\n');
                }
            });
        }
        let ws_url = match tokio::time::timeout(TIMEOUT, found_rx).await {
            Ok(Ok(url)) => url,
            _ => {
                let _ = child.start_kill();
                return Err(format!(
                    "Chromium printed no DevTools address within {TIMEOUT:?}; stderr:\n{}",
                    log.lock().unwrap()
                ));
            }
        };

        let (ws, _) = tokio_tungstenite::connect_async(ws_url.as_str())
            .await
            .map_err(|e| format!("cannot connect to {ws_url}: {e}"))?;
        let (mut sink, mut stream) = ws.split();
        let (out, mut out_rx) = mpsc::unbounded_channel::<Message>();
        tokio::spawn(async move {
            while let Some(msg) = out_rx.recv().await {
                if sink.send(msg).await.is_err() {
                    break;
                }
            }
        });
        let pending: Pending = Arc::default();
        let problems: Arc<Mutex<Vec<String>>> = Arc::default();
        {
            let pending = pending.clone();
            let problems = problems.clone();
            tokio::spawn(async move {
                while let Some(Ok(msg)) = stream.next().await {
                    let Message::Text(text) = msg else { continue };
                    let Ok(v) = serde_json::from_str::<Value>(text.as_str()) else {
                        continue;
                    };
                    if let Some(id) = v.get("id").and_then(Value::as_u64) {
                        if let Some(tx) = pending.lock().unwrap().remove(&id) {
                            let result = match v.get("error") {
                                Some(e) => Err(e.to_string()),
                                None => Ok(v.get("result").cloned().unwrap_or(Value::Null)),
                            };
                            let _ = tx.send(result);
                        }
                    } else if let Some(problem) = problem_of(&v) {
                        problems.lock().unwrap().push(problem);
                    }
                }
            });
        }

        Ok(Chromium {
            child,
            out,
            pending,
            problems,
            stderr: log,
            next_id: AtomicU64::new(1),
            _profile: profile,
        })
    }

    /// Sends one protocol command (to a page when `session` is given) and waits for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut msg = json!({ "id": id, "method": method, "params": params });
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap().insert(id, tx);
        self.out
            .send(Message::Text(msg.to_string().into()))
            .map_err(|_| "the DevTools connection is closed".to_string())?;
        match tokio::time::timeout(TIMEOUT, rx).await {
            Ok(Ok(result)) => result.map_err(|e| format!("{method}: {e}")),
            Ok(Err(_)) => Err(format!("{method}: the DevTools connection closed")),
            Err(_) => Err(format!("{method}: no answer within {TIMEOUT:?}")),
        }
    }

    /// Opens a new tab, attaches to it and navigates it to `url`.
    pub async fn open(&self, url: &str) -> Result<Page<'_>, String> {
        let target = self
            .call(None, "Target.createTarget", json!({ "url": "about:blank" }))
            .await?;
        let target_id = target["targetId"]
            .as_str()
            .ok_or("no targetId")?
            .to_string();
        let attached = self
            .call(
                None,
                "Target.attachToTarget",
                json!({ "targetId": target_id, "flatten": true }),
            )
            .await?;
        let session = attached["sessionId"]
            .as_str()
            .ok_or("no sessionId")?
            .to_string();
        let page = Page {
            browser: self,
            session,
        };
        page.call("Page.enable", json!({})).await?;
        page.call("Runtime.enable", json!({})).await?;
        page.call("Log.enable", json!({})).await?;
        page.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": false }),
        )
        .await?;
        page.goto(url).await?;
        Ok(page)
    }

    /// What the page reported as going wrong so far (exceptions, console errors, CSP reports).
    pub fn problems(&self) -> Vec<String> {
        self.problems.lock().unwrap().clone()
    }

    /// Chromium's stderr so far, for failure messages.
    pub fn stderr(&self) -> String {
        self.stderr.lock().unwrap().clone()
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

/// An event worth failing a test for, as text.
fn problem_of(v: &Value) -> Option<String> {
    let params = &v["params"];
    match v["method"].as_str()? {
        "Runtime.exceptionThrown" => Some(format!("exception: {}", params["exceptionDetails"])),
        "Runtime.consoleAPICalled" if params["type"] == "error" => {
            Some(format!("console.error: {}", params["args"]))
        }
        "Log.entryAdded" if params["entry"]["level"] == "error" => {
            Some(format!("log: {}", params["entry"]["text"]))
        }
        _ => None,
    }
}

/// One attached tab.
pub struct Page<'b> {
    browser: &'b Chromium,
    session: String,
}

impl Page<'_> {
    /// A protocol command to this page.
    pub async fn call(&self, method: &str, params: Value) -> Result<Value, String> {
        self.browser.call(Some(&self.session), method, params).await
    }

    /// Navigates and waits until the document has loaded.
    pub async fn goto(&self, url: &str) -> Result<(), String> {
        self.call("Page.navigate", json!({ "url": url })).await?;
        self.wait_for("document.readyState === 'complete'").await
    }

    /// Reloads the document (a navigation to the same URL with another `#fragment` would not).
    pub async fn reload(&self) -> Result<(), String> {
        self.eval("window.__reloading = true").await?;
        self.call("Page.reload", json!({ "ignoreCache": true }))
            .await?;
        self.wait_for("!window.__reloading && document.readyState === 'complete'")
            .await
    }

    /// Evaluates a JavaScript expression (promises awaited) and returns its value.
    pub async fn eval(&self, expression: &str) -> Result<Value, String> {
        let r = self
            .call(
                "Runtime.evaluate",
                json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
            )
            .await?;
        if let Some(e) = r.get("exceptionDetails") {
            return Err(format!("{expression}: {e}"));
        }
        Ok(r["result"].get("value").cloned().unwrap_or(Value::Null))
    }

    /// Polls `expression` until it is truthy.
    pub async fn wait_for(&self, expression: &str) -> Result<(), String> {
        let deadline = tokio::time::Instant::now() + TIMEOUT;
        loop {
            let v = self
                .eval(&format!("!!({expression})"))
                .await
                .unwrap_or(Value::Bool(false));
            if v == Value::Bool(true) {
                return Ok(());
            }
            if tokio::time::Instant::now() > deadline {
                let shown = self
                    .eval("location.href + '\\n' + document.body.innerText.slice(0, 2000)")
                    .await
                    .unwrap_or_default();
                return Err(format!(
                    "waited {TIMEOUT:?} for `{expression}`; page problems: {:?}; the page shows:\n{}",
                    self.browser.problems(),
                    shown.as_str().unwrap_or_default()
                ));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Presses and releases one key, as a person typing would: `keyDown` (with the text it
    /// types) then `keyUp`. `key` is a DOM key value: `"a"`, `"?"`, `"Enter"`, `"ArrowRight"`.
    pub async fn press(&self, key: &str) -> Result<(), String> {
        let (code, vk, text, shift) = key_info(key);
        let mut down = json!({
            "type": if text.is_empty() { "rawKeyDown" } else { "keyDown" },
            "key": key,
            "code": code,
            "windowsVirtualKeyCode": vk,
            "nativeVirtualKeyCode": vk,
            "modifiers": if shift { 8 } else { 0 },
        });
        if !text.is_empty() {
            down["text"] = json!(text);
            down["unmodifiedText"] = json!(text);
        }
        self.call("Input.dispatchKeyEvent", down).await?;
        self.call(
            "Input.dispatchKeyEvent",
            json!({
                "type": "keyUp", "key": key, "code": code,
                "windowsVirtualKeyCode": vk, "nativeVirtualKeyCode": vk,
                "modifiers": if shift { 8 } else { 0 },
            }),
        )
        .await?;
        Ok(())
    }

    /// Types text into the focused element (as an input method would commit it).
    pub async fn type_text(&self, text: &str) -> Result<(), String> {
        self.call("Input.insertText", json!({ "text": text }))
            .await
            .map(|_| ())
    }

    /// Saves a PNG of the viewport.
    pub async fn screenshot(&self, path: &Path) -> Result<(), String> {
        use base64::Engine;
        let r = self
            .call("Page.captureScreenshot", json!({ "format": "png" }))
            .await?;
        let data = r["data"].as_str().ok_or("no screenshot data")?;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| e.to_string())?;
        std::fs::write(path, bytes).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// `(code, windowsVirtualKeyCode, text, shift)` of a DOM key value.
fn key_info(key: &str) -> (String, u32, String, bool) {
    match key {
        "Enter" => ("Enter".into(), 13, "\r".into(), false),
        "Escape" => ("Escape".into(), 27, String::new(), false),
        "ArrowLeft" => ("ArrowLeft".into(), 37, String::new(), false),
        "ArrowUp" => ("ArrowUp".into(), 38, String::new(), false),
        "ArrowRight" => ("ArrowRight".into(), 39, String::new(), false),
        "ArrowDown" => ("ArrowDown".into(), 40, String::new(), false),
        "?" => ("Slash".into(), 191, "?".into(), true),
        "-" => ("Minus".into(), 189, "-".into(), false),
        k if k.len() == 1 && k.as_bytes()[0].is_ascii_lowercase() => {
            let c = k.as_bytes()[0].to_ascii_uppercase();
            (format!("Key{}", c as char), c as u32, k.into(), false)
        }
        k if k.len() == 1 && k.as_bytes()[0].is_ascii_digit() => {
            (format!("Digit{k}"), k.as_bytes()[0] as u32, k.into(), false)
        }
        other => panic!("key_info: no mapping for {other:?}"),
    }
}
