// SPDX-License-Identifier: GPL-2.0
//! `record`: a recording saved whole and the module restored, read back with `--from`.

use crate::util::*;

/// Claim: Ctrl-C during `record --threshold 70` exits 130, puts back the module's
/// disabled state, 10 ms period and 50 ms threshold, and still saves the file, marked
/// interrupted, with the state it restored, its clock anchor and its end time.
#[test]
fn record_restores_the_state_after_ctrl_c() {
    let root = proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS),
    ]);
    let out = root.path().join("rec.json");
    let bin = assert_cmd::cargo::cargo_bin("trace-irqoff");
    let mut child = std::process::Command::new(bin)
        .arg("--proc-root")
        .arg(root.path())
        .args(["record", "--duration", "60s", "--threshold", "70", "-o"])
        .arg(&out)
        .spawn()
        .unwrap();
    // Wait until it has enabled sampling, then press Ctrl-C.
    for _ in 0..100 {
        if read(root.path(), "enable") == "1\n" {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(read(root.path(), "enable"), "1\n", "record did not enable");
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    // Restored: disabled, period 10, threshold 50.
    assert_eq!(read(root.path(), "enable"), "0\n");
    assert_eq!(read(root.path(), "sampling_period"), "10\n");
    assert_eq!(read(root.path(), "trace_latency"), "50\n");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["restored"]["enabled"], false);
    assert_eq!(v["restored"]["threshold_ms"], 50);
    // The clock anchor its wall times were made with, and its end, for --from.
    assert!(
        v["realtime_offset_ns"]
            .as_u64()
            .is_some_and(|ns| ns > 1_700_000_000_000_000_000),
        "{v}"
    );
    assert!(v["end_ns"].as_u64().is_some_and(|ns| ns > 0), "{v}");
}

/// Claim: an `-o` or `--folded` path that cannot be written (in a missing directory, or a
/// directory itself) is refused at once with exit 2, the reason and a hint, before the
/// module is enabled or its threshold changed, and no output file is written.
#[test]
fn record_refuses_an_unusable_output_path_before_touching_the_module() {
    let root = disabled();
    for (path, sentence) in [
        (
            "/nonexistent/x.json",
            "cannot write /nonexistent/x.json: the directory /nonexistent does not exist",
        ),
        ("/", "/ is a directory"),
    ] {
        let start = std::time::Instant::now();
        cli(root.path())
            .args(["record", "--duration", "30s", "-o", path])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(sentence).and(predicate::str::contains("\nhint: ")));
        assert!(
            start.elapsed() < std::time::Duration::from_secs(5),
            "it recorded first"
        );
    }
    // The same for --folded, and nothing was written to the module.
    let out = root.path().join("ok.json");
    cli(root.path())
        .args([
            "record",
            "--duration",
            "30s",
            "-o",
            out.to_str().unwrap(),
            "--folded",
            "/nonexistent/x.folded",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("/nonexistent does not exist"));
    assert!(!out.exists());
    assert_eq!(read(root.path(), "enable"), "disabled\n");
    assert_eq!(
        read(root.path(), "trace_latency"),
        "trace_irqoff_latency: 50ms\n"
    );
}

/// Claim: while one `record` runs, a second is refused with exit 1 and a hint, changing
/// no setting and writing no file, and a `disable` meanwhile comes with a note; the
/// first, on Ctrl-C, restores what it found (disabled, threshold 50 ms).
#[test]
fn a_second_record_is_refused_while_one_runs() {
    let root = disabled();
    let first_out = root.path().join("first.json");
    let first = spawn_recording(
        root.path(),
        &first_out,
        &["--duration", "60s", "--threshold", "70"],
    );
    let second_out = root.path().join("second.json");
    cli(root.path())
        .args([
            "record",
            "--duration",
            "1s",
            "--threshold",
            "90",
            "-o",
            second_out.to_str().unwrap(),
        ])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "trace-irqoff: another trace-irqoff record is running on this module\nhint: ",
        ));
    // The second changed nothing and wrote nothing.
    assert_eq!(read(root.path(), "trace_latency"), "70\n");
    assert!(!second_out.exists());
    // A change made meanwhile comes with a note.
    cli(root.path())
        .arg("disable")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "note: a trace-irqoff record is running",
        ));
    signal(&first, "-INT");
    let out = first.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130));
    // The first restored what it found: disabled, threshold 50.
    assert_eq!(read(root.path(), "enable"), "0\n");
    assert_eq!(read(root.path(), "trace_latency"), "50\n");
    let summary = String::from_utf8(out.stdout).unwrap();
    assert!(
        summary.contains("module restored: disabled, period 10 ms, threshold 50 ms"),
        "{summary}"
    );
}

/// A disable by someone else during `record` is noticed, said in the summary and kept in
/// the file, and not undone. The recording lasts 8 s so that the disable lands inside it
/// on a loaded machine too (with 3 s a cold `make test` once started it after the end).
#[test]
fn record_notices_an_outside_disable_and_says_so() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS),
    ]);
    let out = root.path().join("rec.json");
    let rec = spawn_recording(
        root.path(),
        &out,
        &["--duration", "8s", "--threshold", "60"],
    );
    wait_for("record to set its threshold", || {
        read(root.path(), "trace_latency") == "60\n"
    });
    cli(root.path()).arg("disable").assert().success();
    let done = rec.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(0));
    let summary = String::from_utf8(done.stdout).unwrap();
    assert!(
        summary.contains("warning: someone else changed the module during the recording:\n  at "),
        "{summary}"
    );
    assert!(
        summary.contains(": the module was disabled: no events were seen after this\n"),
        "{summary}"
    );
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    let changes = v["outside_changes"].as_array().unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(
        changes[0]["what"],
        "the module was disabled: no events were seen after this"
    );
    assert!(changes[0]["at_ms"].as_u64().unwrap() <= 8000);
    // The operator's disable stays (record does not enable behind their back); the
    // threshold record changed goes back to 50.
    assert_eq!(read(root.path(), "enable"), "0\n");
    assert_eq!(read(root.path(), "trace_latency"), "50\n");
    assert!(summary.contains("module restored: disabled, period 10 ms, threshold 50 ms (sampling left as someone else set it)"), "{summary}");
    assert_eq!(v["kept_outside"], serde_json::json!(["enabled"]));
}

/// Claim: while `record` runs, an existing output file stays as it was and the new files
/// are hidden; when the records turn unreadable it exits 1, restores the module and
/// leaves only the old file, with no partial or temporary file beside it.
#[test]
fn record_files_appear_whole_or_not_at_all() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("rec.json");
    let folded = dir.path().join("rec.folded");
    fs::write(&out, "old\n").unwrap();
    let rec = spawn_recording(
        root.path(),
        &out,
        &["--duration", "60s", "--folded", folded.to_str().unwrap()],
    );
    // While it records, the old file is untouched and the new ones are hidden.
    assert_eq!(fs::read_to_string(&out).unwrap(), "old\n");
    assert!(files_in(dir.path())
        .iter()
        .filter(|n| !n.starts_with('.'))
        .eq(["rec.json"].iter()));
    // The records turn unreadable: record fails, restores, and leaves the old file alone.
    fs::write(
        root.path().join("trace_irqoff/records"),
        "trace_irqoff records v1\n",
    )
    .unwrap();
    signal(&rec, "-TERM");
    let done = rec.wait_with_output().unwrap();
    assert_eq!(
        done.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(String::from_utf8_lossy(&done.stderr).contains("could not read the module's records"));
    assert_eq!(fs::read_to_string(&out).unwrap(), "old\n");
    assert_eq!(files_in(dir.path()), ["rec.json"]);
    assert_eq!(read(root.path(), "enable"), "0\n");
}

/// Claim: SIGTERM ends a `record --period 5` as Ctrl-C does: exit 130, the module back to
/// disabled with its 10 ms period, and the file saved, marked interrupted, with the 5 ms
/// period it recorded at and nothing else left beside it.
#[test]
fn record_restores_after_sigterm_too() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("rec.json");
    let rec = spawn_recording(root.path(), &out, &["--duration", "60s", "--period", "5"]);
    signal(&rec, "-TERM");
    assert_eq!(rec.wait_with_output().unwrap().status.code(), Some(130));
    assert_eq!(
        (
            read(root.path(), "enable"),
            read(root.path(), "sampling_period")
        ),
        ("0\n".into(), "10\n".into())
    );
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["interrupted"], true);
    assert_eq!(v["settings"]["period_ms"], 5);
    assert_eq!(files_in(dir.path()), ["rec.json"]);
}

/// Claim: `record --until 40` lowers the threshold to 40 ms, is not ended by a 39 ms
/// window but ends within a poll of a 100 ms one with exit 3 and a "caught a window"
/// summary, saves the caught record with its bucket and only that one new record (the
/// 39 ms window, replaced in the file, is not kept), and restores the module.
#[test]
fn record_until_ends_at_the_window_saves_and_restores() {
    let root = disabled();
    let out = root.path().join("caught.json");
    let rec = spawn(
        root.path(),
        &["record", "--until", "40", "-o", out.to_str().unwrap()],
    );
    // The threshold comes down to the --until length while recording.
    wait_for("record to enable", || {
        read(root.path(), "enable") == "1\n" && read(root.path(), "trace_latency") == "40\n"
    });
    std::thread::sleep(std::time::Duration::from_millis(300));
    // A shorter window does not end it; a long enough one does, within a poll.
    replace(root.path(), "records", &with_window(39));
    std::thread::sleep(std::time::Duration::from_millis(600));
    let start = std::time::Instant::now();
    replace(root.path(), "records", &with_window(100));
    let done = rec.wait_with_output().unwrap();
    assert!(start.elapsed() < std::time::Duration::from_secs(2));
    assert_eq!(
        done.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let summary = String::from_utf8(done.stdout).unwrap();
    assert!(summary.starts_with("caught a window of at least 40 ms: hardirq-off on CPU 1, 100 ms, hog (pid 7)  ended 2026-05-07T10:00:09.000000Z (9.000000 s after boot)\n"), "{summary}");
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["until_ms"], 40);
    assert_eq!(v["caught"]["record"]["latency_ns"], 100_123_456);
    assert_eq!(v["caught"]["bucket_ms"], serde_json::json!([64, 127]));
    assert_eq!(v["interrupted"], false);
    assert_eq!(
        v["records"].as_array().unwrap().len(),
        1,
        "the 39 ms window was replaced by the file, not kept"
    );
    assert_eq!(
        (
            read(root.path(), "enable"),
            read(root.path(), "trace_latency")
        ),
        ("0\n".into(), "50\n".into())
    );
}

/// Claim: an `--until` no reported window could reach is refused with exit 2, leaving the
/// module untouched: below `--threshold` (with a hint), below the shortest window the
/// module reports at its period (20 ms at 10 ms), and for `watch`, below the module's
/// threshold, with the hint to lower it first.
#[test]
fn until_refuses_what_could_never_end_it() {
    let root = disabled();
    cli(root.path())
        .args([
            "record",
            "--until",
            "30",
            "--threshold",
            "60",
            "-o",
            "/dev/null",
        ])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("--until 30 is below --threshold 60")
                .and(predicate::str::contains("hint: ")),
        );
    cli(root.path())
        .args(["record", "--until", "15", "-o", "/dev/null"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("(20 ms)"));
    cli(root.path())
        .args(["watch", "--until", "30"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("hint: lower the threshold first"));
    assert_eq!(read(root.path(), "enable"), "disabled\n");
}

/// Without the test's fixed boot time, a window that ended now is shown at now: the boot
/// time is this machine's CLOCK_REALTIME - CLOCK_MONOTONIC at read.
#[test]
fn wall_times_follow_this_machines_clocks() {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    let now_ns = t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64;
    let records =
        with_window(70).replace("timestamp_ns=9000000000", &format!("timestamp_ns={now_ns}"));
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", &records),
    ]);
    let out = Command::cargo_bin("trace-irqoff")
        .unwrap()
        .arg("--proc-root")
        .arg(root.path())
        .args(["records", "--json", "--limit", "1", "--sort", "newest"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let wall = humantime::parse_rfc3339(v[0]["wall_time"].as_str().unwrap()).unwrap();
    let skew = wall
        .duration_since(std::time::SystemTime::now())
        .unwrap_or_else(|e| e.duration());
    assert!(skew < std::time::Duration::from_secs(2), "{skew:?}");
}

/// Claim: `records` and `watch` say when a window ended as a UTC wall-clock time with its
/// seconds after boot; for the original module, which gives no time, the line shows none
/// and the JSON has no `wall_time`.
#[test]
fn times_people_read_are_wall_clock_times() {
    let root = ours();
    let text = stdout(
        root.path(),
        &["records", "--limit", "1", "--sort", "newest"],
    );
    assert!(text.starts_with("hardirq-off cpu 1    53 ms  my task (pid 58)  ended 2026-05-07T10:00:03.506551Z (3.506551 s after boot)\n"), "{text}");
    let text = stdout(root.path(), &["watch", "--count", "1"]);
    assert!(
        text.contains("  ended 2026-05-07T10:00:03.506551Z (3.506551 s after boot)\n"),
        "{text}"
    );
    // The original module gives no time: none is made up.
    let orig = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "trace_latency",
            include_str!("../fixtures/original-trace_latency.txt"),
        ),
        (
            "distribute",
            include_str!("../fixtures/original-distribute.txt"),
        ),
    ]);
    let text = stdout(orig.path(), &["records", "--limit", "1"]);
    assert_eq!(
        text.lines().next().unwrap(),
        "hardirq-off cpu 17   107 ms  bash (pid 22840)"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(orig.path(), &["records", "--json"])).unwrap();
    assert!(v[0].get("wall_time").is_none());
}

/// Claim: a finished 200 ms `record --threshold 60` file names the host, kernel release
/// and CLI version, the module's format and constants, the settings it recorded with, a
/// start time no earlier than 1 ms before the command was launched, and an end 200 ms to
/// 5 s after the start.
#[test]
fn a_record_file_says_when_where_and_with_what() {
    let root = disabled();
    let out = root.path().join("rec.json");
    let before = std::time::SystemTime::now();
    cli(root.path())
        .args([
            "record",
            "--duration",
            "200ms",
            "--threshold",
            "60",
            "-o",
            out.to_str().unwrap(),
        ])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    let uname = rustix::system::uname();
    assert_eq!(v["host"], uname.nodename().to_str().unwrap());
    assert_eq!(v["kernel"], uname.release().to_str().unwrap());
    assert_eq!(v["cli_version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(
        v["module"],
        serde_json::json!({"records_format": 1, "hz": 1000, "records_per_cpu": 16, "soft_period_ns": 10000000, "soft_event_ns": 22000000})
    );
    assert_eq!(
        v["settings"],
        serde_json::json!({"enabled": true, "period_ms": 10, "threshold_ms": 60})
    );
    let started = humantime::parse_rfc3339(v["start_time"].as_str().unwrap()).unwrap();
    let ended = humantime::parse_rfc3339(v["end_time"].as_str().unwrap()).unwrap();
    assert!(
        before.duration_since(started).unwrap_or_default() < std::time::Duration::from_millis(1)
    );
    let took = ended.duration_since(started).unwrap();
    assert!(
        took >= std::time::Duration::from_millis(200) && took < std::time::Duration::from_secs(5),
        "{took:?}"
    );
}

/// Claim: `record --folded` writes the profile stacks of the windows it saw as folded
/// lines headed by kind and task, each weighed by its sampled periods, so the weights add
/// up to the windows' periods (172 + 13 + 4 = 189).
#[test]
fn record_folded_weighs_profile_stacks() {
    let root = disabled();
    let out = root.path().join("r.json");
    let folded = root.path().join("r.folded");
    let rec = spawn_recording(
        root.path(),
        &out,
        &["--duration", "1500ms", "--folded", folded.to_str().unwrap()],
    );
    std::thread::sleep(std::time::Duration::from_millis(200));
    replace(root.path(), "records", RECORDS_WATCHER);
    let done = rec.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let text = fs::read_to_string(&folded).unwrap();
    let tail = "entry_SYSCALL_64_after_hwframe;do_syscall_64;ksys_write;vfs_write;<kernel::miscdevice::MiscdeviceVTable<irqoff_sample_main::SampleDevice>>::write_iter;<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter;irqoff_sample_hardirq_window";
    for line in [
        format!("hardirq-off;sh;{tail};ktime_get;read_hpet 120\n"),
        format!("hardirq-off;sh;{tail};delay_tsc 40\n"),
        format!("hardirq-off;irq_test;{tail};delay_tsc 8\n"),
        "hardirq-off;irq_test;[other stacks] 1\n".to_string(),
        "softirq-off;swapper/0;default_idle_call;default_idle 3\n".to_string(),
    ] {
        assert!(text.contains(&line), "{line} not in {text}");
    }
    // Each window weighs its sampled periods: 172 + 13 + 4.
    let total: u64 = text
        .lines()
        .map(|l| l.rsplit(' ').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 189, "{text}");
}

/// record --last reads the event ring of the running kernel only: on a copy of the files it
/// says there is none (exit 1, a sentence and a hint); it cannot be combined with the
/// options of a new recording (exit 2).
#[test]
fn record_last_needs_the_live_ring() {
    let root = ours_v2();
    let out_file = root.path().join("last.json");
    let out = cli(root.path())
        .args(["record", "--last", "10m", "-o"])
        .arg(&out_file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("there is no event ring to look back in")
            && err.contains("hint: the ring starts with trace-irqoff enable"),
        "{err}"
    );
    assert!(!out_file.exists());
    let out = cli(root.path())
        .args(["record", "--last", "10m", "--duration", "5s"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Claim: `record` counts the stalls the module counted over its span, apart from the
/// events: its file has a `stalls` list (empty without the event ring) and
/// `stalls_counted`, its summary says how often no CPU ran and that these are no irq-off
/// windows, and `top --from` the file footnotes them.
#[test]
fn record_counts_the_stalls_of_its_span() {
    let root = proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS_STALL),
    ]);
    let out = root.path().join("paused.json");
    let rec = spawn_recording(root.path(), &out, &["--duration", "1500ms"]);
    std::thread::sleep(std::time::Duration::from_millis(300));
    // Two more stalls while it records.
    replace(
        root.path(),
        "records",
        &RECORDS_STALL.replace(
            "stall count=5 over_threshold=3 sum_ns=935000000 ",
            "stall count=7 over_threshold=5 sum_ns=1535000000 ",
        ),
    );
    let done = rec.wait_with_output().unwrap();
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    let summary = String::from_utf8(done.stdout).unwrap();
    assert!(summary.contains("\nstalls: 2 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy); not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere\n"), "{summary}");
    assert!(
        summary.contains(": 0 hardirq-off and 0 softirq-off"),
        "{summary}"
    );
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["stalls"], serde_json::json!([]));
    assert_eq!(v["stalls_counted"], 2);
    let nowhere = root.path().join("no-proc");
    let top = cli(&nowhere)
        .args(["top", "--from"])
        .arg(&out)
        .output()
        .unwrap();
    let top = String::from_utf8(top.stdout).unwrap();
    assert!(top.contains("stalls: 2 times no CPU ran"), "{top}");
}
