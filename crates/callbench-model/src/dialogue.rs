//! The dialogue as the interchange format (CONTRACT.md) and the corpus store it.

use crate::vocab::{PresetCase, PresetKind, Relation, Speaker};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One phone call between a caller and the assistant answering for the owner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dialogue {
    /// Stable id, `<scenario>-<6-digit number>`.
    pub id: String,
    /// Scenario name (`takeout`, `delivery`, … or one added as a file).
    pub scenario: String,
    /// Which owner-side goal is active.
    pub preset_case: PresetCase,
    /// How the owner's goal relates to the caller's.
    pub relation: Relation,
    /// The phone's owner: synthetic profile and presets.
    pub owner: Owner,
    /// The caller: role and hidden goal.
    pub caller: Caller,
    /// The call, caller first.
    pub turns: Vec<Turn>,
    /// Quality-check outcome, present in a corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qc: Option<QcResult>,
    /// How the dialogue was generated, present in a corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#gen: Option<GenInfo>,
}

/// The owner of the phone. Always synthetic.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Owner {
    /// The owner's (synthetic) full name.
    pub name: String,
    /// Facts the assistant may say (e.g. how to address the owner).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub public: BTreeMap<String, String>,
    /// Facts the assistant must never disclose.
    #[serde(default)]
    pub private: BTreeMap<String, String>,
    /// The presets active in this dialogue.
    #[serde(default)]
    pub presets: Vec<Preset>,
}

/// An owner's preset: when `trigger` holds, `response` may be said.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preset {
    /// Id within the dialogue (`p1`, …).
    pub id: String,
    /// Regular service preset or emergent conditional instruction.
    pub kind: PresetKind,
    /// The condition, in words.
    pub trigger: String,
    /// What the owner allows the assistant to say.
    pub response: String,
}

/// The caller and their hidden goal.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Caller {
    /// Who is calling (`外卖骑手`, …).
    pub role: String,
    /// What the caller wants from the call.
    pub goal: String,
    /// How the caller talks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// Mid-call events on the caller's agenda, in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<String>,
}

/// One turn of the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    /// Who speaks.
    pub speaker: Speaker,
    /// What is said.
    pub text: String,
    /// The assistant's decision label (`crate::Action` words); optional on input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    /// The preset the decision concerns; optional on input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset_id: Option<String>,
}

/// The quality checker's outcome for a dialogue.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct QcResult {
    /// Whether the dialogue is accepted into the corpus.
    pub passed: bool,
    /// What was found, turn by turn.
    #[serde(default)]
    pub violations: Vec<Violation>,
}

/// One finding of the quality checker or an auditor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// A violation kind of the contract's vocabulary (`safety.decision`, …).
    pub kind: String,
    /// 0-based index into `turns`.
    pub turn: usize,
    /// The words that show it.
    pub evidence: String,
    /// What is wrong, for a person.
    pub message: String,
}

/// Provenance of a generated dialogue.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct GenInfo {
    /// `sim` or `openai`.
    pub backend: String,
    /// Model per role (`caller`, `assistant`, `judge`).
    #[serde(default)]
    pub models: BTreeMap<String, String>,
    /// The dialogue's own sub-seed (the run seed is in the manifest).
    pub seed: u64,
    /// How many times the dialogue was generated before it was accepted (0 = first try).
    #[serde(default)]
    pub attempt: u32,
    /// Versions of the tool, the scenario library and the templates.
    #[serde(default)]
    pub versions: BTreeMap<String, String>,
}

impl Dialogue {
    /// The preset with this id, if the owner has it.
    pub fn preset(&self, id: &str) -> Option<&Preset> {
        self.owner.presets.iter().find(|p| p.id == id)
    }

    /// Total characters spoken, for summaries.
    pub fn char_count(&self) -> usize {
        self.turns.iter().map(|t| t.text.chars().count()).sum()
    }
}
