// SPDX-License-Identifier: GPL-2.0

//! The module parameters: each one's name, default and accepted range, written once. Pure
//! logic (`core` only).
//!
//! `module!` needs its defaults and descriptions as literals, so they are repeated there;
//! a host test (below) reads `trace_irqoff_main.rs` and `Documentation/trace-irqoff.rst`
//! and fails if either states a default or a range other than these.

use core::fmt;

/// One module parameter: the values a load accepts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Param {
    /// Its name (`modinfo`, `insmod NAME=VALUE`).
    pub(crate) name: &'static str,
    /// Its default.
    pub(crate) default: u32,
    /// The smallest and the largest value a load accepts.
    pub(crate) min: u32,
    pub(crate) max: u32,
}

impl Param {
    /// `value` if the load accepts it, else why not (for the kernel log).
    pub(crate) const fn check(self, value: u32) -> Result<u32, Refused> {
        if value >= self.min && value <= self.max {
            Ok(value)
        } else {
            Err(Refused(self))
        }
    }
}

/// A value outside a parameter's range; displays what the kernel log says about it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Refused(pub(crate) Param);

impl fmt::Display for Refused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        if (p.min, p.max) == (0, 1) {
            write!(f, "{} must be 0 or 1", p.name)
        } else {
            write!(f, "{} must be within {}..={}", p.name, p.min, p.max)
        }
    }
}

/// Worst events kept per CPU and kind.
pub(crate) const RECORDS_PER_CPU: Param = Param {
    name: "records_per_cpu",
    default: 16,
    min: 1,
    max: 64,
};

/// Whether other CPUs watch for hardirq-off windows still open (a u8 in `module!`: 7.2's
/// has no bool parameters).
pub(crate) const WATCH: Param = Param {
    name: "watch",
    default: 1,
    min: 0,
    max: 1,
};

/// In-window samples per window at full rate.
pub(crate) const MAX_WINDOW_SAMPLES: Param = Param {
    name: "max_window_samples",
    default: 64,
    min: 1,
    max: 4096,
};

/// Length (ms) at which an open hardirq-off window is logged as stuck.
pub(crate) const STUCK_MS: Param = Param {
    name: "stuck_ms",
    default: 1000,
    min: 1,
    max: 600_000,
};

/// Whether tag waits come from the kprobe shim even where the tracepoint exists.
pub(crate) const TAG_WAIT_KPROBE: Param = Param {
    name: "tag_wait_kprobe",
    default: 0,
    min: 0,
    max: 1,
};

/// Whether an idle CPU's sampler parks while the CPU sleeps (`sampler::sleep`).
pub(crate) const PARK_IDLE: Param = Param {
    name: "park_idle",
    default: 1,
    min: 0,
    max: 1,
};

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::string::String;

    /// Every parameter, in `module!` order.
    const ALL: [Param; 6] = [
        RECORDS_PER_CPU,
        WATCH,
        MAX_WINDOW_SAMPLES,
        STUCK_MS,
        TAG_WAIT_KPROBE,
        PARK_IDLE,
    ];

    /// Claim: `records_per_cpu` accepts 1 and 64 and refuses 0 and 65; refusals of
    /// `stuck_ms` and `watch` print their allowed values; every parameter accepts its own
    /// default.
    #[test]
    fn checks_and_messages() {
        assert_eq!(RECORDS_PER_CPU.check(1), Ok(1));
        assert_eq!(RECORDS_PER_CPU.check(64), Ok(64));
        assert_eq!(RECORDS_PER_CPU.check(0), Err(Refused(RECORDS_PER_CPU)));
        assert_eq!(RECORDS_PER_CPU.check(65), Err(Refused(RECORDS_PER_CPU)));
        assert_eq!(
            format!("{}", Refused(STUCK_MS)),
            "stuck_ms must be within 1..=600000"
        );
        assert_eq!(format!("{}", Refused(WATCH)), "watch must be 0 or 1");
        for p in ALL {
            assert_eq!(p.check(p.default), Ok(p.default), "{}", p.name);
        }
    }

    /// How a range is written in the descriptions and the docs: `1..64`, or `0 or 1`.
    fn range_text(p: Param) -> String {
        if (p.min, p.max) == (0, 1) {
            String::from("0 or 1")
        } else {
            format!("{}..{}", p.min, p.max)
        }
    }

    /// The text of `name: TYPE { default: D, description: "…" }` in `module!`.
    fn declared(main: &str, name: &str) -> (String, String) {
        let at = main
            .find(&format!("        {name}: u"))
            .unwrap_or_else(|| panic!("{name} not declared in module!"));
        let block = &main[at..];
        let field = |key: &str| {
            let start = block.find(key).map(|i| i + key.len()).unwrap_or(0);
            let rest = &block[start..];
            String::from(rest[..rest.find(",\n").unwrap_or(0)].trim_matches('"'))
        };
        (field("default: "), field("description: \""))
    }

    /// Claim: `module!`'s defaults and descriptions, and the reference's parameter list,
    /// state each parameter's default and range as written here.
    #[test]
    fn declarations_and_docs_agree() {
        let main = include_str!("../trace_irqoff_main.rs");
        let docs = include_str!("../../Documentation/trace-irqoff.rst");
        let section = &docs[docs.find("Module parameters\n=").unwrap_or(0)..];
        for p in ALL {
            let (default, description) = declared(main, p.name);
            assert_eq!(default, format!("{}", p.default), "{} default", p.name);
            let entry = section
                .split("\n``")
                .find(|e| e.starts_with(&format!("{}``", p.name)))
                .unwrap_or_else(|| panic!("{} not in the reference", p.name));
            if (p.min, p.max) != (0, 1) {
                assert!(
                    description.contains(&format!("({})", range_text(p))),
                    "{}: {description}",
                    p.name
                );
                assert!(
                    entry.contains(&format!("{},", range_text(p)))
                        || entry.contains(&format!("{} ", range_text(p))),
                    "{}: {entry}",
                    p.name
                );
            }
            assert!(
                entry.contains(&format!("default {}", p.default))
                    || entry.contains(&format!("(default ``{}``)", p.default))
                    || entry.contains(&format!("``{}`` (default)", p.default)),
                "{} default in the reference: {entry}",
                p.name
            );
        }
    }
}
