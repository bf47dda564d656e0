//! `generate --dry-run`'s figures against a computation by hand from the played transcripts:
//! calls, tokens, cost and hours, on the whole plan and on a sample of it.

use callbench_model::{Plan, Speaker};
use llm_agent::PromptKind;
use llm_client::{EndpointConfig, LlmConfig, Price, estimate_tokens};
use roleplay::backend::{assistant_prompt_vars, caller_prompt_vars};
use roleplay::{Backend, Director, GenerateConfig, LibraryPaths, SimBackend};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn library() -> Arc<roleplay::Library> {
    Arc::new(
        LibraryPaths {
            scenario_dirs: vec![repo().join("scenarios")],
            templates_dir: repo().join("templates"),
        }
        .load()
        .unwrap(),
    )
}

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
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
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

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
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
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
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
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
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
