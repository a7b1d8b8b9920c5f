// SPDX-License-Identifier: GPL-2.0
//! The CLI binary against fake proc roots: fixtures captured from the real module in the
//! test VM, the original module's formats, and error paths. One file per command (or
//! concern), on the shared harness in `util`.

mod util;

mod cgroup;
mod completions;
mod control;
mod dashboard;
mod explain;
mod journal;
mod layout;
mod lines;
mod metrics;
mod record;
mod records;
mod report;
mod saved;
mod service;
mod status;
mod top;
mod watch;
