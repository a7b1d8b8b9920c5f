// SPDX-License-Identifier: GPL-2.0

//! The join of a record with another CPU's hardirq-off record that covers most of its
//! window (a softirq-off window that a hardirq-off window on another CPU explains, or two
//! hardirq-off windows at once): found by comparing headers, resolved once and kept
//! beside the record (`logic::overlap::Resolved`), so that later reads look at that one
//! record only.

use super::{Header, RecordStore};
use crate::ffi::COMM_LEN;
use crate::logic::gap::{self, Window};
use crate::logic::overlap::Resolved;

/// Where a record was read: its slot in its store, and the slot's sequence count then.
#[derive(Clone, Copy)]
pub(crate) struct ReadAt {
    pub(crate) index: usize,
    pub(crate) seq: u32,
}

/// What a record shows of the hardirq-off record that overlaps it.
pub(crate) struct Overlap {
    pub(crate) latency_ns: u64,
    pub(crate) pid: i32,
    pub(crate) comm: [u8; COMM_LEN],
}

/// The record of `theirs` (another CPU's hardirq-off store) that covers most of `ours`,
/// if one covers most of it.
/// Resolved once per record: the join compares the headers of their records (a few
/// words each, no stacks copied), and the one it found is kept beside our record (`at`),
/// so that later reads look at that one record only, while both records stay in their
/// slots (`overlap::Resolved`). Nothing found is not kept: that window may still be open,
/// its record still to come.
pub(crate) fn overlapping_hard(
    theirs: &RecordStore,
    generation: u64,
    ours: Window,
    at: Option<(&RecordStore, ReadAt)>,
) -> Option<Overlap> {
    let n = theirs.len(generation);
    let mut h = Header::new(0, 0, 0, [0; COMM_LEN]);
    if let Some((store, at_slot)) = at {
        let word = store.resolved(at_slot.index);
        let known = Resolved::still(
            word,
            at_slot.seq,
            |i| if i < n { theirs.seq(i) } else { None },
        );
        if let Some(i) = known {
            if let Some(seq) = theirs.read_header(i, &mut h) {
                if Resolved::still(word, at_slot.seq, |_| Some(seq)).is_some() {
                    return Some(Overlap {
                        latency_ns: h.latency_ns,
                        pid: h.pid,
                        comm: h.comm,
                    });
                }
            }
        }
    }
    let mut best: Option<(Overlap, u64, usize, u32)> = None;
    for i in 0..n {
        let Some(seq) = theirs.read_header(i, &mut h) else {
            continue;
        };
        let w = Window {
            start: h.timestamp_ns.saturating_sub(h.latency_ns),
            end: h.timestamp_ns,
        };
        if gap::overlaps_most(ours, w) {
            let covered = w.overlap(ours.start, ours.end);
            if best.as_ref().is_none_or(|b| covered > b.1) {
                best = Some((
                    Overlap {
                        latency_ns: h.latency_ns,
                        pid: h.pid,
                        comm: h.comm,
                    },
                    covered,
                    i,
                    seq,
                ));
            }
        }
    }
    let (found, _, i, seq) = best?;
    if let (Some((store, at_slot)), Ok(index)) = (at, u8::try_from(i)) {
        store.set_resolved(
            at_slot.index,
            Resolved {
                own: at_slot.seq,
                index,
                theirs: seq,
            }
            .pack(),
        );
    }
    Some(found)
}
