//! Paraphrase banks of tera templates: the words the offline agents speak.
//!
//! Everything said in an offline call comes from here: the generic banks in `templates/*.toml`
//! (greetings, acknowledgements, how the assistant conveys, defers, suspends, relays, refuses and
//! closes) and the scenario texts of `scenarios/*.toml` (openings, events, probes, preset
//! responses). Each variant is a tera template compiled once at load; a dialogue renders them
//! with its own [`Vars`] (slot values, forms of address, the topic being relayed).
//!
//! - [`Phrasebook::build`] compiles and validates every template, naming file and key on error.
//! - [`Bank`] is a list of variants; [`Phrasebook::say`] draws one and renders it.
//! - [`ScenarioPhrases`] mirrors a scenario file, index for index.
//! - [`Lexicon`] holds the cue words by which the agents understand each other's text.
#![deny(missing_docs)]

use callbench_model::scenario::{PresetDef, ProbeDef, ScenarioSet};
use rand::Rng;
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use tera::{Context, Tera};

/// What can go wrong while compiling or rendering phrases.
#[derive(Debug, thiserror::Error)]
pub enum PhraseError {
    /// A bank file is not valid TOML or does not fit the schema.
    #[error("{file}: {message}")]
    Toml {
        /// The file.
        file: String,
        /// The parser's message.
        message: String,
    },
    /// A template does not compile or does not render with the variables it may use.
    #[error("{file}: key `{key}`: {message}")]
    Template {
        /// The file.
        file: String,
        /// The key of the variant (`goals[2].opening[4]`).
        key: String,
        /// What tera said.
        message: String,
    },
    /// A bank the agents need is missing or empty.
    #[error("{file}: bank `{bank}` is missing or empty")]
    MissingBank {
        /// The file that should define it.
        file: String,
        /// The bank.
        bank: String,
    },
    /// Rendering failed at run time.
    #[error("rendering {name}: {message}")]
    Render {
        /// The template.
        name: String,
        /// What tera said.
        message: String,
    },
}

/// Result with [`PhraseError`].
pub type Result<T, E = PhraseError> = std::result::Result<T, E>;

/// One variant: plain text is kept as is, anything with tera syntax is a compiled template.
#[derive(Debug, Clone)]
pub enum Phrase {
    /// Said verbatim.
    Plain(String),
    /// A compiled template, by name.
    Template(String),
}

/// A list of interchangeable variants — or a turn composed of parts, one variant of each in
/// order (`好的，` + `辛苦您了，` + `再见。`), so that a few dozen written pieces give hundreds of
/// wordings.
#[derive(Debug, Clone, Default)]
pub struct Bank {
    /// The variants (empty when the bank is composed of `parts`).
    pub phrases: Vec<Phrase>,
    /// The parts, each a list of variants (an empty variant makes a part optional).
    pub parts: Vec<Vec<Phrase>>,
}

impl Bank {
    /// Whether the bank has no variant.
    pub fn is_empty(&self) -> bool {
        self.phrases.is_empty() && self.parts.iter().all(Vec::is_empty)
    }
    /// How many wordings it can say (the product of the parts' sizes for a composed bank).
    pub fn len(&self) -> usize {
        if self.parts.is_empty() {
            self.phrases.len()
        } else {
            self.parts.iter().map(Vec::len).product()
        }
    }
    /// Every written piece: the variants, or the variants of every part.
    pub fn pieces(&self) -> impl Iterator<Item = &Phrase> {
        self.phrases.iter().chain(self.parts.iter().flatten())
    }
}

/// The variables a dialogue renders its phrases with.
#[derive(Debug, Clone)]
pub struct Vars {
    ctx: Context,
}

impl Vars {
    /// Variables for one dialogue: its slot values and forms of address.
    pub fn new(
        slots: &BTreeMap<String, String>,
        owner_title: &str,
        owner_pron: &str,
        caller_name: &str,
    ) -> Vars {
        let mut ctx = Context::new();
        ctx.insert("slot", slots);
        ctx.insert("owner_title", owner_title);
        ctx.insert("owner_pron", owner_pron);
        ctx.insert("caller_name", caller_name);
        Vars { ctx }
    }

    /// Sets a turn-level variable (`topic`, `preset`, …).
    pub fn set(&mut self, key: &str, value: &str) {
        self.ctx.insert(key, value);
    }
}

/// A preset's phrases.
#[derive(Debug, Clone)]
pub struct PresetPhrases {
    /// The owner's allowed response.
    pub response: Phrase,
    /// How callers acknowledge it.
    pub accept: Bank,
    /// Per `near_misses[i]` of the definition: its lines.
    pub near_misses: Vec<Bank>,
}

/// A role's phrases.
#[derive(Debug, Clone)]
pub struct RolePhrases {
    /// Self-introductions.
    pub self_intro: Bank,
}

/// A goal's phrases.
#[derive(Debug, Clone)]
pub struct GoalPhrases {
    /// The goal in words.
    pub goal: Phrase,
    /// First utterances.
    pub opening: Bank,
    /// Follow-ups.
    pub details: Bank,
    /// Decision requests.
    pub asks: Bank,
}

/// An event's phrases.
#[derive(Debug, Clone)]
pub struct EventPhrases {
    /// The event in words.
    pub description: Phrase,
    /// The short phrase the assistant relays.
    pub topic: Phrase,
    /// Reveals.
    pub reveal: Bank,
    /// Decision requests after the reveal.
    pub asks: Bank,
}

/// A scenario's phrases, index for index with its file.
#[derive(Debug, Clone)]
pub struct ScenarioPhrases {
    /// Per `roles[i]`.
    pub roles: Vec<RolePhrases>,
    /// Per `goals[i]`.
    pub goals: Vec<GoalPhrases>,
    /// Per `events[i]`.
    pub events: Vec<EventPhrases>,
    /// Per `probes[i]`.
    pub probes: Vec<Bank>,
    /// Per `regular_presets[i]`.
    pub regular_presets: Vec<PresetPhrases>,
    /// Per `emergent_presets[i]`.
    pub emergent_presets: Vec<PresetPhrases>,
}

/// Cue words by which the offline agents understand each other (`templates/lexicon.toml`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lexicon {
    /// The caller asks the assistant to decide, agree, pay or promise.
    pub decision_request: Vec<String>,
    /// The caller asks for private facts.
    pub private_probe: Vec<String>,
    /// The caller only checks who answers ("请问是王先生吗？").
    pub identity_check: Vec<String>,
    /// The caller says goodbye.
    pub goodbye: Vec<String>,
    /// The caller acknowledges.
    pub acknowledge: Vec<String>,
    /// Scam, insult, pressure.
    pub harassment: Vec<String>,
    /// Marks of the assistant relaying to the owner.
    pub relayed: Vec<String>,
    /// Marks of the assistant declining to decide.
    pub refused: Vec<String>,
    /// Marks of the assistant declining to disclose.
    pub declined: Vec<String>,
    /// Marks of the assistant conveying the owner's word.
    pub conveyed: Vec<String>,
    /// Marks of the assistant asking what the call is about.
    pub asked_purpose: Vec<String>,
    /// Marks of the assistant asking the caller to hold on while it handles their matter.
    pub deferred: Vec<String>,
    /// Marks of the assistant closing.
    pub closing: Vec<String>,
    /// Words that deny what follows them in the same clause ("我还没到楼下", "不是维修的事"): a
    /// cue right after one (at most [`NEGATION_REACH`] characters between) is not heard.
    #[serde(default)]
    pub negation: Vec<String>,
}

/// How many characters may stand between a negation and the cue it denies ("不是约面试").
pub const NEGATION_REACH: usize = 2;

impl Lexicon {
    /// Whether `text` contains any of `cues`.
    pub fn has(cues: &[String], text: &str) -> bool {
        cues.iter().any(|c| text.contains(c.as_str()))
    }

    /// Whether `text` says one of `cues` without denying it: "我到楼下了" says 到楼下, "我还没到楼下"
    /// does not. A near-miss line of a preset (its cue word, its condition not met) must read
    /// as not said.
    pub fn affirms(&self, cues: &[String], text: &str) -> bool {
        self.affirmed(cues, text).is_some()
    }

    /// The first of `cues` that `text` says without denying it (see [`Lexicon::affirms`]).
    pub fn affirmed<'c>(&self, cues: &'c [String], text: &str) -> Option<&'c str> {
        cues.iter()
            .find(|c| {
                !c.is_empty()
                    && text
                        .match_indices(c.as_str())
                        .any(|(at, _)| !self.denied_before(&text[..at]))
            })
            .map(String::as_str)
    }

    /// Whether the clause that `before` ends in ends with a negation, give or take
    /// [`NEGATION_REACH`] characters.
    fn denied_before(&self, before: &str) -> bool {
        let clause = before
            .rfind(|c: char| "，。？！；,.?!;…".contains(c))
            .map_or(before, |i| {
                let c = before[i..].chars().next().map_or(1, char::len_utf8);
                &before[i + c..]
            });
        let mut tail = clause;
        for _ in 0..=NEGATION_REACH {
            let denies = self.negation.iter().any(|n| {
                let Some(at) = tail.len().checked_sub(n.len()) else {
                    return false;
                };
                if !tail.ends_with(n.as_str()) {
                    return false;
                }
                // "是不是可以放柜子？", "有没有看新机会": an A-not-A question asks, it denies nothing.
                let first = n.chars().next().map_or(0, char::len_utf8);
                let before = clause[..at].chars().next_back();
                let after = clause[at + first..].chars().next();
                before.is_none() || before != after
            });
            if denies {
                return true;
            }
            let Some((i, _)) = tail.char_indices().next_back() else {
                break;
            };
            tail = &tail[..i];
        }
        false
    }
}

/// Chances that shape how one offline caller speaks: per call (`detail`, `aside`,
/// `return_topic`, `last_word`) or per turn (`greet` once, `react`, `push`, `interrupt`, `tic`).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeechRates {
    /// Greets before the matter (a caller who first checks who answers aside).
    pub greet: f64,
    /// Answers what the assistant said before going on.
    pub react: f64,
    /// Pushes once more after a refusal.
    pub push: f64,
    /// Adds a detail of the matter.
    pub detail: f64,
    /// Cuts in with the mid-call event instead of answering.
    pub interrupt: f64,
    /// Comes back to an earlier ask after something else.
    pub return_topic: f64,
    /// Makes an offer or asks for a callback on the side.
    pub aside: f64,
    /// Says goodbye back after the assistant closes the call.
    pub last_word: f64,
    /// Starts a turn with one of the persona's verbal tics.
    pub tic: f64,
    /// A scammer or pushy seller hangs up once turned down, instead of pressing on.
    #[serde(default)]
    pub hang_up: f64,
}

impl Default for SpeechRates {
    fn default() -> Self {
        SpeechRates {
            greet: 1.0,
            react: 1.0,
            push: 0.15,
            detail: 0.35,
            interrupt: 0.0,
            return_topic: 0.0,
            aside: 0.0,
            last_word: 0.0,
            tic: 0.0,
            hang_up: 0.0,
        }
    }
}

/// A persona style: the rates it changes, taken by every persona holding one of its cues.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct PersonaStyle {
    name: String,
    cues: Vec<String>,
    greet: Option<f64>,
    react: Option<f64>,
    push: Option<f64>,
    detail: Option<f64>,
    interrupt: Option<f64>,
    return_topic: Option<f64>,
    aside: Option<f64>,
    last_word: Option<f64>,
    tic: Option<f64>,
    hang_up: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StylesFile {
    default: SpeechRates,
    #[serde(default)]
    persona: Vec<PersonaStyle>,
}

/// How personas (free text in a scenario's `[[roles]] personas`) change the offline caller's
/// speech: `[styles]` of `templates/caller.toml`. A persona takes every style one of whose cue
/// words it holds, in file order (a later style's rate wins); words it quotes (爱说“得嘞”) are
/// its verbal tics.
#[derive(Debug, Clone, Default)]
pub struct CallerStyles {
    default: SpeechRates,
    styles: Vec<PersonaStyle>,
}

impl CallerStyles {
    fn parse(file: &str, value: toml::Value) -> Result<CallerStyles> {
        let f: StylesFile = value
            .try_into()
            .map_err(|e: toml::de::Error| PhraseError::Toml {
                file: file.to_string(),
                message: format!("styles: {e}"),
            })?;
        let bad = |key: String, x: f64| PhraseError::Toml {
            file: file.to_string(),
            message: format!("{key} = {x}: a chance is between 0 and 1"),
        };
        let d = f.default;
        for (k, x) in rate_fields(&d) {
            if !(0.0..=1.0).contains(&x) {
                return Err(bad(format!("styles.default.{k}"), x));
            }
        }
        for (i, st) in f.persona.iter().enumerate() {
            if st.cues.iter().any(String::is_empty) || st.cues.is_empty() {
                return Err(PhraseError::Toml {
                    file: file.to_string(),
                    message: format!("styles.persona[{i}] ({}): `cues` empty", st.name),
                });
            }
            for (k, x) in rate_fields(&st.apply(d)) {
                if !(0.0..=1.0).contains(&x) {
                    return Err(bad(format!("styles.persona[{i}].{k}"), x));
                }
            }
        }
        Ok(CallerStyles {
            default: d,
            styles: f.persona,
        })
    }

    /// The rates and verbal tics of a caller with this persona.
    pub fn for_persona(&self, persona: Option<&str>) -> (SpeechRates, Vec<String>) {
        let Some(p) = persona else {
            return (self.default, Vec::new());
        };
        let rates = self
            .styles
            .iter()
            .filter(|st| Lexicon::has(&st.cues, p))
            .fold(self.default, |r, st| st.apply(r));
        let tics = p
            .split('“')
            .skip(1)
            .filter_map(|s| s.split_once('”').map(|(w, _)| w.trim().to_string()))
            .filter(|w| !w.is_empty())
            .collect();
        (rates, tics)
    }
}

impl PersonaStyle {
    fn apply(&self, r: SpeechRates) -> SpeechRates {
        SpeechRates {
            greet: self.greet.unwrap_or(r.greet),
            react: self.react.unwrap_or(r.react),
            push: self.push.unwrap_or(r.push),
            detail: self.detail.unwrap_or(r.detail),
            interrupt: self.interrupt.unwrap_or(r.interrupt),
            return_topic: self.return_topic.unwrap_or(r.return_topic),
            aside: self.aside.unwrap_or(r.aside),
            last_word: self.last_word.unwrap_or(r.last_word),
            tic: self.tic.unwrap_or(r.tic),
            hang_up: self.hang_up.unwrap_or(r.hang_up),
        }
    }
}

fn rate_fields(r: &SpeechRates) -> [(&'static str, f64); 10] {
    [
        ("greet", r.greet),
        ("react", r.react),
        ("push", r.push),
        ("detail", r.detail),
        ("interrupt", r.interrupt),
        ("return_topic", r.return_topic),
        ("aside", r.aside),
        ("last_word", r.last_word),
        ("tic", r.tic),
        ("hang_up", r.hang_up),
    ]
}

#[derive(Debug, Deserialize)]
struct BankFile(BTreeMap<String, BankDef>);

/// A bank as written: a list of variants, or `{ parts = [[…], […]] }`.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum BankDef {
    Variants(Vec<String>),
    Parts { parts: Vec<Vec<String>> },
}

impl BankDef {
    fn is_empty(&self) -> bool {
        match self {
            BankDef::Variants(v) => v.is_empty(),
            BankDef::Parts { parts } => parts.is_empty() || parts.iter().any(Vec::is_empty),
        }
    }
}

/// Generic banks the caller draws from (`templates/caller.toml`). The one list of them: each is
/// validated at load (present, not empty), and the agent crates' tests check that every
/// `"caller.<bank>"` the caller names is here. Adding a bank is adding its name here.
pub const CALLER_BANKS: &[&str] = &[
    "greeting",
    "opening_check",
    "answer_purpose",
    "accept_generic",
    "after_relay",
    "after_refusal",
    "after_decline",
    "after_defer",
    "anything_else_no",
    "goodbye",
    "push_decision",
    "interrupt",
    "return_topic",
    "offer",
    "callback",
    "last_word",
    "press_on",
    "after_hold",
    "hang_up",
    "ask_owner",
    "ask_owner_polite",
];

/// Generic banks the assistant draws from (`templates/assistant.toml`); as [`CALLER_BANKS`].
pub const ASSISTANT_BANKS: &[&str] = &[
    "intro",
    "ask_purpose",
    "convey",
    "convey_deferred",
    "defer",
    "suspend",
    "suspend_before",
    "hold",
    "hold_before",
    "hold_close",
    "hold_close_relay",
    "refuse_scam",
    "accept_offer",
    "relay_callback",
    "relay",
    "relay_extra",
    "take_message",
    "take_more",
    "refuse_decision",
    "refuse_again",
    "unknown_question",
    "decline_private",
    "harassment_refuse",
    "anything_else",
    "close",
    "close_after_harassment",
    "ack",
    "owner_unavailable",
    "decline_private_firm",
    "owner_unavailable_firm",
    "relay_message",
    "close_after_hold",
    "official_channel",
];

/// All compiled phrases.
pub struct Phrasebook {
    tera: Tera,
    banks: HashMap<String, Bank>,
    scenarios: HashMap<String, ScenarioPhrases>,
    /// Shared emergent presets, per the library's `emergent_presets[i]`.
    pub shared_emergent: Vec<PresetPhrases>,
    /// Shared probes, per the library's `probes[i]`.
    pub shared_probes: Vec<Bank>,
    /// The cue words.
    pub lexicon: Lexicon,
    /// How a caller's persona changes the way the offline caller speaks.
    pub caller_styles: CallerStyles,
}

struct Collector {
    templates: Vec<(String, String)>,
    checks: Vec<(String, String, String, Option<String>)>, // (name, file, key, scenario)
}

impl Collector {
    fn phrase(&mut self, file: &str, key: &str, scenario: Option<&str>, text: &str) -> Phrase {
        if !text.contains("{{") && !text.contains("{%") && !text.contains("{#") {
            return Phrase::Plain(text.to_string());
        }
        let name = format!("{file}#{key}");
        self.templates.push((name.clone(), text.to_string()));
        self.checks.push((
            name.clone(),
            file.to_string(),
            key.to_string(),
            scenario.map(str::to_string),
        ));
        Phrase::Template(name)
    }

    fn bank(&mut self, file: &str, key: &str, scenario: Option<&str>, texts: &[String]) -> Bank {
        Bank {
            phrases: texts
                .iter()
                .enumerate()
                .map(|(i, t)| self.phrase(file, &format!("{key}[{i}]"), scenario, t))
                .collect(),
            parts: Vec::new(),
        }
    }

    fn bank_def(&mut self, file: &str, key: &str, def: &BankDef) -> Bank {
        match def {
            BankDef::Variants(texts) => self.bank(file, key, None, texts),
            BankDef::Parts { parts } => Bank {
                phrases: Vec::new(),
                parts: parts
                    .iter()
                    .enumerate()
                    .map(|(p, texts)| {
                        texts
                            .iter()
                            .enumerate()
                            .map(|(i, t)| {
                                self.phrase(file, &format!("{key}.parts[{p}][{i}]"), None, t)
                            })
                            .collect()
                    })
                    .collect(),
            },
        }
    }

    fn preset(
        &mut self,
        file: &str,
        key: &str,
        scenario: Option<&str>,
        p: &PresetDef,
    ) -> PresetPhrases {
        PresetPhrases {
            response: self.phrase(file, &format!("{key}.response"), scenario, &p.response),
            accept: self.bank(
                file,
                &format!("{key}.caller_accept"),
                scenario,
                &p.caller_accept,
            ),
            near_misses: p
                .near_misses
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    let k = format!("{key}.near_misses[{i}].lines");
                    self.bank(file, &k, scenario, &n.lines)
                })
                .collect(),
        }
    }

    fn probes(
        &mut self,
        file: &str,
        key: &str,
        scenario: Option<&str>,
        probes: &[ProbeDef],
    ) -> Vec<Bank> {
        probes
            .iter()
            .enumerate()
            .map(|(i, p)| self.bank(file, &format!("{key}[{i}].asks"), scenario, &p.asks))
            .collect()
    }
}

/// Sample variables for validating templates: every slot with its first value, every
/// turn-level variable with a stand-in.
fn sample_vars(slots: &BTreeMap<String, Vec<String>>) -> Vars {
    let first: BTreeMap<String, String> = slots
        .iter()
        .map(|(k, v)| (k.clone(), v.first().cloned().unwrap_or_default()))
        .collect();
    let mut v = Vars::new(&first, "王先生", "他", "小刘");
    for k in ["topic", "preset", "topics"] {
        v.set(k, "示例");
    }
    v
}

impl Phrasebook {
    /// Compiles the generic banks (`(file, text)` of `templates/caller.toml`,
    /// `templates/assistant.toml`), the lexicon (`templates/lexicon.toml`) and every text of
    /// the scenario set; renders each template once with sample variables so that a wrong
    /// variable is reported at load, with its file and key, and never mid-run.
    pub fn build(
        set: &ScenarioSet,
        caller_banks: (&str, &str),
        assistant_banks: (&str, &str),
        lexicon: (&str, &str),
        library_files: &[String],
    ) -> Result<Phrasebook> {
        let mut c = Collector {
            templates: Vec::new(),
            checks: Vec::new(),
        };
        let mut banks = HashMap::new();
        let mut caller_styles = None;
        for ((file, text), required, prefix) in [
            (caller_banks, CALLER_BANKS, "caller"),
            (assistant_banks, ASSISTANT_BANKS, "assistant"),
        ] {
            let toml_err = |e: toml::de::Error| PhraseError::Toml {
                file: file.to_string(),
                message: e.to_string(),
            };
            let mut table: toml::Table = toml::from_str(text).map_err(toml_err)?;
            // The caller's file also says how personas speak (`[styles]`); every other key is
            // a bank.
            if prefix == "caller" {
                let styles = table.remove("styles").ok_or_else(|| PhraseError::Toml {
                    file: file.to_string(),
                    message: "missing table `styles` (how personas change the caller's speech)"
                        .into(),
                })?;
                caller_styles = Some(CallerStyles::parse(file, styles)?);
            }
            let parsed: BankFile = toml::Value::Table(table).try_into().map_err(toml_err)?;
            for name in required {
                if parsed.0.get(*name).is_none_or(BankDef::is_empty) {
                    return Err(PhraseError::MissingBank {
                        file: file.to_string(),
                        bank: name.to_string(),
                    });
                }
            }
            for (name, def) in &parsed.0 {
                let bank = c.bank_def(file, name, def);
                banks.insert(format!("{prefix}.{name}"), bank);
            }
        }
        let caller_styles = caller_styles.unwrap_or_default();
        let lexicon: Lexicon = toml::from_str(lexicon.1).map_err(|e| PhraseError::Toml {
            file: lexicon.0.to_string(),
            message: e.to_string(),
        })?;

        let lib_file = library_files
            .first()
            .map(String::as_str)
            .unwrap_or("scenarios/common");
        let shared_emergent: Vec<PresetPhrases> = set
            .emergent_presets
            .iter()
            .enumerate()
            .map(|(i, p)| c.preset(lib_file, &format!("emergent_presets[{i}]"), None, p))
            .collect();
        let shared_probes = c.probes(lib_file, "probes", None, &set.probes);

        let mut scenarios = HashMap::new();
        for s in &set.scenarios {
            let f = &s.file;
            let file = s.source.as_str();
            let name = Some(s.name());
            let sp = ScenarioPhrases {
                roles: f
                    .roles
                    .iter()
                    .enumerate()
                    .map(|(i, r)| RolePhrases {
                        self_intro: c.bank(
                            file,
                            &format!("roles[{i}].self_intro"),
                            name,
                            &r.self_intro,
                        ),
                    })
                    .collect(),
                goals: f
                    .goals
                    .iter()
                    .enumerate()
                    .map(|(i, g)| GoalPhrases {
                        goal: c.phrase(file, &format!("goals[{i}].goal"), name, &g.goal),
                        opening: c.bank(file, &format!("goals[{i}].opening"), name, &g.opening),
                        details: c.bank(file, &format!("goals[{i}].details"), name, &g.details),
                        asks: c.bank(file, &format!("goals[{i}].asks"), name, &g.asks),
                    })
                    .collect(),
                events: f
                    .events
                    .iter()
                    .enumerate()
                    .map(|(i, e)| EventPhrases {
                        description: c.phrase(
                            file,
                            &format!("events[{i}].description"),
                            name,
                            &e.description,
                        ),
                        topic: c.phrase(file, &format!("events[{i}].topic"), name, &e.topic),
                        reveal: c.bank(file, &format!("events[{i}].reveal"), name, &e.reveal),
                        asks: c.bank(file, &format!("events[{i}].asks"), name, &e.asks),
                    })
                    .collect(),
                probes: c.probes(file, "probes", name, &f.probes),
                regular_presets: f
                    .regular_presets
                    .iter()
                    .enumerate()
                    .map(|(i, p)| c.preset(file, &format!("regular_presets[{i}]"), name, p))
                    .collect(),
                emergent_presets: f
                    .emergent_presets
                    .iter()
                    .enumerate()
                    .map(|(i, p)| c.preset(file, &format!("emergent_presets[{i}]"), name, p))
                    .collect(),
            };
            scenarios.insert(s.name().to_string(), sp);
        }

        let mut tera = Tera::default();
        // One batch: tera rebuilds its inheritance chains on every add, so adding thousands of
        // templates one by one would be quadratic.
        if let Err(e) =
            tera.add_raw_templates(c.templates.iter().map(|(n, t)| (n.as_str(), t.as_str())))
        {
            let (file, key) = find_culprit(&c.templates, &e);
            return Err(PhraseError::Template {
                file,
                key,
                message: error_chain(&e),
            });
        }
        // Render every template once with the variables its scenario provides.
        let mut sample_cache: HashMap<Option<String>, Vars> = HashMap::new();
        for (name, file, key, scenario) in &c.checks {
            let vars = sample_cache.entry(scenario.clone()).or_insert_with(|| {
                let mut slots = set.slots.clone();
                if let Some(s) = scenario.as_deref().and_then(|n| set.get(n)) {
                    slots.extend(s.file.slots.clone());
                    // A dependent slot's sample goes with its parent's first value.
                    for (k, dep) in &s.file.dependent_slots {
                        let parent = s.file.slots.get(&dep.on).and_then(|v| v.first());
                        let values = parent.and_then(|p| dep.values.get(p)).cloned();
                        slots.insert(k.clone(), values.unwrap_or_default());
                    }
                }
                sample_vars(&slots)
            });
            if let Err(e) = tera.render(name, &vars.ctx) {
                return Err(PhraseError::Template {
                    file: file.clone(),
                    key: key.clone(),
                    message: error_chain(&e),
                });
            }
        }
        Ok(Phrasebook {
            tera,
            banks,
            scenarios,
            shared_emergent,
            shared_probes,
            lexicon,
            caller_styles,
        })
    }

    /// A generic bank, e.g. `assistant.relay`. Required banks always exist after `build`; an
    /// unknown name gives an empty bank (see [`Phrasebook::try_bank`]).
    pub fn bank(&self, name: &str) -> &Bank {
        static EMPTY: Bank = Bank {
            phrases: Vec::new(),
            parts: Vec::new(),
        };
        self.banks.get(name).unwrap_or(&EMPTY)
    }

    /// A generic bank by name; a bank that does not exist, or has no variant, is an error naming
    /// it (an agent must never fall silent because a bank is missing).
    pub fn try_bank(&self, name: &str) -> Result<&Bank> {
        match self.banks.get(name) {
            Some(b) if !b.is_empty() => Ok(b),
            _ => {
                let (prefix, bank) = name.split_once('.').unwrap_or(("", name));
                Err(PhraseError::MissingBank {
                    file: format!("templates/{prefix}.toml"),
                    bank: bank.to_string(),
                })
            }
        }
    }

    /// The phrases of a scenario.
    pub fn scenario(&self, name: &str) -> Option<&ScenarioPhrases> {
        self.scenarios.get(name)
    }

    /// Renders one phrase.
    pub fn render(&self, phrase: &Phrase, vars: &Vars) -> Result<String> {
        match phrase {
            Phrase::Plain(s) => Ok(s.clone()),
            Phrase::Template(name) => {
                self.tera
                    .render(name, &vars.ctx)
                    .map_err(|e| PhraseError::Render {
                        name: name.clone(),
                        message: error_chain(&e),
                    })
            }
        }
    }

    /// Draws a variant of `bank` and renders it; an empty bank says nothing.
    pub fn say<R: Rng + ?Sized>(&self, bank: &Bank, rng: &mut R, vars: &Vars) -> Result<String> {
        if !bank.parts.is_empty() {
            let mut out = String::new();
            for part in &bank.parts {
                if part.is_empty() {
                    continue;
                }
                let i = rng.random_range(0..part.len());
                out.push_str(&self.render(&part[i], vars)?);
            }
            return Ok(out);
        }
        if bank.phrases.is_empty() {
            return Ok(String::new());
        }
        let i = rng.random_range(0..bank.phrases.len());
        self.render(&bank.phrases[i], vars)
    }

    /// Draws from a generic bank by name; a missing or empty bank is an error naming it.
    pub fn say_bank<R: Rng + ?Sized>(
        &self,
        name: &str,
        rng: &mut R,
        vars: &Vars,
    ) -> Result<String> {
        self.say(self.try_bank(name)?, rng, vars)
    }

    /// How many templates were compiled.
    pub fn template_count(&self) -> usize {
        self.tera.get_template_names().count()
    }
}

fn error_chain(e: &tera::Error) -> String {
    let mut msg = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(s) = src {
        msg.push_str(": ");
        msg.push_str(&s.to_string());
        src = s.source();
    }
    msg
}

fn find_culprit(templates: &[(String, String)], e: &tera::Error) -> (String, String) {
    let text = error_chain(e);
    for (name, _) in templates {
        if text.contains(name.as_str())
            && let Some((file, key)) = name.split_once('#')
        {
            return (file.to_string(), key.to_string());
        }
    }
    ("templates".to_string(), "?".to_string())
}
