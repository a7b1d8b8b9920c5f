// SPDX-License-Identifier: GPL-2.0
//! The one reader of tracefs text: a line of a `trace` file or of `trace_pipe` ([`Line`]:
//! task, CPU, time, event and its fields), the clock a saved trace was taken with, and
//! the events of the module's ring in it ([`parse_event`], [`parse_stall`],
//! [`Ring::parse`]). `parse::explain_delays` and `parse::wakeup_trace` read the other
//! events of a trace through it. Pure: text in, values out.

use std::collections::BTreeMap;

use crate::model::ring_event::{Event, Ring};
use crate::model::snapshot::{Cause, Kind, Stall};

/// One line of a tracefs `trace` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    pub task: &'a str,
    pub cpu: u32,
    /// The irq-info column ("d.h1."; empty where the trace has none).
    pub flags: &'a str,
    pub ts_ns: u64,
    pub event: &'a str,
    pub fields: &'a str,
    /// The timestamp had no decimal point: a count of a counter clock (`trace_clock`
    /// counter, x86-tsc), not seconds.
    pub count: bool,
}

impl Line<'_> {
    /// Whether the line's event ran in hard interrupt (or NMI) context: its flags' context
    /// character is `h`, `H`, `z` or `Z`; None where the trace has no flags column.
    pub fn in_hardirq(&self) -> Option<bool> {
        (!self.flags.is_empty()).then(|| self.flags.contains(['h', 'H', 'z', 'Z']))
    }
}

/// Reads "  comm-pid  [001] d.h1.  12.000500: event: fields"; None for headers and
/// lines of another shape (the comm may hold spaces and dashes).
pub fn parse_line(l: &str) -> Option<Line<'_>> {
    if l.trim_start().starts_with('#') {
        return None;
    }
    // The CPU is the "[NNN]" right before the flags and the timestamp: the task's name
    // before it may hold brackets of digits too ("w[3]-42").
    let mut search = 0;
    let (open, close, flags, ts, rest) = loop {
        let open = search + l[search..].find('[')?;
        search = open + 1;
        let close = open + l[open..].find(']')?;
        let inside = &l[open + 1..close];
        if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Some((head, rest)) = l[close + 1..].split_once(": ") else {
            continue;
        };
        let words: Vec<&str> = head.split_whitespace().collect();
        let (flags, ts) = match words.as_slice() {
            [ts] => ("", *ts),
            [flags, ts] => (*flags, *ts),
            _ => continue,
        };
        if parse_ts(ts).is_some() {
            break (open, close, flags, ts, rest);
        }
    };
    let (event, fields) = rest.split_once(": ").unwrap_or((rest, ""));
    Some(Line {
        task: l[..open].trim(),
        cpu: l[open + 1..close].parse().ok()?,
        flags,
        ts_ns: parse_ts(ts)?,
        event: event.trim(),
        fields,
        count: !ts.contains('.'),
    })
}

/// The clock a saved trace says it was taken with: a `# trace_clock: NAME` line, or the
/// line of an instance's `trace_clock` file put before it (`local global [mono] boot`,
/// the one in brackets), before its first event; None where it says none.
pub fn trace_clock(text: &str) -> Option<String> {
    for l in text.lines() {
        if parse_line(l).is_some() {
            return None;
        }
        if let Some(c) = l.trim().strip_prefix("# trace_clock:") {
            return Some(c.trim().to_string());
        }
        let words: Vec<&str> = l.split_whitespace().collect();
        let bracketed: Vec<&str> = words
            .iter()
            .filter_map(|w| w.strip_prefix('[').and_then(|w| w.strip_suffix(']')))
            .collect();
        let clockish = words.iter().all(|w| {
            w.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"[]-_".contains(&b))
        });
        if words.len() > 1 && clockish && bracketed.len() == 1 {
            return Some(bracketed[0].to_string());
        }
    }
    None
}

/// "12.000500" (seconds, up to 9 decimals) as ns.
fn parse_ts(s: &str) -> Option<u64> {
    let (secs, frac) = s.split_once('.').unwrap_or((s, ""));
    if frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = secs.parse().ok()?;
    let frac_ns: u64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<u64>().ok()? * 10u64.pow(9 - frac.len() as u32)
    };
    secs.checked_mul(1_000_000_000)?.checked_add(frac_ns)
}

/// The value of `key=` in `fields` (up to the next space).
pub fn field<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    fields
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
}

/// One line of `trace_pipe`, if it is one of the two events (the module's format since
/// it numbers them; older modules give `seq` 0 and no frames).
pub fn parse_event(line: &str) -> Option<Event> {
    let l = parse_line(line)?;
    let kind = match l.event {
        "hardirq_off" => Kind::Hard,
        "softirq_off" => Kind::Soft,
        _ => return None,
    };
    let rest = l.fields;
    // comm may hold spaces: it runs to " cause=", and the frames to the end.
    let (head, tail) = rest.split_once(" comm=")?;
    let (comm, tail) = tail.split_once(" cause=")?;
    let (fields, frames) = match tail.split_once(" frames=") {
        Some((f, frames)) => (f, Some(frames)),
        None => (tail, None),
    };
    let mut cause_word = "-";
    let mut kv: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, w) in fields.split(' ').enumerate() {
        match (i, w.split_once('=')) {
            (0, _) => cause_word = w,
            (_, Some((k, v))) => {
                kv.insert(k, v);
            }
            _ => {}
        }
    }
    for w in head.split(' ') {
        if let Some((k, v)) = w.split_once('=') {
            kv.insert(k, v);
        }
    }
    let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
    let cause = match cause_word {
        "bh-off" => Some(Cause::BhOff),
        "ksoftirqd-wait" => Some(Cause::KsoftirqdWait),
        _ => None,
    };
    Some(Event {
        cpu: u32::try_from(num("cpu")?).ok()?,
        kind,
        cause: if kind == Kind::Soft { cause } else { None },
        latency_ns: num("latency_ns")?,
        end_ns: num("end_ns").unwrap_or(0),
        seq: num("seq").unwrap_or(0),
        pid: kv.get("pid").and_then(|v| v.parse().ok())?,
        comm: comm.to_string(),
        cgroup_id: num("cgroup").filter(|&id| id != 0),
        end_shows_culprit: num("end_shows_culprit").is_none_or(|v| v != 0),
        together_ns: num("together_ns").unwrap_or(0),
        frames: frames
            .map(|f| {
                f.split(';')
                    .filter(|f| !f.is_empty() && *f != "0x0" && *f != "(null)")
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    })
}

/// One line of the ring's `trace` file if it is a stall (`trace_irqoff:stall`: "stall:
/// cpu=1 start_ns=... end_ns=... length_ns=..."): a stall of the whole machine, never a
/// window, so [`parse_event`] does not take it.
pub fn parse_stall(line: &str) -> Option<Stall> {
    let l = parse_line(line)?;
    if l.event != "stall" {
        return None;
    }
    let rest = l.fields;
    let kv: BTreeMap<&str, &str> = rest.split(' ').filter_map(|w| w.split_once('=')).collect();
    let num = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
    let (start, end) = (num("start_ns")?, num("end_ns")?);
    if end < start {
        return None;
    }
    Some(Stall::new(
        num("cpu").and_then(|c| u32::try_from(c).ok()),
        start,
        end,
    ))
}

impl Ring {
    /// The windows and stalls of a `trace` file's text, in its order.
    pub fn parse(text: &str) -> Self {
        let mut r = Ring::default();
        for line in text.lines() {
            if let Some(counts) = line.strip_prefix("# entries-in-buffer/entries-written: ") {
                let mut n = counts
                    .split_whitespace()
                    .next()
                    .unwrap_or("")
                    .split('/')
                    .map(|v| v.parse::<u64>().ok());
                if let (Some(Some(held)), Some(Some(written))) = (n.next(), n.next()) {
                    r.lost = held < written;
                }
            } else if let Some(e) = parse_event(line) {
                r.windows.push(e);
            } else if let Some(st) = parse_stall(line) {
                r.stalls.push(st);
            }
        }
        r
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::clock::Clock;

    pub(crate) const HARD: &str = "              sh-90      [001] d.h1.   412.503941: hardirq_off: cpu=1 latency_ns=99800123 lower_bound=0 pid=90 comm=irq test cause=- end_ns=4033412000 seq=7 end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample];_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter+0x3a0/0x409 [irqoff_sample];vfs_write+0x1d7/0x210;0x0;0x0;0x0;0x0;0x0";
    pub(crate) const SOFT: &str = "          <idle>-0       [002] ..s1.   413.000001: softirq_off: cpu=2 latency_ns=64250000 lower_bound=0 pid=24 comm=ksoftirqd/2 cause=ksoftirqd-wait cgroup=5873 end_ns=5120000000 seq=9 end_shows_culprit=0 frames=0x0;0x0;0x0;0x0;0x0;0x0;0x0;0x0";
    pub(crate) const OLD: &str = "  sh-90 [001] d.h1. 412.5: hardirq_off: cpu=1 latency_ns=5000000 lower_bound=0 pid=90 comm=sh cause=-";

    /// Claim: lines read as tracefs prints them, with a comm holding spaces and dashes
    /// and with or without the irq-info column; headers are not lines.
    #[test]
    fn lines_read_as_tracefs_prints_them() {
        let l = parse_line(
            "  kworker/u8:1 [x]-42  [001] d.h1.   12.000500: softirq_raise: vec=3 [action=NET_RX]",
        )
        .unwrap();
        assert_eq!(
            (l.task, l.cpu, l.ts_ns, l.event, l.fields),
            (
                "kworker/u8:1 [x]-42",
                1,
                12_000_500_000,
                "softirq_raise",
                "vec=3 [action=NET_RX]"
            )
        );
        let l = parse_line("dd-70 [000] 5.1: block_rq_issue: 252,0 R 4096 () 0 + 8 [dd]").unwrap();
        assert_eq!((l.cpu, l.ts_ns, l.count), (0, 5_100_000_000, false));
        let l = parse_line("dd-70 [000] 123456789: block_rq_issue: 252,0 R 4096 () 0 + 8 [dd]");
        assert!(l.unwrap().count);
        assert_eq!(parse_line("# tracer: nop"), None);
        assert_eq!(parse_line("garbage"), None);
    }

    /// Claim: the CPU is the bracket of digits right before the flags and the timestamp,
    /// not one in the task's name: "w[3]-42 [001]" is CPU 1, task "w[3]-42", as is a
    /// name of brackets only ("[7]-9") and a line without the flags column.
    #[test]
    fn a_task_name_with_a_bracketed_number_is_not_the_cpu() {
        let l = parse_line("            w[3]-42      [001] d..2.  4.000100: sched_switch: prev_comm=w[3] prev_pid=42").unwrap();
        assert_eq!(
            (l.task, l.cpu, l.flags, l.ts_ns, l.event),
            ("w[3]-42", 1, "d..2.", 4_000_100_000, "sched_switch")
        );
        let l = parse_line("  [7]-9 [002] 5.5: softirq_entry: vec=3 [action=NET_RX]").unwrap();
        assert_eq!(
            (l.task, l.cpu, l.flags, l.ts_ns),
            ("[7]-9", 2, "", 5_500_000_000)
        );
        let l = parse_line("  a [12] b-5 [003] ..s1. 6.0: x: y").unwrap();
        assert_eq!((l.task, l.cpu), ("a [12] b-5", 3));
    }

    /// Claim: a saved trace's clock is read from a `# trace_clock:` line or a trace_clock
    /// file's line before the first event; a trace that says none has none, and a line
    /// after the first event is not read as one.
    #[test]
    fn the_clock_a_trace_says() {
        let ev = "  dd-70 [000] ..... 5.000000: block_rq_issue: 252,0 R 4096 () 2048 + 8 [dd]\n";
        assert_eq!(
            trace_clock(&format!("# trace_clock: boot\n{ev}")).as_deref(),
            Some("boot")
        );
        assert_eq!(
            trace_clock(&format!(
                "local global counter uptime perf [mono] mono_raw boot\n# tracer: nop\n{ev}"
            ))
            .as_deref(),
            Some("mono")
        );
        assert_eq!(trace_clock(&format!("# tracer: nop\n{ev}")), None);
        assert_eq!(trace_clock(&format!("{ev}# trace_clock: boot\n")), None);
    }

    /// Both events parse with a comm that holds a space, the frames up to the first empty
    /// one (module frames keep their " [module]"), and the cause; older modules' lines
    /// without numbers, frames or cgroup parse too; other lines do not.
    #[test]
    fn trace_pipe_lines() {
        let h = parse_event(HARD).expect("hard");
        assert_eq!(
            (h.cpu, h.kind, h.cause, h.latency_ns, h.end_ns, h.seq, h.pid),
            (1, Kind::Hard, None, 99_800_123, 4_033_412_000, 7, 90)
        );
        assert_eq!(h.comm, "irq test");
        assert!(h.end_shows_culprit);
        assert_eq!(h.frames.len(), 3);
        assert_eq!(
            h.frames[0],
            "irqoff_sample_hardirq_window+0x3c/0x90 [irqoff_sample]"
        );
        let s = parse_event(SOFT).expect("soft");
        assert_eq!(
            (s.cpu, s.kind, s.cause, s.seq, s.end_shows_culprit),
            (2, Kind::Soft, Some(Cause::KsoftirqdWait), 9, false)
        );
        assert!(s.frames.is_empty());
        // The task's cgroup, from modules that give it.
        assert_eq!((s.cgroup_id, h.cgroup_id), (Some(5873), None));
        assert_eq!(s.record(&Clock::anchored(0)).cgroup_id, Some(5873));
        let o = parse_event(OLD).expect("old");
        assert_eq!((o.latency_ns, o.seq, o.end_ns), (5_000_000, 0, 0));
        assert!(parse_event(
            "  sh-1 [000] ..... 1.0: irqoff_ongoing: cpu=1 length_ns=5 pid=1 comm=sh stuck=0"
        )
        .is_none());
        assert!(parse_event("garbage").is_none());
    }

    pub(crate) const TRACE_STALL: &str = include_str!("../../tests/fixtures/trace-stall.txt");

    /// Claim: a ring whose header holds fewer entries than were written has lost some;
    /// one that holds them all, or has no header, has not.
    #[test]
    fn a_ring_that_overwrote_events_says_so() {
        let head = |h: u64, w: u64| {
            format!("# entries-in-buffer/entries-written: {h}/{w}   #P:4\n{HARD}\n")
        };
        assert!(Ring::parse(&head(1, 9)).lost);
        assert!(!Ring::parse(&head(1, 1)).lost);
        assert!(!Ring::parse(HARD).lost);
        assert_eq!(Ring::parse(&head(1, 9)).windows.len(), 1);
    }
}
