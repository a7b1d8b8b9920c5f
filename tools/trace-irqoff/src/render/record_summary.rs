// SPDX-License-Identifier: GPL-2.0
//! `record`: the summary after a recording.

use std::fmt::Write;
use std::path::Path;

use crate::model::culprit_group::Culprit;
use crate::model::saved_recording::Recording;
use crate::model::snapshot::KindLabel;

/// What `record` says when it is done: what it caught and recorded, and where; the first
/// five of `culprits` (the recording's, by culprit).
pub fn summary(rec: &Recording, culprits: &[Culprit], output: &Path, color: bool) -> String {
    let mut o = caught(rec);
    o += &recorded(rec, output);
    o += &stream_and_changes(rec);
    let _ = writeln!(
        o,
        "on {} (kernel {}), {} to {}",
        rec.host, rec.kernel, rec.started, rec.ended
    );
    let t = culprits;
    if !t.is_empty() {
        o += &super::top_view::text(&t[..t.len().min(5)], color);
    }
    o + &restored(rec)
}

/// `--until`: the window that ended the recording, or that none came.
fn caught(rec: &Recording) -> String {
    let mut o = String::new();
    if let Some(c) = &rec.caught {
        let what = match &c.record {
            Some(r) => super::window_sentence(r),
            None => format!(
                "{} on CPU {}, {}..{} ms (counted, not kept: the CPU's records are all worse)",
                c.kind.label(),
                c.cpu,
                c.bucket_ms[0],
                c.bucket_ms[1]
            ),
        };
        let _ = writeln!(
            o,
            "caught a window of at least {} ms: {what}",
            rec.until_ms.unwrap_or(0)
        );
    } else if let Some(ms) = rec.until_ms {
        let _ = writeln!(o, "no window of {ms} ms or more");
    }
    o
}

/// What was recorded, how long, into which file; the stalls of the whole machine in the
/// span, counted apart, not among the events.
fn recorded(rec: &Recording, output: &Path) -> String {
    let hard: u64 = rec.cpus.iter().map(|c| c.hard_events).sum();
    let soft: u64 = rec.cpus.iter().map(|c| c.soft_events).sum();
    let bh_off: u64 = rec.cpus.iter().map(|c| c.soft_bh_off_events).sum();
    let ksoftirqd_wait: u64 = rec.cpus.iter().map(|c| c.soft_ksoftirqd_wait_events).sum();
    // Only a v2 module splits softirq events by cause; before, both are 0.
    let split = if bh_off + ksoftirqd_wait > 0 {
        format!(" ({bh_off} bh-off, {ksoftirqd_wait} ksoftirqd-wait)")
    } else {
        String::new()
    };
    let mut o = String::new();
    let _ = writeln!(
        o,
        "recorded {:.1} s{}: {} hardirq-off and {} softirq-off{} events, {} records -> {}",
        rec.duration_ms as f64 / 1000.0,
        if rec.interrupted {
            " (interrupted)"
        } else {
            ""
        },
        hard,
        soft,
        split,
        rec.records.len(),
        output.display()
    );
    let stalls = crate::model::snapshot::Stalls::of_span(
        &rec.stalls,
        rec.stalls_counted,
        rec.settings.threshold_ms * 1_000_000,
    );
    if let Some(line) = stalls.as_ref().and_then(super::stall_sentence) {
        let _ = writeln!(o, "{line}");
    }
    o
}

/// What the event ring could not show and what it added; the changes someone else made.
fn stream_and_changes(rec: &Recording) -> String {
    let mut o = String::new();
    if let Some(from) = rec
        .stream
        .as_ref()
        .and_then(|st| st.history_from.as_deref())
        .filter(|from| **from > *rec.started)
    {
        let _ = writeln!(o, "the event ring's oldest window ended at {from}: it cannot show windows before then, if there were any");
    }
    if let Some(st) = rec.stream.as_ref().filter(|st| st.not_kept + st.lost > 0) {
        let _ = writeln!(
            o,
            "{} of the records came from the module's event stream (its record store kept worse ones){}",
            st.not_kept,
            if st.lost > 0 { format!("; the stream lost {} windows (its ring was full)", st.lost) } else { String::new() }
        );
    }
    if !rec.outside_changes.is_empty() {
        let _ = writeln!(
            o,
            "warning: someone else changed the module during the recording:"
        );
        for c in &rec.outside_changes {
            let _ = writeln!(o, "  at {:.1} s: {}", c.at_ms as f64 / 1000.0, c.what);
        }
    }
    o
}

/// The settings put back, only where the recording changed the module (`record --last`
/// only reads it).
fn restored(rec: &Recording) -> String {
    let same = |a: &crate::model::settings::Settings| (a.enabled, a.period_ms, a.threshold_ms);
    if same(&rec.settings) == same(&rec.restored) && rec.kept_outside.is_empty() {
        return String::new();
    }
    format!(
        "module restored: {}, period {} ms, threshold {} ms{}\n",
        if rec.restored.enabled {
            "enabled"
        } else {
            "disabled"
        },
        rec.restored.period_ms,
        rec.restored.threshold_ms,
        match (
            rec.kept_outside.contains(&"enabled"),
            rec.kept_outside.contains(&"period_ms")
        ) {
            (true, true) => " (sampling and its settings left as someone else set them)",
            (true, false) => " (sampling left as someone else set it)",
            (false, true) => " (period and threshold left as someone else set them)",
            (false, false) => "",
        }
    )
}
