// SPDX-License-Identifier: GPL-2.0
//! `tio-chrt PRIO CPU CMD [ARG...]`: runs CMD as SCHED_FIFO at PRIO, pinned to CPU (what
//! `chrt -f PRIO taskset -c CPU CMD` does; the guest's busybox may lack `chrt`). Children
//! inherit both.

use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

use trace_irqoff_guest_tools::set_fifo;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let (Some(prio), Some(cpu), Some(cmd)) = (
        args.get(1).and_then(|a| a.parse::<i32>().ok()),
        args.get(2).and_then(|a| a.parse::<usize>().ok()),
        args.get(3),
    ) else {
        eprintln!("usage: tio-chrt PRIO CPU CMD [ARG...]");
        return ExitCode::from(2);
    };
    let mut set = rustix::thread::CpuSet::new();
    set.set(cpu);
    if let Err(e) = rustix::thread::sched_setaffinity(None, &set) {
        eprintln!("tio-chrt: sched_setaffinity: {e}");
        return ExitCode::FAILURE;
    }
    if let Err(e) = set_fifo(prio) {
        eprintln!("tio-chrt: sched_setscheduler: {e}");
        return ExitCode::FAILURE;
    }
    let e = Command::new(cmd).args(&args[4..]).exec();
    eprintln!("tio-chrt: {cmd}: {e}");
    ExitCode::from(127)
}
