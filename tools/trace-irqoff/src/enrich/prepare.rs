// SPDX-License-Identifier: GPL-2.0
//! The one preparation stage: what a source read (the module's files, a saved `record`
//! file, a span of the event ring) turned into the records every view shows, in one
//! order, in one place ([`prepare`]): parse, clock, precision, cgroups, demangling, the
//! ring's windows merged, build ids, `--lines`; [`Prepared::enriched`] is the last step,
//! the windows and culprits `render` presents. The sources only read.

use std::path::Path;

use anyhow::Result;

use crate::cli::LinesArgs;
use crate::enrich::ring_windows::Coverage;
use crate::model::clock::Clock;
use crate::model::ring_event::Event;
use crate::model::snapshot::{Config, Record, Snapshot};
use crate::source::procfs::{Backend, Module};
use crate::source::saved::{Loaded, Origin};

/// Where the records come from.
pub enum Source<'a, B: Backend> {
    /// The module's files now (the running kernel's under /proc, or a copy's).
    Module(&'a Module<B>),
    /// A `record` file read back (`--from FILE`).
    Saved(&'a Path),
    /// The windows of `events` (the module's event ring) of `min_ns` or more, read with
    /// the module's `config` (its clock anchor, period and HZ).
    Ring {
        module: &'a Module<B>,
        events: &'a [Event],
        config: &'a Config,
        min_ns: u64,
    },
}

/// What a command asks of the preparation besides its source.
#[derive(Default)]
pub struct Options<'a> {
    /// A saved file's frames as the kernel printed them (`--raw-symbols`); the module's
    /// and the ring's follow the module's own setting (`Module::raw_symbols`).
    pub raw_symbols: bool,
    /// Merge into the module's records the ring's windows its store did not keep.
    pub ring: bool,
    /// The running kernel's module build ids, which it did not print in the frames.
    pub build_ids: bool,
    /// `--lines`: the source lines of the frames.
    pub lines: Option<&'a LinesArgs>,
}

impl<'a> Options<'a> {
    /// What the views of the module's windows ask (`top`, `report`): the ring's windows
    /// merged in, and with `--lines` the build ids and the source lines.
    pub fn views(lines: &'a LinesArgs) -> Self {
        Self {
            ring: true,
            build_ids: lines.lines,
            lines: Some(lines),
            ..Default::default()
        }
    }
}

/// A source's records as the views show them.
#[derive(Debug)]
pub struct Prepared {
    /// The snapshot, when "now" is for `--since`, and where it was taken.
    pub loaded: Loaded,
    /// Which of the store's windows are shown, once the ring's are merged in.
    pub coverage: Coverage,
    /// `--lines`: what had no debug information, how to get it (one sentence).
    pub lines_hint: Option<String>,
}

impl Prepared {
    /// The snapshot prepared.
    pub fn snapshot(&self) -> &Snapshot {
        &self.loaded.snapshot
    }

    /// The last step: the windows, culprits, precision and open windows (`enrich::snapshot`).
    pub fn enriched(&self) -> super::Enriched<'_> {
        super::snapshot(&self.loaded.snapshot)
    }
}

/// Prepares what `source` reads: parse, clock, precision, cgroups, demangling, ring
/// merge, build ids, `--lines`, in that order (each step a source needs: a saved file
/// holds its clock, precision and cgroups already).
pub fn prepare<B: Backend>(source: Source<'_, B>, o: &Options) -> Result<Prepared> {
    let module = match &source {
        Source::Module(m) | Source::Ring { module: m, .. } => Some(*m),
        Source::Saved(_) => None,
    };
    // Parse, and date with the clock the records were read with.
    let mut loaded = read(&source)?;
    let s = &mut loaded.snapshot;
    if let Some(m) = module {
        crate::enrich::precision::annotate(&s.config, &mut s.records);
        crate::enrich::cgroup::resolve(&m.proc_root(), &mut s.records);
    }
    if module.map_or(!o.raw_symbols, Module::demangles) {
        crate::symbols::demangle_records(&mut s.records);
    }
    let coverage = match module {
        Some(m) if o.ring => merge_ring(m, s),
        _ => Coverage::default(),
    };
    if o.build_ids && module.is_some_and(Module::is_live) {
        crate::enrich::lines::fill_build_ids(&mut s.records);
    }
    let lines_hint = o.lines.and_then(|a| {
        let resolver = crate::enrich::lines::Resolver::for_args(
            a,
            loaded.origin.kernel.as_deref(),
            loaded.kernel_build_id.as_deref(),
        );
        source_lines(resolver, &mut loaded.snapshot.records)
    });
    Ok(Prepared {
        loaded,
        coverage,
        lines_hint,
    })
}

/// The module's snapshot prepared without the ring, build ids or lines: what commands
/// that count or follow the module (`status`, `hist`, `watch`, `record`) start from.
pub fn module_snapshot<B: Backend>(m: &Module<B>) -> Result<Snapshot> {
    Ok(prepare(Source::Module(m), &Options::default())?
        .loaded
        .snapshot)
}

/// The windows of `events` (the event ring's) of `min_ns` or more, as records named,
/// dated and bounded exactly as the store's are ([`prepare`] of [`Source::Ring`]): the
/// one way every command turns ring windows into records.
pub fn ring_records<B: Backend>(
    m: &Module<B>,
    events: &[Event],
    config: &Config,
    min_ns: u64,
) -> Vec<Record> {
    let source = Source::Ring {
        module: m,
        events,
        config,
        min_ns,
    };
    // Reading the ring's windows cannot fail: they are read already.
    prepare(source, &Options::default())
        .map(|p| p.loaded.snapshot.records)
        .unwrap_or_default()
}

/// The parse and clock step: what `source` holds, its times in wall-clock time.
fn read<B: Backend>(source: &Source<'_, B>) -> Result<Loaded> {
    Ok(match source {
        Source::Module(m) => {
            let mut s = m.read_snapshot()?;
            s.stamp(&module_clock(m, &s));
            module_loaded(m, s)
        }
        Source::Saved(path) => crate::source::saved::load(path)?,
        Source::Ring {
            events,
            config,
            min_ns,
            ..
        } => {
            let clock = Clock::of_anchor(config.realtime_offset_ns);
            let records = crate::enrich::ring_windows::records(events, *min_ns, &clock);
            Loaded {
                snapshot: ring_snapshot(config, records),
                now_ns: crate::model::clock::monotonic_ns(),
                origin: Origin::default(),
                kernel_build_id: None,
            }
        }
    })
}

/// The clock the module's records are dated with: the anchor the module read the file
/// with (right wherever the file is read); this machine's for an older module, said once
/// where the files are a copy.
fn module_clock<B: Backend>(m: &Module<B>, s: &Snapshot) -> Clock {
    match s.config.realtime_offset_ns {
        Some(offset) => Clock::anchored(offset),
        None => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            let saved =
                !m.is_live() && std::env::var_os(crate::model::clock::BOOT_TIME_ENV).is_none();
            let timed = s.records.iter().any(|r| r.timestamp_ns != 0);
            if saved && timed {
                ONCE.call_once(|| crate::output::note(
                    "these records carry no clock anchor (an older module): wall-clock times assume they were read on this machine since its last boot",
                ));
            }
            Clock::now()
        }
    }
}

/// The module's snapshot with where and when it was read: this machine, now, the module's
/// counting time, and the running kernel's build id where these are its files.
fn module_loaded<B: Backend>(m: &Module<B>, snapshot: Snapshot) -> Loaded {
    let uname = rustix::system::uname();
    let origin = Origin {
        host: Some(uname.nodename().to_string_lossy().into_owned()),
        kernel: Some(uname.release().to_string_lossy().into_owned()),
        start_time: snapshot.config.counts_since.clone(),
        end_time: Some(crate::model::clock::now_rfc3339()),
    };
    Loaded {
        snapshot,
        now_ns: crate::model::clock::monotonic_ns(),
        origin,
        kernel_build_id: m
            .is_live()
            .then(crate::enrich::lines::running_kernel_build_id)
            .flatten(),
    }
}

/// A snapshot of ring windows alone: the module's `config`, no counts.
fn ring_snapshot(config: &Config, records: Vec<Record>) -> Snapshot {
    Snapshot {
        version: 0,
        config: config.clone(),
        cpus: Vec::new(),
        records,
        watcher: None,
        ongoing: Vec::new(),
        tag_wait: None,
        stalls: None,
        original_hist: None,
        worst: None,
    }
}

/// Merges into `s` (the module's records, read just before) the event ring's windows at
/// the threshold or over that its store did not keep, since the load or clear the store
/// counts from, each once (`ring_windows::same_window`), prepared as the store's are
/// ([`ring_records`]); says how many windows are still not shown, and why the ring was
/// not read where it was not. What `records` and `top` show is then every window
/// `record --last` finds for the same span.
fn merge_ring<B: Backend>(m: &Module<B>, s: &mut Snapshot) -> Coverage {
    let lost: u64 = s.cpus.iter().map(|c| c.dropped + c.replaced).sum();
    let ring = if m.is_live() || crate::source::ring::overridden() {
        crate::source::ring::read_running()
    } else {
        Err("a copy of the module's files has none".to_string())
    };
    match ring {
        Ok(ring) => {
            let from = s.config.counts_since_ns.unwrap_or(0);
            let events: Vec<Event> = ring
                .windows
                .into_iter()
                .filter(|e| e.end_ns >= from)
                .collect();
            let added = crate::enrich::ring_windows::add_missing(
                &mut s.records,
                &ring_records(m, &events, &s.config, s.config.threshold_ns),
            );
            Coverage {
                added,
                unshown: lost.saturating_sub(added as u64),
                no_ring: None,
            }
        }
        Err(why) => Coverage {
            added: 0,
            unshown: lost,
            no_ring: Some(why),
        },
    }
}

/// `--lines`: sets the source lines of `records`' frames with `resolver` (`None` without
/// --lines); returns what had no debug information, how to get it (one sentence).
pub fn source_lines(
    resolver: Option<crate::enrich::lines::Resolver>,
    records: &mut [Record],
) -> Option<String> {
    let mut res = resolver?;
    for r in records.iter_mut() {
        res.annotate(r);
    }
    res.hint()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::procfs::fake::Fake;

    /// Claim: the three sources go through the one preparation. The module's files (a
    /// fake proc root), the `record` file written of the same data, and the ring's
    /// windows of a module give the records every view shows alike: the same windows,
    /// dated, bounded and named the same way.
    #[test]
    fn every_source_is_prepared_alike() {
        let text = include_str!("../../tests/fixtures/records-v2.txt").replace(
            " buckets=24",
            " buckets=24 realtime_offset_ns=1778151600000000000",
        );
        let fake = Fake::new(&text);
        let m = Module::open(&fake).unwrap();
        let live = prepare(Source::Module(&m), &Options::default()).unwrap();
        let s = live.snapshot();
        assert!(!s.records.is_empty());
        // Dated in the one stage, not by the source.
        assert!(m
            .read_snapshot()
            .unwrap()
            .records
            .iter()
            .all(|r| r.wall_time.is_none()));
        assert!(s.records.iter().all(|r| r.wall_time.is_some()));
        let saved = serde_json::json!({
            "module": {
                "records_format": s.version,
                "hz": s.config.hz,
                "records_per_cpu": s.config.records_per_cpu,
                "soft_period_ns": s.config.soft_period_ns,
                "soft_event_ns": s.config.soft_event_ns,
            },
            "settings": m.settings().unwrap(),
            "realtime_offset_ns": s.config.realtime_offset_ns,
            "cpus": s.cpus,
            // What `record` writes: the records prepared.
            "records": s.records,
        });
        let dir = tempfile::TempDir::new().unwrap();
        let file = dir.path().join("saved.json");
        std::fs::write(&file, saved.to_string()).unwrap();
        let from_file = prepare(Source::<&Fake>::Saved(&file), &Options::default()).unwrap();
        assert_eq!(from_file.snapshot().records, s.records);
        // The ring: no windows, no records; the module's config kept.
        let ring = prepare(
            Source::Ring {
                module: &m,
                events: &[],
                config: &s.config,
                min_ns: 0,
            },
            &Options::default(),
        )
        .unwrap();
        assert!(ring.snapshot().records.is_empty());
        assert_eq!(ring.snapshot().config, s.config);
    }
}
