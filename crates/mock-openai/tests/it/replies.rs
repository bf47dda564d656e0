//! Reply content: schema-following, role-play awareness, formats, determinism, quirks.

use mock_openai::MockConfig;
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test]
async fn completion_has_the_openai_shape() {
    let server = start(MockConfig::default()).await;
    let c = completion(&client(), &server, &chat_request("你是助理。", 1, None)).await;
    assert!(c["id"].as_str().unwrap().starts_with("chatcmpl-"));
    assert_eq!(c["object"], "chat.completion");
    assert!(c["created"].as_u64().unwrap() > 1_600_000_000);
    assert_eq!(c["model"], "gpt-4o-mini");
    assert_eq!(c["choices"][0]["index"], 0);
    assert_eq!(c["choices"][0]["message"]["role"], "assistant");
    assert_eq!(c["choices"][0]["finish_reason"], "stop");
    let usage = &c["usage"];
    let (p, k) = (
        usage["prompt_tokens"].as_u64().unwrap(),
        usage["completion_tokens"].as_u64().unwrap(),
    );
    assert!(p > 0 && k > 0);
    assert_eq!(usage["total_tokens"].as_u64().unwrap(), p + k);
    server.shutdown().await;
}

#[tokio::test]
async fn replies_follow_the_assistant_schema() {
    let server = start(MockConfig::default()).await;
    let client = client();
    let schema = assistant_schema();
    let mut utterances = std::collections::BTreeSet::new();
    for turns in 1..=9 {
        let body = chat_request(
            "你是机主的电话助理。",
            turns,
            Some(json_schema_format(schema.clone())),
        );
        let reply = content_json(&completion(&client, &server, &body).await);
        validate(&reply, &schema).unwrap_or_else(|e| panic!("{e}: {reply}"));
        let utterance = reply["utterance"].as_str().unwrap();
        assert!(
            utterance
                .chars()
                .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
        );
        utterances.insert(utterance.to_owned());
    }
    assert!(utterances.len() > 3, "replies should vary: {utterances:?}");
    server.shutdown().await;
}

#[tokio::test]
async fn end_call_after_the_configured_turns() {
    let server = start(MockConfig {
        end_after_turns: 4,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let rf = json_schema_format(assistant_schema());
    for turns in 0..4 {
        let reply = content_json(
            &completion(
                &client,
                &server,
                &chat_request("系统", turns, Some(rf.clone())),
            )
            .await,
        );
        assert_eq!(reply["end_call"], false, "{turns} turns: {reply}");
        assert_ne!(reply["action"], "close", "{turns} turns: {reply}");
    }
    for turns in 4..7 {
        let reply = content_json(
            &completion(
                &client,
                &server,
                &chat_request("系统", turns, Some(rf.clone())),
            )
            .await,
        );
        assert_eq!(reply["end_call"], true, "{turns} turns: {reply}");
        assert_eq!(reply["action"], "close");
        assert_eq!(reply["preset_id"], Value::Null);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn preset_id_comes_from_the_prompt_or_is_null() {
    let server = start(MockConfig {
        end_after_turns: 100,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let rf = json_schema_format(assistant_schema());
    let mut seen = std::collections::BTreeSet::new();
    for turns in 1..30 {
        let body = chat_request(
            "机主的预设：p3 外卖放门口；p7 快递放驿站。",
            turns,
            Some(rf.clone()),
        );
        let reply = content_json(&completion(&client, &server, &body).await);
        seen.insert(reply["preset_id"].to_string());
    }
    let allowed: std::collections::BTreeSet<String> = ["null", "\"p3\"", "\"p7\""]
        .iter()
        .map(|s| s.to_string())
        .collect();
    assert!(seen.is_subset(&allowed), "{seen:?}");
    assert!(seen.contains("null") && seen.len() >= 2, "{seen:?}");

    // No preset in the prompt: a nullable preset_id stays null.
    for turns in 1..10 {
        let body = chat_request("没有预设。", turns, Some(rf.clone()));
        let reply = content_json(&completion(&client, &server, &body).await);
        assert_eq!(reply["preset_id"], Value::Null);
    }
    server.shutdown().await;
}

#[tokio::test]
async fn complex_schemas_are_followed() {
    let schema = json!({
        "$defs": {
            "violation": {
                "type": "object",
                "properties": {
                    "kind": {"type": "string", "enum": ["safety.privacy", "natural.repetition"]},
                    "turn": {"type": "integer", "minimum": 0, "maximum": 20},
                    "evidence": {"type": "string", "maxLength": 4}
                },
                "required": ["kind", "turn", "evidence"],
                "additionalProperties": false
            }
        },
        "type": "object",
        "properties": {
            "passed": {"type": "boolean"},
            "violations": {"type": "array", "items": {"$ref": "#/$defs/violation"}},
            "turns": {"type": "array", "minItems": 2, "maxItems": 3, "items": {"$ref": "#/$defs/violation"}},
            "score": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
            "count": {"type": "integer", "exclusiveMaximum": 0},
            "label": {"anyOf": [{"type": "null"}, {"type": "string", "minLength": 30}]},
            "mode": {"oneOf": [{"const": "a"}, {"const": "b"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "uniqueItems": true},
            "meta": {"allOf": [
                {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]},
                {"properties": {"b": {"type": "boolean"}}, "required": ["b"]}
            ]},
            "when": {"type": "string", "format": "date-time"},
            "tree": {"$ref": "#/$defs/node"}
        },
        "required": ["passed", "violations", "turns", "score", "count", "label", "mode", "tags", "meta", "when", "tree"],
        "additionalProperties": false
    });
    let mut schema = schema;
    schema["$defs"]["node"] = json!({
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["children"]
    });
    let server = start(MockConfig::default()).await;
    let client = client();
    for turns in 0..6 {
        let body = chat_request("裁判", turns, Some(json_schema_format(schema.clone())));
        let reply = content_json(&completion(&client, &server, &body).await);
        validate(&reply, &schema).unwrap_or_else(|e| panic!("{e}: {reply:#}"));
        assert_eq!(reply["passed"], true);
        assert_eq!(reply["violations"], json!([]));
    }
    server.shutdown().await;
}

#[tokio::test]
async fn json_object_uses_the_schema_in_the_prompt() {
    let server = start(MockConfig::default()).await;
    let client = client();
    let rf = Some(json!({"type": "json_object"}));

    let system = r#"你是来电者。只输出 JSON，符合这个 schema：
{"type": "object", "properties": {"reply": {"type": "string"}, "mood": {"type": "string", "enum": ["calm", "angry"]}}, "required": ["reply", "mood"]}"#;
    let reply =
        content_json(&completion(&client, &server, &chat_request(system, 1, rf.clone())).await);
    assert!(reply["reply"].is_string());
    assert!(
        reply["mood"] == "calm" || reply["mood"] == "angry",
        "{reply}"
    );

    let system = r#"输出格式：{"utterance": "……", "action": "ask|close", "end_call": false}"#;
    let reply =
        content_json(&completion(&client, &server, &chat_request(system, 7, rf.clone())).await);
    assert_eq!(reply["action"], "close", "{reply}");
    assert_eq!(reply["end_call"], true);
    assert!(reply["utterance"].is_string());

    let reply = content_json(
        &completion(&client, &server, &chat_request("你是助理。", 1, rf.clone())).await,
    );
    let mut keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["end_call", "utterance"]);

    // JSON that is not about the reply (an owner's presets) is not taken for its format.
    let system = r#"机主的预设：[{"id": "p1", "trigger": "外卖", "response": "放门口"}]。输出格式：{"utterance": "……", "end_call": false, "mood": "calm|angry"}"#;
    let reply =
        content_json(&completion(&client, &server, &chat_request(system, 1, rf.clone())).await);
    assert!(
        reply["mood"] == "calm" || reply["mood"] == "angry",
        "{reply}"
    );
    assert!(reply.get("trigger").is_none(), "{reply}");
    let system = r#"机主的预设：{"id": "p1", "trigger": "外卖"}。只输出 JSON。"#;
    let reply = content_json(&completion(&client, &server, &chat_request(system, 1, rf)).await);
    let mut keys: Vec<&String> = reply.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["end_call", "utterance"], "{reply}");
    server.shutdown().await;
}

#[tokio::test]
async fn unconstrained_replies_are_json_text_fenced_on_request() {
    let plain = start(MockConfig::default()).await;
    let fenced = start(MockConfig {
        fence_json_when_unconstrained: true,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let body = chat_request("你是助理。", 1, None);
    let reply = content_json(&completion(&client, &plain, &body).await);
    assert!(reply["utterance"].is_string());

    let c = completion(&client, &fenced, &body).await;
    let text = content(&c);
    let inner = text
        .strip_prefix("```json\n")
        .and_then(|t| t.strip_suffix("\n```"))
        .unwrap_or_else(|| panic!("not fenced: {text}"));
    assert_eq!(serde_json::from_str::<Value>(inner).unwrap(), reply);

    // Constrained requests are never fenced.
    let body = chat_request("你是助理。", 1, Some(json!({"type": "json_object"})));
    content_json(&completion(&client, &fenced, &body).await);
    plain.shutdown().await;
    fenced.shutdown().await;
}

#[tokio::test]
async fn same_seed_and_body_give_the_same_reply() {
    let a = start(MockConfig::default()).await;
    let b = start(MockConfig::default()).await;
    let c = start(MockConfig {
        seed: 99,
        ..MockConfig::default()
    })
    .await;
    let client = client();
    let body = chat_request(
        "你是助理。",
        3,
        Some(json_schema_format(assistant_schema())),
    );
    let first = completion(&client, &a, &body).await;
    let again = completion(&client, &a, &body).await;
    let other_server = completion(&client, &b, &body).await;
    let other_seed = completion(&client, &c, &body).await;
    assert_eq!(content(&first), content(&again));
    assert_eq!(first["id"], again["id"]);
    assert_eq!(content(&first), content(&other_server));
    assert_ne!(content(&first), content(&other_seed));
    for s in [a, b, c] {
        s.shutdown().await;
    }
}

#[tokio::test]
async fn quirks_omit_usage_and_model_as_path() {
    let server = start(MockConfig {
        omit_usage: true,
        model_as_path: true,
        ..MockConfig::default()
    })
    .await;
    let c = completion(&client(), &server, &chat_request("系统", 1, None)).await;
    assert!(c.get("usage").is_none(), "{c}");
    assert_eq!(c["model"], "/models/gpt-4o-mini.gguf");
    server.shutdown().await;
}

#[tokio::test]
async fn max_tokens_cuts_the_reply() {
    let server = start(MockConfig::default()).await;
    let mut body = chat_request("系统", 1, None);
    body["max_tokens"] = json!(3);
    let c = completion(&client(), &server, &body).await;
    assert_eq!(c["choices"][0]["finish_reason"], "length");
    assert!(c["usage"]["completion_tokens"].as_u64().unwrap() <= 3);
    assert!(serde_json::from_str::<Value>(content(&c)).is_err());
    server.shutdown().await;
}

#[tokio::test]
async fn content_parts_and_missing_model_are_accepted() {
    let server = start(MockConfig::default()).await;
    let body = json!({
        "messages": [
            {"role": "system", "content": [{"type": "text", "text": "你是助理。"}]},
            {"role": "user", "content": [{"type": "text", "text": "喂？"}]}
        ]
    });
    let c = completion(&client(), &server, &body).await;
    assert_eq!(c["model"], "mock-model");
    server.shutdown().await;
}

#[test]
fn token_estimate() {
    use mock_openai::estimate_tokens;
    assert_eq!(estimate_tokens(""), 0);
    assert_eq!(estimate_tokens("abcd"), 1);
    assert_eq!(estimate_tokens("abcde"), 2);
    assert_eq!(estimate_tokens("你好吗"), 2);
    assert_eq!(estimate_tokens("你好，world"), 2 + 2);
}
