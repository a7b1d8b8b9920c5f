// SPDX-License-Identifier: GPL-2.0
//! `watch`: windows as they end, on a pipe, as JSON and on a terminal.

use crate::util::*;

/// `watch` on a disabled module says that nothing new will come, instead of waiting
/// silently.
#[test]
fn watch_says_when_sampling_is_disabled() {
    let root = ours();
    fs::write(root.path().join("trace_irqoff/enable"), "disabled\n").unwrap();
    cli(root.path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "sampling is disabled: no new window will be recorded until `trace-irqoff enable`",
        ));
    cli(ours().path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("disabled").not());
}

/// On a pipe, a window still open is not printed: its record changes at every refresh,
/// and the window is printed once, when it has ended.
#[test]
fn watch_on_a_pipe_prints_ended_windows_only() {
    let root = ours_v2();
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "1"],
    );
    assert!(
        !text.contains("window still open") && !text.contains("kworker/3:1"),
        "{text}"
    );
    assert!(text.contains("softirq-off"), "{text}");
    let json = stdout(
        root.path(),
        &["watch", "--json", "--interval", "10ms", "--count", "1"],
    );
    assert!(!json.is_empty() && !json.contains("kworker/3:1"), "{json}");
    // It ends: its record comes, once.
    let ended = RECORDS_V2.replace(
        "lower_bound=1 latency_ns=57000000",
        "lower_bound=0 latency_ns=61000000",
    );
    let root = with_records(&ended);
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "1"],
    );
    assert_eq!(text.matches("kworker/3:1 (pid 140)").count(), 1, "{text}");
}

/// Claim: on a pipe, `watch` prints its header once, each existing record once and a
/// record that appears while it runs once, last, without colour codes.
#[test]
fn watch_on_a_pipe_prints_each_record_once() {
    let root = ours();
    let w = spawn(
        root.path(),
        &["watch", "--interval", "200ms", "--count", "4"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let out = w.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("trace-irqoff watch:").count(), 1, "{text}");
    assert_eq!(
        text.matches("hardirq-off cpu 1    67 ms").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("hardirq-off cpu 1    70 ms  hog (pid 7)")
            .count(),
        1,
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("hog_fn+0x1/0x2"),
        "the new record comes last: {text}"
    );
    assert!(!text.contains('\x1b'));
}

/// Claim: `watch` names the task a window in an IPI function interrupted as such: its
/// line on an 80-column terminal reads "irqctx_spin interrupted kdamond.0[54]", its
/// entry on a pipe says "in an IPI function on CPU 1, interrupting kdamond.0 (pid 54)",
/// and its `--json` object has `"context": "an IPI function"`.
#[test]
fn watch_says_a_window_in_an_ipi_function_interrupted_its_task() {
    let root = with_records(&with_ipi_window());
    let args = ["watch", "--interval", "10ms", "--count", "1"];
    let screen = on_80x24(root.path(), &args);
    assert!(
        screen.lines().any(|l| l
            == " 10:00:06.000   1 hardirq-off     120 ms irqctx_spin interrupted kdamond.0[54]"),
        "{screen}"
    );
    let piped = stdout(root.path(), &args);
    assert!(
        piped.contains("\n  in an IPI function on CPU 1, interrupting kdamond.0 (pid 54)\n"),
        "{piped}"
    );
    let json = stdout(root.path(), &[&["--json"], &args[..]].concat());
    let ipi: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .filter(|o: &serde_json::Value| o["comm"] == "kdamond.0")
        .collect();
    assert_eq!(ipi.len(), 1, "{json}");
    assert_eq!(ipi[0]["context"], "an IPI function", "{json}");
}

/// Claim: `--json watch` writes one JSON record per line: the file's 5 records, then the
/// 70 ms window that appears while it runs, once, with its wall time.
#[test]
fn watch_json_is_ndjson_of_records() {
    let root = ours();
    let w = spawn(
        root.path(),
        &["--json", "watch", "--interval", "200ms", "--count", "4"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let out = w.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // The 5 records of the file, then the new one, each once.
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[5]["latency_ns"], 70_123_456);
    assert_eq!(lines[5]["wall_time"], "2026-05-07T10:00:09.000000Z");
}

/// Claim: for v2 records, `watch` names a softirq-off window's cause, the task in the
/// window and the window on another CPU it overlaps.
#[test]
fn v2_watch_shows_causes_and_overlaps() {
    let root = ours_v2();
    cli(root.path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "softirq-off (ksoftirqd-wait) cpu 2",
        ))
        .stdout(predicate::str::contains("  in the window: my hog-131\n"))
        .stdout(predicate::str::contains(
            "  overlaps hardirq-off on CPU 1, 100 ms, irq_test\n",
        ));
}

/// Claim: `watch --until 60` is not ended by existing records longer than 60 ms, only by
/// a new one, and then exits 3 with a last line saying which window it caught and when it
/// ended.
#[test]
fn watch_until_ends_at_a_new_window() {
    let root = ours();
    // Existing records (up to 79 ms) do not count, only new ones.
    let w = spawn(
        root.path(),
        &["watch", "--interval", "50ms", "--until", "60"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let done = w.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(3));
    let text = String::from_utf8(done.stdout).unwrap();
    assert!(text.ends_with("caught a window of at least 60 ms: hardirq-off on CPU 1, 70 ms, hog (pid 7)  ended 2026-05-07T10:00:09.000000Z (9.000000 s after boot)\n"), "{text}");
}

/// Claim: `watch --stacks` on a terminal shows a still-open window with where it was so
/// far, and an ended window's top profile stacks by share of periods, one loop's stacks
/// merged and the rest summed as "in 1 more stack".
#[test]
fn watch_shows_the_top_profile_stacks() {
    // A window still open is on the terminal's view (a pipe gets it once it has ended).
    let root = with_records(RECORDS_WATCHER);
    let (_, text) = on_a_terminal(
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
    );
    let text = text.replace("\r\n", "\n");
    assert!(text.contains("  (window still open)\n  where it was so far: sh-63, 107 samples over 172 periods after the threshold, 3 distinct stacks\n    100% (172 of 172 periods):\n"), "{text}");
    // Stacks of one loop merged (delay_tsc, read_tsc and no leaf above the same code); the
    // rest summed.
    assert!(
        text.contains("\n    85% (11 of 13 periods):\n      delay_tsc+0x4a/0x80\n"),
        "{text}"
    );
    assert!(
        text.contains("\n    8% (1 of 13 periods) in 1 more stack\n"),
        "{text}"
    );
}

/// Claim: on an 80x24 terminal, `watch` fits: no line wider than 80 columns, at most 23
/// lines, the header on top and the newest window first (one line per window), an open
/// window marked open; what did not fit is counted.
#[test]
fn watch_on_80x24_keeps_the_header_and_the_newest_window_on_screen() {
    let root = with_records(RECORDS_WATCHER);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let screen = text.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.len() <= 23, "{} lines:\n{screen}", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 80, "{} wide: {l}", l.chars().count());
    }
    assert!(lines[0].starts_with("trace-irqoff watch: "), "{screen}");
    // What the lengths mean, for the kinds on screen.
    assert_eq!(
        lines[1], "true length = LENGTH +0..10 ms (hardirq-off), -5..+17 ms (ksoftirqd-wait)",
        "{screen}"
    );
    assert!(lines[2].starts_with(" END (UTC)    CPU KIND "), "{screen}");
    // The newest first: the window still open, on CPU 1 (its end is the read).
    assert!(
        lines[3].contains(" open ") && lines[3].contains("   1 hardirq-off"),
        "{screen}"
    );
    // On a 6-line terminal the rest is counted, not scrolled.
    let (_, small) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (6, 80),
    );
    let small = small.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    // The redraw holds 5 lines; the summary follows it when watch ends.
    let (small, summary) = small.split_once("\nwatch: ").unwrap_or((&small, ""));
    assert!(
        summary.starts_with("0.") && summary.contains(" s, "),
        "{summary}"
    );
    assert!(small.lines().count() <= 5, "{small}");
    assert!(
        small.lines().nth(3).is_some_and(|l| l.contains(" open ")),
        "{small}"
    );
    assert!(
        small.contains(" ... 2 older (trace-irqoff records; watch --stacks)"),
        "{small}"
    );
}

/// Claim: `watch` on a pipe prints a stall once, in its own line ("STALL", its length,
/// that no CPU ran and that it is no irq-off window, when it ended as windows say it),
/// after the windows that ended before it; `watch --json` gives it as an object of kind
/// "stall" with its span, never as a window; a module without stalls prints none.
#[test]
fn watch_shows_each_stall_once_apart_from_windows() {
    let root = with_records(RECORDS_STALL);
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "3"],
    );
    let stall = "STALL   302 ms  no CPU ran: the whole machine stood still (not an irq-off window)  ended 2026-05-07T10:00:09.235000Z (9.235000 s after boot)\n";
    assert_eq!(text.matches(stall).count(), 1, "{text}");
    assert!(text.ends_with(stall), "the newest comes last: {text}");
    assert_eq!(text.matches("STALL").count(), 1, "{text}");
    let json = stdout(
        root.path(),
        &["watch", "--json", "--interval", "10ms", "--count", "3"],
    );
    let objects: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let stalls: Vec<&serde_json::Value> = objects.iter().filter(|o| o["kind"] == "stall").collect();
    assert_eq!(stalls.len(), 1, "{json}");
    assert_eq!(
        (
            &stalls[0]["start_ns"],
            &stalls[0]["end_ns"],
            &stalls[0]["length_ns"],
            &stalls[0]["end_time"]
        ),
        (
            &8_933_000_000u64.into(),
            &9_235_000_000u64.into(),
            &302_000_000u64.into(),
            &"2026-05-07T10:00:09.235000Z".into()
        )
    );
    assert!(stalls[0].get("latency_ns").is_none(), "{json}");
    // The windows are those of the file without stalls.
    let windows = objects.iter().filter(|o| o["kind"] != "stall").count();
    let without = stdout(
        with_records(RECORDS_WATCHER).path(),
        &["watch", "--json", "--interval", "10ms", "--count", "1"],
    );
    assert_eq!(windows, without.lines().count(), "{json}");
    assert!(!without.contains("stall"), "{without}");
}

/// Claim: on an 80x24 terminal `watch` shows a stall in the windows' columns, by its end
/// among them (newest first), in 80 columns: its end (the one time column there), STALL
/// for its kind, its length, and a sentence that fits.
#[test]
fn watch_on_a_terminal_shows_the_stall_among_the_windows() {
    let root = with_records(RECORDS_STALL);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let screen = text.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    // The window still open (newest), then the stall, then the older windows.
    assert!(lines[3].contains(" open "), "{screen}");
    assert_eq!(
        lines[4], " 10:00:09.235   - STALL           302 ms      the machine stood still",
        "{screen}"
    );
    assert!(lines[5].contains("ksoftirqd-wait"), "{screen}");
}

/// Claim: `watch --json` gives a window from the ring what a stored record has: the
/// precision range and demangled frames.
#[test]
fn watch_json_ring_windows_are_named_and_bounded() {
    let root = store_full(1, 1);
    let ring = ring_root(RING);
    let out = cli_ring(root.path(), ring.path())
        .args(["watch", "--json", "--interval", "10ms", "--count", "1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let spin: serde_json::Value = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["timestamp_ns"] == 6_100_000_000u64)
        .expect("the ring window");
    assert_eq!(spin["true_latency_min_ns"], 120_000_000u64);
    assert_eq!(spin["true_latency_max_ns"], 130_000_000u64);
    assert_eq!(
        spin["stack"][0],
        "irqoff_sample_main::spin_window+0x41/0x90 [irqoff_sample]"
    );
    assert!(!text.contains("_RNv"), "{text}");
}
