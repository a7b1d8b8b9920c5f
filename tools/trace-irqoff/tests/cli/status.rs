// SPDX-License-Identifier: GPL-2.0
//! `status`: the module's state at a glance.

use crate::util::*;

/// Claim: `status` prints the module's state, period and threshold on one line, and a
/// per-CPU table in which CPU 1 is online with a nonzero hardirq-off count.
#[test]
fn status_shows_state_and_per_cpu_counts() {
    let root = ours();
    cli(root.path())
        .arg("status")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "trace_irqoff: enabled, period 10 ms, threshold 50 ms",
        ))
        .stdout(predicate::str::is_match(r"(?m)^ +1  yes +[1-9]").unwrap());
}

/// Claim: `status --json` gives loaded, enabled, period and threshold, and for each CPU
/// its online state, event, drop and replace counts and both histograms, under those key
/// names.
#[test]
fn status_json_is_stable() {
    let root = ours();
    let out = cli(root.path())
        .args(["status", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["loaded"], true);
    assert_eq!(v["enabled"], true);
    assert_eq!(v["period_ms"], 10);
    assert_eq!(v["threshold_ms"], 50);
    assert!(v["cpus"].as_array().unwrap().len() >= 2);
    for key in [
        "cpu",
        "online",
        "hard_events",
        "soft_events",
        "dropped",
        "replaced",
        "hard_hist",
        "soft_hist",
    ] {
        assert!(v["cpus"][0].get(key).is_some(), "{key}");
    }
}

/// Claim: for v2 records, `status` and `hist` (text, per CPU and JSON) split softirq-off
/// windows into bh-off and ksoftirqd-wait with their own counts and histograms, while for
/// v1 records `status` has no such columns and empty split histograms in its JSON, and
/// `hist --json` has no split.
#[test]
fn v2_status_and_hist_split_softirqs_by_cause() {
    let root = ours_v2();
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\n CPU  online   hardirq-off  softirq-off   bh-off ksoftirqd-wait  dropped  replaced  idle gaps  steal gaps\n"), "{text}");
    assert!(text.contains("\n   2  yes                0            4        2              2        0         0          0           0\n"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["status", "--json"])).unwrap();
    let c2 = &v["cpus"][2];
    assert_eq!(
        (
            &c2["soft_events"],
            &c2["soft_bh_off_events"],
            &c2["soft_ksoftirqd_wait_events"]
        ),
        (&4.into(), &2.into(), &2.into())
    );
    assert_eq!(c2["soft_ksoftirqd_wait_hist"][5], 1);
    assert_eq!(c2["soft_bh_off_hist"][4], 2);
    // v1 cannot tell the causes apart: no such columns, empty split histograms.
    let root1 = ours();
    let text = stdout(root1.path(), &["status"]);
    assert!(!text.contains("bh-off"), "{text}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root1.path(), &["status", "--json"])).unwrap();
    assert_eq!(v["cpus"][1]["soft_bh_off_hist"], serde_json::json!([]));

    let text = stdout(root.path(), &["hist", "--kind", "soft"]);
    assert!(text.starts_with("softirq-off:\n"), "{text}");
    assert!(text.contains("softirq-off (bh-off):\n         msecs           : count     distribution\n        16 -> 31         : 2 "), "{text}");
    assert!(text.contains("softirq-off (ksoftirqd-wait):\n         msecs           : count     distribution\n        32 -> 63         : 1 "), "{text}");
    assert!(!text.contains("hardirq-off"), "{text}");
    let text = stdout(root.path(), &["hist", "--per-cpu", "--kind", "soft"]);
    assert!(
        text.contains("softirq-off (ksoftirqd-wait) cpu 2:\n"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["hist", "--json", "--per-cpu"])).unwrap();
    assert_eq!(v["soft_bh_off"][4], 2);
    assert_eq!(v["soft_ksoftirqd_wait"][6], 1);
    assert_eq!(v["per_cpu"][2]["soft_ksoftirqd_wait"][5], 1);
    // v1: the JSON stays as it was (hist_json_snapshot), without the split.
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root1.path(), &["hist", "--json"])).unwrap();
    assert!(v.get("soft_bh_off").is_none());
}

/// Claim: `status` reports the watcher's state and NMI counts, and a window still open
/// with its length so far, task, culprit, in-window samples and watching CPU, in text and
/// JSON; without a watcher line (the v2 fixture) it shows no watcher but still the open
/// softirq window.
#[test]
fn status_shows_the_watcher_and_windows_still_open() {
    let root = with_records(RECORDS_WATCHER);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\nwatcher: on: stacks of hardirq-off windows still open, by NMI from another CPU (132 NMIs sent, 132 answered, 0 late, 0 missed)\n"), "{text}");
    assert!(
        text.contains("\nCPU 1: hard interrupts off for 1.79 s and counting \u{2014} sh (pid 63) in irqoff_sample_hardirq_window (107 in-window samples, watched by CPU 0)\n"),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["status", "--json"])).unwrap();
    assert_eq!(v["watcher"]["available"], true);
    assert_eq!(v["watcher"]["reason"], serde_json::Value::Null);
    assert_eq!(v["watcher"]["nmi_sent"], 132);
    let o = &v["ongoing"][0];
    assert_eq!(
        (
            &o["cpu"],
            &o["kind"],
            &o["latency_ns"],
            &o["pid"],
            &o["comm"]
        ),
        (
            &1.into(),
            &"hard".into(),
            &1_788_332_180u64.into(),
            &63.into(),
            &"sh".into()
        )
    );
    assert_eq!(
        (&o["samples"], &o["watcher_cpu"], &o["culprit"]),
        (
            &107.into(),
            &0.into(),
            &"irqoff_sample_hardirq_window".into()
        )
    );
    assert_eq!(o["stack"][0], "read_hpet+0x36/0xe0");
    assert_eq!(v["ongoing"].as_array().unwrap().len(), 1);

    // The v2 fixture has an open softirq window and no watcher line.
    let text = stdout(ours_v2().path(), &["status"]);
    assert!(!text.contains("watcher:"), "{text}");
    assert!(text.contains("\nCPU 3: softirqs held off for 57 ms and counting \u{2014} kworker/3:1 (pid 140) in irqoff_sample_bh_work\n"), "{text}");
}

/// Claim: on an 80-column terminal every line of `status` fits: the per-CPU table in short
/// headers with the same numbers, sentences wrapped at spaces and continued two columns
/// in, nothing lost.
#[test]
fn status_on_80_columns_fits() {
    let root = with_records(RECORDS_WATCHER);
    let (code, text) = on_a_terminal_sized(root.path(), &["--color", "never", "status"], (24, 80));
    assert_eq!(code, Some(0), "{text}");
    let text = text.replace("\r\n", "\n");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(
        text.contains(
            "\nCPU ON   HARDIRQ  SOFTIRQ  BH-OFF  KSOFTIRQD  DROPPED  REPLACED  IDLE  STEAL\n"
        ),
        "{text}"
    );
    // Same words as on a pipe, in the same order, the table aside.
    let words = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("HARDIRQ") && !l.contains("hardirq-off  softirq-off"))
            .flat_map(|l| l.split_whitespace())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(words(&text), words(&stdout(root.path(), &["status"])));
    assert!(text.contains("\nCPU 1: hard interrupts off for 1.79 s and counting \u{2014} sh (pid 63) in\n  irqoff_sample_hardirq_window"), "{text}");
}

/// Claim: when the watcher is unavailable, `status` says why in plain words for each
/// reason (arch, off, nmi-timeout, register-failed), and an open window with no sample
/// shows only its length, with a null culprit and watching CPU in the JSON.
#[test]
fn status_says_why_the_watcher_is_unavailable() {
    // Not x86_64: open windows keep their length, without task or stack.
    let records = RECORDS_WATCHER
        .replace(
            "available=1 active=1 reason=- ",
            "available=0 active=0 reason=arch ",
        )
        .replace(
            "pid=63 comm=sh samples=107 watcher_cpu=0",
            "pid=0 comm= samples=0 watcher_cpu=-1",
        );
    let records = {
        // Its lower-bound record has no window stack and no profile then.
        let start = records
            .find("record cpu=1 kind=hard lower_bound=1")
            .unwrap();
        let head = &records[..start];
        format!("{head}record cpu=1 kind=hard lower_bound=1 latency_ns=1788373390 timestamp_ns=11037579675 pid=0 comm= cause=- runnable_ns=0 samples=0 bh_off_samples=0 idle_samples=0 jiffies=0 overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm= frames=0 window_frames=0 window_pid=0 window_comm= ongoing=1\nend\n")
    };
    let root = with_records(&records);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\nwatcher: not available on this architecture: the kernel lets modules send an NMI to one CPU on x86_64 only (arm64's pseudo-NMIs serve the kernel's own backtrace and KGDB IPIs) (arch); hardirq-off windows still open show their length only\n"), "{text}");
    assert!(
        text.contains(
            "\nCPU 1: hard interrupts off for 1.79 s and counting (no in-window sample yet)\n"
        ),
        "{text}"
    );
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["status", "--json"])).unwrap();
    assert_eq!(
        (&v["watcher"]["available"], &v["watcher"]["reason"]),
        (&false.into(), &"arch".into())
    );
    assert_eq!(
        (&v["ongoing"][0]["culprit"], &v["ongoing"][0]["watcher_cpu"]),
        (&serde_json::Value::Null, &serde_json::Value::Null)
    );
    for (reason, sentence) in [
        ("off", "watcher: off (module parameter watch=0)"),
        ("nmi-timeout", "watcher: stopped: NMIs sent were not answered (nmi-timeout; until the module is reloaded)"),
        ("register-failed", "watcher: not available: its NMI handler could not be registered (register-failed)"),
    ] {
        let root = with_records(&RECORDS_WATCHER.replace("available=1 active=1 reason=- ", &format!("available=0 active=0 reason={reason} ")));
        let text = stdout(root.path(), &["status"]);
        assert!(text.contains(&format!("\n{sentence}; ")), "{text}");
    }
}

/// Claim: `status` shows stalls as their own kind: a "stall gaps" column beside the steal
/// gaps, and a plain sentence (how often no CPU ran, the longest, the total, when the
/// latest ended) that says they are not irq-off windows; the window counts are those of
/// the same file without stalls. A module without them shows neither, and its JSON has
/// `"stalls": null`; with them the JSON has the counts.
#[test]
fn status_shows_stalls_apart_from_windows() {
    let root = with_records(RECORDS_STALL);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\n CPU  online   hardirq-off  softirq-off   bh-off ksoftirqd-wait  dropped  replaced  idle gaps  steal gaps  stall gaps\n   0  yes                0            1        0              1        0         0          0           1          10\n   1  yes                1            0        0              0        0         0          0           0           9\n"), "{text}");
    assert!(text.contains("\nstalls: 5 times no CPU ran (every CPU late together: a paused VM, stop_machine or a lock convoy), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows where a CPU came back asleep or in user space, kept in its window elsewhere\n"), "{text}");
    let old = stdout(with_records(RECORDS_WATCHER).path(), &["status"]);
    assert!(!old.contains("stall"), "{old}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["status", "--json"])).unwrap();
    assert_eq!(
        (
            &v["stalls"]["count"],
            &v["stalls"]["over_threshold"],
            &v["stalls"]["sum_ns"],
            &v["stalls"]["longest_ns"]
        ),
        (
            &5.into(),
            &3.into(),
            &935_000_000u64.into(),
            &302_000_000u64.into()
        )
    );
    assert_eq!(
        (
            &v["stalls"]["latest_start_ns"],
            &v["stalls"]["latest_end_ns"]
        ),
        (&8_933_000_000u64.into(), &9_235_000_000u64.into())
    );
    assert_eq!(v["cpus"][0]["stall_gaps"], 10);
    assert_eq!(v["cpus"][0]["hard_events"], 0);
    let old: serde_json::Value = serde_json::from_str(&stdout(
        with_records(RECORDS_WATCHER).path(),
        &["status", "--json"],
    ))
    .unwrap();
    assert_eq!(old["stalls"], serde_json::Value::Null);
    assert_eq!(old["cpus"][0]["stall_gaps"], 0);
}

/// Claim: with the stall column, `status` on an 80-column terminal still fits: the short
/// table (79 columns) has a STALL column with the same numbers, and the stall sentence
/// wraps with nothing lost.
#[test]
fn status_with_stalls_on_80_columns_fits() {
    let root = with_records(RECORDS_STALL);
    let (code, text) = on_a_terminal_sized(root.path(), &["--color", "never", "status"], (24, 80));
    assert_eq!(code, Some(0), "{text}");
    let text = text.replace("\r\n", "\n");
    assert!(text.lines().all(|l| l.chars().count() <= 80), "{text}");
    assert!(
        text.contains("\nCPU ON  HARDIRQ SOFTIRQ  BH-OFF  KSOFTIRQD DROPPED REPLACED  IDLE  STEAL  STALL\n  0 yes       0       1       0          1       0        0     0      1     10\n  1 yes       1       0       0          0       0        0     0      0      9\n"),
        "{text}"
    );
    let words = |t: &str| {
        t.lines()
            .filter(|l| !l.contains("HARDIRQ") && !l.contains("hardirq-off  softirq-off"))
            .flat_map(|l| l.split_whitespace())
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(words(&text), words(&stdout(root.path(), &["status"])));
    assert!(text.contains("\nstalls: 5 times no CPU ran"), "{text}");
}

/// Claim: on bare metal (the stall line's `hypervisor=0`) `status` says the silences were
/// kept in the windows, not that they were stalls; and a CPU that came online without its
/// samplers (the config line's `unsampled`) is named on the `CPUs sampled` line.
#[test]
fn status_on_bare_metal_and_an_unsampled_cpu() {
    let records = RECORDS_STALL
        .replace(
            "latest_end_ns=9235000000",
            "latest_end_ns=9235000000 hypervisor=0",
        )
        .replace("cpus=0-1 nohz_full=-", "cpus=0-1 nohz_full=- unsampled=1");
    assert!(records.contains("hypervisor=0") && records.contains("unsampled=1"));
    let root = with_records(&records);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\nsilences: 5 times no CPU ran (every CPU late together: stop_machine or a lock convoy), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; bare metal, no host can pause it: kept in the windows\n"), "{text}");
    assert!(!text.contains("\nstalls:"), "{text}");
    assert!(
        text.contains("\nCPUs sampled: 0-1; not sampled, set-up failed when it came online: 1\n"),
        "{text}"
    );
}
