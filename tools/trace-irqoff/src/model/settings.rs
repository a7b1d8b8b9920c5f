// SPDX-License-Identifier: GPL-2.0
//! The module's settings as the CLI reads, changes and restores them.

/// Period, threshold and the enable switch: what `record` restores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Settings {
    pub enabled: bool,
    pub period_ms: u64,
    pub threshold_ms: u64,
    /// A writer is turning the switch and waits for every CPU (one may have interrupts
    /// off); `enabled` is the state until it is done.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub switching: Option<Switching>,
}

/// Which way a writer is turning a switch while it waits for the CPUs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Switching {
    Enabling,
    Disabling,
}

impl Switching {
    /// From the module's name of a switch's state (`enable`, `state=`).
    pub fn parse(state: &str) -> Option<Self> {
        match state {
            "enabling" => Some(Switching::Enabling),
            "disabling" => Some(Switching::Disabling),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Switching::Enabling => "enabling",
            Switching::Disabling => "disabling",
        }
    }
}
