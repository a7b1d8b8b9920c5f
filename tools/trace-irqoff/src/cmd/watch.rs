// SPDX-License-Identifier: GPL-2.0
//! `watch`: the newest records, refreshed.

use std::collections::HashSet;
use std::io::IsTerminal;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use anyhow::Result;

use super::{Ctx, Outcome};
use crate::cli::WatchArgs;
use crate::output;
use crate::procfs::{Backend, Module};
use crate::render;
use crate::error::Problem;
use crate::snapshot::{self, RecordKey};

pub fn run<B: Backend>(a: &WatchArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
    if let Some(ms) = a.until {
        let threshold = m.settings()?.threshold_ms;
        if ms < threshold {
            return Err(Problem::usage(
                format!("--until {ms} is below the threshold ({threshold} ms): such a window would not be recorded"),
                format!("lower the threshold first (trace-irqoff set threshold {ms}), or use trace-irqoff record --until {ms}"),
            )
            .into());
        }
    }
    let stop = super::interrupt_flag()?;
    let tty = std::io::stdout().is_terminal();
    let mut seen: Option<HashSet<RecordKey>> = None;
    let mut n = 0u64;
    while !stop.load(Ordering::SeqCst) && a.count.is_none_or(|c| n < c) {
        let s = m.snapshot()?;
        let mut o = String::new();
        if tty {
            o += render::CLEAR_SCREEN;
        }
        o += &render::watch::refresh(&s, seen.as_ref(), a.interval, ctx.color);
        output::print(&o)?;
        // Only windows that came after the first refresh end it.
        if let (Some(ms), Some(sn)) = (a.until, &seen) {
            let new: Vec<_> = s.records.iter().filter(|r| !sn.contains(&r.key())).cloned().collect();
            if let Some(r) = snapshot::first_at_least(&new, ms, s.version) {
                output::print(&render::watch::caught(r, ms))?;
                return Ok(Outcome::Caught);
            }
        }
        seen = Some(s.records.iter().map(|r| r.key()).collect());
        n += 1;
        let until = Instant::now() + a.interval;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(Outcome::Done)
}
