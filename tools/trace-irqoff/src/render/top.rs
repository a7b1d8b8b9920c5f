// SPDX-License-Identifier: GPL-2.0
//! `top`: the culprit table.

use std::fmt::Write;

use super::{paint, BOLD};
use crate::cgroup::Class;
use crate::cli::By;
use crate::culprit::Culprit;
use crate::model::snapshot::{Cause, Stalls};

/// The group column's name: what the rows were grouped by.
fn what(t: &[Culprit]) -> &'static str {
    match t.first().map(|c| c.by) {
        Some(By::Cgroup) => "cgroup",
        _ => "culprit",
    }
}

/// The group as a row shows it: a cgroup's path with what it says (`nginx.service`, the
/// pod and container) after it.
fn group(c: &Culprit) -> String {
    match &c.cgroup_class {
        Some(class) if !matches!(class, Class::Root | Class::Other) => {
            format!("{} ({})", c.culprit, class.label(&c.culprit))
        }
        _ => c.culprit.clone(),
    }
}

pub fn text(t: &[Culprit], color: bool) -> String {
    let mut o = String::new();
    if t.is_empty() {
        return "no records\n".into();
    }
    let _ = writeln!(
        o,
        "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} {}",
        "kind",
        "cause",
        "count",
        "worst",
        "total",
        "tasks",
        what(t)
    );
    for c in t {
        let _ = writeln!(
            o,
            "{:<12} {:<14} {:>6} {:>14} {:>14}  {:<24} {}",
            c.kind.label(),
            c.cause.map_or("-", Cause::name),
            c.count,
            super::length(c.worst_ns),
            super::length(c.total_ns),
            c.comms.join(","),
            paint(color, BOLD, &group(c))
        );
    }
    o
}

/// On a terminal: the same groups in `cols` columns, the kind shown as its cause for
/// softirq-off (as [`super::line`] does), the culprit before the tasks
/// so that a cut takes the tasks.
pub fn screen(t: &[Culprit], color: bool, cols: usize) -> String {
    if t.is_empty() {
        return "no records\n".into();
    }
    let width = Some(cols);
    let mut o = super::line::fit(
        &format!(
            "{:<14} {:>6} {:>10} {:>10}  {} (TASKS)",
            "KIND",
            "COUNT",
            "WORST",
            "TOTAL",
            what(t).to_uppercase()
        ),
        width,
    ) + "\n";
    for c in t {
        let kind = super::kind_or_cause(c.kind, c.cause);
        let head = format!(
            "{kind:<14} {:>6} {:>10} {:>10}  ",
            c.count,
            super::length(c.worst_ns),
            super::length(c.total_ns)
        );
        let name = group(c);
        let line = super::line::fit(&format!("{head}{name} ({})", c.comms.join(",")), width);
        // Bold the culprit only where it is whole on the line.
        let line = match line
            .strip_prefix(&head)
            .and_then(|rest| rest.strip_prefix(name.as_str()).map(|tail| (rest, tail)))
        {
            Some((_, tail)) if color => format!("{head}{}{tail}", paint(true, BOLD, &name)),
            _ => line,
        };
        o += &line;
        o.push('\n');
    }
    o
}

/// The footnote of a view whose span counted stalls: [`super::stall_sentence`], wrapped
/// to `cols` where given; empty without a stall.
pub fn stall_footnote(st: Option<&Stalls>, cols: Option<usize>) -> String {
    match (st.and_then(super::stall_sentence), cols) {
        (Some(l), Some(w)) => super::line::wrap(&l, w),
        (Some(l), None) => l + "\n",
        (None, _) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::Kind;

    fn culprit(kind: Kind, cause: Option<Cause>, name: &str) -> Culprit {
        Culprit {
            kind,
            cause,
            culprit: name.into(),
            count: 2,
            worst_ns: 99_800_000,
            total_ns: 199_600_000,
            comms: vec!["irq_test".into(), "sh".into()],
            cgroup_class: None,
            by: crate::cli::By::Culprit,
        }
    }

    /// Claim: on a terminal every line fits the width, the softirq-off kind is its cause,
    /// and the culprit comes before the tasks.
    #[test]
    fn the_terminal_table_fits_and_names_the_culprit_first() {
        let t = [
            culprit(Kind::Hard, None, "irqoff_sample_hardirq_window"),
            culprit(
                Kind::Soft,
                Some(Cause::BhOff),
                "irqoff_sample_softirq_window",
            ),
        ];
        let text = screen(&t, false, 100);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "KIND            COUNT      WORST      TOTAL  CULPRIT (TASKS)"
        );
        assert_eq!(lines[1], "hardirq-off         2     100 ms     200 ms  irqoff_sample_hardirq_window (irq_test,sh)");
        assert!(lines[2].starts_with("bh-off "), "{text}");
        let narrow = screen(&t, false, 60);
        assert!(narrow.lines().all(|l| l.chars().count() <= 60), "{narrow}");
        assert!(
            narrow
                .lines()
                .nth(1)
                .is_some_and(|l| l.ends_with('\u{2026}')),
            "{narrow}"
        );
        // Colour never lands inside a cut culprit.
        assert!(screen(&t, false, 80)
            .lines()
            .all(|l| l.chars().count() <= 80));
        assert!(screen(&t, true, 100)
            .contains("\x1b[1mirqoff_sample_hardirq_window\x1b[0m (irq_test,sh)"));
        assert!(!screen(&t, true, 60)
            .lines()
            .nth(1)
            .unwrap_or("")
            .contains('\x1b'));
    }
}
