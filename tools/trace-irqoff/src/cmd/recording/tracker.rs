// SPDX-License-Identifier: GPL-2.0
//! The events a recording counted since it started, across clears someone else made.

use crate::model::snapshot::{self, Cpu, Record, Snapshot};

/// The events counted since the recording started, across clears made by someone else
/// (a clear resets the module's counters: what was counted before it is kept here).
pub struct Tracker {
    /// What the module had counted when counting (re)started from `base`.
    base: Snapshot,
    last: Snapshot,
    cpus: Vec<Cpu>,
    records: Vec<Record>,
    /// Stalls counted before the last clear.
    stalls: u64,
}

impl Tracker {
    pub fn new(before: Snapshot) -> Self {
        Self {
            base: before.clone(),
            last: before,
            cpus: Vec::new(),
            records: Vec::new(),
            stalls: 0,
        }
    }

    /// Stalls the module counted since the start, across clears; none from a module that
    /// does not count them.
    pub fn stalls(&self) -> Option<u64> {
        let last = self.last.stalls.as_ref()?;
        let base = self.base.stalls.as_ref().map_or(0, |b| b.count);
        Some(self.stalls + last.count.saturating_sub(base))
    }

    /// Takes a new snapshot in; true when the module was cleared since the last one.
    pub fn observe(&mut self, s: Snapshot) -> bool {
        let cleared = s.cpus.iter().any(|c| {
            self.last.cpus.iter().any(|l| {
                l.cpu == c.cpu && (c.hard_events < l.hard_events || c.soft_events < l.soft_events)
            })
        });
        if cleared {
            let (cpus, records) = snapshot::delta(&self.base, &self.last);
            add(&mut self.cpus, &cpus);
            self.records.extend(records);
            self.stalls = self.stalls().unwrap_or(0);
            // Counting restarted from zero: no CPU, no record, no stall.
            self.base = Snapshot {
                cpus: Vec::new(),
                records: Vec::new(),
                stalls: None,
                ..s.clone()
            };
        }
        self.last = s;
        cleared
    }

    /// Per-CPU counts and new records so far.
    pub fn total(&self) -> (Vec<Cpu>, Vec<Record>) {
        let (cpus, records) = snapshot::delta(&self.base, &self.last);
        let mut all_cpus = self.cpus.clone();
        add(&mut all_cpus, &cpus);
        let mut all_records = self.records.clone();
        all_records.extend(records);
        (all_cpus, all_records)
    }
}

/// Adds per-CPU counts and histograms of `more` to `into`.
fn add(into: &mut Vec<Cpu>, more: &[Cpu]) {
    fn addv(a: &mut Vec<u64>, b: &[u64]) {
        if a.len() < b.len() {
            a.resize(b.len(), 0);
        }
        for (x, y) in a.iter_mut().zip(b) {
            *x += y;
        }
    }
    for c in more {
        let Some(t) = into.iter_mut().find(|t| t.cpu == c.cpu) else {
            into.push(c.clone());
            continue;
        };
        t.online = c.online;
        t.hard_events += c.hard_events;
        t.soft_events += c.soft_events;
        t.soft_bh_off_events += c.soft_bh_off_events;
        t.soft_ksoftirqd_wait_events += c.soft_ksoftirqd_wait_events;
        t.dropped += c.dropped;
        t.replaced += c.replaced;
        t.idle_gaps += c.idle_gaps;
        t.late_timer_gaps += c.late_timer_gaps;
        t.steal_gaps += c.steal_gaps;
        t.stall_gaps += c.stall_gaps;
        addv(&mut t.hard_hist, &c.hard_hist);
        addv(&mut t.soft_hist, &c.soft_hist);
        addv(&mut t.soft_bh_off_hist, &c.soft_bh_off_hist);
        addv(&mut t.soft_ksoftirqd_wait_hist, &c.soft_ksoftirqd_wait_hist);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::records::parse;

    const RECORDS: &str = include_str!("../../../tests/fixtures/records-v1.txt");

    /// Claim: the tracker counts events since the recording started across a clear made
    /// by someone else: 3 events before it and 1 after add up to 4 (histogram buckets
    /// likewise), `observe` reports the clear, and the cleared records are not new ones.
    #[test]
    fn counts_survive_a_clear_made_by_someone_else() {
        let before = parse(RECORDS).unwrap();
        let mut t = Tracker::new(before.clone());
        let mut more = before.clone();
        more.cpus[1].hard_events += 3;
        more.cpus[1].hard_hist[6] += 3;
        assert!(!t.observe(more));
        // Cleared: counts restart from zero, then one more event.
        let mut cleared = before.clone();
        for c in &mut cleared.cpus {
            c.hard_events = 0;
            c.soft_events = 0;
            c.hard_hist.iter_mut().for_each(|v| *v = 0);
            c.soft_hist.iter_mut().for_each(|v| *v = 0);
        }
        cleared.records.clear();
        cleared.cpus[1].hard_events = 1;
        cleared.cpus[1].hard_hist[5] = 1;
        assert!(t.observe(cleared));
        let (cpus, records) = t.total();
        assert_eq!(cpus[1].hard_events, 4);
        assert_eq!((cpus[1].hard_hist[5], cpus[1].hard_hist[6]), (1, 3));
        assert!(records.is_empty());
    }

    /// Claim: the stalls a recording counts are those the module counted since its start,
    /// also across a clear someone else made (which resets them with the events), and
    /// none from a module that does not count them.
    #[test]
    fn stalls_are_counted_across_a_clear() {
        let before = parse(include_str!("../../../tests/fixtures/records-stall.txt")).unwrap();
        let mut t = Tracker::new(before.clone());
        assert_eq!(t.stalls(), Some(0));
        let mut more = before.clone();
        if let Some(st) = more.stalls.as_mut() {
            st.count += 2;
        }
        assert!(!t.observe(more.clone()));
        assert_eq!(t.stalls(), Some(2));
        // Cleared: events and stalls restart from zero, then one more stall.
        let mut cleared = more;
        for c in &mut cleared.cpus {
            c.hard_events = 0;
            c.soft_events = 0;
        }
        if let Some(st) = cleared.stalls.as_mut() {
            st.count = 1;
        }
        assert!(t.observe(cleared));
        assert_eq!(t.stalls(), Some(3));
        let old = parse(RECORDS).unwrap();
        assert_eq!(Tracker::new(old).stalls(), None);
    }
}
