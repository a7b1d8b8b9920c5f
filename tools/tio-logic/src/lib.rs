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

extern crate alloc;

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

        /// Claim: `Decimal::new(v)` writes the same digits as `to_string` for 0, 7, 10,
        /// 1000 and `u64::MAX`.
        #[test]
        fn decimal_digits() {
            for v in [0, 7, 10, 1000, u64::MAX] {
                assert_eq!(Decimal::new(v).as_bytes(), v.to_string().as_bytes());
            }
        }

        /// Claim: `period_ok` accepts 1 to 1000 ms only, `threshold_ok` at P = 10 ms
        /// accepts 20 to 10000 ms only, and 0 (a clear) is never a threshold.
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

/// Frame names as the module writes them.
pub mod names {
    /// A frame that ends in its module's build id (`func+0x1f/0x80 [module 0123...ef]`,
    /// `%pSb`): the part before the id's space, `func+0x1f/0x80 [module` (the closing `]`
    /// to add); `None` for a frame without one.
    pub fn without_build_id(name: &[u8]) -> Option<&[u8]> {
        crate::logic::names::without_build_id(name)
    }
}

/// The grammar of the module's machine-readable files (`src/logic/grammar.rs`), its own
/// items re-exported: the format versions, the kinds and causes with their names both ways,
/// the `record` line's table of fields with its writer ([`RecordLine`]) and the keys the
/// CLI's reader names ([`RECORD_KEY`]); and, made from the declarations, the reference's
/// tables ([`CountersTable`], [`RecordTable`]).
pub mod grammar {
    use core::fmt;

    use alloc::format;

    pub use crate::logic::cause::Cause;
    use crate::logic::grammar as g;
    pub use crate::logic::grammar::{
        EndedBy, FileHeader, Format, KindName, LineOverlap, OverlapFields, RecordField, RecordKeys,
        RecordLine, Value, COUNTERS_VERSION, NONE, NR_RECORD_FIELDS, ONGOING_KEY, RECORDS_VERSION,
        RECORD_FIELDS, RECORD_KEY, RECORD_KEYS,
    };

    /// The first line of a file: `trace_irqoff NAME vVERSION`.
    pub fn header(name: &str, version: u32) -> impl fmt::Display + '_ {
        FileHeader { name, version }
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

    /// The reference's table of the `record` line's fields, made from their one declaration
    /// (`RECORD_FIELDS`), as `Documentation/trace-irqoff.rst` holds it between its
    /// `record-table` markers: key, how its value is written, its doc comment.
    pub struct RecordTable;

    /// A [`Format`] in the reference's words.
    struct FormatWords(Format);

    impl fmt::Display for FormatWords {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            match self.0 {
                Format::Unsigned => f.write_str("decimal"),
                Format::Signed => f.write_str("decimal, signed"),
                Format::Flag => f.write_str("``0`` or ``1``"),
                Format::Comm => f.write_str("task name, escaped"),
                Format::Name { names, none } => {
                    for (i, n) in names.iter().enumerate() {
                        let last = i + 1 == names.len() && !none;
                        let sep = [", ", " or ", ""][usize::from(last) + 2 * usize::from(i == 0)];
                        write!(f, "{sep}``{n}``")?;
                    }
                    if none {
                        write!(f, " or ``{}``", NONE)?;
                    }
                    Ok(())
                }
            }
        }
    }

    impl fmt::Display for RecordTable {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            const KEY: usize = 22;
            const VALUE: usize = 42;
            let rule = |f: &mut fmt::Formatter<'_>| {
                writeln!(f, "{:=<KEY$}  {:=<VALUE$}  {:=<60}", "", "", "")
            };
            rule(f)?;
            writeln!(f, "{:<KEY$}  {:<VALUE$}  what it says", "key", "value")?;
            rule(f)?;
            for field in RECORD_FIELDS {
                let key = format!("``{}``", field.key);
                let value = format!("{}", FormatWords(field.format));
                write!(f, "{key:<KEY$}  {value:<VALUE$} ")?;
                // The doc comment's lines, joined with single spaces; its Markdown code
                // spans as reStructuredText's.
                for w in field.doc.split_whitespace() {
                    write!(f, " {}", w.replace('`', "``"))?;
                }
                writeln!(f)?;
            }
            rule(f)
        }
    }
}

/// The CLI's forms of the enums of names the module declares (`names!`: the kinds, the
/// causes, the samplers that end windows), made from their one declaration: in JSON (feature `serde`) and on the command
/// line (feature `clap`, for the kinds) each is written as the module's files name it
/// (`name`, `from_name`), so the CLI uses the module's types themselves, not a mirror.
#[cfg(any(feature = "serde", feature = "clap"))]
mod forms {
    #[cfg(feature = "serde")]
    use crate::logic::cause::Cause;
    #[cfg(feature = "serde")]
    use crate::logic::grammar::EndedBy;
    use crate::logic::grammar::KindName;

    /// serde's `Serialize` and `Deserialize` for enums of `names!`: a string, the name.
    #[cfg(feature = "serde")]
    macro_rules! serde_by_name {
        ($($t:ident),+) => {$(
            impl serde::Serialize for $t {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    // As serde's derive writes a unit variant: its index and its name.
                    let index = $t::ALL.iter().position(|v| v == self).unwrap_or(0);
                    s.serialize_unit_variant(stringify!($t), index as u32, self.name())
                }
            }

            impl<'de> serde::Deserialize<'de> for $t {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    struct Name;
                    impl serde::de::Visitor<'_> for Name {
                        type Value = $t;
                        fn expecting(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                            write!(f, "one of {:?}", $t::NAMES)
                        }
                        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$t, E> {
                            $t::from_name(v).ok_or_else(|| E::unknown_variant(v, &$t::NAMES))
                        }
                    }
                    d.deserialize_str(Name)
                }
            }
        )+};
    }
    #[cfg(feature = "serde")]
    serde_by_name!(KindName, Cause, EndedBy);

    /// clap's `ValueEnum` for enums of `names!`: the value is the name, its help the
    /// variant's doc comment without its full stop (as clap's derive gives it).
    #[cfg(feature = "clap")]
    macro_rules! clap_by_name {
        ($($t:ident),+) => {$(
            impl clap::ValueEnum for $t {
                fn value_variants<'a>() -> &'a [Self] {
                    &$t::ALL
                }
                fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                    let doc = self.doc().trim();
                    let help = doc.strip_suffix('.').unwrap_or(doc);
                    Some(clap::builder::PossibleValue::new(self.name()).help(help))
                }
            }
        )+};
    }
    #[cfg(feature = "clap")]
    clap_by_name!(KindName);
}

#[cfg(test)]
mod reference_tables {
    /// Compares the section of `Documentation/trace-irqoff.rst` between the markers
    /// `.. NAME start` and `.. NAME end` with `want`; with `TIO_BLESS=1` writes `want`
    /// there instead of failing.
    fn check(name: &str, want: &str) {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../Documentation/trace-irqoff.rst"
        );
        let doc = std::fs::read_to_string(path).expect("the reference");
        let (start, end) = (format!(".. {name} start\n\n"), format!(".. {name} end"));
        let a = doc.find(&start).expect("the start marker") + start.len();
        let b = doc[a..].find(&end).expect("the end marker") + a;
        if doc[a..b] != *want && std::env::var_os("TIO_BLESS").is_some() {
            std::fs::write(path, format!("{}{}{}", &doc[..a], want, &doc[b..])).expect("write");
            return;
        }
        assert_eq!(
            doc[a..b],
            *want,
            "Documentation/trace-irqoff.rst's {name}:\n{want}"
        );
    }

    /// The reference's table of the counters is the one the declaration makes: a counter
    /// declared, renamed or explained anew in `logic/grammar.rs` fails here until
    /// `Documentation/trace-irqoff.rst` shows it (the expected table is printed; with
    /// `TIO_BLESS=1` the test writes it there).
    #[test]
    fn reference_table_is_the_declaration() {
        check(
            "counters-table",
            &format!("{}\n", crate::grammar::CountersTable),
        );
    }

    /// Claim: the reference's table of the `record` line lists the table's fields
    /// (`logic/grammar.rs`, `record_line!`), in printed order, each with the format of
    /// its type and its doc comment: a field added, renamed, retyped or explained anew
    /// fails here until `Documentation/trace-irqoff.rst` shows it (`TIO_BLESS=1` writes
    /// it there).
    #[test]
    fn record_table_is_the_declaration() {
        let want = format!("{}\n", crate::grammar::RecordTable);
        for key in crate::grammar::RECORD_KEYS {
            assert!(want.contains(&format!("\n``{key}`` ")), "{key}");
        }
        check("record-table", &want);
    }
}
