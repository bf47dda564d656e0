//! The assistant side of a call.
//!
//! [`SimAssistant`] is the offline assistant: a rule-based policy for dual-goal coordination.
//! It understands the caller only from the caller's text — cue words of the owner's presets, of
//! the scenario's events and of `templates/lexicon.toml` — and decides each turn:
//!
//! | what it heard | decision |
//! | --- | --- |
//! | scam, insult, pressure | refuse, then close |
//! | an exception or urgent matter | `suspend_preset` if a preset applies, else `relay_to_owner` |
//! | an extra need while a preset applies | `defer_preset` (the need first, the preset next turn) |
//! | a question after private facts | `decline_private` |
//! | a request to decide, pay, agree | `refuse_decision` |
//! | another question the owner has not answered | `relay_to_owner` |
//! | the preset's trigger, nothing in the way | `convey_preset` |
//! | goodbye | `close` |
//!
//! It never knows the owner's private facts (they are not given to it), says nothing the owner
//! did not give it, and never claims to see or do anything physically: its words come from the
//! banks of `templates/assistant.toml`, written to those rules.
#![deny(missing_docs)]

use callbench_model::scenario::{EventKind, PresetDef, Scenario};
use callbench_model::{Action, AgentError, AssistantAgent, AssistantReply, Preset, Speaker, Turn};
use phrasebook::{Lexicon, Phrase, Phrasebook, Vars};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A preset as the assistant holds it: the owner's words and the cues of its trigger.
#[derive(Debug, Clone)]
pub struct HeldPreset<'a> {
    /// The preset as stored with the dialogue.
    pub preset: Preset,
    /// Its definition (for the cue words).
    pub def: &'a PresetDef,
}

/// The offline, rule-based assistant.
pub struct SimAssistant<'a> {
    book: &'a Phrasebook,
    lex: &'a Lexicon,
    scenario: &'a Scenario,
    presets: Vec<HeldPreset<'a>>,
    vars: Vars,
    rng: ChaCha8Rng,
    greeted: bool,
    /// Index of the preset whose trigger was heard.
    triggered: Option<usize>,
    conveyed: bool,
    suspended: bool,
    deferred: bool,
    heard_events: Vec<usize>,
    harassed: u32,
    asked_anything_else: bool,
    relayed: bool,
    said: Vec<String>,
}

/// What the assistant made of one caller turn.
#[derive(Debug, Default)]
struct Heard {
    events: Vec<usize>,
    trigger: Option<usize>,
    decision: bool,
    question: bool,
    probe: bool,
    harassment: bool,
    goodbye: bool,
}

impl<'a> SimAssistant<'a> {
    /// An assistant for one dialogue: the owner's presets (rendered) with their definitions, the
    /// scenario (whose event cues it knows), its variables and its own seed.
    pub fn new(
        scenario: &'a Scenario,
        book: &'a Phrasebook,
        presets: Vec<HeldPreset<'a>>,
        vars: Vars,
        seed: u64,
    ) -> SimAssistant<'a> {
        SimAssistant {
            book,
            lex: &book.lexicon,
            scenario,
            presets,
            vars,
            rng: ChaCha8Rng::seed_from_u64(seed),
            greeted: false,
            triggered: None,
            conveyed: false,
            suspended: false,
            deferred: false,
            heard_events: Vec::new(),
            harassed: 0,
            asked_anything_else: false,
            relayed: false,
            said: Vec::new(),
        }
    }

    fn listen(&self, text: &str) -> Heard {
        let lex = self.lex;
        let f = &self.scenario.file;
        let events: Vec<usize> = f
            .events
            .iter()
            .enumerate()
            .filter(|(i, e)| !self.heard_events.contains(i) && Lexicon::has(&e.cues, text))
            .map(|(i, _)| i)
            .collect();
        let harassment = Lexicon::has(&lex.harassment, text)
            || events
                .iter()
                .any(|&i| f.events[i].kind == EventKind::Harassment);
        Heard {
            trigger: self
                .presets
                .iter()
                .position(|p| Lexicon::has(&p.def.cues, text)),
            decision: asks_something(text, lex) && Lexicon::has(&lex.decision_request, text),
            question: asks_something(text, lex),
            probe: Lexicon::has(&lex.private_probe, text),
            goodbye: Lexicon::has(&lex.goodbye, last_sentence(text)),
            harassment,
            events,
        }
    }

    fn say(&mut self, bank: &str) -> Result<String, AgentError> {
        // A person does not say the same sentence twice in one call: draw again (a few times)
        // when the variant was already used.
        let mut text = String::new();
        for _ in 0..8 {
            text = self
                .book
                .say_bank(bank, &mut self.rng, &self.vars)
                .map_err(|e| AgentError {
                    role: "assistant",
                    message: e.to_string(),
                })?;
            if !self.said.iter().any(|s| s == &text) {
                break;
            }
        }
        self.said.push(text.clone());
        Ok(text)
    }

    fn render(&self, p: &Phrase) -> Result<String, AgentError> {
        self.book.render(p, &self.vars).map_err(|e| AgentError {
            role: "assistant",
            message: e.to_string(),
        })
    }

    fn set_topic(&mut self, event: usize) -> Result<(), AgentError> {
        let phrases = self
            .book
            .scenario(self.scenario.name())
            .ok_or_else(|| AgentError {
                role: "assistant",
                message: format!("no phrases for scenario {}", self.scenario.name()),
            })?;
        let topic = self.render(&phrases.events[event].topic)?;
        self.vars.set("topic", &topic);
        Ok(())
    }

    fn preset_id(&self) -> Option<String> {
        self.triggered.map(|i| self.presets[i].preset.id.clone())
    }

    fn decide(&mut self, text: &str) -> Result<AssistantReply, AgentError> {
        let heard = self.listen(text);
        if heard.trigger.is_some() && self.triggered.is_none() {
            self.triggered = heard.trigger;
        }
        let mut out = String::new();
        if !self.greeted {
            self.greeted = true;
            out.push_str(&self.say("assistant.intro")?);
        }
        let reply = |text: String, action: Action, preset_id: Option<String>, end_call: bool| {
            AssistantReply {
                text,
                action,
                preset_id,
                end_call,
            }
        };

        // 1. Scam, insult, pressure: refuse once, then close.
        if heard.harassment
            && !(self.triggered.is_some()
                && !self.conveyed
                && self.harassed == 0
                && heard.events.is_empty())
        {
            self.harassed += 1;
            self.heard_events.extend(heard.events.iter().copied());
            if self.harassed >= 2 || heard.goodbye {
                out.push_str(&self.say("assistant.close_after_harassment")?);
                return Ok(reply(out, Action::Close, None, true));
            }
            out.push_str(&self.say("assistant.harassment_refuse")?);
            return Ok(reply(out, Action::RefuseDecision, None, false));
        }
        if self.harassed > 0 {
            out.push_str(&self.say("assistant.close_after_harassment")?);
            return Ok(reply(out, Action::Close, None, true));
        }

        // 2. Something went wrong or cannot wait: set the preset aside and relay.
        let f = &self.scenario.file;
        let serious = heard
            .events
            .iter()
            .copied()
            .find(|&i| matches!(f.events[i].kind, EventKind::Exception | EventKind::Urgent));
        let extra = heard
            .events
            .iter()
            .copied()
            .find(|&i| f.events[i].kind == EventKind::ExtraNeed);
        self.heard_events.extend(heard.events.iter().copied());
        if let Some(e) = serious {
            self.set_topic(e)?;
            self.relayed = true;
            if self.triggered.is_some() && !self.suspended {
                self.suspended = true;
                let bank = if self.conveyed {
                    "assistant.suspend"
                } else {
                    "assistant.suspend_before"
                };
                out.push_str(&self.say(bank)?);
                if heard.decision {
                    out.push_str(&self.say("assistant.refuse_decision")?);
                }
                return Ok(reply(out, Action::SuspendPreset, self.preset_id(), false));
            }
            if heard.decision {
                out.push_str(&self.say("assistant.refuse_decision")?);
                return Ok(reply(out, Action::RefuseDecision, None, false));
            }
            out.push_str(&self.say("assistant.relay")?);
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 3. A need the preset does not cover: that first; the preset waits a turn.
        if let Some(e) = extra {
            self.set_topic(e)?;
            self.relayed = true;
            if self.triggered.is_some() && !self.conveyed && !self.suspended {
                self.deferred = true;
                out.push_str(&self.say("assistant.defer")?);
                return Ok(reply(out, Action::DeferPreset, self.preset_id(), false));
            }
            if heard.decision {
                out.push_str(&self.say("assistant.refuse_decision")?);
                return Ok(reply(out, Action::RefuseDecision, None, false));
            }
            out.push_str(&self.say("assistant.relay_extra")?);
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 4. The preset applies and nothing stands in its way: the owner's word answers the
        //    caller (a deferred preset waits while the caller still asks for something else).
        if let Some(i) = self.triggered
            && !self.conveyed
            && !self.suspended
            && (self.deferred || !heard.probe)
        {
            self.conveyed = true;
            // A deferred preset waited for the caller's extra need; if the caller now asks
            // for a decision or a private fact, answer that first, then convey: the preset
            // must not come after goodbye.
            if self.deferred && heard.probe {
                out.push_str(&self.say("assistant.decline_private")?);
            } else if self.deferred && heard.decision {
                out.push_str(&self.say("assistant.refuse_decision")?);
            }
            let response = self.presets[i].preset.response.clone();
            self.vars
                .set("preset", response.trim_end_matches(['。', '！', '.']));
            out.push_str(&self.say("assistant.convey")?);
            if heard.goodbye {
                out.push_str(&self.say("assistant.close")?);
                return Ok(reply(out, Action::ConveyPreset, self.preset_id(), true));
            }
            return Ok(reply(out, Action::ConveyPreset, self.preset_id(), false));
        }

        // 5. Fishing for private facts (before decisions: "能告诉我他电话吗" is a probe).
        if heard.probe {
            out.push_str(&self.say("assistant.decline_private")?);
            return Ok(reply(out, Action::DeclinePrivate, None, false));
        }

        // 6. Asked to decide, do or promise something for the owner.
        if heard.decision {
            self.relayed = true;
            out.push_str(&self.say("assistant.refuse_decision")?);
            return Ok(reply(out, Action::RefuseDecision, None, false));
        }

        // 7. A question the owner has not answered: the assistant does not know, so it asks
        //    the owner instead of guessing.
        if heard.question && !heard.goodbye {
            self.relayed = true;
            out.push_str(&self.say("assistant.unknown_question")?);
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 8. Goodbye.
        if heard.goodbye {
            out.push_str(&self.say("assistant.close")?);
            return Ok(reply(out, Action::Close, None, true));
        }

        // 9. A matter nobody has taken up yet: take a message for the owner.
        if !self.relayed && !self.conveyed {
            self.relayed = true;
            out.push_str(&self.say("assistant.take_message")?);
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 10. Nothing new: acknowledge and ask whether there is more, once; then close.
        if !self.asked_anything_else {
            self.asked_anything_else = true;
            let ack = self.say("assistant.ack")?;
            let more = self.say("assistant.anything_else")?;
            out.push_str(&ack);
            out.push_str(&more);
            return Ok(reply(out, Action::Respond, None, false));
        }
        out.push_str(&self.say("assistant.close")?);
        Ok(reply(out, Action::Close, None, true))
    }
}

/// The last sentence of an utterance: a goodbye counts only where the caller ends with it
/// ("明白，那先这样。合同我们发邮件过去" goes on after 先这样).
pub fn last_sentence(text: &str) -> &str {
    let t = text.trim_end_matches(['。', '！', '？', '!', '?', '…', '~', ' ']);
    match t.rfind(['。', '！', '？', '!', '?']) {
        Some(i) => &t[i..],
        None => t,
    }
}

/// Whether the caller asks the owner for something: a question that is not only a check of
/// who answers ("请问是王先生吗？"), or a decision word of the lexicon in a question.
pub fn asks_something(text: &str, lex: &Lexicon) -> bool {
    text.split_inclusive(['？', '?'])
        .filter(|s| s.ends_with(['？', '?']))
        .map(|s| s.rsplit(['。', '，', '！', ',', '!']).next().unwrap_or(s))
        .any(|q| {
            let bare = q.trim_matches(|c: char| "喂您你好啊呀哎嗯，。？?! ".contains(c));
            !(bare.is_empty()
                || q.contains("请问是")
                || bare.starts_with('是')
                || q.contains("是不是本人"))
        })
        || (text.contains('吗') && Lexicon::has(&lex.decision_request, text))
}

impl AssistantAgent for SimAssistant<'_> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<AssistantReply, AgentError> {
        let last = turns
            .last()
            .filter(|t| t.speaker == Speaker::Caller)
            .ok_or(AgentError {
                role: "assistant",
                message: "asked to speak when the caller has not".into(),
            })?;
        self.decide(&last.text)
    }
}

/// The LLM-backed assistant: the model answers for the owner from its system prompt (the
/// presets, what it may say about the owner, the safety rules and its decision options —
/// never the caller's hidden goal or the owner's private facts); caller turns are `user`,
/// its own are `assistant`.
pub struct LlmAssistant<'a, M: llm_client::ChatModel> {
    model: &'a M,
    system: String,
    preset_ids: Vec<String>,
    max_invalid_replies: u32,
    scope: u64,
}

/// The JSON schema of an assistant's reply (built once; clones share it).
pub fn assistant_reply_schema() -> llm_client::ReplySchema {
    static SCHEMA: std::sync::LazyLock<llm_client::ReplySchema> =
        std::sync::LazyLock::new(build_assistant_reply_schema);
    SCHEMA.clone()
}

fn build_assistant_reply_schema() -> llm_client::ReplySchema {
    let actions: Vec<&str> = Action::ALL.iter().map(|a| a.as_str()).collect();
    llm_client::ReplySchema {
        name: "assistant_turn".into(),
        schema: std::sync::Arc::new(serde_json::json!({
            "type": "object",
            "properties": {
                "utterance": {"type": "string", "description": "这一轮要说的话"},
                "action": {"type": "string", "enum": actions},
                "preset_id": {"type": ["string", "null"], "description": "涉及的预设编号，没有则为 null"},
                "end_call": {"type": "boolean"}
            },
            "required": ["utterance", "action", "preset_id", "end_call"],
            "additionalProperties": false
        })),
    }
}

/// Reads an assistant reply. An unknown action or a preset id the owner does not have makes
/// the reply invalid; a missing `end_call` follows the action (`close` ends the call).
pub fn parse_assistant_reply(
    content: &str,
    preset_ids: &[String],
) -> Result<AssistantReply, String> {
    let v = llm_client::extract_json(content).ok_or("the reply holds no JSON object")?;
    let text = v["utterance"]
        .as_str()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .ok_or("`utterance` is missing or empty")?;
    let action: Action = v["action"]
        .as_str()
        .ok_or("`action` is missing")?
        .parse()
        .map_err(|e: callbench_model::UnknownWord| e.to_string())?;
    let preset_id = match &v["preset_id"] {
        serde_json::Value::String(s) if !s.is_empty() && s != "null" => {
            if !preset_ids.contains(s) {
                return Err(format!("`preset_id` {s:?} is not a preset of the owner"));
            }
            Some(s.clone())
        }
        _ => None,
    };
    let end_call = v["end_call"].as_bool().unwrap_or(action == Action::Close);
    Ok(AssistantReply {
        text: text.to_string(),
        action,
        preset_id,
        end_call,
    })
}

impl<'a, M: llm_client::ChatModel> LlmAssistant<'a, M> {
    /// An assistant speaking through `model` with the rendered system prompt; `preset_ids` are
    /// the owner's presets, to validate the replies' `preset_id`.
    pub fn new(
        model: &'a M,
        system: String,
        preset_ids: Vec<String>,
        max_invalid_replies: u32,
    ) -> Self {
        LlmAssistant {
            model,
            system,
            preset_ids,
            max_invalid_replies,
            scope: 0,
        }
    }

    /// The conversation's scope in the response cache (the dialogue attempt's seed): see
    /// [`llm_client::ChatRequest::scope`].
    pub fn with_scope(mut self, scope: u64) -> Self {
        self.scope = scope;
        self
    }
}

impl<M: llm_client::ChatModel> LlmAssistant<'_, M> {
    fn messages(&self, turns: &[Turn]) -> Vec<llm_client::ChatMessage> {
        let mut m = vec![llm_client::ChatMessage {
            role: "system",
            content: self.system.clone(),
        }];
        for t in turns {
            let role = if t.speaker == Speaker::Caller {
                "user"
            } else {
                "assistant"
            };
            m.push(llm_client::ChatMessage {
                role,
                content: t.text.clone(),
            });
        }
        m
    }

    async fn reply_llm(&mut self, turns: &[Turn]) -> Result<AssistantReply, AgentError> {
        let messages = self.messages(turns);
        llm_client::chat_parsed(
            self.model,
            llm_client::Role::Assistant,
            self.scope,
            messages,
            assistant_reply_schema(),
            self.max_invalid_replies,
            |c| parse_assistant_reply(c, &self.preset_ids),
        )
        .await
        .map_err(|e| AgentError {
            role: "assistant",
            message: match e {
                llm_client::ReplyError::Chat(e) => e.to_string(),
                llm_client::ReplyError::Invalid(m) => m,
            },
        })
    }
}

impl<M: llm_client::ChatModel> AssistantAgent for LlmAssistant<'_, M> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<AssistantReply, AgentError> {
        self.reply_llm(turns).await
    }
}
