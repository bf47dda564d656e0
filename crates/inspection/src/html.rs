//! Self-contained HTML pages: the printable sample and the audit report.
//!
//! Generated text is untrusted (a model wrote it), and so are auditors' names and notes: every
//! such string goes through [`escape`] before it reaches a page, so a `<script>` in a turn is
//! shown as text. The pages load nothing from elsewhere, run no script, and say so to the browser
//! with a Content-Security-Policy that forbids scripts and remote resources, as a second wall.

use crate::sample::{Origin, SampleEntry, SampleSummary};
use callbench_model::{Dialogue, JUDGE_DIMENSIONS, Speaker};
use std::fmt::Write;

/// Escapes text for HTML element content and quoted attribute values: `&`, `<`, `>`, `"` and
/// `'` become character references.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The head of a page: charset, CSP (no script, nothing remote), title and the shared style.
pub(crate) fn head(title: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"zh\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    )
}

const STYLE: &str = r#"body { font-family: "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", system-ui, sans-serif; margin: 2em auto; max-width: 60em; padding: 0 1em; color: #111; line-height: 1.5; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.5em; } h3 { font-size: 1.05em; }
table { border-collapse: collapse; width: 100%; margin: .5em 0; }
th, td { border: 1px solid #bbb; padding: .25em .45em; vertical-align: top; text-align: left; }
th { background: #eee; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.dialogue { border-top: 2px solid #333; margin-top: 2em; padding-top: .5em; }
.meta { color: #444; font-size: .9em; }
.tag { display: inline-block; border: 1px solid #888; border-radius: 3px; padding: 0 .3em; font-size: .85em; margin-right: .3em; }
.reject { border-color: #a00; color: #a00; }
.private { background: #fde8e8; }
.private-mark { font-weight: bold; color: #a00; }
.caller td.speaker { color: #05a; } .assistant td.speaker { color: #070; }
.finding { color: #a00; font-size: .9em; }
.text { white-space: pre-wrap; word-break: break-word; }
.form { margin-top: .8em; border: 1px dashed #888; padding: .5em; }
.form .line { border-bottom: 1px solid #999; height: 1.6em; }
@media print {
  body { margin: 0; max-width: none; font-size: 10.5pt; }
  .dialogue { break-before: page; page-break-before: always; border-top: none; }
  tr, .form { break-inside: avoid; page-break-inside: avoid; }
  th { background: #eee !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  .private { background: #fde8e8 !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
"#;

/// The printable sample, written as it goes: a summary of the strata, then every dialogue as
/// a transcript with its stratum, speakers, decision labels, the checker's findings on their
/// turns, the owner's presets and profile (private facts marked), and a box for a handwritten
/// verdict. One dialogue's section is held at a time, so a page of any length is written in
/// bounded memory.
pub(crate) struct SamplePage<W: std::io::Write> {
    out: W,
    n: usize,
    buf: String,
}

impl<W: std::io::Write> SamplePage<W> {
    /// Writes the head and the strata table of `summary` (its counts, not its entries).
    pub(crate) fn begin(mut out: W, summary: &SampleSummary) -> std::io::Result<Self> {
        let mut h = head("CallBench 人工抽检 · manual inspection sample");
        let _ = write!(
            h,
            "<h1>CallBench 人工抽检 · manual inspection sample</h1>\n\
             <p class=\"meta\">drawn {} · rate {} of the corpus, {} of the rejects · seed {} · \
             {} of {} corpus dialogues and {} of {} rejected dialogues</p>\n",
            escape(&summary.created_at),
            summary.rate,
            summary.reject_rate,
            summary.seed,
            summary.sampled,
            summary.population,
            summary.rejects_sampled,
            summary.rejects_population,
        );
        h.push_str(
            "<table>\n<tr><th>stratum</th><th class=\"num\">corpus</th><th class=\"num\">sampled</th>\
             <th class=\"num\">rejects</th><th class=\"num\">sampled</th></tr>\n",
        );
        for s in &summary.strata {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>\
                 <td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                escape(&s.stratum.to_string()),
                s.population,
                s.sampled,
                s.rejects_population,
                s.rejects_sampled
            );
        }
        h.push_str("</table>\n");
        out.write_all(h.as_bytes())?;
        Ok(SamplePage {
            out,
            n: 0,
            buf: String::new(),
        })
    }

    /// Writes the next dialogue's section (numbered from 1 in the order of the calls).
    pub(crate) fn dialogue(&mut self, entry: &SampleEntry, d: &Dialogue) -> std::io::Result<()> {
        self.n += 1;
        self.buf.clear();
        dialogue_section(&mut self.buf, self.n, entry, d);
        self.out.write_all(self.buf.as_bytes())
    }

    /// Ends the page and hands back the writer.
    pub(crate) fn finish(mut self) -> std::io::Result<W> {
        self.out.write_all(b"</body>\n</html>\n")?;
        Ok(self.out)
    }
}

fn dialogue_section(h: &mut String, n: usize, entry: &SampleEntry, d: &Dialogue) {
    let id = escape(&d.id);
    let _ = write!(
        h,
        "<section class=\"dialogue\" id=\"d-{id}\">\n<h2>{n}. {id}</h2>\n<p class=\"meta\">\
         <span class=\"tag\">{}</span><span class=\"tag\">{}</span><span class=\"tag\">{}</span>",
        escape(&d.scenario),
        d.preset_case,
        d.relation
    );
    match entry.origin {
        Origin::Corpus => h.push_str("<span class=\"tag\">corpus · checker accepted</span>"),
        Origin::Rejects => {
            h.push_str("<span class=\"tag reject\">rejects · checker rejected</span>")
        }
    }
    let _ = writeln!(
        h,
        " attempt {} · {} turns</p>",
        entry.attempt,
        d.turns.len()
    );

    // The owner: profile, private facts marked, presets.
    let _ = write!(
        h,
        "<h3>机主 owner: {}</h3>\n<table>\n",
        escape(&d.owner.name)
    );
    for (k, v) in &d.owner.public {
        let _ = writeln!(h, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(v));
    }
    for (k, v) in &d.owner.private {
        let _ = writeln!(
            h,
            "<tr class=\"private\"><th>{} <span class=\"private-mark\">[私密 private — never to be disclosed]</span></th><td>{}</td></tr>",
            escape(k),
            escape(v)
        );
    }
    h.push_str("</table>\n");
    if d.owner.presets.is_empty() {
        h.push_str("<p class=\"meta\">no presets</p>\n");
    } else {
        h.push_str(
            "<table>\n<tr><th>preset</th><th>kind</th><th>trigger 触发条件</th><th>response 机主允许的答复</th></tr>\n",
        );
        for p in &d.owner.presets {
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{}</td><td class=\"text\">{}</td><td class=\"text\">{}</td></tr>",
                escape(&p.id),
                p.kind,
                escape(&p.trigger),
                escape(&p.response)
            );
        }
        h.push_str("</table>\n");
    }

    // The caller.
    let _ = write!(
        h,
        "<h3>来电方 caller: {}</h3>\n<p><b>goal</b> <span class=\"text\">{}</span>",
        escape(&d.caller.role),
        escape(&d.caller.goal)
    );
    if let Some(p) = &d.caller.persona {
        let _ = write!(
            h,
            "<br><b>persona</b> <span class=\"text\">{}</span>",
            escape(p)
        );
    }
    for e in &d.caller.events {
        let _ = write!(
            h,
            "<br><b>event</b> <span class=\"text\">{}</span>",
            escape(e)
        );
    }
    h.push_str("</p>\n");

    // The transcript with the checker's findings on their turns.
    let violations: &[callbench_model::Violation] =
        d.qc.as_ref().map_or(&[], |q| q.violations.as_slice());
    h.push_str(
        "<table>\n<tr><th class=\"num\">#</th><th>speaker</th><th>text</th><th>decision</th><th>checker</th></tr>\n",
    );
    for (t, turn) in d.turns.iter().enumerate() {
        let class = match turn.speaker {
            Speaker::Caller => "caller",
            Speaker::Assistant => "assistant",
        };
        let mut decision = turn.action.map(|a| escape(a.as_str())).unwrap_or_default();
        if let Some(p) = &turn.preset_id {
            let _ = write!(decision, " <span class=\"meta\">({})</span>", escape(p));
        }
        let mut found = String::new();
        for v in violations.iter().filter(|v| v.turn == t) {
            finding(&mut found, v);
        }
        let _ = writeln!(
            h,
            "<tr class=\"{class}\"><td class=\"num\">{t}</td><td class=\"speaker\">{}</td>\
             <td class=\"text\">{}</td><td>{decision}</td><td>{found}</td></tr>",
            turn.speaker,
            escape(&turn.text)
        );
    }
    h.push_str("</table>\n");
    let stray: Vec<_> = violations
        .iter()
        .filter(|v| v.turn >= d.turns.len())
        .collect();
    if !stray.is_empty() {
        h.push_str("<p>checker findings beyond the last turn: ");
        for v in stray {
            finding(h, v);
        }
        h.push_str("</p>\n");
    }
    if let Some(j) = &d.judge {
        let _ = write!(
            h,
            "<p class=\"meta\">LLM judge ({}) means:",
            escape(&j.model)
        );
        for dim in JUDGE_DIMENSIONS {
            if let Some(m) = j.mean(dim) {
                let _ = write!(h, " {dim} {m:.2};");
            }
        }
        h.push_str("</p>\n");
    }
    h.push_str(
        "<div class=\"form\">auditor ______________ &nbsp; ☐ accept &nbsp; ☐ reject &nbsp; \
         findings (kind @ turn):<div class=\"line\"></div><div class=\"line\"></div></div>\n</section>\n",
    );
}

fn finding(h: &mut String, v: &callbench_model::Violation) {
    let _ = write!(
        h,
        "<div class=\"finding\"><b>{}</b> {}",
        escape(&v.kind),
        escape(&v.message)
    );
    if !v.evidence.is_empty() {
        let _ = write!(h, " «{}»", escape(&v.evidence));
    }
    h.push_str("</div>");
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            escape(r#"<script>alert("x")</script> & 'y'"#),
            "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;y&#39;"
        );
        assert_eq!(escape("你好"), "你好");
    }
}
