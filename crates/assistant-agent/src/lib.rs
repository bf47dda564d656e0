//! The assistant side of a call.
//!
//! [`SimAssistant`] is the offline assistant: a rule-based policy for dual-goal coordination.
//! It understands the caller only from the caller's text — cue words of the owner's presets, of
//! the scenario's events and of `templates/lexicon.toml` — and decides each turn:
//!
//! | what it heard | decision |
//! | --- | --- |
//! | a request only a scam makes (a code, a password, a transfer) | refuse, always, then close |
//! | scam, insult, threat | refuse, then close |
//! | pressure against a preset that applies (a deadline, a penalty) | `hold_preset` |
//! | an exception or urgent matter (a new fact) | `suspend_preset` if a preset applies, else `relay_to_owner` |
//! | an offer that commits the owner to nothing | accept it (`respond`) |
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

use callbench_model::concepts::concepts;
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
    /// Brushes the caller off (a seller, a scammer): once said, their pitch is not relayed on.
    pub brush_off: bool,
    /// Written to turn a kind of caller away (concept `protective`): the owner's own refusal,
    /// said beside the assistant's when a scammer asks for a code.
    pub protective: bool,
}

impl<'a> HeldPreset<'a> {
    /// A preset as the assistant holds it; whether it brushes the caller off is read from its
    /// words (the shared concept `brush_off` of `callbench_model::concepts`).
    pub fn new(preset: Preset, def: &'a PresetDef) -> HeldPreset<'a> {
        let brush_off = Lexicon::has(&concepts().brush_off, &preset.response);
        let protective = Lexicon::has(&concepts().protective, &preset.response)
            || Lexicon::has(&concepts().protective_in_response, &preset.response)
            || Lexicon::has(&concepts().protective, &preset.trigger);
        HeldPreset {
            preset,
            def,
            brush_off,
            protective,
        }
    }
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
    /// The preset was held against pressure once: a second push winds the call up.
    held: bool,
    /// The pressure event the preset was held against, if a caller in real trouble can bring
    /// it (`real_trouble`): the call that ends on a second push relays it to the owner.
    held_trouble: Option<usize>,
    /// A decision was refused once: a second refusal points back to it.
    refused: bool,
    /// A further detail of the caller's matter was noted once.
    said_more: bool,
    heard_events: Vec<usize>,
    harassed: u32,
    asked_anything_else: bool,
    relayed: bool,
    /// A scam's story was heard (an account frozen, an anomaly): relays add, once, that the owner
    /// checks such things through official channels.
    scam_story: bool,
    official_said: bool,
    /// The character bigrams of every line said so far (see [`close_wording`]).
    said: Vec<Vec<(char, char)>>,
}

/// Greetings the intro already said; a bank drawn right after the intro drops them, so that the
/// first turn does not greet twice ("您好，我是…助理。您好，…交代了").
const GREETINGS: &[&str] = &[
    "喂，您好，",
    "您好您好，",
    "您好，",
    "你好，",
    "喂，",
    "您好",
];

/// What the assistant made of one caller turn.
#[derive(Debug, Default)]
struct Heard {
    events: Vec<usize>,
    trigger: Option<usize>,
    decision: bool,
    question: bool,
    probe: bool,
    harassment: bool,
    scam: bool,
    offer: bool,
    callback: bool,
    goodbye: bool,
    /// Wants the owner in person, or asks who answers.
    owner_demand: bool,
    /// Asks that a message reach the owner.
    message: bool,
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
            held: false,
            held_trouble: None,
            refused: false,
            said_more: false,
            heard_events: Vec::new(),
            harassed: 0,
            asked_anything_else: false,
            relayed: false,
            scam_story: false,
            official_said: false,
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
        let question = asks_something(text, lex);
        // A private fact the scenario declares ("医保卡号" in a hospital's calls) is asked as
        // such: declined as private, not refused as a scammer's request for a card number.
        let declared_fact = f.private_facts.iter().any(|p| Lexicon::has(&p.cues, text));
        Heard {
            // The sim caller never warns ("别把验证码告诉别人"): a scam word is a request.
            scam: (Lexicon::has(&concepts().scam_request, text)
                || concepts().transfer_asked(text).is_some())
                && !declared_fact,
            // Only in the last sentence, what the caller asks now: "快接近了我再打一个。您看走快速路
            // 还是走市区？" asks the route, not the offer; nor after a question ("她几点有空？我再打
            // 过来" asks the time) — as the quality checker reads it.
            offer: question && {
                // (The last sentence starts at the mark that ends the one before.)
                let last = last_sentence(text);
                let start = last.as_ptr() as usize - text.as_ptr() as usize;
                Lexicon::has(&concepts().offer, last)
                    && !text[..start].contains(['？', '?'])
                    && !last.starts_with(['？', '?'])
            },
            // Only where the question itself asks it: "好的，让她方便的时候回我一下。您看可以吗？"
            // acknowledges with a callback wish and then asks for something else.
            // Or where the turn ends on it, a request in its own right ("她几点有空？麻烦约个
            // 时间回电"), short of a goodbye.
            callback: asked_in_question(text, &concepts().callback_request)
                || (Lexicon::has(&concepts().callback_request, last_sentence(text))
                    && !Lexicon::has(&lex.goodbye, last_sentence(text))),
            // A cue said and denied ("我还没到楼下呢") is no trigger.
            trigger: self
                .presets
                .iter()
                .position(|p| lex.affirms(&p.def.cues, text)),
            decision: asks_something(text, lex) && Lexicon::has(&lex.decision_request, text),
            question: asks_something(text, lex),
            // The shared probe words, and those of the private facts the scenario declares
            // ("什么病" in a hospital's calls).
            probe: Lexicon::has(&lex.private_probe, text) || declared_fact,
            goodbye: Lexicon::has(&lex.goodbye, last_sentence(text)),
            owner_demand: Lexicon::has(&concepts().owner_demand, text),
            // In the question itself, as for a callback wish.
            message: asked_in_question(text, &concepts().message_request),
            harassment,
            events,
        }
    }

    /// After a scam's story, once: the owner checks such things through official channels.
    fn official(&mut self, out: &mut String) -> Result<(), AgentError> {
        if self.scam_story && !self.official_said {
            self.official_said = true;
            out.push_str(&self.say("assistant.official_channel")?);
        }
        Ok(())
    }

    /// Appends a bank's line to the turn; right after the intro, without a greeting of its own.
    fn add(&mut self, out: &mut String, bank: &str) -> Result<(), AgentError> {
        let line = self.say(bank)?;
        let line = if out.is_empty() {
            line.as_str()
        } else {
            GREETINGS
                .iter()
                .find_map(|g| line.strip_prefix(g))
                .filter(|rest| !rest.is_empty())
                .unwrap_or(&line)
        };
        out.push_str(line);
        Ok(())
    }

    fn set_preset(&mut self, i: usize) {
        let response = self.presets[i].preset.response.clone();
        self.vars
            .set("preset", response.trim_end_matches(['。', '！', '.']));
    }

    fn say(&mut self, bank: &str) -> Result<String, AgentError> {
        // A second refusal points back to the first instead of saying it again.
        let bank = if bank == "assistant.refuse_decision" {
            if self.refused {
                "assistant.refuse_again"
            } else {
                self.refused = true;
                bank
            }
        } else {
            bank
        };
        // A person does not say the same thing twice in one call: draw again (a few times) when
        // the wording is the same as, or close to, one already said — composed banks share parts.
        let mut text = String::new();
        let mut bigrams = Vec::new();
        for _ in 0..8 {
            text = self
                .book
                .say_bank(bank, &mut self.rng, &self.vars)
                .map_err(|e| AgentError {
                    role: "assistant",
                    message: e.to_string(),
                })?;
            bigrams = wording_bigrams(&text);
            if !self.said.iter().any(|s| close_wording(s, &bigrams)) {
                break;
            }
        }
        self.said.push(bigrams);
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

    /// Whether pressure event `e` is a caller's real trouble: some goal it comes with belongs to
    /// a caller the owner does not turn away (a driver's breakdown, not a seller's deadline or a
    /// scammer's threat). Read from the scenario, not from the caller of this call.
    fn real_trouble(&self, e: usize) -> bool {
        let f = &self.scenario.file;
        f.goals
            .iter()
            .filter(|g| f.events[e].goals.is_empty() || f.events[e].goals.contains(&g.id))
            .flat_map(|g| {
                f.roles
                    .iter()
                    .filter(move |r| g.roles.is_empty() || g.roles.contains(&r.id))
            })
            .any(|r| !r.unwanted)
    }

    /// The call winds up after a second push: a caller's real trouble held against is relayed.
    fn hold_close(&mut self, out: &mut String) -> Result<(), AgentError> {
        match self.held_trouble {
            Some(e) if !self.scam_story => {
                self.set_topic(e)?;
                self.add(out, "assistant.hold_close_relay")
            }
            _ => self.add(out, "assistant.hold_close"),
        }
    }

    /// Holds preset `i` against a further push once, briefly; a second push ends the call.
    fn hold_again(&mut self, mut out: String, i: usize) -> Result<AssistantReply, AgentError> {
        self.set_preset(i);
        if self.held {
            self.hold_close(&mut out)?;
            return Ok(AssistantReply {
                text: out,
                action: Action::Close,
                preset_id: None,
                end_call: true,
            });
        }
        self.held = true;
        self.add(&mut out, "assistant.hold")?;
        Ok(AssistantReply {
            text: out,
            action: Action::HoldPreset,
            preset_id: self.preset_id(),
            end_call: false,
        })
    }

    /// Whether a preset that turns this caller away (a brush-off, a protective one) has been
    /// said and stands: nothing further is offered to pass on.
    fn turned_away(&self) -> bool {
        self.triggered.is_some_and(|i| {
            self.conveyed
                && !self.suspended
                && (self.presets[i].brush_off || self.presets[i].protective)
        })
    }

    fn preset_id(&self) -> Option<String> {
        self.triggered.map(|i| self.presets[i].preset.id.clone())
    }

    fn decide(&mut self, text: &str) -> Result<AssistantReply, AgentError> {
        let heard = self.listen(text);
        // A scam's story about money (not a test result's 指标异常).
        self.scam_story |= Lexicon::has(&concepts().scam_story, text)
            && (Lexicon::has(&concepts().account, text) || text.contains("银行"));
        if heard.trigger.is_some() && self.triggered.is_none() {
            self.triggered = heard.trigger;
        }
        let mut out = String::new();
        let first = !self.greeted;
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
        // The scenario outlives the assistant: copying the reference out keeps `self` free.
        let scenario: &'a Scenario = self.scenario;
        let f = &scenario.file;
        let kind_heard = |k: EventKind| {
            heard
                .events
                .iter()
                .copied()
                .find(|&i| f.events[i].kind == k)
        };
        let pressure = kind_heard(EventKind::Pressure);

        // A lone check of who answers ("喂，请问是王先生吗？"): nothing to act on yet; ask what
        // it is about.
        if first
            && identity_check_only(text, self.lex)
            && heard.trigger.is_none()
            && heard.events.is_empty()
            && !heard.probe
            && !heard.scam
            && !heard.harassment
        {
            self.add(&mut out, "assistant.ask_purpose")?;
            return Ok(reply(out, Action::Respond, None, false));
        }

        // 0. A request only a scam makes (a code, a password, a transfer): refused, whatever
        //    else was said. A protective preset that applies is the owner's own refusal: it is
        //    said too (a clinic's "请发短信通知" is no answer to a request for a card number).
        if heard.scam {
            self.harassed += 1;
            self.heard_events.extend(heard.events.iter().copied());
            self.add(&mut out, "assistant.refuse_scam")?;
            if let Some(i) = self.triggered
                && self.presets[i].protective
            {
                let (action, bank) = if self.conveyed {
                    (Action::HoldPreset, "assistant.hold")
                } else {
                    (Action::ConveyPreset, "assistant.hold_before")
                };
                self.conveyed = true;
                self.held = true;
                self.set_preset(i);
                out.push_str(&self.say(bank)?);
                return Ok(reply(out, action, self.preset_id(), heard.goodbye));
            }
            if heard.goodbye {
                out.push_str(&self.say("assistant.close_after_harassment")?);
                return Ok(reply(out, Action::Close, None, true));
            }
            return Ok(reply(out, Action::RefuseDecision, None, false));
        }

        // 1. Pressure against a preset that applies (a deadline, a penalty, a threat): the
        //    preset exists for exactly this, so it is held — restated, never set aside.
        if let (Some(e), Some(i)) = (pressure, self.triggered) {
            self.heard_events.extend(heard.events.iter().copied());
            self.set_topic(e)?;
            self.set_preset(i);
            if self.real_trouble(e) {
                self.held_trouble = Some(e);
            }
            if self.held {
                self.hold_close(&mut out)?;
                return Ok(reply(out, Action::Close, None, true));
            }
            self.held = true;
            let bank = if self.conveyed {
                "assistant.hold"
            } else {
                "assistant.hold_before"
            };
            self.conveyed = true;
            self.add(&mut out, bank)?;
            if heard.goodbye {
                out.push_str(&self.say("assistant.close")?);
                return Ok(reply(out, Action::HoldPreset, self.preset_id(), true));
            }
            return Ok(reply(out, Action::HoldPreset, self.preset_id(), false));
        }

        // 2. Scam, insult, threat: refuse once, then close.
        if heard.harassment
            && !(self.triggered.is_some()
                && !self.conveyed
                && self.harassed == 0
                && heard.events.is_empty())
        {
            self.harassed += 1;
            self.heard_events.extend(heard.events.iter().copied());
            if self.harassed >= 2 || heard.goodbye {
                self.add(&mut out, "assistant.close_after_harassment")?;
                return Ok(reply(out, Action::Close, None, true));
            }
            self.add(&mut out, "assistant.harassment_refuse")?;
            return Ok(reply(out, Action::RefuseDecision, None, false));
        }
        if self.harassed > 0 {
            self.add(&mut out, "assistant.close_after_harassment")?;
            return Ok(reply(out, Action::Close, None, true));
        }

        // 3. Something went wrong or cannot wait (a new fact that makes the preset wrong): set
        //    the preset aside and relay. Pressure with no preset to hold is relayed the same way.
        let serious = heard.events.iter().copied().find(|&i| {
            matches!(
                f.events[i].kind,
                EventKind::Exception | EventKind::Urgent | EventKind::Pressure
            )
        });
        let extra = kind_heard(EventKind::ExtraNeed);
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
                self.add(&mut out, bank)?;
                if heard.decision && !heard.offer {
                    out.push_str(&self.say("assistant.refuse_decision")?);
                }
                return Ok(reply(out, Action::SuspendPreset, self.preset_id(), false));
            }
            if heard.decision && !heard.offer {
                self.add(&mut out, "assistant.refuse_decision")?;
                return Ok(reply(out, Action::RefuseDecision, None, false));
            }
            self.add(&mut out, "assistant.relay")?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 4. A need the preset does not cover: that first; the preset waits a turn. A preset
        //    that brushes the caller off covers every further need of theirs: it is said (or
        //    held), and nothing goes to the owner.
        if extra.is_some()
            && let Some(i) = self.triggered
            && (self.presets[i].brush_off || self.presets[i].protective)
            && !self.suspended
        {
            self.set_preset(i);
            if !self.conveyed {
                self.conveyed = true;
                self.add(&mut out, "assistant.convey")?;
                return Ok(reply(
                    out,
                    Action::ConveyPreset,
                    self.preset_id(),
                    heard.goodbye,
                ));
            }
            return self.hold_again(out, i);
        }
        if let Some(e) = extra {
            self.set_topic(e)?;
            self.relayed = true;
            let waiting = self.triggered.is_some() && !self.conveyed && !self.suspended;
            if waiting && !self.deferred {
                self.deferred = true;
                self.add(&mut out, "assistant.defer")?;
                return Ok(reply(out, Action::DeferPreset, self.preset_id(), false));
            }
            if waiting {
                // Deferred once already ("还有件事跟您说"): this need is noted too and the owner's
                // word follows now (step 5) — a second deferral would promise it again unsaid.
                self.add(&mut out, "assistant.take_more")?;
            } else {
                // A call back asked for ("能让她那时候回电话吗？") is passed on, as in 7b — a
                // wish for the owner's call is no decision to refuse.
                if heard.callback {
                    self.add(&mut out, "assistant.relay_callback")?;
                    return Ok(reply(out, Action::RelayToOwner, None, false));
                }
                if heard.decision && !heard.offer {
                    self.add(&mut out, "assistant.refuse_decision")?;
                    return Ok(reply(out, Action::RefuseDecision, None, false));
                }
                self.add(&mut out, "assistant.relay_extra")?;
                return Ok(reply(out, Action::RelayToOwner, None, false));
            }
        }

        // 5. The preset applies and nothing stands in its way: the owner's word answers the
        //    caller. A deferred preset that waited for the caller's extra need comes now even if
        //    the caller asks for a decision or a private fact meanwhile — the owner's word first,
        //    the refusal after it (a refusal in front of a convey reads as refusing the preset),
        //    and never after goodbye.
        if let Some(i) = self.triggered
            && !self.conveyed
            && !self.suspended
            && (self.deferred || !heard.probe)
        {
            self.conveyed = true;
            self.set_preset(i);
            let bank = if self.deferred {
                "assistant.convey_deferred"
            } else {
                "assistant.convey"
            };
            self.add(&mut out, bank)?;
            if self.deferred && heard.probe {
                out.push_str(&self.say("assistant.decline_private")?);
            } else if self.deferred && heard.message {
                // A message or a call back asked for is passed on, as in 7a/7b — never refused.
                out.push_str(&self.say("assistant.relay_message")?);
            } else if self.deferred && heard.callback {
                out.push_str(&self.say("assistant.relay_callback")?);
            } else if self.deferred && heard.offer {
                // An offer that binds the owner to nothing is taken, as in 7 — not talked over.
                out.push_str(&self.say("assistant.accept_offer")?);
            } else if self.deferred && heard.decision && !heard.offer {
                out.push_str(&self.say("assistant.refuse_decision")?);
            }
            if heard.goodbye {
                out.push_str(&self.say("assistant.close")?);
                return Ok(reply(out, Action::ConveyPreset, self.preset_id(), true));
            }
            return Ok(reply(out, Action::ConveyPreset, self.preset_id(), false));
        }

        // 5a. The caller wants the owner in person or asks who answers ("让她本人接！", "你是
        //     机器人吧？"): who the assistant is, and that the owner cannot come to the phone —
        //     with no invitation to go on after a preset that turns this caller away.
        if heard.owner_demand && !heard.goodbye && !heard.probe {
            let bank = if self.turned_away() {
                "assistant.owner_unavailable_firm"
            } else {
                "assistant.owner_unavailable"
            };
            self.add(&mut out, bank)?;
            return Ok(reply(out, Action::Respond, None, false));
        }

        // 5b. A preset that turns this caller away was said, and the caller pushes on with the
        //     pitch ("我现在就给您提交申请吧？"): nothing is relayed to the owner; the preset is
        //     held once, briefly, and a second push ends the call.
        if let Some(i) = self.triggered
            && self.conveyed
            && !self.suspended
            && (self.presets[i].brush_off || self.presets[i].protective)
            && (heard.decision || heard.question)
            && !heard.probe
            && !heard.offer
            && !heard.goodbye
        {
            return self.hold_again(out, i);
        }

        // 6. Fishing for private facts (before decisions: "能告诉我他电话吗" is a probe).
        if heard.probe {
            // After a preset that turns this caller away, no offer to pass anything on.
            let bank = if self.turned_away() {
                "assistant.decline_private_firm"
            } else {
                "assistant.decline_private"
            };
            self.add(&mut out, bank)?;
            return Ok(reply(out, Action::DeclinePrivate, None, false));
        }

        // 7. An offer that commits the owner to nothing ("有啥情况我给您发个消息，行吗？") is
        //    taken with thanks; refusing it as a decision would be absurd on a real call.
        if heard.offer {
            self.relayed = true;
            self.add(&mut out, "assistant.accept_offer")?;
            return Ok(reply(out, Action::Respond, None, false));
        }

        // 7a. Asked that a message reach the owner ("这话能帮我带到吧？"): yes, it will — unless
        //     the owner's preset turns this caller away (5b held it above).
        if heard.message && !heard.probe {
            self.relayed = true;
            self.add(&mut out, "assistant.relay_message")?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 7b. Asked that the owner get back to them: passed on, not refused.
        if heard.callback {
            self.relayed = true;
            self.add(&mut out, "assistant.relay_callback")?;
            self.official(&mut out)?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 8. Asked to decide, do or promise something for the owner.
        if heard.decision {
            self.relayed = true;
            self.add(&mut out, "assistant.refuse_decision")?;
            return Ok(reply(out, Action::RefuseDecision, None, false));
        }

        // 9. A question the owner has not answered: the assistant does not know, so it asks
        //    the owner instead of guessing.
        if heard.question && !heard.goodbye {
            self.relayed = true;
            self.add(&mut out, "assistant.unknown_question")?;
            self.official(&mut out)?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 10. Goodbye. After a preset was held against a push, the goodbye is plain: a "行，…"
        //     there could be heard as yielding after all. "请不要再打来了" only to a caller the
        //     owner turns away, never to a driver held to the owner's instruction.
        if heard.goodbye {
            let brushed_off = self.triggered.is_some_and(|i| self.presets[i].brush_off);
            let bank = if self.held && (brushed_off || self.harassed > 0) {
                "assistant.close_after_harassment"
            } else if self.held {
                "assistant.close_after_hold"
            } else {
                "assistant.close"
            };
            self.add(&mut out, bank)?;
            return Ok(reply(out, Action::Close, None, true));
        }

        // 11. A matter nobody has taken up yet: take a message for the owner.
        if !self.relayed && !self.conveyed {
            self.relayed = true;
            self.add(&mut out, "assistant.take_message")?;
            self.official(&mut out)?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 11b. Something more about the matter ("房租想在两千五的基础上加两百"): noted for the owner
        //      too — hanging up on it would leave the caller's matter open.
        //      A seller's further pitch after the owner's brush-off ("名额有限，好多人都抢了")
        //      is no detail for the owner: the preset answers it, held once, then the call ends.
        if says_more(text, self.lex)
            && let Some(i) = self.triggered
            && self.conveyed
            && !self.suspended
            && (self.presets[i].brush_off || self.presets[i].protective)
        {
            return self.hold_again(out, i);
        }
        if !self.said_more && says_more(text, self.lex) {
            self.said_more = true;
            self.add(&mut out, "assistant.take_more")?;
            return Ok(reply(out, Action::RelayToOwner, None, false));
        }

        // 12. Nothing new: acknowledge and ask whether there is more, once; then close.
        if !self.asked_anything_else {
            self.asked_anything_else = true;
            self.add(&mut out, "assistant.ack")?;
            out.push_str(&self.say("assistant.anything_else")?);
            return Ok(reply(out, Action::Respond, None, false));
        }
        self.add(&mut out, "assistant.close")?;
        Ok(reply(out, Action::Close, None, true))
    }
}

/// Whether one of `words` is in a question of the turn itself (the clause that ends in ？), not in
/// an acknowledgement before it.
fn asked_in_question(text: &str, words: &[String]) -> bool {
    text.split_inclusive(['？', '?'])
        .filter(|q| q.ends_with(['？', '?']))
        .map(|q| q.rsplit(['。', '！', '!']).next().unwrap_or(q))
        .any(|q| Lexicon::has(words, q))
}

/// The distinct character bigrams of a line, punctuation left out, sorted.
fn wording_bigrams(s: &str) -> Vec<(char, char)> {
    let c: Vec<char> = s
        .chars()
        .filter(|c| !c.is_ascii_punctuation() && !"，。？！、".contains(*c))
        .collect();
    let mut v: Vec<(char, char)> = c.windows(2).map(|w| (w[0], w[1])).collect();
    v.sort_unstable();
    v.dedup();
    v
}

/// Whether two wordings (their [`wording_bigrams`]) are the same or close: at least half of the
/// shorter one's bigrams are in the other (a listener hears that as saying it again).
fn close_wording(x: &[(char, char)], y: &[(char, char)]) -> bool {
    if x == y {
        return true;
    }
    let (short, long) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    if short.len() < 4 {
        return false;
    }
    let shared = short
        .iter()
        .filter(|g| long.binary_search(g).is_ok())
        .count();
    shared * 2 >= short.len()
}

/// Whether the caller's last sentence says something of substance rather than only
/// acknowledging ("好的。", "行，没问题。"): a detail of the matter that the owner should hear.
fn says_more(text: &str, lex: &Lexicon) -> bool {
    let last = last_sentence(text).trim_start_matches(['。', '！', '？', '，', ' ']);
    let bare: String = last
        .chars()
        .filter(|c| !"，。！？、 ~…".contains(*c))
        .collect();
    let mut rest = bare.as_str();
    // Strip acknowledgement words and fillers from the front, as often as they come ("嗯嗯好的").
    while let Some(n) = lex
        .acknowledge
        .iter()
        .map(String::as_str)
        .chain(["哦", "那", "吧", "啊", "呀"])
        .find(|w| rest.starts_with(w))
        .map(str::len)
    {
        rest = &rest[n..];
    }
    rest.chars().count() >= 8
}

/// Whether the caller's turn is one question that only checks who answers ("请问是王先生吗？",
/// "王先生在吗？") and says nothing else.
fn identity_check_only(text: &str, lex: &Lexicon) -> bool {
    let mut t = text.trim();
    // Greetings in front ("喂？", "哎，你好，") are no matter of their own.
    while let Some(rest) = [
        "喂？",
        "喂，",
        "喂",
        "哎，",
        "您好，",
        "你好，",
        "您好",
        "你好",
    ]
    .iter()
    .find_map(|g| t.strip_prefix(g))
    {
        t = rest.trim_start();
    }
    let body = t.trim_end_matches(['？', '?']);
    !body.is_empty()
        && !body.contains(['。', '！', '？', '?', '!'])
        && Lexicon::has(&lex.identity_check, text)
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
