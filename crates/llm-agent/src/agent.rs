//! The one structured-reply agent every LLM part is built on: a conversation goes out with a JSON
//! schema, the reply is parsed tolerantly, an unusable reply is asked again under a policy, and
//! every request is counted. The caller and assistant of `generate`, every method step and the
//! judge are this loop with a different schema and parser.

use callbench_model::{MethodUsage, Speaker, Turn};
use llm_client::{ChatMessage, ChatModel, ChatRequest, Price, ReplyError, ReplySchema, Role};
use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex};

/// What to send when a reply could not be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReAsk {
    /// The same conversation again, under a new cache nonce. A sampling model draws anew; this
    /// is what `generate`'s role-players do, and their requests must stay byte-identical.
    #[default]
    Same,
    /// The conversation plus the unusable reply and a note saying what was wrong with it. A model
    /// at temperature 0 (the judge, methods under evaluation) would answer the same request the
    /// same way, so the request itself has to change.
    Correct,
}

/// The JSON schema named `name`, built by `build` the first time `key` is asked for and shared
/// (one `Arc`) afterwards: a shape whose enums depend on the dialogue (the owner's preset ids,
/// an SOP graph's nodes) is built once per distinct set, not once per request.
pub fn schema_once(
    name: &str,
    key: &str,
    build: impl FnOnce() -> serde_json::Value,
) -> ReplySchema {
    static CACHE: LazyLock<Mutex<HashMap<(String, String), ReplySchema>>> =
        LazyLock::new(|| Mutex::new(HashMap::new()));
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache
        .entry((name.to_string(), key.to_string()))
        .or_insert_with(|| ReplySchema {
            name: name.into(),
            schema: Arc::new(build()),
        })
        .clone()
}

/// The messages of a call as `me` heard it: the system prompt, then every turn — `me`'s own as
/// `assistant`, the other side's as `user`.
pub fn transcript(system: String, turns: &[Turn], me: Speaker) -> Vec<ChatMessage> {
    let mut m = Vec::with_capacity(turns.len() + 1);
    m.push(ChatMessage {
        role: "system",
        content: system,
    });
    for t in turns {
        m.push(ChatMessage {
            role: if t.speaker == me { "assistant" } else { "user" },
            content: t.text.clone(),
        });
    }
    m
}

/// The structured-reply agent: one model, one role, one conversation scope.
pub struct Agent<'a, M: ChatModel> {
    model: &'a M,
    role: Role,
    scope: u64,
    max_invalid: u32,
    reask: ReAsk,
    price: Price,
}

impl<'a, M: ChatModel> Agent<'a, M> {
    /// An agent asking `model` for `role`, with no re-ask and [`ReAsk::Same`].
    pub fn new(model: &'a M, role: Role) -> Self {
        Agent {
            model,
            role,
            scope: 0,
            max_invalid: 0,
            reask: ReAsk::Same,
            price: Price::default(),
        }
    }

    /// The conversation's scope in the response cache ([`ChatRequest::scope`]).
    pub fn scope(mut self, scope: u64) -> Self {
        self.scope = scope;
        self
    }

    /// How many times an unusable reply is asked again, and how.
    pub fn reask(mut self, max_invalid: u32, how: ReAsk) -> Self {
        self.max_invalid = max_invalid;
        self.reask = how;
        self
    }

    /// The model's price, for [`MethodUsage::cost`].
    pub fn price(mut self, price: Price) -> Self {
        self.price = price;
        self
    }

    /// The model.
    pub fn model(&self) -> &'a M {
        self.model
    }

    /// Sends `messages` with `schema` and parses the reply with `parse`. An unusable reply is
    /// counted ([`UsageMeter::invalid_reply`](llm_client::UsageMeter::invalid_reply)) and asked
    /// again up to the agent's limit, each time under a new cache nonce; a reply cut short at
    /// `max_tokens` is not asked again (the same limit would cut it again). Requests, tokens and
    /// cost are added to `usage` whether the reply is used or not.
    pub async fn ask<T>(
        &self,
        messages: Vec<ChatMessage>,
        schema: &ReplySchema,
        usage: &mut MethodUsage,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<T, ReplyError> {
        let mut problem = String::new();
        let mut req = ChatRequest {
            role: self.role,
            messages,
            schema: Some(schema.clone()),
            nonce: 0,
            scope: self.scope,
        };
        for nonce in 0..=self.max_invalid {
            req.nonce = nonce;
            let reply = self.model.chat(&req).await.map_err(ReplyError::Chat)?;
            // Cache hits count as requests too: a resumed run reports what a fresh one does.
            usage.requests += 1;
            usage.prompt_tokens += reply.prompt_tokens;
            usage.completion_tokens += reply.completion_tokens;
            usage.cost += (reply.prompt_tokens as f64 * self.price.input_per_million
                + reply.completion_tokens as f64 * self.price.output_per_million)
                / 1e6;
            match parse(&reply.content) {
                Ok(v) => return Ok(v),
                Err(p) if reply.truncated => {
                    self.model.meter().invalid_reply(self.role);
                    return Err(ReplyError::CutShort(p));
                }
                Err(p) => {
                    self.model.meter().invalid_reply(self.role);
                    if self.reask == ReAsk::Correct && nonce < self.max_invalid {
                        req.messages.push(ChatMessage {
                            role: "assistant",
                            content: reply.content.chars().take(2000).collect(),
                        });
                        req.messages.push(ChatMessage {
                            role: "user",
                            content: format!(
                                "上一个回复无法使用：{p}。请按要求的格式重新回答，只输出一个 JSON 对象。"
                            ),
                        });
                    }
                    problem = p;
                }
            }
        }
        Err(ReplyError::Invalid(format!(
            "no valid reply after {} tries: {problem}",
            self.max_invalid + 1
        )))
    }
}

/// A JSON value for a note, at most 40 characters (`missing` for an absent field).
pub(crate) fn short_json(v: &serde_json::Value) -> String {
    if v.is_null() {
        return "missing".into();
    }
    v.to_string().chars().take(40).collect()
}

/// The non-empty trimmed string at `key`, or a problem naming it.
pub(crate) fn required_text<'v>(v: &'v serde_json::Value, key: &str) -> Result<&'v str, String> {
    v[key]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or_else(|| format!("`{key}` is missing or empty"))
}
