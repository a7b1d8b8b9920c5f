// SPDX-License-Identifier: GPL-2.0
//! `tio-dread DEVICE[,DEVICE...] THREADS SECONDS [OFFSET]`: THREADS blocking O_DIRECT
//! readers of 4 KiB each, at spread offsets (with OFFSET: all at that byte offset, so
//! that readers on two CPUs have requests of the same sector in flight), for SECONDS. Each reader keeps one request in flight and
//! sleeps in the kernel when no tag is free: the load that starves blk-mq tags. Prints the
//! reads. With several devices each reader takes them in turn, and drops a device whose
//! reads start failing (torn down under it); it fails only if all of them fail.

use std::fs::OpenOptions;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// O_DIRECT: its value differs between architectures (0o40000 on x86_64, 0o200000 on
/// aarch64, where 0o40000 is O_DIRECTORY).
const O_DIRECT: i32 = libc::O_DIRECT;
const BLOCK: usize = 4096;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(dev), Some(threads), Some(secs)) = (
        args.get(1),
        args.get(2).and_then(|a| a.parse::<u64>().ok()),
        args.get(3).and_then(|a| a.parse::<f64>().ok()),
    ) else {
        eprintln!("usage: tio-dread DEVICE THREADS SECONDS [OFFSET]");
        return ExitCode::from(2);
    };
    let fixed = match args.get(4).map(|a| a.parse::<u64>()) {
        None => None,
        Some(Ok(o)) if o % BLOCK as u64 == 0 => Some(o),
        Some(_) => {
            eprintln!("tio-dread: OFFSET must be a multiple of {BLOCK} bytes");
            return ExitCode::from(2);
        }
    };
    let until = Instant::now() + Duration::from_secs_f64(secs);
    let handles: Vec<_> = (0..threads)
        .map(|t| {
            let dev = dev.clone();
            std::thread::spawn(move || -> std::io::Result<u64> {
                let mut files = Vec::new();
                for d in dev.split(',') {
                    files.push(
                        OpenOptions::new()
                            .read(true)
                            .custom_flags(O_DIRECT)
                            .open(d)?,
                    );
                }
                let mut raw = vec![0u8; 2 * BLOCK];
                let off = raw.as_ptr().align_offset(BLOCK);
                let buf = &mut raw[off..off + BLOCK];
                let mut n = 0u64;
                let mut k = 0usize;
                while Instant::now() < until {
                    let pos = fixed.unwrap_or(((t * 131 + n * 7) % 4096) * BLOCK as u64);
                    k = (k + 1) % files.len();
                    match files[k].read_exact_at(buf, pos) {
                        Ok(()) => n += 1,
                        Err(e) if files.len() == 1 => return Err(e),
                        Err(_) => {
                            files.remove(k);
                        }
                    }
                }
                Ok(n)
            })
        })
        .collect();
    let mut total = 0;
    for h in handles {
        match h.join() {
            Ok(Ok(n)) => total += n,
            Ok(Err(e)) => {
                eprintln!("tio-dread: {dev}: {e}");
                return ExitCode::FAILURE;
            }
            Err(_) => return ExitCode::FAILURE,
        }
    }
    println!("{total}");
    ExitCode::SUCCESS
}
