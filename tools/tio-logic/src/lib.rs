// SPDX-License-Identifier: GPL-2.0
//! The trace_irqoff module's pure logic: the files of `src/` that use only `core`, mounted
//! here with `#[path]` so that the host builds exactly the code the kernel runs. The module
//! mounts the same files with its own `mod` lines; nothing here is copied.
//!
//! Two users: `cargo test` runs the files' own unit tests, and the CLI takes the module's
//! bucket edges, histogram layout and period/threshold rules from [`hist`] and [`limits`],
//! and reads task names with the inverse of the module's escaping ([`escape`]), so it
//! prints, validates and parses exactly as the module does.
// The tests of the mounted files use `std` (the harness needs it anyway).
#![cfg_attr(not(test), no_std)]
// The files are written for the module, which uses all of them; the host uses a part.
#![allow(dead_code)]

#[path = "../../../src/logic.rs"]
mod logic;

/// The tag-wait counters' keys: pure logic kept in that feature's folder of the module,
/// mounted here for its unit tests (the CLI uses none of it).
#[cfg(test)]
#[path = "../../../src/tag_wait/key.rs"]
mod tag_wait_key;

/// The module's log2 histograms: bucket k holds [2^k, 2^(k+1)) of a unit (ms for latencies,
/// µs for tag waits); the last bucket also holds everything longer.
pub mod hist {
    use core::fmt;

    /// Number of buckets.
    pub const NR_BUCKETS: usize = crate::logic::histogram::NR_BUCKETS;

    /// Lowest and highest whole unit of bucket `k`, as the module prints them.
    pub const fn bucket_range(k: usize) -> (u64, u64) {
        crate::logic::histogram::bucket_range(k)
    }

    /// Bucket index of a latency in ns.
    pub const fn bucket(latency_ns: u64) -> usize {
        crate::logic::histogram::bucket(latency_ns)
    }

    /// One histogram in the module's `distribute` layout, with `unit` ("msecs", "usecs") as
    /// the column label; nothing when all counts are zero.
    pub fn render_unit(
        out: &mut impl fmt::Write,
        header: &str,
        unit: &str,
        counts: &[u64; NR_BUCKETS],
    ) -> fmt::Result {
        crate::logic::histogram::render_unit(out, header, unit, counts)
    }

    /// As [`render_unit`], from counts as a module wrote them, of any length: a newer
    /// module's buckets beyond ours go into the last one.
    pub fn render_counts(
        out: &mut impl fmt::Write,
        header: &str,
        unit: &str,
        counts: &[u64],
    ) -> fmt::Result {
        let mut fixed = [0u64; NR_BUCKETS];
        for (f, c) in fixed.iter_mut().zip(counts) {
            *f = *c;
        }
        fixed[NR_BUCKETS - 1] += counts.iter().skip(NR_BUCKETS).sum::<u64>();
        render_unit(out, header, unit, &fixed)
    }
}

/// The rules the module applies to writes of `sampling_period` and `trace_latency`.
pub mod limits {
    use crate::logic::parse::{self, LatencyWrite};

    /// Smallest and largest sampling period, ms.
    pub const PERIOD_MS_MIN: u64 = parse::PERIOD_MS_MIN;
    pub const PERIOD_MS_MAX: u64 = parse::PERIOD_MS_MAX;
    /// Largest threshold, ms; the smallest is twice the period.
    pub const THRESHOLD_MS_MAX: u64 = parse::THRESHOLD_MS_MAX;

    /// The smallest and the largest `records_per_cpu` a load accepts.
    pub const RECORDS_PER_CPU: (u32, u32) = (
        crate::logic::params::RECORDS_PER_CPU.min,
        crate::logic::params::RECORDS_PER_CPU.max,
    );

    /// Whether the module accepts `ms` as the sampling period.
    pub fn period_ok(ms: u64) -> bool {
        parse::period(Decimal::new(ms).as_bytes()).is_ok()
    }

    /// Whether the module accepts `list` as a CPU list for `cpus` on a machine of
    /// `nr_cpus` possible CPUs.
    pub fn cpulist_ok(list: &str, nr_cpus: u32) -> bool {
        parse::cpulist(list.as_bytes(), nr_cpus, |_, _| {}).is_ok()
    }

    /// Whether the module accepts `ms` as the threshold while the period is `period_ms`.
    pub fn threshold_ok(ms: u64, period_ms: u64) -> bool {
        let period_ns = period_ms.saturating_mul(crate::logic::gap::NSEC_PER_MSEC);
        matches!(
            parse::trace_latency(Decimal::new(ms).as_bytes(), period_ns),
            Ok(LatencyWrite::Threshold(_))
        )
    }

    /// `v` in decimal digits, as a user writes it to the /proc file (no allocation: `core`).
    struct Decimal {
        buf: [u8; 20],
        start: usize,
    }

    impl Decimal {
        fn new(mut v: u64) -> Self {
            let mut buf = [b'0'; 20];
            let mut start = buf.len();
            loop {
                start -= 1;
                buf[start] = b'0' + (v % 10) as u8;
                v /= 10;
                if v == 0 {
                    break;
                }
            }
            Self { buf, start }
        }

        fn as_bytes(&self) -> &[u8] {
            &self.buf[self.start..]
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn decimal_digits() {
            for v in [0, 7, 10, 1000, u64::MAX] {
                assert_eq!(Decimal::new(v).as_bytes(), v.to_string().as_bytes());
            }
        }

        #[test]
        fn the_modules_rules() {
            assert!(!period_ok(0) && period_ok(1) && period_ok(1000) && !period_ok(1001));
            assert!(
                !threshold_ok(19, 10)
                    && threshold_ok(20, 10)
                    && threshold_ok(10_000, 10)
                    && !threshold_ok(10_001, 10)
            );
            // 0 clears the records: never a threshold.
            assert!(!threshold_ok(0, 1));
        }
    }
}

/// The escaping of task names in the module's `records` and `counters` files, both ways:
/// the module's own writer ([`escaped`]) and its inverse for readers ([`unescape`]), tested
/// against each other here.
pub mod escape {
    extern crate alloc;
    use alloc::vec::Vec;
    use core::fmt;

    /// `bytes` as the module writes them on a `key=value` line: every byte outside printable
    /// ASCII, and space, `\` and `=`, as `\xHH`.
    pub fn escaped(bytes: &[u8]) -> impl fmt::Display + '_ {
        crate::logic::escape::Escaped(bytes)
    }

    /// The bytes of a value [`escaped`] wrote. A `\x` not followed by two hex digits is
    /// kept as it is (the module never writes one).
    pub fn unescape(s: &str) -> Vec<u8> {
        let b = s.as_bytes();
        let mut out = Vec::with_capacity(b.len());
        let mut i = 0;
        while i < b.len() {
            if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
                let hex = b
                    .get(i + 2..i + 4)
                    .and_then(|h| core::str::from_utf8(h).ok());
                if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(v);
                    i += 4;
                    continue;
                }
            }
            out.push(b[i]);
            i += 1;
        }
        out
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::format;

        /// Claim: what the module writes reads back to the same bytes, for every byte a
        /// comm may hold (all but NUL), alone, next to each other and in a comm with the
        /// separators; and an escaped value holds no space, `=` or line break.
        #[test]
        fn round_trip_of_every_byte() {
            let mut all: Vec<u8> = (1..=255u8).collect();
            all.extend_from_slice(b"kworker/1:1 a=b\\c");
            for chunk in [&all[..], b"bash", b"my hog", b"\\x41", b"=", b" "] {
                let text = format!("{}", escaped(chunk));
                assert!(!text.contains([' ', '=', '\n', '\r']), "{text}");
                assert_eq!(unescape(&text), chunk, "{text}");
            }
            for b in 1..=255u8 {
                assert_eq!(unescape(&format!("{}", escaped(&[b]))), [b]);
            }
        }

        /// Claim: malformed escapes are kept as written.
        #[test]
        fn malformed_escapes_are_kept() {
            assert_eq!(unescape("bad\\xZZ"), b"bad\\xZZ");
            assert_eq!(unescape("end\\x4"), b"end\\x4");
        }
    }
}

/// The grammar of the module's machine-readable files (`src/logic/grammar.rs`): their
/// format versions, the names of kinds and causes both ways, and the `record` line as the
/// module writes it, for the CLI's parser and its round-trip tests.
/// Frame names as the module writes them.
pub mod names {
    /// A frame that ends in its module's build id (`func+0x1f/0x80 [module 0123...ef]`,
    /// `%pSb`): the part before the id's space, `func+0x1f/0x80 [module` (the closing `]`
    /// to add); `None` for a frame without one.
    pub fn without_build_id(name: &[u8]) -> Option<&[u8]> {
        crate::logic::names::without_build_id(name)
    }
}

pub mod grammar {
    use crate::logic::cause::Cause as LogicCause;
    use crate::logic::grammar as g;
    use core::fmt;

    /// The format version of `records` the module writes.
    pub const RECORDS_VERSION: u32 = g::RECORDS_VERSION;
    /// The format version of `counters` the module writes.
    pub const COUNTERS_VERSION: u32 = g::COUNTERS_VERSION;
    /// The keys of a `record` line, in the order the module prints them.
    pub const RECORD_KEYS: [&str; 25] = g::RECORD_KEYS;
    /// The key after them on the line of a hardirq-off window still open.
    pub const ONGOING_KEY: &str = g::ONGOING_KEY;
    /// A field that does not apply (no cause, no overlapping kind).
    pub const NONE: &str = g::NONE;

    /// The first line of a file: `trace_irqoff NAME vVERSION`.
    pub fn header(name: &str, version: u32) -> impl fmt::Display + '_ {
        g::FileHeader { name, version }
    }

    /// A window's kind as the files name it.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Kind {
        Hard,
        Soft,
    }

    impl Kind {
        const fn logic(self) -> g::KindName {
            match self {
                Kind::Hard => g::KindName::Hard,
                Kind::Soft => g::KindName::Soft,
            }
        }

        /// The name the module writes.
        pub const fn name(self) -> &'static str {
            self.logic().name()
        }

        /// The kind a name stands for.
        pub fn parse(s: &str) -> Option<Self> {
            [Kind::Hard, Kind::Soft].into_iter().find(|k| k.name() == s)
        }
    }

    /// Why softirqs could not run, as the files name it.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Cause {
        BhOff,
        KsoftirqdWait,
    }

    impl Cause {
        const fn logic(self) -> LogicCause {
            match self {
                Cause::BhOff => LogicCause::BhOff,
                Cause::KsoftirqdWait => LogicCause::KsoftirqdWait,
            }
        }

        /// The name the module writes.
        pub const fn name(self) -> &'static str {
            self.logic().name()
        }

        /// The cause a name stands for (not [`NONE`]).
        pub fn parse(s: &str) -> Option<Self> {
            [Cause::BhOff, Cause::KsoftirqdWait]
                .into_iter()
                .find(|c| c.name() == s)
        }
    }

    /// The hardirq-off window of another CPU that covered most of a record's.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub enum Overlap<'a> {
        /// None was looked for.
        None,
        /// One was looked for on `cpu` and not found.
        NotFound { cpu: u32 },
        /// The other CPU's record: its length, task and task name (raw bytes).
        Hard {
            cpu: u32,
            latency_ns: u64,
            pid: i32,
            comm: &'a [u8],
        },
    }

    /// One `record` line's fields; displayed, the line exactly as the module prints it
    /// (without its newline), by the module's own writer. Task names are raw bytes.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct RecordLine<'a> {
        pub cpu: u32,
        pub kind: Kind,
        pub lower_bound: bool,
        pub latency_ns: u64,
        pub timestamp_ns: u64,
        pub pid: i32,
        pub comm: &'a [u8],
        pub cause: Option<Cause>,
        pub runnable_ns: u64,
        pub samples: u32,
        pub bh_off_samples: u32,
        pub idle_samples: u32,
        pub jiffies: u64,
        pub end_shows_culprit: bool,
        pub overlap: Overlap<'a>,
        pub frames: usize,
        pub window_frames: usize,
        pub window_pid: i32,
        pub window_comm: &'a [u8],
        /// The culprit's cgroup v2 id (0: unknown).
        pub cgroup_id: u64,
        /// Of the latency, the part in which every CPU was late together (0: none).
        pub together_ns: u64,
        pub ongoing: bool,
    }

    impl fmt::Display for RecordLine<'_> {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            let overlap = match self.overlap {
                Overlap::None => g::LineOverlap::None,
                Overlap::NotFound { cpu } => g::LineOverlap::NotFound { cpu },
                Overlap::Hard {
                    cpu,
                    latency_ns,
                    pid,
                    comm,
                } => g::LineOverlap::Hard {
                    cpu,
                    latency_ns,
                    pid,
                    comm,
                },
            };
            let line = g::RecordLine {
                cpu: self.cpu,
                kind: self.kind.logic(),
                lower_bound: self.lower_bound,
                latency_ns: self.latency_ns,
                timestamp_ns: self.timestamp_ns,
                pid: self.pid,
                comm: self.comm,
                cause: self.cause.map(Cause::logic),
                runnable_ns: self.runnable_ns,
                samples: self.samples,
                bh_off_samples: self.bh_off_samples,
                idle_samples: self.idle_samples,
                jiffies: self.jiffies,
                end_shows_culprit: self.end_shows_culprit,
                overlap,
                frames: self.frames,
                window_frames: self.window_frames,
                window_pid: self.window_pid,
                window_comm: self.window_comm,
                cgroup_id: self.cgroup_id,
                together_ns: self.together_ns,
                ongoing: self.ongoing,
            };
            fmt::Display::fmt(&line, f)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Claim: every kind and cause name the module writes parses back to itself, and
        /// nothing else parses.
        #[test]
        fn names_parse_back() {
            for k in [Kind::Hard, Kind::Soft] {
                assert_eq!(Kind::parse(k.name()), Some(k));
            }
            for c in [Cause::BhOff, Cause::KsoftirqdWait] {
                assert_eq!(Cause::parse(c.name()), Some(c));
            }
            assert_eq!(Kind::parse("both"), None);
            assert_eq!(Cause::parse(NONE), None);
            assert_eq!(Cause::parse("bh_off"), None);
            assert_eq!(
                [Cause::BhOff.name(), Cause::KsoftirqdWait.name()],
                ["bh-off", "ksoftirqd-wait"]
            );
        }
    }
    /// A counter of a CPU's `cpu` line, as the module declares it (`CPU_COUNTERS`, in
    /// printed order): the module prints it, the CLI parses and exports it, and the
    /// reference's table is made from it.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub struct Counter {
        pub key: &'static str,
        /// `windows`, `records`, `gaps` or `ns`.
        pub unit: &'static str,
        pub help: &'static str,
        /// Its own Prometheus family (a counter labelled `cpu`), if any.
        pub family: Option<&'static str>,
        /// A line without it (a module from before it) reads as 0; else as not known.
        pub absent_is_zero: bool,
    }

    /// The `cpu` line's counters, in printed order.
    pub fn cpu_counters() -> impl Iterator<Item = Counter> {
        g::CPU_COUNTERS.iter().map(|c| Counter {
            key: c.key,
            unit: match c.unit {
                g::Unit::Windows => "windows",
                g::Unit::Records => "records",
                g::Unit::Gaps => "gaps",
                g::Unit::Nanoseconds => "ns",
            },
            help: c.help,
            family: c.family,
            absent_is_zero: c.absent == g::Absent::Zero,
        })
    }

    /// The `hist` lines' names, with what each counts, in printed order.
    pub const HIST_NAMES: [(&str, &str); 4] = g::HIST_NAMES;
    /// The `cost` lines' names, with what each times, in printed order.
    pub const COST_NAMES: [(&str, &str); 5] = g::COST_NAMES;

    /// A table cell ``` ``PREFIXNAME`` ``` padded to `width`.
    fn key_cell(f: &mut fmt::Formatter<'_>, prefix: &str, name: &str, width: usize) -> fmt::Result {
        write!(f, "``{prefix}{name}``")?;
        let used = 4 + prefix.len() + name.len();
        write!(f, "{:1$}", "", width.saturating_sub(used))
    }

    /// The reference's table of the `cpu`, `hist` and `cost` lines (reStructuredText, as
    /// `Documentation/trace-irqoff.rst` holds it between its `counters-table` markers).
    pub struct CountersTable;

    impl fmt::Display for CountersTable {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            const KEY: usize = 34;
            const UNIT: usize = 8;
            let rule = |f: &mut fmt::Formatter<'_>| {
                writeln!(f, "{:=<KEY$}  {:=<UNIT$}  {:=<60}", "", "", "")
            };
            rule(f)?;
            writeln!(f, "{:<KEY$}  {:<UNIT$}  what it counts", "key", "unit")?;
            rule(f)?;
            for c in cpu_counters() {
                key_cell(f, "", c.key, KEY)?;
                write!(f, "  {:<UNIT$}  {}", c.unit, c.help)?;
                if let Some(family) = c.family {
                    write!(f, " Exported as ``{family}``.")?;
                }
                writeln!(f)?;
            }
            for (name, help) in HIST_NAMES {
                key_cell(f, "hist N ", name, KEY)?;
                writeln!(f, "  {:<UNIT$}  {}", "windows", help)?;
            }
            for (name, help) in COST_NAMES {
                key_cell(f, "cost N ", name, KEY)?;
                writeln!(f, "  {:<UNIT$}  {}", "ns", help)?;
            }
            rule(f)
        }
    }
}

#[cfg(test)]
mod counters_doc {
    /// The reference's table of the counters is the one the declaration makes: a counter
    /// declared, renamed or explained anew in `logic/grammar.rs` fails here until
    /// `Documentation/trace-irqoff.rst` shows it (the expected table is printed; with
    /// `TIO_BLESS=1` the test writes it there).
    #[test]
    fn reference_table_is_the_declaration() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../Documentation/trace-irqoff.rst"
        );
        let doc = std::fs::read_to_string(path).expect("the reference");
        let (start, end) = (".. counters-table start\n\n", ".. counters-table end");
        let a = doc.find(start).expect("the start marker") + start.len();
        let b = doc[a..].find(end).expect("the end marker") + a;
        let want = format!("{}\n", crate::grammar::CountersTable);
        if doc[a..b] != want && std::env::var_os("TIO_BLESS").is_some() {
            std::fs::write(path, format!("{}{}{}", &doc[..a], want, &doc[b..])).expect("write");
            return;
        }
        assert_eq!(
            doc[a..b],
            want,
            "Documentation/trace-irqoff.rst's counters table:\n{want}"
        );
    }
}
