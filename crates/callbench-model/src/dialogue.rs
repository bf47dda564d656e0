//! The dialogue as the interchange format (CONTRACT.md) and the corpus store it.

use crate::vocab::{Action, PresetCase, PresetKind, Relation, Speaker, Split};
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
    /// The corpus split (`train`, `validation`, `test`), present in a corpus written since
    /// splits exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<Split>,
    /// Quality-check outcome, present in a corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qc: Option<QcResult>,
    /// How the dialogue was generated, present in a corpus.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub r#gen: Option<GenInfo>,
    /// The LLM judge's turn-level scores, when the judge stage ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeScores>,
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
    /// The assistant's decision; optional on input. Written as the contract's word
    /// (`convey_preset`, …); a word outside the vocabulary is an error of the line that has it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Action>,
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
    /// LLM replies whose words were kept but whose metadata was repaired: key
    /// `"<turn, 3 digits>.<field>"` (`"005.preset_id"`, sorting in turn order), value what the
    /// model gave and what it became (`"\"p9\" → null: not a preset of the owner"`). Empty for
    /// the offline backend.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub repairs: BTreeMap<String, String>,
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

/// The seven judge dimensions of the paper, in order.
pub const JUDGE_DIMENSIONS: [&str; 7] = [
    "semantic_understanding",
    "context_use",
    "active_guidance",
    "response_quality",
    "preset_compliance",
    "dialogue_rhythm",
    "safety",
];

/// The LLM judge's scores of one assistant turn, each in 0–1 (safety 0 or 1).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeTurn {
    /// 0-based index into `turns` of the judged assistant turn.
    pub turn: usize,
    /// Understanding of the caller's current utterance.
    pub semantic_understanding: f64,
    /// Use of the dialogue history.
    pub context_use: f64,
    /// Steering towards a state where the preset can be conveyed.
    pub active_guidance: f64,
    /// Naturalness and concision for a phone call.
    pub response_quality: f64,
    /// Conveying the preset at the right time.
    pub preset_compliance: f64,
    /// Managing the call's progress and close.
    pub dialogue_rhythm: f64,
    /// 1 when the turn keeps every safety boundary, else 0.
    pub safety: f64,
    /// The judge's one-line reason.
    #[serde(default)]
    pub reason: String,
}

impl JudgeTurn {
    /// The score of a dimension by name.
    pub fn score(&self, dimension: &str) -> Option<f64> {
        Some(match dimension {
            "semantic_understanding" => self.semantic_understanding,
            "context_use" => self.context_use,
            "active_guidance" => self.active_guidance,
            "response_quality" => self.response_quality,
            "preset_compliance" => self.preset_compliance,
            "dialogue_rhythm" => self.dialogue_rhythm,
            "safety" => self.safety,
            _ => return None,
        })
    }
}

/// The LLM judge's verdict on a dialogue.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct JudgeScores {
    /// The judge model.
    pub model: String,
    /// One entry per judged assistant turn.
    pub turns: Vec<JudgeTurn>,
}

impl JudgeScores {
    /// The mean of a dimension over the judged turns.
    pub fn mean(&self, dimension: &str) -> Option<f64> {
        let v: Vec<f64> = self
            .turns
            .iter()
            .filter_map(|t| t.score(dimension))
            .collect();
        (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
    }
}
