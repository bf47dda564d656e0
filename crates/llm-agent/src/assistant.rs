//! The LLM assistant of `generate`, and the decision labels models write.

use crate::agent::{Agent, ReAsk, required_text, schema_once, short_json, transcript};
use callbench_model::{
    Action, AgentError, AssistantAgent, AssistantReply, MethodUsage, Speaker, Turn,
};
use llm_client::{ChatModel, ReplySchema, Role};

/// The LLM-backed assistant: the model answers for the owner from its system prompt (the
/// presets, what it may say about the owner, the safety rules and its decision options —
/// never the caller's hidden goal or the owner's private facts); caller turns are `user`,
/// its own are `assistant`.
pub struct LlmAssistant<'a, M: ChatModel> {
    agent: Agent<'a, M>,
    system: String,
    preset_ids: Vec<String>,
    schema: ReplySchema,
    min_turns: usize,
    repairs: Vec<(usize, Repair)>,
    usage: MethodUsage,
}

/// A reply whose words were fine but whose metadata was not, and what was made of it: the
/// dialogue is kept, the repair recorded with it and counted in the manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repair {
    /// The field repaired (`action`, `preset_id`, `end_call`).
    pub field: &'static str,
    /// What the model gave and what it became, for a person (`"p9" → null: …`).
    pub note: String,
}

/// The JSON schema of an assistant's reply for an owner with these presets: `action` is an
/// `enum` of [`Action::ALL`] and `preset_id` an `enum` of the owner's ids and null (only null
/// when the owner has none), so that a server with constrained decoding cannot produce a
/// label the parser would refuse. Built once per set of ids; clones share it.
pub fn assistant_reply_schema(preset_ids: &[String]) -> ReplySchema {
    // Owners have a handful of ids (`p1`, `p1 p2`, …): every dialogue with the same ids shares
    // one `Arc` (and the client hashes the same bytes).
    let mut ids = preset_ids.to_vec();
    ids.sort();
    ids.dedup();
    schema_once("assistant_turn", &ids.join("\u{1f}"), || {
        assistant_reply_schema_value(&ids)
    })
}

/// The `preset_id` property for an owner with these presets: an enum of the ids and null, or
/// null alone when there are none.
pub fn preset_id_schema(preset_ids: &[String]) -> serde_json::Value {
    if preset_ids.is_empty() {
        serde_json::json!({"type": "null", "description": "机主没有预设，只能是 null"})
    } else {
        let mut options: Vec<serde_json::Value> = preset_ids
            .iter()
            .map(|id| serde_json::Value::String(id.clone()))
            .collect();
        options.push(serde_json::Value::Null);
        serde_json::json!({
            "type": ["string", "null"],
            "enum": options,
            "description": "涉及的预设编号，没有则为 null"
        })
    }
}

/// The `action` property: an enum of the contract's decisions.
pub fn action_schema() -> serde_json::Value {
    let actions: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    serde_json::json!({"type": "string", "enum": actions})
}

fn assistant_reply_schema_value(preset_ids: &[String]) -> serde_json::Value {
    serde_json::json!({
        "type": "object",
        "properties": {
            "utterance": {"type": "string", "description": "这一轮要说的话"},
            "action": action_schema(),
            "preset_id": preset_id_schema(preset_ids),
            "end_call": {"type": "boolean"}
        },
        "required": ["utterance", "action", "preset_id", "end_call"],
        "additionalProperties": false
    })
}

/// Labels models write for the contract's decisions (`data/action_synonyms.tsv`), read once.
fn action_synonyms() -> &'static [(String, Action)] {
    static TABLE: std::sync::LazyLock<Vec<(String, Action)>> = std::sync::LazyLock::new(|| {
        include_str!("../data/action_synonyms.tsv")
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .filter_map(|l| {
                let (from, to) = l.split_once('\t')?;
                // A word the enum does not know (yet) is skipped, not a failure.
                Some((from.trim().to_string(), to.trim().parse().ok()?))
            })
            .collect()
    });
    &TABLE
}

/// The decision a model's label means: the contract's word itself (any case, spaces or dashes
/// for `_`), or a clear synonym; `None` when it means nothing clear.
pub fn normalize_action(label: &str) -> Option<Action> {
    let key: String = label
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect();
    if let Ok(a) = key.parse::<Action>() {
        return Some(a);
    }
    action_synonyms()
        .iter()
        .find(|(from, _)| *from == key)
        .map(|(_, a)| *a)
}

/// Decisions that concern a preset: the ones a `preset_id` belongs with.
pub(crate) fn concerns_preset(a: Action) -> bool {
    matches!(
        a,
        Action::ConveyPreset | Action::DeferPreset | Action::SuspendPreset | Action::HoldPreset
    )
}

/// Reads an assistant reply, salvaging what can be salvaged: only a reply without JSON or
/// without an utterance is invalid (asked again). A label outside the vocabulary becomes the
/// decision it clearly means, else `respond`; a preset id the owner does not have becomes the
/// owner's only preset (for a preset decision) or null; a missing `end_call` follows the action
/// (`close` ends the call). Each such change is returned as a [`Repair`].
pub fn parse_assistant_reply(
    content: &str,
    preset_ids: &[String],
) -> Result<(AssistantReply, Vec<Repair>), String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let text = required_text(&v, "utterance")?;
    let (action, preset_id, end_call, repairs) = parse_decision(&v, preset_ids);
    Ok((
        AssistantReply {
            text: text.to_string(),
            action,
            preset_id,
            end_call,
        },
        repairs,
    ))
}

/// The decision fields of a reply object (`action`, `preset_id`, `end_call`), salvaged as
/// [`parse_assistant_reply`] says; the methods' replies share it.
pub fn parse_decision(
    v: &serde_json::Value,
    preset_ids: &[String],
) -> (Action, Option<String>, bool, Vec<Repair>) {
    let mut repairs = Vec::new();
    let action = match &v["action"] {
        serde_json::Value::String(s) => match s.parse::<Action>() {
            Ok(a) => a,
            Err(_) => {
                let a = normalize_action(s).unwrap_or(Action::Respond);
                repairs.push(Repair {
                    field: "action",
                    note: format!("{s:?} → {a}"),
                });
                a
            }
        },
        other => {
            repairs.push(Repair {
                field: "action",
                note: format!("{} → respond", short_json(other)),
            });
            Action::Respond
        }
    };
    let given = match &v["preset_id"] {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) if s.trim().is_empty() || s == "null" => None,
        serde_json::Value::String(s) => Some(s.trim().to_string()),
        // A bare number: `1` for `p1`.
        serde_json::Value::Number(n) => Some(format!("p{n}")),
        other => Some(short_json(other)),
    };
    let preset_id = match given {
        None => None,
        Some(id) if preset_ids.contains(&id) => Some(id),
        Some(id) => {
            let only =
                (preset_ids.len() == 1 && concerns_preset(action)).then(|| preset_ids[0].clone());
            repairs.push(Repair {
                field: "preset_id",
                note: format!(
                    "{id:?} → {}: not a preset of the owner",
                    only.as_deref().unwrap_or("null")
                ),
            });
            only
        }
    };
    let end_call = match &v["end_call"] {
        serde_json::Value::Bool(b) => *b,
        other => {
            let b = match other.as_str().map(str::trim) {
                Some("true") => true,
                Some("false") => false,
                _ => action == Action::Close,
            };
            repairs.push(Repair {
                field: "end_call",
                note: format!("{} → {b}", short_json(other)),
            });
            b
        }
    };
    (action, preset_id, end_call, repairs)
}

impl<'a, M: ChatModel> LlmAssistant<'a, M> {
    /// An assistant speaking through `model` with the rendered system prompt; `preset_ids` are
    /// the owner's presets, which make the reply schema and validate the replies' `preset_id`.
    pub fn new(
        model: &'a M,
        system: String,
        preset_ids: Vec<String>,
        max_invalid_replies: u32,
    ) -> Self {
        LlmAssistant {
            agent: Agent::new(model, Role::Assistant).reask(max_invalid_replies, ReAsk::Same),
            system,
            schema: assistant_reply_schema(&preset_ids),
            preset_ids,
            min_turns: 0,
            repairs: Vec::new(),
            usage: MethodUsage::default(),
        }
    }

    /// The conversation's scope in the response cache (the dialogue attempt's seed): see
    /// [`llm_client::ChatRequest::scope`].
    pub fn with_scope(mut self, scope: u64) -> Self {
        self.agent = self.agent.scope(scope);
        self
    }

    /// A call with a goal lasts at least `turns` turns: the assistant's `end_call` before that
    /// is not taken (small models close after the greeting), recorded as a repair.
    pub fn with_min_turns(mut self, turns: usize) -> Self {
        self.min_turns = turns;
        self
    }

    /// The repairs made so far, with the index of the turn each belongs to; taken once the
    /// call is over.
    pub fn take_repairs(&mut self) -> Vec<(usize, Repair)> {
        std::mem::take(&mut self.repairs)
    }

    /// Requests and tokens spent so far.
    pub fn usage(&self) -> MethodUsage {
        self.usage
    }
}

impl<M: ChatModel> LlmAssistant<'_, M> {
    async fn reply_llm(&mut self, turns: &[Turn]) -> Result<AssistantReply, AgentError> {
        let messages = transcript(self.system.clone(), turns, Speaker::Assistant);
        let preset_ids = &self.preset_ids;
        let (mut reply, repairs) = self
            .agent
            .ask(messages, &self.schema, &mut self.usage, |c| {
                parse_assistant_reply(c, preset_ids)
            })
            .await
            .map_err(|e| AgentError {
                role: "assistant",
                message: e.to_string(),
            })?;
        // `turns` ends with the caller's turn: this reply is turn `turns.len()`.
        let at = turns.len();
        self.repairs.extend(repairs.into_iter().map(|r| (at, r)));
        if reply.end_call && at + 1 < self.min_turns {
            reply.end_call = false;
            self.repairs.push((
                at,
                Repair {
                    field: "end_call",
                    note: format!(
                        "true → false: the call is shorter than {} turns",
                        self.min_turns
                    ),
                },
            ));
        }
        Ok(reply)
    }
}

impl<M: ChatModel> AssistantAgent for LlmAssistant<'_, M> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<AssistantReply, AgentError> {
        self.reply_llm(turns).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Fixed, now};

    fn ids(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_schema_offers_exactly_the_vocabulary_and_the_owners_ids() {
        let s = assistant_reply_schema(&ids(&["p2", "p1"]));
        let words: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
        assert_eq!(
            s.schema["properties"]["action"]["enum"],
            serde_json::json!(words)
        );
        assert_eq!(
            s.schema["properties"]["preset_id"]["enum"],
            serde_json::json!(["p1", "p2", null])
        );
        let none = assistant_reply_schema(&[]);
        assert_eq!(
            none.schema["properties"]["preset_id"],
            serde_json::json!({"type": "null", "description": "机主没有预设，只能是 null"})
        );
        // Built once per set of ids, whatever their order.
        let again = assistant_reply_schema(&ids(&["p1", "p2"]));
        assert!(std::sync::Arc::ptr_eq(&s.schema, &again.schema));
        assert!(!std::sync::Arc::ptr_eq(&s.schema, &none.schema));
    }

    fn parse(json: &str, owner: &[&str]) -> (AssistantReply, Vec<Repair>) {
        parse_assistant_reply(json, &ids(owner)).unwrap()
    }

    #[test]
    fn a_valid_reply_needs_no_repair() {
        let (r, repairs) = parse(
            r#"{"utterance": "好的，放门口就行。", "action": "convey_preset", "preset_id": "p1", "end_call": false}"#,
            &["p1"],
        );
        assert_eq!(r.action, Action::ConveyPreset);
        assert_eq!(r.preset_id.as_deref(), Some("p1"));
        assert!(repairs.is_empty());
    }

    #[test]
    fn an_unknown_preset_id_becomes_the_only_preset_or_null() {
        let one = r#"{"utterance": "放门口吧。", "action": "convey_preset", "preset_id": "p9", "end_call": false}"#;
        let (r, repairs) = parse(one, &["p1"]);
        assert_eq!(r.preset_id.as_deref(), Some("p1"));
        assert_eq!(repairs.len(), 1);
        assert_eq!(repairs[0].field, "preset_id");
        assert!(repairs[0].note.contains("p9"), "{}", repairs[0].note);
        // Two presets: which one is not clear, so null.
        let (r, _) = parse(one, &["p1", "p2"]);
        assert_eq!(r.preset_id, None);
        // Not a preset decision: null even with one preset.
        let (r, _) = parse(
            r#"{"utterance": "好的。", "action": "respond", "preset_id": "x", "end_call": false}"#,
            &["p1"],
        );
        assert_eq!(r.preset_id, None);
        // A bare number names `p<n>`.
        let (r, repairs) = parse(
            r#"{"utterance": "好的。", "action": "convey_preset", "preset_id": 2, "end_call": false}"#,
            &["p1", "p2"],
        );
        assert_eq!(r.preset_id.as_deref(), Some("p2"));
        assert!(repairs.is_empty());
    }

    #[test]
    fn labels_outside_the_vocabulary_map_to_what_they_clearly_mean() {
        for (label, want) in [
            ("refuse", Action::RefuseDecision),
            ("convey", Action::ConveyPreset),
            ("Relay To Owner", Action::RelayToOwner),
            ("hang-up", Action::Close),
            ("dance", Action::Respond),
        ] {
            let (r, repairs) = parse(
                &format!(
                    r#"{{"utterance": "嗯。", "action": "{label}", "preset_id": null, "end_call": false}}"#
                ),
                &[],
            );
            assert_eq!(r.action, want, "{label}");
            assert_eq!(repairs.len(), 1, "{label}");
            assert_eq!(repairs[0].field, "action");
        }
        let (r, repairs) = parse(r#"{"utterance": "嗯。", "end_call": false}"#, &[]);
        assert_eq!(r.action, Action::Respond);
        assert_eq!(repairs[0].note, "missing → respond");
    }

    #[test]
    fn a_missing_end_call_follows_the_action_and_is_recorded() {
        let (r, repairs) = parse(
            r#"{"utterance": "再见。", "action": "close", "preset_id": null}"#,
            &[],
        );
        assert!(r.end_call);
        assert_eq!(repairs[0].field, "end_call");
        let (r, _) = parse(
            r#"{"utterance": "嗯。", "action": "respond", "preset_id": null, "end_call": "true"}"#,
            &[],
        );
        assert!(r.end_call);
    }

    fn caller_turns(n: usize) -> Vec<Turn> {
        (0..n)
            .map(|i| Turn {
                speaker: if i % 2 == 0 {
                    Speaker::Caller
                } else {
                    Speaker::Assistant
                },
                text: "喂？".into(),
                action: None,
                preset_id: None,
            })
            .collect()
    }

    #[test]
    fn the_assistant_may_not_close_before_the_minimum_length() {
        let model = Fixed::new(
            r#"{"utterance": "好的，再见。", "action": "close", "preset_id": null, "end_call": true}"#,
        );
        let mut a = LlmAssistant::new(&model, "你是来电助理。".into(), vec![], 0).with_min_turns(4);
        // Turn 1 of a call that must last 4: kept open, recorded.
        assert!(!now(a.reply(&caller_turns(1))).unwrap().end_call);
        // Turn 3 makes 4 turns: it may close.
        assert!(now(a.reply(&caller_turns(3))).unwrap().end_call);
        let repairs = a.take_repairs();
        assert_eq!(repairs.len(), 1);
        assert_eq!((repairs[0].0, repairs[0].1.field), (1, "end_call"));
    }

    #[test]
    fn only_a_reply_without_words_is_invalid() {
        assert!(parse_assistant_reply("好的，我会转告。", &[]).is_err());
        assert!(parse_assistant_reply(r#"{"utterance": "  ", "action": "respond"}"#, &[]).is_err());
    }
}
