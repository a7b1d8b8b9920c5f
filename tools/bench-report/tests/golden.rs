// SPDX-License-Identifier: GPL-2.0
//! The report on the committed results: bench/results.json, run through the binary as
//! tests/bench/run runs it, gives the committed Documentation/benchmarks.rst.

use std::path::Path;
use std::process::Command;

/// Claim: running bench-report on the committed bench/results.json, with the results'
/// own "command" as tests/bench/run passes it, writes a benchmarks.rst identical byte for
/// byte to the committed Documentation/benchmarks.rst, and each kernel's two plots.
#[test]
fn committed_results_give_the_committed_document() {
    // The checkout being tested, as cargo says when it runs the test (a test binary that a
    // shared target directory kept from another checkout carries that one's path).
    let manifest_dir =
        std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into());
    let root = Path::new(&manifest_dir).join("../..");
    let results = root.join("bench/results.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&results).expect("results")).expect("JSON");
    let command = doc["command"].as_str().expect("a command in the results");
    let out = tempfile::tempdir().expect("a temporary directory");
    let status = Command::new(env!("CARGO_BIN_EXE_bench-report"))
        .arg(&results)
        .arg(out.path())
        .arg(command)
        .status()
        .expect("bench-report runs");
    assert!(status.success(), "bench-report failed: {status}");
    let got = std::fs::read_to_string(out.path().join("benchmarks.rst")).expect("written");
    let want =
        std::fs::read_to_string(root.join("Documentation/benchmarks.rst")).expect("committed");
    if got != want {
        let line = got
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(got.lines().count().min(want.lines().count()));
        panic!(
            "benchmarks.rst differs from the committed one from line {}:\n got: {:?}\nwant: {:?}",
            line + 1,
            got.lines().nth(line),
            want.lines().nth(line)
        );
    }
    for name in [
        "bench-accuracy.svg",
        "bench-overhead.svg",
        "bench-accuracy-stock.svg",
        "bench-overhead-stock.svg",
    ] {
        let svg = std::fs::read_to_string(out.path().join(name)).expect(name);
        assert!(svg.starts_with("<svg"), "{name} is not an SVG");
    }
}

/// Claim: without a results file and an output directory the report refuses to run.
#[test]
fn usage_without_arguments() {
    let out = Command::new(env!("CARGO_BIN_EXE_bench-report"))
        .output()
        .expect("bench-report runs");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage: bench-report"));
}
