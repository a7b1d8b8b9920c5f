// SPDX-License-Identifier: GPL-2.0

//! The grammar of the machine-readable files, `records` and `counters`: their format
//! versions, the names of kinds and causes, and the `record` line with its keys in the
//! order the module prints them. Pure logic (`core` only).
//!
//! Written once: the module prints every `record` line with [`RecordLine`], and the CLI
//! reads the files with these versions, names and keys (through `tools/tio-logic`, which
//! adds the reader's side: names parsed back), so writer and reader cannot drift apart; the
//! CLI's tests print lines here and parse them back. The format is described for users in `Documentation/trace-irqoff.rst`.

use core::fmt;

use crate::logic::cause::Cause;
use crate::logic::escape::Escaped;

/// The format version of `records`, on its first line (`trace_irqoff records v2`).
pub(crate) const RECORDS_VERSION: u32 = 2;
/// The format version of `counters` (`trace_irqoff counters v1`).
pub(crate) const COUNTERS_VERSION: u32 = 1;

/// The first line of a machine-readable file: its name and format version.
pub(crate) struct FileHeader<'a> {
    /// `records` or `counters`.
    pub(crate) name: &'a str,
    /// Its format version.
    pub(crate) version: u32,
}

impl fmt::Display for FileHeader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace_irqoff {} v{}", self.name, self.version)
    }
}

/// The kind of a window as the files name it: `hard` (hardirq-off) or `soft` (softirq-off).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum KindName {
    /// Hard interrupts were off.
    Hard,
    /// Softirqs could not run.
    Soft,
}

impl KindName {
    /// The name in the files.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            KindName::Hard => "hard",
            KindName::Soft => "soft",
        }
    }
}

/// A field that does not apply: no cause, no overlapping kind.
pub(crate) const NONE: &str = "-";

/// How a cause is written: its name, or [`NONE`] (hardirq-off records, and softirq-off
/// windows still open).
pub(crate) const NO_CAUSE: &str = NONE;

/// The keys of a `record` line in the order they are printed; `ongoing=1` follows them on
/// the line of a hardirq-off window still open. `cgroup` and then `together_ns` came last,
/// within format v2: readers take a line without them as one of a module that did not
/// print them (`together_ns` absent: 0).
pub(crate) const RECORD_KEYS: [&str; 25] = [
    "cpu",
    "kind",
    "lower_bound",
    "latency_ns",
    "timestamp_ns",
    "pid",
    "comm",
    "cause",
    "runnable_ns",
    "samples",
    "bh_off_samples",
    "idle_samples",
    "jiffies",
    "end_shows_culprit",
    "overlap_cpu",
    "overlap_kind",
    "overlap_latency_ns",
    "overlap_pid",
    "overlap_comm",
    "frames",
    "window_frames",
    "window_pid",
    "window_comm",
    "cgroup",
    "together_ns",
];

/// The key that marks a hardirq-off window still open (after [`RECORD_KEYS`]).
pub(crate) const ONGOING_KEY: &str = "ongoing";

/// The hardirq-off window of another CPU that covered most of a record's window.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum LineOverlap<'a> {
    /// None was looked for (`overlap_cpu=-1 overlap_kind=-`).
    None,
    /// One was looked for on `cpu` and not found (its fields 0 and empty).
    NotFound {
        /// The other CPU.
        cpu: u32,
    },
    /// The other CPU's record.
    Hard {
        /// The other CPU.
        cpu: u32,
        /// Its length.
        latency_ns: u64,
        /// Its task.
        pid: i32,
        /// Its task's name, raw bytes (escaped when printed).
        comm: &'a [u8],
    },
}

/// One `record` line, without its newline. Task names are raw bytes here; the line
/// escapes them ([`Escaped`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct RecordLine<'a> {
    pub(crate) cpu: u32,
    pub(crate) kind: KindName,
    /// The window may be longer: it had not ended when read.
    pub(crate) lower_bound: bool,
    pub(crate) latency_ns: u64,
    pub(crate) timestamp_ns: u64,
    pub(crate) pid: i32,
    pub(crate) comm: &'a [u8],
    pub(crate) cause: Option<Cause>,
    pub(crate) runnable_ns: u64,
    pub(crate) samples: u32,
    pub(crate) bh_off_samples: u32,
    pub(crate) idle_samples: u32,
    pub(crate) jiffies: u64,
    pub(crate) end_shows_culprit: bool,
    pub(crate) overlap: LineOverlap<'a>,
    pub(crate) frames: usize,
    pub(crate) window_frames: usize,
    pub(crate) window_pid: i32,
    pub(crate) window_comm: &'a [u8],
    /// The cgroup v2 id of the culprit task (`pid`), 0 when unknown.
    pub(crate) cgroup_id: u64,
    /// Of `latency_ns`, the part in which every CPU was late together, kept in the window
    /// for want of evidence that this CPU was stopped (`stall::Evidence`); 0: none.
    pub(crate) together_ns: u64,
    /// A hardirq-off window still open (adds `ongoing=1`).
    pub(crate) ongoing: bool,
}

impl fmt::Display for RecordLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [cpu, kind, lower_bound, latency_ns, timestamp_ns, pid, comm, cause, runnable_ns, samples, bh_off_samples, idle_samples, jiffies, end_shows_culprit, overlap_cpu, overlap_kind, overlap_latency_ns, overlap_pid, overlap_comm, frames, window_frames, window_pid, window_comm, cgroup, together_ns] =
            RECORD_KEYS;
        write!(
            f,
            "record {cpu}={} {kind}={} {lower_bound}={} {latency_ns}={} {timestamp_ns}={} {pid}={} {comm}={}",
            self.cpu,
            self.kind.name(),
            u8::from(self.lower_bound),
            self.latency_ns,
            self.timestamp_ns,
            self.pid,
            Escaped(self.comm),
        )?;
        write!(
            f,
            " {cause}={} {runnable_ns}={} {samples}={} {bh_off_samples}={} {idle_samples}={} {jiffies}={} {end_shows_culprit}={}",
            self.cause.map_or(NO_CAUSE, Cause::name),
            self.runnable_ns,
            self.samples,
            self.bh_off_samples,
            self.idle_samples,
            self.jiffies,
            u8::from(self.end_shows_culprit),
        )?;
        let (o_cpu, o_kind, o_latency, o_pid, o_comm): (i64, &str, u64, i32, &[u8]) =
            match self.overlap {
                LineOverlap::None => (-1, NONE, 0, 0, b""),
                LineOverlap::NotFound { cpu } => (i64::from(cpu), KindName::Hard.name(), 0, 0, b""),
                LineOverlap::Hard {
                    cpu,
                    latency_ns,
                    pid,
                    comm,
                } => (i64::from(cpu), KindName::Hard.name(), latency_ns, pid, comm),
            };
        write!(
            f,
            " {overlap_cpu}={o_cpu} {overlap_kind}={o_kind} {overlap_latency_ns}={o_latency} {overlap_pid}={o_pid} {overlap_comm}={}",
            Escaped(o_comm),
        )?;
        write!(
            f,
            " {frames}={} {window_frames}={} {window_pid}={} {window_comm}={} {cgroup}={} {together_ns}={}",
            self.frames,
            self.window_frames,
            self.window_pid,
            Escaped(self.window_comm),
            self.cgroup_id,
            self.together_ns,
        )?;
        if self.ongoing {
            write!(f, " {ONGOING_KEY}=1")?;
        }
        Ok(())
    }
}

/// What a counter of the `cpu` line counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Unit {
    /// Windows (events).
    Windows,
    /// Windows a record store did not keep, or overwrote.
    Records,
    /// Sampler gaps that were no window.
    Gaps,
    /// Nanoseconds.
    Nanoseconds,
}

/// A counter of a CPU's `cpu` line (`cpu N online=0|1 KEY=VALUE...`), declared once: the
/// module prints the line from [`CPU_COUNTERS`] ([`CpuLine`]), the CLI parses every key
/// declared here, exports each that has a `family` as a Prometheus counter labelled
/// `cpu`, and the reference's table of the line is checked against this list. A new
/// counter is one entry here and the value the module gives it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct CpuCounter {
    /// Its key on the line.
    pub(crate) key: &'static str,
    pub(crate) unit: Unit,
    /// What it counts (the reference's words, and the metric's help).
    pub(crate) help: &'static str,
    /// Its own Prometheus family (a counter labelled `cpu`), if it has one; the others
    /// are shown through the latency histograms (`*_events`, `*_sum_ns`) or summed over
    /// kinds (`*_dropped`, `*_replaced`).
    pub(crate) family: Option<&'static str>,
    /// Where a module's line lacks it (one from before the counter): read as 0 (the
    /// module did not count it, and showing 0 says so), or as not known (no value, no
    /// series: a zero would claim what the module could not tell).
    pub(crate) absent: Absent,
}

/// How a reader takes a `cpu` line without a counter ([`CpuCounter::absent`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Absent {
    /// Every line of format v2 has it.
    Never,
    /// 0.
    Zero,
    /// Not known.
    Unknown,
}

const fn counter(key: &'static str, unit: Unit, absent: Absent, help: &'static str) -> CpuCounter {
    CpuCounter {
        key,
        unit,
        help,
        family: None,
        absent,
    }
}

const fn gap_counter(
    key: &'static str,
    family: &'static str,
    absent: Absent,
    help: &'static str,
) -> CpuCounter {
    CpuCounter {
        key,
        unit: Unit::Gaps,
        help,
        family: Some(family),
        absent,
    }
}

/// The counters of the `cpu` line, in the order the module prints them.
pub(crate) const CPU_COUNTERS: [CpuCounter; 18] = [
    counter("hard_events", Unit::Windows, Absent::Never, "Hardirq-off windows counted since the last clear."),
    counter("soft_events", Unit::Windows, Absent::Never, "Softirq-off windows counted since the last clear."),
    counter("soft_bh_off_events", Unit::Windows, Absent::Never, "Softirq-off windows held by bottom halves off (or a long softirq handler)."),
    counter("soft_ksoftirqd_wait_events", Unit::Windows, Absent::Never, "Softirq-off windows in which softirq work waited for its thread."),
    counter("hard_dropped", Unit::Records, Absent::Never, "Hardirq-off windows not kept: the store was full of worse ones."),
    counter("hard_replaced", Unit::Records, Absent::Never, "Hardirq-off records overwritten by a worse window."),
    counter("soft_dropped", Unit::Records, Absent::Never, "Softirq-off windows not kept: the store was full of worse ones."),
    counter("soft_replaced", Unit::Records, Absent::Never, "Softirq-off records overwritten by a worse window."),
    gap_counter("idle_gaps", "trace_irqoff_idle_gaps_total", Absent::Zero, "Sampler gaps that ended in the idle loop (late wake-ups, not windows)."),
    gap_counter("late_timer_gaps", "trace_irqoff_late_timer_gaps_total", Absent::Zero, "Timer_list gaps in which softirqs were found free to run (a late timer, not windows)."),
    gap_counter("steal_gaps", "trace_irqoff_steal_gaps_total", Absent::Zero, "Sampler gaps long only because of steal time (the vCPU not run, not windows)."),
    gap_counter("stall_gaps", "trace_irqoff_stall_gaps_total", Absent::Unknown, "Sampler gaps long only because the whole machine stood still (no CPU ran: a paused VM; not windows)."),
    counter("hard_sum_ns", Unit::Nanoseconds, Absent::Unknown, "Exact sum of the hardirq-off windows' lengths."),
    counter("soft_sum_ns", Unit::Nanoseconds, Absent::Unknown, "Exact sum of the softirq-off windows' lengths."),
    counter("soft_bh_off_sum_ns", Unit::Nanoseconds, Absent::Unknown, "Exact sum of the bh-off windows' lengths."),
    counter("soft_ksoftirqd_wait_sum_ns", Unit::Nanoseconds, Absent::Unknown, "Exact sum of the ksoftirqd-wait windows' lengths."),
    counter("together_events", Unit::Windows, Absent::Unknown, "Hardirq-off windows over which every CPU was late together (a host pause, stop_machine or a lock convoy), reported at their length."),
    counter("online_max_ns", Unit::Nanoseconds, Absent::Unknown, "The longest stretch with hard interrupts off in the samplers' start on this CPU (enable, CPU online; the publishing of the first runs, after the timers were armed) since load."),
];

/// The histograms of a CPU (`hist N NAME COUNT...`, log2 buckets), in printed order.
pub(crate) const HIST_NAMES: [(&str, &str); 4] = [
    ("hard", "Hardirq-off windows by length."),
    ("soft", "Softirq-off windows by length."),
    ("soft-bh-off", "Bh-off windows by length."),
    ("soft-ksoftirqd-wait", "Ksoftirqd-wait windows by length."),
];

/// The costs of a CPU (`cost N NAME runs=N total_ns=N hist_ns COUNT...`), in printed
/// order; `nmi` and `nmi_rtt` only where the watcher sends NMIs.
pub(crate) const COST_NAMES: [(&str, &str); 5] = [
    ("hard", "The hrtimer's runs."),
    ("soft", "The timer_list's runs."),
    ("capture", "Records captured in interrupt context."),
    ("nmi", "The watcher's NMI handler on this CPU."),
    (
        "nmi_rtt",
        "From sending an NMI to this CPU until its handler ran.",
    ),
];

/// A CPU's `cpu` line: `values` in [`CPU_COUNTERS`] order.
pub(crate) struct CpuLine<'a> {
    pub(crate) cpu: u32,
    pub(crate) online: bool,
    pub(crate) values: &'a [u64; CPU_COUNTERS.len()],
}

impl fmt::Display for CpuLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cpu {} online={}", self.cpu, u8::from(self.online))?;
        for (c, v) in CPU_COUNTERS.iter().zip(self.values) {
            write!(f, " {}={}", c.key, v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;

    fn line() -> RecordLine<'static> {
        RecordLine {
            cpu: 1,
            kind: KindName::Soft,
            lower_bound: false,
            latency_ns: 101_234_567,
            timestamp_ns: 9_876_543_210,
            pid: 42,
            comm: b"kworker/1:1 x",
            cause: Some(Cause::BhOff),
            runnable_ns: 7,
            samples: 10,
            bh_off_samples: 9,
            idle_samples: 1,
            jiffies: 4_294_967_296,
            end_shows_culprit: true,
            overlap: LineOverlap::Hard {
                cpu: 0,
                latency_ns: 99_000_000,
                pid: 7,
                comm: b"a=b",
            },
            frames: 3,
            window_frames: 2,
            window_pid: 43,
            window_comm: b"sh",
            cgroup_id: 4242,
            together_ns: 0,
            ongoing: false,
        }
    }

    /// The line is byte for byte what the module printed with its hand-written format
    /// strings before the grammar was written once (format v2), with `cgroup` and
    /// `together_ns` added last.
    #[test]
    fn record_line_is_the_v2_line() {
        assert_eq!(
            format!("{}", line()),
            "record cpu=1 kind=soft lower_bound=0 latency_ns=101234567 timestamp_ns=9876543210 pid=42 comm=kworker/1:1\\x20x cause=bh-off runnable_ns=7 samples=10 bh_off_samples=9 idle_samples=1 jiffies=4294967296 end_shows_culprit=1 overlap_cpu=0 overlap_kind=hard overlap_latency_ns=99000000 overlap_pid=7 overlap_comm=a\\x3db frames=3 window_frames=2 window_pid=43 window_comm=sh cgroup=4242 together_ns=0"
        );
        let not_found = RecordLine {
            overlap: LineOverlap::NotFound { cpu: 0 },
            ..line()
        };
        assert!(format!("{not_found}").contains(
            " overlap_cpu=0 overlap_kind=hard overlap_latency_ns=0 overlap_pid=0 overlap_comm= "
        ));
        // The open hardirq-off window, as the module printed it.
        let open = RecordLine {
            kind: KindName::Hard,
            lower_bound: true,
            cause: None,
            runnable_ns: 0,
            samples: 0,
            bh_off_samples: 0,
            idle_samples: 0,
            jiffies: 0,
            end_shows_culprit: false,
            overlap: LineOverlap::None,
            frames: 0,
            ongoing: true,
            ..line()
        };
        assert_eq!(
            format!("{open}"),
            "record cpu=1 kind=hard lower_bound=1 latency_ns=101234567 timestamp_ns=9876543210 pid=42 comm=kworker/1:1\\x20x cause=- runnable_ns=0 samples=0 bh_off_samples=0 idle_samples=0 jiffies=0 end_shows_culprit=0 overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm= frames=0 window_frames=2 window_pid=43 window_comm=sh cgroup=4242 together_ns=0 ongoing=1"
        );
    }

    /// The `cpu` line prints `cpu N online=B` and then every declared counter once, in
    /// declaration order: what the module printed by hand before (format v2).
    #[test]
    fn cpu_line_from_the_declaration() {
        let mut values = [0u64; CPU_COUNTERS.len()];
        for (i, v) in values.iter_mut().enumerate() {
            *v = i as u64 + 1;
        }
        let text = format!(
            "{}",
            CpuLine {
                cpu: 3,
                online: true,
                values: &values
            }
        );
        assert_eq!(
            text,
            "cpu 3 online=1 hard_events=1 soft_events=2 soft_bh_off_events=3 soft_ksoftirqd_wait_events=4 hard_dropped=5 hard_replaced=6 soft_dropped=7 soft_replaced=8 idle_gaps=9 late_timer_gaps=10 steal_gaps=11 stall_gaps=12 hard_sum_ns=13 soft_sum_ns=14 soft_bh_off_sum_ns=15 soft_ksoftirqd_wait_sum_ns=16 together_events=17 online_max_ns=18"
        );
        let mut keys: std::vec::Vec<&str> = CPU_COUNTERS.iter().map(|c| c.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), CPU_COUNTERS.len(), "a key declared twice");
    }

    /// Every key is printed once, in [`RECORD_KEYS`] order.
    #[test]
    fn keys_in_order() {
        let text = format!(
            "{}",
            RecordLine {
                ongoing: true,
                ..line()
            }
        );
        let keys: std::vec::Vec<&str> = text
            .split(' ')
            .skip(1)
            .map(|w| w.split_once('=').map_or(w, |(k, _)| k))
            .collect();
        let mut want = std::vec::Vec::from(RECORD_KEYS);
        want.push(ONGOING_KEY);
        assert_eq!(keys, want);
    }

    #[test]
    fn file_header() {
        assert_eq!(
            format!(
                "{}",
                FileHeader {
                    name: "records",
                    version: RECORDS_VERSION
                }
            ),
            "trace_irqoff records v2"
        );
    }
}
