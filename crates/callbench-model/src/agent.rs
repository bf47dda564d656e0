//! The agent interface: what the role-play engine asks of a caller and of an assistant.
//! The offline agents (`caller-agent`, `assistant-agent`) and the LLM-backed ones implement
//! the same two traits, so the engine does not know which backend speaks.

use crate::dialogue::Turn;
use crate::vocab::Action;
use std::future::Future;

/// A caller's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct CallerReply {
    /// What the caller says.
    pub text: String,
    /// The caller hangs up after this turn (the assistant still gets a last word).
    pub end_call: bool,
}

/// An assistant's turn.
#[derive(Debug, Clone, PartialEq)]
pub struct AssistantReply {
    /// What the assistant says.
    pub text: String,
    /// The decision behind it.
    pub action: Action,
    /// The preset the decision concerns.
    pub preset_id: Option<String>,
    /// The assistant closes the call with this turn.
    pub end_call: bool,
}

/// Why an agent could not produce a turn. The engine records it with the dialogue and the
/// run goes on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{role} agent: {message}")]
pub struct AgentError {
    /// `caller` or `assistant`.
    pub role: &'static str,
    /// What went wrong.
    pub message: String,
}

/// The caller side of a call. `turns` is the dialogue so far, as the caller heard it.
pub trait CallerAgent: Send {
    /// The caller's next turn.
    fn reply(
        &mut self,
        turns: &[Turn],
    ) -> impl Future<Output = Result<CallerReply, AgentError>> + Send;

    /// What the caller says after the assistant has closed the call ("好嘞，拜拜。"), if
    /// anything; the call then ends on the caller. By default nothing: the assistant's
    /// closing turn is the last.
    fn last_word(&mut self, _turns: &[Turn]) -> Result<Option<String>, AgentError> {
        Ok(None)
    }
}

/// The assistant side of a call. `turns` is the dialogue so far; the last turn is the caller's.
pub trait AssistantAgent: Send {
    /// The assistant's next turn.
    fn reply(
        &mut self,
        turns: &[Turn],
    ) -> impl Future<Output = Result<AssistantReply, AgentError>> + Send;
}
