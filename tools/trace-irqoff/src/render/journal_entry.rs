// SPDX-License-Identifier: GPL-2.0
//! What `trace-irqoff journal` writes: one structured journal entry per window of the
//! module's event ring, and one per interval for the windows the rate limit dropped. The
//! decisions are here, pure: an entry's fields ([`window`], [`dropped`]), its priority
//! ([`priority`]), the rate limit (`limit`); where entries go is `sink` (the journal's
//! native protocol, stdout, or a test's recording).

pub mod journal_sink;
pub mod rate_limit;

use crate::enrich::culprit::UNSEEN;
use crate::enrich::Window;
use crate::model::snapshot::{Kind, Record};
use crate::symbols;

/// `SYSLOG_IDENTIFIER` of every entry: `journalctl -t trace-irqoff`.
pub const IDENTIFIER: &str = "trace-irqoff";

/// `MESSAGE_ID` of a window's entry: `journalctl MESSAGE_ID=...` finds every window.
pub const WINDOW_ID: &str = "7d28f52686e843388e7ee73c6f19a1b1";

/// `MESSAGE_ID` of the entry that counts the windows dropped in an interval.
pub const DROPPED_ID: &str = "268e642560dd4c5a8b45406bd0c3c0fa";

/// The syslog priorities an entry has (`man 3 syslog`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Priority {
    Warning,
    Notice,
    Info,
}

impl Priority {
    /// The number journald stores (`PRIORITY=`).
    pub fn level(self) -> u8 {
        match self {
            Priority::Warning => 4,
            Priority::Notice => 5,
            Priority::Info => 6,
        }
    }

    /// The name `journalctl -p` takes.
    pub fn name(self) -> &'static str {
        match self {
            Priority::Warning => "warning",
            Priority::Notice => "notice",
            Priority::Info => "info",
        }
    }
}

/// The priority of a window of `latency_ns`: warning from `warning_ns` on (`--warning`,
/// 100 ms by default), notice from the module's threshold on (the windows it records with
/// their stacks), info below.
pub fn priority(latency_ns: u64, warning_ns: u64, threshold_ns: u64) -> Priority {
    if latency_ns >= warning_ns {
        Priority::Warning
    } else if latency_ns >= threshold_ns {
        Priority::Notice
    } else {
        Priority::Info
    }
}

/// One journal entry: its priority, its message and the fields after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub priority: Priority,
    /// `MESSAGE`: one line a person reads.
    pub message: String,
    /// Every other field, in the order written (`SYSLOG_IDENTIFIER` and `MESSAGE_ID`
    /// first); a field whose value is unknown is left out.
    pub fields: Vec<(&'static str, String)>,
}

impl Entry {
    /// The value of field `name`, `PRIORITY` and `MESSAGE` included.
    #[cfg(test)]
    pub fn get(&self, name: &str) -> Option<String> {
        match name {
            "PRIORITY" => Some(self.priority.level().to_string()),
            "MESSAGE" => Some(self.message.clone()),
            _ => self
                .fields
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.clone()),
        }
    }

    /// Every field as journald stores it: `PRIORITY`, `MESSAGE`, then the others.
    pub fn all(&self) -> Vec<(&'static str, String)> {
        let mut v = vec![
            ("PRIORITY", self.priority.level().to_string()),
            ("MESSAGE", self.message.clone()),
        ];
        v.extend(self.fields.iter().cloned());
        v
    }
}

/// A length as the messages give it: ms to a tenth ("101.2 ms").
pub fn ms(ns: u64) -> String {
    format!("{}.{} ms", ns / 1_000_000, ns % 1_000_000 / 100_000)
}

/// What kind of window it was, in words: "hardirq off", "softirq off (bh-off)".
fn kind_words(r: &Record) -> String {
    match (r.kind, r.cause) {
        (Kind::Hard, _) => "hardirq off".to_string(),
        (Kind::Soft, Some(c)) => format!("softirq off ({})", c.name()),
        (Kind::Soft, None) => "softirq off".to_string(),
    }
}

/// The culprit's function with its module where it is in one
/// ("irqoff_sample_hardirq_window [irqoff_sample]"): the frame of the culprit's stack
/// that `culprit::name` named.
fn culprit(w: &Window) -> Option<String> {
    let name = w.culprit?;
    if name == UNSEEN {
        return Some(name.to_string());
    }
    let module = w
        .culprit_stack
        .iter()
        .find(|f| symbols::function(f) == name)
        .and_then(|f| symbols::module(f));
    Some(match module {
        Some(m) => format!("{name} [{m}]"),
        None => name.to_string(),
    })
}

/// The entry of one window (a record of the event ring, its frames named and its cgroup
/// looked up as every view's are): "cpu 1: hardirq off 101.2 ms by sh[2168] in
/// irqoff_sample_hardirq_window [irqoff_sample]", or for a culprit in interrupt context
/// "cpu 1: hardirq off 120.0 ms in an IPI function (irqctx_spin [m]), interrupting
/// kdamond.0[54]" (the task did not do it), with the fields a machine reads. The
/// task is the culprit's, as in `watch` (for ksoftirqd-wait what ran instead of the
/// softirq thread); the cgroup is that of the window's task, as the views give it.
pub fn window(r: &Record, priority: Priority) -> Entry {
    let w = Window::of(r);
    // No stack names the culprit's task (a window without frames): the window's task.
    let (comm, pid) = if !w.culprit_comm.is_empty() {
        (w.culprit_comm, w.culprit_pid)
    } else if !r.comm.is_empty() {
        (r.comm.as_str(), r.pid)
    } else {
        ("?", r.pid)
    };
    let culprit = culprit(&w);
    let lock = if w.lock_wait { " (lock wait)" } else { "" };
    let head = format!("cpu {}: {} {}", r.cpu, kind_words(r), ms(r.latency_ns));
    // In interrupt context the task was interrupted: it did not do it.
    // A returned handler nothing sampled: the context says all that is known.
    let named = culprit
        .as_deref()
        .filter(|f| *f != UNSEEN || w.context.is_none());
    let message = match (w.context, named) {
        (Some(c), Some(f)) => format!("{head} in {c} ({f}{lock}), interrupting {comm}[{pid}]"),
        (Some(c), None) => format!("{head} in {c}{lock}, interrupting {comm}[{pid}]"),
        (None, Some(f)) => format!("{head} by {comm}[{pid}] in {f}{lock}"),
        (None, None) => format!("{head} by {comm}[{pid}]{lock}"),
    };
    let mut fields = vec![
        ("SYSLOG_IDENTIFIER", IDENTIFIER.to_string()),
        ("MESSAGE_ID", WINDOW_ID.to_string()),
        ("TRACE_IRQOFF_CPU", r.cpu.to_string()),
        (
            "TRACE_IRQOFF_KIND",
            match r.kind {
                Kind::Hard => "hard",
                Kind::Soft => "soft",
            }
            .to_string(),
        ),
    ];
    let mut put = |k: &'static str, v: Option<String>| {
        if let Some(v) = v {
            fields.push((k, v));
        }
    };
    put("TRACE_IRQOFF_CAUSE", r.cause.map(|c| c.name().to_string()));
    put("TRACE_IRQOFF_LATENCY_NS", Some(r.latency_ns.to_string()));
    put("TRACE_IRQOFF_END", r.wall_time.clone());
    put("TRACE_IRQOFF_CULPRIT", culprit);
    put(
        "TRACE_IRQOFF_LOCK_WAIT",
        w.lock_wait.then(|| "1".to_string()),
    );
    put("TRACE_IRQOFF_CONTEXT", w.context.map(str::to_string));
    put("TRACE_IRQOFF_TASK", Some(comm.to_string()));
    put("TRACE_IRQOFF_PID", Some(pid.to_string()));
    put("TRACE_IRQOFF_CGROUP", crate::enrich::cgroup::shown(r));
    put(
        "TRACE_IRQOFF_STACK",
        (!r.stack.is_empty()).then(|| r.stack.join("\n")),
    );
    Entry {
        priority,
        message,
        fields,
    }
}

/// The entry that stands for the windows of an interval that were not written: those
/// the rate limit dropped (`burst`, `rate` a second) and those the ring overwrote before
/// they were read. Its priority is the one the longest dropped window would have had,
/// notice at least: windows are missing from the journal.
pub fn dropped(d: &rate_limit::Dropped, burst: u32, rate: u32, priority: Priority) -> Entry {
    let span = std::time::Duration::from_secs(d.span_ns.div_ceil(1_000_000_000));
    let span = humantime::format_duration(span);
    let mut parts = Vec::new();
    if d.dropped > 0 {
        let longest = d
            .longest
            .as_ref()
            .map(|(cpu, kind, ns)| format!("; the longest was {} on cpu {cpu} ({kind})", ms(*ns)))
            .unwrap_or_default();
        parts.push(format!(
            "dropped {} window{} in {span} by the rate limit (burst {burst}, {rate}/s){longest}",
            d.dropped,
            plural(d.dropped)
        ));
    }
    if d.lost > 0 {
        parts.push(format!(
            "{} window{} lost, overwritten in the event ring before being read",
            d.lost,
            plural(d.lost)
        ));
    }
    let mut fields = vec![
        ("SYSLOG_IDENTIFIER", IDENTIFIER.to_string()),
        ("MESSAGE_ID", DROPPED_ID.to_string()),
        ("TRACE_IRQOFF_DROPPED", d.dropped.to_string()),
        ("TRACE_IRQOFF_LOST", d.lost.to_string()),
    ];
    if let Some((_, _, ns)) = d.longest {
        fields.push(("TRACE_IRQOFF_DROPPED_MAX_NS", ns.to_string()));
    }
    Entry {
        priority: priority.min(Priority::Notice),
        message: parts.join("; "),
        fields,
    }
}

/// What `journal` does with each read of the ring: every new window at `--min` or more
/// is written to `sink` as its entry, unless the rate limit drops it; the summary of
/// what was dropped comes once an interval has passed since the first of it.
pub struct Writer<S: journal_sink::Sink> {
    pub sink: S,
    limiter: rate_limit::Limiter,
    burst: u32,
    rate: u32,
    warning_ns: u64,
    /// The module's threshold, as last read.
    threshold_ns: u64,
    /// Entries the sink refused (journald away), and the first sentence why.
    pub unsent: u64,
    pub unsent_why: Option<String>,
}

/// How [`Writer`] writes: the rate limit, the summary interval and `--warning`.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub burst: u32,
    pub rate: u32,
    pub summary_interval_ns: u64,
    pub warning_ns: u64,
}

impl<S: journal_sink::Sink> Writer<S> {
    pub fn new(sink: S, l: Limits) -> Self {
        Writer {
            sink,
            limiter: rate_limit::Limiter::new(l.burst, l.rate, l.summary_interval_ns),
            burst: l.burst,
            rate: l.rate,
            warning_ns: l.warning_ns,
            threshold_ns: u64::MAX,
            unsent: 0,
            unsent_why: None,
        }
    }

    /// Writes the entries of one read at `now_ns` (CLOCK_MONOTONIC): `windows`, the new
    /// ones (records, their frames named), in the order they ended; `lost`, the windows
    /// the ring overwrote before this read; `threshold_ns`, the module's threshold now.
    /// Fails only where stdout was closed (`--print`).
    pub fn read(
        &mut self,
        windows: &[Record],
        lost: u64,
        threshold_ns: u64,
        now_ns: u64,
    ) -> anyhow::Result<()> {
        self.threshold_ns = threshold_ns;
        for r in windows {
            // A module that gives no end: the time of the read.
            let at = if r.timestamp_ns > 0 {
                r.timestamp_ns
            } else {
                now_ns
            };
            if self.limiter.admit(at, r.cpu, &kind_words(r), r.latency_ns) {
                let p = priority(r.latency_ns, self.warning_ns, threshold_ns);
                self.send(&window(r, p))?;
            }
        }
        self.limiter.lost(lost, now_ns);
        match self.limiter.due(now_ns) {
            Some(d) => self.summary(&d),
            None => Ok(()),
        }
    }

    /// Writes the summary of what was dropped and not told yet (at the end).
    pub fn finish(&mut self) -> anyhow::Result<()> {
        match self.limiter.flush() {
            Some(d) => self.summary(&d),
            None => Ok(()),
        }
    }

    fn summary(&mut self, d: &rate_limit::Dropped) -> anyhow::Result<()> {
        let longest = d.longest.as_ref().map_or(0, |l| l.2);
        let p = priority(longest, self.warning_ns, self.threshold_ns);
        let e = dropped(d, self.burst, self.rate, p);
        self.send(&e)
    }

    fn send(&mut self, e: &Entry) -> anyhow::Result<()> {
        match self.sink.send(e) {
            Ok(()) => Ok(()),
            Err(err) if err.is::<crate::output::ClosedPipe>() => Err(err),
            Err(err) => {
                self.unsent += 1;
                self.unsent_why.get_or_insert_with(|| err.to_string());
                Ok(())
            }
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::clock::Clock;
    use crate::parse::tracefs::parse_event;

    /// The injected window of the boot test, as the ring carries it.
    const HARD: &str = "              sh-2168    [001] d.h1.   412.503941: hardirq_off: cpu=1 latency_ns=101234567 lower_bound=0 pid=2168 comm=sh cause=- cgroup=5873 end_ns=4033412000 seq=7 end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample];vfs_write+0x1d7/0x210;ksys_write+0x75/0xc0;0x0";
    /// A softirq window the softirq thread waited for, and what ran instead.
    const SOFT: &str = "          <idle>-0       [002] ..s1.   413.000001: softirq_off: cpu=2 latency_ns=64250000 lower_bound=0 pid=24 comm=ksoftirqd/2 cause=ksoftirqd-wait end_ns=5120000000 seq=9 end_shows_culprit=1 frames=0x0";
    /// A window under the threshold: no frames.
    const SHORT: &str = "              sh-90      [001] d.h1.   412.5: hardirq_off: cpu=1 latency_ns=22000000 lower_bound=0 pid=90 comm=irq test cause=- end_ns=4000000000 seq=6 end_shows_culprit=1 frames=0x0";

    fn record(line: &str) -> Record {
        parse_event(line)
            .unwrap()
            .record(&Clock::anchored(1_778_148_000_000_000_000))
    }

    /// Claim: a window's entry has the message a person reads (CPU, kind, length to a
    /// tenth of a ms, culprit task and function with its module) and every field a
    /// machine reads, the stack one frame a line.
    #[test]
    fn a_hardirq_window_becomes_one_entry_with_every_field() {
        let mut r = record(HARD);
        r.cgroup = Some("/system.slice/ssh.service".into());
        let e = window(&r, Priority::Warning);
        assert_eq!(
            e.message,
            "cpu 1: hardirq off 101.2 ms by sh[2168] in irqoff_sample_hardirq_window [irqoff_sample]"
        );
        assert_eq!(
            e.all(),
            [
                ("PRIORITY", "4"),
                ("MESSAGE", e.message.as_str()),
                ("SYSLOG_IDENTIFIER", "trace-irqoff"),
                ("MESSAGE_ID", WINDOW_ID),
                ("TRACE_IRQOFF_CPU", "1"),
                ("TRACE_IRQOFF_KIND", "hard"),
                ("TRACE_IRQOFF_LATENCY_NS", "101234567"),
                ("TRACE_IRQOFF_END", "2026-05-07T10:00:04.033412Z"),
                (
                    "TRACE_IRQOFF_CULPRIT",
                    "irqoff_sample_hardirq_window [irqoff_sample]"
                ),
                ("TRACE_IRQOFF_TASK", "sh"),
                ("TRACE_IRQOFF_PID", "2168"),
                ("TRACE_IRQOFF_CGROUP", "/system.slice/ssh.service"),
                (
                    "TRACE_IRQOFF_STACK",
                    "irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample]\nvfs_write+0x1d7/0x210\nksys_write+0x75/0xc0"
                ),
            ]
            .map(|(k, v)| (k, v.to_string()))
        );
        // No cause for a hardirq window; a cgroup not looked up is named by its id.
        assert_eq!(e.get("TRACE_IRQOFF_CAUSE"), None);
        let e = window(&record(HARD), Priority::Warning);
        assert_eq!(e.get("TRACE_IRQOFF_CGROUP").as_deref(), Some("cgroup 5873"));
    }

    /// Claim: a window whose culprit ran in an IPI function (the frames below it) says so
    /// and names the task it interrupted, never "by" it, with the context in its field;
    /// one whose end did not show its culprit and that no frame names says interrupt
    /// context, as much as the module tells.
    #[test]
    fn a_window_in_interrupt_context_names_the_interrupted_task() {
        let ipi = "   kdamond.0-54 [001] d.h1. 412.5: hardirq_off: cpu=1 latency_ns=120000000 lower_bound=0 pid=54 comm=kdamond.0 cause=- end_ns=4000000000 seq=6 end_shows_culprit=1 frames=irqctx_spin+0x10/0x40 [irqctx];__flush_smp_call_function_queue+0x9a/0x1f0;__sysvec_call_function_single+0x1c/0xb0;kdamond_fn+0x2a/0x300;0x0";
        let e = window(&record(ipi), Priority::Warning);
        assert_eq!(
            e.message,
            "cpu 1: hardirq off 120.0 ms in an IPI function (irqctx_spin [irqctx]), interrupting kdamond.0[54]"
        );
        assert_eq!(
            e.get("TRACE_IRQOFF_CONTEXT").as_deref(),
            Some("an IPI function")
        );
        let returned = "   swapper/1-0 [001] d.h1. 412.5: hardirq_off: cpu=1 latency_ns=120000000 lower_bound=0 pid=0 comm=swapper/1 cause=- end_ns=4000000000 seq=6 end_shows_culprit=0 frames=0x0";
        let e = window(&record(returned), Priority::Warning);
        assert_eq!(
            e.message,
            "cpu 1: hardirq off 120.0 ms in an interrupt handler, timer or softirq callback, or IPI function, interrupting swapper/1[0]"
        );
        assert_eq!(
            e.get("TRACE_IRQOFF_CONTEXT").as_deref(),
            Some(crate::enrich::culprit::SOME_INTERRUPT)
        );
    }

    /// Claim: a softirq window's entry says its cause, in the message and in its field;
    /// a window without frames (under the threshold) has no culprit and no stack, and its
    /// message ends with the task.
    #[test]
    fn softirq_causes_and_windows_without_frames() {
        let e = window(&record(SOFT), Priority::Notice);
        assert_eq!(
            e.message,
            "cpu 2: softirq off (ksoftirqd-wait) 64.2 ms by ksoftirqd/2[24]"
        );
        assert_eq!(e.get("TRACE_IRQOFF_KIND").as_deref(), Some("soft"));
        assert_eq!(
            e.get("TRACE_IRQOFF_CAUSE").as_deref(),
            Some("ksoftirqd-wait")
        );
        assert_eq!(e.get("PRIORITY").as_deref(), Some("5"));
        let e = window(&record(SHORT), Priority::Info);
        assert_eq!(e.message, "cpu 1: hardirq off 22.0 ms by irq test[90]");
        for absent in [
            "TRACE_IRQOFF_CULPRIT",
            "TRACE_IRQOFF_STACK",
            "TRACE_IRQOFF_CGROUP",
        ] {
            assert_eq!(e.get(absent), None, "{absent}");
        }
        assert_eq!(e.get("TRACE_IRQOFF_TASK").as_deref(), Some("irq test"));
    }

    /// Claim: every field name is one journald accepts (upper case, digits and
    /// underscores, not first a digit or an underscore, at most 64 bytes): journald would
    /// drop any other, and the crate skips them without a word.
    #[test]
    fn every_field_name_is_valid_for_journald() {
        let d = rate_limit::Dropped {
            dropped: 3,
            lost: 1,
            span_ns: 1,
            longest: Some((1, "hardirq off".to_string(), 5)),
        };
        let mut r = record(SOFT);
        r.cgroup_id = Some(1);
        for e in [
            window(&record(HARD), Priority::Info),
            window(&r, Priority::Info),
            dropped(&d, 1, 1, Priority::Info),
        ] {
            for (k, _) in e.all() {
                let ok = !k.is_empty()
                    && k.len() <= 64
                    && k.bytes()
                        .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                    && !k.starts_with(|c: char| c == '_' || c.is_ascii_digit());
                assert!(ok, "{k}");
            }
        }
    }

    /// Claim: the priority follows the length: warning from `--warning` on, notice from
    /// the module's threshold on, info below; each bound is inclusive.
    #[test]
    fn priority_follows_the_length() {
        let ms = 1_000_000;
        let p = |l| priority(l, 100 * ms, 50 * ms);
        assert_eq!(p(150 * ms), Priority::Warning);
        assert_eq!(p(100 * ms), Priority::Warning);
        assert_eq!(p(100 * ms - 1), Priority::Notice);
        assert_eq!(p(50 * ms), Priority::Notice);
        assert_eq!(p(50 * ms - 1), Priority::Info);
        assert_eq!(p(0), Priority::Info);
        // A --warning under the threshold: warning wins.
        assert_eq!(priority(30 * ms, 20 * ms, 50 * ms), Priority::Warning);
        assert_eq!(
            [Priority::Warning, Priority::Notice, Priority::Info].map(Priority::level),
            [4, 5, 6]
        );
    }

    /// Claim: the entry for the dropped windows says how many, over what span, the limit
    /// and the longest dropped, and how many the ring lost; it is a notice at least, a
    /// warning where a dropped window was one.
    #[test]
    fn the_dropped_entry_counts_what_is_missing() {
        let d = rate_limit::Dropped {
            dropped: 9_890,
            lost: 0,
            span_ns: 999_900_000,
            longest: Some((1, "hardirq off".to_string(), 3_200_000)),
        };
        let e = dropped(&d, 100, 10, Priority::Info);
        assert_eq!(
            e.message,
            "dropped 9890 windows in 1s by the rate limit (burst 100, 10/s); the longest was 3.2 ms on cpu 1 (hardirq off)"
        );
        assert_eq!(e.priority, Priority::Notice);
        assert_eq!(e.get("TRACE_IRQOFF_DROPPED").as_deref(), Some("9890"));
        assert_eq!(e.get("TRACE_IRQOFF_LOST").as_deref(), Some("0"));
        assert_eq!(e.get("MESSAGE_ID").as_deref(), Some(DROPPED_ID));
        assert_eq!(
            dropped(&d, 100, 10, Priority::Warning).priority,
            Priority::Warning
        );
        let lost = rate_limit::Dropped {
            dropped: 0,
            lost: 1,
            span_ns: 0,
            longest: None,
        };
        assert_eq!(
            dropped(&lost, 100, 10, Priority::Info).message,
            "1 window lost, overwritten in the event ring before being read"
        );
    }

    fn limits() -> Limits {
        Limits {
            burst: 100,
            rate: 10,
            summary_interval_ns: 30_000_000_000,
            warning_ns: 100_000_000,
        }
    }

    /// Claim: through the writer, a storm of 10 000 windows of 20 ms in one second puts
    /// 109 window entries (at most burst 100 + rate 10) in the sink, each a notice (at the
    /// threshold of 20 ms), and one summary that counts the 9 891 others; nothing is
    /// refused or left untold.
    #[test]
    fn a_storm_through_the_writer_gives_burst_plus_rate_entries_and_one_summary() {
        let base = record(SHORT);
        let mut w = Writer::new(journal_sink::Recording::default(), limits());
        let s = 1_000_000_000u64;
        // Read every 100 ms, as the command does with --interval 100ms.
        for read in 0..10u64 {
            let windows: Vec<Record> = (0..1_000u64)
                .map(|i| Record {
                    latency_ns: 20_000_000,
                    timestamp_ns: 5 * s + read * s / 10 + i * s / 10_000,
                    ..base.clone()
                })
                .collect();
            w.read(&windows, 0, 20_000_000, 5 * s + (read + 1) * s / 10)
                .unwrap();
        }
        w.read(&[], 0, 20_000_000, 40 * s).unwrap();
        w.finish().unwrap();
        let e = &w.sink.entries;
        let windows = e
            .iter()
            .filter(|e| e.get("MESSAGE_ID").as_deref() == Some(WINDOW_ID));
        assert_eq!(windows.clone().count(), 109);
        assert!(windows.clone().all(|e| e.priority == Priority::Notice));
        let summaries: Vec<&Entry> = e
            .iter()
            .filter(|e| e.get("MESSAGE_ID").as_deref() == Some(DROPPED_ID))
            .collect();
        assert_eq!(summaries.len(), 1);
        assert_eq!(
            summaries[0].get("TRACE_IRQOFF_DROPPED").as_deref(),
            Some("9891")
        );
        assert_eq!(e.len(), 110);
        assert_eq!(w.unsent, 0);
    }

    /// Claim: each window gets the priority of its length against the module's threshold
    /// of that read; an entry the journal refuses is counted with its reason, and the
    /// others are written all the same; the summary at the end tells what was still
    /// pending.
    #[test]
    fn the_writer_sets_priorities_counts_refusals_and_flushes() {
        let mut w = Writer::new(
            journal_sink::Recording {
                refuse: Some("cpu 1: hardirq off 22.0 ms by irq test[90]".into()),
                ..Default::default()
            },
            Limits {
                burst: 2,
                ..limits()
            },
        );
        // Ended together: the bucket gains nothing between them.
        let at = |line| Record {
            timestamp_ns: 4_000_000_000,
            ..record(line)
        };
        w.read(
            &[at(HARD), at(SOFT), at(SHORT)],
            3,
            50_000_000,
            6_000_000_000,
        )
        .unwrap();
        let p: Vec<Priority> = w.sink.entries.iter().map(|e| e.priority).collect();
        assert_eq!(p, [Priority::Warning, Priority::Notice]);
        // The short window was the third: dropped by the burst of 2, not refused.
        assert_eq!(w.unsent, 0);
        w.finish().unwrap();
        let last = w.sink.entries.last().unwrap();
        assert_eq!(last.get("TRACE_IRQOFF_DROPPED").as_deref(), Some("1"));
        assert_eq!(last.get("TRACE_IRQOFF_LOST").as_deref(), Some("3"));
        assert_eq!(last.priority, Priority::Notice);
        // Refused by the sink: counted, with the reason.
        let mut w = Writer::new(
            journal_sink::Recording {
                refuse: Some("cpu 1: hardirq off 22.0 ms by irq test[90]".into()),
                ..Default::default()
            },
            limits(),
        );
        w.read(&[record(SHORT), record(HARD)], 0, 50_000_000, 1)
            .unwrap();
        assert_eq!(w.unsent, 1);
        assert_eq!(
            w.unsent_why.as_deref(),
            Some("cannot write to the journal: refused")
        );
        assert_eq!(w.sink.entries.len(), 1);
        assert_eq!(w.sink.entries[0].priority, Priority::Warning);
    }
}
