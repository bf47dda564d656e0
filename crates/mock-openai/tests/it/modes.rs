//! `reply_mode`: arbitrary values of the schema, garbage, and replies cut short.

use crate::support::{
    chat_request, client, completion, content, content_json, json_schema_format, start, validate,
};
use mock_openai::{MockConfig, ReplyMode};
use serde_json::{Value, json};
use std::collections::BTreeSet;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "utterance": {"type": "string"},
            "action": {"type": "string", "enum": ["respond", "convey_preset", "close"]},
            "preset_id": {"type": ["string", "null"], "enum": ["p1", null]},
            "end_call": {"type": "boolean"},
            "score": {"type": "number", "minimum": 0, "maximum": 1},
            "safety": {"type": "integer", "enum": [0, 1]}
        },
        "required": ["utterance", "action", "preset_id", "end_call", "score", "safety"],
        "additionalProperties": false
    })
}

/// Arbitrary replies are valid for the schema and nothing more: every enum option turns up,
/// at any turn (closing on the first turn too), and no string is empty.
#[tokio::test]
async fn arbitrary_replies_fill_the_schema_and_honour_enums() {
    let server = start(MockConfig {
        reply_mode: ReplyMode::Arbitrary,
        ..Default::default()
    })
    .await;
    let client = client();
    let mut actions = BTreeSet::new();
    let mut presets = BTreeSet::new();
    let mut ends = BTreeSet::new();
    for i in 0..60 {
        let body = chat_request(&format!("第{i}通"), 1, Some(json_schema_format(schema())));
        let v = content_json(&completion(&client, &server, &body).await);
        validate(&v, &schema()).unwrap_or_else(|e| panic!("{e}: {v}"));
        assert!(!v["utterance"].as_str().unwrap().trim().is_empty(), "{v}");
        actions.insert(v["action"].to_string());
        presets.insert(v["preset_id"].to_string());
        ends.insert(v["end_call"].as_bool().unwrap());
    }
    assert_eq!(actions.len(), 3, "{actions:?}");
    assert_eq!(presets.len(), 2, "{presets:?}");
    assert_eq!(ends.len(), 2, "end_call is arbitrary from the first turn");
    server.shutdown().await;
}

#[tokio::test]
async fn garbage_replies_hold_no_json() {
    let server = start(MockConfig {
        reply_mode: ReplyMode::Garbage,
        ..Default::default()
    })
    .await;
    let body = chat_request("你是来电者", 1, Some(json_schema_format(schema())));
    let c = completion(&client(), &server, &body).await;
    let text = content(&c);
    assert!(!text.is_empty() && !text.contains('{'), "{text}");
    assert_eq!(c["choices"][0]["finish_reason"], "stop");
    server.shutdown().await;
}

#[tokio::test]
async fn cut_short_replies_stop_half_way_with_finish_reason_length() {
    let server = start(MockConfig {
        reply_mode: ReplyMode::CutShort,
        ..Default::default()
    })
    .await;
    let body = chat_request("你是来电者", 1, Some(json_schema_format(schema())));
    let c = completion(&client(), &server, &body).await;
    assert_eq!(c["choices"][0]["finish_reason"], "length");
    let text = content(&c);
    assert!(text.starts_with('{'), "{text}");
    assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
    server.shutdown().await;
}

#[test]
fn reply_modes_are_read_from_toml_and_flags() {
    let c: MockConfig = toml::from_str("reply_mode = \"cut_short\"").unwrap();
    assert_eq!(c.reply_mode, ReplyMode::CutShort);
    assert_eq!("arbitrary".parse::<ReplyMode>(), Ok(ReplyMode::Arbitrary));
    assert_eq!("cut-short".parse::<ReplyMode>(), Ok(ReplyMode::CutShort));
    assert!("nonsense".parse::<ReplyMode>().is_err());
    assert_eq!(MockConfig::default().reply_mode, ReplyMode::Roleplay);
}
