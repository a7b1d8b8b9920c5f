// SPDX-License-Identifier: GPL-2.0
//! The blk-mq tag-wait feature: its arguments, what the module's tag-wait lines say, how
//! they are read, and how they are shown as text and as Prometheus families. Unrelated to
//! irq-off windows; the rest of the CLI names it only where it is wired in: the command
//! enum (`cli`), the command itself (`cmd::tagwait`, like every command over the module's
//! files), `Snapshot::tag_wait` (`model::snapshot`), the lines handed over by
//! `parse::records`, `status`'s last line and `metrics`' last families (`render`), the
//! `tag_wait` file (`procfs`) and the `tag_wait` key of the service's configuration
//! (`conf`, `cmd::service`).
//!
//! It imports nothing above it (only `fields`, `prom` and `tio_logic`), so that every layer
//! can use it.
//!
//! - [`model`]: what the lines say ([`TagWait`]);
//! - [`parse`]: the `tagwait*` lines of `records` and `counters`, read into it;
//! - [`render`]: the `tagwait` command's text and `status`'s line;
//! - [`metrics`]: the `trace_irqoff_tag_wait*` Prometheus families.

use clap::{Args as ClapArgs, ValueEnum};

pub mod metrics;
pub mod model;
pub mod parse;
pub mod render;

pub use model::TagWait;

// `tagwait [on|off]` (its help is the doc comment of `cli::Command::Tagwait`).
#[derive(ClapArgs, Debug)]
pub struct Args {
    /// Switch tracking on or off (it costs nothing while off).
    #[arg(value_enum)]
    pub switch: Option<OnOff>,
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum OnOff {
    On,
    Off,
}
