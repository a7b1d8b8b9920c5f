// SPDX-License-Identifier: GPL-2.0

//! What each side of a CPU's sampler keeps from run to run, owned by its callback.

use crate::cost::RunCount;
use crate::ffi::COMM_LEN;
use crate::logic::gap::Window;
use crate::records::MAX_FRAMES;
use crate::settings::RulesCache;
use crate::watch::{PendingSeen, Ring};

/// What only the timer_list callback of a CPU uses (`CpuSampler::soft_local`).
pub(super) struct SoftLocal {
    pub(super) rules: RulesCache,
    /// The timer_list's runs (`Cost::run_counted`).
    pub(super) runs: RunCount,
    /// The steal count (`ffi::steal_ns`) at its last run, and when that was.
    pub(super) steal: u64,
    pub(super) steal_at: u64,
}

/// What only the hrtimer callback of a CPU uses (`CpuSampler::hard_local`).
pub(super) struct HardLocal {
    pub(super) rules: RulesCache,
    /// When the watcher looks at its neighbours next (`Rules::watch_interval`).
    pub(super) watch_next: u64,
    /// The CPUs it watches.
    pub(super) ring: Ring,
    /// A request for an NMI to this CPU that it saw sent (`Watch::settle`).
    pub(super) nmi_seen: PendingSeen,
    /// The hrtimer's runs (`Cost::run_counted`).
    pub(super) runs: RunCount,
    pub(super) look: LookLocal,
}

/// What the hrtimer's look at its CPU keeps from run to run.
pub(super) struct LookLocal {
    pub(super) sleep: SleepCounts,
    /// The steal count (`ffi::steal_ns`) at the last run, and when that was.
    pub(super) steal: u64,
    pub(super) steal_at: u64,
    /// A gap whose verdict waits for the tick's steal accounting.
    pub(super) held: Held,
    /// This hrtimer queued the softirq probe, and has not yet seen it closed.
    pub(super) probe_queued: bool,
    /// The interrupted instruction last found in the softirq loop (0: none yet).
    pub(super) loop_ip: u64,
    /// A stall's evidence (`stall::Evidence`, `hard::since_prev`), as the last run that
    /// read any of it left it (every run reads the steal count after it: `steal_at` says
    /// when): the interrupt time accounted on this CPU (`ffi::irq_time_ns`, `u64::MAX`: not
    /// known); where the kernel accounts none, its count of interrupts but its local
    /// timer's (`ffi::irq_events_but_timer`) and its idle sleep time
    /// (`ffi::idle_sleep_ns`, `u64::MAX`: not known), with the sleeps it had begun when
    /// that time was read (`ffi::idle_sleeps`, its low 32 bits, `u32::MAX`: not known), so
    /// that it is read again only after another. (A count that wrapped to the same bits
    /// would keep an older sleep time: less sleep seen, less evidence of a stall, never
    /// more.)
    pub(super) irq_time: u64,
    pub(super) others: u64,
    pub(super) idle_sleep: u64,
    pub(super) idle_sleeps: u32,
}

/// This CPU's interrupt count and hrtimer interrupt retries at the hrtimer's last run that
/// read them, and when that was (only runs that came into the idle loop read them): its
/// evidence of sleep (`gap::SleepEvidence`).
pub(super) struct SleepCounts {
    pub(super) last_irq_events: u64,
    pub(super) last_retries: u32,
    pub(super) counts_at: u64,
    /// Interrupts one wake-up by this hrtimer alone counts (`gap::per_wake`; 0: not yet
    /// learnt).
    pub(super) per_wake: u64,
}

impl HardLocal {
    pub(super) const fn new() -> Self {
        Self {
            rules: RulesCache::new(),
            watch_next: 0,
            ring: Ring::new(),
            nmi_seen: PendingSeen::new(),
            runs: RunCount::new(),
            look: LookLocal {
                sleep: SleepCounts {
                    last_irq_events: 0,
                    last_retries: 0,
                    counts_at: 0,
                    per_wake: 0,
                },
                steal: 0,
                steal_at: 0,
                held: Held::new(),
                probe_queued: false,
                loop_ip: 0,
                irq_time: u64::MAX,
                others: 0,
                idle_sleep: u64::MAX,
                idle_sleeps: u32::MAX,
            },
        }
    }
}

/// A gap whose verdict waits for the tick's steal accounting (`gap::Decision::Wait`), with
/// what its event needs from the time it ended (`hard::hold`).
pub(super) struct Held {
    /// When it ended (0: none held), and the hrtimer run before it.
    pub(super) end: u64,
    pub(super) prev: u64,
    /// The steal count at `prev`.
    pub(super) steal_before: u64,
    /// It ended in the idle loop, and a run since found the CPU out of it
    /// (`gap::Rules::steal_settled_after`).
    pub(super) ended_idle: bool,
    pub(super) left_idle: bool,
    /// This CPU's hardirq-off window before it, restored if it is no event.
    pub(super) before: Window,
    pub(super) end_shows_culprit: bool,
    /// The run that ended it showed the CPU was not running with interrupts off through
    /// the machine's silences (`stall::Evidence::proves_stall`).
    pub(super) stall_evidence: bool,
    pub(super) pid: i32,
    pub(super) comm: [u8; COMM_LEN],
    pub(super) cgroup_id: u64,
    /// The stack where it ended (`capture_raw`), if it may be recorded.
    pub(super) frames: [u64; MAX_FRAMES],
    pub(super) nr_frames: usize,
    /// The function a stop_machine() call ran on this CPU, seen when it ended
    /// (`ffi::stop_machine_callback`).
    pub(super) stop_callback: Option<u64>,
}

impl Held {
    pub(super) const fn new() -> Self {
        Self {
            end: 0,
            prev: 0,
            steal_before: 0,
            ended_idle: false,
            left_idle: false,
            before: Window::EMPTY,
            end_shows_culprit: false,
            stall_evidence: false,
            pid: 0,
            comm: [0; COMM_LEN],
            cgroup_id: 0,
            frames: [0; MAX_FRAMES],
            nr_frames: 0,
            stop_callback: None,
        }
    }
}
