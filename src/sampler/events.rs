// SPDX-License-Identifier: GPL-2.0

//! How a CPU's sampler reports a window: the event stream's tracepoints, the record
//! stores, the open softirq window's lower bound.

use kernel::sync::atomic::Relaxed;

use crate::capture;
use crate::ffi::tracepoints;
use crate::ffi::tracepoints::WindowEvent;
use crate::ffi::{self, COMM_LEN};
use crate::logic::cause::{Cause, Samples};
use crate::logic::gap::{self, Window};
use crate::logic::grammar::EndedBy;
use crate::records::{Header, Which, MAX_FRAMES};

use super::cpu::CpuSampler;

/// Where a hardirq-off record's end stack comes from.
#[derive(Clone, Copy)]
pub(super) enum EndStack<'a> {
    /// Taken now: the window ends at this run.
    Here,
    /// Taken when the window ended, held while its verdict waited (`Held`).
    Held {
        pid: i32,
        comm: [u8; COMM_LEN],
        cgroup_id: u64,
        frames: &'a [u64],
    },
}

/// A hardirq-off window as the hrtimer saw it: `latency_ns` in `window`, found by the
/// run at `end` after the run at `prev` (the id under which the watcher sampled it).
pub(super) struct HardWindow {
    pub(super) latency_ns: u64,
    pub(super) window: Window,
    /// The part of it in which every CPU was late together, kept in it for want of
    /// evidence of a stall (`stall::Evidence`).
    pub(super) together_ns: u64,
    pub(super) prev: u64,
    pub(super) end: u64,
    /// The stack where the window ended is the culprit's (not the idle loop it returned
    /// to).
    pub(super) end_shows_culprit: bool,
    /// The function a `stop_machine()` call ran on this CPU, seen where the window ended
    /// inside the call (`ffi::stop_machine_callback`): its culprit.
    pub(super) stop_callback: Option<u64>,
}

/// A softirq-off window as its reporter (the timer_list or the probe) saw it.
pub(super) struct SoftWindow {
    /// That reporter: `EndedBy::Probe` or `EndedBy::Timer`.
    pub(super) ended_by: EndedBy,
    pub(super) latency_ns: u64,
    /// The timer_list's last run before the window: the key of its lower-bound record and
    /// profile.
    pub(super) key: u64,
    /// Jiffies at that run.
    pub(super) start_jiffies: u64,
    pub(super) cause: Cause,
    pub(super) runnable_ns: u64,
    pub(super) samples: Samples,
    pub(super) end_shows_culprit: bool,
    /// The part of it in which every CPU was late together, kept in it for want of
    /// evidence of a stall ([`CpuSampler::together_ns`]).
    pub(super) together_ns: u64,
}

impl CpuSampler {
    /// How long a softirq thread was seen waiting in the window kept under `key`, for
    /// ksoftirqd-wait.
    pub(super) fn runnable_in(&self, key: u64, cause: Cause, now: u64) -> u64 {
        let since = if self.win_of.load(Relaxed) == key {
            self.win_waiting_since.load(Relaxed)
        } else {
            0
        };
        if cause == Cause::KsoftirqdWait && since != 0 {
            now.saturating_sub(since)
        } else {
            0
        }
    }

    /// The event-stream form of a window of this CPU that ended at `end_ns`, numbered
    /// after the CPU's last one.
    pub(super) fn window_event<'a>(
        &self,
        latency_ns: u64,
        end_ns: u64,
        pid: i32,
        comm: &'a [u8; COMM_LEN],
        end_shows_culprit: bool,
        frames: &'a [u64],
    ) -> WindowEvent<'a> {
        WindowEvent {
            cpu: self.cpu,
            latency_ns,
            end_ns,
            seq: self.events_seq.fetch_add(1, Relaxed) + 1,
            pid,
            comm,
            // Set by the caller, which took it with `pid`.
            cgroup_id: 0,
            end_shows_culprit,
            // Set by the hardirq side's caller.
            together_ns: 0,
            frames,
        }
    }

    /// Reports the hardirq-off window `w`: the tracepoint always, a record at the
    /// threshold, with the window's profile if the watcher took one. `stack`: the stack
    /// where it ended, here or held since.
    #[inline(never)]
    pub(super) fn hard_event(&self, rules: &gap::Rules, w: HardWindow, stack: EndStack<'_>) {
        let HardWindow {
            latency_ns,
            window,
            together_ns,
            prev,
            end: now,
            end_shows_culprit,
            stop_callback,
        } = w;
        let (pid, comm, cgroup_id) = match stack {
            EndStack::Here => {
                let mut comm = [0u8; COMM_LEN];
                (ffi::current_task(&mut comm), comm, ffi::current_cgroup_id())
            }
            EndStack::Held {
                pid,
                comm,
                cgroup_id,
                ..
            } => (pid, comm, cgroup_id),
        };
        let recorded = rules.is_recorded(latency_ns);
        let live = self.watch.get(self.cpu).map(|w| &w.profile);
        // The stack where it ended, for the record and the event stream: taken here once,
        // whether or not the record store keeps the window.
        let mut raw = [0u64; capture::RAW_FRAMES];
        let start = ffi::now_ns();
        let frames: &[u64] = match stack {
            EndStack::Held { frames, .. } => frames,
            EndStack::Here if recorded => capture::capture_raw(
                &mut raw,
                ffi::irq_regs_ip(),
                capture::Context::Interrupt,
                capture::END_FRAMES,
            ),
            EndStack::Here => &[],
        };
        tracepoints::hardirq_off(&WindowEvent {
            cgroup_id,
            together_ns,
            ..self.window_event(
                latency_ns,
                now,
                pid,
                &comm,
                end_shows_culprit,
                if recorded { frames } else { &[] },
            )
        });
        if !recorded {
            return;
        }
        let header = Header {
            overlap_cpu: self
                .peers
                .hardirq_overlap(self.cpu, window, rules.period_ns),
            end_shows_culprit,
            cgroup_id,
            together_ns,
            ended_by: EndedBy::Hrtimer,
            stop_callback: stop_callback.is_some(),
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.hard.offer(&header, self.settings.generation(), |w| {
            capture::put_frames(w, Which::End, frames);
            if let Some(live) = live {
                w.profile_from(live, prev);
            }
            // The call's function ran in the window, on this CPU, by the stopper thread
            // current here: what an in-window sample would have shown, where no CPU was
            // free to take one.
            if let Some(f) = stop_callback {
                w.frames(Which::Window, &[f]);
                w.window_task(pid, &comm);
            }
        });
        self.capture_cost.add(ffi::now_ns().saturating_sub(start));
    }

    /// The hrtimer finds the softirq window that started at `start` open past the
    /// threshold: it takes the stack inside it, shown as ongoing until the window ends.
    /// Its length so far is dated as its end will date it, so that a reader sees one start
    /// for the open and the ended window: where a look armed the probe in it, from the
    /// probe's estimate of its start (`close_probe` reports it from there, less the time
    /// no CPU ran), else from the timer_list's last run (`latency_ns`).
    #[inline(never)]
    pub(super) fn open_soft_window(&self, latency_ns: u64, start: u64, now: u64) {
        let probe_start = self.probe_start.load(Relaxed);
        // A probe armed since the timer_list's last run is this window's, and its start is
        // the one the ended window will have: a look's estimate, half its gap back, which
        // may be before that run when the run came between the look and the one before.
        let latency_ns = if self.probe_armed.load(Relaxed) > start {
            now.saturating_sub(probe_start)
                .saturating_sub(self.stalled_ns(probe_start, now))
        } else {
            latency_ns
        };
        let t0 = ffi::now_ns();
        let mut comm = [0u8; COMM_LEN];
        let pid = ffi::current_task(&mut comm);
        let (cause, runnable_ns, samples) = self.window_cause(start, now, 0);
        let header = Header {
            ongoing: true,
            cause: Some(cause),
            runnable_ns,
            samples,
            jiffies: ffi::jiffies().wrapping_sub(self.last_soft_jiffies.load(Relaxed)),
            cgroup_id: ffi::current_cgroup_id(),
            // Open: measured so far by the hrtimer's look, here.
            ended_by: EndedBy::Hrtimer,
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.pending
            .open(start, &header, self.settings.generation(), |w| {
                w.window_task(pid, &comm);
                capture::capture(w, Which::Window, capture::Context::Interrupt);
            });
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }

    /// Reports a softirq-off window that ended `now` (with `pid` current): counted by
    /// cause, the tracepoint always, at the threshold one record with the stack where it
    /// ended and the one the hrtimer took inside it.
    pub(super) fn soft_event(
        &self,
        rules: &gap::Rules,
        sw: SoftWindow,
        now: u64,
        pid: i32,
        comm: [u8; COMM_LEN],
    ) {
        // The timer_list runs with interrupts disabled; the record must not keep them so.
        let _irqs = ffi::IrqsOn::new();
        let latency_ns = sw.latency_ns;
        // `pid` is current's, taken by our caller in this same context.
        let cgroup_id = ffi::current_cgroup_id();
        self.soft_counts.add(latency_ns);
        if let Some(c) = self.cause_counts.get(sw.cause.index()) {
            c.add(latency_ns);
        }
        let recorded = rules.is_recorded(latency_ns);
        let t0 = ffi::now_ns();
        // As for hardirq windows: the end stack once, for the stream and the record.
        self.capturing.store(true, Relaxed);
        let mut raw = [0u64; capture::RAW_FRAMES];
        let frames: &[u64] = if recorded && tracepoints::windows_enabled() {
            capture::capture_raw(
                &mut raw,
                ffi::irq_regs_ip(),
                capture::Context::Soft,
                MAX_FRAMES,
            )
        } else {
            &[]
        };
        tracepoints::softirq_off(
            &WindowEvent {
                cgroup_id,
                together_ns: sw.together_ns,
                ..self.window_event(latency_ns, now, pid, &comm, sw.end_shows_culprit, frames)
            },
            sw.cause,
        );
        if !recorded {
            self.capturing.store(false, Relaxed);
            return;
        }
        let window = Window {
            start: now.saturating_sub(latency_ns),
            end: now,
        };
        let header = Header {
            end_shows_culprit: sw.end_shows_culprit,
            cause: Some(sw.cause),
            runnable_ns: sw.runnable_ns,
            samples: sw.samples,
            jiffies: ffi::jiffies().wrapping_sub(sw.start_jiffies),
            overlap_cpu: self
                .peers
                .hardirq_overlap(self.cpu, window, rules.period_ns),
            cgroup_id,
            together_ns: sw.together_ns,
            ended_by: sw.ended_by,
            ..Header::new(latency_ns, now, pid, comm)
        };
        self.soft.offer(&header, self.settings.generation(), |w| {
            if frames.is_empty() {
                capture::capture(w, Which::End, capture::Context::Soft);
            } else {
                capture::put_frames(w, Which::End, frames);
            }
            w.window_from(&self.pending, sw.key);
            w.profile_from(&self.soft_profile, sw.key);
        });
        self.capturing.store(false, Relaxed);
        self.capture_cost.add(ffi::now_ns().saturating_sub(t0));
    }
}
