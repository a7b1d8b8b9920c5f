// SPDX-License-Identifier: GPL-2.0
//! `records` (alias `latency`): the kept events, filtered and sorted.

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::{RecordsArgs, Sort};
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;
use crate::snapshot::{Record, Snapshot};

pub fn run<B: Backend>(a: &RecordsArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    let s = m.snapshot()?;
    let v = select(&s, a, crate::clock::monotonic_ns());
    if ctx.json {
        output::print_json(&v)?;
    } else {
        output::print(&render::records(&v, &s, a.depth, ctx.color))?;
    }
    Ok(Outcome::Done)
}

/// Records after the filters, in the chosen order.
pub fn select(s: &Snapshot, a: &RecordsArgs, now_ns: u64) -> Vec<Record> {
    let mut v: Vec<Record> = s
        .records
        .iter()
        .filter(|r| a.cpu.is_empty() || a.cpu.contains(&r.cpu))
        .filter(|r| a.kind.is_none_or(|k| k == r.kind))
        .filter(|r| a.min_ns.is_none_or(|ns| r.latency_ns >= ns))
        .filter(|r| a.since.is_none_or(|d| r.timestamp_ns >= now_ns.saturating_sub(d.as_nanos() as u64)))
        .cloned()
        .collect();
    match a.sort {
        Sort::Worst => v.sort_by(|x, y| y.latency_ns.cmp(&x.latency_ns).then(y.timestamp_ns.cmp(&x.timestamp_ns))),
        Sort::Newest => v.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns)),
    }
    if let Some(n) = a.limit {
        v.truncate(n);
    }
    v
}
