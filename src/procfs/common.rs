// SPDX-License-Identifier: GPL-2.0

//! What several files show alike: a CPU's records read in one pass, frames and profiles,
//! the open windows, CPU lists, and a `core::fmt::Write` over a seq_file.

use crate::ffi::{self, Symbol};
use crate::logic::overlap::Resolved;
use crate::logic::parse;
use crate::records::{LiveView, Profile, ReadAt, Record, RecordStore, Stack, Which, MAX_RECORDS};
use crate::sampler::CpuSampler;
use crate::state::State;
use crate::watch::Ongoing;
use kernel::fmt;
use kernel::prelude::*;
use kernel::seq_file::SeqFile;
use kernel::seq_print;

/// Calls `f` for each record of `store`, oldest first, until it returns false. May sleep
/// (seq_file show holds no spinning lock).
/// `f` also gets the record's slot and the sequence count it was read at.
pub(super) fn for_each_record_while(
    store: &RecordStore,
    generation: u64,
    mut f: impl FnMut(&Record, ReadAt) -> bool,
) {
    let n = store.len(generation);
    let mut order = [0usize; MAX_RECORDS];
    for (i, o) in order.iter_mut().enumerate().take(n) {
        *o = i;
    }
    order[..n].sort_unstable_by_key(|&i| store.timestamp(i));
    // Records are a few KB: on the heap, not on the stack of a seq_file show.
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else {
        return;
    };
    for &i in &order[..n] {
        if let Some(seq) = store.read_at(i, &mut r) {
            if !f(&r, ReadAt { index: i, seq }) {
                return;
            }
        }
    }
}

/// Calls `f` with the CPU's open softirq window, if it has one.
pub(super) fn with_pending(cpu: &CpuSampler, generation: u64, f: impl FnOnce(&Record)) {
    let Ok(mut r) = KBox::new(Record::empty(), GFP_KERNEL) else {
        return;
    };
    if cpu.pending.read(generation, ffi::now_ns(), &mut r) {
        f(&r);
    }
}

// The readers' copies (one record, one live profile) are kmalloc'd: no block above order 1.
// A record's overlap resolution names the other record by its index in one byte.
const _: () = assert!(MAX_RECORDS <= Resolved::MAX_INDEX);
const _: () = assert!(
    crate::logic::sizes::fits_order1(core::mem::size_of::<Record>())
        && crate::logic::sizes::fits_order1(core::mem::size_of::<LiveView>())
);

/// The CPU numbers the module covers (`nr_cpu_ids`).
pub(super) fn nr_cpus(state: &State) -> u32 {
    state.nr_cpus()
}

/// The CPUs below a count for which a test holds, as the kernel writes a CPU list
/// (`0-3,8`; `-` for none).
pub(super) struct CpuList<F: Fn(u32) -> bool>(pub(super) u32, pub(super) F);

impl<F: Fn(u32) -> bool> fmt::Display for CpuList<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut r = Ok(());
        let mut any = false;
        parse::ranges(self.0, &self.1, |first, last| {
            let sep = if any { "," } else { "" };
            any = true;
            if r.is_ok() {
                r = if first == last {
                    write!(f, "{sep}{first}")
                } else {
                    write!(f, "{sep}{first}-{last}")
                };
            }
        });
        if !any {
            r = fmt::Write::write_str(f, "-");
        }
        r
    }
}

/// Frame `i` of a stack: the name taken at capture, else looked up now.
pub(super) struct Frame<'a, const F: usize, const L: usize>(
    pub(super) &'a Stack<F, L>,
    pub(super) usize,
);

impl<const F: usize, const L: usize> fmt::Display for Frame<'_, F, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&FrameOr(self.0, self.1, &[]), f)
    }
}

/// Frame `i` of a stack as `%pS` prints it, without a module's build id (the original
/// module's `trace_latency`).
pub(super) struct PlainFrame<'a, const F: usize, const L: usize>(
    pub(super) &'a Stack<F, L>,
    pub(super) usize,
);

impl<const F: usize, const L: usize> fmt::Display for PlainFrame<'_, F, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self(st, i) = *self;
        match st.name(i).and_then(crate::logic::names::without_build_id) {
            Some(name) => {
                fmt::Write::write_str(f, core::str::from_utf8(name).unwrap_or("?"))?;
                fmt::Write::write_str(f, "]")
            }
            None => fmt::Display::fmt(&Frame(st, i), f),
        }
    }
}

/// Frame `i` of a stack, whose name, if the stack has none for it, may come from `others`
/// (the record's full stacks): a profile's smaller stacks share their callers with them,
/// and have less room for names.
pub(super) struct FrameOr<'a, const F: usize, const L: usize>(
    pub(super) &'a Stack<F, L>,
    pub(super) usize,
    pub(super) &'a [&'a Stack],
);

impl<const F: usize, const L: usize> fmt::Display for FrameOr<'_, F, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Self(st, i, others) = *self;
        let addr = st.frames().get(i).copied().unwrap_or(0);
        match st
            .name(i)
            .or_else(|| others.iter().find_map(|o| o.name_of_addr(addr)))
        {
            Some(name) => fmt::Write::write_str(f, core::str::from_utf8(name).unwrap_or("?")),
            None => fmt::Display::fmt(&Symbol(addr), f),
        }
    }
}

/// Calls `f` with `cpu`'s open hardirq-off window and a copy of its live profile (of
/// another window, or empty, if the watcher has no sample of it yet).
pub(super) fn with_ongoing_hard(
    state: &State,
    cpu: &CpuSampler,
    f: impl FnOnce(Ongoing, &LiveView, u64),
) {
    let now = ffi::now_ns();
    let Some(o) = state
        .watch
        .ongoing(&state.peers, cpu.cpu, now, &state.settings.rules())
    else {
        return;
    };
    let Ok(mut v) = KBox::new(LiveView::empty(), GFP_KERNEL) else {
        return;
    };
    let ok = state
        .watch
        .get(cpu.cpu)
        .is_some_and(|w| w.profile.read(&mut v));
    if !ok || v.window != o.window {
        *v = LiveView::empty();
    }
    f(o, &v, now);
}

/// Copies `cpu`'s softirq profile into a box if it is of the open window `start`.
pub(super) fn soft_live(cpu: &CpuSampler, start: u64) -> Option<KBox<LiveView>> {
    let mut v = KBox::new(LiveView::empty(), GFP_KERNEL).ok()?;
    (start != 0 && cpu.soft_profile.read(&mut v) && v.window == start).then_some(v)
}

/// The profile lines of a record: its window stack (the most seen) first, then the others
/// it kept.
pub(super) fn show_profile(m: &SeqFile, p: &Profile, window: &Stack, end: &Stack) {
    if p.samples == 0 {
        return;
    }
    let kept = (p.distinct as usize).min(p.counts.len());
    seq_print!(
        m,
        "profile samples={} weight={} stacks={} distinct={} other={}\n",
        p.samples,
        p.weight,
        kept,
        p.distinct,
        p.other
    );
    for k in 0..kept {
        let count = p.counts[k];
        match k.checked_sub(1).and_then(|e| p.extra.get(e)) {
            None => show_profile_stack(m, count, window, &[end]),
            Some(st) => show_profile_stack(m, count, st, &[window, end]),
        }
    }
}

pub(super) fn show_profile_stack<const F: usize, const L: usize>(
    m: &SeqFile,
    count: u32,
    st: &Stack<F, L>,
    others: &[&Stack],
) {
    seq_print!(
        m,
        "profile_stack count={} frames={}\n",
        count,
        st.frames().len()
    );
    for i in 0..st.frames().len() {
        seq_print!(m, "profile_frame {}\n", FrameOr(st, i, others));
    }
}

/// The profile lines of a window still open.
pub(super) fn show_live_profile(m: &SeqFile, v: &LiveView) {
    if v.samples == 0 {
        return;
    }
    seq_print!(
        m,
        "profile samples={} weight={} stacks={} distinct={} other={}\n",
        v.samples,
        v.weight,
        v.nr,
        v.nr,
        v.other
    );
    for k in 0..v.nr {
        show_profile_stack(m, v.counts[k], &v.stacks[k], &[]);
    }
}

/// The stack to show where one stack is shown: where the window ended, or for a window
/// still open the one taken inside it.
pub(super) fn main_stack(r: &Record) -> &Stack {
    if r.header.ongoing {
        r.stack(Which::Window)
    } else {
        r.stack(Which::End)
    }
}

pub(super) use crate::ffi::SeqWriter;
