// SPDX-License-Identifier: GPL-2.0
//! `tio-time FILE...`: reads each file whole, as `cat` does (reads of 128 KiB until end of
//! file), and prints `FILE BYTES MICROSECONDS READS` per file: how long one whole read of
//! it takes, to the microsecond (the guest's busybox has no sub-second clock). Exits 1 if
//! a file cannot be read.
//!
//! `tio-time --cmd COMMAND...`: runs each COMMAND with `sh -c`, output discarded, and
//! prints `MICROSECONDS STATUS COMMAND` per command. Exits 1 if a command failed.

use std::fs::File;
use std::io::Read;
use std::process::{Command, ExitCode, Stdio};
use std::time::Instant;

/// Runs each command and prints its time and exit status.
fn commands(cmds: &[String]) -> ExitCode {
    let mut failed = false;
    for cmd in cmds {
        let t0 = Instant::now();
        let status = Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let us = t0.elapsed().as_micros();
        let code = status.ok().and_then(|s| s.code()).unwrap_or(-1);
        println!("{us} {code} {cmd}");
        failed |= code != 0;
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.first().is_some_and(|a| a == "--cmd") {
        return commands(&files[1..]);
    }
    if files.is_empty() {
        eprintln!("usage: tio-time FILE... | tio-time --cmd COMMAND...");
        return ExitCode::from(2);
    }
    let mut buf = vec![0u8; 128 * 1024];
    let mut failed = false;
    for name in &files {
        let t0 = Instant::now();
        let (mut bytes, mut reads) = (0usize, 0u64);
        let r = File::open(name).and_then(|mut f| loop {
            reads += 1;
            match f.read(&mut buf)? {
                0 => return Ok(()),
                n => bytes += n,
            }
        });
        let us = t0.elapsed().as_micros();
        match r {
            Ok(()) => println!("{name} {bytes} {us} {reads}"),
            Err(e) => {
                eprintln!("tio-time: {name}: {e}");
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
