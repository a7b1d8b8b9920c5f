// SPDX-License-Identifier: GPL-2.0
//! `--lines` beyond `records`: `top`, `watch`, `report` and `record` show (and `record`
//! keeps) the source lines of frames, from the debug-information fixture
//! (tests/fixtures/debug: a module `fixture`, its functions in fixture.c).

use crate::util::*;

/// The fixture module's build id (tests/fixtures/debug/make writes it).
fn build_id() -> String {
    include_str!("../fixtures/debug/fixture.build-id")
        .trim()
        .to_string()
}

/// A debug directory with the fixture as the module's `.build-id` link target, as
/// Debian's -dbg packages lay them out (a copy: links need not be followed here).
fn debug_dir() -> TempDir {
    let d = TempDir::new().unwrap();
    let id = build_id();
    let dir = d.path().join(".build-id").join(&id[..2]);
    fs::create_dir_all(&dir).unwrap();
    fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/debug/fixture.debug"),
        dir.join(format!("{}.debug", &id[2..])),
    )
    .unwrap();
    d
}

/// The v1 fixture with one more hardirq-off window of `ms` ms on CPU 1 whose culprit is
/// the fixture module's `fixture_window`, called from `fixture_caller`, the frames with
/// the module's build id as a kernel with CONFIG_STACKTRACE_BUILD_ID prints them.
fn with_fixture_window(ms: u64) -> String {
    let id = build_id();
    RECORDS.replace(
        "\nend\n",
        &format!(
            "\nrecord cpu=1 kind=hard lower_bound=0 latency_ns={} timestamp_ns=9000000000 pid=7 comm=hog frames=3\n\
             frame fixture_window+0x4/0x30 [fixture {id}]\n\
             frame fixture_caller+0x5/0xa [fixture {id}]\n\
             frame vfs_write+0x1d7/0x210\nend\n",
            ms * 1_000_000 + 123_456
        ),
    )
}

/// `fixture_window`'s frame with its source line in fixture.c, as the text views show it.
const WINDOW_LINE: &str = "    fixture_window+0x4/0x30 [fixture]  ";

/// Whether a line of `text` shows `fixture_window`'s frame with its line (at any indent).
fn has_window_line(text: &str) -> bool {
    text.lines()
        .any(|l| l.contains(WINDOW_LINE.trim_start()) && l.contains("/src/fixture.c:"))
}

/// Claim: `top --lines` shows under the culprit's row its frame with its source line
/// (text, fitted on a terminal, and `source` in --json), resolved by the build id the
/// frame carries; without --lines the table is as it was, and without debug information
/// too, with the hint on stderr.
#[test]
fn top_lines_shows_the_culprits_source_line() {
    let root = with_records(&with_fixture_window(120));
    let dbg = debug_dir();
    let dir = dbg.path().to_str().unwrap();
    let text = stdout(root.path(), &["top", "--lines", "--debug-dir", dir]);
    let rows: Vec<&str> = text.lines().collect();
    let at = rows
        .iter()
        .position(|l| l.ends_with(" fixture_window"))
        .unwrap_or_else(|| panic!("a fixture_window row: {text}"));
    assert!(
        rows[at + 1].starts_with(WINDOW_LINE) && has_window_line(rows[at + 1]),
        "{text}"
    );
    let plain = stdout(root.path(), &["top"]);
    assert!(!plain.contains("fixture.c"), "{plain}");
    assert_eq!(
        plain,
        text.lines()
            .filter(|l| !l.starts_with("    "))
            .map(|l| format!("{l}\n"))
            .collect::<String>(),
        "--lines only adds the source lines"
    );
    let json: serde_json::Value = serde_json::from_str(&stdout(
        root.path(),
        &["top", "--json", "--lines", "--debug-dir", dir],
    ))
    .unwrap();
    let c = json
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["culprit"] == "fixture_window")
        .expect("the culprit");
    assert_eq!(c["source"]["frame"], "fixture_window+0x4/0x30 [fixture]");
    let last = c["source"]["lines"].as_array().unwrap().last().unwrap();
    assert_eq!(
        (&last["function"], &last["file"]),
        (
            &serde_json::json!("fixture_window"),
            &serde_json::json!("/src/fixture.c")
        )
    );
    // On a 60-column terminal, the source line is under the row too, cut to the width.
    let (code, screen) = on_a_terminal_sized(
        root.path(),
        &["top", "--lines", "--debug-dir", dir],
        (24, 60),
    );
    assert_eq!(code, Some(0), "{screen}");
    let under = screen
        .lines()
        .skip_while(|l| !l.contains(" (hog)"))
        .nth(1)
        .unwrap_or_default();
    assert!(
        under.starts_with(WINDOW_LINE) && under.trim_end().chars().count() <= 60,
        "{screen}"
    );
    let none = TempDir::new().unwrap();
    cli(root.path())
        .args(["top", "--lines", "--debug-dir"])
        .arg(none.path())
        .assert()
        .success()
        .stdout(plain)
        .stderr(
            predicate::str::contains("no debug information for")
                .and(predicate::str::contains("module fixture")),
        );
}

/// Claim: `watch --lines` prints each window's frames with their source lines on a pipe,
/// shows them on a terminal (the stacked view, without --stacks), and its --json records
/// have them (`lines`).
#[test]
fn watch_lines_prints_source_lines() {
    let root = with_records(&with_fixture_window(120));
    let dbg = debug_dir();
    let dir = dbg.path().to_str().unwrap();
    let args = [
        "--interval",
        "10ms",
        "--count",
        "1",
        "--lines",
        "--debug-dir",
        dir,
    ];
    let text = stdout(root.path(), &[&["watch"][..], &args].concat());
    assert!(has_window_line(&text), "{text}");
    let (code, screen) = on_a_terminal(root.path(), &[&["watch"][..], &args].concat());
    assert_eq!(code, Some(0), "{screen}");
    assert!(has_window_line(&screen), "{screen}");
    let json = stdout(root.path(), &[&["watch", "--json"][..], &args].concat());
    let frame = "fixture_window+0x4/0x30 [fixture]";
    let rec = json
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["comm"] == "hog")
        .unwrap_or_else(|| panic!("the hog's window: {json}"));
    assert_eq!(rec["lines"][frame][0]["file"], "/src/fixture.c", "{rec}");
}

/// Claim: `record --lines` keeps each frame's source lines in its file, which `records
/// --from FILE` and `report FILE` show without --lines and without the debug information;
/// `report --lines` shows them for the module's records too.
#[test]
fn record_lines_keeps_them_and_report_shows_them() {
    let root = disabled();
    let dbg = debug_dir();
    let out = root.path().join("caught.json");
    let dir = dbg.path().to_str().unwrap();
    let rec = spawn_recording(
        root.path(),
        &out,
        &["--until", "40", "--lines", "--debug-dir", dir],
    );
    replace(root.path(), "records", &with_fixture_window(100));
    // Caught: exit status 3.
    assert_eq!(rec.wait_with_output().unwrap().status.code(), Some(3));
    let v: serde_json::Value = serde_json::from_str(&fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(
        v["records"][0]["lines"]["fixture_window+0x4/0x30 [fixture]"][0]["file"], "/src/fixture.c",
        "{v}"
    );
    // Read back elsewhere: no debug directory needed.
    drop(dbg);
    let from = out.to_str().unwrap();
    let text = stdout(root.path(), &["records", "--stacks", "--from", from]);
    assert!(has_window_line(&text), "{text}");
    let page = root.path().join("page.html");
    cli(root.path())
        .args(["report", from, "-o", page.to_str().unwrap()])
        .assert()
        .success();
    let html = fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("fixture_window+0x4/0x30 [fixture]  fixture_spin at /src/fixture.c:")
            || html.contains("fixture_window+0x4/0x30 [fixture]  /src/fixture.c:"),
        "the report's stack shows the line"
    );

    // From the module: report --lines resolves them itself.
    let live = with_records(&with_fixture_window(120));
    let dbg = debug_dir();
    let page = live.path().join("live.html");
    cli(live.path())
        .args([
            "report",
            "-o",
            page.to_str().unwrap(),
            "--lines",
            "--debug-dir",
        ])
        .arg(dbg.path())
        .assert()
        .success();
    assert!(fs::read_to_string(&page)
        .unwrap()
        .contains("/src/fixture.c:"));
}
