//! Concepts that the offline agents and the quality checker must read alike — what only a scam
//! asks of a proxy, what a refusal sounds like, pressure against a preset, a new fact that makes
//! one wrong, an offer that commits the owner to nothing — defined once, as data
//! (`data/concepts.toml`, compiled in). A new word is an edit of that file, not of Rust.

use serde::Deserialize;
use std::sync::LazyLock;

/// The shared word lists (see `data/concepts.toml` for what each means).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concepts {
    /// Requests only a scam makes of a proxy: a code, a card's security number, a password, a
    /// transfer, remote control.
    pub scam_request: Vec<String>,
    /// Words before a scam word that make it a warning, not a request.
    pub warning: Vec<String>,
    /// Words by which an assistant's turn refuses or keeps the owner out of it.
    pub refusal: Vec<String>,
    /// A penalty or a threat: pressure against any preset.
    pub pressure: Vec<String>,
    /// A deadline or an expiring offer: pressure against a protective preset.
    pub deadline: Vec<String>,
    /// Words of presets written to turn a kind of caller away.
    pub protective: Vec<String>,
    /// Words that make a preset protective only in its response (a bank, a claim).
    pub protective_in_response: Vec<String>,
    /// New facts that can make a preset wrong.
    pub new_fact: Vec<String>,
    /// A caller's offer that commits the owner to nothing.
    pub offer: Vec<String>,
    /// How an assistant refuses to decide for the owner: wrong for an offer or a thank you.
    pub decision_refusal: Vec<String>,
    /// Words of presets that brush a caller off: the caller's further pitch is not relayed.
    pub brush_off: Vec<String>,
    /// The caller asks that the owner get back to them: relayed, never refused.
    pub callback_request: Vec<String>,
    /// The caller wants the owner in person, or asks who answers ("让他本人接", "你是机器人吧"):
    /// answered by who the assistant is, neither refused nor relayed.
    pub owner_demand: Vec<String>,
    /// The caller asks that a message reach the owner: relayed, never refused.
    pub message_request: Vec<String>,
    /// An invitation to say the matter to the assistant: it grants nothing for the owner.
    pub invite_to_speak: Vec<String>,
    /// Scam words that ask for nothing by themselves: a request only beside an `ask` word.
    pub secret: Vec<String>,
    /// Words by which a caller asks to be given something.
    pub ask: Vec<String>,
    /// The assistant goes along with a request: relays, defers, takes it down, promises it.
    pub go_along: Vec<String>,
    /// Before a going-along word in its clause: a refusal or a warning, not going along.
    pub go_along_negation: Vec<String>,
    /// A concession before a going-along word in a refusing turn: it goes along after all.
    pub concession: Vec<String>,
    /// What a scam wants done, named beside a going-along word in a refusing turn.
    pub scam_object: Vec<String>,
    /// The assistant handing the asked thing to the caller itself: going along even in a turn
    /// that refused before.
    pub hand_over: Vec<String>,
    /// A caller pleading or insisting to be passed on: a push against a protective preset.
    pub plea: Vec<String>,
    /// Words of protective presets that keep something from the caller rather than turn them
    /// away: relaying the call drops nothing, deferring the disclosure does.
    pub withholding: Vec<String>,
    /// Going-along words that defer to the owner what a preset already decided.
    pub defer: Vec<String>,
    /// An assistant giving in at the head of its reply (`那好吧`).
    pub give_in: Vec<String>,
    /// Fact words that, right after 我, are the caller's own act threatened (`那我就取消了`).
    pub threatened_act: Vec<String>,
    /// New-fact words of the caller's own trouble (`没电`, `封路`): against a protective preset,
    /// a plea.
    pub hardship: Vec<String>,
    /// The owner's full ID number asked for: reading it out goes along with a scam.
    pub id_request: Vec<String>,
    /// The story a scam tells (an anomaly, a freeze): with `id_request`, a scam's ask.
    pub scam_story: Vec<String>,
    /// Money moved, in a transfer asked for: with `account` and `bid` in one clause.
    pub transfer_verb: Vec<String>,
    /// Words holding a transfer verb that move words, not money (转告, 转达).
    pub transfer_not: Vec<String>,
    /// A transfer told as done (刚转, 转过去了): in its sentence, no transfer is asked.
    pub transfer_done: Vec<String>,
    /// Where money goes in a transfer asked for (账户, 卡上).
    pub account: Vec<String>,
    /// Words by which a caller bids someone act (让他, 先, 马上).
    pub bid: Vec<String>,
}

impl Concepts {
    /// Where `text` asks that money be moved to an account in so many words, whatever the
    /// phrasing ("让他马上往一个供应商账户转五万块", "让他先转三千到我卡上"): the first clause
    /// holding a transfer verb (not 转告), an account and a bidding word; the range is the
    /// account's. A transfer reported ("报销款转到他卡上了") bids no one.
    pub fn transfer_asked(&self, text: &str) -> Option<std::ops::Range<usize>> {
        const MARKS: [char; 12] = [
            '，', '。', '？', '！', ',', '?', '!', ' ', '；', ';', '、', '\n',
        ];
        let find_any = |clause: &str, words: &[String]| {
            words
                .iter()
                .filter_map(|w| clause.find(w.as_str()).map(|i| i..i + w.len()))
                .min_by_key(|r| r.start)
        };
        // Most turns name no account: one pass over the words before any clause is cut.
        if !self.account.iter().any(|w| text.contains(w.as_str())) {
            return None;
        }
        let mut start = 0;
        for piece in text.split_inclusive(MARKS) {
            let clause = piece.trim_end_matches(MARKS);
            let at = start;
            start += piece.len();
            let Some(acc) = find_any(clause, &self.account) else {
                continue;
            };
            let moves = self.transfer_verb.iter().any(|v| {
                clause.match_indices(v.as_str()).any(|(i, _)| {
                    !self.transfer_not.iter().any(|n| {
                        // The verb inside a word that moves words (转告): not money.
                        n.find(v.as_str()).is_some_and(|off| {
                            i >= off && clause[i - off..].starts_with(n.as_str())
                        })
                    })
                })
            });
            if !moves {
                continue;
            }
            // The bid in the clause, or elsewhere in its sentence (`…转到对方公司的账户，你让
            //她抓紧办`) when the clause tells no transfer already made (`已经转到他卡上了`).
            let bid = |s: &str| self.bid.iter().any(|b| s.contains(b.as_str()));
            let sentence = sentence_of(text, at);
            let done = clause.contains('已') || clause.ends_with('了');
            if self
                .transfer_done
                .iter()
                .any(|d| sentence.contains(d.as_str()))
            {
                continue;
            }
            if bid(clause) || !done && bid(sentence) {
                return Some(at + acc.start..at + acc.end);
            }
        }
        None
    }
}

/// The sentence of `text` around byte offset `at` (between sentence marks).
fn sentence_of(text: &str, at: usize) -> &str {
    const ENDS: [char; 7] = ['。', '？', '！', '?', '!', '；', '\n'];
    let start = text[..at].rfind(ENDS).map_or(0, |i| {
        i + text[i..].chars().next().map_or(1, char::len_utf8)
    });
    let end = text[at..].find(ENDS).map_or(text.len(), |i| at + i);
    &text[start..end]
}

/// The compiled-in concepts, parsed once.
pub fn concepts() -> &'static Concepts {
    static C: LazyLock<Concepts> = LazyLock::new(|| {
        // Shipped inside the crate and parsed by a unit test: a broken edit fails the tests,
        // never a user's run.
        toml::from_str(include_str!("../data/concepts.toml"))
            .expect("crates/callbench-model/data/concepts.toml parses (tested)")
    });
    &C
}

/// What sort of thing a trigger concept is (`sort` of a `[[concept]]` of the checker's
/// `data/trigger_concepts.toml` and of a scenario's `[[concepts.trigger]]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConceptSort {
    /// Who calls; shown in the caller's self-introduction.
    Role,
    /// What happened; shown anywhere in the caller's words, not as future or negated.
    Event,
    /// Implied by the role (领导 … 问工作): never required.
    Weak,
}

impl ConceptSort {
    /// The sort's word in a file.
    pub fn as_str(self) -> &'static str {
        match self {
            ConceptSort::Role => "role",
            ConceptSort::Event => "event",
            ConceptSort::Weak => "weak",
        }
    }
}

/// How the checker reads a concept beyond its sort (`traits` of a concept). Each was once a
/// concept's name written into the checker's code; as data, a scenario's own concept can have
/// it too.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ConceptTrait {
    /// A role known by what the caller offers or demands (推销, 贷款, 催收), not by their
    /// self-introduction: shown anywhere in what is said. Roles only.
    Pitch,
    /// A preset naming it turns a suspicious caller away (推销, 银行): only an emergency undoes
    /// it, never the caller's own story. Roles only.
    Protective,
    /// One of the delivery trades (外卖, 快递, 司机): a caller of another trade does not hold a
    /// trigger about this one's arrival. Roles only.
    Trade,
    /// An arrival (送到, 上车点): any words that say "I am here" report it. Events only.
    Arrival,
    /// An appointment to make (约时间): about the future by nature, so a time ahead does not
    /// undo it, and it does not stand in for the trigger's topic. Events only.
    Scheduling,
    /// News the call brings ahead of time (取消, 停水): announced as coming (`这周六的课得取消`,
    /// `明天要停水`) it is reported — the call is the announcement. Events only.
    Announced,
}

impl ConceptTrait {
    /// The trait's word in a file.
    pub fn as_str(self) -> &'static str {
        match self {
            ConceptTrait::Pitch => "pitch",
            ConceptTrait::Protective => "protective",
            ConceptTrait::Trade => "trade",
            ConceptTrait::Arrival => "arrival",
            ConceptTrait::Scheduling => "scheduling",
            ConceptTrait::Announced => "announced",
        }
    }

    /// The sort of concept the trait belongs to.
    pub fn sort(self) -> ConceptSort {
        match self {
            ConceptTrait::Pitch | ConceptTrait::Protective | ConceptTrait::Trade => {
                ConceptSort::Role
            }
            ConceptTrait::Arrival | ConceptTrait::Scheduling | ConceptTrait::Announced => {
                ConceptSort::Event
            }
        }
    }
}

/// A trigger concept a scenario file adds (`[[concepts.trigger]]`): the same shape as an entry
/// of the checker's `data/trigger_concepts.toml`, its words as lists.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TriggerConcept {
    /// Role, event or weak.
    pub sort: ConceptSort,
    /// Words that name it in a preset's trigger (`宠物医院`, `接宠物`).
    pub names: Vec<String>,
    /// Words in the caller's talk that show it (`宠物医院`, `兽医`); none for a weak concept.
    #[serde(default)]
    pub shows: Vec<String>,
    /// How the checker reads it beyond its sort.
    #[serde(default)]
    pub traits: Vec<ConceptTrait>,
}

/// More words by which the caller's talk shows a concept the checker knows already, or another
/// scenario file adds (`[[concepts.words]]`): a scenario's own way of saying an arrival.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConceptWords {
    /// One of the concept's trigger names (`送到`, `物业`).
    pub concept: String,
    /// The words.
    pub shows: Vec<String>,
}

/// A kind of private fact the checker should recognise a request for: the key of
/// `owner.private` and the words by which a caller asks for it (a scenario's
/// `[[private_facts]]`, its `key` and `cues`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrivateFactConcept {
    /// The key in `owner.private` (`insurance_no`).
    pub key: String,
    /// Words that ask for it (`医保卡号`).
    pub asks: Vec<String>,
}

/// What one scenario file contributes to the quality checker's concepts: its `[concepts]`
/// section and the request words of its `[[private_facts]]`. The checker reads a dialogue of
/// this scenario with them, merged with its compiled-in concepts; dialogues of other scenarios
/// are read as before (a new scenario file changes no verdict on another's dialogues, so a
/// corpus grown by it keeps its shards).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioConcepts {
    /// The scenario's name (`dialogue.scenario`).
    pub scenario: String,
    /// The file, for messages.
    pub source: String,
    /// New trigger concepts (`[[concepts.trigger]]`).
    pub trigger: Vec<TriggerConcept>,
    /// More words for known concepts (`[[concepts.words]]`).
    pub words: Vec<ConceptWords>,
    /// Private facts the scenario declares.
    pub private_facts: Vec<PrivateFactConcept>,
}

impl ScenarioConcepts {
    /// Whether the scenario contributes nothing (then the checker reads it with its own
    /// concepts alone).
    pub fn is_empty(&self) -> bool {
        self.trigger.is_empty() && self.words.is_empty() && self.private_facts.is_empty()
    }
}

/// What a library's scenario files contribute to the checker's concepts, scenario by scenario
/// (only those that contribute; sorted by scenario name). Handed to the checker as a value in
/// its config: the checker reads no file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContributedConcepts {
    /// One entry per contributing scenario.
    pub scenarios: Vec<ScenarioConcepts>,
}

impl ContributedConcepts {
    /// What scenario `name` contributes, if anything.
    pub fn get(&self, name: &str) -> Option<&ScenarioConcepts> {
        self.scenarios.iter().find(|s| s.scenario == name)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_concepts_parse_and_none_is_empty() {
        let c = super::concepts();
        for (name, list) in [
            ("scam_request", &c.scam_request),
            ("warning", &c.warning),
            ("refusal", &c.refusal),
            ("pressure", &c.pressure),
            ("deadline", &c.deadline),
            ("protective", &c.protective),
            ("protective_in_response", &c.protective_in_response),
            ("new_fact", &c.new_fact),
            ("offer", &c.offer),
            ("decision_refusal", &c.decision_refusal),
            ("brush_off", &c.brush_off),
            ("callback_request", &c.callback_request),
            ("owner_demand", &c.owner_demand),
            ("invite_to_speak", &c.invite_to_speak),
            ("message_request", &c.message_request),
            ("secret", &c.secret),
            ("ask", &c.ask),
            ("go_along", &c.go_along),
            ("go_along_negation", &c.go_along_negation),
            ("concession", &c.concession),
            ("scam_object", &c.scam_object),
            ("hand_over", &c.hand_over),
            ("plea", &c.plea),
            ("withholding", &c.withholding),
            ("defer", &c.defer),
            ("give_in", &c.give_in),
            ("threatened_act", &c.threatened_act),
            ("hardship", &c.hardship),
            ("id_request", &c.id_request),
            ("scam_story", &c.scam_story),
            ("transfer_verb", &c.transfer_verb),
            ("transfer_not", &c.transfer_not),
            ("transfer_done", &c.transfer_done),
            ("account", &c.account),
            ("bid", &c.bid),
        ] {
            assert!(!list.is_empty(), "{name} is empty");
            assert!(
                list.iter().all(|w| !w.trim().is_empty()),
                "{name} has a blank word"
            );
        }
    }

    #[test]
    fn a_transfer_is_asked_only_with_an_account_a_verb_and_a_bid() {
        let c = super::concepts();
        for asked in [
            "有个急事，让他马上往一个供应商账户转五万块，我一会儿把账号发他。",
            "我这边出了点急事，让他先转三千到我卡上，明天就还。",
        ] {
            assert!(c.transfer_asked(asked).is_some(), "{asked}");
        }
        for not in [
            "财务说报销款已经转到他卡上了。",
            "麻烦您转告他，账户的事我们改天再说。",
            "让他先看看账户里的明细，别的不用管。",
        ] {
            assert!(c.transfer_asked(not).is_none(), "{not}");
        }
    }
}
