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

/// The cause of one softirq-off window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Cause {
    /// Bottom halves were disabled (or a softirq handler ran) for most of the window.
    BhOff,
    /// Softirqs were pending with bottom halves enabled: their thread did not run.
    KsoftirqdWait,
}

impl Cause {
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Cause::BhOff => "bh-off",
            Cause::KsoftirqdWait => "ksoftirqd-wait",
        }
    }

    /// Index for per-cause arrays.
    pub(crate) const fn index(self) -> usize {
        match self {
            Cause::BhOff => 0,
            Cause::KsoftirqdWait => 1,
        }
    }

    pub(crate) const ALL: [Cause; 2] = [Cause::BhOff, Cause::KsoftirqdWait];
}

/// What the hrtimer saw of one window while it was open.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub(crate) struct Samples {
    /// Hrtimer runs inside the window that interrupted non-idle code.
    pub(crate) total: u32,
    /// Of those, runs that found bottom halves disabled.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn majority_of_samples_decides() {
        assert_eq!(classify(Samples { total: 10, bh_off: 10, idle: 0 }, true), Cause::BhOff);
        assert_eq!(classify(Samples { total: 10, bh_off: 5, idle: 3 }, false), Cause::BhOff);
        assert_eq!(classify(Samples { total: 10, bh_off: 4, idle: 0 }, false), Cause::KsoftirqdWait);
        assert_eq!(classify(Samples { total: 9, bh_off: 0, idle: 0 }, false), Cause::KsoftirqdWait);
    }

    #[test]
    fn without_samples_the_end_decides() {
        assert_eq!(classify(Samples::default(), true), Cause::KsoftirqdWait);
        assert_eq!(classify(Samples::default(), false), Cause::BhOff);
        assert_eq!(classify(Samples { total: 0, bh_off: 0, idle: 8 }, true), Cause::KsoftirqdWait);
    }

    #[test]
    fn names() {
        assert_eq!(Cause::BhOff.name(), "bh-off");
        assert_eq!(Cause::KsoftirqdWait.name(), "ksoftirqd-wait");
        assert_eq!(Cause::ALL.map(Cause::index), [0, 1]);
    }
}
