// SPDX-License-Identifier: GPL-2.0
//! The commands that change the module (`enable`, `disable`, `set`, `clear`), `hist`, `tagwait`, the original module, and errors.

use crate::util::*;

/// Claim: with no module files under the proc root, `status` exits 2 saying the
/// trace_irqoff module is not loaded, with the hint to load it first.
#[test]
fn missing_module_is_one_sentence_and_exit_2() {
    let dir = TempDir::new().unwrap();
    cli(dir.path()).arg("status").assert().code(2).stderr(
        predicate::str::contains("the trace_irqoff module is not loaded")
            .and(predicate::str::contains("hint: load it first")),
    );
}

/// Claim: `hist` prints the hardirq-off histogram in the module's layout (its "msecs :
/// count distribution" header, a 64 -> 127 row with its bar), and `hist --json --per-cpu`
/// gives the 24 hardirq-off buckets, their ms bounds and a row per CPU.
#[test]
fn hist_matches_the_module_layout() {
    let root = ours();
    cli(root.path())
        .arg("hist")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "hardirq-off:\n         msecs           : count     distribution\n",
        ))
        .stdout(predicate::str::is_match(r"64 -> 127 +: [0-9]+ +\|\*+ *\|").unwrap());
    let out = cli(root.path())
        .args(["hist", "--json", "--per-cpu"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["bucket_ms"][6], serde_json::json!([64, 127]));
    assert_eq!(v["hard"].as_array().unwrap().len(), 24);
    assert!(v["per_cpu"].as_array().unwrap().len() >= 2);
}

/// Claim: `enable --threshold 80`, `set threshold`, `disable`, `set period --json` and
/// `clear` each write the module's file and answer with the settings now in force (in
/// words or as JSON); `clear` writes 0 to trace_latency.
#[test]
fn enable_disable_set_clear_write_the_files() {
    let root = proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS),
    ]);
    cli(root.path())
        .args(["enable", "--threshold", "80"])
        .assert()
        .success()
        .stdout("trace_irqoff: enabled, period 10 ms, threshold 80 ms\n");
    assert_eq!(read(root.path(), "enable"), "1\n");
    assert_eq!(read(root.path(), "trace_latency"), "80\n");
    cli(root.path())
        .args(["set", "threshold", "90"])
        .assert()
        .success()
        .stdout("trace_irqoff: enabled, period 10 ms, threshold 90 ms\n");
    cli(root.path())
        .arg("disable")
        .assert()
        .success()
        .stdout("trace_irqoff: disabled (records stay readable), period 10 ms, threshold 90 ms\n");
    assert_eq!(read(root.path(), "enable"), "0\n");
    let v: serde_json::Value = serde_json::from_slice(
        &cli(root.path())
            .args(["set", "period", "20", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(
        v,
        serde_json::json!({"enabled": false, "period_ms": 20, "threshold_ms": 90})
    );
    cli(root.path())
        .arg("clear")
        .assert()
        .success()
        .stdout("trace_irqoff: records, histograms and drop counters cleared\n");
    assert_eq!(read(root.path(), "trace_latency"), "0\n");
}

/// Claim: `set period 0` and `set threshold 15ms` (below twice the 10 ms period) are
/// refused with the valid range, leaving the module's files unchanged, and a period that
/// is not a duration ("ten") is a usage error, exit 2.
#[test]
fn validation_happens_before_writing() {
    let root = ours();
    cli(root.path())
        .args(["set", "period", "0"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "the sampling period must be 1..1000 ms, not 0 ms",
        ));
    cli(root.path())
        .args(["set", "threshold", "15ms"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "at least twice the period (20 ms)",
        ));
    assert_eq!(
        read(root.path(), "trace_latency"),
        "trace_irqoff_latency: 50ms\n\n hardirq:\n\n softirq:\n"
    );
    cli(root.path())
        .args(["set", "period", "ten"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is not a duration"));
}

/// Claim: given the module's tag-wait lines, `tagwait` shows the tracking state,
/// per-queue counts and the wait histogram in µs, `metrics` exports the counts, the
/// unattributed waits and a seconds histogram with the module's exact sum, `--json` names
/// the pools, and `tagwait on` writes 1 to tag_wait.
#[test]
fn tagwait_counters_and_metrics() {
    let records = RECORDS.replace(
        "\nend\n",
        "\ntagwait enabled=1 source=kprobe overflow=0 unattributed=1 missed=0\ntagwait_count major=252 minor=0 hctx=0 sched=0 reserved=0 waits=1284\ntagwait_count major=252 minor=0 hctx=0 sched=1 reserved=0 waits=7\ntagwait_sum_us 21000\ntagwait_hist_us 0 0 0 0 0 0 0 0 0 5 9 1 0 0 0 0 0 0 0 0 0 0 0 0\nend\n",
    );
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", &records),
        ("tag_wait", ""),
    ]);
    cli(root.path())
        .arg("tagwait")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "tag-wait tracking: enabled (source: kprobe)",
        ))
        .stdout(predicate::str::is_match(r"(?m)^ +252,0 +0  hardware +1284$").unwrap())
        .stdout(predicate::str::contains("usecs"))
        .stdout(predicate::str::contains("512 -> 1023"));
    let m = scrape(&stdout(root.path(), &["metrics"]));
    assert_eq!(
        value(
            &m,
            "trace_irqoff_tag_waits_total",
            &[("dev", "252:0"), ("pool", "hardware")]
        ),
        1284.0
    );
    assert_eq!(
        value(
            &m,
            "trace_irqoff_tag_waits_unattributed_total",
            &[("reason", "queue_unknown")]
        ),
        1.0
    );
    let h = histogram(&m, "trace_irqoff_tag_wait_duration_seconds", &[]);
    // 5 waits in [512, 1024) µs, 9 in [1024, 2048), 1 in [2048, 4096).
    assert_eq!(bucket(&h, 0.001024), 5);
    assert_eq!(bucket(&h, 0.002048), 14);
    assert_eq!(h.count, Some(15));
    // The module's exact sum, not bucket midpoints.
    assert!(
        (h.sum.as_ref().map_or(0.0, |s| s.as_f64()) - 0.021).abs() < 1e-12,
        "{h:?}"
    );
    let v: serde_json::Value = serde_json::from_slice(
        &cli(root.path())
            .args(["tagwait", "--json"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    assert_eq!(v["counts"][1]["pool"], "scheduler");
    assert_eq!(v["unattributed"], 1);
    cli(root.path())
        .args(["tagwait", "on"])
        .assert()
        .success()
        .stdout("tag-wait tracking: enabled\n");
    assert_eq!(read(root.path(), "tag_wait"), "1\n");
}

/// Claim: against the original module's trace_latency and distribute files,
/// `records --json` gives its three windows, `hist` its counts, `top` blames the
/// interrupted code (not its hrtimer handler), and `status` says counts it does not keep
/// are n/a rather than zero.
#[test]
fn works_against_the_original_module() {
    let root = proc_root(&[
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
    let out = cli(root.path())
        .args(["records", "--json"])
        .output()
        .unwrap();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0]["latency_ns"], 107_000_000);
    cli(root.path())
        .arg("hist")
        .assert()
        .success()
        .stdout(predicate::str::contains("80 -> 159        : 4"));
    // Its own handler and the timer interrupt that ran it are not the culprit: the code
    // they interrupted is.
    let top = stdout(root.path(), &["top"]);
    assert!(
        !top.contains("trace_irqoff_hrtimer_handler") && !top.contains("hrtimer_interrupt"),
        "{top}"
    );
    assert!(
        top.lines()
            .any(|l| l.starts_with("hardirq-off") && l.ends_with(" disable_hardirq")),
        "{top}"
    );
    // Counts it does not keep are n/a, not zeros.
    let status = stdout(root.path(), &["status"]);
    assert!(
        status.contains("per-CPU event counts, HZ and rules n/a"),
        "{status}"
    );
    assert!(
        !status.contains("HZ 0") && !status.contains("  yes  "),
        "{status}"
    );
}

/// Likewise `hist --json --per-cpu`.
#[test]
fn hist_json_snapshot() {
    let root = ours();
    let out = cli(root.path())
        .args(["hist", "--json", "--per-cpu"])
        .output()
        .unwrap();
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/hist.json")).unwrap();
    assert_eq!(got, want);
}

/// Claim: `--color always` colours output through a pipe even with NO_COLOR set, the
/// default (auto) does not colour a pipe but does a terminal, and `--color never` does
/// not colour a terminal.
#[test]
fn color_always_colours_through_a_pipe() {
    let root = ours();
    let out = cli(root.path())
        .env_remove("NO_COLOR")
        .args([
            "--color", "always", "records", "--kind", "hard", "--limit", "1",
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("\x1b[1mhardirq-off\x1b[0m cpu 1"),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
    // auto on a pipe: none. An explicit always beats NO_COLOR (cli() sets it).
    let out = cli(root.path())
        .env_remove("NO_COLOR")
        .args(["records", "--limit", "1"])
        .output()
        .unwrap();
    assert!(!out.stdout.contains(&0x1b));
    let out = cli(root.path())
        .args(["--color", "always", "records", "--limit", "1"])
        .output()
        .unwrap();
    assert!(out.stdout.contains(&0x1b));
    // On a terminal, auto colours; never does not.
    let (_, text) = on_a_terminal(root.path(), &["records", "--stacks", "--limit", "1"]);
    assert!(text.starts_with("\x1b[1msoftirq-off"), "{text:?}");
    let (_, text) = on_a_terminal(
        root.path(),
        &["--color", "never", "records", "--stacks", "--limit", "1"],
    );
    assert!(!text.contains('\x1b'), "{text:?}");
}

/// Claim: `set period -5` is refused as a value, in plain words (it is negative), exit
/// status 2, not with clap's advice to escape it as `-- -5`; `-5ms` too.
#[test]
fn a_negative_value_is_a_plain_error() {
    let root = ours();
    for v in ["-5", "-5ms"] {
        let out = cli(root.path())
            .args(["set", "period", v])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains(&format!("'{v}' is negative")), "{err}");
        assert!(!err.contains("'--"), "{err}");
    }
    assert_eq!(read(root.path(), "sampling_period"), "10ms\n");
}

/// Claim: the global options are shown once, under their own heading, apart from each
/// command's own options (in the main help and in a command's).
#[test]
fn global_options_have_their_own_heading() {
    for args in [&["--help"][..], &["records", "--help"], &["top", "-h"]] {
        let out = Command::cargo_bin("trace-irqoff")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let help = String::from_utf8(out.stdout).unwrap();
        let (own, global) = help.split_once("Global options:").expect("the heading");
        // The lines that define an option (its text may name others).
        let defined = |text: &str, opt: &str| {
            text.lines()
                .filter(|l| l.trim_start().starts_with(opt))
                .count()
        };
        for opt in ["--proc-root", "--json", "--raw-symbols", "--color"] {
            assert_eq!(
                defined(own, opt),
                0,
                "{args:?}: {opt} among the command's own\n{help}"
            );
            assert_eq!(defined(global, opt), 1, "{args:?}: {opt}\n{help}");
        }
    }
}
