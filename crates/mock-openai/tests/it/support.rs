//! Shared test helpers: requests, a client, and a small JSON Schema validator.

use std::time::Duration;

use mock_openai::{MockConfig, MockServer};
use serde_json::{Value, json};

/// The assistant's per-turn schema, as the LLM backend would send it.
pub fn assistant_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "utterance": {"type": "string", "description": "what the assistant says"},
            "action": {"type": "string", "enum": ["answer", "ask", "relay_preset", "close"]},
            "end_call": {"type": "boolean"},
            "preset_id": {"type": ["string", "null"]}
        },
        "required": ["utterance", "action", "end_call", "preset_id"],
        "additionalProperties": false
    })
}

/// `response_format` for a schema.
pub fn json_schema_format(schema: Value) -> Value {
    json!({"type": "json_schema", "json_schema": {"name": "turn", "strict": true, "schema": schema}})
}

/// A chat request: a system prompt, then `turns` alternating user/assistant messages.
pub fn chat_request(system: &str, turns: usize, response_format: Option<Value>) -> Value {
    let mut messages = vec![json!({"role": "system", "content": system})];
    for i in 0..turns {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        messages.push(json!({"role": role, "content": format!("第{i}句：喂，你好。")}));
    }
    let mut request = json!({"model": "gpt-4o-mini", "messages": messages});
    if let Some(rf) = response_format {
        request["response_format"] = rf;
    }
    request
}

pub fn client() -> reqwest::Client {
    client_with_timeout(Duration::from_secs(10))
}

pub fn client_with_timeout(timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(timeout)
        .build()
        .expect("a reqwest client")
}

pub async fn start(config: MockConfig) -> MockServer {
    MockServer::start(config).await.expect("the mock starts")
}

/// POSTs a chat request; returns the status, headers and body text.
pub async fn post(
    client: &reqwest::Client,
    server: &MockServer,
    body: &Value,
) -> (u16, reqwest::header::HeaderMap, String) {
    let response = client
        .post(format!("{}/chat/completions", server.base_url()))
        .json(body)
        .send()
        .await
        .expect("a response");
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let text = response.text().await.expect("a body");
    (status, headers, text)
}

/// POSTs a chat request expecting 200; returns the completion object.
pub async fn completion(client: &reqwest::Client, server: &MockServer, body: &Value) -> Value {
    let (status, _, text) = post(client, server, body).await;
    assert_eq!(status, 200, "body: {text}");
    serde_json::from_str(&text).expect("a JSON completion")
}

/// The message content of a completion.
pub fn content(completion: &Value) -> &str {
    completion["choices"][0]["message"]["content"]
        .as_str()
        .expect("string content")
}

/// The content parsed as JSON.
pub fn content_json(completion: &Value) -> Value {
    serde_json::from_str(content(completion)).expect("JSON content")
}

/// Validates `value` against the subset of JSON Schema the mock claims to follow.
pub fn validate(value: &Value, schema: &Value) -> Result<(), String> {
    check(value, schema, schema, "$")
}

fn check(value: &Value, schema: &Value, root: &Value, at: &str) -> Result<(), String> {
    let Value::Object(s) = schema else {
        return if schema == &Value::Bool(false) {
            Err(format!("{at}: schema false"))
        } else {
            Ok(())
        };
    };
    if let Some(Value::String(r)) = s.get("$ref") {
        let target = root
            .pointer(r.strip_prefix('#').unwrap())
            .ok_or_else(|| format!("{at}: bad $ref {r}"))?;
        return check(value, target, root, at);
    }
    if let Some(c) = s.get("const")
        && c != value
    {
        return Err(format!("{at}: {value} is not the const {c}"));
    }
    if let Some(Value::Array(options)) = s.get("enum")
        && !options.contains(value)
    {
        return Err(format!("{at}: {value} is not in the enum {options:?}"));
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        for p in parts {
            check(value, p, root, at)?;
        }
    }
    if let Some(Value::Array(variants)) = s.get("anyOf")
        && !variants.iter().any(|v| check(value, v, root, at).is_ok())
    {
        return Err(format!("{at}: {value} matches no anyOf variant"));
    }
    if let Some(Value::Array(variants)) = s.get("oneOf") {
        let n = variants
            .iter()
            .filter(|v| check(value, v, root, at).is_ok())
            .count();
        if n != 1 {
            return Err(format!("{at}: {value} matches {n} oneOf variants"));
        }
    }
    if let Some(ty) = s.get("type") {
        let types: Vec<&str> = match ty {
            Value::String(t) => vec![t.as_str()],
            Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let actual_ok = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "null" => value.is_null(),
            _ => false,
        });
        if !actual_ok {
            return Err(format!("{at}: {value} is not of type {types:?}"));
        }
    }
    match value {
        Value::Object(o) => {
            if let Some(Value::Array(required)) = s.get("required") {
                for r in required {
                    let r = r.as_str().unwrap();
                    if !o.contains_key(r) {
                        return Err(format!("{at}: required `{r}` missing"));
                    }
                }
            }
            let props = s.get("properties").and_then(Value::as_object);
            for (k, v) in o {
                match props.and_then(|p| p.get(k)) {
                    Some(ps) => check(v, ps, root, &format!("{at}.{k}"))?,
                    None if s.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        return Err(format!("{at}: extra property `{k}`"));
                    }
                    None => {}
                }
            }
        }
        Value::Array(a) => {
            if let Some(min) = s.get("minItems").and_then(Value::as_u64)
                && (a.len() as u64) < min
            {
                return Err(format!("{at}: fewer than {min} items"));
            }
            if let Some(max) = s.get("maxItems").and_then(Value::as_u64)
                && (a.len() as u64) > max
            {
                return Err(format!("{at}: more than {max} items"));
            }
            if let Some(items) = s.get("items") {
                for (i, v) in a.iter().enumerate() {
                    check(v, items, root, &format!("{at}[{i}]"))?;
                }
            }
        }
        Value::String(t) => {
            let n = t.chars().count() as u64;
            if let Some(min) = s.get("minLength").and_then(Value::as_u64)
                && n < min
            {
                return Err(format!("{at}: shorter than {min}"));
            }
            if let Some(max) = s.get("maxLength").and_then(Value::as_u64)
                && n > max
            {
                return Err(format!("{at}: longer than {max}"));
            }
        }
        Value::Number(x) => {
            let x = x.as_f64().unwrap();
            if let Some(m) = s.get("minimum").and_then(Value::as_f64)
                && x < m
            {
                return Err(format!("{at}: {x} < minimum {m}"));
            }
            if let Some(m) = s.get("maximum").and_then(Value::as_f64)
                && x > m
            {
                return Err(format!("{at}: {x} > maximum {m}"));
            }
            if let Some(m) = s.get("exclusiveMinimum").and_then(Value::as_f64)
                && x <= m
            {
                return Err(format!("{at}: {x} <= exclusiveMinimum {m}"));
            }
            if let Some(m) = s.get("exclusiveMaximum").and_then(Value::as_f64)
                && x >= m
            {
                return Err(format!("{at}: {x} >= exclusiveMaximum {m}"));
            }
        }
        _ => {}
    }
    Ok(())
}
