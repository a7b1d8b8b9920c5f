// SPDX-License-Identifier: GPL-2.0
//! `/etc/trace-irqoff.conf`, the settings `trace-irqoff service start` (the unit
//! `trace-irqoff.service`) applies at boot: parsed and checked whole before anything
//! changes, so that a bad file fails the unit with one sentence and leaves the module as it
//! was. No I/O here: the text in, the settings or the sentence out.
//!
//! The format is TOML, one `key = value` per line; every key is optional:
//!
//! ```toml
//! enable = true          # start sampling (default true)
//! period_ms = 10         # sampling period, 1..1000 ms
//! threshold_ms = 50      # record windows of at least this long, 2 x period..10000 ms
//! cpus = "0-3,8"         # CPUs sampled (default: every CPU but the nohz_full ones)
//! tag_wait = false       # blk-mq tag-wait tracking
//! records_per_cpu = 16   # module parameter, at load: worst events kept per CPU, 1..64
//! watch = true           # module parameter, at load: in-window stacks by NMI (x86_64)
//! ```

use serde::{Deserialize, Serialize};
use tio_logic::limits::{self, PERIOD_MS_MAX, PERIOD_MS_MIN, RECORDS_PER_CPU, THRESHOLD_MS_MAX};

/// Where the service reads its settings.
pub const DEFAULT_PATH: &str = "/etc/trace-irqoff.conf";

/// The module's sampling period after a load (`src/settings.rs`), what a threshold is
/// checked against when the file sets no period and the module is not loaded yet.
pub const LOAD_PERIOD_MS: u64 = 10;

/// The file's settings, each `None` when the file leaves it as the module has it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Conf {
    pub enable: Option<bool>,
    pub period_ms: Option<u64>,
    pub threshold_ms: Option<u64>,
    pub cpus: Option<String>,
    pub tag_wait: Option<bool>,
    pub records_per_cpu: Option<u32>,
    pub watch: Option<bool>,
}

/// Why a file was refused: one sentence, naming the line where there is one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

impl Conf {
    /// Parses and checks `text`, read from `name`. `period_ms`: the period the threshold
    /// must be at least twice of when the file does not set one (the module's).
    pub fn parse(name: &str, text: &str, period_ms: u64) -> Result<Self, Refused> {
        let conf: Conf = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" line {}", line_of(text, s.start)))
                .unwrap_or_default();
            Refused(format!(
                "{name}{at}: {}",
                e.message().trim_end_matches('\n')
            ))
        })?;
        conf.check(name, period_ms)?;
        Ok(conf)
    }

    /// The module's own rules, applied to the file (src/logic/parse.rs, params.rs).
    fn check(&self, name: &str, period_ms: u64) -> Result<(), Refused> {
        let refuse = |what: String| Err(Refused(format!("{name}: {what}")));
        if let Some(p) = self.period_ms.filter(|&p| !limits::period_ok(p)) {
            return refuse(format!(
                "period_ms = {p} is outside {PERIOD_MS_MIN}..{PERIOD_MS_MAX}"
            ));
        }
        let period = self.period_ms.unwrap_or(period_ms);
        if let Some(t) = self
            .threshold_ms
            .filter(|&t| !limits::threshold_ok(t, period))
        {
            return refuse(format!(
                "threshold_ms = {t} is outside {}..{THRESHOLD_MS_MAX} (at least twice the period of {period} ms)",
                2 * period
            ));
        }
        if let Some(list) = self.cpus.as_deref() {
            if !limits::cpulist_ok(list.trim(), u32::MAX) {
                return refuse(format!(
                    "cpus = \"{list}\" is not a CPU list (write it as the kernel does: \"0-3,8\")"
                ));
            }
        }
        let (lo, hi) = RECORDS_PER_CPU;
        if let Some(n) = self.records_per_cpu.filter(|n| !(lo..=hi).contains(n)) {
            return refuse(format!("records_per_cpu = {n} is outside {lo}..{hi}"));
        }
        Ok(())
    }

    /// The module parameters for a load, as `modprobe` takes them.
    pub fn load_params(&self) -> Vec<String> {
        let mut p = Vec::new();
        if let Some(n) = self.records_per_cpu {
            p.push(format!("records_per_cpu={n}"));
        }
        if let Some(w) = self.watch {
            p.push(format!("watch={}", u8::from(w)));
        }
        p
    }
}

/// The 1-based line of byte offset `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.as_bytes()[..at.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "/etc/trace-irqoff.conf";

    fn parse(text: &str) -> Result<Conf, Refused> {
        Conf::parse(NAME, text, LOAD_PERIOD_MS)
    }

    /// An empty file changes nothing: every setting stays as the module has it.
    #[test]
    fn empty_file_sets_nothing() {
        assert_eq!(parse("").unwrap(), Conf::default());
        assert_eq!(parse("# only a comment\n\n").unwrap(), Conf::default());
    }

    /// The documented example (this module's header) is accepted as written.
    #[test]
    fn documented_example_is_accepted() {
        let text = "enable = true\nperiod_ms = 10\nthreshold_ms = 50\ncpus = \"0-3,8\"\n\
                    tag_wait = false\nrecords_per_cpu = 16\nwatch = true\n";
        let c = parse(text).unwrap();
        assert_eq!(c.period_ms, Some(10));
        assert_eq!(c.cpus.as_deref(), Some("0-3,8"));
        assert_eq!(c.load_params(), ["records_per_cpu=16", "watch=1"]);
    }

    /// A misspelt key is refused with its line, not ignored (a silently ignored threshold
    /// would leave the fleet at the default).
    #[test]
    fn unknown_key_names_its_line() {
        let e = parse("enable = true\nperod_ms = 5\n").unwrap_err().0;
        assert!(
            e.starts_with("/etc/trace-irqoff.conf line 2: unknown field `perod_ms`"),
            "{e}"
        );
        assert!(!e.contains('\n'), "one sentence: {e}");
    }

    /// A value of the wrong type names its line.
    #[test]
    fn wrong_type_names_its_line() {
        let e = parse("\n\nthreshold_ms = \"fifty\"\n").unwrap_err().0;
        assert!(e.starts_with("/etc/trace-irqoff.conf line 3: "), "{e}");
        assert!(!e.contains('\n'), "{e}");
    }

    /// The module's ranges are checked before anything is written.
    #[test]
    fn ranges_are_the_modules() {
        assert!(parse("period_ms = 0")
            .unwrap_err()
            .0
            .contains("period_ms = 0 is outside 1..1000"));
        assert!(parse("period_ms = 1001").is_err());
        assert!(parse("period_ms = 1000").is_ok());
        assert!(parse("records_per_cpu = 65")
            .unwrap_err()
            .0
            .contains("outside 1..64"));
        assert!(parse("records_per_cpu = 0").is_err());
        assert!(parse("cpus = \"0-\"")
            .unwrap_err()
            .0
            .contains("not a CPU list"));
        assert!(parse("threshold_ms = 10001").is_err());
    }

    /// The threshold is checked against the file's period, else the module's.
    #[test]
    fn threshold_is_checked_against_the_period() {
        assert!(parse("period_ms = 100\nthreshold_ms = 150")
            .unwrap_err()
            .0
            .contains("200..10000"));
        assert!(parse("period_ms = 100\nthreshold_ms = 200").is_ok());
        assert!(
            parse("threshold_ms = 19").is_err(),
            "twice the load period of 10 ms"
        );
        assert!(
            Conf::parse(NAME, "threshold_ms = 40", 30).is_err(),
            "the module's 30 ms"
        );
    }

    /// Settings for the load only are passed to modprobe; others are not.
    #[test]
    fn load_params_are_the_module_parameters() {
        assert!(parse("period_ms = 5").unwrap().load_params().is_empty());
        assert_eq!(parse("watch = false").unwrap().load_params(), ["watch=0"]);
    }
}
