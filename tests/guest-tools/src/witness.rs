// SPDX-License-Identifier: GPL-2.0
//! The kernel's own account of when a CPU could not run softirqs or hard interrupts, read
//! from tracefs events, to check each event of the module against (`tio-bench`'s
//! false-event runs).
//!
//! What the trace proves, per CPU:
//!
//! - **Softirqs could not run** from a `softirq_raise` of a vector to the next
//!   `softirq_entry` of that vector (it was pending and not served: bottom halves off, a
//!   softirq running, or left to ksoftirqd), and from a `softirq_entry` to its
//!   `softirq_exit` (a handler running: every other softirq waits).
//! - **Hard interrupts could not run** from a hard hrtimer's expiry (`expires` of its
//!   `hrtimer_start`) to its `hrtimer_expire_entry` in hard interrupt context (the flags
//!   column says `h`): the timer interrupt was due and not taken. In a guest this is also
//!   time the hypervisor stole; the bench's guest (TCG, instruction-counted clock) has none.
//!
//! Spans of one kind on one CPU that touch (closer than [`MERGE_GAP_NS`]) are one window.
//! An event of the module (`trace_irqoff:hardirq_off` / `softirq_off`, length L, ending at
//! its trace time E) is *confirmed* when such a window overlaps `[E - L - tol, E + tol]` by
//! at least `L - tol` and at least `L / 2`, where `tol` is the bound the module's own
//! reading may be off by (the caller states it: one period for hardirq windows, one period
//! plus one jiffy for softirq windows); the half keeps a short event from being confirmed
//! by any window at all when `tol` exceeds it (the module reports a softirq window from
//! 1.5 periods, at most half a period longer than it was). An event the trace cannot
//! confirm is counted as false.
//!
//! proves: an event with nothing injected is a real window: the kernel's own trace confirms it (benchmarks.rst, false events) -- : its host tests (a long softirq handler, pending softirqs, a late hard hrtimer confirm; a short event needs half its length); the `bench-smoke` step's "the kernel's own trace judged each false-event run"; `make bench` judges every event of its runs

use std::collections::HashMap;

/// Spans closer than this are one window (a softirq loop's next vector, a raise answered
/// by the handler run that follows).
pub const MERGE_GAP_NS: u64 = 50_000;

/// Which side of the module an event or a span is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// Hard interrupts could not run.
    Hard,
    /// Softirqs could not run.
    Soft,
}

/// One event of the module, as the trace holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Event {
    /// Hardirq-off or softirq-off.
    pub side: Side,
    /// The CPU the window was on.
    pub cpu: u32,
    /// Its length, as the module measured it.
    pub latency_ns: u64,
    /// Trace time of the event (the window's end).
    pub at_ns: u64,
    /// Its cause (`-` for hardirq windows).
    pub cause: String,
    /// The task the module named.
    pub comm: String,
}

/// A time span on one CPU in the trace's clock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First instant.
    pub start_ns: u64,
    /// Last instant.
    pub end_ns: u64,
}

/// What a trace shows: the module's events and, per CPU and side, the merged windows in
/// which that side could not run.
#[derive(Debug, Default)]
pub struct Trace {
    /// The module's events, in trace order.
    pub events: Vec<Event>,
    /// Merged windows per (side, CPU), sorted by start.
    pub windows: HashMap<(Side, u32), Vec<Span>>,
    /// Trace time of the first line per CPU (before it, the ring may have lost lines).
    pub first_ns: HashMap<u32, u64>,
    /// Lines read.
    pub lines: usize,
}

/// One trace line's parts: the CPU, its irq-context flags, time, event name and fields.
struct Line<'a> {
    cpu: u32,
    flags: &'a str,
    at_ns: u64,
    event: &'a str,
    fields: &'a str,
}

/// `secs.frac` (the trace's time column, without its colon) in ns.
fn parse_time(s: &str) -> Option<u64> {
    let (secs, frac) = s.split_once('.')?;
    let secs: u64 = secs.parse().ok()?;
    if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u64 = format!("{frac:0<9}").parse().ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(frac)
}

/// Splits `  task-pid  [001] d.h1.  123.456789: event: fields` (the flags column may be
/// absent when the `irq-info` option is off).
fn parse_line(l: &str) -> Option<Line<'_>> {
    if l.starts_with('#') {
        return None;
    }
    // The CPU column is the first `[digits]` (a task name may hold anything else).
    let (open, cpu) = l.match_indices('[').find_map(|(i, _)| {
        let rest = &l[i + 1..];
        let close = rest.find(']')?;
        let digits = &rest[..close];
        (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
            .then(|| (i + 1 + close + 1, digits.parse::<u32>().ok()))
    })?;
    let cpu = cpu?;
    let mut rest = l[open..].trim_start();
    let mut flags = "";
    let mut at_ns = None;
    for _ in 0..2 {
        let (tok, tail) = rest.split_once(' ').unwrap_or((rest, ""));
        if let Some(t) = tok.strip_suffix(':').and_then(parse_time) {
            at_ns = Some(t);
            rest = tail.trim_start();
            break;
        }
        flags = tok;
        rest = tail.trim_start();
    }
    let at_ns = at_ns?;
    let (event, fields) = rest.split_once(':')?;
    Some(Line {
        cpu,
        flags,
        at_ns,
        event: event.trim(),
        fields: fields.trim(),
    })
}

/// The value of `key=` among space-separated fields (up to the next space).
fn field<'a>(fields: &'a str, key: &str) -> Option<&'a str> {
    let pat = format!("{key}=");
    let mut from = 0;
    while let Some(i) = fields[from..].find(&pat) {
        let at = from + i;
        if at == 0 || fields.as_bytes()[at - 1] == b' ' || fields.as_bytes()[at - 1] == b'[' {
            let v = &fields[at + pat.len()..];
            return Some(v.split([' ', ']']).next().unwrap_or(""));
        }
        from = at + pat.len();
    }
    None
}

/// The irq-context character of the flags column (`d.h1.`: the third) says hard
/// interrupt context (`h`, or `H` for a hard interrupt inside a softirq).
fn in_hardirq(flags: &str) -> Option<bool> {
    let c = flags.chars().nth(2)?;
    Some(c == 'h' || c == 'H')
}

/// Merges spans closer than [`MERGE_GAP_NS`].
fn merge(mut v: Vec<Span>) -> Vec<Span> {
    v.sort_by_key(|s| s.start_ns);
    let mut out: Vec<Span> = Vec::with_capacity(v.len());
    for s in v {
        match out.last_mut() {
            Some(last) if s.start_ns <= last.end_ns.saturating_add(MERGE_GAP_NS) => {
                last.end_ns = last.end_ns.max(s.end_ns);
            }
            _ => out.push(s),
        }
    }
    out
}

impl Trace {
    /// Reads a trace (the text of tracefs `trace`) line by line.
    pub fn parse<S: AsRef<str>>(lines: impl Iterator<Item = S>) -> Self {
        let mut t = Trace::default();
        let mut spans: HashMap<(Side, u32), Vec<Span>> = HashMap::new();
        // Softirq vectors raised and not yet entered, per CPU; handlers entered, per CPU.
        let mut pending: HashMap<(u32, u32), u64> = HashMap::new();
        let mut running: HashMap<u32, u64> = HashMap::new();
        // Per hrtimer: its hard expiry when started; whether it was started in soft mode.
        let mut armed: HashMap<String, (u64, bool)> = HashMap::new();
        for l in lines {
            let Some(line) = parse_line(l.as_ref()) else {
                continue;
            };
            t.lines += 1;
            t.first_ns.entry(line.cpu).or_insert(line.at_ns);
            // A span of `side` on this line's CPU, from `start_ns` to this line.
            let mut push = |side: Side, start_ns: u64| {
                spans.entry((side, line.cpu)).or_default().push(Span {
                    start_ns,
                    end_ns: line.at_ns,
                });
            };
            match line.event {
                "softirq_raise" => {
                    if let Some(vec) = field(line.fields, "vec").and_then(|v| v.parse().ok()) {
                        pending.entry((line.cpu, vec)).or_insert(line.at_ns);
                    }
                }
                "softirq_entry" => {
                    if let Some(vec) = field(line.fields, "vec").and_then(|v| v.parse().ok()) {
                        if let Some(r) = pending.remove(&(line.cpu, vec)) {
                            push(Side::Soft, r);
                        }
                    }
                    running.insert(line.cpu, line.at_ns);
                }
                "softirq_exit" => {
                    if let Some(s) = running.remove(&line.cpu) {
                        push(Side::Soft, s);
                    }
                }
                "hrtimer_start" => {
                    let (Some(ptr), Some(exp)) = (
                        field(line.fields, "hrtimer"),
                        field(line.fields, "expires").and_then(|v| v.parse::<u64>().ok()),
                    ) else {
                        continue;
                    };
                    let soft_mode = field(line.fields, "mode").is_some_and(|m| m.contains("SOFT"));
                    // A restart from the callback is traced as plain ABS: keep the mode.
                    let was_soft = armed.get(ptr).is_some_and(|a| a.1);
                    armed.insert(ptr.to_string(), (exp, soft_mode || was_soft));
                }
                "hrtimer_expire_entry" => {
                    let (Some(ptr), Some(now)) = (
                        field(line.fields, "hrtimer"),
                        field(line.fields, "now").and_then(|v| v.parse::<u64>().ok()),
                    ) else {
                        continue;
                    };
                    let Some(&(exp, soft_mode)) = armed.get(ptr) else {
                        continue;
                    };
                    let hard = in_hardirq(line.flags).unwrap_or(!soft_mode);
                    if hard && now > exp {
                        push(Side::Hard, line.at_ns.saturating_sub(now - exp));
                    }
                }
                "hardirq_off" | "softirq_off" => {
                    let (Some(cpu), Some(lat)) = (
                        field(line.fields, "cpu").and_then(|v| v.parse().ok()),
                        field(line.fields, "latency_ns").and_then(|v| v.parse().ok()),
                    ) else {
                        continue;
                    };
                    t.events.push(Event {
                        side: if line.event == "hardirq_off" {
                            Side::Hard
                        } else {
                            Side::Soft
                        },
                        cpu,
                        latency_ns: lat,
                        at_ns: line.at_ns,
                        cause: field(line.fields, "cause").unwrap_or("-").to_string(),
                        comm: field(line.fields, "comm").unwrap_or("").to_string(),
                    });
                }
                _ => {}
            }
        }
        t.windows = spans.into_iter().map(|(k, v)| (k, merge(v))).collect();
        t
    }

    /// The longest stretch of one window of the trace (same side, same CPU) inside
    /// `[E - L - tol, E + tol]` for `e`.
    pub fn witnessed_ns(&self, e: &Event, tol_ns: u64) -> u64 {
        let lo = e.at_ns.saturating_sub(e.latency_ns.saturating_add(tol_ns));
        let hi = e.at_ns.saturating_add(tol_ns);
        self.windows
            .get(&(e.side, e.cpu))
            .map(|w| {
                w.iter()
                    .filter(|s| s.start_ns < hi && s.end_ns > lo)
                    .map(|s| s.end_ns.min(hi) - s.start_ns.max(lo))
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0)
    }

    /// Whether the trace confirms `e` (see the module documentation).
    pub fn confirms(&self, e: &Event, tol_ns: u64) -> bool {
        self.witnessed_ns(e, tol_ns) >= e.latency_ns.saturating_sub(tol_ns).max(e.latency_ns / 2)
    }

    /// Whether the trace can judge `e`: its CPU's lines reach back before the window
    /// (a ring that overran lost the oldest lines).
    pub fn covers(&self, e: &Event, tol_ns: u64) -> bool {
        self.first_ns
            .get(&e.cpu)
            .is_some_and(|&f| f <= e.at_ns.saturating_sub(e.latency_ns.saturating_add(tol_ns)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn trace(text: &str) -> Trace {
        Trace::parse(text.lines())
    }

    /// A trace's time column and fields are read as tracefs prints them, task names with
    /// spaces and brackets included.
    #[test]
    fn lines_are_read_as_tracefs_prints_them() {
        let l = parse_line(
            "  kworker/u8:1 [x]-42  [001] d.h1.   12.000500: softirq_raise: vec=1 [action=TIMER]",
        )
        .unwrap();
        assert_eq!(
            (l.cpu, l.flags, l.at_ns, l.event),
            (1, "d.h1.", 12_000_500_000, "softirq_raise")
        );
        assert_eq!(field(l.fields, "vec"), Some("1"));
        assert_eq!(field(l.fields, "action"), Some("TIMER"));
        let l = parse_line("  sh-5  [000]   3.5: hardirq_off: cpu=0 latency_ns=7").unwrap();
        assert_eq!((l.flags, l.at_ns), ("", 3_500_000_000));
        assert!(parse_line("# tracer: nop").is_none());
        assert_eq!(parse_time("1.1234567891"), None);
    }

    /// A softirq handler running 6 ms confirms a 6 ms bh-off event ending with it; the
    /// same event on the other CPU, or twice as long, is not confirmed.
    #[test]
    fn a_long_softirq_handler_confirms_a_bh_off_event() {
        let t = trace(
            "  sh-54  [000] ..s1.  1.000000: softirq_entry: vec=9 [action=RCU]\n\
             \x20 sh-54  [000] ..s1.  1.006000: softirq_exit: vec=9 [action=RCU]\n\
             \x20 ksoftirqd/0-12  [000] ..s1.  1.006100: softirq_off: cpu=0 latency_ns=6100000 lower_bound=0 pid=12 comm=ksoftirqd/0 cause=bh-off end_ns=1\n",
        );
        let e = t.events[0].clone();
        assert_eq!((e.side, e.cpu, e.cause.as_str()), (Side::Soft, 0, "bh-off"));
        assert!(t.confirms(&e, MS + MS));
        assert!(!t.confirms(
            &Event {
                cpu: 1,
                ..e.clone()
            },
            2 * MS
        ));
        assert!(!t.confirms(
            &Event {
                latency_ns: 12 * MS,
                ..e
            },
            2 * MS
        ));
    }

    /// A vector raised and entered 5 ms later is 5 ms without softirqs; consecutive
    /// vectors of one softirq loop are one window.
    #[test]
    fn pending_softirqs_and_a_softirq_loop_are_one_window() {
        let t = trace(
            "  a-1  [001] d.h1.  2.000000: softirq_raise: vec=1 [action=TIMER]\n\
             \x20 a-1  [001] ..s1.  2.003000: softirq_entry: vec=9 [action=RCU]\n\
             \x20 a-1  [001] ..s1.  2.004000: softirq_exit: vec=9 [action=RCU]\n\
             \x20 a-1  [001] ..s1.  2.004010: softirq_entry: vec=1 [action=TIMER]\n\
             \x20 a-1  [001] ..s1.  2.005000: softirq_exit: vec=1 [action=TIMER]\n",
        );
        assert_eq!(
            t.windows[&(Side::Soft, 1)],
            vec![Span {
                start_ns: 2_000_000_000,
                end_ns: 2_005_000_000
            }]
        );
    }

    /// A hard hrtimer that expired in hard interrupt context 18 ms after it was due is an
    /// 18 ms hardirq-off window; a timer expiring in softirq context is not, nor (where
    /// the trace has no flags column) one started in soft mode and restarted as plain ABS.
    #[test]
    fn a_late_hard_hrtimer_is_a_hardirq_window() {
        let t = trace(
            "  a-1  [001] d.h1.  5.000000: hrtimer_start: hrtimer=0000aa function=tick_nohz_handler expires=4982000000 softexpires=4982000000 mode=ABS|PINNED|HARD was_armed=0\n\
             \x20 a-1  [001] d.h1.  5.000000: hrtimer_expire_entry: hrtimer=0000aa function=tick_nohz_handler now=5000000000\n\
             \x20 a-1  [001] d.h1.  5.000000: hardirq_off: cpu=1 latency_ns=18400000 lower_bound=0 pid=0 comm=swapper/1 cause=- end_ns=1\n\
             \x20 a-1  [000] d.h1.  6.000000: hrtimer_start: hrtimer=0000bb function=x expires=5000000000 softexpires=5000000000 mode=ABS|SOFT was_armed=0\n\
             \x20 a-1  [000] ..s1.  6.000000: hrtimer_start: hrtimer=0000bb function=x expires=5990000000 softexpires=5990000000 mode=ABS was_armed=0\n\
             \x20 a-1  [000]  6.000000: hrtimer_expire_entry: hrtimer=0000bb function=x now=6000000000\n\
             \x20 a-1  [000] ..s1.  6.000000: hrtimer_start: hrtimer=0000cc function=y expires=5000000000 softexpires=5000000000 mode=ABS was_armed=0\n\
             \x20 a-1  [000] ..s1.  6.000000: hrtimer_expire_entry: hrtimer=0000cc function=y now=6000000000\n",
        );
        let e = t.events[0].clone();
        assert_eq!(e.side, Side::Hard);
        assert!(t.confirms(&e, MS));
        assert_eq!(t.witnessed_ns(&e, 0), 18 * MS);
        assert!(!t.windows.contains_key(&(Side::Hard, 0)));
    }

    /// An event shorter than the tolerance still needs a window of half its length: a
    /// 1.5 ms event is not confirmed by 0.5 ms without softirqs, nor by nothing.
    #[test]
    fn a_short_event_needs_half_its_length() {
        let t = trace(
            "  a-1  [000] ..s1.  1.000000: softirq_entry: vec=1 [action=TIMER]\n\
             \x20 a-1  [000] ..s1.  1.000500: softirq_exit: vec=1 [action=TIMER]\n\
             \x20 a-1  [000] ..s1.  1.001000: softirq_off: cpu=0 latency_ns=1500000 cause=bh-off\n\
             \x20 a-1  [001] ..s1.  1.001000: softirq_off: cpu=1 latency_ns=1500000 cause=bh-off\n",
        );
        assert!(!t.confirms(&t.events[0], 2 * MS));
        assert!(!t.confirms(&t.events[1], 2 * MS));
        let t2 = trace(
            "  a-1  [000] ..s1.  1.000000: softirq_entry: vec=1 [action=TIMER]\n\
             \x20 a-1  [000] ..s1.  1.000800: softirq_exit: vec=1 [action=TIMER]\n\
             \x20 a-1  [000] ..s1.  1.001000: softirq_off: cpu=0 latency_ns=1500000 cause=bh-off\n",
        );
        assert!(t2.confirms(&t2.events[0], 2 * MS));
    }

    /// Before a CPU's first line the trace cannot judge an event.
    #[test]
    fn events_older_than_the_trace_are_not_judged() {
        let t = trace(
            "  a-1  [000] d.h1.  1.000000: softirq_off: cpu=0 latency_ns=4000000 cause=bh-off\n",
        );
        assert!(!t.covers(&t.events[0], 0));
        assert!(!t.confirms(&t.events[0], 0));
    }
}
