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
}

/// Plays dialogues from setups.
pub trait Backend: Send + Sync + 'static {
    /// `sim`, `openai`, …
    fn name(&self) -> &'static str;
    /// The models per role, for provenance.
    fn models(&self) -> std::collections::BTreeMap<String, String>;
    /// Plays one dialogue.
    fn play(
        &self,
        lib: &Library,
        setup: &Setup<'_>,
        max_turns: usize,
    ) -> impl Future<Output = Result<Played, AgentError>> + Send;
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
    ) -> Result<Played, AgentError> {
        let mut caller = SimCaller::new(
            &lib.set,
            setup.scenario,
            &lib.book,
            setup.casting,
            setup.vars.clone(),
            setup.caller_seed,
        )?;
        let presets = match setup.preset_def {
            Some(def) => setup
                .header
                .owner
                .presets
                .iter()
                .map(|p| HeldPreset {
                    preset: p.clone(),
                    def,
                })
                .collect(),
            None => Vec::new(),
        };
        let mut assistant = SimAssistant::new(
            setup.scenario,
            &lib.book,
            presets,
            setup.vars.clone(),
            setup.assistant_seed,
        );
        let (turns, ending) = play(&mut caller, &mut assistant, max_turns).await?;
        Ok(Played { turns, ending })
    }
}
