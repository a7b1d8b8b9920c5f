// SPDX-License-Identifier: GPL-2.0
//! How exactly a snapshot's lengths are known, kind by kind, for the views that say it.

use crate::enrich::precision::{Bounds, Resolution};
use crate::model::snapshot::{Cause, Config, Kind};

/// The error bounds of a module configuration's lengths (`precision::Resolution`), worked
/// out for each kind and cause a view names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Precision {
    hard: Bounds,
    /// Softirq-off without a cause (both together).
    soft: Bounds,
    bh_off: Bounds,
    ksoftirqd_wait: Bounds,
}

impl Precision {
    /// The bounds of the lengths of configuration `c`; none for the original module or a
    /// configuration without a period (`precision::Resolution::of`).
    pub fn of(c: &Config) -> Option<Self> {
        let res = Resolution::of(c)?;
        Some(Self {
            hard: res.bounds(Kind::Hard, None),
            soft: res.bounds(Kind::Soft, None),
            bh_off: res.bounds(Kind::Soft, Some(Cause::BhOff)),
            ksoftirqd_wait: res.bounds(Kind::Soft, Some(Cause::KsoftirqdWait)),
        })
    }

    /// The bounds for windows of `kind` (and softirq `cause`): how much shorter and how
    /// much longer the true length may be than the one shown.
    pub fn bounds(&self, kind: Kind, cause: Option<Cause>) -> Bounds {
        match (kind, cause) {
            (Kind::Hard, _) => self.hard,
            (Kind::Soft, None) => self.soft,
            (Kind::Soft, Some(Cause::BhOff)) => self.bh_off,
            (Kind::Soft, Some(Cause::KsoftirqdWait)) => self.ksoftirqd_wait,
        }
    }
}
