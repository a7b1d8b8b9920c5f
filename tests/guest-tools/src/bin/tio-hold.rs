// SPDX-License-Identifier: GPL-2.0
//! `tio-hold DIR GOFILE`: opens every file in DIR (read-write where the mode allows a
//! write, else read-only) and reads the first bytes of each (so a seq_file is mid-read),
//! prints `held N`, then waits until GOFILE exists (the test removes the module meanwhile).
//! Then reads and writes (an invalid `x`, so a live module changes nothing) every
//! descriptor once more and prints one line per file: `NAME read=R write=W`, R and W being
//! `ok(BYTES)` or the errno name. Exits 0 once all that is done.

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

fn name(e: &std::io::Error) -> String {
    match e.raw_os_error().unwrap_or(0) {
        libc::EIO => "EIO".into(),
        libc::EINVAL => "EINVAL".into(),
        libc::EPERM => "EPERM".into(),
        libc::ENOENT => "ENOENT".into(),
        libc::ENODEV => "ENODEV".into(),
        libc::EBADF => "EBADF".into(),
        n => format!("E{n}"),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dir), Some(go)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: tio-hold DIR GOFILE");
        return ExitCode::from(2);
    };
    let mut held: Vec<(String, File, bool)> = Vec::new();
    let entries = match fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("tio-hold: {dir}: cannot list: {} ({e})", name(&e));
            return ExitCode::FAILURE;
        }
    };
    for e in entries.flatten() {
        let n = e.file_name().to_string_lossy().into_owned();
        let writable = e
            .metadata()
            .is_ok_and(|m| m.permissions().mode() & 0o200 != 0);
        match OpenOptions::new().read(true).write(writable).open(e.path()) {
            Ok(mut f) => {
                let mut b = [0u8; 16];
                if let Err(err) = f.read(&mut b) {
                    eprintln!("tio-hold: first read of {n}: {}", name(&err));
                }
                held.push((n, f, writable));
            }
            Err(err) => eprintln!("tio-hold: open {n}: {}", name(&err)),
        }
    }
    held.sort_by(|a, b| a.0.cmp(&b.0));
    println!("held {}", held.len());
    let _ = std::io::stdout().flush();
    while !Path::new(go).exists() {
        std::thread::sleep(Duration::from_millis(10));
    }
    for (n, f, writable) in &mut held {
        let mut b = [0u8; 4096];
        let r = match f.read(&mut b) {
            Ok(n) => format!("ok({n})"),
            Err(e) => name(&e),
        };
        let w = if *writable {
            match f.write(b"x") {
                Ok(n) => format!("ok({n})"),
                Err(e) => name(&e),
            }
        } else {
            "-".to_string()
        };
        println!("{n} read={r} write={w}");
    }
    ExitCode::SUCCESS
}
