// SPDX-License-Identifier: GPL-2.0
//! A script boot's results (`scale`, `capture`): its summary and its figures as a list.

use std::fmt::Write;

use serde_json::Value;

/// A script boot's kernel, host time in whole minutes (rounded up), checks passed and
/// checks failed.
pub fn summary(part: &Value) -> (&str, u64, u64, usize) {
    (
        part["kernel"].as_str().unwrap_or("?"),
        part["host_seconds"].as_u64().map_or(0, |s| s.div_ceil(60)),
        part["passed"].as_u64().unwrap_or(0),
        part["failed"].as_array().map_or(0, Vec::len),
    )
}

/// A script boot's "# measured" figures and failed checks, as a list.
pub fn figures_and_failures(o: &mut String, part: &Value) {
    for m in part["measured"].as_array().into_iter().flatten() {
        let _ = writeln!(o, "- ``{}``", m.as_str().unwrap_or("?"));
    }
    for f in part["failed"].as_array().into_iter().flatten() {
        let _ = writeln!(o, "- failed: ``{}``", f.as_str().unwrap_or("?"));
    }
    let _ = writeln!(o);
}
