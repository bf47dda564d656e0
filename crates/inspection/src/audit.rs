//! The agreement report: what the auditors found, per stratum and overall.
//!
//! How the figures are counted:
//!
//! - **Reviews.** Only each auditor's latest verdict on a dialogue counts ([`crate::latest`]);
//!   verdicts on ids that are not in the current sample are left out (and counted).
//! - **Human acceptance** is over the *corpus* part of the sample only (the rejects part would
//!   bias it): a dialogue is accepted when a strict majority of its auditors accepted it (a tie
//!   counts as a reject), with a Wilson 95 % interval. Overall, beside the pooled rate, a
//!   population-weighted rate (each reviewed stratum weighted by its corpus size) corrects for
//!   the minimum of one dialogue per small stratum.
//! - **Checker vs auditors** is over every review, corpus and rejects alike: each auditor is a
//!   reference, so a dialogue seen by two auditors gives two pairs. Rater A is the checker
//!   (`qc.passed`), rater B the auditor. Findings match on (kind, turn); precision is the share
//!   of the checker's findings an auditor also tagged, recall the share of an auditor's the
//!   checker also found.
//! - **LLM judge vs human ratings**: per dialogue that has judge scores and at least one rating
//!   of the dimension, the judge's mean over the judged turns against the mean of the auditors'
//!   ratings; Kendall τ_b per dimension.
//! - **Inter-auditor agreement**: every dialogue two auditors both reviewed gives one pair per
//!   two auditors (names in alphabetical order as raters A and B); percent agreement and
//!   Cohen's κ on accept/reject, pooled and per pair of auditors.

use crate::error::Result;
use crate::files::{self, AUDIT_HTML, AUDIT_MD, inspection_dir};
use crate::html::{escape, head};
use crate::sample::{Origin, SampleSummary, Stratum, read_sample, read_sample_dialogues};
use crate::stats::{
    BinaryAgreement, Interval, KindCounts, binary_agreement, kendall_tau_b, match_findings, ratio,
    wilson95,
};
use crate::verdict::{Verdict, latest, load_verdicts};
use callbench_model::{Dialogue, JUDGE_DIMENSIONS};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write;
use std::path::{Path, PathBuf};

/// The whole report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditReport {
    /// The corpus directory, as given.
    pub corpus: String,
    /// When the report was made, RFC 3339.
    pub created_at: String,
    /// When the sample was drawn.
    pub sample_drawn_at: String,
    /// The sample's corpus rate.
    pub rate: f64,
    /// The sample's rejects rate.
    pub reject_rate: f64,
    /// The sample's seed.
    pub seed: u64,
    /// Lines in the verdict file.
    pub verdict_lines: u64,
    /// Reviews counted: the latest verdict per auditor and sampled dialogue.
    pub reviews: u64,
    /// Latest verdicts on ids that are not in the sample, left out.
    pub ignored: u64,
    /// The auditors, alphabetically.
    pub auditors: Vec<String>,
    /// The whole sample.
    pub overall: StratumReport,
    /// Per stratum, in stratum order (every stratum of the sample, reviewed or not).
    pub strata: Vec<StratumReport>,
    /// Inter-auditor agreement per pair of auditors who reviewed a dialogue in common.
    pub auditor_pairs: Vec<AuditorPair>,
}

/// The figures of one stratum, or of the whole sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StratumReport {
    /// The stratum; `None` for the whole sample.
    pub stratum: Option<Stratum>,
    /// Dialogues in the corpus.
    pub population: u64,
    /// Corpus dialogues sampled.
    pub sampled: u64,
    /// Rejected dialogues sampled.
    pub rejects_sampled: u64,
    /// Corpus dialogues with at least one review.
    pub reviewed: u64,
    /// Of them, accepted by a majority of their auditors.
    pub accepted: u64,
    /// `accepted / reviewed`.
    pub acceptance: Option<f64>,
    /// Wilson 95 % interval of the acceptance rate.
    pub acceptance_ci: Option<Interval>,
    /// Population-weighted acceptance over the reviewed strata (overall only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weighted_acceptance: Option<f64>,
    /// Rejected dialogues with at least one review.
    pub rejects_reviewed: u64,
    /// Checker (A) vs auditor (B) on accept/reject, one pair per review.
    pub checker: BinaryAgreement,
    /// Checker findings vs auditors' findings per kind, over the reviews.
    pub kinds: BTreeMap<String, KindCounts>,
    /// The same over all kinds together.
    pub all_kinds: KindCounts,
    /// LLM judge vs human ratings, per dimension in [`JUDGE_DIMENSIONS`] order.
    pub judge: Vec<DimensionTau>,
    /// The same with every dimension's pairs pooled (`dimension` is `pooled`): the paper's
    /// single figure (0.764).
    #[serde(default)]
    pub judge_pooled: Option<DimensionTau>,
    /// Inter-auditor agreement, pooled over every pair of auditors.
    pub auditors: BinaryAgreement,
}

/// Kendall τ_b of one judge dimension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DimensionTau {
    /// The dimension.
    pub dimension: String,
    /// Dialogues with both a judge score and a human rating.
    pub n: u64,
    /// τ_b; `None` when undefined (fewer than two pairs, or one side constant).
    pub tau: Option<f64>,
    /// 95% bootstrap interval of τ_b resampling dialogues (the whole sample only; `None` per
    /// stratum, or when undefined).
    #[serde(default)]
    pub ci95: Option<[f64; 2]>,
}

/// Agreement of two auditors.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditorPair {
    /// Rater A (alphabetically first).
    pub a: String,
    /// Rater B.
    pub b: String,
    /// Their agreement on the dialogues both reviewed.
    pub agreement: BinaryAgreement,
}

/// Reads the sample and the verdicts of `corpus_dir`, computes the report, and writes it to
/// `DIR/inspection/audit.md` and `audit.html` (atomically). Print [`to_markdown`] to show it.
pub fn audit(corpus_dir: &Path) -> Result<AuditReport> {
    let summary = read_sample(corpus_dir)?;
    let dialogues = read_sample_dialogues(corpus_dir)?;
    let verdicts = load_verdicts(corpus_dir)?;
    let mut report = build_report(&summary, &dialogues, &verdicts);
    report.corpus = corpus_dir.display().to_string();
    write_report(corpus_dir, &report)?;
    Ok(report)
}

/// Writes `audit.md` and `audit.html` under `DIR/inspection/`; returns their paths.
pub fn write_report(corpus_dir: &Path, report: &AuditReport) -> Result<(PathBuf, PathBuf)> {
    let dir = inspection_dir(corpus_dir);
    let md = dir.join(AUDIT_MD);
    let html = dir.join(AUDIT_HTML);
    files::write_atomic(&md, to_markdown(report).as_bytes())?;
    files::write_atomic(&html, to_html(report).as_bytes())?;
    Ok((md, html))
}

/// One sampled dialogue as the report needs it.
struct Item<'a> {
    stratum: &'a Stratum,
    origin: Origin,
    checker_passed: bool,
    checker_findings: Vec<(String, usize)>,
    judge: Option<&'a callbench_model::JudgeScores>,
    /// The latest verdict of each auditor on it, by auditor name.
    reviews: BTreeMap<&'a str, &'a Verdict>,
}

/// Computes the report from a sample, its dialogues (for the checker's findings and the judge's
/// scores) and the verdicts as recorded. Pure: no IO. `corpus` is left empty.
pub fn build_report(
    summary: &SampleSummary,
    dialogues: &[Dialogue],
    verdicts: &[Verdict],
) -> AuditReport {
    let by_id: HashMap<&str, &Dialogue> = dialogues.iter().map(|d| (d.id.as_str(), d)).collect();
    let latest = latest(verdicts);
    let mut items: BTreeMap<&str, Item<'_>> = BTreeMap::new();
    for e in &summary.dialogues {
        let d = by_id.get(e.id.as_str());
        items.insert(
            &e.id,
            Item {
                stratum: &e.stratum,
                origin: e.origin,
                checker_passed: e.checker_passed,
                checker_findings: d
                    .and_then(|d| d.qc.as_ref())
                    .map(|q| {
                        q.violations
                            .iter()
                            .map(|v| (v.kind.clone(), v.turn))
                            .collect()
                    })
                    .unwrap_or_default(),
                judge: d.and_then(|d| d.judge.as_ref()),
                reviews: BTreeMap::new(),
            },
        );
    }
    let mut ignored = 0;
    let mut reviews = 0;
    let mut auditors = BTreeSet::new();
    for ((auditor, id), v) in &latest {
        match items.get_mut(id.as_str()) {
            Some(item) => {
                item.reviews.insert(auditor, v);
                auditors.insert(auditor.clone());
                reviews += 1;
            }
            None => ignored += 1,
        }
    }

    let all: Vec<&Item<'_>> = items.values().collect();
    let mut overall = stratum_report(None, &all, summary, Some(summary.seed));
    let mut strata = Vec::new();
    let mut weighted = (0.0, 0u64);
    for s in &summary.strata {
        let members: Vec<&Item<'_>> = all
            .iter()
            .copied()
            .filter(|i| *i.stratum == s.stratum)
            .collect();
        let r = stratum_report(Some(&s.stratum), &members, summary, None);
        if let Some(a) = r.acceptance {
            weighted.0 += a * r.population as f64;
            weighted.1 += r.population;
        }
        strata.push(r);
    }
    overall.weighted_acceptance = (weighted.1 > 0).then(|| weighted.0 / weighted.1 as f64);

    let mut pairs: BTreeMap<(&str, &str), Vec<(bool, bool)>> = BTreeMap::new();
    for item in &all {
        for_each_auditor_pair(item, |a, b, va, vb| {
            pairs
                .entry((a, b))
                .or_default()
                .push((va.verdict.accepted(), vb.verdict.accepted()));
        });
    }
    let auditor_pairs = pairs
        .into_iter()
        .map(|((a, b), p)| AuditorPair {
            a: a.to_string(),
            b: b.to_string(),
            agreement: binary_agreement(&p),
        })
        .collect();

    AuditReport {
        corpus: String::new(),
        created_at: files::now_rfc3339(),
        sample_drawn_at: summary.created_at.clone(),
        rate: summary.rate,
        reject_rate: summary.reject_rate,
        seed: summary.seed,
        verdict_lines: verdicts.len() as u64,
        reviews,
        ignored,
        auditors: auditors.into_iter().collect(),
        overall,
        strata,
        auditor_pairs,
    }
}

fn for_each_auditor_pair<'a>(
    item: &Item<'a>,
    mut f: impl FnMut(&'a str, &'a str, &'a Verdict, &'a Verdict),
) {
    let r: Vec<(&'a str, &'a Verdict)> = item.reviews.iter().map(|(a, v)| (*a, *v)).collect();
    for i in 0..r.len() {
        for j in i + 1..r.len() {
            f(r[i].0, r[j].0, r[i].1, r[j].1);
        }
    }
}

fn stratum_report(
    stratum: Option<&Stratum>,
    items: &[&Item<'_>],
    summary: &SampleSummary,
    bootstrap: Option<u64>,
) -> StratumReport {
    let counts = summary
        .strata
        .iter()
        .filter(|s| stratum.is_none_or(|k| s.stratum == *k));
    let (population, sampled, rejects_sampled) = counts.fold((0, 0, 0), |acc, s| {
        (
            acc.0 + s.population,
            acc.1 + s.sampled,
            acc.2 + s.rejects_sampled,
        )
    });

    let (mut reviewed, mut accepted, mut rejects_reviewed) = (0u64, 0u64, 0u64);
    let mut checker_pairs = Vec::new();
    let mut kinds = BTreeMap::new();
    // Per reviewed dialogue, its (judge, human) pair of each dimension: the unit the bootstrap
    // resamples.
    let mut judged: Vec<[Option<(f64, f64)>; 7]> = Vec::new();
    let mut auditor_pairs = Vec::new();
    for item in items {
        if item.reviews.is_empty() {
            continue;
        }
        match item.origin {
            Origin::Corpus => {
                reviewed += 1;
                let yes = item
                    .reviews
                    .values()
                    .filter(|v| v.verdict.accepted())
                    .count();
                if 2 * yes > item.reviews.len() {
                    accepted += 1;
                }
            }
            Origin::Rejects => rejects_reviewed += 1,
        }
        for v in item.reviews.values() {
            checker_pairs.push((item.checker_passed, v.verdict.accepted()));
            let human: Vec<(String, usize)> = v
                .findings
                .iter()
                .map(|f| (f.kind.clone(), f.turn))
                .collect();
            match_findings(&item.checker_findings, &human, &mut kinds);
        }
        if let Some(judge) = item.judge {
            let mut pairs = [None; 7];
            for (k, dim) in JUDGE_DIMENSIONS.iter().enumerate() {
                let rated: Vec<f64> = item
                    .reviews
                    .values()
                    .filter_map(|v| v.ratings.get(*dim).copied())
                    .collect();
                if let (Some(j), false) = (judge.mean(dim), rated.is_empty()) {
                    pairs[k] = Some((j, rated.iter().sum::<f64>() / rated.len() as f64));
                }
            }
            if pairs.iter().any(Option::is_some) {
                judged.push(pairs);
            }
        }
        for_each_auditor_pair(item, |_, _, va, vb| {
            auditor_pairs.push((va.verdict.accepted(), vb.verdict.accepted()));
        });
    }
    let mut all_kinds = KindCounts::default();
    for c in kinds.values() {
        all_kinds.add(c);
    }
    StratumReport {
        stratum: stratum.cloned(),
        population,
        sampled,
        rejects_sampled,
        reviewed,
        accepted,
        acceptance: ratio(accepted, reviewed),
        acceptance_ci: wilson95(accepted, reviewed),
        weighted_acceptance: None,
        rejects_reviewed,
        checker: binary_agreement(&checker_pairs),
        kinds,
        all_kinds,
        judge: (0..JUDGE_DIMENSIONS.len())
            .map(|k| {
                tau_of(
                    JUDGE_DIMENSIONS[k],
                    &judged,
                    |p| p[k].into_iter().collect(),
                    bootstrap,
                )
            })
            .collect(),
        judge_pooled: Some(tau_of(
            "pooled",
            &judged,
            |p| p.iter().flatten().copied().collect(),
            bootstrap,
        )),
        auditors: binary_agreement(&auditor_pairs),
    }
}

/// τ_b of the pairs `pick` takes from each dialogue, with its bootstrap interval over the
/// dialogues when `bootstrap` gives the seed.
fn tau_of(
    dimension: &str,
    judged: &[[Option<(f64, f64)>; 7]],
    pick: impl Fn(&[Option<(f64, f64)>; 7]) -> Vec<(f64, f64)>,
    bootstrap: Option<u64>,
) -> DimensionTau {
    let units: Vec<Vec<(f64, f64)>> = judged.iter().map(&pick).filter(|u| !u.is_empty()).collect();
    let (j, h): (Vec<f64>, Vec<f64>) = units.iter().flatten().copied().unzip();
    DimensionTau {
        dimension: dimension.to_string(),
        n: j.len() as u64,
        tau: kendall_tau_b(&j, &h),
        ci95: bootstrap.and_then(|seed| {
            crate::stats::bootstrap_tau_b(&units, seed, crate::stats::TAU_BOOTSTRAP_RESAMPLES)
        }),
    }
}

fn num(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_string(), |v| format!("{v:.3}"))
}

fn pct(x: Option<f64>) -> String {
    x.map_or_else(|| "—".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

fn ci(x: Option<Interval>) -> String {
    x.map_or_else(
        || "—".to_string(),
        |i| format!("{:.1}% – {:.1}%", 100.0 * i.lo, 100.0 * i.hi),
    )
}

fn name(s: &StratumReport) -> String {
    s.stratum
        .as_ref()
        .map_or_else(|| "overall".to_string(), Stratum::to_string)
}

/// Escapes text for a Markdown table cell: no line breaks, no cell separators, no markup.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' | '\\' | '`' | '*' | '[' | ']' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The rows of the report's tables, shared by the Markdown and the HTML renderers: a table is
/// a title, a header row and data rows of plain (unescaped) cells.
struct Table {
    title: &'static str,
    /// Leading columns of text (names); the rest are numbers, aligned right.
    text_cols: usize,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn tables(r: &AuditReport) -> Vec<Table> {
    let rows: Vec<&StratumReport> = std::iter::once(&r.overall).chain(&r.strata).collect();
    let mut out = Vec::new();

    out.push(Table {
        title: "Human acceptance (corpus dialogues)",
        text_cols: 1,
        header: [
            "stratum",
            "population",
            "sampled",
            "reviewed",
            "accepted",
            "rate",
            "Wilson 95% CI",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|s| {
                vec![
                    name(s),
                    s.population.to_string(),
                    s.sampled.to_string(),
                    s.reviewed.to_string(),
                    s.accepted.to_string(),
                    pct(s.acceptance),
                    ci(s.acceptance_ci),
                ]
            })
            .collect(),
    });

    out.push(Table {
        title: "Checker vs auditors: accept/reject (one pair per review)",
        text_cols: 1,
        header: [
            "stratum",
            "reviews",
            "rejects reviewed",
            "both accept",
            "checker accepts, auditor rejects",
            "checker rejects, auditor accepts",
            "both reject",
            "agreement",
            "Cohen's κ",
        ]
        .map(String::from)
        .to_vec(),
        rows: rows
            .iter()
            .map(|s| {
                let c = &s.checker;
                vec![
                    name(s),
                    c.n.to_string(),
                    s.rejects_reviewed.to_string(),
                    c.both_accept.to_string(),
                    c.only_a_accepts.to_string(),
                    c.only_b_accepts.to_string(),
                    c.both_reject.to_string(),
                    pct(c.percent),
                    num(c.kappa),
                ]
            })
            .collect(),
    });

    let mut kind_rows = Vec::new();
    for s in &rows {
        let mut push = |kind: String, c: &KindCounts| {
            kind_rows.push(vec![
                name(s),
                kind,
                c.tp.to_string(),
                c.fp.to_string(),
                c.fn_.to_string(),
                num(c.precision()),
                num(c.recall()),
            ]);
        };
        if s.kinds.is_empty() {
            continue;
        }
        push("(all kinds)".to_string(), &s.all_kinds);
        for (k, c) in &s.kinds {
            push(k.clone(), c);
        }
    }
    out.push(Table {
        title: "Checker findings vs auditors' findings (matched on kind and turn)",
        text_cols: 2,
        header: [
            "stratum",
            "kind",
            "both",
            "checker only",
            "auditor only",
            "precision",
            "recall",
        ]
        .map(String::from)
        .to_vec(),
        rows: kind_rows,
    });

    let mut header = vec!["stratum".to_string()];
    header.extend(JUDGE_DIMENSIONS.iter().map(|d| d.to_string()));
    header.push("pooled (n pairs)".to_string());
    out.push(Table {
        title: "LLM judge vs human ratings: Kendall τ_b [95% bootstrap interval over dialogues, whole sample] (n dialogues); the paper reports 0.764 pooled",
        text_cols: 1,
        header,
        rows: rows
            .iter()
            .filter(|s| s.judge.iter().any(|d| d.n > 0))
            .map(|s| {
                let mut row = vec![name(s)];
                let cell = |d: &DimensionTau| match d.ci95 {
                    Some([lo, hi]) => format!("{} [{lo:.3}, {hi:.3}] (n={})", num(d.tau), d.n),
                    None => format!("{} (n={})", num(d.tau), d.n),
                };
                row.extend(s.judge.iter().map(cell));
                row.push(s.judge_pooled.as_ref().map_or_else(|| "—".into(), cell));
                row
            })
            .collect(),
    });

    out.push(Table {
        title: "Inter-auditor agreement on accept/reject (pairs of auditors on the same dialogue)",
        text_cols: 1,
        header: ["stratum", "pairs", "agreement", "Cohen's κ"]
            .map(String::from)
            .to_vec(),
        rows: rows
            .iter()
            .filter(|s| s.auditors.n > 0)
            .map(|s| {
                vec![
                    name(s),
                    s.auditors.n.to_string(),
                    pct(s.auditors.percent),
                    num(s.auditors.kappa),
                ]
            })
            .collect(),
    });

    out.push(Table {
        title: "Inter-auditor agreement per pair of auditors",
        text_cols: 2,
        header: [
            "auditor A",
            "auditor B",
            "dialogues",
            "agreement",
            "Cohen's κ",
        ]
        .map(String::from)
        .to_vec(),
        rows: r
            .auditor_pairs
            .iter()
            .map(|p| {
                vec![
                    p.a.clone(),
                    p.b.clone(),
                    p.agreement.n.to_string(),
                    pct(p.agreement.percent),
                    num(p.agreement.kappa),
                ]
            })
            .collect(),
    });
    out
}

fn preamble(r: &AuditReport) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Sample drawn {} (rate {}, rejects rate {}, seed {}); report made {}.",
            r.sample_drawn_at, r.rate, r.reject_rate, r.seed, r.created_at
        ),
        format!(
            "{} reviews (latest verdict per auditor and dialogue) from {} verdict lines by {} auditor(s): {}.",
            r.reviews,
            r.verdict_lines,
            r.auditors.len(),
            if r.auditors.is_empty() {
                "none yet".to_string()
            } else {
                r.auditors.join(", ")
            }
        ),
    ];
    if r.ignored > 0 {
        lines.push(format!(
            "{} verdict(s) on dialogues that are not in the current sample were left out.",
            r.ignored
        ));
    }
    if let Some(w) = r.overall.weighted_acceptance {
        lines.push(format!(
            "Population-weighted human acceptance over the reviewed strata: {}.",
            pct(Some(w))
        ));
    }
    lines
}

const NOTES: &[&str] = &[
    "Acceptance counts corpus dialogues only; a dialogue is accepted when a strict majority of its auditors accepted it (a tie counts as a reject).",
    "Checker vs auditors counts every review (corpus and the sampled rejects): rater A is the checker (qc.passed), rater B the auditor.",
    "Precision: share of the checker's findings an auditor also tagged on the same turn; recall: share of an auditor's findings the checker also found.",
    "Judge vs human: per dialogue, the judge's mean over its judged turns against the mean of the auditors' ratings.",
    "— means undefined: no observations, or a single category or a constant variable.",
];

/// The report as Markdown (what `callbench audit` prints and writes to `audit.md`).
pub fn to_markdown(r: &AuditReport) -> String {
    let mut s = String::from("# CallBench audit report\n\n");
    if !r.corpus.is_empty() {
        let _ = writeln!(s, "Corpus: {}\n", md(&r.corpus));
    }
    for line in preamble(r) {
        let _ = writeln!(s, "{}\n", md(&line));
    }
    for t in tables(r) {
        let _ = writeln!(s, "## {}\n", md(t.title));
        if t.rows.is_empty() {
            s.push_str("(nothing to show yet)\n\n");
            continue;
        }
        let _ = writeln!(
            s,
            "| {} |",
            t.header
                .iter()
                .map(|h| md(h))
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(
            s,
            "|{}",
            t.header
                .iter()
                .enumerate()
                .map(|(i, _)| if i < t.text_cols { " --- |" } else { " ---: |" })
                .collect::<String>()
        );
        for row in &t.rows {
            let _ = writeln!(
                s,
                "| {} |",
                row.iter().map(|c| md(c)).collect::<Vec<_>>().join(" | ")
            );
        }
        s.push('\n');
    }
    s.push_str("## Notes\n\n");
    for n in NOTES {
        let _ = writeln!(s, "- {}", md(n));
    }
    s
}

/// The report as a self-contained HTML page (`audit.html`); every name and number escaped.
pub fn to_html(r: &AuditReport) -> String {
    let mut s = head("CallBench audit report");
    s.push_str("<h1>CallBench audit report</h1>\n");
    if !r.corpus.is_empty() {
        let _ = writeln!(s, "<p class=\"meta\">Corpus: {}</p>", escape(&r.corpus));
    }
    for line in preamble(r) {
        let _ = writeln!(s, "<p>{}</p>", escape(&line));
    }
    for t in tables(r) {
        let _ = writeln!(s, "<h2>{}</h2>", escape(t.title));
        if t.rows.is_empty() {
            s.push_str("<p class=\"meta\">(nothing to show yet)</p>\n");
            continue;
        }
        s.push_str("<table>\n<tr>");
        for (i, h) in t.header.iter().enumerate() {
            let class = if i < t.text_cols {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(s, "<th{class}>{}</th>", escape(h));
        }
        s.push_str("</tr>\n");
        for row in &t.rows {
            s.push_str("<tr>");
            for (i, c) in row.iter().enumerate() {
                let class = if i < t.text_cols {
                    ""
                } else {
                    " class=\"num\""
                };
                let _ = write!(s, "<td{class}>{}</td>", escape(c));
            }
            s.push_str("</tr>\n");
        }
        s.push_str("</table>\n");
    }
    s.push_str("<h2>Notes</h2>\n<ul>\n");
    for n in NOTES {
        let _ = writeln!(s, "<li>{}</li>", escape(n));
    }
    s.push_str("</ul>\n</body>\n</html>\n");
    s
}
