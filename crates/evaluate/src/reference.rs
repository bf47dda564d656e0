//! The `reference` method: the embedded offline assistant (`SimAssistant`) behind the
//! [`Method`] seam.
//!
//! The offline assistant is a stateful agent (what it heard, whether it conveyed or held the
//! preset, the wordings it already used) with words drawn from the scenario library for the
//! dialogue's variables. A [`CallView`] carries neither its variables nor its state, so the
//! method **reconstructs** both for every reply:
//!
//! 1. the dialogue's setup is cast again from the corpus row's own sub-seed (`gen.seed`) with
//!    the scenario library (`roleplay::Director`), exactly as `generate` cast it — the
//!    presets with their cue words, the owner's title, the variables and the assistant's seed;
//! 2. a fresh assistant hears every caller turn of the view in order, and its state follows its
//!    own replies; the reply to the last caller turn is the answer.
//!
//! On a corpus generated offline with the same library, step 2 replays the corpus's own
//! assistant turns, so in turn mode the reference method reproduces the corpus's reference
//! turns exactly (a test holds this). On a corpus played by models, the offline assistant's
//! state is that of its own replies to the same caller turns. A library that casts a different
//! owner or preset than the corpus row holds is refused, naming the dialogue.
//! Replies are not timed (`latency_ms` 0): offline replies take microseconds, and timing them
//! would make two runs' results differ.

use crate::error::{EvalError, Result};
use assistant_agent::{HeldPreset, SimAssistant};
use callbench_model::plan::{Cell, PlannedDialogue};
use callbench_model::{
    AgentError, AssistantAgent, CallView, Dialogue, Method, MethodReply, Speaker,
};
use roleplay::{Director, Library, Setup};
use std::collections::HashMap;
use std::sync::Arc;

/// The name `--methods` takes.
pub const REFERENCE: &str = "reference";

/// The embedded offline assistant as a [`Method`].
pub struct ReferenceMethod {
    director: Arc<Director>,
    /// Per dialogue id: its cell and the sub-seed it was generated with.
    casts: HashMap<String, (Cell, u64)>,
    fingerprint: String,
}

impl ReferenceMethod {
    /// The reference method for the corpus dialogues `dialogues` (those it may be asked about),
    /// casting with the library of `director`.
    pub fn new(director: Arc<Director>, dialogues: &[Dialogue]) -> Result<ReferenceMethod> {
        let mut casts = HashMap::with_capacity(dialogues.len());
        for d in dialogues {
            let seed = d
                .r#gen
                .as_ref()
                .map(|g| g.seed)
                .ok_or_else(|| EvalError::Dialogue {
                    id: d.id.clone(),
                    message: "no `gen` column: the reference assistant needs the dialogue's seed (regenerate the corpus)".into(),
                })?;
            casts.insert(
                d.id.clone(),
                (
                    Cell {
                        scenario: d.scenario.clone(),
                        preset_case: d.preset_case,
                        relation: d.relation,
                    },
                    seed,
                ),
            );
        }
        let fingerprint = format!(
            "sim-assistant-{}-lib-{}",
            env!("CARGO_PKG_VERSION"),
            director.lib.set.digest
        );
        Ok(ReferenceMethod {
            director,
            casts,
            fingerprint,
        })
    }

    /// The library the method casts with.
    pub fn library(&self) -> &Arc<Library> {
        &self.director.lib
    }
}

/// Casts dialogue `id` of `cell` with `seed` again, and checks that the library still gives it
/// the owner and caller the corpus row has (`header`), so that a replay is of the same call.
pub fn recast<'a>(
    director: &'a Director,
    id: &str,
    cell: &Cell,
    seed: u64,
    header: Option<&Dialogue>,
) -> Result<Setup<'a>, AgentError> {
    let planned = PlannedDialogue {
        index: 0,
        id: id.to_string(),
        cell: 0,
        seed,
    };
    let setup = director
        .cast(cell, &planned, seed)
        .map_err(|e| AgentError {
            role: "assistant",
            message: e.to_string(),
        })?;
    if let Some(h) = header
        && (setup.header.owner != h.owner || setup.header.caller != h.caller)
    {
        return Err(AgentError {
            role: "assistant",
            message: format!(
                "the scenario library casts dialogue {id} otherwise than the corpus holds it \
                 (another library or version generated the corpus): evaluate with the library \
                 that generated it (--scenarios, --templates), or regenerate the corpus"
            ),
        });
    }
    Ok(setup)
}

impl Method for ReferenceMethod {
    fn name(&self) -> &str {
        REFERENCE
    }

    fn fingerprint(&self) -> String {
        self.fingerprint.clone()
    }

    async fn respond(&self, view: &CallView<'_>) -> Result<MethodReply, AgentError> {
        let (cell, seed) = self.casts.get(view.dialogue_id).ok_or_else(|| AgentError {
            role: "assistant",
            message: format!(
                "the reference assistant was not given dialogue {} (only corpus dialogues can be replayed)",
                view.dialogue_id
            ),
        })?;
        let setup = recast(&self.director, view.dialogue_id, cell, *seed, None)?;
        if setup.header.owner.presets.as_slice() != view.presets {
            return Err(AgentError {
                role: "assistant",
                message: format!(
                    "the scenario library casts other presets for dialogue {} than the corpus holds: evaluate with the library that generated the corpus",
                    view.dialogue_id
                ),
            });
        }
        let lib = &self.director.lib;
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
        let mut last = None;
        for (i, t) in view.turns.iter().enumerate() {
            if t.speaker == Speaker::Caller {
                last = Some(assistant.reply(&view.turns[..=i]).await?);
            }
        }
        let reply = last.ok_or_else(|| AgentError {
            role: "assistant",
            message: "asked to speak before the caller has".into(),
        })?;
        Ok(MethodReply {
            end_call: reply.end_call,
            text: reply.text,
            action: Some(reply.action),
            preset_id: reply.preset_id,
            trace: Vec::new(),
            usage: Default::default(),
        })
    }
}
