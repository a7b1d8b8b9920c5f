//! `tio-bench`: the benchmark driver that runs inside the VM (see `make bench` and
//! Documentation/benchmarks.rst). Prints one JSON document.
//!
//! `tio-bench [--reps N] [--false-secs S] [--runs N] [--groups G] [--loops L] [--spin-ms M]
//! [--precheck K] [--idle-secs S] [--idle-rounds R] [--busy-secs B] [--only STEP,...]`
//!
//! - guest: kernel, clocksource, whether the kernel marked the TSC unstable, HZ.
//! - precheck: K windows of exactly 100 ms from `preemptirq_delay_test` on CPU 1, read by
//!   the irqsoff tracer; its column is filled only if every reading is within 1%.
//! - accuracy: windows of D in {P/2, P, 1.5P, 2P, 5P, 10P, 50, 100, 200 ms} for P = 10 and
//!   1 ms, each kind, N times at a random phase, on CPU 1, and windows of 50 and 100 ms in
//!   interrupt context on idle CPU 1 (IPI, hard hrtimer, timer_list with interrupts off and
//!   on: kinds ipi, hrtimer, timerirq, timer), for our module and for the
//!   original C tool (the peer, /extra/trace_irqoff_c.ko, when shipped). The sample
//!   measures each window's true length; our report comes from its tracepoints (a tracefs
//!   instance of its own), the peer's from its trace_latency and distribute files; the
//!   irqsoff tracer measures the hardirq windows too.
//! - false events: S seconds idle and S seconds under CPU + I/O stress, at P = 10 and 1 ms,
//!   for each tool; each event of ours is judged against the kernel's own trace of the run
//!   (`trace_irqoff_guest_tools::witness`): an event it cannot confirm is a false one.
//! - overhead: a CPU-bound loop pinned to CPU 1 counting iterations in M ms of guest time,
//!   and a hackbench-like pipe workload; N rounds, every configuration once per round.
//! - idle wake-ups: CPU 1 idle (this task on CPU 0), its local timer interrupts and all its
//!   interrupts per second over S seconds, in each configuration but the tracers, R rounds.
//! - busy wake-ups: both CPUs in the overhead's loop for B seconds, CPU 1's local timer
//!   interrupts per second (an hrtimer that shares the tick's interrupt adds none) and the
//!   loops' iterations per second, in each configuration but the tracers, R rounds.
//! - cost per sample and memory, from the module's records file; the timer floor of the
//!   guest from timerlat.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use trace_irqoff_guest_tools::witness;

const TIO: &str = "/proc/trace_irqoff";
const TRACING: &str = "/sys/kernel/tracing";
const INSTANCE: &str = "/sys/kernel/tracing/instances/tio_bench";

type Res<T> = Result<T, String>;
/// One named measurement of the run, done in turn.
type Step<'a> = (&'a str, Box<dyn Fn() -> Res<Value>>);

fn write(path: &str, v: &str) -> Res<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .map_err(|e| format!("{path}: {e}"))?;
    f.write_all(v.as_bytes())
        .map_err(|e| format!("{path} <- {v:?}: {e}"))
}

fn read(path: &str) -> Res<String> {
    fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn sh(cmd: &str) -> Res<()> {
    let st = Command::new("sh")
        .arg("-c")
        .arg(cmd)
        .status()
        .map_err(|e| e.to_string())?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("'{cmd}' failed: {st}"))
    }
}

fn sleep_ms(ms: f64) {
    std::thread::sleep(Duration::from_secs_f64(ms / 1000.0));
}

fn pin_to(cpu: usize) -> Res<()> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).map_err(|e| format!("sched_setaffinity: {e}"))
}

const PEER_KO: &str = "/extra/trace_irqoff_c.ko";

/// Which trace_irqoff: ours, or the original C module. Both create /proc/trace_irqoff.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Ours,
    Peer,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Ours => "ours",
            Tool::Peer => "peer",
        }
    }
}

fn peer_available() -> bool {
    fs::metadata(PEER_KO).is_ok()
}

fn unload() {
    let _ = sh("rmmod trace_irqoff 2>/dev/null");
}

/// Loads `tool` afresh with period P ms and threshold T ms, enabled. The peer takes its
/// period only while disabled (as after loading) and a threshold of at least 2P.
fn load_tool(tool: Tool, period_ms: u64, threshold_ms: u64) -> Res<()> {
    unload();
    match tool {
        Tool::Ours => sh("modprobe trace_irqoff")?,
        Tool::Peer => sh(&format!("insmod {PEER_KO}"))?,
    }
    write(&format!("{TIO}/sampling_period"), &period_ms.to_string())?;
    write(&format!("{TIO}/trace_latency"), &threshold_ms.to_string())?;
    write(&format!("{TIO}/enable"), "1")
}

fn load(period_ms: u64, threshold_ms: u64) -> Res<()> {
    load_tool(Tool::Ours, period_ms, threshold_ms)
}

/// One window from the sample module, on this thread's CPU; returns its true length.
fn inject(mode: &str, us: u64) -> Res<u64> {
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/irqoff_sample")
        .map_err(|e| e.to_string())?;
    f.write_all(format!("{mode} {us}us").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut s = String::new();
    f.read_to_string(&mut s).map_err(|e| e.to_string())?;
    s.trim()
        .parse()
        .map_err(|_| format!("bad sample answer {s:?}"))
}

#[derive(Serialize)]
struct Window {
    tool: &'static str,
    period_ms: u64,
    kind: &'static str,
    d_us: u64,
    true_ns: u64,
    detected: bool,
    reported_ns: Option<u64>,
    /// The peer's only record of the window was its hrtimer's lower bound (`57+ms`).
    lower_bound: bool,
    /// First frame of the tool's record of the window, and where the window function
    /// appears among its frames (None: not at all); only for windows with a record.
    first_frame: Option<String>,
    window_fn_at: Option<usize>,
    irqsoff_ns: Option<u64>,
    /// Why the irqsoff reading is not this window's (None when it is, or not taken).
    irqsoff_not: Option<String>,
}

/// Largest latency of `event` on cpu 1 in the instance's buffer.
fn reported(event: &str) -> Res<Option<u64>> {
    let text = read(&format!("{INSTANCE}/trace"))?;
    Ok(text
        .lines()
        .filter(|l| l.contains(&format!("{event}: cpu=1 ")))
        .filter_map(|l| {
            l.split("latency_ns=")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .max())
}

/// A record read back from a tool's files: latency, lower bound, end frames.
struct Rec {
    latency_ns: u64,
    lower_bound: bool,
    frames: Vec<String>,
}

/// Our records of `kind` on cpu 1 (records file, format v2).
fn our_records(kind: &str) -> Res<Vec<Rec>> {
    let text = read(&format!("{TIO}/records"))?;
    let mut out: Vec<Rec> = Vec::new();
    let mut open = false;
    for l in text.lines() {
        if let Some(rest) = l.strip_prefix("record ") {
            let kv = |k: &str| {
                rest.split(' ')
                    .find_map(|w| w.strip_prefix(k))
                    .unwrap_or("")
            };
            open = kv("cpu=") == "1" && kv("kind=") == kind;
            if open {
                out.push(Rec {
                    latency_ns: kv("latency_ns=").parse().unwrap_or(0),
                    lower_bound: kv("lower_bound=") == "1",
                    frames: Vec::new(),
                });
            }
        } else if let Some(f) = l.strip_prefix("frame ") {
            if open {
                if let Some(r) = out.last_mut() {
                    r.frames.push(f.to_string());
                }
            }
        } else if !l.starts_with("window_frame") && !l.starts_with("profile") {
            open = false;
        }
    }
    Ok(out)
}

/// Our worst records (all CPUs), one line each: the cause and who was running, for the
/// report to say what the events were.
fn record_summaries(max: usize) -> Res<Vec<String>> {
    let text = read(&format!("{TIO}/records"))?;
    let mut out: Vec<(u64, String)> = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        let Some(rest) = l.strip_prefix("record ") else {
            continue;
        };
        let kv = |k: &str| {
            rest.split(' ')
                .find_map(|w| w.strip_prefix(k))
                .unwrap_or("")
                .to_string()
        };
        let (mut first, mut wfirst) = (String::new(), String::new());
        while let Some(n) = lines.peek() {
            if let Some(f) = n.strip_prefix("frame ") {
                if first.is_empty() {
                    first = f.to_string();
                }
            } else if let Some(f) = n.strip_prefix("window_frame ") {
                if wfirst.is_empty() {
                    wfirst = f.to_string();
                }
            } else if !n.starts_with("profile") {
                break;
            }
            lines.next();
        }
        let lat: u64 = kv("latency_ns=").parse().unwrap_or(0);
        out.push((lat, format!("cpu={} kind={} cause={} latency_ms={:.1} comm={} window_comm={} frame={first} window_frame={wfirst}",
            kv("cpu="), kv("kind="), kv("cause="), lat as f64 / 1e6, kv("comm="), kv("window_comm="))));
    }
    out.sort_by_key(|o| std::cmp::Reverse(o.0));
    Ok(out.into_iter().take(max).map(|x| x.1).collect())
}

/// The peer's records of `kind` on cpu 1, from its trace_latency file:
/// " hardirq:" / " softirq:", " cpu: N", "COMMAND: c PID: p LATENCY: 97ms" (or `57+ms`,
/// its hrtimer's lower bound), then the frames, then an empty line.
fn peer_records(kind: &str) -> Res<Vec<Rec>> {
    let text = read(&format!("{TIO}/trace_latency"))?;
    let (mut section, mut cpu, mut open) = ("", -1i64, false);
    let mut out: Vec<Rec> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        if t == "hardirq:" {
            section = "hard";
        } else if t == "softirq:" {
            section = "soft";
        } else if let Some(c) = t.strip_prefix("cpu: ") {
            cpu = c.parse().unwrap_or(-1);
        } else if t.starts_with("COMMAND:") {
            open = section == kind && cpu == 1;
            if open {
                let lat = t.split("LATENCY: ").nth(1).unwrap_or("");
                let ms: u64 = lat
                    .trim_end_matches("ms")
                    .trim_end_matches('+')
                    .parse()
                    .unwrap_or(0);
                out.push(Rec {
                    latency_ns: ms * 1_000_000,
                    lower_bound: lat.contains('+'),
                    frames: Vec::new(),
                });
            }
        } else if t.is_empty() {
            open = false;
        } else if open {
            if let Some(r) = out.last_mut() {
                r.frames.push(t.to_string());
            }
        }
    }
    Ok(out)
}

/// Our event counts from `distribute`: hardirq, softirq, softirq bh-off, softirq
/// ksoftirqd-wait. Read before `records`: formatting `records` names every frame, and one
/// read of that seq_file runs its show function several times while its buffer grows.
fn our_counts() -> Res<[u64; 4]> {
    let text = read(&format!("{TIO}/distribute"))?;
    let mut c = [0u64; 4];
    let mut section = usize::MAX;
    for l in text.lines() {
        if l.ends_with(':') && !l.contains("->") {
            section = match l.trim() {
                "hardirq-off:" => 0,
                "softirq-off:" => 1,
                "softirq-off, bh-off:" => 2,
                "softirq-off, ksoftirqd-wait:" => 3,
                _ => usize::MAX,
            };
        } else if l.contains("->") {
            let n: u64 = l
                .split(':')
                .nth(1)
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if let Some(x) = c.get_mut(section) {
                *x += n;
            }
        }
    }
    Ok(c)
}

/// The peer's event counts per kind (hardirq, softirq) from its distribute histogram.
fn peer_counts() -> Res<(u64, u64)> {
    let text = read(&format!("{TIO}/distribute"))?;
    let (mut section, mut hard, mut soft) = ("", 0, 0);
    for l in text.lines() {
        if l.starts_with("hardirq-off") {
            section = "hard";
        } else if l.starts_with("softirq-off") {
            section = "soft";
        } else if l.contains("->") {
            let n: u64 = l
                .split(':')
                .nth(1)
                .and_then(|v| v.split_whitespace().next())
                .and_then(|v| v.parse().ok())
                .unwrap_or(0);
            if section == "hard" {
                hard += n
            } else {
                soft += n
            }
        }
    }
    Ok((hard, soft))
}

/// The irqsoff tracer's reading of the last window, in ns, if it is that window: the
/// header must name `cpu` and a start in a function containing `func`. Before the window
/// `tracing_max_latency` was set to a floor only that window can pass: a section
/// becomes the max only if no other section on any CPU became one since it started
/// (kernel/trace/trace_irqsoff.c, check_critical_timing: critical_sequence ==
/// max_sequence), so with the floor at 0 the first 1 ms section on CPU 0 during a long
/// window on CPU 1 was reported, and the window itself discarded.
fn irqsoff_reading(floor_us: u64, cpu: usize, func: &str) -> Res<(Option<u64>, Option<String>)> {
    let us: u64 = read(&format!("{TRACING}/tracing_max_latency"))?
        .trim()
        .parse()
        .unwrap_or(0);
    if us <= floor_us {
        return Ok((
            None,
            Some(format!("nothing above the floor of {floor_us} us")),
        ));
    }
    let text = read(&format!("{TRACING}/trace"))?;
    let head: Vec<&str> = text.lines().take_while(|l| l.starts_with('#')).collect();
    let on_cpu = head
        .iter()
        .any(|l| l.contains("latency:") && l.contains(&format!("CPU#{cpu} ")));
    let started = head
        .iter()
        .find_map(|l| l.split("started at:").nth(1))
        .map(|s| s.trim().to_string())
        .unwrap_or_default();
    if !on_cpu || !started.contains(func) {
        let c = head
            .iter()
            .find_map(|l| l.split("CPU#").nth(1)?.split(' ').next())
            .unwrap_or("?");
        return Ok((
            None,
            Some(format!("{us} us on CPU {c}, started at {started}")),
        ));
    }
    Ok((Some(us * 1000), None))
}

fn irqsoff_available() -> bool {
    read(&format!("{TRACING}/available_tracers"))
        .is_ok_and(|t| t.split_whitespace().any(|x| x == "irqsoff"))
}

/// 100 ms windows of `preemptirq_delay_test` (irq mode) on CPU 1, read by the irqsoff
/// tracer with the floor method; the tracer's column is trusted only if all are within 1%.
fn precheck(n: usize) -> Res<Value> {
    if !irqsoff_available() {
        return Ok(
            json!({"passed": false, "reason": "this kernel has no irqsoff tracer (CONFIG_IRQSOFF_TRACER is not set)", "readings_us": []}),
        );
    }
    if sh("modprobe preemptirq_delay_test test_mode=irq delay=100000 cpu_affinity=1 2>/dev/null")
        .is_err()
    {
        return Ok(
            json!({"passed": false, "reason": "this kernel has no preemptirq_delay_test module", "readings_us": []}),
        );
    }
    // Loading ran one window already; let it end.
    sleep_ms(300.0);
    write(&format!("{TRACING}/current_tracer"), "irqsoff")?;
    let mut readings = Vec::new();
    let mut notes = Vec::new();
    for _ in 0..n {
        write(&format!("{TRACING}/tracing_max_latency"), "50000")?;
        write("/sys/kernel/preemptirq_delay_test/trigger", "1")?;
        sleep_ms(20.0);
        let (ns, not) = irqsoff_reading(50_000, 1, "preemptirq")?;
        readings.push(ns.map(|v| v / 1000));
        if let Some(n) = not {
            notes.push(n);
        }
    }
    write(&format!("{TRACING}/current_tracer"), "nop")?;
    let _ = sh("rmmod preemptirq_delay_test");
    // A reading that is not the window's (another CPU's section passed the floor first)
    // says nothing about the tracer's accuracy; it is counted, not judged.
    let read: Vec<u64> = readings.iter().flatten().copied().collect();
    let passed = !read.is_empty() && read.iter().all(|us| us.abs_diff(100_000) <= 1000);
    let reason = if read.is_empty() {
        format!("no reading was the window's: {notes:?}")
    } else if !passed {
        format!("a 100 ms window read outside 1%: {read:?} us")
    } else {
        String::new()
    };
    Ok(
        json!({"passed": passed, "reason": reason, "window_us": 100_000, "readings_us": readings, "notes": notes}),
    )
}

/// The window function of the sample for each kind, as named in stacks.
fn window_fn(kind: &str) -> &'static str {
    match kind {
        "hard" => "irqoff_sample_hardirq_window",
        "ipi" => "irqoff_sample_ipi_window",
        "hrtimer" => "irqoff_sample_hrtimer_window",
        "timerirq" => "irqoff_sample_timer_irqoff_window",
        "timer" => "irqoff_sample_timer_window",
        _ => "irqoff_sample_softirq_window",
    }
}

/// Windows opened in interrupt context on CPU 1 while it is idle, asked from CPU 0: an
/// IPI function, a hard hrtimer callback, a timer_list callback with interrupts off
/// (hardirq-off) and one with interrupts on (softirq-off); (kind, event, base kind).
const IRQ_KINDS: [(&str, &str, &str); 4] = [
    ("ipi", "hardirq_off", "hard"),
    ("hrtimer", "hardirq_off", "hard"),
    ("timerirq", "hardirq_off", "hard"),
    ("timer", "softirq_off", "soft"),
];

/// One injected window, for one tool: `kind` as reported in the results, `base` the
/// tool's kind of it (hard or soft) and `event` our tracepoint for it.
struct WindowRun {
    tool: Tool,
    period_ms: u64,
    kind: &'static str,
    base: &'static str,
    event: &'static str,
    d_us: u64,
    true_ns: u64,
}

impl WindowRun {
    /// The tool's report of the window, with the irqsoff tracer's reading when taken.
    fn observe(&self, irqsoff_ns: Option<u64>, irqsoff_not: Option<String>) -> Res<Window> {
        let (tool, base) = (self.tool, self.base);
        let (detected, reported_ns, lower_bound, recs) = match tool {
            Tool::Ours => {
                let rep = reported(self.event)?;
                (rep.is_some(), rep, false, our_records(base)?)
            }
            Tool::Peer => {
                let recs = peer_records(base)?;
                let (h, s) = peer_counts()?;
                let counted = if base == "hard" { h } else { s };
                // Its final record if there is one, else its lower bound.
                let best = recs
                    .iter()
                    .filter(|r| !r.lower_bound)
                    .map(|r| r.latency_ns)
                    .max();
                let lb = recs
                    .iter()
                    .filter(|r| r.lower_bound)
                    .map(|r| r.latency_ns)
                    .max();
                (
                    counted > 0 || !recs.is_empty(),
                    best.or(lb),
                    best.is_none() && lb.is_some(),
                    recs,
                )
            }
        };
        let top = recs
            .iter()
            .filter(|r| !r.lower_bound || tool == Tool::Peer)
            .max_by_key(|r| r.latency_ns);
        Ok(Window {
            tool: tool.name(),
            period_ms: self.period_ms,
            kind: self.kind,
            d_us: self.d_us,
            true_ns: self.true_ns,
            detected,
            reported_ns,
            lower_bound,
            first_frame: top.and_then(|r| r.frames.first().cloned()),
            window_fn_at: top.and_then(|r| {
                r.frames
                    .iter()
                    .position(|f| f.contains(window_fn(self.kind)))
            }),
            irqsoff_ns,
            irqsoff_not,
        })
    }
}

fn accuracy(reps: usize, with_irqsoff: bool) -> Res<Vec<Window>> {
    let _ = fs::create_dir(INSTANCE);
    let mut out = Vec::new();
    let tools: Vec<Tool> = if peer_available() {
        vec![Tool::Ours, Tool::Peer]
    } else {
        vec![Tool::Ours]
    };
    for tool in tools {
        for period_ms in [10u64, 1] {
            // Ours reports every event through its tracepoint and keeps records from 50 ms;
            // the peer reports only through records, so it gets its lowest threshold (2P).
            let threshold = if tool == Tool::Ours {
                2 * period_ms.max(25)
            } else {
                2 * period_ms
            };
            load_tool(tool, period_ms, threshold)?;
            if tool == Tool::Ours {
                // The module's events exist only while it is loaded.
                write(
                    &format!("{INSTANCE}/events/trace_irqoff/hardirq_off/enable"),
                    "1",
                )?;
                write(
                    &format!("{INSTANCE}/events/trace_irqoff/softirq_off/enable"),
                    "1",
                )?;
            }
            let p_us = period_ms * 1000;
            let mut ds = vec![
                p_us / 2,
                p_us,
                p_us * 3 / 2,
                2 * p_us,
                5 * p_us,
                10 * p_us,
                50_000,
                100_000,
                200_000,
            ];
            ds.sort_unstable();
            ds.dedup();
            for (kind, mode, event) in [
                ("hard", "hardirq", "hardirq_off"),
                ("soft", "softirq", "softirq_off"),
            ] {
                let irqsoff = with_irqsoff && kind == "hard";
                if irqsoff {
                    write(&format!("{TRACING}/current_tracer"), "irqsoff")?;
                }
                for &d_us in &ds {
                    for _ in 0..reps {
                        write(&format!("{TIO}/trace_latency"), "0")?;
                        if tool == Tool::Ours {
                            write(&format!("{INSTANCE}/trace"), "")?;
                        }
                        let floor_us = d_us / 2;
                        if irqsoff {
                            write(
                                &format!("{TRACING}/tracing_max_latency"),
                                &floor_us.to_string(),
                            )?;
                        }
                        // The random phase comes last: clearing the trace waits for an RCU
                        // grace period, which completes in step with the tick, and would align
                        // every window to it.
                        sleep_ms(fastrand::f64() * period_ms as f64 + 5.0);
                        let true_ns = inject(mode, d_us)?;
                        // Let the timer_list run after the window (it may be a jiffy late).
                        sleep_ms(3.0 * period_ms as f64 + 5.0);
                        let (irqsoff_ns, irqsoff_not) = if irqsoff {
                            irqsoff_reading(floor_us, 1, "sample")?
                        } else {
                            (None, None)
                        };
                        let w = WindowRun {
                            tool,
                            period_ms,
                            kind,
                            base: kind,
                            event,
                            d_us,
                            true_ns,
                        };
                        out.push(w.observe(irqsoff_ns, irqsoff_not)?);
                    }
                }
                if irqsoff {
                    write(&format!("{TRACING}/current_tracer"), "nop")?;
                }
            }
            // Interrupt-context windows: asked from CPU 0, so that CPU 1 is idle when its
            // interrupt comes.
            pin_to(0)?;
            for (kind, event, base) in IRQ_KINDS {
                for d_us in [50_000u64, 100_000] {
                    for _ in 0..reps {
                        write(&format!("{TIO}/trace_latency"), "0")?;
                        if tool == Tool::Ours {
                            write(&format!("{INSTANCE}/trace"), "")?;
                        }
                        sleep_ms(fastrand::f64() * period_ms as f64 + 5.0);
                        let true_ns = inject(&format!("{kind} 1"), d_us)?;
                        sleep_ms(3.0 * period_ms as f64 + 5.0);
                        let w = WindowRun {
                            tool,
                            period_ms,
                            kind,
                            base,
                            event,
                            d_us,
                            true_ns,
                        };
                        out.push(w.observe(None, None)?);
                    }
                }
            }
            pin_to(1)?;
        }
    }
    unload();
    Ok(out)
}

/// Our events over all CPUs, from the records file: hardirq, softirq with bottom halves
/// off, softirq waiting for ksoftirqd, idle gaps, late timer gaps.
fn counted() -> Res<(u64, u64, u64, u64, u64)> {
    let text = read(&format!("{TIO}/records"))?;
    let (mut hard, mut bh, mut wait, mut idle, mut late) = (0, 0, 0, 0, 0);
    for l in text.lines().filter(|l| l.starts_with("cpu ")) {
        for w in l.split(' ') {
            let num = |p: &str| {
                w.strip_prefix(p)
                    .and_then(|v| v.parse::<u64>().ok())
                    .unwrap_or(0)
            };
            hard += num("hard_events=");
            bh += num("soft_bh_off_events=");
            wait += num("soft_ksoftirqd_wait_events=");
            idle += num("idle_gaps=");
            late += num("late_timer_gaps=");
        }
    }
    Ok((hard, bh, wait, idle, late))
}

fn stress(until: Instant) -> Vec<std::thread::JoinHandle<()>> {
    let mut v = Vec::new();
    for cpu in 0..2 {
        v.push(std::thread::spawn(move || {
            let _ = pin_to(cpu);
            let mut x = 0u64;
            while Instant::now() < until {
                for i in 0..100_000u64 {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
                }
                std::hint::black_box(x);
            }
        }));
    }
    v.push(std::thread::spawn(move || {
        // I/O: write and read back a file on tmpfs, and read null_blk if present.
        let buf = vec![0x5au8; 1 << 20];
        while Instant::now() < until {
            let _ = fs::write("/tmp/tio-stress", &buf);
            let _ = fs::read("/tmp/tio-stress");
            let _ = Command::new("tio-dread")
                .args(["/dev/nullb0", "4", "0.2"])
                .output();
        }
    }));
    v
}

/// Our module's `config` line from its records file (empty if it has none).
fn config_line() -> Res<String> {
    Ok(read(&format!("{TIO}/records"))?
        .lines()
        .find(|l| l.starts_with("config "))
        .unwrap_or("")
        .to_string())
}

/// The tracefs instance of the false-event runs' witness (`witness`).
const WITNESS: &str = "/sys/kernel/tracing/instances/tio_witness";
/// The kernel events the witness reads, and the module's own two.
const WITNESS_EVENTS: [&str; 7] = [
    "irq/softirq_raise",
    "irq/softirq_entry",
    "irq/softirq_exit",
    "timer/hrtimer_start",
    "timer/hrtimer_expire_entry",
    "trace_irqoff/hardirq_off",
    "trace_irqoff/softirq_off",
];

/// Starts tracing the witness events in an instance of its own (24 MiB per CPU, the
/// records' clock); the module must be loaded (its events exist only then). Returns the
/// kernel's HZ, from the records file's config line (read now, while it is short).
fn witness_start() -> Res<u64> {
    let hz: u64 = config_line()?
        .split(' ')
        .find_map(|w| w.strip_prefix("hz="))
        .and_then(|v| v.parse().ok())
        .ok_or("no hz= in the records file's config line")?;
    let _ = fs::remove_dir(WITNESS);
    fs::create_dir(WITNESS).map_err(|e| format!("{WITNESS}: {e}"))?;
    write(&format!("{WITNESS}/buffer_size_kb"), "24576")?;
    let _ = write(&format!("{WITNESS}/trace_clock"), "mono");
    for e in WITNESS_EVENTS {
        write(&format!("{WITNESS}/events/{e}/enable"), "1")?;
    }
    write(&format!("{WITNESS}/tracing_on"), "1")?;
    Ok(hz)
}

/// Judges each event of the module in the witness's trace (stopped): confirmed when the
/// kernel's own events show a window of that kind on that CPU as long as the event less
/// the tolerance (one period for hardirq windows, one period and one jiffy for softirq
/// windows: how far the module's reading may be off) and at least half as long.
fn witness_judge(period_ms: u64, hz: u64) -> Res<Value> {
    let tol_hard = period_ms * 1_000_000;
    let tol_soft = tol_hard + 1_000_000_000 / hz;
    let overrun: u64 = (0..64)
        .filter_map(|c| fs::read_to_string(format!("{WITNESS}/per_cpu/cpu{c}/stats")).ok())
        .filter_map(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("overrun:"))
                .and_then(|v| v.trim().parse::<u64>().ok())
        })
        .sum();
    let f =
        fs::File::open(format!("{WITNESS}/trace")).map_err(|e| format!("{WITNESS}/trace: {e}"))?;
    let t = witness::Trace::parse(
        std::io::BufRead::lines(std::io::BufReader::new(f)).map_while(Result::ok),
    );
    for e in WITNESS_EVENTS {
        let _ = write(&format!("{WITNESS}/events/{e}/enable"), "0");
    }
    let (mut confirmed, mut unjudged) = (0u64, 0u64);
    let mut unconfirmed = Vec::new();
    let mut listed = Vec::new();
    for e in &t.events {
        let tol = match e.side {
            witness::Side::Hard => tol_hard,
            witness::Side::Soft => tol_soft,
        };
        let seen = t.witnessed_ns(e, tol);
        let what = format!(
            "cpu={} kind={} cause={} latency_ms={:.1} witnessed_ms={:.1} comm={}",
            e.cpu,
            if e.side == witness::Side::Hard {
                "hard"
            } else {
                "soft"
            },
            e.cause,
            e.latency_ns as f64 / 1e6,
            seen as f64 / 1e6,
            e.comm
        );
        if t.confirms(e, tol) {
            confirmed += 1;
        } else if !t.covers(e, tol) {
            unjudged += 1;
        } else {
            unconfirmed.push(what.clone());
        }
        if listed.len() < 16 {
            listed.push(what);
        }
    }
    Ok(json!({
        "lines": t.lines, "overrun": overrun, "hz": hz,
        "tolerance_hard_ns": tol_hard, "tolerance_soft_ns": tol_soft,
        "events": t.events.len(), "confirmed": confirmed, "unjudged": unjudged,
        "unconfirmed": unconfirmed.len(), "unconfirmed_events": unconfirmed, "first_events": listed,
    }))
}

fn false_events(secs: u64) -> Res<Vec<Value>> {
    let _ = sh("modprobe null_blk 2>/dev/null");
    let mut out = Vec::new();
    let tools: Vec<Tool> = if peer_available() {
        vec![Tool::Ours, Tool::Peer]
    } else {
        vec![Tool::Ours]
    };
    for tool in tools {
        for period_ms in [10u64, 1] {
            for stressed in [false, true] {
                let threshold = if period_ms == 10 { 50 } else { 2 };
                load_tool(tool, period_ms, threshold)?;
                // The kernel's own trace of the run, to judge our events by (the peer has
                // no events to judge).
                let traced = if tool == Tool::Ours {
                    witness_start()
                        .and_then(|hz| {
                            // Starting the trace patches code on every CPU (a 54 ms
                            // hardirq window on the bench kernel once): let it pass, then
                            // count and trace from zero.
                            sleep_ms(1000.0);
                            write(&format!("{TIO}/trace_latency"), "0")?;
                            write(&format!("{TIO}/trace_latency"), &threshold.to_string())?;
                            write(&format!("{WITNESS}/trace"), "")?;
                            Ok(hz)
                        })
                        .map_err(|e| eprintln!("tio-bench: no witness: {e}"))
                        .ok()
                } else {
                    None
                };
                let until = Instant::now() + Duration::from_secs(secs);
                let workers = if stressed { stress(until) } else { Vec::new() };
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
                for w in workers {
                    let _ = w.join();
                }
                // The run ends here for the trace too; it is read after the counts (reading
                // it is work for the CPUs: windows it may cause are no part of the run).
                let paused = traced.map(|hz| (hz, write(&format!("{WITNESS}/tracing_on"), "0")));
                let mut v = json!({"tool": tool.name(), "period_ms": period_ms, "threshold_ms": threshold, "stress": stressed, "seconds": secs});
                match tool {
                    Tool::Ours => {
                        let [hard, soft, bh, wait] = our_counts()?;
                        let (_, _, _, idle, late) = counted()?;
                        let records = read(&format!("{TIO}/records"))?
                            .lines()
                            .filter(|l| l.starts_with("record "))
                            .count();
                        v["hard_events"] = json!(hard);
                        v["soft_events"] = json!(soft);
                        v["soft_bh_off_events"] = json!(bh);
                        v["soft_ksoftirqd_wait_events"] = json!(wait);
                        v["records_above_threshold"] = json!(records);
                        v["idle_gaps"] = json!(idle);
                        v["late_timer_gaps"] = json!(late);
                        v["top_records"] = json!(record_summaries(8)?);
                        // Events that came while this program read `records` (three times).
                        let after = our_counts()?;
                        v["events_while_reading_records"] =
                            json!(after[0] + after[1] - hard - soft);
                        v["witness"] = match paused {
                            Some((hz, Ok(()))) => {
                                witness_judge(period_ms, hz).unwrap_or_else(|e| json!({"error": e}))
                            }
                            Some((_, Err(e))) => json!({"error": e}),
                            None => json!({"error": "tracefs events not available"}),
                        };
                    }
                    Tool::Peer => {
                        let (hard, soft) = peer_counts()?;
                        let text = read(&format!("{TIO}/trace_latency"))?;
                        let records = text.lines().filter(|l| l.contains("COMMAND:")).count();
                        // It keeps at most 8 records per CPU and kind until cleared.
                        v["hard_events"] = json!(hard);
                        v["soft_events"] = json!(soft);
                        v["records_above_threshold"] = json!(records);
                        v["lower_bound_records"] = json!(text
                            .lines()
                            .filter(|l| l.contains("COMMAND:") && l.contains("+ms"))
                            .count());
                    }
                }
                out.push(v);
            }
        }
    }
    unload();
    let _ = fs::remove_dir(WITNESS);
    let _ = sh("rmmod null_blk 2>/dev/null");
    Ok(out)
}

/// hackbench-like: `groups` x (10 senders, 10 receivers) threads; every sender sends
/// `loops` 100-byte messages to every receiver of its group over a pipe. Returns seconds.
fn hackbench(groups: usize, loops: usize) -> f64 {
    let start = Instant::now();
    let mut handles = Vec::new();
    for _ in 0..groups {
        let mut writers = Vec::new();
        for _ in 0..10 {
            let (mut r, w) = std::io::pipe().expect("pipe");
            writers.push(w);
            handles.push(std::thread::spawn(move || {
                let mut buf = [0u8; 100];
                let mut left = 10 * loops * 100;
                while left > 0 {
                    let n = r.read(&mut buf[..left.min(100)]).unwrap_or(0);
                    if n == 0 {
                        break;
                    }
                    left -= n;
                }
            }));
        }
        for _ in 0..10 {
            let mut ws: Vec<_> = writers
                .iter()
                .map(|w| w.try_clone().expect("dup"))
                .collect();
            handles.push(std::thread::spawn(move || {
                let msg = [0x42u8; 100];
                for _ in 0..loops {
                    for w in ws.iter_mut() {
                        let _ = w.write_all(&msg);
                    }
                }
            }));
        }
    }
    for h in handles {
        let _ = h.join();
    }
    start.elapsed().as_secs_f64()
}

fn set_config(name: &str) -> Res<()> {
    let _ = write(&format!("{TRACING}/current_tracer"), "nop");
    match name {
        "not_loaded" => unload(),
        "loaded_disabled" => {
            unload();
            sh("modprobe trace_irqoff")?;
        }
        "ours_p10" => load_tool(Tool::Ours, 10, 50)?,
        "ours_p1" => load_tool(Tool::Ours, 1, 25)?,
        "peer_p10" => load_tool(Tool::Peer, 10, 50)?,
        "peer_p1" => load_tool(Tool::Peer, 1, 25)?,
        "irqsoff_tracer" => {
            unload();
            write(&format!("{TRACING}/current_tracer"), "irqsoff")?;
        }
        "timerlat" => {
            unload();
            write(&format!("{TRACING}/current_tracer"), "timerlat")?;
        }
        _ => return Err(format!("unknown config {name}")),
    }
    Ok(())
}

/// The configurations this guest can run: the peer and the tracers only where present.
fn configs() -> Vec<&'static str> {
    let tracers = read(&format!("{TRACING}/available_tracers")).unwrap_or_default();
    let has = |t: &str| tracers.split_whitespace().any(|x| x == t);
    let mut v = vec!["not_loaded", "loaded_disabled", "ours_p10", "ours_p1"];
    if peer_available() {
        v.extend(["peer_p10", "peer_p1"]);
    }
    if has("irqsoff") {
        v.push("irqsoff_tracer");
    }
    if has("timerlat") {
        v.push("timerlat");
    }
    v
}

/// The deterministic workload: one loop pinned to each CPU (both are sampled), counting
/// iterations until the same instant, `ms` of guest time away. Guest time counts
/// instructions (icount) shared by both vCPUs, so the loops together lose exactly the
/// instructions the kernel runs meanwhile; with both CPUs busy there is no idle exit to
/// pay, as on a loaded machine. Returns the iterations per CPU.
fn spin(ms: u64) -> Res<Vec<u64>> {
    let end = Instant::now() + Duration::from_millis(ms);
    let workers: Vec<_> = (0..2)
        .map(|cpu| {
            std::thread::spawn(move || -> Res<u64> {
                pin_to(cpu)?;
                let (mut n, mut x) = (0u64, 1u64);
                while Instant::now() < end {
                    for i in 0..64u64 {
                        x = x.wrapping_mul(6364136223846793005).wrapping_add(i);
                    }
                    n += 1;
                }
                std::hint::black_box(x);
                Ok(n)
            })
        })
        .collect();
    workers
        .into_iter()
        .map(|w| w.join().map_err(|_| "spin thread panicked".to_string())?)
        .collect()
}

/// How long the overhead step waits after setting a configuration before it measures: the
/// steady state, not the load, enable, disable or unload before it. Within the first
/// second after those, the kernel's deferred work (measured on Debian's 7.3 with 50 ms
/// here: runs of our rows, the module loaded but disabled too, lost up to 6% of a 100 ms
/// loop, none with 1.5 s) lands in the loop.
const SETTLE_MS: f64 = 1500.0;

fn overhead(runs: usize, groups: usize, loops: usize, spin_ms: u64) -> Res<Value> {
    let cfgs = configs();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    let mut iters: Vec<Vec<u64>> = vec![Vec::new(); cfgs.len()];
    let mut iters1: Vec<Vec<u64>> = vec![Vec::new(); cfgs.len()];
    hackbench(groups, loops); // warm-up
    spin(spin_ms)?;
    for round in 0..runs {
        // Every configuration once per round, the order rotated from round to round.
        for k in 0..cfgs.len() {
            let i = (k + round) % cfgs.len();
            set_config(cfgs[i])?;
            sleep_ms(SETTLE_MS);
            let n = spin(spin_ms)?;
            iters[i].push(n.iter().sum());
            iters1[i].push(n.get(1).copied().unwrap_or(0));
            times[i].push(hackbench(groups, loops));
        }
    }
    set_config("not_loaded")?;
    Ok(
        json!({"groups": groups, "loops": loops, "runs": runs, "spin_ms": spin_ms, "settle_ms": SETTLE_MS,
        "configs": cfgs.iter().zip(times).zip(iters).zip(iters1).map(|(((c, t), n), n1)| json!({"config": c, "seconds": t, "spin_iterations": n, "spin_iterations_cpu1": n1})).collect::<Vec<_>>()}),
    )
}

/// CPU `cpu`'s count of local timer interrupts (the "LOC:" row of /proc/interrupts) and
/// of every interrupt it took (all rows): what wakes an idle CPU.
fn interrupts_of(cpu: usize) -> Res<(u64, u64)> {
    let text = read("/proc/interrupts")?;
    let (mut loc, mut all) = (0u64, 0u64);
    for l in text.lines().skip(1) {
        let mut w = l.split_whitespace();
        let Some(name) = w.next() else { continue };
        let Some(n) = w.nth(cpu).and_then(|v| v.parse::<u64>().ok()) else {
            continue;
        };
        all += n;
        if name == "LOC:" {
            loc = n;
        }
    }
    Ok((loc, all))
}

/// Wake-ups of an idle CPU: with this task on CPU 0 and nothing else to run, CPU 1's local
/// timer interrupts and all its interrupts per second over `secs` s of guest time, in every
/// configuration but the tracers, `rounds` times (the order rotated from round to round).
/// Each measure starts a second after the configuration was set.
fn idle_wakeups(secs: u64, rounds: usize) -> Res<Value> {
    pin_to(0)?;
    let cfgs: Vec<&str> = configs()
        .into_iter()
        .filter(|c| !matches!(*c, "irqsoff_tracer" | "timerlat"))
        .collect();
    let mut loc: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    let mut all: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    for round in 0..rounds {
        for k in 0..cfgs.len() {
            let i = (k + round) % cfgs.len();
            set_config(cfgs[i])?;
            std::thread::sleep(Duration::from_secs(1));
            let (l0, a0) = interrupts_of(1)?;
            let t0 = Instant::now();
            std::thread::sleep(Duration::from_secs(secs));
            let (l1, a1) = interrupts_of(1)?;
            let dt = t0.elapsed().as_secs_f64();
            loc[i].push(l1.saturating_sub(l0) as f64 / dt);
            all[i].push(a1.saturating_sub(a0) as f64 / dt);
        }
    }
    set_config("not_loaded")?;
    Ok(json!({"cpu": 1, "seconds": secs, "rounds": rounds,
        "configs": cfgs.iter().zip(loc).zip(all).map(|((c, l), a)| json!({"config": c, "loc_per_s": l, "irqs_per_s": a})).collect::<Vec<_>>()}))
}

/// Wake-ups of a busy CPU: both CPUs in `spin` loops for `secs` s of guest time, CPU 1's
/// local timer interrupts per second (its tick and any hrtimer that does not share the
/// tick's interrupt) and the loops' iterations per second, in every configuration but the
/// tracers, `rounds` times (the order rotated from round to round), each a second after
/// the configuration was set (past what enabling costs once).
fn busy_wakeups(secs: u64, rounds: usize) -> Res<Value> {
    let cfgs: Vec<&str> = configs()
        .into_iter()
        .filter(|c| !matches!(*c, "irqsoff_tracer" | "timerlat"))
        .collect();
    let mut loc: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    let mut iters: Vec<Vec<f64>> = vec![Vec::new(); cfgs.len()];
    for round in 0..rounds {
        for k in 0..cfgs.len() {
            let i = (k + round) % cfgs.len();
            set_config(cfgs[i])?;
            std::thread::sleep(Duration::from_secs(1));
            let (l0, _) = interrupts_of(1)?;
            let t0 = Instant::now();
            let n = spin(secs * 1000)?;
            let (l1, _) = interrupts_of(1)?;
            let dt = t0.elapsed().as_secs_f64();
            loc[i].push(l1.saturating_sub(l0) as f64 / dt);
            iters[i].push(n.iter().sum::<u64>() as f64 / dt);
        }
    }
    set_config("not_loaded")?;
    Ok(json!({"cpu": 1, "seconds": secs, "rounds": rounds,
        "configs": cfgs.iter().zip(loc).zip(iters).map(|((c, l), n)| json!({"config": c, "loc_per_s": l, "spin_iterations_per_s": n})).collect::<Vec<_>>()}))
}

/// Handler cost from the records file, per kind over all CPUs: runs, total, histogram.
/// Both CPUs busy in a loop (`spin`), the common case: a run that comes into the idle loop
/// also reads the interrupt counts of its sleep evidence.
fn cost(period_ms: u64, secs: u64) -> Res<Value> {
    load(period_ms, 2 * period_ms.max(25))?;
    spin(secs * 1000)?;
    let text = read(&format!("{TIO}/records"))?;
    let mut v = json!({"period_ms": period_ms, "seconds": secs});
    for kind in ["hard", "soft"] {
        let (mut runs, mut total, mut hist) = (0u64, 0u64, vec![0u64; 24]);
        for l in text
            .lines()
            .filter(|l| l.starts_with("cost ") && l.split(' ').nth(2) == Some(kind))
        {
            let w: Vec<&str> = l.split(' ').collect();
            runs += w[3].trim_start_matches("runs=").parse::<u64>().unwrap_or(0);
            total += w[4]
                .trim_start_matches("total_ns=")
                .parse::<u64>()
                .unwrap_or(0);
            for (h, c) in hist.iter_mut().zip(w[6..].iter()) {
                *h += c.parse::<u64>().unwrap_or(0);
            }
        }
        v[kind] = json!({"runs": runs, "total_ns": total, "hist_ns_log2": hist});
    }
    let mem = text
        .lines()
        .find(|l| l.starts_with("memory "))
        .unwrap_or("")
        .to_string();
    v["memory"] = json!(mem);
    Ok(v)
}

/// The guest's own timer latency at a 1 ms period (timerlat), the floor under P = 1 ms.
fn timer_floor(secs: u64) -> Res<Value> {
    if !read(&format!("{TRACING}/available_tracers"))
        .unwrap_or_default()
        .split_whitespace()
        .any(|t| t == "timerlat")
    {
        return Ok(json!({"available": false, "reason": "this kernel has no timerlat tracer"}));
    }
    let _ = sh("rmmod trace_irqoff 2>/dev/null");
    write(&format!("{TRACING}/osnoise/timerlat_period_us"), "1000")?;
    write(&format!("{TRACING}/trace"), "")?;
    write(&format!("{TRACING}/current_tracer"), "timerlat")?;
    std::thread::sleep(Duration::from_secs(secs));
    // Changing the tracer empties the buffer: stop and read it first.
    write(&format!("{TRACING}/tracing_on"), "0")?;
    let text = read(&format!("{TRACING}/trace"))?;
    write(&format!("{TRACING}/current_tracer"), "nop")?;
    write(&format!("{TRACING}/tracing_on"), "1")?;
    // "... #12 context    irq timer_latency      4082 ns"
    let mut irq: Vec<u64> = text
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let c = w.iter().position(|x| *x == "context")?;
            if w.get(c + 1) != Some(&"irq") {
                return None;
            }
            let t = w.iter().position(|x| *x == "timer_latency")?;
            w.get(t + 1)?.parse().ok()
        })
        .collect();
    irq.sort_unstable();
    let pct = |p: f64| {
        irq.get(((irq.len() as f64 - 1.0) * p) as usize)
            .copied()
            .unwrap_or(0)
    };
    Ok(
        json!({"available": true, "period_us": 1000, "seconds": secs, "samples": irq.len(), "irq_latency_ns": {"median": pct(0.5), "p99": pct(0.99), "max": irq.last().copied().unwrap_or(0)},
        "over_1ms": irq.iter().filter(|&&v| v > 1_000_000).count()}),
    )
}

static PRECHECK: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

fn precheck_passed() -> bool {
    PRECHECK.load(std::sync::atomic::Ordering::Relaxed)
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the report header states about the guest: kernel, clocksource, TSC, HZ, CPUs.
fn guest() -> Res<Value> {
    let dmesg = Command::new("dmesg")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
        .unwrap_or_default();
    let unstable: Vec<&str> = dmesg
        .lines()
        .filter(|l| l.contains("TSC unstable") || l.contains("Marking TSC unstable"))
        .collect();
    // Our module's config line names HZ and the softirq sampler's event rule.
    load(10, 50)?;
    let cfg10 = config_line()?;
    load(1, 25)?;
    let cfg1 = config_line()?;
    unload();
    Ok(json!({
        "kernel": read("/proc/version")?.trim(),
        "cmdline": read("/proc/cmdline")?.trim(),
        "clocksource": read("/sys/devices/system/clocksource/clocksource0/current_clocksource")?.trim(),
        "tsc_unstable": unstable,
        "cpus": read("/proc/cpuinfo")?.lines().filter(|l| l.starts_with("processor")).count(),
        "config_p10": cfg10,
        "config_p1": cfg1,
        "peer": peer_available(),
    }))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = arg(&args, "--reps", 20) as usize;
    let false_secs = arg(&args, "--false-secs", 600);
    let runs = arg(&args, "--runs", 10) as usize;
    let groups = arg(&args, "--groups", 2) as usize;
    let loops = arg(&args, "--loops", 300) as usize;
    let spin_ms = arg(&args, "--spin-ms", 200);
    let checks = arg(&args, "--precheck", 5) as usize;
    let idle_secs = arg(&args, "--idle-secs", 10);
    let idle_rounds = arg(&args, "--idle-rounds", 3) as usize;
    let busy_secs = arg(&args, "--busy-secs", 3);
    let mut doc = json!({"version": 2, "reps": reps});
    let steps: [Step; 10] = [
        ("guest", Box::new(guest)),
        (
            "precheck",
            Box::new(move || {
                pin_to(0)?;
                precheck(checks)
            }),
        ),
        (
            "accuracy",
            Box::new(move || {
                // The irqsoff tracer's column is filled only if it passed the precheck.
                let trusted = precheck_passed();
                pin_to(1)?;
                let v = accuracy(reps, trusted)?;
                pin_to(0)?;
                Ok(serde_json::to_value(v).unwrap_or_default())
            }),
        ),
        ("timer_floor", Box::new(|| timer_floor(10))),
        (
            "false_events",
            Box::new(move || Ok(Value::Array(false_events(false_secs)?))),
        ),
        (
            "overhead",
            Box::new(move || overhead(runs, groups, loops, spin_ms)),
        ),
        (
            "idle_wakeups",
            Box::new(move || idle_wakeups(idle_secs, idle_rounds)),
        ),
        (
            "busy_wakeups",
            Box::new(move || busy_wakeups(busy_secs, idle_rounds)),
        ),
        ("cost_p10", Box::new(|| cost(10, 5))),
        ("cost_p1", Box::new(|| cost(1, 5))),
    ];
    let mut failed = sh("modprobe irqoff_sample").is_err();
    // `--only STEP[,STEP]`: those steps alone (the guest's facts always).
    let only: Option<Vec<String>> = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').map(str::to_string).collect());
    for (name, f) in steps.iter() {
        if *name != "guest" && only.as_ref().is_some_and(|o| !o.iter().any(|x| x == name)) {
            continue;
        }
        eprintln!("tio-bench: {name}...");
        let t = Instant::now();
        match f() {
            Ok(v) => {
                if *name == "precheck" {
                    PRECHECK.store(v["passed"] == true, std::sync::atomic::Ordering::Relaxed);
                }
                doc[*name] = v;
            }
            Err(e) => {
                eprintln!("tio-bench: {name} failed: {e}");
                doc[format!("{name}_error")] = json!(e);
                failed = true;
            }
        }
        eprintln!("tio-bench: {name} took {:.1} s", t.elapsed().as_secs_f64());
    }
    doc["kernel"] = json!(read("/proc/version").unwrap_or_default().trim());
    unload();
    println!("TIO_BENCH_JSON_BEGIN");
    println!("{}", serde_json::to_string(&doc).unwrap_or_default());
    println!("TIO_BENCH_JSON_END");
    std::process::exit(i32::from(failed));
}
