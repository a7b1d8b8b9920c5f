// SPDX-License-Identifier: GPL-2.0
//! The injected windows of a kernel's accuracy runs, the detection the sampling theory
//! predicts for them, and a tool's outcome against the accuracy targets.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::results::{config_num, items, num};

/// One injected window and what a tool reported of it.
pub struct Window {
    pub tool: String,
    pub period_ms: u64,
    pub kind: String,
    pub d_us: u64,
    pub true_ms: f64,
    pub detected: bool,
    pub reported_ms: Option<f64>,
    pub lower_bound: bool,
    pub first_frame: Option<String>,
    pub window_fn_at: Option<u64>,
    pub irqsoff_ms: Option<f64>,
}

impl Window {
    /// Whether this window is one of the (P, kind, D) row.
    pub fn at(&self, p: u64, kind: &str, d_us: u64) -> bool {
        self.period_ms == p && self.kind == kind && self.d_us == d_us
    }

    /// Reported - true, in ms, when the tool reported the window.
    pub fn err_ms(&self) -> Option<f64> {
        self.reported_ms.map(|r| r - self.true_ms)
    }
}

/// The windows of DOC's accuracy runs.
pub fn windows(doc: &Value) -> Vec<Window> {
    items(&doc["accuracy"])
        .iter()
        .map(|w| Window {
            tool: w["tool"].as_str().unwrap_or("ours").to_string(),
            period_ms: w["period_ms"].as_u64().unwrap_or(0),
            kind: w["kind"].as_str().unwrap_or("").to_string(),
            d_us: w["d_us"].as_u64().unwrap_or(0),
            true_ms: num(&w["true_ns"]) / 1e6,
            detected: w["detected"]
                .as_bool()
                .unwrap_or(w["reported_ns"].is_number()),
            reported_ms: w["reported_ns"].as_f64().map(|v| v / 1e6),
            lower_bound: w["lower_bound"] == true,
            first_frame: w["first_frame"].as_str().map(str::to_string),
            window_fn_at: w["window_fn_at"].as_u64(),
            irqsoff_ms: w["irqsoff_ns"].as_f64().map(|v| v / 1e6),
        })
        .collect()
}

/// The (P, kind, D) rows of WS (of TOOL's windows only, if given): P descending, then
/// kind and D ascending.
pub fn rows(ws: &[Window], tool: Option<&str>) -> Vec<(u64, String, u64)> {
    let mut keys: Vec<(u64, String, u64)> = ws
        .iter()
        .filter(|w| tool.is_none_or(|t| w.tool == t))
        .map(|w| (w.period_ms, w.kind.clone(), w.d_us))
        .collect();
    keys.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    keys.dedup();
    keys
}

/// Detection the sampling theory predicts for a window of d (ms) at period p (ms): the
/// hrtimer needs a gap of 2P; the timer_list a gap of soft_event_ns with a period of
/// soft_period_ns (P, at least 4 ms, rounded up to jiffies; both from the module's config line, so the
/// rule follows HZ), see Documentation/trace-irqoff.rst.
///
/// Our softirq side detects with the hrtimer's looks and the softirq probe, so its rule is
/// the hrtimer's; the timer_list's (`soft_rule`) is the original's, kept for the outcome
/// notes. `_soft` stays for that use.
pub fn expected_detection(_kind: &str, d: f64, p: f64, _soft: Option<(f64, f64)>) -> f64 {
    let (period, event) = (p, 2.0 * p);
    // gap = d + U with U uniform in [0, period)
    ((d + period - event) / period).clamp(0.0, 1.0)
}

/// The timer_list's (period, event gap) in ms at P = p, from the module's config line.
pub fn soft_rule(k: &Value, p: u64) -> Option<(f64, f64)> {
    let line = k["guest"][config_key(p)].as_str()?;
    Some((
        config_num(line, "soft_period_ns=")? / 1e6,
        config_num(line, "soft_event_ns=")? / 1e6,
    ))
}

fn config_key(p: u64) -> &'static str {
    if p == 10 {
        "config_p10"
    } else {
        "config_p1"
    }
}

/// Accuracy outcome of one tool on one kernel.
#[derive(Default)]
pub struct AccOutcome {
    pub all_detected: bool,
    pub within_p: bool,
    pub missed: Vec<String>,
    pub outside: Vec<String>,
    /// (detected, n) over D >= 2P, per kind
    pub det_2p: BTreeMap<String, (usize, usize)>,
    pub abs_err: Vec<f64>,
}

/// TOOL's outcome over the windows WS of kernel K.
pub fn outcome(ws: &[Window], tool: &str, k: &Value) -> AccOutcome {
    let bounds = soft_bounds(k);
    let mut o = AccOutcome {
        all_detected: true,
        within_p: true,
        ..Default::default()
    };
    for (p, kind, d) in rows(ws, Some(tool)) {
        let sel: Vec<&Window> = ws
            .iter()
            .filter(|w| w.tool == tool && w.at(p, &kind, d))
            .collect();
        let d_ms = d as f64 / 1000.0;
        if d_ms >= 2.0 * p as f64 {
            o.detection(&sel, p, &kind, d_ms);
        }
        // The softirq sampler's own bound: its period (P rounded up to jiffies) + 1 jiffy.
        let bound = (kind == "soft")
            .then(|| bounds.get(&p).copied().flatten())
            .flatten();
        o.errors(&sel, p, &kind, d_ms, bound);
    }
    o
}

/// Per P: the softirq sampler's bound, its period + 1 jiffy in ms (None without a config
/// line that gives them).
fn soft_bounds(k: &Value) -> BTreeMap<u64, Option<f64>> {
    [10u64, 1]
        .iter()
        .map(|&p| {
            let line = k["guest"][config_key(p)].as_str().unwrap_or("");
            let v = soft_rule(k, p)
                .zip(config_num(line, "hz="))
                .map(|((ps, _), hz)| ps + 1000.0 / hz);
            (p, v)
        })
        .collect()
}

impl AccOutcome {
    /// Counts the detection of one (P, kind, D >= 2P) row.
    fn detection(&mut self, sel: &[&Window], p: u64, kind: &str, d_ms: f64) {
        let n = sel.len();
        let det = sel.iter().filter(|w| w.detected).count();
        let e = self.det_2p.entry(format!("{kind} P={p}")).or_default();
        e.0 += det;
        e.1 += n;
        if det < n {
            self.all_detected = false;
            self.missed
                .push(format!("{kind} D = {d_ms} ms at P = {p} ms: {det}/{n}"));
        }
    }

    /// Adds one row's errors, and notes its worst when beyond P.
    fn errors(&mut self, sel: &[&Window], p: u64, kind: &str, d_ms: f64, bound: Option<f64>) {
        let err: Vec<f64> = sel.iter().filter_map(|w| w.err_ms()).collect();
        self.abs_err.extend(err.iter().map(|e| e.abs()));
        let Some(worst) = err
            .iter()
            .copied()
            .filter(|e| e.abs() > p as f64)
            .max_by(|a, b| a.abs().total_cmp(&b.abs()))
        else {
            return;
        };
        self.within_p = false;
        let note = bound.map_or(String::new(), |b| {
            format!(
                " ({} the softirq sampler's bound Ps + 1 jiffy = {b} ms)",
                if worst.abs() <= b { "within" } else { "beyond" }
            )
        });
        self.outside.push(format!(
            "{kind} D = {d_ms} ms at P = {p} ms: {worst:+.2} ms{note}"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Claim: the predicted detection is 0 up to P, (D - P)/P between P and 2P, and
    /// certain from 2P.
    #[test]
    fn expected_detection_by_length() {
        let e = |d: f64| expected_detection("hard", d, 10.0, None);
        assert_eq!((e(10.0), e(15.0), e(20.0), e(50.0)), (0.0, 0.5, 1.0, 1.0));
    }

    /// Claim: a window of D >= 2P that was not detected misses the detection target and
    /// is named; an error beyond P misses the error target and is named with its worst
    /// error and, for softirq windows, whether it is within the softirq sampler's bound
    /// Ps + 1 jiffy (from the config line); shorter windows do not count for detection.
    #[test]
    fn outcome_names_what_missed() {
        let k = json!({"guest": {"config_p1": "hz=1000 soft_period_ns=4000000 soft_event_ns=8000000"},
        "accuracy": [
            {"period_ms": 10, "kind": "hard", "d_us": 20000, "true_ns": 20.0e6, "reported_ns": 23.0e6},
            {"period_ms": 10, "kind": "hard", "d_us": 20000, "true_ns": 20.0e6},
            {"period_ms": 10, "kind": "hard", "d_us": 15000, "true_ns": 15.0e6},
            {"period_ms": 1, "kind": "soft", "d_us": 2000, "true_ns": 2.0e6, "reported_ns": 3.5e6},
            {"tool": "peer", "period_ms": 10, "kind": "hard", "d_us": 20000, "true_ns": 20.0e6},
        ]});
        let ws = windows(&k);
        let o = outcome(&ws, "ours", &k);
        assert!(!o.all_detected && !o.within_p);
        assert_eq!(o.missed, ["hard D = 20 ms at P = 10 ms: 1/2"]);
        assert_eq!(
            o.outside,
            ["soft D = 2 ms at P = 1 ms: +1.50 ms (within the softirq sampler's bound Ps + 1 jiffy = 5 ms)"]
        );
        assert_eq!(o.det_2p.get("hard P=10"), Some(&(1, 2)));
        assert_eq!(o.abs_err, [3.0, 1.5]);
        assert_eq!(
            outcome(&ws, "peer", &k).det_2p.get("hard P=10"),
            Some(&(0, 1))
        );
    }

    /// Claim: the rows are ordered P descending, then kind and D ascending, once each.
    #[test]
    fn rows_order() {
        let k = json!({"accuracy": [
            {"period_ms": 1, "kind": "hard", "d_us": 2000},
            {"period_ms": 10, "kind": "soft", "d_us": 20000},
            {"period_ms": 10, "kind": "hard", "d_us": 30000},
            {"period_ms": 10, "kind": "hard", "d_us": 20000},
            {"tool": "peer", "period_ms": 10, "kind": "hard", "d_us": 20000},
        ]});
        let r: Vec<(u64, String, u64)> = rows(&windows(&k), None);
        let want = [
            (10, "hard", 20000),
            (10, "hard", 30000),
            (10, "soft", 20000),
            (1, "hard", 2000),
        ];
        assert_eq!(r, want.map(|(p, k, d)| (p, k.to_string(), d)));
    }
}
