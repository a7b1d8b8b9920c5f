// SPDX-License-Identifier: GPL-2.0

//! Each sampler run's whole verdict from what the run observed: one pure call per run
//! ([`Rules::judge_hard`] for the hrtimer's gap, [`Rules::judge_held`] for a gap held
//! since, [`Rules::judge_open_soft`] for the hrtimer's look at an overdue timer_list,
//! [`Rules::judge_soft`] for the timer_list's gap, [`Rules::judge_probe`] for the softirq
//! probe's window), so that every verdict path is one host test. The samplers
//! gather what they saw into one value (`*Seen`) and act on the outcome; the rules they
//! combine (latency, steal, silence, sleep, the timer's own lateness) live in `gap`,
//! `stall` and `cause`, and are combined here only.

use crate::logic::cause::{self, Samples};
use crate::logic::gap::{self, Decision, Rules, Silent, Steal, Verdict, Window};
use crate::logic::stall;

/// What the hrtimer saw at its run at `now`, the run before having been at `prev`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HardSeen {
    pub(crate) prev: u64,
    pub(crate) now: u64,
    /// The CPU is proven to have slept through the gap (`gap::SleepEvidence`).
    pub(crate) asleep: bool,
    /// The steal the kernel accounted on this CPU from `prev` (or since this run read it)
    /// to `now`.
    pub(crate) steal: Steal,
    /// The part of the gap in which no sampled CPU ran, read only where
    /// [`Rules::needs_silence`] (else none).
    pub(crate) silent: Silent,
    /// The run shows that the CPU was not running with interrupts off through the
    /// silences (`stall::Evidence::proves_stall`): only then are they taken out.
    pub(crate) stall_evidence: bool,
}

/// What a gap of the hrtimer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HardOutcome {
    /// An ordinary gap.
    Ordinary,
    /// Long, but proven asleep: an idle gap, counted.
    IdleLate,
    /// Long only for a stall of the whole machine over its `late` part: counted.
    Stall { late: Window },
    /// Long only for steal over its `late` part: counted.
    Steal { late: Window },
    /// A hardirq-off window of `latency`, its late part `window`, ending at this run.
    Event { latency: u64, window: Window },
    /// Still an event with what is known, but the steal is not yet accounted or a silence
    /// is being posted: held, and judged again at a later run ([`Rules::judge_held`]).
    Hold,
}

/// [`Rules::judge_hard`]'s verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HardVerdict {
    pub(crate) outcome: HardOutcome,
    /// The late part of a run proven asleep, whatever its length (the timer_list, if due
    /// earlier, may have been late by more): the idle-late window the softirq side takes
    /// out.
    pub(crate) idle_late: Option<Window>,
    /// Of an event's latency, the part in which every CPU was late together (silence
    /// without evidence, [`with_evidence`]): a host pause, `stop_machine()` or a lock convoy.
    /// 0 for any other outcome.
    pub(crate) together_ns: u64,
}

impl HardVerdict {
    /// Whether the run ends a gap that was more than ordinary lateness (the probe's look
    /// then takes the interrupted state for what held the gap).
    pub(crate) const fn after_gap(&self) -> bool {
        !matches!(self.outcome, HardOutcome::Ordinary | HardOutcome::IdleLate)
    }
}

/// A gap held by [`HardOutcome::Hold`], and what a later run at `now` saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HeldSeen {
    pub(crate) prev: u64,
    pub(crate) end: u64,
    pub(crate) now: u64,
    /// The steal count at `prev`, and the one read now (or, where a new gap begins, the
    /// one from before it).
    pub(crate) steal: Steal,
    /// It ended in the idle loop, and a run since found the CPU out of it.
    pub(crate) ended_idle: bool,
    pub(crate) left_idle: bool,
    /// A new gap begins at this run: decided now with what is known.
    pub(crate) force: bool,
    /// The part of the held gap in which no sampled CPU ran, as read now.
    pub(crate) silent: Silent,
    /// As [`HardSeen::stall_evidence`], from the run that ended the gap.
    pub(crate) stall_evidence: bool,
}

/// What a held gap is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeldOutcome {
    /// Not yet known: held on.
    Wait,
    /// A hardirq-off window of `latency` (steal and stall taken out), ending at the held
    /// gap's end; `together_ns` as [`HardVerdict::together_ns`].
    Event {
        latency: u64,
        window: Window,
        together_ns: u64,
    },
    /// Long only for steal: counted; `late` its late part.
    Steal { late: Window },
    /// Long only for a stall of the whole machine: counted; `late` its late part.
    Stall { late: Window },
    /// No event after all, nothing to count.
    Ordinary,
}

/// What the timer_list saw at its run at `now`, its run before having been at `prev`,
/// for a gap at least an event's length (`Rules::soft_event_ns`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SoftSeen {
    pub(crate) prev: u64,
    pub(crate) now: u64,
    /// This CPU's last hardirq-off window and the probe's last softirq-off window
    /// (reported already), and its last idle-late window with the hrtimer's last run
    /// (`gap::idle_until`).
    pub(crate) hard_off: Window,
    pub(crate) probe: Window,
    pub(crate) idle_late: Window,
    pub(crate) last_hard: u64,
    /// Steal accounted on this CPU over the gap.
    pub(crate) stolen: u64,
    /// Nanoseconds of the gap in which no sampled CPU ran.
    pub(crate) silent: u64,
    /// The hrtimer's looks inside the gap, whether one found a softirq thread waiting,
    /// and whether softirqs run in threads here (`cause::timer_gap_held`).
    pub(crate) samples: Samples,
    pub(crate) thread_waited: bool,
    pub(crate) threaded: bool,
}

/// What a gap of the timer_list is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SoftOutcome {
    /// Ordinary, or explained by windows reported already.
    Ordinary,
    /// Explained by idle-late windows: counted.
    IdleLate,
    /// Explained only with steal: counted.
    Steal,
    /// Explained only with a stall of the whole machine: counted.
    Stall,
    /// Still an event's length, but the hrtimer's looks found softirqs free to run: the
    /// timer came late, softirqs were not held off. Counted.
    LateTimer,
    /// A softirq-off window of `latency`.
    Event { latency: u64 },
}

/// What the hrtimer's run at `now` (the run before at `prev`) saw of the timer_list,
/// last run at `last_soft` and overdue: the windows that explain its absence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct OpenSoftSeen {
    pub(crate) last_soft: u64,
    pub(crate) prev: u64,
    pub(crate) now: u64,
    /// This CPU's last hardirq-off window, idle-late window (`gap::idle_until` with
    /// `prev`), steal and stall gaps' late parts.
    pub(crate) hard_off: Window,
    pub(crate) idle_late: Window,
    pub(crate) steal_late: Window,
    pub(crate) stall_late: Window,
}

/// What the softirq probe saw when softirqs ran at `now`: queued by a look at `armed`
/// that estimated the window to have begun at `start`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ProbeSeen {
    pub(crate) start: u64,
    pub(crate) armed: u64,
    pub(crate) now: u64,
    /// Nanoseconds of [`start`, `now`) and of [`armed`, `now`) in which no sampled CPU ran.
    pub(crate) silent: u64,
    pub(crate) silent_after_look: u64,
}

/// What the probe's window is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProbeOutcome {
    /// Not a window (softirqs held off for less than a period after the look).
    Nothing,
    /// A hold only because the whole machine stood still: counted.
    Stall,
    /// A softirq-off window of `latency` (a stall inside it taken out).
    Event { latency: u64 },
}

/// The silence a gap's verdict may take out, and the nanoseconds of it that stay in its
/// window as every CPU late together: all of it one way or the other
/// (`stall::Evidence::proves_stall`). Without evidence nothing waits for a silence being posted.
/// A lone silence in the gap is never evidence's to take out (`Silent::taken_with`).
const fn with_evidence(silent: Silent, evidence: bool) -> (Silent, u64) {
    if silent.taken_with(evidence) {
        (silent, 0)
    } else {
        (Silent::known(0), silent.ns)
    }
}

impl Rules {
    /// Whether an hrtimer gap of `gap_ns` could be an event: only then does the run read
    /// the machine's silences (the common run reads nothing shared).
    pub(crate) const fn needs_silence(&self, gap_ns: u64) -> bool {
        self.hard_latency(gap_ns).is_some()
    }

    /// Whether an hrtimer gap of `gap_ns` is ordinary whatever else was seen:
    /// [`Rules::judge_hard`] then finds [`HardOutcome::Ordinary`], with the late window as
    /// `idle_late` if asleep, and nothing else (the common run works out no more).
    pub(crate) const fn hard_ordinary(&self, gap_ns: u64) -> bool {
        !self.needs_silence(gap_ns)
    }

    /// The hrtimer's verdict on its gap (`gap::Rules::hard_decision_in`, with the steal
    /// not yet settled at the gap's own end).
    pub(crate) const fn judge_hard(&self, seen: HardSeen) -> HardVerdict {
        let gap = seen.now.saturating_sub(seen.prev);
        let late = self.late_window(seen.prev, seen.now);
        let (silent, together) = with_evidence(seen.silent, seen.stall_evidence);
        let mut together_ns = 0;
        let outcome = match self.hard_decision_in(gap, seen.asleep, seen.steal, false, silent) {
            Decision::Now(Verdict::Ordinary) => HardOutcome::Ordinary,
            Decision::Now(Verdict::IdleLate) => HardOutcome::IdleLate,
            Decision::Now(Verdict::Stall) => HardOutcome::Stall { late },
            Decision::Now(Verdict::Steal) => HardOutcome::Steal { late },
            Decision::Now(Verdict::Event(latency)) => {
                together_ns = stall::together_ns(together, latency);
                HardOutcome::Event {
                    latency,
                    window: late,
                }
            }
            Decision::Wait => HardOutcome::Hold,
        };
        HardVerdict {
            outcome,
            idle_late: if seen.asleep { Some(late) } else { None },
            together_ns,
        }
    }

    /// A held gap's verdict at a later run: once the steal is settled
    /// (`gap::Rules::steal_settled_after`) and no silence is being posted, or at once
    /// where a new gap begins (`force`), with what is known then.
    pub(crate) const fn judge_held(&self, seen: HeldSeen) -> HeldOutcome {
        let settled = seen.force
            || self.steal_settled_after(seen.end, seen.now, seen.ended_idle, seen.left_idle);
        let silent = if seen.force {
            Silent {
                complete: true,
                ..seen.silent
            }
        } else {
            seen.silent
        };
        let (silent, together) = with_evidence(silent, seen.stall_evidence);
        let gap = seen.end.saturating_sub(seen.prev);
        let late = self.late_window(seen.prev, seen.end);
        match self.hard_decision_in(gap, false, seen.steal, settled, silent) {
            Decision::Wait => HeldOutcome::Wait,
            Decision::Now(Verdict::Event(latency)) => HeldOutcome::Event {
                latency,
                window: Window {
                    start: seen.end.saturating_sub(latency),
                    end: seen.end,
                },
                together_ns: stall::together_ns(together, latency),
            },
            Decision::Now(Verdict::Steal) => HeldOutcome::Steal { late },
            Decision::Now(Verdict::Stall) => HeldOutcome::Stall { late },
            Decision::Now(Verdict::Ordinary | Verdict::IdleLate) => HeldOutcome::Ordinary,
        }
    }

    /// The timer_list's verdict on a gap at least an event's length: what the windows
    /// reported already, idle-late windows, steal and stalls do not explain is an event,
    /// unless the hrtimer's looks show the timer itself came late
    /// (`cause::timer_gap_held`).
    pub(crate) fn judge_soft(&self, seen: SoftSeen) -> SoftOutcome {
        let gap = seen.now.saturating_sub(seen.prev);
        let idle_late = gap::idle_until(seen.idle_late, seen.last_hard, seen.now);
        // This CPU's hrtimer has not run for two periods or more: interrupts were off here
        // or the CPU did not run (a paused VM whose timer interrupt comes after these
        // softirqs), and the hrtimer, whose interrupt is due, judges that part of its gap
        // next: a hardirq-off window, which a softirq-off one does not count again, or a
        // stall. Not the timer_list's to report before it.
        let hard_open = if seen.last_hard != 0
            && self
                .hard_latency(seen.now.saturating_sub(seen.last_hard))
                .is_some()
        {
            self.late_window(seen.last_hard, seen.now)
        } else {
            Window::EMPTY
        };
        let hard = gap::covered_all(seen.prev, seen.now, [seen.hard_off, seen.probe, hard_open]);
        let hard_or_idle = gap::covered_all(
            seen.prev,
            seen.now,
            [seen.hard_off, seen.probe, idle_late, hard_open],
        );
        match self.soft_verdict_in(gap, hard, hard_or_idle, seen.stolen, seen.silent) {
            Verdict::Ordinary => SoftOutcome::Ordinary,
            Verdict::IdleLate => SoftOutcome::IdleLate,
            Verdict::Steal => SoftOutcome::Steal,
            Verdict::Stall => SoftOutcome::Stall,
            Verdict::Event(_)
                if !cause::timer_gap_held(seen.samples, seen.thread_waited, seen.threaded) =>
            {
                SoftOutcome::LateTimer
            }
            Verdict::Event(latency) => SoftOutcome::Event { latency },
        }
    }

    /// Whether the timer_list's absence is a softirq-off window still open, and its
    /// lower-bound latency so far: what the hardirq-off, idle-late, steal and stall windows
    /// do not explain must reach the threshold and a period (`gap::Rules::soft_starved`).
    pub(crate) fn judge_open_soft(&self, seen: OpenSoftSeen) -> Option<u64> {
        let idle_late = gap::idle_until(seen.idle_late, seen.prev, seen.now);
        let explained = gap::covered_all(
            seen.last_soft,
            seen.now,
            [seen.hard_off, idle_late, seen.steal_late, seen.stall_late],
        );
        self.soft_starved(seen.now.saturating_sub(seen.last_soft), explained)
    }

    /// The probe's verdict: a hold of a period or more after the look
    /// (`gap::Rules::probe_latency`), without a stall of the whole machine inside it.
    pub(crate) const fn judge_probe(&self, seen: ProbeSeen) -> ProbeOutcome {
        let Some(latency) = self.probe_latency(seen.start, seen.armed, seen.now) else {
            return ProbeOutcome::Nothing;
        };
        if seen.silent == 0 {
            return ProbeOutcome::Event { latency };
        }
        // What remains of the hold after the look, without the stall, must still be a
        // period.
        if self
            .probe_latency(
                seen.start,
                seen.armed.saturating_add(seen.silent_after_look),
                seen.now,
            )
            .is_none()
        {
            return ProbeOutcome::Stall;
        }
        ProbeOutcome::Event {
            latency: latency.saturating_sub(seen.silent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn rules() -> Rules {
        Rules::new(10 * MS, 50 * MS, 250)
    }

    fn no_steal() -> Steal {
        Steal { before: 0, now: 0 }
    }

    fn hard(prev: u64, now: u64, asleep: bool, silent: Silent) -> HardVerdict {
        rules().judge_hard(HardSeen {
            prev,
            now,
            asleep,
            steal: no_steal(),
            silent,
            stall_evidence: true,
        })
    }

    /// Every outcome of the hrtimer's gap, each from one observation: an on-time run is
    /// ordinary; 110 ms awake is a 100 ms event over its late part; asleep it is an idle
    /// gap, and every asleep run sets the idle-late window; a stop of the whole machine
    /// over it is a stall; steal over it a steal gap; a silence being posted holds it.
    #[test]
    fn hard_outcomes() {
        let (prev, late) = (
            1_000 * MS,
            Window {
                start: 1_010 * MS,
                end: 1_110 * MS,
            },
        );
        let v = hard(prev, prev + 10 * MS, false, Silent::known(0));
        assert_eq!(v.outcome, HardOutcome::Ordinary);
        assert!(!v.after_gap() && v.idle_late.is_none());
        let v = hard(prev, prev + 110 * MS, false, Silent::known(0));
        assert_eq!(
            v.outcome,
            HardOutcome::Event {
                latency: 100 * MS,
                window: late
            }
        );
        assert!(v.after_gap());
        let v = hard(prev, prev + 110 * MS, true, Silent::known(0));
        assert_eq!(v.outcome, HardOutcome::IdleLate);
        assert_eq!(v.idle_late, Some(late));
        assert!(!v.after_gap());
        let v = hard(prev, prev + 11 * MS, true, Silent::known(0));
        assert_eq!(v.outcome, HardOutcome::Ordinary);
        assert!(v.idle_late.is_some());
        let v = hard(prev, prev + 110 * MS, false, Silent::known(95 * MS));
        assert_eq!(v.outcome, HardOutcome::Stall { late });
        assert!(v.after_gap());
        let v = hard(
            prev,
            prev + 110 * MS,
            false,
            Silent {
                ns: 0,
                complete: false,
                lone: false,
            },
        );
        assert_eq!(v.outcome, HardOutcome::Hold);
        let v = rules().judge_hard(HardSeen {
            prev,
            now: prev + 110 * MS,
            asleep: false,
            steal: Steal {
                before: 1,
                now: 1 + 100 * MS,
            },
            silent: Silent::known(0),
            stall_evidence: true,
        });
        assert_eq!(v.outcome, HardOutcome::Steal { late });
    }

    /// Silence without evidence (bare metal, or a CPU that came back in kernel code) is
    /// never taken out: the gap is an event of its whole length, which says how much of
    /// it every CPU was late together, and a silence being posted is not waited for. With
    /// evidence the same gap is a stall.
    #[test]
    fn silence_without_evidence_keeps_the_window() {
        let prev = 1_000 * MS;
        let seen = |silent, stall_evidence| HardSeen {
            prev,
            now: prev + 160 * MS,
            asleep: false,
            steal: no_steal(),
            silent,
            stall_evidence,
        };
        let latency = |v: &HardVerdict| match v.outcome {
            HardOutcome::Event { latency, .. } => Some(latency),
            _ => None,
        };
        let v = rules().judge_hard(seen(Silent::known(155 * MS), false));
        assert_eq!(latency(&v), Some(150 * MS));
        assert_eq!(v.together_ns, 150 * MS);
        let posting = Silent {
            ns: 155 * MS,
            complete: false,
            lone: false,
        };
        let v = rules().judge_hard(seen(posting, false));
        assert!(matches!(v.outcome, HardOutcome::Event { .. }));
        assert_eq!(v.together_ns, 150 * MS);
        let v = rules().judge_hard(seen(Silent::known(155 * MS), true));
        assert!(matches!(v.outcome, HardOutcome::Stall { .. }));
        assert_eq!(v.together_ns, 0);
        // Without silence nothing is together.
        let v = rules().judge_hard(seen(Silent::known(0), false));
        assert_eq!(v.together_ns, 0);
        // A lone silence (a CPU slept through it parked, on a VM): the same evidence takes
        // nothing out, and the window says the silence as every CPU late together.
        let lone = Silent {
            lone: true,
            ..Silent::known(155 * MS)
        };
        let v = rules().judge_hard(seen(lone, true));
        assert_eq!(latency(&v), Some(150 * MS));
        assert_eq!(v.together_ns, 150 * MS);
    }

    /// A held gap: waits while the steal is unsettled or a silence is being posted, and
    /// is decided with what is known once a new gap begins; then an event ends at the
    /// held gap's end, a stall or steal is counted with its late part.
    #[test]
    fn held_outcomes() {
        let r = rules();
        let seen = HeldSeen {
            prev: 1_000 * MS,
            end: 1_110 * MS,
            now: 1_120 * MS,
            steal: Steal {
                before: 1,
                now: 1 + 5 * MS,
            },
            ended_idle: false,
            left_idle: false,
            force: false,
            silent: Silent::known(0),
            stall_evidence: true,
        };
        let late = Window {
            start: 1_010 * MS,
            end: 1_110 * MS,
        };
        // A jiffy (4 ms at HZ 250) after the end: settled, 95 ms remain.
        assert_eq!(
            r.judge_held(seen),
            HeldOutcome::Event {
                latency: 95 * MS,
                window: Window {
                    start: 1_015 * MS,
                    end: 1_110 * MS
                },
                together_ns: 0,
            }
        );
        // Right at the end: not settled yet.
        assert_eq!(
            r.judge_held(HeldSeen {
                now: 1_111 * MS,
                ..seen
            }),
            HeldOutcome::Wait
        );
        // A silence being posted: waits, unless a new gap begins.
        let posting = Silent {
            ns: 0,
            complete: false,
            lone: false,
        };
        assert_eq!(
            r.judge_held(HeldSeen {
                silent: posting,
                ..seen
            }),
            HeldOutcome::Wait
        );
        assert!(matches!(
            r.judge_held(HeldSeen {
                silent: posting,
                force: true,
                ..seen
            }),
            HeldOutcome::Event { .. }
        ));
        assert_eq!(
            r.judge_held(HeldSeen {
                silent: Silent::known(95 * MS),
                ..seen
            }),
            HeldOutcome::Stall { late }
        );
        assert_eq!(
            r.judge_held(HeldSeen {
                steal: Steal {
                    before: 1,
                    now: 1 + 100 * MS
                },
                ..seen
            }),
            HeldOutcome::Steal { late }
        );
        // Without evidence the silence stays in the window, as every CPU late together.
        assert_eq!(
            r.judge_held(HeldSeen {
                silent: Silent::known(95 * MS),
                stall_evidence: false,
                ..seen
            }),
            HeldOutcome::Event {
                latency: 95 * MS,
                window: Window {
                    start: 1_015 * MS,
                    end: 1_110 * MS
                },
                together_ns: 95 * MS,
            }
        );
    }

    fn soft(gap: u64, f: impl FnOnce(&mut SoftSeen)) -> SoftOutcome {
        let mut seen = SoftSeen {
            prev: 1_000 * MS,
            now: 1_000 * MS + gap,
            hard_off: Window::EMPTY,
            probe: Window::EMPTY,
            idle_late: Window::EMPTY,
            last_hard: 0,
            stolen: 0,
            silent: 0,
            samples: Samples::default(),
            thread_waited: false,
            threaded: false,
        };
        f(&mut seen);
        rules().judge_soft(seen)
    }

    /// Every outcome of the timer_list's gap: a 150 ms gap with nothing to explain it is
    /// an event of its length past the soft period; covered by the hardirq-off window
    /// reported already it is ordinary; by an idle-late window up to the hrtimer's last
    /// run an idle gap; by steal a steal gap; by a stall a stall gap; and where the
    /// hrtimer's looks found softirqs free to run with nothing waiting, the timer's own
    /// lateness.
    #[test]
    fn soft_outcomes() {
        let r = rules();
        let gap = 150 * MS;
        let (prev, now) = (1_000 * MS, 1_000 * MS + gap);
        let all = Window {
            start: prev,
            end: now,
        };
        assert_eq!(
            soft(gap, |_| {}),
            SoftOutcome::Event {
                latency: gap - r.soft_period_ns
            }
        );
        assert_eq!(soft(gap, |s| s.hard_off = all), SoftOutcome::Ordinary);
        assert_eq!(
            soft(gap, |s| {
                s.idle_late = all;
                s.last_hard = now;
            }),
            SoftOutcome::IdleLate
        );
        assert_eq!(soft(gap, |s| s.stolen = gap), SoftOutcome::Steal);
        assert_eq!(soft(gap, |s| s.silent = gap), SoftOutcome::Stall);
        let looked = Samples {
            total: 10,
            bh_off: 0,
            idle: 0,
        };
        assert_eq!(soft(gap, |s| s.samples = looked), SoftOutcome::LateTimer);
        assert!(matches!(
            soft(gap, |s| {
                s.samples = looked;
                s.thread_waited = true;
            }),
            SoftOutcome::Event { .. }
        ));
        assert!(matches!(
            soft(gap, |s| {
                s.samples = looked;
                s.threaded = true;
            }),
            SoftOutcome::Event { .. }
        ));
    }

    /// A timer_list that runs before its CPU's hrtimer after a pause (both stopped 300 ms
    /// at once; the timer interrupt comes after the softirqs on resume) leaves the part
    /// of its gap in which the hrtimer did not run to the hrtimer, which judges it next:
    /// no softirq-off event. A gap in which the hrtimer ran on time stays an event, and
    /// one in which it ran less than two periods ago is untouched.
    #[test]
    fn soft_leaves_an_open_hrtimer_gap_to_the_hrtimer() {
        let r = rules();
        let (p, gap) = (r.period_ns, 312 * MS);
        let now = 1_000 * MS + gap;
        // The hrtimer last ran 2 ms after the timer_list, before the pause.
        assert_eq!(
            soft(gap, |s| s.last_hard = 1_002 * MS),
            SoftOutcome::Ordinary
        );
        assert!(matches!(
            soft(gap, |s| s.last_hard = now - p),
            SoftOutcome::Event { .. }
        ));
        assert!(matches!(
            soft(gap, |s| s.last_hard = now - 2 * p + 1),
            SoftOutcome::Event { .. }
        ));
        // Open for half the gap: the other half is still a window.
        assert_eq!(
            soft(gap, |s| s.last_hard = now - gap / 2 - p),
            SoftOutcome::Event {
                latency: gap - gap / 2 - r.soft_period_ns
            }
        );
    }

    /// A softirq window still open: the timer_list away for 200 ms with nothing to explain
    /// it is a window of its length less a period; a hardirq-off window, an idle-late run
    /// up to this one, a steal gap or a stall over the same span explains it.
    #[test]
    fn open_soft_outcomes() {
        let r = rules();
        let (last_soft, now) = (1_000 * MS, 1_200 * MS);
        let all = Window {
            start: last_soft,
            end: now,
        };
        let seen = OpenSoftSeen {
            last_soft,
            prev: now - 10 * MS,
            now,
            hard_off: Window::EMPTY,
            idle_late: Window::EMPTY,
            steal_late: Window::EMPTY,
            stall_late: Window::EMPTY,
        };
        assert_eq!(r.judge_open_soft(seen), Some(190 * MS));
        for explained in [
            OpenSoftSeen {
                hard_off: all,
                ..seen
            },
            OpenSoftSeen {
                idle_late: Window {
                    start: last_soft,
                    end: now - 10 * MS,
                },
                ..seen
            },
            OpenSoftSeen {
                steal_late: all,
                ..seen
            },
            OpenSoftSeen {
                stall_late: all,
                ..seen
            },
        ] {
            assert_eq!(r.judge_open_soft(explained), None, "{explained:?}");
        }
    }

    /// The probe: held off for less than a period after the look is nothing; a hold
    /// that a stall of the whole machine explains is a stall; a longer one an event
    /// without the stall's part.
    #[test]
    fn probe_outcomes() {
        let r = rules();
        let (start, armed) = (1_000 * MS, 1_020 * MS);
        let seen = |now, silent, after| ProbeSeen {
            start,
            armed,
            now,
            silent,
            silent_after_look: after,
        };
        let plain = r.probe_latency(start, armed, 1_200 * MS);
        assert!(plain.is_some());
        assert_eq!(r.judge_probe(seen(1_021 * MS, 0, 0)), ProbeOutcome::Nothing);
        assert_eq!(
            r.judge_probe(seen(1_200 * MS, 0, 0)),
            ProbeOutcome::Event {
                latency: plain.unwrap_or(0)
            }
        );
        assert_eq!(
            r.judge_probe(seen(1_200 * MS, 180 * MS, 180 * MS)),
            ProbeOutcome::Stall
        );
        assert_eq!(
            r.judge_probe(seen(1_200 * MS, 50 * MS, 50 * MS)),
            ProbeOutcome::Event {
                latency: plain.unwrap_or(0) - 50 * MS
            }
        );
    }

    /// The probe's common run decides with the period alone: where it was not held a
    /// period after the look, the verdict is `Nothing` whatever the silences.
    #[test]
    fn probe_not_held_a_period_is_nothing() {
        let r = rules();
        let (start, armed) = (1_000 * MS, 1_020 * MS);
        for now in [
            armed,
            1_025 * MS,
            armed + r.period_ns - 1,
            armed + r.period_ns,
        ] {
            let held = gap::probe_held_a_period(armed, now, r.period_ns);
            assert_eq!(held, r.probe_latency(start, armed, now).is_some());
            for (silent, after) in [(0, 0), (5 * MS, 5 * MS), (30 * MS, 10 * MS)] {
                let outcome = r.judge_probe(ProbeSeen {
                    start,
                    armed,
                    now,
                    silent,
                    silent_after_look: after,
                });
                if !held {
                    assert_eq!(outcome, ProbeOutcome::Nothing);
                }
            }
        }
    }

    /// The hrtimer's common run skips the verdict where `hard_ordinary` holds: it must be
    /// `Ordinary` then, with the late window as `idle_late` exactly when asleep, whatever
    /// the steal and the silences; and `hard_ordinary` must not hold for any longer gap.
    #[test]
    fn hard_ordinary_is_judge_hard_ordinary() {
        let r = rules();
        let prev = 1_000 * MS;
        let steals = [
            no_steal(),
            Steal { before: 5, now: 5 },
            Steal {
                before: 1,
                now: 30 * MS,
            },
        ];
        let silents = [
            Silent::known(0),
            Silent::known(15 * MS),
            Silent {
                ns: 3 * MS,
                complete: false,
                lone: false,
            },
        ];
        for gap in [
            0,
            1,
            5 * MS,
            10 * MS,
            19 * MS,
            20 * MS - 1,
            20 * MS,
            21 * MS,
            90 * MS,
        ] {
            let now = prev + gap;
            assert_eq!(r.hard_ordinary(gap), r.hard_latency(gap).is_none());
            if !r.hard_ordinary(gap) {
                continue;
            }
            for asleep in [false, true] {
                for steal in steals {
                    for silent in silents {
                        let v = r.judge_hard(HardSeen {
                            prev,
                            now,
                            asleep,
                            steal,
                            silent,
                            stall_evidence: asleep,
                        });
                        assert_eq!(v.outcome, HardOutcome::Ordinary);
                        assert!(!v.after_gap());
                        let late = asleep.then(|| r.late_window(prev, now));
                        assert_eq!(v.idle_late, late);
                    }
                }
            }
        }
    }
}
