// SPDX-License-Identifier: GPL-2.0
//! Host tests of the enrich step: what it computes once is what the derivations
//! (`culprit`, `cgroup`, `precision`) give, record by record, so the views present the
//! same values they used to derive themselves.

use super::*;
use crate::enrich::cgroup;
use crate::enrich::culprit;
use crate::model::snapshot::{Cause, Config, Kind};

fn parse(text: &str) -> Snapshot {
    crate::parse::records::parse(text).expect("fixture parses")
}

/// Every records fixture with windows: v1, v2 (both causes, overlaps, an open window),
/// cgroup ids, the watcher's profiles and open windows, stalls.
fn fixtures() -> Vec<Snapshot> {
    vec![
        parse(include_str!("../../tests/fixtures/records-v1.txt")),
        parse(include_str!("../../tests/fixtures/records-v2.txt")),
        parse(include_str!("../../tests/fixtures/records-v2-cgroup.txt")),
        parse(include_str!("../../tests/fixtures/records-watcher.txt")),
        parse(include_str!("../../tests/fixtures/records-stall.txt")),
    ]
}

/// A record whose cgroup was resolved to `path` (as `cgroup::resolve` does on the live
/// system).
fn in_cgroup(mut r: Record, path: &str) -> Record {
    r.cgroup_id = Some(4242);
    r.cgroup_class = Some(cgroup::classify(path));
    r.cgroup = Some(path.to_string());
    r
}

/// Claim: for every record of every fixture, the window holds what the derivations give
/// for it: the stack and task `culprit::source` picks, the name `culprit::name_in` gives
/// with either stand-in, the label `culprit::label` gives, the lock-wait flag, and the
/// cgroup's short and described texts.
#[test]
fn a_window_holds_what_the_derivations_give() {
    let mut n = 0;
    for s in fixtures() {
        for r in &s.records {
            let w = Window::of(r);
            let (stack, comm) = culprit::source(r);
            assert_eq!((w.culprit_stack, w.culprit_comm), (stack, comm));
            for none in ["-", "?"] {
                assert_eq!(w.name(none), culprit::name_in(stack, r, none));
                assert_eq!(
                    w.label(none),
                    culprit::label(culprit::name_in(stack, r, none), r)
                );
            }
            assert_eq!(w.lock_wait, culprit::lock_wait(r));
            assert_eq!(w.cgroup_short, cgroup::short(r));
            assert_eq!(w.cgroup_described, cgroup::described(r));
            n += 1;
        }
    }
    assert!(n > 10, "the fixtures hold {n} records");
}

/// Claim: a window reads as its record (its fields through it), and the views' culprit
/// task is the one sampled in the window where that is whom the culprit's stack belongs
/// to (ksoftirqd-wait: what ran instead), else the record's own task.
#[test]
fn a_window_reads_as_its_record_and_names_the_culprits_task() {
    let s = parse(include_str!("../../tests/fixtures/records-v2.txt"));
    let ws = windows(&s.records);
    assert_eq!(ws.len(), s.records.len());
    for (w, r) in ws.iter().zip(&s.records) {
        assert!(std::ptr::eq(w.record, r));
        assert_eq!((w.cpu, w.kind, w.latency_ns), (r.cpu, r.kind, r.latency_ns));
    }
    // The fixture's ksoftirqd-wait window: "my hog" (pid 131) ran, ksoftirqd/2 waited.
    let wait = ws
        .iter()
        .find(|w| w.cause == Some(Cause::KsoftirqdWait) && w.window_pid != 0)
        .expect("a ksoftirqd-wait window with a sample");
    assert_eq!((wait.culprit_comm, wait.culprit_pid), ("my hog", 131));
    assert_ne!(wait.culprit_pid, wait.pid);
    // A hardirq-off window without a sample: the task where it ended.
    let hard = ws
        .iter()
        .find(|w| w.kind == Kind::Hard && w.window_pid == 0)
        .expect("a hardirq-off window without a sample");
    assert_eq!(
        (hard.culprit_comm, hard.culprit_pid),
        (hard.comm.as_str(), hard.pid)
    );
}

/// Claim: a returned handler that nothing sampled is named `culprit::UNSEEN` whatever
/// stand-in a view asks for, while an empty stack that could show the culprit takes the
/// view's stand-in; a lock wait's label carries " (lock wait)".
#[test]
fn stand_ins_and_lock_waits() {
    let unseen = Record {
        end_shows_culprit: false,
        stack: vec!["default_idle+0x16/0x20".into()],
        ..Record::new(1, Kind::Hard)
    };
    let w = Window::of(&unseen);
    assert!(w.culprit_stack.is_empty());
    assert_eq!(
        (w.name("-"), w.name("?")),
        (culprit::UNSEEN, culprit::UNSEEN)
    );
    let empty = Record::new(1, Kind::Hard);
    let w = Window::of(&empty);
    assert_eq!(
        (w.culprit, w.name("-"), w.label("?")),
        (None, "-", "?".into())
    );
    let spin = Record {
        window_stack: vec![
            "native_queued_spin_lock_slowpath+0x6c/0x230".into(),
            "_raw_spin_lock+0x3a/0x40".into(),
            "spin_window+0x2d/0x53 [m]".into(),
        ],
        stack: vec!["spin_window+0x40/0x53 [m]".into()],
        ..Record::new(1, Kind::Hard)
    };
    let w = Window::of(&spin);
    assert!(w.lock_wait);
    assert_eq!(w.label("-"), "spin_window (lock wait)");
}

/// Claim: a resolved cgroup is said in words once per window: the unit's name for one-line
/// views, the path with that name for the stacked ones; an unresolved id as the id.
#[test]
fn a_windows_cgroup_in_words() {
    let r = in_cgroup(Record::new(1, Kind::Soft), "/system.slice/nginx.service");
    let w = Window::of(&r);
    assert_eq!(w.cgroup_short.as_deref(), Some("nginx.service"));
    assert_eq!(
        w.cgroup_described.as_deref(),
        Some("/system.slice/nginx.service (nginx.service)")
    );
    let r = Record {
        cgroup_id: Some(77),
        ..Record::new(1, Kind::Soft)
    };
    let w = Window::of(&r);
    assert_eq!(w.cgroup_short.as_deref(), Some("cgroup 77"));
    assert_eq!(w.cgroup_described.as_deref(), Some("cgroup 77"));
    assert_eq!(Window::of(&Record::new(1, Kind::Soft)).cgroup_short, None);
}

/// Claim: the precision worked out once gives, for every kind and cause a view names, the
/// bounds `precision::Resolution` gives; none for the original module (no HZ).
#[test]
fn precision_is_the_resolutions_bounds() {
    let c = crate::enrich::precision::tests::config(10, 250);
    let res = crate::enrich::precision::Resolution::of(&c).expect("ours");
    let p = Precision::of(&c).expect("ours");
    for kind in [Kind::Hard, Kind::Soft] {
        for cause in [None, Some(Cause::BhOff), Some(Cause::KsoftirqdWait)] {
            assert_eq!(p.bounds(kind, cause), res.bounds(kind, cause));
        }
    }
    let original = Config { hz: 0, ..c };
    assert_eq!(Precision::of(&original), None);
}

/// Claim: an enriched snapshot reads as its snapshot, holds one window per record in the
/// records' order, and its precision is that of its configuration.
#[test]
fn a_snapshot_enriched() {
    for s in fixtures() {
        let e = snapshot(&s);
        assert!(std::ptr::eq(e.snapshot, &s));
        assert_eq!(e.records.len(), e.windows.len());
        for (w, r) in e.windows.iter().zip(&s.records) {
            assert!(std::ptr::eq(w.record, r));
        }
        assert_eq!(e.precision, Precision::of(&s.config));
    }
}

/// Claim: a window still open is given with the stack that names its culprit
/// (`culprit::source` of the matching record) and that stack's culprit: the watcher's
/// hardirq-off window of the fixture, in the sample loop, first; a softirq-off one from its
/// record.
#[test]
fn open_windows_carry_their_culprits() {
    let s = parse(include_str!("../../tests/fixtures/records-watcher.txt"));
    let e = snapshot(&s);
    assert!(!e.open.is_empty());
    assert_eq!(e.open[0].window, s.ongoing[0]);
    for o in &e.open {
        let r = s
            .records
            .iter()
            .find(|r| r.ongoing && r.cpu == o.window.cpu && r.kind == o.window.kind);
        let stack = r.map(|r| culprit::source(r).0.to_vec()).unwrap_or_default();
        assert_eq!(o.stack, stack);
        let name =
            crate::enrich::mechanism::culprit(stack.iter().map(|f| crate::symbols::function(f)));
        assert_eq!(o.culprit.as_deref(), name);
    }
    assert_eq!(
        e.open[0].culprit.as_deref(),
        Some("irqoff_sample_hardirq_window")
    );
    // The v2 fixture's open bh-off window has no watcher: it comes from its record.
    let s = parse(include_str!("../../tests/fixtures/records-v2.txt"));
    let e = snapshot(&s);
    let soft: Vec<_> = e
        .open
        .iter()
        .filter(|o| o.window.kind == Kind::Soft)
        .collect();
    assert_eq!(
        soft.len(),
        s.records
            .iter()
            .filter(|r| r.ongoing && r.kind == Kind::Soft)
            .count()
    );
}

/// Claim: the culprit groups and folded stacks the enrich step gives the views are
/// `culprit::top`'s and `culprit::folded`'s, for every grouping and weight.
#[test]
fn top_and_folded_are_the_culprits() {
    for s in fixtures() {
        for by in [By::Culprit, By::Stack, By::Cgroup] {
            assert_eq!(top(&s.records, by), culprit::top(&s.records, by));
        }
        for by_latency in [false, true] {
            assert_eq!(
                folded(&s.records, by_latency),
                culprit::folded(&s.records, by_latency)
            );
        }
    }
}
