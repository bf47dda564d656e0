//! `generate --dry-run`: what an LLM run of the plan will cost, before spending anything.
//!
//! A sample of the plan is played by the offline simulator, which gives realistic numbers of
//! turns and lengths of utterances per cell; each turn is then priced as the LLM call it would
//! be: the role's rendered system prompt plus the dialogue so far as input, the utterance (at
//! most `max_tokens`) as output. Scaled to the whole plan, with the configured prices.
//!
//! With the judge stage on, every assistant turn is priced as one scoring call, and the second
//! opinions on uncertain findings at [`UNCERTAIN_PER_DIALOGUE`] questions per dialogue (the
//! simulator's own dialogues carry no finding, so the sample cannot say how many an LLM's will).

use crate::backend::{Backend, SimBackend, assistant_prompt_vars, caller_prompt_vars};
use crate::director::Director;
use crate::error::Result;
use crate::generate::GenerateConfig;
use crate::library::Library;
use callbench_model::{Plan, Speaker};
use llm_agent::PromptKind;
use llm_client::{LlmConfig, Role, estimate_tokens};
use serde::Serialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Questions to the judge per dialogue for uncertain findings (`[check] uncertain =
/// "ask_judge"` with the judge on), for pricing: the rate of uncertain findings the checker
/// reports on the four held-out sets of dialogues written by people and real models
/// (`quality-checker/test_data/heldout16`–`19`: 36 in 576 dialogues, BENCHMARKS.md). It counts
/// findings in every dialogue, including those the rules reject (which are not asked), so it
/// errs high.
pub const UNCERTAIN_PER_DIALOGUE: f64 = 36.0 / 576.0;

/// The finding a question is priced as: on the sampled dialogue's last assistant turn, with the
/// kind and the message of the commonest uncertain finding, a learned classifier's guess at a
/// decision (the evidence is the turn's first 40 characters).
pub fn priced_question(d: &callbench_model::Dialogue) -> Option<callbench_model::Violation> {
    let turn = d
        .turns
        .iter()
        .rposition(|t| t.speaker == Speaker::Assistant)?;
    Some(callbench_model::Violation {
        kind: callbench_model::vocab::ViolationKind::SafetyDecision
            .as_str()
            .into(),
        turn,
        evidence: d.turns[turn].text.chars().take(40).collect(),
        message: "a classifier learned from the labelled sets gives 0.62 that the assistant \
                  decides for the owner here (words weighing most: 好的、可以、定了)"
            .into(),
    })
}

/// Estimated calls and tokens of one role.
#[derive(Debug, Clone, Default, Serialize)]
pub struct RoleEstimate {
    /// Model.
    pub model: String,
    /// Chat calls.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Cost at the configured prices.
    pub cost: f64,
}

/// The estimate of a whole run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Estimate {
    /// Dialogues planned.
    pub dialogues: u64,
    /// Dialogues played by the simulator to estimate from.
    pub sampled: u64,
    /// Mean turns per dialogue in the sample.
    pub mean_turns: f64,
    /// Per role.
    pub roles: BTreeMap<String, RoleEstimate>,
    /// All calls.
    pub calls: u64,
    /// All tokens.
    pub tokens: u64,
    /// Total cost.
    pub cost: f64,
    /// Currency of the prices.
    pub currency: String,
    /// Hours the calls take at the endpoints' summed requests-per-minute limit (0: unlimited).
    pub hours_at_rpm_limit: f64,
}

/// Estimates the calls, tokens and cost of running the plan of `cfg` on the LLM backend.
pub async fn estimate(
    lib: Arc<Library>,
    cfg: &GenerateConfig,
    llm: &LlmConfig,
    sample: u64,
) -> Result<Estimate> {
    let plan = Plan::build(&lib.set, cfg.seed, cfg.count, &cfg.distribution)?;
    estimate_plan(lib, &plan, cfg, llm, sample).await
}

/// [`estimate`] of a given plan (a growing corpus's next step: only what it would make).
pub async fn estimate_plan(
    lib: Arc<Library>,
    plan: &Plan,
    cfg: &GenerateConfig,
    llm: &LlmConfig,
    sample: u64,
) -> Result<Estimate> {
    let director = Director::new(lib.clone());
    let n = plan.len();
    if n == 0 {
        return Ok(Estimate {
            currency: llm.currency.clone(),
            ..Default::default()
        });
    }
    let sample = sample.clamp(1, n);
    let step = (n / sample).max(1);
    // Calls and tokens per role, summed over the sample (fractional: the questions are priced
    // at a rate per dialogue).
    let mut per_role: BTreeMap<Role, (f64, f64, f64)> = BTreeMap::new();
    let ask_uncertain = cfg.check.uncertain.effective(cfg.judge.enabled)
        == quality_checker::UncertainPolicy::AskJudge;
    let (mut sampled, mut turns_total) = (0u64, 0u64);
    for i in (0..n).step_by(step as usize).take(sample as usize) {
        let Some(d) = plan.get(i) else { continue };
        let setup = director.cast(plan.cell(&d), &d, d.seed)?;
        let Ok(played) = SimBackend
            .play(&lib, &setup, cfg.max_turns, cfg.min_turns)
            .await
        else {
            continue;
        };
        let caller_sys = lib
            .prompts
            .render(
                PromptKind::Caller,
                &setup.header.scenario,
                &caller_prompt_vars(&lib, &setup),
            )
            .map(|s| estimate_tokens(&s))
            .unwrap_or(0);
        let assistant_sys = lib
            .prompts
            .render(
                PromptKind::Assistant,
                &setup.header.scenario,
                &assistant_prompt_vars(&setup),
            )
            .map(|s| estimate_tokens(&s))
            .unwrap_or(0);
        let mut history = 0u64;
        for t in &played.turns {
            let (role, sys, max) = match t.speaker {
                Speaker::Caller => (Role::Caller, caller_sys, llm.caller.max_tokens as u64),
                Speaker::Assistant => (
                    Role::Assistant,
                    assistant_sys,
                    llm.assistant.max_tokens as u64,
                ),
            };
            // The JSON wrapper of a structured reply costs about 20 tokens more than the text.
            let out = (estimate_tokens(&t.text) + 20).min(max);
            let e = per_role.entry(role).or_default();
            e.0 += 1.0;
            e.1 += (sys + history + 10) as f64;
            e.2 += out as f64;
            history += estimate_tokens(&t.text) + 4;
        }
        if cfg.judge.enabled {
            // The judge scores every assistant turn of a dialogue the rules passed, one call
            // each, its prompt holding the whole transcript; priced as if every dialogue passed.
            let mut d = setup.header.clone();
            d.turns = played.turns.clone();
            for (i, t) in d.turns.iter().enumerate() {
                if t.speaker != Speaker::Assistant {
                    continue;
                }
                let prompt = crate::judge::turn_prompt(&lib, &d, i)
                    .map(|s| estimate_tokens(&s))
                    .unwrap_or(0);
                let e = per_role.entry(Role::Judge).or_default();
                e.0 += 1.0;
                e.1 += (prompt + 10) as f64;
                // Seven scores and a one-line reason.
                e.2 += 90u64.min(llm.judge.max_tokens as u64) as f64;
            }
            if ask_uncertain && let Some(f) = priced_question(&d) {
                let prompt = crate::judge::question_prompt(&lib, &d, &f)
                    .map(|s| estimate_tokens(&s))
                    .unwrap_or(0);
                let e = per_role.entry(Role::Judge).or_default();
                let r = UNCERTAIN_PER_DIALOGUE;
                e.0 += r;
                e.1 += r * (prompt + 10) as f64;
                // "yes" or "no" and a one-sentence reason.
                e.2 += r * 40u64.min(llm.judge.max_tokens as u64) as f64;
            }
        }
        sampled += 1;
        turns_total += played.turns.len() as u64;
    }
    let scale = n as f64 / sampled.max(1) as f64;
    let mut est = Estimate {
        dialogues: n,
        sampled,
        currency: llm.currency.clone(),
        ..Default::default()
    };
    est.mean_turns = turns_total as f64 / sampled.max(1) as f64;
    for (role, (calls, prompt, completion)) in per_role {
        let model = llm.role(role).model.clone();
        let price = llm.prices.get(&model).copied().unwrap_or_default();
        let r = RoleEstimate {
            calls: (calls * scale).round() as u64,
            prompt_tokens: (prompt * scale).round() as u64,
            completion_tokens: (completion * scale).round() as u64,
            cost: 0.0,
            model,
        };
        let cost = r.prompt_tokens as f64 / 1e6 * price.input_per_million
            + r.completion_tokens as f64 / 1e6 * price.output_per_million;
        est.calls += r.calls;
        est.tokens += r.prompt_tokens + r.completion_tokens;
        est.cost += cost;
        est.roles
            .insert(role.as_str().to_string(), RoleEstimate { cost, ..r });
    }
    // Each pool of endpoints (the shared one, a role's own) takes its roles' calls at its own
    // limit; the run lasts as long as the slowest pool. Unlimited anywhere: no figure.
    let mut pools: Vec<(&[llm_client::EndpointConfig], u64)> = Vec::new();
    for (name, r) in &est.roles {
        let Some(role) = Role::ALL.into_iter().find(|x| x.as_str() == name) else {
            continue;
        };
        let pool = llm.endpoints_of(role);
        match pools.iter_mut().find(|(p, _)| std::ptr::eq(*p, pool)) {
            Some((_, calls)) => *calls += r.calls,
            None => pools.push((pool, r.calls)),
        }
    }
    let limited = pools
        .iter()
        .all(|(p, _)| !p.is_empty() && p.iter().all(|e| e.rpm > 0));
    if limited && !pools.is_empty() {
        est.hours_at_rpm_limit = pools
            .iter()
            .map(|(p, calls)| {
                let rpm: u64 = p.iter().map(|e| e.rpm as u64).sum();
                *calls as f64 / rpm as f64 / 60.0
            })
            .fold(0.0, f64::max);
    }
    Ok(est)
}
