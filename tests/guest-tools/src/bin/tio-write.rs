// SPDX-License-Identifier: GPL-2.0
//! `tio-write FILE DATA`: one write(2) of exactly DATA (after `\n`, `\0` and `\xHH`
//! escapes; empty DATA is a zero-length write) to FILE. Prints `ok` or the errno name
//! (`EINVAL`, `EBUSY`, ...) so guest tests can check the exact error.

use std::fs::OpenOptions;
use std::io::Write;
use std::process::ExitCode;

fn unescape(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'n' => {
                    out.push(b'\n');
                    i += 2;
                    continue;
                }
                b'0' => {
                    out.push(0);
                    i += 2;
                    continue;
                }
                b'x' if i + 4 <= b.len() => {
                    let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap_or("");
                    if let Ok(v) = u8::from_str_radix(hex, 16) {
                        out.push(v);
                        i += 4;
                        continue;
                    }
                }
                _ => {}
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

fn errno_name(code: i32) -> &'static str {
    match code {
        1 => "EPERM",
        2 => "ENOENT",
        13 => "EACCES",
        14 => "EFAULT",
        16 => "EBUSY",
        19 => "ENODEV",
        22 => "EINVAL",
        34 => "ERANGE",
        _ => "EOTHER",
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: tio-write FILE DATA");
        return ExitCode::from(2);
    }
    let data = unescape(&args[2]);
    let result = OpenOptions::new()
        .write(true)
        .open(&args[1])
        .and_then(|mut f| f.write(&data));
    match result {
        Ok(n) if n == data.len() => {
            println!("ok");
            ExitCode::SUCCESS
        }
        Ok(n) => {
            println!("short write {n}");
            ExitCode::FAILURE
        }
        Err(e) => {
            println!("{}", errno_name(e.raw_os_error().unwrap_or(0)));
            ExitCode::FAILURE
        }
    }
}
