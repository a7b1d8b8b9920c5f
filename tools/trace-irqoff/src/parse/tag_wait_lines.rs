// SPDX-License-Identifier: GPL-2.0
//! The module's `tagwait` lines in its `records` and `counters` files, read into a
//! [`TagWait`]: `tagwait` (the switch, the source and what was not counted), then
//! `tagwait_count` per device x hardware queue x pool, `tagwait_sum_us` and
//! `tagwait_hist_us` (format in Documentation/trace-irqoff.rst). `parse::records` hands
//! each such line here.

use crate::fields::{counts, malformed, Fields, ParseError};
use crate::model::tag_wait::{TagCount, TagWait};
use tio_logic::hist::NR_BUCKETS;

/// The first words of the lines read here.
pub const LINES: [&str; 4] = [
    "tagwait",
    "tagwait_count",
    "tagwait_sum_us",
    "tagwait_hist_us",
];

/// Reads line `n`, whose first word is `first` (one of [`LINES`]) and whose other words
/// are `words`, into `tag_wait`: a `tagwait` line starts it, the others add to it.
pub fn line<'a>(
    tag_wait: &mut Option<TagWait>,
    first: &str,
    n: usize,
    mut words: impl Iterator<Item = &'a str>,
) -> Result<(), ParseError> {
    match first {
        "tagwait" => {
            let f = Fields::new(n, words)?;
            *tag_wait = Some(TagWait {
                enabled: f.flag("enabled")?,
                switching: f
                    .str("state")
                    .ok()
                    .filter(|s| matches!(*s, "enabling" | "disabling"))
                    .map(str::to_string),
                source: f.str("source")?.to_string(),
                overflow: f.num("overflow")?,
                unattributed: f.num("unattributed")?,
                missed: f.num("missed")?,
                kicks_full: f.num_or("kicks_full", 0)?,
                aged_out: f.num_or("aged_out", 0)?,
                counts: Vec::new(),
                duration_hist_us: vec![0; NR_BUCKETS],
                duration_sum_us: None,
            });
        }
        "tagwait_count" => {
            let f = Fields::new(n, words)?;
            let tw = tag_wait
                .as_mut()
                .ok_or_else(|| malformed(n, "tagwait_count before tagwait"))?;
            tw.counts.push(TagCount {
                major: f.num("major")?,
                minor: f.num("minor")?,
                hctx: f.num("hctx")?,
                pool: if f.flag("sched")? {
                    "scheduler"
                } else {
                    "hardware"
                }
                .to_string(),
                reserved: f.flag("reserved")?,
                waits: f.num("waits")?,
            });
        }
        "tagwait_sum_us" => {
            let tw = tag_wait
                .as_mut()
                .ok_or_else(|| malformed(n, "tagwait_sum_us before tagwait"))?;
            let v = words.next().unwrap_or("");
            tw.duration_sum_us = Some(
                v.parse()
                    .map_err(|_| malformed(n, format!("tagwait_sum_us is not a number: '{v}'")))?,
            );
        }
        "tagwait_hist_us" => {
            let tw = tag_wait
                .as_mut()
                .ok_or_else(|| malformed(n, "tagwait_hist_us before tagwait"))?;
            tw.duration_hist_us = counts(n, words)?;
        }
        _ => {}
    }
    Ok(())
}
