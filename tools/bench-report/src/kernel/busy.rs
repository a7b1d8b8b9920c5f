// SPDX-License-Identifier: GPL-2.0
//! The "Busy wake-ups" section: the local timer interrupts a busy CPU takes, per
//! configuration, what the loops lost, and the target of no interrupt of the sampler's own
//! at P = 10 ms.

use std::fmt::Write;

use serde_json::Value;

use crate::results::{hz_num, items, nums};
use crate::rst::{heading, table};
use crate::stats::{mean, range, verdict};

/// How far above 'not loaded' our local timer interrupts at P = 10 ms may be and still
/// count as riding the tick: 2% (an interrupt of its own adds 1/P = 100 a second, 10% of
/// HZ 1000 and 40% of HZ 250).
const MARGIN: f64 = 1.02;

/// The busy wake-ups section: CPU 1's local timer interrupts per second while both CPUs
/// loop, per configuration (mean of the rounds, and their range), the loops' iterations
/// per second and their ratio to 'not loaded', what the figures should be at the kernel's
/// HZ, and the target of no interrupt of the sampler's own at P = 10 ms. Nothing, and no
/// target, without busy wake-ups in K's results; no target without our P = 10 ms row and
/// the 'not loaded' one.
pub fn section(o: &mut String, k: &Value) -> Option<String> {
    let bw = &k["busy_wakeups"];
    bw["configs"].as_array()?;
    heading(o, "Busy wake-ups", '-');
    let _ = writeln!(
        o,
        "CPU {} busy (both CPUs in the overhead's CPU-bound loop, one thread pinned to each): its\nlocal timer interrupts (``LOC`` in ``/proc/interrupts``) per second over {} s of guest time, a\nsecond after the configuration was set, and the loops' iterations per second (both CPUs);\n{} rounds, every configuration once per round (order rotated). Mean of the rounds, with\ntheir range; loop ratio = the round's 'not loaded' iterations per second / this\nconfiguration's (> 1: slower), mean of the rounds with their range.\n",
        bw["cpu"], bw["seconds"], bw["rounds"]
    );
    let _ = writeln!(o, "{}\n", reading(hz_num(k)));
    let configs = items(&bw["configs"]);
    let get = |name: &str| configs.iter().find(|c| c["config"] == name);
    let base = get("not_loaded").map(|c| nums(&c["spin_iterations_per_s"]));
    let rows: Vec<Vec<String>> = configs.iter().map(|c| row(c, base.as_deref())).collect();
    table(
        o,
        &[
            "configuration",
            "local timer /s",
            "range",
            "loop iterations /s",
            "loop ratio",
            "range",
        ],
        &rows,
    );
    let loc = |name: &str| get(name).map(|c| mean(&nums(&c["loc_per_s"])));
    let (ours, not_loaded) = (loc("ours_p10")?, loc("not_loaded")?);
    Some(format!(
        "A busy CPU: no interrupt of the sampler's own at P = 10 ms (ours <= not loaded + 2%): **{}** (ours {ours:.1} local timer interrupts a second, not loaded {not_loaded:.1}, the original {})",
        verdict(ours <= not_loaded * MARGIN),
        loc("peer_p10").map_or("-".to_string(), |v| format!("{v:.1}"))
    ))
}

/// The target of a busy CPU's loop overhead (mean loop ratio less 1, the rounds' ratios
/// against 'not loaded' as in the table) at most half the original's, at P = 10 ms and
/// at P = 1 ms, from the same rounds: met where both are. `None` without busy wake-ups,
/// 'not loaded', or our or the original's row at either P.
pub fn half_target(k: &Value) -> Option<String> {
    k["busy_wakeups"]["configs"].as_array()?;
    let configs = items(&k["busy_wakeups"]["configs"]);
    let get = |name: &str| configs.iter().find(|c| c["config"] == name);
    let base = nums(&get("not_loaded")?["spin_iterations_per_s"]);
    let over = |name: &str| -> Option<f64> {
        let n = nums(&get(name)?["spin_iterations_per_s"]);
        let ratios: Vec<f64> = base
            .iter()
            .zip(&n)
            .filter(|(_, x)| **x > 0.0)
            .map(|(b, x)| b / x)
            .collect();
        (!ratios.is_empty()).then(|| mean(&ratios) - 1.0)
    };
    let mut parts = Vec::new();
    let mut met = true;
    for p in [10, 1] {
        let (ours, peer) = (over(&format!("ours_p{p}"))?, over(&format!("peer_p{p}"))?);
        met &= ours <= peer / 2.0;
        let share = if peer > 0.0 {
            format!("{:.0}%", 100.0 * ours / peer)
        } else {
            "-".to_string()
        };
        parts.push(format!(
            "P = {p} ms: ours +{:.3}%, the original +{:.3}%, {share}",
            100.0 * ours,
            100.0 * peer
        ));
    }
    Some(format!(
        "A busy CPU's loop overhead at most half the original's, at P = 10 ms and P = 1 ms (loop ratio - 1, same rounds): **{}** ({})",
        verdict(met),
        parts.join("; ")
    ))
}

/// What the figures show, with what they should be at HZ when the results say it.
fn reading(hz: Option<f64>) -> String {
    match hz {
        Some(h) => format!(
            "What it shows: a busy CPU takes its tick anyway, HZ local timer interrupts a second\n(HZ {h:.0} here); a sampler whose hrtimer has an interrupt of its own adds about 1/P a second\n(100 at P = 10 ms, 1000 at P = 1 ms: about {:.0} and {:.0} here); one whose samples\nthe tick takes adds none. The loop ratio is what the configuration cost the\nloops, those interrupts included.",
            h + 100.0,
            h + 1000.0
        ),
        None => "What it shows: a busy CPU takes its tick anyway, HZ local timer interrupts a second\n(HZ is not in these results); a sampler whose hrtimer has an interrupt of its own adds\nabout 1/P a second (100 at P = 10 ms, 1000 at P = 1 ms); one whose samples the tick\ntakes adds none. The loop ratio is what the configuration cost the loops, those\ninterrupts included.".to_string(),
    }
}

/// One configuration's row, its loop ratio against the 'not loaded' iterations per
/// second of the same rounds, BASE ("-" without them).
fn row(c: &Value, base: Option<&[f64]>) -> Vec<String> {
    let l = nums(&c["loc_per_s"]);
    let n = nums(&c["spin_iterations_per_s"]);
    let (llo, lhi) = range(&l);
    let ratios: Vec<f64> = base
        .unwrap_or_default()
        .iter()
        .zip(&n)
        .filter(|(_, x)| **x > 0.0)
        .map(|(b, x)| b / x)
        .collect();
    let (ratio, ratio_range) = if ratios.is_empty() {
        ("-".to_string(), "-".to_string())
    } else {
        let (lo, hi) = range(&ratios);
        (format!("{:.4}", mean(&ratios)), format!("{lo:.4}..{hi:.4}"))
    };
    vec![
        c["config"].as_str().unwrap_or("?").to_string(),
        format!("{:.1}", mean(&l)),
        format!("{llo:.1}..{lhi:.1}"),
        format!("{:.0}", mean(&n)),
        ratio,
        ratio_range,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// tests/fixtures/busy-wakeups.json: one kernel (HZ 250) with busy wake-ups in every
    /// configuration, 2 rounds; its "note" says how it was made.
    fn fixture() -> Value {
        serde_json::from_str(include_str!("../../tests/fixtures/busy-wakeups.json"))
            .expect("the fixture is JSON")
    }

    /// Claim: the section on the fixture has its heading and intro, the reading with the
    /// figures at the kernel's HZ (250, from its guest facts), and a row per configuration
    /// in the results' order: the mean local timer interrupts and their range, the mean
    /// iterations per second, and the mean per-round ratio 'not loaded' / configuration
    /// (1 for 'not loaded' itself) with its range.
    #[test]
    fn rows_and_figures() {
        let mut o = String::new();
        section(&mut o, &fixture()).expect("a target");
        assert!(
            o.starts_with("Busy wake-ups\n-------------\n\nCPU 1 busy (both CPUs"),
            "{o}"
        );
        assert!(o.contains("over 3 s of guest time"), "{o}");
        assert!(o.contains("\n2 rounds, every configuration"), "{o}");
        assert!(o.contains("\n(HZ 250 here); a sampler"), "{o}");
        assert!(
            o.contains("(100 at P = 10 ms, 1000 at P = 1 ms: about 350 and 1250 here)"),
            "{o}"
        );
        let rows: Vec<&str> = o
            .lines()
            .skip_while(|l| !l.starts_with("configuration  "))
            .skip(2)
            .take_while(|l| !l.starts_with('='))
            .collect();
        assert_eq!(
            rows,
            [
                "not_loaded       248.6           248.1..249.0    41280000            1.0000      1.0000..1.0000",
                "ours_p10         249.9           249.6..250.2    41235000            1.0011      1.0010..1.0012",
                "ours_p1          999.5           998.7..1000.3   40845000            1.0107      1.0103..1.0110",
                "peer_p10         348.6           347.9..349.3    41165000            1.0028      1.0024..1.0032",
                "peer_p1          1246.9          1246.0..1247.8  40655000            1.0154      1.0147..1.0160",
                "loaded_disabled  248.6           248.4..248.8    41270000            1.0002      1.0002..1.0002",
            ]
        );
    }

    /// Claim: without HZ in the guest facts the reading says so and quotes no figure at
    /// HZ; the table is the same.
    #[test]
    fn reading_without_hz() {
        let mut k = fixture();
        k["guest"] = json!({});
        let mut o = String::new();
        section(&mut o, &k).expect("a target");
        assert!(
            o.contains("\n(HZ is not in these results); a sampler"),
            "{o}"
        );
        assert!(!o.contains(" here"), "{o}");
        assert!(o.contains("\nours_p10         249.9"), "{o}");
    }

    /// Claim: a kernel without busy wake-ups (the committed results have none) writes no
    /// section and no target; one without our P = 10 ms row, or without 'not loaded',
    /// writes the table (ratios "-" without 'not loaded') and no target.
    #[test]
    fn no_data_no_section() {
        let mut o = String::new();
        assert_eq!(section(&mut o, &json!({"name": "bench"})), None);
        let mut k = fixture();
        k.as_object_mut().expect("an object").remove("busy_wakeups");
        assert_eq!(section(&mut o, &k), None);
        assert_eq!(o, "");
        let one = |c: &str| json!({"busy_wakeups": {"configs": [{"config": c, "loc_per_s": [250.0], "spin_iterations_per_s": [4.0e7]}]}});
        assert_eq!(section(&mut o, &one("not_loaded")), None);
        assert!(o.contains("\nnot_loaded     250.0"), "{o}");
        o.clear();
        assert_eq!(section(&mut o, &one("ours_p10")), None);
        assert!(o.contains("\nours_p10       250.0           250.0..250.0  40000000            -           -\n"), "{o}");
    }

    /// Claim: the half-overhead target quotes each P's overheads from the same rounds as
    /// the table (the fixture: ours +0.11% and +1.07%, the original +0.28% and +1.54%),
    /// and is met only where ours is at most half the original's at both P (here P = 1
    /// ms is 69%: missed; with ours at P = 1 ms at the original's P = 10 ms figures,
    /// met); none without the original's rows.
    #[test]
    fn half_target_met_and_missed() {
        let t = half_target(&fixture()).expect("a target");
        assert!(t.contains(": **missed** (P = 10 ms: ours +0.109%, the original +0.279%, 39%; P = 1 ms: ours +1.065%, the original +1.537%, 69%)"), "{t}");
        let mut k = fixture();
        k["busy_wakeups"]["configs"][2]["spin_iterations_per_s"] =
            k["busy_wakeups"]["configs"][1]["spin_iterations_per_s"].clone();
        let t = half_target(&k).expect("a target");
        assert!(t.contains(": **met** ("), "{t}");
        k["busy_wakeups"]["configs"]
            .as_array_mut()
            .expect("an array")
            .retain(|c| c["config"] != "peer_p1");
        assert_eq!(half_target(&k), None);
        assert_eq!(half_target(&json!({"name": "bench"})), None);
    }

    /// Claim: the target is met while ours at P = 10 ms is at most 'not loaded' + 2% (the
    /// fixture's 249.9 against 248.6; and exactly 2% above), missed above it (an
    /// interrupt of its own, as the original's 348.6), and quotes the three means.
    #[test]
    fn target_met_and_missed() {
        let t = section(&mut String::new(), &fixture()).expect("a target");
        assert_eq!(t, "A busy CPU: no interrupt of the sampler's own at P = 10 ms (ours <= not loaded + 2%): **met** (ours 249.9 local timer interrupts a second, not loaded 248.6, the original 348.6)");
        let with_ours = |loc: [f64; 2]| {
            let mut k = fixture();
            k["busy_wakeups"]["configs"][1]["loc_per_s"] = json!(loc);
            section(&mut String::new(), &k).expect("a target")
        };
        let edge = mean(&[248.1, 249.0]) * MARGIN;
        assert!(with_ours([edge, edge]).contains(": **met** ("), "{edge}");
        let t = with_ours([347.9, 349.3]);
        assert!(t.contains(": **missed** (ours 348.6 local timer"), "{t}");
    }
}
