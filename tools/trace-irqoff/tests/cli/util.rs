// SPDX-License-Identifier: GPL-2.0
//! The harness every CLI test shares (as ripgrep's `tests/util.rs`): fake proc roots with
//! the module's files, fixtures captured from the real module, and running the binary
//! against them.

pub(crate) use std::fs;
pub(crate) use std::path::Path;

pub(crate) use assert_cmd::Command;
pub(crate) use predicates::prelude::*;
pub(crate) use tempfile::TempDir;

pub(crate) const RECORDS: &str = include_str!("../fixtures/records-v1.txt");

/// Format v2: softirq causes, in-window stacks, overlaps, a window still open.
pub(crate) const RECORDS_V2: &str = include_str!("../fixtures/records-v2.txt");

/// A proc root with a module directory holding `files`.
pub(crate) fn proc_root(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().unwrap();
    let m = dir.path().join("trace_irqoff");
    fs::create_dir(&m).unwrap();
    for (name, text) in files {
        fs::write(m.join(name), text).unwrap();
    }
    dir
}

pub(crate) fn ours() -> TempDir {
    proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "trace_latency",
            "trace_irqoff_latency: 50ms\n\n hardirq:\n\n softirq:\n",
        ),
        ("distribute", ""),
        ("records", RECORDS),
    ])
}

pub(crate) fn ours_v2() -> TempDir {
    ours_with(RECORDS_V2)
}

/// Our module with this `records` file.
pub(crate) fn ours_with(records: &str) -> TempDir {
    proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "trace_latency",
            "trace_irqoff_latency: 50ms\n\n hardirq:\n\n softirq:\n",
        ),
        ("distribute", ""),
        ("records", records),
    ])
}

/// The boot time the tests pretend (the module's timestamps are since boot).
pub(crate) const BOOT_TIME: &str = "2026-05-07T10:00:00Z";

pub(crate) fn cli(root: &Path) -> Command {
    let mut c = Command::cargo_bin("trace-irqoff").unwrap();
    c.arg("--proc-root")
        .arg(root)
        .env("NO_COLOR", "1")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME);
    c
}

pub(crate) fn read(root: &Path, name: &str) -> String {
    fs::read_to_string(root.join("trace_irqoff").join(name)).unwrap()
}

/// Completes `words` (the last one being typed) with the generated bash script, in a real
/// bash, and returns the candidates.
pub(crate) fn complete_in_bash(script: &Path, words: &[&str]) -> Vec<String> {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let prog = format!(
        "source '{}'\nCOMP_WORDS=({})\nCOMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))\nCOMP_LINE=\"${{COMP_WORDS[*]}}\"\nCOMP_POINT=${{#COMP_LINE}}\n\
         _trace__irqoff trace-irqoff \"${{COMP_WORDS[COMP_CWORD]}}\" \"${{COMP_WORDS[COMP_CWORD-1]}}\"\nprintf '%s\\n' \"${{COMPREPLY[@]}}\"\n",
        script.display(),
        quoted.join(" ")
    );
    let out = std::process::Command::new("bash")
        .arg("--norc")
        .arg("-c")
        .arg(prog)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

/// A shell the completion tests need (`make setup` installs it).
pub(crate) fn shell(name: &str) -> std::process::Command {
    let found = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("command -v {name}"))
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{name} is not installed: the completion tests run it (make setup installs it)"
    );
    std::process::Command::new(name)
}

pub(crate) fn stdout(root: &Path, args: &[&str]) -> String {
    let out = cli(root).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Format v2 with the culprit's cgroup id on the cpu 0 and cpu 1 records
/// (`cgroup=4242`, `cgroup=4343`), none on the others (lines of a module before it).
pub(crate) const RECORDS_CGROUP: &str = include_str!("../fixtures/records-v2-cgroup.txt");

pub(crate) const CONTAINER: &str =
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

pub(crate) const POD: &str = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice";

/// A fake system: ROOT/proc with the module's files and a mountinfo naming a cgroup2
/// mount at /sys/fs/cgroup, and ROOT/sys/fs/cgroup with a service and a pod's container.
/// The records' cgroup ids are the directories' inode numbers, as on cgroup2: cpu 0's the
/// container's, cpu 1's one no directory has (a cgroup removed since). Returns the temp
/// dir, the proc root, and the container's id.
pub(crate) fn cgroup_system() -> (TempDir, std::path::PathBuf, u64) {
    use std::os::unix::fs::MetadataExt;
    let dir = TempDir::new().unwrap();
    let cg = dir.path().join("sys/fs/cgroup");
    let scope = format!("{POD}/cri-containerd-{CONTAINER}.scope");
    for p in ["/system.slice/nginx.service", scope.as_str()] {
        fs::create_dir_all(cg.join(&p[1..])).unwrap();
    }
    let id = fs::metadata(cg.join(&scope[1..])).unwrap().ino();
    let gone = 999_999_999_999u64;
    let proc = dir.path().join("proc");
    fs::create_dir_all(proc.join("trace_irqoff")).unwrap();
    fs::create_dir_all(proc.join("self")).unwrap();
    fs::write(
        proc.join("self/mountinfo"),
        "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n\
         35 22 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate\n",
    )
    .unwrap();
    let records = RECORDS_CGROUP
        .replace(" cgroup=4242", &format!(" cgroup={id}"))
        .replace(" cgroup=4343", &format!(" cgroup={gone}"));
    for (name, text) in [
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("records", records.as_str()),
    ] {
        fs::write(proc.join("trace_irqoff").join(name), text).unwrap();
    }
    (dir, proc, id)
}

/// A proc root with the module disabled, period 10 ms, threshold 50 ms.
pub(crate) fn disabled() -> TempDir {
    proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS),
    ])
}

pub(crate) fn spawn(root: &Path, args: &[&str]) -> std::process::Child {
    background(root, args).spawn().unwrap()
}

/// What [`spawn`] starts, for a test to add to first (an environment variable).
pub(crate) fn background(root: &Path, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("trace-irqoff"));
    c.arg("--proc-root")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    c
}

/// Starts `record -o OUT ARGS...` in the background on `root` and waits until it has
/// enabled sampling: the set-up of every test of a recording in progress.
pub(crate) fn spawn_recording(root: &Path, out: &Path, args: &[&str]) -> std::process::Child {
    let out = out.to_str().unwrap();
    let mut all = vec!["record", "-o", out];
    all.extend_from_slice(args);
    let rec = spawn(root, &all);
    wait_for("record to enable", || read(root, "enable") == "1\n");
    rec
}

/// Waits up to 5 s for `cond`.
pub(crate) fn wait_for(what: &str, cond: impl Fn() -> bool) {
    for _ in 0..250 {
        if cond() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("timed out waiting for {what}");
}

pub(crate) fn signal(child: &std::process::Child, sig: &str) {
    assert!(std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

pub(crate) fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `records` of the v1 fixture with one more hardirq-off window on CPU 1.
pub(crate) fn with_window(ms: u64) -> String {
    RECORDS.replace(
        "\nend\n",
        &format!("\nrecord cpu=1 kind=hard lower_bound=0 latency_ns={} timestamp_ns=9000000000 pid=7 comm=hog frames=1\nframe hog_fn+0x1/0x2\nend\n", ms * 1_000_000 + 123_456),
    )
}

/// `records` of the v2 fixture with one more hardirq-off window on CPU 1, the worst (120
/// ms): its culprit, irqctx_spin, ran in an IPI function (its callers below it) that
/// interrupted kdamond.0[54], the task the record names.
pub(crate) fn with_ipi_window() -> String {
    RECORDS_V2.replace(
        "\nend\n",
        "\nrecord cpu=1 kind=hard cause=- lower_bound=0 latency_ns=120000000 timestamp_ns=6000000000 pid=54 comm=kdamond.0 runnable_ns=0 overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm= frames=4 window_frames=0 window_pid=0 window_comm=\n\
frame irqctx_spin+0x10/0x40 [irqctx]\n\
frame __flush_smp_call_function_queue+0x9a/0x1f0\n\
frame __sysvec_call_function_single+0x1c/0xb0\n\
frame kdamond_fn+0x2a/0x300\n\
end\n",
    )
}

/// Replaces a module file whole, as a read of the real one sees it.
pub(crate) fn replace(root: &Path, name: &str, text: &str) {
    let tmp = root.join(format!(".{name}.new"));
    fs::write(&tmp, text).unwrap();
    fs::rename(tmp, root.join("trace_irqoff").join(name)).unwrap();
}

pub(crate) type Scrape = openmetrics_parser::MetricsExposition<
    openmetrics_parser::PrometheusType,
    openmetrics_parser::PrometheusValue,
>;

/// The exposition as Prometheus reads it: a real parser of the text format, which also
/// refuses what Prometheus would (non-cumulative histograms, no +Inf bucket, a sum
/// without a count, a duplicate series, inconsistent labels in a family).
pub(crate) fn scrape(text: &str) -> Scrape {
    openmetrics_parser::prometheus::parse_prometheus(text)
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

pub(crate) fn sample<'a>(
    m: &'a Scrape,
    family: &str,
    labels: &[(&str, &str)],
) -> &'a openmetrics_parser::PrometheusValue {
    let f = m
        .families
        .get(family)
        .unwrap_or_else(|| panic!("no family {family}"));
    let s = f
        .iter_samples()
        .find(|s| {
            let ls = s.get_labelset().unwrap();
            labels.iter().all(|(k, v)| ls.get_label_value(k) == Some(v))
        })
        .unwrap_or_else(|| panic!("no {family}{labels:?}"));
    &s.value
}

pub(crate) fn value(m: &Scrape, family: &str, labels: &[(&str, &str)]) -> f64 {
    match sample(m, family, labels) {
        openmetrics_parser::PrometheusValue::Gauge(n)
        | openmetrics_parser::PrometheusValue::Unknown(n) => n.as_f64(),
        openmetrics_parser::PrometheusValue::Counter(c) => c.value.as_f64(),
        v => panic!("{family} is {v:?}"),
    }
}

pub(crate) fn histogram(
    m: &Scrape,
    family: &str,
    labels: &[(&str, &str)],
) -> openmetrics_parser::HistogramValue {
    assert_eq!(
        m.families[family].family_type,
        openmetrics_parser::PrometheusType::Histogram
    );
    match sample(m, family, labels) {
        openmetrics_parser::PrometheusValue::Histogram(h) => h.clone(),
        v => panic!("{family} is {v:?}"),
    }
}

/// The cumulative count of the bucket with upper edge `le` seconds.
pub(crate) fn bucket(h: &openmetrics_parser::HistogramValue, le: f64) -> u64 {
    let b = h
        .buckets
        .iter()
        .find(|b| b.upper_bound == le || (b.upper_bound - le).abs() < 1e-12)
        .unwrap_or_else(|| panic!("no bucket {le} in {h:?}"));
    b.count.as_f64() as u64
}

/// Runs the CLI with a pseudo-terminal as stdin, stdout and stderr (colour `auto`, no
/// NO_COLOR), as a person at a terminal does, and returns its exit status and what it wrote.
pub(crate) fn on_a_terminal(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    on_a_terminal_sized(root, args, (50, 200))
}

/// [`on_a_terminal`] with a terminal of `rows` x `cols`.
pub(crate) fn on_a_terminal_sized(
    root: &Path,
    args: &[&str],
    (rows, cols): (u16, u16),
) -> (Option<i32>, String) {
    use rustix::pty::{grantpt, openpt, ptsname, unlockpt, OpenptFlags};
    use std::io::Read;
    let master = openpt(OpenptFlags::RDWR | OpenptFlags::NOCTTY).unwrap();
    grantpt(&master).unwrap();
    unlockpt(&master).unwrap();
    let name = ptsname(&master, Vec::new()).unwrap();
    let slave = fs::File::options()
        .read(true)
        .write(true)
        .open(name.to_str().unwrap())
        .unwrap();
    rustix::termios::tcsetwinsize(
        &slave,
        rustix::termios::Winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        },
    )
    .unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root)
        .args(args)
        .env_remove("NO_COLOR")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdin(std::process::Stdio::from(slave.try_clone().unwrap()))
        .stdout(std::process::Stdio::from(slave.try_clone().unwrap()))
        .stderr(std::process::Stdio::from(slave))
        .spawn()
        .unwrap();
    let mut master = fs::File::from(master);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match master.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.extend_from_slice(&buf[..n]),
            // EIO: the child and its terminal are gone.
            Err(_) => break,
        }
    }
    (
        child.wait().unwrap().code(),
        String::from_utf8_lossy(&out).into_owned(),
    )
}

/// What the CLI, run with `args` and no colour, drew on an 80x24 terminal, its lines
/// ended by "\n"; it must succeed.
pub(crate) fn on_80x24(root: &Path, args: &[&str]) -> String {
    let (code, text) = on_a_terminal_sized(root, &[&["--color", "never"], args].concat(), (24, 80));
    assert_eq!(code, Some(0), "{text}");
    text.replace("\r\n", "\n")
}

/// Format v2 with the watcher: a hardirq-off window still open on CPU 1 (its `ongoing`
/// line and lower-bound record with a live profile), final records with profiles.
pub(crate) const RECORDS_WATCHER: &str = include_str!("../fixtures/records-watcher.txt");

pub(crate) fn with_records(records: &str) -> TempDir {
    proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", records),
    ])
}

/// A `record` file with two windows of cpu 2, a histogram count, and the clock anchor of
/// the machine it was taken on (`offset_ns`), ended at 6 s after that machine's boot.
pub(crate) fn saved_recording(dir: &Path, offset_ns: Option<u64>) -> std::path::PathBuf {
    let root = ours_v2();
    let records: serde_json::Value =
        serde_json::from_str(&stdout(root.path(), &["records", "--json", "--cpu", "2"])).unwrap();
    let mut v = serde_json::json!({
        "host": "elsewhere", "kernel": "7.3.0", "cli_version": "0.1.0",
        "module": {"records_format": 2, "hz": 1000, "records_per_cpu": 16, "soft_event_ns": 22000000},
        "start_time": "2026-05-07T10:00:00Z", "end_time": "2026-05-07T10:00:06Z", "duration_ms": 6000,
        "end_ns": 6_000_000_000u64, "interrupted": false,
        "settings": {"enabled": true, "period_ms": 10, "threshold_ms": 50},
        "restored": {"enabled": false, "period_ms": 10, "threshold_ms": 50},
        "outside_changes": [], "kept_outside": [], "until_ms": null, "caught": null,
        "cpus": [{"cpu": 2, "online": true, "hard_events": 0, "soft_events": 2, "dropped": 0, "replaced": 0,
                  "soft_ksoftirqd_wait_events": 2, "hard_hist": [], "soft_hist": [0, 0, 0, 0, 0, 2]}],
        "records": records,
    });
    if let Some(ns) = offset_ns {
        v["realtime_offset_ns"] = serde_json::json!(ns);
    }
    let path = dir.join("incident.json");
    fs::write(&path, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    path
}

/// A module, as a directory of plain files, that the service may change: disabled,
/// period 10 ms, threshold 50 ms.
pub(crate) fn service_root() -> TempDir {
    proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("counters", include_str!("../fixtures/counters-v1.txt")),
    ])
}

pub(crate) fn service(root: &Path, action: &str, conf: &Path) -> Command {
    let mut c = cli(root);
    c.args(["service", action, "--config"])
        .arg(conf)
        .arg("--state")
        .arg(root.join("state/prior.json"));
    c
}

/// One HTTP GET of `path` on `port`: the status line and the body.
pub(crate) fn http_get(port: u16, path: &str) -> (String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

/// The attributes and references of `page` that would load something from elsewhere:
/// every `src=`, `href=`, `@import` and `url(...)` that is not a fragment of the page
/// itself. (The SVG namespaces are names, not addresses a browser loads.)
pub(crate) fn outside_references(page: &str) -> Vec<String> {
    let mut v = Vec::new();
    for pat in ["src=", "href=", "@import", "url("] {
        for (i, _) in page.match_indices(pat) {
            let rest = &page[i + pat.len()..];
            if !(pat == "url(" && rest.starts_with('#')) {
                v.push(page[i..(i + 60).min(page.len())].to_string());
            }
        }
    }
    v
}

/// `report FILE -o PAGE` with no module, FILE's page beside it: what it said, and the page.
pub(crate) fn report_of(file: &Path) -> (String, String) {
    let page_path = file.with_extension("html");
    let out = cli(&file.with_file_name("no-proc"))
        .arg("report")
        .arg(file)
        .arg("-o")
        .arg(&page_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8(out.stdout).unwrap(),
        fs::read_to_string(&page_path).unwrap(),
    )
}

/// A module that counts stalls (the `stall` line, `stall_gaps`): the watcher fixture of
/// a VM whose host paused it five times, the longest 302 ms.
pub(crate) const RECORDS_STALL: &str = include_str!("../fixtures/records-stall.txt");

/// The event ring's `trace` file (`instances/trace_irqoff`, as the module's tracepoints
/// print it): CPU 1's window that the store holds too (same end), two it did not keep,
/// one of them named by a mangled Rust symbol, one under the threshold, a stall and an
/// `irqoff_ongoing` line (neither a window).
pub(crate) const RING: &str = include_str!("../fixtures/ring-trace.txt");

/// A tracefs directory whose `trace_irqoff` instance runs and holds `trace`.
pub(crate) fn ring_root(trace: &str) -> TempDir {
    let dir = TempDir::new().unwrap();
    let inst = dir.path().join("instances/trace_irqoff");
    for ev in ["hardirq_off", "softirq_off"] {
        let d = inst.join("events/trace_irqoff").join(ev);
        fs::create_dir_all(&d).unwrap();
        fs::write(d.join("enable"), "1\n").unwrap();
    }
    fs::write(inst.join("trace"), trace).unwrap();
    dir
}

/// The v2 fixture with CPU 1's store full: `dropped` and `replaced` windows of its
/// hardirq-off kind that it did not keep.
pub(crate) fn store_full(dropped: u64, replaced: u64) -> TempDir {
    let text = RECORDS_V2.replace(
        "cpu 1 online=1 hard_events=1 soft_events=0 soft_bh_off_events=0 soft_ksoftirqd_wait_events=0 hard_dropped=0 hard_replaced=0",
        &format!("cpu 1 online=1 hard_events={} soft_events=0 soft_bh_off_events=0 soft_ksoftirqd_wait_events=0 hard_dropped={dropped} hard_replaced={replaced}", 1 + dropped + replaced),
    );
    assert_ne!(text, RECORDS_V2);
    ours_with(&text)
}

/// `cli` with the event ring at `ring`.
pub(crate) fn cli_ring(root: &Path, ring: &Path) -> Command {
    let mut c = cli(root);
    c.env("TRACE_IRQOFF_TRACEFS", ring);
    c
}

pub(crate) fn json_of(c: &mut Command) -> serde_json::Value {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}
