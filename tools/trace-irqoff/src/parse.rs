// SPDX-License-Identifier: GPL-2.0
//! The parse wing: text into the model. The module's `records` and `counters` files
//! (`records`) with their tag-wait lines (`tag_wait_lines`), the original module's
//! `trace_latency` and `distribute` (`original`), tracefs text (`tracefs`, the one
//! reader of its lines) and what `explain` reads in it (`explain_delays`,
//! `wakeup_trace`), and the service's settings file (`conf`). Pure: text in, values out.

pub mod conf;
pub mod explain_delays;
pub mod original;
pub mod records;
pub mod tag_wait_lines;
pub mod tracefs;
pub mod wakeup_trace;
