// SPDX-License-Identifier: GPL-2.0
//! The kinds of window the module measures, and why softirqs could not run.

use serde::{Deserialize, Serialize};
use tio_logic::grammar::{self, KindName};

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

/// The module's kinds (`logic::grammar`, declared there once with their names in the
/// files): each is one of these, and the JSON names it the same (a test checks it).
impl From<KindName> for Kind {
    fn from(k: KindName) -> Self {
        match k {
            KindName::Hard => Kind::Hard,
            KindName::Soft => Kind::Soft,
        }
    }
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

/// The module's causes (`logic::cause`, declared there once with their names in the
/// files): each is one of these, and the JSON names it the same (a test checks it).
impl From<grammar::Cause> for Cause {
    fn from(c: grammar::Cause) -> Self {
        match c {
            grammar::Cause::BhOff => Cause::BhOff,
            grammar::Cause::KsoftirqdWait => Cause::KsoftirqdWait,
        }
    }
}

impl Cause {
    /// The name the module and the JSON use.
    pub fn name(self) -> &'static str {
        self.grammar().name()
    }

    /// The cause a name of the module's files stands for.
    pub fn parse(s: &str) -> Option<Self> {
        grammar::Cause::from_name(s).map(Self::from)
    }

    /// The cause in the module's grammar.
    pub fn grammar(self) -> grammar::Cause {
        match self {
            Cause::BhOff => grammar::Cause::BhOff,
            Cause::KsoftirqdWait => grammar::Cause::KsoftirqdWait,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: every kind and cause the module declares is one of the CLI's (causes: and
    /// back), and the JSON names it as the module's files do.
    #[test]
    fn names_are_the_modules() {
        for k in KindName::ALL {
            assert_eq!(
                KindName::from_name(k.name()).map(Kind::from),
                Some(Kind::from(k))
            );
            assert_eq!(
                serde_json::to_string(&Kind::from(k)).unwrap(),
                format!("\"{}\"", k.name())
            );
        }
        for c in grammar::Cause::ALL {
            assert_eq!(Cause::from(c).grammar(), c);
            assert_eq!(
                serde_json::to_string(&Cause::from(c)).unwrap(),
                format!("\"{}\"", c.name())
            );
            assert_eq!(Cause::parse(c.name()), Some(Cause::from(c)));
        }
    }
}
