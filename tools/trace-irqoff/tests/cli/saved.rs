// SPDX-License-Identifier: GPL-2.0
//! `--from`: a recording read back, as the machine that made it saw it.

use crate::util::*;

/// A records file that carries its clock anchor (`realtime_offset_ns`) shows the wall times
/// of the machine that read it, whatever the machine reading the copy: the anchor wins
/// over this machine's boot time.
#[test]
fn a_saved_file_shows_the_wall_times_of_its_own_machine() {
    // One hour after the boot time the tests pretend for this machine.
    let anchored = RECORDS_V2.replacen(
        " buckets=24",
        " buckets=24 realtime_offset_ns=1778151600000000000",
        1,
    );
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("records", &anchored),
    ]);
    let text = stdout(
        root.path(),
        &["records", "--cpu", "2", "--limit", "1", "--stacks"],
    );
    assert!(
        text.contains("ended 2026-05-07T11:00:05.120000Z (5.120000 s after boot)"),
        "{text}"
    );
    // Without the anchor (an older module) and without a pretended boot time, a copy read
    // under --proc-root says that its wall times are this machine's guess.
    let root = ours_v2();
    let out = Command::cargo_bin("trace-irqoff")
        .unwrap()
        .arg("--proc-root")
        .arg(root.path())
        .args(["records", "--oneline"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        err.matches("note: these records carry no clock anchor")
            .count(),
        1,
        "{err}"
    );
}

/// `records`, `top` and `hist` read a `record` file back with --from, with no module
/// loaded, showing what the module showed, at the wall times of the machine it came from;
/// `--since` counts back from the recording's end.
#[test]
fn record_files_read_back_with_from() {
    let dir = TempDir::new().unwrap();
    let nowhere = dir.path().join("no-proc");
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let from = |args: &[&str]| {
        let out = cli(&nowhere)
            .args(args)
            .arg("--from")
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = from(&["records", "--stacks"]);
    assert!(text.starts_with("softirq-off (ksoftirqd-wait, thread runnable 48 ms) cpu 2    64 ms  my hog (pid 131) ran, ksoftirqd/2 (pid 24) waited  ended 2026-05-07T11:00:05.120000Z (5.120000 s after boot)\n"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| l.starts_with("softirq-off"))
            .count(),
        2,
        "{text}"
    );
    // The same culprits as `top` on the module the records came from.
    let live = stdout(ours_v2().path(), &["top"]);
    let saved = from(&["top"]);
    let culprits = |t: &str| {
        t.lines()
            .filter(|l| l.contains("ksoftirqd") || l.contains("call_timer_fn"))
            .count()
    };
    assert!(
        culprits(&saved) >= 1 && culprits(&saved) <= culprits(&live),
        "saved:\n{saved}\nlive:\n{live}"
    );
    let hist = from(&["hist", "--per-cpu"]);
    assert!(hist.contains("cpu 2"), "{hist}");
    assert!(
        hist.lines()
            .any(|l| l.trim_start().starts_with("32 -> 63") && l.contains(": 2")),
        "{hist}"
    );
    // Ended at 6 s: the last half second holds only the 5.9 s window (not the 5.12 s one).
    let recent: Vec<serde_json::Value> =
        serde_json::from_str(&from(&["records", "--json", "--since", "500ms"])).unwrap();
    assert_eq!(recent.len(), 1, "{recent:?}");
    assert_eq!(recent[0]["timestamp_ns"], 5_900_000_000u64);
    assert_eq!(recent[0]["wall_time"], "2026-05-07T11:00:05.900000Z");
    // A file of trace-irqoff 0.1 has no anchor: its records' wall times give it back.
    let old = saved_recording(dir.path(), None);
    let out = cli(&nowhere)
        .args(["records", "--json", "--from"])
        .arg(&old)
        .output()
        .unwrap();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v[0]["wall_time"], "2026-05-07T10:00:05.120000Z");
}

/// --from refuses what is not a record file in one sentence with a hint (exit 2), and
/// cannot be combined with `top --live`.
#[test]
fn from_refuses_other_files() {
    let dir = TempDir::new().unwrap();
    let bad = dir.path().join("records.txt");
    fs::write(&bad, RECORDS_V2).unwrap();
    let out = cli(dir.path())
        .args(["records", "--from"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("is not a trace-irqoff record file")
            && err.contains("trace-irqoff record -o FILE"),
        "{err}"
    );
    let out = cli(dir.path())
        .args(["records", "--from"])
        .arg(dir.path().join("missing.json"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read"));
    let out = cli(dir.path())
        .args(["top", "--live", "--from"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// Claim: a `record` file's stalls read back with `--from`: those of its list give the
/// footnote of `top` with their lengths and, at the file's own clock, when the latest
/// ended; files before stalls (no `stalls` key) still read,
/// without a footnote.
#[test]
fn record_files_with_stalls_read_back() {
    let dir = TempDir::new().unwrap();
    let nowhere = dir.path().join("no-proc");
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let plain = cli(&nowhere)
        .args(["top", "--from"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(plain.status.success());
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(!plain.contains("stall"), "{plain}");
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    v["stalls"] = serde_json::json!([
        {"cpu": 1, "start_ns": 3_000_000_000u64, "end_ns": 3_302_000_000u64, "length_ns": 302_000_000u64},
        {"cpu": 0, "start_ns": 4_000_000_000u64, "end_ns": 4_020_000_000u64, "length_ns": 20_000_000u64}
    ]);
    fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let out = cli(&nowhere)
        .args(["top", "--from"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.ends_with("\nstalls: 2 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 322 ms in all, the latest ended 2026-05-07T11:00:04.020000Z; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere\n"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("stalls:"))
            .collect::<Vec<_>>(),
        plain.lines().collect::<Vec<_>>()
    );
}

/// Claim: a recording written before ring windows were demangled (a frame as the kernel
/// printed it) reads back with `--from` named as the module's records are; with
/// `--raw-symbols` as it was written.
#[test]
fn old_recordings_read_back_demangled() {
    let dir = TempDir::new().unwrap();
    let nowhere = dir.path().join("no-proc");
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    v["records"][0]["stack"][0] = serde_json::json!(
        "_RNvCsfhKZwEwFlVQ_18irqoff_sample_main11spin_window+0x41/0x90 [irqoff_sample]"
    );
    fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
    let shown = json_of(
        cli(&nowhere)
            .args(["records", "--json", "--from"])
            .arg(&file),
    );
    let frames: Vec<String> = shown
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["stack"].as_array().unwrap().clone())
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(
        frames.contains(&"irqoff_sample_main::spin_window+0x41/0x90 [irqoff_sample]".into()),
        "{frames:?}"
    );
    assert!(frames.iter().all(|f| !f.starts_with("_R")), "{frames:?}");
    let raw = cli(&nowhere)
        .args(["--raw-symbols", "records", "--json", "--from"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&raw.stdout)
        .contains("_RNvCsfhKZwEwFlVQ_18irqoff_sample_main11spin_window"));
}
