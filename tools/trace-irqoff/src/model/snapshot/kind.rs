// SPDX-License-Identifier: GPL-2.0
//! The kinds of window the module measures, and why softirqs could not run.

use serde::{Deserialize, Serialize};

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    clap::ValueEnum,
    Hash,
    PartialOrd,
    Ord,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Hard interrupts were off.
    Hard,
    /// Softirqs could not run.
    Soft,
}

impl Kind {
    pub fn label(self) -> &'static str {
        match self {
            Kind::Hard => "hardirq-off",
            Kind::Soft => "softirq-off",
        }
    }
}

/// Why softirqs could not run (records format v2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Cause {
    /// Bottom halves were disabled, or a softirq handler ran long.
    BhOff,
    /// Softirqs were pending with bottom halves enabled, deferred to the softirq thread
    /// (ksoftirqd/N, or ktimers/N), which did not get the CPU.
    KsoftirqdWait,
}

impl Cause {
    /// The name the module and the JSON use.
    pub fn name(self) -> &'static str {
        self.grammar().name()
    }

    /// The cause a name of the module's files stands for.
    pub fn parse(s: &str) -> Option<Self> {
        tio_logic::grammar::Cause::parse(s).map(|c| match c {
            tio_logic::grammar::Cause::BhOff => Cause::BhOff,
            tio_logic::grammar::Cause::KsoftirqdWait => Cause::KsoftirqdWait,
        })
    }

    /// The cause in the module's grammar.
    pub fn grammar(self) -> tio_logic::grammar::Cause {
        match self {
            Cause::BhOff => tio_logic::grammar::Cause::BhOff,
            Cause::KsoftirqdWait => tio_logic::grammar::Cause::KsoftirqdWait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cause_names_match_the_json() {
        for c in [Cause::BhOff, Cause::KsoftirqdWait] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
            assert_eq!(Cause::parse(c.name()), Some(c));
        }
    }
}
