// SPDX-License-Identifier: GPL-2.0
//! The module's text formats, read into the model: the `records` and `counters` files,
//! and the original module's `trace_latency` and `distribute`.

pub mod original;
pub mod records;
