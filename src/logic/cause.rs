// SPDX-License-Identifier: GPL-2.0

//! Why softirqs could not run during a softirq-off window. Pure logic (`core` only),
//! shared with the host via `tools/tio-logic`.
//!
//! Two causes need different fixes: code that ran with bottom halves disabled (or a
//! softirq handler that ran long), and softirq work deferred to its thread (ksoftirqd/N, or
//! ktimers/N where timers run in a thread) that did not get the CPU. While a window is
//! open, each hrtimer run looks at the code it interrupted: bottom halves off or not. At
//! the end the majority of those samples decides; a window without samples (shorter than
//! the hrtimer's view of it) is judged by where the timer_list finally ran.

crate::logic::enum_names::names! {
    /// The cause of one softirq-off window, with its name in the files.
    pub enum Cause {
        /// Bottom halves were disabled (or a softirq handler ran) for most of the window.
        BhOff = "bh-off",
        /// Softirqs were pending with bottom halves enabled: their thread did not run.
        KsoftirqdWait = "ksoftirqd-wait",
    }
}

impl Cause {
    /// Index for per-cause arrays.
    pub(crate) const fn index(self) -> usize {
        match self {
            Cause::BhOff => 0,
            Cause::KsoftirqdWait => 1,
        }
    }
}

/// What the hrtimer saw of one window while it was open.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Samples {
    /// Hrtimer runs inside the window that interrupted non-idle code.
    pub(crate) total: u32,
    /// Of those, runs that found softirqs held off: bottom halves disabled, or a softirq
    /// handler running, by code other than the softirq loop itself (a run that came in at
    /// the loop, between handlers, found softirqs running).
    pub(crate) bh_off: u32,
    /// Runs inside the window that found the CPU idle (not counted in `total`).
    pub(crate) idle: u32,
}

/// The cause of a window: by the majority of `samples`, else by whether the timer_list
/// finally ran in a softirq thread (`ended_in_thread`).
pub(crate) const fn classify(samples: Samples, ended_in_thread: bool) -> Cause {
    if samples.total > 0 {
        if 2 * (samples.bh_off as u64) >= samples.total as u64 {
            Cause::BhOff
        } else {
            Cause::KsoftirqdWait
        }
    } else if ended_in_thread {
        Cause::KsoftirqdWait
    } else {
        Cause::BhOff
    }
}

/// Whether a timer_list gap of an event's length that the softirq probe did not report
/// was softirqs held off, by what the hrtimer's looks inside it found (`samples`, and
/// `thread_waited`: a look found a softirq thread queued and not running).
///
/// Where softirqs run on interrupt exit (not `threaded`), the probe reports every hold of
/// two periods or more that a look found, from that look: a look that found softirqs held
/// off queued it, and it ran as soon as they could. So looks that found a hold are the
/// probe's to judge, and what the timer_list alone can show is work left to ksoftirqd that
/// did not get the CPU: a look must have seen it waiting. A gap in which the looks found
/// neither (softirqs running, or free to run with nothing waiting) was the timer's own
/// lateness, e.g. a timer softirq raised late, not a softirq-off window. Without a look
/// that found the CPU awake, and where softirqs run in threads (there the probe does not
/// cover a softirq thread's own delay), the gap is a window as the timer_list saw it.
pub(crate) const fn timer_gap_held(samples: Samples, thread_waited: bool, threaded: bool) -> bool {
    threaded || samples.total == 0 || thread_waited
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: with samples, a window is bh-off when at least half the non-idle samples
    /// found bottom halves off (10 of 10, 5 of 10 beside idle ones), else ksoftirqd-wait (4
    /// of 10, 0 of 9), whatever thread the timer_list ended in.
    #[test]
    fn majority_of_samples_decides() {
        assert_eq!(
            classify(
                Samples {
                    total: 10,
                    bh_off: 10,
                    idle: 0
                },
                true
            ),
            Cause::BhOff
        );
        assert_eq!(
            classify(
                Samples {
                    total: 10,
                    bh_off: 5,
                    idle: 3
                },
                false
            ),
            Cause::BhOff
        );
        assert_eq!(
            classify(
                Samples {
                    total: 10,
                    bh_off: 4,
                    idle: 0
                },
                false
            ),
            Cause::KsoftirqdWait
        );
        assert_eq!(
            classify(
                Samples {
                    total: 9,
                    bh_off: 0,
                    idle: 0
                },
                false
            ),
            Cause::KsoftirqdWait
        );
    }

    /// Claim: a window without non-idle samples (idle ones do not count) is ksoftirqd-wait
    /// when the timer_list ended in a softirq thread and bh-off when it did not.
    #[test]
    fn without_samples_the_end_decides() {
        assert_eq!(classify(Samples::default(), true), Cause::KsoftirqdWait);
        assert_eq!(classify(Samples::default(), false), Cause::BhOff);
        assert_eq!(
            classify(
                Samples {
                    total: 0,
                    bh_off: 0,
                    idle: 8
                },
                true
            ),
            Cause::KsoftirqdWait
        );
    }

    /// Where softirqs run on interrupt exit, a gap whose looks all found softirqs free to
    /// run (or held, which the probe judged) is no window; one whose looks saw ksoftirqd
    /// waiting is. Without looks, or where softirqs run in threads, the timer_list decides.
    #[test]
    fn timer_gap_needs_a_look_that_saw_softirqs_held() {
        let looked = Samples {
            total: 3,
            bh_off: 0,
            idle: 0,
        };
        let held = Samples {
            total: 3,
            bh_off: 3,
            idle: 0,
        };
        assert!(!timer_gap_held(looked, false, false));
        assert!(!timer_gap_held(held, false, false));
        assert!(timer_gap_held(looked, true, false));
        assert!(timer_gap_held(
            Samples {
                total: 0,
                bh_off: 0,
                idle: 4
            },
            false,
            false
        ));
        assert!(timer_gap_held(Samples::default(), false, false));
        assert!(timer_gap_held(looked, false, true));
        assert!(timer_gap_held(held, false, true));
    }

    /// Claim: the causes are named "bh-off" and "ksoftirqd-wait" in the files, and
    /// `Cause::ALL` lists them in index order 0, 1.
    #[test]
    fn names() {
        assert_eq!(Cause::BhOff.name(), "bh-off");
        assert_eq!(Cause::KsoftirqdWait.name(), "ksoftirqd-wait");
        assert_eq!(Cause::ALL.map(Cause::index), [0, 1]);
    }
}
