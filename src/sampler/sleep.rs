// SPDX-License-Identifier: GPL-2.0

//! The hrtimer parked while its CPU sleeps: an idle CPU is not woken to be sampled.
//!
//! Where the idle loop puts the CPU to sleep (the `power:cpu_idle` probe), the hrtimer is
//! taken out of its queue. At the entry of the first interrupt that wakes the CPU (the
//! interrupt entry probes, before the handler runs) or where the idle loop is back without
//! one (a polling idle loop woken by a flag), it is queued again a period later, and
//! `last_hard_ns` is set to that moment: the CPU slept with interrupts on until then, the
//! one proof a gap needs of where interrupts were last on. A handler that holds them off
//! from there is measured from its own entry, as any window: the precision of a window on a
//! CPU that had slept is that of any other.
//!
//! The probes (`idle.c`) are registered before any CPU parks, and only where every
//! interrupt that wakes a CPU has an entry tracepoint (not on Hyper-V or ACRN guests);
//! softirqs, which run on any interrupt's exit, have theirs too. A CPU parks only while
//! its sampler runs.
//!
//! The watcher (`watch::rings`): a CPU woken from a parked sleep wakes a sleeping watcher
//! of its own, and a watcher does not park while a CPU it watches is awake, so that a
//! window that opens at a wake-up is still sampled inside by a neighbour's NMI.

use kernel::sync::atomic::{Acquire, Relaxed, Release};

use crate::ffi;

use super::cpu::CpuSampler;

impl CpuSampler {
    /// The idle loop puts this CPU to sleep: the hrtimer is parked, unless sampling is off
    /// here or it is parked already. On `self.cpu`, hard interrupts off, in the idle task.
    pub(crate) fn going_to_sleep(&self) {
        let Some(me) = self.peer() else { return };
        me.sleeping.store(true, Relaxed);
        // A wake to watch is for the wake-up that follows this sleep only.
        me.woken_to_watch.store(false, Relaxed);
        // Stopped (or not yet published by `start`), or parked already.
        if me.last_hard_ns.load(Relaxed) == 0 || me.parked_since.load(Relaxed) != 0 {
            return;
        }
        // A CPU this one watches is awake: this one stays a watcher (its hrtimer queued),
        // until that one sleeps too.
        if self.watch.watches_awake(&self.peers, self.cpu) {
            return;
        }
        // SAFETY: This runs on `self.cpu` with interrupts off, in the idle loop, not in the
        // timer's callback. `last_hard_ns` is non-zero only between `start`'s publication
        // and `stop`'s section, which clears it with interrupts off on this CPU: the
        // handle in `running` exists, and nothing else starts the timer meanwhile.
        if !unsafe { ffi::hrtimer_park(&self.timer) } {
            return;
        }
        let now = ffi::now_ns();
        // A beat: this CPU was alive, interrupts on, up to here; and a park, which says
        // whether every sampled CPU is now parked.
        self.peers.beat_park(
            self.cpu,
            now,
            self.settings.period_ns(),
            self.settings.threshold_ns(),
        );
        me.parked_since.store(now, Release);
        self.watch.count_park(self.cpu);
    }

    /// This CPU is woken from a sleep in the idle loop (an interrupt's entry, before its
    /// handler) or back from the idle loop's wait: the timer_list's gap counts from here,
    /// and a parked hrtimer is queued again a period from now, this being where interrupts
    /// were last known on. On `self.cpu`, hard interrupts off. On an awake CPU (every
    /// interrupt and softirq of a busy one), one load.
    pub(crate) fn woken(&self) {
        let Some(me) = self.peer() else { return };
        if !me.sleeping.load(Relaxed) {
            return;
        }
        me.sleeping.store(false, Relaxed);
        let now = ffi::now_ns();
        // The softirq side: a CPU sleeps with softirqs free to run (the idle loop runs them
        // before it sleeps), and its timer_list, deferrable, did not wake it: the
        // timer_list's gap counts from here, parked or not. The timer_list runs with
        // interrupts off, so this never comes between its own read and write.
        if self.soft_running.load(Relaxed) && self.last_soft_ns.load(Relaxed) != 0 {
            self.last_soft_ns.store(now, Relaxed);
            self.last_soft_jiffies.store(ffi::jiffies(), Relaxed);
        }
        let period_ns = self.settings.period_ns();
        if me.parked_since.load(Acquire) != 0 {
            // Before the flag clears: a watcher that finds this CPU awake finds this time,
            // and that it is a wake-up's.
            self.watch.note_wake(self.cpu, now);
            me.last_hard_ns.store(now, Relaxed);
            me.parked_since.store(0, Release);
            // Asleep, not silent: the machine's pulse moves here, with a lone silence if
            // a CPU left awake has not run since its last beat (`Peers::beat_awake`).
            self.peers.beat_awake(now, period_ns);
            // SAFETY: This runs on `self.cpu` with interrupts off, outside the timer's
            // callback (an interrupt's entry or the idle loop); `parked_since` was
            // non-zero, so this CPU parked the timer and nothing queued it since (`stop`
            // clears the flag in its section with interrupts off, before its handle goes).
            unsafe { ffi::hrtimer_unpark(&self.timer, now.saturating_add(period_ns)) };
        } else if now.saturating_add(period_ns / 8)
            >= me.last_hard_ns.load(Relaxed).saturating_add(period_ns)
        {
            // Not parked (it watches a CPU that is awake), and its own hrtimer is due (an
            // eighth of a period's slack: a run that came late moves the next one's due
            // time less): the wake-up is most likely that hrtimer's, every period; waking
            // a watcher for it would keep that watcher awake too.
            return;
        }
        // Watched from here: a watcher that sleeps with its hrtimer parked is woken, unless
        // this wake-up is itself a watcher's (no chain round the ring). A handler that
        // holds interrupts off from this entry is then found inside by the watcher's NMI,
        // as on a busy CPU; one that returns at once costs the watcher one wake-up.
        if !me.woken_to_watch.load(Relaxed) {
            self.watch.wake_a_watcher(&self.peers, self.cpu);
        }
    }
}
