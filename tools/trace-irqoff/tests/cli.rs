// SPDX-License-Identifier: GPL-2.0
//! The CLI binary against fake proc roots: fixtures captured from the real module in the
//! test VM, the original module's formats, and error paths.

use std::fs;
use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;
use tempfile::TempDir;

const RECORDS: &str = include_str!("fixtures/records-v1.txt");
/// Format v2: softirq causes, in-window stacks, overlaps, a window still open.
const RECORDS_V2: &str = include_str!("fixtures/records-v2.txt");

/// A proc root with a module directory holding `files`.
fn proc_root(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().unwrap();
    let m = dir.path().join("trace_irqoff");
    fs::create_dir(&m).unwrap();
    for (name, text) in files {
        fs::write(m.join(name), text).unwrap();
    }
    dir
}

fn ours() -> TempDir {
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

fn ours_v2() -> TempDir {
    ours_with(RECORDS_V2)
}

/// Our module with this `records` file.
fn ours_with(records: &str) -> TempDir {
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
const BOOT_TIME: &str = "2026-05-07T10:00:00Z";

fn cli(root: &Path) -> Command {
    let mut c = Command::cargo_bin("trace-irqoff").unwrap();
    c.arg("--proc-root")
        .arg(root)
        .env("NO_COLOR", "1")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME);
    c
}

fn read(root: &Path, name: &str) -> String {
    fs::read_to_string(root.join("trace_irqoff").join(name)).unwrap()
}

#[test]
fn missing_module_is_one_sentence_and_exit_2() {
    let dir = TempDir::new().unwrap();
    cli(dir.path()).arg("status").assert().code(2).stderr(
        predicate::str::contains("the trace_irqoff module is not loaded")
            .and(predicate::str::contains("hint: load it first")),
    );
}

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

#[test]
fn records_json_names_the_culprit_and_filters() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--json", "--kind", "hard", "--cpu", "1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!v.is_empty());
    for r in &v {
        assert_eq!(r["kind"], "hard");
        assert_eq!(r["cpu"], 1);
    }
    assert!(v[0]["stack"][0]
        .as_str()
        .unwrap()
        .contains("irqoff_sample_hardirq_window"));
    // Worst first by default.
    let lat: Vec<u64> = v
        .iter()
        .map(|r| r["latency_ns"].as_u64().unwrap())
        .collect();
    assert!(lat.windows(2).all(|w| w[0] >= w[1]));
    let out = cli(root.path())
        .args(["records", "--json", "--min", "100000"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "[]");
}

/// A CPU the module does not report is refused, not answered with "no records".
#[test]
fn records_refuses_a_cpu_that_is_not_there() {
    let root = ours_v2();
    cli(root.path())
        .args(["records", "--cpu", "1", "--cpu", "7"])
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("there is no CPU 7 here: the module reports CPUs 0-3")
                .and(predicate::str::contains("hint: pick one of those")),
        );
}

#[test]
fn latency_alias_and_human_records() {
    let root = ours();
    cli(root.path())
        .args(["latency", "--kind", "soft"])
        .assert()
        .success()
        .stdout(predicate::str::contains("softirq-off cpu 1"))
        .stdout(predicate::str::contains("irqoff_sample_softirq_window"));
}

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

#[test]
fn top_ranks_the_sample_first() {
    let root = ours();
    let out = cli(root.path()).args(["top", "--json"]).output().unwrap();
    let v: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v[0]["culprit"]
        .as_str()
        .unwrap()
        .starts_with("irqoff_sample_"));
    cli(root.path())
        .args(["top", "--stack"])
        .assert()
        .success()
        .stdout(predicate::str::contains(" <- "));
}

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

#[test]
fn malformed_records_give_a_clear_error_not_a_panic() {
    for bad in [
        "",
        "trace_irqoff records v9\nend\n",
        "trace_irqoff records v1\nconfig enabled=1\nend\n",
        "trace_irqoff records v1\n",
    ] {
        let root = proc_root(&[
            ("enable", "enabled\n"),
            ("sampling_period", "10ms\n"),
            ("trace_latency", "trace_irqoff_latency: 50ms\n"),
            ("records", bad),
        ]);
        cli(root.path()).arg("records").assert().code(1).stderr(
            predicate::str::contains("could not read the module's records")
                .and(predicate::str::contains("panicked").not()),
        );
    }
}

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

#[test]
fn works_against_the_original_module() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "trace_latency",
            include_str!("fixtures/original-trace_latency.txt"),
        ),
        (
            "distribute",
            include_str!("fixtures/original-distribute.txt"),
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

#[test]
fn completions_and_man_pages() {
    let dir = TempDir::new().unwrap();
    cli(dir.path())
        .args(["completions", "bash"])
        .assert()
        .success()
        .stdout(predicate::str::contains("trace-irqoff"));
    cli(dir.path()).arg("man").assert().success().stdout(
        predicate::str::contains(".TH trace-irqoff 1")
            .and(predicate::str::contains(".SH \"EXIT STATUS\"\n")),
    );
    // Every page the main page refers to exists, with its options and the exit status;
    // the directory is created if it does not exist yet.
    let man1 = dir.path().join("share/man/man1");
    cli(dir.path())
        .args(["man", "--dir"])
        .arg(&man1)
        .assert()
        .success();
    let main = fs::read_to_string(man1.join("trace-irqoff.1")).unwrap();
    let refs: Vec<&str> = main
        .match_indices("trace\\-irqoff\\-")
        .map(|(i, _)| {
            &main[i..i + main[i..]
                .find(|c: char| !(c.is_ascii_lowercase() || c == '\\' || c == '-'))
                .unwrap()]
        })
        .filter(|r| main.contains(&format!("{r}(1)")))
        .collect();
    assert!(refs.len() >= 14, "{refs:?}");
    for r in refs {
        let page = fs::read_to_string(man1.join(format!("{}.1", r.replace("\\-", "-"))))
            .unwrap_or_else(|_| panic!("{r}(1) is missing"));
        assert!(page.contains(".SH \"EXIT STATUS\""), "{r}");
    }
    let record = fs::read_to_string(man1.join("trace-irqoff-record.1")).unwrap();
    assert!(
        record.contains("\\fB\\-\\-until\\fR \\fI<MS>\\fR") && record.contains("\\fB3\\fR"),
        "{record}"
    );
}

/// Completes `words` (the last one being typed) with the generated bash script, in a real
/// bash, and returns the candidates.
fn complete_in_bash(script: &Path, words: &[&str]) -> Vec<String> {
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

/// Bash completes subcommands, their options and the options' values (clap_complete's
/// script for a hyphenated binary completed subcommand names only).
#[test]
fn bash_completes_options_and_values() {
    let dir = TempDir::new().unwrap();
    let script = dir.path().join("trace-irqoff.bash");
    fs::write(&script, stdout(dir.path(), &["completions", "bash"])).unwrap();
    assert_eq!(
        complete_in_bash(&script, &["trace-irqoff", "reco"]),
        ["records", "record"]
    );
    let opts = complete_in_bash(&script, &["trace-irqoff", "records", "--"]);
    for o in ["--kind", "--min", "--since", "--sort", "--depth"] {
        assert!(opts.iter().any(|c| c == o), "{o} in {opts:?}");
    }
    assert_eq!(
        complete_in_bash(
            &script,
            &["trace-irqoff", "--json", "records", "--kind", ""]
        ),
        ["hard", "soft"]
    );
    assert_eq!(
        complete_in_bash(&script, &["trace-irqoff", "tagwait", "o"]),
        ["on", "off"]
    );
    assert_eq!(
        complete_in_bash(&script, &["trace-irqoff", "set", "th"]),
        ["threshold"]
    );
}

/// A shell the completion tests need (`make setup` installs it).
fn shell(name: &str) -> std::process::Command {
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

/// Claim: fish completes subcommands, options and their values from the generated script,
/// in a real fish.
#[test]
fn fish_completes_options_and_values() {
    let dir = TempDir::new().unwrap();
    let script = dir.path().join("trace-irqoff.fish");
    fs::write(&script, stdout(dir.path(), &["completions", "fish"])).unwrap();
    let complete = |line: &str| -> Vec<String> {
        let out = shell("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(format!(
                "source '{}'; complete -C '{line}'",
                script.display()
            ))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| l.split('\t').next().unwrap_or("").to_string())
            .collect()
    };
    let subs = complete("trace-irqoff reco");
    assert!(
        subs.contains(&"records".to_string()) && subs.contains(&"record".to_string()),
        "{subs:?}"
    );
    let opts = complete("trace-irqoff records --");
    for o in [
        "--kind",
        "--min",
        "--since",
        "--sort",
        "--oneline",
        "--stacks",
    ] {
        assert!(opts.iter().any(|c| c == o), "{o} in {opts:?}");
    }
    assert_eq!(complete("trace-irqoff records --kind "), ["hard", "soft"]);
    assert_eq!(
        complete("trace-irqoff records --sort "),
        ["newest", "worst"]
    );
}

/// Claim: zsh's completion system takes the generated script as `trace-irqoff`'s, and its
/// `records` specification has the options with their values.
#[test]
fn zsh_registers_the_completion_with_options_and_values() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("_trace-irqoff"),
        stdout(dir.path(), &["completions", "zsh"]),
    )
    .unwrap();
    let prog = format!(
        "fpath=('{}' $fpath); autoload -Uz compinit; compinit -u -D; print -r -- \"comp=$_comps[trace-irqoff]\"; autoload -Uz +X _trace-irqoff && functions _trace-irqoff",
        dir.path().display()
    );
    let out = shell("zsh").arg("-f").arg("-c").arg(prog).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("comp=_trace-irqoff\n"), "{text}");
    // The records case, up to its end (its specification spans lines).
    let records = text
        .split("(records) _arguments")
        .nth(1)
        .and_then(|t| t.split(";;").next())
        .unwrap_or("");
    for o in ["--kind=", "--min=", "--since=", "--oneline", "--stacks"] {
        assert!(records.contains(o), "{o} in {records}");
    }
    assert!(
        records.contains(r#"--kind=[Only this kind]:KIND:((hard\:"#)
            && records.contains(r#"soft\:"#),
        "{records}"
    );
}

#[test]
fn every_command_has_help_with_an_example() {
    let dir = TempDir::new().unwrap();
    for c in [
        "status",
        "enable",
        "disable",
        "clear",
        "set",
        "records",
        "hist",
        "top",
        "watch",
        "record",
        "report",
        "tagwait",
        "metrics",
        "completions",
        "man",
    ] {
        cli(dir.path())
            .args([c, "--help"])
            .assert()
            .success()
            .stdout(predicate::str::contains("Example: trace-irqoff"));
    }
}

/// `watch` on a disabled module says that nothing new will come, instead of waiting
/// silently.
#[test]
fn watch_says_when_sampling_is_disabled() {
    let root = ours();
    fs::write(root.path().join("trace_irqoff/enable"), "disabled\n").unwrap();
    cli(root.path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "sampling is disabled: no new window will be recorded until `trace-irqoff enable`",
        ));
    cli(ours().path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stderr(predicate::str::contains("disabled").not());
}

/// One duration syntax for every option: units everywhere, a bare number is ms, zero is
/// refused where it means nothing; the module's values are whole ms.
#[test]
fn durations_share_one_syntax() {
    let root = ours();
    for args in [
        &["watch", "--interval", "0"][..],
        &["record", "--duration", "0s"],
        &["top", "--live", "--interval", "0ms"],
        &["records", "--since", "0"],
    ] {
        cli(root.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "is zero: give a duration longer than that",
            ));
    }
    cli(root.path())
        .args(["set", "period", "1.5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'1.5' is not a whole number of milliseconds",
        ));
    cli(root.path())
        .args(["set", "threshold", "1s"])
        .assert()
        .success();
    assert_eq!(read(root.path(), "trace_latency"), "1000\n");
    cli(root.path())
        .args(["watch", "--interval", "1", "--count", "2"])
        .assert()
        .success();
    let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--min", "0.066989s"],
    ))
    .unwrap();
    assert_eq!(v.len(), 1);
}

/// A command line that does not parse gets the same style as every other error: one
/// sentence, a hint, exit status 2.
#[test]
fn command_line_errors_are_one_sentence_and_a_hint() {
    let dir = TempDir::new().unwrap();
    cli(dir.path())
        .args(["records", "--kynd", "hard"])
        .assert()
        .code(2)
        .stderr("trace-irqoff: unexpected argument '--kynd' found\nhint: a similar argument exists: '--kind'; usage: trace-irqoff records --kind <KIND>\n");
    cli(dir.path())
        .arg("bogus")
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with(
            "trace-irqoff: unrecognized subcommand 'bogus'\nhint: ",
        ));
    cli(dir.path())
        .arg("--version")
        .assert()
        .success()
        .stdout(predicate::str::starts_with("trace-irqoff "));
}

/// On a pipe, a window still open is not printed: its record changes at every refresh,
/// and the window is printed once, when it has ended.
#[test]
fn watch_on_a_pipe_prints_ended_windows_only() {
    let root = ours_v2();
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "1"],
    );
    assert!(
        !text.contains("window still open") && !text.contains("kworker/3:1"),
        "{text}"
    );
    assert!(text.contains("softirq-off"), "{text}");
    let json = stdout(
        root.path(),
        &["watch", "--json", "--interval", "10ms", "--count", "1"],
    );
    assert!(!json.is_empty() && !json.contains("kworker/3:1"), "{json}");
    // It ends: its record comes, once.
    let ended = RECORDS_V2.replace(
        "lower_bound=1 latency_ns=57000000",
        "lower_bound=0 latency_ns=61000000",
    );
    let root = with_records(&ended);
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "1"],
    );
    assert_eq!(text.matches("kworker/3:1 (pid 140)").count(), 1, "{text}");
}

#[test]
fn watch_on_a_pipe_prints_each_record_once() {
    let root = ours();
    let w = spawn(
        root.path(),
        &["watch", "--interval", "200ms", "--count", "4"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let out = w.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("trace-irqoff watch:").count(), 1, "{text}");
    assert_eq!(
        text.matches("hardirq-off cpu 1    67 ms").count(),
        1,
        "{text}"
    );
    assert_eq!(
        text.matches("hardirq-off cpu 1    70 ms  hog (pid 7)")
            .count(),
        1,
        "{text}"
    );
    assert!(
        text.trim_end().ends_with("hog_fn+0x1/0x2"),
        "the new record comes last: {text}"
    );
    assert!(!text.contains('\x1b'));
}

#[test]
fn watch_json_is_ndjson_of_records() {
    let root = ours();
    let w = spawn(
        root.path(),
        &["--json", "watch", "--interval", "200ms", "--count", "4"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let out = w.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    // The 5 records of the file, then the new one, each once.
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[5]["latency_ns"], 70_123_456);
    assert_eq!(lines[5]["wall_time"], "2026-05-07T10:00:09.000000Z");
}

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

/// The JSON of `records --json` is a stable interface: it must match the snapshot taken
/// from the fixture (update tests/fixtures/records.json on purpose, never by accident).
/// The snapshot holds the frames as the kernel printed them (`--raw-symbols`).
#[test]
fn records_json_snapshot() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--json", "--sort", "newest", "--raw-symbols"])
        .output()
        .unwrap();
    let got: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let want: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/records.json")).unwrap();
    assert_eq!(got, want);
}

/// By default Rust frames are demangled (v0 here), everywhere a stack is shown; C frames,
/// offsets and modules stay as printed.
#[test]
fn rust_frames_are_demangled_unless_raw() {
    let root = ours();
    let out = cli(root.path())
        .args(["records", "--kind", "hard", "--limit", "1"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x352/0x409 [irqoff_sample]"), "{text}");
    assert!(!text.contains("_RNv"), "{text}");
    assert!(
        text.contains("irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]"),
        "{text}"
    );
    let out = cli(root.path())
        .args(["records", "--kind", "hard", "--limit", "1", "--raw-symbols"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("_RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_main"),
        "{text}"
    );
    let out = cli(root.path())
        .args(["top", "--stack", "--json"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains(
            "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
        ),
        "{text}"
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
    let want: serde_json::Value = serde_json::from_str(include_str!("fixtures/hist.json")).unwrap();
    assert_eq!(got, want);
}

fn stdout(root: &Path, args: &[&str]) -> String {
    let out = cli(root).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// v2 records show the cause, the stack sampled in the window with its task, and the
/// window on another CPU they overlapped.
#[test]
fn v2_records_text() {
    let root = ours_v2();
    let text = stdout(root.path(), &["records", "--cpu", "2", "--limit", "1"]);
    assert_eq!(
        text,
        "softirq-off (ksoftirqd-wait, thread runnable 48 ms) cpu 2    64 ms  my hog (pid 131) ran, ksoftirqd/2 (pid 24) waited  ended 2026-05-07T10:00:05.120000Z (5.120000 s after boot)
    call_timer_fn+0x2a/0x130
    __run_timers+0x21d/0x2c0
    run_timer_softirq+0x2b/0x50
    handle_softirqs+0xd6/0x2a0
    run_ksoftirqd+0x2b/0x40
    smpboot_thread_fn+0xf1/0x1f0
  in the window: my hog-131
    delay_tsc+0x4a/0x80
    irqoff_sample_busy+0x22/0x40 [irqoff_sample]
    <irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x3a0/0x409 [irqoff_sample]
    vfs_write+0x1d7/0x210
    ksys_write+0x75/0xc0
  overlaps softirq-off on CPU 3
true length = LENGTH -5..+11 ms (ksoftirqd-wait)
"
    );
    let text = stdout(root.path(), &["records"]);
    // Worst first: the bh-off window, both its stacks, and the hardirq-off window it overlapped.
    assert!(text.starts_with("softirq-off (bh-off) cpu 0   100 ms  sh (pid 79)  ended 2026-05-07T10:00:04.033490Z (4.033490 s after boot)\n    __local_bh_enable_ip+0x5e/0x80\n"), "{text}");
    assert!(
        text.contains("\n  in the window: sh-79\n    ktime_get+0x3c/0xa0\n"),
        "{text}"
    );
    assert!(
        text.contains("\n  overlaps hardirq-off on CPU 1, 100 ms, irq_test\n"),
        "{text}"
    );
    assert!(text.contains("\nhardirq-off cpu 1   100 ms  irq_test (pid 90)  ended 2026-05-07T10:00:04.033412Z (4.033412 s after boot)\n"), "{text}");
    assert!(
        text.contains("\n  overlaps softirq-off on CPU 0, 100 ms, sh\n"),
        "{text}"
    );
    assert!(text.contains("\nsoftirq-off (ksoftirqd-wait) cpu 2    52 ms  ksoftirqd/2 (pid 24)  ended 2026-05-07T10:00:05.900000Z (5.900000 s after boot)\n"), "{text}");
    assert!(text.contains("\nsoftirq-off (bh-off) cpu 3   57 ms+  kworker/3:1 (pid 140)  open since 2026-05-07T10:00:05.043000Z (5.043000 s after boot)  (window still open)\n  in the window: kworker/3:1-140\n    delay_tsc+0x4a/0x80\n"), "{text}");
    // A hardirq record has no window sample to show.
    assert_eq!(text.matches("in the window:").count(), 3, "{text}");
    // --depth limits both stacks.
    let text = stdout(root.path(), &["records", "--cpu", "0", "--depth", "1"]);
    assert_eq!(text.matches("more frames").count(), 2, "{text}");
    // In-window frames are demangled like the others, unless raw.
    let text = stdout(
        root.path(),
        &["records", "--cpu", "2", "--limit", "1", "--raw-symbols"],
    );
    assert!(text.contains("\n    _RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCs1EKtwoKEMO2_6kernel10miscdevice10MiscDevice10write_iter+0x3a0/0x409 [irqoff_sample]\n"), "{text}");
}

/// The JSON of v2 records, like records_json_snapshot (update tests/fixtures/records-v2.json
/// on purpose only).
#[test]
fn v2_records_json_snapshot() {
    let root = ours_v2();
    let got: serde_json::Value = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--sort", "newest", "--raw-symbols"],
    ))
    .unwrap();
    let want: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/records-v2.json")).unwrap();
    assert_eq!(got, want);
}

#[test]
fn v2_records_json_fields() {
    let root = ours_v2();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let by_cpu = |cpu: u64, lat: u64| {
        v.iter()
            .find(|r| r["cpu"] == cpu && r["latency_ns"] == lat)
            .unwrap()
    };
    let bh = by_cpu(0, 100_111_000);
    assert_eq!(bh["cause"], "bh-off");
    assert_eq!(bh["window_pid"], 79);
    assert_eq!(bh["window_comm"], "sh");
    assert_eq!(bh["window_stack"].as_array().unwrap().len(), 6);
    assert_eq!(
        bh["overlap"],
        serde_json::json!({"cpu": 1, "kind": "hard", "latency_ns": 99_800_123, "pid": 90, "comm": "irq_test"})
    );
    let hard = by_cpu(1, 99_800_123);
    assert_eq!(hard["cause"], serde_json::Value::Null);
    assert_eq!(hard["window_stack"], serde_json::json!([]));
    let wait = by_cpu(2, 64_250_000);
    assert_eq!(wait["cause"], "ksoftirqd-wait");
    assert_eq!(wait["runnable_ns"], 48_000_000);
    assert_eq!(wait["window_comm"], "my hog");
    // Demangled in JSON too.
    assert!(wait["window_stack"][2].as_str().unwrap().starts_with(
        "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
    ));
    assert_eq!(
        wait["overlap"],
        serde_json::json!({"cpu": 3, "kind": "soft", "latency_ns": null, "pid": 0, "comm": ""})
    );
    assert_eq!(by_cpu(2, 52_004_000)["overlap"], serde_json::Value::Null);
    let open = by_cpu(3, 57_000_000);
    assert_eq!(
        (
            open["lower_bound"].as_bool(),
            open["stack"].as_array().unwrap().len()
        ),
        (Some(true), 0)
    );
    // v1 records carry the same fields, empty.
    let root = ours();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    for r in &v {
        assert_eq!(
            (
                &r["cause"],
                &r["runnable_ns"],
                &r["window_stack"],
                &r["overlap"]
            ),
            (
                &serde_json::Value::Null,
                &serde_json::json!(0),
                &serde_json::json!([]),
                &serde_json::Value::Null
            )
        );
    }
}

/// `top` groups softirq records by cause too; ksoftirqd-wait is blamed on what ran in the
/// window instead of the softirq thread.
#[test]
fn v2_top_groups_by_cause() {
    let root = ours_v2();
    let text = stdout(root.path(), &["top"]);
    assert_eq!(
        text,
        "kind         cause           count          worst          total  tasks                    culprit
softirq-off  bh-off              1         100 ms         100 ms  sh                       irqoff_sample_softirq_window
hardirq-off  -                   1         100 ms         100 ms  irq_test                 irqoff_sample_hardirq_window
softirq-off  ksoftirqd-wait      1          64 ms          64 ms  my hog                   irqoff_sample_busy
softirq-off  bh-off              1          57 ms          57 ms  kworker/3:1              irqoff_sample_bh_work
softirq-off  ksoftirqd-wait      1          52 ms          52 ms  ksoftirqd/2              call_timer_fn
true length = LENGTH +0..10 ms (hardirq-off), -5..+10 ms (bh-off), -5..+11 ms (ksoftirqd-wait)
"
    );
    let text = stdout(root.path(), &["top", "--stack"]);
    assert!(text.contains("ksoftirqd-wait      1          64 ms          64 ms  my hog                   delay_tsc <- irqoff_sample_busy <- "), "{text}");
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["top", "--json"])).unwrap();
    assert_eq!(v.len(), 5);
    assert_eq!(
        (&v[0]["kind"], &v[0]["cause"], &v[0]["culprit"]),
        (
            &"soft".into(),
            &"bh-off".into(),
            &"irqoff_sample_softirq_window".into()
        )
    );
    assert_eq!(v[1]["cause"], serde_json::Value::Null);
    assert_eq!(
        (&v[2]["cause"], &v[2]["culprit"], &v[2]["comms"]),
        (
            &"ksoftirqd-wait".into(),
            &"irqoff_sample_busy".into(),
            &serde_json::json!(["my hog"])
        )
    );
    // v1: no causes, as before.
    let root = ours();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["top", "--json"])).unwrap();
    assert!(v.iter().all(|c| c["cause"].is_null()));
}

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

#[test]
fn v2_watch_shows_causes_and_overlaps() {
    let root = ours_v2();
    cli(root.path())
        .args(["watch", "--interval", "10ms", "--count", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "softirq-off (ksoftirqd-wait) cpu 2",
        ))
        .stdout(predicate::str::contains("  in the window: my hog-131\n"))
        .stdout(predicate::str::contains(
            "  overlaps hardirq-off on CPU 1, 100 ms, irq_test\n",
        ));
}

/// Format v2 with the culprit's cgroup id on the cpu 0 and cpu 1 records
/// (`cgroup=4242`, `cgroup=4343`), none on the others (lines of a module before it).
const RECORDS_CGROUP: &str = include_str!("fixtures/records-v2-cgroup.txt");
const CONTAINER: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
const POD: &str = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1234abcd_0000_4000_8000_000000000001.slice";

/// A fake system: ROOT/proc with the module's files and a mountinfo naming a cgroup2
/// mount at /sys/fs/cgroup, and ROOT/sys/fs/cgroup with a service and a pod's container.
/// The records' cgroup ids are the directories' inode numbers, as on cgroup2: cpu 0's the
/// container's, cpu 1's one no directory has (a cgroup removed since). Returns the temp
/// dir, the proc root, and the container's id.
fn cgroup_system() -> (TempDir, std::path::PathBuf, u64) {
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

/// Claim: a record's cgroup id resolves to its path on the cgroup2 mount that the proc
/// root's mountinfo names, by inode number, with what the path says (here a Kubernetes
/// pod's container: UID with dashes, QoS, runtime, container id); an id no directory has
/// is gone; records of a module that gives no id have no cgroup fields at all.
#[test]
fn cgroup_ids_resolve_to_paths_and_pods() {
    let (_dir, proc, id) = cgroup_system();
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&proc, &["records", "--json"])).unwrap();
    let on = |cpu: u64| v.iter().find(|r| r["cpu"] == cpu).unwrap();
    let pod = on(0);
    assert_eq!(pod["cgroup_id"], id);
    assert_eq!(
        pod["cgroup"],
        format!("{POD}/cri-containerd-{CONTAINER}.scope")
    );
    assert_eq!(
        pod["cgroup_class"],
        serde_json::json!({
            "kind": "kubernetes",
            "pod_uid": "1234abcd-0000-4000-8000-000000000001",
            "qos": "burstable",
            "runtime": "containerd",
            "container_id": CONTAINER,
        })
    );
    let gone = on(1);
    assert_eq!(
        (gone["cgroup_id"].as_u64(), gone["cgroup_gone"].as_bool()),
        (Some(999_999_999_999), Some(true))
    );
    assert!(gone.get("cgroup").is_none(), "{gone}");
    for r in v.iter().filter(|r| r["cpu"] == 2 || r["cpu"] == 3) {
        for key in ["cgroup_id", "cgroup", "cgroup_class", "cgroup_gone"] {
            assert!(r.get(key).is_none(), "{key} in {r}");
        }
    }
}

/// Claim: the one-line view ends a window's line with its task's cgroup in a few words
/// (the pod and container, or the id and "(gone)"), and says nothing for records without
/// one; the stacked view gives the path and what it is under the record's first line.
#[test]
fn records_views_show_the_cgroup() {
    let (_dir, proc, _) = cgroup_system();
    let text = stdout(&proc, &["records", "--oneline"]);
    let line = |cpu: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(2) == Some(cpu))
            .unwrap_or_else(|| panic!("no cpu {cpu} line in\n{text}"))
            .to_string()
    };
    assert!(
        line("0").ends_with(
            " sh[79] in pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab"
        ),
        "{text}"
    );
    assert!(
        line("1").ends_with(" irq_test[90] in cgroup 999999999999 (gone)"),
        "{text}"
    );
    assert!(!line("2").contains(" in "), "{text}");
    let text = stdout(&proc, &["records", "--cpu", "0"]);
    let second = text.lines().nth(1).unwrap_or_default();
    assert_eq!(
        second,
        format!("  cgroup of sh: {POD}/cri-containerd-{CONTAINER}.scope (pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab)")
    );
    let text = stdout(&proc, &["records", "--cpu", "2"]);
    assert!(!text.contains("cgroup"), "{text}");
}

/// Claim: without a cgroup2 mount to look in (a proc root with no mountinfo, as for a
/// file read on another machine) the id is shown as it is, neither resolved nor gone.
#[test]
fn unresolved_cgroup_ids_are_shown_as_ids() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("records", RECORDS_CGROUP),
    ]);
    let text = stdout(root.path(), &["records", "--oneline"]);
    assert!(
        text.lines().any(|l| l.ends_with(" sh[79] in cgroup 4242")),
        "{text}"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let r = v.iter().find(|r| r["cpu"] == 0).unwrap();
    assert_eq!(r["cgroup_id"], 4242);
    assert!(
        r.get("cgroup").is_none() && r.get("cgroup_gone").is_none(),
        "{r}"
    );
}

/// Claim: `top --by cgroup` has one row per cgroup (kind and cause apart, as for
/// culprits): the path with what it is, the gone id, and `-` for records without one;
/// its JSON names the path and the class; `--stack` is still `--by stack`.
#[test]
fn top_groups_by_cgroup() {
    let (_dir, proc, _) = cgroup_system();
    let text = stdout(&proc, &["top", "--by", "cgroup"]);
    let mut lines = text.lines();
    assert!(
        lines.next().unwrap_or_default().ends_with(" cgroup"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "{POD}/cri-containerd-{CONTAINER}.scope (pod 1234abcd-0000-4000-8000-000000000001 container 0123456789ab)\n"
        )),
        "{text}"
    );
    assert!(text.contains(" cgroup 999999999999 (gone)\n"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with("softirq-off") && l.ends_with(" -")),
        "{text}"
    );
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(&proc, &["top", "--by", "cgroup", "--json"])).unwrap();
    let pod = v
        .iter()
        .find(|c| c["cgroup_class"]["kind"] == "kubernetes")
        .unwrap();
    assert_eq!(
        (pod["culprit"].as_str(), pod["count"].as_u64()),
        (
            Some(format!("{POD}/cri-containerd-{CONTAINER}.scope").as_str()),
            Some(1)
        )
    );
    assert_eq!(
        stdout(&proc, &["top", "--stack"]),
        stdout(&proc, &["top", "--by", "stack"])
    );
    cli(&proc)
        .args(["top", "--stack", "--by", "cgroup"])
        .assert()
        .code(2);
}

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

/// A proc root with the module disabled, period 10 ms, threshold 50 ms.
fn disabled() -> TempDir {
    proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", RECORDS),
    ])
}

fn spawn(root: &Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root)
        .args(args)
        .env("NO_COLOR", "1")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Waits up to 5 s for `cond`.
fn wait_for(what: &str, cond: impl Fn() -> bool) {
    for _ in 0..250 {
        if cond() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("timed out waiting for {what}");
}

fn signal(child: &std::process::Child, sig: &str) {
    assert!(std::process::Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap()
        .success());
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

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

#[test]
fn a_second_record_is_refused_while_one_runs() {
    let root = disabled();
    let first_out = root.path().join("first.json");
    let first = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "60s",
            "--threshold",
            "70",
            "-o",
            first_out.to_str().unwrap(),
        ],
    );
    wait_for("the first record to enable", || {
        read(root.path(), "enable") == "1\n"
    });
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
    let rec = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "8s",
            "--threshold",
            "60",
            "-o",
            out.to_str().unwrap(),
        ],
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

#[test]
fn record_files_appear_whole_or_not_at_all() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("rec.json");
    let folded = dir.path().join("rec.folded");
    fs::write(&out, "old\n").unwrap();
    let rec = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "60s",
            "-o",
            out.to_str().unwrap(),
            "--folded",
            folded.to_str().unwrap(),
        ],
    );
    wait_for("record to enable", || read(root.path(), "enable") == "1\n");
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

#[test]
fn record_restores_after_sigterm_too() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("rec.json");
    let rec = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "60s",
            "--period",
            "5",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    wait_for("record to enable", || read(root.path(), "enable") == "1\n");
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

/// `records` of the v1 fixture with one more hardirq-off window on CPU 1.
fn with_window(ms: u64) -> String {
    RECORDS.replace(
        "\nend\n",
        &format!("\nrecord cpu=1 kind=hard lower_bound=0 latency_ns={} timestamp_ns=9000000000 pid=7 comm=hog frames=1\nframe hog_fn+0x1/0x2\nend\n", ms * 1_000_000 + 123_456),
    )
}

/// Replaces a module file whole, as a read of the real one sees it.
fn replace(root: &Path, name: &str, text: &str) {
    let tmp = root.join(format!(".{name}.new"));
    fs::write(&tmp, text).unwrap();
    fs::rename(tmp, root.join("trace_irqoff").join(name)).unwrap();
}

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

#[test]
fn watch_until_ends_at_a_new_window() {
    let root = ours();
    // Existing records (up to 79 ms) do not count, only new ones.
    let w = spawn(
        root.path(),
        &["watch", "--interval", "50ms", "--until", "60"],
    );
    std::thread::sleep(std::time::Duration::from_millis(300));
    replace(root.path(), "records", &with_window(70));
    let done = w.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(3));
    let text = String::from_utf8(done.stdout).unwrap();
    assert!(text.ends_with("caught a window of at least 60 ms: hardirq-off on CPU 1, 70 ms, hog (pid 7)  ended 2026-05-07T10:00:09.000000Z (9.000000 s after boot)\n"), "{text}");
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
            include_str!("fixtures/original-trace_latency.txt"),
        ),
        (
            "distribute",
            include_str!("fixtures/original-distribute.txt"),
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

type Scrape = openmetrics_parser::MetricsExposition<
    openmetrics_parser::PrometheusType,
    openmetrics_parser::PrometheusValue,
>;

/// The exposition as Prometheus reads it: a real parser of the text format, which also
/// refuses what Prometheus would (non-cumulative histograms, no +Inf bucket, a sum
/// without a count, a duplicate series, inconsistent labels in a family).
fn scrape(text: &str) -> Scrape {
    openmetrics_parser::prometheus::parse_prometheus(text)
        .unwrap_or_else(|e| panic!("{e:?}\n{text}"))
}

fn sample<'a>(
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

fn value(m: &Scrape, family: &str, labels: &[(&str, &str)]) -> f64 {
    match sample(m, family, labels) {
        openmetrics_parser::PrometheusValue::Gauge(n)
        | openmetrics_parser::PrometheusValue::Unknown(n) => n.as_f64(),
        openmetrics_parser::PrometheusValue::Counter(c) => c.value.as_f64(),
        v => panic!("{family} is {v:?}"),
    }
}

fn histogram(
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
fn bucket(h: &openmetrics_parser::HistogramValue, le: f64) -> u64 {
    let b = h
        .buckets
        .iter()
        .find(|b| b.upper_bound == le || (b.upper_bound - le).abs() < 1e-12)
        .unwrap_or_else(|| panic!("no bucket {le} in {h:?}"));
    b.count.as_f64() as u64
}

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
        ("counters", include_str!("fixtures/counters-v1.txt")),
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

#[test]
fn metrics_of_the_original_module_count_its_histograms() {
    let root = proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        (
            "trace_latency",
            include_str!("fixtures/original-trace_latency.txt"),
        ),
        (
            "distribute",
            include_str!("fixtures/original-distribute.txt"),
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
    let alerts = include_str!("../../../Documentation/trace-irqoff-alerts.yml");
    let dashboard = include_str!("../../../Documentation/trace-irqoff-grafana.json");
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

/// Runs the CLI with a pseudo-terminal as stdin, stdout and stderr (colour `auto`, no
/// NO_COLOR), as a person at a terminal does, and returns its exit status and what it wrote.
fn on_a_terminal(root: &Path, args: &[&str]) -> (Option<i32>, String) {
    on_a_terminal_sized(root, args, (50, 200))
}

/// [`on_a_terminal`] with a terminal of `rows` x `cols`.
fn on_a_terminal_sized(
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

#[test]
fn top_live_is_one_table_per_cpu_and_kind() {
    let root = ours();
    // Not on a terminal: one table, no escapes.
    let text = stdout(root.path(), &["top", "--live"]);
    assert!(text.starts_with("trace-irqoff top --live: "), "{text}");
    assert!(text.contains("\n CPU  KIND           EVENTS RECORDED         LAST          MIN          AVG          MAX\n"), "{text}");
    assert!(text.contains("\n   1  hardirq-off         4        3        53 ms        53 ms        58 ms        67 ms\n"), "{text}");
    assert!(text.contains("\n   1  softirq-off         1        2        79 ms        51 ms        65 ms        79 ms\n"), "{text}");
    assert_eq!(text.matches("top --live:").count(), 1);
    assert!(!text.contains('\x1b'));
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(stdout(root.path(), &["top", "--live", "--json"]).trim()).unwrap();
    assert_eq!(rows.len(), 4);
    assert_eq!(
        (
            &rows[2]["cpu"],
            &rows[2]["kind"],
            &rows[2]["events"],
            &rows[2]["max_ns"]
        ),
        (&1.into(), &"hard".into(), &4.into(), &66_988_296.into())
    );
    assert_eq!(rows[2]["last_time"], "2026-05-07T10:00:03.506551Z");
}

#[test]
fn top_live_redraws_in_place_on_a_terminal() {
    let root = ours();
    let (code, text) = on_a_terminal(
        root.path(),
        &["top", "--live", "--interval", "50ms", "--count", "3"],
    );
    assert_eq!(code, Some(0), "{text}");
    // Three refreshes, each from the top left, lines cleared to their end, the header bold.
    assert_eq!(text.matches("\x1b[H").count(), 3, "{text:?}");
    assert_eq!(text.matches("trace-irqoff top --live:").count(), 3);
    assert!(text.contains("\x1b[1mCPU KIND "), "{text:?}");
    assert!(
        text.contains(
            "  1 hardirq-off       4        3     53 ms     53 ms     58 ms     67 ms\x1b[K"
        ),
        "{text:?}"
    );
}

/// Claim: `top --live` on an 80x24 terminal fits: no line over 80 columns, and a redraw
/// never has more lines than the terminal minus one.
#[test]
fn top_live_on_80x24_fits() {
    let root = ours();
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "top",
            "--live",
            "--interval",
            "50ms",
            "--count",
            "2",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    for frame in text.split("\x1b[H").skip(1) {
        let lines: Vec<String> = frame
            .replace("\x1b[K", "")
            .replace("\x1b[J", "")
            .replace("\r\n", "\n")
            .lines()
            .map(str::to_string)
            .collect();
        assert!(lines.len() <= 23, "{frame:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{frame:?}");
    }
}

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

/// Claim: `records` on a terminal is one line per window, cut to the terminal's width (80
/// here), in the order asked for; `--stacks` gives the stacks there, `--oneline` the lines
/// on a pipe, which otherwise keeps the stacks.
#[test]
fn records_on_a_terminal_is_one_line_per_window() {
    let root = ours_v2();
    let (code, text) = on_a_terminal_sized(root.path(), &["--color", "never", "records"], (24, 80));
    assert_eq!(code, Some(0), "{text}");
    let text = text.replace("\r\n", "\n");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with(" END (UTC)    CPU KIND            LENGTH WAIT CULPRIT TASK[PID]"),
        "{text}"
    );
    // The header, 5 windows, and what their lengths mean (wrapped to 80 columns).
    assert_eq!(lines.len(), 1 + 5 + 2, "{text}");
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{text}");
    assert_eq!(
        lines[6..],
        [
            "true length = LENGTH +0..10 ms (hardirq-off), -5..+10 ms (bh-off), -5..+11 ms",
            "  (ksoftirqd-wait)"
        ],
        "{text}"
    );
    // Worst first, as with stacks.
    assert!(
        lines[1] == " 10:00:04.033   0 bh-off          100 ms      irqoff\u{2026}ample_softirq_window sh[79]",
        "{text}"
    );
    assert!(!text.contains("    __local_bh_enable_ip"), "{text}");
    let (_, stacks) = on_a_terminal_sized(
        root.path(),
        &["--color", "never", "records", "--stacks"],
        (24, 80),
    );
    assert!(stacks.contains("    __local_bh_enable_ip"), "{stacks}");
    // On a pipe: stacks, unless --oneline (then whole lines: no width to cut to).
    assert!(stdout(root.path(), &["records"]).contains("    __local_bh_enable_ip"));
    let piped = stdout(root.path(), &["records", "--oneline", "--sort", "newest"]);
    assert!(
        piped.lines().nth(1).is_some_and(
            |l| l.contains(" ksoftirqd-wait ") && l.ends_with(" call_timer_fn ksoftirqd/2[24]")
        ),
        "{piped}"
    );
    cli(root.path())
        .args(["records", "--oneline", "--stacks"])
        .assert()
        .code(2);
}

#[test]
fn records_min_takes_decimals() {
    let root = ours();
    let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--min", "66.9"],
    ))
    .unwrap();
    assert_eq!(
        v.iter()
            .map(|r| r["latency_ns"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        [78_986_472, 66_988_296]
    );
    let v: Vec<serde_json::Value> = serde_json::from_str(&stdout(
        root.path(),
        &["records", "--json", "--min", "66.989ms"],
    ))
    .unwrap();
    assert_eq!(v.len(), 1);
    cli(root.path())
        .args(["records", "--min", "1,5"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "'1,5' is not a duration (e.g. 10, 1.5ms, 2s, 5m: a bare number is milliseconds)",
        ));
}

#[test]
fn folded_stacks_weighted_by_count_or_latency() {
    let root = disabled();
    let dir = TempDir::new().unwrap();
    for (weight, want) in [("count", " 1\n"), ("latency", " 100\n")] {
        let folded = dir.path().join(format!("{weight}.folded"));
        let rec = spawn(
            root.path(),
            &[
                "record",
                "--until",
                "60",
                "-o",
                "/dev/null",
                "--folded",
                folded.to_str().unwrap(),
                "--weight",
                weight,
            ],
        );
        wait_for("record to enable", || read(root.path(), "enable") == "1\n");
        std::thread::sleep(std::time::Duration::from_millis(300));
        replace(root.path(), "records", &with_window(100));
        assert_eq!(rec.wait_with_output().unwrap().status.code(), Some(3));
        assert_eq!(
            fs::read_to_string(&folded).unwrap(),
            format!("hardirq-off;hog;hog_fn{want}")
        );
        replace(root.path(), "records", RECORDS);
    }
    // The recording went to /dev/null, written in place: it is still the device (renamed
    // over, as root, it became a regular file).
    {
        use std::os::unix::fs::FileTypeExt;
        assert!(fs::metadata("/dev/null")
            .unwrap()
            .file_type()
            .is_char_device());
    }
    cli(root.path())
        .args(["record", "--weight", "latency", "-o", "/dev/null"])
        .assert()
        .code(2);
}

/// Format v2 with the watcher: a hardirq-off window still open on CPU 1 (its `ongoing`
/// line and lower-bound record with a live profile), final records with profiles.
const RECORDS_WATCHER: &str = include_str!("fixtures/records-watcher.txt");

fn with_records(records: &str) -> TempDir {
    proc_root(&[
        ("enable", "enabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", records),
    ])
}

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

/// Claim: a window whose most-seen in-window stack spins in a contended lock's slow path
/// is labelled a lock wait, in `top`, the one-line view and the record; the same record
/// sampled in its own code is not.
#[test]
fn lock_waits_are_labelled() {
    let plain = with_records(RECORDS_WATCHER);
    assert!(!stdout(plain.path(), &["top"]).contains("lock wait"));
    let waiting = RECORDS_WATCHER.replacen(
        "profile_stack count=8 frames=8\nprofile_frame delay_tsc+0x4a/0x80\n",
        "profile_stack count=8 frames=8\nprofile_frame native_queued_spin_lock_slowpath+0x6c/0x230\n",
        1,
    );
    assert_ne!(waiting, RECORDS_WATCHER);
    let root = with_records(&waiting);
    let top = stdout(root.path(), &["top"]);
    assert!(
        top.lines().any(|l| l.starts_with("hardirq-off")
            && l.ends_with("irqoff_sample_hardirq_window (lock wait)")),
        "{top}"
    );
    let rec = stdout(root.path(), &["records", "--cpu", "1", "--kind", "hard"]);
    assert!(rec.contains("\n  a lock wait: the most-seen stack inside the window spins on a spinlock held elsewhere\n"), "{rec}");
    let line = stdout(
        root.path(),
        &["records", "--cpu", "1", "--kind", "hard", "--oneline"],
    );
    assert!(
        line.contains("  irqoff_sample_hardirq_window (lock wait) irq_test[64]"),
        "{line}"
    );
}

/// Claim: an open window's culprit in `status` is its most-seen sampled stack's, not the
/// latest sample's (which flapped to whatever the last NMI found, `in lock_release`).
#[test]
fn an_open_windows_culprit_is_its_most_seen_stack() {
    let flapped = RECORDS_WATCHER.replacen(
        "window_frame read_hpet+0x36/0xe0\nwindow_frame ktime_get+0x11a/0x160\nwindow_frame irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]\n",
        "window_frame lock_release+0x10/0x80\nwindow_frame some_other_function+0x11a/0x160\nwindow_frame irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]\n",
        1,
    );
    assert_ne!(flapped, RECORDS_WATCHER);
    let root = with_records(&flapped);
    let text = stdout(root.path(), &["status"]);
    assert!(text.contains("\nCPU 1: hard interrupts off for 1.79 s and counting \u{2014} sh (pid 63) in irqoff_sample_hardirq_window ("), "{text}");
}

/// Claim: every view says since when it counts: status names the load or last clear and
/// when sampling was enabled, in wall-clock time; top --live's first refresh the same.
#[test]
fn status_and_top_live_say_since_when_they_count() {
    let text = RECORDS_V2.replacen(
        " buckets=24",
        " buckets=24 counts_since_ns=1500000000 enabled_since_ns=2250000000",
        1,
    );
    assert_ne!(text, RECORDS_V2);
    let root = with_records(&text);
    let status = stdout(root.path(), &["status"]);
    assert!(
        status.contains("\ncounts and records since 2026-05-07T10:00:01.500000Z (load or last clear); sampling on since 2026-05-07T10:00:02.250000Z\n"),
        "{status}"
    );
    let live = stdout(root.path(), &["top", "--live"]);
    assert!(
        live.contains("; since 10:00:01 UTC (load or clear)\n"),
        "{live}"
    );
    // A module without them: no such line, and top --live says since load.
    assert!(!stdout(ours_v2().path(), &["status"]).contains("counts and records since"));
    assert!(stdout(ours_v2().path(), &["top", "--live"]).contains("; since load\n"));
}

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

#[test]
fn records_show_where_a_window_was_and_where_it_ended() {
    let root = with_records(RECORDS_WATCHER);
    let text = stdout(
        root.path(),
        &["records", "--cpu", "1", "--sort", "worst", "--depth", "2"],
    );
    assert_eq!(
        text,
        "hardirq-off cpu 1  1.79 s+  sh (pid 63)  open since 2026-05-07T10:00:09.249206Z (9.249206 s after boot)  (window still open)
  where it was so far: sh-63, 107 samples over 172 periods after the threshold, 3 distinct stacks
    100% (172 of 172 periods):
      read_hpet+0x36/0xe0
      ktime_get+0x11a/0x160
      ... 7 more frames
hardirq-off cpu 1   195 ms  irq_test (pid 64)  ended 2026-05-07T10:00:02.880633Z (2.880633 s after boot)
  where it ended:
    irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]
    <irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x352/0x409 [irqoff_sample]
    ... 5 more frames
  where it was: irq_test-64, 13 samples over 13 periods after the threshold, 5 distinct stacks
    85% (11 of 13 periods):
      delay_tsc+0x4a/0x80
      irqoff_sample_hardirq_window+0x1e/0x4d [irqoff_sample]
      ... 6 more frames
    8% (1 of 13 periods):
      asm_sysvec_apic_timer_interrupt+0x1a/0x20
      irqoff_sample_hardirq_window+0x24/0x4d [irqoff_sample]
      ... 1 more frames
    8% (1 of 13 periods) in 1 more stack
true length = LENGTH +0..10 ms (hardirq-off)
"
    );
    // Profile frames are raw with --raw-symbols.
    let text = stdout(root.path(), &["records", "--cpu", "1", "--raw-symbols"]);
    assert!(
        text.contains("\n      _RNvXs5_CsfhKZwEwFlVQ_18irqoff_sample_main"),
        "{text}"
    );
    // JSON: the profile, the ongoing mark.
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(root.path(), &["records", "--json"])).unwrap();
    let open = v.iter().find(|r| r["ongoing"] == true).unwrap();
    assert_eq!(
        (&open["cpu"], &open["kind"], &open["lower_bound"]),
        (&1.into(), &"hard".into(), &true.into())
    );
    assert_eq!(
        (&open["profile"]["samples"], &open["profile"]["weight"]),
        (&107.into(), &172.into())
    );
    let hard = v
        .iter()
        .find(|r| r["latency_ns"] == 195_096_620u64)
        .unwrap();
    assert!(hard.get("ongoing").is_none());
    let p = &hard["profile"];
    assert_eq!(
        (
            &p["distinct"],
            &p["other"],
            p["stacks"].as_array().unwrap().len()
        ),
        (&5.into(), &0.into(), 4)
    );
    assert_eq!(p["stacks"][0]["count"], 8);
    assert_eq!(p["stacks"][0]["frames"], hard["window_stack"]);
    assert!(p["stacks"][0]["frames"][2].as_str().unwrap().starts_with(
        "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter"
    ));
    // Records without a profile have no such key (older readers see the JSON unchanged).
    let v: Vec<serde_json::Value> =
        serde_json::from_str(&stdout(ours_v2().path(), &["records", "--json"])).unwrap();
    assert!(v.iter().all(|r| r.get("profile").is_none()));
}

#[test]
fn watch_shows_the_top_profile_stacks() {
    // A window still open is on the terminal's view (a pipe gets it once it has ended).
    let root = with_records(RECORDS_WATCHER);
    let (_, text) = on_a_terminal(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--stacks",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
    );
    let text = text.replace("\r\n", "\n");
    assert!(text.contains("  (window still open)\n  where it was so far: sh-63, 107 samples over 172 periods after the threshold, 3 distinct stacks\n    100% (172 of 172 periods):\n"), "{text}");
    // Stacks of one loop merged (delay_tsc, read_tsc and no leaf above the same code); the
    // rest summed.
    assert!(
        text.contains("\n    85% (11 of 13 periods):\n      delay_tsc+0x4a/0x80\n"),
        "{text}"
    );
    assert!(
        text.contains("\n    8% (1 of 13 periods) in 1 more stack\n"),
        "{text}"
    );
}

/// Claim: on an 80x24 terminal, `watch` fits: no line wider than 80 columns, at most 23
/// lines, the header on top and the newest window first (one line per window), an open
/// window marked open; what did not fit is counted.
#[test]
fn watch_on_80x24_keeps_the_header_and_the_newest_window_on_screen() {
    let root = with_records(RECORDS_WATCHER);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let screen = text.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.len() <= 23, "{} lines:\n{screen}", lines.len());
    for l in &lines {
        assert!(l.chars().count() <= 80, "{} wide: {l}", l.chars().count());
    }
    assert!(lines[0].starts_with("trace-irqoff watch: "), "{screen}");
    // What the lengths mean, for the kinds on screen.
    assert_eq!(
        lines[1], "true length = LENGTH +0..10 ms (hardirq-off), -5..+11 ms (ksoftirqd-wait)",
        "{screen}"
    );
    assert!(lines[2].starts_with(" END (UTC)    CPU KIND "), "{screen}");
    // The newest first: the window still open, on CPU 1 (its end is the read).
    assert!(
        lines[3].contains(" open ") && lines[3].contains("   1 hardirq-off"),
        "{screen}"
    );
    // On a 6-line terminal the rest is counted, not scrolled.
    let (_, small) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (6, 80),
    );
    let small = small.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    // The redraw holds 5 lines; the summary follows it when watch ends.
    let (small, summary) = small.split_once("\nwatch: ").unwrap_or((&small, ""));
    assert!(
        summary.starts_with("0.") && summary.contains(" s, "),
        "{summary}"
    );
    assert!(small.lines().count() <= 5, "{small}");
    assert!(
        small.lines().nth(3).is_some_and(|l| l.contains(" open ")),
        "{small}"
    );
    assert!(
        small.contains(" ... 2 older (trace-irqoff records; watch --stacks)"),
        "{small}"
    );
}

#[test]
fn record_folded_weighs_profile_stacks() {
    let root = disabled();
    let out = root.path().join("r.json");
    let folded = root.path().join("r.folded");
    let rec = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "1500ms",
            "-o",
            out.to_str().unwrap(),
            "--folded",
            folded.to_str().unwrap(),
        ],
    );
    wait_for("record to enable", || read(root.path(), "enable") == "1\n");
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

/// A `record` file with two windows of cpu 2, a histogram count, and the clock anchor of
/// the machine it was taken on (`offset_ns`), ended at 6 s after that machine's boot.
fn saved_recording(dir: &Path, offset_ns: Option<u64>) -> std::path::PathBuf {
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

/// A module, as a directory of plain files, that the service may change: disabled,
/// period 10 ms, threshold 50 ms.
fn service_root() -> TempDir {
    proc_root(&[
        ("enable", "disabled\n"),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("counters", include_str!("fixtures/counters-v1.txt")),
    ])
}

fn service(root: &Path, action: &str, conf: &Path) -> Command {
    let mut c = cli(root);
    c.args(["service", action, "--config"])
        .arg(conf)
        .arg("--state")
        .arg(root.join("state/prior.json"));
    c
}

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

/// One HTTP GET of `path` on `port`: the status line and the body.
fn http_get(port: u16, path: &str) -> (String, String) {
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
        ("counters", include_str!("fixtures/counters-v1.txt")),
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

/// The attributes and references of `page` that would load something from elsewhere:
/// every `src=`, `href=`, `@import` and `url(...)` that is not a fragment of the page
/// itself. (The SVG namespaces are names, not addresses a browser loads.)
fn outside_references(page: &str) -> Vec<String> {
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
fn report_of(file: &Path) -> (String, String) {
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

/// Claim: a records file whose module frames carry build ids (CONFIG_STACKTRACE_BUILD_ID)
/// shows as one without them, in every view, and JSON keeps the ids in `build_ids`.
#[test]
fn build_ids_in_frames_are_kept_out_of_the_views() {
    let id = "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567";
    let with_ids = RECORDS_V2.replace(" [irqoff_sample]", &format!(" [irqoff_sample {id}]"));
    assert_ne!(with_ids, RECORDS_V2);
    let (plain, ids) = (ours_v2(), ours_with(&with_ids));
    let out = |root: &TempDir, args: &[&str]| {
        let o = cli(root.path()).args(args).output().unwrap();
        assert!(o.status.success(), "{args:?}: {o:?}");
        String::from_utf8(o.stdout).unwrap()
    };
    for args in [
        &["records", "--stacks"][..],
        &["top"],
        &["records", "--oneline"],
    ] {
        assert_eq!(out(&ids, args), out(&plain, args), "{args:?}");
    }
    let json: serde_json::Value = serde_json::from_str(&out(&ids, &["--json", "records"])).unwrap();
    let with_sample: Vec<_> = json
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["stack"].to_string().contains("[irqoff_sample]"))
        .collect();
    assert!(!with_sample.is_empty());
    for r in with_sample {
        assert_eq!(r["build_ids"]["irqoff_sample"], id, "{r}");
        assert!(!r.to_string().contains(&format!("irqoff_sample {id}]")));
    }
}

/// Claim: `records --lines` without debug information prints what `records` prints, says on
/// stderr in one sentence what had none and how to get it, and exits 0.
#[test]
fn lines_without_debug_information_change_nothing_but_say_so() {
    let root = ours_v2();
    let plain = cli(root.path())
        .args(["records", "--stacks"])
        .output()
        .unwrap();
    let lines = cli(root.path())
        .args([
            "records",
            "--stacks",
            "--lines",
            "--debug-dir",
            "/nonexistent",
        ])
        .output()
        .unwrap();
    assert!(lines.status.success());
    assert_eq!(lines.stdout, plain.stdout);
    let err = String::from_utf8(lines.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("no debug information for kernel")
            && err.contains("module irqoff_sample")
            && err.contains("-dbg (Debian)"),
        "{err}"
    );
}

/// A module that counts stalls (the `stall` line, `stall_gaps`): the watcher fixture of
/// a VM whose host paused it five times, the longest 302 ms.
const RECORDS_STALL: &str = include_str!("fixtures/records-stall.txt");

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
    assert!(text.contains("\nstalls: 5 times no CPU ran (the whole machine stood still: a paused VM?), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows\n"), "{text}");
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

/// Claim: `top` shows the culprits of windows only, and where stalls were counted in its
/// span, says so in a footnote (the status sentence); without stalls, no footnote.
#[test]
fn top_footnotes_the_stalls_of_its_span() {
    let text = stdout(with_records(RECORDS_STALL).path(), &["top"]);
    assert!(text.ends_with("\nstalls: 5 times no CPU ran (the whole machine stood still: a paused VM?), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows\n"), "{text}");
    let without = stdout(with_records(RECORDS_WATCHER).path(), &["top"]);
    assert!(!without.contains("stall"), "{without}");
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("stalls:"))
            .collect::<Vec<_>>(),
        without.lines().collect::<Vec<_>>()
    );
}

/// Claim: `top --live` footnotes the stalls of the span its counts cover: since load or
/// clear at the first refresh, then only those counted since it started (none: no
/// footnote; two more: those two, with their total, the longest not being known).
#[test]
fn top_live_footnotes_the_stalls_since_its_start() {
    use std::io::BufRead;
    let root = with_records(RECORDS_STALL);
    let mut top = spawn(
        root.path(),
        &["top", "--live", "--interval", "300ms", "--count", "3"],
    );
    let mut lines = std::io::BufReader::new(top.stdout.take().unwrap()).lines();
    let mut feet = Vec::new();
    // The first refresh (since load) ends with its footnote; two stalls come after it.
    for line in lines.by_ref() {
        let line = line.unwrap();
        if line.starts_with("stalls:") {
            feet.push(line);
            break;
        }
    }
    replace(
        root.path(),
        "records",
        &RECORDS_STALL.replace(
            "stall count=5 over_threshold=3 sum_ns=935000000 ",
            "stall count=7 over_threshold=5 sum_ns=1535000000 ",
        ),
    );
    feet.extend(
        lines
            .map(Result::unwrap)
            .filter(|l| l.starts_with("stalls:")),
    );
    assert!(top.wait().unwrap().success());
    let since_load = "stalls: 5 times no CPU ran (the whole machine stood still: a paused VM?), longest 302 ms, 935 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows";
    let since_start = "stalls: 2 times no CPU ran (the whole machine stood still: a paused VM?), 600 ms in all, the latest ended 2026-05-07T10:00:09.235000Z; not irq-off windows";
    // The second refresh may come before the two stalls (no footnote) or after them.
    assert_eq!(
        feet.first().map(String::as_str),
        Some(since_load),
        "{feet:?}"
    );
    assert!(
        feet.len() >= 2 && feet[1..].iter().all(|f| f == since_start),
        "{feet:?}"
    );
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

/// Claim: `watch` on a pipe prints a stall once, in its own line ("STALL", its length,
/// that no CPU ran and that it is no irq-off window, when it ended as windows say it),
/// after the windows that ended before it; `watch --json` gives it as an object of kind
/// "stall" with its span, never as a window; a module without stalls prints none.
#[test]
fn watch_shows_each_stall_once_apart_from_windows() {
    let root = with_records(RECORDS_STALL);
    let text = stdout(
        root.path(),
        &["watch", "--interval", "10ms", "--count", "3"],
    );
    let stall = "STALL   302 ms  no CPU ran: the whole machine stood still (not an irq-off window)  ended 2026-05-07T10:00:09.235000Z (9.235000 s after boot)\n";
    assert_eq!(text.matches(stall).count(), 1, "{text}");
    assert!(text.ends_with(stall), "the newest comes last: {text}");
    assert_eq!(text.matches("STALL").count(), 1, "{text}");
    let json = stdout(
        root.path(),
        &["watch", "--json", "--interval", "10ms", "--count", "3"],
    );
    let objects: Vec<serde_json::Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let stalls: Vec<&serde_json::Value> = objects.iter().filter(|o| o["kind"] == "stall").collect();
    assert_eq!(stalls.len(), 1, "{json}");
    assert_eq!(
        (
            &stalls[0]["start_ns"],
            &stalls[0]["end_ns"],
            &stalls[0]["length_ns"],
            &stalls[0]["end_time"]
        ),
        (
            &8_933_000_000u64.into(),
            &9_235_000_000u64.into(),
            &302_000_000u64.into(),
            &"2026-05-07T10:00:09.235000Z".into()
        )
    );
    assert!(stalls[0].get("latency_ns").is_none(), "{json}");
    // The windows are those of the file without stalls.
    let windows = objects.iter().filter(|o| o["kind"] != "stall").count();
    let without = stdout(
        with_records(RECORDS_WATCHER).path(),
        &["watch", "--json", "--interval", "10ms", "--count", "1"],
    );
    assert_eq!(windows, without.lines().count(), "{json}");
    assert!(!without.contains("stall"), "{without}");
}

/// Claim: on an 80x24 terminal `watch` shows a stall in the windows' columns, by its end
/// among them (newest first), in 80 columns: its end (the one time column there), STALL
/// for its kind, its length, and a sentence that fits.
#[test]
fn watch_on_a_terminal_shows_the_stall_among_the_windows() {
    let root = with_records(RECORDS_STALL);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let screen = text.replace("\r\n", "\n").replace("\x1b[H\x1b[2J", "");
    let lines: Vec<&str> = screen.lines().collect();
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{screen}");
    // The window still open (newest), then the stall, then the older windows.
    assert!(lines[3].contains(" open "), "{screen}");
    assert_eq!(
        lines[4], " 10:00:09.235   - STALL           302 ms      the machine stood still",
        "{screen}"
    );
    assert!(lines[5].contains("ksoftirqd-wait"), "{screen}");
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
    let rec = spawn(
        root.path(),
        &[
            "record",
            "--duration",
            "1500ms",
            "-o",
            out.to_str().unwrap(),
        ],
    );
    wait_for("record to enable", || read(root.path(), "enable") == "1\n");
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
    assert!(summary.contains("\nstalls: 2 times no CPU ran (the whole machine stood still: a paused VM?); not irq-off windows\n"), "{summary}");
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
    assert!(text.ends_with("\nstalls: 2 times no CPU ran (the whole machine stood still: a paused VM?), longest 302 ms, 322 ms in all, the latest ended 2026-05-07T11:00:04.020000Z; not irq-off windows\n"), "{text}");
    assert_eq!(
        text.lines()
            .filter(|l| !l.starts_with("stalls:"))
            .collect::<Vec<_>>(),
        plain.lines().collect::<Vec<_>>()
    );
}

/// The watcher's records with the hardirq window's most-seen in-window stack in a
/// contended spinlock's slow path: a lock wait.
fn lock_wait_root(enabled: bool) -> TempDir {
    let waiting = RECORDS_WATCHER.replacen(
        "profile_stack count=8 frames=8\nprofile_frame delay_tsc+0x4a/0x80\n",
        "profile_stack count=8 frames=8\nprofile_frame native_queued_spin_lock_slowpath+0x6c/0x230\n",
        1,
    );
    assert_ne!(waiting, RECORDS_WATCHER);
    proc_root(&[
        ("enable", if enabled { "enabled\n" } else { "disabled\n" }),
        ("sampling_period", "10ms\n"),
        ("trace_latency", "trace_irqoff_latency: 50ms\n"),
        ("records", &waiting),
    ])
}

/// A pseudo-terminal's output as lines: the redraws' escapes gone, each frame after the
/// last clear (or home) only.
fn last_frame(text: &str) -> Vec<String> {
    let t = text.replace("\r\n", "\n");
    let t = t.rsplit("\x1b[H").next().unwrap_or(&t).to_string();
    t.replace("\x1b[2J", "")
        .replace("\x1b[K", "")
        .replace("\x1b[J", "")
        .lines()
        .map(str::to_string)
        .collect()
}

/// Claim: on 80x24 and 120x40 pseudo-terminals `watch`, `records` and `top` keep who did
/// it: no line wider than the terminal, the culprit's own name (`hardirq_window`), the
/// task with its pid (`irq_test[64]`, in `top` the task) and the lock-wait mark
/// ("lock" in the WAIT column) on the lock-wait window's line; at 80 columns one time
/// column, at 120 both times and the culprit whole.
#[test]
fn views_at_80_and_120_columns_keep_the_culprit_task_and_lock_mark() {
    let root = lock_wait_root(true);
    for (rows, cols) in [(24u16, 80usize), (40, 120)] {
        let views: [&[&str]; 3] = [
            &[
                "--color",
                "never",
                "watch",
                "--interval",
                "10ms",
                "--count",
                "1",
            ],
            &["--color", "never", "records"],
            &["--color", "never", "top"],
        ];
        for args in views {
            let (code, text) = on_a_terminal_sized(root.path(), args, (rows, cols as u16));
            assert_eq!(code, Some(0), "{args:?}: {text}");
            let lines = last_frame(&text);
            assert!(lines.len() < rows as usize, "{args:?} {cols}: {lines:#?}");
            for l in &lines {
                assert!(l.chars().count() <= cols, "{args:?} {cols}: {l}");
            }
            let task = if args[2] == "top" {
                "(irq_test)"
            } else {
                "irq_test[64]"
            };
            let waited = lines
                .iter()
                .find(|l| l.contains(task))
                .unwrap_or_else(|| panic!("{args:?} {cols}: no {task}: {lines:#?}"));
            assert!(waited.contains(" lock "), "{args:?} {cols}: {waited}");
            assert!(
                waited.contains("hardirq_window "),
                "{args:?} {cols}: {waited}"
            );
            if cols >= 120 {
                assert!(
                    waited.contains(" irqoff_sample_hardirq_window "),
                    "{waited}"
                );
            }
            if args[2] != "top" {
                let header = lines.iter().find(|l| l.contains("CULPRIT TASK[PID]"));
                let both = header.is_some_and(|h| h.contains("START (UTC)"));
                assert_eq!(both, cols >= 120, "{args:?} {cols}: {header:?}");
            }
        }
    }
}

/// Claim: `watch` and `top --live` on a terminal keep the warning that sampling is
/// disabled on screen after clearing it (below their title), and end with a summary line
/// that fits the width; `--duration` ends them by itself.
#[test]
fn live_views_keep_warnings_and_end_with_a_summary() {
    let root = lock_wait_root(false);
    for view in [
        &["watch", "--interval", "50ms", "--duration", "200ms"][..],
        &["top", "--live", "--interval", "50ms", "--duration", "200ms"][..],
    ] {
        let mut args = vec!["--color", "never"];
        args.extend_from_slice(view);
        let (code, text) = on_a_terminal_sized(root.path(), &args, (24, 80));
        assert_eq!(code, Some(0), "{view:?}: {text}");
        let lines = last_frame(&text);
        let joined = lines.join("\n");
        if view[0] == "watch" {
            // The last redraw, after its clear, still says it, right below the title.
            assert!(
                lines[1].starts_with("note: sampling is disabled"),
                "{joined}"
            );
        }
        let summary = lines.iter().rev().find(|l| {
            l.starts_with(&format!(
                "{}: ",
                if view[0] == "watch" {
                    "watch"
                } else {
                    "top --live"
                }
            ))
        });
        assert!(summary.is_some(), "{view:?}: {joined}");
        assert!(lines.iter().all(|l| l.chars().count() <= 80), "{joined}");
    }
}

/// Claim: `watch --stacks` on an 80x24 terminal draws at most 23 lines of at most 80
/// columns and says what it left out and where to find it.
#[test]
fn watch_stacks_fits_the_terminal() {
    let root = lock_wait_root(true);
    let (code, text) = on_a_terminal_sized(
        root.path(),
        &[
            "--color",
            "never",
            "watch",
            "--stacks",
            "--interval",
            "10ms",
            "--count",
            "1",
        ],
        (24, 80),
    );
    assert_eq!(code, Some(0), "{text}");
    let lines = last_frame(&text);
    let frame: Vec<&String> = lines
        .iter()
        .take_while(|l| !l.starts_with("watch: "))
        .collect();
    assert!(frame.len() <= 23, "{} lines: {lines:#?}", frame.len());
    assert!(lines.iter().all(|l| l.chars().count() <= 80), "{lines:#?}");
    assert!(
        frame
            .iter()
            .any(|l| l.starts_with(" \u{2026} ")
                && l.ends_with("; see trace-irqoff records --stacks")),
        "{lines:#?}"
    );
}

/// Claim: Ctrl-C (SIGINT) ends `watch` cleanly (exit 0) with its summary line, on stderr
/// off a terminal, while stdout keeps only the log (no summary in it).
#[test]
fn watch_interrupted_prints_its_summary() {
    let root = lock_wait_root(true);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("trace-irqoff"))
        .arg("--proc-root")
        .arg(root.path())
        .args(["watch", "--interval", "50ms"])
        .env("NO_COLOR", "1")
        .env("TRACE_IRQOFF_BOOT_TIME", BOOT_TIME)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(400));
    let killed = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr
            .lines()
            .any(|l| l.starts_with("watch: ") && l.contains(" s, ")),
        "{stderr}"
    );
    assert!(
        !stdout.lines().any(|l| l.starts_with("watch: ")),
        "{stdout}"
    );
}
