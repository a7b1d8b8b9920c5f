// SPDX-License-Identifier: GPL-2.0
//! The "At scale" section: the many-vCPU boot's figures.

use std::fmt::Write;

use serde_json::Value;

use crate::rst::heading;
use crate::script_boot::{figures_and_failures, summary};

/// The scale boot (`tests/vm/many-cpus.sh` on many vCPUs): its figures as the guest
/// measured them, and its checks.
pub fn section(o: &mut String, sc: &Value) {
    let cpus = sc["cpus"].as_u64().unwrap_or(0);
    heading(o, &format!("At scale: {cpus} vCPUs"), '=');
    let (kernel, minutes, passed, failed) = summary(sc);
    let _ = writeln!(
        o,
        "One boot of ``{kernel}`` with {cpus} vCPUs under TCG at the suites' clock (``tests/vm/many-cpus.sh``,\n{minutes} min of host time): load, enable, a 100 ms window on the highest CPU, every file read whole,\nthe CLI's first commands, disable and unload, each timed in the guest (``tio-time``).\nIts checks: {passed} passed, {failed} failed. The 2- and 64-CPU figures are in\n``Documentation/trace-irqoff.rst`` (*Memory*); the suite runs the same script on 64 vCPUs.\n"
    );
    figures_and_failures(o, sc);
}
