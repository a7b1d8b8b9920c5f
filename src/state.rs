// SPDX-License-Identifier: GPL-2.0

//! The module's state and its control operations (enable, period, threshold, clear), all
//! serialised by one lock. Readers never take it: what they show of a switch comes from
//! its [`Phase`], published by the writer that holds the lock, which may wait for every
//! CPU (hotplug and kprobe (un)registration) while one has interrupts off.

use kernel::new_mutex;
use kernel::prelude::*;
use kernel::sync::atomic::{Atomic, Relaxed};
use kernel::sync::{Arc, Mutex};

use crate::capture::namer::Namer;
use crate::cpu_table::CpuTable;
use crate::ffi;
use crate::logic::parse::{self, Invalid, LatencyWrite};
use crate::peers::Peers;
use crate::phase::{Phase, PhaseCell};
use crate::sampler::CpuSampler;
use crate::settings::Settings;
use crate::tag_wait::{TagSource, TagWait};
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
    /// the handler. Requests stop first and the samplers run on while the first drain
    /// waits, so that a CPU's hrtimer can settle a request whose NMI another handler took
    /// (`Watch::settle`); the second catches one a watcher made as the requests stopped.
    fn shutdown(&mut self, watch: &Watch) {
        watch.stop();
        watch.drain();
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
    /// One sampler per CPU that came online, indexed by CPU number (`cpu_came_online`).
    cpus: CpuTable<Arc<CpuSampler>>,
    pub(crate) records_per_cpu: usize,
    /// Softirqs run in threads on this kernel (see `CpuSampler::threaded`).
    threaded: bool,
    #[pin]
    control: Mutex<Control>,
    /// Sampling on or off, as readers see it (set under `control`).
    phase: PhaseCell,
    /// When the counts and records started: the load, or the last clear (CLOCK_MONOTONIC).
    counts_since_ns: Atomic<u64>,
    /// When sampling was last enabled; 0 while it is off.
    enabled_since_ns: Atomic<u64>,
    #[pin]
    pub(crate) tag_wait: TagWait,
    /// Names the frames of records in module text, off the capture path.
    #[pin]
    pub(crate) namer: Namer,
}

impl From<Invalid> for Error {
    fn from(_: Invalid) -> Self {
        EINVAL
    }
}

impl State {
    pub(crate) fn new(
        nr_cpus: u32,
        records_per_cpu: usize,
        tag_source: TagSource,
        watch: Watch,
    ) -> Result<impl PinInit<Self, Error>> {
        let settings = Arc::new(Settings::new(ffi::hz()), GFP_KERNEL)?;
        let peers = Arc::new(Peers::new(nr_cpus)?, GFP_KERNEL)?;
        let watch = Arc::new(watch, GFP_KERNEL)?;
        let cpus = CpuTable::new(nr_cpus)?;
        // Every CPU's softirq threads in one walk of the task list, not one per CPU.
        let mut ksoftirqd = VVec::from_elem(0i32, nr_cpus as usize, GFP_KERNEL)?;
        let mut ktimers = VVec::from_elem(0i32, nr_cpus as usize, GFP_KERNEL)?;
        ffi::softirq_thread_pids(&mut ksoftirqd, &mut ktimers);
        // Softirqs run in threads on every CPU or on none (PREEMPT_RT, `threadirqs`).
        let threaded = ktimers.iter().any(|&p| p != 0);
        // The CPUs online now get their state at once; the others when they first come
        // online while sampling is on (`cpu_came_online`).
        for ((cpu, &k), &t) in (0..nr_cpus).zip(ksoftirqd.iter()).zip(ktimers.iter()) {
            if !ffi::cpu_online(cpu) {
                continue;
            }
            watch.cpu_came_online(cpu)?;
            cpus.get_or_make(cpu, || {
                CpuSampler::new(
                    cpu,
                    settings.clone(),
                    peers.clone(),
                    watch.clone(),
                    records_per_cpu,
                    threaded,
                    [k, t],
                )
            })?;
        }
        Ok(try_pin_init!(Self {
            settings,
            peers,
            watch,
            cpus,
            records_per_cpu,
            threaded,
            control <- new_mutex!(Control { hotplug: None, nmi: None }),
            phase: PhaseCell::new(),
            counts_since_ns: Atomic::new(ffi::now_ns()),
            enabled_since_ns: Atomic::new(0),
            tag_wait <- TagWait::new(tag_source)?,
            namer <- Namer::new()?,
        }? Error))
    }

    /// The sampler of `cpu`, if it came online while the module was loaded. Any context.
    pub(crate) fn cpu(&self, cpu: u32) -> Option<&Arc<CpuSampler>> {
        self.cpus.get(cpu)
    }

    /// Every CPU's sampler, in CPU order (the CPUs that came online).
    pub(crate) fn samplers(&self) -> impl Iterator<Item = &Arc<CpuSampler>> {
        self.cpus.iter().map(|(_, s)| s)
    }

    /// The CPU numbers the module covers (`nr_cpu_ids`).
    /// Whether softirqs run in threads on this kernel (PREEMPT_RT, `threadirqs`).
    pub(crate) fn threaded(&self) -> bool {
        self.threaded
    }

    pub(crate) fn nr_cpus(&self) -> u32 {
        self.cpus.nr()
    }

    /// `cpu` is online (CPU hotplug, process context on `cpu`): its state, made at its
    /// first online and kept to unload. Fails only if that allocation fails.
    pub(crate) fn cpu_came_online(&self, cpu: u32) -> Result<&Arc<CpuSampler>> {
        self.watch.cpu_came_online(cpu)?;
        self.cpus.get_or_make(cpu, || {
            CpuSampler::new(
                cpu,
                self.settings.clone(),
                self.peers.clone(),
                self.watch.clone(),
                self.records_per_cpu,
                self.threaded,
                // Looked for when it starts (`CpuSampler::start`).
                [0, 0],
            )
        })
    }

    /// Sampling on, off or being switched: never waits for the control lock.
    pub(crate) fn phase(&self) -> Phase {
        self.phase.get()
    }

    /// Since when the counts run (load or last clear), and since when sampling is on (0:
    /// off), CLOCK_MONOTONIC ns.
    pub(crate) fn since(&self) -> (u64, u64) {
        (
            self.counts_since_ns.load(Relaxed),
            self.enabled_since_ns.load(Relaxed),
        )
    }

    /// `echo 0|1 > enable`. Waits for every CPU (hotplug registration), showing
    /// `enabling` or `disabling` meanwhile.
    pub(crate) fn write_enable(&self, buf: &[u8]) -> Result {
        let on = parse::enable(buf)?;
        let mut control = self.control.lock();
        match (on, control.hotplug.is_some()) {
            (true, false) => {
                self.phase.set(Phase::TurningOn);
                let r = self
                    .watch
                    .switch_all(&self.peers, || control.enable(&self.watch));
                self.enabled_since_ns
                    .store(if r.is_ok() { ffi::now_ns() } else { 0 }, Relaxed);
                self.phase
                    .set(if r.is_ok() { Phase::On } else { Phase::Off });
                r?;
            }
            // Dropping the registration stops the samplers on every CPU.
            (false, true) => {
                self.phase.set(Phase::TurningOff);
                self.watch
                    .switch_all(&self.peers, || control.disable(&self.watch));
                self.enabled_since_ns.store(0, Relaxed);
                self.phase.set(Phase::Off);
            }
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

    /// `echo LIST > cpus`: the CPUs to sample (a CPU list, `parse::cpulist`); only while
    /// disabled, like the period.
    pub(crate) fn write_cpus(&self, buf: &[u8]) -> Result {
        let nr = self.cpus.nr();
        parse::cpulist(buf, nr, |_, _| {})?;
        let control = self.control.lock();
        if control.hotplug.is_some() {
            return Err(EBUSY);
        }
        // New CPUs in first, then the others out: a reader (who takes no lock) sees a
        // selection that holds the old or the new list, never an empty one. A write of
        // at most 64 bytes has at most 32 ranges.
        let mut ranges = [(0u32, 0u32); 32];
        let mut n = 0;
        parse::cpulist(buf, nr, |first, last| {
            if let Some(r) = ranges.get_mut(n) {
                *r = (first, last);
                n += 1;
            }
        })?;
        let ranges = &ranges[..n];
        for &(first, last) in ranges {
            self.peers.select(first, last);
        }
        for cpu in 0..nr {
            if !ranges
                .iter()
                .any(|&(first, last)| (first..=last).contains(&cpu))
            {
                self.peers.deselect(cpu);
            }
        }
        Ok(())
    }

    /// `echo MS > trace_latency` sets the threshold; `echo 0` clears records and counts.
    pub(crate) fn write_trace_latency(&self, buf: &[u8]) -> Result {
        let _control = self.control.lock();
        match parse::trace_latency(buf, self.settings.period_ns())? {
            LatencyWrite::Threshold(ns) => self.settings.set_threshold(ns),
            LatencyWrite::Clear => {
                self.counts_since_ns.store(ffi::now_ns(), Relaxed);
                self.settings.next_generation();
                for cpu in self.samplers() {
                    cpu.hard_counts.clear();
                    cpu.soft_counts.clear();
                    for c in &cpu.cause_counts {
                        c.clear();
                    }
                    cpu.idle_gaps.store(0, Relaxed);
                    cpu.late_timer_gaps.store(0, Relaxed);
                    cpu.steal_gaps.store(0, Relaxed);
                    cpu.stall_gaps.store(0, Relaxed);
                    if let Some(p) = cpu.peer() {
                        p.together_events.store(0, Relaxed);
                    }
                }
                self.peers.reset_stalls();
                self.tag_wait.clear();
            }
        }
        Ok(())
    }

    /// Bytes the module allocated: per CPU that came online (its sampler with two record
    /// stores, and its watcher entry) and in total (`sizes::footprint`: those per CPU that
    /// came online, the tables indexed by CPU number, and the state, the settings, the
    /// tag-wait tables and the namer's buffer), as the allocators round them.
    pub(crate) fn memory(&self) -> (usize, usize) {
        use crate::logic::sizes::{arc_bytes, footprint, kmalloc_bytes};
        use core::mem::{align_of, size_of};
        let per_cpu = self
            .samplers()
            .next()
            .map_or(0, |c| c.allocated_bytes() + self.watch.entry_bytes());
        let fixed = kmalloc_bytes(size_of::<Self>())
            + kmalloc_bytes(arc_bytes(size_of::<Settings>(), align_of::<Settings>()))
            + kmalloc_bytes(arc_bytes(size_of::<Peers>(), align_of::<Peers>()))
            + kmalloc_bytes(arc_bytes(size_of::<Watch>(), align_of::<Watch>()))
            + self.tag_wait.allocated_bytes()
            + self.namer.allocated_bytes();
        let total = footprint(
            self.nr_cpus() as usize,
            self.cpus.made(),
            per_cpu,
            &[
                self.cpus.index_entry_bytes(),
                self.watch.index_entry_bytes(),
                self.peers.entry_bytes(),
            ],
            fixed,
        );
        (per_cpu, total)
    }

    /// Stops sampling and tag-wait tracking (module unload).
    pub(crate) fn shutdown(&self) {
        let mut control = self.control.lock();
        if control.hotplug.is_some() {
            self.phase.set(Phase::TurningOff);
        }
        self.watch
            .switch_all(&self.peers, || control.shutdown(&self.watch));
        self.phase.set(Phase::Off);
        drop(control);
        // Nothing to fail when switching off.
        let _ = self.tag_wait.set_enabled(false);
    }
}

#[pinned_drop]
impl PinnedDrop for State {
    fn drop(self: Pin<&mut Self>) {
        // Normally a no-op: the hotplug teardown stopped them. If it did not, this breaks
        // each sampler's cycle with its own hrtimer before the module's code goes away.
        for cpu in self.samplers() {
            cpu.stop();
        }
    }
}

impl State {
    /// The namer's pass (process context): learns the frame classes that captures in
    /// interrupt context met without knowing, names the frames of new records, and logs
    /// the stuck lines the watcher posted.
    pub(crate) fn name_frames(&self) {
        crate::capture::learn_pending();
        let stores = self.samplers().flat_map(|c| [&c.hard, &c.soft]);
        self.namer.run(stores, self.settings.generation());
        self.watch.log_stuck_lines();
    }
}

// No allocation above order 1: every object the module takes from kmalloc fits in 8 KiB
// (`sizes::fits_order1`); what is larger (record stores, tables indexed by CPU) comes from
// vmalloc. Checked at build time, for the kernel built against.
const _: () = {
    use crate::logic::sizes::{arc_bytes, fits_order1};
    use core::mem::{align_of, size_of};
    assert!(fits_order1(arc_bytes(
        size_of::<CpuSampler>(),
        align_of::<CpuSampler>()
    )));
    assert!(fits_order1(size_of::<State>()));
    assert!(fits_order1(arc_bytes(
        size_of::<Settings>(),
        align_of::<Settings>()
    )));
    assert!(fits_order1(arc_bytes(
        size_of::<Peers>(),
        align_of::<Peers>()
    )));
    assert!(fits_order1(arc_bytes(
        size_of::<Watch>(),
        align_of::<Watch>()
    )));
    assert!(fits_order1(size_of::<crate::watch::Watched>()));
};

// What is kept per CPU number, whether or not that CPU ever runs (Documentation, *Memory*;
// `sizes::footprint`'s test): two index entries and a peer entry (a cache line of its own),
// 96 bytes at most.
const _: () = {
    use core::mem::size_of;
    use kernel::sync::SetOnce;
    assert!(size_of::<SetOnce<Arc<CpuSampler>>>() <= 16);
    assert!(size_of::<SetOnce<KBox<crate::watch::Watched>>>() <= 16);
    assert!(size_of::<crate::peers::Peer>() <= 64);
};
