// SPDX-License-Identifier: GPL-2.0
//! `top`: records grouped by culprit, and folded stacks for flame graphs.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::mechanism;
use crate::render::function;
use crate::snapshot::{Kind, Record};

/// One culprit: how often, how bad.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Culprit {
    pub kind: Kind,
    /// The first frame's function that is not mechanism (`mechanism.rs`), or the whole
    /// stack joined with " <- ".
    pub culprit: String,
    pub count: u64,
    pub worst_ns: u64,
    pub total_ns: u64,
    /// Task names seen, sorted.
    pub comms: Vec<String>,
}

/// Groups records by kind and culprit; most frequent first, then worst.
pub fn top(records: &[Record], whole_stack: bool) -> Vec<Culprit> {
    let mut groups: BTreeMap<(Kind, String), Culprit> = BTreeMap::new();
    for r in records {
        let key = if whole_stack {
            r.stack.iter().map(|f| function(f)).collect::<Vec<_>>().join(" <- ")
        } else {
            mechanism::culprit(r.stack.iter().map(|f| function(f))).unwrap_or("?").to_string()
        };
        let c = groups.entry((r.kind, key.clone())).or_insert_with(|| Culprit {
            kind: r.kind,
            culprit: key,
            count: 0,
            worst_ns: 0,
            total_ns: 0,
            comms: Vec::new(),
        });
        c.count += 1;
        c.worst_ns = c.worst_ns.max(r.latency_ns);
        c.total_ns += r.latency_ns;
        if !c.comms.contains(&r.comm) {
            c.comms.push(r.comm.clone());
            c.comms.sort();
        }
    }
    let mut v: Vec<Culprit> = groups.into_values().collect();
    v.sort_by(|a, b| b.count.cmp(&a.count).then(b.worst_ns.cmp(&a.worst_ns)).then(a.culprit.cmp(&b.culprit)));
    v
}

/// Folded stacks (`root;...;leaf count`), root first: kind, comm, then the stack from the
/// outermost frame to the culprit. Identical stacks are merged; the count is the number of
/// records.
pub fn folded(records: &[Record]) -> String {
    let mut stacks: BTreeMap<String, u64> = BTreeMap::new();
    for r in records {
        let mut parts = vec![r.kind.label().to_string(), r.comm.replace([';', ' '], "_")];
        parts.extend(r.stack.iter().rev().map(|f| function(f).to_string()));
        *stacks.entry(parts.join(";")).or_default() += 1;
    }
    stacks.into_iter().map(|(k, n)| format!("{k} {n}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(kind: Kind, lat: u64, stack: &[&str]) -> Record {
        Record {
            cpu: 1,
            kind,
            lower_bound: false,
            latency_ns: lat,
            timestamp_ns: 1,
            pid: 7,
            comm: "sh".into(),
            stack: stack.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn ranks_by_count_then_worst() {
        let rs = [
            rec(Kind::Hard, 10, &["a+0x1/0x2", "x"]),
            rec(Kind::Hard, 30, &["b+0x1/0x2 [m]", "x"]),
            rec(Kind::Hard, 20, &["a+0x5/0x2", "y"]),
        ];
        let t = top(&rs, false);
        assert_eq!(t[0].culprit, "a");
        assert_eq!((t[0].count, t[0].worst_ns, t[0].total_ns), (2, 20, 30));
        assert_eq!(t[1].culprit, "b");
        let t = top(&rs, true);
        assert_eq!(t.len(), 3);
        assert_eq!(t[0].culprit, "b <- x");
    }

    #[test]
    fn folded_is_root_first_and_merged() {
        let rs = [rec(Kind::Soft, 1, &["leaf+0x1/0x2", "root+0x0/0x1"]), rec(Kind::Soft, 2, &["leaf+0x3/0x2", "root"])];
        assert_eq!(folded(&rs), "softirq-off;sh;root;leaf 2\n");
    }

    #[test]
    fn culprit_skips_an_irq_enable_helper() {
        // A GCC-built sample keeps its C helper as a frame above the window function.
        let rs = [rec(Kind::Hard, 10, &["sample_irq_enable+0xf/0x20 [s]", "irqoff_sample_hardirq_window+0x30/0x60 [s]"])];
        assert_eq!(top(&rs, false)[0].culprit, "irqoff_sample_hardirq_window");
        assert_eq!(top(&rs, true)[0].culprit, "sample_irq_enable <- irqoff_sample_hardirq_window");
    }
}
