//! The role-play loop: caller and assistant take turns until the assistant closes the call
//! (the caller may say goodbye back), the caller hangs up (the assistant gets a last word), or
//! the turn cap is reached.

use callbench_model::{AgentError, AssistantAgent, CallerAgent, Speaker, Turn};

/// Why a call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The assistant closed it.
    Closed,
    /// The caller hung up and the assistant had its last word.
    CallerHungUp,
    /// The turn cap was reached.
    TurnCap,
}

/// Plays one call between `caller` and `assistant`, at most `max_turns` turns.
pub async fn play<C: CallerAgent, A: AssistantAgent>(
    caller: &mut C,
    assistant: &mut A,
    max_turns: usize,
) -> Result<(Vec<Turn>, Ending), AgentError> {
    let mut turns: Vec<Turn> = Vec::with_capacity(16);
    loop {
        if turns.len() >= max_turns {
            return Ok((turns, Ending::TurnCap));
        }
        let c = caller.reply(&turns).await?;
        turns.push(Turn {
            speaker: Speaker::Caller,
            text: c.text,
            action: None,
            preset_id: None,
        });
        let a = assistant.reply(&turns).await?;
        turns.push(Turn {
            speaker: Speaker::Assistant,
            text: a.text,
            action: Some(a.action),
            preset_id: a.preset_id,
        });
        if a.end_call {
            // The caller may say goodbye back; the call then ends on its words.
            if turns.len() < max_turns
                && let Some(text) = caller.last_word(&turns)?
            {
                turns.push(Turn {
                    speaker: Speaker::Caller,
                    text,
                    action: None,
                    preset_id: None,
                });
            }
            return Ok((turns, Ending::Closed));
        }
        if c.end_call {
            return Ok((turns, Ending::CallerHungUp));
        }
    }
}
