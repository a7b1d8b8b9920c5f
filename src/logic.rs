// SPDX-License-Identifier: GPL-2.0
//! The module's pure logic: the rules and data layouts that need no kernel, written with
//! `core` only and no `unsafe`. The kernel builds these files into the module;
//! `tools/tio-logic` mounts this module whole on the host, runs its unit tests, and shares
//! what the CLI needs (bucket edges, histogram layout, period and threshold rules).

#![forbid(unsafe_code)]

// The paths are spelled out so that the same file works from the module's crate root and
// mounted by tools/tio-logic with `#[path]` (where the default would be beside this file).

#[path = "logic/backoff.rs"]
pub(crate) mod backoff;
#[path = "logic/cause.rs"]
pub mod cause;
#[path = "logic/enum_names.rs"]
pub(crate) mod enum_names;
#[path = "logic/escape.rs"]
pub(crate) mod escape;
#[path = "logic/gap.rs"]
pub(crate) mod gap;
#[path = "logic/grammar.rs"]
pub mod grammar;
#[path = "logic/histogram.rs"]
pub(crate) mod histogram;
#[path = "logic/names.rs"]
pub(crate) mod names;
#[path = "logic/overlap.rs"]
pub(crate) mod overlap;
#[path = "logic/params.rs"]
pub(crate) mod params;
#[path = "logic/parse.rs"]
pub(crate) mod parse;
#[path = "logic/profile.rs"]
pub(crate) mod profile;
#[path = "logic/retention.rs"]
pub(crate) mod retention;
#[path = "logic/sizes.rs"]
pub(crate) mod sizes;
#[path = "logic/stack.rs"]
pub(crate) mod stack;
#[path = "logic/stall.rs"]
pub(crate) mod stall;
#[path = "logic/verdict.rs"]
pub(crate) mod verdict;
