// SPDX-License-Identifier: GPL-2.0
//! `explain`: the delays of a saved trace (tests/fixtures/explain-trace.txt) joined with
//! the windows of records-v2.txt, and of the event ring; a traced span in a tracefs
//! instance of its own; refusals.

use crate::util::*;

const TRACE: &str = include_str!("../fixtures/explain-trace.txt");

/// A sysfs with block device `nullb0` (252:0) whose one hardware queue takes requests
/// from CPUs 0-1, and no interrupt.
pub(crate) fn sysfs() -> TempDir {
    let dir = TempDir::new().unwrap();
    let b = dir.path().join("block/nullb0");
    fs::create_dir_all(b.join("mq/0")).unwrap();
    fs::write(b.join("dev"), "252:0\n").unwrap();
    fs::write(b.join("mq/0/cpu_list"), "0-1\n").unwrap();
    dir
}

/// A proc root with records-v2 and `text` saved in it as a trace: the root and the
/// trace's path.
fn with_trace(text: impl AsRef<[u8]>) -> (TempDir, std::path::PathBuf) {
    let root = ours_with(RECORDS_V2);
    let trace = root.path().join("trace.txt");
    fs::write(&trace, text).unwrap();
    (root, trace)
}

/// `explain --from TRACE ARGS --json` on records-v2, with sysfs `sys`; its JSON.
fn explain_json(sys: &Path, args: &[&str]) -> serde_json::Value {
    let (root, trace) = with_trace(TRACE);
    json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys)
            .args(["explain", "--json", "--from"])
            .arg(&trace)
            .args(args),
    )
}

/// The text `c` printed, with its words joined by one space (the 80-column wrapping
/// undone), after checking that it succeeded and that its lines fit 80 columns, but for
/// a first line that is the verdict: one line, never wrapped, for scripts.
fn flat_text(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let verdict = usize::from(text.starts_with("Verdict: "));
    assert!(text.lines().skip(verdict).all(|l| l.len() <= 80), "{text}");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The task delay (`--pid`, `--cgroup`) of an answer.
fn task_delay(j: &serde_json::Value) -> &serde_json::Value {
    j["delays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["delay"]["kind"] == "task")
        .unwrap()
}

/// The delay of `kind` starting at `start_ns` in an answer.
fn delay<'a>(j: &'a serde_json::Value, kind: &str, start_ns: u64) -> &'a serde_json::Value {
    j["delays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["delay"]["kind"] == kind && d["delay"]["start_ns"] == start_ns)
        .unwrap_or_else(|| panic!("no {kind} delay at {start_ns} in {j}"))
}

/// Claim: a request of nullb0 that completed on CPU 1 while CPU 1 had hard interrupts
/// off is explained by that window, with its culprit, its task and the overlap
/// (3.950000..4.033412 s); the other device's requests are not looked at.
#[test]
fn an_io_delay_is_explained_by_the_window_on_its_cpu() {
    let j = explain_json(sysfs().path(), &["--device", "nullb0"]);
    let d = delay(&j, "io", 3_950_000_000);
    assert_eq!(d["delay"]["cpus"], serde_json::json!([1]));
    assert_eq!(d["delay"]["device"], "252:0");
    let w = &d["windows"][0];
    assert_eq!(w["window"]["cpu"], 1);
    assert_eq!(w["window"]["kind"], "hard");
    assert_eq!(w["window"]["comm"], "irq_test");
    assert_eq!(w["window"]["culprit"], "irqoff_sample_hardirq_window");
    assert_eq!(w["overlap_ns"], 4_033_412_000u64 - 3_950_000_000);
    assert!(d.get("not_explained").is_none());
    let ios = j["delays"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["delay"]["kind"] == "io")
        .count();
    assert_eq!(ios, 2, "only nullb0's two requests: {j}");
}

/// Claim: a submitter that slept for a tag of nullb0 from 3.960 s until it issued at
/// 4.045 s waited for the completion on CPU 1 (the only one meanwhile), so its wait is
/// explained by CPU 1's hardirq-off window, overlapping it 73.412 ms.
#[test]
fn a_tag_wait_is_explained_by_the_window_where_tags_come_back() {
    let j = explain_json(sysfs().path(), &["--device", "nullb0"]);
    let d = delay(&j, "tag-wait", 3_960_000_000);
    assert_eq!(d["delay"]["end_ns"], 4_045_000_000u64);
    assert_eq!(d["delay"]["cpus"], serde_json::json!([1]));
    assert_eq!(d["delay"]["task"], "dd-71");
    assert_eq!(
        d["windows"][0]["window"]["culprit"],
        "irqoff_sample_hardirq_window"
    );
    assert_eq!(
        d["windows"][0]["overlap_ns"],
        4_033_412_000u64 - 3_960_000_000
    );
}

/// Claim: a request of nullb0 that completed on CPU 0 with no window there is "not
/// explained by an irq-off window on the CPUs that serve this device", in the text too,
/// whose lines fit 80 columns.
#[test]
fn an_io_delay_without_a_window_is_not_explained() {
    let j = explain_json(sysfs().path(), &["--device", "nullb0"]);
    let d = delay(&j, "io", 4_500_000_000);
    assert_eq!(d["windows"], serde_json::json!([]));
    assert_eq!(
        d["not_explained"],
        "not explained by an irq-off window on the CPUs that serve this device (0)"
    );
    let (root, trace) = with_trace(TRACE);
    let sys = sysfs();
    let flat = flat_text(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--device", "nullb0", "--from"])
            .arg(&trace),
    );
    assert!(
        flat.contains("not explained by an irq-off window on the CPUs that serve this device (0)"),
        "{flat}"
    );
    assert!(
        flat.contains("by irq_test[90] in irqoff_sample_hardirq_window"),
        "{flat}"
    );
    assert!(
        flat.contains("hardware queue 0 takes requests from CPUs 0-1"),
        "{flat}"
    );
}

/// Claim: a NET_RX softirq raised on CPU 0 and run 94 ms later is attributed to the
/// bh-off window of CPU 0 and its task; a TIMER softirq held 10 ms on CPU 2 between its
/// two windows is shorter than the shortest window the module sees (2 periods of 10 ms):
/// "too short to tell", not "not explained".
#[test]
fn a_softirq_delay_is_attributed_to_the_bh_off_window() {
    let j = explain_json(sysfs().path(), &[]);
    let d = delay(&j, "softirq", 3_940_000_000);
    assert_eq!(d["delay"]["vector"], "NET_RX");
    let w = &d["windows"][0]["window"];
    assert_eq!(
        (w["cpu"].as_u64(), w["kind"].as_str()),
        (Some(0), Some("soft"))
    );
    assert_eq!(w["cause"], "bh-off");
    assert_eq!(w["pid"], 79);
    let t = delay(&j, "softirq", 5_300_000_000);
    assert_eq!(
        t["not_explained"],
        "too short to tell: windows under 20.000 ms (2 sampling periods of 10.000 ms) are not seen"
    );
    assert_eq!(t["too_short"], true);
}

/// Claim: a window still open when the module was read (CPU 3's bh-off window, from
/// 5.043 s) goes on: it explains a request of another device completed on CPU 3 at
/// 5.46 s, after it was last seen open (5.1 s), marked open and "and counting".
#[test]
fn a_window_still_open_explains_what_came_after() {
    let j = explain_json(sysfs().path(), &[]);
    let d = delay(&j, "io", 5_400_000_000);
    let w = &d["windows"][0];
    assert_eq!(w["window"]["cpu"], 3);
    assert_eq!(w["window"]["open"], true);
    assert_eq!(w["overlap_ns"], 60_000_000);
    assert_eq!(w["window"]["culprit"], "irqoff_sample_bh_work");
    let (root, trace) = with_trace(TRACE);
    let flat = flat_text(cli(root.path()).args(["explain", "--from"]).arg(&trace));
    assert!(
        flat.contains("I/O on 8:0 by dd-70 took 60.000 ms from 5.400000 s; issued on CPU 3, completed on CPU 3 explained by a softirq-off (bh-off) window of 57.000 ms and counting on CPU 3"),
        "{flat}"
    );
}

/// Claim: when the event ring runs and has overwritten events (entries-in-buffer below
/// entries-written), its oldest window bounds what is held: a delay that began before it
/// says so (`before_held`, and a sentence in the text); one after it does not; the
/// windows come from the records and the ring. A ring that overwrote nothing bounds
/// nothing: what is held starts with the records (unknown in this fixture).
#[test]
fn a_span_partly_not_held_says_so() {
    let (root, trace) = with_trace(TRACE);
    // One window in the ring, CPU 2, 4.450000..4.500000 s.
    let line = "              sh-2168    [002] d.h1.     4.500000: hardirq_off: cpu=2 latency_ns=50000000 lower_bound=0 pid=2168 comm=sh cause=- end_ns=4500000000 seq=1 end_shows_culprit=1 frames=irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample];0x0\n";
    let whole = ring_root(&format!(
        "# entries-in-buffer/entries-written: 1/1   #P:4\n{line}"
    ));
    let mut c = cli_ring(root.path(), whole.path());
    c.args(["explain", "--json", "--from"]).arg(&trace);
    let j = json_of(&mut c);
    assert_eq!(j["limits"]["held_from_ns"], serde_json::Value::Null);
    assert_eq!(delay(&j, "io", 3_950_000_000)["before_held"], false);
    let ring = ring_root(&format!(
        "# entries-in-buffer/entries-written: 1/9   #P:4\n{line}"
    ));
    let sys = sysfs();
    let mut c = cli_ring(root.path(), ring.path());
    c.env("TRACE_IRQOFF_SYSFS", sys.path())
        .args(["explain", "--json", "--from"])
        .arg(&trace);
    let j = json_of(&mut c);
    assert_eq!(j["windows_from"], "records+ring");
    assert_eq!(j["limits"]["held_from_ns"], 4_450_000_000u64);
    assert_eq!(delay(&j, "io", 3_950_000_000)["before_held"], true);
    assert_eq!(delay(&j, "io", 4_500_000_000)["before_held"], false);
    let mut c = cli_ring(root.path(), ring.path());
    let flat = flat_text(
        c.env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--from"])
            .arg(&trace),
    );
    assert!(
        flat.contains("3 delays began before that: windows then are no longer held"),
        "{flat}"
    );
}

/// Claim: `--pid` joins the span with the windows on the CPUs the task was switched in
/// on (sched_switch: CPU 1) and last ran on (/proc/PID/task/*/stat field 39: CPU 1), and
/// block requests are not looked at then.
#[test]
fn a_task_is_joined_on_the_cpus_it_ran_on() {
    let root = ours_with(RECORDS_V2);
    let task = root.path().join("70/task/70");
    fs::create_dir_all(&task).unwrap();
    fs::write(root.path().join("70/comm"), "dd\n").unwrap();
    let mut stat: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
    stat[39 - 3] = "1".into();
    fs::write(task.join("stat"), format!("70 (dd) {}\n", stat.join(" "))).unwrap();
    let j = explain_json_in(&root, &["--pid", "70"]);
    let d = task_delay(&j);
    assert_eq!(d["delay"]["task"], "dd[70]");
    assert_eq!(d["delay"]["cpus"], serde_json::json!([1]));
    assert_eq!(d["windows"][0]["window"]["comm"], "irq_test");
    assert!(j["delays"]
        .as_array()
        .unwrap()
        .iter()
        .all(|d| d["delay"]["kind"] != "io"));
}

/// Claim: `--pid` of a process whose name is not UTF-8 keeps its name (U+FFFD for the
/// byte that is not) and the CPU it last ran on (/proc/70/task/70/stat: CPU 3) beside
/// the one it was switched in on (CPU 1).
#[test]
fn a_task_name_that_is_not_utf8_keeps_its_cpus() {
    let root = ours_with(RECORDS_V2);
    let task = root.path().join("70/task/70");
    fs::create_dir_all(&task).unwrap();
    fs::write(root.path().join("70/comm"), b"d\xffd\n").unwrap();
    let mut fields: Vec<String> = (3..=52).map(|n| n.to_string()).collect();
    fields[39 - 3] = "3".into();
    let mut stat = b"70 (d\xffd) ".to_vec();
    stat.extend(fields.join(" ").bytes());
    fs::write(task.join("stat"), stat).unwrap();
    let j = explain_json_in(&root, &["--pid", "70"]);
    let d = task_delay(&j);
    assert_eq!(d["delay"]["task"], "d\u{fffd}d[70]");
    assert_eq!(d["delay"]["cpus"], serde_json::json!([1, 3]));
}

/// Claim: `--pid` of a process stands for all its threads: sched_switch names thread
/// ids, so process 70 whose thread 72 was switched in on CPU 0 (and 70 on CPU 1) is
/// joined on CPUs 0 and 1, the thread's switch said as such.
#[test]
fn a_processs_threads_are_looked_up_by_their_ids() {
    let root = ours_with(RECORDS_V2);
    for t in ["70/task/70", "70/task/72"] {
        fs::create_dir_all(root.path().join(t)).unwrap();
    }
    fs::write(root.path().join("70/comm"), "dd\n").unwrap();
    let first = TRACE.find("              dd-70      [000]").unwrap();
    let text = format!(
        "{}          <idle>-0       [000] d..2.     3.910000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=dd next_pid=72 next_prio=120\n{}",
        &TRACE[..first],
        &TRACE[first..]
    );
    let trace = root.path().join("threads.txt");
    fs::write(&trace, text).unwrap();
    let sys = sysfs();
    let j = json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--pid", "70", "--from"])
            .arg(&trace),
    );
    let d = task_delay(&j);
    assert_eq!(d["delay"]["task"], "dd[70]");
    assert_eq!(d["delay"]["cpus"], serde_json::json!([0, 1]), "{d}");
    let evidence = d["delay"]["evidence"].to_string();
    assert!(
        evidence.contains("72 (a thread of 70) switched in on CPU 0"),
        "{evidence}"
    );
}

/// Claim: `--cgroup PATH` joins the span on the CPUs its tasks (cgroup.procs under
/// sysfs's fs/cgroup) were switched in on: pid 70 on CPU 1, so the window of CPU 1.
#[test]
fn a_cgroup_is_joined_on_the_cpus_its_tasks_ran_on() {
    let (root, trace) = with_trace(TRACE);
    let sys = sysfs();
    let cg = sys.path().join("fs/cgroup/system.slice/dd.service");
    fs::create_dir_all(&cg).unwrap();
    fs::write(cg.join("cgroup.procs"), "70\n").unwrap();
    let j = json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args([
                "explain",
                "--json",
                "--cgroup",
                "/system.slice/dd.service",
                "--from",
            ])
            .arg(&trace),
    );
    let d = task_delay(&j);
    assert_eq!(d["delay"]["task"], "cgroup /system.slice/dd.service");
    assert_eq!(d["delay"]["cpus"], serde_json::json!([1]));
    assert_eq!(d["windows"][0]["window"]["cpu"], 1);
    // A cgroup that is not there is refused in one sentence.
    let out = cli(root.path())
        .env("TRACE_IRQOFF_SYSFS", sys.path())
        .args(["explain", "--cgroup", "nosuch", "--from"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read the cgroup's tasks"));
}

/// `explain --from TRACE ARGS --json` in the proc root `root`.
fn explain_json_in(root: &TempDir, args: &[&str]) -> serde_json::Value {
    let trace = root.path().join("trace.txt");
    fs::write(&trace, TRACE).unwrap();
    let sys = sysfs();
    json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--from"])
            .arg(&trace)
            .args(args),
    )
}

/// A fake tracefs whose instance `trace_irqoff_explain_PID` for the pid of the command
/// `explain --json ARGS` holds the block and softirq events, and `stats` that say the
/// ring of CPU 1 overran by `overrun`; the command started (by a shell that makes the
/// instance, as the kernel would on mkdir, and execs it: the pid stays), its instance,
/// the tracefs and the sysfs kept alive.
fn explain_traced(
    root: &TempDir,
    args: &[&str],
    overrun: u64,
) -> (std::process::Child, std::path::PathBuf, TempDir, TempDir) {
    let tracefs = TempDir::new().unwrap();
    let sys = sysfs();
    let mut script = String::from("i=\"$TRACEFS/instances/trace_irqoff_explain_$$\"\n");
    for ev in [
        "irq/softirq_raise",
        "irq/softirq_entry",
        "block/block_rq_issue",
        "block/block_rq_complete",
    ] {
        script += &format!("mkdir -p \"$i/events/{ev}\" && echo 0 > \"$i/events/{ev}/enable\"\n");
    }
    script += &format!(
        "mkdir -p \"$i/per_cpu/cpu0\" \"$i/per_cpu/cpu1\"\n\
         printf 'entries: 3\\noverrun: 0\\n' > \"$i/per_cpu/cpu0/stats\"\n\
         printf 'entries: 9\\noverrun: {overrun}\\n' > \"$i/per_cpu/cpu1/stats\"\n\
         exec \"$@\"\n"
    );
    let child = std::process::Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root.path())
        .args(["explain", "--json"])
        .args(args)
        .env("TRACEFS", tracefs.path())
        .env("TRACE_IRQOFF_TRACEFS", tracefs.path())
        .env("TRACE_IRQOFF_SYSFS", sys.path())
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let inst = tracefs
        .path()
        .join(format!("instances/trace_irqoff_explain_{}", child.id()));
    let on = inst.join("events/block/block_rq_complete/enable");
    for _ in 0..300 {
        if fs::read_to_string(&on).is_ok_and(|s| s == "1") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert_eq!(
        fs::read_to_string(&on).unwrap(),
        "1",
        "the events were not turned on"
    );
    // The fake's trace file gets what a real one would hold once the events are on (the
    // command empties it before turning them on).
    fs::write(inst.join("trace"), TRACE).unwrap();
    (child, inst, tracefs, sys)
}

/// Claim: `--for` traces in an instance of its own, named by its pid (trace_clock mono,
/// the softirq and block events on), turns its events off again and tries to remove it;
/// what its trace held is joined; an overrun of its own ring (CPU 1's stats) is said in
/// the notes and the limits.
#[test]
fn for_traces_in_an_instance_of_its_own() {
    let root = ours_with(RECORDS_V2);
    let (child, inst, _tracefs, _sys) = explain_traced(&root, &["--for", "2s"], 42);
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        fs::read_to_string(inst.join("trace_clock")).unwrap(),
        "mono"
    );
    assert_eq!(
        fs::read_to_string(inst.join("events/irq/softirq_raise/enable")).unwrap(),
        "0"
    );
    assert_eq!(
        delay(&j, "softirq", 3_940_000_000)["windows"][0]["window"]["cpu"],
        0
    );
    assert_eq!(j["limits"]["trace_lost"], 42);
    let notes = j["notes"].to_string();
    assert!(
        notes.contains("the trace's own ring overran and lost 42 events (42 on CPU 1)"),
        "{notes}"
    );
    // A fake tracefs keeps the files the kernel's would take away with the instance: the
    // removal of this run's instance was tried and said.
    assert!(
        notes.contains(&format!(
            "could not remove the tracefs instance {}",
            inst.display()
        )),
        "{notes}"
    );
}

/// Claim: SIGTERM (as Ctrl-C) ends the span early: the events are turned off, the
/// instance's removal is tried, the answer covers what was traced and says it was
/// interrupted, and the exit status is 130.
#[test]
fn a_signal_ends_the_trace_and_removes_the_instance() {
    let root = ours_with(RECORDS_V2);
    let (child, inst, _tracefs, _sys) = explain_traced(&root, &["--for", "60s"], 0);
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        fs::read_to_string(inst.join("events/block/block_rq_issue/enable")).unwrap(),
        "0"
    );
    let notes = j["notes"].to_string();
    assert!(notes.contains("interrupted after"), "{notes}");
    assert!(
        notes.contains("could not remove the tracefs instance"),
        "{notes}"
    );
    assert!(j.get("limits").and_then(|l| l.get("trace_lost")).is_none());
    assert_eq!(
        delay(&j, "softirq", 3_940_000_000)["windows"][0]["window"]["cpu"],
        0
    );
}

/// Claim: a saved trace of another clock than mono (a trace_clock line before its events)
/// is refused in one sentence, exit status 2; one of mono is read; one that does not say
/// is read with a note; a task name that is not UTF-8 is read, not refused.
#[test]
fn from_checks_the_clock_and_reads_any_task_name() {
    let root = ours_with(RECORDS_V2);
    let sys = sysfs();
    let run = |text: Vec<u8>| {
        let trace = root.path().join("clocked.txt");
        fs::write(&trace, text).unwrap();
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--from"])
            .arg(&trace)
            .output()
            .unwrap()
    };
    let boot =
        run(format!("local global counter uptime perf mono mono_raw [boot]\n{TRACE}").into_bytes());
    let err = String::from_utf8_lossy(&boot.stderr);
    assert_eq!(boot.status.code(), Some(2), "{err}");
    assert!(
        err.contains("was traced with trace_clock boot, not mono") && err.contains("hint: "),
        "{err}"
    );
    let mono = run(format!("# trace_clock: mono\n{TRACE}").into_bytes());
    assert!(mono.status.success());
    let j: serde_json::Value = serde_json::from_slice(&mono.stdout).unwrap();
    assert!(!j["notes"].to_string().contains("does not say its clock"));
    let mut bytes = TRACE
        .replace("dd-70      [003]", "d\u{1}-70      [003]")
        .into_bytes();
    let at = bytes.iter().position(|&b| b == 1).unwrap();
    bytes[at] = 0xff;
    let odd = run(bytes);
    assert!(
        odd.status.success(),
        "{}",
        String::from_utf8_lossy(&odd.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&odd.stdout).unwrap();
    assert_eq!(
        delay(&j, "io", 5_400_000_000)["delay"]["task"],
        "d\u{fffd}-70"
    );
    assert!(j["notes"].to_string().contains("does not say its clock"));
}

/// Claim: the verdict comes first and sets the exit status: yes (0) when a delay was
/// held by a window, with the worst window named, and "yes" in --json; no (4) for a
/// 60 ms request on CPU 0 with no window there, naming it as the largest delay;
/// unknown (5) for a 5 ms softirq only, too short to tell.
#[test]
fn the_verdict_comes_first_with_its_exit_status() {
    let root = ours_with(RECORDS_V2);
    let sys = sysfs();
    let run = |text: &str, json: bool| {
        let trace = root.path().join("verdict.txt");
        fs::write(&trace, text).unwrap();
        let mut c = cli(root.path());
        c.env("TRACE_IRQOFF_SYSFS", sys.path()).arg("explain");
        if json {
            c.arg("--json");
        }
        c.arg("--from").arg(&trace).output().unwrap()
    };
    let yes = run(TRACE, true);
    assert_eq!(yes.status.code(), Some(0));
    let j: serde_json::Value = serde_json::from_slice(&yes.stdout).unwrap();
    assert_eq!(j["verdict"], "yes");
    assert!(
        j["verdict_line"]
            .as_str()
            .unwrap()
            .starts_with("Verdict: yes: 4 of 7 delays were held by irq-off windows; the worst, a "),
        "{j}"
    );
    let no_trace = "\
  dd-70 [000] ..... 4.500000: block_rq_issue: 252,0 R 4096 () 4096 + 8 none,0,0 [dd]
  <idle>-0 [000] ..s1. 4.560000: block_rq_complete: 252,0 R () 4096 + 8 none,0,0 [0]
";
    let no = run(no_trace, false);
    assert_eq!(no.status.code(), Some(4));
    let text = String::from_utf8(no.stdout).unwrap();
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("Verdict: no: the 1 delay was not held by an irq-off window;"),
        "{text}"
    );
    assert!(
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .contains("the largest: I/O on 252:0 by dd-70 took 60.000 ms from 4.500000 s."),
        "{text}"
    );
    let short = "\
  <idle>-0 [002] d.h1. 5.300000: softirq_raise: vec=1 [action=TIMER]
  <idle>-0 [002] ..s1. 5.305000: softirq_entry: vec=1 [action=TIMER]
";
    let unknown = run(short, true);
    assert_eq!(unknown.status.code(), Some(5));
    let j: serde_json::Value = serde_json::from_slice(&unknown.stdout).unwrap();
    assert_eq!(j["verdict"], "unknown");
}

/// Claim: a pause of the whole VM the module counted (a stall event in its ring,
/// 4.520..4.700 s) that overlaps a 60 ms request on CPU 0 with no window there is joined
/// with it: "held by a pause of the whole VM", in the text and in --json, and the
/// request is then not said to be unexplained; the verdict is still no (exit status 4):
/// a pause is not an irq-off window.
#[test]
fn a_pause_of_the_whole_vm_is_joined() {
    let (root, trace) = with_trace(
        "\
  dd-70 [000] ..... 4.500000: block_rq_issue: 252,0 R 4096 () 4096 + 8 none,0,0 [dd]
  <idle>-0 [000] ..s1. 4.560000: block_rq_complete: 252,0 R () 4096 + 8 none,0,0 [0]
",
    );
    let ring = ring_root(
        "# entries-in-buffer/entries-written: 1/1   #P:4\n          <idle>-0       [000] d.h1.     4.700000: stall: cpu=0 start_ns=4520000000 end_ns=4700000000 length_ns=180000000\n",
    );
    let mut c = cli_ring(root.path(), ring.path());
    let out = c
        .args(["explain", "--json", "--from"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = delay(&j, "io", 4_500_000_000);
    assert_eq!(
        d["pauses"],
        serde_json::json!([{"start_ns": 4_520_000_000u64, "end_ns": 4_700_000_000u64, "overlap_ns": 40_000_000}])
    );
    assert!(d.get("not_explained").is_none(), "{d}");
    let mut c = cli_ring(root.path(), ring.path());
    let out = c.args(["explain", "--from"]).arg(&trace).output().unwrap();
    let flat = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        flat.contains("held by a pause of the whole VM of 180.000 ms from 4.520000 s (a stall the module counted), overlapping it 40.000 ms"),
        "{flat}"
    );
    assert!(
        flat.contains("took 60.000 ms from 4.500000 s, held by a pause of the whole VM."),
        "{flat}"
    );
}

/// Claim: readers of the same sector on both CPUs (CPU 1 issues first, CPU 0 right after,
/// CPU 0's request completes in 20 ms, CPU 1's is held until 4.040 s by CPU 1's
/// hardirq-off window) are two requests: with --min 50 the one CPU 1 held back is found,
/// issued and completed on CPU 1, and explained by irq_test's window.
#[test]
fn readers_of_one_sector_on_both_cpus_are_two_delays() {
    let (root, trace) = with_trace(
        "\
  cat-80 [001] ..... 3.950000: block_rq_issue: 252,0 R 4096 () 2048 + 8 none,0,0 [cat]
  cat-81 [000] ..... 3.951000: block_rq_issue: 252,0 R 4096 () 2048 + 8 none,0,0 [cat]
  <idle>-0 [000] d.h1. 3.971000: block_rq_complete: 252,0 R () 2048 + 8 none,0,0 [0]
  <idle>-0 [001] d.h1. 4.040000: block_rq_complete: 252,0 R () 2048 + 8 none,0,0 [0]
",
    );
    let sys = sysfs();
    let j = json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--min", "50", "--from"])
            .arg(&trace),
    );
    assert_eq!(j["delays"].as_array().unwrap().len(), 1, "{j}");
    let d = delay(&j, "io", 3_950_000_000);
    assert_eq!(d["delay"]["end_ns"], 4_040_000_000u64);
    assert_eq!(d["delay"]["issue_cpu"], 1);
    assert_eq!(d["delay"]["end_cpu"], 1);
    assert_eq!(d["delay"]["task"], "cat-80");
    assert_eq!(d["windows"][0]["window"]["comm"], "irq_test");
    assert_eq!(j["verdict"], "yes");
    let all = json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--from"])
            .arg(&trace),
    );
    let cpus: Vec<(u64, u64)> = all["delays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["delay"]["issue_cpu"].as_u64().unwrap(),
                d["delay"]["end_cpu"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(cpus, [(1, 1), (0, 0)], "{all}");
}

/// Claim: a window of the event ring whose culprit ran in an IPI function (its frames
/// below the culprit) is said to be in an IPI function on its CPU, interrupting the task
/// it found there, never "by" it, in the text and as "context" in --json.
#[test]
fn a_window_in_an_ipi_function_interrupted_its_task() {
    let (root, trace) = with_trace(
        "\
  <idle>-0 [002] d.h1. 4.400000: softirq_raise: vec=3 [action=NET_RX]
  <idle>-0 [002] ..s1. 4.520000: softirq_entry: vec=3 [action=NET_RX]
",
    );
    let line = "   kdamond.0-54 [002] d.h1. 4.510000: hardirq_off: cpu=2 latency_ns=100000000 lower_bound=0 pid=54 comm=kdamond.0 cause=- end_ns=4510000000 seq=3 end_shows_culprit=1 frames=irqctx_spin+0x10/0x40 [irqctx];__flush_smp_call_function_queue+0x9a/0x1f0;__sysvec_call_function_single+0x1c/0xb0;kdamond_fn+0x2a/0x300;0x0\n";
    let ring = ring_root(&format!(
        "# entries-in-buffer/entries-written: 1/1   #P:4\n{line}"
    ));
    let mut c = cli_ring(root.path(), ring.path());
    let j = json_of(c.args(["explain", "--json", "--from"]).arg(&trace));
    let w = &delay(&j, "softirq", 4_400_000_000)["windows"][0]["window"];
    assert_eq!(w["context"], "an IPI function", "{j}");
    assert_eq!(
        (w["comm"].as_str(), w["pid"].as_i64()),
        (Some("kdamond.0"), Some(54))
    );
    let mut c = cli_ring(root.path(), ring.path());
    let flat = flat_text(c.args(["explain", "--from"]).arg(&trace));
    assert!(
        flat.contains("a hardirq-off window of 100.000 ms in an IPI function (irqctx_spin) on CPU 2, interrupting kdamond.0[54]"),
        "{flat}"
    );
    assert!(!flat.contains("by kdamond.0"), "{flat}");
}

/// Claim: bad input is one sentence and a hint, exit status 2: a file that is no trace,
/// a file that does not exist, a device that does not exist, --for with --from, and
/// --last (renamed --for: it never looked back).
#[test]
fn bad_input_is_refused_in_one_sentence() {
    let root = ours_with(RECORDS_V2);
    let junk = root.path().join("junk.txt");
    fs::write(&junk, "hello\nworld\n").unwrap();
    let sys = sysfs();
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec!["--from", junk.to_str().unwrap()],
            "is not a tracefs trace: no line reads as an event",
        ),
        (
            vec!["--from", "/nonexistent/trace"],
            "cannot read the trace /nonexistent/trace",
        ),
        (
            vec!["--from", junk.to_str().unwrap(), "--device", "nosuch"],
            "there is no block device nosuch",
        ),
        (
            vec!["--from", junk.to_str().unwrap(), "--for", "1s"],
            "cannot be used with",
        ),
        (
            vec!["--last", "5s"],
            "explain --last 5s is now --for 5s: it traces the next 5s, it does not look back",
        ),
    ];
    // --last is refused as renamed even where the module is not loaded.
    let none = TempDir::new().unwrap();
    let out = cli(none.path())
        .args(["explain", "--last", "5s"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("is now --for 5s"), "{err}");
    for (args, sentence) in cases {
        let out = cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .arg("explain")
            .args(&args)
            .output()
            .unwrap();
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.starts_with("trace-irqoff: ") && err.contains(sentence),
            "{args:?}: {err}"
        );
        assert!(
            err.lines().nth(1).is_some_and(|l| l.starts_with("hint: ")),
            "{err}"
        );
    }
}

/// A sysfs and /proc of a 2-CPU machine with an NVMe drive: nvme0n1 (259:0) with hardware
/// queue 0 for CPU 0 and queue 1 for CPU 1, its controller's MSI vectors 24 (admin, may
/// go to either CPU), 25 (bound to CPU 0) and 26 (bound to CPU 1); its partition
/// nvme0n1p1 (259:1); dm-0 (253:0) stacked on that partition. Files under `root` (the
/// CLI's --proc-root) hold the vectors' affinity.
fn nvme_sysfs(root: &Path) -> TempDir {
    let dir = TempDir::new().unwrap();
    let b = dir.path().join("block/nvme0n1");
    for (q, cpus) in [(0, "0"), (1, "1")] {
        fs::create_dir_all(b.join(format!("mq/{q}"))).unwrap();
        fs::write(b.join(format!("mq/{q}/cpu_list")), format!("{cpus}\n")).unwrap();
    }
    fs::write(b.join("dev"), "259:0\n").unwrap();
    fs::create_dir_all(b.join("nvme0n1p1")).unwrap();
    fs::write(b.join("nvme0n1p1/dev"), "259:1\n").unwrap();
    fs::write(b.join("nvme0n1p1/partition"), "1\n").unwrap();
    for (irq, affinity, effective) in [(24, "0-1", "0"), (25, "0", "0"), (26, "1", "1")] {
        fs::create_dir_all(b.join(format!("device/device/msi_irqs/{irq}"))).unwrap();
        let p = root.join(format!("irq/{irq}"));
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("smp_affinity_list"), format!("{affinity}\n")).unwrap();
        fs::write(p.join("effective_affinity_list"), format!("{effective}\n")).unwrap();
    }
    let dm = dir.path().join("block/dm-0");
    fs::create_dir_all(dm.join("slaves/nvme0n1p1")).unwrap();
    fs::write(dm.join("dev"), "253:0\n").unwrap();
    dir
}

/// Two requests of the NVMe drive while CPU 0 (bh-off) and CPU 1 (hardirq-off) both had
/// windows: one issued and completed on CPU 1, one on CPU 0.
const NVME_TRACE: &str = "\
              dd-70      [001] .....     3.950000: block_rq_issue: 259,0 R 4096 () 2048 + 8 none,0,0 [dd]
              dd-72      [000] .....     3.960000: block_rq_issue: 259,0 R 4096 () 9000 + 8 none,0,0 [dd]
          <idle>-0       [001] d.h1.     4.040000: block_rq_complete: 259,0 R () 2048 + 8 none,0,0 [0]
          <idle>-0       [000] d.h1.     4.045000: block_rq_complete: 259,0 R () 9000 + 8 none,0,0 [0]
";

/// `explain --from NVME_TRACE ARGS --json` against the NVMe machine.
fn nvme_json(args: &[&str]) -> serde_json::Value {
    let (root, trace) = with_trace(format!("trace_clock: [mono]\n{NVME_TRACE}"));
    let sys = nvme_sysfs(root.path());
    json_of(
        cli(root.path())
            .env("TRACE_IRQOFF_SYSFS", sys.path())
            .args(["explain", "--json", "--from"])
            .arg(&trace)
            .args(args),
    )
}

/// The CPUs of the windows that explain `d`.
fn window_cpus(d: &serde_json::Value) -> Vec<u64> {
    d["windows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["window"]["cpu"].as_u64().unwrap())
        .collect()
}

/// Claim: on an NVMe drive (a vector per queue), a request issued on CPU 1 goes through
/// queue 1 and vector 26 to CPU 1, and is explained by CPU 1's window only, never by the
/// window CPU 0 had at the same time; the request of CPU 0 by CPU 0's only. With and
/// without --device (every device seen is followed).
#[test]
fn a_request_on_cpu_1_is_never_explained_by_cpu_0() {
    for args in [&[][..], &["--device", "nvme0n1"][..]] {
        let j = nvme_json(args);
        let one = delay(&j, "io", 3_950_000_000);
        assert_eq!(one["delay"]["cpus"], serde_json::json!([1]), "{args:?} {j}");
        assert_eq!(window_cpus(one), vec![1], "{args:?} {j}");
        let ev = one["delay"]["evidence"][0].as_str().unwrap();
        assert_eq!(
            ev,
            "issued on CPU 1 (hardware queue 1 of CPUs 1, irq 26 to CPU 1), completed on CPU 1"
        );
        let zero = delay(&j, "io", 3_960_000_000);
        assert_eq!(window_cpus(zero), vec![0], "{args:?} {j}");
    }
}

/// Claim: a partition and a dm device stacked on it stand for the disk below: their
/// requests are the disk's (the block events name the disk), and the answer says what
/// they resolved to; a device that does not exist is refused in one sentence with a hint.
#[test]
fn partitions_and_stacked_devices_resolve_to_their_disk() {
    for (dev, says) in [
        ("nvme0n1p1", "nvme0n1p1 is a partition of nvme0n1 (259:0)"),
        ("dm-0", "dm-0 is stacked on nvme0n1 (259:0)"),
        ("253:0", "253:0 is stacked on nvme0n1 (259:0)"),
    ] {
        let j = nvme_json(&["--device", dev]);
        assert_eq!(j["delays"].as_array().unwrap().len(), 2, "{dev} {j}");
        let notes = j["notes"].to_string();
        assert!(notes.contains(says), "{dev}: {notes}");
    }
    let (root, trace) = with_trace(format!("trace_clock: [mono]\n{NVME_TRACE}"));
    let sys = nvme_sysfs(root.path());
    let out = cli(root.path())
        .env("TRACE_IRQOFF_SYSFS", sys.path())
        .args(["explain", "--device", "sdz", "--from"])
        .arg(&trace)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("there is no block device sdz"), "{err}");
}

const WAKEUP_TRACE: &str = include_str!("../fixtures/wakeup-trace.txt");

/// A bh-off window of 100 ms on CPU `cpu` in the event ring, 4.190000..4.290000 s, by
/// hog[500] in irqoff_sample_softirq_window.
pub(crate) fn bh_off_ring(cpu: u32) -> TempDir {
    let line = format!("             hog-500     [00{cpu}] ..s1.     4.290000: softirq_off: cpu={cpu} latency_ns=100000000 lower_bound=0 pid=500 comm=hog cause=bh-off end_ns=4290000000 seq=1 end_shows_culprit=1 frames=irqoff_sample_softirq_window+0x2d/0x53 [irqoff_sample];0x0\n");
    ring_root(&format!(
        "# entries-in-buffer/entries-written: 1/1   #P:4\n{line}"
    ))
}

/// A /proc under the module's files (records-v2) where process cat (300) has the threads
/// 300 and 301.
pub(crate) fn cat_root() -> TempDir {
    let root = ours_with(RECORDS_V2);
    for t in ["300", "301"] {
        fs::create_dir_all(root.path().join("300/task").join(t)).unwrap();
    }
    fs::write(root.path().join("300/comm"), "cat\n").unwrap();
    fs::write(root.path().join("trace.txt"), WAKEUP_TRACE).unwrap();
    root
}

/// `explain --wakeups --from WAKEUP_TRACE ARGS`, the event ring holding a bh-off window
/// on `ring_cpu`, in `root` with sysfs `sys`.
pub(crate) fn wakeups_cmd(root: &TempDir, sys: &Path, ring: &TempDir, args: &[&str]) -> Command {
    let mut c = cli_ring(root.path(), ring.path());
    c.env("TRACE_IRQOFF_SYSFS", sys)
        .args(["explain", "--wakeups", "--from"])
        .arg(root.path().join("trace.txt"))
        .args(args);
    c
}

/// The wake-up of thread `tid` starting at `start_ns` in an answer.
fn wakeup(j: &serde_json::Value, tid: u64, start_ns: u64) -> &serde_json::Value {
    j["wakeups"]["wakeups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["tid"] == tid && w["start_ns"] == start_ns)
        .unwrap_or_else(|| panic!("no wake-up of {tid} at {start_ns} in {j}"))
}

/// The phases of wake-up `w`: (phase, cpu, start_ns, end_ns, share_pct).
fn phases(w: &serde_json::Value) -> Vec<(String, u64, u64, u64, u64)> {
    w["phases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["phase"].as_str().unwrap().to_string(),
                p["cpu"].as_u64().unwrap(),
                p["start_ns"].as_u64().unwrap(),
                p["end_ns"].as_u64().unwrap(),
                p["share_pct"].as_u64().unwrap(),
            )
        })
        .collect()
}

/// Claim: `--wakeups --pid 300` follows both threads of the process (/proc/300/task: 300
/// and 301), not dd's (400): three wake-ups, slowest first. The timer wake-up of 300
/// starts at its timer's expires (3.95 s) and its lateness to the expiry (4.03342 s) on
/// CPU 1 is explained by CPU 1's hardirq-off window, never by CPU 0's bh-off window of
/// the same time. The remote wake of 301 (waking on CPU 0, wakeup through the IPI on
/// CPU 1) waits in CPU 1's run queue behind hog[500], held by the bh-off window there;
/// its delivery, an IPI, is not explained by that softirq-off window. The local wake
/// of 300 is too short to tell. Each wake-up's shares add up to 100.
#[test]
fn wakeups_are_split_into_phases_joined_on_their_cpus() {
    let root = cat_root();
    let sys = sysfs();
    let ring = bh_off_ring(1);
    let j = json_of(
        wakeups_cmd(&root, sys.path(), &ring, &["--json", "--pid", "300"])
            .arg("--min")
            .arg("0"),
    );
    let w = &j["wakeups"];
    assert_eq!(w["of"], "cat[300]");
    assert_eq!(w["threads"], serde_json::json!([300, 301]));
    let all: Vec<(u64, u64)> = w["wakeups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["tid"].as_u64().unwrap(), x["start_ns"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        all,
        [
            (301, 4_200_000_000),
            (300, 3_950_000_000),
            (300, 4_500_000_000)
        ]
    );
    let timer = wakeup(&j, 300, 3_950_000_000);
    assert_eq!(timer["expires_ns"], 3_950_000_000u64);
    assert_eq!(
        phases(timer),
        [
            (
                "timer-lateness".into(),
                1,
                3_950_000_000,
                4_033_420_000,
                100
            ),
            ("delivery".into(), 1, 4_033_420_000, 4_033_470_000, 0),
            ("run-queue".into(), 1, 4_033_470_000, 4_033_500_000, 0),
        ]
    );
    let late = &timer["phases"][0];
    assert_eq!(window_cpus(late), vec![1]);
    assert_eq!(late["windows"][0]["window"]["comm"], "irq_test");
    assert_eq!(
        late["windows"][0]["overlap_ns"],
        4_033_412_000u64 - 3_950_000_000
    );
    let remote = wakeup(&j, 301, 4_200_000_000);
    assert_eq!(remote["task"], "cat worker[301]");
    assert_eq!(
        (
            remote["waker_cpu"].as_u64(),
            remote["target_cpu"].as_u64(),
            remote["ipi"].as_bool()
        ),
        (Some(0), Some(1), Some(true))
    );
    assert_eq!(
        phases(remote),
        [
            ("delivery".into(), 1, 4_200_000_000, 4_200_100_000, 0),
            ("run-queue".into(), 1, 4_200_100_000, 4_290_100_000, 100),
        ]
    );
    assert_eq!(remote["phases"][0]["windows"], serde_json::json!([]));
    let rq = &remote["phases"][1];
    assert_eq!(rq["ran_meanwhile"], serde_json::json!(["hog[500]"]));
    assert_eq!(rq["windows"][0]["window"]["cause"], "bh-off");
    assert_eq!(rq["windows"][0]["window"]["cpu"], 1);
    assert_eq!(rq["windows"][0]["overlap_ns"], 89_900_000);
    let local = wakeup(&j, 300, 4_500_000_000);
    assert_eq!(
        (local["waker_cpu"].as_u64(), local["ipi"].as_bool()),
        (Some(1), Some(false))
    );
    assert_eq!(local["phases"][1]["too_short"], true);
    for x in w["wakeups"].as_array().unwrap() {
        let sum: u64 = phases(x).iter().map(|p| p.4).sum();
        assert_eq!(sum, 100, "{x}");
    }
    assert_eq!(j["verdict"], "yes");
    assert!(
        j["verdict_line"]
            .as_str()
            .unwrap()
            .starts_with("Verdict: yes: 2 of 3 wake-ups were held by irq-off windows; the worst, a softirq-off (bh-off) window of 100.000 ms on CPU 1 by hog[500]"),
        "{}",
        j["verdict_line"]
    );
    // --min applies to the whole wake-up: the local one of 0.5 ms is left out at 1 ms.
    let j = json_of(&mut wakeups_cmd(
        &root,
        sys.path(),
        &ring,
        &["--json", "--pid", "300"],
    ));
    assert_eq!(j["wakeups"]["wakeups"].as_array().unwrap().len(), 2);
}

/// Claim: the same bh-off window on CPU 0 only (the waker's CPU) blames nothing on CPU
/// 1: the remote wake of 301 is then not explained, its run-queue wait "not explained
/// by an irq-off window on CPU 1".
#[test]
fn a_window_on_the_wakers_cpu_blames_nothing() {
    let root = cat_root();
    let sys = sysfs();
    let ring = bh_off_ring(0);
    let j = json_of(&mut wakeups_cmd(
        &root,
        sys.path(),
        &ring,
        &["--json", "--pid", "300"],
    ));
    let remote = wakeup(&j, 301, 4_200_000_000);
    for p in remote["phases"].as_array().unwrap() {
        assert_eq!(p["windows"], serde_json::json!([]), "{p}");
    }
    assert_eq!(
        remote["phases"][1]["not_explained"],
        "not explained by an irq-off window on CPU 1"
    );
}

/// Claim: in text, each wake-up says its total, where it went and, per phase, its
/// length, share, CPU and the window that explains it (or the sentence that none
/// does); the verdict counts wake-ups, on one line; every other line fits 80 columns.
#[test]
fn wakeups_in_text() {
    let root = cat_root();
    let sys = sysfs();
    let ring = bh_off_ring(1);
    let out = wakeups_cmd(&root, sys.path(), &ring, &["--pid", "300", "--min", "0"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.lines().skip(1).all(|l| l.len() <= 80), "{text}");
    assert!(
        text.starts_with("Verdict: yes: 2 of 3 wake-ups were held"),
        "{text}"
    );
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for says in [
        "3 wake-ups of 0.000 ms or more of cat[300] (threads 300-301) from 3.900000 s to 4.500500 s, 2 explained by irq-off windows (3 windows seen, from the records and the event ring)",
        "delivery 0.100 ms (0%) on CPU 1: too short to tell run-queue wait 90.000 ms",
        "wake-up of cat worker[301] took 90.100 ms from 4.200000 s; woken from CPU 0 to CPU 1 through the wake list's IPI; ran on CPU 1",
        "run-queue wait 90.000 ms (100%) on CPU 1, while hog[500] ran: explained by a softirq-off (bh-off) window of 100.000 ms on CPU 1 by hog[500] in irqoff_sample_softirq_window, overlapping it 89.900 ms",
        "wake-up of cat[300] took 83.500 ms from 3.950000 s; by a timer on CPU 1; woken on CPU 1; ran on CPU 1",
        "timer lateness 83.420 ms (100%) on CPU 1: explained by a hardirq-off window of 99.800 ms on CPU 1 by irq_test[90] in irqoff_sample_hardirq_window, overlapping it 83.412 ms",
        "delivery 0.050 ms (0%) on CPU 1: too short to tell",
    ] {
        assert!(flat.contains(says), "{says}\n{text}");
    }
}

/// Claim: `--cgroup` gives processes (cgroup.procs), each followed through all its
/// threads: process 300 in the cgroup gives the wake-ups of 300 and 301; `--wakeups`
/// without a task is refused in one sentence and a hint.
#[test]
fn a_cgroups_processes_are_expanded_to_their_threads() {
    let root = cat_root();
    let sys = sysfs();
    let cg = sys.path().join("fs/cgroup/app.slice/cat.service");
    fs::create_dir_all(&cg).unwrap();
    fs::write(cg.join("cgroup.procs"), "300\n").unwrap();
    let ring = bh_off_ring(1);
    let j = json_of(&mut wakeups_cmd(
        &root,
        sys.path(),
        &ring,
        &["--json", "--cgroup", "/app.slice/cat.service"],
    ));
    assert_eq!(j["wakeups"]["of"], "cgroup /app.slice/cat.service");
    assert_eq!(j["wakeups"]["threads"], serde_json::json!([300, 301]));
    let tids: std::collections::BTreeSet<u64> = j["wakeups"]["wakeups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["tid"].as_u64().unwrap())
        .collect();
    assert_eq!(tids, std::collections::BTreeSet::from([300, 301]));
    let out = wakeups_cmd(&root, sys.path(), &ring, &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--wakeups needs the task whose wake-ups to follow"),
        "{err}"
    );
    assert!(
        err.contains("hint: add --pid PID or --cgroup PATH"),
        "{err}"
    );
}

/// The events a live `--wakeups` trace may turn on in its instance.
const WAKEUP_LIVE_EVENTS: [&str; 9] = [
    "irq/softirq_raise",
    "irq/softirq_entry",
    "block/block_rq_issue",
    "block/block_rq_complete",
    "sched/sched_switch",
    "sched/sched_waking",
    "sched/sched_wakeup",
    "timer/hrtimer_start",
    "timer/hrtimer_expire_entry",
];

/// `explain --json --for 2s --wakeups ARGS` started in `root` with sysfs `sys` and a
/// fake tracefs whose instance (made by a shell that execs the command, as the kernel
/// would on mkdir) has WAKEUP_LIVE_EVENTS; the command, its instance and the tracefs.
fn live_wakeups(
    root: &TempDir,
    sys: &TempDir,
    args: &[&str],
) -> (std::process::Child, std::path::PathBuf, TempDir) {
    let tracefs = TempDir::new().unwrap();
    let mut script = String::from("i=\"$TRACEFS/instances/trace_irqoff_explain_$$\"\n");
    for ev in WAKEUP_LIVE_EVENTS {
        script += &format!("mkdir -p \"$i/events/{ev}\" && echo 0 > \"$i/events/{ev}/enable\"\n");
    }
    script += "exec \"$@\"\n";
    let child = std::process::Command::new("sh")
        .args(["-c", &script, "sh"])
        .arg(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root.path())
        .args(["explain", "--json", "--for", "2s", "--wakeups"])
        .args(args)
        .env("TRACEFS", tracefs.path())
        .env("TRACE_IRQOFF_TRACEFS", tracefs.path())
        .env("TRACE_IRQOFF_SYSFS", sys.path())
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let inst = tracefs
        .path()
        .join(format!("instances/trace_irqoff_explain_{}", child.id()));
    (child, inst, tracefs)
}

/// Claim: a live `--cgroup` trace reads the cgroup's processes and their threads both
/// before and after the span and follows the union: thread 301, which exited during
/// the span, and process 400 (dd), which joined the cgroup during it, are both
/// followed, and their wake-ups shown.
#[test]
fn a_cgroups_members_are_read_before_and_after_the_span() {
    let root = cat_root();
    let sys = sysfs();
    let cg = sys.path().join("fs/cgroup/app.slice/cat.service");
    fs::create_dir_all(&cg).unwrap();
    fs::write(cg.join("cgroup.procs"), "300\n").unwrap();
    let (child, inst, _tracefs) =
        live_wakeups(&root, &sys, &["--cgroup", "/app.slice/cat.service"]);
    wait_for("the wake-up events turned on", || {
        fs::read_to_string(inst.join("events/timer/hrtimer_expire_entry/enable"))
            .is_ok_and(|s| s == "1")
    });
    fs::remove_dir(root.path().join("300/task/301")).unwrap();
    fs::create_dir_all(root.path().join("400/task/400")).unwrap();
    fs::write(cg.join("cgroup.procs"), "300\n400\n").unwrap();
    fs::write(inst.join("trace"), WAKEUP_TRACE).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["wakeups"]["threads"], serde_json::json!([300, 301, 400]));
    wakeup(&j, 301, 4_200_000_000);
    wakeup(&j, 400, 4_250_000_000);
}

/// Claim: a live `--wakeups --pid` trace enables, in its own instance, the events of a
/// wake-up's phases (sched_waking, sched_wakeup, sched_switch, hrtimer_start,
/// hrtimer_expire_entry) besides the softirq ones, not the block events; what it
/// traced is read into wake-ups (the timer wake-up of thread 300, explained).
#[test]
fn a_live_trace_enables_the_wakeup_events() {
    let root = cat_root();
    let sys = sysfs();
    let (child, inst, _tracefs) = live_wakeups(&root, &sys, &["--pid", "300"]);
    let enabled = |ev: &str| {
        fs::read_to_string(inst.join("events").join(ev).join("enable")).is_ok_and(|s| s == "1")
    };
    wait_for("the wake-up events turned on", || {
        enabled("timer/hrtimer_expire_entry")
    });
    let on: Vec<&str> = WAKEUP_LIVE_EVENTS
        .into_iter()
        .filter(|ev| enabled(ev))
        .collect();
    fs::write(inst.join("trace"), WAKEUP_TRACE).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        on,
        [
            "irq/softirq_raise",
            "irq/softirq_entry",
            "sched/sched_switch",
            "sched/sched_waking",
            "sched/sched_wakeup",
            "timer/hrtimer_start",
            "timer/hrtimer_expire_entry",
        ]
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let timer = wakeup(&j, 300, 3_950_000_000);
    assert_eq!(timer["phases"][0]["windows"][0]["window"]["cpu"], 1);
}

/// Claim: `--wakeups` on a saved trace taken without the wake-up events says so in a
/// note, and none is made up: 0 wake-ups, counted as such in the verdict beside the
/// trace's softirq delays.
#[test]
fn a_trace_without_wakeup_events_says_so() {
    let root = cat_root();
    fs::write(root.path().join("trace.txt"), TRACE).unwrap();
    let sys = sysfs();
    let ring = bh_off_ring(1);
    let j = json_of(&mut wakeups_cmd(
        &root,
        sys.path(),
        &ring,
        &["--json", "--pid", "300"],
    ));
    assert_eq!(j["wakeups"]["wakeups"], serde_json::json!([]));
    assert!(
        j["notes"]
            .to_string()
            .contains("the trace holds no sched_waking event"),
        "{j}"
    );
    let line = j["verdict_line"].as_str().unwrap();
    assert!(
        line.contains(" delays and 0 of 0 wake-ups were held"),
        "{line}"
    );
}

/// A sysfs and /proc of a 2-CPU machine with two NICs: eth0, rx queues 0 and 1 whose
/// MSI vectors 41 ("eth0-rx-0") and 42 ("eth0-rx-1") are bound to CPUs 0 and 1, and
/// its link vector 40 ("eth0"), RPS off; eth1, on legacy interrupt 19 (no MSI) bound to
/// CPU 1; and veth0, a virtual NIC (no device, no
/// vector) whose one rx queue steers to CPU 1 by RPS ("00000000,00000002"). Files under
/// `root` (the CLI's --proc-root) hold /proc/interrupts and the vectors' affinity.
fn nic_sysfs(root: &Path) -> TempDir {
    let dir = TempDir::new().unwrap();
    let eth0 = dir.path().join("class/net/eth0");
    for q in 0..2 {
        fs::create_dir_all(eth0.join(format!("queues/rx-{q}"))).unwrap();
        fs::write(
            eth0.join(format!("queues/rx-{q}/rps_cpus")),
            "00000000,00000000\n",
        )
        .unwrap();
        fs::create_dir_all(eth0.join(format!("queues/tx-{q}"))).unwrap();
    }
    let mut interrupts = String::from("           CPU0       CPU1\n");
    for (irq, name, effective) in [
        (40, "eth0", "0"),
        (41, "eth0-rx-0", "0"),
        (42, "eth0-rx-1", "1"),
    ] {
        fs::create_dir_all(eth0.join(format!("device/msi_irqs/{irq}"))).unwrap();
        let p = root.join(format!("irq/{irq}"));
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("smp_affinity_list"), "0-1\n").unwrap();
        fs::write(p.join("effective_affinity_list"), format!("{effective}\n")).unwrap();
        interrupts.push_str(&format!(
            "  {irq}:          7          7  PCI-MSI 52428{irq}-edge      {name}\n"
        ));
    }
    let eth1 = dir.path().join("class/net/eth1");
    fs::create_dir_all(eth1.join("queues/rx-0")).unwrap();
    fs::create_dir_all(eth1.join("device")).unwrap();
    fs::write(eth1.join("device/irq"), "19\n").unwrap();
    fs::create_dir_all(root.join("irq/19")).unwrap();
    fs::write(root.join("irq/19/effective_affinity_list"), "1\n").unwrap();
    interrupts.push_str("  19:          7          7  IO-APIC  19-fasteoi   eth1\n");
    fs::write(root.join("interrupts"), interrupts).unwrap();
    let veth = dir.path().join("class/net/veth0/queues/rx-0");
    fs::create_dir_all(&veth).unwrap();
    fs::write(veth.join("rps_cpus"), "00000000,00000002\n").unwrap();
    dir
}

/// NET_RX held on CPU 1 (3.950..4.034 s, during CPU 1's hardirq-off window and CPU 0's
/// bh-off window), on CPU 0 at the same time, and on CPU 2 (5.060..5.110 s, during CPU
/// 2's ksoftirqd-wait window); a TIMER softirq on CPU 1; a block request.
const NET_TRACE: &str = "\
  <idle>-0 [001] d.h1. 3.950000: softirq_raise: vec=3 [action=NET_RX]
  <idle>-0 [000] d.h1. 3.951000: softirq_raise: vec=3 [action=NET_RX]
  dd-70 [000] ..... 3.952000: block_rq_issue: 252,0 R 4096 () 2048 + 8 none,0,0 [dd]
  <idle>-0 [001] d.h1. 3.960000: softirq_raise: vec=1 [action=TIMER]
  <idle>-0 [001] ..s1. 4.034000: softirq_entry: vec=3 [action=NET_RX]
  <idle>-0 [001] ..s1. 4.034100: softirq_entry: vec=1 [action=TIMER]
  <idle>-0 [000] ..s1. 4.035000: softirq_entry: vec=3 [action=NET_RX]
  <idle>-0 [001] ..s1. 4.040000: block_rq_complete: 252,0 R () 2048 + 8 none,0,0 [0]
  <idle>-0 [002] d.h1. 5.060000: softirq_raise: vec=3 [action=NET_RX]
  <idle>-0 [002] ..s1. 5.110000: softirq_entry: vec=3 [action=NET_RX]
";

/// `explain --from NET_TRACE ARGS` against the NIC machine, to run while the proc root
/// and the sysfs it returns too live.
fn nic_cmd(args: &[&str]) -> (Command, TempDir, TempDir) {
    let (root, trace) = with_trace(format!("trace_clock: [mono]\n{NET_TRACE}"));
    let sys = nic_sysfs(root.path());
    let mut c = cli(root.path());
    c.env("TRACE_IRQOFF_SYSFS", sys.path())
        .args(["explain", "--from"])
        .arg(&trace)
        .args(args);
    (c, root, sys)
}

/// `explain --from NET_TRACE ARGS` against the NIC machine; its output.
fn nic_run(args: &[&str]) -> std::process::Output {
    let (mut c, _root, _sys) = nic_cmd(args);
    c.output().unwrap()
}

/// `explain --from NET_TRACE ARGS --json` against the NIC machine; its JSON.
fn nic_json(args: &[&str]) -> serde_json::Value {
    let out = nic_run(&[args, &["--json"]].concat());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The vector and CPU of each delay of an answer, in its order.
fn delay_kinds(j: &serde_json::Value) -> Vec<(String, u64)> {
    j["delays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let v = d["delay"]["vector"].as_str().unwrap_or("io").to_string();
            (v, d["delay"]["cpus"][0].as_u64().unwrap_or(99))
        })
        .collect()
}

/// Claim: with --netdev eth0 (vectors of rx queues 0 and 1 bound to CPUs 0 and 1) the
/// delays are eth0's NET_RX on CPUs 0 and 1 only: the NET_RX of CPU 2 (held by CPU 2's
/// window), the TIMER softirq and the block request, all there without --netdev, are
/// not; the NET_RX delay on CPU 1 is explained by CPU 1's window only, never by the
/// window CPU 0 had at the same time, and says which queue and vector bring it there.
#[test]
fn a_nics_net_rx_is_joined_on_its_cpus_only() {
    let all = nic_json(&[]);
    let kinds = delay_kinds(&all);
    for other in [("NET_RX", 2), ("TIMER", 1), ("io", 1)] {
        assert!(kinds.contains(&(other.0.to_string(), other.1)), "{kinds:?}");
    }
    let j = nic_json(&["--netdev", "eth0"]);
    assert_eq!(
        delay_kinds(&j),
        vec![("NET_RX".to_string(), 1), ("NET_RX".to_string(), 0)],
        "{j}"
    );
    let one = delay(&j, "softirq", 3_950_000_000);
    assert_eq!(window_cpus(one), vec![1], "{j}");
    assert_eq!(
        one["delay"]["evidence"][0],
        "CPU 1 takes eth0's rx queue 1 (irq 42)"
    );
    let zero = delay(&j, "softirq", 3_951_000_000);
    assert_eq!(window_cpus(zero), vec![0], "{j}");
    let nic = &j["netdev"];
    assert_eq!(nic["name"], "eth0");
    assert_eq!(nic["cpus"], serde_json::json!([0, 1]));
    assert_eq!(nic["queues"][1]["irqs"][0]["name"], "eth0-rx-1");
    assert_eq!(nic["queues"][1]["irqs"][0]["cpus"], serde_json::json!([1]));
    assert!(
        j["verdict_line"]
            .as_str()
            .unwrap()
            .starts_with("Verdict: yes: 2 of 2 delays were held"),
        "{j}"
    );
}

/// Claim: the text says the NIC's path (each rx queue, its vector and name, the CPU it
/// goes to) and that a window on another CPU never explains its delays, within 80
/// columns; the verdict counts its delays only, and a note says the NET_RX delay of CPU
/// 2 is not its.
#[test]
fn a_nics_path_is_said_in_the_text() {
    let (mut c, _root, _sys) = nic_cmd(&["--netdev", "eth0"]);
    let flat = flat_text(&mut c);
    assert!(
        flat.starts_with("Verdict: yes: 2 of 2 delays were held by irq-off windows"),
        "{flat}"
    );
    for says in [
        "eth0 (--netdev): rx queue 0: irq 41 (eth0-rx-0) to CPU 0; rx queue 1: irq 42 (eth0-rx-1) to CPU 1.",
        "Its NET_RX delays are those on CPUs 0-1",
        "a window on another CPU never explains them.",
        "Note: 1 NET_RX delay on CPU 2 is not eth0's",
    ] {
        assert!(flat.contains(says), "{says}: {flat}");
    }
}

/// Claim: a virtual NIC (no vector) receives where RPS steers it: with rps_cpus
/// "00000000,00000002" its NET_RX delays are those of CPU 1, explained by CPU 1's
/// window, and the one on CPU 0 is not its; the answer says it has no interrupt.
#[test]
fn a_virtual_nic_is_joined_on_its_rps_cpus() {
    let j = nic_json(&["--netdev", "veth0"]);
    assert_eq!(delay_kinds(&j), vec![("NET_RX".to_string(), 1)], "{j}");
    let one = delay(&j, "softirq", 3_950_000_000);
    assert_eq!(window_cpus(one), vec![1], "{j}");
    assert_eq!(
        one["delay"]["evidence"][0],
        "CPU 1 is an RPS CPU of veth0's rx queue 0"
    );
    assert_eq!(j["netdev"]["cpus"], serde_json::json!([1]));
    assert_eq!(j["netdev"]["any_cpu"], false);
    let (mut c, _root, _sys) = nic_cmd(&["--netdev", "veth0"]);
    let flat = flat_text(&mut c);
    assert!(
        flat.contains("veth0 (--netdev) has no interrupt (no device/msi_irqs nor device/irq: a virtual NIC): its packets are received as NET_RX on the sending CPU, or where RPS steers them: rx queue 0 to CPU 1."),
        "{flat}"
    );
}

/// Claim: a NIC without MSI is served by its legacy interrupt (device/irq): eth1's
/// interrupt 19 goes to CPU 1, so its NET_RX delays are those of CPU 1; the interrupt's
/// name ties it to no queue, and a note says every vector is taken as its queue's.
#[test]
fn a_nic_on_a_legacy_interrupt_is_served_where_it_goes() {
    let j = nic_json(&["--netdev", "eth1"]);
    assert_eq!(delay_kinds(&j), vec![("NET_RX".to_string(), 1)], "{j}");
    assert_eq!(j["netdev"]["cpus"], serde_json::json!([1]));
    assert_eq!(j["netdev"]["queues"][0]["irqs"][0]["number"], 19);
    assert_eq!(j["netdev"]["queues"][0]["tied"], false);
    assert!(
        j["notes"]
            .to_string()
            .contains("eth1: no vector in /proc/interrupts is named for its rx queue 0"),
        "{j}"
    );
}

/// Claim: a NIC that does not exist is refused in one sentence with a hint, exit status
/// 2, and nothing is printed on stdout.
#[test]
fn an_unknown_nic_is_refused() {
    let out = nic_run(&["--netdev", "eth9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.starts_with("trace-irqoff: there is no network device eth9 in "),
        "{err}"
    );
    assert!(
        err.lines().nth(1).is_some_and(|l| l.starts_with("hint: ")),
        "{err}"
    );
}
