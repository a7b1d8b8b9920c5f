// SPDX-License-Identifier: GPL-2.0

//! Which other CPU's hardirq-off window covers most of a window being recorded: the join
//! behind a record's `overlap_cpu`, over a small board of recent windows instead of every
//! CPU, so that a capture in hard interrupt context costs [`BOARD_SLOTS`] looks whatever
//! the number of CPUs. Pure logic (`core` only); the board itself is in `peers.rs`.
//!
//! A CPU's hrtimer posts each hardirq-off window it measured (closed); a watcher posts a
//! window it finds open for a quarter of the threshold (open: only its start is known).
//! Windows that can cover most of a record are long (at least half the record, so at
//! least half the threshold), rare, and few at once; the board keeps the latest
//! [`BOARD_SLOTS`] of them. When more CPUs than that have long windows at the same time,
//! the oldest posts are lost and a record may name none of them.

use crate::logic::gap::{self, Window};

/// Windows the board keeps.
pub(crate) const BOARD_SLOTS: usize = 16;

/// `end` of a window still open when it was posted.
pub(crate) const OPEN: u64 = u64::MAX;

/// A window as posted: closed `[start, end)`, or open (`end` is [`OPEN`]) since the
/// hrtimer run `start` (its CPU's last run before the window).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Posted {
    pub(crate) cpu: u32,
    pub(crate) start: u64,
    pub(crate) end: u64,
}

/// What the join needs to know of a CPU now: whether it is online, and its hrtimer's last
/// run (0: stopped).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct PeerNow {
    pub(crate) online: bool,
    pub(crate) last_hard_ns: u64,
}

/// The part of `ours` a posted window can cover: a closed window as it was; an open one
/// from a period after its start to the end of ours, if that CPU's hrtimer has not run
/// since (its window is still open) and it began before ours ended.
pub(crate) fn candidate(p: Posted, now: PeerNow, ours: Window, period_ns: u64) -> Window {
    if p.end != OPEN {
        return Window {
            start: p.start,
            end: p.end,
        };
    }
    let open = Window {
        start: p.start.saturating_add(period_ns),
        end: ours.end,
    };
    if p.start != 0 && now.last_hard_ns == p.start && ours.end > open.start {
        open
    } else {
        Window::EMPTY
    }
}

/// Another online CPU (not `me`) whose posted window covers most of `ours`: the one that
/// covers most wins (the first posted of equals).
pub(crate) fn best(
    me: u32,
    ours: Window,
    period_ns: u64,
    posted: impl Iterator<Item = Posted>,
    mut peer: impl FnMut(u32) -> PeerNow,
) -> Option<u32> {
    let mut best: Option<(u32, u64)> = None;
    for p in posted {
        if p.cpu == me {
            continue;
        }
        let now = peer(p.cpu);
        if !now.online {
            continue;
        }
        let theirs = candidate(p, now, ours, period_ns);
        if gap::overlaps_most(ours, theirs) {
            let covered = theirs.overlap(ours.start, ours.end);
            if best.is_none_or(|(_, b)| covered > b) {
                best = Some((p.cpu, covered));
            }
        }
    }
    best.map(|(c, _)| c)
}

/// A reader's resolution of a record's overlap, kept beside its slot so that the next
/// read does not join again: valid while the record's slot still holds what it held at
/// sequence count `own`, and naming record `index` of the other CPU's hardirq-off store as
/// it was at sequence count `theirs` (its low 24 bits).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Resolved {
    pub(crate) own: u32,
    pub(crate) index: u8,
    pub(crate) theirs: u32,
}

const THEIRS_BITS: u32 = 24;
const THEIRS_MASK: u32 = (1 << THEIRS_BITS) - 1;
const INDEX_BITS: u32 = 7;
const VALID: u64 = 1 << 63;

impl Resolved {
    /// Record indexes a word can name (`records::MAX_RECORDS` fits).
    pub(crate) const MAX_INDEX: usize = (1 << INDEX_BITS) - 1;

    /// As one word (0: nothing resolved).
    pub(crate) const fn pack(self) -> u64 {
        VALID
            | ((self.own as u64) << (INDEX_BITS + THEIRS_BITS))
            | (((self.index as u64) & ((1 << INDEX_BITS) - 1)) << THEIRS_BITS)
            | (self.theirs & THEIRS_MASK) as u64
    }

    pub(crate) const fn unpack(w: u64) -> Option<Self> {
        if w & VALID == 0 {
            return None;
        }
        Some(Self {
            own: (w >> (INDEX_BITS + THEIRS_BITS)) as u32,
            index: ((w >> THEIRS_BITS) & ((1 << INDEX_BITS) - 1)) as u8,
            theirs: (w as u32) & THEIRS_MASK,
        })
    }

    /// The other record it names, if the word was resolved for the record at sequence
    /// count `own` and that record is still the one at `theirs_now` (that slot's sequence
    /// count now).
    pub(crate) fn still(
        w: u64,
        own: u32,
        theirs_now: impl FnOnce(usize) -> Option<u32>,
    ) -> Option<usize> {
        let r = Self::unpack(w).filter(|r| r.own == own)?;
        let index = usize::from(r.index);
        (theirs_now(index)? & THEIRS_MASK == r.theirs).then_some(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const P: u64 = 10 * MS;

    fn w(start: u64, end: u64) -> Window {
        Window {
            start: start * MS,
            end: end * MS,
        }
    }

    fn closed(cpu: u32, start: u64, end: u64) -> Posted {
        Posted {
            cpu,
            start: start * MS,
            end: end * MS,
        }
    }

    fn online(_: u32) -> PeerNow {
        PeerNow {
            online: true,
            last_hard_ns: 1,
        }
    }

    /// Claim: another CPU's closed window covering at least half of ours ([990, 1060) or
    /// exactly half, [1050, 1200), of [1000, 1100) ms) names that CPU; one covering a
    /// millisecond less than half names none.
    #[test]
    fn a_closed_window_covering_most_is_named() {
        let ours = w(1000, 1100);
        assert_eq!(
            best(0, ours, P, [closed(3, 990, 1060)].into_iter(), online),
            Some(3)
        );
        // Half exactly is enough; less is not.
        assert_eq!(
            best(0, ours, P, [closed(3, 1050, 1200)].into_iter(), online),
            Some(3)
        );
        assert_eq!(
            best(0, ours, P, [closed(3, 1051, 1200)].into_iter(), online),
            None
        );
    }

    /// Claim: among posted windows our own CPU's and an offline CPU's are skipped even when
    /// they cover all of ours, and of the rest the one covering most (CPU 2) is named.
    #[test]
    fn the_one_covering_most_wins_and_ours_and_offline_cpus_do_not_count() {
        let ours = w(1000, 1100);
        let posted = [
            closed(0, 1000, 1100),
            closed(1, 1040, 1100),
            closed(2, 1010, 1100),
            closed(5, 1000, 1100),
        ];
        let peer = |c: u32| PeerNow {
            online: c != 5,
            last_hard_ns: 1,
        };
        assert_eq!(best(0, ours, P, posted.into_iter(), peer), Some(2));
    }

    /// Claim: an open post counts from a period after its start to the end of ours, and
    /// names its CPU, only while that CPU's hrtimer has not run since the post; once it
    /// ran, when it is stopped (last run 0), or when the window opened after ours ended, it
    /// covers nothing.
    #[test]
    fn an_open_window_counts_while_its_cpu_has_not_run_since() {
        let ours = w(1000, 1100);
        let open = Posted {
            cpu: 4,
            start: 980 * MS,
            end: OPEN,
        };
        let stuck = |_: u32| PeerNow {
            online: true,
            last_hard_ns: 980 * MS,
        };
        // Open from 980 + P = 990 ms to the end of ours: all of it.
        assert_eq!(candidate(open, stuck(4), ours, P), w(990, 1100));
        assert_eq!(best(0, ours, P, [open].into_iter(), stuck), Some(4));
        // Its hrtimer ran since: that window closed, and its closed post says how long it was.
        let moved = |_: u32| PeerNow {
            online: true,
            last_hard_ns: 1090 * MS,
        };
        assert_eq!(best(0, ours, P, [open].into_iter(), moved), None);
        // Stopped (0), or a post of a stopped CPU: nothing.
        let stopped = |_: u32| PeerNow {
            online: true,
            last_hard_ns: 0,
        };
        assert_eq!(best(0, ours, P, [open].into_iter(), stopped), None);
        // Opened after ours ended: nothing.
        let late = Posted {
            cpu: 4,
            start: 1095 * MS,
            end: OPEN,
        };
        assert_eq!(
            candidate(
                late,
                PeerNow {
                    online: true,
                    last_hard_ns: 1095 * MS
                },
                ours,
                P
            ),
            Window::EMPTY
        );
    }

    /// The join looks at the board's slots only: its cost does not grow with the CPUs. A
    /// board of 16 posts among 8192 possible CPUs is joined in 16 looks.
    #[test]
    fn the_join_costs_the_board_not_the_cpus() {
        let ours = w(1000, 1100);
        let posted: [Posted; BOARD_SLOTS] =
            core::array::from_fn(|i| closed(8000 + i as u32, 990 + i as u64, 1100));
        let mut looks = 0;
        let found = best(0, ours, P, posted.into_iter(), |_| {
            looks += 1;
            PeerNow {
                online: true,
                last_hard_ns: 1,
            }
        });
        assert_eq!((found, looks), (Some(8000), BOARD_SLOTS));
    }

    /// A resolution is used again only for the same record (its slot's sequence count) and
    /// while the record it names is the one it found; anything else joins again.
    #[test]
    fn a_resolution_holds_while_both_records_do() {
        let r = Resolved {
            own: 0xffff_fffe,
            index: 63,
            theirs: 0x0123_4566,
        };
        let w = r.pack();
        assert_eq!(
            Resolved::unpack(w),
            Some(Resolved {
                theirs: 0x23_4566,
                ..r
            })
        );
        assert_eq!(Resolved::unpack(0), None);
        assert_eq!(
            Resolved::still(w, 0xffff_fffe, |i| (i == 63).then_some(0x0123_4566)),
            Some(63)
        );
        // Our slot was written again: another record.
        assert_eq!(
            Resolved::still(w, 0xffff_fffe_u32.wrapping_add(2), |_| Some(0x0123_4566)),
            None
        );
        // Theirs was replaced, or is gone (cleared).
        assert_eq!(Resolved::still(w, 0xffff_fffe, |_| Some(0x0123_4568)), None);
        assert_eq!(Resolved::still(w, 0xffff_fffe, |_| None), None);
        assert_eq!(Resolved::still(0, 0, |_| Some(0)), None);
        const { assert!(Resolved::MAX_INDEX >= 64) };
    }
}
