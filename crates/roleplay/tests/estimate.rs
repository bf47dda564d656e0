//! `generate --dry-run`'s figures against a computation by hand from the played transcripts:
//! calls, tokens, cost and hours, on the whole plan and on a sample of it.

mod support;

use callbench_model::{Plan, Speaker};
use llm_agent::PromptKind;
use llm_client::{EndpointConfig, LlmConfig, Price, estimate_tokens};
use quality_checker::UncertainPolicy;
use roleplay::backend::{assistant_prompt_vars, caller_prompt_vars};
use roleplay::{Backend, Director, GenerateConfig, SimBackend};
use std::sync::Arc;
use support::{library, local_rt};

/// Caller and assistant on different models at different prices, a caller reply cap low
/// enough to bite, and two endpoints whose limits add up.
fn llm() -> LlmConfig {
    let mut llm = LlmConfig {
        endpoints: vec![
            EndpointConfig {
                rpm: 100,
                ..Default::default()
            },
            EndpointConfig {
                name: "second".into(),
                rpm: 20,
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    llm.caller.model = "caller-model".into();
    llm.caller.max_tokens = 12;
    llm.assistant.model = "assistant-model".into();
    llm.assistant.max_tokens = 300;
    llm.prices.insert(
        "caller-model".into(),
        Price {
            input_per_million: 1.0,
            output_per_million: 3.0,
        },
    );
    llm.prices.insert(
        "assistant-model".into(),
        Price {
            input_per_million: 2.0,
            output_per_million: 5.0,
        },
    );
    llm.currency = "CNY".into();
    llm
}

/// Per role `(calls, prompt tokens, completion tokens)` of the dialogues at `indices`, by the
/// model the estimate documents: every turn is one call of its speaker's role whose input is
/// the role's system prompt, 10 tokens of framing and every earlier turn (its tokens + 4), and
/// whose output is the utterance + 20 tokens of JSON, at most the role's `max_tokens`.
fn by_hand(
    lib: &Arc<roleplay::Library>,
    plan: &Plan,
    indices: &[u64],
    max_turns: usize,
) -> [(u64, u64, u64); 2] {
    let director = Director::new(lib.clone());
    let rt = local_rt();
    let mut roles = [(0u64, 0u64, 0u64); 2];
    for &i in indices {
        let d = plan.get(i).unwrap();
        let setup = director.cast(plan.cell(&d), &d, d.seed).unwrap();
        let played = rt
            .block_on(SimBackend.play(lib, &setup, max_turns, 0))
            .unwrap();
        let system = [
            estimate_tokens(
                &lib.prompts
                    .render(
                        PromptKind::Caller,
                        &setup.header.scenario,
                        &caller_prompt_vars(lib, &setup),
                    )
                    .unwrap(),
            ),
            estimate_tokens(
                &lib.prompts
                    .render(
                        PromptKind::Assistant,
                        &setup.header.scenario,
                        &assistant_prompt_vars(&setup),
                    )
                    .unwrap(),
            ),
        ];
        let cap = [12u64, 300];
        let texts: Vec<u64> = played
            .turns
            .iter()
            .map(|t| estimate_tokens(&t.text))
            .collect();
        for (j, t) in played.turns.iter().enumerate() {
            let r = usize::from(t.speaker == Speaker::Assistant);
            let earlier: u64 = texts[..j].iter().map(|n| n + 4).sum();
            roles[r].0 += 1;
            roles[r].1 += system[r] + 10 + earlier;
            roles[r].2 += (texts[j] + 20).min(cap[r]);
        }
    }
    roles
}

fn check(count: u64, sample: u64, indices: Vec<u64>) {
    let lib = library();
    let cfg = GenerateConfig {
        count,
        seed: 77,
        ..Default::default()
    };
    let plan = Plan::build(&lib.set, cfg.seed, cfg.count, &cfg.distribution).unwrap();
    let hand = by_hand(&lib, &plan, &indices, cfg.max_turns);
    let scale = count as f64 / indices.len() as f64;
    let scaled = |x: u64| (x as f64 * scale).round() as u64;

    let rt = local_rt();
    let est = rt
        .block_on(roleplay::estimate::estimate(
            lib.clone(),
            &cfg,
            &llm(),
            sample,
        ))
        .unwrap();
    assert_eq!(est.dialogues, count);
    assert_eq!(est.sampled, indices.len() as u64);
    let c = &est.roles["caller"];
    let a = &est.roles["assistant"];
    assert_eq!(
        (c.model.as_str(), a.model.as_str()),
        ("caller-model", "assistant-model")
    );
    assert_eq!(
        (c.calls, c.prompt_tokens, c.completion_tokens),
        (scaled(hand[0].0), scaled(hand[0].1), scaled(hand[0].2))
    );
    assert_eq!(
        (a.calls, a.prompt_tokens, a.completion_tokens),
        (scaled(hand[1].0), scaled(hand[1].1), scaled(hand[1].2))
    );
    // The caller's cap of 12 tokens binds on every caller turn (20 tokens of JSON alone).
    assert_eq!(hand[0].2, 12 * hand[0].0);
    assert!(
        hand[1].2 > 20 * hand[1].0,
        "the assistant's 300 does not bind"
    );
    let turns = hand[0].0 + hand[1].0;
    assert!((est.mean_turns - turns as f64 / indices.len() as f64).abs() < 1e-9);
    assert_eq!(est.calls, c.calls + a.calls);
    assert_eq!(
        est.tokens,
        c.prompt_tokens + c.completion_tokens + a.prompt_tokens + a.completion_tokens
    );
    let caller_cost = (c.prompt_tokens as f64 * 1.0 + c.completion_tokens as f64 * 3.0) / 1e6;
    let assistant_cost = (a.prompt_tokens as f64 * 2.0 + a.completion_tokens as f64 * 5.0) / 1e6;
    assert!(
        (c.cost - caller_cost).abs() < 1e-12,
        "{} {caller_cost}",
        c.cost
    );
    assert!((a.cost - assistant_cost).abs() < 1e-12);
    assert!((est.cost - caller_cost - assistant_cost).abs() < 1e-12);
    assert_eq!(est.currency, "CNY");
    // 100 + 20 requests a minute.
    assert!((est.hours_at_rpm_limit - est.calls as f64 / 120.0 / 60.0).abs() < 1e-12);
}

/// A plan no larger than the sample: every dialogue is played, nothing is scaled.
#[test]
fn dry_run_figures_on_a_whole_plan_equal_the_hand_computation() {
    check(24, 400, (0..24).collect());
}

/// 30 dialogues estimated from 7: every 30/7 = 4th from the start, scaled by 30/7.
#[test]
fn dry_run_figures_on_a_sample_are_scaled_to_the_plan() {
    check(30, 7, vec![0, 4, 8, 12, 16, 20, 24]);
}

/// One endpoint without a limit: the run's duration cannot be estimated, and is not.
#[test]
fn an_unlimited_endpoint_gives_no_duration() {
    let lib = library();
    let cfg = GenerateConfig {
        count: 5,
        ..Default::default()
    };
    let mut llm = llm();
    llm.endpoints[1].rpm = 0;
    let rt = local_rt();
    let est = rt
        .block_on(roleplay::estimate::estimate(lib, &cfg, &llm, 400))
        .unwrap();
    assert!(est.calls > 0);
    assert_eq!(est.hours_at_rpm_limit, 0.0);
}

/// A role on endpoints of its own is limited by their rate, the others by the shared one: the
/// run lasts as long as the slower pool.
#[test]
fn each_pool_of_endpoints_takes_its_roles_calls_at_its_own_rate() {
    let lib = library();
    let cfg = GenerateConfig {
        count: 5,
        ..Default::default()
    };
    let mut llm = llm();
    llm.caller.endpoints = vec![EndpointConfig {
        name: "caller-own".into(),
        rpm: 7,
        ..Default::default()
    }];
    let rt = local_rt();
    let est = rt
        .block_on(roleplay::estimate::estimate(lib, &cfg, &llm, 400))
        .unwrap();
    let (c, a) = (&est.roles["caller"], &est.roles["assistant"]);
    let want = (c.calls as f64 / 7.0).max(a.calls as f64 / 120.0) / 60.0;
    assert!(c.calls > 0 && a.calls > 0);
    assert!(
        (est.hours_at_rpm_limit - want).abs() < 1e-12,
        "{} {want}",
        est.hours_at_rpm_limit
    );
    // The caller's own endpoint without a limit: no figure.
    llm.caller.endpoints[0].rpm = 0;
    let est = rt
        .block_on(roleplay::estimate::estimate(library(), &cfg, &llm, 400))
        .unwrap();
    assert_eq!(est.hours_at_rpm_limit, 0.0);
}

/// The judge's `(calls, prompt tokens, completion tokens)` for the dialogues at `indices`, by the
/// model the estimate documents: one scoring call per assistant turn (`judge.tera` for that turn
/// and 10 tokens in; 90 tokens out, at most `max_tokens`), and, when uncertain findings are put
/// to the judge, 36/576 questions per dialogue (the held-out sets' rate, BENCHMARKS.md), each
/// priced as the question about its last assistant turn (and 10 tokens in; 40 out).
fn judge_by_hand(
    lib: &Arc<roleplay::Library>,
    plan: &Plan,
    indices: &[u64],
    max_turns: usize,
    judge_max_tokens: u64,
    questions: bool,
) -> (f64, f64, f64) {
    let director = Director::new(lib.clone());
    let rt = local_rt();
    let rate = 36.0 / 576.0;
    let (mut calls, mut prompt, mut completion) = (0.0, 0.0, 0.0);
    for &i in indices {
        let d = plan.get(i).unwrap();
        let setup = director.cast(plan.cell(&d), &d, d.seed).unwrap();
        let played = rt
            .block_on(SimBackend.play(lib, &setup, max_turns, 0))
            .unwrap();
        let mut dialogue = setup.header.clone();
        dialogue.turns = played.turns;
        for (j, t) in dialogue.turns.iter().enumerate() {
            if t.speaker != Speaker::Assistant {
                continue;
            }
            let vars = serde_json::json!({
                "presets": dialogue.owner.presets, "private": dialogue.owner.private,
                "public": dialogue.owner.public, "turns": dialogue.turns, "turn": j,
            });
            let text = lib
                .prompts
                .render(PromptKind::Judge, &dialogue.scenario, &vars)
                .unwrap();
            calls += 1.0;
            prompt += (estimate_tokens(&text) + 10) as f64;
            completion += 90u64.min(judge_max_tokens) as f64;
        }
        if questions {
            let f = roleplay::estimate::priced_question(&dialogue).unwrap();
            let last = dialogue
                .turns
                .iter()
                .rposition(|t| t.speaker == Speaker::Assistant)
                .unwrap();
            assert_eq!((f.kind.as_str(), f.turn), ("safety.decision", last));
            let text = roleplay::judge::question_prompt(lib, &dialogue, &f).unwrap();
            calls += rate;
            prompt += rate * (estimate_tokens(&text) + 10) as f64;
            completion += rate * 40u64.min(judge_max_tokens) as f64;
        }
    }
    (calls, prompt, completion)
}

fn check_judged(count: u64, sample: u64, indices: Vec<u64>, uncertain: UncertainPolicy) {
    let lib = library();
    let mut cfg = GenerateConfig {
        count,
        seed: 77,
        ..Default::default()
    };
    cfg.judge.enabled = true;
    cfg.check.uncertain = uncertain;
    let mut llm = llm();
    llm.judge.model = "judge-model".into();
    llm.judge.max_tokens = 60;
    llm.prices.insert(
        "judge-model".into(),
        Price {
            input_per_million: 4.0,
            output_per_million: 8.0,
        },
    );
    let plan = Plan::build(&lib.set, cfg.seed, cfg.count, &cfg.distribution).unwrap();
    let questions = uncertain == UncertainPolicy::AskJudge;
    let (calls, prompt, completion) =
        judge_by_hand(&lib, &plan, &indices, cfg.max_turns, 60, questions);
    let scale = count as f64 / indices.len() as f64;
    let scaled = |x: f64| (x * scale).round() as u64;
    let rt = local_rt();
    let est = rt
        .block_on(roleplay::estimate::estimate(
            lib.clone(),
            &cfg,
            &llm,
            sample,
        ))
        .unwrap();
    let j = &est.roles["judge"];
    assert_eq!(j.model, "judge-model");
    assert_eq!(
        (j.calls, j.prompt_tokens, j.completion_tokens),
        (scaled(calls), scaled(prompt), scaled(completion))
    );
    let cost = (j.prompt_tokens as f64 * 4.0 + j.completion_tokens as f64 * 8.0) / 1e6;
    assert!((j.cost - cost).abs() < 1e-12, "{} {cost}", j.cost);
    // The caller and the assistant are priced as without the judge.
    let hand = by_hand(&lib, &plan, &indices, cfg.max_turns);
    assert_eq!(est.roles["caller"].calls, scaled(hand[0].0 as f64));
    assert_eq!(est.roles["assistant"].calls, scaled(hand[1].0 as f64));
    assert_eq!(
        est.calls,
        est.roles["caller"].calls + est.roles["assistant"].calls + j.calls
    );
}

/// The judge on, uncertain findings put to it (the default): its scores and its questions.
#[test]
fn dry_run_prices_the_judges_scores_and_its_questions() {
    check_judged(24, 400, (0..24).collect(), UncertainPolicy::AskJudge);
    check_judged(
        30,
        7,
        vec![0, 4, 8, 12, 16, 20, 24],
        UncertainPolicy::AskJudge,
    );
}

/// `uncertain = "report"`: the judge only scores; no question is priced.
#[test]
fn dry_run_prices_no_question_when_uncertain_findings_are_only_reported() {
    check_judged(24, 400, (0..24).collect(), UncertainPolicy::Report);
}
