// SPDX-License-Identifier: GPL-2.0
//! `report`: one self-contained HTML page of an incident, readable offline and in a
//! ticket. No script, no style sheet or image from elsewhere: the timeline and the
//! histograms and the flame graph are inline SVG drawn here; hovering a window or a frame shows its `<title>`. Every text from the
//! records (task names, frames, cgroups) is escaped.
//!
//! Its size is bounded whatever the recording: the timeline draws the worst
//! [`TIMELINE_PER_CPU`] windows of each CPU, the page details the worst [`WORST_WINDOWS`]
//! windows and lists [`CULPRITS`] culprits, the flame graph drops frames narrower than
//! [`FLAME_MIN_WIDTH`] pixels; the page says what it left out. A recording of 64 CPUs
//! stays under 3 MB (tests/cli.rs proves it for a synthetic one).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::fmt::Write;

use crate::clock::Clock;
use crate::enrich::{Enriched, Window};
use crate::model::culprit::Culprit;
use crate::model::snapshot::{Cause, Kind, Record, Snapshot};
use crate::saved::Origin;

/// Windows of one CPU the timeline draws: its worst.
pub const TIMELINE_PER_CPU: usize = 50;
/// Windows shown with their stacks and in-window profiles: the worst of all.
pub const WORST_WINDOWS: usize = 20;
/// Rows of the culprits table.
pub const CULPRITS: usize = 30;
/// Frames of the flame graph narrower than this (pixels) are left out.
pub const FLAME_MIN_WIDTH: f64 = 1.0;
/// Frames of a stack shown in a window's details.
const DEPTH: usize = 24;

/// The page's width in SVG units (it scales to the window).
const WIDTH: f64 = 1100.0;
/// Left margin of the timeline (the CPU labels).
const LABEL: f64 = 60.0;
/// Height of one CPU's lane.
const LANE: f64 = 16.0;

/// The report of `s`, recorded as `origin` says, with the `culprits` of its records (by
/// culprit) and their `folded` stacks weighted by latency.
pub fn html(s: &Enriched, culprits: &[Culprit], folded: &str, origin: &Origin) -> String {
    let clock = s.config.realtime_offset_ns.map(Clock::anchored);
    let mut o = String::with_capacity(64 * 1024);
    let host = origin.host.as_deref().unwrap_or("?");
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>trace-irqoff incident report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1 id=\"report-title\">trace-irqoff incident report: {}</h1>\n",
        esc(host),
        esc(host)
    );
    summary(&mut o, s, origin, clock.as_ref());
    culprits_table(&mut o, culprits);
    timeline(&mut o, s, origin, clock.as_ref());
    histograms(&mut o, s);
    flamegraph(&mut o, folded);
    windows(&mut o, s);
    let _ = write!(
        o,
        "<footer>Written by trace-irqoff {} (trace-irqoff report). Hover a window or a frame for its details.</footer>\n</body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    o
}

const STYLE: &str = "body{font-family:sans-serif;margin:1em 2em;color:#222;max-width:1200px}\
h1{font-size:1.4em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ccc}\
table{border-collapse:collapse;font-size:.9em}td,th{padding:2px 8px;text-align:left;vertical-align:top}\
th{background:#eee}tr:nth-child(even) td{background:#f7f7f7}td.n{text-align:right}\
svg{max-width:100%;height:auto}.note{color:#555;font-size:.9em}\
.key span{display:inline-block;width:.9em;height:.9em;margin:0 .3em 0 1em;vertical-align:middle}\
pre{font-size:.8em;background:#f7f7f7;padding:4px;overflow-x:auto}\
details{margin:.3em 0}summary{cursor:pointer}footer{margin-top:2em;color:#777;font-size:.8em}";

/// `s` with `& < > " '` escaped: fit for HTML and SVG text and attributes.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The colour of a window: hardirq-off red, bh-off orange, ksoftirqd-wait blue, a softirq
/// window of unknown cause (records before format v2) purple.
pub fn colour(kind: Kind, cause: Option<Cause>) -> &'static str {
    match (kind, cause) {
        (Kind::Hard, _) => "#d62728",
        (Kind::Soft, Some(Cause::BhOff)) => "#ff7f0e",
        (Kind::Soft, Some(Cause::KsoftirqdWait)) => "#1f77b4",
        (Kind::Soft, None) => "#9467bd",
    }
}

/// The kinds and causes there are in `s`'s records, hardirq first.
fn kinds(records: &[Record]) -> Vec<(Kind, Option<Cause>)> {
    let mut v: Vec<(Kind, Option<Cause>)> = records
        .iter()
        .map(|r| (r.kind, if r.kind == Kind::Hard { None } else { r.cause }))
        .collect();
    v.sort();
    v.dedup();
    v
}

fn key(o: &mut String, kinds: &[(Kind, Option<Cause>)]) {
    o.push_str("<p class=\"key\">");
    for &(k, c) in kinds {
        let _ = write!(
            o,
            "<span style=\"background:{}\"></span>{}",
            colour(k, c),
            crate::render::kind_or_cause(k, c)
        );
    }
    o.push_str("</p>\n");
}

/// Nanoseconds since the epoch of an RFC 3339 time.
fn epoch_ns(rfc3339: &str) -> Option<u64> {
    let t = humantime::parse_rfc3339(rfc3339).ok()?;
    let d = t.duration_since(std::time::UNIX_EPOCH).ok()?;
    u64::try_from(d.as_nanos()).ok()
}

/// Host, kernel, settings, time range, and what the recording holds.
fn summary(o: &mut String, s: &Enriched, origin: &Origin, clock: Option<&Clock>) {
    let c = &s.config;
    let ms = |ns: u64| ns / 1_000_000;
    let (from, to) = range(s, origin);
    let wall = |ns: u64| {
        clock.map_or_else(
            || format!("{} s after boot", crate::render::secs(ns)),
            |k| k.rfc3339(ns),
        )
    };
    let start = origin.start_time.clone().unwrap_or_else(|| wall(from));
    let end = origin.end_time.clone().unwrap_or_else(|| wall(to));
    let hard = s.records.iter().filter(|r| r.kind == Kind::Hard).count();
    let soft = s.records.len() - hard;
    let mut rows = vec![
        ("Host", origin.host.clone().unwrap_or_else(|| "?".into())),
        ("Kernel", origin.kernel.clone().unwrap_or_else(|| "?".into())),
        (
            "Time range",
            format!(
                "{start} to {end} ({})",
                crate::render::length(to.saturating_sub(from))
            ),
        ),
        (
            "Module settings",
            format!(
                "period {} ms, threshold {} ms, HZ {}, {} records per CPU and kind, records format v{}{}",
                ms(c.period_ns),
                ms(c.threshold_ns),
                c.hz,
                c.records_per_cpu,
                s.version,
                c.cpus
                    .as_deref()
                    .map(|l| format!(", CPUs sampled {l}"))
                    .unwrap_or_default()
            ),
        ),
        (
            "Windows",
            format!(
                "{} recorded: {hard} hardirq-off, {soft} softirq-off, on {}",
                s.records.len(),
                cpus(cpus_with_windows(&s.records))
            ),
        ),
    ];
    let events: u64 = s.cpus.iter().map(|c| c.hard_events + c.soft_events).sum();
    if events > 0 {
        rows.push((
            "Events counted",
            format!(
                "{events} windows at the threshold or longer, over {} CPUs",
                s.cpus.len()
            ),
        ));
    }
    o.push_str("<section id=\"summary\">\n<table>\n");
    for (k, v) in rows {
        let _ = writeln!(o, "<tr><th>{k}</th><td>{}</td></tr>", esc(&v));
    }
    o.push_str("</table>\n");
    let res = crate::render::resolution_of(s, &s.windows, None);
    if !res.is_empty() {
        let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(res.trim_end()));
    }
    o.push_str("</section>\n");
}

/// The culprits table, as `top` shows it.
fn culprits_table(o: &mut String, culprits: &[Culprit]) {
    let all = culprits.len();
    let t = &culprits[..all.min(CULPRITS)];
    o.push_str("<section id=\"culprits\">\n<h2>Culprits</h2>\n");
    if t.is_empty() {
        o.push_str("<p>No windows were recorded.</p>\n</section>\n");
        return;
    }
    o.push_str("<table id=\"culprits-table\">\n<tr><th>kind</th><th>cause</th><th>count</th><th>worst</th><th>total</th><th>tasks</th><th>culprit</th></tr>\n");
    for c in t {
        let _ = writeln!(
            o,
            "<tr><td><span style=\"color:{}\">&#9632;</span> {}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><b>{}</b></td></tr>",
            colour(c.kind, c.cause),
            c.kind.label(),
            c.cause.map_or("-", Cause::name),
            c.count,
            crate::render::length(c.worst_ns),
            crate::render::length(c.total_ns),
            esc(&c.comms.join(", ")),
            esc(&c.culprit)
        );
    }
    o.push_str("</table>\n");
    close(
        o,
        all - t.len(),
        &format!("culprits with fewer windows are left out (trace-irqoff top --from FILE --limit {all} lists them)"),
    );
}

/// "1 CPU", "2 CPUs".
pub fn cpus(n: usize) -> String {
    format!("{n} CPU{}", if n == 1 { "" } else { "s" })
}

/// How many CPUs have windows among `records`.
pub fn cpus_with_windows(records: &[Record]) -> usize {
    by_cpu(records).len()
}

/// Records (or their windows) by CPU.
fn by_cpu<W: Borrow<Record>>(records: &[W]) -> BTreeMap<u32, Vec<&W>> {
    let mut m: BTreeMap<u32, Vec<&W>> = BTreeMap::new();
    for r in records {
        m.entry(r.borrow().cpu).or_default().push(r);
    }
    m
}

/// The time range, CLOCK_MONOTONIC: the recording's where it is known, widened to every
/// window.
fn range(s: &Snapshot, origin: &Origin) -> (u64, u64) {
    let offset = s.config.realtime_offset_ns;
    let mono = |t: &Option<String>| {
        t.as_deref()
            .and_then(epoch_ns)
            .zip(offset)
            .map(|(w, off)| w.saturating_sub(off))
    };
    let first = s
        .records
        .iter()
        .map(|r| r.timestamp_ns.saturating_sub(r.latency_ns))
        .min();
    let last = s.records.iter().map(|r| r.timestamp_ns).max();
    let from = [mono(&origin.start_time), first]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(0);
    let to = [mono(&origin.end_time), last]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(from);
    (from, to.max(from))
}

/// A step between ticks giving at most about `n` of them over `span_ns`: below a second 1,
/// 2 or 5 times a power of ten ns; from a second on, a step of the clock (1, 2, 5, 10, 15,
/// 30 s, the same in minutes, 1, 2, 3, 6, 12 h, 1, 2, 7, 14, 28 days).
fn tick_step(span_ns: u64, n: u64) -> u64 {
    let raw = (span_ns / n.max(1)).max(1);
    const S: u64 = 1_000_000_000;
    const CLOCK: [u64; 21] = [
        S,
        2 * S,
        5 * S,
        10 * S,
        15 * S,
        30 * S,
        60 * S,
        120 * S,
        300 * S,
        600 * S,
        900 * S,
        1800 * S,
        3600 * S,
        7200 * S,
        3 * 3600 * S,
        6 * 3600 * S,
        12 * 3600 * S,
        86_400 * S,
        2 * 86_400 * S,
        7 * 86_400 * S,
        14 * 86_400 * S,
    ];
    if raw > S {
        return CLOCK
            .into_iter()
            .find(|&st| st >= raw)
            .unwrap_or(raw.div_ceil(28 * 86_400 * S) * 28 * 86_400 * S);
    }
    let mut p = 1u64;
    while p.saturating_mul(10) <= raw {
        p *= 10;
    }
    [1, 2, 5, 10]
        .into_iter()
        .map(|m| p.saturating_mul(m))
        .find(|&st| st >= raw)
        .unwrap_or(raw)
}

/// The per-CPU timeline of the windows, wall-clock axis, a lane per CPU with windows.
fn timeline(o: &mut String, s: &Enriched, origin: &Origin, clock: Option<&Clock>) {
    o.push_str("<section id=\"timeline\">\n<h2>Timeline</h2>\n");
    let cpus = by_cpu(&s.windows);
    if cpus.is_empty() {
        o.push_str("<p>No windows to draw.</p>\n</section>\n");
        return;
    }
    key(o, &kinds(&s.records));
    let (from, to) = range(s, origin);
    let span = to.saturating_sub(from).max(1);
    let plot = WIDTH - LABEL - 10.0;
    let x = |ns: u64| LABEL + plot * (ns.saturating_sub(from) as f64 / span as f64);
    let height = 30.0 + LANE * cpus.len() as f64;
    let _ = writeln!(
        o,
        "<svg id=\"timeline-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" font-size=\"11\">"
    );
    // The axis: wall-clock ticks (seconds after boot without a clock anchor).
    // Ticks at round wall-clock times where the anchor is known.
    let step = tick_step(span, 8);
    let off = s.config.realtime_offset_ns.unwrap_or(0) % step;
    let mut t = (from + off).div_ceil(step) * step - off;
    // To the ms within a second, to the second within a day, else the date and minute.
    let (a, b) = if step < 1_000_000_000 {
        (11, 23)
    } else if span < 86_400_000_000_000 {
        (11, 19)
    } else {
        (5, 16)
    };
    while t <= to {
        let label = match clock {
            Some(k) => k.rfc3339(t).get(a..b).unwrap_or("?").replace('T', " "),
            None => format!("{} s", crate::render::secs(t)),
        };
        let _ = writeln!(
            o,
            "<line x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"14\" y2=\"{height}\" stroke=\"#ddd\"/><text x=\"{0:.1}\" y=\"11\" text-anchor=\"middle\">{label}</text>",
            x(t)
        );
        t += step;
    }
    let mut left_out = 0;
    for (lane, (cpu, rs)) in cpus.iter().enumerate() {
        let y = 18.0 + LANE * lane as f64;
        let _ = writeln!(
            o,
            "<text x=\"4\" y=\"{:.1}\">CPU {cpu}</text><line x1=\"{LABEL}\" x2=\"{}\" y1=\"{:.1}\" y2=\"{:.1}\" stroke=\"#bbb\"/>",
            y + 11.0,
            WIDTH - 10.0,
            y + LANE / 2.0,
            y + LANE / 2.0
        );
        let mut worst: Vec<&&Window> = rs.iter().collect();
        worst.sort_by_key(|r| std::cmp::Reverse(r.latency_ns));
        left_out += worst.len().saturating_sub(TIMELINE_PER_CPU);
        worst.truncate(TIMELINE_PER_CPU);
        for r in worst {
            let x0 = x(r.timestamp_ns.saturating_sub(r.latency_ns));
            let w = (x(r.timestamp_ns) - x0).max(1.5);
            let who = r.label("?");
            let _ = writeln!(
                o,
                "<rect class=\"window\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{}\"><title>{}\nculprit: {}</title></rect>",
                y + 2.0,
                LANE - 4.0,
                colour(r.kind, r.cause),
                esc(&crate::render::window_sentence(r)),
                esc(&who)
            );
        }
    }
    o.push_str("</svg>\n");
    close(
        o,
        left_out,
        &format!("shorter windows are left out: the timeline draws the worst {TIMELINE_PER_CPU} windows of each CPU (the tables and the flame graph count them all)"),
    );
}

/// Latency histograms by kind and cause, summed over CPUs (the module's log2 buckets);
/// from the records where the module counted none (the original module).
fn histograms(o: &mut String, s: &Snapshot) {
    o.push_str("<section id=\"histograms\">\n<h2>Latency histograms</h2>\n");
    let split = s.cpus.iter().any(|c| !c.soft_bh_off_hist.is_empty());
    let mut kinds = vec![(Kind::Hard, None)];
    if split {
        kinds.push((Kind::Soft, Some(Cause::BhOff)));
        kinds.push((Kind::Soft, Some(Cause::KsoftirqdWait)));
    } else {
        kinds.push((Kind::Soft, None));
    }
    let mut any = false;
    for (k, c) in kinds {
        let mut counts = crate::render::summed(s, k, c);
        let from_records = counts.iter().all(|&n| n == 0);
        if from_records {
            for r in s
                .records
                .iter()
                .filter(|r| r.kind == k && (c.is_none() || r.cause == c))
            {
                let b = tio_logic::hist::bucket(r.latency_ns);
                if let Some(n) = counts.get_mut(b) {
                    *n += 1;
                }
            }
        }
        if counts.iter().all(|&n| n == 0) {
            continue;
        }
        any = true;
        histogram(o, k, c, &counts, from_records);
    }
    if !any {
        o.push_str("<p>No window was counted.</p>\n");
    }
    o.push_str("</section>\n");
}

fn histogram(o: &mut String, k: Kind, c: Option<Cause>, counts: &[u64], from_records: bool) {
    let last = counts.iter().rposition(|&n| n > 0).unwrap_or(0);
    let first = counts.iter().position(|&n| n > 0).unwrap_or(0);
    let bars = &counts[first..=last];
    let max = bars.iter().copied().max().unwrap_or(1).max(1);
    let (w, h, bar_w) = (360.0, 150.0, (300.0 / bars.len() as f64).min(40.0));
    let name = crate::render::kind_cause(k, c);
    let _ = writeln!(
        o,
        "<figure class=\"hist\" style=\"display:inline-block;margin:0 1em 1em 0\"><figcaption>{name}{}</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" font-size=\"10\">",
        if from_records { " (kept records)" } else { "" }
    );
    for (i, &n) in bars.iter().enumerate() {
        let (lo, hi) = crate::render::bucket_range(first + i);
        let bh = 100.0 * n as f64 / max as f64;
        let bx = 40.0 + i as f64 * bar_w;
        let _ = writeln!(
            o,
            "<rect x=\"{bx:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{bh:.1}\" fill=\"{}\"><title>{lo}..{hi} ms: {n}</title></rect><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{n}</text><text x=\"{:.1}\" y=\"135\" text-anchor=\"middle\">{lo}</text>",
            115.0 - bh,
            bar_w - 2.0,
            colour(k, c),
            bx + bar_w / 2.0 - 1.0,
            112.0 - bh,
            bx + bar_w / 2.0 - 1.0,
        );
    }
    let _ = writeln!(
        o,
        "<line x1=\"38\" x2=\"{:.1}\" y1=\"115\" y2=\"115\" stroke=\"#888\"/><text x=\"40\" y=\"148\">ms (log2 buckets, lower edge)</text></svg></figure>",
        40.0 + bars.len() as f64 * bar_w
    );
}

/// The flame graph of the culprit stacks weighted by time with interrupts off
/// (`folded` by latency: in-window profiles where there are), inline SVG.
fn flamegraph(o: &mut String, folded: &str) {
    o.push_str("<section id=\"flamegraph\">\n<h2>Flame graph</h2>\n");
    if folded.is_empty() {
        o.push_str("<p>No stacks to draw.</p>\n</section>\n");
        return;
    }
    o.push_str("<p class=\"note\">The culprit stacks weighted by the time with interrupts or softirqs off (ms), root at the bottom: kind, task, then the stack; a window with an in-window profile counts where it was sampled. Frames narrower than a pixel are left out; hover a frame for its name and weight.</p>\n");
    o.push_str(&flame_svg(folded));
    o.push_str("</section>\n");
}

/// Height of a flame graph frame, pixels.
const FLAME_ROW: f64 = 17.0;

/// A node of the flame graph: a frame and the weight of the stacks through it.
#[derive(Default)]
struct Flame {
    weight: u64,
    children: BTreeMap<String, Flame>,
}

impl Flame {
    /// The tree of `folded` (`root;...;leaf WEIGHT` lines): stacks merged from the root.
    fn of(folded: &str) -> Self {
        let mut root = Flame::default();
        for line in folded.lines() {
            let Some((stack, w)) = line.rsplit_once(' ') else {
                continue;
            };
            let Ok(w) = w.parse::<u64>() else { continue };
            root.weight += w;
            let mut node = &mut root;
            for frame in stack.split(';') {
                node = node.children.entry(frame.to_string()).or_default();
                node.weight += w;
            }
        }
        root
    }

    fn depth(&self) -> usize {
        self.children
            .values()
            .map(|c| c.depth() + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The flame graph of `folded` as inline SVG, root at the bottom, a frame's width its
/// share of the weight; each frame's `<title>` says its name, weight (ms) and share.
/// Drawn here (a few rectangles and texts) rather than by inferno, whose licence
/// (CDDL-1.0) does not go with the GPL-2.0 binary it would be linked into.
fn flame_svg(folded: &str) -> String {
    let root = Flame::of(folded);
    let depth = root.depth();
    let height = (depth as f64 + 1.0) * FLAME_ROW + 30.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg id=\"flamegraph-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" font-size=\"11\" font-family=\"monospace\">"
    );
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">Culprit stacks, weighted by time with irqs off ({} ms in all)</text>",
        WIDTH / 2.0,
        root.weight
    );
    if root.weight > 0 {
        let scale = (WIDTH - 20.0) / root.weight as f64;
        flame_frames(&mut o, &root, root.weight, 10.0, height - FLAME_ROW, scale);
    }
    o.push_str("</svg>\n");
    o
}

/// Draws the children of `node` from `x` on, their row at `y`, and theirs above.
fn flame_frames(o: &mut String, node: &Flame, total: u64, mut x: f64, y: f64, scale: f64) {
    for (name, child) in &node.children {
        let w = child.weight as f64 * scale;
        if w >= FLAME_MIN_WIDTH {
            let pct = child.weight as f64 * 100.0 / total as f64;
            // Warm colours, the same for a name wherever it is (a hash of it).
            let h = name
                .bytes()
                .fold(5381u32, |h, b| h.wrapping_mul(33) ^ u32::from(b));
            let fill = format!(
                "rgb({},{},{})",
                205 + h % 50,
                (h >> 8) % 180 + 40,
                (h >> 16) % 55
            );
            // About 6.6 pixels a character at this size: as much of the name as fits.
            let fits = ((w - 6.0) / 6.6).max(0.0) as usize;
            let label: String = if name.chars().count() <= fits {
                name.clone()
            } else if fits > 2 {
                name.chars().take(fits - 2).collect::<String>() + ".."
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "<g><title>{} ({} ms, {pct:.1}%)</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{fill}\" rx=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
                esc(name),
                child.weight,
                FLAME_ROW - 1.0,
                x + 3.0,
                y + FLAME_ROW - 5.0,
                esc(&label)
            );
            flame_frames(o, child, total, x, y - FLAME_ROW, scale);
        }
        x += w;
    }
}

/// The worst windows, each with its stacks and in-window profile.
fn windows(o: &mut String, s: &Enriched) {
    o.push_str("<section id=\"windows\">\n<h2>Worst windows and their in-window profiles</h2>\n");
    let mut v: Vec<&Record> = s.records.iter().collect();
    v.sort_by(|a, b| {
        b.latency_ns
            .cmp(&a.latency_ns)
            .then(a.timestamp_ns.cmp(&b.timestamp_ns))
    });
    let all = v.len();
    v.truncate(WORST_WINDOWS);
    for (i, r) in v.iter().enumerate() {
        // The worst one open: its stacks and profile show without a click (and print).
        let _ = writeln!(
            o,
            "<details{}><summary><span style=\"color:{}\">&#9632;</span> {}</summary>",
            if i == 0 { " open" } else { "" },
            colour(r.kind, r.cause),
            esc(&crate::render::window_sentence(r))
        );
        stack(o, "Where it ended", &r.stack);
        if !r.window_stack.is_empty() {
            stack(
                o,
                &format!(
                    "Sampled in the window: {} (pid {})",
                    r.window_comm, r.window_pid
                ),
                &r.window_stack,
            );
        }
        if let Some(p) = r.profile.as_ref().filter(|p| p.weight > 0) {
            let _ = writeln!(
                o,
                "<p>In-window profile: {} samples, {} distinct stacks, weight {} periods</p>",
                p.samples, p.distinct, p.weight
            );
            // The shares `records` shows for the same window (`profile::Shares`).
            let shares = crate::profile::Shares::of(p);
            for st in &shares.stacks {
                stack(
                    o,
                    &format!(
                        "{} of the window ({} of {} periods)",
                        shares.percent(st.count),
                        st.count,
                        shares.weight
                    ),
                    &st.frames,
                );
            }
            let (rest, _) = shares.rest(shares.stacks.len());
            if rest > 0 {
                let _ = writeln!(
                    o,
                    "<p class=\"note\">{} elsewhere (stacks the module did not keep)</p>",
                    shares.percent(rest)
                );
            }
        }
        o.push_str("</details>\n");
    }
    close(
        o,
        all - v.len(),
        "shorter windows are not detailed here (trace-irqoff records --from FILE shows them all)",
    );
}

/// Ends a section, saying first what it left out: `n` (when any) and `what`.
fn close(o: &mut String, n: usize, what: &str) {
    if n > 0 {
        let _ = writeln!(o, "<p class=\"note\">{n} {}.</p>", esc(what));
    }
    o.push_str("</section>\n");
}

fn stack(o: &mut String, title: &str, frames: &[String]) {
    if frames.is_empty() {
        return;
    }
    let _ = write!(o, "<p>{}</p><pre>", esc(title));
    for f in frames.iter().take(DEPTH) {
        let _ = writeln!(o, "{}", esc(f));
    }
    if frames.len() > DEPTH {
        let _ = writeln!(o, "... {} more", frames.len() - DEPTH);
    }
    o.push_str("</pre>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`html`] of `s` enriched as `report` enriches it.
    fn html_of(s: &Snapshot, origin: &Origin) -> String {
        let by = crate::model::culprit::By::Culprit;
        let (top, folded) = (
            crate::enrich::top(&s.records, by),
            crate::enrich::folded(&s.records, true),
        );
        html(&crate::enrich::snapshot(s), &top, &folded, origin)
    }

    /// Claim: the report's window details and `records` give one window the same
    /// profile: the issue's 2.99 s window, one loop over 284 of 288 periods whose
    /// samples landed in three leaves, is "99% (284 of 288 periods)" in both, and no
    /// view splits it by leaf (before, the report said 58% / 20% / 20% / 1%).
    #[test]
    fn the_report_and_the_cli_share_one_profile() {
        let mut s =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-v2.txt"))
                .unwrap();
        s.records.truncate(1);
        let r = &mut s.records[0];
        r.latency_ns = 2_990_000_000;
        r.profile = Some(crate::profile::tests::one_loop());
        let mut cli = String::new();
        crate::render::record(&mut cli, &Window::of(r), false, false, 8, 2);
        let mut html = String::new();
        windows(&mut html, &crate::enrich::snapshot(&s));
        assert!(cli.contains("    99% (284 of 288 periods):"), "{cli}");
        assert!(
            html.contains("99% of the window (284 of 288 periods)"),
            "{html}"
        );
        for leaf in ["58%", "20%", "21%"] {
            assert!(!html.contains(&format!("{leaf} of the window")), "{html}");
            assert!(!cli.contains(&format!("    {leaf} (")), "{cli}");
        }
        assert!(
            html.contains("1% of the window (4 of 288 periods)"),
            "{html}"
        );
        assert!(cli.contains("    1% (4 of 288 periods):"), "{cli}");
    }

    /// Every character HTML gives a meaning to is escaped, the rest kept.
    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<script>alert('x&y')</script> \"q\" ü"),
            "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt; &quot;q&quot; ü"
        );
    }

    /// Axis steps are 1, 2 or 5 times a power of ten below a second, steps of the clock
    /// above, giving at most the ticks asked for.
    #[test]
    fn tick_steps_are_round() {
        assert_eq!(tick_step(10_000_000_000, 8), 2_000_000_000);
        assert_eq!(tick_step(30_000_000_000, 8), 5_000_000_000);
        assert_eq!(tick_step(3_600_000_000_000, 8), 600_000_000_000);
        assert_eq!(
            tick_step(11 * 86_400_000_000_000, 8),
            2 * 86_400_000_000_000
        );
        assert_eq!(
            tick_step(400 * 86_400_000_000_000, 8),
            56 * 86_400_000_000_000
        );
        assert_eq!(tick_step(800, 8), 100);
        assert_eq!(tick_step(0, 8), 1);
    }

    /// The flame graph is inline SVG without script; it merges stacks from the root,
    /// sizes frames by weight, and escapes what the records say.
    #[test]
    fn flame_graph_is_inline_svg_without_script() {
        let svg = flame_svg("hardirq-off;<script>x</script>;f 3\nhardirq-off;sh;g 1\n");
        assert!(svg.starts_with("<svg id=\"flamegraph-svg\" "), "{svg}");
        assert!(!svg.contains("<script"), "{svg}");
        assert!(
            svg.contains("&lt;script&gt;x&lt;/script&gt; (3 ms, 75.0%)"),
            "{svg}"
        );
        // One hardirq-off frame for both stacks, as wide as the graph.
        assert_eq!(
            svg.matches("<title>hardirq-off (4 ms, 100.0%)</title>")
                .count(),
            1
        );
        assert!(svg.contains("width=\"1080.0\""), "{svg}");
        assert!(svg.contains("<title>g (1 ms, 25.0%)</title>"), "{svg}");
    }

    /// A recording with the clock anchor `offset_ns` and one hardirq-off window of 2 s
    /// that ended at 5 s after boot.
    fn one_window(offset_ns: u64) -> Snapshot {
        let mut s = crate::saved::parse(&format!(
            r#"{{"module":{{"records_format":2,"hz":1000,"records_per_cpu":16,"soft_event_ns":0}},
            "settings":{{"enabled":true,"period_ms":10,"threshold_ms":50}},"realtime_offset_ns":{offset_ns},
            "cpus":[],"records":[]}}"#
        ))
        .unwrap()
        .snapshot;
        s.records.push(Record {
            latency_ns: 2_000_000_000,
            timestamp_ns: 5_000_000_000,
            ..Record::new(0, Kind::Hard)
        });
        s
    }

    /// The timeline's ticks fall on round wall-clock times, whatever the clock anchor.
    #[test]
    fn ticks_at_round_wall_clock_times() {
        let s = one_window(1_000_300_000_000);
        let page = html_of(&s, &Origin::default());
        // From 00:16:43.3 to 00:16:45.3, every 500 ms.
        assert!(page.contains(">00:16:43.500</text>"), "{page}");
        assert!(page.contains(">00:16:45.000</text>"), "{page}");
        assert!(!page.contains(">00:16:43.300</text>"), "{page}");
        // Over days, the date and the minute, every 2 days (11 days from 1970-01-01T00:16:43.3).
        let mut s = s;
        let mut later = s.records[0].clone();
        later.timestamp_ns = 950_400_000_000_000;
        s.records.push(later);
        let page = html_of(&s, &Origin::default());
        assert!(page.contains(">01-03 00:00</text>"), "{page}");
    }

    /// The time range covers the recording and every window in it.
    #[test]
    fn range_covers_recording_and_windows() {
        let s = one_window(1_000_000_000_000);
        let origin = Origin {
            start_time: Some("1970-01-01T00:16:42Z".into()),
            end_time: Some("1970-01-01T00:16:50Z".into()),
            ..Origin::default()
        };
        assert_eq!(range(&s, &origin), (2_000_000_000, 10_000_000_000));
        assert_eq!(
            range(&s, &Origin::default()),
            (3_000_000_000, 5_000_000_000)
        );
    }
}
