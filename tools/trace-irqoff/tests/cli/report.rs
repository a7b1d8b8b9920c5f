// SPDX-License-Identifier: GPL-2.0
//! `report`: the HTML report from the module and from a record file.

use crate::util::*;

/// `report FILE -o PAGE` writes one self-contained HTML page of a `record` file (no module
/// needed): title, culprits table, timeline and flame graph are in it, nothing is loaded
/// from elsewhere, no script runs, and a task named `<script>...` is shown escaped.
#[test]
fn report_from_a_record_file_is_self_contained_and_escaped() {
    let dir = TempDir::new().unwrap();
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    v["records"][0]["comm"] = serde_json::json!("<script>alert(1)</script>");
    fs::write(&file, v.to_string()).unwrap();
    let (said, page) = report_of(&file);
    assert!(
        said.starts_with("wrote ") && said.contains("2 windows on 1 CPU;"),
        "{said}"
    );
    assert!(page.starts_with("<!DOCTYPE html>"));
    for marker in [
        "<title>trace-irqoff incident report: elsewhere</title>",
        "id=\"report-title\"",
        "id=\"culprits-table\"",
        "id=\"timeline-svg\"",
        "id=\"flamegraph-svg\"",
        "id=\"histograms\"",
        "id=\"windows\"",
        "7.3.0",
        "2026-05-07T10:00:00Z to 2026-05-07T10:00:06Z",
    ] {
        assert!(page.contains(marker), "{marker} missing");
    }
    let lower = page.to_lowercase();
    if let Some(i) = lower.find("<script") {
        panic!("a script in the page: {}", &page[i.saturating_sub(200)..]);
    }
    assert!(page.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    // No event handler attribute either (onload=, onclick=, ...).
    assert!(
        !page
            .split(|c: char| c.is_whitespace())
            .any(|w| w.starts_with("on") && w.contains("=\"")),
        "an event handler in the page"
    );
    assert_eq!(outside_references(&page), Vec::<String>::new());
    // Its windows on the timeline, with what hovering shows.
    assert_eq!(page.matches("<rect class=\"window\"").count(), 2);
    assert!(
        page.contains("<title>softirq-off (ksoftirqd-wait"),
        "{page}"
    );
}

/// `report` without FILE reads the module as `records` does; --json says what it wrote.
#[test]
fn report_from_the_module() {
    let root = ours_v2();
    let page_path = root.path().join("now.html");
    let out = stdout(
        root.path(),
        &["report", "--json", "-o", page_path.to_str().unwrap()],
    );
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["windows"], 5);
    assert_eq!(v["cpus"], 4);
    let page = fs::read_to_string(&page_path).unwrap();
    assert_eq!(v["bytes"], page.len());
    assert!(
        page.contains("id=\"flamegraph-svg\"") && page.contains("irqoff_sample_hardirq_window")
    );
    // An output the page cannot be written to: one sentence, exit status 2 or 1.
    let out = cli(root.path())
        .args(["report", "-o"])
        .arg(root.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is a directory"));
}

/// The page of a recording of 64 CPUs with 300 windows each (stacks 16 deep, in-window
/// profiles of 4 stacks, a culprit of its own for every 10 windows) stays under 3 MB, the
/// bound Documentation/trace-irqoff-cli.rst gives: the timeline draws 50 windows per
/// CPU and says how many it left out.
#[test]
fn report_of_64_cpus_is_bounded() {
    let dir = TempDir::new().unwrap();
    let mut records = Vec::new();
    for cpu in 0..64u64 {
        for i in 0..300u64 {
            let culprit = format!("culprit_{}_{}+0x1f/0x80 [mod_{cpu}]", cpu, i / 10);
            let stack: Vec<String> = std::iter::once(culprit.clone())
                .chain((0..15).map(|d| format!("frame_{d}+0x10/0x40")))
                .collect();
            let profile: Vec<serde_json::Value> = (0..4)
                .map(|p| serde_json::json!({"count": 4 - p, "frames": stack.iter().skip(p).cloned().collect::<Vec<_>>()}))
                .collect();
            records.push(serde_json::json!({
                "cpu": cpu, "kind": if i % 2 == 0 { "hard" } else { "soft" },
                "cause": if i % 2 == 0 { serde_json::Value::Null } else { serde_json::json!("bh-off") },
                "lower_bound": false, "latency_ns": 50_000_000 + i * 1_000_000 + cpu,
                "timestamp_ns": 1_000_000_000 + i * 100_000_000, "pid": 100 + i, "comm": format!("task-{i}"),
                "stack": stack, "window_pid": 100 + i, "window_comm": format!("task-{i}"), "window_stack": stack,
                "profile": {"samples": 10, "weight": 12, "distinct": 6, "other": 0, "stacks": profile},
            }));
        }
    }
    let cpus: Vec<serde_json::Value> = (0..64)
        .map(|c| serde_json::json!({"cpu": c, "online": true, "hard_events": 150, "soft_events": 150, "dropped": 0, "replaced": 0,
            "soft_bh_off_events": 150, "hard_hist": [0, 0, 0, 0, 0, 50, 100], "soft_hist": [0, 0, 0, 0, 0, 50, 100],
            "soft_bh_off_hist": [0, 0, 0, 0, 0, 50, 100], "soft_ksoftirqd_wait_hist": []}))
        .collect();
    let v = serde_json::json!({
        "host": "big", "kernel": "7.3.0", "module": {"records_format": 2, "hz": 1000, "records_per_cpu": 16, "soft_event_ns": 22000000},
        "start_time": "2026-05-07T10:00:00Z", "end_time": "2026-05-07T10:00:32Z", "end_ns": 32_000_000_000u64,
        "realtime_offset_ns": 1_778_148_000_000_000_000u64,
        "settings": {"enabled": true, "period_ms": 10, "threshold_ms": 50},
        "cpus": cpus, "records": records,
    });
    let file = dir.path().join("big.json");
    fs::write(&file, v.to_string()).unwrap();
    let (_, page) = report_of(&file);
    assert!(page.len() < 3_000_000, "{} bytes", page.len());
    assert_eq!(page.matches("<rect class=\"window\"").count(), 64 * 50);
    assert!(page.contains(&format!("{} shorter windows are left out", 64 * 250)));
    assert!(page.contains("id=\"flamegraph-svg\""));
    eprintln!("64-CPU report: {} bytes", page.len());
}

/// Claim: `report` of the running module draws the event ring's windows the store did not
/// keep as stored ones are drawn: counted among its windows, and in the flame graph under
/// their demangled names (no frame of their own named by a mangled symbol).
#[test]
fn report_folds_ring_windows_like_stored_ones() {
    let root = store_full(1, 1);
    let ring = ring_root(RING);
    let page_path = root.path().join("now.html");
    let v = json_of(
        cli_ring(root.path(), ring.path())
            .args(["report", "--json", "-o"])
            .arg(&page_path),
    );
    // The store's 5, and the ring's 2 it did not keep.
    assert_eq!(v["windows"], 7);
    let page = fs::read_to_string(&page_path).unwrap();
    assert!(
        page.contains("irqoff_sample_main::spin_window"),
        "no ring window"
    );
    assert!(!page.contains("_RNv"), "a mangled frame in the page");
}
