// SPDX-License-Identifier: GPL-2.0
//! `tio-readers DIR SECONDS [--ready FILE] [--write NAME=VALUE]... [--writer-cpu N] [COMMAND]...`:
//! readers timed while a CPU is stuck and writers wait for it. Start it pinned to a CPU
//! that stays free, before the window (a process created during it may need the stuck CPU
//! for a TLB-flush IPI; threads and `posix_spawn` do not).
//!
//! First times each file read and each COMMAND three times with no CPU stuck (the
//! baseline: the fastest of the three, what the same read costs on this kernel once warm,
//! KASAN's included), then creates FILE (its exec, which may need every CPU its parent's
//! memory ran on, is over: open the window only then). Waits (at most 10 s) until
//! `DIR/records` shows an open window (an `ongoing` line), then starts one writer thread
//! per `--write` (`VALUE > DIR/NAME`; on CPU N with `--writer-cpu`: a writer that makes
//! the kernel wait for every CPU may spin on its own CPU meanwhile), and for SECONDS
//! reads every file of DIR to its end and runs every COMMAND (split at spaces), timing
//! each. Prints, one line each:
//!
//! - `read NAME n=N max_ms=X base_ms=B` per file (`B`: the baseline);
//! - `run COMMAND n=N max_ms=X base_ms=B busy=0|1` per command (`busy`: its output once
//!   said `enabling` or `disabling`);
//! - `stack COMMAND after X ms: ...`: the kernel stack of a command still running after
//!   200 ms;
//! - `write NAME=VALUE ms=X result=ok|ERRNO` per writer, once it returned;
//! - `seen NAME=STATE,STATE...`: the first words `enable` and `tag_wait` showed.
//!
//! Exits 2 on bad usage, 1 if no window opened.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::process::{Command, ExitCode, Stdio};
use std::thread;
use std::time::{Duration, Instant};

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn errno(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EBUSY) => "EBUSY".into(),
        Some(libc::EINVAL) => "EINVAL".into(),
        Some(libc::EOPNOTSUPP) => "EOPNOTSUPP".into(),
        Some(n) => format!("E{n}"),
        None => "error".into(),
    }
}

/// Writes `value` to `path` from a thread of its own (on `cpu` if given); returns its line
/// once done.
fn writer(
    path: String,
    name: String,
    value: String,
    cpu: Option<usize>,
) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        if let Some(cpu) = cpu {
            let mut set = rustix::thread::CpuSet::new();
            set.set(cpu);
            let _ = rustix::thread::sched_setaffinity(None, &set);
        }
        let t0 = Instant::now();
        let r = fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .and_then(|mut f| f.write_all(value.as_bytes()));
        let result = match r {
            Ok(()) => "ok".to_string(),
            Err(e) => errno(&e),
        };
        format!(
            "write {name}={value} ms={:.1} result={result}",
            ms(t0.elapsed())
        )
    })
}

/// Runs a command to its end and returns its output. One that takes over 200 ms has its
/// kernel stack (`/proc/PID/stack`) added to `stacks`: where it waited.
fn run<'a>(prog: &str, args: impl Iterator<Item = &'a str>, stacks: &mut Vec<String>) -> String {
    let Ok(mut child) = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    else {
        return String::new();
    };
    let t0 = Instant::now();
    let mut looked = false;
    let mut out = String::new();
    let mut stdout = child.stdout.take();
    // The output is small; read it in a thread so that a full pipe cannot stall the child.
    let reader = thread::spawn(move || {
        let mut s = String::new();
        if let Some(o) = stdout.as_mut() {
            let _ = std::io::Read::read_to_string(o, &mut s);
        }
        s
    });
    loop {
        match child.try_wait() {
            Ok(Some(_)) | Err(_) => break,
            Ok(None) => {}
        }
        if !looked && t0.elapsed() > Duration::from_millis(200) {
            looked = true;
            let stack =
                fs::read_to_string(format!("/proc/{}/stack", child.id())).unwrap_or_default();
            stacks.push(format!(
                "stack {prog} after {:.0} ms: {}",
                ms(t0.elapsed()),
                stack.replace('\n', " | ")
            ));
        }
        thread::sleep(Duration::from_millis(1));
    }
    if let Ok(s) = reader.join() {
        out = s;
    }
    out
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(secs)) = (args.get(1), args.get(2).and_then(|a| a.parse::<f64>().ok()))
    else {
        eprintln!("usage: tio-readers DIR SECONDS [COMMAND]...");
        return ExitCode::from(2);
    };
    let mut writes: Vec<(String, String)> = Vec::new();
    let mut writer_cpu: Option<usize> = None;
    let mut ready: Option<String> = None;
    let mut commands: Vec<&String> = Vec::new();
    let mut rest = args[3..].iter();
    while let Some(a) = rest.next() {
        match a.as_str() {
            "--write" => match rest.next().and_then(|w| w.split_once('=')) {
                Some((n, v)) => writes.push((n.to_string(), v.to_string())),
                None => {
                    eprintln!("tio-readers: --write NAME=VALUE");
                    return ExitCode::from(2);
                }
            },
            "--ready" => match rest.next() {
                Some(f) => ready = Some(f.clone()),
                None => {
                    eprintln!("tio-readers: --ready FILE");
                    return ExitCode::from(2);
                }
            },
            "--writer-cpu" => match rest.next().and_then(|c| c.parse().ok()) {
                Some(c) => writer_cpu = Some(c),
                None => {
                    eprintln!("tio-readers: --writer-cpu N");
                    return ExitCode::from(2);
                }
            },
            _ => commands.push(a),
        }
    }
    let mut files: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    let mut base_reads: BTreeMap<String, Duration> = BTreeMap::new();
    let mut base_runs: Vec<Duration> = vec![Duration::MAX; commands.len()];
    let mut base_stacks: Vec<String> = Vec::new();
    for _ in 0..3 {
        for f in &files {
            let t0 = Instant::now();
            let _ = fs::read(format!("{dir}/{f}"));
            let d = t0.elapsed();
            base_reads
                .entry(f.clone())
                .and_modify(|b| *b = (*b).min(d))
                .or_insert(d);
        }
        for (i, c) in commands.iter().enumerate() {
            let mut words = c.split(' ');
            let Some(prog) = words.next() else { continue };
            let t0 = Instant::now();
            run(prog, words, &mut base_stacks);
            base_runs[i] = base_runs[i].min(t0.elapsed());
        }
    }
    if let Some(f) = &ready {
        if let Err(e) = fs::write(f, b"ready\n") {
            eprintln!("tio-readers: {f}: {e}");
            return ExitCode::FAILURE;
        }
    }
    let records = format!("{dir}/records");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fs::read_to_string(&records).is_ok_and(|t| t.lines().any(|l| l.starts_with("ongoing ")))
    {
        if Instant::now() > deadline {
            eprintln!("tio-readers: no open window in {records} within 10 s");
            return ExitCode::FAILURE;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let writers: Vec<_> = writes
        .into_iter()
        .map(|(n, v)| writer(format!("{dir}/{n}"), n, v, writer_cpu))
        .collect();
    let mut reads: BTreeMap<String, (u32, Duration)> = BTreeMap::new();
    let mut runs: Vec<(u32, Duration, bool)> = vec![(0, Duration::ZERO, false); commands.len()];
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut stacks: Vec<String> = Vec::new();
    let until = Instant::now() + Duration::from_secs_f64(secs);
    while Instant::now() < until {
        for f in &files {
            let t0 = Instant::now();
            let text = fs::read(format!("{dir}/{f}")).unwrap_or_default();
            let d = t0.elapsed();
            let e = reads.entry(f.clone()).or_default();
            e.0 += 1;
            e.1 = e.1.max(d);
            if f == "enable" || f == "tag_wait" {
                let text = String::from_utf8_lossy(&text);
                let word = text
                    .split_whitespace()
                    .nth(usize::from(f == "tag_wait"))
                    .unwrap_or("")
                    .to_string();
                let v = seen.entry(f.clone()).or_default();
                if !v.contains(&word) {
                    v.push(word);
                }
            }
        }
        for (i, c) in commands.iter().enumerate() {
            let mut words = c.split(' ');
            let Some(prog) = words.next() else { continue };
            let t0 = Instant::now();
            let out = run(prog, words, &mut stacks);
            let d = t0.elapsed();
            let busy = out.contains("enabling") || out.contains("disabling");
            runs[i].0 += 1;
            runs[i].1 = runs[i].1.max(d);
            runs[i].2 |= busy;
        }
    }
    for st in &stacks {
        println!("{st}");
    }
    for (f, (n, d)) in &reads {
        let base = base_reads.get(f).copied().unwrap_or_default();
        println!(
            "read {f} n={n} max_ms={:.1} base_ms={:.1}",
            ms(*d),
            ms(base)
        );
    }
    for ((c, (n, d, busy)), base) in commands.iter().zip(&runs).zip(&base_runs) {
        println!(
            "run {c} n={n} max_ms={:.1} base_ms={:.1} busy={}",
            ms(*d),
            ms(*base),
            u8::from(*busy)
        );
    }
    for (f, v) in &seen {
        println!("seen {f}={}", v.join(","));
    }
    for w in writers {
        println!(
            "{}",
            w.join().unwrap_or_else(|_| "write ? result=panic".into())
        );
    }
    ExitCode::SUCCESS
}
