// SPDX-License-Identifier: GPL-2.0
//! `report`: one self-contained HTML page of an incident, readable offline and in a
//! ticket. No script, no style sheet or image from elsewhere: the timeline and the
//! histograms and the flame graph are inline SVG drawn here; hovering a window or a frame shows its `<title>`. Every text from the
//! records (task names, frames, cgroups) is escaped.
//!
//! Its size is bounded whatever the recording: the timeline draws the worst
//! [`timeline::TIMELINE_PER_CPU`] windows of each CPU, the page details the worst
//! [`WORST_WINDOWS`] windows and lists [`CULPRITS`] culprits, the flame graph drops frames
//! narrower than [`flame::FLAME_MIN_WIDTH`] pixels; the page says what it left out. A
//! recording of 64 CPUs stays under 3 MB (tests/cli.rs proves it for a synthetic one).
//!
//! The page's sections: the summary, the culprits and the worst windows here,
//! `timeline`, `delays` (with `--explain`: `explain`'s delays beside the windows, drawn
//! [`delays::DELAYS_DRAWN`] at most), `wakeups` (with `--explain` of an answer of
//! `explain --wakeups`: each wake-up split into its phases beside the windows, drawn
//! [`wakeups::WAKEUPS_DRAWN`] at most), `histograms` and `flame` (the flame graph) in
//! files of their own; `markup` holds what they all use, `lanes` what the drawings of
//! the answer share (their axis, rows and windows).

use std::fmt::Write;

use crate::enrich::Enriched;
use crate::model::clock::Clock;
use crate::model::culprit_group::Culprit;
use crate::model::explain_answer::Answer;
use crate::model::snapshot::{Cause, Kind, KindLabel, Record};
use crate::source::saved::Origin;

mod delays;
mod flame;
mod histograms;
mod lanes;
mod markup;
mod timeline;
mod wakeups;

use delays::delays;
use flame::flamegraph;
use histograms::histograms;
use markup::{close, colour, esc};
use timeline::{by_cpu, range, timeline};
use wakeups::wakeups;

/// Windows shown with their stacks and in-window profiles: the worst of all.
pub const WORST_WINDOWS: usize = 20;
/// Rows of the culprits table.
pub const CULPRITS: usize = 30;
/// Frames of a stack shown in a window's details.
const DEPTH: usize = 24;

/// The report of `s`, recorded as `origin` says, with the `culprits` of its records (by
/// culprit) and their `folded` stacks weighted by latency; with `explain`'s answer, its
/// delays and its wake-ups (`explain --wakeups`) beside the windows after the timeline.
pub fn html(
    s: &Enriched,
    culprits: &[Culprit],
    folded: &str,
    origin: &Origin,
    explain: Option<&Answer>,
) -> String {
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
    if let Some(a) = explain {
        // An answer of `explain --wakeups` with no delay: its wake-ups alone, with its
        // verdict and limits.
        let alone = a.wakeups.is_some() && a.delays.is_empty();
        if !alone {
            delays(&mut o, a);
        }
        if let Some(w) = &a.wakeups {
            wakeups(&mut o, a, w, alone);
        }
    }
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
            "<tr><td><span style=\"color:{}\">&#9632;</span> {}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td><td><b>{}</b>{}</td></tr>",
            colour(c.kind, c.cause),
            c.kind.label(),
            c.cause.map_or("-", Cause::name),
            c.count,
            crate::render::length(c.worst_ns),
            crate::render::length(c.total_ns),
            esc(&crate::render::top_view::tasks(c, ", ")),
            esc(&c.culprit),
            esc(&crate::render::top_view::in_context(c))
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
        measured(o, r);
        stack(o, "Where it ended", &r.stack, &r.lines);
        if !r.window_stack.is_empty() {
            stack(
                o,
                &format!(
                    "{}: {} (pid {})",
                    if r.stop_callback {
                        "The function stop_machine() ran here"
                    } else {
                        "Sampled in the window"
                    },
                    r.window_comm,
                    r.window_pid
                ),
                &r.window_stack,
                &r.lines,
            );
        }
        if let Some(p) = r.profile.as_ref().filter(|p| p.weight > 0) {
            let _ = writeln!(
                o,
                "<p>In-window profile: {} samples, {} distinct stacks, weight {} periods</p>",
                p.samples, p.distinct, p.weight
            );
            // The shares `records` shows for the same window (`profile::Shares`).
            let shares = crate::render::profile::Shares::of(p);
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
                    &r.lines,
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

/// Which sampler measured the window and, where the module's period is known, the range
/// its true length lies in by that sampler's path (`precision`): "Measured by the softirq
/// probe: its true length is 52..62 ms." Nothing for a module before `ended_by`.
fn measured(o: &mut String, r: &Record) {
    let Some(by) = crate::render::measured_by(r) else {
        return;
    };
    let mut text = format!("Measured {}", by.trim_start_matches("measured "));
    if let (Some(lo), Some(hi)) = (r.true_latency_min_ns, r.true_latency_max_ns) {
        text += &format!(
            ": its true length is {}..{} ms",
            lo / 1_000_000,
            hi.div_ceil(1_000_000)
        );
    }
    let _ = writeln!(o, "<p>{}.</p>", esc(&text));
}

/// A stack's frames, each with its source lines where the record has them (`--lines`).
fn stack(
    o: &mut String,
    title: &str,
    frames: &[String],
    lines: &std::collections::BTreeMap<String, Vec<crate::model::snapshot::SourceLine>>,
) {
    if frames.is_empty() {
        return;
    }
    let _ = write!(o, "<p>{}</p><pre>", esc(title));
    for f in frames.iter().take(DEPTH) {
        let mut text = String::new();
        crate::render::frame_with_lines(&mut text, "", f, lines.get(f).map_or(&[], Vec::as_slice));
        o.push_str(&esc(&text));
    }
    if frames.len() > DEPTH {
        let _ = writeln!(o, "... {} more", frames.len() - DEPTH);
    }
    o.push_str("</pre>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::Window;

    /// The v2 fixture with its first window only.
    fn first_v2_window() -> crate::model::snapshot::Snapshot {
        let mut s =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-v2.txt"))
                .unwrap();
        s.records.truncate(1);
        s
    }

    /// Claim: the report's window details and `records` give one window the same
    /// profile: the 2.99 s window, one loop over 284 of 288 periods whose
    /// samples landed in three leaves, is "99% (284 of 288 periods)" in both, and no
    /// view splits it by leaf (before, the report said 58% / 20% / 20% / 1%).
    #[test]
    fn the_report_and_the_cli_share_one_profile() {
        let mut s = first_v2_window();
        let r = &mut s.records[0];
        r.latency_ns = 2_990_000_000;
        r.profile = Some(crate::render::profile::tests::one_loop());
        let mut cli = String::new();
        let v2 = crate::render::records_view::FromModule {
            version: 2,
            hypervisor: None,
        };
        crate::render::records_view::record(&mut cli, &Window::of(r), false, false, 8, v2);
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

    /// Claim: the report names the task a window in an IPI function interrupted as such,
    /// never as its doer: in the culprits table (tasks "interrupted kdamond.0", culprit
    /// "irqctx_spin in an IPI function") and in the worst windows' titles ("in an IPI
    /// function, interrupting kdamond.0 (pid 54)").
    #[test]
    fn the_report_says_a_window_in_an_ipi_function_interrupted_its_task() {
        let mut s = first_v2_window();
        let r = &mut s.records[0];
        r.kind = Kind::Hard;
        r.cause = None;
        r.comm = "kdamond.0".into();
        r.pid = 54;
        r.stack = crate::enrich::mechanism::tests::ipi_stack();
        let mut table = String::new();
        culprits_table(
            &mut table,
            &crate::enrich::culprit::top(&s.records, crate::model::culprit_group::By::Culprit),
        );
        assert!(
            table.contains(
                "<td>interrupted kdamond.0</td><td><b>irqctx_spin</b> in an IPI function</td>"
            ),
            "{table}"
        );
        let mut html = String::new();
        windows(&mut html, &crate::enrich::snapshot(&s));
        assert!(
            html.contains(", in an IPI function, interrupting kdamond.0 (pid 54)"),
            "{html}"
        );
        assert!(!html.contains("ms, kdamond.0 (pid 54)"), "{html}");
    }

    /// Claim: the report's window details name the sampler that ended a window with the
    /// range its true length lies in by that path (P = 10 ms, HZ 250: the probe's within
    /// 5 ms, the timer_list's 8 ms shorter to 12 ms longer); a record of a module before
    /// `ended_by` gets no such line.
    #[test]
    fn the_report_says_which_sampler_measured_a_window() {
        use crate::model::snapshot::EndedBy;
        let html = |e: Option<EndedBy>| {
            let mut s = first_v2_window();
            s.config = crate::enrich::precision::tests::config(10, 250);
            s.records[0].ended_by = e;
            s.records[0].latency_ns = 100_000_000;
            crate::enrich::precision::annotate(&s.config, &mut s.records);
            let mut o = String::new();
            windows(&mut o, &crate::enrich::snapshot(&s));
            o
        };
        let probe = html(Some(EndedBy::Probe));
        assert!(
            probe.contains("<p>Measured by the softirq probe: its true length is 95..105 ms.</p>"),
            "{probe}"
        );
        let timer = html(Some(EndedBy::Timer));
        assert!(
            timer.contains("<p>Measured by the timer_list: its true length is 92..112 ms.</p>"),
            "{timer}"
        );
        assert!(!html(None).contains("<p>Measured"));
    }
}
