// SPDX-License-Identifier: GPL-2.0
//! The report's delays beside the windows that explain them (`report --explain FILE`, the
//! answer of `explain --json`): one inline SVG over the answer's span, a row per CPU with
//! the answer's windows and a row per thing delayed (I/O per device, softirq per vector
//! and CPU, tag wait per device, task), each delay a bar, an explained one joined to its
//! windows by a thin line; then the longest delays with their explanation in a table, and
//! the answer's limits. The sentences are `explain`'s own (`explain::render`).
//!
//! Bounded whatever the answer: it draws the longest [`DELAYS_DRAWN`] delays and the
//! longest [`WINDOWS_DRAWN`] of their windows, and lists [`DELAYS_LISTED`]; it says what
//! it left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::markup::{close, colour, esc, WIDTH};
use super::timeline::tick_step;
use crate::explain::join::{cpu_list, DelayKind, Explained, Window};
use crate::explain::render::{headline, limits, summary, window, window_words};
use crate::explain::Answer;
use crate::model::snapshot::{Cause, Kind};

/// Delays the drawing holds: the longest.
pub const DELAYS_DRAWN: usize = 200;
/// Windows the drawing holds: the longest of those that explain a drawn delay.
pub const WINDOWS_DRAWN: usize = 400;
/// Rows of the table under the drawing: the longest delays.
pub const DELAYS_LISTED: usize = 20;
/// Windows an explained delay's title names; it says how many more there are.
const TITLE_WINDOWS: usize = 3;
/// Windows a delay's row of the table names.
const TABLE_WINDOWS: usize = 8;
/// The answer's notes shown; it says how many more there are.
const NOTES: usize = 10;

/// Left margin (the rows' labels), and the characters of a label shown there.
const LABEL: f64 = 170.0;
const LABEL_CHARS: usize = 26;
/// Height of one row.
const LANE: f64 = 16.0;
/// The space between the CPUs' rows and the delays'.
const GAP: f64 = 10.0;
/// An explained delay, and the line to its window.
const EXPLAINED: &str = "#2ca02c";
/// A delay no window explains.
const NOT_EXPLAINED: &str = "#b0b0b0";

/// A window's identity in the answer (it repeats under every delay it explains).
type WindowKey = (u32, u64, u64, String, i32, String);

fn key_of(w: &Window) -> WindowKey {
    (
        w.cpu,
        w.start_ns,
        w.end_ns,
        w.kind.clone(),
        w.pid,
        w.culprit.clone(),
    )
}

/// A window's kind and cause as the records name them, for its colour.
fn kind_of(w: &Window) -> (Kind, Option<Cause>) {
    if w.kind == "hard" {
        (Kind::Hard, None)
    } else {
        (Kind::Soft, w.cause.as_deref().and_then(Cause::parse))
    }
}

/// The row a delay is drawn in: its kind's rank, and what was delayed.
fn row_of(e: &Explained) -> (u8, String) {
    let d = &e.delay;
    let or_q = |s: &Option<String>| s.clone().unwrap_or_else(|| "?".into());
    match d.kind {
        DelayKind::Io => (0, format!("I/O {}", or_q(&d.device))),
        DelayKind::Softirq => (
            1,
            format!("softirq {} CPU {}", or_q(&d.vector), cpu_list(&d.cpus)),
        ),
        DelayKind::TagWait => (2, format!("tag wait {}", or_q(&d.device))),
        DelayKind::Task => (3, format!("task {}", or_q(&d.task))),
        // Not in an answer's delays (its wake-ups are apart): drawn as a task's.
        DelayKind::Wakeup => (3, format!("wake-up {}", or_q(&d.task))),
    }
}

/// The delays longest first (then earliest).
fn longest_first(a: &Answer) -> Vec<&Explained> {
    let mut v: Vec<&Explained> = a.delays.iter().collect();
    v.sort_by(|x, y| {
        y.delay
            .len_ns()
            .cmp(&x.delay.len_ns())
            .then(x.delay.start_ns.cmp(&y.delay.start_ns))
    });
    v
}

/// What explains `e`, in `explain`'s words: its windows or the sentence that none does,
/// and that it began before the oldest window held.
fn explanation(e: &Explained, windows: usize) -> Vec<String> {
    let mut v: Vec<String> = e.windows.iter().take(windows).map(window).collect();
    if e.windows.len() > windows {
        v.push(format!("and {} more windows", e.windows.len() - windows));
    }
    v.extend(e.pauses.iter().map(crate::explain::render::pause));
    if let Some(s) = &e.not_explained {
        v.push(s.clone());
    } else if e.windows.is_empty() && e.pauses.is_empty() {
        v.push("not explained by an irq-off window".into());
    }
    if e.before_held {
        v.push("(it began before the oldest window held: an earlier window would not show)".into());
    }
    v
}

/// The section: "Delays and the windows that explain them".
pub fn delays(o: &mut String, a: &Answer) {
    o.push_str("<section id=\"delays\">\n<h2>Delays and the windows that explain them</h2>\n");
    if !a.verdict_line.is_empty() {
        let _ = writeln!(o, "<p><strong>{}</strong></p>", esc(&a.verdict_line));
    }
    let _ = writeln!(o, "<p>{}</p>", esc(&summary(a)));
    let all = longest_first(a);
    if all.is_empty() {
        o.push_str("<p>No delays to draw.</p>\n");
    } else {
        drawing(o, a, &all);
    }
    table(o, &all);
    let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(&limits(a)));
    for n in a.notes.iter().take(NOTES) {
        let _ = writeln!(o, "<p class=\"note\">Note: {}</p>", esc(n));
    }
    if a.notes.len() > NOTES {
        let _ = writeln!(
            o,
            "<p class=\"note\">{} more notes are left out (trace-irqoff explain shows them).</p>",
            a.notes.len() - NOTES
        );
    }
    close(
        o,
        all.len().saturating_sub(DELAYS_LISTED),
        &format!("shorter delays are left out of the table: it lists the longest {DELAYS_LISTED} (trace-irqoff explain lists them all)"),
    );
}

/// The SVG: the CPUs' windows, the delays by what was delayed, the lines between them.
fn drawing(o: &mut String, a: &Answer, all: &[&Explained]) {
    let drawn = &all[..all.len().min(DELAYS_DRAWN)];
    // The windows of the drawn delays, once each, the longest kept.
    let mut seen: BTreeMap<WindowKey, &Window> = BTreeMap::new();
    for e in drawn {
        for m in &e.windows {
            seen.entry(key_of(&m.window)).or_insert(&m.window);
        }
    }
    let mut windows: Vec<&Window> = seen.into_values().collect();
    windows.sort_by_key(|w| std::cmp::Reverse(w.end_ns.saturating_sub(w.start_ns)));
    let windows_left = windows.len().saturating_sub(WINDOWS_DRAWN);
    windows.truncate(WINDOWS_DRAWN);
    let kept: BTreeSet<WindowKey> = windows.iter().map(|w| key_of(w)).collect();
    // Rows: the CPUs with windows, then the things delayed.
    let cpus: BTreeSet<u32> = windows.iter().map(|w| w.cpu).collect();
    let cpu_row: BTreeMap<u32, usize> = cpus.iter().enumerate().map(|(i, &c)| (c, i)).collect();
    let mut groups: BTreeMap<(u8, String), Vec<&Explained>> = BTreeMap::new();
    for e in drawn {
        groups.entry(row_of(e)).or_default().push(e);
    }
    let cpu_y = |row: usize| 18.0 + LANE * row as f64;
    let delay_y = |row: usize| 18.0 + LANE * cpus.len() as f64 + GAP + LANE * row as f64;
    let height = delay_y(groups.len()) + 8.0;
    // The span: the answer's, widened to what is drawn.
    let from = a
        .span_start_ns
        .into_iter()
        .chain(drawn.iter().map(|e| e.delay.start_ns))
        .chain(windows.iter().map(|w| w.start_ns))
        .min()
        .unwrap_or(0);
    let to = a
        .span_end_ns
        .into_iter()
        .chain(drawn.iter().map(|e| e.delay.end_ns))
        .chain(windows.iter().map(|w| w.end_ns))
        .max()
        .unwrap_or(from)
        .max(from);
    let span = (to - from).max(1);
    let plot = WIDTH - LABEL - 10.0;
    let x = |ns: u64| LABEL + plot * (ns.saturating_sub(from) as f64 / span as f64);

    key(o, &windows);
    let _ = writeln!(
        o,
        "<svg id=\"delays-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height:.1}\" width=\"{WIDTH}\" height=\"{height:.1}\" font-size=\"11\">"
    );
    // The axis: seconds after boot (CLOCK_MONOTONIC), as `explain` writes them.
    let step = tick_step(span, 8);
    let mut t = from.div_ceil(step) * step;
    // The decimals of a second the step needs: "4.0 s", "4.1 s" for a step of 100 ms.
    let decimals = (0..9u32)
        .find(|&d| step % 10u64.pow(9 - d) == 0)
        .unwrap_or(9) as usize;
    while t <= to {
        // The last label inside the page.
        let label = match decimals {
            0 => format!("{}", t / 1_000_000_000),
            d => format!(
                "{}.{}",
                t / 1_000_000_000,
                &format!("{:09}", t % 1_000_000_000)[..d]
            ),
        };
        let anchor = if x(t) > WIDTH - 40.0 { "end" } else { "middle" };
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"14\" y2=\"{height:.1}\" stroke=\"#ddd\"/><text x=\"{0:.1}\" y=\"11\" text-anchor=\"{anchor}\">{label} s</text>",
            x(t)
        );
        t += step;
    }
    for (&cpu, &row) in &cpu_row {
        lane(o, &format!("CPU {cpu}"), cpu_y(row));
    }
    for (row, ((_, label), _)) in groups.iter().enumerate() {
        lane(o, label, delay_y(row));
    }
    // The lines from each explained delay to its drawn windows, under the bars: at the
    // middle of their overlap (the window's start when they overlap only within the
    // sampling period).
    for (row, es) in groups.values().enumerate() {
        for e in es {
            for m in &e.windows {
                let w = &m.window;
                let Some(&wrow) = cpu_row.get(&w.cpu) else {
                    continue;
                };
                if !kept.contains(&key_of(w)) {
                    continue;
                }
                let at = if m.overlap_ns > 0 {
                    let lo = e.delay.start_ns.max(w.start_ns);
                    lo + m.overlap_ns / 2
                } else {
                    w.start_ns
                };
                let (y0, y1) = (cpu_y(wrow) + LANE / 2.0, delay_y(row) + LANE / 2.0);
                let _ = writeln!(
                    o,
                    "<line class=\"link\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{y0:.1}\" y2=\"{y1:.1}\" stroke=\"{EXPLAINED}\" stroke-width=\"1\"/><circle cx=\"{0:.1}\" cy=\"{y0:.1}\" r=\"2.5\" fill=\"{EXPLAINED}\"/>",
                    x(at)
                );
            }
        }
    }
    for w in &windows {
        let Some(&row) = cpu_row.get(&w.cpu) else {
            continue;
        };
        let (k, c) = kind_of(w);
        let x0 = x(w.start_ns);
        let _ = writeln!(
            o,
            "<rect class=\"delay-window\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>",
            cpu_y(row) + 2.0,
            (x(w.end_ns) - x0).max(1.5),
            LANE - 4.0,
            colour(k, c),
            esc(&window_words(w))
        );
    }
    for (row, es) in groups.values().enumerate() {
        for e in es {
            let d = &e.delay;
            let explained = !e.windows.is_empty();
            let mut title = headline(d);
            if !d.evidence.is_empty() {
                let _ = write!(title, "; {}", d.evidence.join("; "));
            }
            for line in explanation(e, TITLE_WINDOWS) {
                title.push('\n');
                title.push_str(&line);
            }
            let x0 = x(d.start_ns);
            let _ = writeln!(
                o,
                "<rect class=\"delay {}\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.85\"><title>{}</title></rect>",
                if explained { "explained" } else { "not-explained" },
                delay_y(row) + 3.0,
                (x(d.end_ns) - x0).max(1.5),
                LANE - 6.0,
                if explained { EXPLAINED } else { NOT_EXPLAINED },
                esc(&title)
            );
        }
    }
    o.push_str("</svg>\n");
    let mut left = Vec::new();
    if all.len() > drawn.len() {
        left.push(format!(
            "{} shorter delays are not drawn: the drawing holds the longest {DELAYS_DRAWN}",
            all.len() - drawn.len()
        ));
    }
    if windows_left > 0 {
        left.push(format!(
            "{windows_left} shorter windows are not drawn: the drawing holds the longest {WINDOWS_DRAWN}"
        ));
    }
    left.push(format!(
        "The drawing shows the windows that explain a delay ({} windows were seen in all); its times are seconds after boot (CLOCK_MONOTONIC)",
        a.windows_seen
    ));
    let _ = writeln!(o, "<p class=\"note\">{}.</p>", esc(&left.join(". ")));
}

/// A row's label (cut to [`LABEL_CHARS`], whole in its title) and its guide line.
fn lane(o: &mut String, label: &str, y: f64) {
    let short: String = label.chars().take(LABEL_CHARS).collect();
    let cut = if short.len() < label.len() { "…" } else { "" };
    let _ = writeln!(
        o,
        "<text x=\"4\" y=\"{:.1}\">{}{cut}<title>{}</title></text><line x1=\"{LABEL}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\"/>",
        y + 11.0,
        esc(&short),
        esc(label),
        WIDTH - 10.0,
        y + LANE / 2.0,
        y + LANE / 2.0
    );
}

/// The colours of the drawing: the windows' kinds there are, and the delays'.
fn key(o: &mut String, windows: &[&Window]) {
    let mut kinds: Vec<(Kind, Option<Cause>)> = windows.iter().map(|w| kind_of(w)).collect();
    kinds.sort();
    kinds.dedup();
    o.push_str("<p class=\"key\">");
    for (k, c) in kinds {
        let _ = write!(
            o,
            "<span style=\"background:{}\"></span>{} window",
            colour(k, c),
            crate::render::kind_or_cause(k, c)
        );
    }
    let _ = writeln!(
        o,
        "<span style=\"background:{EXPLAINED}\"></span>explained delay<span style=\"background:{NOT_EXPLAINED}\"></span>not explained</p>"
    );
}

/// The longest delays, each with its explanation.
fn table(o: &mut String, all: &[&Explained]) {
    if all.is_empty() {
        return;
    }
    o.push_str("<table id=\"delays-table\">\n<tr><th>delay</th><th>explanation</th></tr>\n");
    for e in all.iter().take(DELAYS_LISTED) {
        let d = &e.delay;
        let mut what = headline(d);
        if !d.evidence.is_empty() {
            let _ = write!(what, "; {}", d.evidence.join("; "));
        }
        let _ = writeln!(
            o,
            "<tr><td><span style=\"color:{}\">&#9632;</span> {}</td><td>{}</td></tr>",
            if e.windows.is_empty() {
                NOT_EXPLAINED
            } else {
                EXPLAINED
            },
            esc(&what),
            explanation(e, TABLE_WINDOWS)
                .iter()
                .map(|s| esc(s))
                .collect::<Vec<_>>()
                .join("<br>")
        );
    }
    o.push_str("</table>\n");
}
