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
use crate::snapshot::RecordKey;

pub fn run<B: Backend>(a: &WatchArgs, m: &Module<B>, ctx: &Ctx) -> Result<Outcome> {
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
        seen = Some(s.records.iter().map(|r| r.key()).collect());
        n += 1;
        let until = Instant::now() + a.interval;
        while Instant::now() < until && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(Outcome::Done)
}
