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
    /// New facts that can make a preset wrong.
    pub new_fact: Vec<String>,
    /// A caller's offer that commits the owner to nothing.
    pub offer: Vec<String>,
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
    /// A caller pleading or insisting to be passed on: a push against a protective preset.
    pub plea: Vec<String>,
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
            ("new_fact", &c.new_fact),
            ("offer", &c.offer),
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
            ("plea", &c.plea),
        ] {
            assert!(!list.is_empty(), "{name} is empty");
            assert!(
                list.iter().all(|w| !w.trim().is_empty()),
                "{name} has a blank word"
            );
        }
    }
}
