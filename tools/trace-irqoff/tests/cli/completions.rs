// SPDX-License-Identifier: GPL-2.0
//! Help, man pages, shell completions and command-line errors.

use crate::util::*;

/// Claim: `completions bash` and `man` print a completion script and a man page with an
/// EXIT STATUS section, and `man --dir` creates the directory and writes every page the
/// main page refers to (at least 14), each with its exit status, the record page
/// documenting `--until <MS>` and exit 3.
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

/// Claim: every subcommand's `--help` succeeds and includes an "Example: trace-irqoff
/// ..." line.
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

/// Claim: `make install-cli` (its install step, from a built CLI) puts the binary, every
/// man page and the three completion scripts under DESTDIR/PREFIX, where `man` looks.
#[test]
fn install_cli_installs_man_pages_and_completions() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    if std::process::Command::new("make")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("no make here: skipped");
        return;
    }
    let dest = TempDir::new().unwrap();
    let out = std::process::Command::new("make")
        .arg("-C")
        .arg(&repo)
        .args(["--no-print-directory", "install-cli-files", "PREFIX=/usr"])
        .arg(format!("DESTDIR={}", dest.path().display()))
        .arg(format!("CLI_BIN={}", env!("CARGO_BIN_EXE_trace-irqoff")))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let usr = dest.path().join("usr");
    for f in [
        "bin/trace-irqoff",
        "share/man/man1/trace-irqoff.1",
        "share/man/man1/trace-irqoff-records.1",
        "share/man/man1/trace-irqoff-record.1",
        "share/bash-completion/completions/trace-irqoff",
        "share/zsh/site-functions/_trace-irqoff",
        "share/fish/vendor_completions.d/trace-irqoff.fish",
    ] {
        let p = usr.join(f);
        assert!(p.metadata().is_ok_and(|m| m.len() > 0), "{f}");
    }
    let page = fs::read_to_string(usr.join("share/man/man1/trace-irqoff.1")).unwrap();
    assert!(page.contains(".SH \"EXIT STATUS\""), "{page}");
}
