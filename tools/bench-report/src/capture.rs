// SPDX-License-Identifier: GPL-2.0
//! The "Cost per record and per NMI" section: the capture-cost boot's figures.

use std::fmt::Write;

use serde_json::Value;

use crate::rst::heading;
use crate::script_boot::{figures_and_failures, summary};

/// The observer's own cost (case 16 on the stock kernel at 1 GHz): a hardirq record's
/// cost with interrupts off and the watcher's NMI per NMI, as the guest measured them, and
/// the case's checks.
pub fn section(o: &mut String, c: &Value) {
    heading(o, "Cost per record and per NMI", '=');
    let (kernel, minutes, passed, failed) = summary(c);
    let _ = writeln!(
        o,
        "``tests/vm/cases/16-capture-cost.sh`` on ``{kernel}`` at 1 GHz (icount shift 0: a guest\ninstruction is 1 ns), {minutes} min of host time: four 100 ms hardirq-off windows in\n``irqoff_sample``, four in ``irqoff_sample_big`` (the same sample with tens of\nthousands more symbols, counted below) and four spinning on a lock in core text, each\ntimed by the module (``cost N capture``: the record's cost with interrupts off;\n``cost N nmi``: the watcher's NMI handler). Its checks: {passed} passed, {failed} failed.\n"
    );
    figures_and_failures(o, c);
}
