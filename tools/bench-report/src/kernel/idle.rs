// SPDX-License-Identifier: GPL-2.0
//! The "Idle wake-ups" section: how often an idle CPU is woken, per configuration, and
//! the target of at most 20 wake-ups a second with sampling on at P = 10 ms.

use std::collections::BTreeMap;
use std::fmt::Write;

use serde_json::Value;

use crate::results::{items, nums};
use crate::rst::{heading, table};
use crate::stats::{median, range, verdict};

/// The idle wake-ups section: CPU 1's local timer interrupts and all its interrupts per
/// second while idle, per configuration (median of the rounds, and their range), and the
/// target of an idle CPU woken at most 20 times a second at P = 10 ms. Nothing, and no
/// target, without idle wake-ups in K's results; no target without our P = 10 ms row.
pub fn section(o: &mut String, k: &Value) -> Option<String> {
    let iw = &k["idle_wakeups"];
    iw["configs"].as_array()?;
    heading(o, "Idle wake-ups", '-');
    let _ = writeln!(
        o,
        "CPU {} idle (the driver on CPU 0, nothing else to run): its local timer interrupts\n(``LOC`` in ``/proc/interrupts``) and all its interrupts per second over {} s of guest time, a\nsecond after the configuration was set; {} rounds, every configuration once per round (order\nrotated). Median of the rounds, with their range. Every wake-up of an idle CPU is an\ninterrupt: the local timer's are those of the tick and of every timer, ours included.\nOurs parks its hrtimer while the CPU sleeps, and a CPU woken from such a sleep wakes a\nsleeping watcher with a function call interrupt (design.rst, \"Sleeping CPUs\"): those\ncount in all interrupts, not in the local timer's.\n",
        iw["cpu"], iw["seconds"], iw["rounds"]
    );
    let mut rows = Vec::new();
    let mut by = BTreeMap::new();
    for c in items(&iw["configs"]) {
        let name = c["config"].as_str().unwrap_or("?").to_string();
        let (lm, llo, lhi) = stat(&c["loc_per_s"]);
        let (am, alo, ahi) = stat(&c["irqs_per_s"]);
        by.insert(name.clone(), lm);
        rows.push(vec![
            name,
            format!("{lm:.1}"),
            format!("{llo:.1}..{lhi:.1}"),
            format!("{am:.1}"),
            format!("{alo:.1}..{ahi:.1}"),
        ]);
    }
    table(
        o,
        &[
            "configuration",
            "local timer /s",
            "range",
            "all interrupts /s",
            "range",
        ],
        &rows,
    );
    let ours = by.get("ours_p10")?;
    Some(format!(
        "An idle CPU woken at most 20 times a second with sampling on at P = 10 ms: **{}** ({ours:.1} local timer interrupts a second; not loaded {}, the original {})",
        verdict(*ours <= 20.0),
        by.get("not_loaded").map_or("-".to_string(), |v| format!("{v:.1}")),
        by.get("peer_p10").map_or("-".to_string(), |v| format!("{v:.1}"))
    ))
}

/// Median, smallest and largest of the rounds' figures V.
fn stat(v: &Value) -> (f64, f64, f64) {
    let mut xs = nums(v);
    let (lo, hi) = range(&xs);
    (median(&mut xs), lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn kernel(ours: [f64; 3]) -> Value {
        json!({"idle_wakeups": {"cpu": 1, "seconds": 10, "rounds": 3, "configs": [
            {"config": "not_loaded", "loc_per_s": [4.0, 5.0, 6.0], "irqs_per_s": [5.0, 6.0, 7.0]},
            {"config": "ours_p10", "loc_per_s": ours, "irqs_per_s": [30.0, 31.0, 32.0]},
            {"config": "peer_p10", "loc_per_s": [250.0, 251.0, 249.0], "irqs_per_s": [260.0, 261.0, 262.0]},
        ]}})
    }

    /// Claim: the table has a row per configuration with the median of its rounds and
    /// their range, and the target is met at a median of at most 20 local timer
    /// interrupts a second with ours at P = 10 ms, quoting not loaded and the original.
    #[test]
    fn table_and_target_met() {
        let mut o = String::new();
        let t = section(&mut o, &kernel([20.0, 12.0, 14.0])).expect("a target");
        assert!(
            o.starts_with("Idle wake-ups\n-------------\n\nCPU 1 idle"),
            "{o}"
        );
        assert!(
            o.contains(
                "\nours_p10       14.0            12.0..20.0    31.0               30.0..32.0\n"
            ),
            "{o}"
        );
        assert!(
            o.contains(
                "\nnot_loaded     5.0             4.0..6.0      6.0                5.0..7.0\n"
            ),
            "{o}"
        );
        assert_eq!(t, "An idle CPU woken at most 20 times a second with sampling on at P = 10 ms: **met** (14.0 local timer interrupts a second; not loaded 5.0, the original 250.0)");
    }

    /// Claim: above 20 a second the target is missed.
    #[test]
    fn target_missed() {
        let t = section(&mut String::new(), &kernel([21.0, 25.0, 30.0])).expect("a target");
        assert!(
            t.contains(": **missed** (25.0 local timer interrupts"),
            "{t}"
        );
    }

    /// Claim: a kernel without idle wake-ups writes no section and no target; one
    /// without our P = 10 ms row writes the table and no target.
    #[test]
    fn no_data_no_section() {
        let mut o = String::new();
        assert_eq!(section(&mut o, &json!({"name": "bench"})), None);
        assert_eq!(o, "");
        let k = json!({"idle_wakeups": {"configs": [
            {"config": "not_loaded", "loc_per_s": [4.0], "irqs_per_s": [5.0]}]}});
        assert_eq!(section(&mut o, &k), None);
        assert!(o.contains("not_loaded"), "{o}");
    }
}
