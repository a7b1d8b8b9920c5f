// SPDX-License-Identifier: GPL-2.0
//! `top`: the culprit table.

use std::fmt::Write;

use super::{paint, BOLD};
use crate::culprit::Culprit;
use crate::snapshot::Cause;

pub fn text(t: &[Culprit], color: bool) -> String {
    let mut o = String::new();
    if t.is_empty() {
        return "no records\n".into();
    }
    let _ = writeln!(o, "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} culprit", "kind", "cause", "count", "worst", "total", "tasks");
    for c in t {
        let _ = writeln!(
            o,
            "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} {}",
            c.kind.label(),
            c.cause.map_or("-", Cause::name),
            c.count,
            super::ms(c.worst_ns),
            super::ms(c.total_ns),
            c.comms.join(","),
            paint(color, BOLD, &c.culprit)
        );
    }
    o
}
