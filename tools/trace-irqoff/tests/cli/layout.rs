// SPDX-License-Identifier: GPL-2.0
//! The terminal views on 80 and 120 columns (issue 44): `watch`, `records` and `top`
//! keep the culprit, task and lock-wait mark; the live views keep their notes, end with a
//! summary, and `watch --stacks` fits the screen.

use crate::util::*;

/// The watcher's records with the hardirq window's most-seen in-window stack in a
/// contended spinlock's slow path: a lock wait.
fn lock_wait_root(enabled: bool) -> TempDir {
    let waiting = RECORDS_WATCHER.replacen(
        "profile_stack count=8 frames=8\nprofile_frame delay_tsc+0x4a/0x80\n",
        "profile_stack count=8 frames=8\nprofile_frame native_queued_spin_lock_slowpath+0x6c/0x230\n",
        1,
    );
    assert_ne!(waiting, RECORDS_WATCHER);
    proc_root(&[
        ("enable", if enabled { "enabled\n" } else { "disabled\n" }),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", &waiting),
    ])
}

/// A pseudo-terminal's output as lines: the redraws' escapes gone, each frame after the
/// last clear (or home) only.
fn last_frame(text: &str) -> Vec<String> {
    let t = text.replace("\r\n", "\n");
    let t = t.rsplit("\x1b[H").next().unwrap_or(&t).to_string();
    t.replace("\x1b[2J", "")
        .replace("\x1b[K", "")
        .replace("\x1b[J", "")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Claim: on 80x24 and 120x40 pseudo-terminals `watch`, `records` and `top` keep who did
/// it: no line wider than the terminal, the culprit's own name (`hardirq_window`), the
/// task with its pid (`irq_test[64]`, in `top` the task) and the lock-wait mark
/// ("lock" in the WAIT column) on the lock-wait window's line; at 80 columns one time
/// column, at 120 both times and the culprit whole.
#[test]
fn views_at_80_and_120_columns_keep_the_culprit_task_and_lock_mark() {
    let root = lock_wait_root(true);
    for (rows, cols) in [(24u16, 80usize), (40, 120)] {
        let views: [&[&str]; 3] = [
            &[
                "--color",
                "never",
                "watch",
                "--interval",
                "10ms",
                "--count",
                "1",
            ],
            &["--color", "never", "records"],
            &["--color", "never", "top"],
        ];
        for args in views {
            let (code, text) = on_a_terminal_sized(root.path(), args, (rows, cols as u16));
            assert_eq!(code, Some(0), "{args:?}: {text}");
            let lines = last_frame(&text);
            assert!(lines.len() < rows as usize, "{args:?} {cols}: {lines:#?}");
            for l in &lines {
                assert!(l.chars().count() <= cols, "{args:?} {cols}: {l}");
            }
            let task = if args[2] == "top" {
                "(irq_test)"
            } else {
                "irq_test[64]"
            };
            let waited = lines
                .iter()
                .find(|l| l.contains(task))
                .unwrap_or_else(|| panic!("{args:?} {cols}: no {task}: {lines:#?}"));
            assert!(waited.contains(" lock "), "{args:?} {cols}: {waited}");
            assert!(
                waited.contains("hardirq_window "),
                "{args:?} {cols}: {waited}"
            );
            if cols >= 120 {
                assert!(
                    waited.contains(" irqoff_sample_hardirq_window "),
                    "{waited}"
                );
            }
            if args[2] != "top" {
                let header = lines.iter().find(|l| l.contains("CULPRIT TASK[PID]"));
                let both = header.is_some_and(|h| h.contains("START (UTC)"));
                assert_eq!(both, cols >= 120, "{args:?} {cols}: {header:?}");
            }
        }
    }
}

/// Claim: `watch` and `top --live` on a terminal keep the warning that sampling is
/// disabled on screen after clearing it (below their title), and end with a summary line
/// that fits the width; `--duration` ends them by itself.
#[test]
fn live_views_keep_warnings_and_end_with_a_summary() {
    let root = lock_wait_root(false);
    for view in [
        &["watch", "--interval", "50ms", "--duration", "200ms"][..],
        &["top", "--live", "--interval", "50ms", "--duration", "200ms"][..],
    ] {
        let mut args = vec!["--color", "never"];
        args.extend_from_slice(view);
        let (code, text) = on_a_terminal_sized(root.path(), &args, (24, 80));
        assert_eq!(code, Some(0), "{view:?}: {text}");
        let lines = last_frame(&text);
        let joined = lines.join("\n");
        if view[0] == "watch" {
            // The last redraw, after its clear, still says it, right below the title.
            assert!(
                lines[1].starts_with("note: sampling is disabled"),
                "{joined}"
            );
        }
        let summary = lines.iter().rev().find(|l| {
            l.starts_with(&format!(
                "{}: ",
                if view[0] == "watch" {
                    "watch"
                } else {
                    "top --live"
                }
            ))
        });
        assert!(summary.is_some(), "{view:?}: {joined}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{joined}");
    }
}

/// Claim: `watch --stacks` on an 80x24 terminal draws at most 23 lines of at most 80
/// columns and says what it left out and where to find it.
#[test]
fn watch_stacks_fits_the_terminal() {
    let root = lock_wait_root(true);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--stacks",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let lines = last_frame(&text);
    let frame: Vec<&String> = lines
        .iter()
        .take_while(|l| !l.starts_with("watch: "))
        .collect();
    assert!(frame.len() <= 23, "{} lines: {lines:#?}", frame.len());
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
    assert!(
        frame
            .iter()
            .any(|l| l.starts_with(" \u{2026} ")
                && l.ends_with("; see trace-irqoff records --stacks")),
        "{lines:#?}"
    );
}

/// Claim: Ctrl-C (SIGINT) ends `watch` cleanly (exit 0) with its summary line, on stderr
/// off a terminal, while stdout keeps only the log (no summary in it).
#[test]
fn watch_interrupted_prints_its_summary() {
    let root = lock_wait_root(true);
    let child = spawn(root.path(), &["watch", "--interval", "50ms"]);
    std::thread::sleep(std::time::Duration::from_millis(400));
    signal(&child, "-INT");
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("watch: ") && l.contains(" s, ")),
        "{stderr}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("watch: ")),
        "{stdout}"
    );
}
