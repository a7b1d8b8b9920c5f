// SPDX-License-Identifier: GPL-2.0
//! `tio-readers DIR SECONDS [COMMAND]...`: readers timed while a CPU is stuck and writers
//! wait for it. Start it pinned to a CPU that stays free, before the window (a process
//! created during it may need the stuck CPU for a TLB-flush IPI; threads and
//! `posix_spawn` do not).
//!
//! Waits (at most 10 s) until `DIR/records` shows an open window (an `ongoing` line), then
//! starts two writer threads, `0 > DIR/enable` and `1 > DIR/tag_wait`, and for SECONDS
//! reads every file of DIR to its end and runs every COMMAND (split at spaces), timing
//! each. Prints, one line each:
//!
//! - `read NAME n=N max_ms=X` per file;
//! - `run COMMAND n=N max_ms=X busy=0|1` per command (`busy`: its output once said
//!   `enabling` or `disabling`);
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

/// Writes `value` to `path` from a thread of its own; returns its line once done.
fn writer(path: String, name: String, value: &'static str) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let t0 = Instant::now();
        let r = fs::OpenOptions::new().write(true).open(&path).and_then(|mut f| f.write_all(value.as_bytes()));
        let result = match r {
            Ok(()) => "ok".to_string(),
            Err(e) => errno(&e),
        };
        format!("write {name}={value} ms={:.1} result={result}", ms(t0.elapsed()))
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(secs)) = (args.get(1), args.get(2).and_then(|a| a.parse::<f64>().ok())) else {
        eprintln!("usage: tio-readers DIR SECONDS [COMMAND]...");
        return ExitCode::from(2);
    };
    let commands: Vec<&String> = args[3..].iter().collect();
    let records = format!("{dir}/records");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !fs::read_to_string(&records).is_ok_and(|t| t.lines().any(|l| l.starts_with("ongoing "))) {
        if Instant::now() > deadline {
            eprintln!("tio-readers: no open window in {records} within 10 s");
            return ExitCode::FAILURE;
        }
        thread::sleep(Duration::from_millis(10));
    }
    let writers = [
        writer(format!("{dir}/enable"), "enable".into(), "0"),
        writer(format!("{dir}/tag_wait"), "tag_wait".into(), "1"),
    ];
    let mut files: Vec<String> = fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    files.sort();
    let mut reads: BTreeMap<String, (u32, Duration)> = BTreeMap::new();
    let mut runs: Vec<(u32, Duration, bool)> = vec![(0, Duration::ZERO, false); commands.len()];
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
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
                let word = text.split_whitespace().nth(usize::from(f == "tag_wait")).unwrap_or("").to_string();
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
            let out = Command::new(prog).args(words).stdin(Stdio::null()).output();
            let d = t0.elapsed();
            let busy = out.is_ok_and(|o| {
                let s = String::from_utf8_lossy(&o.stdout);
                s.contains("enabling") || s.contains("disabling")
            });
            runs[i].0 += 1;
            runs[i].1 = runs[i].1.max(d);
            runs[i].2 |= busy;
        }
    }
    for (f, (n, d)) in &reads {
        println!("read {f} n={n} max_ms={:.1}", ms(*d));
    }
    for (c, (n, d, busy)) in commands.iter().zip(&runs) {
        println!("run {c} n={n} max_ms={:.1} busy={}", ms(*d), u8::from(*busy));
    }
    for (f, v) in &seen {
        println!("seen {f}={}", v.join(","));
    }
    for w in writers {
        println!("{}", w.join().unwrap_or_else(|_| "write ? result=panic".into()));
    }
    ExitCode::SUCCESS
}
