// SPDX-License-Identifier: GPL-2.0
//! The "Machines" section: each boot's kernel, clock and CPUs, its QEMU command line, and
//! what the guest clock means.

use std::fmt::Write;

use serde_json::Value;

use crate::results::hz;
use crate::rst::{heading, table};

const ICOUNT_NOTE: &str = "every guest instruction takes 1 ns of guest time and idle time is skipped, so guest time\nis a count of the work the guest did: repeatable and free of host noise, but blind to what\nhardware adds (caches, interrupt entry, SMIs).";

/// The section for the boots KERNELS of the results DOC.
pub fn section(o: &mut String, doc: &Value, kernels: &[Value]) {
    heading(o, "Machines", '=');
    let rows: Vec<Vec<String>> = kernels.iter().map(row).collect();
    table(
        o,
        &[
            "boot",
            "kernel (/proc/version)",
            "HZ",
            "clocksource",
            "TSC marked unstable",
            "CPUs",
            "host min",
        ],
        &rows,
    );
    for k in kernels {
        if let Some(q) = k["qemu"].as_str() {
            // Drop -kernel, -initrd and -append with their values (paths, the command line).
            let q = match (q.find(" -kernel "), q.find(" -nographic")) {
                (Some(a), Some(b)) if a < b => format!("{}{}", &q[..a], &q[b..]),
                _ => q.to_string(),
            };
            let _ = writeln!(
                o,
                "- {}: ``{q}`` (plus ``-kernel``, ``-initrd``, ``-append``)",
                k["name"].as_str().unwrap_or("?")
            );
        }
    }
    let _ = writeln!(
        o,
        "\nQEMU TCG (software emulation; no KVM) on a 2-core host; {} clock: {}\n",
        doc["clock"]
            .as_str()
            .or(kernels[0]["clock"].as_str())
            .unwrap_or("icount"),
        ICOUNT_NOTE
    );
}

/// One boot's row of the table.
fn row(k: &Value) -> Vec<String> {
    let g = &k["guest"];
    let unstable = g["tsc_unstable"].as_array().map_or("?".into(), |a| {
        if a.is_empty() {
            "no".to_string()
        } else {
            format!("yes: {}", a[0].as_str().unwrap_or(""))
        }
    });
    vec![
        k["name"].as_str().unwrap_or("bench").to_string(),
        format!(
            "``{}``",
            g["kernel"].as_str().or(k["kernel"].as_str()).unwrap_or("?")
        ),
        hz(k),
        g["clocksource"].as_str().unwrap_or("?").to_string(),
        unstable,
        format!("{}", g["cpus"]),
        k["host_seconds"]
            .as_u64()
            .map_or("?".into(), |s| format!("{:.1}", s as f64 / 60.0)),
    ]
}
