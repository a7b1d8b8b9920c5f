// SPDX-License-Identifier: GPL-2.0
//! The settings `record` puts back: the guard that restores them on every exit path, and
//! what someone else changed meanwhile (said in sentences, and kept at the end).

use anyhow::Result;

use crate::model::settings::Settings;
use crate::source::procfs::{Backend, Module};

/// The settings to put back at the end: those found at the start, except what someone
/// else changed from what `record` had set (`used`, found `now`): their value stays. The
/// period and threshold go together (the threshold's bound is twice the period).
pub fn keep_outside(
    prior: Settings,
    used: Settings,
    now: Settings,
) -> (Settings, Vec<&'static str>) {
    let mut to = prior;
    let mut kept = Vec::new();
    if now.enabled != used.enabled {
        to.enabled = now.enabled;
        kept.push("enabled");
    }
    if now.period_ms != used.period_ms || now.threshold_ms != used.threshold_ms {
        (to.period_ms, to.threshold_ms) = (now.period_ms, now.threshold_ms);
        kept.extend(["period_ms", "threshold_ms"]);
    }
    (to, kept)
}

/// What differs between the settings `record` expects and the ones found, as sentences.
pub fn describe(expected: &Settings, now: &Settings) -> Vec<String> {
    let mut v = Vec::new();
    if expected.enabled != now.enabled {
        v.push(
            if now.enabled {
                "the module was enabled again"
            } else {
                "the module was disabled: no events were seen after this"
            }
            .to_string(),
        );
    }
    if expected.period_ms != now.period_ms {
        v.push(format!(
            "the sampling period changed from {} to {} ms",
            expected.period_ms, now.period_ms
        ));
    }
    if expected.threshold_ms != now.threshold_ms {
        v.push(format!(
            "the threshold changed from {} to {} ms",
            expected.threshold_ms, now.threshold_ms
        ));
    }
    v
}

/// Puts the settings back when dropped (an error, a panic), or by [`Restore::finish`].
pub struct Restore<'a, B: Backend> {
    m: &'a Module<B>,
    to: Settings,
    armed: bool,
}

impl<'a, B: Backend> Restore<'a, B> {
    /// A guard that puts `to` back on `m`.
    pub fn new(m: &'a Module<B>, to: Settings) -> Self {
        Self { m, to, armed: true }
    }

    /// The same guard, restoring `to` instead.
    pub fn to(mut self, to: Settings) -> Restore<'a, B> {
        self.to = to;
        self
    }

    pub fn finish(mut self) -> Result<()> {
        self.armed = false;
        Ok(self.m.restore(self.to)?)
    }
}

impl<B: Backend> Drop for Restore<'_, B> {
    fn drop(&mut self) {
        if self.armed {
            if let Err(e) = self.m.restore(self.to) {
                // The only place left to say it: the error that brought us here follows.
                eprintln!("trace-irqoff: could not restore the module's settings: {e}");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::procfs::fake::Fake;

    const RECORDS: &str = include_str!("../../../tests/fixtures/records-v1.txt");

    /// Claim: restoring the settings the module already has writes nothing to its files.
    #[test]
    fn restore_writes_nothing_when_nothing_changed() {
        let fake = Fake::new(RECORDS);
        let m = Module::open(&fake).unwrap();
        let s = m.settings().unwrap();
        m.restore(s).unwrap();
        assert!(fake.writes.borrow().is_empty());
    }

    /// Claim: settings changed by someone else during a recording are described one
    /// sentence per change (disabled, period from/to, threshold from/to), and unchanged
    /// settings give none.
    #[test]
    fn outside_changes_are_sentences() {
        let e = Settings {
            enabled: true,
            period_ms: 10,
            threshold_ms: 60,
            switching: None,
        };
        assert_eq!(
            describe(
                &e,
                &Settings {
                    enabled: false,
                    ..e
                }
            ),
            ["the module was disabled: no events were seen after this"]
        );
        assert_eq!(
            describe(
                &e,
                &Settings {
                    period_ms: 20,
                    threshold_ms: 80,
                    ..e
                }
            ),
            [
                "the sampling period changed from 10 to 20 ms",
                "the threshold changed from 60 to 80 ms"
            ]
        );
        assert!(describe(&e, &e).is_empty());
    }

    /// At the end, what someone else changed stays; the rest goes back to what was found.
    #[test]
    fn outside_changes_are_kept_at_the_end() {
        let prior = Settings {
            enabled: false,
            period_ms: 10,
            threshold_ms: 50,
            switching: None,
        };
        let used = Settings {
            enabled: true,
            threshold_ms: 60,
            ..prior
        };
        assert_eq!(keep_outside(prior, used, used), (prior, vec![]));
        let (to, kept) = keep_outside(
            prior,
            used,
            Settings {
                enabled: false,
                ..used
            },
        );
        assert_eq!((to, kept), (prior, vec!["enabled"]));
        let (to, kept) = keep_outside(
            prior,
            used,
            Settings {
                period_ms: 20,
                threshold_ms: 80,
                ..used
            },
        );
        assert_eq!(
            (to, kept),
            (
                Settings {
                    period_ms: 20,
                    threshold_ms: 80,
                    ..prior
                },
                vec!["period_ms", "threshold_ms"]
            )
        );
        let prior_on = Settings {
            enabled: true,
            ..prior
        };
        let (to, kept) = keep_outside(
            prior_on,
            used,
            Settings {
                enabled: false,
                ..used
            },
        );
        assert_eq!((to.enabled, kept), (false, vec!["enabled"]));
    }
}
