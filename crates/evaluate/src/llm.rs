//! The model-played parts of a run: the `llm` judge as a [`Judge`] (the paper's protocol, on
//! `llm_agent::TurnJudge`), and the live caller's choice (the offline caller, or an LLM caller
//! from the dialogue's caller spec, persona and events).
//!
//! The harness spawns a task per dialogue, so what a task holds must live as long as the run:
//! the client is `&'static` (the command leaks one client per run and flushes its cache with
//! `LlmClient::flush_cache` before it exits, so that nothing paid for is lost).

use crate::judge::{Judge, JudgeReply, JudgeView, Scores, Verdict};
use llm_agent::{JudgeContext, TurnJudge};
use llm_client::{LlmClient, Price};

/// The judge's reply holds seven scores and seven short reasons: below this many tokens a reply
/// is cut short (and so unjudged) too often.
pub const JUDGE_MIN_MAX_TOKENS: u32 = 800;

/// `--judge llm`: each assistant turn scored on the seven dimensions by a model at temperature
/// 0 (the client's judge role: its own endpoints when configured), cached, retried and
/// rate-limited like every call. A turn the model cannot score after its re-asks is unjudged
/// with the reason.
pub struct LlmJudge {
    inner: TurnJudge<'static, LlmClient>,
    model: String,
}

impl LlmJudge {
    /// The judge on `client`'s judge role, re-asking an unusable reply `max_invalid_replies`
    /// times.
    pub fn new(client: &'static LlmClient, max_invalid_replies: u32) -> crate::Result<Self> {
        let model = client.config().judge.model.clone();
        let price = client
            .config()
            .prices
            .get(&model)
            .copied()
            .unwrap_or(Price::default());
        let inner = TurnJudge::new(client, &model, max_invalid_replies)
            .map_err(|e| crate::EvalError::Config(format!("the llm judge's prompt: {e}")))?
            .price(price);
        Ok(LlmJudge { inner, model })
    }
}

impl Judge for LlmJudge {
    fn name(&self) -> &str {
        "llm"
    }

    fn fingerprint(&self) -> String {
        self.inner.fingerprint().to_string()
    }

    fn model(&self) -> Option<String> {
        Some(self.model.clone())
    }

    async fn judge(&self, view: &JudgeView<'_>) -> JudgeReply {
        let ctx = JudgeContext::of(view.dialogue);
        let at = view.turns.len().saturating_sub(1);
        match self.inner.judge_turn(&ctx, view.turns, at).await {
            Ok(t) => JudgeReply {
                verdict: Verdict::Scored(Scores {
                    values: t.scores,
                    reasons: t.reasons,
                }),
                usage: t.usage,
            },
            Err(u) => JudgeReply {
                verdict: Verdict::Unjudged(u.reason),
                usage: u.usage,
            },
        }
    }
}

/// Who plays the caller in live mode.
#[derive(Clone, Copy, Default)]
pub enum LiveCaller {
    /// The offline caller agent (no API).
    #[default]
    Offline,
    /// A model, prompted with the scenario's caller prompt (the dialogue's role, goal, persona
    /// and events), in the client's caller role; trial `k` is its own cache scope.
    Llm {
        /// The client (its caller role's endpoints and model).
        client: &'static LlmClient,
        /// Re-asks of an unusable reply.
        max_invalid_replies: u32,
    },
}

impl std::fmt::Debug for LiveCaller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl LiveCaller {
    /// `offline`, or `llm <model>`: part of the run's fingerprint and provenance.
    pub fn describe(&self) -> String {
        match self {
            LiveCaller::Offline => "offline".into(),
            LiveCaller::Llm {
                client,
                max_invalid_replies,
            } => format!(
                "llm {} t{} r{max_invalid_replies}",
                client.config().caller.model,
                client.config().caller.temperature
            ),
        }
    }

    /// The caller's model, when it is one.
    pub fn model(&self) -> Option<String> {
        match self {
            LiveCaller::Offline => None,
            LiveCaller::Llm { client, .. } => Some(client.config().caller.model.clone()),
        }
    }
}

/// Tokens a method's reply takes to write, on average (an utterance and a decision in JSON;
/// hidden steps are about as long): for `--dry-run`.
const METHOD_REPLY_TOKENS: u64 = 80;
/// Tokens the judge's reply takes (seven scores and seven short reasons).
const JUDGE_REPLY_TOKENS: u64 = 350;
/// Tokens of the message framing the judged turn, and per message of a transcript.
const FRAMING_TOKENS: u64 = 24;

/// What `--dry-run` estimates for a run with model-played parts: every assistant turn of the
/// selection (turn mode; live mode assumes the corpus's call lengths) asks each LLM method for
/// its requests per reply (ReAct: its most), the judge once per turn when it is a model, and
/// the LLM caller once per caller turn (of every method's calls); `all_methods` counts the
/// offline ones too, whose turns the judge also scores. Prompt tokens from the rendered prompts and the call so
/// far; reply tokens from typical lengths; costs from `[llm.prices]`.
pub fn dry_run_llm(
    cfg: &crate::EvalConfig,
    dialogues: &[callbench_model::Dialogue],
    methods: &[std::sync::Arc<llm_agent::MethodSpec>],
    all_methods: usize,
    llm: &llm_client::LlmConfig,
    llm_judge: bool,
    llm_caller: bool,
) -> crate::DryRun {
    use callbench_model::{CallView, Speaker};
    use llm_client::estimate_tokens;
    let price = |model: &str| llm.prices.get(model).copied().unwrap_or_default();
    let cost = |p: Price, prompt: u64, completion: u64| {
        (prompt as f64 * p.input_per_million + completion as f64 * p.output_per_million) / 1e6
    };
    let judge_prompt = estimate_tokens(llm_agent::judge::DEFAULT_JUDGE_PROMPT);
    let mut d = crate::dry_run_offline(cfg, dialogues);
    let trials = cfg.trials as u64;
    let live_llm_caller = cfg.mode == crate::Mode::Live && llm_caller;
    for dia in dialogues {
        let mut so_far = 0u64;
        for (i, t) in dia.turns.iter().enumerate() {
            let follows_caller = i > 0 && dia.turns[i - 1].speaker == Speaker::Caller;
            if t.speaker == Speaker::Caller && live_llm_caller {
                let (p, c) = (so_far + 600, 60);
                d.tokens += (p + c) * trials * all_methods as u64;
                d.cost +=
                    cost(price(&llm.caller.model), p, c) * (trials * all_methods as u64) as f64;
                d.caller_calls += trials * all_methods as u64;
            }
            if t.speaker == Speaker::Assistant && follows_caller {
                let view = CallView {
                    dialogue_id: &dia.id,
                    scenario: &dia.scenario,
                    owner_name: &dia.owner.name,
                    public: &dia.owner.public,
                    presets: &dia.owner.presets,
                    rules: crate::RULES,
                    turns: &dia.turns[..i],
                };
                for m in methods {
                    let calls = m.requests_per_reply().1 as u64;
                    let system = m
                        .system_prompt(&view)
                        .map(|s| estimate_tokens(&s))
                        .unwrap_or(0);
                    let p = calls * (system + so_far + FRAMING_TOKENS);
                    let c = calls * METHOD_REPLY_TOKENS;
                    d.method_calls += calls * trials;
                    d.tokens += (p + c) * trials;
                    d.cost += cost(price(&llm.assistant.model), p, c) * trials as f64;
                }
                if llm_judge {
                    let facts: u64 = dia
                        .owner
                        .private
                        .values()
                        .chain(dia.owner.public.values())
                        .map(|v| estimate_tokens(v))
                        .sum();
                    let p = judge_prompt + facts + so_far + 2 * FRAMING_TOKENS;
                    let c = JUDGE_REPLY_TOKENS;
                    d.judge_calls += trials * all_methods as u64;
                    d.tokens += (p + c) * trials * all_methods as u64;
                    d.cost +=
                        cost(price(&llm.judge.model), p, c) * (trials * all_methods as u64) as f64;
                }
            }
            so_far += estimate_tokens(&t.text) + 4;
        }
    }
    d
}
