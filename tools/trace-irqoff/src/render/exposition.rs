// SPDX-License-Identifier: GPL-2.0
//! `metrics`: the Prometheus text exposition format (version 0.0.4), for node_exporter's
//! textfile collector. Names and labels are documented in Documentation/trace-irqoff-cli.rst.
//!
//! Every family keeps one label set (a label with an empty value is, to Prometheus, no
//! label), and every series of a loaded module is there from the first scrape, zeros
//! included, so that rate() and histogram_quantile() work from the start.

use std::fmt::Write;

use crate::model::snapshot::Row;
use crate::model::snapshot::{Cause, Cpu, Kind, Snapshot, Stalls};
use crate::render::prom::{family, histogram, log2_buckets, round};
use crate::render::tag_wait_metrics;

/// The labels of a latency series: CPU (empty for the original module, which only sums),
/// kind, and for softirqs of a v2 module the cause (empty otherwise).
struct Series {
    cpu: String,
    kind: Kind,
    cause: Option<Cause>,
}

impl Series {
    fn labels(&self) -> String {
        let kind = match self.kind {
            Kind::Hard => "hard",
            Kind::Soft => "soft",
        };
        format!(
            "cpu=\"{}\",kind=\"{kind}\",cause=\"{}\"",
            self.cpu,
            self.cause.map_or("", Cause::name)
        )
    }
}

/// The kinds and causes of a module: softirqs split by cause from records format v2 on,
/// as a whole before (the split is unknown then).
fn kinds(s: &Snapshot) -> Vec<(Kind, Option<Cause>)> {
    let mut v = vec![(Kind::Hard, None)];
    if s.version >= 2 {
        v.extend([Cause::BhOff, Cause::KsoftirqdWait].map(|c| (Kind::Soft, Some(c))));
    } else {
        v.push((Kind::Soft, None));
    }
    v
}

fn events(c: &Cpu, kind: Kind, cause: Option<Cause>) -> u64 {
    match (kind, cause) {
        (Kind::Hard, _) => c.hard_events,
        (Kind::Soft, None) => c.soft_events,
        (Kind::Soft, Some(Cause::BhOff)) => c.soft_bh_off_events,
        (Kind::Soft, Some(Cause::KsoftirqdWait)) => c.soft_ksoftirqd_wait_events,
    }
}

fn secs(ns: u64) -> f64 {
    ns as f64 / 1e9
}

/// The original module's rows, [lo, hi] whole ms each.
fn original_buckets(rows: &[Row]) -> Vec<(Option<f64>, u64, f64)> {
    rows.iter()
        .map(|r| {
            (
                Some(round((r.hi_ms + 1) as f64 / 1e3)),
                r.count,
                (r.lo_ms + r.hi_ms + 1) as f64 / 2e3,
            )
        })
        .collect()
}

const LATENCY_HELP: &str = "Windows with hard interrupts (kind=hard) or softirqs (kind=soft; cause=bh-off|ksoftirqd-wait from records format v2) off, by length, since the last clear, summed over CPUs (cpu empty) or per CPU (metrics --per-cpu). _sum is the module's exact sum; only from modules that do not give one (older ones, the original tool) each window stands at its bucket's midpoint.";

/// The exposition of a loaded module: latency histograms summed over CPUs (`cpu=""`), or
/// one per CPU with `per_cpu` (24 buckets for each kind and cause: ~80 series per CPU).
/// Counters are per CPU either way.
pub fn exposition(s: &Snapshot, per_cpu: bool) -> String {
    let mut o = String::new();
    family(
        &mut o,
        "trace_irqoff_loaded",
        "gauge",
        "1 when the trace_irqoff module is loaded.",
    );
    let _ = writeln!(o, "trace_irqoff_loaded 1");
    family(
        &mut o,
        "trace_irqoff_enabled",
        "gauge",
        "1 while sampling is enabled.",
    );
    let _ = writeln!(o, "trace_irqoff_enabled {}", u8::from(s.config.enabled));
    family(
        &mut o,
        "trace_irqoff_sampling_period_seconds",
        "gauge",
        "Sampling period P.",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_sampling_period_seconds {}",
        secs(s.config.period_ns)
    );
    family(
        &mut o,
        "trace_irqoff_threshold_seconds",
        "gauge",
        "Latency from which windows are recorded with their stacks.",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_threshold_seconds {}",
        secs(s.config.threshold_ns)
    );
    family(
        &mut o,
        "trace_irqoff_records_format",
        "gauge",
        "Version of the module's records file (0: the original module, which has none).",
    );
    let _ = writeln!(o, "trace_irqoff_records_format {}", s.version);

    if let Some(orig) = &s.original_hist {
        original(&mut o, s, orig);
    } else {
        ours(&mut o, s, per_cpu);
    }
    if let Some(tw) = &s.tag_wait {
        tag_wait_metrics::families(&mut o, tw);
    }
    o
}

/// The exposition without the module: still a valid file, which says so.
pub fn unloaded() -> String {
    let mut o = String::new();
    family(
        &mut o,
        "trace_irqoff_loaded",
        "gauge",
        "1 when the trace_irqoff module is loaded.",
    );
    let _ = writeln!(o, "trace_irqoff_loaded 0");
    o
}

/// The histogram of `kind` and `cause` summed over `cpus`, with the exact sum if every CPU
/// gives one.
fn summed(cpus: &[Cpu], kind: Kind, cause: Option<Cause>) -> (Vec<u64>, Option<u64>) {
    let mut counts = vec![
        0u64;
        cpus.iter()
            .map(|c| c.hist(kind, cause).len())
            .max()
            .unwrap_or(0)
    ];
    let mut sum = Some(0u64);
    for c in cpus {
        for (t, v) in counts.iter_mut().zip(c.hist(kind, cause)) {
            *t += v;
        }
        sum = sum.zip(c.sum_ns(kind, cause)).map(|(a, b)| a + b);
    }
    (counts, sum)
}

/// The latency histograms: per CPU and kind with `per_cpu`, else per kind summed over
/// the CPUs.
fn latency_histograms(o: &mut String, s: &Snapshot, series: &[(&Cpu, Series)], per_cpu: bool) {
    family(o, "trace_irqoff_latency_seconds", "histogram", LATENCY_HELP);
    if per_cpu {
        for (c, se) in series {
            let exact = c.sum_ns(se.kind, se.cause).map(secs);
            histogram(
                o,
                "trace_irqoff_latency_seconds",
                &se.labels(),
                &log2_buckets(c.hist(se.kind, se.cause), 1e-3),
                exact,
            );
        }
    } else {
        for (kind, cause) in kinds(s) {
            let (counts, sum) = summed(&s.cpus, kind, cause);
            let se = Series {
                cpu: String::new(),
                kind,
                cause,
            };
            histogram(
                o,
                "trace_irqoff_latency_seconds",
                &se.labels(),
                &log2_buckets(&counts, 1e-3),
                sum.map(secs),
            );
        }
    }
}

/// The families of this trace-irqoff's module (not the original's): per CPU online, the
/// latency histograms, events, dropped and replaced records, the `cpu` line's counters,
/// stalls and the worst windows.
fn ours(o: &mut String, s: &Snapshot, per_cpu: bool) {
    let series: Vec<(&Cpu, Series)> = s
        .cpus
        .iter()
        .flat_map(|c| {
            kinds(s).into_iter().map(move |(kind, cause)| {
                (
                    c,
                    Series {
                        cpu: c.cpu.to_string(),
                        kind,
                        cause,
                    },
                )
            })
        })
        .collect();
    family(
        o,
        "trace_irqoff_cpu_online",
        "gauge",
        "1 if the CPU is online.",
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "trace_irqoff_cpu_online{{cpu=\"{}\"}} {}",
            c.cpu,
            u8::from(c.online)
        );
    }
    latency_histograms(o, s, &series, per_cpu);
    family(
        o,
        "trace_irqoff_events_total",
        "counter",
        "Windows counted since the last clear (the histogram's _count).",
    );
    for (c, se) in &series {
        let _ = writeln!(
            o,
            "trace_irqoff_events_total{{{}}} {}",
            se.labels(),
            events(c, se.kind, se.cause)
        );
    }
    family(
        o,
        "trace_irqoff_records_dropped_total",
        "counter",
        "Windows not recorded because the CPU's buffer held only worse ones.",
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "trace_irqoff_records_dropped_total{{cpu=\"{}\"}} {}",
            c.cpu, c.dropped
        );
    }
    family(
        o,
        "trace_irqoff_records_replaced_total",
        "counter",
        "Records overwritten by a worse window.",
    );
    for c in &s.cpus {
        let _ = writeln!(
            o,
            "trace_irqoff_records_replaced_total{{cpu=\"{}\"}} {}",
            c.cpu, c.replaced
        );
    }
    cpu_counter_families(o, s);
    if let Some(st) = &s.stalls {
        stalls(o, st);
    }
    worst(o, s, series.iter().map(|(_, se)| se));
}

/// The `cpu` line's counters that have a family of their own
/// (`tio_logic::grammar::cpu_counters`): a counter labelled `cpu` each, with the
/// declaration's help. A counter some CPU's line lacks is left out where the declaration
/// takes a missing one as not known (a module from before it: no zero is claimed).
fn cpu_counter_families(o: &mut String, s: &Snapshot) {
    for c in tio_logic::grammar::cpu_counters() {
        let Some(name) = c.family else { continue };
        let values: Option<Vec<u64>> = s
            .cpus
            .iter()
            .map(|cpu| {
                let v = cpu.counters.get(c.key).copied();
                v.or(c.absent_is_zero.then_some(0))
            })
            .collect();
        let Some(values) = values else { continue };
        family(o, name, "counter", c.help);
        for (cpu, v) in s.cpus.iter().zip(values) {
            let _ = writeln!(o, "{name}{{cpu=\"{}\"}} {v}", cpu.cpu);
        }
    }
}

/// Stalls of the whole machine (no sampled CPU ran: a paused VM), apart from the windows;
/// only from modules that count them (older ones cannot tell them from windows, so no
/// zero is claimed for them).
fn stalls(o: &mut String, st: &Stalls) {
    family(
        o,
        "trace_irqoff_stalls_total",
        "counter",
        "Stalls since the last clear: spans of a sampling period or more in which no sampled CPU ran (the whole machine stood still: a paused VM, a stopped emulator); not irq-off windows.",
    );
    let _ = writeln!(o, "trace_irqoff_stalls_total {}", st.count);
    family(
        o,
        "trace_irqoff_stall_seconds_total",
        "counter",
        "Total length of the stalls since the last clear.",
    );
    let _ = writeln!(o, "trace_irqoff_stall_seconds_total {}", secs(st.sum_ns));
    family(
        o,
        "trace_irqoff_stall_longest_seconds",
        "gauge",
        "Longest stall since the last clear (0: none).",
    );
    let _ = writeln!(
        o,
        "trace_irqoff_stall_longest_seconds {}",
        secs(st.longest_ns)
    );
}

/// The original module: histograms summed over CPUs, with its own bucket edges.
fn original(o: &mut String, s: &Snapshot, rows: &[(Kind, Vec<Row>)]) {
    family(o, "trace_irqoff_latency_seconds", "histogram", LATENCY_HELP);
    for (kind, rows) in rows {
        let se = Series {
            cpu: String::new(),
            kind: *kind,
            cause: None,
        };
        histogram(
            o,
            "trace_irqoff_latency_seconds",
            &se.labels(),
            &original_buckets(rows),
            None,
        );
    }
    family(
        o,
        "trace_irqoff_events_total",
        "counter",
        "Windows counted since the last clear (the histogram's _count).",
    );
    for (kind, rows) in rows {
        let se = Series {
            cpu: String::new(),
            kind: *kind,
            cause: None,
        };
        let _ = writeln!(
            o,
            "trace_irqoff_events_total{{{}}} {}",
            se.labels(),
            rows.iter().map(|r| r.count).sum::<u64>()
        );
    }
    let mut series: Vec<Series> = Vec::new();
    for r in &s.records {
        if !series
            .iter()
            .any(|se| se.cpu == r.cpu.to_string() && se.kind == r.kind)
        {
            series.push(Series {
                cpu: r.cpu.to_string(),
                kind: r.kind,
                cause: None,
            });
        }
    }
    worst(o, s, series.iter());
}

fn worst<'a>(o: &mut String, s: &Snapshot, series: impl Iterator<Item = &'a Series>) {
    family(
        o,
        "trace_irqoff_worst_latency_seconds",
        "gauge",
        "Longest recorded window per CPU and kind since the last clear (0: none recorded).",
    );
    for se in series {
        // From the counters file's worst lines, else from the records.
        let worst = match &s.worst {
            Some(w) => w
                .iter()
                .filter(|w| w.cpu.to_string() == se.cpu)
                .map(|w| w.of(se.kind, se.cause))
                .max()
                .unwrap_or(0),
            None => s
                .records
                .iter()
                .filter(|r| {
                    r.cpu.to_string() == se.cpu
                        && r.kind == se.kind
                        && (se.kind == Kind::Hard || r.cause == se.cause)
                })
                .map(|r| r.latency_ns)
                .max()
                .unwrap_or(0),
        };
        let _ = writeln!(
            o,
            "trace_irqoff_worst_latency_seconds{{{}}} {}",
            se.labels(),
            secs(worst)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::NR_BUCKETS;

    fn parse(name: &str) -> Snapshot {
        crate::parse::records::parse(match name {
            "v1" => include_str!("../../tests/fixtures/records-v1.txt"),
            "stall" => include_str!("../../tests/fixtures/records-stall.txt"),
            _ => include_str!("../../tests/fixtures/records-v2.txt"),
        })
        .unwrap()
    }

    /// Claim: the exposition writes each CPU's latency histogram with all 24 cumulative
    /// buckets in seconds up to +Inf, the module's exact sum where it gives one and
    /// bucket midpoints otherwise, a zero series for a CPU without windows, and softirq
    /// series split by cause for v2 but not v1.
    #[test]
    fn histograms_are_cumulative_in_seconds_with_every_bucket() {
        let text = exposition(&parse("v2"), true);
        // CPU 1: one hardirq window of 99.8 ms, in [64, 128) ms.
        let h: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.starts_with(
                    "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",",
                )
            })
            .collect();
        assert_eq!(h.len(), NR_BUCKETS);
        assert_eq!(h[0], "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"0.002\"} 0");
        assert_eq!(h[5], "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"0.064\"} 0");
        assert_eq!(h[6], "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"0.128\"} 1");
        assert_eq!(h[22], "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"8388.608\"} 1");
        assert_eq!(
            h[23],
            "trace_irqoff_latency_seconds_bucket{cpu=\"1\",kind=\"hard\",cause=\"\",le=\"+Inf\"} 1"
        );
        // The module's exact sum where it gives one (CPU 1), else bucket midpoints (CPU 0's
        // 100.111 ms bh-off window at 96 ms).
        assert!(
            text.contains(
                "\ntrace_irqoff_latency_seconds_sum{cpu=\"1\",kind=\"hard\",cause=\"\"} 0.0998\n"
            ),
            "{text}"
        );
        assert!(text.contains("\ntrace_irqoff_latency_seconds_sum{cpu=\"0\",kind=\"soft\",cause=\"bh-off\"} 0.096\n"), "{text}");
        assert!(text.contains(
            "\ntrace_irqoff_latency_seconds_count{cpu=\"1\",kind=\"hard\",cause=\"\"} 1\n"
        ));
        // A CPU without any window has its series too, at zero.
        assert!(text.contains(
            "\ntrace_irqoff_latency_seconds_count{cpu=\"3\",kind=\"hard\",cause=\"\"} 0\n"
        ));
        // v2 softirq series by cause; v1 without.
        assert!(text.contains(
            "\ntrace_irqoff_events_total{cpu=\"2\",kind=\"soft\",cause=\"ksoftirqd-wait\"} 2\n"
        ));
        let v1 = exposition(&parse("v1"), true);
        assert!(
            v1.contains("\ntrace_irqoff_events_total{cpu=\"1\",kind=\"soft\",cause=\"\"} 1\n"),
            "{v1}"
        );
        assert!(!v1.contains("cause=\"bh-off\""));
    }

    /// By default one histogram per kind and cause, summed over CPUs, with the module's
    /// exact sum only where every CPU gives one; counters stay per CPU.
    #[test]
    fn histograms_are_summed_over_cpus_by_default() {
        let s = parse("v2");
        let text = exposition(&s, false);
        assert!(
            !text.contains("trace_irqoff_latency_seconds_bucket{cpu=\"1\""),
            "{text}"
        );
        let hard: Vec<&str> = text
            .lines()
            .filter(|l| {
                l.starts_with(
                    "trace_irqoff_latency_seconds_bucket{cpu=\"\",kind=\"hard\",cause=\"\",",
                )
            })
            .collect();
        assert_eq!(hard.len(), NR_BUCKETS);
        let per_cpu = exposition(&s, true);
        for (kind, cause) in kinds(&s) {
            let labels = Series {
                cpu: String::new(),
                kind,
                cause,
            }
            .labels();
            let count = |t: &str, cpu: &str| -> u64 {
                let key = format!(
                    "trace_irqoff_latency_seconds_count{{{}}} ",
                    labels.replacen("cpu=\"\"", &format!("cpu=\"{cpu}\""), 1)
                );
                t.lines()
                    .find_map(|l| l.strip_prefix(&key))
                    .map_or(0, |v| v.parse().unwrap_or(0))
            };
            let total: u64 = s
                .cpus
                .iter()
                .map(|c| count(&per_cpu, &c.cpu.to_string()))
                .sum();
            assert_eq!(count(&text, ""), total, "{labels}");
        }
        // CPU 0's bh-off sum is not in the file (midpoint there): no exact sum for the node.
        let (_, sum) = summed(&s.cpus, Kind::Soft, Some(Cause::BhOff));
        assert_eq!(sum, None);
        assert!(text.contains(
            "\ntrace_irqoff_events_total{cpu=\"2\",kind=\"soft\",cause=\"ksoftirqd-wait\"} 2\n"
        ));
        // What each CPU adds: its counters and worst-window gauges, not ~80 bucket series.
        let of_cpu_1 = |t: &str| t.lines().filter(|l| l.contains("{cpu=\"1\"")).count();
        assert_eq!(of_cpu_1(&text), 12, "{text}");
        assert!(of_cpu_1(&per_cpu) > 80, "{per_cpu}");
    }

    /// Claim: a module that counts stalls gets their four families, each with HELP and
    /// TYPE: stall gaps per CPU, stalls and their seconds (counters), the longest (a gauge);
    /// stalls add nothing to the windows' families; a module without them has none of the
    /// four (no zero claimed for what it cannot tell).
    /// Every counter the module declares with a family of its own is exported from the
    /// `cpu` lines with the declaration's name and help, one series per CPU with the
    /// line's value: a counter added to the declaration is exported without code here.
    /// A module's line that lacks a counter read as not known exports no series of it.
    #[test]
    fn declared_counters_are_families() {
        let snap = parse("stall");
        let text = exposition(&snap, false);
        let mut exported = 0;
        for c in tio_logic::grammar::cpu_counters() {
            let Some(name) = c.family else { continue };
            exported += 1;
            assert!(
                text.contains(&format!(
                    "\n# HELP {name} {}\n# TYPE {name} counter\n",
                    c.help
                )),
                "{name}\n{text}"
            );
            for cpu in &snap.cpus {
                let v = cpu.counters.get(c.key).copied().unwrap_or(0);
                let line = format!("\n{name}{{cpu=\"{}\"}} {v}\n", cpu.cpu);
                assert!(text.contains(&line), "{line}");
            }
        }
        assert!(exported >= 4, "the gap counters have families");
        // v1 lines lack stall_gaps (not known: no series) but idle_gaps reads as 0.
        let old = exposition(&parse("v1"), false);
        assert!(!old.contains("trace_irqoff_stall_gaps_total"));
        assert!(old.contains("\ntrace_irqoff_idle_gaps_total{cpu=\"0\"} 0\n"));
    }

    /// Claim: a module reporting stalls gets four stall families (gap and stall counters,
    /// total seconds, longest seconds) with HELP, TYPE and the fixture's values, absent
    /// for a module without stalls, and its window series are the same as without the
    /// stalls.
    #[test]
    fn stalls_are_their_own_families() {
        let text = exposition(&parse("stall"), false);
        for (name, kind) in [
            ("trace_irqoff_stall_gaps_total", "counter"),
            ("trace_irqoff_stalls_total", "counter"),
            ("trace_irqoff_stall_seconds_total", "counter"),
            ("trace_irqoff_stall_longest_seconds", "gauge"),
        ] {
            assert!(text.contains(&format!("\n# HELP {name} ")), "{name}");
            assert!(
                text.contains(&format!("\n# TYPE {name} {kind}\n")),
                "{name}"
            );
            assert!(
                !exposition(&parse("v2"), true).contains(name),
                "{name} from a module without stalls"
            );
        }
        for line in [
            "trace_irqoff_stall_gaps_total{cpu=\"0\"} 10",
            "trace_irqoff_stall_gaps_total{cpu=\"1\"} 9",
            "trace_irqoff_stalls_total 5",
            "trace_irqoff_stall_seconds_total 0.935",
            "trace_irqoff_stall_longest_seconds 0.302",
        ] {
            assert!(text.contains(&format!("\n{line}\n")), "{line}\n{text}");
        }
        // The windows' families are those of the same file without stalls (and its steal
        // gap, which the fixture adds).
        let watcher =
            crate::parse::records::parse(include_str!("../../tests/fixtures/records-watcher.txt"))
                .unwrap();
        let windows = |t: &str| {
            t.lines()
                .filter(|l| !l.contains("stall") && !l.contains("steal") && !l.starts_with('#'))
                .map(str::to_string)
                .collect::<Vec<_>>()
        };
        assert_eq!(windows(&text), windows(&exposition(&watcher, false)));
    }

    /// Claim: the exposition for an unloaded module is exactly `trace_irqoff_loaded 0`
    /// with its HELP and gauge TYPE lines.
    #[test]
    fn unloaded_says_so() {
        assert_eq!(unloaded(), "# HELP trace_irqoff_loaded 1 when the trace_irqoff module is loaded.\n# TYPE trace_irqoff_loaded gauge\ntrace_irqoff_loaded 0\n");
    }
}
