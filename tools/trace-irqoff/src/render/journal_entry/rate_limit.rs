// SPDX-License-Identifier: GPL-2.0
//! The rate limit of `journal`: a token bucket (`--burst` windows at once, `--rate` a
//! second on average beyond that), so that a storm of windows cannot flood the journal;
//! the windows it drops are counted, and one entry per `--summary-interval` says how
//! many. Pure: times are given (CLOCK_MONOTONIC ns, the clock of the windows' ends).

/// One token, in the bucket's unit (a token is 10^9 of them: a rate of N a second adds
/// N of them each ns, exactly).
const TOKEN: u128 = 1_000_000_000;

/// A token bucket: it holds `burst` tokens at most and gains `rate` a second; each
/// window written takes one.
#[derive(Debug, Clone)]
pub struct Bucket {
    burst: u32,
    rate: u32,
    /// The tokens held, in [`TOKEN`]s.
    held: u128,
    /// When it was last filled: a time before it adds nothing (windows of CPUs read
    /// together may end a little out of order).
    last_ns: Option<u64>,
}

impl Bucket {
    /// A full bucket.
    pub fn new(burst: u32, rate: u32) -> Self {
        Bucket {
            burst,
            rate,
            held: u128::from(burst) * TOKEN,
            last_ns: None,
        }
    }

    /// Whether a window at `at_ns` may be written, taking a token if so.
    pub fn take(&mut self, at_ns: u64) -> bool {
        if let Some(last) = self.last_ns {
            let gained = u128::from(at_ns.saturating_sub(last)) * u128::from(self.rate);
            self.held = (self.held + gained).min(u128::from(self.burst) * TOKEN);
        }
        self.last_ns = Some(self.last_ns.map_or(at_ns, |l| l.max(at_ns)));
        if self.held >= TOKEN {
            self.held -= TOKEN;
            true
        } else {
            false
        }
    }
}

/// The windows of one interval that were not written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dropped {
    /// Dropped by the rate limit.
    pub dropped: u64,
    /// Overwritten in the event ring before they were read (their lengths unknown).
    pub lost: u64,
    /// From the first of them to the last.
    pub span_ns: u64,
    /// The longest dropped one: its CPU, its kind in words and its length.
    pub longest: Option<(u32, String, u64)>,
}

/// The bucket, and the count of what it dropped since the last summary.
#[derive(Debug, Clone)]
pub struct Limiter {
    bucket: Bucket,
    every_ns: u64,
    /// What was dropped since the last summary, and when the first of it was.
    pending: Option<(u64, u64, Dropped)>,
}

impl Limiter {
    /// `burst` and `rate` as [`Bucket::new`]; a summary at most once per `every_ns`.
    pub fn new(burst: u32, rate: u32, every_ns: u64) -> Self {
        Limiter {
            bucket: Bucket::new(burst, rate),
            every_ns,
            pending: None,
        }
    }

    /// Whether the window of `cpu`, `kind` (in words) and `latency_ns` that ended at
    /// `at_ns` is written; counted as dropped if not.
    pub fn admit(&mut self, at_ns: u64, cpu: u32, kind: &str, latency_ns: u64) -> bool {
        if self.bucket.take(at_ns) {
            return true;
        }
        let d = self.pending_at(at_ns);
        d.dropped += 1;
        if d.longest.as_ref().is_none_or(|l| latency_ns > l.2) {
            d.longest = Some((cpu, kind.to_string(), latency_ns));
        }
        false
    }

    /// Counts `n` windows that the ring overwrote before they were read, found at `at_ns`.
    pub fn lost(&mut self, n: u64, at_ns: u64) {
        if n > 0 {
            self.pending_at(at_ns).lost += n;
        }
    }

    fn pending_at(&mut self, at_ns: u64) -> &mut Dropped {
        let p = self.pending.get_or_insert((
            at_ns,
            at_ns,
            Dropped {
                dropped: 0,
                lost: 0,
                span_ns: 0,
                longest: None,
            },
        ));
        p.1 = p.1.max(at_ns);
        &mut p.2
    }

    /// The summary of what was dropped, once an interval has passed since the first of
    /// it (at `now_ns`): at most one per interval, none while nothing was dropped.
    pub fn due(&mut self, now_ns: u64) -> Option<Dropped> {
        let since = self.pending.as_ref()?.0;
        if now_ns.saturating_sub(since) < self.every_ns {
            return None;
        }
        self.flush()
    }

    /// The summary of what was dropped and not told yet, whenever it began (at the end).
    pub fn flush(&mut self) -> Option<Dropped> {
        let (first, last, mut d) = self.pending.take()?;
        d.span_ns = last - first;
        Some(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: u64 = 1_000_000_000;

    /// Claim: a storm of 10 000 short windows in one second writes at most burst + rate
    /// of them (here burst 100, rate 10: 109, the bucket full at the start and refilled
    /// for 0.9999 s), counts the 9 891 others as dropped with the longest of them, and
    /// gives one summary for the interval, however often it is asked for.
    #[test]
    fn a_storm_of_10000_windows_writes_at_most_burst_plus_rate() {
        let (burst, rate) = (100, 10);
        let mut l = Limiter::new(burst, rate, 30 * S);
        let start = 1_000 * S;
        let mut written = 0u64;
        let mut summaries = Vec::new();
        for i in 0..10_000u64 {
            let at = start + i * (S / 10_000);
            // A window of 20 ms, one of the dropped a little longer.
            let latency = if i == 5_001 { 21_000_000 } else { 20_000_000 };
            if l.admit(at, (i % 4) as u32, "hardirq off", latency) {
                written += 1;
            }
            // Asked for at every read of the ring, as the command does.
            if i % 1_000 == 0 {
                summaries.extend(l.due(at));
            }
        }
        assert!(written <= u64::from(burst + rate), "{written}");
        assert_eq!(written, 109);
        assert!(summaries.is_empty(), "none before the interval has passed");
        summaries.extend(l.due(start + 31 * S));
        summaries.extend(l.due(start + 32 * S));
        summaries.extend(l.flush());
        assert_eq!(
            summaries,
            [Dropped {
                dropped: 10_000 - 109,
                lost: 0,
                span_ns: summaries[0].span_ns,
                longest: Some((1, "hardirq off".to_string(), 21_000_000)),
            }]
        );
        assert!(summaries[0].span_ns < S);
    }

    /// Claim: after a quiet spell the bucket is full again (burst windows at once), and
    /// it never holds more than the burst, however long the spell.
    #[test]
    fn the_bucket_refills_to_the_burst_and_no_more() {
        let mut b = Bucket::new(3, 2);
        let took = |b: &mut Bucket, at: u64, n: usize| (0..n).filter(|_| b.take(at)).count();
        assert_eq!(took(&mut b, 0, 10), 3);
        // Half a second at 2 a second: one more.
        assert_eq!(took(&mut b, S / 2, 10), 1);
        // An hour: full, three.
        assert_eq!(took(&mut b, 3_600 * S, 10), 3);
        // A time before the last adds nothing, and moves nothing back.
        assert_eq!(took(&mut b, 3_000 * S, 10), 0);
        assert_eq!(took(&mut b, 3_600 * S + S / 2, 10), 1);
    }

    /// Claim: the summaries of a long storm come one per interval, each counting its own
    /// interval's drops; windows lost in the ring are counted in them too; nothing
    /// dropped, no summary.
    #[test]
    fn one_summary_per_interval() {
        let mut l = Limiter::new(1, 1, 10 * S);
        assert_eq!(l.due(100 * S), None);
        let mut summaries = Vec::new();
        // 100 windows a second for 25 s: one a second is written.
        for i in 0..2_500u64 {
            let at = i * S / 100;
            l.admit(at, 0, "softirq off (bh-off)", 30_000_000);
            if i % 100 == 0 {
                l.lost(2, at);
                summaries.extend(l.due(at));
            }
        }
        summaries.extend(l.flush());
        assert_eq!(summaries.len(), 3, "{summaries:?}");
        let dropped: u64 = summaries.iter().map(|d| d.dropped).sum();
        assert_eq!(dropped, 2_500 - 25);
        assert_eq!(summaries.iter().map(|d| d.lost).sum::<u64>(), 50);
        assert_eq!(l.flush(), None);
    }
}
