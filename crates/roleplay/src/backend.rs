//! Backends: who speaks the turns. The offline simulator is built in; the LLM backend fills the
//! same trait.

use crate::director::Setup;
use crate::engine::{Ending, play};
use crate::library::Library;
use assistant_agent::{HeldPreset, SimAssistant};
use callbench_model::{AgentError, Turn};
use caller_agent::SimCaller;
use std::future::Future;

/// A finished role-play.
#[derive(Debug, Clone)]
pub struct Played {
    /// The turns.
    pub turns: Vec<Turn>,
    /// How it ended.
    pub ending: Ending,
    /// Replies salvaged instead of asked again, in [`GenInfo::repairs`](callbench_model::GenInfo)
    /// form (`"005.preset_id"` → what became of what); empty for the offline backend.
    pub repairs: std::collections::BTreeMap<String, String>,
}

/// Plays dialogues from setups.
pub trait Backend: Send + Sync + 'static {
    /// `sim`, `openai`, …
    fn name(&self) -> &'static str;
    /// The models per role, for provenance.
    fn models(&self) -> std::collections::BTreeMap<String, String>;
    /// Plays one dialogue of at most `max_turns` turns. A backend whose agents can close too
    /// early keeps the call going until `min_turns` (the offline agents play their agenda and
    /// ignore it, so that the offline corpus does not change).
    fn play(
        &self,
        lib: &Library,
        setup: &Setup<'_>,
        max_turns: usize,
        min_turns: usize,
    ) -> impl Future<Output = Result<Played, AgentError>> + Send;
    /// Requests, tokens and cost so far, for the manifest.
    fn usage(&self) -> serde_json::Value {
        serde_json::json!({})
    }
    /// `(requests, tokens, retries)` so far, for progress; `None` when the backend makes no calls.
    fn counters(&self) -> Option<(u64, u64, u64)> {
        None
    }
}

/// The embedded offline backend: agenda-based caller, rule-based assistant.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimBackend;

impl Backend for SimBackend {
    fn name(&self) -> &'static str {
        "sim"
    }

    fn models(&self) -> std::collections::BTreeMap<String, String> {
        [
            ("caller", "sim-agenda-caller"),
            ("assistant", "sim-rule-assistant"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
    }

    async fn play(
        &self,
        lib: &Library,
        setup: &Setup<'_>,
        max_turns: usize,
        _min_turns: usize,
    ) -> Result<Played, AgentError> {
        let mut caller = SimCaller::new(
            &lib.set,
            setup.scenario,
            &lib.book,
            setup.casting,
            setup.header.caller.persona.as_deref(),
            setup.vars.clone(),
            setup.caller_seed,
        )?;
        let presets = setup
            .header
            .owner
            .presets
            .iter()
            .zip(&setup.preset_defs)
            .map(|(p, def)| HeldPreset::new(p.clone(), def))
            .collect();
        let mut assistant = SimAssistant::new(
            setup.scenario,
            &lib.book,
            presets,
            setup.vars.clone(),
            setup.assistant_seed,
        );
        let (turns, ending) = play(&mut caller, &mut assistant, max_turns).await?;
        Ok(Played {
            turns,
            ending,
            repairs: Default::default(),
        })
    }
}

/// The LLM backend: the caller and the assistant are models (`llm_agent::LlmCaller`,
/// `llm_agent::LlmAssistant`) role-playing against each other through the same rate-limited,
/// retried, cached client.
pub struct LlmBackend<M: llm_client::ChatModel + 'static> {
    client: std::sync::Arc<M>,
    models: std::collections::BTreeMap<String, String>,
    max_invalid_replies: u32,
    usage: Box<dyn Fn() -> serde_json::Value + Send + Sync>,
}

/// The models per role an LLM run with `cfg` records (and puts in its fingerprint).
pub fn llm_models(cfg: &llm_client::LlmConfig) -> std::collections::BTreeMap<String, String> {
    [
        ("caller", &cfg.caller.model),
        ("assistant", &cfg.assistant.model),
        ("judge", &cfg.judge.model),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.clone()))
    .collect()
}

impl LlmBackend<llm_client::LlmClient> {
    /// A backend over the real client.
    pub fn new(client: std::sync::Arc<llm_client::LlmClient>) -> Self {
        let cfg = client.config();
        let models = llm_models(cfg);
        let max_invalid_replies = cfg.max_invalid_replies;
        let c = client.clone();
        let usage = Box::new(move || serde_json::to_value(c.usage()).unwrap_or_default());
        LlmBackend {
            client,
            models,
            max_invalid_replies,
            usage,
        }
    }
}

/// What the caller's prompt may say: its own role, persona, goal and events.
pub fn caller_prompt_vars(lib: &Library, setup: &Setup<'_>) -> serde_json::Value {
    let h = &setup.header;
    let sc = &setup.scenario.file.scenario;
    let _ = lib;
    serde_json::json!({
        "scenario": h.scenario,
        "scenario_title": sc.title,
        "scenario_description": sc.description,
        "role": h.caller.role,
        "persona": h.caller.persona.clone().unwrap_or_default(),
        "goal": h.caller.goal,
        "events": h.caller.events,
        "caller_name": setup.caller_name,
        "owner_title": setup.owner_title,
    })
}

/// What the assistant's prompt may say: the owner's public facts and presets.
pub fn assistant_prompt_vars(setup: &Setup<'_>) -> serde_json::Value {
    let h = &setup.header;
    serde_json::json!({
        "scenario": h.scenario,
        "scenario_title": setup.scenario.file.scenario.title,
        "owner_title": setup.owner_title,
        "public": h.owner.public,
        "presets": h.owner.presets,
        // The decision words the reply schema offers: a word added to the vocabulary is
        // described in the prompt once the enum has it (`hold_preset`).
        "actions": callbench_model::Action::ALL.iter().map(|a| a.as_str()).collect::<Vec<_>>(),
    })
}

impl<M: llm_client::ChatModel + 'static> Backend for LlmBackend<M> {
    fn name(&self) -> &'static str {
        "openai"
    }

    fn models(&self) -> std::collections::BTreeMap<String, String> {
        self.models.clone()
    }

    async fn play(
        &self,
        lib: &Library,
        setup: &Setup<'_>,
        max_turns: usize,
        min_turns: usize,
    ) -> Result<Played, AgentError> {
        use llm_agent::PromptKind;
        let render = |kind, vars: &serde_json::Value, role: &'static str| {
            lib.prompts
                .render(kind, &setup.header.scenario, vars)
                .map_err(|e| AgentError {
                    role,
                    message: e.to_string(),
                })
        };
        let caller_system = render(
            PromptKind::Caller,
            &caller_prompt_vars(lib, setup),
            "caller",
        )?;
        let assistant_system = render(
            PromptKind::Assistant,
            &assistant_prompt_vars(setup),
            "assistant",
        )?;
        let preset_ids = setup
            .header
            .owner
            .presets
            .iter()
            .map(|p| p.id.clone())
            .collect();
        let mut caller =
            llm_agent::LlmCaller::new(&*self.client, caller_system, self.max_invalid_replies)
                .with_scope(setup.caller_seed);
        let mut assistant = llm_agent::LlmAssistant::new(
            &*self.client,
            assistant_system,
            preset_ids,
            self.max_invalid_replies,
        )
        .with_scope(setup.assistant_seed)
        .with_min_turns(min_turns);
        let (turns, ending) = play(&mut caller, &mut assistant, max_turns).await?;
        let mut repairs = std::collections::BTreeMap::new();
        for (turn, note) in caller.take_repairs() {
            repairs.insert(format!("{turn:03}.end_call"), note);
        }
        for (turn, r) in assistant.take_repairs() {
            // Two repairs of one field in one turn (a salvaged `end_call` later overridden by
            // the minimum length) are kept in one entry.
            repairs
                .entry(format!("{turn:03}.{}", r.field))
                .and_modify(|v: &mut String| {
                    v.push_str("; ");
                    v.push_str(&r.note)
                })
                .or_insert(r.note);
        }
        Ok(Played {
            turns,
            ending,
            repairs,
        })
    }

    fn usage(&self) -> serde_json::Value {
        (self.usage)()
    }

    fn counters(&self) -> Option<(u64, u64, u64)> {
        let m = self.client.meter();
        Some((m.total_requests(), m.total_tokens(), m.total_retries()))
    }
}
