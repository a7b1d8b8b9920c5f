// SPDX-License-Identifier: GPL-2.0
//! What the CLI knows of the module apart from how it is read (`procfs`, `stream`,
//! `saved`, parsed by `parse`) and shown (`render`): its state (`snapshot`), its settings,
//! what `record` saves, what a record's cgroup says (`cgroup`), and the culprits `top`
//! groups records into (`culprit`).

pub mod cgroup_class;
pub mod clock;
pub mod culprit_group;
pub mod delay;
pub mod explain_answer;
pub mod explain_wakeup;
pub mod netdev;
pub mod request_path;
pub mod ring_event;
pub mod saved_recording;
pub mod settings;
pub mod snapshot;
pub mod tag_wait;
