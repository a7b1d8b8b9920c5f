// SPDX-License-Identifier: GPL-2.0
//! The delays in a tracefs `trace` text (our instance's, `trace_clock` mono, so that its
//! times are the module's CLOCK_MONOTONIC), its lines read by `parse::tracefs`: softirq
//! raise to entry per CPU and vector (`irq:softirq_raise`, `irq:softirq_entry`), block
//! requests from issue to completion (`block:block_rq_issue`, `block:block_rq_complete`;
//! a requeued one from its first issue, `block:block_rq_requeue`; a requeued one merged
//! away, `block:block_rq_merge`, not left waiting; requests of one sector told apart by
//! CPU, see `InFlight`), blk-mq tag waits from a submitter's `block_rq_tag_wait` (ours
//! or the upstream one) to its next request's issue, and the CPUs a task ran on
//! (`sched:sched_switch`). Pure: text in, delays out.

use std::collections::{BTreeMap, BTreeSet};

use crate::model::delay::{Delay, DelayKind};
use crate::parse::tracefs::{field, parse_line, Line};

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
    /// Block requests issued in the trace and not completed in it.
    pub unfinished: usize,
}

/// The delays of at least `min_ns` in `text`; I/O only of `device` ("252:0") if given.
pub fn delays(text: &str, min_ns: u64, device: Option<&str>) -> Traced {
    let mut t = Traced::default();
    // (cpu, vec) -> when it was raised and not served since.
    let mut pending: BTreeMap<(u32, u32), u64> = BTreeMap::new();
    // The block requests issued and not completed yet.
    let mut flight = InFlight::default();
    // (dev, task) -> when it began to wait for a tag.
    let mut waiting: BTreeMap<(String, String), u64> = BTreeMap::new();
    // (dev, when, cpu) of every completion, for the CPUs that freed tags in a wait.
    let mut completed: Vec<(String, u64, u32)> = Vec::new();
    for l in text.lines().filter_map(parse_line) {
        t.events += 1;
        t.span = Some(widen(t.span, l.ts_ns));
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
                        t.delays.push(softirq_delay(raised, &l));
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
            "block_rq_issue" | "block_rq_complete" | "block_rq_requeue" | "block_rq_merge" => {
                let Some(rq) = request(l.fields) else {
                    continue;
                };
                if device.is_some_and(|d| d != rq.dev) {
                    continue;
                }
                match l.event {
                    "block_rq_issue" => {
                        if let Some(at) = waiting.remove(&(rq.dev.clone(), l.task.to_string())) {
                            if l.ts_ns.saturating_sub(at) >= min_ns {
                                t.delays
                                    .push(tag_wait(&rq.dev, l.task, at, l.ts_ns, &completed));
                            }
                        }
                        flight.issue(&rq, &l);
                    }
                    "block_rq_requeue" => flight.requeue(&rq, &l),
                    "block_rq_merge" => flight.merge(&rq, l.cpu),
                    _ => {
                        completed.push((rq.dev.clone(), l.ts_ns, l.cpu));
                        if let Some(done) = flight.complete(&rq, l.cpu) {
                            if l.ts_ns.saturating_sub(done.at) >= min_ns {
                                t.delays.push(io_delay(&rq, done, &l));
                            }
                        }
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
    t.unfinished = flight.left();
    t
}

/// `span` widened to hold `ts_ns`.
fn widen(span: Option<(u64, u64)>, ts_ns: u64) -> (u64, u64) {
    span.map_or((ts_ns, ts_ns), |(a, b)| (a.min(ts_ns), b.max(ts_ns)))
}

/// The softirq delay from its raise at `raised` to its run at line `l` (on that CPU).
fn softirq_delay(raised: u64, l: &Line<'_>) -> Delay {
    Delay {
        kind: DelayKind::Softirq,
        start_ns: raised,
        end_ns: l.ts_ns,
        cpus: vec![l.cpu],
        end_cpu: Some(l.cpu),
        issue_cpu: None,
        evidence: vec![format!("raised and run on CPU {}", l.cpu)],
        device: None,
        vector: Some(action(l.fields).unwrap_or("?").to_string()),
        task: None,
    }
}

/// The I/O delay of request `done`, completed by line `l`.
fn io_delay(rq: &Request, done: Issued, l: &Line<'_>) -> Delay {
    let mut evidence = vec![format!(
        "issued on CPU {}, completed on CPU {}",
        done.cpu, l.cpu
    )];
    if let Some(first) = done.requeued.first() {
        evidence.push(format!(
            "requeued {} (first at {} s): its delay counts from its first issue",
            counted(done.requeued.len(), "time"),
            crate::model::clock::secs(*first)
        ));
    }
    if done.among > 1 {
        evidence.push(format!(
            "{} requests of this sector and length were in flight: paired with the one issued on the CPU it completed on, else the oldest",
            done.among
        ));
    }
    Delay {
        kind: DelayKind::Io,
        start_ns: done.at,
        end_ns: l.ts_ns,
        cpus: vec![l.cpu],
        end_cpu: Some(l.cpu),
        issue_cpu: Some(done.cpu),
        evidence,
        device: Some(rq.dev.clone()),
        vector: None,
        task: Some(done.task),
    }
}

/// "1 time", "2 times".
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A block request in flight: when and where it was (first) issued, by whom.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Issued {
    /// Its first issue (a requeued request keeps it).
    at: u64,
    /// The CPU of its latest issue.
    cpu: u32,
    task: String,
    /// Its sector and length as they are now (a partial completion moves them on).
    sector: u64,
    sectors: u64,
    /// When it was requeued, in order.
    requeued: Vec<u64>,
    /// How many requests of its sector and length were in flight when it completed.
    among: usize,
}

/// The block requests in flight per device, in issue order, and those requeued and not
/// issued again. The tracepoints give no request id, only (device, sector, length): two
/// requests of one sector in flight at once (readers of one file on two CPUs, flushes,
/// which are all sector 0 length 0) are told apart by the CPU: a completion takes the
/// oldest issued on its own CPU (blk-mq completes on the submitting CPU's queue, or
/// redirects there), else the oldest of all.
#[derive(Debug, Default)]
struct InFlight {
    issued: BTreeMap<String, Vec<Issued>>,
    requeued: BTreeMap<String, Vec<Issued>>,
}

impl InFlight {
    /// Issue of `rq` on `l.cpu`: a requeued request of its sector and length issued again
    /// (keeping its first issue), or a new one.
    fn issue(&mut self, rq: &Request, l: &Line<'_>) {
        let again = self
            .requeued
            .get_mut(&rq.dev)
            .and_then(|v| take(v, rq, l.cpu));
        let r = match again {
            Some(mut r) => {
                r.cpu = l.cpu;
                r
            }
            None => Issued {
                at: l.ts_ns,
                cpu: l.cpu,
                task: l.task.to_string(),
                sector: rq.sector,
                sectors: rq.sectors,
                requeued: Vec::new(),
                among: 0,
            },
        };
        self.issued.entry(rq.dev.clone()).or_default().push(r);
    }

    /// `rq` put back by the driver: it waits to be issued again.
    fn requeue(&mut self, rq: &Request, l: &Line<'_>) {
        if let Some(mut r) = self
            .issued
            .get_mut(&rq.dev)
            .and_then(|v| take(v, rq, l.cpu))
        {
            r.requeued.push(l.ts_ns);
            self.requeued.entry(rq.dev.clone()).or_default().push(r);
        }
    }

    /// `rq` merged into another request: it will not complete on its own. The block
    /// layer merges only requests waiting for dispatch, never one in flight: of ours,
    /// only a requeued one can be it (a request of the same sector in flight, issued
    /// by another reader, is left alone).
    fn merge(&mut self, rq: &Request, cpu: u32) {
        if let Some(v) = self.requeued.get_mut(&rq.dev) {
            take(v, rq, cpu);
        }
    }

    /// The request `rq` completes (all of it), or None: none in flight matches, or only
    /// its first part completed (it stays in flight with the rest).
    fn complete(&mut self, rq: &Request, cpu: u32) -> Option<Issued> {
        let v = self.issued.get_mut(&rq.dev)?;
        let among = v
            .iter()
            .filter(|r| (r.sector, r.sectors) == (rq.sector, rq.sectors))
            .count();
        if let Some(mut r) = take(v, rq, cpu) {
            r.among = among;
            return Some(r);
        }
        // Part of a request: its first sectors (blk_update_request moves it on).
        let i = pick(v, cpu, |r| {
            r.sector == rq.sector && rq.sectors > 0 && rq.sectors < r.sectors
        })?;
        v[i].sector += rq.sectors;
        v[i].sectors -= rq.sectors;
        None
    }

    /// How many requests were issued and never completed in the trace (requeued ones
    /// not issued again too).
    fn left(&self) -> usize {
        self.issued
            .values()
            .chain(self.requeued.values())
            .map(Vec::len)
            .sum()
    }
}

/// The request of `v` with `rq`'s sector and length that `cpu` takes (see [`InFlight`]),
/// removed.
fn take(v: &mut Vec<Issued>, rq: &Request, cpu: u32) -> Option<Issued> {
    let i = pick(v, cpu, |r| (r.sector, r.sectors) == (rq.sector, rq.sectors))?;
    Some(v.remove(i))
}

/// The oldest of `v` that matches, issued on `cpu`, else the oldest that matches.
fn pick(v: &[Issued], cpu: u32, matches: impl Fn(&Issued) -> bool) -> Option<usize> {
    v.iter()
        .position(|r| matches(r) && r.cpu == cpu)
        .or_else(|| v.iter().position(&matches))
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
            crate::model::delay::cpu_list(&cpus)
        )
    };
    Delay {
        kind: DelayKind::TagWait,
        start_ns: at,
        end_ns: end,
        cpus,
        end_cpu: None,
        issue_cpu: None,
        evidence: vec![evidence],
        device: Some(dev.to_string()),
        vector: None,
        task: Some(task.to_string()),
    }
}

/// What a block_rq_* line tells of its request.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Request {
    /// "252:0".
    dev: String,
    sector: u64,
    sectors: u64,
}

/// The request of a block_rq_* line: "252,0 R 4096 () 2048 + 8 [dd]" (issue, merge),
/// "252,0 R () 2048 + 8 [0]" (complete, requeue); a flush is "252,0 FF 0 () 0 + 0 [x]".
fn request(fields: &str) -> Option<Request> {
    let words: Vec<&str> = fields.split_whitespace().collect();
    let dev = words.first()?.replace(',', ":");
    let plus = words.iter().position(|w| *w == "+")?;
    let sector = words.get(plus.checked_sub(1)?)?.parse().ok()?;
    let sectors = words.get(plus + 1)?.parse().ok()?;
    Some(Request {
        dev,
        sector,
        sectors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The (start, end, issuing CPU, completing CPU) of each I/O delay of `t`.
    fn ios(t: &Traced) -> Vec<(u64, u64, Option<u32>, Option<u32>)> {
        t.delays
            .iter()
            .filter(|d| d.kind == DelayKind::Io)
            .map(|d| (d.start_ns, d.end_ns, d.issue_cpu, d.end_cpu))
            .collect()
    }

    /// Claim: readers of the same sector on both CPUs give two delays, each with its own
    /// CPU: the completion on CPU 0 takes the request issued on CPU 0 although CPU 1's
    /// was issued first, so the request CPU 1 held back (120 ms) does not disappear.
    #[test]
    fn one_sector_in_flight_from_two_cpus_is_two_delays() {
        let text = "\
  cat-80 [001] ..... 1.000000: block_rq_issue: 252,0 R 4096 () 2048 + 8 none,0,0 [cat]
  cat-81 [000] ..... 1.001000: block_rq_issue: 252,0 R 4096 () 2048 + 8 none,0,0 [cat]
  <idle>-0 [000] d.h1. 1.021000: block_rq_complete: 252,0 R () 2048 + 8 none,0,0 [0]
  <idle>-0 [001] d.h1. 1.120000: block_rq_complete: 252,0 R () 2048 + 8 none,0,0 [0]
";
        let t = delays(text, 0, None);
        assert_eq!(
            ios(&t),
            [
                (1_000_000_000, 1_120_000_000, Some(1), Some(1)),
                (1_001_000_000, 1_021_000_000, Some(0), Some(0)),
            ]
        );
        assert_eq!(t.delays[0].task.as_deref(), Some("cat-80"));
        assert_eq!(t.delays[0].cpus, [1]);
        assert!(t.delays[1].evidence[1].starts_with("2 requests of this sector"));
        assert_eq!(t.unfinished, 0);
        // With a long minimum only the held-back one is left.
        assert_eq!(delays(text, 50_000_000, None).delays.len(), 1);
    }

    /// Claim: a requeued request restarts: its delay counts from its first issue to its
    /// completion after it was issued again (on another CPU), says it was requeued, and
    /// is one delay, not two.
    #[test]
    fn a_requeued_request_counts_from_its_first_issue() {
        let text = "\
  dd-70 [000] ..... 2.000000: block_rq_issue: 252,0 W 4096 () 64 + 8 none,0,0 [dd]
  kworker/0:1H-9 [000] ..... 2.010000: block_rq_requeue: 252,0 W () 64 + 8 none,0,0 [0]
  kworker/1:1H-10 [001] ..... 2.050000: block_rq_issue: 252,0 W 4096 () 64 + 8 none,0,0 [kworker/1:1H]
  <idle>-0 [001] d.h1. 2.100000: block_rq_complete: 252,0 W () 64 + 8 none,0,0 [0]
";
        let t = delays(text, 0, None);
        assert_eq!(ios(&t), [(2_000_000_000, 2_100_000_000, Some(1), Some(1))]);
        assert_eq!(t.delays[0].task.as_deref(), Some("dd-70"));
        assert!(
            t.delays[0]
                .evidence
                .iter()
                .any(|e| e.starts_with("requeued 1 time (first at 2.010000 s)")),
            "{:?}",
            t.delays[0].evidence
        );
        assert_eq!(t.unfinished, 0);
    }

    /// Claim: flushes (sector 0, length 0) of two CPUs do not collide: each completion
    /// takes its own CPU's flush, in order, so two flushes give two delays.
    #[test]
    fn flushes_pair_per_cpu_in_order() {
        let text = "\
  kworker/0:1-9 [000] ..... 3.000000: block_rq_issue: 252,0 FF 0 () 0 + 0 none,0,0 [kworker/0:1]
  kworker/1:1-10 [001] ..... 3.001000: block_rq_issue: 252,0 FF 0 () 0 + 0 none,0,0 [kworker/1:1]
  kworker/0:1-9 [000] ..... 3.002000: block_rq_issue: 252,0 FF 0 () 0 + 0 none,0,0 [kworker/0:1]
  <idle>-0 [001] d.h1. 3.003000: block_rq_complete: 252,0 FF () 0 + 0 none,0,0 [0]
  <idle>-0 [000] d.h1. 3.200000: block_rq_complete: 252,0 FF () 0 + 0 none,0,0 [0]
  <idle>-0 [000] d.h1. 3.210000: block_rq_complete: 252,0 FF () 0 + 0 none,0,0 [0]
";
        let t = delays(text, 0, None);
        assert_eq!(
            ios(&t),
            [
                (3_000_000_000, 3_200_000_000, Some(0), Some(0)),
                (3_001_000_000, 3_003_000_000, Some(1), Some(1)),
                (3_002_000_000, 3_210_000_000, Some(0), Some(0)),
            ]
        );
    }

    /// Claim: a requeued request merged into another leaves no request in flight (it
    /// never completes on its own); a merge does not take a request in flight; a request completed in parts is one delay, to its last
    /// part; one never completed is counted as unfinished.
    #[test]
    fn merges_and_partial_completions_leave_nothing_dangling() {
        let text = "\
  dd-70 [000] ..... 4.000000: block_rq_issue: 252,0 W 4096 () 64 + 8 none,0,0 [dd]
  kworker-9 [000] ..... 4.001000: block_rq_requeue: 252,0 W () 64 + 8 none,0,0 [0]
  dd-70 [000] ..... 4.002000: block_rq_merge: 252,0 W 4096 () 64 + 8 none,0,0 [dd]
  dd-70 [000] ..... 4.010000: block_rq_issue: 252,0 R 8192 () 128 + 16 none,0,0 [dd]
  <idle>-0 [000] d.h1. 4.020000: block_rq_complete: 252,0 R () 128 + 8 none,0,0 [0]
  <idle>-0 [000] d.h1. 4.030000: block_rq_complete: 252,0 R () 136 + 8 none,0,0 [0]
  dd-70 [000] ..... 4.040000: block_rq_issue: 252,0 R 4096 () 512 + 8 none,0,0 [dd]
";
        let t = delays(text, 0, None);
        assert_eq!(ios(&t), [(4_010_000_000, 4_030_000_000, Some(0), Some(0))]);
        assert_eq!(t.unfinished, 1);
        // A request of the same sector merged while one is in flight is another reader's,
        // waiting for dispatch: the one in flight still completes.
        let other = "\
  dd-70 [000] ..... 5.000000: block_rq_issue: 252,0 R 4096 () 64 + 8 none,0,0 [dd]
  dd-71 [000] ..... 5.001000: block_rq_merge: 252,0 R 4096 () 64 + 8 none,0,0 [dd]
  <idle>-0 [000] d.h1. 5.060000: block_rq_complete: 252,0 R () 64 + 8 none,0,0 [0]
";
        let t = delays(other, 0, None);
        assert_eq!(ios(&t), [(5_000_000_000, 5_060_000_000, Some(0), Some(0))]);
        assert_eq!(t.unfinished, 0);
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
