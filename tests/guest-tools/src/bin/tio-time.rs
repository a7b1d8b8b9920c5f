// SPDX-License-Identifier: GPL-2.0
//! `tio-time FILE...`: reads each file whole, as `cat` does (reads of 128 KiB until end of
//! file), and prints `FILE BYTES MICROSECONDS READS` per file: how long one whole read of
//! it takes, to the microsecond (the guest's busybox has no sub-second clock). Exits 1 if
//! a file cannot be read.

use std::fs::File;
use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: tio-time FILE...");
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
