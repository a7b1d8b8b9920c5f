// SPDX-License-Identifier: GPL-2.0
//! `metrics` and `serve`: the Prometheus exposition, parsed as Prometheus would.

use crate::util::*;

/// Claim: metrics carry no cgroup label: they are the same with cgroup ids in the records
/// as without.
#[test]
fn metrics_have_no_cgroup_label() {
    let (_dir, proc, _) = cgroup_system();
    let with = stdout(&proc, &["metrics"]);
    assert!(!with.contains("cgroup"), "{with}");
    let without = stdout(ours_v2().path(), &["metrics"]);
    assert_eq!(with.lines().count(), without.lines().count());
}

/// Claim: for v1 and v2 records, `metrics --per-cpu` exports per-CPU latency histograms
/// with all 24 cumulative buckets (zeros, and CPUs without windows, too), a sum at bucket
/// midpoints for v1 and the module's exact sum for v2, event counters that match the
/// counts, and by default one node-wide series holding every CPU's windows.
#[test]
fn metrics_are_real_prometheus_histograms() {
    for (root, version) in [(ours(), 1.0), (ours_v2(), 2.0)] {
        let m = scrape(&stdout(root.path(), &["metrics", "--per-cpu"]));
        assert_eq!(value(&m, "trace_irqoff_loaded", &[]), 1.0);
        assert_eq!(value(&m, "trace_irqoff_records_format", &[]), version);
        assert_eq!(value(&m, "trace_irqoff_threshold_seconds", &[]), 0.05);
        // CPU 1's hardirq windows: v1 fixture 1 in [16, 32), 2 in [32, 64), 1 in [64, 128) ms;
        // v2 fixture one of 99.8 ms.
        let h = histogram(
            &m,
            "trace_irqoff_latency_seconds",
            &[("cpu", "1"), ("kind", "hard")],
        );
        assert_eq!(h.buckets.len(), 24, "every bucket, zeros too");
        if version == 1.0 {
            assert_eq!(
                (
                    bucket(&h, 0.016),
                    bucket(&h, 0.032),
                    bucket(&h, 0.064),
                    bucket(&h, 0.128),
                    bucket(&h, f64::INFINITY)
                ),
                (0, 1, 3, 4, 4)
            );
            // At bucket midpoints: 24 + 2 x 48 + 96 ms.
            assert!(
                (h.sum.as_ref().unwrap().as_f64() - 0.216).abs() < 1e-9,
                "{h:?}"
            );
            assert_eq!(h.count, Some(4));
        } else {
            assert_eq!((bucket(&h, 0.064), bucket(&h, 0.128)), (0, 1));
            // The module's exact sum (hard_sum_ns), not the bucket's midpoint (0.096).
            assert!(
                (h.sum.as_ref().unwrap().as_f64() - 0.0998).abs() < 1e-9,
                "{h:?}"
            );
            let bh = histogram(
                &m,
                "trace_irqoff_latency_seconds",
                &[("cpu", "2"), ("kind", "soft"), ("cause", "bh-off")],
            );
            assert_eq!(bh.count, Some(2));
        }
        // A CPU without windows has its series from the start.
        let idle = histogram(
            &m,
            "trace_irqoff_latency_seconds",
            &[("cpu", "0"), ("kind", "hard")],
        );
        assert_eq!((idle.buckets.len(), idle.count), (24, Some(0)));
        assert_eq!(
            value(
                &m,
                "trace_irqoff_events_total",
                &[("cpu", "1"), ("kind", "hard")]
            ),
            h.count.unwrap() as f64
        );
        assert_eq!(
            value(&m, "trace_irqoff_records_dropped_total", &[("cpu", "0")]),
            0.0
        );
        assert_eq!(
            m.families["trace_irqoff_events_total"].family_type,
            openmetrics_parser::PrometheusType::Counter
        );
        // By default the histogram is the node's: every CPU's windows in one series.
        let node = scrape(&stdout(root.path(), &["metrics"]));
        let all = histogram(&node, "trace_irqoff_latency_seconds", &[("kind", "hard")]);
        let per_cpu: u64 = m.families["trace_irqoff_latency_seconds"]
            .iter_samples()
            .filter(|s| s.get_labelset().unwrap().get_label_value("kind") == Some("hard"))
            .map(|s| match &s.value {
                openmetrics_parser::PrometheusValue::Histogram(h) => h.count.unwrap(),
                v => panic!("{v:?}"),
            })
            .sum();
        assert_eq!(all.count, Some(per_cpu));
        assert!(per_cpu >= 1);
    }
}

/// `metrics` reads the counters file where the module has one, not `records`: a proc root
/// whose `records` cannot be parsed still scrapes, and says what the counters say, worst
/// windows included (the same exposition as from the records of the same state).
#[test]
fn metrics_read_the_counters_file() {
    let from_records = stdout(ours_v2().path(), &["metrics"]);
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("records", "not the records format\n"),
        ("counters", include_str!("../fixtures/counters-v1.txt")),
    ]);
    let from_counters = stdout(root.path(), &["metrics"]);
    assert_eq!(from_counters, from_records);
    let m = scrape(&from_counters);
    assert_eq!(
        value(
            &m,
            "trace_irqoff_worst_latency_seconds",
            &[("cpu", "1"), ("kind", "hard")]
        ),
        0.099800123
    );
    assert_eq!(
        value(
            &m,
            "trace_irqoff_worst_latency_seconds",
            &[("cpu", "2"), ("kind", "soft"), ("cause", "ksoftirqd-wait")]
        ),
        0.06425
    );
    // The window still open on CPU 3 counts, as in records.
    assert_eq!(
        value(
            &m,
            "trace_irqoff_worst_latency_seconds",
            &[("cpu", "3"), ("kind", "soft"), ("cause", "bh-off")]
        ),
        0.057
    );
    // A counters file of another version is an error that says so, not a guess.
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("counters", "trace_irqoff counters v9\nend\n"),
    ]);
    cli(root.path())
        .arg("metrics")
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "unsupported counters format version 9",
        ));
}

/// Claim: for the original module, `metrics` reports records format 0, the same 5
/// hardirq-off and 1 softirq-off windows `hist` shows, cumulative buckets built from its
/// histogram, and CPU 17's worst window of 107 ms.
#[test]
fn metrics_of_the_original_module_count_its_histograms() {
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
    let m = scrape(&stdout(root.path(), &["metrics"]));
    assert_eq!(value(&m, "trace_irqoff_records_format", &[]), 0.0);
    // hist shows 1 + 4 hardirq-off and 1 softirq-off windows: so must the metrics.
    assert_eq!(
        value(&m, "trace_irqoff_events_total", &[("kind", "hard")]),
        5.0
    );
    assert_eq!(
        value(&m, "trace_irqoff_events_total", &[("kind", "soft")]),
        1.0
    );
    let h = histogram(&m, "trace_irqoff_latency_seconds", &[("kind", "hard")]);
    assert_eq!(
        (
            bucket(&h, 0.04),
            bucket(&h, 0.08),
            bucket(&h, 0.16),
            h.count
        ),
        (1, 1, 5, Some(5))
    );
    assert_eq!(
        value(
            &m,
            "trace_irqoff_worst_latency_seconds",
            &[("cpu", "17"), ("kind", "hard")]
        ),
        0.107
    );
}

/// Claim: with the module not loaded, `metrics` succeeds with `trace_irqoff_loaded 0`
/// while `status` exits 2 saying so; a proc root that does not exist makes both exit 2
/// naming it, with a `--proc-root` hint.
#[test]
fn metrics_without_the_module_say_so() {
    let dir = TempDir::new().unwrap();
    let text = stdout(dir.path(), &["metrics"]);
    let m = scrape(&text);
    assert_eq!(value(&m, "trace_irqoff_loaded", &[]), 0.0);
    // A missing proc root is a mistake on the command line, not an unloaded module.
    cli(&dir.path().join("nope"))
        .arg("metrics")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("the proc root ").and(predicate::str::contains(
                "nope does not exist\nhint: --proc-root",
            )),
        );
    cli(&dir.path().join("nope"))
        .arg("status")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope does not exist"));
    cli(dir.path())
        .arg("status")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the trace_irqoff module is not loaded",
        ));
}

/// Claim: `metrics --textfile DIR` prints nothing and replaces a stale trace_irqoff.prom
/// whole, leaving no other file; with the module gone it writes `trace_irqoff_loaded 0`
/// instead, and a missing DIR is refused with exit 2 and a hint.
#[test]
fn metrics_textfile_is_replaced_whole() {
    let root = ours_v2();
    let dir = TempDir::new().unwrap();
    let prom = dir.path().join("trace_irqoff.prom");
    fs::write(&prom, "stale\n").unwrap();
    cli(root.path())
        .args(["metrics", "--textfile"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout("");
    let text = fs::read_to_string(&prom).unwrap();
    assert_eq!(value(&scrape(&text), "trace_irqoff_enabled", &[]), 1.0);
    assert_eq!(files_in(dir.path()), ["trace_irqoff.prom"]);
    // The module gone: the file says so instead of going stale or empty.
    fs::remove_dir_all(root.path().join("trace_irqoff")).unwrap();
    cli(root.path())
        .args(["metrics", "--textfile"])
        .arg(dir.path())
        .assert()
        .success();
    assert_eq!(
        value(
            &scrape(&fs::read_to_string(&prom).unwrap()),
            "trace_irqoff_loaded",
            &[]
        ),
        0.0
    );
    cli(root.path())
        .args(["metrics", "--textfile"])
        .arg(dir.path().join("missing"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing does not exist\nhint: "));
}

/// The alert rules and the Grafana dashboard in Documentation/ use only series that
/// `metrics` exports (a renamed metric breaks them silently otherwise).
#[test]
fn shipped_alerts_and_dashboard_use_exported_series() {
    let records = RECORDS_V2.replace(
        "\nend\n",
        "\ntagwait enabled=1 source=kprobe overflow=0 unattributed=0 missed=0\nend\n",
    );
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", &records),
    ]);
    let m = scrape(&stdout(root.path(), &["metrics"]));
    let exported = |name: &str| {
        m.families.contains_key(name)
            || ["_bucket", "_sum", "_count"].iter().any(|s| {
                name.strip_suffix(s)
                    .is_some_and(|f| m.families.contains_key(f))
            })
    };
    let alerts = include_str!("../../../../Documentation/trace-irqoff-alerts.yml");
    let dashboard = include_str!("../../../../Documentation/trace-irqoff-grafana.json");
    let _: serde_json::Value = serde_json::from_str(dashboard).unwrap();
    for (file, text) in [("alerts", alerts), ("dashboard", dashboard)] {
        let names: Vec<&str> = text
            .match_indices("trace_irqoff_")
            .map(|(i, _)| {
                let rest = &text[i..];
                &rest[..rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len())]
            })
            .filter(|n| n.ends_with(|c: char| c.is_ascii_lowercase()) && !n.ends_with("prom"))
            .collect();
        assert!(names.len() > 5, "{file}: {names:?}");
        for n in names {
            assert!(
                exported(n),
                "{file} uses {n}, which metrics does not export"
            );
        }
    }
}

/// `serve` answers /metrics with what `metrics` prints, read from the counters file at
/// each scrape (a module loaded later counts), and 404 elsewhere.
#[test]
fn serve_answers_scrapes_with_the_metrics() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "records",
            "not the records format: a scrape must not read it\n",
        ),
        ("counters", include_str!("../fixtures/counters-v1.txt")),
    ]);
    let want = stdout(root.path(), &["metrics"]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root.path())
        .args(["serve", "--scrapes", "2", "--listen"])
        .arg(format!("127.0.0.1:{port}"))
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (status, body) = http_get(port, "/metrics");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(body, want);
    scrape(&body);
    assert_eq!(http_get(port, "/other").0, "HTTP/1.1 404 Not Found");
    // The module goes away: the next scrape says so, it is not an error.
    fs::remove_dir_all(root.path().join("trace_irqoff")).unwrap();
    let (status, body) = http_get(port, "/metrics");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert_eq!(value(&scrape(&body), "trace_irqoff_loaded", &[]), 0.0);
    assert!(child.wait().unwrap().success(), "ends after --scrapes 2");
}

/// Claim: `metrics` of a module that counts stalls has the four stall families as
/// Prometheus reads them (per-CPU stall gaps, stalls and their seconds as counters, the
/// longest as a gauge); the window families are unchanged by them.
#[test]
fn metrics_of_stalls_are_prometheus_families() {
    let root = with_records(RECORDS_STALL);
    let m = scrape(&stdout(root.path(), &["metrics"]));
    assert_eq!(
        value(&m, "trace_irqoff_stall_gaps_total", &[("cpu", "0")]),
        10.0
    );
    assert_eq!(
        value(&m, "trace_irqoff_stall_gaps_total", &[("cpu", "1")]),
        9.0
    );
    assert_eq!(value(&m, "trace_irqoff_stalls_total", &[]), 5.0);
    assert!((value(&m, "trace_irqoff_stall_seconds_total", &[]) - 0.935).abs() < 1e-9);
    assert!((value(&m, "trace_irqoff_stall_longest_seconds", &[]) - 0.302).abs() < 1e-9);
    for (name, kind) in [
        (
            "trace_irqoff_stall_gaps_total",
            openmetrics_parser::PrometheusType::Counter,
        ),
        (
            "trace_irqoff_stalls_total",
            openmetrics_parser::PrometheusType::Counter,
        ),
        (
            "trace_irqoff_stall_seconds_total",
            openmetrics_parser::PrometheusType::Counter,
        ),
        (
            "trace_irqoff_stall_longest_seconds",
            openmetrics_parser::PrometheusType::Gauge,
        ),
    ] {
        assert_eq!(m.families[name].family_type, kind, "{name}");
    }
    // The windows: CPU 1's one hardirq-off window, as without stalls.
    assert_eq!(
        value(
            &m,
            "trace_irqoff_events_total",
            &[("cpu", "1"), ("kind", "hard")]
        ),
        1.0
    );
    let old = scrape(&stdout(with_records(RECORDS_WATCHER).path(), &["metrics"]));
    assert!(!old.families.contains_key("trace_irqoff_stalls_total"));
}
