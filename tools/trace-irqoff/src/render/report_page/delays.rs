// SPDX-License-Identifier: GPL-2.0
//! The report's delays beside the windows that explain them (`report --explain FILE`, the
//! answer of `explain --json`): one inline SVG over the answer's span, a row per CPU with
//! the answer's windows and a row per thing delayed (I/O per device, softirq per vector
//! and CPU, tag wait per device, task), each delay a bar, an explained one joined to its
//! windows by a thin line; then the longest delays with their explanation in a table, and
//! the answer's limits. The sentences are `explain`'s own (`explain::render`).
//!
//! Bounded whatever the answer: it draws the longest [`DELAYS_DRAWN`] delays and the
//! longest [`WINDOWS_DRAWN`](super::lanes::WINDOWS_DRAWN) of their windows, and lists [`DELAYS_LISTED`]; it says what
//! it left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::lanes::{key_of, lane, limits_and_notes, window_kinds, Axis, Drawn, EXPLAINED, LANE};
use super::markup::{close, esc};
use crate::model::delay::{cpu_list, DelayKind, Explained};
use crate::model::explain_answer::Answer;
use crate::render::explain_text::{headline, summary, window};

/// Delays the drawing holds: the longest.
pub const DELAYS_DRAWN: usize = 200;
/// Rows of the table under the drawing: the longest delays.
pub const DELAYS_LISTED: usize = 20;
/// Windows an explained delay's title names; it says how many more there are.
const TITLE_WINDOWS: usize = 3;
/// Windows a delay's row of the table names.
const TABLE_WINDOWS: usize = 8;

/// The space between the CPUs' rows and the delays'.
const GAP: f64 = 10.0;
/// A delay no window explains.
const NOT_EXPLAINED: &str = "#b0b0b0";

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
    v.extend(e.pauses.iter().map(crate::render::explain_text::pause));
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
    limits_and_notes(o, a);
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
    let windows = Drawn::of(drawn.iter().flat_map(|e| &e.windows));
    // Rows: the CPUs with windows, then the things delayed.
    let cpu_row: BTreeMap<u32, usize> = windows
        .windows
        .iter()
        .map(|w| w.cpu)
        .collect::<BTreeSet<u32>>()
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, i))
        .collect();
    let mut groups: BTreeMap<(u8, String), Vec<&Explained>> = BTreeMap::new();
    for e in drawn {
        groups.entry(row_of(e)).or_default().push(e);
    }
    let cpu_y = |row: usize| 18.0 + LANE * row as f64;
    let delay_y = |row: usize| 18.0 + LANE * cpu_row.len() as f64 + GAP + LANE * row as f64;
    let height = delay_y(groups.len()) + 8.0;
    let axis = Axis::over(
        a,
        drawn
            .iter()
            .map(|e| (e.delay.start_ns, e.delay.end_ns))
            .chain(windows.windows.iter().map(|w| (w.start_ns, w.end_ns))),
    );

    key(o, &windows.windows);
    axis.open(o, "delays-svg", height);
    for (&cpu, &row) in &cpu_row {
        lane(o, &format!("CPU {cpu}"), cpu_y(row));
    }
    for (row, ((_, label), _)) in groups.iter().enumerate() {
        lane(o, label, delay_y(row));
    }
    // The lines from each explained delay to its drawn windows, under the bars.
    for (row, es) in groups.values().enumerate() {
        for e in es {
            for m in &e.windows {
                let Some(&wrow) = cpu_row.get(&m.window.cpu) else {
                    continue;
                };
                if windows.kept.contains(&key_of(&m.window)) {
                    axis.link(o, m, e.delay.start_ns, cpu_y(wrow), delay_y(row));
                }
            }
        }
    }
    for w in &windows.windows {
        if let Some(&row) = cpu_row.get(&w.cpu) {
            axis.window(o, "delay-window", w, cpu_y(row));
        }
    }
    for (row, es) in groups.values().enumerate() {
        for e in es {
            delay_bar(o, &axis, e, delay_y(row));
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
    windows.note(
        o,
        left,
        &format!(
            "The drawing shows the windows that explain a delay ({} windows were seen in all)",
            a.windows_seen
        ),
    );
}

/// The key above the drawing: the kinds of `windows`, explained and not.
fn key(o: &mut String, windows: &[&crate::model::delay::Window]) {
    o.push_str("<p class=\"key\">");
    window_kinds(o, windows);
    let _ = writeln!(
        o,
        "<span style=\"background:{EXPLAINED}\"></span>explained delay<span style=\"background:{NOT_EXPLAINED}\"></span>not explained</p>"
    );
}

/// One delay's bar in the lane at `y`: coloured by whether a window explains it, its
/// headline, evidence and explanation in its title.
fn delay_bar(o: &mut String, axis: &Axis, e: &Explained, y: f64) {
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
    let x0 = axis.x(d.start_ns);
    let _ = writeln!(
        o,
        "<rect class=\"delay {}\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"0.85\"><title>{}</title></rect>",
        if explained { "explained" } else { "not-explained" },
        y + 3.0,
        (axis.x(d.end_ns) - x0).max(1.5),
        LANE - 6.0,
        if explained { EXPLAINED } else { NOT_EXPLAINED },
        esc(&title)
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
