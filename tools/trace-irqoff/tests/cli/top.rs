// SPDX-License-Identifier: GPL-2.0
//! `top` and `top --live`: windows ranked by culprit.

use crate::util::*;

/// Claim: `top --json` ranks an irqoff_sample_ function first as the culprit, and
/// `top --stack` shows the culprit's callers joined by " <- ".
#[test]
fn top_ranks_the_sample_first() {
    let root = ours();
    let out = cli(root.path()).args(["top", "--json"]).output().unwrap();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v[0]["culprit"]
        .as_str()
        .unwrap()
        .starts_with("irqoff_sample_"));
    cli(root.path())
        .args(["top", "--stack"])
        .assert()
        .success()
        .stdout(predicate::str::contains(" <- "));
}

/// `top` groups softirq records by cause too; ksoftirqd-wait is blamed on what ran in the
/// window instead of the softirq thread.
#[test]
fn v2_top_groups_by_cause() {
    let root = ours_v2();
    let text = stdout(root.path(), &["top"]);
    assert_eq!(
        text,
        "kind         cause           count          worst          total  tasks                    culprit
softirq-off  bh-off              1         100 ms         100 ms  sh                       irqoff_sample_softirq_window
hardirq-off  -                   1         100 ms         100 ms  irq_test                 irqoff_sample_hardirq_window
softirq-off  ksoftirqd-wait      1          64 ms          64 ms  my hog                   irqoff_sample_busy
softirq-off  bh-off              1          57 ms          57 ms  kworker/3:1              irqoff_sample_bh_work
softirq-off  ksoftirqd-wait      1          52 ms          52 ms  ksoftirqd/2              call_timer_fn
true length = LENGTH +0..10 ms (hardirq-off), -5..+10 ms (bh-off), -5..+17 ms (ksoftirqd-wait)
"
    );
    let text = stdout(root.path(), &["top", "--stack"]);
    assert!(text.contains("ksoftirqd-wait      1          64 ms          64 ms  my hog                   delay_tsc <- irqoff_sample_busy <- "), "{text}");
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["top", "--json"])).unwrap();
    assert_eq!(v.len(), 5);
    assert_eq!(
        (&v[0]["kind"], &v[0]["cause"], &v[0]["culprit"]),
        (
            &"soft".into(),
            &"bh-off".into(),
            &"irqoff_sample_softirq_window".into()
        )
    );
    assert_eq!(v[1]["cause"], serde_json::Value::Null);
    assert_eq!(
        (&v[2]["cause"], &v[2]["culprit"], &v[2]["comms"]),
        (
            &"ksoftirqd-wait".into(),
            &"irqoff_sample_busy".into(),
            &serde_json::json!(["my hog"])
        )
    );
    // v1: no causes, as before.
    let root = ours();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["top", "--json"])).unwrap();
    assert!(v.iter().all(|c| c["cause"].is_null()));
}

/// Claim: `top --live` off a terminal prints one table, without escapes, with a row per
/// CPU and kind giving events, records kept and the last, min, average and max window,
/// and `--json` gives the same rows with the max in ns and the last window's wall time.
#[test]
fn top_live_is_one_table_per_cpu_and_kind() {
    let root = ours();
    // Not on a terminal: one table, no escapes.
    let text = stdout(root.path(), &["top", "--live"]);
    assert!(text.starts_with("trace-irqoff top --live: "), "{text}");
    assert!(text.contains("\n CPU  KIND           EVENTS RECORDED         LAST          MIN          AVG          MAX\n"), "{text}");
    assert!(text.contains("\n   1  hardirq-off         4        3        53 ms        53 ms        58 ms        67 ms\n"), "{text}");
    assert!(text.contains("\n   1  softirq-off         1        2        79 ms        51 ms        65 ms        79 ms\n"), "{text}");
    assert_eq!(text.matches("top --live:").count(), 1);
    assert!(!text.contains('\x1b'));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(stdout(root.path(), &["top", "--live", "--json"]).trim()).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        (
            &rows[2]["cpu"],
            &rows[2]["kind"],
            &rows[2]["events"],
            &rows[2]["max_ns"]
        ),
        (&1.into(), &"hard".into(), &4.into(), &66_988_296.into())
    );
    assert_eq!(rows[2]["last_time"], "2026-05-07T10:00:03.506551Z");
}

/// Claim: `top --live --count 3` on a terminal redraws three times from the top left,
/// with a bold header and each line cleared to its end, and exits 0.
#[test]
fn top_live_redraws_in_place_on_a_terminal() {
    let root = ours();
    let (code, text) = on_a_terminal(
        root.path(),
        &["top", "--live", "--interval", "50ms", "--count", "3"],
    );
    assert_eq!(code, Some(0), "{text}");
    // Three refreshes, each from the top left, lines cleared to their end, the header bold.
    assert_eq!(text.matches("\x1b[H").count(), 3, "{text:?}");
    assert_eq!(text.matches("trace-irqoff top --live:").count(), 3);
    assert!(text.contains("\x1b[1mCPU KIND "), "{text:?}");
    assert!(
        text.contains(
            "  1 hardirq-off       4        3     53 ms     53 ms     58 ms     67 ms\x1b[K"
        ),
        "{text:?}"
    );
}

/// Claim: `top --live` on an 80x24 terminal fits: no line over 80 columns, and a redraw
/// never has more lines than the terminal minus one.
#[test]
fn top_live_on_80x24_fits() {
    let root = ours();
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "top",
            "--live",
            "--interval",
            "50ms",
            "--count",
            "2",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    for frame in text.split("\x1b[H").skip(1) {
        let lines: Vec<String> = frame
            .replace("\x1b[K", "")
            .replace("\x1b[J", "")
            .replace("\r\n", "\n")
            .lines()
            .map(str::to_string)
            .collect();
        assert!(lines.len() <= 23, "{frame:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{frame:?}");
    }
}

/// Claim: every view says since when it counts: status names the load or last clear and
/// when sampling was enabled, in wall-clock time; top --live's first refresh the same.
#[test]
fn status_and_top_live_say_since_when_they_count() {
    let text = RECORDS_V2.replacen(
        " buckets=24",
        " buckets=24 counts_since_ns=1500000000 enabled_since_ns=2250000000",
        1,
    );
    assert_ne!(text, RECORDS_V2);
    let root = with_records(&text);
    let status = stdout(root.path(), &["status"]);
    assert!(
        status.contains("\ncounts and records since 2026-05-07T10:00:01.500000Z (load or last clear); sampling on since 2026-05-07T10:00:02.250000Z\n"),
        "{status}"
    );
    let live = stdout(root.path(), &["top", "--live"]);
    assert!(
        live.contains("; since 10:00:01 UTC (load or clear)\n"),
        "{live}"
    );
    // A module without them: no such line, and top --live says since load.
    assert!(!stdout(ours_v2().path(), &["status"]).contains("counts and records since"));
    assert!(stdout(ours_v2().path(), &["top", "--live"]).contains("; since load\n"));
}

/// Claim: `top` shows the culprits of windows only, and where stalls were counted in its
/// span, says so in a footnote (the status sentence); without stalls, no footnote.
#[test]
fn top_footnotes_the_stalls_of_its_span() {
    let text = stdout(with_records(RECORDS_STALL).path(), &["top"]);
    assert!(text.ends_with("\nstalls: 5 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere\n"), "{text}");
    let without = stdout(with_records(RECORDS_WATCHER).path(), &["top"]);
    assert!(!without.contains("stall"), "{without}");
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("stalls:"))
            .collect::<Vec<_>>(),
        without.lines().collect::<Vec<_>>()
    );
}

/// Claim: `top --live` footnotes the stalls of the span its counts cover: since load or
/// clear at the first refresh, then only those counted since it started (none: no
/// footnote; two more: those two, with their total, the longest not being known).
#[test]
fn top_live_footnotes_the_stalls_since_its_start() {
    use std::io::BufRead;
    let root = with_records(RECORDS_STALL);
    let mut top = spawn(
        root.path(),
        &["top", "--live", "--interval", "300ms", "--count", "3"],
    );
    let mut lines = std::io::BufReader::new(top.stdout.take().unwrap()).lines();
    let mut feet = Vec::new();
    // The first refresh (since load) ends with its footnote; two stalls come after it.
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.starts_with("stalls:") {
            feet.push(line);
            break;
        }
    }
    replace(
        root.path(),
        "records",
        &RECORDS_STALL.replace(
            "stall count=5 over_threshold=3 sum_ns=935000000 ",
            "stall count=7 over_threshold=5 sum_ns=1535000000 ",
        ),
    );
    feet.extend(
        lines
            .map(Result::unwrap)
            .filter(|l| l.starts_with("stalls:")),
    );
    assert!(top.wait().unwrap().success());
    let since_load = "stalls: 5 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere";
    let since_start = "stalls: 2 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), 600 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere";
    // The second refresh may come before the two stalls (no footnote) or after them.
    assert_eq!(
        feet.first().map(String::as_str),
        Some(since_load),
        "{feet:?}"
    );
    assert!(
        feet.len() >= 2 && feet[1..].iter().all(|f| f == since_start),
        "{feet:?}"
    );
}

/// Claim: where windows over the threshold are neither in the store nor in the ring,
/// `records` and `top` say how many in a footnote and which commands have them: without
/// a ring (a copy of the files) all the store's dropped and replaced ones, with the ring
/// those it did not give back. With `--json` the sentence goes to stderr, the JSON stays
/// whole.
#[test]
fn records_and_top_say_what_they_do_not_show() {
    let root = store_full(2, 1);
    for cmd in ["records", "top"] {
        let out = cli(root.path()).arg(cmd).output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.contains("3 windows over the threshold not shown")
                && text.contains(
                    "no event ring gives them back: a copy of the module's files has none;"
                )
                && text.contains("trace-irqoff status counts them"),
            "{cmd}: {text}"
        );
    }
    let ring = ring_root(RING);
    let out = cli_ring(root.path(), ring.path())
        .arg("top")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("1 window over the threshold not shown: neither the module's store"),
        "{text}"
    );
    let out = cli(root.path())
        .args(["records", "--json"])
        .output()
        .unwrap();
    assert!(serde_json::from_slice::<serde_json::Value>(&out.stdout).is_ok());
    assert!(String::from_utf8_lossy(&out.stderr)
        .contains("note: 3 windows over the threshold not shown"));
}

/// Claim: `top` counts what `record --last` finds for the same span: the store's windows
/// and the ring's, each once. A ring window is grouped under its demangled culprit
/// (`irqoff_sample_main::spin_window`, as a stored record of it would be), and the
/// recording's folded stacks (the report's flame graph) name it so too. `record --last`
/// changed nothing, so it does not say it restored the module.
#[test]
fn top_counts_equal_record_last() {
    let root = store_full(1, 1);
    let ring = ring_root(RING);
    let top = json_of(cli_ring(root.path(), ring.path()).args(["top", "--json", "--limit", "100"]));
    let counts = |v: &serde_json::Value| -> Vec<(String, String, u64, u64)> {
        let mut c: Vec<_> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c["kind"].to_string(),
                    c["culprit"].as_str().unwrap().to_string(),
                    c["count"].as_u64().unwrap(),
                    c["total_ns"].as_u64().unwrap(),
                )
            })
            .collect();
        c.sort();
        c
    };
    let hard: Vec<_> = counts(&top)
        .into_iter()
        .filter(|c| c.0 == "\"hard\"")
        .collect();
    assert_eq!(
        hard.iter().map(|c| c.2).sum::<u64>(),
        3,
        "store 1 + ring 2: {hard:?}"
    );
    assert!(
        hard.iter()
            .any(|c| c.1 == "irqoff_sample_main::spin_window" && c.2 == 1),
        "{hard:?}"
    );
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("last.json");
    let folded = dir.path().join("last.folded");
    let out = cli_ring(root.path(), ring.path())
        .args(["record", "--last", "100000h", "-o"])
        .arg(&file)
        .arg("--folded")
        .arg(&folded)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(!summary.contains("module restored"), "{summary}");
    let from_file = json_of(
        cli(root.path())
            .args(["top", "--json", "--limit", "100", "--from"])
            .arg(&file),
    );
    // Compared for hardirq-off: the store also holds a softirq window still open,
    // which a recording leaves out.
    let live = counts(&top);
    let recorded = counts(&from_file);
    assert_eq!(
        live.iter()
            .filter(|c| c.0 == "\"hard\"")
            .collect::<Vec<_>>(),
        recorded
            .iter()
            .filter(|c| c.0 == "\"hard\"")
            .collect::<Vec<_>>()
    );
    let folded = fs::read_to_string(&folded).unwrap();
    assert!(
        folded.contains(";irqoff_sample_main::spin_window "),
        "{folded}"
    );
    assert!(!folded.contains("_RNv"), "{folded}");
}

/// Claim: `top` does not present the task a window in an IPI function interrupted as the
/// culprit's doer: on a pipe its row's tasks read "interrupted kdamond.0" and its culprit
/// "irqctx_spin in an IPI function"; on an 80-column terminal "irqctx_spin (interrupted
/// kdamond.0)"; in `--json` the task is under "interrupted", not "comms", with the
/// context. The rows of task-context culprits name their tasks as before.
#[test]
fn top_does_not_name_the_interrupted_task_as_doer() {
    let root = with_records(&with_ipi_window());
    let text = stdout(root.path(), &["top"]);
    let rows: Vec<&str> = text.lines().collect();
    assert!(
        rows[1].starts_with("hardirq-off  -                   1         120 ms")
            && rows[1].ends_with("  interrupted kdamond.0    irqctx_spin in an IPI function"),
        "{text}"
    );
    assert!(
        rows[2].ends_with("  sh                       irqoff_sample_softirq_window"),
        "{text}"
    );
    assert_eq!(text.matches("kdamond.0").count(), 1, "{text}");
    let screen = on_80x24(root.path(), &["top"]);
    assert!(
        screen.lines().nth(1).is_some_and(|l| l
            == "hardirq-off        1  120 ms   120 ms      irqctx_spin (interrupted kdamond.0)"),
        "{screen}"
    );
    assert!(screen.lines().all(|l| l.chars().count() <= 80), "{screen}");
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["top", "--json"])).unwrap();
    assert_eq!(
        (
            &v[0]["culprit"],
            &v[0]["comms"],
            &v[0]["interrupted"],
            &v[0]["context"]
        ),
        (
            &"irqctx_spin".into(),
            &serde_json::json!([]),
            &serde_json::json!(["kdamond.0"]),
            &"an IPI function".into()
        )
    );
    assert_eq!(
        (&v[1]["comms"], &v[1]["interrupted"], &v[1]["context"]),
        (
            &serde_json::json!(["sh"]),
            &serde_json::json!([]),
            &serde_json::Value::Null
        )
    );
}
