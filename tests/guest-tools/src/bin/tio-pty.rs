// SPDX-License-Identifier: GPL-2.0
//! `tio-pty [--size COLSxROWS] CMD [ARG...]`: runs CMD with a pseudo-terminal as its
//! stdin, stdout and stderr (200 x 50 unless `--size` says otherwise, e.g. `--size 80x24`),
//! copies what it writes there to our stdout, and exits with its status: what `script -qc`
//! does, which the guest's busybox lacks. For commands that behave otherwise on a
//! terminal (`trace-irqoff top --live` redraws in place; views fit the terminal's width).

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
use rustix::termios::{tcsetwinsize, Winsize};

fn run(args: &[String], cols: u16, rows: u16) -> std::io::Result<u8> {
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY)?;
    grantpt(&master)?;
    unlockpt(&master)?;
    let name = ptsname(&master, Vec::new())?;
    let slave = File::options()
        .read(true)
        .write(true)
        .open(name.to_str().map_err(std::io::Error::other)?)?;
    tcsetwinsize(
        &slave,
        Winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        },
    )?;
    let mut child = Command::new(&args[0])
        .args(&args[1..])
        .stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave))
        .spawn()?;
    // The child holds the only slave descriptors now: reads end (EIO) when it exits.
    let mut master = File::from(master);
    let mut buf = [0u8; 4096];
    let mut out = std::io::stdout().lock();
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.write_all(&buf[..n])?,
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::IO.raw_os_error()) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    out.flush()?;
    let status = child.wait()?;
    Ok(status.code().map_or(128, |c| c as u8))
}

/// `COLSxROWS`, both at least 1.
fn size(s: &str) -> Option<(u16, u16)> {
    let (c, r) = s.split_once('x')?;
    let (c, r) = (c.parse().ok()?, r.parse().ok()?);
    (c > 0 && r > 0).then_some((c, r))
}

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let (mut cols, mut rows) = (200, 50);
    if args.first().map(String::as_str) == Some("--size") {
        let Some((c, r)) = args.get(1).and_then(|s| size(s)) else {
            eprintln!("tio-pty: --size takes COLSxROWS, e.g. 80x24");
            return ExitCode::from(2);
        };
        (cols, rows) = (c, r);
        args.drain(..2);
    }
    if args.is_empty() {
        eprintln!("usage: tio-pty [--size COLSxROWS] CMD [ARG...]");
        return ExitCode::from(2);
    }
    match run(&args, cols, rows) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("tio-pty: {e}");
            ExitCode::FAILURE
        }
    }
}
