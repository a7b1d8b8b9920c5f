// SPDX-License-Identifier: GPL-2.0
//! The lines of a records file about what the module sees beyond kept records: `watcher`
//! (the NMI watcher's state and counts), `ongoing` (a window still open now) and `stall`
//! (the stalls of the whole machine).

use tio_logic::grammar;

use super::words::{kind, unescape};
use crate::fields::{Fields, ParseError};
use crate::model::snapshot::{Ongoing, Stalls, Watcher};

/// The `watcher` line `n`.
pub fn watcher<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Watcher, ParseError> {
    let f = Fields::new(n, words)?;
    Ok(Watcher {
        available: f.flag("available")?,
        active: f.flag("active")?,
        reason: match f.str("reason").unwrap_or("-") {
            grammar::NONE => None,
            r => Some(r.to_string()),
        },
        max_window_samples: f.num_or("max_window_samples", 0)?,
        stuck_ns: f.num_or("stuck_ns", 0)?,
        nmi_sent: f.num_or("nmi_sent", 0)?,
        nmi_answered: f.num_or("nmi_answered", 0)?,
        nmi_lost: f.num_or("nmi_lost", 0)?,
        nmi_stale: f.num_or("nmi_stale", 0)?,
        nmi_missed: f.num_or("nmi_missed", 0)?,
        stuck_unconfirmed: f.num_or("stuck_unconfirmed", 0)?,
    })
}

/// The `stall` line `n`.
pub fn stall<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Stalls, ParseError> {
    let f = Fields::new(n, words)?;
    Ok(Stalls {
        count: f.num("count")?,
        over_threshold: f.num_or("over_threshold", 0)?,
        sum_ns: f.num("sum_ns")?,
        longest_ns: f.num("longest_ns")?,
        latest_start_ns: f.num_or("latest_start_ns", 0)?,
        latest_end_ns: f.num_or("latest_end_ns", 0)?,
        latest_end_time: None,
        hypervisor: f.opt_num::<u8>("hypervisor")?.map(|h| h != 0),
    })
}

/// The `ongoing` line `n`.
pub fn ongoing<'a>(n: usize, words: impl Iterator<Item = &'a str>) -> Result<Ongoing, ParseError> {
    let f = Fields::new(n, words)?;
    let watcher_cpu: i64 = f.num_or("watcher_cpu", -1)?;
    Ok(Ongoing {
        cpu: f.num("cpu")?,
        kind: kind(n, f.str("kind")?)?,
        latency_ns: f.num("latency_ns")?,
        start_ns: f.num_or("start_ns", 0)?,
        pid: f.num_or("pid", 0)?,
        comm: unescape(f.str("comm").unwrap_or("")),
        samples: f.num_or("samples", 0)?,
        watcher_cpu: u32::try_from(watcher_cpu).ok(),
        cgroup_id: f.opt_num::<u64>("cgroup")?.filter(|&id| id != 0),
    })
}

#[cfg(test)]
mod tests {
    use crate::model::snapshot::*;
    use crate::parse::records::fixtures::{STALL, V1, V2, WATCHER};
    use crate::parse::records::{parse, ParseError};

    /// Claim: the watcher fixture parses into the watcher's state and NMI counts, the
    /// ongoing window, an ended record whose profile's first stack is its window stack,
    /// and the open record as an ongoing lower bound with its profile so far; the
    /// snapshot survives a JSON round trip.
    #[test]
    fn watcher_ongoing_and_profiles_are_parsed() {
        let s = parse(WATCHER).unwrap();
        let w = s.watcher.as_ref().unwrap();
        assert_eq!(
            (
                w.available,
                w.active,
                w.reason.as_deref(),
                w.max_window_samples,
                w.nmi_sent,
                w.nmi_answered
            ),
            (true, true, None, 64, 132, 132)
        );
        assert_eq!(
            s.ongoing,
            [Ongoing {
                cpu: 1,
                kind: Kind::Hard,
                latency_ns: 1_788_332_180,
                start_ns: 9_249_206_285,
                pid: 63,
                comm: "sh".into(),
                samples: 107,
                watcher_cpu: Some(0),
                cgroup_id: None,
            }]
        );
        let r = &s.records;
        assert_eq!(r.len(), 3);
        // A final hardirq record: end stack, window stack = the profile's first stack.
        let hard = &r[1];
        assert!(!hard.ongoing && !hard.lower_bound);
        let p = hard.profile.as_ref().unwrap();
        assert_eq!(
            (p.samples, p.weight, p.distinct, p.other, p.stacks.len()),
            (13, 13, 5, 0, 4)
        );
        assert_eq!(
            p.stacks.iter().map(|s| s.count).collect::<Vec<_>>(),
            [8, 2, 1, 1]
        );
        assert_eq!(p.stacks[0].frames, hard.window_stack);
        assert_eq!(p.stacks[3].frames.len(), 3);
        assert_eq!(p.unkept(), 1);
        // The window still open: a lower bound, ongoing, its latest stack and profile so far.
        let open = &r[2];
        assert!(open.ongoing && open.lower_bound);
        assert_eq!(
            (
                open.stack.len(),
                open.window_stack.len(),
                open.window_stack[0].as_str()
            ),
            (0, 9, "read_hpet+0x36/0xe0")
        );
        let p = open.profile.as_ref().unwrap();
        assert_eq!(
            (p.samples, p.weight, p.stacks.len(), p.unkept()),
            (107, 172, 3, 0)
        );
        // A softirq record's profile.
        assert_eq!(
            r[0].profile.as_ref().unwrap().stacks[1].frames,
            ["handle_softirqs+0xa7/0x3b0"]
        );
        // Serialised and back.
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Snapshot>(&json).unwrap(), s);
    }

    /// Claim: records files without watcher lines parse with no watcher, ongoing list or
    /// profiles, v2's open window marked ongoing but no v1 lower bound, and snapshot JSON
    /// without a `watcher` key still reads back equal.
    #[test]
    fn files_without_the_watcher_still_parse() {
        let s = parse(V2).unwrap();
        assert!(s.watcher.is_none() && s.ongoing.is_empty());
        assert!(s.records.iter().all(|r| r.profile.is_none()));
        // The v2 open softirq window is ongoing; a v1 lower bound is not.
        assert_eq!(s.records.iter().filter(|r| r.ongoing).count(), 1);
        assert!(parse(V1).unwrap().records.iter().all(|r| !r.ongoing));
        // JSON of an older CLI (no such fields) still reads.
        let mut v: serde_json::Value = serde_json::to_value(&s).unwrap();
        v.as_object_mut().unwrap().remove("watcher");
        assert_eq!(serde_json::from_value::<Snapshot>(v).unwrap(), s);
    }

    /// Claim: a module that counts stalls gives the `stall` line (count, over threshold,
    /// total, longest, the latest span) and each CPU's `stall_gaps`, and none of it is a
    /// window: the records and the per-CPU events are those of the same file without them.
    #[test]
    fn stall_line_and_stall_gaps_are_parsed() {
        let s = parse(STALL).unwrap();
        assert_eq!(
            s.stalls,
            Some(Stalls {
                count: 5,
                over_threshold: 3,
                sum_ns: 935_000_000,
                longest_ns: 302_000_000,
                latest_start_ns: 8_933_000_000,
                latest_end_ns: 9_235_000_000,
                latest_end_time: None,
                hypervisor: None,
            })
        );
        assert_eq!(
            s.cpus
                .iter()
                .map(|c| (c.cpu, c.steal_gaps, c.stall_gaps))
                .collect::<Vec<_>>(),
            [(0, 1, 10), (1, 0, 9)]
        );
        let without = parse(WATCHER).unwrap();
        assert_eq!(s.records, without.records);
        assert_eq!(s.ongoing, without.ongoing);
        let events = |s: &Snapshot| {
            s.cpus
                .iter()
                .map(|c| (c.hard_events, c.soft_events, c.hard_hist.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(events(&s), events(&without));
        // The latest stall, as a stall (its CPU is not in the line).
        let latest = s.stalls.as_ref().and_then(Stalls::latest).unwrap();
        assert_eq!(
            (latest.cpu, latest.start_ns, latest.end_ns, latest.length_ns),
            (None, 8_933_000_000, 9_235_000_000, 302_000_000)
        );
    }

    /// Claim: the JSON of a snapshot carries `stalls` and each CPU's `stall_gaps`, and
    /// reads back the same; JSON written before them (no `stalls`, no `stall_gaps`) still
    /// reads, as no stalls and 0.
    #[test]
    fn stalls_in_json_and_json_without_them() {
        let s = parse(STALL).unwrap();
        let v = serde_json::to_value(&s).unwrap();
        assert_eq!(v["stalls"]["count"], 5);
        assert_eq!(v["stalls"]["latest_end_ns"], 9_235_000_000u64);
        assert_eq!(v["cpus"][0]["stall_gaps"], 10);
        assert_eq!(serde_json::from_value::<Snapshot>(v.clone()).unwrap(), s);
        let mut old = v;
        old.as_object_mut().unwrap().remove("stalls");
        for c in old["cpus"].as_array_mut().unwrap() {
            c.as_object_mut().unwrap().remove("stall_gaps");
        }
        let back = serde_json::from_value::<Snapshot>(old).unwrap();
        assert_eq!(back.stalls, None);
        assert!(back.cpus.iter().all(|c| c.stall_gaps == 0));
        // A module without the line: no `stalls` key at all.
        let json = serde_json::to_value(parse(V2).unwrap()).unwrap();
        assert!(json.get("stalls").is_none(), "{json}");
    }

    /// Claim: a malformed `stall` line is refused, not read as zeros.
    #[test]
    fn a_broken_stall_line_is_refused() {
        let text = STALL.replace("stall count=5 ", "stall count=five ");
        assert!(matches!(
            parse(&text),
            Err(ParseError::Malformed { line: 5, .. })
        ));
        let text = STALL.replace(" sum_ns=935000000", "");
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
    }

    /// Claim: an unavailable watcher parses as not available and not active with its
    /// reason, and an ongoing window's watcher CPU of -1 parses as none.
    #[test]
    fn an_unavailable_watcher_says_why() {
        let text = WATCHER.replace(
            "available=1 active=1 reason=-",
            "available=0 active=0 reason=arch",
        );
        let w = parse(&text).unwrap().watcher.unwrap();
        assert_eq!(
            (w.available, w.active, w.reason.as_deref()),
            (false, false, Some("arch"))
        );
        let text = WATCHER.replace("samples=107 watcher_cpu=0", "samples=0 watcher_cpu=-1");
        assert_eq!(parse(&text).unwrap().ongoing[0].watcher_cpu, None);
    }

    /// Claim: a profile missing a frame or a stack it announced is malformed (truncated
    /// when the file is cut there), and so is a profile that follows no record, a second
    /// profile for one record, or a stray profile_frame.
    #[test]
    fn broken_profiles_are_rejected() {
        // A profile_frame owed.
        let text = WATCHER.replacen("profile_frame handle_softirqs+0xa7/0x3b0\n", "", 1);
        assert!(
            matches!(parse(&text), Err(ParseError::Malformed { .. })),
            "{:?}",
            parse(&text)
        );
        // A profile_stack owed: at the end, or when the file is cut there.
        let text = WATCHER.replace(
            "profile samples=107 weight=172 stacks=3",
            "profile samples=107 weight=172 stacks=4",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        assert_eq!(
            parse(&text.replace("\nend\n", "\n")),
            Err(ParseError::Truncated)
        );
        // A profile that follows no record, or a second one.
        let text = WATCHER.replace(
            "ongoing cpu=1",
            "profile samples=1 weight=1 stacks=0 distinct=0 other=0\nongoing cpu=1",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        let text = WATCHER.replace(
            "\nend\n",
            "\nprofile samples=1 weight=1 stacks=0 distinct=0 other=0\nend\n",
        );
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
        let text = WATCHER.replace("\nend\n", "\nprofile_frame x+0x1/0x2\nend\n");
        assert!(matches!(parse(&text), Err(ParseError::Malformed { .. })));
    }
}
