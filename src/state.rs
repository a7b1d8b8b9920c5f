// SPDX-License-Identifier: GPL-2.0

//! The module's state and its control operations (enable, period, threshold, clear), all
//! serialised by one lock.

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::atomic::Relaxed;
use kernel::sync::{Arc, Mutex};

use crate::ffi::{self, TagSource};
use crate::parse::{self, Invalid, LatencyWrite};
use crate::peers::Peers;
use crate::sampler::CpuSampler;
use crate::settings::Settings;
use crate::tag_wait::TagWait;
use crate::watch::Watch;

/// What only the control lock's holder may touch.
struct Control {
    /// The CPU hotplug registration that runs the samplers; `Some` while enabled.
    hotplug: Option<ffi::Hotplug>,
    /// The watcher's NMI handler; registered before the samplers first start, and kept
    /// until unload, once no NMI of ours can still be on its way (`Watch::drain`).
    nmi: Option<ffi::NmiHandler>,
}

impl Control {
    /// Starts sampling: the NMI handler (if available), then the samplers.
    fn enable(&mut self, watch: &Watch) -> Result {
        watch.start(&mut self.nmi);
        match ffi::Hotplug::register() {
            Ok(h) => {
                self.hotplug = Some(h);
                Ok(())
            }
            Err(e) => {
                self.disable(watch);
                Err(e)
            }
        }
    }

    /// Stops the samplers on every CPU and the watcher's requests for NMIs.
    fn disable(&mut self, watch: &Watch) {
        self.hotplug = None;
        watch.stop();
    }

    /// At unload: stops everything, then, once no NMI of ours is on its way, unregisters
    /// the handler.
    fn shutdown(&mut self, watch: &Watch) {
        self.disable(watch);
        watch.drain();
        self.nmi = None;
    }
}

/// Everything the /proc files, the hotplug callbacks and the samplers share.
///
/// Dropping it stops every sampler first (see the invariant of [`CpuSampler`]).
#[pin_data(PinnedDrop)]
pub(crate) struct State {
    pub(crate) settings: Arc<Settings>,
    pub(crate) peers: Arc<Peers>,
    pub(crate) watch: Arc<Watch>,
    /// One sampler per possible CPU, indexed by CPU number.
    pub(crate) cpus: KVec<Arc<CpuSampler>>,
    pub(crate) records_per_cpu: usize,
    #[pin]
    control: Mutex<Control>,
    #[pin]
    pub(crate) tag_wait: TagWait,
}

impl From<Invalid> for Error {
    fn from(_: Invalid) -> Self {
        EINVAL
    }
}

impl State {
    pub(crate) fn new(nr_cpus: u32, records_per_cpu: usize, tag_source: TagSource, watch: Watch) -> Result<impl PinInit<Self, Error>> {
        let settings = Arc::new(Settings::new(ffi::hz()), GFP_KERNEL)?;
        let peers = Arc::new(Peers::new(nr_cpus)?, GFP_KERNEL)?;
        let watch = Arc::new(watch, GFP_KERNEL)?;
        let mut cpus = KVec::with_capacity(nr_cpus as usize, GFP_KERNEL)?;
        // Softirqs run in threads on every CPU or on none (PREEMPT_RT, `threadirqs`).
        let threaded = ffi::softirq_thread_pid(0, ffi::SoftirqThread::Ktimers) != 0;
        for cpu in 0..nr_cpus {
            let s = CpuSampler::new(cpu, settings.clone(), peers.clone(), watch.clone(), records_per_cpu, threaded)?;
            cpus.push(s, GFP_KERNEL)?;
        }
        Ok(try_pin_init!(Self {
            settings,
            peers,
            watch,
            cpus,
            records_per_cpu,
            control <- new_mutex!(Control { hotplug: None, nmi: None }),
            tag_wait <- TagWait::new(tag_source)?,
        }? Error))
    }

    pub(crate) fn cpu(&self, cpu: u32) -> Option<&Arc<CpuSampler>> {
        self.cpus.get(cpu as usize)
    }

    pub(crate) fn is_enabled(&self) -> bool {
        self.control.lock().hotplug.is_some()
    }

    /// `echo 0|1 > enable`.
    pub(crate) fn write_enable(&self, buf: &[u8]) -> Result {
        let on = parse::enable(buf)?;
        let mut control = self.control.lock();
        match (on, control.hotplug.is_some()) {
            (true, false) => control.enable(&self.watch)?,
            // Dropping the registration stops the samplers on every CPU.
            (false, true) => control.disable(&self.watch),
            _ => {}
        }
        Ok(())
    }

    /// `echo MS > sampling_period`: only while disabled; raises the threshold to 2P if
    /// needed, as the original did.
    pub(crate) fn write_period(&self, buf: &[u8]) -> Result {
        let period = parse::period(buf)?;
        let control = self.control.lock();
        if control.hotplug.is_some() {
            return Err(EBUSY);
        }
        if self.settings.threshold_ns() < 2 * period {
            self.settings.set_threshold(2 * period);
        }
        self.settings.set_period(period);
        Ok(())
    }

    /// `echo MS > trace_latency` sets the threshold; `echo 0` clears records and counts.
    pub(crate) fn write_trace_latency(&self, buf: &[u8]) -> Result {
        let _control = self.control.lock();
        match parse::trace_latency(buf, self.settings.period_ns())? {
            LatencyWrite::Threshold(ns) => self.settings.set_threshold(ns),
            LatencyWrite::Clear => {
                self.settings.next_generation();
                for cpu in self.cpus.iter() {
                    cpu.hard_counts.clear();
                    cpu.soft_counts.clear();
                    for c in &cpu.cause_counts {
                        c.clear();
                    }
                    cpu.idle_gaps.store(0, Relaxed);
                }
                self.tag_wait.clear();
            }
        }
        Ok(())
    }

    /// Bytes the module allocated: per CPU (its sampler with two record stores) and in
    /// total (also the state, the peers table and the tag-wait table).
    pub(crate) fn memory(&self) -> (usize, usize) {
        let per_cpu = self.cpus.first().map_or(0, |c| c.allocated_bytes());
        let total = per_cpu * self.cpus.len()
            + core::mem::size_of::<Self>()
            + self.peers.allocated_bytes()
            + self.watch.allocated_bytes()
            + self.tag_wait.allocated_bytes();
        (per_cpu, total)
    }

    /// `echo 0|1 > tag_wait`: tag-wait tracking off or on.
    pub(crate) fn write_tag_wait(&self, buf: &[u8]) -> Result {
        let on = parse::enable(buf)?;
        let _control = self.control.lock();
        self.tag_wait.set_enabled(on)
    }

    /// Stops sampling and tag-wait tracking (module unload).
    pub(crate) fn shutdown(&self) {
        self.control.lock().shutdown(&self.watch);
        // Nothing to fail when switching off.
        let _ = self.tag_wait.set_enabled(false);
    }
}

#[pinned_drop]
impl PinnedDrop for State {
    fn drop(self: Pin<&mut Self>) {
        // Normally a no-op: the hotplug teardown stopped them. If it did not, this breaks
        // each sampler's cycle with its own hrtimer before the module's code goes away.
        for cpu in self.cpus.iter() {
            cpu.stop();
        }
    }
}
