//! The statistics of the audit, as plain functions over counts and slices.
//!
//! Every function that can be undefined for its input (no observations, one category only,
//! a constant variable) returns `None` rather than a NaN, so a report can say "—" and why.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The normal quantile for a two-sided 95 % interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// A closed interval of proportions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    /// Lower bound.
    pub lo: f64,
    /// Upper bound.
    pub hi: f64,
}

/// The Wilson score interval for `successes` out of `n` at normal quantile `z`; `None` when
/// `n` is 0.
pub fn wilson(successes: u64, n: u64, z: f64) -> Option<Interval> {
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let center = (p + z2 / (2.0 * n)) / denom;
    let half = z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    Some(Interval {
        lo: (center - half).max(0.0),
        hi: (center + half).min(1.0),
    })
}

/// The Wilson 95 % interval ([`Z95`]).
pub fn wilson95(successes: u64, n: u64) -> Option<Interval> {
    wilson(successes, n, Z95)
}

/// Cohen's κ from a square confusion matrix: `m[i][j]` counts items rater A put in category
/// `i` and rater B in category `j`. `None` with no items, a matrix that is not square, or when
/// chance agreement is 1 (both raters used one and the same category for everything, so κ is
/// undefined).
pub fn cohen_kappa(m: &[Vec<u64>]) -> Option<f64> {
    let k = m.len();
    if m.iter().any(|row| row.len() != k) {
        return None;
    }
    let n: u64 = m.iter().flatten().sum();
    if n == 0 {
        return None;
    }
    let n = n as f64;
    let po = (0..k).map(|i| m[i][i] as f64).sum::<f64>() / n;
    let pe = (0..k)
        .map(|i| {
            let row: u64 = m[i].iter().sum();
            let col: u64 = m.iter().map(|r| r[i]).sum();
            (row as f64 / n) * (col as f64 / n)
        })
        .sum::<f64>();
    if (1.0 - pe).abs() < 1e-12 {
        return None;
    }
    Some((po - pe) / (1.0 - pe))
}

/// Cohen's κ of a 2×2 table: `a` both yes, `b` A yes and B no, `c` A no and B yes, `d` both no.
pub fn cohen_kappa_2x2(a: u64, b: u64, c: u64, d: u64) -> Option<f64> {
    cohen_kappa(&[vec![a, b], vec![c, d]])
}

/// Cohen's κ over paired labels of any ordered type (`(rater A, rater B)` per item).
pub fn cohen_kappa_pairs<T: Ord + Clone>(pairs: &[(T, T)]) -> Option<f64> {
    let cats: Vec<T> = pairs
        .iter()
        .flat_map(|(a, b)| [a.clone(), b.clone()])
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let idx = |x: &T| cats.binary_search(x).expect("category collected above");
    let mut m = vec![vec![0u64; cats.len()]; cats.len()];
    for (a, b) in pairs {
        m[idx(a)][idx(b)] += 1;
    }
    cohen_kappa(&m)
}

/// Kendall's τ_b of paired observations, with ties in either variable:
/// `(concordant − discordant) / √((n₀ − n₁)(n₀ − n₂))`, where `n₀ − n₁` counts the pairs not
/// tied in `x` and `n₀ − n₂` those not tied in `y`. `None` for fewer than two pairs, slices of
/// different lengths, a NaN, or a constant variable. O(n²), which is plenty for a sample.
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    if x.len() != y.len() || x.len() < 2 || x.iter().chain(y).any(|v| v.is_nan()) {
        return None;
    }
    let (mut conc, mut disc, mut untied_x, mut untied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..x.len() {
        for j in i + 1..x.len() {
            let dx = sign(x[i] - x[j]);
            let dy = sign(y[i] - y[j]);
            untied_x += (dx != 0) as i64;
            untied_y += (dy != 0) as i64;
            match dx * dy {
                1 => conc += 1,
                -1 => disc += 1,
                _ => {}
            }
        }
    }
    if untied_x == 0 || untied_y == 0 {
        return None;
    }
    Some((conc - disc) as f64 / ((untied_x as f64) * (untied_y as f64)).sqrt())
}

/// Resamples of [`bootstrap_tau_b`].
pub const TAU_BOOTSTRAP_RESAMPLES: u32 = 1000;

/// A 95% percentile bootstrap interval of Kendall τ_b over `units` (dialogues), each holding
/// its (judge, human) pairs: `resamples` draws of as many units with replacement, by a keyed
/// hash of `(seed, draw, slot)` so that the interval is the same for a seed. `None` when fewer
/// than half the draws give a τ_b (too few pairs, or a constant side).
pub fn bootstrap_tau_b(units: &[Vec<(f64, f64)>], seed: u64, resamples: u32) -> Option<[f64; 2]> {
    let n = units.len();
    if n < 2 {
        return None;
    }
    let mut taus = Vec::with_capacity(resamples as usize);
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for b in 0..resamples as u64 {
        x.clear();
        y.clear();
        for slot in 0..n as u64 {
            let h = callbench_model::plan::mix64(
                seed ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    ^ slot.wrapping_mul(0xD1B5_4A32_D192_ED03),
            );
            for &(j, hu) in &units[(h % n as u64) as usize] {
                x.push(j);
                y.push(hu);
            }
        }
        if let Some(t) = kendall_tau_b(&x, &y) {
            taus.push(t);
        }
    }
    if taus.len() * 2 < resamples as usize {
        return None;
    }
    taus.sort_by(f64::total_cmp);
    let at = |q: f64| taus[((q * (taus.len() - 1) as f64).round() as usize).min(taus.len() - 1)];
    Some([at(0.025), at(0.975)])
}

fn sign(d: f64) -> i64 {
    if d > 0.0 {
        1
    } else if d < 0.0 {
        -1
    } else {
        0
    }
}

/// Matches of one finding kind: the checker's findings against the auditors', on (kind, turn).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct KindCounts {
    /// Found by both.
    pub tp: u64,
    /// Found by the checker only.
    pub fp: u64,
    /// Found by the auditor only.
    #[serde(rename = "fn")]
    pub fn_: u64,
}

impl KindCounts {
    /// tp / (tp + fp); `None` when the checker found none.
    pub fn precision(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fp)
    }

    /// tp / (tp + fn); `None` when the auditor found none.
    pub fn recall(&self) -> Option<f64> {
        ratio(self.tp, self.tp + self.fn_)
    }

    /// Adds another count.
    pub fn add(&mut self, other: &KindCounts) {
        self.tp += other.tp;
        self.fp += other.fp;
        self.fn_ += other.fn_;
    }
}

/// `num / den`, `None` when `den` is 0.
pub fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Adds to `acc`, per kind, the matches of one dialogue's checker findings against one
/// auditor's: a finding is the pair (kind, turn), each counted once however often it is listed.
pub fn match_findings(
    checker: &[(String, usize)],
    auditor: &[(String, usize)],
    acc: &mut BTreeMap<String, KindCounts>,
) {
    let c: BTreeSet<&(String, usize)> = checker.iter().collect();
    let a: BTreeSet<&(String, usize)> = auditor.iter().collect();
    for f in &c {
        let e = acc.entry(f.0.clone()).or_default();
        if a.contains(f) {
            e.tp += 1;
        } else {
            e.fp += 1;
        }
    }
    for f in a.difference(&c) {
        acc.entry(f.0.clone()).or_default().fn_ += 1;
    }
}

/// Findings as (kind, turn).
pub type Findings = Vec<(String, usize)>;

/// Per-kind matches over many (checker findings, auditor findings) pairs; see [`match_findings`].
pub fn findings_agreement(pairs: &[(Findings, Findings)]) -> BTreeMap<String, KindCounts> {
    let mut acc = BTreeMap::new();
    for (c, a) in pairs {
        match_findings(c, a, &mut acc);
    }
    acc
}

/// Agreement of two raters on accept (`true`) / reject (`false`).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct BinaryAgreement {
    /// Items both rated.
    pub n: u64,
    /// A and B accept.
    pub both_accept: u64,
    /// A accepts, B rejects.
    pub only_a_accepts: u64,
    /// A rejects, B accepts.
    pub only_b_accepts: u64,
    /// A and B reject.
    pub both_reject: u64,
    /// Share of items on which they agree; `None` with no items.
    pub percent: Option<f64>,
    /// Cohen's κ; `None` when undefined.
    pub kappa: Option<f64>,
}

/// Tallies `(rater A accepts, rater B accepts)` pairs into a [`BinaryAgreement`].
pub fn binary_agreement(pairs: &[(bool, bool)]) -> BinaryAgreement {
    let mut g = BinaryAgreement::default();
    for &(a, b) in pairs {
        match (a, b) {
            (true, true) => g.both_accept += 1,
            (true, false) => g.only_a_accepts += 1,
            (false, true) => g.only_b_accepts += 1,
            (false, false) => g.both_reject += 1,
        }
    }
    g.n = pairs.len() as u64;
    g.percent = ratio(g.both_accept + g.both_reject, g.n);
    g.kappa = cohen_kappa_2x2(
        g.both_accept,
        g.only_a_accepts,
        g.only_b_accepts,
        g.both_reject,
    );
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-4, "{a} != {b}");
    }

    #[test]
    fn the_tau_bootstrap_is_reproducible_and_brackets_tau() {
        // 30 dialogues; the human agrees with the judge but for a few swaps.
        let units: Vec<Vec<(f64, f64)>> = (0..30)
            .map(|i| {
                let j = (i % 5) as f64 / 4.0;
                let h = if i % 7 == 0 { 1.0 - j } else { j };
                vec![(j, h), ((i % 3) as f64 / 2.0, (i % 3) as f64 / 2.0)]
            })
            .collect();
        let (x, y): (Vec<f64>, Vec<f64>) = units.iter().flatten().copied().unzip();
        let tau = kendall_tau_b(&x, &y).unwrap();
        let a = bootstrap_tau_b(&units, 7, 500).unwrap();
        assert_eq!(
            a,
            bootstrap_tau_b(&units, 7, 500).unwrap(),
            "same seed, same interval"
        );
        assert_ne!(
            a,
            bootstrap_tau_b(&units, 8, 500).unwrap(),
            "the seed matters"
        );
        assert!(
            a[0] <= tau && tau <= a[1] && a[0] < a[1],
            "{a:?} around {tau}"
        );
        // Perfect agreement: a point interval at 1.
        let same: Vec<Vec<(f64, f64)>> = (0..10).map(|i| vec![(i as f64, i as f64)]).collect();
        assert_eq!(bootstrap_tau_b(&same, 1, 200), Some([1.0, 1.0]));
        assert_eq!(bootstrap_tau_b(&same[..1], 1, 200), None);
    }

    #[test]
    fn wilson_by_hand() {
        // 8 of 10: p = .8, z² = 3.8415; centre (.8 + .19207)/1.38415 = .71680;
        // half 1.95996/1.38415 × √(.016 + .0096037) = 1.41600 × .16001 = .22658.
        let i = wilson95(8, 10).unwrap();
        close(i.lo, 0.49016);
        close(i.hi, 0.94331);
        // 0 of 20: lo 0, hi z²/n / (1 + z²/n) = .19208/1.19208 = .16113.
        let i = wilson95(0, 20).unwrap();
        close(i.lo, 0.0);
        close(i.hi, 0.16113);
        assert!(wilson95(0, 0).is_none());
    }

    #[test]
    fn kappa_by_hand() {
        // a=20 b=5 c=10 d=15 (n=50): po = .7; pe = .5×.6 + .5×.4 = .5; κ = .4.
        close(cohen_kappa_2x2(20, 5, 10, 15).unwrap(), 0.4);
        // 3×3: rows 10/10/10, cols 12/9/9, diagonal 8+6+7 = 21 of 30 → po .7,
        // pe (10×12 + 10×9 + 10×9)/900 = 1/3 → κ = (.7 − 1/3)/(2/3) = .55.
        let m = vec![vec![8, 2, 0], vec![2, 6, 2], vec![2, 1, 7]];
        close(cohen_kappa(&m).unwrap(), 0.55);
        assert!(cohen_kappa_2x2(5, 0, 0, 0).is_none());
        close(cohen_kappa_2x2(3, 0, 0, 2).unwrap(), 1.0);
        assert_eq!(
            cohen_kappa_pairs(&[("a", "a"), ("a", "b"), ("b", "b"), ("b", "b")]),
            cohen_kappa_2x2(1, 1, 0, 2)
        );
    }

    #[test]
    fn tau_b_by_hand() {
        // No ties: x 1..4, y 1 3 2 4: pairs 6, discordant (2,3) only → (5 − 1)/6.
        close(
            kendall_tau_b(&[1., 2., 3., 4.], &[1., 3., 2., 4.]).unwrap(),
            4.0 / 6.0,
        );
        // Ties: x 1 2 2 3, y 1 2 3 3. Pairs: (1,2)C (1,3)C (1,4)C (2,3) x-tie (2,4)C (3,4) y-tie
        // → C 4, D 0, untied x 5, untied y 5 → 4/5.
        close(
            kendall_tau_b(&[1., 2., 2., 3.], &[1., 2., 3., 3.]).unwrap(),
            0.8,
        );
        close(kendall_tau_b(&[1., 2., 3.], &[3., 2., 1.]).unwrap(), -1.0);
        assert!(kendall_tau_b(&[1., 1., 1.], &[1., 2., 3.]).is_none());
        assert!(kendall_tau_b(&[1.], &[1.]).is_none());
    }

    #[test]
    fn findings_by_hand() {
        let s = |k: &str, t| (k.to_string(), t);
        let got = findings_agreement(&[
            (
                vec![s("safety.privacy", 3), s("natural.closing", 9)],
                vec![s("safety.privacy", 3), s("safety.decision", 5)],
            ),
            (vec![s("safety.privacy", 1)], vec![s("safety.privacy", 2)]),
        ]);
        let p = got["safety.privacy"];
        assert_eq!((p.tp, p.fp, p.fn_), (1, 1, 1));
        close(p.precision().unwrap(), 0.5);
        close(p.recall().unwrap(), 0.5);
        assert_eq!(got["natural.closing"].recall(), None);
        assert_eq!(got["safety.decision"].precision(), None);
        assert_eq!(got["safety.decision"].fn_, 1);
    }
}
