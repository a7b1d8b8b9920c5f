// SPDX-License-Identifier: GPL-2.0
//! The delays in a tracefs `trace` text (our instance's, `trace_clock` mono, so that its
//! times are the module's CLOCK_MONOTONIC): softirq raise to entry per CPU and vector
//! (`irq:softirq_raise`, `irq:softirq_entry`), block requests from issue to completion
//! (`block:block_rq_issue`, `block:block_rq_complete`), blk-mq tag waits from a
//! submitter's `block_rq_tag_wait` (ours or the upstream one) to its next request's
//! issue, and the CPUs a task ran on (`sched:sched_switch`). Pure: text in, delays out.

use std::collections::{BTreeMap, BTreeSet};

use super::join::{Delay, DelayKind};

/// One line of a tracefs `trace` file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line<'a> {
    pub task: &'a str,
    pub cpu: u32,
    pub ts_ns: u64,
    pub event: &'a str,
    pub fields: &'a str,
}

/// Reads "  comm-pid  [001] d.h1.  12.000500: event: fields"; None for headers and
/// lines of another shape (the comm may hold spaces and dashes).
pub fn parse_line(l: &str) -> Option<Line<'_>> {
    if l.trim_start().starts_with('#') {
        return None;
    }
    let mut search = 0;
    let (open, close) = loop {
        let open = search + l[search..].find('[')?;
        let close = open + l[open..].find(']')?;
        let inside = &l[open + 1..close];
        if !inside.is_empty() && inside.bytes().all(|b| b.is_ascii_digit()) {
            break (open, close);
        }
        search = open + 1;
    };
    let cpu = l[open + 1..close].parse().ok()?;
    let (head, rest) = l[close + 1..].split_once(": ")?;
    let ts_ns = parse_ts(head.split_whitespace().last()?)?;
    let (event, fields) = rest.split_once(": ").unwrap_or((rest, ""));
    Some(Line {
        task: l[..open].trim(),
        cpu,
        ts_ns,
        event: event.trim(),
        fields,
    })
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
fn field<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    fields
        .split_whitespace()
        .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix('=')))
}

/// The vector name in "vec=3 [action=NET_RX]".
fn action(fields: &str) -> Option<&str> {
    field(fields, "[action").map(|v| v.trim_end_matches(']'))
}

/// What a trace holds: its delays, the span it covers, and per pid the CPUs it ran on.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Traced {
    pub delays: Vec<Delay>,
    /// The first and last times of the trace (None: no line).
    pub span: Option<(u64, u64)>,
    /// The CPUs each pid was switched in on (sched_switch next_pid).
    pub ran_on: BTreeMap<i32, BTreeSet<u32>>,
    /// Lines of the trace read as events.
    pub events: usize,
}

/// The delays of at least `min_ns` in `text`; I/O only of `device` ("252:0") if given.
pub fn delays(text: &str, min_ns: u64, device: Option<&str>) -> Traced {
    let mut t = Traced::default();
    // (cpu, vec) -> when it was raised and not served since.
    let mut pending: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    // (dev, sector, sectors) -> (issued at, by whom).
    let mut issued: BTreeMap<(String, String, String), (u64, String)> = BTreeMap::new();
    // (dev, task) -> when it began to wait for a tag.
    let mut waiting: BTreeMap<(String, String), u64> = BTreeMap::new();
    // (dev, when, cpu) of every completion, for the CPUs that freed tags in a wait.
    let mut completed: Vec<(String, u64, u32)> = Vec::new();
    for l in text.lines().filter_map(parse_line) {
        t.events += 1;
        t.span = Some(match t.span {
            None => (l.ts_ns, l.ts_ns),
            Some((a, b)) => (a.min(l.ts_ns), b.max(l.ts_ns)),
        });
        match l.event {
            "softirq_raise" => {
                if let Some(vec) = field(l.fields, "vec").and_then(|v| v.parse().ok()) {
                    pending.entry((l.cpu, vec)).or_insert(l.ts_ns);
                }
            }
            "softirq_entry" => {
                let Some(vec) = field(l.fields, "vec").and_then(|v| v.parse().ok()) else {
                    continue;
                };
                if let Some(raised) = pending.remove(&(l.cpu, vec)) {
                    if l.ts_ns.saturating_sub(raised) >= min_ns {
                        t.delays.push(Delay {
                            kind: DelayKind::Softirq,
                            start_ns: raised,
                            end_ns: l.ts_ns,
                            cpus: vec![l.cpu],
                            end_cpu: Some(l.cpu),
                            evidence: vec![format!("raised and run on CPU {}", l.cpu)],
                            device: None,
                            vector: Some(action(l.fields).unwrap_or("?").to_string()),
                            task: None,
                        });
                    }
                }
            }
            "block_rq_tag_wait" => {
                let Some(dev) = l.fields.split_whitespace().next() else {
                    continue;
                };
                let dev = dev.replace(',', ":");
                if device.is_none_or(|d| d == dev) {
                    waiting.entry((dev, l.task.to_string())).or_insert(l.ts_ns);
                }
            }
            "block_rq_issue" | "block_rq_complete" => {
                let Some((dev, key)) = request(l.fields) else {
                    continue;
                };
                if device.is_some_and(|d| d != dev) {
                    continue;
                }
                if l.event == "block_rq_complete" {
                    completed.push((dev.clone(), l.ts_ns, l.cpu));
                }
                if l.event == "block_rq_issue" {
                    if let Some(at) = waiting.remove(&(dev.clone(), l.task.to_string())) {
                        if l.ts_ns.saturating_sub(at) >= min_ns {
                            t.delays
                                .push(tag_wait(&dev, l.task, at, l.ts_ns, &completed));
                        }
                    }
                    issued.insert(key, (l.ts_ns, l.task.to_string()));
                } else if let Some((at, task)) = issued.remove(&key) {
                    if l.ts_ns.saturating_sub(at) >= min_ns {
                        t.delays.push(Delay {
                            kind: DelayKind::Io,
                            start_ns: at,
                            end_ns: l.ts_ns,
                            cpus: vec![l.cpu],
                            end_cpu: Some(l.cpu),
                            evidence: vec![format!("completed on CPU {}", l.cpu)],
                            device: Some(dev),
                            vector: None,
                            task: Some(task),
                        });
                    }
                }
            }
            "sched_switch" => {
                if let Some(pid) = field(l.fields, "next_pid").and_then(|v| v.parse().ok()) {
                    t.ran_on.entry(pid).or_default().insert(l.cpu);
                }
            }
            _ => {}
        }
    }
    t.delays.sort_by_key(|d| d.start_ns);
    t
}

/// The tag wait of `task` on `dev` from `at` to `end`: served by the CPUs the device's
/// requests completed on meanwhile (each completion frees a tag).
fn tag_wait(dev: &str, task: &str, at: u64, end: u64, completed: &[(String, u64, u32)]) -> Delay {
    let cpus: BTreeSet<u32> = completed
        .iter()
        .filter(|(d, ts, _)| d == dev && (at..=end).contains(ts))
        .map(|(_, _, cpu)| *cpu)
        .collect();
    let cpus: Vec<u32> = cpus.into_iter().collect();
    let evidence = if cpus.is_empty() {
        "no request of the device completed while it waited".to_string()
    } else {
        let on = if cpus.len() == 1 { "CPU" } else { "CPUs" };
        format!(
            "tags were freed by completions on {on} {}",
            super::join::cpu_list(&cpus)
        )
    };
    Delay {
        kind: DelayKind::TagWait,
        start_ns: at,
        end_ns: end,
        cpus,
        end_cpu: None,
        evidence: vec![evidence],
        device: Some(dev.to_string()),
        vector: None,
        task: Some(task.to_string()),
    }
}

/// The device ("252:0") and the key (device, sector, sectors) of a block_rq_* line:
/// "252,0 R 4096 () 2048 + 8 [dd]" (issue), "252,0 R () 2048 + 8 [0]" (complete).
fn request(fields: &str) -> Option<(String, (String, String, String))> {
    let words: Vec<&str> = fields.split_whitespace().collect();
    let dev = words.first()?.replace(',', ":");
    let plus = words.iter().position(|w| *w == "+")?;
    let sector = words.get(plus.checked_sub(1)?)?.to_string();
    let sectors = words.get(plus + 1)?.to_string();
    Some((dev.clone(), (dev, sector, sectors)))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!((l.cpu, l.ts_ns), (0, 5_100_000_000));
        assert_eq!(parse_line("# tracer: nop"), None);
        assert_eq!(parse_line("garbage"), None);
    }

    /// Claim: a softirq raised and run later on the same CPU is a delay from the first
    /// raise to the entry (raises while pending do not restart it), named by its
    /// vector; one shorter than the minimum is not kept; another CPU's entry does not
    /// end it.
    #[test]
    fn softirq_raise_to_entry_per_cpu_and_vector() {
        let text = "\
  a-1 [001] d.h1.  2.000000: softirq_raise: vec=3 [action=NET_RX]
  a-1 [001] d.h1.  2.010000: softirq_raise: vec=3 [action=NET_RX]
  b-2 [000] ..s1.  2.020000: softirq_entry: vec=3 [action=NET_RX]
  a-1 [001] ..s1.  2.050000: softirq_entry: vec=3 [action=NET_RX]
  a-1 [001] d.h1.  2.060000: softirq_raise: vec=1 [action=TIMER]
  a-1 [001] ..s1.  2.060100: softirq_entry: vec=1 [action=TIMER]
";
        let t = delays(text, 1_000_000, None);
        assert_eq!(t.delays.len(), 1);
        let d = &t.delays[0];
        assert_eq!((d.start_ns, d.end_ns), (2_000_000_000, 2_050_000_000));
        assert_eq!(
            (d.cpus.as_slice(), d.vector.as_deref()),
            (&[1][..], Some("NET_RX"))
        );
        assert_eq!(t.span, Some((2_000_000_000, 2_060_100_000)));
    }

    /// Claim: a block request is a delay from its issue to its completion, matched by
    /// device, sector and length, served by the CPU it completed on; `device` keeps
    /// only that device's.
    #[test]
    fn block_requests_issue_to_complete() {
        let text = "\
  dd-70 [000] ..... 5.000000: block_rq_issue: 252,0 R 4096 () 2048 + 8 [dd]
  dd-70 [000] ..... 5.000100: block_rq_issue: 8,0 R 4096 () 2048 + 8 none,0,0 [dd]
  <idle>-0 [001] ..s1. 5.100000: block_rq_complete: 252,0 R () 2048 + 8 [0]
  <idle>-0 [001] ..s1. 5.100000: block_rq_complete: 8,0 R () 2048 + 8 none,0,0 [0]
";
        let all = delays(text, 0, None);
        assert_eq!(all.delays.len(), 2);
        let t = delays(text, 0, Some("252:0"));
        assert_eq!(t.delays.len(), 1);
        let d = &t.delays[0];
        assert_eq!(d.kind, DelayKind::Io);
        assert_eq!((d.start_ns, d.end_ns), (5_000_000_000, 5_100_000_000));
        assert_eq!(d.cpus, [1]);
        assert_eq!(d.device.as_deref(), Some("252:0"));
        assert_eq!(d.task.as_deref(), Some("dd-70"));
    }

    /// Claim: a submitter's tag wait lasts from its block_rq_tag_wait to its next issue
    /// on that device, served by the CPUs the device's requests completed on meanwhile
    /// (not those before it began); another task's issue does not end it.
    #[test]
    fn a_tag_wait_lasts_until_the_waiter_issues() {
        let text = "\
  x-1 [000] ..s1. 0.990000: block_rq_complete: 252,0 R () 1 + 8 [0]
  dd-70 [001] ..... 1.000000: block_rq_tag_wait: 252,0 hctx=0 starved on hardware tags (depth=2)
  dd-71 [000] ..... 1.010000: block_rq_issue: 252,0 R 4096 () 16 + 8 [dd]
  x-1 [001] ..s1. 1.050000: block_rq_complete: 252,0 R () 8 + 8 [0]
  dd-70 [001] ..... 1.060000: block_rq_issue: 252,0 R 4096 () 24 + 8 [dd]
";
        let t = delays(text, 1_000_000, None);
        let w: Vec<&Delay> = t
            .delays
            .iter()
            .filter(|d| d.kind == DelayKind::TagWait)
            .collect();
        assert_eq!(w.len(), 1);
        assert_eq!((w[0].start_ns, w[0].end_ns), (1_000_000_000, 1_060_000_000));
        assert_eq!(w[0].cpus, [1]);
        assert_eq!(w[0].task.as_deref(), Some("dd-70"));
        assert!(delays(text, 1_000_000, Some("8:0")).delays.is_empty());
    }

    /// Claim: sched_switch tells the CPUs each pid was switched in on.
    #[test]
    fn the_cpus_a_task_ran_on() {
        let text = "\
  sh-1 [000] d..2. 1.0: sched_switch: prev_comm=sh prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=dd next_pid=70 next_prio=120
  sh-1 [002] d..2. 1.1: sched_switch: prev_comm=sh prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=dd next_pid=70 next_prio=120
";
        let t = delays(text, 0, None);
        assert_eq!(t.ran_on[&70].iter().copied().collect::<Vec<_>>(), [0, 2]);
    }
}
