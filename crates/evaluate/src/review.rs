//! Humans check the judge: `callbench sample --from-eval RUN` draws judged assistant turns of a
//! run for the auditors' review page, each as a dialogue that ends with the judged turn (the call
//! so far as the corpus has it, then the method's utterance), with the judge's scores on that
//! turn as its `judge` and the checker's findings on it as its `qc`. It is written to
//! `RUN/inspection/` in the inspection sample's format, so `review --corpus RUN` serves it
//! (blind: neither verdict shows before the auditor's own) and `audit --corpus RUN` reports
//! the judge–human Kendall τ_b per dimension and pooled, with bootstrap intervals.
//!
//! Only turns the judge scored on all seven dimensions are drawn (the `llm` judge's; the rules
//! judge leaves three unjudged), from turn-mode runs (a live run keeps no caller turns to show).

use crate::error::{EvalError, Result};
use callbench_model::{
    Dialogue, JUDGE_DIMENSIONS, JudgeScores, JudgeTurn, QcResult, Speaker, Turn, Violation,
};
use corpus::EvalTurn;
use inspection::{Origin, SampleSummary, Stratum, StratumSample};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;

/// A turn that may be drawn: its rank, its row, its seven scores, its corpus dialogue.
type Candidate<'a> = (u64, &'a EvalTurn, [f64; 7], &'a Dialogue);

/// The id of a sampled turn: the dialogue, the method and the turn.
pub fn item_id(r: &EvalTurn) -> String {
    format!("{}~{}~t{}", r.dialogue_id, r.method, r.turn)
}

/// Every row of a run, from its progress files (`RUN/progress/<method>.jsonl`, which the run
/// keeps for resuming), methods in name order.
pub fn read_run_rows(run: &Path) -> Result<Vec<EvalTurn>> {
    let dir = run.join("progress");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map_err(|e| {
            EvalError::Config(format!(
                "{}: {e} (is {} an evaluate run?)",
                dir.display(),
                run.display()
            ))
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut rows = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).map_err(|e| EvalError::io(&f, e))?;
        #[derive(serde::Deserialize)]
        struct Line {
            rows: Vec<EvalTurn>,
        }
        for (i, line) in text.lines().enumerate().skip(1) {
            match serde_json::from_str::<Line>(line) {
                Ok(l) => rows.extend(l.rows),
                // A torn last line (a killed run): the rerun redoes it.
                Err(_) if i + 1 == text.lines().count() => {}
                Err(e) => {
                    return Err(EvalError::Config(format!(
                        "{} line {}: {e}",
                        f.display(),
                        i + 1
                    )));
                }
            }
        }
    }
    Ok(rows)
}

fn scored(r: &EvalTurn) -> Option<[f64; 7]> {
    if r.unjudged_reason.is_some() {
        return None;
    }
    let mut out = [0.0; 7];
    for (o, s) in out.iter_mut().zip(r.scores) {
        *o = s?;
    }
    Some(out)
}

/// The dialogue an auditor sees for row `r` of corpus dialogue `d`.
fn as_dialogue(d: &Dialogue, r: &EvalTurn, scores: [f64; 7], judge_model: &str) -> Dialogue {
    let t = r.turn as usize;
    let mut turns: Vec<Turn> = d.turns[..t.min(d.turns.len())].to_vec();
    turns.push(Turn {
        speaker: Speaker::Assistant,
        text: r.utterance.clone(),
        action: r.action,
        preset_id: r.preset_id.clone(),
    });
    let reason = JUDGE_DIMENSIONS
        .iter()
        .zip(&r.reasons)
        .filter_map(|(k, why)| {
            why.as_deref()
                .filter(|w| !w.is_empty())
                .map(|w| format!("{k}: {w}"))
        })
        .collect::<Vec<_>>()
        .join("; ");
    let [su, cu, ag, rq, pc, dr, sa] = scores;
    Dialogue {
        id: item_id(r),
        turns,
        qc: Some(QcResult {
            passed: r.findings.is_empty(),
            violations: r
                .findings
                .iter()
                .map(|f| Violation {
                    kind: f.kind.clone(),
                    turn: t,
                    evidence: f.evidence.clone(),
                    message: f.message.clone(),
                })
                .collect(),
        }),
        judge: Some(JudgeScores {
            model: judge_model.to_string(),
            turns: vec![JudgeTurn {
                turn: t,
                semantic_understanding: su,
                context_use: cu,
                active_guidance: ag,
                response_quality: rq,
                preset_compliance: pc,
                dialogue_rhythm: dr,
                safety: sa,
                reason,
            }],
        }),
        r#gen: None,
        ..d.clone()
    }
}

/// Draws `rate` of the judged turns of `run` (stratified by scenario × preset case × relation,
/// by a keyed hash of the seed and the turn's id) and writes them to `RUN/inspection/`.
/// `corpus` is the corpus the run scored (its fingerprint must match the run's).
pub fn sample_from_eval(
    run: &Path,
    corpus_dir: &Path,
    rate: f64,
    seed: u64,
    replace_reviewed: bool,
) -> Result<SampleSummary> {
    if !(rate > 0.0 && rate <= 1.0) {
        return Err(EvalError::Config(format!(
            "--rate must be in (0, 1], got {rate}"
        )));
    }
    let results_path = run.join(crate::RESULTS_FILE);
    let text = std::fs::read_to_string(&results_path).map_err(|e| {
        EvalError::Config(format!(
            "{}: {e} (sample --from-eval takes the folder of a finished `callbench evaluate` run)",
            results_path.display()
        ))
    })?;
    let results: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| EvalError::Config(format!("{}: {e}", results_path.display())))?;
    if results["mode"] != "turn" {
        return Err(EvalError::Config(format!(
            "{}: a {} run; sample --from-eval draws from turn-mode runs (a live run keeps no caller turns to show)",
            run.display(),
            results["mode"]
        )));
    }
    let split: callbench_model::Split = results["split"]
        .as_str()
        .unwrap_or("test")
        .parse()
        .map_err(|e| EvalError::Config(format!("{}: split: {e}", results_path.display())))?;
    let judge_model = results["provenance"]["judge"]["model"]
        .as_str()
        .or(results["judge"].as_str())
        .unwrap_or("judge")
        .to_string();
    let sel = crate::load_split(corpus_dir, split)?;
    let want = results["provenance"]["corpus_fingerprint"]
        .as_str()
        .unwrap_or("");
    if sel.manifest.fingerprint != want {
        return Err(EvalError::Corpus {
            dir: corpus_dir.to_path_buf(),
            message: format!(
                "not the corpus run {} scored (fingerprint {} against the run's {want}): give its --corpus",
                run.display(),
                sel.manifest.fingerprint
            ),
        });
    }
    let by_id: HashMap<&str, &Dialogue> =
        sel.dialogues.iter().map(|d| (d.id.as_str(), d)).collect();
    let rows = read_run_rows(run)?;
    let total = rows.len();
    // Eligible turns by stratum, each with its rank.
    let mut strata: BTreeMap<Stratum, Vec<Candidate<'_>>> = BTreeMap::new();
    for r in &rows {
        let (Some(s), Some(d)) = (scored(r), by_id.get(r.dialogue_id.as_str())) else {
            continue;
        };
        let id = item_id(r);
        strata.entry(Stratum::of(d)).or_default().push((
            inspection::rank(seed, Origin::Corpus, &id),
            r,
            s,
            d,
        ));
    }
    if strata.is_empty() {
        return Err(EvalError::Config(format!(
            "{}: none of its {total} turns is scored on all seven dimensions (the rules judge leaves three unjudged): sample a run judged with --judge llm",
            run.display()
        )));
    }
    let sizes: Vec<u64> = strata.values().map(|v| v.len() as u64).collect();
    let take = inspection::allocate(&sizes, rate);
    let mut picked: Vec<(u64, Dialogue)> = Vec::new();
    let mut counts = Vec::new();
    for ((stratum, mut items), n) in strata.into_iter().zip(take) {
        items.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| item_id(a.1).cmp(&item_id(b.1))));
        counts.push(StratumSample {
            stratum,
            population: items.len() as u64,
            sampled: n,
            rejects_population: 0,
            rejects_sampled: 0,
        });
        for (rank, r, s, d) in items.into_iter().take(n as usize) {
            picked.push((rank, as_dialogue(d, r, s, &judge_model)));
        }
    }
    // Review order by rank: any prefix the auditors get through spreads over the strata.
    picked.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
    let dialogues: Vec<Dialogue> = picked.into_iter().map(|(_, d)| d).collect();
    let summary = SampleSummary {
        format_version: inspection::sample::SAMPLE_FORMAT_VERSION,
        created_at: inspection::now_rfc3339(),
        rate,
        reject_rate: 0.0,
        seed,
        population: counts.iter().map(|c| c.population).sum(),
        sampled: dialogues.len() as u64,
        rejects_population: 0,
        rejects_sampled: 0,
        strata: counts,
        ids: Vec::new(),
        dialogues: Vec::new(),
    };
    Ok(inspection::write_sample(
        run,
        summary,
        &dialogues,
        replace_reviewed,
    )?)
}
