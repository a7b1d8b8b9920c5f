// SPDX-License-Identifier: GPL-2.0
//! `tio-hog PRIO SPIN_US SLEEP_US`: a SCHED_FIFO task at PRIO (0: a normal task), not
//! pinned, that spins for SPIN_US and sleeps for SLEEP_US (nanosleep: an hrtimer wakes
//! it), over and over, until it is killed. Each wake-up takes
//! the CPU from whatever normal task runs there (cpuhp/N among them) at once, at any
//! point, for SPIN_US: normal tasks run only in the short sleeps. Two of them on two CPUs
//! are spread over both by the real-time scheduler.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use trace_irqoff_guest_tools::set_fifo;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let num = |i: usize| args.get(i).and_then(|a| a.parse::<u64>().ok());
    let (Some(prio), Some(spin), Some(sleep)) = (
        args.get(1).and_then(|a| a.parse::<i32>().ok()),
        num(2),
        num(3),
    ) else {
        eprintln!("usage: tio-hog PRIO SPIN_US SLEEP_US");
        return ExitCode::from(2);
    };
    if prio != 0 {
        if let Err(e) = set_fifo(prio) {
            eprintln!("tio-hog: sched_setscheduler: {e}");
            return ExitCode::FAILURE;
        }
    }
    let (spin, sleep) = (Duration::from_micros(spin), Duration::from_micros(sleep));
    loop {
        let t0 = Instant::now();
        while t0.elapsed() < spin {
            std::hint::spin_loop();
        }
        std::thread::sleep(sleep);
    }
}
