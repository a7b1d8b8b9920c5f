// SPDX-License-Identifier: GPL-2.0
//! The dashboard and the alert rules against what `metrics` serves: every PromQL query
//! of Documentation/trace-irqoff-grafana.json and trace-irqoff-alerts.yml, and every
//! series the promtool tests feed, names a metric and labels the exporter really serves.

use std::fs;
use std::path::Path;

use crate::util::*;

/// A series as Prometheus stores it: its name and its labels with a value (an empty label
/// is no label there).
type Series = (String, Vec<(String, String)>);

/// Every series of a Prometheus text exposition, its comments skipped.
fn exposition_series(text: &str) -> Vec<Series> {
    let mut v = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let end = line.find(['{', ' ']).unwrap_or(line.len());
        let (name, mut rest) = line.split_at(end);
        let mut labels = Vec::new();
        if let Some(r) = rest.strip_prefix('{') {
            rest = r;
            while let Some((key, r)) = rest.split_once("=\"") {
                let close = r.find('"').unwrap();
                let value = &r[..close];
                if !value.is_empty() {
                    labels.push((key.trim_start_matches(',').to_string(), value.to_string()));
                }
                rest = &r[close + 1..];
                if rest.starts_with('}') {
                    break;
                }
            }
        }
        v.push((name.to_string(), labels));
    }
    v
}

/// What a PromQL expression reads: each selector's metric name and label matchers
/// `(label, operator, value)`, and the labels named by `by`, `without`, `on`, `ignoring`,
/// `group_left` and `group_right`. A tokenizer, not the whole grammar: strings, numbers,
/// durations and range brackets are skipped; an identifier followed by `(` is a function or
/// an aggregation; Grafana's `label_values(SELECTOR, LABEL)` reads SELECTOR and LABEL.
#[allow(clippy::type_complexity)]
fn promql_reads(expr: &str) -> (Vec<(String, Vec<(String, String, String)>)>, Vec<String>) {
    const KEYWORDS: &[&str] = &[
        "by",
        "without",
        "on",
        "ignoring",
        "group_left",
        "group_right",
        "and",
        "or",
        "unless",
        "bool",
        "offset",
        "atan2",
        "inf",
        "nan",
        "sum",
        "min",
        "max",
        "avg",
        "group",
        "stddev",
        "stdvar",
        "count",
        "count_values",
        "bottomk",
        "topk",
        "quantile",
    ];
    let (mut selectors, mut grouping) = (Vec::new(), Vec::new());
    let c: Vec<char> = expr.chars().collect();
    let ident = |i: usize| {
        let mut j = i;
        while j < c.len() && (c[j].is_ascii_alphanumeric() || c[j] == '_' || c[j] == ':') {
            j += 1;
        }
        (c[i..j].iter().collect::<String>(), j)
    };
    let skip_ws = |mut i: usize| {
        while i < c.len() && c[i].is_whitespace() {
            i += 1;
        }
        i
    };
    let string_end = |i: usize| {
        let q = c[i];
        let mut j = i + 1;
        while c[j] != q {
            j += if c[j] == '\\' { 2 } else { 1 };
        }
        j + 1
    };
    // The labels of a `(a, b)` list from i (at its '('): the index after its ')'.
    let label_list = |i: usize, out: &mut Vec<String>| {
        let close = i + c[i..].iter().position(|&x| x == ')').unwrap();
        let inner: String = c[i + 1..close].iter().collect();
        out.extend(
            inner
                .split(',')
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
        close + 1
    };
    let mut i = 0;
    while i < c.len() {
        let ch = c[i];
        if ch == '"' || ch == '\'' || ch == '`' {
            i = string_end(i);
        } else if ch == '[' {
            i += c[i..].iter().position(|&x| x == ']').unwrap() + 1;
        } else if ch.is_ascii_digit() || ch == '.' {
            let (_, j) = ident(i);
            i = j.max(i + 1);
        } else if ch == '$' {
            // A Grafana variable outside a string ($__range is in brackets, skipped).
            let (_, j) = ident(i + 1);
            i = j;
        } else if ch.is_ascii_alphabetic() || ch == '_' || ch == '{' {
            let (name, j) = if ch == '{' {
                (String::new(), i)
            } else {
                ident(i)
            };
            let next = skip_ws(j);
            if name == "label_values" {
                // label_values(SELECTOR, LABEL) or label_values(LABEL)
                let close = next + c[next..].iter().position(|&x| x == ')').unwrap();
                let inner: String = c[next + 1..close].iter().collect();
                let (sel, label) = inner.rsplit_once(',').unwrap_or(("", &inner));
                if !sel.is_empty() {
                    selectors.extend(promql_reads(sel).0);
                }
                grouping.push(label.trim().to_string());
                i = close + 1;
            } else if [
                "by",
                "without",
                "on",
                "ignoring",
                "group_left",
                "group_right",
            ]
            .contains(&name.as_str())
            {
                i = if c.get(next) == Some(&'(') {
                    label_list(next, &mut grouping)
                } else {
                    next
                };
            } else if !name.is_empty()
                && (c.get(next) == Some(&'(') || KEYWORDS.contains(&name.as_str()))
            {
                i = j;
            } else {
                let mut matchers = Vec::new();
                i = j;
                if c.get(next) == Some(&'{') {
                    let mut k = next + 1;
                    loop {
                        k = skip_ws(k);
                        if c[k] == '}' {
                            break;
                        }
                        let (label, after) = ident(k);
                        k = skip_ws(after);
                        let op_len = if "=~!".contains(c[k]) && "=~".contains(c[k + 1]) {
                            2
                        } else {
                            1
                        };
                        let op: String = c[k..k + op_len].iter().collect();
                        k = skip_ws(k + op_len);
                        let end = string_end(k);
                        let value: String = c[k + 1..end - 1].iter().collect();
                        matchers.push((label, op, value));
                        k = skip_ws(end);
                        if c[k] == ',' {
                            k += 1;
                        }
                    }
                    i = k + 1;
                }
                selectors.push((name, matchers));
            }
        } else {
            i += 1;
        }
    }
    (selectors, grouping)
}

/// Claim: every metric the shipped Grafana dashboard queries is one the exporter serves,
/// with the labels it filters on and groups by. Each expression of the dashboard (every
/// panel's targets and every query variable, `label_values` too) is read token by token,
/// so any name counts, not only those starting with trace_irqoff_; the served series are
/// the exposition `serve` answers on /metrics (the same text as `metrics`, as
/// serve_answers_scrapes_with_the_metrics shows) in its default form (histograms summed
/// over CPUs, as the exporter's unit runs it) for a module that serves every optional
/// family (stalls, tag-wait). A selector's name is served; each label it matches is one
/// of that series' labels (or instance and job, which the scrape adds); a literal value
/// it matches with `=` is one the exporter writes (so `le="0.064"` is a bucket edge); each
/// label grouped by is a label of a series the expression reads. The alert rules'
/// expressions pass the same check, but for node_exporter's node_textfile_mtime_seconds
/// and Prometheus' up; so do the series every tests/alerts/*.test.yml feeds promtool (default or --per-cpu). A renamed metric or label, or a moved
/// bucket edge, fails here instead of leaving an empty panel or a silent alert.
#[test]
fn dashboard_queries_only_metrics_the_exporter_serves() {
    let records = include_str!("../fixtures/records-stall.txt").replace(
        "\nend\n",
        "\ntagwait enabled=1 source=kprobe overflow=0 unattributed=0 missed=0\nend\n",
    );
    assert!(
        records.contains("\ntagwait "),
        "the fixture ends with `end`"
    );
    let root = ours_with(&records);
    let text = stdout(root.path(), &["metrics"]);
    let served = exposition_series(&text);
    for family in [
        "trace_irqoff_stalls_total",
        "trace_irqoff_tag_waits_unattributed_total",
    ] {
        assert!(served.iter().any(|(n, _)| n == family), "{family}\n{text}");
    }
    let scrape_labels = ["instance", "job"];
    let check = |what: &str, expr: &str, foreign: &[&str]| {
        let (selectors, grouping) = promql_reads(expr);
        assert!(!selectors.is_empty(), "{what}: no metric read in {expr}");
        let mut read_labels: Vec<&str> = scrape_labels.to_vec();
        for (name, matchers) in &selectors {
            if foreign.contains(&name.as_str()) {
                read_labels.extend(matchers.iter().map(|m| m.0.as_str()));
                continue;
            }
            let of_name: Vec<&Series> = served.iter().filter(|(n, _)| n == name).collect();
            assert!(
                !of_name.is_empty(),
                "{what} queries {name}, which the exporter does not serve: {expr}"
            );
            for (label, op, value) in matchers {
                if scrape_labels.contains(&label.as_str()) {
                    continue;
                }
                let mut values: Vec<&str> = of_name
                    .iter()
                    .flat_map(|(_, ls)| ls.iter().filter(|(k, _)| k == label))
                    .map(|(_, v)| v.as_str())
                    .collect();
                values.dedup();
                assert!(
                    !values.is_empty(),
                    "{what} matches {name}{{{label}}}, a label the exporter does not serve: {expr}"
                );
                if op == "=" && !value.contains('$') {
                    assert!(
                        values.contains(&value.as_str()),
                        "{what} matches {name}{{{label}=\"{value}\"}}, a value the exporter does not serve ({values:?}): {expr}"
                    );
                }
            }
            read_labels.extend(
                of_name
                    .iter()
                    .flat_map(|(_, ls)| ls.iter().map(|(k, _)| k.as_str())),
            );
        }
        for label in &grouping {
            assert!(
                read_labels.contains(&label.as_str()),
                "{what} groups by {label}, a label of none of the series it reads: {expr}"
            );
        }
        selectors.len()
    };

    // The dashboard: every "expr" and every query variable's query.
    let dashboard: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../Documentation/trace-irqoff-grafana.json"
    ))
    .unwrap();
    fn expressions(v: &serde_json::Value, out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                if let Some(serde_json::Value::String(e)) = o.get("expr") {
                    out.push(e.clone());
                }
                if o.get("type").and_then(|t| t.as_str()) == Some("query") {
                    for q in [
                        o.get("query").and_then(|q| q.get("query")),
                        o.get("query"),
                        o.get("definition"),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        if let Some(q) = q.as_str() {
                            out.push(q.to_string());
                        }
                    }
                }
                o.values().for_each(|x| expressions(x, out));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| expressions(x, out)),
            _ => {}
        }
    }
    let mut exprs = Vec::new();
    expressions(&dashboard, &mut exprs);
    let panels = dashboard["panels"].as_array().unwrap();
    let targets: usize = panels
        .iter()
        .map(|p| p["targets"].as_array().map_or(0, Vec::len))
        .sum();
    assert!(
        exprs.len() > targets && targets >= panels.len(),
        "{exprs:?}"
    );
    let read: usize = exprs.iter().map(|e| check("the dashboard", e, &[])).sum();
    assert!(read >= exprs.len(), "{read}");

    // The alert rules: each `expr:`, inline or a block.
    let alerts = include_str!("../../../../Documentation/trace-irqoff-alerts.yml");
    let mut rules = Vec::new();
    let lines: Vec<&str> = alerts.lines().collect();
    for (n, l) in lines.iter().enumerate() {
        let Some((indent, e)) = l.split_once("expr:") else {
            continue;
        };
        let e = e.trim();
        if e == "|" || e == ">" {
            rules.push(
                lines[n + 1..]
                    .iter()
                    .take_while(|b| {
                        b.len() - b.trim_start().len() > indent.len() || b.trim().is_empty()
                    })
                    .copied()
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        } else {
            rules.push(e.to_string());
        }
    }
    assert_eq!(rules.len(), alerts.matches("- alert:").count(), "{rules:?}");
    // Not the exporter's: node_exporter's textfile collector's, and Prometheus' own.
    let foreign = ["node_textfile_mtime_seconds", "up"];
    for e in &rules {
        check("the alert rules", e, &foreign);
    }

    // The series of tests/alerts, as the scrape stores them (instance and job added), from
    // `metrics` or `metrics --per-cpu` (window-long.test.yml has both).
    let mut either = served.clone();
    either.extend(exposition_series(&stdout(
        root.path(),
        &["metrics", "--per-cpu"],
    )));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/alerts");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.yml"))
        .collect();
    files.sort();
    assert!(files.len() >= rules.len(), "{files:?}");
    for path in files {
        let file = path.file_name().unwrap().to_string_lossy().to_string();
        let test = fs::read_to_string(&path).unwrap();
        let series: Vec<&str> = test
            .lines()
            .filter_map(|l| l.trim().strip_prefix("- series: '")?.strip_suffix('\''))
            .collect();
        assert!(!series.is_empty(), "{file}");
        for s in series {
            let name = &s[..s.find('{').unwrap_or(s.len())];
            if foreign.contains(&name) {
                continue;
            }
            let (_, mut labels) = exposition_series(&format!("{s} 0")).remove(0);
            labels.retain(|(k, _)| !scrape_labels.contains(&k.as_str()));
            labels.sort();
            assert!(
                either.iter().any(|(n, ls)| {
                    let mut ls = ls.clone();
                    ls.sort();
                    n == name
                        && ls.iter().map(|(k, _)| k).eq(labels.iter().map(|(k, _)| k))
                        && labels
                            .iter()
                            .all(|(k, v)| k == "cpu" || ls.iter().any(|l| l.0 == *k && l.1 == *v))
                }),
                "tests/alerts/{file} feeds {s}, not a series the exporter serves"
            );
        }
    }
}
