// SPDX-License-Identifier: GPL-2.0
//! The "Precheck: the irqsoff tracer" section: whether the tracer read known windows,
//! and so whether the accuracy table's irqsoff column is filled.

use std::fmt::Write;

use serde_json::Value;

use crate::results::{irqsoff_state, items, strings};
use crate::rst::heading;

/// The section of kernel K; returns its target line.
pub fn section(o: &mut String, k: &Value) -> String {
    heading(o, "Precheck: the irqsoff tracer", '-');
    let pc = &k["precheck"];
    let rd: Vec<String> = items(&pc["readings_us"])
        .iter()
        .map(|v| {
            v.as_u64()
                .map_or("not this window".into(), |u| u.to_string())
        })
        .collect();
    match irqsoff_state(k) {
        Ok(()) => {
            let read = rd
                .iter()
                .filter(|r| r.as_str() != "not this window")
                .count();
            let notes = strings(&pc["notes"]);
            let _ = writeln!(o, "``preemptirq_delay_test test_mode=irq delay=100000 cpu_affinity=1``, triggered {} times, each\nwith ``tracing_max_latency`` set to 50000 us first (the floor method, see *Reading these\nnumbers*). Readings in us (the window is 100000 us): {}. {read} of {} were the window's\n(header naming CPU 1 and a start in the test), all within 1%: **passed**; the irqsoff column\nbelow is filled, with the same method per window (floor D/2).{}\n", rd.len(), rd.join(", "), rd.len(),
                if notes.is_empty() { String::new() } else { format!(" The others: {} (another CPU's section passed the floor first, and the tracer then discards the window).", notes.join("; ")) });
            format!("irqsoff tracer precheck (100 ms windows read within 1%): **met** ({read}/{} windows read, all within 1%)", rd.len())
        }
        Err(why) => {
            let readings = rd.join(", ");
            let _ = writeln!(o, "Not passed: {why}{}. The irqsoff column is therefore empty on this kernel; the exact reference\nthat stands in is the sample's own measured window length (*true* below: each window function\ntimes itself between disable and enable).\n", if readings.is_empty() { String::new() } else { format!(" (readings in us: {readings})") });
            format!("irqsoff tracer precheck: not passed ({why}); the sample's own measurement is the reference")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Claim: a passed precheck lists its readings (a window not read as such) and
    /// meets its target with the count read; a missing one is "not measured" and names
    /// the sample's measurement as the reference.
    #[test]
    fn passed_and_not_measured() {
        let k = json!({"precheck": {"passed": true, "readings_us": [100100, null], "notes": ["CPU 0 first"]}});
        let mut o = String::new();
        let t = section(&mut o, &k);
        assert!(
            o.contains("Readings in us (the window is 100000 us): 100100, not this window. 1 of 2"),
            "{o}"
        );
        assert!(o.contains(" The others: CPU 0 first (another CPU's"), "{o}");
        assert_eq!(t, "irqsoff tracer precheck (100 ms windows read within 1%): **met** (1/2 windows read, all within 1%)");
        let mut o = String::new();
        let t = section(&mut o, &json!({}));
        assert!(
            o.contains("Not passed: not measured (no precheck in these results). The irqsoff"),
            "{o}"
        );
        assert!(
            t.starts_with("irqsoff tracer precheck: not passed (not measured"),
            "{t}"
        );
    }
}
