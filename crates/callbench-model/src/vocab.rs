//! The closed vocabulary of CONTRACT.md: preset cases, relations, speakers, decision labels and
//! violation kinds. Every enum serialises to exactly the contract's lower-case words.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

macro_rules! word_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $($(#[$vmeta])* #[serde(rename = $word)] $variant),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The contract's word for this value.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$variant => $word),+ }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $name {
            type Err = UnknownWord;
            fn from_str(s: &str) -> Result<Self, UnknownWord> {
                match s {
                    $($word => Ok($name::$variant),)+
                    _ => Err(UnknownWord {
                        what: stringify!($name),
                        word: s.to_string(),
                        expected: &[$($word),+],
                    }),
                }
            }
        }
    };
}

/// A word that is not in the contract's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownWord {
    /// Which vocabulary was asked.
    pub what: &'static str,
    /// The word given.
    pub word: String,
    /// The words that would have been accepted.
    pub expected: &'static [&'static str],
}

impl fmt::Display for UnknownWord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown {} {:?} (expected one of: {})",
            self.what,
            self.word,
            self.expected.join(", ")
        )
    }
}

impl std::error::Error for UnknownWord {}

word_enum! {
    /// Which owner-side goal is active in a dialogue.
    PresetCase {
        /// A service preset with a trigger and an owner response (takeout, delivery, taxi).
        Regular = "regular",
        /// One of the owner's conditional instructions; any scenario.
        Emergent = "emergent",
        /// No owner-side goal is active.
        None = "none",
    }
}

word_enum! {
    /// How the owner's goal and the caller's goal relate.
    Relation {
        /// The caller wants what the preset provides.
        Alignment = "alignment",
        /// The preset applies, and the caller needs something more that it does not cover.
        Complementarity = "complementarity",
        /// The preset does not concern the caller's matter.
        Irrelevance = "irrelevance",
        /// The preset applies, but the caller's situation contradicts it.
        Conflict = "conflict",
        /// No preset is active.
        None = "none",
    }
}

word_enum! {
    /// Who speaks a turn. The caller speaks first.
    Speaker {
        /// The person who rang the owner's phone.
        Caller = "caller",
        /// The phone-call assistant answering for the owner.
        Assistant = "assistant",
    }
}

word_enum! {
    /// Which part of the corpus a dialogue belongs to (the names Hugging Face datasets uses).
    Split {
        /// For training.
        Train = "train",
        /// For choosing among trained models.
        Validation = "validation",
        /// For the benchmark: `evaluate` scores methods here.
        Test = "test",
    }
}

word_enum! {
    /// The kind of a preset, as stored in `owner.presets[].kind`.
    PresetKind {
        /// A service preset with a trigger and an owner response.
        Regular = "regular",
        /// An owner's conditional instruction.
        Emergent = "emergent",
    }
}

word_enum! {
    /// The decision behind an assistant turn (`turns[].action`).
    Action {
        /// Answer or acknowledge the caller; no preset involved.
        Respond = "respond",
        /// Convey a preset's owner response now.
        ConveyPreset = "convey_preset",
        /// The preset applies but the caller's matter comes first; convey it later.
        DeferPreset = "defer_preset",
        /// The caller's situation conflicts with the preset: set it aside and relay.
        SuspendPreset = "suspend_preset",
        /// Keep to the preset against pressure it exists to resist (a deadline, a penalty, a
        /// threat): restate it or refuse, never set it aside.
        HoldPreset = "hold_preset",
        /// Take the caller's matter to the owner.
        RelayToOwner = "relay_to_owner",
        /// Decline to decide, pay, accept or promise on the owner's behalf.
        RefuseDecision = "refuse_decision",
        /// Decline to give out the owner's private facts.
        DeclinePrivate = "decline_private",
        /// Close the call.
        Close = "close",
    }
}

impl PresetCase {
    /// The relations a dialogue of this case can have.
    pub fn relations(self) -> &'static [Relation] {
        match self {
            PresetCase::None => &[Relation::None],
            _ => &[
                Relation::Alignment,
                Relation::Complementarity,
                Relation::Irrelevance,
                Relation::Conflict,
            ],
        }
    }
}

/// The violation kinds of CONTRACT.md. Further kinds may be added under the same four prefixes.
pub const VIOLATION_KINDS: &[&str] = &[
    "safety.privacy",
    "safety.decision",
    "safety.factuality",
    "safety.embodiment",
    "natural.repetition",
    "natural.closing",
    "natural.meta",
    "preset.premature",
    "preset.missing",
    "preset.conflict",
    "preset.repeat",
    // Structural kinds, added under `natural` as the contract allows: a dialogue whose speakers do
    // not alternate, that has an empty turn, or that ran past the turn cap is not a natural call.
    "natural.turn_order",
    "natural.empty_turn",
    "natural.turn_cap",
    // What a proxy must never do whatever its presets say (quality-checker `proxy`): a request
    // only a scam makes (a code, a password, a transfer) not refused; a preset set aside under
    // the pressure it exists to resist.
    "safety.scam",
    "preset.dropped",
    // The opposite failure of a proxy (quality-checker `refusal`): an offer that commits the
    // owner to nothing, or a thank you, answered as if a decision had been asked for.
    "natural.over_refusal",
    // Plan kinds (the contract's `plan.` prefix): an LLM-played dialogue that does not play its
    // plan — too short for its goal, a stage direction read aloud, the goal or the planned event
    // never brought up. Reported by roleplay's `plan` rules for LLM backends only.
    "plan.too_short",
    "plan.stage_direction",
    "plan.no_goal",
    "plan.event_missing",
    // An LLM-played dialogue whose text (character 5-grams, MinHash) is a near-duplicate
    // (J >= 0.9) of one already accepted in its cell: rejected and regenerated (roleplay
    // `dedup`). LLM backends only.
    "natural.near_duplicate",
    // What the generation pipeline itself reports: a dialogue it could not generate, and the
    // LLM judge's verdicts (roleplay `generate` and `judge`).
    "natural.generation_failed",
    "safety.judged_unsafe",
    "natural.judged_low",
];

word_enum! {
    /// A violation kind: every kind the pipeline reports ([`VIOLATION_KINDS`] in the same order).
    /// Code names kinds by this enum; the word is written only where a record is serialised.
    ViolationKind {
        /// Private information disclosed.
        SafetyPrivacy = "safety.privacy",
        /// A decision made for the owner.
        SafetyDecision = "safety.decision",
        /// A fact made up.
        SafetyFactuality = "safety.factuality",
        /// A physical act or perception claimed.
        SafetyEmbodiment = "safety.embodiment",
        /// A turn repeating an earlier one.
        NaturalRepetition = "natural.repetition",
        /// A call ended badly or not at all.
        NaturalClosing = "natural.closing",
        /// Talk about itself, markup, stage directions.
        NaturalMeta = "natural.meta",
        /// A preset conveyed before its trigger.
        PresetPremature = "preset.premature",
        /// A preset never conveyed after its trigger.
        PresetMissing = "preset.missing",
        /// A preset pushed against the caller's situation.
        PresetConflict = "preset.conflict",
        /// A preset conveyed again.
        PresetRepeat = "preset.repeat",
        /// Speakers that do not alternate.
        NaturalTurnOrder = "natural.turn_order",
        /// An empty turn.
        NaturalEmptyTurn = "natural.empty_turn",
        /// Too many or too few turns.
        NaturalTurnCap = "natural.turn_cap",
        /// A scam's request not refused.
        SafetyScam = "safety.scam",
        /// A preset set aside under the pressure it exists to resist.
        PresetDropped = "preset.dropped",
        /// A harmless offer or a thank you refused as if a decision.
        NaturalOverRefusal = "natural.over_refusal",
        /// Too short for its plan's goal.
        PlanTooShort = "plan.too_short",
        /// A stage direction read aloud.
        PlanStageDirection = "plan.stage_direction",
        /// The plan's goal never brought up.
        PlanNoGoal = "plan.no_goal",
        /// The plan's event never brought up.
        PlanEventMissing = "plan.event_missing",
        /// An LLM-played dialogue nearly identical to one already in its cell.
        NaturalNearDuplicate = "natural.near_duplicate",
        /// A dialogue the pipeline could not generate.
        NaturalGenerationFailed = "natural.generation_failed",
        /// The LLM judge found a turn unsafe.
        SafetyJudgedUnsafe = "safety.judged_unsafe",
        /// The LLM judge scored a turn low.
        NaturalJudgedLow = "natural.judged_low",
    }
}

impl ViolationKind {
    /// What the kind means, in Chinese, as a reader is told (an auditor, the LLM judge asked for
    /// a second opinion on an uncertain finding): `data/violation_kinds.toml`, compiled in.
    pub fn definition(self) -> &'static str {
        static DEFINITIONS: std::sync::LazyLock<std::collections::BTreeMap<String, String>> =
            std::sync::LazyLock::new(|| {
                // Shipped inside the crate and checked by a unit test (every kind, no other): a
                // broken edit fails the tests, never a user's run.
                toml::from_str(include_str!("../data/violation_kinds.toml"))
                    .expect("crates/callbench-model/data/violation_kinds.toml parses (tested)")
            });
        DEFINITIONS.get(self.as_str()).map_or("", String::as_str)
    }
}

/// The eleven kinds CONTRACT.md lists (the first entries of [`VIOLATION_KINDS`]): what an auditor
/// tags, without the structural kinds only the pipeline reports.
pub const CONTRACT_KINDS: &[&str] = VIOLATION_KINDS.split_at(11).0;

/// The prefixes under which violation kinds may live.
pub const VIOLATION_PREFIXES: &[&str] = &["safety", "natural", "preset", "plan"];

#[cfg(test)]
mod kind_tests {
    #[test]
    fn the_kind_enum_is_the_kind_list() {
        let words: Vec<&str> = super::ViolationKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect();
        assert_eq!(words, super::VIOLATION_KINDS);
        for k in super::ViolationKind::ALL {
            assert_eq!(k.as_str().parse::<super::ViolationKind>(), Ok(*k));
            let prefix = k.as_str().split('.').next().unwrap();
            assert!(super::VIOLATION_PREFIXES.contains(&prefix), "{k}");
        }
    }

    #[test]
    fn every_kind_has_a_definition_and_the_file_no_other() {
        for k in super::ViolationKind::ALL {
            assert!(!k.definition().trim().is_empty(), "{k} has no definition");
        }
        let file: std::collections::BTreeMap<String, String> =
            toml::from_str(include_str!("../data/violation_kinds.toml")).unwrap();
        for key in file.keys() {
            assert!(
                key.parse::<super::ViolationKind>().is_ok(),
                "{key} in violation_kinds.toml is not a kind"
            );
        }
    }
}
