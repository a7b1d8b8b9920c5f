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

/// The answer of tests/fixtures/explain-answer.json: I/O on 252:0 explained by a 100 ms
/// hardirq-off window on CPU 1, a tag wait explained by the same window, a NET_RX
/// softirq on CPU 0 explained by a bh-off window, and I/O on CPU 0 that nothing explains.
const ANSWER: &str = include_str!("../fixtures/explain-answer.json");

/// `report FILE --explain ANSWER -o PAGE` in a directory of its own (with `answer` as
/// ANSWER): its output, and the page if one was written.
fn report_explained(answer: &str) -> (std::process::Output, Option<String>) {
    let dir = TempDir::new().unwrap();
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let a = dir.path().join("answer.json");
    fs::write(&a, answer).unwrap();
    let page = dir.path().join("page.html");
    let out = cli(&dir.path().join("no-proc"))
        .arg("report")
        .arg(&file)
        .arg("--explain")
        .arg(&a)
        .arg("-o")
        .arg(&page)
        .output()
        .unwrap();
    (out, fs::read_to_string(&page).ok())
}

/// The page of `report_explained(answer)`, which must succeed.
fn page_explained(answer: &str) -> String {
    let (out, page) = report_explained(answer);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    page.unwrap()
}

/// Claim: the page says the answer's verdict line before its summary, and a delay held
/// by a pause of the whole VM says so instead of "not explained"; an answer written
/// before verdicts (none in its JSON) has no verdict line.
#[test]
fn report_explain_says_the_verdict_and_the_pauses() {
    let mut a: serde_json::Value = serde_json::from_str(ANSWER).unwrap();
    a["verdict"] = "yes".into();
    a["verdict_line"] = "Verdict: yes: 3 of 4 delays were held by irq-off windows.".into();
    let last = a["delays"].as_array_mut().unwrap().last_mut().unwrap();
    last.as_object_mut().unwrap().remove("not_explained");
    last["pauses"] = serde_json::json!([{"start_ns": 4_520_000_000u64, "end_ns": 4_700_000_000u64, "overlap_ns": 40_000_000}]);
    let page = page_explained(&a.to_string());
    let verdict = page
        .find("<p><strong>Verdict: yes: 3 of 4 delays were held by irq-off windows.</strong></p>")
        .expect("the verdict line");
    let summary = page
        .find("4 delays of 1.000 ms or more")
        .expect("the summary");
    assert!(verdict < summary);
    assert!(page.contains("held by a pause of the whole VM of 180.000 ms from 4.520000 s"));
    assert!(
        !page.contains("not explained by an irq-off window"),
        "{page}"
    );
    assert!(!page_explained(ANSWER).contains("Verdict:"));
}

/// The `<title>` of the first bar of `class` whose title contains `has`.
fn title_of<'a>(page: &'a str, class: &str, has: &str) -> &'a str {
    page.split(&format!("<rect class=\"{class}\""))
        .skip(1)
        .filter_map(|r| r.split_once("<title>")?.1.split_once("</title>"))
        .map(|(t, _)| t)
        .find(|t| t.contains(has))
        .unwrap_or_else(|| panic!("no {class} bar with {has} in {page}"))
}

/// Claim: with --explain the page has the section "Delays and the windows that explain
/// them", after the timeline, with one bar per delay (3 explained, 1 not), one per
/// distinct window of the answer (CPU 1's window explains two delays: one bar), a line
/// from each explained delay to its window, an axis in seconds after boot, the table of
/// delays and the answer's limits.
#[test]
fn report_explain_draws_a_bar_per_delay_and_per_window() {
    let page = page_explained(ANSWER);
    let at = |m: &str| page.find(m).unwrap_or_else(|| panic!("{m} missing"));
    assert!(at("id=\"timeline-svg\"") < at("<section id=\"delays\">"));
    assert!(at("<section id=\"delays\">") < at("id=\"histograms\""));
    assert!(page.contains("<h2>Delays and the windows that explain them</h2>"));
    assert!(page.contains("id=\"delays-svg\""));
    assert_eq!(page.matches("<rect class=\"delay explained\"").count(), 3);
    assert_eq!(
        page.matches("<rect class=\"delay not-explained\"").count(),
        1
    );
    assert_eq!(page.matches("<rect class=\"delay-window\"").count(), 2);
    assert_eq!(page.matches("<line class=\"link\"").count(), 3);
    // The axis: seconds after boot, every 100 ms, the last label inside the page.
    assert!(page.contains("text-anchor=\"middle\">4.0 s</text>"));
    assert!(page.contains("text-anchor=\"end\">4.7 s</text>"));
    // Rows: the CPUs with windows, then what was delayed.
    for row in [
        ">CPU 0<",
        ">CPU 1<",
        ">I/O 252:0<",
        ">softirq NET_RX CPU 0<",
        ">tag wait 252:0<",
    ] {
        assert!(page.contains(row), "{row} missing");
    }
    // The table, longest first, and the limits in one line.
    let table = &page[at("id=\"delays-table\"")..];
    let first = table.find("took 90.000 ms").unwrap();
    assert!(first < table.find("waited 62.000 ms").unwrap());
    assert!(page.contains(
        "Limits: window edges are known to within the sampling period (10.000 ms). \
         Windows are held from 3.000000 s on."
    ));
    assert!(page.contains(
        "4 delays of 1.000 ms or more from 3.900000 s to 4.700000 s, 3 explained by irq-off windows"
    ));
    assert_eq!(outside_references(&page), Vec::<String>::new());
    assert!(!page.to_lowercase().contains("<script"));
}

/// Claim: an explained delay's bar says in its title what it was, how long, and the
/// window that explains it in `explain`'s words: kind, CPU, task and culprit; the bar of
/// the window says the same of it; the bar of a softirq delay names its bh-off window.
#[test]
fn report_explain_names_the_window_of_an_explained_delay() {
    let page = page_explained(ANSWER);
    let io = title_of(&page, "delay explained", "I/O on 252:0");
    assert!(
        io.starts_with(
            "I/O on 252:0 by dd-70 took 90.000 ms from 3.950000 s; completed on CPU 1\n"
        ),
        "{io}"
    );
    assert!(
        io.contains(
            "explained by a hardirq-off window of 100.000 ms on CPU 1 by irq_test[90] \
             in irqoff_sample_hardirq_window, overlapping it 83.612 ms"
        ),
        "{io}"
    );
    let sirq = title_of(&page, "delay explained", "NET_RX");
    assert!(
        sirq.contains("softirq-off (bh-off) window of 70.000 ms on CPU 0 by iperf3[77]"),
        "{sirq}"
    );
    let w = title_of(&page, "delay-window", "CPU 1");
    assert!(w.contains("irqoff_sample_hardirq_window"), "{w}");
}

/// Claim: a delay no window explains is drawn grey with `explain`'s sentence in its
/// title and in the table, and no line goes from it.
#[test]
fn report_explain_says_why_a_delay_is_not_explained() {
    let page = page_explained(ANSWER);
    let sentence = "not explained by an irq-off window on the CPUs that serve this device (0)";
    let t = title_of(&page, "delay not-explained", "4.500000 s");
    assert!(t.ends_with(sentence), "{t}");
    assert!(page.contains(&format!("<td>{sentence}</td>")));
    assert_eq!(page.matches("<line class=\"link\"").count(), 3);
}

/// Claim: every text of the answer (task, device, culprit, notes) is escaped in the
/// drawing and in the table: a task named `<script>` runs nothing.
#[test]
fn report_explain_escapes_the_answers_text() {
    let mut v: serde_json::Value = serde_json::from_str(ANSWER).unwrap();
    v["delays"][0]["delay"]["task"] = serde_json::json!("<script>alert(1)</script>");
    v["delays"][0]["windows"][0]["window"]["culprit"] = serde_json::json!("f<b>&\"'");
    v["delays"][3]["delay"]["device"] = serde_json::json!("<img src=x>");
    v["notes"] = serde_json::json!(["<i>note</i>"]);
    let page = page_explained(&v.to_string());
    let lower = page.to_lowercase();
    assert!(!lower.contains("<script"), "a script in the page");
    assert!(!lower.contains("<img") && !page.contains("f<b>") && !page.contains("<i>note"));
    assert!(page.contains("by &lt;script&gt;alert(1)&lt;/script&gt; took 90.000 ms"));
    assert!(page.contains("in f&lt;b&gt;&amp;&quot;&#39;, overlapping"));
    assert!(page.contains(">I/O &lt;img src=x&gt;<"));
    assert!(page.contains("Note: &lt;i&gt;note&lt;/i&gt;"));
}

/// Claim: without --explain the page is the page of before (no delays section); with it,
/// the page is that one with the section added after the timeline and nothing else.
#[test]
fn report_without_explain_is_unchanged() {
    let dir = TempDir::new().unwrap();
    let file = saved_recording(dir.path(), Some(1_778_151_600_000_000_000));
    let (_, plain) = report_of(&file);
    assert!(!plain.contains("id=\"delays\"") && !plain.contains("class=\"delay"));
    let with = page_explained(ANSWER);
    let start = with.find("<section id=\"delays\">").unwrap();
    let end = start + with[start..].find("</section>\n").unwrap() + "</section>\n".len();
    assert_eq!(format!("{}{}", &with[..start], &with[end..]), plain);
}

/// Claim: a --explain file that is not an answer of `explain --json` nor of `explain
/// --wakeups --json` (a wake-up answer whose phases are not phases among them) is
/// refused with one plain sentence and a hint, exit status 2 (as a FILE that is not a
/// record file), and no page is written; one that cannot be read, exit status 1.
#[test]
fn report_explain_refuses_a_bad_answer() {
    let mut broken: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    broken["wakeups"]["wakeups"][0]["phases"] = serde_json::json!("run-queue");
    let broken = broken.to_string();
    for (bad, status) in [
        ("{\"delays\": 3}", 2),
        ("not json", 2),
        (broken.as_str(), 2),
    ] {
        let (out, page) = report_explained(bad);
        assert_eq!(out.status.code(), Some(status), "{bad}");
        assert!(page.is_none(), "a page written for {bad}");
        let err = String::from_utf8(out.stderr).unwrap();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(
            lines[0].contains(
                "answer.json is not an answer of trace-irqoff explain --json \
                 (nor of explain --wakeups --json)"
            ),
            "{err}"
        );
        assert_eq!(
            lines[1],
            "hint: give --explain the output of trace-irqoff explain --json or of \
             trace-irqoff explain --wakeups --pid PID --json (JSON)"
        );
    }
    let dir = TempDir::new().unwrap();
    let file = saved_recording(dir.path(), None);
    let page = dir.path().join("page.html");
    let out = cli(&dir.path().join("no-proc"))
        .arg("report")
        .arg(&file)
        .args(["--explain", "/nonexistent/answer.json", "-o"])
        .arg(&page)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot read /nonexistent/answer.json"));
    assert!(!page.exists());
}

/// Claim: the section's size is bounded whatever the answer: of 1000 delays, each with
/// a window of its own, it draws the longest 200 and their 200 windows, lists 20, and
/// says how many it left out of each.
#[test]
fn report_explain_is_bounded() {
    let mut v: serde_json::Value = serde_json::from_str(ANSWER).unwrap();
    let one = v["delays"][0].clone();
    let delays: Vec<serde_json::Value> = (0..1000u64)
        .map(|i| {
            let mut d = one.clone();
            let start = 4_000_000_000 + i * 1_000_000;
            d["delay"]["start_ns"] = serde_json::json!(start);
            d["delay"]["end_ns"] = serde_json::json!(start + 2_000_000 + i * 1000);
            d["delay"]["cpus"] = serde_json::json!([i % 64]);
            d["windows"][0]["window"]["cpu"] = serde_json::json!(i % 64);
            d["windows"][0]["window"]["start_ns"] = serde_json::json!(start);
            d
        })
        .collect();
    v["delays"] = serde_json::json!(delays);
    let page = page_explained(&v.to_string());
    assert_eq!(page.matches("<rect class=\"delay explained\"").count(), 200);
    assert_eq!(page.matches("<rect class=\"delay-window\"").count(), 200);
    assert!(page.contains("800 shorter delays are not drawn: the drawing holds the longest 200"));
    let table = &page[page.find("id=\"delays-table\"").unwrap()..];
    assert_eq!(
        table[..table.find("</table>").unwrap()]
            .matches("<tr><td>")
            .count(),
        20
    );
    assert!(page.contains("980 shorter delays are left out of the table"));
}

/// The answer of tests/fixtures/explain-wakeups-answer.json, as `explain --wakeups --pid
/// 300 --min 0 --json` writes it of tests/fixtures/wakeup-trace.txt with the windows of
/// records-v2 and a bh-off window of CPU 1 in the event ring
/// (`the_wakeups_fixture_is_what_explain_writes`): cat worker[301] woken through the IPI
/// that waited 90 ms in CPU 1's run queue behind hog[500] (held by the bh-off window),
/// cat[300] 83.42 ms late by its timer on CPU 1 (held by the hardirq-off window), and
/// a local wake-up of cat[300] of 0.5 ms, too short to tell.
const WAKEUPS: &str = include_str!("../fixtures/explain-wakeups-answer.json");

/// Claim: the fixture is what `explain --wakeups --json` writes today of the saved trace
/// (so the report is tested on a real answer, not a hand-made one).
#[test]
fn the_wakeups_fixture_is_what_explain_writes() {
    use crate::explain::{bh_off_ring, cat_root, sysfs, wakeups_cmd};
    let root = cat_root();
    let sys = sysfs();
    let ring = bh_off_ring(1);
    let now = json_of(&mut wakeups_cmd(
        &root,
        sys.path(),
        &ring,
        &["--json", "--pid", "300", "--min", "0"],
    ));
    let fixture: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    assert_eq!(now, fixture);
}

/// The phase bars of the page (`<rect class="phase ...`), each as its class and fill.
fn phase_bars(page: &str) -> Vec<(String, String)> {
    page.split("<rect class=\"phase ")
        .skip(1)
        .map(|r| {
            let class = r.split('"').next().unwrap().to_string();
            let fill = r
                .split("fill=\"")
                .nth(1)
                .unwrap()
                .split('"')
                .next()
                .unwrap();
            (class, fill.to_string())
        })
        .collect()
}

/// Claim: with --explain of an `explain --wakeups --json` answer the page has the section
/// "Wake-ups and the windows that held them" after the timeline (and no delays section:
/// the answer has no delay), with the answer's verdict, summary and limits; one bar per
/// wake-up under the CPU it ran on, split into one bar per phase (7 phases of 3
/// wake-ups), each phase its own colour (timer lateness brown, delivery pink, run-queue
/// wait cyan), the 2 held by a window explained and joined to it by a line, the others
/// faded; one bar per window that held a phase; an axis in seconds after boot.
#[test]
fn report_explain_draws_wakeups_split_into_phases() {
    let page = page_explained(WAKEUPS);
    let at = |m: &str| page.find(m).unwrap_or_else(|| panic!("{m} missing"));
    assert!(at("id=\"timeline-svg\"") < at("<section id=\"wakeups\">"));
    assert!(at("<section id=\"wakeups\">") < at("id=\"histograms\""));
    assert!(
        !page.contains("<section id=\"delays\">"),
        "a delays section"
    );
    assert!(page.contains("<h2>Wake-ups and the windows that held them</h2>"));
    assert!(page.contains(
        "<p><strong>Verdict: yes: 2 of 3 wake-ups were held by irq-off windows; the worst, \
         a softirq-off (bh-off) window of 100.000 ms on CPU 1 by hog[500]"
    ));
    assert!(page.contains(
        "3 wake-ups of 0.000 ms or more of cat[300] (threads 300-301) from 3.900000 s to \
         4.500500 s, 2 explained by irq-off windows"
    ));
    assert!(page.contains("Limits: window edges are known to within the sampling period"));
    assert!(page.contains("id=\"wakeups-svg\""));
    assert_eq!(page.matches("<rect class=\"wakeup\"").count(), 3);
    let brown = "#8c564b";
    let pink = "#e377c2";
    let cyan = "#17becf";
    let mut bars = phase_bars(&page);
    bars.sort();
    let want: Vec<(String, String)> = [
        ("delivery not-explained", pink),
        ("delivery not-explained", pink),
        ("delivery not-explained", pink),
        ("run-queue explained", cyan),
        ("run-queue not-explained", cyan),
        ("run-queue not-explained", cyan),
        ("timer-lateness explained", brown),
    ]
    .iter()
    .map(|(c, f)| (c.to_string(), f.to_string()))
    .collect();
    assert_eq!(bars, want);
    assert_eq!(
        page.matches("fill-opacity=\"0.4\"><title>wake-up").count(),
        5
    );
    assert_eq!(page.matches("<rect class=\"wakeup-window\"").count(), 2);
    assert_eq!(page.matches("<line class=\"link\"").count(), 2);
    for row in [">CPU 1<", ">wake-ups on CPU 1<"] {
        assert!(page.contains(row), "{row} missing");
    }
    assert!(page.contains("text-anchor=\"middle\">4.0 s</text>"));
    // The key names the phases' colours.
    assert!(page.contains(&format!(
        "<span style=\"background:{brown}\"></span>timer lateness<span style=\"background:{pink}\"></span>delivery<span style=\"background:{cyan}\"></span>run-queue wait"
    )));
    assert_eq!(outside_references(&page), Vec::<String>::new());
    assert!(!page.to_lowercase().contains("<script"));
}

/// Claim: hovering a phase shows the wake-up (task, total latency, start, the CPUs it
/// went through), the phase with its share, CPU and the window that held it in
/// `explain`'s words (or why none did), and the shares of all its phases.
#[test]
fn report_explain_titles_say_the_wakeup_its_shares_and_window() {
    let page = page_explained(WAKEUPS);
    let late = title_of(&page, "phase timer-lateness explained", "cat[300]");
    assert_eq!(
        late,
        "wake-up of cat[300] took 83.500 ms from 3.950000 s; by a timer on CPU 1; woken on \
         CPU 1; ran on CPU 1\n\
         timer lateness 83.420 ms (100%) on CPU 1: explained by a hardirq-off window of \
         99.800 ms on CPU 1 by irq_test[90] in irqoff_sample_hardirq_window, overlapping it \
         83.412 ms\n\
         shares: timer lateness 100%, delivery 0%, run-queue wait 0%"
    );
    let rq = title_of(&page, "phase run-queue explained", "cat worker[301]");
    assert!(
        rq.starts_with(
            "wake-up of cat worker[301] took 90.100 ms from 4.200000 s; woken from CPU 0 to \
             CPU 1 through the wake list&#39;s IPI; ran on CPU 1\n"
        ),
        "{rq}"
    );
    assert!(
        rq.contains(
            "run-queue wait 90.000 ms (100%) on CPU 1, while hog[500] ran: explained by a \
             softirq-off (bh-off) window of 100.000 ms on CPU 1 by hog[500]"
        ),
        "{rq}"
    );
    assert!(
        rq.ends_with("shares: delivery 0%, run-queue wait 100%"),
        "{rq}"
    );
    let short = title_of(&page, "phase delivery not-explained", "0.500 ms");
    assert!(
        short.contains("delivery 0.010 ms (2%) on CPU 1: too short to tell"),
        "{short}"
    );
    let w = title_of(&page, "wakeup-window", "bh-off");
    assert!(
        w.contains("by hog[500] in irqoff_sample_softirq_window"),
        "{w}"
    );
}

/// Claim: the table lists the wake-ups slowest first whatever order the file has them
/// in, each with its route and its phases.
#[test]
fn report_explain_lists_the_slowest_wakeups_first() {
    let mut v: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    v["wakeups"]["wakeups"].as_array_mut().unwrap().reverse();
    let page = page_explained(&v.to_string());
    let table = &page[page.find("id=\"wakeups-table\"").expect("the table")..];
    let table = &table[..table.find("</table>").unwrap()];
    let at = |m: &str| table.find(m).unwrap_or_else(|| panic!("{m} missing"));
    assert!(at("cat worker[301] took 90.100 ms") < at("cat[300] took 83.500 ms"));
    assert!(at("cat[300] took 83.500 ms") < at("cat[300] took 0.500 ms"));
    assert_eq!(table.matches("<tr><td>").count(), 3);
    assert!(table.contains("run-queue wait 0.030 ms (0%) on CPU 1, while swapper/1[0] ran"));
}

/// Claim: every text of a wake-up answer (task, the tasks that ran meanwhile, culprit,
/// notes, whose wake-ups) is escaped in the drawing and the table: a task named
/// `<script>` runs nothing.
#[test]
fn report_explain_escapes_the_wakeups_text() {
    let mut v: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    let w = &mut v["wakeups"]["wakeups"][0];
    w["task"] = serde_json::json!("<script>alert(1)</script>");
    w["phases"][1]["ran_meanwhile"] = serde_json::json!(["<img src=x>"]);
    w["phases"][1]["windows"][0]["window"]["culprit"] = serde_json::json!("f<b>&\"'");
    v["wakeups"]["of"] = serde_json::json!("<u>cat</u>");
    v["notes"] = serde_json::json!(["<i>note</i>"]);
    let page = page_explained(&v.to_string());
    let lower = page.to_lowercase();
    assert!(!lower.contains("<script"), "a script in the page");
    assert!(!lower.contains("<img") && !page.contains("f<b>") && !page.contains("<i>note"));
    assert!(!page.contains("<u>cat"));
    assert!(page.contains("wake-up of &lt;script&gt;alert(1)&lt;/script&gt; took 90.100 ms"));
    assert!(page.contains("while &lt;img src=x&gt; ran"));
    assert!(page.contains("in f&lt;b&gt;&amp;&quot;&#39;, overlapping"));
    assert!(page.contains("of &lt;u&gt;cat&lt;/u&gt; (threads 300-301)"));
    assert!(page.contains("Note: &lt;i&gt;note&lt;/i&gt;"));
}

/// Claim: an answer with delays and wake-ups draws both sections, delays first; the
/// verdict, limits and notes are said once, in the delays' section.
#[test]
fn report_explain_with_delays_and_wakeups_draws_both() {
    let mut v: serde_json::Value = serde_json::from_str(ANSWER).unwrap();
    let w: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    v["wakeups"] = w["wakeups"].clone();
    v["verdict_line"] = "Verdict: yes: both.".into();
    let page = page_explained(&v.to_string());
    let delays = page.find("<section id=\"delays\">").expect("delays");
    let wakeups = page.find("<section id=\"wakeups\">").expect("wake-ups");
    assert!(delays < wakeups);
    assert_eq!(page.matches("Verdict: yes: both.").count(), 1);
    assert_eq!(page.matches("Limits: window edges").count(), 1);
    assert_eq!(page.matches("Note: 252:0 (nullb0)").count(), 1);
    assert_eq!(page.matches("<rect class=\"delay-window\"").count(), 2);
    assert_eq!(page.matches("<rect class=\"wakeup-window\"").count(), 2);
    assert_eq!(phase_bars(&page).len(), 7);
}

/// Claim: the wake-ups' section is bounded whatever the answer: of 1000 wake-ups on 64
/// CPUs, each held by a window of its own, it draws the slowest 200 (their phases and
/// their 200 windows; the slowest drawn, the fastest not), lists 20, and says how many
/// it left out of each; the page stays under 1 MB.
#[test]
fn report_explain_wakeups_is_bounded() {
    let mut v: serde_json::Value = serde_json::from_str(WAKEUPS).unwrap();
    let one = v["wakeups"]["wakeups"][0].clone();
    let all: Vec<serde_json::Value> = (0..1000u64)
        .map(|i| {
            let mut w = one.clone();
            let cpu = i % 64;
            let start = 4_000_000_000 + i * 1_000_000;
            let end = start + 2_000_000 + i * 1000;
            w["start_ns"] = serde_json::json!(start);
            w["end_ns"] = serde_json::json!(end);
            w["ran_cpu"] = serde_json::json!(cpu);
            w["phases"][0]["start_ns"] = serde_json::json!(start);
            w["phases"][0]["end_ns"] = serde_json::json!(start + 100_000);
            w["phases"][1]["start_ns"] = serde_json::json!(start + 100_000);
            w["phases"][1]["end_ns"] = serde_json::json!(end);
            let m = &mut w["phases"][1]["windows"][0]["window"];
            m["cpu"] = serde_json::json!(cpu);
            m["start_ns"] = serde_json::json!(start);
            m["end_ns"] = serde_json::json!(end);
            w
        })
        .collect();
    v["wakeups"]["wakeups"] = serde_json::json!(all);
    let page = page_explained(&v.to_string());
    assert_eq!(page.matches("<rect class=\"wakeup\"").count(), 200);
    assert_eq!(phase_bars(&page).len(), 400);
    assert_eq!(page.matches("<rect class=\"wakeup-window\"").count(), 200);
    assert!(page.contains("800 faster wake-ups are not drawn: the drawing holds the slowest 200"));
    // The slowest drawn, the fastest not.
    assert!(page.contains("<title>wake-up of cat worker[301] took 2.999 ms from 4.999000 s;"));
    assert!(!page.contains("took 2.000 ms from 4.000000 s"));
    let table = &page[page.find("id=\"wakeups-table\"").unwrap()..];
    assert_eq!(
        table[..table.find("</table>").unwrap()]
            .matches("<tr><td>")
            .count(),
        20
    );
    assert!(page.contains("980 faster wake-ups are left out of the table"));
    assert!(page.len() < 1_000_000, "{} bytes", page.len());
}
