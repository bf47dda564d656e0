//! The report on a small hand-made case, every figure worked out by hand.
//!
//! Stratum A = takeout/regular/conflict: corpus a1–a4 (judged: semantic_understanding .9, .5,
//! .7, .6), and one reject r1 (checker: safety.privacy@1, natural.closing@3).
//! Stratum B = life/none/none: corpus b1–b3.
//!
//! Latest verdicts (alice changed her mind on a3):
//!
//! | id | alice                               | bob                     |
//! |----|-------------------------------------|-------------------------|
//! | a1 | accept, su 1.0                      | accept, su .5           |
//! | a2 | reject, safety.decision@1, su .25   | accept, su .75          |
//! | a3 | accept, su .5                       |                         |
//! | a4 |                                     |                         |
//! | r1 | reject, safety.privacy@1, preset.missing@2 | reject, safety.privacy@1 |
//! | b1 | accept                              |                         |
//! | b2 | reject, natural.repetition@2        |                         |
//! | b3 |                                     | accept                  |

use crate::support::*;
use inspection::{Decision, Finding, SampleConfig, Verdict, VerdictStore, audit, draw_sample};

fn close(a: Option<f64>, b: f64) {
    let a = a.expect("a value");
    assert!((a - b).abs() < 1e-5, "{a} != {b}");
}

fn rated(auditor: &str, id: &str, d: Decision, su: f64, findings: &[(&str, usize)]) -> Verdict {
    let mut v = verdict(auditor, id, d);
    v.ratings.insert("semantic_understanding".into(), su);
    v.findings = findings
        .iter()
        .map(|(k, t)| Finding {
            kind: k.to_string(),
            turn: *t,
            note: None,
        })
        .collect();
    v
}

#[test]
fn the_report_on_a_hand_made_case() {
    let dir = tempfile::tempdir().unwrap();
    let mut corpus = Vec::new();
    for (i, su) in [0.9, 0.5, 0.7, 0.6].into_iter().enumerate() {
        let mut d = dialogue(&format!("a{}", i + 1), TAKEOUT_CONFLICT, 6);
        d.judge = Some(judge(su));
        corpus.push(d);
    }
    for i in 1..=3 {
        corpus.push(dialogue(&format!("b{i}"), LIFE_NONE, 6));
    }
    write_corpus(dir.path(), &corpus, 2);
    write_rejects_files(
        dir.path(),
        &[vec![rejected(
            "r1",
            TAKEOUT_CONFLICT,
            0,
            &[("safety.privacy", 1), ("natural.closing", 3)],
        )]],
    );
    let s = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 1.0,
            reject_rate: 1.0,
            seed: 9,
            replace_reviewed: false,
        },
    )
    .unwrap();
    assert_eq!((s.sampled, s.rejects_sampled), (7, 1));

    let store = VerdictStore::open(dir.path()).unwrap();
    use Decision::{Accept as A, Reject as R};
    for v in [
        rated("alice", "a1", A, 1.0, &[]),
        rated("bob", "a1", A, 0.5, &[]),
        rated("alice", "a2", R, 0.25, &[("safety.decision", 1)]),
        rated("bob", "a2", A, 0.75, &[]),
        rated("alice", "a3", R, 0.0, &[]),
        rated("alice", "a3", A, 0.5, &[]),
        verdict("alice", "r1", R),
        verdict("bob", "r1", R),
        verdict("alice", "b1", A),
        verdict("alice", "b2", R),
        verdict("bob", "b3", A),
    ] {
        store.append(&v).unwrap();
    }
    // Findings on r1 and b2 (a second word on each: the latest counts).
    let mut v = verdict("alice", "r1", R);
    v.findings = vec![
        Finding {
            kind: "safety.privacy".into(),
            turn: 1,
            note: None,
        },
        Finding {
            kind: "preset.missing".into(),
            turn: 2,
            note: None,
        },
    ];
    store.append(&v).unwrap();
    let mut v = verdict("bob", "r1", R);
    v.findings = vec![Finding {
        kind: "safety.privacy".into(),
        turn: 1,
        note: None,
    }];
    store.append(&v).unwrap();
    let mut v = verdict("alice", "b2", R);
    v.findings = vec![Finding {
        kind: "natural.repetition".into(),
        turn: 2,
        note: None,
    }];
    store.append(&v).unwrap();
    drop(store);
    // A verdict on a dialogue that is no longer in the sample is left out.
    let path = inspection::verdicts_path(dir.path());
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        r#"{"auditor":"carol","id":"gone-000001","verdict":"accept","at":"2025-01-01T00:00:00Z"}"#,
    );
    text.push('\n');
    std::fs::write(&path, text).unwrap();

    let r = audit(dir.path()).unwrap();
    assert_eq!(r.verdict_lines, 15);
    assert_eq!(r.reviews, 10);
    assert_eq!(r.ignored, 1);
    assert_eq!(r.auditors, vec!["alice", "bob"]);

    // Acceptance, corpus only. A: a1 2/2 accept, a2 1/2 (a tie: reject), a3 accept → 2 of 3.
    // B: b1 accept, b2 reject, b3 accept → 2 of 3. Overall 4 of 6.
    let a = &r.strata[1];
    assert_eq!(
        a.stratum.as_ref().unwrap().to_string(),
        "takeout/regular/conflict"
    );
    assert_eq!((a.population, a.sampled, a.rejects_sampled), (4, 4, 1));
    assert_eq!((a.reviewed, a.accepted, a.rejects_reviewed), (3, 2, 1));
    close(a.acceptance, 2.0 / 3.0);
    let ci = a.acceptance_ci.unwrap();
    close(Some(ci.lo), 0.207660);
    close(Some(ci.hi), 0.938508);
    let b = &r.strata[0];
    assert_eq!((b.reviewed, b.accepted), (3, 2));
    let o = &r.overall;
    assert_eq!((o.population, o.reviewed, o.accepted), (7, 6, 4));
    // 4 of 6: centre (.666667 + .320122)/1.640243 = .601611; half .601611 − .299993.
    close(o.acceptance_ci.map(|i| i.lo), 0.299993);
    close(o.acceptance_ci.map(|i| i.hi), 0.903229);
    // Weighted: (4 × 2/3 + 3 × 2/3)/7.
    close(o.weighted_acceptance, 2.0 / 3.0);

    // Checker (A) vs auditor (B), one pair per review (10): both accept — a1 ×2, a2 bob, a3,
    // b1, b3 = 6; checker accepts, auditor rejects — a2 alice, b2 = 2; both reject — r1 ×2.
    // po .8; checker yes .8, auditors yes .6: pe .48 + .08 = .56; κ = .24/.44.
    let c = &o.checker;
    assert_eq!(
        (
            c.n,
            c.both_accept,
            c.only_a_accepts,
            c.only_b_accepts,
            c.both_reject
        ),
        (10, 6, 2, 0, 2)
    );
    close(c.kappa, 0.24 / 0.44);
    close(c.percent, 0.8);
    // Stratum B alone: b1 (T,T), b2 (T,F), b3 (T,T): the checker accepted all, so po = 2/3
    // is exactly chance (pe = 1 × 2/3): κ = 0.
    close(b.checker.kappa, 0.0);

    // Findings: privacy tp 2 (r1 alice and bob); closing fp 2; preset.missing fn 1 (r1 alice);
    // safety.decision fn 1 (a2); natural.repetition fn 1 (b2). All: tp 2, fp 2, fn 3.
    let k = |name: &str| o.kinds[name];
    assert_eq!(
        (
            k("safety.privacy").tp,
            k("safety.privacy").fp,
            k("safety.privacy").fn_
        ),
        (2, 0, 0)
    );
    assert_eq!(
        (k("natural.closing").fp, k("natural.closing").recall()),
        (2, None)
    );
    assert_eq!(k("natural.closing").precision(), Some(0.0));
    assert_eq!(
        (k("preset.missing").fn_, k("preset.missing").precision()),
        (1, None)
    );
    assert_eq!(k("safety.decision").fn_, 1);
    assert_eq!(k("natural.repetition").fn_, 1);
    assert_eq!((o.all_kinds.tp, o.all_kinds.fp, o.all_kinds.fn_), (2, 2, 3));
    close(o.all_kinds.precision(), 0.5);
    close(o.all_kinds.recall(), 0.4);
    assert!(b.kinds.keys().eq(["natural.repetition"]));

    // Judge vs human, semantic_understanding: a1 (.9, mean(1, .5) = .75), a2 (.5, .5),
    // a3 (.7, .5); a4 has no rating. (a1,a2) C, (a1,a3) C, (a2,a3) tied in y:
    // τ_b = 2/√(3 × 2).
    let su = &o.judge[0];
    assert_eq!((su.dimension.as_str(), su.n), ("semantic_understanding", 3));
    close(su.tau, 2.0 / 6f64.sqrt());
    assert_eq!(a.judge[0].n, 3);
    assert!(
        o.judge[1..].iter().all(|d| d.n == 0 && d.tau.is_none()),
        "no other ratings"
    );
    assert_eq!(b.judge[0].n, 0);

    // Inter-auditor: a1 (T,T), a2 (alice F, bob T), r1 (F,F): 2 of 3 agree; κ .4.
    assert_eq!(o.auditors.n, 3);
    close(o.auditors.percent, 2.0 / 3.0);
    close(o.auditors.kappa, 0.4);
    assert_eq!(r.auditor_pairs.len(), 1);
    let p = &r.auditor_pairs[0];
    assert_eq!(
        (p.a.as_str(), p.b.as_str(), p.agreement.n),
        ("alice", "bob", 3)
    );
    close(p.agreement.kappa, 0.4);
    assert_eq!(b.auditors.n, 0);

    // The files: Markdown and HTML with the same figures.
    let md = std::fs::read_to_string(dir.path().join("inspection/audit.md")).unwrap();
    assert_eq!(md, inspection::to_markdown(&r));
    assert!(
        md.contains("| overall | 7 | 7 | 6 | 4 | 66.7% | 30.0% – 90.3% |"),
        "{md}"
    );
    assert!(
        md.contains("| takeout/regular/conflict | 4 | 4 | 3 | 2 | 66.7% | 20.8% – 93.9% |"),
        "{md}"
    );
    assert!(
        md.find("| life/none/none |") < md.find("| takeout/regular/conflict |"),
        "stratum order"
    );
    assert!(md.contains("0.545"), "{md}");
    assert!(md.contains("0.816 (n=3)"), "{md}");
    let html = std::fs::read_to_string(dir.path().join("inspection/audit.html")).unwrap();
    assert!(html.contains("<td class=\"num\">0.545</td>"), "{html}");
    assert!(!html.contains("<script"));
}

#[test]
fn a_report_with_no_verdicts_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(dir.path(), &make(&[(LIFE_NONE, 5)]), 1);
    draw_sample(dir.path(), &SampleConfig::default()).unwrap();
    let r = audit(dir.path()).unwrap();
    assert_eq!((r.reviews, r.overall.reviewed), (0, 0));
    assert_eq!(r.overall.acceptance, None);
    let md = inspection::to_markdown(&r);
    assert!(md.contains("none yet"), "{md}");
    assert!(md.contains("| overall | 5 | 1 | 0 | 0 | — | — |"), "{md}");
}

#[test]
fn audit_without_a_sample_says_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    let err = audit(dir.path()).unwrap_err().to_string();
    assert!(err.contains("callbench sample"), "{err}");
}

/// Strata sampled at unequal rates: 40 takeout dialogues at 10 % give 4, the 2 life dialogues
/// give 1 (every stratum at least one), i.e. 50 %. The auditors accept every takeout dialogue
/// and reject the life one. The population-weighted acceptance is (40 × 1 + 2 × 0)/42 = 20/21;
/// the pooled rate is 4/5, the unweighted mean of the strata 1/2 and a weighting by sampled
/// dialogues 4/5 again — each a different number, so a wrong weighting cannot pass.
#[test]
fn weighted_acceptance_weights_strata_by_population_at_unequal_rates() {
    let dir = tempfile::tempdir().unwrap();
    write_corpus(
        dir.path(),
        &make(&[(TAKEOUT_CONFLICT, 40), (LIFE_NONE, 2)]),
        3,
    );
    let s = draw_sample(
        dir.path(),
        &SampleConfig {
            rate: 0.10,
            reject_rate: 0.0,
            seed: 4,
            replace_reviewed: false,
        },
    )
    .unwrap();
    let sampled: Vec<(String, u64)> = s
        .strata
        .iter()
        .map(|x| (x.stratum.to_string(), x.sampled))
        .collect();
    assert_eq!(
        sampled,
        [
            ("life/none/none".to_string(), 1),
            ("takeout/regular/conflict".to_string(), 4)
        ]
    );
    let store = VerdictStore::open(dir.path()).unwrap();
    for e in &s.dialogues {
        let d = if e.id.starts_with("takeout") {
            Decision::Accept
        } else {
            Decision::Reject
        };
        store.append(&verdict("alice", &e.id, d)).unwrap();
    }
    drop(store);
    let r = audit(dir.path()).unwrap();
    let o = &r.overall;
    assert_eq!((o.reviewed, o.accepted), (5, 4));
    close(o.acceptance, 4.0 / 5.0);
    close(o.weighted_acceptance, 20.0 / 21.0);
    let life = &r.strata[0];
    let takeout = &r.strata[1];
    assert_eq!((life.population, life.reviewed), (2, 1));
    assert_eq!((takeout.population, takeout.reviewed), (40, 4));
    close(life.acceptance, 0.0);
    close(takeout.acceptance, 1.0);
    // The report says the weighted figure.
    let md = std::fs::read_to_string(dir.path().join("inspection/audit.md")).unwrap();
    assert!(md.contains("95.2%"), "{md}");
}
