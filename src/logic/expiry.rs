// SPDX-License-Identifier: GPL-2.0

//! Where the hrtimer expires next: one period on, in a phase set once so that its
//! expiries meet the kernel's tick, and a busy CPU takes one interrupt for both.
//!
//! A busy CPU takes its tick every jiffy anyway (`tick_sched_timer`, itself an hrtimer in
//! high-resolution mode, on multiples of the tick period of the monotonic clock unless
//! `skew_tick=1`); an hrtimer of ours that expires at the same instant runs in the same
//! pass of the same interrupt. One that expires between two ticks costs an interrupt of
//! its own.
//!
//! The first run moves the sequence's phase back by less than a period (its next gap is
//! shorter, never longer), so that one of its expiries is on a tick; from then on the
//! expiries are exactly P apart, as `hrtimer_forward` keeps them. Where P is a multiple of
//! the tick (every P at HZ 1000, 20 ms at HZ 250) every expiry is then on a tick; where
//! it is not, those that come back onto the grid are (every other one at HZ 250 and
//! P = 10 ms, every fourth at HZ 250 and P = 1 ms). No gap between two expiries is ever
//! longer than P: a run's gap G still bounds a window from above, and G - P from below.
//!
//! # Examples
//!
//! ```ignore
//! // HZ 1000, P = 10 ms: after a first expiry at 20.3 ms the next is on the tick at 21 ms
//! // (a gap of 0.7 ms), then 31, 41 ms...
//! assert_eq!(first(20_300_000, 20_300_000, 10_000_000, 1_000_000), 21_000_000);
//! assert_eq!(next(21_000_000, 21_000_000, 10_000_000), 31_000_000);
//! ```

/// The expiry after `expiry_ns`, from a run at `now_ns`: one period on, or the first one
/// after `now_ns` in the same phase (periods that went by unrun are skipped, as
/// `hrtimer_forward` does).
pub(crate) const fn next(expiry_ns: u64, now_ns: u64, period_ns: u64) -> u64 {
    let period = if period_ns == 0 { 1 } else { period_ns };
    let next = expiry_ns.saturating_add(period);
    if next > now_ns {
        return next;
    }
    next.saturating_add(((now_ns - next) / period + 1).saturating_mul(period))
}

/// The expiry after the first run, from the kernel's first expiry `first_ns` (a period
/// after the arming, at any phase), run at `now_ns`: the next one in the phase, moved back
/// by less than a period, whose sequence meets the tick grid of `tick_ns` (0: no tick, no
/// move).
pub(crate) const fn first(first_ns: u64, now_ns: u64, period_ns: u64, tick_ns: u64) -> u64 {
    let period = if period_ns == 0 { 1 } else { period_ns };
    if tick_ns == 0 {
        return next(first_ns, now_ns, period);
    }
    let target = first_ns.saturating_add(period);
    let rem = target % tick_ns;
    let up = if rem == 0 { 0 } else { tick_ns - rem };
    // target + r is congruent modulo P to the tick just after target: the sequence
    // target + r - P + kP meets it.
    let r = up % period;
    let back = if r == 0 { 0 } else { period - r };
    next(first_ns.saturating_sub(back), now_ns, period)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    /// The expiries of `n` runs, each on time, from a first expiry at `first_at`.
    fn runs(first_at: u64, period: u64, tick: u64, n: usize) -> Vec<u64> {
        let mut e = first(first_at, first_at, period, tick);
        let mut out = vec![e];
        for _ in 1..n {
            e = next(e, e, period);
            out.push(e);
        }
        out
    }

    /// Claim: where P is a multiple of the tick (HZ 1000 at P = 1 and 10 ms, HZ 250 at
    /// P = 20 ms, HZ 100 at 10 ms), every expiry from the second on is on a tick, P
    /// apart, whatever the first expiry's phase.
    #[test]
    fn multiples_of_the_tick_are_all_on_ticks() {
        for (p, tick) in [
            (MS, MS),
            (10 * MS, MS),
            (20 * MS, 4 * MS),
            (10 * MS, 10 * MS),
        ] {
            for phase in [0, 1, MS / 3, MS / 2, MS - 1, 3 * MS + 7] {
                let r = runs(1_000 * MS + phase, p, tick, 50);
                assert!(
                    r.iter().all(|t| t % tick == 0),
                    "P {p} tick {tick} phase {phase}: {r:?}"
                );
                assert!(
                    r.windows(2).all(|w| w[1] - w[0] == p),
                    "P {p} tick {tick}: {r:?}"
                );
            }
        }
    }

    /// Claim: no gap is longer than P: the first (from the kernel's first expiry) is
    /// shorter or equal, and every later one is exactly P.
    #[test]
    fn no_gap_longer_than_the_period() {
        for (p, tick) in [
            (10 * MS, 4 * MS),
            (MS, 4 * MS),
            (15 * MS, 4 * MS),
            (7 * MS, 3 * MS),
            (MS, 10 * MS),
            (3 * MS, MS),
        ] {
            for phase in [0, 1, MS / 3, MS / 2, 2 * MS + 1, 3 * MS + 7] {
                let f = 1_000 * MS + phase;
                let r = runs(f, p, tick, 100);
                assert!(r[0] > f && r[0] - f <= p, "first gap {} P {p}", r[0] - f);
                assert!(
                    r.windows(2).all(|w| w[1] - w[0] == p),
                    "P {p} tick {tick}: {r:?}"
                );
            }
        }
    }

    /// Claim: where P is not a multiple of the tick, the expiries that come back onto
    /// the grid are on a tick: every other one at HZ 250 and P = 10 ms, every fourth at
    /// HZ 250 and P = 1 ms.
    #[test]
    fn ticks_met_where_the_period_is_not_a_multiple() {
        let r = runs(1_000 * MS + 123, 10 * MS, 4 * MS, 100);
        assert_eq!(r.iter().filter(|t| *t % (4 * MS) == 0).count(), 50);
        let r = runs(1_000 * MS + 123, MS, 4 * MS, 400);
        assert_eq!(r.iter().filter(|t| *t % (4 * MS) == 0).count(), 100);
    }

    /// Claim: a run late by several periods expires next after it, in its phase (the
    /// periods in between skipped), never at or before the run.
    #[test]
    fn late_runs_skip_the_missed_periods() {
        assert_eq!(next(100 * MS, 135 * MS, 10 * MS), 140 * MS);
        assert_eq!(next(100 * MS, 140 * MS, 10 * MS), 150 * MS);
        assert_eq!(next(100 * MS, 100 * MS, 10 * MS), 110 * MS);
        let e = first(100 * MS + 5, 400 * MS, 10 * MS, MS);
        assert!(e > 400 * MS && e % MS == 0);
        // The doc example.
        assert_eq!(first(20_300_000, 20_300_000, 10 * MS, MS), 21 * MS);
        assert_eq!(next(21 * MS, 21 * MS, 10 * MS), 31 * MS);
    }

    /// Claim: without a tick (0) the expiries are the kernel's, P apart.
    #[test]
    fn no_tick_no_move() {
        let e = first(1_000 * MS + 3, 1_000 * MS + 3, 10 * MS, 0);
        assert_eq!(e, 1_010 * MS + 3);
        assert_eq!(next(e, e, 10 * MS), 1_020 * MS + 3);
    }
}
