//! Small SVG charts drawn as strings: a heatmap, grouped horizontal bars, stacked horizontal
//! bars (shares) and a histogram. They are self-contained (no script, no external font or
//! file), deterministic (the same data gives the same bytes) and every label goes through
//! [`esc`], since labels may be generated text.
//!
//! The look is `evaluate`'s report's (the same palette, 11px sans-serif, light grid), so that
//! the release's pictures and the benchmark report read alike.
//!
//! ```
//! let svg = charts::histogram("turns per dialogue", &[("4".into(), 10), ("6".into(), 3)]);
//! assert!(svg.starts_with("<svg") && svg.ends_with("</svg>"));
//! ```
#![deny(missing_docs)]

use std::fmt::Write;

/// Colours of the series, in order (Paul Tol's bright scheme, then grey and black).
pub const PALETTE: [&str; 8] = [
    "#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb", "#000000",
];

/// Width of every chart, in pixels.
pub const WIDTH: f64 = 760.0;

/// HTML/XML text escaping (also for attribute values).
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            _ => o.push(c),
        }
    }
    o
}

fn open(w: f64, h: f64, title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" aria-label="{t}"><title>{t}</title><style>text{{font:11px sans-serif}}</style>"#,
        t = esc(title)
    )
}

/// A white-to-blue colour for `t` in 0–1.
pub fn blue(t: f64) -> String {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let c = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    format!(
        "#{:02x}{:02x}{:02x}",
        c(255.0, 34.0),
        c(255.0, 94.0),
        c(255.0, 168.0)
    )
}

/// A heatmap: `values[row][col]`, coloured by the value over the largest, labelled with the
/// value; `None` is a grey cell marked "—".
pub fn heatmap(
    title: &str,
    rows: &[String],
    cols: &[String],
    values: &[Vec<Option<f64>>],
) -> String {
    let max = values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let (cw, ch, x0, y0) = (96.0, 22.0, 230.0, 30.0);
    let w = x0 + cw * cols.len() as f64 + 10.0;
    let h = y0 + ch * rows.len() as f64 + 10.0;
    let mut s = open(w, h, title);
    for (i, col) in cols.iter().enumerate() {
        let _ = write!(
            s,
            r#"<text x="{}" y="20" text-anchor="middle">{}</text>"#,
            x0 + cw * (i as f64 + 0.5),
            esc(col)
        );
    }
    for (j, row) in rows.iter().enumerate() {
        let y = y0 + ch * j as f64;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y + 15.0, esc(row));
        for (i, _) in cols.iter().enumerate() {
            let x = x0 + cw * i as f64;
            let v = values.get(j).and_then(|r| r.get(i)).copied().flatten();
            let (fill, label) = match v {
                Some(v) => (blue(v / max), fmt_num(v)),
                None => ("#eeeeee".into(), "—".into()),
            };
            let text_fill = if v.is_some_and(|v| v / max > 0.6) {
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
                y + 15.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A number as a label: integers without decimals, others with three.
pub fn fmt_num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.3}")
    }
}

/// Grouped horizontal bars: one group per row (its label on the left), one bar per series,
/// scaled to the largest value, each labelled with its value. A legend names the series.
pub fn grouped_bars(title: &str, series: &[String], rows: &[(String, Vec<f64>)]) -> String {
    let max = rows
        .iter()
        .flat_map(|(_, v)| v.iter())
        .copied()
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let row_h = 14.0 * series.len().max(1) as f64 + 10.0;
    let legend_h = 18.0;
    let h = 20.0 + legend_h + row_h * rows.len().max(1) as f64;
    let (x0, x1) = (230.0, WIDTH - 80.0);
    let mut s = open(WIDTH, h, title);
    legend(&mut s, series, 4.0, 14.0);
    if rows.is_empty() {
        s.push_str(r#"<text x="4" y="44">nothing to show</text>"#);
    }
    for (k, (label, values)) in rows.iter().enumerate() {
        let y0 = 20.0 + legend_h + k as f64 * row_h;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y0 + 11.0, esc(label));
        for (j, v) in values.iter().enumerate() {
            let y = y0 + j as f64 * 14.0;
            let name = series.get(j).map_or("", String::as_str);
            let _ = write!(
                s,
                r#"<rect x="{x0}" y="{y}" width="{:.1}" height="11" fill="{}"><title>{}: {}</title></rect><text x="{:.1}" y="{}">{}</text>"#,
                v / max * (x1 - x0),
                PALETTE[j % PALETTE.len()],
                esc(name),
                fmt_num(*v),
                x0 + v / max * (x1 - x0) + 4.0,
                y + 10.0,
                fmt_num(*v)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// Stacked horizontal bars of shares: each row's values are drawn as parts of its total (a row
/// of zeros is empty). A legend names the series.
pub fn stacked_shares(title: &str, series: &[String], rows: &[(String, Vec<f64>)]) -> String {
    let legend_rows = series.len().div_ceil(4).max(1) as f64;
    let top = 10.0 + 16.0 * legend_rows;
    let h = top + 24.0 * rows.len().max(1) as f64 + 10.0;
    let (x0, x1) = (150.0, WIDTH - 20.0);
    let mut s = open(WIDTH, h, title);
    for (j, name) in series.iter().enumerate() {
        let (x, y) = (4.0 + 185.0 * (j % 4) as f64, 4.0 + 16.0 * (j / 4) as f64);
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{y}" width="10" height="10" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            PALETTE[j % PALETTE.len()],
            x + 14.0,
            y + 9.0,
            esc(name)
        );
    }
    for (k, (label, values)) in rows.iter().enumerate() {
        let y = top + 24.0 * k as f64;
        let _ = write!(s, r#"<text x="4" y="{}">{}</text>"#, y + 14.0, esc(label));
        let total: f64 = values.iter().sum();
        let mut x = x0;
        for (j, v) in values.iter().enumerate() {
            if total <= 0.0 || *v <= 0.0 {
                continue;
            }
            let w = v / total * (x1 - x0);
            let name = series.get(j).map_or("", String::as_str);
            let _ = write!(
                s,
                r#"<rect x="{x:.1}" y="{y}" width="{w:.1}" height="18" fill="{}"><title>{}: {:.1}%</title></rect>"#,
                PALETTE[j % PALETTE.len()],
                esc(name),
                v / total * 100.0
            );
            x += w;
        }
    }
    s.push_str("</svg>");
    s
}

/// A histogram: one vertical bar per bin, labelled under it, its count above it.
pub fn histogram(title: &str, bins: &[(String, u64)]) -> String {
    let max = bins.iter().map(|(_, c)| *c).max().unwrap_or(0).max(1) as f64;
    let (x0, x1, y0, y1) = (10.0, WIDTH - 10.0, 20.0, 200.0);
    let bw = (x1 - x0) / bins.len().max(1) as f64;
    let mut s = open(WIDTH, y1 + 24.0, title);
    let _ = write!(
        s,
        r##"<line x1="{x0}" y1="{y1}" x2="{x1}" y2="{y1}" stroke="#888"/>"##
    );
    for (i, (label, c)) in bins.iter().enumerate() {
        let hgt = *c as f64 / max * (y1 - y0);
        let x = x0 + bw * i as f64;
        let _ = write!(
            s,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{hgt:.1}" fill="{}"><title>{}: {c}</title></rect><text x="{:.1}" y="{}" text-anchor="middle">{}</text>"#,
            x + 1.0,
            y1 - hgt,
            (bw - 2.0).max(1.0),
            PALETTE[0],
            esc(label),
            x + bw / 2.0,
            y1 + 14.0,
            esc(label)
        );
        if *c > 0 {
            let _ = write!(
                s,
                r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{c}</text>"#,
                x + bw / 2.0,
                y1 - hgt - 3.0
            );
        }
    }
    s.push_str("</svg>");
    s
}

fn legend(s: &mut String, series: &[String], x: f64, y: f64) {
    let mut x = x;
    for (j, name) in series.iter().enumerate() {
        let _ = write!(
            s,
            r#"<rect x="{x}" y="{}" width="10" height="10" fill="{}"/><text x="{}" y="{y}">{}</text>"#,
            y - 9.0,
            PALETTE[j % PALETTE.len()],
            x + 14.0,
            esc(name)
        );
        x += 24.0 + 7.0 * name.chars().count() as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped() {
        let svg = grouped_bars("t", &["<a>".into()], &[("x&y".into(), vec![1.0])]);
        assert!(svg.contains("&lt;a&gt;") && svg.contains("x&amp;y"));
        assert!(!svg.contains("<a>"));
    }

    #[test]
    fn heatmap_marks_missing_cells() {
        let svg = heatmap(
            "t",
            &["r".into()],
            &["a".into(), "b".into()],
            &[vec![Some(2.0), None]],
        );
        assert!(svg.contains(">2<") && svg.contains("—"));
    }
}
