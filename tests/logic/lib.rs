// SPDX-License-Identifier: GPL-2.0
#![allow(dead_code)]
//! The module's pure logic (files of `src/` that use only `core`), compiled for the host so
//! that `cargo test` exercises exactly the code the kernel runs.

#[path = "../../src/backoff.rs"]
pub mod backoff;
#[path = "../../src/gap.rs"]
pub mod gap;
#[path = "../../src/histogram.rs"]
pub mod histogram;
#[path = "../../src/retention.rs"]
pub mod retention;
#[path = "../../src/parse.rs"]
pub mod parse;
#[path = "../../src/stack.rs"]
pub mod stack;
#[path = "../../src/escape.rs"]
pub mod escape;
#[path = "../../src/cause.rs"]
pub mod cause;
#[path = "../../src/names.rs"]
pub mod names;
#[path = "../../src/tag_key.rs"]
pub mod tag_key;
#[path = "../../src/profile.rs"]
pub mod profile;
