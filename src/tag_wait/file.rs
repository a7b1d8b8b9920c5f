// SPDX-License-Identifier: GPL-2.0

//! What tag-wait tracking shows under `/proc/trace_irqoff`: the `tag_wait` file (for
//! people: a table and a histogram) and its lines in the `records` and `counters` files (for
//! the CLI, whose `tagwait` module parses them; format in `Documentation/tag-wait.rst` and
//! `Documentation/trace-irqoff.rst`). `procfs` registers the file and places the lines.

use kernel::seq_file::SeqFile;
use kernel::seq_print;
use kernel::sync::atomic::Relaxed;

use super::TagWait;
use crate::ffi::SeqWriter;
use crate::logic::histogram;

impl TagWait {
    /// The `tag_wait` file: the switch and source, a table of the counters, what was not
    /// counted, and the histogram of durations.
    pub(crate) fn show(&self, m: &SeqFile) {
        let tw = self;
        seq_print!(
            m,
            "tag_wait: {} (source: {})\n",
            tw.phase().name(),
            tw.source.name()
        );
        seq_print!(
            m,
            "{:>11} {:>6}  {:<20} {:>10}\n",
            "DEV",
            "HCTX",
            "POOL",
            "WAITS"
        );
        tw.for_each(|row| {
            // major,minor as the upstream tracepoint prints a dev_t.
            let (major, minor) = row.key.major_minor();
            seq_print!(
                m,
                "{:>6},{:<4} {:>6}  {:<20} {:>10}\n",
                major,
                minor,
                row.key.hctx,
                row.key.pool.name(),
                row.waits
            );
        });
        let (overflow, unattributed) = (tw.overflow.load(Relaxed), tw.unattributed.load(Relaxed));
        let (full, aged) = (tw.callers_full.load(Relaxed), tw.aged_out.load(Relaxed));
        if overflow != 0 || unattributed != 0 {
            seq_print!(
                m,
                "not in the table: {} (table full), {} (hardware queue unknown; of those {} with too many waiters at once)\n",
                overflow,
                unattributed,
                full
            );
        }
        if aged != 0 {
            seq_print!(
                m,
                "aged out: {} waits of rows idle for a minute, whose slots went to new rows\n",
                aged
            );
        }
        seq_print!(m, "\n");
        let _ = histogram::render_unit(
            &mut SeqWriter(m),
            "tag wait duration (sbitmap_prepare_to_wait .. sbitmap_finish_wait):",
            "usecs",
            &tw.durations.snapshot(),
        );
    }

    /// The tag-wait lines of `records` and `counters` (`tagwait`, `tagwait_count`,
    /// `tagwait_sum_us`, `tagwait_hist_us`), before their `end`.
    pub(crate) fn show_records(&self, m: &SeqFile) {
        let tw = self;
        seq_print!(
            m,
            "tagwait enabled={} state={} source={} overflow={} unattributed={} missed={} kicks_held={} kicks_full={} aged_out={}\n",
            u8::from(tw.phase().is_on()),
            tw.phase().name(),
            tw.source.name(),
            tw.overflow.load(Relaxed),
            tw.unattributed.load(Relaxed),
            tw.missed.load(Relaxed),
            tw.callers_held(),
            tw.callers_full.load(Relaxed),
            tw.aged_out.load(Relaxed)
        );
        tw.for_each(|row| {
            let (major, minor) = row.key.major_minor();
            seq_print!(
                m,
                "tagwait_count major={} minor={} hctx={} sched={} reserved={} waits={}\n",
                major,
                minor,
                row.key.hctx,
                u8::from(row.key.pool.sched),
                u8::from(row.key.pool.reserved),
                row.waits
            );
        });
        seq_print!(m, "tagwait_sum_us {}\n", tw.durations.sum());
        seq_print!(m, "tagwait_hist_us");
        for c in tw.durations.snapshot() {
            seq_print!(m, " {}", c);
        }
        seq_print!(m, "\n");
    }
}
