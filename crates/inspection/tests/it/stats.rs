//! The statistics against values worked out by hand (the working is in the comments).

use inspection::stats::*;

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-5, "{a} != {b}");
}

#[test]
fn wilson_interval() {
    // 45 of 50: p = .9, z²/n = .076832, denominator 1.076832;
    // centre (.9 + .038416)/1.076832 = .871460; half 1.820135 × √(.0018 + .00038416) = .085063.
    let i = wilson95(45, 50).unwrap();
    close(i.lo, 0.786398);
    close(i.hi, 0.956524);
    // 2 of 3: centre (.666667 + .640243)/2.280486 = .573083;
    // half .859451 × √(.074074 + .106707) = .365424.
    let i = wilson95(2, 3).unwrap();
    close(i.lo, 0.207660);
    close(i.hi, 0.938508);
    // All successes: the upper bound is 1, the lower n/(n + z²) = 10/13.841459.
    let i = wilson95(10, 10).unwrap();
    close(i.hi, 1.0);
    close(i.lo, 10.0 / (10.0 + Z95 * Z95));
    assert_eq!(wilson95(0, 0), None);
}

#[test]
fn cohen_kappa_two_by_two_and_general() {
    // 45/15/25/15 of 100: po = .60; A says yes 60 %, B 70 %: pe = .6×.7 + .4×.3 = .54;
    // κ = .06/.46.
    close(cohen_kappa_2x2(45, 15, 25, 15).unwrap(), 0.06 / 0.46);
    // Perfect disagreement of a balanced table: po 0, pe .5, κ = −1.
    close(cohen_kappa_2x2(0, 5, 5, 0).unwrap(), -1.0);
    // One category only: undefined.
    assert_eq!(cohen_kappa_2x2(0, 0, 0, 7), None);
    assert_eq!(cohen_kappa(&[]), None);
    assert_eq!(cohen_kappa(&[vec![1, 2]]), None, "not square");
    // 3×3 with rows 10/10/10, columns 12/9/9, diagonal 21 of 30: po .7, pe 1/3, κ .55.
    close(
        cohen_kappa(&[vec![8, 2, 0], vec![2, 6, 2], vec![2, 1, 7]]).unwrap(),
        0.55,
    );
    // The same from labelled pairs.
    let mut pairs = Vec::new();
    let m = [[8, 2, 0], [2, 6, 2], [2, 1, 7]];
    for (i, row) in m.iter().enumerate() {
        for (j, &n) in row.iter().enumerate() {
            pairs.extend(std::iter::repeat_n((i, j), n));
        }
    }
    close(cohen_kappa_pairs(&pairs).unwrap(), 0.55);
}

#[test]
fn kendall_tau_b_with_ties() {
    // x increasing, y = 1 1 2 3 3 3: 15 pairs, none tied in x; tied in y: 1 (the 1s) + 3 (the
    // 3s); the 11 others concordant. τ_b = 11/√(15 × 11) = √(11/15).
    close(
        kendall_tau_b(&[1., 2., 3., 4., 5., 6.], &[1., 1., 2., 3., 3., 3.]).unwrap(),
        (11.0f64 / 15.0).sqrt(),
    );
    // x = 1 1 2 3, y = 2 1 1 3: (0,1) x-tie; (0,2) D; (0,3) C; (1,2) y-tie; (1,3) C; (2,3) C.
    // C 3, D 1, untied 5 and 5: τ_b = 2/5.
    close(
        kendall_tau_b(&[1., 1., 2., 3.], &[2., 1., 1., 3.]).unwrap(),
        0.4,
    );
    // Reversed: −1; symmetric in its arguments.
    close(
        kendall_tau_b(&[0.1, 0.5, 0.9], &[3., 2., 1.]).unwrap(),
        -1.0,
    );
    close(
        kendall_tau_b(&[2., 1., 1., 3.], &[1., 1., 2., 3.]).unwrap(),
        kendall_tau_b(&[1., 1., 2., 3.], &[2., 1., 1., 3.]).unwrap(),
    );
    assert_eq!(kendall_tau_b(&[1., 2.], &[5., 5.]), None, "constant");
    assert_eq!(kendall_tau_b(&[1., 2.], &[1.]), None, "lengths differ");
    assert_eq!(kendall_tau_b(&[1., f64::NAN], &[1., 2.]), None);
}

#[test]
fn precision_and_recall_per_kind() {
    let f = |k: &str, t: usize| (k.to_string(), t);
    // Dialogue 1: the checker finds privacy@2 (twice listed, counted once) and meta@4; the
    // auditor privacy@2 and privacy@5. Dialogue 2: checker decision@1, auditor decision@1.
    // privacy: tp 1, fp 0, fn 1 → P 1, R .5. meta: fp 1 → P 0, R —. decision: tp 1 → 1, 1.
    let got = findings_agreement(&[
        (
            vec![
                f("safety.privacy", 2),
                f("safety.privacy", 2),
                f("natural.meta", 4),
            ],
            vec![f("safety.privacy", 2), f("safety.privacy", 5)],
        ),
        (vec![f("safety.decision", 1)], vec![f("safety.decision", 1)]),
    ]);
    let p = got["safety.privacy"];
    assert_eq!((p.tp, p.fp, p.fn_), (1, 0, 1));
    assert_eq!((p.precision(), p.recall()), (Some(1.0), Some(0.5)));
    let m = got["natural.meta"];
    assert_eq!((m.precision(), m.recall()), (Some(0.0), None));
    let d = got["safety.decision"];
    assert_eq!((d.precision(), d.recall()), (Some(1.0), Some(1.0)));
    assert_eq!(got.len(), 3);
}

#[test]
fn agreement_of_two_raters() {
    // (A, B): both accept ×1, B only ×1, both reject ×1: 2 of 3 agree;
    // A accepts 1/3, B 2/3: pe = 1/3×2/3 + 2/3×1/3 = 4/9; κ = (2/3 − 4/9)/(5/9) = .4.
    let g = binary_agreement(&[(true, true), (false, true), (false, false)]);
    assert_eq!(
        (
            g.n,
            g.both_accept,
            g.only_a_accepts,
            g.only_b_accepts,
            g.both_reject
        ),
        (3, 1, 0, 1, 1)
    );
    close(g.percent.unwrap(), 2.0 / 3.0);
    close(g.kappa.unwrap(), 0.4);
    let none = binary_agreement(&[]);
    assert_eq!((none.n, none.percent, none.kappa), (0, None, None));
}
