// SPDX-License-Identifier: GPL-2.0
//! `tio-bench`: the benchmark driver that runs inside the VM (see `make bench` and
//! Documentation/benchmarks.rst). Prints one JSON document.
//!
//! `tio-bench [--reps N] [--false-secs S] [--runs N] [--groups G] [--loops L]`
//!
//! - accuracy: windows of D in {P/2, P, 1.5P, 2P, 5P, 10P, 50, 100, 200 ms} for P = 10 and
//!   1 ms, each kind, N times at a random phase, on CPU 1. The sample measures each
//!   window's true length; trace_irqoff's report comes from its tracepoints (a tracefs
//!   instance of its own); the irqsoff tracer measures the hardirq windows too.
//! - false events: S seconds idle and S seconds under CPU + I/O stress, at P = 10 and 1 ms.
//! - overhead: a hackbench-like pipe workload, N alternating runs per configuration.
//! - cost per sample and memory, from the module's records file; the timer floor of the
//!   guest from timerlat.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};

const TIO: &str = "/proc/trace_irqoff";
const TRACING: &str = "/sys/kernel/tracing";
const INSTANCE: &str = "/sys/kernel/tracing/instances/tio_bench";

type Res<T> = Result<T, String>;
/// One named measurement of the run, done in turn.
type Step<'a> = (&'a str, Box<dyn Fn() -> Res<Value>>);

fn write(path: &str, v: &str) -> Res<()> {
    let mut f = OpenOptions::new().write(true).truncate(true).open(path).map_err(|e| format!("{path}: {e}"))?;
    f.write_all(v.as_bytes()).map_err(|e| format!("{path} <- {v:?}: {e}"))
}

fn read(path: &str) -> Res<String> {
    fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn sh(cmd: &str) -> Res<()> {
    let st = Command::new("sh").arg("-c").arg(cmd).status().map_err(|e| e.to_string())?;
    if st.success() { Ok(()) } else { Err(format!("'{cmd}' failed: {st}")) }
}

fn sleep_ms(ms: f64) {
    std::thread::sleep(Duration::from_secs_f64(ms / 1000.0));
}

fn pin_to(cpu: usize) -> Res<()> {
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    rustix::thread::sched_setaffinity(None, &set).map_err(|e| format!("sched_setaffinity: {e}"))
}

/// Loads trace_irqoff afresh with period P ms and threshold T ms, enabled.
fn load(period_ms: u64, threshold_ms: u64) -> Res<()> {
    let _ = sh("rmmod trace_irqoff 2>/dev/null");
    sh("modprobe trace_irqoff")?;
    write(&format!("{TIO}/sampling_period"), &period_ms.to_string())?;
    write(&format!("{TIO}/trace_latency"), &threshold_ms.to_string())?;
    write(&format!("{TIO}/enable"), "1")
}

/// One window from the sample module, on this thread's CPU; returns its true length.
fn inject(mode: &str, us: u64) -> Res<u64> {
    let mut f = OpenOptions::new().read(true).write(true).open("/dev/irqoff_sample").map_err(|e| e.to_string())?;
    f.write_all(format!("{mode} {us}us").as_bytes()).map_err(|e| e.to_string())?;
    let mut s = String::new();
    f.read_to_string(&mut s).map_err(|e| e.to_string())?;
    s.trim().parse().map_err(|_| format!("bad sample answer {s:?}"))
}

#[derive(Serialize)]
struct Window {
    period_ms: u64,
    kind: &'static str,
    d_us: u64,
    true_ns: u64,
    detected: bool,
    reported_ns: Option<u64>,
    irqsoff_ns: Option<u64>,
}

/// Largest latency of `event` on cpu 1 in the instance's buffer.
fn reported(event: &str) -> Res<Option<u64>> {
    let text = read(&format!("{INSTANCE}/trace"))?;
    Ok(text
        .lines()
        .filter(|l| l.contains(&format!("{event}: cpu=1 ")))
        .filter_map(|l| l.split("latency_ns=").nth(1)?.split(' ').next()?.parse::<u64>().ok())
        .max())
}

fn accuracy(reps: usize) -> Res<Vec<Window>> {
    let _ = fs::create_dir(INSTANCE);
    let mut out = Vec::new();
    for period_ms in [10u64, 1] {
        load(period_ms, 2 * period_ms.max(25))?;
        // The module's events exist only while it is loaded.
        write(&format!("{INSTANCE}/events/trace_irqoff/hardirq_off/enable"), "1")?;
        write(&format!("{INSTANCE}/events/trace_irqoff/softirq_off/enable"), "1")?;
        let p_us = period_ms * 1000;
        let mut ds = vec![p_us / 2, p_us, p_us * 3 / 2, 2 * p_us, 5 * p_us, 10 * p_us, 50_000, 100_000, 200_000];
        ds.sort_unstable();
        ds.dedup();
        for (kind, mode, event) in [("hard", "hardirq", "hardirq_off"), ("soft", "softirq", "softirq_off")] {
            if kind == "hard" {
                write(&format!("{TRACING}/current_tracer"), "irqsoff")?;
            }
            for &d_us in &ds {
                for _ in 0..reps {
                    write(&format!("{INSTANCE}/trace"), "")?;
                    if kind == "hard" {
                        write(&format!("{TRACING}/tracing_max_latency"), "0")?;
                    }
                    // The random phase comes last: clearing the trace waits for an RCU
                    // grace period, which completes in step with the tick, and would align
                    // every window to it.
                    sleep_ms(fastrand::f64() * period_ms as f64 + 5.0);
                    let true_ns = inject(mode, d_us)?;
                    // Let the timer_list run after the window (it may be a jiffy late).
                    sleep_ms(3.0 * period_ms as f64 + 5.0);
                    let rep = reported(event)?;
                    let irqsoff_ns = if kind == "hard" {
                        read(&format!("{TRACING}/tracing_max_latency"))?.trim().parse::<u64>().ok().map(|us| us * 1000)
                    } else {
                        None
                    };
                    out.push(Window { period_ms, kind, d_us, true_ns, detected: rep.is_some(), reported_ns: rep, irqsoff_ns });
                }
            }
            write(&format!("{TRACING}/current_tracer"), "nop")?;
        }
    }
    Ok(out)
}

/// Events and idle gaps counted over all CPUs, from the records file.
fn counted() -> Res<(u64, u64, u64)> {
    let text = read(&format!("{TIO}/records"))?;
    let (mut hard, mut soft, mut idle) = (0, 0, 0);
    for l in text.lines().filter(|l| l.starts_with("cpu ")) {
        for w in l.split(' ') {
            let num = |p: &str| w.strip_prefix(p).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
            hard += num("hard_events=");
            soft += num("soft_events=");
            idle += num("idle_gaps=");
        }
    }
    Ok((hard, soft, idle))
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
            let _ = Command::new("tio-dread").args(["/dev/nullb0", "4", "0.2"]).output();
        }
    }));
    v
}

fn false_events(secs: u64) -> Res<Vec<Value>> {
    let _ = sh("modprobe null_blk 2>/dev/null");
    let mut out = Vec::new();
    for period_ms in [10u64, 1] {
        for stressed in [false, true] {
            let threshold = if period_ms == 10 { 50 } else { 2 };
            load(period_ms, threshold)?;
            let until = Instant::now() + Duration::from_secs(secs);
            let workers = if stressed { stress(until) } else { Vec::new() };
            std::thread::sleep(until.saturating_duration_since(Instant::now()));
            for w in workers {
                let _ = w.join();
            }
            let (hard, soft, idle) = counted()?;
            let records = read(&format!("{TIO}/records"))?.lines().filter(|l| l.starts_with("record ")).count();
            out.push(json!({"period_ms": period_ms, "threshold_ms": threshold, "stress": stressed, "seconds": secs,
                "hard_events": hard, "soft_events": soft, "records_above_threshold": records, "idle_gaps": idle}));
        }
    }
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
            let mut ws: Vec<_> = writers.iter().map(|w| w.try_clone().expect("dup")).collect();
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
        "not_loaded" => { let _ = sh("rmmod trace_irqoff 2>/dev/null"); }
        "loaded_disabled" => { let _ = sh("rmmod trace_irqoff 2>/dev/null"); sh("modprobe trace_irqoff")?; }
        "enabled_p10" => load(10, 50)?,
        "enabled_p1" => load(1, 25)?,
        "tag_wait_on" => { let _ = sh("rmmod trace_irqoff 2>/dev/null"); sh("modprobe trace_irqoff")?; write(&format!("{TIO}/tag_wait"), "1")?; }
        "irqsoff_tracer" => { let _ = sh("rmmod trace_irqoff 2>/dev/null"); write(&format!("{TRACING}/current_tracer"), "irqsoff")?; }
        "timerlat" => { let _ = sh("rmmod trace_irqoff 2>/dev/null"); write(&format!("{TRACING}/current_tracer"), "timerlat")?; }
        _ => return Err(format!("unknown config {name}")),
    }
    Ok(())
}

const CONFIGS: [&str; 7] = ["not_loaded", "loaded_disabled", "enabled_p10", "enabled_p1", "tag_wait_on", "irqsoff_tracer", "timerlat"];

fn overhead(runs: usize, groups: usize, loops: usize) -> Res<Value> {
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); CONFIGS.len()];
    hackbench(groups, loops); // warm-up
    for _ in 0..runs {
        for (i, c) in CONFIGS.iter().enumerate() {
            set_config(c)?;
            sleep_ms(50.0);
            times[i].push(hackbench(groups, loops));
        }
    }
    set_config("not_loaded")?;
    Ok(json!({"groups": groups, "loops": loops, "runs": runs,
        "configs": CONFIGS.iter().zip(times).map(|(c, t)| json!({"config": c, "seconds": t})).collect::<Vec<_>>()}))
}

/// Handler cost from the records file, per kind over all CPUs: runs, total, histogram.
fn cost(period_ms: u64, secs: u64) -> Res<Value> {
    load(period_ms, 2 * period_ms.max(25))?;
    std::thread::sleep(Duration::from_secs(secs));
    let text = read(&format!("{TIO}/records"))?;
    let mut v = json!({"period_ms": period_ms, "seconds": secs});
    for kind in ["hard", "soft"] {
        let (mut runs, mut total, mut hist) = (0u64, 0u64, vec![0u64; 24]);
        for l in text.lines().filter(|l| l.starts_with("cost ") && l.split(' ').nth(2) == Some(kind)) {
            let w: Vec<&str> = l.split(' ').collect();
            runs += w[3].trim_start_matches("runs=").parse::<u64>().unwrap_or(0);
            total += w[4].trim_start_matches("total_ns=").parse::<u64>().unwrap_or(0);
            for (h, c) in hist.iter_mut().zip(w[6..].iter()) {
                *h += c.parse::<u64>().unwrap_or(0);
            }
        }
        v[kind] = json!({"runs": runs, "total_ns": total, "hist_ns_log2": hist});
    }
    let mem = text.lines().find(|l| l.starts_with("memory ")).unwrap_or("").to_string();
    v["memory"] = json!(mem);
    Ok(v)
}

/// The guest's own timer latency at a 1 ms period (timerlat), the floor under P = 1 ms.
fn timer_floor(secs: u64) -> Res<Value> {
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
    let pct = |p: f64| irq.get(((irq.len() as f64 - 1.0) * p) as usize).copied().unwrap_or(0);
    Ok(json!({"period_us": 1000, "seconds": secs, "samples": irq.len(), "irq_latency_ns": {"median": pct(0.5), "p99": pct(0.99), "max": irq.last().copied().unwrap_or(0)},
        "over_1ms": irq.iter().filter(|&&v| v > 1_000_000).count()}))
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let reps = arg(&args, "--reps", 20) as usize;
    let false_secs = arg(&args, "--false-secs", 600);
    let runs = arg(&args, "--runs", 10) as usize;
    let groups = arg(&args, "--groups", 2) as usize;
    let loops = arg(&args, "--loops", 300) as usize;
    let mut doc = json!({"version": 1, "reps": reps});
    let steps: [Step; 7] = [
        ("accuracy", Box::new(move || { pin_to(1)?; let v = accuracy(reps)?; pin_to(0)?; Ok(serde_json::to_value(v).unwrap_or_default()) })),
        ("timer_floor", Box::new(|| timer_floor(10))),
        ("false_events", Box::new(move || Ok(Value::Array(false_events(false_secs)?)))),
        ("overhead", Box::new(move || overhead(runs, groups, loops))),
        ("cost_p10", Box::new(|| cost(10, 5))),
        ("cost_p1", Box::new(|| cost(1, 5))),
        ("kernel", Box::new(|| Ok(json!(read("/proc/version")?.trim())))),
    ];
    let mut failed = sh("modprobe irqoff_sample").is_err();
    for (name, f) in steps.iter() {
        eprintln!("tio-bench: {name}...");
        let t = Instant::now();
        match f() {
            Ok(v) => doc[*name] = v,
            Err(e) => {
                eprintln!("tio-bench: {name} failed: {e}");
                doc[format!("{name}_error")] = json!(e);
                failed = true;
            }
        }
        eprintln!("tio-bench: {name} took {:.1} s", t.elapsed().as_secs_f64());
    }
    let _ = sh("rmmod trace_irqoff 2>/dev/null");
    println!("TIO_BENCH_JSON_BEGIN");
    println!("{}", serde_json::to_string(&doc).unwrap_or_default());
    println!("TIO_BENCH_JSON_END");
    std::process::exit(i32::from(failed));
}
