//! Stand-ins for unit tests: a model that answers from a list, and a poll-once executor.

use std::sync::Mutex;

/// Answers requests with its replies in turn (the last one again once they run out), and keeps
/// the requests.
pub(crate) struct Fixed {
    replies: Vec<String>,
    pub seen: Mutex<Vec<llm_client::ChatRequest>>,
    meter: llm_client::UsageMeter,
}

impl Fixed {
    pub fn new(reply: &str) -> Self {
        Fixed::seq(&[reply])
    }

    pub fn seq(replies: &[&str]) -> Self {
        Fixed {
            replies: replies.iter().map(|s| s.to_string()).collect(),
            seen: Mutex::new(Vec::new()),
            meter: Default::default(),
        }
    }
}

impl llm_client::ChatModel for Fixed {
    async fn chat(
        &self,
        req: &llm_client::ChatRequest,
    ) -> Result<llm_client::ChatReply, llm_client::LlmError> {
        let mut seen = self.seen.lock().unwrap();
        let i = seen.len().min(self.replies.len() - 1);
        seen.push(req.clone());
        Ok(llm_client::ChatReply {
            content: self.replies[i].clone(),
            cached: false,
            prompt_tokens: 1,
            completion_tokens: 1,
            truncated: false,
        })
    }
    fn meter(&self) -> &llm_client::UsageMeter {
        &self.meter
    }
}

/// The futures here never wait: poll once.
pub(crate) fn now<F: std::future::Future>(f: F) -> F::Output {
    let mut f = std::pin::pin!(f);
    match f
        .as_mut()
        .poll(&mut std::task::Context::from_waker(std::task::Waker::noop()))
    {
        std::task::Poll::Ready(v) => v,
        std::task::Poll::Pending => panic!("the stand-in model never waits"),
    }
}
