// SPDX-License-Identifier: GPL-2.0
//! `top`: the culprit table.

use std::fmt::Write;

use super::{paint, BOLD};
use crate::model::cgroup_class::Class;
use crate::model::culprit_group::{By, Culprit, LOCK_WAIT};
use crate::model::snapshot::{Cause, KindLabel, Stalls};

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

/// The tasks of a row, joined by `sep`: those that ran the culprit, then those its
/// windows in interrupt context came upon, after [`super::line::INTERRUPTED`]
/// ("irq_test,sh", "interrupted kdamond.0", "sh; interrupted kdamond.0"): an interrupted
/// task did not run it.
pub fn tasks(c: &Culprit, sep: &str) -> String {
    let ran = c.comms.join(sep);
    if c.interrupted.is_empty() {
        return ran;
    }
    let hit = format!("{}{}", super::line::INTERRUPTED, c.interrupted.join(sep));
    if ran.is_empty() {
        hit
    } else {
        format!("{ran}; {hit}")
    }
}

/// What a pipe's row (and the report) says after the culprit whose windows were in
/// interrupt context: " in an IPI function"; nothing in task context.
pub fn in_context(c: &Culprit) -> String {
    c.context.map_or(String::new(), |x| format!(" in {x}"))
}

/// The table without a width (a pipe, `record`'s summary): the tasks before the culprit,
/// a culprit of windows in interrupt context said to be in it ("irqctx_spin in an IPI
/// function"), its tasks the ones interrupted ([`tasks`]).
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
            tasks(c, ","),
            paint(color, BOLD, &group(c)) + &in_context(c)
        );
        source(&mut o, c, None);
    }
    o
}

/// `--lines`: under a culprit's row, its frame in its worst window with its source lines,
/// each line fitted to `cols` where given.
fn source(o: &mut String, c: &Culprit, cols: Option<usize>) {
    let Some(s) = &c.source else { return };
    let mut block = String::new();
    super::frame_with_lines(&mut block, "    ", &s.frame, &s.lines);
    match cols {
        Some(_) => {
            for l in block.lines() {
                *o += &super::line::fit(l, cols);
                o.push('\n');
            }
        }
        None => *o += &block,
    }
}

/// On a terminal: the same groups in `cols` columns, the kind shown as its cause for
/// softirq-off (as [`super::line`] does), a lock wait in its own column ("lock") rather
/// than after the culprit, and the culprit before the tasks; tasks its windows in
/// interrupt context only interrupted are marked so ("(interrupted kdamond.0)",
/// [`tasks`]). Where the width does not hold a row, the tasks are cut first (to a third
/// of what is left), then the culprit from the middle, keeping its function's own name
/// (its tail).
pub fn screen(t: &[Culprit], color: bool, cols: usize) -> String {
    if t.is_empty() {
        return "no records\n".into();
    }
    let width = Some(cols);
    let mut o = super::line::fit(
        &format!(
            "{:<14} {:>5} {:>7} {:>8} {:<4} {} (TASKS)",
            "KIND",
            "COUNT",
            "WORST",
            "TOTAL",
            "WAIT",
            what(t).to_uppercase()
        ),
        width,
    ) + "\n";
    for c in t {
        let kind = super::kind_or_cause(c.kind, c.cause);
        let full = group(c);
        let (name, lock) = match full.strip_suffix(LOCK_WAIT) {
            Some(n) if c.by != By::Cgroup => (n.to_string(), true),
            _ => (full, false),
        };
        let head = format!(
            "{kind:<14} {:>5} {:>7} {:>8} {:<4} ",
            c.count,
            super::length(c.worst_ns),
            super::length(c.total_ns),
            if lock { "lock" } else { "" },
        );
        let room = cols.saturating_sub(head.chars().count());
        let tasks = format!("({})", tasks(c, ","));
        let (n, k) = (name.chars().count(), tasks.chars().count());
        let tasks = if n + 1 + k <= room {
            tasks
        } else {
            // Tasks that were only interrupted keep their mark and a little of a name.
            let floor = if c.comms.is_empty() && !c.interrupted.is_empty() {
                super::line::INTERRUPTED.len() + 4
            } else {
                6
            };
            let keep = k.min((room / 3).max(floor));
            super::line::fit(&tasks, Some(keep))
        };
        let name =
            super::line::middle(&name, room.saturating_sub(tasks.chars().count() + 1).max(1));
        let plain = format!("{head}{name} {tasks}");
        // Bold the culprit only where the row fits whole (a cut never lands in a style).
        o += &if plain.chars().count() > cols {
            super::line::fit(&plain, width)
        } else if color {
            format!("{head}{} {tasks}", paint(true, BOLD, &name))
        } else {
            plain
        };
        o.push('\n');
        source(&mut o, c, Some(cols));
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
            context: None,
            interrupted: Vec::new(),
            cgroup_class: None,
            by: crate::cli::By::Culprit,
            source: None,
        }
    }

    /// Claim: on a terminal every line fits the width, the softirq-off kind is its cause,
    /// the culprit comes before the tasks, and a lock wait is marked in the WAIT column;
    /// on 80 columns a long culprit is cut in the middle, its tail (the function's own
    /// name) kept, the lock mark and the tasks (cut after the culprit's floor) visible.
    #[test]
    fn the_terminal_table_fits_and_names_the_culprit_first() {
        let mut spin = culprit(Kind::Hard, None, "irqoff_sample_spin_window (lock wait)");
        spin.culprit = "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter (lock wait)".into();
        let t = [
            culprit(Kind::Hard, None, "irqoff_sample_hardirq_window"),
            culprit(
                Kind::Soft,
                Some(Cause::BhOff),
                "irqoff_sample_softirq_window",
            ),
            spin,
        ];
        let text = screen(&t, false, 100);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "KIND           COUNT   WORST    TOTAL WAIT CULPRIT (TASKS)"
        );
        assert_eq!(
            lines[1],
            "hardirq-off        2  100 ms   200 ms      irqoff_sample_hardirq_window (irq_test,sh)"
        );
        assert!(lines[2].starts_with("bh-off "), "{text}");
        let narrow = screen(&t, false, 80);
        assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
        let row = narrow.lines().nth(3).unwrap_or("");
        assert!(
            row.starts_with("hardirq-off        2  100 ms   200 ms lock <irq"),
            "{row}"
        );
        assert!(
            row.contains("\u{2026}") && row.contains("evice>::write_iter (irq_test"),
            "{row}"
        );
        assert!(!row.contains("(lock wait)"), "{row}");
        assert!(screen(&t, false, 60)
            .lines()
            .all(|l| l.chars().count() <= 60));
        assert!(screen(&t, true, 100)
            .contains("\x1b[1mirqoff_sample_hardirq_window\x1b[0m (irq_test,sh)"));
        // Colour never lands inside a cut row.
        assert!(!screen(&t, true, 30)
            .lines()
            .nth(1)
            .unwrap_or("")
            .contains('\x1b'));
    }

    /// Claim: a culprit whose windows ran in an IPI function does not present the tasks
    /// they interrupted as its doers: on a pipe the tasks are "interrupted kdamond.0" and
    /// the culprit is said to be in an IPI function; on an 80-column terminal the tasks
    /// read "(interrupted kdamond.0)", cut after their mark where the row is tight; tasks
    /// that ran it come first where there are both. A task-context culprit's row is as it
    /// was.
    #[test]
    fn interrupted_tasks_are_not_the_doers() {
        let mut ipi = culprit(Kind::Hard, None, "irqctx_spin");
        ipi.comms.clear();
        ipi.interrupted = vec!["kdamond.0".into()];
        ipi.context = Some("an IPI function");
        let own = culprit(Kind::Hard, None, "irqoff_sample_hardirq_window");
        let t = [ipi.clone(), own];
        let piped = text(&t, false);
        let rows: Vec<&str> = piped.lines().collect();
        assert!(
            rows[1].ends_with("  interrupted kdamond.0    irqctx_spin in an IPI function"),
            "{piped}"
        );
        assert!(
            rows[2].ends_with("  irq_test,sh              irqoff_sample_hardirq_window"),
            "{piped}"
        );
        let screen80 = screen(&t, false, 80);
        assert!(
            screen80
                .lines()
                .nth(1)
                .is_some_and(|l| l.ends_with(" irqctx_spin (interrupted kdamond.0)")),
            "{screen80}"
        );
        assert!(
            screen80
                .lines()
                .nth(2)
                .is_some_and(|l| l.contains(" (irq_test,") && !l.contains("interrupted")),
            "{screen80}"
        );
        // A culprit too long for the row: the tasks are cut, not their mark.
        ipi.culprit = "irqctx_spin_for_a_long_while_with_a_long_name".into();
        let screen80 = screen(&[ipi.clone()], false, 80);
        assert!(
            screen80
                .lines()
                .nth(1)
                .is_some_and(|l| l.chars().count() <= 80
                    && l.ends_with("_long_name (interrupted kd\u{2026}")),
            "{screen80}"
        );
        ipi.comms = vec!["sh".into()];
        assert_eq!(tasks(&ipi, ","), "sh; interrupted kdamond.0");
    }
}
