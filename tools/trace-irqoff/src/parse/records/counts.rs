// SPDX-License-Identifier: GPL-2.0
//! The lines of the `records` and `counters` files that give the module's settings and
//! each CPU's counts: `config`, `cpu`, `hist` and (the counters file's) `worst`.

use crate::fields::{counts, malformed, Fields, ParseError};
use crate::model::snapshot::{Config, Cpu, Sums, Worst, NR_BUCKETS};

/// The `config` line `n`, whose words after the first are `words`.
pub fn config<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Config, ParseError> {
    let f = Fields::new(n, words)?;
    Ok(Config {
        enabled: f.flag("enabled")?,
        cpus: f.str("cpus").ok().map(str::to_string),
        nohz_full: f.str("nohz_full").ok().map(str::to_string),
        unsampled: f.str("unsampled").ok().map(str::to_string),
        period_ns: f.num("period_ns")?,
        threshold_ns: f.num("threshold_ns")?,
        hz: f.num("hz")?,
        records_per_cpu: f.num("records_per_cpu")?,
        soft_period_ns: f.num("soft_period_ns")?,
        soft_event_ns: f.num("soft_event_ns")?,
        counts_since_ns: f.num("counts_since_ns").ok(),
        enabled_since_ns: f.num("enabled_since_ns").ok(),
        realtime_offset_ns: f.num("realtime_offset_ns").ok(),
        counts_since: None,
        enabled_since: None,
    })
}

/// The `cpu` line `n` of a format `version` 2 or later (`v2`) or not; its histograms are
/// empty until its `hist` lines come.
pub fn cpu<'a>(
    n: usize,
    mut words: impl Iterator<Item = &'a str>,
    v2: bool,
) -> Result<Cpu, ParseError> {
    let cpu: u32 = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| malformed(n, "cpu number"))?;
    let f = Fields::new(n, words)?;
    let (bh_off, ksoftirqd_wait) = if v2 {
        (
            f.num("soft_bh_off_events")?,
            f.num("soft_ksoftirqd_wait_events")?,
        )
    } else {
        (0, 0)
    };
    Ok(Cpu {
        cpu,
        online: f.flag("online")?,
        hard_events: f.num("hard_events")?,
        soft_events: f.num("soft_events")?,
        dropped: f.num::<u64>("hard_dropped")? + f.num::<u64>("soft_dropped")?,
        replaced: f.num::<u64>("hard_replaced")? + f.num::<u64>("soft_replaced")?,
        idle_gaps: f.num_or("idle_gaps", 0)?,
        late_timer_gaps: f.num_or("late_timer_gaps", 0)?,
        steal_gaps: f.num_or("steal_gaps", 0)?,
        stall_gaps: f.num_or("stall_gaps", 0)?,
        soft_bh_off_events: bh_off,
        soft_ksoftirqd_wait_events: ksoftirqd_wait,
        hard_hist: vec![0; NR_BUCKETS],
        soft_hist: vec![0; NR_BUCKETS],
        // Before v2 the split is unknown, and an empty histogram says so.
        soft_bh_off_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
        soft_ksoftirqd_wait_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
        sums_ns: Sums {
            hard: f.opt_num("hard_sum_ns")?,
            soft: f.opt_num("soft_sum_ns")?,
            soft_bh_off: f.opt_num("soft_bh_off_sum_ns")?,
            soft_ksoftirqd_wait: f.opt_num("soft_ksoftirqd_wait_sum_ns")?,
        },
        counters: tio_logic::grammar::cpu_counters()
            .filter_map(|c| match f.opt_num::<u64>(c.key) {
                Ok(Some(v)) => Some(Ok((c.key.to_string(), v))),
                Ok(None) => None,
                Err(e) => Some(Err(e)),
            })
            .collect::<Result<_, _>>()?,
    })
}

/// The `hist` line `n`, filled into its CPU of `cpus` (one its `cpu` line gave); a
/// histogram of a newer module, not known here, is passed over.
pub fn hist<'a>(
    cpus: &mut [Cpu],
    n: usize,
    mut words: impl Iterator<Item = &'a str>,
) -> Result<(), ParseError> {
    let cpu: u32 = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| malformed(n, "hist cpu"))?;
    let which = words.next().ok_or_else(|| malformed(n, "hist kind"))?;
    let c = cpus
        .iter_mut()
        .find(|c| c.cpu == cpu)
        .ok_or_else(|| malformed(n, "hist of an unknown cpu"))?;
    let slot = match which {
        "hard" => &mut c.hard_hist,
        "soft" => &mut c.soft_hist,
        "soft-bh-off" => &mut c.soft_bh_off_hist,
        "soft-ksoftirqd-wait" => &mut c.soft_ksoftirqd_wait_hist,
        // Histograms of a newer module, not known here.
        _ => return Ok(()),
    };
    *slot = counts(n, words)?;
    Ok(())
}

/// The counters file's `worst` line `n`.
pub fn worst<'a>(n: usize, mut words: impl Iterator<Item = &'a str>) -> Result<Worst, ParseError> {
    let cpu: u32 = words
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| malformed(n, "worst cpu"))?;
    let f = Fields::new(n, words)?;
    Ok(Worst {
        cpu,
        hard_ns: f.num("hard_ns")?,
        soft_ns: f.num("soft_ns")?,
        soft_bh_off_ns: f.num("soft_bh_off_ns")?,
        soft_ksoftirqd_wait_ns: f.num("soft_ksoftirqd_wait_ns")?,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::snapshot::{Cause, Kind};
    use crate::parse::records::fixtures::V2;
    use crate::parse::records::parse;

    /// Claim: v2 per-CPU counts keep the softirq-off totals and split events and
    /// histograms into bh-off and ksoftirqd-wait, and `hist(Soft, Some(KsoftirqdWait))`
    /// returns that cause's histogram.
    #[test]
    fn v2_counts_split_by_cause() {
        let s = parse(V2).unwrap();
        assert_eq!(s.version, 2);
        assert_eq!(s.cpus.len(), 4);
        let c = &s.cpus[2];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events,
                c.idle_gaps
            ),
            (4, 2, 2, 0)
        );
        assert_eq!((c.soft_hist[4], c.soft_hist[5], c.soft_hist[6]), (2, 1, 1));
        assert_eq!(c.soft_bh_off_hist[4], 2);
        assert_eq!(
            (c.soft_ksoftirqd_wait_hist[5], c.soft_ksoftirqd_wait_hist[6]),
            (1, 1)
        );
        assert_eq!(
            c.hist(Kind::Soft, Some(Cause::KsoftirqdWait)),
            c.soft_ksoftirqd_wait_hist.as_slice()
        );
        assert_eq!(s.cpus[1].hard_hist[6], 1);
    }
}
