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

use callbench_model::concepts::concepts;
use callbench_model::scenario::{Casting, EventKind, PresetRef, Scenario, ScenarioSet};
use callbench_model::{AgentError, CallerAgent, CallerReply, Speaker, Turn};
use phrasebook::{Bank, Lexicon, Phrasebook, ScenarioPhrases, SpeechRates, Vars};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Most things a caller means to say in one call (opening and goodbye included). Each is one
/// turn; a check-first opener, a push after a refusal, a wait and a second goodbye add at most
/// four more, so ten caller turns fit the default cap of 20 turns.
const MAX_ITEMS: usize = 6;

/// Share of callers who first only check who answers ("喂，请问是王先生吗？").
const CHECK_FIRST_RATE: f64 = 0.45;

/// How often a caller whose situation does not meet the owner's preset says one of its
/// near-miss lines (the cue word, denied: "我还没到楼下呢"), where the preset has one for the goal.
const NEAR_MISS_RATE: f64 = 0.8;

/// Salt of the near-miss draw's own random stream: adding near misses leaves the rest of every
/// call as it was drawn.
const NEAR_MISS_STREAM: u64 = 0x6e65_6172_5f6d_6973;

/// One thing the caller still means to say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    /// Greeting, self-introduction and the matter.
    Open,
    /// The matter, after an opening that asked something else first.
    Matter,
    /// More detail on the matter.
    Detail,
    /// Reveal the mid-call event.
    Event,
    /// Ask the assistant to decide something about the event.
    EventAsk,
    /// Ask the assistant to decide something about the goal.
    GoalAsk,
    /// Come back to the goal's ask after something else.
    Return,
    /// Fish for a private fact (which of the drawn probes).
    Probe(usize),
    /// An offer that commits the owner to nothing.
    Offer,
    /// Ask that the owner call back.
    Callback,
    /// Ask for the owner in person, or who is answering.
    AskOwner,
    /// Reveal the second event (an extra need on the side).
    Extra,
    /// Say a near-miss line of the owner's preset: its cue word, its condition not met.
    NearMiss,
    /// Ask the assistant to decide something about the second event.
    ExtraAsk,
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
    probes: Vec<&'a Bank>,
    accept: Option<&'a Bank>,
    agenda: VecDeque<Item>,
    /// How this caller's persona speaks.
    rates: SpeechRates,
    /// The persona's verbal tics (“得嘞”).
    tics: Vec<String>,
    /// Whether the event conflicts with the preset (the caller then answers a conveyed preset
    /// with the event rather than with an acceptance).
    event_conflicts: bool,
    /// Whether the preset settles the goal's own matter (its trigger or the goals it fits name
    /// one of the goal's tags: "放门口就行" settles "要不要我给您送上楼？"): once the caller has
    /// accepted it, the goal's asks and details are not said (again).
    preset_settles_goal: bool,
    accepted: bool,
    relay_acknowledged: bool,
    pushed: bool,
    said_goodbye: bool,
    /// The caller first checks who answers and says who they are and why only when asked.
    check_first: bool,
    /// The caller greets before its matter.
    greets: bool,
    /// The caller says goodbye back once the assistant has closed.
    last_word: bool,
    /// A scammer or a pushy seller (a harassment or pressure event): met with refusals, it
    /// presses on or hangs up rather than thanking and waiting for a relay.
    hostile: bool,
    /// What it said pressing on so far.
    pressed: Vec<String>,
    /// The near-miss lines it may say (the owner's preset does not apply to it).
    near_miss: Option<&'a Bank>,
}

impl<'a> SimCaller<'a> {
    /// A caller for one dialogue: its casting (role, goal, event, preset), its persona (which
    /// changes how it speaks: `[styles]` of `templates/caller.toml`), its variables and its own
    /// seed. The preset is known only so that the caller can acknowledge it in its own words
    /// once it hears it.
    pub fn new(
        set: &'a ScenarioSet,
        scenario: &'a Scenario,
        book: &'a Phrasebook,
        casting: Casting,
        persona: Option<&str>,
        vars: Vars,
        seed: u64,
    ) -> Result<SimCaller<'a>, AgentError> {
        let phrases = book.scenario(scenario.name()).ok_or_else(|| AgentError {
            role: "caller",
            message: format!("no phrases for scenario {}", scenario.name()),
        })?;
        let (rates, tics) = book.caller_styles.for_persona(persona);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        // Many callers first make sure they reached the right person; the matter (and with it
        // the preset's trigger) comes in their second turn.
        let check_first = rng.random_bool(CHECK_FIRST_RATE);
        let greets = rng.random_bool(rates.greet);
        let last_word = rng.random_bool(rates.last_word);
        let f = &scenario.file;
        let goal = &f.goals[casting.goal];
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
        // A scammer or a pushy seller is met with refusals: no friendly asides, no second
        // round of the same ask (its own push is `push`).
        let hostile = f.roles[casting.role].unwanted
            || event.is_some_and(|e| matches!(e.kind, EventKind::Harassment | EventKind::Pressure));
        let g = &phrases.goals[casting.goal];

        // The middle of the call, in an order each caller draws: the event (with its ask right
        // after it), the goal's ask before or after the event, probes and an aside anywhere.
        let mut middle: Vec<Item> = Vec::new();
        if let Some(e) = casting.event {
            middle.push(Item::Event);
            if !phrases.events[e].asks.is_empty() && rng.random_bool(0.7) {
                middle.push(Item::EventAsk);
            }
        }
        let ask_rate = goal.ask_rate.unwrap_or(0.5);
        if !g.asks.is_empty() && rng.random_bool(ask_rate) {
            // Before the event or after it: the agenda interleaves. Not a scammer's: each of its
            // pushes brings the call nearer its end, and the pressure the call is about comes
            // first.
            if !hostile && rng.random_bool(0.35) {
                middle.insert(0, Item::GoalAsk);
            } else {
                middle.push(Item::GoalAsk);
            }
            let after_ask = middle.iter().position(|&i| i == Item::GoalAsk).unwrap() + 1;
            if !hostile && after_ask < middle.len() && rng.random_bool(rates.return_topic) {
                middle.push(Item::Return);
            }
        }
        if !hostile && rng.random_bool(rates.aside) {
            let aside = if rng.random_bool(0.5) {
                Item::Offer
            } else {
                Item::Callback
            };
            let at = rng.random_range(0..=middle.len());
            middle.insert(at, aside);
        }
        // A second event on the side, anywhere in the middle, its ask (sometimes) after it.
        if let Some(e) = casting.extra_event {
            let at = rng.random_range(0..=middle.len());
            middle.insert(at, Item::Extra);
            if !phrases.events[e].asks.is_empty() && rng.random_bool(0.5) {
                middle.insert(at + 1, Item::ExtraAsk);
            }
        }
        // Some callers want the owner in person (a scammer most of all: "让她本人接！").
        // Anyone else asks politely, and early, if at all.
        if rng.random_bool(if hostile { 0.55 } else { 0.08 }) {
            let at = if hostile {
                rng.random_range(0..=middle.len())
            } else {
                0
            };
            middle.insert(at, Item::AskOwner);
        }
        // Probes that fit the goal and the role: the scenario's own, then the shared ones it
        // takes (`shared_probes`), each as often as its weight says. None, one, or (rarely)
        // two, anywhere in the middle.
        let role_id = &f.roles[casting.role].id;
        let mut pool: Vec<(&Bank, f64)> = f
            .probes
            .iter()
            .zip(&phrases.probes)
            .filter(|(p, _)| p.goals.is_empty() || p.goals.contains(&goal.id))
            .filter(|(p, _)| p.roles.is_empty() || p.roles.contains(role_id))
            .map(|(p, b)| (b, p.weight))
            .collect();
        let shared = f.scenario.shared_probes.as_deref();
        pool.extend(
            set.probes
                .iter()
                .zip(&book.shared_probes)
                .filter(|(p, _)| p.goals.is_empty())
                .filter(|(p, _)| shared.is_none_or(|ids| ids.contains(&p.id)))
                .map(|(p, b)| (b, p.weight)),
        );
        let mut probes: Vec<&Bank> = Vec::new();
        // Scammers fish for facts more often than anyone else.
        let (one, two) = if hostile { (0.55, 0.5) } else { (0.25, 0.2) };
        if !pool.is_empty() && rng.random_bool(one) {
            probes.push(draw_weighted(&mut pool, &mut rng));
            if !pool.is_empty() && rng.random_bool(two) {
                probes.push(draw_weighted(&mut pool, &mut rng));
            }
        }
        // A preset that does not apply to this caller, whose cue word it still says in passing
        // ("我还没到楼下呢", "不是维修的事"): the assistant has to hear that the condition is not
        // met. Drawn from its own stream.
        let near_miss = casting.preset.and_then(|r| {
            let def = set.preset_def(scenario, r);
            if ScenarioSet::triggers(def, &f.roles[casting.role], goal) {
                return None;
            }
            let banks = match r {
                PresetRef::Regular(i) => &phrases.regular_presets[i].near_misses,
                PresetRef::ScenarioEmergent(i) => &phrases.emergent_presets[i].near_misses,
                PresetRef::SharedEmergent(i) => &book.shared_emergent[i].near_misses,
            };
            let fitting: Vec<&Bank> = def
                .near_misses
                .iter()
                .zip(banks)
                .filter(|(n, b)| n.goals.contains(&goal.id) && !b.is_empty())
                .map(|(_, b)| b)
                .collect();
            let mut nm_rng = ChaCha8Rng::seed_from_u64(seed ^ NEAR_MISS_STREAM);
            (!fitting.is_empty() && nm_rng.random_bool(NEAR_MISS_RATE))
                .then(|| fitting[nm_rng.random_range(0..fitting.len())])
        });
        let mut agenda = VecDeque::new();
        // A scammer who first checked who answers may demand the owner before saying why.
        if hostile && check_first && middle.contains(&Item::AskOwner) && rng.random_bool(0.35) {
            middle.retain(|&i| i != Item::AskOwner);
            agenda.push_back(Item::AskOwner);
        }
        agenda.push_back(Item::Open);
        // Right after the matter, in the caller's next turn.
        if near_miss.is_some() {
            agenda.push_back(Item::NearMiss);
        }
        if !g.details.is_empty()
            && (!hostile || casting.event.is_none())
            && rng.random_bool(rates.detail)
        {
            agenda.push_back(Item::Detail);
        }
        for (k, _) in probes.iter().enumerate() {
            let at = rng.random_range(0..=middle.len());
            middle.insert(at, Item::Probe(k));
        }
        agenda.extend(middle);
        agenda.push_back(Item::Close);
        // A call has room for so much: past MAX_ITEMS the extras go, the least needed first, so
        // that check-first openers, pushes and waits still fit under the turn cap.
        for extra in [
            Item::AskOwner,
            Item::Return,
            Item::Probe(1),
            Item::Offer,
            Item::Callback,
            Item::Detail,
            Item::ExtraAsk,
        ] {
            if agenda.len() <= MAX_ITEMS {
                break;
            }
            agenda.retain(|&i| i != extra);
        }
        if agenda.len() > MAX_ITEMS {
            agenda.retain(|&i| i != Item::Probe(0));
        }
        let preset_settles_goal = casting.preset.is_some_and(|r| {
            let def = set.preset_def(scenario, r);
            def.when
                .iter()
                .chain(&def.goal_tags)
                .any(|t| goal.tags.contains(t))
        });
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
            probes,
            accept: accept.filter(|b| !b.is_empty()),
            agenda,
            rates,
            tics,
            event_conflicts,
            preset_settles_goal,
            accepted: false,
            relay_acknowledged: false,
            pushed: false,
            said_goodbye: false,
            check_first,
            greets,
            last_word,
            hostile,
            pressed: Vec::new(),
            near_miss,
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
                let greeting = if self.check_first || !self.greets {
                    String::new()
                } else {
                    self.say_bank("caller.greeting")?
                };
                let intro = self.say(&self.phrases.roles[self.casting.role].self_intro)?;
                // Some callers ask their question first and come to the matter after: the
                // owner's preset then has to wait for its trigger.
                if let Some(&Item::Probe(k)) = self.agenda.front()
                    && self.rng.random_bool(0.5)
                {
                    self.agenda.pop_front();
                    self.agenda.push_front(Item::Matter);
                    let probe = self.say(self.probes[k])?;
                    return Ok(format!("{greeting}{intro}，{probe}"));
                }
                let opening = self.say(&g.opening)?;
                // A near miss comes first as often as not, in the same breath ("我是快行的司机，
                // 您千万别帮我取消，我这边路上堵了"): the cue is in the very turn the assistant
                // answers.
                if self.agenda.front() == Some(&Item::NearMiss) && self.rng.random_bool(0.5) {
                    self.agenda.pop_front();
                    let bank = self.near_miss.expect("a NearMiss item implies its lines");
                    let near = self.say(bank)?;
                    return Ok(format!("{greeting}{intro}，{near}，{opening}"));
                }
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
            Item::Matter => self.say(&g.opening),
            Item::Detail => self.say(&g.details),
            Item::NearMiss => {
                let bank = self.near_miss.expect("a NearMiss item implies its lines");
                self.say(bank)
            }
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
            Item::Return => {
                let back = self.say_bank("caller.return_topic")?;
                let ask = self.say(&g.asks)?;
                Ok(format!("{back}{ask}"))
            }
            Item::Probe(k) => self.say(self.probes[k]),
            Item::Offer => self.say_bank("caller.offer"),
            Item::Callback => self.say_bank("caller.callback"),
            Item::Extra => {
                let e = self.casting.extra_event.expect("an Extra item implies one");
                self.say(&self.phrases.events[e].reveal)
            }
            Item::ExtraAsk => {
                let e = self
                    .casting
                    .extra_event
                    .expect("an ExtraAsk item implies one");
                self.say(&self.phrases.events[e].asks)
            }
            Item::AskOwner if self.hostile => self.say_bank("caller.ask_owner"),
            Item::AskOwner => self.say_bank("caller.ask_owner_polite"),
            Item::Close => {
                self.said_goodbye = true;
                self.say_bank("caller.goodbye")
            }
        }
    }

    /// A verbal tic in front of a turn, at the persona's rate.
    fn with_tic(&mut self, text: String) -> String {
        if self.tics.is_empty() || !self.rng.random_bool(self.rates.tic) {
            return text;
        }
        let tic = &self.tics[self.rng.random_range(0..self.tics.len())];
        format!("{tic}，{text}")
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
        if Lexicon::has(&lex.deferred, heard) {
            // Asked to hold the line ("您先别挂，还有件事"): the caller waits for what the assistant
            // has still to say. It neither goes on with its own agenda (a question then would be
            // talked over by the owner's word) nor takes "还有句交代" for the instruction itself
            // (accepting one it has not heard).
            let text = self.say_bank("caller.after_defer")?;
            self.relay_acknowledged = true;
            return Ok(CallerReply {
                text,
                end_call: false,
            });
        }
        let turned_down = Lexicon::has(&lex.refused, heard)
            || Lexicon::has(&lex.declined, heard)
            || Lexicon::has(&lex.conveyed, heard);
        // The matter and the pressure the call is about come before any hanging up.
        let event_due = self
            .agenda
            .iter()
            .any(|i| matches!(i, Item::Event | Item::Extra | Item::Matter | Item::Open));
        if self.hostile && turned_down {
            // A scammer or a pushy seller turned down: some hang up there and then, the rest
            // press on with the next ask (or give up when nothing is left to ask). Never before
            // the matter and the pressure the call is about have been said.
            if !event_due && self.rng.random_bool(self.rates.hang_up) {
                self.said_goodbye = true;
                let text = self.say_bank("caller.hang_up")?;
                return Ok(CallerReply {
                    text,
                    end_call: true,
                });
            }
            self.accepted = true;
            if self.agenda.front() != Some(&Item::Close) {
                // Pressing on in other words each time.
                for _ in 0..4 {
                    reaction = self.say_bank("caller.press_on")?;
                    if !self.pressed.contains(&reaction) {
                        break;
                    }
                }
                self.pressed.push(reaction.clone());
            } else if !self.pushed && self.rng.random_bool(self.rates.push) {
                self.pushed = true;
                let text = self.say_bank("caller.push_decision")?;
                return Ok(CallerReply {
                    text,
                    end_call: false,
                });
            } else {
                reaction = self.say_bank("caller.after_hold")?;
            }
        } else if Lexicon::has(&lex.refused, heard) {
            let next = self.agenda.front().copied();
            if !self.pushed && next == Some(Item::Close) && self.rng.random_bool(self.rates.push) {
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
            if self.event_conflicts && self.agenda.contains(&Item::Event) {
                // What the owner asked for does not fit the caller's situation: say so now, not
                // "好嘞，放门口" first and "外面在下雨，放外面准被淋湿" a few turns on. The event's
                // own ask, where it came right after it, comes along.
                let at = self.agenda.iter().position(|&i| i == Item::Event);
                let with_ask = at.is_some_and(|a| self.agenda.get(a + 1) == Some(&Item::EventAsk));
                self.agenda
                    .retain(|&i| i != Item::Event && !(with_ask && i == Item::EventAsk));
                if with_ask {
                    self.agenda.push_front(Item::EventAsk);
                }
                self.agenda.push_front(Item::Event);
            } else {
                reaction = match self.accept {
                    Some(b) => self.say(b)?,
                    None => self.say_bank("caller.accept_generic")?,
                };
                // "明白了，我自己来操作" and then "您重叫一单" would take the acceptance back: the
                // owner's word answered the goal's ask — and its matter: "好的，那我就不推荐了" is
                // not followed by more of the pitch ("岗位直接向分管的副总汇报").
                if self.preset_settles_goal {
                    self.agenda
                        .retain(|i| !matches!(i, Item::GoalAsk | Item::Return | Item::Detail));
                }
            }
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
        // A wish for a callback is asked once: not in the reaction and again in the item.
        if item == Item::Callback && Lexicon::has(&concepts().callback_request, &reaction) {
            reaction = self.say_bank("caller.accept_generic")?;
        }
        // A hurried caller skips the courtesies; any caller may cut in with what just happened.
        if !reaction.is_empty() && item != Item::Close && !self.rng.random_bool(self.rates.react) {
            reaction.clear();
        }
        let said = self.item_text(item)?;
        let text = if item == Item::Event && self.rng.random_bool(self.rates.interrupt) {
            let cut = self.say_bank("caller.interrupt")?;
            format!("{cut}{said}")
        } else {
            join(&reaction, &said)
        };
        Ok(CallerReply {
            text: self.with_tic(text),
            end_call: false,
        })
    }

    fn farewell(&mut self, turns: &[Turn]) -> Result<Option<String>, AgentError> {
        // Only where the assistant ended the call on a goodbye of its own and the caller had
        // not said one yet: "好嘞，拜拜。"
        let closed_with_goodbye = turns.last().is_some_and(|t| {
            t.speaker == Speaker::Assistant && Lexicon::has(&self.lex.closing, &t.text)
        });
        if !self.last_word || self.said_goodbye || !closed_with_goodbye {
            return Ok(None);
        }
        self.said_goodbye = true;
        self.say_bank("caller.last_word").map(Some)
    }
}

impl CallerAgent for SimCaller<'_> {
    async fn reply(&mut self, turns: &[Turn]) -> Result<CallerReply, AgentError> {
        self.next_turn(turns)
    }

    fn last_word(&mut self, turns: &[Turn]) -> Result<Option<String>, AgentError> {
        self.farewell(turns)
    }
}

/// Takes one bank out of `pool`, each as likely as its weight.
fn draw_weighted<'a>(pool: &mut Vec<(&'a Bank, f64)>, rng: &mut ChaCha8Rng) -> &'a Bank {
    let total: f64 = pool.iter().map(|(_, w)| w).sum();
    let mut x = rng.random_range(0.0..total);
    let mut i = pool.len() - 1;
    for (j, (_, w)) in pool.iter().enumerate() {
        if x < *w {
            i = j;
            break;
        }
        x -= w;
    }
    pool.swap_remove(i).0
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
