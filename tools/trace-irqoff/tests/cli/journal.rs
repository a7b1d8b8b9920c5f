// SPDX-License-Identifier: GPL-2.0
//! `journal`: every new window of the event ring as one entry, rate-limited; shown with
//! `--print` (the entries on stdout), since the journal's socket is journald's own.

use std::io::{BufRead, Write};
use std::process::Output;

use crate::util::*;

/// Runs `trace-irqoff ARGS...` (a `journal --print`) on the v1 fixture and the ring
/// fixture, appends `lines` to the ring once it has started (its cursor then after what
/// the ring held), and returns its first line on stderr (what it said at its start) and
/// what it printed.
fn follow(args: &[&str], lines: &[String]) -> (String, Output) {
    let root = ours();
    let ring = ring_root(RING);
    let mut j = background(root.path(), args)
        .env("TRACE_IRQOFF_TRACEFS", ring.path())
        .spawn()
        .unwrap();
    let mut note = String::new();
    std::io::BufReader::new(j.stderr.as_mut().unwrap())
        .read_line(&mut note)
        .unwrap();
    let mut f = fs::OpenOptions::new()
        .append(true)
        .open(ring.path().join("instances/trace_irqoff/trace"))
        .unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
    let out = j.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (note, out)
}

/// A hardirq-off window of CPU `cpu`, numbered `seq`, `ms` long, ending at `end_ns`.
fn hard(cpu: u32, seq: u64, ms: f64, end_ns: u64) -> String {
    let ns = (ms * 1e6) as u64;
    format!("              sh-2168    [00{cpu}] d.h1.     9.000000: hardirq_off: cpu={cpu} latency_ns={ns} lower_bound=0 pid=2168 comm=sh cause=- end_ns={end_ns} seq={seq} end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample];vfs_write+0x1d7/0x210;0x0")
}

/// Claim: `journal --print --json` writes one JSON object per window that ended after it
/// started (the windows the ring held before are not written again), with the message a
/// person reads, the fields a machine reads, and the priority of its length: warning from
/// 100 ms, notice from the module's threshold (50 ms), info below; it ends cleanly.
#[test]
fn each_new_window_is_one_entry_with_its_fields() {
    let (note, out) = follow(
        &[
            "--json",
            "journal",
            "--print",
            "--interval=50ms",
            "--reads=16",
        ],
        &[
            hard(1, 11, 101.2345, 9_000_000_000),
            hard(1, 12, 60.0, 9_100_000_000),
            hard(0, 1, 25.0, 9_200_000_000),
        ],
    );
    assert_eq!(
        note,
        "note: writing every window to stdout (rate limit: burst 100, 10/s)\n"
    );
    let e: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(
        e[0]["MESSAGE"],
        "cpu 1: hardirq off 101.2 ms by sh[2168] in irqoff_sample_hardirq_window [irqoff_sample]"
    );
    for (k, v) in [
        ("PRIORITY", "4"),
        ("SYSLOG_IDENTIFIER", "trace-irqoff"),
        ("TRACE_IRQOFF_CPU", "1"),
        ("TRACE_IRQOFF_KIND", "hard"),
        ("TRACE_IRQOFF_LATENCY_NS", "101234500"),
        ("TRACE_IRQOFF_END", "2026-05-07T10:00:09.000000Z"),
        (
            "TRACE_IRQOFF_CULPRIT",
            "irqoff_sample_hardirq_window [irqoff_sample]",
        ),
        ("TRACE_IRQOFF_TASK", "sh"),
        ("TRACE_IRQOFF_PID", "2168"),
        (
            "TRACE_IRQOFF_STACK",
            "irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]\nvfs_write+0x1d7/0x210",
        ),
    ] {
        assert_eq!(e[0][k], v, "{k}");
    }
    assert_eq!(
        e.iter()
            .map(|e| e["PRIORITY"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["4", "5", "6"]
    );
    assert!(e[0].get("TRACE_IRQOFF_CAUSE").is_none());
}

/// Claim: a storm of 500 windows in half a millisecond writes the burst (5, the rate of
/// 1 a second adding nothing in that time) and one summary entry that counts the 495
/// dropped, with the longest of them; `--min` leaves shorter windows out, not counted as
/// dropped; without --json each entry is one line, its priority first.
#[test]
fn a_storm_writes_the_burst_and_one_summary() {
    let mut storm: Vec<String> = (0..500u64)
        .map(|i| {
            let ms = if i == 300 { 40.0 } else { 22.0 };
            hard(2, i + 1, ms, 20_000_000_000 + i * 1_000)
        })
        .collect();
    // Under --min: neither written nor dropped.
    storm.push(hard(3, 1, 20.0, 20_000_600_000));
    let (note, out) = follow(
        &[
            "journal",
            "--print",
            "--interval=50ms",
            "--reads=16",
            "--burst=5",
            "--rate=1",
            "--summary-interval=1ms",
            "--min=21",
        ],
        &storm,
    );
    assert_eq!(
        note,
        "note: writing every window of 21.0 ms or more to stdout (rate limit: burst 5, 1/s)\n"
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert!(lines[..5]
        .iter()
        .all(|l| l.starts_with("info    cpu 2: hardirq off 22.0 ms by sh[2168]")));
    assert_eq!(
        lines[5],
        "notice  dropped 495 windows in 1s by the rate limit (burst 5, 1/s); the longest was 40.0 ms on cpu 2 (hardirq off)"
    );
}

/// Claim: `journal` on a copy of the module's files (another proc root, no ring given)
/// is refused in one sentence with a hint, exit status 2, before writing anything.
#[test]
fn journal_needs_the_running_kernels_ring() {
    cli(ours().path())
        .args(["journal", "--print"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::starts_with(
            "trace-irqoff: journal reads the running kernel's event ring",
        ))
        .stderr(predicate::str::contains(
            "\nhint: run it without --proc-root\n",
        ));
}

/// Claim: a rate of 0 is refused as a command-line error in the one error style.
#[test]
fn a_rate_of_zero_is_refused() {
    cli(ours().path())
        .args(["journal", "--rate", "0"])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "trace-irqoff: invalid value '0' for '--rate <N>'",
        ))
        .stderr(predicate::str::contains("\nhint: "));
}
