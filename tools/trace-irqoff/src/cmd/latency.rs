// SPDX-License-Identifier: GPL-2.0
//! `records` (alias `latency`): the kept events, filtered and sorted.

use anyhow::Result;

use super::{Ctx, From, Outcome};
use crate::cli::{RecordsArgs, Sort};
use crate::enrich;
use crate::enrich::prepare::{Options, Prepared};
use crate::error::Problem;
use crate::model::snapshot::{Record, Snapshot};
use crate::output;
use crate::render;

/// Arguments, prepare (the ring's windows merged, build ids, `--lines`), select, render.
pub fn run(a: &RecordsArgs, from: &From, ctx: &Ctx) -> Result<Outcome> {
    let p = from.prepare(Options {
        ring: true,
        build_ids: true,
        lines: Some(&a.lines),
        ..Default::default()
    })?;
    let s = p.snapshot();
    check_cpus(&a.cpu, s)?;
    let v = select(s, a, p.loaded.now_ns);
    show(a, &p, &v, ctx)
}

/// Prints the records `v` selected from `p`, and below them what its coverage says is
/// not shown (on stderr with `--json`).
fn show(a: &RecordsArgs, p: &Prepared, v: &[Record], ctx: &Ctx) -> Result<Outcome> {
    let coverage = &p.coverage;
    if ctx.json {
        let json: Vec<_> = enrich::windows(v)
            .iter()
            .map(enrich::Window::json)
            .collect();
        output::print_json(&json)?;
        if let Some(l) = coverage.sentence() {
            output::note(&l);
        }
    } else {
        // On a terminal one line per window, cut to its width; on a pipe (scripts, files)
        // the whole stacks, the form scripts read.
        let size = output::terminal_size();
        let (e, w) = (p.enriched(), enrich::windows(v));
        if a.oneline || (size.is_some() && !a.stacks && !a.lines.lines) {
            output::print(
                &(render::line::table(&w, &e, size.map(|(_, cols)| cols), ctx.color)
                    + &coverage.footnote(size.map(|(_, cols)| cols))),
            )?;
        } else {
            output::print(
                &(render::records_view::records(&w, &e, a.depth, ctx.color)
                    + &coverage.footnote(size.map(|(_, cols)| cols))),
            )?;
        }
    }
    Ok(Outcome::Done)
}

/// Refuses a `--cpu` the module does not report (a typo would otherwise read as "no
/// records"). The original module reports no CPUs: nothing to check against then.
fn check_cpus(wanted: &[u32], s: &Snapshot) -> Result<(), Problem> {
    let known: Vec<u32> = s.cpus.iter().map(|c| c.cpu).collect();
    match wanted
        .iter()
        .find(|c| !known.is_empty() && !known.contains(c))
    {
        Some(c) => Err(Problem::usage(
            format!(
                "there is no CPU {c} here: the module reports CPUs {}",
                cpu_list(&known)
            ),
            "pick one of those, or leave --cpu out for every CPU",
        )),
        None => Ok(()),
    }
}

/// CPU numbers in the kernel's list syntax: 0-3,8.
fn cpu_list(cpus: &[u32]) -> String {
    let mut v = cpus.to_vec();
    v.sort_unstable();
    v.dedup();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if j == i {
            v[i].to_string()
        } else {
            format!("{}-{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(",")
}

/// Records after the filters, in the chosen order.
pub fn select(s: &Snapshot, a: &RecordsArgs, now_ns: u64) -> Vec<Record> {
    let mut v: Vec<Record> = s
        .records
        .iter()
        .filter(|r| a.cpu.is_empty() || a.cpu.contains(&r.cpu))
        .filter(|r| a.kind.is_none_or(|k| k == r.kind))
        .filter(|r| a.min_ns.is_none_or(|ns| r.latency_ns >= ns))
        .filter(|r| {
            a.since
                .is_none_or(|d| r.timestamp_ns >= now_ns.saturating_sub(d.as_nanos() as u64))
        })
        .cloned()
        .collect();
    match a.sort {
        Sort::Worst => v.sort_by(|x, y| {
            y.latency_ns
                .cmp(&x.latency_ns)
                .then(y.timestamp_ns.cmp(&x.timestamp_ns))
        }),
        Sort::Newest => v.sort_by_key(|r| std::cmp::Reverse(r.timestamp_ns)),
    }
    if let Some(n) = a.limit {
        v.truncate(n);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::cpu_list;

    /// CPU lists read as the kernel writes them.
    #[test]
    fn cpu_lists_in_the_kernel_syntax() {
        assert_eq!(cpu_list(&[0, 1, 2, 3, 8]), "0-3,8");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[3, 1, 2, 7, 9, 10]), "1-3,7,9-10");
        assert_eq!(cpu_list(&[]), "");
    }
}
