//! The LLM caller of `generate`.

use crate::agent::{Agent, ReAsk, required_text, schema_once, transcript};
use callbench_model::{AgentError, CallerAgent, CallerReply, MethodUsage, Speaker, Turn};
use llm_client::{ChatModel, ReplySchema, Role};

/// The LLM-backed caller: the model role-plays the caller from its system prompt (persona,
/// hidden goal, events — never the owner's presets or private facts) and sees the call from its
/// side: its own turns as `assistant`, the phone assistant's as `user`. The first request holds
/// the system prompt alone — the prompt itself says the call is connected and the caller
/// speaks first — so that no stage direction sits in a `user` turn for a model to read aloud.
pub struct LlmCaller<'a, M: ChatModel> {
    agent: Agent<'a, M>,
    system: String,
    repairs: Vec<(usize, String)>,
    usage: MethodUsage,
}

/// The JSON schema of a caller's reply (built once; clones share it): an `utterance` and a
/// boolean `end_call`, both required. No `minLength`: OpenAI's strict mode has refused
/// string-length keywords; an empty utterance is asked again instead.
pub fn caller_reply_schema() -> ReplySchema {
    schema_once("caller_turn", "", || {
        serde_json::json!({
            "type": "object",
            "properties": {
                "utterance": {"type": "string", "description": "这一轮要说的话"},
                "end_call": {"type": "boolean", "description": "说完这句是否挂断"}
            },
            "required": ["utterance", "end_call"],
            "additionalProperties": false
        })
    })
}

impl<'a, M: ChatModel> LlmCaller<'a, M> {
    /// A caller speaking through `model` with the rendered system prompt.
    pub fn new(model: &'a M, system: String, max_invalid_replies: u32) -> Self {
        LlmCaller {
            agent: Agent::new(model, Role::Caller).reask(max_invalid_replies, ReAsk::Same),
            system,
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

    /// The repairs made so far (turn index, what was made of what); taken once the call is
    /// over.
    pub fn take_repairs(&mut self) -> Vec<(usize, String)> {
        std::mem::take(&mut self.repairs)
    }

    /// Requests and tokens spent so far.
    pub fn usage(&self) -> MethodUsage {
        self.usage
    }
}

/// Reads a caller reply: an object with a non-empty `utterance`. A missing or non-boolean
/// `end_call` is salvaged (`"true"`/`"false"` read as such, anything else as false) and the
/// repair returned beside the reply.
pub fn parse_caller_reply(content: &str) -> Result<(CallerReply, Option<String>), String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let text = required_text(&v, "utterance")?;
    let (end_call, repair) = match &v["end_call"] {
        serde_json::Value::Bool(b) => (*b, None),
        other => {
            let b = other.as_str().map(str::trim) == Some("true");
            let was: String = if other.is_null() {
                "missing".into()
            } else {
                other.to_string().chars().take(40).collect()
            };
            (b, Some(format!("{was} → {b}")))
        }
    };
    Ok((
        CallerReply {
            text: text.to_string(),
            end_call,
        },
        repair,
    ))
}

impl<M: ChatModel> CallerAgent for LlmCaller<'_, M> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<CallerReply, AgentError> {
        let messages = transcript(self.system.clone(), turns, Speaker::Caller);
        let (reply, repair) = self
            .agent
            .ask(
                messages,
                &caller_reply_schema(),
                &mut self.usage,
                parse_caller_reply,
            )
            .await
            .map_err(|e| AgentError {
                role: "caller",
                message: e.to_string(),
            })?;
        if let Some(r) = repair {
            self.repairs.push((turns.len(), r));
        }
        Ok(reply)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{Fixed, now};

    #[test]
    fn the_first_turn_has_no_stage_direction_to_read_aloud() {
        let model =
            Fixed::new(r#"{"utterance": "喂，您好，您的外卖到楼下了。", "end_call": false}"#);
        let mut caller = LlmCaller::new(&model, "你在扮演来电者。".into(), 0);
        let r = now(caller.reply(&[])).unwrap();
        assert_eq!(r.text, "喂，您好，您的外卖到楼下了。");
        let seen = model.seen.lock().unwrap();
        let roles: Vec<&str> = seen[0].messages.iter().map(|m| m.role).collect();
        assert_eq!(roles, ["system"], "no user turn before the caller speaks");
        assert!(caller.take_repairs().is_empty());
        assert_eq!(caller.usage().requests, 1);
    }

    #[test]
    fn a_missing_end_call_is_salvaged_and_recorded() {
        let (r, repair) = parse_caller_reply(r#"{"utterance": "好的，谢谢。"}"#).unwrap();
        assert!(!r.end_call);
        assert_eq!(repair.as_deref(), Some("missing → false"));
        let (r, repair) =
            parse_caller_reply(r#"{"utterance": "拜拜。", "end_call": "true"}"#).unwrap();
        assert!(r.end_call);
        assert!(repair.is_some());
        assert!(parse_caller_reply(r#"{"end_call": true}"#).is_err());
    }
}
