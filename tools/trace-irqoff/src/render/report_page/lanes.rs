// SPDX-License-Identifier: GPL-2.0
//! What the drawings of `explain`'s answer share (`delays`, `wakeups`): one time axis in
//! seconds after boot (CLOCK_MONOTONIC, as `explain` writes them) over the answer's
//! span, rows with their labels, the answer's windows as bars coloured as in the
//! timeline, the thin line from what a window held to it, and the answer's notes.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::markup::{colour, esc, WIDTH};
use super::timeline::tick_step;
use crate::model::delay::{Match, Window};
use crate::model::explain_answer::Answer;
use crate::model::snapshot::{Cause, Kind};
use crate::render::explain_text::window_words;

/// Windows a drawing holds: the longest of those that hold what it draws.
pub const WINDOWS_DRAWN: usize = 400;
/// The answer's notes shown; the page says how many more there are.
const NOTES: usize = 10;
/// Left margin (the rows' labels), and the characters of a label shown there.
const LABEL: f64 = 170.0;
const LABEL_CHARS: usize = 26;
/// Height of one row.
pub const LANE: f64 = 16.0;
/// The line from what a window held to the window.
pub const EXPLAINED: &str = "#2ca02c";

/// A window's identity in the answer (it repeats under everything it explains).
pub type WindowKey = (u32, u64, u64, String, i32, String);

pub fn key_of(w: &Window) -> WindowKey {
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
        (Kind::Soft, w.cause.as_deref().and_then(Cause::from_name))
    }
}

/// The windows a drawing holds, longest first.
pub struct Drawn<'a> {
    pub windows: Vec<&'a Window>,
    /// The keys of `windows`: a line goes only to a window drawn.
    pub kept: BTreeSet<WindowKey>,
    /// The windows left out: shorter than the [`WINDOWS_DRAWN`] kept.
    pub left: usize,
}

impl<'a> Drawn<'a> {
    /// The windows of `matches`, once each, the longest [`WINDOWS_DRAWN`] kept.
    pub fn of(matches: impl IntoIterator<Item = &'a Match>) -> Self {
        let mut seen: BTreeMap<WindowKey, &Window> = BTreeMap::new();
        for m in matches {
            seen.entry(key_of(&m.window)).or_insert(&m.window);
        }
        let mut windows: Vec<&Window> = seen.into_values().collect();
        windows.sort_by_key(|w| std::cmp::Reverse(w.end_ns.saturating_sub(w.start_ns)));
        let left = windows.len().saturating_sub(WINDOWS_DRAWN);
        windows.truncate(WINDOWS_DRAWN);
        let kept = windows.iter().map(|w| key_of(w)).collect();
        Drawn {
            windows,
            kept,
            left,
        }
    }

    /// The note under the drawing: what it left out (`left`, then the windows), and what
    /// it `shows`, its times in seconds after boot.
    pub fn note(&self, o: &mut String, mut left: Vec<String>, shows: &str) {
        if self.left > 0 {
            left.push(format!(
                "{} shorter windows are not drawn: the drawing holds the longest {WINDOWS_DRAWN}",
                self.left
            ));
        }
        left.push(format!(
            "{shows}; its times are seconds after boot (CLOCK_MONOTONIC)"
        ));
        let _ = writeln!(o, "<p class=\"note\">{}.</p>", esc(&left.join(". ")));
    }
}

/// The time axis of a drawing: the answer's span, widened to what is drawn (`spans`,
/// from and to), from the labels to the right margin.
pub struct Axis {
    from: u64,
    to: u64,
}

impl Axis {
    pub fn over(a: &Answer, spans: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let spans: Vec<(u64, u64)> = spans.into_iter().collect();
        let from = a
            .span_start_ns
            .into_iter()
            .chain(spans.iter().map(|s| s.0))
            .min()
            .unwrap_or(0);
        let to = a
            .span_end_ns
            .into_iter()
            .chain(spans.iter().map(|s| s.1))
            .max()
            .unwrap_or(from)
            .max(from);
        Axis { from, to }
    }

    /// Where time `ns` is drawn.
    pub fn x(&self, ns: u64) -> f64 {
        let span = (self.to - self.from).max(1);
        let plot = WIDTH - LABEL - 10.0;
        LABEL + plot * (ns.saturating_sub(self.from) as f64 / span as f64)
    }

    /// The SVG's opening tag, `id` and `height` high, and the axis: ticks in seconds
    /// after boot, the last label inside the page.
    pub fn open(&self, o: &mut String, id: &str, height: f64) {
        let _ = writeln!(
            o,
            "<svg id=\"{id}\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height:.1}\" width=\"{WIDTH}\" height=\"{height:.1}\" font-size=\"11\">"
        );
        let step = tick_step(self.to - self.from, 8);
        let mut t = self.from.div_ceil(step) * step;
        // The decimals of a second the step needs: "4.0 s", "4.1 s" for a step of 100 ms.
        let decimals = (0..9u32)
            .find(|&d| step % 10u64.pow(9 - d) == 0)
            .unwrap_or(9) as usize;
        while t <= self.to {
            let label = match decimals {
                0 => format!("{}", t / 1_000_000_000),
                d => format!(
                    "{}.{}",
                    t / 1_000_000_000,
                    &format!("{:09}", t % 1_000_000_000)[..d]
                ),
            };
            let x = self.x(t);
            let anchor = if x > WIDTH - 40.0 { "end" } else { "middle" };
            let _ = writeln!(
                o,
                "<line x1=\"{x:.1}\" x2=\"{x:.1}\" y1=\"14\" y2=\"{height:.1}\" stroke=\"#ddd\"/><text x=\"{x:.1}\" y=\"11\" text-anchor=\"{anchor}\">{label} s</text>"
            );
            t += step;
        }
    }

    /// A window's bar of `class` in the row at `y`, its title the window in `explain`'s
    /// words.
    pub fn window(&self, o: &mut String, class: &str, w: &Window, y: f64) {
        let (k, c) = kind_of(w);
        let x0 = self.x(w.start_ns);
        let _ = writeln!(
            o,
            "<rect class=\"{class}\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}</title></rect>",
            y + 2.0,
            (self.x(w.end_ns) - x0).max(1.5),
            LANE - 4.0,
            colour(k, c),
            esc(&window_words(w))
        );
    }

    /// The line from what `m`'s window held (from `start_ns`) in the row at `to_y` to
    /// the window in the row at `window_y`: at the middle of their overlap (the window's
    /// start when they overlap only within the sampling period).
    pub fn link(&self, o: &mut String, m: &Match, start_ns: u64, window_y: f64, to_y: f64) {
        let w = &m.window;
        let at = if m.overlap_ns > 0 {
            start_ns.max(w.start_ns) + m.overlap_ns / 2
        } else {
            w.start_ns
        };
        let (y0, y1) = (window_y + LANE / 2.0, to_y + LANE / 2.0);
        let _ = writeln!(
            o,
            "<line class=\"link\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{y0:.1}\" y2=\"{y1:.1}\" stroke=\"{EXPLAINED}\" stroke-width=\"1\"/><circle cx=\"{0:.1}\" cy=\"{y0:.1}\" r=\"2.5\" fill=\"{EXPLAINED}\"/>",
            self.x(at)
        );
    }
}

/// A row's label (cut to [`LABEL_CHARS`], whole in its title) and its guide line.
pub fn lane(o: &mut String, label: &str, y: f64) {
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

/// The key's entries of the windows' kinds there are among `windows` (inside a
/// `<p class="key">`).
pub fn window_kinds(o: &mut String, windows: &[&Window]) {
    let mut kinds: Vec<(Kind, Option<Cause>)> = windows.iter().map(|w| kind_of(w)).collect();
    kinds.sort();
    kinds.dedup();
    for (k, c) in kinds {
        let _ = write!(
            o,
            "<span style=\"background:{}\"></span>{} window",
            colour(k, c),
            crate::render::kind_or_cause(k, c)
        );
    }
}

/// The answer's limits and its first [`NOTES`] notes, saying how many more there are.
pub fn limits_and_notes(o: &mut String, a: &Answer) {
    let _ = writeln!(
        o,
        "<p class=\"note\">{}</p>",
        esc(&crate::render::explain_text::limits(a))
    );
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
}
