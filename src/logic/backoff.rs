// SPDX-License-Identifier: GPL-2.0

//! How a reader retries while a writer is inside the data it copies: a few spins (the
//! writer is not preemptible there and finishes within microseconds), then sleeps, so that
//! a reader that outranks the writer on its CPU still lets it run, and in the end it gives
//! up instead of waiting forever. Pure logic (`core` only), shared with the host tests.

/// What a retrying reader does before its next attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Busy-wait briefly (`core::hint::spin_loop`).
    Spin,
    /// Sleep, giving the CPU to whoever is runnable.
    Sleep,
    /// Stop retrying.
    GiveUp,
}

/// Counts failed attempts: each `spins` of them are followed by one sleep; after `sleeps`
/// sleeps the next failure gives up. At most `(spins + 1) * sleeps + spins` steps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Backoff {
    spins: u32,
    sleeps: u32,
    spun: u32,
    slept: u32,
}

impl Backoff {
    pub(crate) const fn new(spins: u32, sleeps: u32) -> Self {
        Self {
            spins,
            sleeps,
            spun: 0,
            slept: 0,
        }
    }

    /// The step after one more failed attempt.
    pub(crate) fn next(&mut self) -> Step {
        if self.spun < self.spins {
            self.spun += 1;
            return Step::Spin;
        }
        if self.slept < self.sleeps {
            self.slept += 1;
            self.spun = 0;
            return Step::Sleep;
        }
        Step::GiveUp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps(mut b: Backoff) -> Vec<Step> {
        let mut out = Vec::new();
        loop {
            let s = b.next();
            out.push(s);
            if s == Step::GiveUp || out.len() > 1_000_000 {
                return out;
            }
        }
    }

    /// Claim: `Backoff::new(spins, sleeps)` yields `spins` spins before each of its
    /// `sleeps` sleeps, then `spins` more spins and a give-up (2 and 2: spin, spin, sleep,
    /// twice, then spin, spin, give up; with no spins or no sleeps, only the other and the
    /// give-up).
    #[test]
    fn spins_then_sleeps_then_gives_up() {
        use Step::*;
        assert_eq!(
            steps(Backoff::new(2, 2)),
            [Spin, Spin, Sleep, Spin, Spin, Sleep, Spin, Spin, GiveUp]
        );
        assert_eq!(steps(Backoff::new(0, 1)), [Sleep, GiveUp]);
        assert_eq!(steps(Backoff::new(1, 0)), [Spin, GiveUp]);
    }

    /// Claim: `Backoff::new(100, 1000)` gives up after exactly (100 + 1) * 1000 + 100 + 1
    /// steps, of which 1000 sleeps, and never takes more than 100 spins in a row.
    #[test]
    fn bounded_and_never_spins_long_without_sleeping() {
        let s = steps(Backoff::new(100, 1000));
        assert_eq!(s.len(), 101 * 1000 + 100 + 1);
        assert_eq!(s.iter().filter(|&&x| x == Step::Sleep).count(), 1000);
        let mut run = 0;
        for x in &s {
            run = if *x == Step::Spin { run + 1 } else { 0 };
            assert!(run <= 100);
        }
    }
}
