// SPDX-License-Identifier: GPL-2.0
//! `tio-chrt PRIO CPU CMD [ARG...]`: runs CMD as SCHED_FIFO at PRIO, pinned to CPU (what
//! `chrt -f PRIO taskset -c CPU CMD` does; the guest's busybox may lack `chrt`). Children
//! inherit both.

use std::os::unix::process::CommandExt;
use std::process::{Command, ExitCode};

/// sched_setscheduler(2) on the calling thread. musl's wrapper is a stub returning ENOSYS
/// (and its `sched_param` has more fields than the kernel's), so the system call is made
/// directly with the kernel's `struct sched_param`: one int.
fn set_fifo(prio: i32) -> std::io::Result<()> {
    let param: libc::c_int = prio;
    // SAFETY: `param` is a valid kernel `struct sched_param` (a single int) that outlives
    // the call; pid 0 is the calling thread; the kernel only reads `param`.
    let r = unsafe {
        libc::syscall(
            libc::SYS_sched_setscheduler,
            0,
            libc::SCHED_FIFO,
            &param as *const libc::c_int,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

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
