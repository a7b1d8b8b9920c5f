// SPDX-License-Identifier: GPL-2.0
//! `records`: every window with its stacks, in text and JSON.

use crate::util::*;

/// Claim: `records --json --kind hard --cpu 1` gives only hardirq-off records of CPU 1,
/// worst first, the first with its culprit frame on top of its stack, and a `--min` above
/// every window gives `[]`.
#[test]
fn records_json_names_the_culprit_and_filters() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--json", "--kind", "hard", "--cpu", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v.is_empty());
    for r in &v {
        assert_eq!(r["kind"], "hard");
        assert_eq!(r["cpu"], 1);
    }
    assert!(v[0]["stack"][0]
        .as_str()
        .unwrap()
        .contains("irqoff_sample_hardirq_window"));
    // Worst first by default.
    let lat: Vec<u64> = v
        .iter()
        .map(|r| r["latency_ns"].as_u64().unwrap())
        .collect();
    assert!(lat.windows(2).all(|w| w[0] >= w[1]));
    let out = cli(root.path())
        .args(["records", "--json", "--min", "100000"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

/// A CPU the module does not report is refused, not answered with "no records".
#[test]
fn records_refuses_a_cpu_that_is_not_there() {
    let root = ours_v2();
    cli(root.path())
        .args(["records", "--cpu", "1", "--cpu", "7"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("there is no CPU 7 here: the module reports CPUs 0-3")
                .and(predicate::str::contains("hint: pick one of those")),
        );
}

/// Claim: `latency`, the alias of `records`, with `--kind soft` prints the softirq-off
/// window of CPU 1 with its culprit frame.
#[test]
fn latency_alias_and_human_records() {
    let root = ours();
    cli(root.path())
        .args(["latency", "--kind", "soft"])
        .assert()
        .success()
        .stdout(predicate::str::contains("softirq-off cpu 1"))
        .stdout(predicate::str::contains("irqoff_sample_softirq_window"));
}

/// Claim: an empty records file, an unknown version (v9), a config line missing its keys
/// and a file cut before `end` each make `records` exit 1 with "could not read the
/// module's records", never a panic.
#[test]
fn malformed_records_give_a_clear_error_not_a_panic() {
    for bad in [
        "",
        "trace_irqoff records v9\nend\n",
        "trace_irqoff records v1\nconfig enabled=1\nend\n",
        "trace_irqoff records v1\n",
    ] {
        let root = proc_root(&[
            ("enable", "enabled\n"),
            ("sampling_period", "10ms\n"),
            ("trace_latency", "trace_irqoff_latency: 50ms\n"),
            ("records", bad),
        ]);
        cli(root.path()).arg("records").assert().code(1).stderr(
            predicate::str::contains("could not read the module's records")
                .and(predicate::str::contains("panicked").not()),
        );
    }
}

/// The JSON of `records --json` is a stable interface: it must match the snapshot taken
/// from the fixture (update tests/fixtures/records.json on purpose, never by accident).
/// The snapshot holds the frames as the kernel printed them (`--raw-symbols`).
#[test]
fn records_json_snapshot() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--json", "--sort", "newest", "--raw-symbols"])
        .output()
        .unwrap();
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/records.json")).unwrap();
    assert_eq!(got, want);
}

/// By default Rust frames are demangled (v0 here), everywhere a stack is shown; C frames,
/// offsets and modules stay as printed.
#[test]
fn rust_frames_are_demangled_unless_raw() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--kind", "hard", "--limit", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x352/0x409 [irqoff_sample]"), "{text}");
    assert!(!text.contains("_RNv"), "{text}");
    assert!(
        text.contains("irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]"),
        "{text}"
    );
    let out = cli(root.path())
        .args(["records", "--kind", "hard", "--limit", "1", "--raw-symbols"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_main"),
        "{text}"
    );
    let out = cli(root.path())
        .args(["top", "--stack", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
        ),
        "{text}"
    );
}

/// v2 records show the cause, the stack sampled in the window with its task, and the
/// window on another CPU they overlapped.
#[test]
fn v2_records_text() {
    let root = ours_v2();
    let text = stdout(root.path(), &["records", "--cpu", "2", "--limit", "1"]);
    assert_eq!(
        text,
        "softirq-off (ksoftirqd-wait, thread runnable 48 ms) cpu 2    64 ms  my hog (pid 131) ran, ksoftirqd/2 (pid 24) waited  ended 2026-05-07T10:00:05.120000Z (5.120000 s after boot)
    call_timer_fn+0x2a/0x130
    __run_timers+0x21d/0x2c0
    run_timer_softirq+0x2b/0x50
    handle_softirqs+0xd6/0x2a0
    run_ksoftirqd+0x2b/0x40
    smpboot_thread_fn+0xf1/0x1f0
  in the window: my hog-131
    delay_tsc+0x4a/0x80
    irqoff_sample_busy+0x22/0x40 [irqoff_sample]
    <irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x3a0/0x409 [irqoff_sample]
    vfs_write+0x1d7/0x210
    ksys_write+0x75/0xc0
  overlaps softirq-off on CPU 3
true length = LENGTH -5..+17 ms (ksoftirqd-wait)
"
    );
    let text = stdout(root.path(), &["records"]);
    // Worst first: the bh-off window, both its stacks, and the hardirq-off window it overlapped.
    assert!(text.starts_with("softirq-off (bh-off) cpu 0   100 ms  sh (pid 79)  ended 2026-05-07T10:00:04.033490Z (4.033490 s after boot)\n    __local_bh_enable_ip+0x5e/0x80\n"), "{text}");
    assert!(
        text.contains("\n  in the window: sh-79\n    ktime_get+0x3c/0xa0\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  overlaps hardirq-off on CPU 1, 100 ms, irq_test\n"),
        "{text}"
    );
    assert!(text.contains("\nhardirq-off cpu 1   100 ms  irq_test (pid 90)  ended 2026-05-07T10:00:04.033412Z (4.033412 s after boot)\n"), "{text}");
    assert!(
        text.contains("\n  overlaps softirq-off on CPU 0, 100 ms, sh\n"),
        "{text}"
    );
    assert!(text.contains("\nsoftirq-off (ksoftirqd-wait) cpu 2    52 ms  ksoftirqd/2 (pid 24)  ended 2026-05-07T10:00:05.900000Z (5.900000 s after boot)\n"), "{text}");
    assert!(text.contains("\nsoftirq-off (bh-off) cpu 3   57 ms+  kworker/3:1 (pid 140)  open since 2026-05-07T10:00:05.043000Z (5.043000 s after boot)  (window still open)\n  in the window: kworker/3:1-140\n    delay_tsc+0x4a/0x80\n"), "{text}");
    // A hardirq record has no window sample to show.
    assert_eq!(text.matches("in the window:").count(), 3, "{text}");
    // --depth limits both stacks.
    let text = stdout(root.path(), &["records", "--cpu", "0", "--depth", "1"]);
    assert_eq!(text.matches("more frames").count(), 2, "{text}");
    // In-window frames are demangled like the others, unless raw.
    let text = stdout(
        root.path(),
        &["records", "--cpu", "2", "--limit", "1", "--raw-symbols"],
    );
    assert!(text.contains("\n    _RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter+0x3a0/0x409 [irqoff_sample]\n"), "{text}");
}

/// The JSON of v2 records, like records_json_snapshot (update tests/fixtures/records-v2.json
/// on purpose only).
#[test]
fn v2_records_json_snapshot() {
    let root = ours_v2();
    let got: serde_json::Value = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--sort", "newest", "--raw-symbols"],
    ))
    .unwrap();
    let want: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/records-v2.json")).unwrap();
    assert_eq!(got, want);
}

/// Claim: `records --json` on v2 records gives each record's cause, window task and
/// stack, runnable time and overlapping window (null where absent, a lower-bound record
/// with no stack), demangled, and v1 records carry the same fields, empty.
#[test]
fn v2_records_json_fields() {
    let root = ours_v2();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let by_cpu = |cpu: u64, lat: u64| {
        v.iter()
            .find(|r| r["cpu"] == cpu && r["latency_ns"] == lat)
            .unwrap()
    };
    let bh = by_cpu(0, 100_111_000);
    assert_eq!(bh["cause"], "bh-off");
    assert_eq!(bh["window_pid"], 79);
    assert_eq!(bh["window_comm"], "sh");
    assert_eq!(bh["window_stack"].as_array().unwrap().len(), 6);
    assert_eq!(
        bh["overlap"],
        serde_json::json!({"cpu": 1, "kind": "hard", "latency_ns": 99_800_123, "pid": 90, "comm": "irq_test"})
    );
    let hard = by_cpu(1, 99_800_123);
    assert_eq!(hard["cause"], serde_json::Value::Null);
    assert_eq!(hard["window_stack"], serde_json::json!([]));
    let wait = by_cpu(2, 64_250_000);
    assert_eq!(wait["cause"], "ksoftirqd-wait");
    assert_eq!(wait["runnable_ns"], 48_000_000);
    assert_eq!(wait["window_comm"], "my hog");
    // Demangled in JSON too.
    assert!(wait["window_stack"][2].as_str().unwrap().starts_with(
        "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
    ));
    assert_eq!(
        wait["overlap"],
        serde_json::json!({"cpu": 3, "kind": "soft", "latency_ns": null, "pid": 0, "comm": ""})
    );
    assert_eq!(by_cpu(2, 52_004_000)["overlap"], serde_json::Value::Null);
    let open = by_cpu(3, 57_000_000);
    assert_eq!(
        (
            open["lower_bound"].as_bool(),
            open["stack"].as_array().unwrap().len()
        ),
        (Some(true), 0)
    );
    // v1 records carry the same fields, empty.
    let root = ours();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    for r in &v {
        assert_eq!(
            (
                &r["cause"],
                &r["runnable_ns"],
                &r["window_stack"],
                &r["overlap"]
            ),
            (
                &serde_json::Value::Null,
                &serde_json::json!(0),
                &serde_json::json!([]),
                &serde_json::Value::Null
            )
        );
    }
}

/// Claim: `records` on a terminal is one line per window, cut to the terminal's width (80
/// here), in the order asked for, a culprit that an empty WAIT column would cut taking
/// that column's room; `--stacks` gives the stacks there, `--oneline` the lines
/// on a pipe, which otherwise keeps the stacks.
#[test]
fn records_on_a_terminal_is_one_line_per_window() {
    let root = ours_v2();
    let (code, text) = on_a_terminal_sized(root.path(), &["--color", "never", "records"], (24, 80));
    assert_eq!(code, Some(0), "{text}");
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(" END (UTC)    CPU KIND            LENGTH WAIT CULPRIT TASK[PID]"),
        "{text}"
    );
    // The header, 5 windows, and what their lengths mean (wrapped to 80 columns).
    assert_eq!(lines.len(), 1 + 5 + 2, "{text}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert_eq!(
        lines[6..],
        [
            "true length = LENGTH +0..10 ms (hardirq-off), -5..+10 ms (bh-off), -5..+17 ms",
            "  (ksoftirqd-wait)"
        ],
        "{text}"
    );
    // Worst first, as with stacks; the culprit takes the room of the empty WAIT column
    // rather than being cut.
    assert!(
        lines[1] == " 10:00:04.033   0 bh-off          100 ms irqoff_sample_softirq_window sh[79]",
        "{text}"
    );
    assert!(!text.contains("    __local_bh_enable_ip"), "{text}");
    let (_, stacks) = on_a_terminal_sized(
        root.path(),
        &["--color", "never", "records", "--stacks"],
        (24, 80),
    );
    assert!(stacks.contains("    __local_bh_enable_ip"), "{stacks}");
    // On a pipe: stacks, unless --oneline (then whole lines: no width to cut to).
    assert!(stdout(root.path(), &["records"]).contains("    __local_bh_enable_ip"));
    let piped = stdout(root.path(), &["records", "--oneline", "--sort", "newest"]);
    assert!(
        piped.lines().nth(1).is_some_and(
            |l| l.contains(" ksoftirqd-wait ") && l.ends_with(" call_timer_fn ksoftirqd/2[24]")
        ),
        "{piped}"
    );
    cli(root.path())
        .args(["records", "--oneline", "--stacks"])
        .assert()
        .code(2);
}

/// Claim: a window whose culprit ran in an IPI function names its task as the one it
/// interrupted in every line view of `records`: "irqctx_spin in an IPI function,
/// interrupting kdamond.0[54]" with `--oneline` on a pipe, "irqctx_spin interrupted
/// kdamond.0[54]" on an 80-column terminal (within the width), and `"context": "an IPI
/// function"` in `--json`; the task-context windows' lines are as they were, their
/// context null.
#[test]
fn a_window_in_an_ipi_function_interrupted_its_task_in_every_line() {
    let root = with_records(&with_ipi_window());
    let piped = stdout(root.path(), &["records", "--oneline"]);
    let lines: Vec<&str> = piped.lines().collect();
    assert!(
        lines[1].ends_with(
            "   1 hardirq-off       120 ms  irqctx_spin in an IPI function, interrupting kdamond.0[54]"
        ),
        "{piped}"
    );
    assert!(!piped.contains(" irqctx_spin kdamond.0"), "{piped}");
    assert!(
        lines[2].ends_with(" 100 ms  irqoff_sample_softirq_window sh[79]"),
        "{piped}"
    );
    assert_eq!(piped.matches("interrupt").count(), 1, "{piped}");
    let text = on_80x24(root.path(), &["records"]);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert_eq!(
        lines[1], " 10:00:06.000   1 hardirq-off     120 ms irqctx_spin interrupted kdamond.0[54]",
        "{text}"
    );
    assert_eq!(
        lines[2], " 10:00:04.033   0 bh-off          100 ms irqoff_sample_softirq_window sh[79]",
        "{text}"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    assert_eq!(v[0]["context"], "an IPI function", "{}", v[0]);
    assert_eq!(
        (&v[0]["comm"], &v[0]["pid"]),
        (&"kdamond.0".into(), &54.into())
    );
    assert!(
        v[1..].iter().all(|r| r["context"].is_null()),
        "{}",
        serde_json::Value::from(v.clone())
    );
}

/// Claim: `records --min` takes decimal milliseconds (66.9, 66.989ms) and keeps exactly
/// the windows at least that long, and "1,5" is refused with exit 2 and the duration
/// formats it takes.
#[test]
fn records_min_takes_decimals() {
    let root = ours();
    let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--min", "66.9"],
    ))
    .unwrap();
    assert_eq!(
        v.iter()
            .map(|r| r["latency_ns"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [78_986_472, 66_988_296]
    );
    let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--min", "66.989ms"],
    ))
    .unwrap();
    assert_eq!(v.len(), 1);
    cli(root.path())
        .args(["records", "--min", "1,5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'1,5' is not a duration (e.g. 10, 1.5ms, 2s, 5m: a bare number is milliseconds)",
        ));
}

/// Claim: `record --folded --weight count` weighs a caught 100 ms window's stack 1 and
/// `--weight latency` 100, an `-o /dev/null` stays the character device (written in
/// place, not renamed over), and `--weight latency` without `--folded` is a usage error,
/// exit 2.
#[test]
fn folded_stacks_weighted_by_count_or_latency() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    for (weight, want) in [("count", " 1\n"), ("latency", " 100\n")] {
        let folded = dir.path().join(format!("{weight}.folded"));
        let rec = spawn(
            root.path(),
            &[
                "record",
                "--until",
                "60",
                "-o",
                "/dev/null",
                "--folded",
                folded.to_str().unwrap(),
                "--weight",
                weight,
            ],
        );
        wait_for("record to enable", || read(root.path(), "enable") == "1\n");
        std::thread::sleep(std::time::Duration::from_millis(300));
        replace(root.path(), "records", &with_window(100));
        assert_eq!(rec.wait_with_output().unwrap().status.code(), Some(3));
        assert_eq!(
            fs::read_to_string(&folded).unwrap(),
            format!("hardirq-off;hog;hog_fn{want}")
        );
        replace(root.path(), "records", RECORDS);
    }
    // The recording went to /dev/null, written in place: it is still the device (renamed
    // over, as root, it became a regular file).
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }
    cli(root.path())
        .args(["record", "--weight", "latency", "-o", "/dev/null"])
        .assert()
        .code(2);
}

/// Claim: a window whose most-seen in-window stack spins in a contended lock's slow path
/// is labelled a lock wait, in `top`, the one-line view and the record; the same record
/// sampled in its own code is not.
#[test]
fn lock_waits_are_labelled() {
    let plain = with_records(RECORDS_WATCHER);
    assert!(!stdout(plain.path(), &["top"]).contains("lock wait"));
    let waiting = RECORDS_WATCHER.replacen(
        "profile_stack count=8 frames=8\nprofile_frame delay_tsc+0x4a/0x80\n",
        "profile_stack count=8 frames=8\nprofile_frame native_queued_spin_lock_slowpath+0x6c/0x230\n",
        1,
    );
    assert_ne!(waiting, RECORDS_WATCHER);
    let root = with_records(&waiting);
    let top = stdout(root.path(), &["top"]);
    assert!(
        top.lines().any(|l| l.starts_with("hardirq-off")
            && l.ends_with("irqoff_sample_hardirq_window (lock wait)")),
        "{top}"
    );
    let rec = stdout(root.path(), &["records", "--cpu", "1", "--kind", "hard"]);
    assert!(rec.contains("\n  a lock wait: the most-seen stack inside the window spins on a spinlock held elsewhere\n"), "{rec}");
    let line = stdout(
        root.path(),
        &["records", "--cpu", "1", "--kind", "hard", "--oneline"],
    );
    assert!(
        line.contains("  irqoff_sample_hardirq_window (lock wait) irq_test[64]"),
        "{line}"
    );
}

/// Claim: an open window's culprit in `status` is its most-seen sampled stack's, not the
/// latest sample's (which flapped to whatever the last NMI found, `in lock_release`).
#[test]
fn an_open_windows_culprit_is_its_most_seen_stack() {
    let flapped = RECORDS_WATCHER.replacen(
        "window_frame read_hpet+0x36/0xe0\nwindow_frame ktime_get+0x11a/0x160\nwindow_frame irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]\n",
        "window_frame lock_release+0x10/0x80\nwindow_frame some_other_function+0x11a/0x160\nwindow_frame irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]\n",
        1,
    );
    assert_ne!(flapped, RECORDS_WATCHER);
    let root = with_records(&flapped);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\nCPU 1: hard interrupts off for 1.79 s and counting \u{2014} sh (pid 63) in irqoff_sample_hardirq_window ("), "{text}");
}

/// Claim: `records` shows a still-open window as a lower bound with where it was so far,
/// and an ended one with its end stack and its profile's stacks by share of periods;
/// `--raw-symbols` leaves profile frames mangled, and the JSON carries the profile and
/// the ongoing mark, with no `profile` key for records without one.
#[test]
fn records_show_where_a_window_was_and_where_it_ended() {
    let root = with_records(RECORDS_WATCHER);
    let text = stdout(
        root.path(),
        &["records", "--cpu", "1", "--sort", "worst", "--depth", "2"],
    );
    assert_eq!(
        text,
        "hardirq-off cpu 1  1.79 s+  sh (pid 63)  open since 2026-05-07T10:00:09.249206Z (9.249206 s after boot)  (window still open)
  where it was so far: sh-63, 107 samples over 172 periods after the threshold, 3 distinct stacks
    100% (172 of 172 periods):
      read_hpet+0x36/0xe0
      ktime_get+0x11a/0x160
      ... 7 more frames
hardirq-off cpu 1   195 ms  irq_test (pid 64)  ended 2026-05-07T10:00:02.880633Z (2.880633 s after boot)
  where it ended:
    irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]
    <irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x352/0x409 [irqoff_sample]
    ... 5 more frames
  where it was: irq_test-64, 13 samples over 13 periods after the threshold, 5 distinct stacks
    85% (11 of 13 periods):
      delay_tsc+0x4a/0x80
      irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]
      ... 6 more frames
    8% (1 of 13 periods):
      asm_sysvec_apic_timer_interrupt+0x1a/0x20
      irqoff_sample_hardirq_window+0x24/0x4d [irqoff_sample]
      ... 1 more frames
    8% (1 of 13 periods) in 1 more stack
true length = LENGTH +0..10 ms (hardirq-off)
"
    );
    // Profile frames are raw with --raw-symbols.
    let text = stdout(root.path(), &["records", "--cpu", "1", "--raw-symbols"]);
    assert!(
        text.contains("\n      _RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_main"),
        "{text}"
    );
    // JSON: the profile, the ongoing mark.
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let open = v.iter().find(|r| r["ongoing"] == true).unwrap();
    assert_eq!(
        (&open["cpu"], &open["kind"], &open["lower_bound"]),
        (&1.into(), &"hard".into(), &true.into())
    );
    assert_eq!(
        (&open["profile"]["samples"], &open["profile"]["weight"]),
        (&107.into(), &172.into())
    );
    let hard = v
        .iter()
        .find(|r| r["latency_ns"] == 195_096_620u64)
        .unwrap();
    assert!(hard.get("ongoing").is_none());
    let p = &hard["profile"];
    assert_eq!(
        (
            &p["distinct"],
            &p["other"],
            p["stacks"].as_array().unwrap().len()
        ),
        (&5.into(), &0.into(), 4)
    );
    assert_eq!(p["stacks"][0]["count"], 8);
    assert_eq!(p["stacks"][0]["frames"], hard["window_stack"]);
    assert!(p["stacks"][0]["frames"][2].as_str().unwrap().starts_with(
        "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
    ));
    // Records without a profile have no such key (older readers see the JSON unchanged).
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(ours_v2().path(), &["records", "--json"])).unwrap();
    assert!(v.iter().all(|r| r.get("profile").is_none()));
}

/// Claim: a records file whose module frames carry build ids (CONFIG_STACKTRACE_BUILD_ID)
/// shows as one without them, in every view, and JSON keeps the ids in `build_ids`.
#[test]
fn build_ids_in_frames_are_kept_out_of_the_views() {
    let id = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
    let with_ids = RECORDS_V2.replace(" [irqoff_sample]", &format!(" [irqoff_sample {id}]"));
    assert_ne!(with_ids, RECORDS_V2);
    let (plain, ids) = (ours_v2(), ours_with(&with_ids));
    let out = |root: &TempDir, args: &[&str]| {
        let o = cli(root.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    for args in [
        &["records", "--stacks"][..],
        &["top"],
        &["records", "--oneline"],
    ] {
        assert_eq!(out(&ids, args), out(&plain, args), "{args:?}");
    }
    let json: serde_json::Value = serde_json::from_str(&out(&ids, &["--json", "records"])).unwrap();
    let with_sample: Vec<_> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["stack"].to_string().contains("[irqoff_sample]"))
        .collect();
    assert!(!with_sample.is_empty());
    for r in with_sample {
        assert_eq!(r["build_ids"]["irqoff_sample"], id, "{r}");
        assert!(!r.to_string().contains(&format!("irqoff_sample {id}]")));
    }
}

/// Claim: `records --lines` without debug information prints what `records` prints, says on
/// stderr in one sentence what had none and how to get it, and exits 0.
#[test]
fn lines_without_debug_information_change_nothing_but_say_so() {
    let root = ours_v2();
    let plain = cli(root.path())
        .args(["records", "--stacks"])
        .output()
        .unwrap();
    let lines = cli(root.path())
        .args([
            "records",
            "--stacks",
            "--lines",
            "--debug-dir",
            "/nonexistent",
        ])
        .output()
        .unwrap();
    assert!(lines.status.success());
    assert_eq!(lines.stdout, plain.stdout);
    let err = String::from_utf8(lines.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no debug information for kernel")
            && err.contains("module irqoff_sample")
            && err.contains("-dbg (Debian)"),
        "{err}"
    );
}

/// Claim: `records` shows the event ring's windows beside the store's: a window both
/// hold is shown once (same CPU, kind and end), the ring's windows the store did not keep
/// are added, one under the threshold is not; `--sort newest` puts the newest (a ring
/// window) first. Their frames are demangled as the store's are, and they carry the
/// precision range stored records have. Without the merge, CPU 1 would show 1 window.
#[test]
fn records_merge_the_ring_with_the_store() {
    let root = store_full(1, 1);
    let ring = ring_root(RING);
    let v = json_of(cli_ring(root.path(), ring.path()).args(["records", "--json", "--cpu", "1"]));
    let ends: Vec<u64> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["timestamp_ns"].as_u64().unwrap())
        .collect();
    assert_eq!(ends, [6_100_000_000, 4_033_412_000, 6_400_000_000], "{v:#}");
    for r in v.as_array().unwrap() {
        for f in r["stack"].as_array().unwrap() {
            assert!(!f.as_str().unwrap().starts_with("_R"), "mangled: {f}");
        }
        assert!(
            r["true_latency_min_ns"].is_u64() && r["true_latency_max_ns"].is_u64(),
            "{r}"
        );
    }
    assert_eq!(
        v[0]["stack"][0],
        "irqoff_sample_main::spin_window+0x41/0x90 [irqoff_sample]"
    );
    assert_eq!(v[0]["stack"][1], "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x352/0x409 [irqoff_sample]");
    // P = 10 ms: a hardirq-off window is 0..P longer than shown.
    assert_eq!(
        (
            v[0]["true_latency_min_ns"].as_u64(),
            v[0]["true_latency_max_ns"].as_u64()
        ),
        (Some(120_000_000), Some(130_000_000))
    );
    // The newest window is the ring's.
    let newest = json_of(
        cli_ring(root.path(), ring.path())
            .args(["records", "--json", "--sort", "newest", "--limit", "1"]),
    );
    assert_eq!(newest[0]["timestamp_ns"], 6_400_000_000u64);
    // Every window shown: no footnote.
    let out = cli_ring(root.path(), ring.path())
        .args(["records", "--kind", "hard"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains("not shown"), "{text}");
    assert!(text.contains("irqoff_sample_main::spin_window"), "{text}");
    // --raw-symbols: as the kernel printed them, ring windows too.
    let raw = json_of(cli_ring(root.path(), ring.path()).args([
        "--raw-symbols",
        "records",
        "--json",
        "--cpu",
        "1",
    ]));
    assert!(
        raw[0]["stack"][0].as_str().unwrap().starts_with("_RNv"),
        "{raw:#}"
    );
}

/// Claim: `records --oneline` at 80 columns (COLUMNS=80, with LINES: a width set on a
/// pipe, as on a terminal) of records-v1 prints a hardirq-off window's culprit
/// `irqoff_sample_hardirq_window` whole, in the room of its empty WAIT column (whole only
/// with that room: the line is 80 columns or less), beside its task `sh[52]`; every line
/// fits.
#[test]
fn records_at_80_columns_keep_the_hardirq_culprit_whole() {
    let root = ours();
    let out = cli(root.path())
        .env("COLUMNS", "80")
        .env("LINES", "24")
        .args(["--color", "never", "records", "--oneline"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(" END (UTC)    CPU KIND            LENGTH WAIT CULPRIT TASK[PID]"),
        "{text}"
    );
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
    let hard = lines
        .iter()
        .find(|l| l.ends_with(" sh[52]"))
        .unwrap_or_else(|| panic!("no window of sh[52]: {text}"));
    assert!(
        hard.ends_with("   1 hardirq-off      67 ms irqoff_sample_hardirq_window sh[52]"),
        "{hard}"
    );
    // Without the WAIT column's room the culprit would not fit whole.
    let wait = "WAIT ".len();
    assert!(hard.chars().count() + wait > 80, "{hard}");
}
