// SPDX-License-Identifier: GPL-2.0
//! `status`.

use std::fmt::Write;

use serde::Serialize;

use super::{paint, BOLD};
use crate::enrich::{Enriched, OpenWindow};
use crate::model::settings::Settings;
use crate::model::snapshot::{Cpu, Kind, Stalls, Watcher};
use crate::model::tag_wait::TagWait;
use crate::render::tag_wait_text;

/// `status --json`.
#[derive(Serialize)]
pub struct Status {
    loaded: bool,
    #[serde(flatten)]
    settings: Settings,
    hz: u64,
    soft_event_ns: u64,
    records_per_cpu: u32,
    cpus: Vec<Cpu>,
    tag_wait: Option<TagWait>,
    /// The watcher of windows still open; none from a module without it.
    watcher: Option<Watcher>,
    /// Windows still open: hardirq-off ones the watcher sees, softirq-off ones.
    ongoing: Vec<OpenWindow>,
    /// Stalls of the whole machine (no sampled CPU ran); null from a module without them.
    stalls: Option<Stalls>,
}

/// "on (...)", "not available on this architecture: ... (arch)", ...: the watcher in a sentence.
pub fn watcher_sentence(w: &Watcher) -> String {
    if w.available {
        return if w.active {
            let lost = match w.nmi_lost {
                0 => String::new(),
                n => format!(", {n} taken by another NMI handler"),
            };
            let unconfirmed = match w.stuck_unconfirmed {
                0 => String::new(),
                n => format!("; {n} overdue past the stuck length with no NMI sample outside the idle loop, not logged as stuck"),
            };
            format!(
                "on: stacks of hardirq-off windows still open, by NMI from another CPU ({} NMIs sent, {} answered{}, {} late, {} missed{})",
                w.nmi_sent, w.nmi_answered, lost, w.nmi_stale, w.nmi_missed, unconfirmed
            )
        } else {
            "available, starts when sampling is enabled".to_string()
        };
    }
    let why = match w.reason.as_deref().unwrap_or("-") {
        "arch" => "not available on this architecture: the kernel lets modules send an NMI to one CPU on x86_64 only (arm64's pseudo-NMIs serve the kernel's own backtrace and KGDB IPIs) (arch)".to_string(),
        "register-failed" => {
            "not available: its NMI handler could not be registered (register-failed)".to_string()
        }
        "nmi-timeout" => {
            "stopped: NMIs sent were not answered (nmi-timeout; until the module is reloaded)"
                .to_string()
        }
        "off" => "off (module parameter watch=0)".to_string(),
        r => format!("not available ({r})"),
    };
    format!("{why}; hardirq-off windows still open show their length only")
}

/// "CPU 1: hard interrupts off for 1.79 s and counting — sh (pid 63) in
/// irqoff_sample_hardirq_window (107 in-window samples, watched by CPU 0)"; for a
/// culprit in interrupt context the task is the one it interrupted, not its doer: "... —
/// in an IPI function (irqctx_spin), interrupting kdamond.0 (pid 54) (3 in-window
/// samples)".
pub fn open_window_line(w: &OpenWindow) -> String {
    let o = &w.window;
    let what = match o.kind {
        Kind::Hard => "hard interrupts off",
        Kind::Soft => "softirqs held off",
    };
    let mut s = format!(
        "CPU {}: {what} for {} and counting",
        o.cpu,
        super::length(o.latency_ns)
    );
    let task = (o.pid != 0 || !o.comm.is_empty()).then(|| format!("{} (pid {})", o.comm, o.pid));
    match w.context {
        Some(x) => {
            s += &format!(" \u{2014} in {x}");
            if let Some(c) = &w.culprit {
                s += &format!(" ({c})");
            }
            if let Some(t) = task {
                s += &format!(", interrupting {t}");
            }
        }
        None => {
            if let Some(t) = task {
                s += &format!(" \u{2014} {t}");
            }
            if let Some(c) = &w.culprit {
                s += &format!(" in {c}");
            }
        }
    }
    let mut notes = Vec::new();
    if o.samples > 0 {
        notes.push(format!(
            "{} in-window sample{}",
            o.samples,
            if o.samples == 1 { "" } else { "s" }
        ));
    } else if o.kind == Kind::Hard {
        notes.push("no in-window sample yet".to_string());
    }
    if let Some(c) = o.watcher_cpu {
        notes.push(format!("watched by CPU {c}"));
    }
    if !notes.is_empty() {
        s += &format!(" ({})", notes.join(", "));
    }
    s
}

pub fn json(settings: Settings, s: &Enriched) -> Status {
    Status {
        loaded: true,
        settings,
        hz: s.config.hz,
        soft_event_ns: s.config.soft_event_ns,
        records_per_cpu: s.config.records_per_cpu,
        ongoing: s.open.clone(),
        cpus: s.cpus.clone(),
        tag_wait: s.tag_wait.clone(),
        watcher: s.watcher.clone(),
        stalls: s.stalls.clone(),
    }
}

/// "trace_irqoff: enabled, period 10 ms, threshold 60 ms": what a change left.
pub fn settings_line(s: &Settings) -> String {
    let state = match s.switching {
        Some(w) => w.name(),
        None if s.enabled => "enabled",
        None => "disabled (records stay readable)",
    };
    format!(
        "trace_irqoff: {state}, period {} ms, threshold {} ms\n",
        s.period_ms, s.threshold_ms
    )
}

/// On a terminal `cols` wide: the same as [`text`], with the per-CPU table in short
/// headers where the full one does not fit, and every other line wrapped at a space
/// (continued two columns in).
pub fn screen(settings: &Settings, s: &Enriched, color: bool, cols: usize) -> String {
    let full = text(settings, s, false);
    let table_width = full
        .lines()
        .find(|l| l.trim_start().starts_with("CPU  online"))
        .map_or(0, |l| l.chars().count());
    let mut o = String::new();
    let mut first = true;
    for line in full.lines() {
        let in_table = line.trim_start().starts_with("CPU  online") || is_table_row(line);
        if in_table && table_width > cols {
            if let Some(short) = short_row(line, s.version >= 2, s.stalls.is_some()) {
                o += &super::line::fit(&short, Some(cols));
                o.push('\n');
                continue;
            }
        }
        let wrapped = super::line::wrap(line, cols);
        if first && color {
            // The state, bold as in the full view.
            let state = line
                .strip_prefix("trace_irqoff: ")
                .and_then(|r| r.split(',').next())
                .unwrap_or("");
            o += &wrapped.replacen(state, &paint(true, BOLD, state), 1);
        } else {
            o += &wrapped;
        }
        first = false;
    }
    o
}

/// A row of the per-CPU table: "   1  yes ...".
fn is_table_row(line: &str) -> bool {
    let mut w = line.split_whitespace();
    w.next().is_some_and(|c| c.parse::<u32>().is_ok()) && matches!(w.next(), Some("yes" | "no"))
}

/// The per-CPU table's header or row `line` in 80 columns at most (76 without the stall
/// column): the same numbers under short headers.
fn short_row(line: &str, by_cause: bool, stall: bool) -> Option<String> {
    let f: Vec<&str> = line.split_whitespace().collect();
    if f.first() == Some(&"CPU") {
        return Some(match (by_cause, stall) {
            (true, false) => format!(
                "{:>3} {:<3} {:>8} {:>8} {:>7} {:>10} {:>8} {:>9} {:>5} {:>6}",
                "CPU",
                "ON",
                "HARDIRQ",
                "SOFTIRQ",
                "BH-OFF",
                "KSOFTIRQD",
                "DROPPED",
                "REPLACED",
                "IDLE",
                "STEAL"
            ),
            // 79 columns: the stall column takes what the others had spare.
            (true, true) => format!(
                "{:>3} {:<3} {:>7} {:>7} {:>7} {:>10} {:>7} {:>8} {:>5} {:>6} {:>6}",
                "CPU",
                "ON",
                "HARDIRQ",
                "SOFTIRQ",
                "BH-OFF",
                "KSOFTIRQD",
                "DROPPED",
                "REPLACED",
                "IDLE",
                "STEAL",
                "STALL"
            ),
            (false, false) => format!(
                "{:>3} {:<3} {:>8} {:>8} {:>8} {:>9} {:>5} {:>6}",
                "CPU", "ON", "HARDIRQ", "SOFTIRQ", "DROPPED", "REPLACED", "IDLE", "STEAL"
            ),
            (false, true) => format!(
                "{:>3} {:<3} {:>8} {:>8} {:>8} {:>9} {:>5} {:>6} {:>6}",
                "CPU", "ON", "HARDIRQ", "SOFTIRQ", "DROPPED", "REPLACED", "IDLE", "STEAL", "STALL"
            ),
        });
    }
    match (by_cause, stall, f.as_slice()) {
        (true, false, [cpu, on, h, so, bh, ks, d, r, i, st]) => Some(format!(
            "{cpu:>3} {on:<3} {h:>8} {so:>8} {bh:>7} {ks:>10} {d:>8} {r:>9} {i:>5} {st:>6}"
        )),
        (true, true, [cpu, on, h, so, bh, ks, d, r, i, st, sl]) => Some(format!(
            "{cpu:>3} {on:<3} {h:>7} {so:>7} {bh:>7} {ks:>10} {d:>7} {r:>8} {i:>5} {st:>6} {sl:>6}"
        )),
        (false, false, [cpu, on, h, so, d, r, i, st]) => Some(format!(
            "{cpu:>3} {on:<3} {h:>8} {so:>8} {d:>8} {r:>9} {i:>5} {st:>6}"
        )),
        (false, true, [cpu, on, h, so, d, r, i, st, sl]) => Some(format!(
            "{cpu:>3} {on:<3} {h:>8} {so:>8} {d:>8} {r:>9} {i:>5} {st:>6} {sl:>6}"
        )),
        _ => None,
    }
}

pub fn text(settings: &Settings, s: &Enriched, color: bool) -> String {
    let mut o = String::new();
    let state = match settings.switching {
        Some(w) => format!(
            "{} (waiting for every CPU to answer: one may have interrupts off)",
            w.name()
        ),
        None if settings.enabled => "enabled".into(),
        None => "disabled".into(),
    };
    if s.version == 0 {
        // The original trace-irqoff: settings and records only; no counts to show as zeros.
        let _ = writeln!(
            o,
            "trace_irqoff: {}, period {} ms, threshold {} ms",
            paint(color, BOLD, &state),
            settings.period_ms,
            settings.threshold_ms
        );
        let _ = writeln!(o, "the original trace-irqoff module: per-CPU event counts, HZ and rules n/a (it keeps none); its histograms: trace-irqoff hist");
        return o;
    }
    let _ = writeln!(
        o,
        "trace_irqoff: {}, period {} ms, threshold {} ms, HZ {}, {} records per CPU and kind",
        paint(color, BOLD, &state),
        settings.period_ms,
        settings.threshold_ms,
        s.config.hz,
        s.config.records_per_cpu
    );
    o += &config_lines(settings, s);
    o += &cpu_table(s);
    if let Some(line) = s.stalls.as_ref().and_then(super::stall_sentence) {
        let _ = writeln!(o, "{line}");
    }
    if let Some(w) = &s.watcher {
        let _ = writeln!(o, "watcher: {}", watcher_sentence(w));
    }
    for w in &s.open {
        let _ = writeln!(o, "{}", open_window_line(w));
    }
    if let Some(tw) = &s.tag_wait {
        let _ = writeln!(o, "{}", tag_wait_text::status_line(tw));
    }
    o
}

/// The module's configuration below the first line: since when it counts, the CPUs
/// sampled, the gaps that are events.
fn config_lines(settings: &Settings, s: &Enriched) -> String {
    let mut o = String::new();
    if let Some(since) = &s.config.counts_since {
        let on = s
            .config
            .enabled_since
            .as_deref()
            .map(|e| format!("; sampling on since {e}"))
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "counts and records since {since} (load or last clear){on}"
        );
    }
    if let Some(cpus) = &s.config.cpus {
        let nohz = s.config.nohz_full.as_deref().filter(|n| *n != "-");
        let unsampled = s.config.unsampled.as_deref().filter(|n| *n != "-");
        let _ = writeln!(
            o,
            "CPUs sampled: {}{}{}",
            if cpus == "-" { "none" } else { cpus },
            nohz.map(|n| format!(" (nohz_full, not sampled unless chosen: {n})"))
                .unwrap_or_default(),
            unsampled
                .map(|n| format!("; not sampled, set-up failed when it came online: {n}"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        o,
        "events: hardirq-off from {} ms gaps, softirq-off from {} gaps",
        2 * settings.period_ms,
        super::ms(s.config.soft_event_ns)
    );
    o
}

/// The per-CPU counts, a row per CPU: softirq events by cause from format v2 on, stall
/// gaps where the module counts them.
fn cpu_table(s: &Enriched) -> String {
    let mut o = String::new();
    // From format v2 on, softirq events are also split by cause.
    let by_cause = s.version >= 2;
    let split = |bh: &str, ksw: &str| {
        if by_cause {
            format!(" {bh:>8} {ksw:>14}")
        } else {
            String::new()
        }
    };
    // Modules that count stalls: their column (older ones cannot tell them from windows).
    let stall = |n: &str| {
        if s.stalls.is_some() {
            format!(" {n:>11}")
        } else {
            String::new()
        }
    };
    let _ = writeln!(
        o,
        "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10} {:>11}{}",
        "CPU",
        "online",
        "hardirq-off",
        "softirq-off",
        split("bh-off", "ksoftirqd-wait"),
        "dropped",
        "replaced",
        "idle gaps",
        "steal gaps",
        stall("stall gaps")
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "{:>4}  {:<7} {:>12} {:>12}{} {:>8} {:>9} {:>10} {:>11}{}",
            c.cpu,
            if c.online { "yes" } else { "no" },
            c.hard_events,
            c.soft_events,
            split(
                &c.soft_bh_off_events.to_string(),
                &c.soft_ksoftirqd_wait_events.to_string()
            ),
            c.dropped,
            c.replaced,
            c.idle_gaps,
            c.steal_gaps,
            stall(&c.stall_gaps.to_string())
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::Ongoing;

    fn open(stack: Vec<String>) -> OpenWindow {
        let functions = || stack.iter().map(|f| crate::symbols::function(f));
        OpenWindow {
            window: Ongoing {
                cpu: 1,
                kind: Kind::Hard,
                latency_ns: 1_788_332_180,
                start_ns: 1,
                pid: 54,
                comm: "kdamond.0".into(),
                samples: 3,
                watcher_cpu: Some(0),
                cgroup_id: None,
            },
            culprit: crate::enrich::mechanism::culprit(functions()).map(str::to_string),
            context: crate::enrich::mechanism::interrupt_context(functions()),
            stack,
        }
    }

    /// Claim: a window still open whose latest sample is in an IPI function says so and
    /// names its task as the one interrupted, never as the doer; one of the task's own
    /// code names the task and its culprit as it always did.
    #[test]
    fn an_open_window_in_interrupt_context_names_the_task_it_interrupted() {
        let w = open(crate::enrich::mechanism::tests::ipi_stack());
        assert_eq!(
            open_window_line(&w),
            "CPU 1: hard interrupts off for 1.79 s and counting \u{2014} in an IPI function (irqctx_spin), interrupting kdamond.0 (pid 54) (3 in-window samples, watched by CPU 0)"
        );
        let w = open(crate::enrich::mechanism::tests::ipi_stack().split_off(3));
        assert_eq!(
            open_window_line(&w),
            "CPU 1: hard interrupts off for 1.79 s and counting \u{2014} kdamond.0 (pid 54) in kdamond_fn (3 in-window samples, watched by CPU 0)"
        );
    }
}
