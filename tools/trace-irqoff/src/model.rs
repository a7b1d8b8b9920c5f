// SPDX-License-Identifier: GPL-2.0
//! The model wing: the types, apart from how they are read (`source`, `parse`) and shown
//! (`render`). The module's state (`snapshot`), its settings, what `record` saves
//! (`saved_recording`), what the event ring carries (`ring_event`), a record's cgroup
//! class (`cgroup_class`), the culprits `top` groups records into (`culprit_group`), the
//! tag waits (`tag_wait`), `explain`'s answer (`explain_answer`, `delay`,
//! `explain_wakeup`, with the paths that say which CPUs serve a delay: `request_path`,
//! `netdev`), and the clock that gives the module's times as wall-clock ones (`clock`).

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
