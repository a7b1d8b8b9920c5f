// SPDX-License-Identifier: GPL-2.0

//! trace_irqoff: finds CPUs that ran with hard interrupts or softirqs disabled for too long,
//! and the task and code that did it.
//!
//! Each CPU runs a pinned hard-mode hrtimer and a pinned timer_list with period P. A gap of
//! 2P or more between two runs of one of them means that CPU could not take the interrupt
//! (hrtimer) or run softirqs (timer_list) for about gap - P. The stack of whatever runs when
//! the sampler finally gets the CPU back names the culprit. Results are read from
//! `/proc/trace_irqoff/`, see `Documentation/trace-irqoff.rst`.

use ffi::compat;
use kernel::prelude::*;
use logic::params;

mod capture;
mod cost;
mod counts;
mod cpu_table;
mod entry;
mod ffi;
// Public: `logic::grammar` and `logic::cause` mark `pub` the items of the files' grammar
// that tools/tio-logic re-exports to the CLI, and only a path from the crate root makes
// them reachable (the kernel warns of unreachable `pub`); the module exports nothing else.
pub mod logic;
mod peers;
mod phase;
mod procfs;
mod records;
mod sampler;
mod settings;
mod state;
mod tag_wait;
mod watch;

module! {
    type: TraceIrqoff,
    name: "trace_irqoff",
    authors: ["trace_irqoff developers"],
    description: "Detects hardirq-off and softirq-off sections by sampling",
    license: "GPL",
    params: {
        records_per_cpu: u32 {
            default: 16,
            description: "Worst events kept per CPU and kind (1..64)",
        },
        // u8, not bool: 7.2's module! has no bool parameters.
        watch: u8 {
            default: 1,
            description: "1: watch other CPUs for hardirq-off windows still open and take their stacks by NMI (x86_64); 0: off",
        },
        max_window_samples: u32 {
            default: 64,
            description: "In-window samples per window at full rate (every period); then the stride doubles every half that many (1..4096)",
        },
        stuck_ms: u32 {
            default: 1000,
            description: "Length (ms) at which an open hardirq-off window is logged as stuck (1..600000)",
        },
        tag_wait_kprobe: u8 {
            default: 0,
            description: "1: feed tag-wait tracking from the kprobe shim even if block:block_rq_tag_wait exists (0 or 1)",
        },
        park_idle: u8 {
            default: 1,
            description: "1: an idle CPU's sampler parks while the CPU sleeps, not woken to be sampled; 0: every sampled CPU is woken every period (0 or 1)",
        },
    },
}

/// The loaded module: owns the state and the registrations that reach it.
struct TraceIrqoff {
    /// Parks an idle CPU's hrtimer while it sleeps; without it every sampled CPU is woken
    /// every period. Declared first: removed (and waited for) before the state goes.
    _sleep: Option<ffi::SleepProbes>,
    _proc: entry::Registration,
    /// Names a stop_machine() call's function in the records of its CPUs' windows; the
    /// records say only where the windows ended without it.
    _stop_machine: Option<ffi::StopMachineProbes>,
    /// Last: the watchers' wakes are waited for once every sampler has stopped.
    _wakes: ffi::CpuWakes,
}

impl kernel::Module for TraceIrqoff {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        let records = param(
            params::RECORDS_PER_CPU,
            compat::param::<u32>(module_parameters::records_per_cpu.value()),
        )? as usize;
        let force_kprobe = param(
            params::TAG_WAIT_KPROBE,
            compat::param::<u8>(module_parameters::tag_wait_kprobe.value()).into(),
        )? == 1;
        let watch_on = param(
            params::WATCH,
            compat::param::<u8>(module_parameters::watch.value()).into(),
        )? == 1;
        let max_samples = param(
            params::MAX_WINDOW_SAMPLES,
            compat::param::<u32>(module_parameters::max_window_samples.value()),
        )?;
        let stuck_ms = param(
            params::STUCK_MS,
            compat::param::<u32>(module_parameters::stuck_ms.value()),
        )?;
        let park_idle = param(
            params::PARK_IDLE,
            compat::param::<u8>(module_parameters::park_idle.value()).into(),
        )? == 1;
        let nr_cpus = kernel::cpu::nr_cpu_ids();
        let watch = watch::Watch::new(
            nr_cpus,
            watch_on,
            max_samples,
            u64::from(stuck_ms) * logic::gap::NSEC_PER_MSEC,
        )?;
        if let Some(why) = watch.unavailable() {
            pr_info!(
                "watcher: in-window stacks of hardirq-off windows unavailable ({})\n",
                why.name()
            );
        }
        let source = tag_wait::choose_source(force_kprobe);
        ffi::probe::init();
        let state = KBox::pin_init(
            state::State::new(nr_cpus, records, source, watch)?,
            GFP_KERNEL,
        )?;
        let stop_machine = ffi::StopMachineProbes::register()
            .inspect_err(|e| {
                pr_info!(
                    "stop_machine() functions not named (probes: error {})\n",
                    e.to_errno()
                )
            })
            .ok();
        // Where softirqs run in threads, a CPU that wakes runs a thread for its timers, and
        // its watchers and the woken CPUs wake each other (seen on Debian's 7.3-rt: 188
        // interrupts a second on an idle CPU at P = 10 ms): no CPU parks there.
        let sleep = if !park_idle {
            pr_info!("idle CPUs: woken every period (park_idle=0)\n");
            None
        } else if state.threaded() {
            pr_info!("idle CPUs: woken every period (softirqs run in threads)\n");
            None
        } else {
            match ffi::SleepProbes::register() {
                Ok(p) => {
                    state.peers.set_parking();
                    pr_info!(
                        "idle CPUs: not woken to be sampled ({} interrupt entries probed)\n",
                        p.entries()
                    );
                    Some(p)
                }
                Err(e) => {
                    pr_info!(
                        "idle CPUs: woken every period (sleep probes: error {})\n",
                        e.to_errno()
                    );
                    None
                }
            }
        };
        let proc = entry::Registration::new(state)?;
        pr_info!("loaded; /proc/trace_irqoff is ready, sampling is disabled\n");
        Ok(Self {
            _sleep: sleep,
            _proc: proc,
            _stop_machine: stop_machine,
            _wakes: ffi::CpuWakes::new(),
        })
    }
}

/// `value` of parameter `p` if a load accepts it (`logic::params`), else `EINVAL` and a
/// kernel log line that says the range.
fn param(p: params::Param, value: u32) -> Result<u32> {
    p.check(value).map_err(|refused| {
        pr_err!("{}\n", compat::Show(refused));
        EINVAL
    })
}
