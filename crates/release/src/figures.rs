//! `REL/figures/*.svg`, drawn with `charts` from the statistics (never from the dialogues'
//! text, so no generated string reaches a picture unescaped).

use crate::stats::{CHAR_BIN, CHAR_CAP, Stats};
use callbench_model::{Action, Relation};

/// The figures, as (file name, SVG), in the card's order.
pub fn draw(s: &Stats) -> Vec<(String, String)> {
    vec![
        ("cells.svg".into(), cells(s)),
        ("turn_lengths.svg".into(), turn_lengths(s)),
        ("turns_per_dialogue.svg".into(), turns_per_dialogue(s)),
        ("decisions_by_relation.svg".into(), decisions(s)),
        ("findings.svg".into(), findings(s)),
    ]
}

fn cells(s: &Stats) -> String {
    let cols: Vec<String> = Relation::ALL.iter().map(|r| r.to_string()).collect();
    let mut rows: Vec<String> = Vec::new();
    for c in &s.cells {
        let r = format!("{} × {}", c.scenario, c.preset_case);
        if !rows.contains(&r) {
            rows.push(r);
        }
    }
    let values = rows
        .iter()
        .map(|r| {
            cols.iter()
                .map(|col| {
                    s.cells
                        .iter()
                        .find(|c| {
                            &format!("{} × {}", c.scenario, c.preset_case) == r
                                && &c.relation == col
                        })
                        .map(|c| c.dialogues as f64)
                })
                .collect()
        })
        .collect::<Vec<_>>();
    charts::heatmap(
        "released dialogues per scenario × preset case (rows) and relation (columns)",
        &rows,
        &cols,
        &values,
    )
}

fn turn_lengths(s: &Stats) -> String {
    let mut bins: Vec<(String, u64)> = (0..=CHAR_CAP / CHAR_BIN)
        .map(|i| {
            let label = if i * CHAR_BIN >= CHAR_CAP {
                format!("{CHAR_CAP}+")
            } else {
                format!("{}", i * CHAR_BIN)
            };
            (label, 0)
        })
        .collect();
    for l in s.turns.chars.values() {
        for (i, c) in l.bins.iter().enumerate() {
            if let Some(b) = bins.get_mut(i) {
                b.1 += c;
            }
        }
    }
    charts::histogram(
        &format!("turns by length in characters (bins of {CHAR_BIN})"),
        &bins,
    )
}

fn turns_per_dialogue(s: &Stats) -> String {
    let bins: Vec<(String, u64)> = s
        .turns
        .per_dialogue
        .iter()
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    charts::histogram("dialogues by number of turns", &bins)
}

fn decisions(s: &Stats) -> String {
    let mut series: Vec<String> = Action::ALL.iter().map(|a| a.to_string()).collect();
    for k in s.decisions.overall.keys() {
        if !series.contains(k) {
            series.push(k.clone());
        }
    }
    let rows: Vec<(String, Vec<f64>)> = s
        .decisions
        .by_relation
        .iter()
        .map(|(rel, m)| {
            (
                rel.clone(),
                series
                    .iter()
                    .map(|a| m.get(a).copied().unwrap_or(0) as f64)
                    .collect(),
            )
        })
        .collect();
    charts::stacked_shares(
        "assistant decisions by relation (share of assistant turns)",
        &series,
        &rows,
    )
}

fn findings(s: &Stats) -> String {
    let series = vec![
        "found (every attempt)".to_string(),
        "removed (regenerated or given up)".to_string(),
        "in the release".to_string(),
    ];
    let rows: Vec<(String, Vec<f64>)> = s
        .checker
        .found
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                vec![
                    *v as f64,
                    s.checker.removed.get(k).copied().unwrap_or(0) as f64,
                    s.checker.in_release.get(k).copied().unwrap_or(0) as f64,
                ],
            )
        })
        .collect();
    charts::grouped_bars(
        "quality-checker findings by kind: found and fixed",
        &series,
        &rows,
    )
}
