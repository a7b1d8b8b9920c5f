// SPDX-License-Identifier: GPL-2.0
//! The report's wake-ups beside the windows that held them (`report --explain FILE`, the
//! answer of `explain --wakeups --json`): one inline SVG on the time axis of the delays'
//! drawing (seconds after boot over the answer's span), a row per CPU with the windows
//! that held a phase, and under it the wake-ups that ran on that CPU, each a bar split
//! into its phases (timer lateness, delivery, run-queue wait), a colour each, faded where
//! no window held the phase, an explained phase joined to its windows by a thin line;
//! then the slowest wake-ups with their phases in a table. The sentences are `explain`'s
//! own (`explain::render`).
//!
//! Bounded whatever the answer: it draws the slowest [`WAKEUPS_DRAWN`] wake-ups and the
//! longest [`WINDOWS_DRAWN`](super::lanes::WINDOWS_DRAWN) of their windows, stacks at
//! most [`ROWS_PER_CPU`] rows of overlapping wake-ups under a CPU, names at most
//! [`TITLE_WINDOWS`] windows in a title, and lists [`WAKEUPS_LISTED`]; it says what it
//! left out.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::lanes::{key_of, lane, limits_and_notes, window_kinds, Axis, Drawn, LANE};
use super::markup::{close, esc};
use crate::model::explain_answer::Answer;
use crate::model::explain_wakeup::{Phase, PhaseKind, Wakeup, Wakeups};
use crate::render::explain_text::{phase, wakeup_headline, wakeup_route, wakeup_summary};

/// Wake-ups the drawing holds: the slowest.
pub const WAKEUPS_DRAWN: usize = 200;
/// Rows of the table under the drawing: the slowest wake-ups.
pub const WAKEUPS_LISTED: usize = 20;
/// Rows of wake-ups under a CPU; those that overlap deeper are drawn in its last.
pub const ROWS_PER_CPU: usize = 6;
/// Windows a phase's title names; it says how many more there are.
pub const TITLE_WINDOWS: usize = 3;
/// Windows a phase's line of the table names.
const TABLE_WINDOWS: usize = 8;
/// The space after a CPU's rows.
const GAP: f64 = 6.0;
/// The opacity of a phase no window held.
const FADED: &str = "0.4";

/// The colour of a phase: none of the windows', nor the delays' green or grey.
pub fn phase_colour(k: PhaseKind) -> &'static str {
    match k {
        PhaseKind::TimerLateness => "#8c564b",
        PhaseKind::Delivery => "#e377c2",
        PhaseKind::RunQueue => "#17becf",
    }
}

/// A phase's class, as the JSON names it.
fn phase_class(k: PhaseKind) -> &'static str {
    match k {
        PhaseKind::TimerLateness => "timer-lateness",
        PhaseKind::Delivery => "delivery",
        PhaseKind::RunQueue => "run-queue",
    }
}

/// The wake-ups slowest first (then earliest), whatever order the answer has them in.
fn slowest_first(w: &Wakeups) -> Vec<&Wakeup> {
    let mut v: Vec<&Wakeup> = w.wakeups.iter().collect();
    v.sort_by(|x, y| {
        y.len_ns()
            .cmp(&x.len_ns())
            .then(x.start_ns.cmp(&y.start_ns))
    });
    v
}

/// A phase in `explain`'s words, naming `windows` of its windows at most and how many
/// more there are.
fn phase_words(p: &Phase, windows: usize) -> String {
    let more = p.windows.len().saturating_sub(windows);
    let mut shown = p.clone();
    shown.windows.truncate(windows);
    let mut s = phase(&shown);
    if more > 0 {
        let _ = write!(s, "; and {more} more windows");
    }
    s
}

/// What hovering phase `p` of `w` shows: the wake-up (task, total, from when, its CPUs),
/// the phase with what held it, and the shares of all its phases.
fn title(w: &Wakeup, p: &Phase) -> String {
    let shares: Vec<String> = w
        .phases
        .iter()
        .map(|q| format!("{} {}%", q.phase.words(), q.share_pct))
        .collect();
    let mut t = format!(
        "{}; {}\n{}\nshares: {}",
        wakeup_headline(w),
        wakeup_route(w),
        phase_words(p, TITLE_WINDOWS),
        shares.join(", ")
    );
    if w.before_held {
        t.push_str("\n(it began before the oldest window held: an earlier window would not show)");
    }
    t
}

/// The section: "Wake-ups and the windows that held them"; `alone` (an answer with no
/// delay, whose section is then not drawn): with the answer's verdict, limits and notes.
pub fn wakeups(o: &mut String, a: &Answer, w: &Wakeups, alone: bool) {
    o.push_str("<section id=\"wakeups\">\n<h2>Wake-ups and the windows that held them</h2>\n");
    if alone && !a.verdict_line.is_empty() {
        let _ = writeln!(o, "<p><strong>{}</strong></p>", esc(&a.verdict_line));
    }
    let _ = writeln!(o, "<p>{}</p>", esc(&wakeup_summary(a, w)));
    let all = slowest_first(w);
    if all.is_empty() {
        o.push_str("<p>No wake-ups to draw.</p>\n");
    } else {
        drawing(o, a, &all);
    }
    table(o, &all);
    if alone {
        limits_and_notes(o, a);
    }
    close(
        o,
        all.len().saturating_sub(WAKEUPS_LISTED),
        &format!("faster wake-ups are left out of the table: it lists the slowest {WAKEUPS_LISTED} (trace-irqoff explain --wakeups --json has them all)"),
    );
}

/// Where the drawn wake-ups go: each under the CPU it ran on, in the first of its rows
/// free at its start (the earliest placed first), in the last when all are taken.
struct Rows {
    /// CPU -> the end of the last wake-up in each of its rows.
    ends: BTreeMap<u32, Vec<u64>>,
    /// The row of each wake-up, in the order given.
    row: Vec<usize>,
    /// Wake-ups drawn over others: their CPU's rows were all taken.
    over: usize,
}

impl Rows {
    fn of(drawn: &[&Wakeup]) -> Self {
        let mut order: Vec<usize> = (0..drawn.len()).collect();
        order.sort_by_key(|&i| (drawn[i].start_ns, i));
        let mut rows = Rows {
            ends: BTreeMap::new(),
            row: vec![0; drawn.len()],
            over: 0,
        };
        for i in order {
            let w = drawn[i];
            let ends = rows.ends.entry(w.ran_cpu).or_default();
            let r = match ends.iter().position(|&e| e <= w.start_ns) {
                Some(r) => r,
                None if ends.len() < ROWS_PER_CPU => {
                    ends.push(0);
                    ends.len() - 1
                }
                None => {
                    rows.over += 1;
                    ends.len() - 1
                }
            };
            ends[r] = ends[r].max(w.end_ns);
            rows.row[i] = r;
        }
        rows
    }
}

/// The SVG: per CPU its windows, then the wake-ups that ran there split into their
/// phases, the lines from each explained phase to its windows.
fn drawing(o: &mut String, a: &Answer, all: &[&Wakeup]) {
    let drawn = &all[..all.len().min(WAKEUPS_DRAWN)];
    let windows = Drawn::of(
        drawn
            .iter()
            .flat_map(|w| &w.phases)
            .flat_map(|p| &p.windows),
    );
    let rows = Rows::of(drawn);
    // Per CPU (those with windows or wake-ups): the y of its windows' row, of its
    // wake-ups' first row.
    let cpus: BTreeSet<u32> = windows
        .windows
        .iter()
        .map(|w| w.cpu)
        .chain(drawn.iter().map(|w| w.ran_cpu))
        .collect();
    let mut at: BTreeMap<u32, (f64, f64)> = BTreeMap::new();
    let mut y = 18.0;
    for &cpu in &cpus {
        let n = rows.ends.get(&cpu).map_or(0, Vec::len);
        at.insert(cpu, (y, y + LANE));
        y += LANE * (1 + n) as f64 + GAP;
    }
    let height = y + 2.0;
    let axis = Axis::over(
        a,
        drawn
            .iter()
            .map(|w| (w.start_ns, w.end_ns))
            .chain(windows.windows.iter().map(|w| (w.start_ns, w.end_ns))),
    );
    let wake_y = |i: usize| {
        at.get(&drawn[i].ran_cpu)
            .map(|r| r.1 + LANE * rows.row[i] as f64)
    };

    key(o, &windows.windows);
    axis.open(o, "wakeups-svg", height);
    cpu_lanes(o, &at, &rows);
    // The lines from each explained phase to its drawn windows, under the bars.
    for (i, w) in drawn.iter().enumerate() {
        let Some(to_y) = wake_y(i) else { continue };
        for p in &w.phases {
            for m in &p.windows {
                let Some(&(wy, _)) = at.get(&m.window.cpu) else {
                    continue;
                };
                if windows.kept.contains(&key_of(&m.window)) {
                    axis.link(o, m, p.start_ns, wy, to_y);
                }
            }
        }
    }
    for w in &windows.windows {
        if let Some(&(wy, _)) = at.get(&w.cpu) {
            axis.window(o, "wakeup-window", w, wy);
        }
    }
    for (i, w) in drawn.iter().enumerate() {
        let Some(y) = wake_y(i) else { continue };
        wakeup_bar(o, &axis, w, y);
    }
    o.push_str("</svg>\n");
    let left = left_out(all.len(), drawn.len(), rows.over);
    windows.note(
        o,
        left,
        &format!(
            "The drawing shows each wake-up under the CPU it ran on, and the windows that held a phase ({} windows were seen in all)",
            a.windows_seen
        ),
    );
}

/// The key above the drawing: the kinds of `windows`, the phases, faded ones.
fn key(o: &mut String, windows: &[&crate::model::delay::Window]) {
    o.push_str("<p class=\"key\">");
    window_kinds(o, windows);
    for k in [
        PhaseKind::TimerLateness,
        PhaseKind::Delivery,
        PhaseKind::RunQueue,
    ] {
        let _ = write!(
            o,
            "<span style=\"background:{}\"></span>{}",
            phase_colour(k),
            k.words()
        );
    }
    let _ = writeln!(
        o,
        "<span style=\"background:{};opacity:{FADED}\"></span>faded: no window held the phase</p>",
        phase_colour(PhaseKind::RunQueue)
    );
}

/// The lanes: per CPU (`at`: the y of its windows' row, of its wake-ups' first) its
/// windows' row, then as many rows of wake-ups as `rows` gives it.
fn cpu_lanes(o: &mut String, at: &BTreeMap<u32, (f64, f64)>, rows: &Rows) {
    for (&cpu, &(wy, first)) in at {
        lane(o, &format!("CPU {cpu}"), wy);
        let n = rows.ends.get(&cpu).map_or(0, Vec::len);
        for r in 0..n {
            let label = if r == 0 {
                format!("wake-ups on CPU {cpu}")
            } else {
                String::new()
            };
            lane(o, &label, first + LANE * r as f64);
        }
    }
}

/// One wake-up in its row at `y`: outlined whole (a short one shows, its phases however
/// thin), each phase coloured by its kind, faded where no window held it.
fn wakeup_bar(o: &mut String, axis: &Axis, w: &Wakeup, y: f64) {
    // The whole wake-up outlined: a short one shows, its phases however thin.
    let x0 = axis.x(w.start_ns);
    let _ = writeln!(
        o,
        "<rect class=\"wakeup\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"none\" stroke=\"#555\" stroke-width=\"0.6\"/>",
        y + 2.0,
        (axis.x(w.end_ns) - x0).max(1.5),
        LANE - 4.0
    );
    for p in &w.phases {
        let explained = !p.windows.is_empty();
        let x0 = axis.x(p.start_ns);
        let _ = writeln!(
            o,
            "<rect class=\"phase {} {}\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"{}\" fill-opacity=\"{}\"><title>{}</title></rect>",
            phase_class(p.phase),
            if explained { "explained" } else { "not-explained" },
            y + 3.0,
            (axis.x(p.end_ns) - x0).max(0.5),
            LANE - 6.0,
            phase_colour(p.phase),
            if explained { "1" } else { FADED },
            esc(&title(w, p))
        );
    }
}

/// What the drawing leaves out: the faster wake-ups beyond the drawn, the ones drawn
/// over others in a CPU's last row.
fn left_out(all: usize, drawn: usize, over: usize) -> Vec<String> {
    let mut left = Vec::new();
    if all > drawn {
        left.push(format!(
            "{} faster wake-ups are not drawn: the drawing holds the slowest {WAKEUPS_DRAWN}",
            all - drawn
        ));
    }
    if over > 0 {
        left.push(format!(
            "{} wake-ups overlap more than {ROWS_PER_CPU} deep on their CPU: they are drawn over others in its last row",
            over
        ));
    }
    left
}

/// The slowest wake-ups, each with its phases and what held them.
fn table(o: &mut String, all: &[&Wakeup]) {
    if all.is_empty() {
        return;
    }
    o.push_str("<table id=\"wakeups-table\">\n<tr><th>wake-up</th><th>phases</th></tr>\n");
    for w in all.iter().take(WAKEUPS_LISTED) {
        let mut phases: Vec<String> = w
            .phases
            .iter()
            .map(|p| {
                format!(
                    "<span style=\"color:{}\">&#9632;</span> {}",
                    phase_colour(p.phase),
                    esc(&phase_words(p, TABLE_WINDOWS))
                )
            })
            .collect();
        if w.before_held {
            phases.push(esc(
                "(it began before the oldest window held: an earlier window would not show)",
            ));
        }
        let _ = writeln!(
            o,
            "<tr><td>{}</td><td>{}</td></tr>",
            esc(&format!("{}; {}", wakeup_headline(w), wakeup_route(w))),
            phases.join("<br>")
        );
    }
    o.push_str("</table>\n");
}
