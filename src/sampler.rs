// SPDX-License-Identifier: GPL-2.0

//! The per-CPU samplers: a pinned hard-mode hrtimer (hardirq side) and a pinned timer_list
//! (softirq side), and what each does when it runs.

mod context_cell;
mod cpu;
mod events;
mod hard;
mod locals;
mod probe;
mod run;
mod sleep;
mod soft;

pub(crate) use cpu::CpuSampler;
