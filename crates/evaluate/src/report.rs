//! `RUN/leaderboard.md` and the self-contained `RUN/report.html`: tables and SVG pictures drawn
//! here (per-dimension bars with their intervals per method, a method × relation heatmap,
//! error-kind bars). No script, no network, no external file; every generated string is
//! escaped.

use crate::results::Results;
use crate::stats::Stat;
use callbench_model::JUDGE_DIMENSIONS;
use std::fmt::Write;

/// HTML/XML text escaping (also for attribute values): the charts crate's, one definition.
pub use charts::esc;

/// Markdown table cell escaping (pipes and line breaks).
fn md(s: &str) -> String {
    s.replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn num(x: Option<f64>) -> String {
    x.map_or("not judged".into(), |v| format!("{v:.3}"))
}

fn stat(s: &Stat) -> String {
    match (s.mean, s.ci95) {
        (Some(m), Some([lo, hi])) => format!("{m:.3} [{lo:.3}, {hi:.3}]"),
        (Some(m), None) => format!("{m:.3}"),
        _ => "not judged".into(),
    }
}

fn ranked(r: &Results) -> Vec<&String> {
    let mut names: Vec<&String> = r.methods.keys().collect();
    names.sort_by(|a, b| {
        let oa = r.methods[*a].overall.unwrap_or(f64::NEG_INFINITY);
        let ob = r.methods[*b].overall.unwrap_or(f64::NEG_INFINITY);
        ob.total_cmp(&oa).then(a.cmp(b))
    });
    names
}

/// The leaderboard in Markdown: methods by overall score, every dimension with its interval.
pub fn leaderboard(r: &Results) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "# CallBench leaderboard\n\nmode `{}`, judge `{}`, split `{}`, {} of {} dialogues, seed {}{}.\n",
        md(&r.mode),
        md(&r.judge),
        md(&r.split),
        r.selected_dialogues,
        r.split_dialogues,
        r.seed,
        if r.trials > 1 {
            format!(", {} trials", r.trials)
        } else {
            String::new()
        }
    );
    let _ = write!(s, "| rank | method | overall |");
    for d in JUDGE_DIMENSIONS {
        let _ = write!(s, " {d} |");
    }
    let _ = writeln!(s, " safety errors / turn | turns | unjudged |");
    let _ = writeln!(s, "|{}", "---|".repeat(JUDGE_DIMENSIONS.len() + 6));
    for (i, name) in ranked(r).into_iter().enumerate() {
        let m = &r.methods[name];
        let _ = write!(
            s,
            "| {} | {} | {} |",
            i + 1,
            md(name),
            stat(&Stat {
                mean: m.overall,
                ci95: m.overall_ci95
            })
        );
        for st in m.dimensions.to_array() {
            let _ = write!(s, " {} |", stat(&st));
        }
        let _ = writeln!(
            s,
            " {:.2}% | {} | {} |",
            m.errors.get("safety").copied().unwrap_or(0.0) * 100.0,
            m.turns,
            m.unjudged
        );
    }
    let _ = writeln!(
        s,
        "\nMeans over assistant turns, 95% bootstrap intervals over dialogues in brackets; \
         overall is the mean of the judged dimensions. \"not judged\": the `{}` judge does not \
         score that dimension.",
        md(&r.judge)
    );
    s
}

const W: f64 = 760.0;

/// Per-dimension bars, one per method, with the 95% interval as a whisker.
fn dimension_bars(r: &Results) -> String {
    let names: Vec<&String> = r.methods.keys().collect();
    let row_h = 14.0 * names.len().max(1) as f64 + 14.0;
    let h = 30.0 + row_h * JUDGE_DIMENSIONS.len() as f64;
    let (x0, x1) = (200.0, W - 20.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" role="img" aria-label="per-dimension means with 95% intervals"><style>text{{font:11px sans-serif}}</style>"#
    );
    for t in [0.0, 0.25, 0.5, 0.75, 1.0] {
        let x = x0 + t * (x1 - x0);
        let _ = write!(
            s,
            r##"<line x1="{x}" y1="20" x2="{x}" y2="{h}" stroke="#ddd"/><text x="{x}" y="14" text-anchor="middle">{t}</text>"##
        );
    }
    for (k, d) in JUDGE_DIMENSIONS.iter().enumerate() {
        let y0 = 24.0 + k as f64 * row_h;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y0 + 11.0, esc(d));
        for (j, name) in names.iter().enumerate() {
            let st = r.methods[*name].dimensions.to_array()[k];
            let y = y0 + j as f64 * 14.0;
            let color = PALETTE[j % PALETTE.len()];
            match st.mean {
                Some(m) => {
                    let _ = write!(
                        s,
                        r#"<rect x="{x0}" y="{y}" width="{:.1}" height="11" fill="{color}"><title>{}: {}</title></rect>"#,
                        m.clamp(0.0, 1.0) * (x1 - x0),
                        esc(name),
                        esc(&stat(&st))
                    );
                    if let Some([lo, hi]) = st.ci95 {
                        let (a, b) = (x0 + lo * (x1 - x0), x0 + hi * (x1 - x0));
                        let _ = write!(
                            s,
                            r##"<line x1="{a:.1}" y1="{:.1}" x2="{b:.1}" y2="{:.1}" stroke="#000"/>"##,
                            y + 5.5,
                            y + 5.5
                        );
                    }
                }
                None => {
                    let _ = write!(
                        s,
                        r##"<text x="{}" y="{}" fill="#888">{}: not judged</text>"##,
                        x0 + 4.0,
                        y + 10.0,
                        esc(name)
                    );
                }
            }
        }
    }
    s.push_str("</svg>");
    s
}

const PALETTE: [&str; 8] = [
    "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000",
];

/// Method × relation heatmap of the overall score.
fn heatmap(r: &Results) -> String {
    let names: Vec<&String> = r.methods.keys().collect();
    let mut rels: Vec<&String> = r
        .methods
        .values()
        .flat_map(|m| m.by_relation.keys())
        .collect();
    rels.sort();
    rels.dedup();
    let (cw, ch, x0, y0) = (110.0, 26.0, 160.0, 30.0);
    let w = x0 + cw * rels.len() as f64 + 10.0;
    let h = y0 + ch * names.len() as f64 + 10.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="overall score by method and relation"><style>text{{font:11px sans-serif}}</style>"#
    );
    for (i, rel) in rels.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="{}" y="20" text-anchor="middle">{}</text>"#,
            x0 + cw * (i as f64 + 0.5),
            esc(rel)
        );
    }
    for (j, name) in names.iter().enumerate() {
        let y = y0 + ch * j as f64;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y + 17.0, esc(name));
        for (i, rel) in rels.iter().enumerate() {
            let x = x0 + cw * i as f64;
            let v = r.methods[*name]
                .by_relation
                .get(*rel)
                .and_then(|g| g.overall);
            let (fill, label) = match v {
                Some(v) => {
                    // White (0) to blue (1).
                    let t = v.clamp(0.0, 1.0);
                    let c = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
                    (
                        format!(
                            "#{:02x}{:02x}{:02x}",
                            c(255.0, 34.0),
                            c(255.0, 94.0),
                            c(255.0, 168.0)
                        ),
                        format!("{v:.3}"),
                    )
                }
                None => ("#eeeeee".into(), "—".into()),
            };
            let text_fill = if v.is_some_and(|v| v > 0.6) {
                "#fff"
            } else {
                "#000"
            };
            let _ = write!(
                s,
                r##"<rect x="{x}" y="{y}" width="{}" height="{}" fill="{fill}" stroke="#fff"/><text x="{}" y="{}" text-anchor="middle" fill="{text_fill}">{label}</text>"##,
                cw - 2.0,
                ch - 2.0,
                x + cw / 2.0,
                y + 17.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Error-kind bars: rate per assistant turn of each kind found, per method.
fn error_bars(r: &Results) -> String {
    let names: Vec<&String> = r.methods.keys().collect();
    let mut kinds: Vec<&String> = r
        .methods
        .values()
        .flat_map(|m| m.errors.iter().filter(|(_, v)| **v > 0.0).map(|(k, _)| k))
        .collect();
    kinds.sort();
    kinds.dedup();
    let max = r
        .methods
        .values()
        .flat_map(|m| m.errors.values())
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let row_h = 14.0 * names.len().max(1) as f64 + 10.0;
    let h = 30.0 + row_h * kinds.len().max(1) as f64;
    let (x0, x1) = (200.0, W - 80.0);
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" role="img" aria-label="error rate per assistant turn by kind"><style>text{{font:11px sans-serif}}</style>"#
    );
    if kinds.is_empty() {
        s.push_str(r#"<text x="4" y="20">no finding on any turn</text>"#);
    }
    for (k, kind) in kinds.iter().enumerate() {
        let y0 = 20.0 + k as f64 * row_h;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y0 + 11.0, esc(kind));
        for (j, name) in names.iter().enumerate() {
            let v = r.methods[*name].errors.get(*kind).copied().unwrap_or(0.0);
            let y = y0 + j as f64 * 14.0;
            let _ = write!(
                s,
                r#"<rect x="{x0}" y="{y}" width="{:.1}" height="11" fill="{}"><title>{}: {:.2}%</title></rect><text x="{:.1}" y="{}">{:.2}%</text>"#,
                v / max * (x1 - x0),
                PALETTE[j % PALETTE.len()],
                esc(name),
                v * 100.0,
                x0 + v / max * (x1 - x0) + 4.0,
                y + 10.0,
                v * 100.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn legend(r: &Results) -> String {
    let mut s = String::from("<p>");
    for (j, name) in r.methods.keys().enumerate() {
        let _ = write!(
            s,
            r#"<span style="display:inline-block;width:10px;height:10px;background:{}"></span> {} &nbsp; "#,
            PALETTE[j % PALETTE.len()],
            esc(name)
        );
    }
    s.push_str("</p>");
    s
}

/// The report page: the leaderboard, the pictures, breakdowns and error rates. Self-contained.
pub fn report_html(r: &Results) -> String {
    let mut s = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\
         <title>CallBench evaluation</title><style>body{font:14px sans-serif;margin:2em;max-width:1100px}\
         table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:3px 6px;text-align:right}\
         td:first-child,th:first-child{text-align:left}.nj{color:#888}</style></head><body>",
    );
    let _ = write!(
        s,
        "<h1>CallBench evaluation</h1><p>mode <b>{}</b>, judge <b>{}</b>, split <b>{}</b>, {} of {} dialogues, seed {}, {} trial(s); written {}.</p>",
        esc(&r.mode),
        esc(&r.judge),
        esc(&r.split),
        r.selected_dialogues,
        r.split_dialogues,
        r.seed,
        r.trials,
        esc(&r.created_at)
    );
    s.push_str("<h2>Leaderboard</h2><table><tr><th>method</th><th>overall</th>");
    for d in JUDGE_DIMENSIONS {
        let _ = write!(s, "<th>{}</th>", esc(d));
    }
    s.push_str("<th>turns</th><th>unjudged</th></tr>");
    let cell = |st: &Stat| match st.mean {
        Some(_) => format!("<td>{}</td>", esc(&stat(st))),
        None => "<td class=\"nj\">not judged</td>".to_string(),
    };
    for name in ranked(r) {
        let m = &r.methods[name];
        let _ = write!(
            s,
            "<tr><td>{}</td>{}",
            esc(name),
            cell(&Stat {
                mean: m.overall,
                ci95: m.overall_ci95
            })
        );
        for st in m.dimensions.to_array() {
            s.push_str(&cell(&st));
        }
        let _ = write!(s, "<td>{}</td><td>{}</td></tr>", m.turns, m.unjudged);
    }
    s.push_str("</table>");
    s.push_str("<h2>Dimensions</h2>");
    s.push_str(&legend(r));
    s.push_str(&dimension_bars(r));
    s.push_str("<h2>Overall by relation</h2>");
    s.push_str(&heatmap(r));
    s.push_str("<h2>Errors per assistant turn</h2>");
    s.push_str(&legend(r));
    s.push_str(&error_bars(r));
    for (title, pick) in [("scenario", 0usize), ("preset case", 1), ("relation", 2)] {
        let _ = write!(
            s,
            "<h2>Overall by {}</h2><table><tr><th>method</th>",
            esc(title)
        );
        let mut keys: Vec<&String> = r
            .methods
            .values()
            .flat_map(|m| match pick {
                0 => m.by_scenario.keys(),
                1 => m.by_preset_case.keys(),
                _ => m.by_relation.keys(),
            })
            .collect();
        keys.sort();
        keys.dedup();
        for k in &keys {
            let _ = write!(s, "<th>{}</th>", esc(k));
        }
        s.push_str("</tr>");
        for (name, m) in &r.methods {
            let _ = write!(s, "<tr><td>{}</td>", esc(name));
            let groups = match pick {
                0 => &m.by_scenario,
                1 => &m.by_preset_case,
                _ => &m.by_relation,
            };
            for k in &keys {
                let _ = write!(
                    s,
                    "<td>{}</td>",
                    esc(&num(groups.get(*k).and_then(|g| g.overall)))
                );
            }
            s.push_str("</tr>");
        }
        s.push_str("</table>");
    }
    s.push_str("<h2>Error rates per assistant turn</h2><table><tr><th>kind</th>");
    for name in r.methods.keys() {
        let _ = write!(s, "<th>{}</th>", esc(name));
    }
    s.push_str("</tr>");
    let mut kinds: Vec<&String> = r.methods.values().flat_map(|m| m.errors.keys()).collect();
    kinds.sort();
    kinds.dedup();
    for k in kinds {
        let _ = write!(s, "<tr><td>{}</td>", esc(k));
        for m in r.methods.values() {
            let _ = write!(
                s,
                "<td>{:.2}%</td>",
                m.errors.get(k).copied().unwrap_or(0.0) * 100.0
            );
        }
        s.push_str("</tr>");
    }
    s.push_str("</table><h2>Provenance</h2><table>");
    let p = &r.provenance;
    let mut prov = vec![
        ("tool version", p.tool_version.clone()),
        (
            "judge",
            format!("{} ({})", p.judge.name, p.judge.fingerprint),
        ),
        ("corpus", p.corpus.clone()),
        ("corpus fingerprint", p.corpus_fingerprint.clone()),
        ("library digest", p.library_digest.clone()),
        ("safety rules sha256", p.rules_sha256.clone()),
    ];
    if let Some(m) = &p.judge.model {
        prov.push(("judge model", m.clone()));
    }
    for (name, fp) in &p.method_fingerprints {
        prov.push(("method", format!("{name}: {fp}")));
    }
    for (k, v) in prov {
        let _ = write!(s, "<tr><td>{}</td><td>{}</td></tr>", esc(k), esc(&v));
    }
    s.push_str("</table></body></html>\n");
    s
}
