//! Who reviews what: `callbench review --auditors a,b,c --overlap 0.2` plans each auditor's
//! queue so that a chosen share of the sample is seen by two auditors — the overlap the
//! inter-auditor agreement (Cohen's κ) of the audit report is computed on.
//!
//! The plan is a function of the sample's review order, the auditors (as given, duplicates
//! refused) and the share only, so re-running the command gives the same queues:
//!
//! - `round(overlap × n)` dialogues are seen twice, spread evenly over the review order (the
//!   sample's order is already interleaved over the strata, so any stretch of it is a fair
//!   draw); they go to the pairs of auditors in turn (`a+b`, `a+c`, `b+c`, `a+b`, …), so that
//!   every pair has dialogues in common;
//! - every other dialogue goes to the auditor with the fewest so far (the earlier-named on a
//!   tie), so that the queues differ by at most one or two dialogues.
//!
//! Each queue keeps the sample's review order. The plan is written to
//! `DIR/inspection/assignments.json`.

use crate::error::{InspectionError, Result};
use crate::files::{inspection_dir, write_atomic};
use crate::sample::SampleSummary;
use crate::verdict::MAX_AUDITOR_CHARS;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The plan's file name under `DIR/inspection/`.
pub const ASSIGNMENTS_JSON: &str = "assignments.json";

/// The plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Assignments {
    /// The auditors, in the order given.
    pub auditors: Vec<String>,
    /// The share of the sample seen by two auditors, as asked.
    pub overlap: f64,
    /// Dialogues seen by two auditors.
    pub doubled: u64,
    /// When the sample the plan is for was drawn (a plan of another sample is refused).
    pub sample_drawn_at: String,
    /// Each auditor's queue, in the sample's review order.
    pub queues: BTreeMap<String, Vec<String>>,
}

impl Assignments {
    /// The auditors a dialogue is assigned to.
    pub fn auditors_of(&self, id: &str) -> Vec<&str> {
        self.auditors
            .iter()
            .filter(|a| {
                self.queues
                    .get(*a)
                    .is_some_and(|q| q.iter().any(|x| x == id))
            })
            .map(String::as_str)
            .collect()
    }
}

/// The path of the plan of a corpus.
pub fn assignments_path(corpus_dir: &Path) -> PathBuf {
    inspection_dir(corpus_dir).join(ASSIGNMENTS_JSON)
}

fn bad(key: &'static str, message: String) -> InspectionError {
    InspectionError::Config { key, message }
}

/// Plans the queues for `sample`; see the module documentation. Errors: no auditor, a blank,
/// too long or repeated name, an overlap outside 0–1, an overlap with a single auditor.
pub fn plan(sample: &SampleSummary, auditors: &[String], overlap: f64) -> Result<Assignments> {
    let auditors: Vec<String> = auditors.iter().map(|a| a.trim().to_string()).collect();
    if auditors.is_empty() {
        return Err(bad("auditors", "name at least one auditor".into()));
    }
    let mut seen = BTreeSet::new();
    for a in &auditors {
        if a.is_empty() || a.chars().count() > MAX_AUDITOR_CHARS {
            return Err(bad(
                "auditors",
                format!("{a:?} is not a name of 1–{MAX_AUDITOR_CHARS} characters"),
            ));
        }
        if !seen.insert(a.as_str()) {
            return Err(bad("auditors", format!("{a:?} is named twice")));
        }
    }
    if !(0.0..=1.0).contains(&overlap) || !overlap.is_finite() {
        return Err(bad(
            "overlap",
            format!("{overlap}: the share seen by two auditors must be between 0 and 1"),
        ));
    }
    if overlap > 0.0 && auditors.len() < 2 {
        return Err(bad(
            "overlap",
            "a share seen by two auditors needs at least two auditors (or --overlap 0)".into(),
        ));
    }
    let ids = &sample.ids;
    let n = ids.len();
    let doubled = (overlap * n as f64).round() as usize;
    let pairs: Vec<(usize, usize)> = (0..auditors.len())
        .flat_map(|i| (i + 1..auditors.len()).map(move |j| (i, j)))
        .collect();
    let mut queues: Vec<Vec<String>> = vec![Vec::new(); auditors.len()];
    let mut k = 0;
    for (i, id) in ids.iter().enumerate() {
        // Evenly spread: item i is doubled when floor((i+1)·d/n) steps past floor(i·d/n).
        let twice = n > 0 && (i + 1) * doubled / n > i * doubled / n;
        if twice {
            let (a, b) = pairs[k % pairs.len()];
            k += 1;
            queues[a].push(id.clone());
            queues[b].push(id.clone());
        } else {
            let least = (0..auditors.len())
                .min_by_key(|&a| (queues[a].len(), a))
                .expect("at least one auditor");
            queues[least].push(id.clone());
        }
    }
    Ok(Assignments {
        queues: auditors.iter().cloned().zip(queues).collect(),
        auditors,
        overlap,
        doubled: doubled as u64,
        sample_drawn_at: sample.created_at.clone(),
    })
}

/// Writes the plan to `DIR/inspection/assignments.json` (atomically).
pub fn write_assignments(corpus_dir: &Path, a: &Assignments) -> Result<PathBuf> {
    let path = assignments_path(corpus_dir);
    let mut bytes = serde_json::to_vec_pretty(a).expect("a plan serialises");
    bytes.push(b'\n');
    write_atomic(&path, &bytes)?;
    Ok(path)
}

/// Reads the plan of a corpus, if there is one, and checks it against the sample: a plan of
/// another sample (drawn at another time, or naming ids the sample does not hold) is an error
/// saying to plan again.
pub fn read_assignments(corpus_dir: &Path, sample: &SampleSummary) -> Result<Option<Assignments>> {
    let path = assignments_path(corpus_dir);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(InspectionError::io(&path, e)),
    };
    let a: Assignments = serde_json::from_slice(&bytes)
        .map_err(|e| InspectionError::json(&path, Some(e.line()), e.to_string()))?;
    let ids: BTreeSet<&str> = sample.ids.iter().map(String::as_str).collect();
    let stale = a.sample_drawn_at != sample.created_at
        || a.queues
            .values()
            .flatten()
            .any(|id| !ids.contains(id.as_str()));
    if stale {
        return Err(InspectionError::json(
            &path,
            None,
            "the plan is of another sample; plan again with `callbench review --auditors …`"
                .to_string(),
        ));
    }
    Ok(Some(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(n: usize) -> SampleSummary {
        SampleSummary {
            format_version: 1,
            created_at: "2026-01-01T00:00:00Z".into(),
            rate: 0.1,
            reject_rate: 0.0,
            seed: 1,
            population: 0,
            sampled: n as u64,
            rejects_population: 0,
            rejects_sampled: 0,
            strata: Vec::new(),
            ids: (0..n).map(|i| format!("life-{i:06}")).collect(),
            dialogues: Vec::new(),
        }
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_chosen_share_is_seen_twice_and_the_rest_once() {
        for (n, overlap, auditors) in [(100, 0.2, 3), (41, 0.25, 2), (7, 1.0, 4), (50, 0.0, 3)] {
            let s = sample(n);
            let who: Vec<String> = (0..auditors).map(|i| format!("a{i}")).collect();
            let p = plan(&s, &who, overlap).unwrap();
            let mut seen: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
            for (a, q) in &p.queues {
                for id in q {
                    assert!(
                        seen.entry(id).or_default().insert(a),
                        "{id} twice in {a}'s queue"
                    );
                }
                // Each queue keeps the review order.
                let pos: Vec<usize> = q
                    .iter()
                    .map(|id| s.ids.iter().position(|x| x == id).unwrap())
                    .collect();
                assert!(pos.windows(2).all(|w| w[0] < w[1]));
            }
            assert_eq!(seen.len(), n, "every dialogue is assigned");
            let twice = seen.values().filter(|v| v.len() == 2).count();
            assert_eq!(twice, (overlap * n as f64).round() as usize);
            assert!(seen.values().all(|v| v.len() <= 2));
            assert_eq!(p.doubled as usize, twice);
            // Every pair of auditors shares dialogues once there are enough doubled ones.
            if twice >= auditors * (auditors - 1) / 2 && auditors > 1 {
                for i in 0..auditors {
                    for j in i + 1..auditors {
                        let (a, b) = (format!("a{i}"), format!("a{j}"));
                        assert!(
                            seen.values()
                                .any(|v| v.contains(a.as_str()) && v.contains(b.as_str())),
                            "{a}+{b}"
                        );
                    }
                }
            }
            let loads: Vec<usize> = p.queues.values().map(Vec::len).collect();
            assert!(
                loads.iter().max().unwrap() - loads.iter().min().unwrap() <= 2,
                "{loads:?}"
            );
            // The same arguments, the same plan.
            assert_eq!(plan(&s, &who, overlap).unwrap(), p);
        }
    }

    #[test]
    fn bad_arguments_say_which() {
        let s = sample(10);
        for (who, overlap, needle) in [
            (names(&[]), 0.2, "at least one"),
            (names(&["a", "a"]), 0.2, "named twice"),
            (names(&["a", " "]), 0.2, "not a name"),
            (names(&["a", "b"]), 1.5, "between 0 and 1"),
            (names(&["a"]), 0.2, "at least two auditors"),
        ] {
            let e = plan(&s, &who, overlap).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
        assert!(plan(&s, &names(&["a"]), 0.0).is_ok());
    }

    #[test]
    fn a_plan_of_another_sample_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let s = sample(10);
        let p = plan(&s, &names(&["a", "b"]), 0.2).unwrap();
        write_assignments(dir.path(), &p).unwrap();
        assert_eq!(read_assignments(dir.path(), &s).unwrap(), Some(p));
        let mut other = sample(10);
        other.created_at = "2026-02-01T00:00:00Z".into();
        let e = read_assignments(dir.path(), &other)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("assignments.json") && e.contains("plan again"),
            "{e}"
        );
    }
}
