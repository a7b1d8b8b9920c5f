// SPDX-License-Identifier: GPL-2.0

//! The grammar of the machine-readable files, `records` and `counters`: their format
//! versions, the names of kinds and causes, and the `record` line, each of whose fields is
//! declared once, in [`RecordLine`]'s table. Pure logic (`core` only).
//!
//! Written once: the module prints every `record` line with [`RecordLine`], and the CLI
//! reads the files with these versions, names and keys (`tools/tio-logic` re-exports the
//! items marked `pub` here; the module's crate root makes them reachable for that), so
//! writer and reader cannot drift apart. The format is described for users in
//! `Documentation/trace-irqoff.rst`, whose table of the record line is made from
//! [`RECORD_FIELDS`] (a host test compares them).

use core::fmt;

use crate::logic::cause::Cause;
use crate::logic::escape::Escaped;

/// The format version of `records`, on its first line (`trace_irqoff records v2`).
pub const RECORDS_VERSION: u32 = 2;
/// The format version of `counters` (`trace_irqoff counters v1`).
pub const COUNTERS_VERSION: u32 = 1;

/// The first line of a machine-readable file: its name and format version.
pub struct FileHeader<'a> {
    /// `records` or `counters`.
    pub name: &'a str,
    /// Its format version.
    pub version: u32,
}

impl fmt::Display for FileHeader<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "trace_irqoff {} v{}", self.name, self.version)
    }
}

crate::logic::enum_names::names! {
    /// The kind of a window as the files name it: `hard` (hardirq-off) or `soft`
    /// (softirq-off).
    pub enum KindName {
        /// Hard interrupts were off.
        Hard = "hard",
        /// Softirqs could not run.
        Soft = "soft",
    }
}

crate::logic::enum_names::names! {
    /// Which of the module's samplers ended (measured) a window, as the files name it:
    /// how its length was measured, and so how exactly it is known.
    pub enum EndedBy {
        /// The hrtimer: its run after the window (every hardirq-off window). On the line of
        /// a window still open (`lower_bound=1`), of either kind, the sampler that measured
        /// it so far: the hrtimer, whose runs found it open (another CPU's, the watcher's,
        /// for a hardirq-off window; its own CPU's look for a softirq-off one).
        Hrtimer = "hrtimer",
        /// The softirq probe a look of the hrtimer queued when it found softirqs held off:
        /// dated from that look, ended by the first run of softirqs after it (the probe's
        /// own, or the timer_list's where that ran first).
        Probe = "probe",
        /// The timer_list: a softirq-off window no look saw held, ended by its late run.
        Timer = "timer",
    }
}

/// A field that does not apply: no cause, no overlapping kind.
pub const NONE: &str = "-";

/// How a value of the `record` line is written, for the reference's table.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Format {
    /// An unsigned decimal number.
    Unsigned,
    /// A decimal number that may be negative.
    Signed,
    /// `0` or `1`.
    Flag,
    /// One of these names; or also [`NONE`] where `none` (the field does not apply).
    Name {
        /// The names.
        names: &'static [&'static str],
        /// Whether [`NONE`] is written where the field does not apply.
        none: bool,
    },
    /// A task name, raw bytes escaped ([`Escaped`]): `\xHH` for every byte outside
    /// printable ASCII, and for space, `\` and `=`; empty where there is none.
    Comm,
}

/// A value of a `record` line: how it is written there, and the [`Format`] it has.
pub trait Value {
    /// How values of this type are written.
    const FORMAT: Format;
    /// Writes the value as the line holds it.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

macro_rules! decimal {
    ($format:ident: $($t:ty),+) => {
        $(impl Value for $t {
            const FORMAT: Format = Format::$format;
            fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        })+
    };
}
decimal!(Unsigned: u32, u64, usize);
decimal!(Signed: i32, i64);

impl Value for bool {
    const FORMAT: Format = Format::Flag;
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if *self { "1" } else { "0" })
    }
}

impl Value for KindName {
    const FORMAT: Format = Format::Name {
        names: &KindName::NAMES,
        none: false,
    };
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Value for Option<KindName> {
    const FORMAT: Format = Format::Name {
        names: &KindName::NAMES,
        none: true,
    };
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.map_or(NONE, KindName::name))
    }
}

impl Value for EndedBy {
    const FORMAT: Format = Format::Name {
        names: &EndedBy::NAMES,
        none: false,
    };
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Value for Option<Cause> {
    const FORMAT: Format = Format::Name {
        names: &Cause::NAMES,
        none: true,
    };
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.map_or(NONE, Cause::name))
    }
}

impl Value for &[u8] {
    const FORMAT: Format = Format::Comm;
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&Escaped(self), f)
    }
}

/// One field of the `record` line as [`RecordLine`]'s table declares it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct RecordField {
    /// Its key (`key=value`).
    pub key: &'static str,
    /// How its value is written.
    pub format: Format,
    /// What it says (the reference's words; the lines of its doc comment, joined).
    pub doc: &'static str,
}

/// Declares the `record` line from one table of its fields, in printed order: each field
/// once, with its doc comment, its name (the key) and its type (the [`Format`] of its
/// value, by [`Value`]). Makes the line's struct with its writer (`Display`),
/// [`RECORD_FIELDS`], [`RECORD_KEYS`] and [`RECORD_KEY`] (by which the CLI's reader names
/// the keys it reads). After the table's fields comes `ongoing=1`, only on the line of a
/// hardirq-off window still open ([`ONGOING_KEY`]).
macro_rules! record_line {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident<$lt:lifetime> {
            $( $(#[doc = $doc:literal])+ $field:ident: $ty:ty, )+
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct $name<$lt> {
            $( $(#[doc = $doc])+ pub $field: $ty, )+
            /// A hardirq-off window still open (adds `ongoing=1` after the fields).
            pub ongoing: bool,
        }

        /// The number of fields of a `record` line ([`RECORD_FIELDS`]).
        pub const NR_RECORD_FIELDS: usize = [$(stringify!($field)),+].len();

        impl<$lt> $name<$lt> {
            const FIELDS: [RecordField; NR_RECORD_FIELDS] = [$(RecordField {
                key: stringify!($field),
                format: <$ty as Value>::FORMAT,
                doc: concat!($($doc),+),
            }),+];
        }

        /// The fields of a `record` line, in the order they are printed.
        pub const RECORD_FIELDS: [RecordField; NR_RECORD_FIELDS] = $name::<'static>::FIELDS;

        /// The keys of a `record` line in the order they are printed.
        pub const RECORD_KEYS: [&str; NR_RECORD_FIELDS] = [$(stringify!($field)),+];

        /// The keys of a `record` line by field, for readers: a key a reader names that the
        /// table does not declare does not compile.
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub struct RecordKeys {
            $( $(#[doc = $doc])+ pub $field: &'static str, )+
        }

        /// The keys of a `record` line.
        pub const RECORD_KEY: RecordKeys = RecordKeys {
            $( $field: stringify!($field), )+
        };

        impl fmt::Display for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("record")?;
                $(
                    f.write_str(concat!(" ", stringify!($field), "="))?;
                    Value::write(&self.$field, f)?;
                )+
                if self.ongoing {
                    write!(f, " {ONGOING_KEY}=1")?;
                }
                Ok(())
            }
        }
    };
}

record_line! {
    /// One `record` line, without its newline: each field is a key of the line, printed in
    /// this order. Task names are raw bytes here; the line escapes them ([`Escaped`]).
    /// `cgroup`, then `together_ns`, `ended_by` and `stop_callback` came last, within format
    /// v2: readers take a line without them as one of a module that did not print them.
    pub struct RecordLine<'a> {
        /// The CPU the window was on.
        cpu: u32,
        /// The kind of window.
        kind: KindName,
        /// 1: the window had not ended when the file was read (its latency so far).
        lower_bound: bool,
        /// The window's length, ns (so far, for a lower bound).
        latency_ns: u64,
        /// When the window ended (a lower bound: when the file was read), CLOCK_MONOTONIC
        /// ns.
        timestamp_ns: u64,
        /// The task running where the window ended: the culprit.
        pid: i32,
        /// That task's name.
        comm: &'a [u8],
        /// Why softirqs could not run; `-` for hardirq-off records and for softirq-off
        /// windows still open.
        cause: Option<Cause>,
        /// For `ksoftirqd-wait`: how long the softirq thread was seen runnable and not
        /// running in the window, ns (0: not seen).
        runnable_ns: u64,
        /// The hrtimer's looks inside the window that interrupted non-idle code.
        samples: u32,
        /// Of those, the looks that found softirqs held off.
        bh_off_samples: u32,
        /// The looks inside the window that found the CPU idle.
        idle_samples: u32,
        /// Softirq-off windows: the jiffies that passed from its start to the capture.
        jiffies: u64,
        /// 0: the window was a handler or callback that had returned when the sampler ran,
        /// so the end stack does not show the culprit.
        end_shows_culprit: bool,
        /// The other CPU whose hardirq-off window was looked for as covering most of this
        /// one; -1: none was looked for.
        overlap_cpu: i64,
        /// `hard` where one was looked for, `-` where not.
        overlap_kind: Option<KindName>,
        /// That window's length, ns; 0: its record was not found.
        overlap_latency_ns: u64,
        /// Its task; 0: not found.
        overlap_pid: i32,
        /// Its task's name; empty: not found.
        overlap_comm: &'a [u8],
        /// The `frame` lines that follow: the stack where the window ended, culprit first.
        frames: usize,
        /// The `window_frame` lines after those: a stack taken inside the window.
        window_frames: usize,
        /// The task running when that stack was taken.
        window_pid: i32,
        /// Its name.
        window_comm: &'a [u8],
        /// The cgroup v2 id of the culprit task (`pid`), taken with it; 0: unknown (a
        /// kernel without cgroups). Absent from modules before it.
        cgroup: u64,
        /// Of `latency_ns`, the part in which every CPU was late together, kept in the
        /// window for want of evidence that this CPU was stopped (0: none). On a VM this
        /// includes a lone silence: every CPU awake was late together while the others
        /// slept (design.rst, "Sleeping CPUs"). Absent from modules before it (read as 0).
        together_ns: u64,
        /// Which sampler ended (measured) the window: `hrtimer` (hardirq-off windows, and
        /// windows still open: the sampler that measured them so far), `probe` (softirq-off,
        /// ended by the softirq probe the hrtimer queued) or `timer` (softirq-off, ended by
        /// the timer_list). Absent from modules before it.
        ended_by: EndedBy,
        /// 1: the `window_frame` stack is one frame, the function a `stop_machine()` call
        /// ran on this CPU within the window (the module's probes on stop_machine saw the
        /// call and which CPUs it runs its function on), and `window_pid` the stopper thread
        /// that ran it; the culprit. The `frame` stack ends in the call's `multi_cpu_stop`,
        /// as on every CPU the call held. Absent from modules before it (read as 0).
        stop_callback: bool,
    }
}

/// The key that marks a hardirq-off window still open (after [`RECORD_KEYS`]).
pub const ONGOING_KEY: &str = "ongoing";

/// The hardirq-off window of another CPU that covered most of a record's window, as the
/// module finds it: [`LineOverlap::fields`] gives the line's five `overlap_*` fields.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum LineOverlap<'a> {
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

/// The `overlap_*` fields of a [`RecordLine`], in printed order.
pub type OverlapFields<'a> = (i64, Option<KindName>, u64, i32, &'a [u8]);

impl<'a> LineOverlap<'a> {
    /// The `overlap_cpu`, `overlap_kind`, `overlap_latency_ns`, `overlap_pid` and
    /// `overlap_comm` of a line.
    pub fn fields(self) -> OverlapFields<'a> {
        match self {
            LineOverlap::None => (-1, None, 0, 0, b""),
            LineOverlap::NotFound { cpu } => (i64::from(cpu), Some(KindName::Hard), 0, 0, b""),
            LineOverlap::Hard {
                cpu,
                latency_ns,
                pid,
                comm,
            } => (i64::from(cpu), Some(KindName::Hard), latency_ns, pid, comm),
        }
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
    (
        "hard",
        "The hrtimer's samples, taken by its own runs or, on a busy x86 CPU, by the tick.",
    ),
    (
        "soft",
        "The softirq side's runs: the timer_list's where softirqs run in threads, else the probe's.",
    ),
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

    /// `l` with the `overlap_*` fields of `o`.
    fn with_overlap<'a>(l: RecordLine<'a>, o: LineOverlap<'a>) -> RecordLine<'a> {
        let (overlap_cpu, overlap_kind, overlap_latency_ns, overlap_pid, overlap_comm) = o.fields();
        RecordLine {
            overlap_cpu,
            overlap_kind,
            overlap_latency_ns,
            overlap_pid,
            overlap_comm,
            ..l
        }
    }

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
            overlap_cpu: 0,
            overlap_kind: Some(KindName::Hard),
            overlap_latency_ns: 99_000_000,
            overlap_pid: 7,
            overlap_comm: b"a=b",
            frames: 3,
            window_frames: 2,
            window_pid: 43,
            window_comm: b"sh",
            cgroup: 4242,
            together_ns: 0,
            ended_by: EndedBy::Probe,
            stop_callback: false,
            ongoing: false,
        }
    }

    /// The line is byte for byte what the module printed with its hand-written format
    /// strings before the grammar was written once (format v2), with `cgroup`,
    /// `together_ns`, `ended_by` and `stop_callback` added last.
    #[test]
    fn record_line_is_the_v2_line() {
        assert_eq!(
            format!("{}", line()),
            "record cpu=1 kind=soft lower_bound=0 latency_ns=101234567 timestamp_ns=9876543210 pid=42 comm=kworker/1:1\\x20x cause=bh-off runnable_ns=7 samples=10 bh_off_samples=9 idle_samples=1 jiffies=4294967296 end_shows_culprit=1 overlap_cpu=0 overlap_kind=hard overlap_latency_ns=99000000 overlap_pid=7 overlap_comm=a\\x3db frames=3 window_frames=2 window_pid=43 window_comm=sh cgroup=4242 together_ns=0 ended_by=probe stop_callback=0"
        );
        let not_found = with_overlap(line(), LineOverlap::NotFound { cpu: 0 });
        assert!(format!("{not_found}").contains(
            " overlap_cpu=0 overlap_kind=hard overlap_latency_ns=0 overlap_pid=0 overlap_comm= "
        ));
        // The open hardirq-off window, as the module printed it.
        let open = with_overlap(
            RecordLine {
                kind: KindName::Hard,
                lower_bound: true,
                cause: None,
                runnable_ns: 0,
                samples: 0,
                bh_off_samples: 0,
                idle_samples: 0,
                jiffies: 0,
                end_shows_culprit: false,
                frames: 0,
                ended_by: EndedBy::Hrtimer,
                ongoing: true,
                ..line()
            },
            LineOverlap::None,
        );
        assert_eq!(
            format!("{open}"),
            "record cpu=1 kind=hard lower_bound=1 latency_ns=101234567 timestamp_ns=9876543210 pid=42 comm=kworker/1:1\\x20x cause=- runnable_ns=0 samples=0 bh_off_samples=0 idle_samples=0 jiffies=0 end_shows_culprit=0 overlap_cpu=-1 overlap_kind=- overlap_latency_ns=0 overlap_pid=0 overlap_comm= frames=0 window_frames=2 window_pid=43 window_comm=sh cgroup=4242 together_ns=0 ended_by=hrtimer stop_callback=0 ongoing=1"
        );
    }

    /// Claim: the table's writer prints a record whose every field has a value of its own
    /// (none 0 or its default, `ongoing=1` too, a comm with every kind of escaped byte)
    /// byte for byte as the hand-written writer did before the table (the expected line
    /// is that writer's output for these values, format v2), `ended_by` and
    /// `stop_callback` added last.
    #[test]
    fn every_field_as_before_the_table() {
        let l = RecordLine {
            cpu: 7,
            kind: KindName::Soft,
            lower_bound: true,
            latency_ns: 140_000_123,
            timestamp_ns: u64::MAX,
            pid: i32::MAX,
            comm: b"a b=c\\d\t\xff",
            cause: Some(Cause::KsoftirqdWait),
            runnable_ns: 48_000_000,
            samples: 14,
            bh_off_samples: 3,
            idle_samples: 2,
            jiffies: 141,
            end_shows_culprit: true,
            overlap_cpu: 12,
            overlap_kind: Some(KindName::Hard),
            overlap_latency_ns: 99_800_123,
            overlap_pid: 90,
            overlap_comm: b"my hog",
            frames: 32,
            window_frames: 31,
            window_pid: 131,
            window_comm: b"kworker/u8:0",
            cgroup: 5873,
            together_ns: 120_000_000,
            ended_by: EndedBy::Timer,
            stop_callback: true,
            ongoing: true,
        };
        assert_eq!(
            format!("{l}"),
            "record cpu=7 kind=soft lower_bound=1 latency_ns=140000123 timestamp_ns=18446744073709551615 pid=2147483647 comm=a\\x20b\\x3dc\\x5cd\\x09\\xff cause=ksoftirqd-wait runnable_ns=48000000 samples=14 bh_off_samples=3 idle_samples=2 jiffies=141 end_shows_culprit=1 overlap_cpu=12 overlap_kind=hard overlap_latency_ns=99800123 overlap_pid=90 overlap_comm=my\\x20hog frames=32 window_frames=31 window_pid=131 window_comm=kworker/u8:0 cgroup=5873 together_ns=120000000 ended_by=timer stop_callback=1 ongoing=1"
        );
        let hard = LineOverlap::Hard {
            cpu: 12,
            latency_ns: 99_800_123,
            pid: 90,
            comm: b"my hog",
        };
        assert_eq!(with_overlap(l, hard), l);
    }

    /// Claim: the table declares each key once, and its keys, [`RECORD_KEYS`] and
    /// [`RECORD_KEY`] are the same list; every field has a doc and the format of its type.
    #[test]
    fn table_keys_docs_and_formats() {
        let keys: std::vec::Vec<&str> = RECORD_FIELDS.iter().map(|f| f.key).collect();
        assert_eq!(keys, RECORD_KEYS);
        let mut sorted = keys.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), NR_RECORD_FIELDS, "a key declared twice");
        assert!(!RECORD_KEYS.contains(&ONGOING_KEY));
        assert!(RECORD_FIELDS.iter().all(|f| !f.doc.trim().is_empty()));
        let format = |key: &str| {
            RECORD_FIELDS
                .iter()
                .find(|f| f.key == key)
                .map(|f| f.format)
        };
        assert_eq!(format(RECORD_KEY.lower_bound), Some(Format::Flag));
        assert_eq!(format(RECORD_KEY.overlap_cpu), Some(Format::Signed));
        assert_eq!(format(RECORD_KEY.window_comm), Some(Format::Comm));
        assert_eq!(
            format(RECORD_KEY.cause),
            Some(Format::Name {
                names: &["bh-off", "ksoftirqd-wait"],
                none: true
            })
        );
        assert_eq!(
            format(RECORD_KEY.ended_by),
            Some(Format::Name {
                names: &["hrtimer", "probe", "timer"],
                none: false
            })
        );
        assert_eq!(
            (RECORD_KEY.cpu, RECORD_KEY.cgroup, RECORD_KEY.together_ns),
            ("cpu", "cgroup", "together_ns")
        );
        // The newest field is the last: a reader of an older module's lines finds the
        // others where they were.
        assert_eq!(RECORD_KEYS[NR_RECORD_FIELDS - 1], RECORD_KEY.stop_callback);
    }

    /// Claim: every name a value enum declares reads back to its value, and no other
    /// word (not [`NONE`], not a near miss) reads as one.
    #[test]
    fn names_read_back() {
        for k in KindName::ALL {
            assert_eq!(KindName::from_name(k.name()), Some(k));
        }
        for c in Cause::ALL {
            assert_eq!(Cause::from_name(c.name()), Some(c));
        }
        for e in EndedBy::ALL {
            assert_eq!(EndedBy::from_name(e.name()), Some(e));
        }
        assert_eq!(KindName::NAMES, ["hard", "soft"]);
        assert_eq!(EndedBy::NAMES, ["hrtimer", "probe", "timer"]);
        for w in [NONE, "both", "Hard", "bh_off", "", "timer_list", "Probe"] {
            assert_eq!(
                (
                    KindName::from_name(w),
                    Cause::from_name(w),
                    EndedBy::from_name(w)
                ),
                (None, None, None)
            );
        }
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

    /// Claim: `FileHeader` of the records file at `RECORDS_VERSION` displays as
    /// "trace_irqoff records v2".
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
