// SPDX-License-Identifier: GPL-2.0
//! `tio-pty [--size COLSxROWS] CMD [ARG...]`: runs CMD with a pseudo-terminal as its
//! stdin, stdout and stderr (200 x 50 unless `--size`, e.g. `--size 80x24`, set with
//! TIOCSWINSZ), copies what it writes there to our stdout, and exits with its status: what
//! `script -qc` does, which the guest's busybox lacks. For commands that behave otherwise
//! on a terminal (`trace-irqoff top --live` redraws in place).

use std::fs::File;
use std::io::{Read, Write};
use std::process::{Command, ExitCode, Stdio};

use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
use rustix::termios::{tcsetwinsize, Winsize};

/// `COLSxROWS` ("80x24") as (columns, rows), both at least 1.
fn size(s: &str) -> Option<(u16, u16)> {
    let (c, r) = s.split_once('x')?;
    let (c, r) = (c.parse::<u16>().ok()?, r.parse::<u16>().ok()?);
    (c > 0 && r > 0).then_some((c, r))
}

fn run(args: &[String], (cols, rows): (u16, u16)) -> std::io::Result<u8> {
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

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut dims = (200, 50);
    if args.first().map(String::as_str) == Some("--size") {
        match args.get(1).and_then(|s| size(s)) {
            Some(d) => dims = d,
            None => {
                eprintln!("tio-pty: --size takes COLSxROWS, e.g. 80x24");
                return ExitCode::from(2);
            }
        }
        args.drain(..2);
    }
    if args.is_empty() {
        eprintln!("usage: tio-pty [--size COLSxROWS] CMD [ARG...]");
        return ExitCode::from(2);
    }
    match run(&args, dims) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("tio-pty: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    /// Claim: sizes read as COLSxROWS; a zero, a missing part or junk is refused.
    #[test]
    fn sizes() {
        assert_eq!(super::size("80x24"), Some((80, 24)));
        assert_eq!(super::size("120x40"), Some((120, 40)));
        assert_eq!(super::size("0x24"), None);
        assert_eq!(super::size("80"), None);
        assert_eq!(super::size("80xx"), None);
    }
}
