// SPDX-License-Identifier: GPL-2.0
//! The "Timer floor of the guest" section: timerlat's IRQ latency at a 1 ms period.

use std::fmt::Write;

use serde_json::Value;

use crate::rst::heading;

/// The section of kernel K.
pub fn section(o: &mut String, k: &Value) {
    heading(o, "Timer floor of the guest", '-');
    let tf = &k["timer_floor"];
    if tf["available"] == false {
        let _ = writeln!(
            o,
            "Not measured: {}.\n",
            tf["reason"].as_str().unwrap_or("?")
        );
    } else {
        let _ = writeln!(o, "timerlat at a 1 ms period for {} s: {} samples, IRQ latency median {} ns, p99 {} ns, max {} ns, {} samples over 1 ms.\n", tf["seconds"], tf["samples"], tf["irq_latency_ns"]["median"], tf["irq_latency_ns"]["p99"], tf["irq_latency_ns"]["max"], tf["over_1ms"]);
    }
}
