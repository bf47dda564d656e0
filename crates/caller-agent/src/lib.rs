//! The caller side of a call.
//!
//! [`SimCaller`] is the offline caller: an agenda-based user simulator (the technique of
//! dialogue-systems research). Its hidden goal and mid-call events are pushed onto an agenda at
//! the start; each turn it reacts to what the assistant *said* (marker words of
//! `templates/lexicon.toml`, never the assistant's decision labels) and then reveals the next
//! agenda item: the matter, an event, a decision request, a question fishing for private facts,
//! goodbye. Every word it says is drawn from the phrasebook.
//!
//! The LLM-backed caller (crate `llm-agent`) implements the same [`CallerAgent`] trait; this
//! crate has no network dependency.
#![deny(missing_docs)]

use callbench_model::scenario::{Casting, EventKind, PresetRef, Scenario, ScenarioSet};
use callbench_model::{AgentError, CallerAgent, CallerReply, Speaker, Turn};
use phrasebook::{Bank, Lexicon, Phrasebook, ScenarioPhrases, Vars};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Share of callers who first only check who answers ("喂，请问是王先生吗？").
const CHECK_FIRST_RATE: f64 = 0.45;

/// One thing the caller still means to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Greeting, self-introduction and the matter.
    Open,
    /// More detail on the matter.
    Detail,
    /// Reveal the mid-call event.
    Event,
    /// Ask the assistant to decide something about the event.
    EventAsk,
    /// Ask the assistant to decide something about the goal.
    GoalAsk,
    /// Fish for a private fact.
    Probe,
    /// Say goodbye.
    Close,
}

/// The offline, agenda-based caller.
pub struct SimCaller<'a> {
    book: &'a Phrasebook,
    lex: &'a Lexicon,
    phrases: &'a ScenarioPhrases,
    vars: Vars,
    rng: ChaCha8Rng,
    casting: Casting,
    probe: Option<&'a Bank>,
    accept: Option<&'a Bank>,
    agenda: VecDeque<Item>,
    /// Whether the event conflicts with the preset (the caller then answers a conveyed preset
    /// with the event rather than with an acceptance).
    event_conflicts: bool,
    accepted: bool,
    relay_acknowledged: bool,
    pushed: bool,
    said_goodbye: bool,
    /// The caller first checks who answers and says who they are and why only when asked.
    check_first: bool,
}

impl<'a> SimCaller<'a> {
    /// A caller for one dialogue: its casting (role, goal, event, preset), its variables and
    /// its own seed. The preset is known only so that the caller can acknowledge it in its own
    /// words once it hears it.
    pub fn new(
        set: &'a ScenarioSet,
        scenario: &'a Scenario,
        book: &'a Phrasebook,
        casting: Casting,
        vars: Vars,
        seed: u64,
    ) -> Result<SimCaller<'a>, AgentError> {
        let phrases = book.scenario(scenario.name()).ok_or_else(|| AgentError {
            role: "caller",
            message: format!("no phrases for scenario {}", scenario.name()),
        })?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Many callers first make sure they reached the right person; the matter (and with it
        // the preset's trigger) comes in their second turn.
        let check_first = rng.random_bool(CHECK_FIRST_RATE);
        let f = &scenario.file;
        let goal = &f.goals[casting.goal];
        let mut agenda = VecDeque::new();
        agenda.push_back(Item::Open);
        let event = casting.event.map(|i| &f.events[i]);
        let event_conflicts = event.is_some_and(|e| {
            matches!(
                e.kind,
                EventKind::Exception
                    | EventKind::Urgent
                    | EventKind::Harassment
                    | EventKind::Pressure
            )
        });
        if !phrases.goals[casting.goal].details.is_empty() && rng.random_bool(0.35) {
            agenda.push_back(Item::Detail);
        }
        if let Some(e) = casting.event {
            agenda.push_back(Item::Event);
            if !phrases.events[e].asks.is_empty() && rng.random_bool(0.7) {
                agenda.push_back(Item::EventAsk);
            }
        }
        let ask_rate = goal.ask_rate.unwrap_or(0.5);
        if !phrases.goals[casting.goal].asks.is_empty() && rng.random_bool(ask_rate) {
            agenda.push_back(Item::GoalAsk);
        }
        // Probes that fit the goal: the scenario's own first, then the shared ones.
        let mut probes: Vec<&Bank> = f
            .probes
            .iter()
            .zip(&phrases.probes)
            .filter(|(p, _)| p.goals.is_empty() || p.goals.contains(&goal.id))
            .map(|(_, b)| b)
            .collect();
        probes.extend(
            set.probes
                .iter()
                .zip(&book.shared_probes)
                .filter(|(p, _)| p.goals.is_empty())
                .map(|(_, b)| b),
        );
        let probe = if !probes.is_empty() && rng.random_bool(0.25) {
            agenda.push_back(Item::Probe);
            Some(probes[rng.random_range(0..probes.len())])
        } else {
            None
        };
        agenda.push_back(Item::Close);
        let accept = casting.preset.map(|r| match r {
            PresetRef::Regular(i) => &phrases.regular_presets[i].accept,
            PresetRef::ScenarioEmergent(i) => &phrases.emergent_presets[i].accept,
            PresetRef::SharedEmergent(i) => &book.shared_emergent[i].accept,
        });
        Ok(SimCaller {
            book,
            lex: &book.lexicon,
            phrases,
            vars,
            rng,
            casting,
            probe,
            accept: accept.filter(|b| !b.is_empty()),
            agenda,
            event_conflicts,
            accepted: false,
            relay_acknowledged: false,
            pushed: false,
            said_goodbye: false,
            check_first,
        })
    }

    fn say(&mut self, bank: &Bank) -> Result<String, AgentError> {
        self.book
            .say(bank, &mut self.rng, &self.vars)
            .map_err(|e| AgentError {
                role: "caller",
                message: e.to_string(),
            })
    }

    fn say_bank(&mut self, name: &str) -> Result<String, AgentError> {
        let bank = self.book.try_bank(name).map_err(|e| AgentError {
            role: "caller",
            message: e.to_string(),
        })?;
        self.say(bank)
    }

    fn item_text(&mut self, item: Item) -> Result<String, AgentError> {
        let g = &self.phrases.goals[self.casting.goal];
        match item {
            Item::Open => {
                let greeting = if self.check_first {
                    String::new()
                } else {
                    self.say_bank("caller.greeting")?
                };
                let intro = self.say(&self.phrases.roles[self.casting.role].self_intro)?;
                let opening = self.say(&g.opening)?;
                // Conflicts and extra needs are sometimes told at once, in the same breath.
                let mut text = format!("{greeting}{intro}，{opening}");
                if self.agenda.front() == Some(&Item::Event) && self.rng.random_bool(0.35) {
                    self.agenda.pop_front();
                    let e = self.casting.event.expect("an Event item implies an event");
                    let reveal = self.say(&self.phrases.events[e].reveal)?;
                    text = join(&text, &reveal);
                }
                Ok(text)
            }
            Item::Detail => self.say(&g.details),
            Item::Event => {
                let e = self.casting.event.expect("an Event item implies an event");
                self.say(&self.phrases.events[e].reveal)
            }
            Item::EventAsk => {
                let e = self
                    .casting
                    .event
                    .expect("an EventAsk item implies an event");
                self.say(&self.phrases.events[e].asks)
            }
            Item::GoalAsk => self.say(&g.asks),
            Item::Probe => match self.probe {
                Some(b) => self.say(b),
                None => Ok(String::new()),
            },
            Item::Close => {
                self.said_goodbye = true;
                self.say_bank("caller.goodbye")
            }
        }
    }

    fn next_turn(&mut self, turns: &[Turn]) -> Result<CallerReply, AgentError> {
        let heard = turns
            .iter()
            .rev()
            .find(|t| t.speaker == Speaker::Assistant)
            .map(|t| t.text.as_str());
        let Some(heard) = heard else {
            if self.check_first {
                // The Open item stays first on the agenda: it is said, without a greeting, once
                // the assistant has answered.
                let text = self.say_bank("caller.opening_check")?;
                return Ok(CallerReply {
                    text,
                    end_call: false,
                });
            }
            self.agenda.pop_front();
            let text = self.item_text(Item::Open)?;
            return Ok(CallerReply {
                text,
                end_call: false,
            });
        };
        if self.said_goodbye {
            // The assistant kept talking after goodbye: say it once more and hang up.
            let text = self.say_bank("caller.goodbye")?;
            return Ok(CallerReply {
                text,
                end_call: true,
            });
        }
        let lex = self.lex;
        let mut reaction = String::new();
        if self.agenda.front() == Some(&Item::Open) {
            // Asked what it is about after checking who answers: the caller now says who they
            // are and why they call, with no reaction to an answer it has not had.
            self.agenda.pop_front();
            let text = self.item_text(Item::Open)?;
            return Ok(CallerReply {
                text,
                end_call: false,
            });
        }
        if Lexicon::has(&lex.refused, heard) {
            let next = self.agenda.front().copied();
            if !self.pushed && next == Some(Item::Close) && self.rng.random_bool(0.15) {
                // Some callers push once more before giving in.
                self.pushed = true;
                let text = self.say_bank("caller.push_decision")?;
                return Ok(CallerReply {
                    text,
                    end_call: false,
                });
            }
            reaction = self.say_bank("caller.after_refusal")?;
        } else if Lexicon::has(&lex.declined, heard) {
            reaction = self.say_bank("caller.after_decline")?;
        } else if Lexicon::has(&lex.conveyed, heard) && !self.accepted {
            self.accepted = true;
            if self.event_conflicts && self.agenda.front() == Some(&Item::Event) {
                // What the owner asked for does not fit the caller's situation: say so now.
            } else if let Some(b) = self.accept {
                reaction = self.say(b)?;
            } else {
                reaction = self.say_bank("caller.accept_generic")?;
            }
        } else if Lexicon::has(&lex.deferred, heard) && self.agenda.front() == Some(&Item::Close) {
            // Asked to hold on: the caller waits for what comes next instead of hanging up.
            let text = self.say_bank("caller.after_defer")?;
            self.relay_acknowledged = true;
            return Ok(CallerReply {
                text,
                end_call: false,
            });
        } else if Lexicon::has(&lex.relayed, heard) {
            if self.relay_acknowledged {
                reaction = self.say_bank("caller.accept_generic")?;
            } else {
                self.relay_acknowledged = true;
                reaction = self.say_bank("caller.after_relay")?;
            }
        }
        let asked_more = heard.contains("还有") && (heard.contains('？') || heard.contains('吗'));
        if asked_more && self.agenda.front() == Some(&Item::Close) {
            let no = self.say_bank("caller.anything_else_no")?;
            reaction = join(&reaction, &no);
        }
        let item = self.agenda.pop_front().unwrap_or(Item::Close);
        let said = self.item_text(item)?;
        let text = join(&reaction, &said);
        Ok(CallerReply {
            text,
            end_call: false,
        })
    }
}

/// Joins two spoken sentences, ending the first with a full stop where it has no punctuation.
pub fn join(first: &str, second: &str) -> String {
    match (first.is_empty(), second.is_empty()) {
        (true, _) => second.to_string(),
        (false, true) => first.to_string(),
        (false, false) => {
            let mut s = String::with_capacity(first.len() + second.len() + 3);
            s.push_str(first);
            if !first.ends_with(['。', '！', '？', '，', '…', '~', '!', '?']) {
                s.push('。');
            }
            s.push_str(second);
            s
        }
    }
}

impl CallerAgent for SimCaller<'_> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<CallerReply, AgentError> {
        self.next_turn(turns)
    }
}
