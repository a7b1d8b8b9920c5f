// SPDX-License-Identifier: GPL-2.0

//! Per-CPU, per-kind stores of the worst events since the last clear, and the one open
//! softirq window a CPU may have.
//!
//! Each store has one writer: the sampler of its CPU and kind, which never runs twice at
//! once. It writes a record in place ([`Writer`]), so the hard interrupt path keeps no copy
//! of a record on its stack. Readers (the /proc files, on any CPU) copy a slot under its
//! sequence count and retry if the writer was inside it, so no reader ever sees a
//! half-written record, and the writer never waits for a reader (it may run in hard
//! interrupt context, where no lock that sleeps on PREEMPT_RT may be taken). A clear only
//! bumps a generation number; the writer empties its store when it next sees a new
//! generation, readers ignore stale ones.
//!
//! The kernel's seqcount rule holds: the writer is not preemptible inside a slot. The
//! hrtimer writes in hard interrupt context; the timer_list, which on PREEMPT_RT runs in
//! the preemptible ktimers/N thread, writes with preemption disabled. Otherwise a reader of
//! higher priority on the writer's CPU could preempt it mid-slot and spin forever. Readers
//! also never spin unboundedly: after a few spins they sleep, and in the end give up.
//!
//! A record holds two stacks: where the window ended ([`Which::End`]: where the sampler
//! finally ran) and, for softirq windows, one taken inside it by the hrtimer
//! ([`Which::Window`]).
//!
//! Frames in code that can be unloaded (modules) need their names taken while that code is
//! loaded, but naming one walks its module's whole symbol table: the capture, in hard
//! interrupt context, saves only addresses. The names are written afterwards, in process
//! context, by the namer (`capture/namer.rs`): a slot's name area has a writer of its own (the
//! namer, one at a time) and a sequence count of its own, and says which version of the
//! slot (its sequence count) its names belong to; readers take the names only for the
//! version of the record they read. The capture's writer never touches the name area.
//!
//! The parts: `types` (what a record is), `slot` (the seqcount slot and its writer),
//! `store` (a CPU's store of one kind), `pending` (the open softirq window), `live` (the
//! live profile of an open window), `overlap` (a record's join with another CPU's).

mod live;
mod overlap;
mod pending;
mod slot;
mod store;
mod types;

pub(crate) use live::{LiveProfile, LiveView, SampledTask};
pub(crate) use overlap::{overlapping_hard, ReadAt};
pub(crate) use pending::Pending;
pub(crate) use slot::Writer;
pub(crate) use store::{NameJob, RecordStore};
pub(crate) use types::*;
