// SPDX-License-Identifier: GPL-2.0
//! What the CLI knows of the module apart from how it is read (`procfs`, `stream`,
//! `saved`) and shown (`render`): its settings, and what `record` saves.

pub mod recording;
pub mod settings;
