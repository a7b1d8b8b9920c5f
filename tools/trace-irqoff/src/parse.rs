// SPDX-License-Identifier: GPL-2.0
//! The module's text formats, read into the model: the `records` and `counters` files,
//! and the original module's `trace_latency` and `distribute`.

pub mod conf;
pub mod explain_delays;
pub mod original;
pub mod records;
pub mod tag_wait_lines;
pub mod tracefs;
pub mod wakeup_trace;
