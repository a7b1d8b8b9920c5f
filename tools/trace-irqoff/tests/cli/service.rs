// SPDX-License-Identifier: GPL-2.0
//! `service start|stop|check`: the unit's actions, on a fake proc root and a fake modprobe.

use crate::util::*;

/// `service start` applies the file (sampling on by default) and saves what was there;
/// `service stop` puts that back and forgets it.
#[test]
fn service_start_applies_the_file_and_stop_restores() {
    let root = service_root();
    let conf = root.path().join("trace-irqoff.conf");
    fs::write(&conf, "period_ms = 5\nthreshold_ms = 20\n").unwrap();
    service(root.path(), "start", &conf)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "enabled, period 5 ms, threshold 20 ms",
        ));
    assert_eq!(read(root.path(), "enable"), "1\n");
    assert_eq!(read(root.path(), "sampling_period"), "5\n");
    assert_eq!(read(root.path(), "trace_latency"), "20\n");
    let saved = fs::read_to_string(root.path().join("state/prior.json")).unwrap();
    assert!(saved.contains("\"period_ms\": 10"), "{saved}");

    // A second start keeps the first one's saved state (the machine's, not its own).
    service(root.path(), "start", &conf).assert().success();
    service(root.path(), "stop", &conf)
        .assert()
        .success()
        .stdout(predicate::str::contains("restored: trace_irqoff: disabled"));
    assert_eq!(read(root.path(), "enable"), "0\n");
    assert_eq!(read(root.path(), "sampling_period"), "10\n");
    assert_eq!(read(root.path(), "trace_latency"), "50\n");
    assert!(!root.path().join("state/prior.json").exists());
}

/// A bad file fails with one sentence naming the line, exit status 2, and changes nothing:
/// no setting, no saved state, no module load.
#[test]
fn service_refuses_a_bad_file_and_changes_nothing() {
    let root = service_root();
    let conf = root.path().join("trace-irqoff.conf");
    for (text, says) in [
        (
            "period_ms = 5\nthreshold = 20\n",
            "line 2: unknown field `threshold`",
        ),
        (
            "period_ms = 100\nthreshold_ms = 150\n",
            "threshold_ms = 150 is outside 200..10000",
        ),
        ("cpus = \"0-\"\n", "is not a CPU list"),
        (
            "records_per_cpu = 100\n",
            "records_per_cpu = 100 is outside 1..64",
        ),
    ] {
        fs::write(&conf, text).unwrap();
        let out = service(root.path(), "start", &conf)
            .arg("--modprobe")
            .arg("/nonexistent/modprobe")
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        assert!(err.starts_with("trace-irqoff: "), "{err}");
        assert!(
            err.contains(says) && err.contains("nothing was changed"),
            "{err}"
        );
        assert_eq!(err.lines().count(), 2, "a sentence and a hint: {err}");
        assert_eq!(read(root.path(), "enable"), "disabled\n");
        assert_eq!(read(root.path(), "sampling_period"), "10ms\n");
        assert!(!root.path().join("state").exists());
        // check says the same without starting anything.
        service(root.path(), "check", &conf)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
}

/// Without the module, start loads it with the file's module parameters, and stop unloads
/// it again (it was not loaded before the service).
#[test]
fn service_loads_the_module_and_stop_unloads_it() {
    let root = TempDir::new().unwrap();
    let module = root.path().join("trace_irqoff");
    let fake = root.path().join("modprobe");
    // Stands in for modprobe: "loading" makes the module's files, "-r" removes them.
    fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$*\" >> {log}\nif [ \"$1\" = -r ]; then rm -r {m}; exit 0; fi\n\
             mkdir {m} && printf 'disabled\\n' > {m}/enable && printf '10ms\\n' > {m}/sampling_period && \
             printf 'trace_irqoff_latency: 50ms\\n' > {m}/trace_latency && cp {counters} {m}/counters\n",
            log = root.path().join("modprobe.log").display(),
            m = module.display(),
            counters = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/counters-v1.txt")
                .display(),
        ),
    )
    .unwrap();
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let conf = root.path().join("trace-irqoff.conf");
    fs::write(
        &conf,
        "records_per_cpu = 32\nwatch = false\nthreshold_ms = 30\n",
    )
    .unwrap();
    service(root.path(), "start", &conf)
        .arg("--modprobe")
        .arg(&fake)
        .assert()
        .success();
    assert_eq!(read(root.path(), "enable"), "1\n");
    assert_eq!(read(root.path(), "trace_latency"), "30\n");
    service(root.path(), "stop", &conf)
        .arg("--modprobe")
        .arg(&fake)
        .assert()
        .success()
        .stdout(predicate::str::contains("unloaded"));
    assert!(!module.exists());
    assert_eq!(
        fs::read_to_string(root.path().join("modprobe.log")).unwrap(),
        "trace_irqoff records_per_cpu=32 watch=0\n-r trace_irqoff\n"
    );
}
