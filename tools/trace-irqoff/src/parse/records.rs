// SPDX-License-Identifier: GPL-2.0
//! The grammar of the module's `records` (formats v1 and v2) and `counters` files, see
//! Documentation/trace-irqoff.rst: the text read into a [`Snapshot`].

use tio_logic::grammar;

use crate::fields::{counts, malformed, Fields};
use crate::model::snapshot::{
    Cause, Config, Cpu, Kind, Ongoing, Overlap, Profile, ProfileStack, Record, Snapshot, Stalls,
    Sums, Watcher, Worst, NR_BUCKETS,
};
use crate::tagwait::{self, TagWait};

pub use crate::fields::{ParseError, COUNTERS_VERSION, MIN_RECORDS_VERSION, RECORDS_VERSION};

/// The `records` format of the modules that have a `counters` file (its `config`, `cpu`
/// and `hist` lines are those of that format).
const COUNTERS_RECORDS_VERSION: u32 = 2;

/// A frame line's frame, `[module]` without the build id the kernel may print there (kept
/// in the record's `build_ids`).
fn module_frame(rec: &mut Record, text: &str) -> String {
    let (frame, id) = crate::symbols::split_build_id(text);
    if let Some((module, id)) = id {
        rec.build_ids.insert(module, id);
    }
    frame
}

/// Undoes the module's `\xHH` escaping of comm (`tio_logic::escape`, the module's own
/// escaping and its inverse), as text.
pub fn unescape(s: &str) -> String {
    String::from_utf8_lossy(&tio_logic::escape::unescape(s)).into_owned()
}

fn kind(n: usize, s: &str) -> Result<Kind, ParseError> {
    match grammar::Kind::parse(s) {
        Some(grammar::Kind::Hard) => Ok(Kind::Hard),
        Some(grammar::Kind::Soft) => Ok(Kind::Soft),
        None => Err(malformed(n, format!("unknown kind '{s}'"))),
    }
}

/// The v2 keys of a `record` line, filled into `r`.
fn record_v2(f: &Fields, r: &mut Record) -> Result<(), ParseError> {
    let n = f.line;
    r.cause = match f.str("cause")? {
        grammar::NONE => None,
        c => Some(Cause::parse(c).ok_or_else(|| malformed(n, format!("unknown cause '{c}'")))?),
    };
    r.runnable_ns = f.num("runnable_ns")?;
    // 0: a kernel without cgroups.
    r.cgroup_id = f.opt_num::<u64>("cgroup")?.filter(|&id| id != 0);
    r.end_shows_culprit = f.num_or::<u8>("end_shows_culprit", 1)? != 0;
    r.window_pid = f.num("window_pid")?;
    r.window_comm = unescape(f.str("window_comm")?);
    let overlap_cpu: i64 = f.num("overlap_cpu")?;
    r.overlap = if overlap_cpu < 0 {
        None
    } else {
        let latency_ns: u64 = f.num("overlap_latency_ns")?;
        Some(Overlap {
            cpu: u32::try_from(overlap_cpu)
                .map_err(|_| malformed(n, format!("overlap_cpu {overlap_cpu}")))?,
            kind: kind(n, f.str("overlap_kind")?)?,
            // A kept record is never 0 ns long: 0 means the other record was not found.
            latency_ns: (latency_ns != 0).then_some(latency_ns),
            pid: f.num("overlap_pid")?,
            comm: unescape(f.str("overlap_comm")?),
        })
    };
    Ok(())
}

/// Parses the whole records file, or the counters file (the same lines without records,
/// and a `worst` line per CPU).
pub fn parse(text: &str) -> Result<Snapshot, ParseError> {
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let (_, first) = lines.next().ok_or(ParseError::Truncated)?;
    let (version, mut worst) = if let Some(v) = first.strip_prefix("trace_irqoff counters v") {
        match v.parse::<u32>() {
            Ok(COUNTERS_VERSION) => (COUNTERS_RECORDS_VERSION, Some(Vec::new())),
            _ => return Err(ParseError::CountersVersion(v.to_string())),
        }
    } else {
        let version = first
            .strip_prefix("trace_irqoff records v")
            .ok_or_else(|| ParseError::Version(first.to_string()))?;
        match version.parse::<u32>() {
            Ok(v) if (MIN_RECORDS_VERSION..=RECORDS_VERSION).contains(&v) => (v, None),
            _ => return Err(ParseError::Version(version.to_string())),
        }
    };
    let v2 = version >= 2;
    let mut config = None;
    let mut cpus: Vec<Cpu> = Vec::new();
    let mut records: Vec<Record> = Vec::new();
    // `frame` lines, then `window_frame` lines, still owed to the last record.
    let mut pending_frames = 0usize;
    let mut pending_window = 0usize;
    let mut tag_wait: Option<TagWait> = None;
    let mut watcher: Option<Watcher> = None;
    let mut stalls: Option<Stalls> = None;
    let mut ongoing: Vec<Ongoing> = Vec::new();
    // `profile_stack` lines, and `profile_frame` lines of the current one, still owed;
    // whether the lines since the last `record` line are all its own (a profile may follow).
    let mut pending_stacks = 0usize;
    let mut pending_profile_frames = 0usize;
    let mut in_record = false;
    let mut ended = false;
    for (n, line) in lines {
        let mut words = line.split(' ');
        let head = words.next().unwrap_or("");
        if pending_frames > 0 && head != "frame" {
            return Err(malformed(
                n,
                format!("expected {pending_frames} more frame lines"),
            ));
        }
        if pending_frames == 0 && pending_window > 0 && head != "window_frame" {
            return Err(malformed(
                n,
                format!("expected {pending_window} more window_frame lines"),
            ));
        }
        if pending_profile_frames > 0 && head != "profile_frame" {
            return Err(malformed(
                n,
                format!("expected {pending_profile_frames} more profile_frame lines"),
            ));
        }
        if pending_profile_frames == 0 && pending_stacks > 0 && head != "profile_stack" {
            return Err(malformed(
                n,
                format!("expected {pending_stacks} more profile_stack lines"),
            ));
        }
        in_record = match head {
            "record" => true,
            "frame" | "window_frame" | "profile" | "profile_stack" | "profile_frame" => in_record,
            _ => false,
        };
        match head {
            "config" => {
                let f = Fields::new(n, words)?;
                config = Some(Config {
                    enabled: f.flag("enabled")?,
                    cpus: f.str("cpus").ok().map(str::to_string),
                    nohz_full: f.str("nohz_full").ok().map(str::to_string),
                    period_ns: f.num("period_ns")?,
                    threshold_ns: f.num("threshold_ns")?,
                    hz: f.num("hz")?,
                    records_per_cpu: f.num("records_per_cpu")?,
                    soft_period_ns: f.num("soft_period_ns")?,
                    soft_event_ns: f.num("soft_event_ns")?,
                    counts_since_ns: f.num("counts_since_ns").ok(),
                    enabled_since_ns: f.num("enabled_since_ns").ok(),
                    realtime_offset_ns: f.num("realtime_offset_ns").ok(),
                    counts_since: None,
                    enabled_since: None,
                });
            }
            "cpu" => {
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "cpu number"))?;
                let f = Fields::new(n, words)?;
                let (bh_off, ksoftirqd_wait) = if v2 {
                    (
                        f.num("soft_bh_off_events")?,
                        f.num("soft_ksoftirqd_wait_events")?,
                    )
                } else {
                    (0, 0)
                };
                cpus.push(Cpu {
                    cpu,
                    online: f.flag("online")?,
                    hard_events: f.num("hard_events")?,
                    soft_events: f.num("soft_events")?,
                    dropped: f.num::<u64>("hard_dropped")? + f.num::<u64>("soft_dropped")?,
                    replaced: f.num::<u64>("hard_replaced")? + f.num::<u64>("soft_replaced")?,
                    idle_gaps: f.num_or("idle_gaps", 0)?,
                    late_timer_gaps: f.num_or("late_timer_gaps", 0)?,
                    steal_gaps: f.num_or("steal_gaps", 0)?,
                    stall_gaps: f.num_or("stall_gaps", 0)?,
                    soft_bh_off_events: bh_off,
                    soft_ksoftirqd_wait_events: ksoftirqd_wait,
                    hard_hist: vec![0; NR_BUCKETS],
                    soft_hist: vec![0; NR_BUCKETS],
                    // Before v2 the split is unknown, and an empty histogram says so.
                    soft_bh_off_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
                    soft_ksoftirqd_wait_hist: if v2 { vec![0; NR_BUCKETS] } else { Vec::new() },
                    sums_ns: Sums {
                        hard: f.opt_num("hard_sum_ns")?,
                        soft: f.opt_num("soft_sum_ns")?,
                        soft_bh_off: f.opt_num("soft_bh_off_sum_ns")?,
                        soft_ksoftirqd_wait: f.opt_num("soft_ksoftirqd_wait_sum_ns")?,
                    },
                    counters: tio_logic::grammar::cpu_counters()
                        .filter_map(|c| match f.opt_num::<u64>(c.key) {
                            Ok(Some(v)) => Some(Ok((c.key.to_string(), v))),
                            Ok(None) => None,
                            Err(e) => Some(Err(e)),
                        })
                        .collect::<Result<_, _>>()?,
                });
            }
            "hist" => {
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "hist cpu"))?;
                let which = words.next().ok_or_else(|| malformed(n, "hist kind"))?;
                let c = cpus
                    .iter_mut()
                    .find(|c| c.cpu == cpu)
                    .ok_or_else(|| malformed(n, "hist of an unknown cpu"))?;
                let slot = match which {
                    "hard" => &mut c.hard_hist,
                    "soft" => &mut c.soft_hist,
                    "soft-bh-off" => &mut c.soft_bh_off_hist,
                    "soft-ksoftirqd-wait" => &mut c.soft_ksoftirqd_wait_hist,
                    // Histograms of a newer module, not known here.
                    _ => continue,
                };
                *slot = counts(n, words)?;
            }
            "record" => {
                let f = Fields::new(n, words)?;
                let mut r = Record {
                    lower_bound: f.flag("lower_bound")?,
                    latency_ns: f.num("latency_ns")?,
                    timestamp_ns: f.num("timestamp_ns")?,
                    pid: f.num("pid")?,
                    comm: unescape(f.str("comm")?),
                    ..Record::new(f.num("cpu")?, kind(n, f.str("kind")?)?)
                };
                r.ongoing = r.lower_bound && v2;
                pending_frames = f.num("frames")?;
                pending_window = 0;
                if v2 {
                    record_v2(&f, &mut r)?;
                    pending_window = f.num("window_frames")?;
                }
                r.stack.reserve(pending_frames);
                r.window_stack.reserve(pending_window);
                records.push(r);
            }
            "frame" => {
                let rec = records
                    .last_mut()
                    .filter(|_| pending_frames > 0)
                    .ok_or_else(|| malformed(n, "frame outside a record"))?;
                let frame = module_frame(rec, &line["frame ".len().min(line.len())..]);
                rec.stack.push(frame);
                pending_frames -= 1;
            }
            "window_frame" => {
                let rec = records
                    .last_mut()
                    .filter(|_| pending_window > 0)
                    .ok_or_else(|| malformed(n, "window_frame outside a record"))?;
                let frame = module_frame(rec, &line["window_frame ".len().min(line.len())..]);
                rec.window_stack.push(frame);
                pending_window -= 1;
            }
            "profile" => {
                let f = Fields::new(n, words)?;
                let rec = records
                    .last_mut()
                    .filter(|r| in_record && r.profile.is_none())
                    .ok_or_else(|| malformed(n, "profile outside a record"))?;
                pending_stacks = f.num("stacks")?;
                rec.profile = Some(Profile {
                    samples: f.num("samples")?,
                    weight: f.num("weight")?,
                    distinct: f.num_or("distinct", pending_stacks as u64)?,
                    other: f.num_or("other", 0)?,
                    stacks: Vec::with_capacity(pending_stacks),
                });
            }
            "profile_stack" => {
                let f = Fields::new(n, words)?;
                let p = records
                    .last_mut()
                    .and_then(|r| r.profile.as_mut())
                    .filter(|_| pending_stacks > 0)
                    .ok_or_else(|| malformed(n, "profile_stack outside a profile"))?;
                pending_profile_frames = f.num("frames")?;
                p.stacks.push(ProfileStack {
                    count: f.num("count")?,
                    frames: Vec::with_capacity(pending_profile_frames),
                });
                pending_stacks -= 1;
            }
            "profile_frame" => {
                let rec = records
                    .last_mut()
                    .filter(|r| r.profile.as_ref().is_some_and(|p| !p.stacks.is_empty()))
                    .filter(|_| pending_profile_frames > 0)
                    .ok_or_else(|| malformed(n, "profile_frame outside a profile stack"))?;
                let frame = module_frame(rec, &line["profile_frame ".len().min(line.len())..]);
                if let Some(st) = rec.profile.as_mut().and_then(|p| p.stacks.last_mut()) {
                    st.frames.push(frame);
                }
                pending_profile_frames -= 1;
            }
            "watcher" => {
                let f = Fields::new(n, words)?;
                watcher = Some(Watcher {
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
                });
            }
            "stall" => {
                let f = Fields::new(n, words)?;
                stalls = Some(Stalls {
                    count: f.num("count")?,
                    over_threshold: f.num_or("over_threshold", 0)?,
                    sum_ns: f.num("sum_ns")?,
                    longest_ns: f.num("longest_ns")?,
                    latest_start_ns: f.num_or("latest_start_ns", 0)?,
                    latest_end_ns: f.num_or("latest_end_ns", 0)?,
                    latest_end_time: None,
                });
            }
            "ongoing" => {
                let f = Fields::new(n, words)?;
                let watcher_cpu: i64 = f.num_or("watcher_cpu", -1)?;
                ongoing.push(Ongoing {
                    cpu: f.num("cpu")?,
                    kind: kind(n, f.str("kind")?)?,
                    latency_ns: f.num("latency_ns")?,
                    start_ns: f.num_or("start_ns", 0)?,
                    pid: f.num_or("pid", 0)?,
                    comm: unescape(f.str("comm").unwrap_or("")),
                    samples: f.num_or("samples", 0)?,
                    watcher_cpu: u32::try_from(watcher_cpu).ok(),
                    cgroup_id: f.opt_num::<u64>("cgroup")?.filter(|&id| id != 0),
                });
            }
            w if tagwait::parse::LINES.contains(&w) => {
                tagwait::parse::line(&mut tag_wait, w, n, words)?;
            }
            "worst" => {
                let Some(worst) = worst.as_mut() else {
                    continue;
                };
                let cpu: u32 = words
                    .next()
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| malformed(n, "worst cpu"))?;
                let f = Fields::new(n, words)?;
                worst.push(Worst {
                    cpu,
                    hard_ns: f.num("hard_ns")?,
                    soft_ns: f.num("soft_ns")?,
                    soft_bh_off_ns: f.num("soft_bh_off_ns")?,
                    soft_ksoftirqd_wait_ns: f.num("soft_ksoftirqd_wait_ns")?,
                });
            }
            "end" => {
                ended = true;
                break;
            }
            "" => {}
            // Unknown line types (memory, cost, ...) are for other readers.
            _ => {}
        }
    }
    if !ended
        || pending_frames > 0
        || pending_window > 0
        || pending_stacks > 0
        || pending_profile_frames > 0
    {
        return Err(ParseError::Truncated);
    }
    let config = config.ok_or_else(|| malformed(1, "no config line"))?;
    Ok(Snapshot {
        version,
        config,
        cpus,
        records,
        watcher,
        ongoing,
        tag_wait,
        stalls,
        original_hist: None,
        worst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::*;

    /// Claim: the difference of two snapshots counts only what came between them: events,
    /// histogram counts, stall gaps and records.
    #[test]
    fn delta_counts_only_new_events() {
        let before = parse(V1).unwrap();
        let mut after = before.clone();
        after.cpus[1].hard_events += 2;
        after.cpus[1].hard_hist[6] += 2;
        let mut r = after.records[0].clone();
        r.timestamp_ns += 1;
        after.records.push(r);
        after.cpus[1].stall_gaps += 3;
        let (cpus, recs) = delta(&before, &after);
        assert_eq!(cpus[1].hard_events, 2);
        // Stall gaps are counted apart from the events, and in the difference too.
        assert_eq!((cpus[1].stall_gaps, cpus[0].stall_gaps), (3, 0));
        assert_eq!(cpus[1].hard_hist[6], 2);
        assert_eq!(cpus[0].hard_events, 0);
        assert_eq!(recs.len(), 1);
    }

    #[test]
    fn unescape_round_trips_module_escapes() {
        assert_eq!(unescape("kworker/1:1\\x20x"), "kworker/1:1 x");
        assert_eq!(unescape("a\\x3db\\x5cc"), "a=b\\c");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("bad\\xZZ"), "bad\\xZZ");
    }

    /// Records written by the module's own record writer (`tio_logic::grammar`, the code
    /// the module runs), with their frame lines.
    fn written(lines: &[grammar::RecordLine]) -> String {
        let mut text = format!("{}\n", grammar::header("records", grammar::RECORDS_VERSION));
        text += V2.lines().nth(1).unwrap_or_default();
        text += "\n";
        for l in lines {
            text += &format!("{l}\n");
            for i in 0..l.frames {
                text += &format!("frame end_{i}+0x1/0x10 [m]\n");
            }
            for i in 0..l.window_frames {
                text += &format!("window_frame in_{i}+0x2/0x20\n");
            }
        }
        text + "end\n"
    }

    /// Claim: every record line the module's writer prints parses back to the fields it
    /// was given: both kinds, every cause and none, a window still open, an overlap found,
    /// not found and not looked for, task names with spaces, `=`, `\` and tabs, and the
    /// culprit's cgroup id (0, a kernel without cgroups: none).
    #[test]
    fn record_lines_round_trip() {
        let base = grammar::RecordLine {
            cpu: 3,
            kind: grammar::Kind::Soft,
            lower_bound: false,
            latency_ns: 101_234_567,
            timestamp_ns: 9_876_543_210,
            pid: 42,
            comm: b"kworker/3:1 a=b\\c\t",
            cause: Some(grammar::Cause::BhOff),
            runnable_ns: 7,
            samples: 10,
            bh_off_samples: 9,
            idle_samples: 1,
            jiffies: 4_294_967_296,
            end_shows_culprit: true,
            overlap: grammar::Overlap::Hard {
                cpu: 0,
                latency_ns: 99_000_000,
                pid: 7,
                comm: b"my hog",
            },
            frames: 3,
            window_frames: 2,
            window_pid: 43,
            window_comm: b"sh -c",
            cgroup_id: 5873,
            ongoing: false,
        };
        let lines = [
            base,
            grammar::RecordLine {
                cause: Some(grammar::Cause::KsoftirqdWait),
                overlap: grammar::Overlap::NotFound { cpu: 1 },
                end_shows_culprit: false,
                ..base
            },
            grammar::RecordLine {
                kind: grammar::Kind::Hard,
                cause: None,
                overlap: grammar::Overlap::None,
                window_frames: 0,
                // A kernel without cgroups.
                cgroup_id: 0,
                ..base
            },
            grammar::RecordLine {
                kind: grammar::Kind::Hard,
                lower_bound: true,
                cause: None,
                overlap: grammar::Overlap::None,
                frames: 0,
                ongoing: true,
                ..base
            },
            grammar::RecordLine {
                lower_bound: true,
                cause: None,
                frames: 0,
                ..base
            },
        ];
        let text = written(&lines);
        let s = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(s.version, grammar::RECORDS_VERSION);
        assert_eq!(s.records.len(), lines.len());
        let str_of = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap_or_default();
        for (l, r) in lines.iter().zip(&s.records) {
            let kind = match l.kind {
                grammar::Kind::Hard => Kind::Hard,
                grammar::Kind::Soft => Kind::Soft,
            };
            assert_eq!((r.cpu, r.kind), (l.cpu, kind), "{l}");
            assert_eq!(r.cause.map(Cause::grammar), l.cause, "{l}");
            assert_eq!(
                (r.lower_bound, r.ongoing),
                (l.lower_bound, l.lower_bound),
                "{l}"
            );
            assert_eq!(
                (r.latency_ns, r.timestamp_ns),
                (l.latency_ns, l.timestamp_ns)
            );
            assert_eq!((r.pid, r.comm.as_str()), (l.pid, str_of(l.comm).as_str()));
            assert_eq!(r.runnable_ns, l.runnable_ns);
            assert_eq!(r.cgroup_id, Some(l.cgroup_id).filter(|&id| id != 0), "{l}");
            assert_eq!(r.end_shows_culprit, l.end_shows_culprit, "{l}");
            assert_eq!(
                (r.window_pid, r.window_comm.as_str()),
                (l.window_pid, str_of(l.window_comm).as_str())
            );
            assert_eq!(
                (r.stack.len(), r.window_stack.len()),
                (l.frames, l.window_frames)
            );
            let overlap = r
                .overlap
                .as_ref()
                .map(|o| (o.cpu, o.kind, o.latency_ns, o.pid, o.comm.clone()));
            let want = match l.overlap {
                grammar::Overlap::None => None,
                grammar::Overlap::NotFound { cpu } => {
                    Some((cpu, Kind::Hard, None, 0, String::new()))
                }
                grammar::Overlap::Hard {
                    cpu,
                    latency_ns,
                    pid,
                    comm,
                } => Some((cpu, Kind::Hard, Some(latency_ns), pid, str_of(comm))),
            };
            assert_eq!(overlap, want, "{l}");
        }
        // Every key the writer prints is one the grammar lists, in its order.
        let keys: Vec<&str> = text
            .lines()
            .find(|l| l.starts_with("record "))
            .unwrap_or_default()
            .split(' ')
            .skip(1)
            .map(|w| w.split_once('=').map_or(w, |(k, _)| k))
            .collect();
        assert_eq!(keys, grammar::RECORD_KEYS);
    }

    const V1: &str = include_str!("../../tests/fixtures/records-v1.txt");
    const V2: &str = include_str!("../../tests/fixtures/records-v2.txt");

    #[test]
    fn v1_records_have_no_v2_facts() {
        let s = parse(V1).unwrap();
        assert_eq!(s.version, 1);
        assert_eq!(s.records.len(), 5);
        for r in &s.records {
            assert_eq!(
                (
                    r.cause,
                    r.runnable_ns,
                    r.window_pid,
                    r.window_comm.as_str(),
                    r.overlap.as_ref()
                ),
                (None, 0, 0, "", None)
            );
            assert!(r.window_stack.is_empty());
        }
        let c = &s.cpus[1];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events
            ),
            (1, 0, 0)
        );
        // The split is unknown, not zero.
        assert!(c.soft_bh_off_hist.is_empty() && c.soft_ksoftirqd_wait_hist.is_empty());
    }

    #[test]
    fn cause_names_match_the_json() {
        for c in [Cause::BhOff, Cause::KsoftirqdWait] {
            assert_eq!(
                serde_json::to_string(&c).unwrap(),
                format!("\"{}\"", c.name())
            );
            assert_eq!(Cause::parse(c.name()), Some(c));
        }
    }

    #[test]
    fn v2_counts_split_by_cause() {
        let s = parse(V2).unwrap();
        assert_eq!(s.version, 2);
        assert_eq!(s.cpus.len(), 4);
        let c = &s.cpus[2];
        assert_eq!(
            (
                c.soft_events,
                c.soft_bh_off_events,
                c.soft_ksoftirqd_wait_events,
                c.idle_gaps
            ),
            (4, 2, 2, 0)
        );
        assert_eq!((c.soft_hist[4], c.soft_hist[5], c.soft_hist[6]), (2, 1, 1));
        assert_eq!(c.soft_bh_off_hist[4], 2);
        assert_eq!(
            (c.soft_ksoftirqd_wait_hist[5], c.soft_ksoftirqd_wait_hist[6]),
            (1, 1)
        );
        assert_eq!(
            c.hist(Kind::Soft, Some(Cause::KsoftirqdWait)),
            c.soft_ksoftirqd_wait_hist.as_slice()
        );
        assert_eq!(s.cpus[1].hard_hist[6], 1);
    }

    #[test]
    fn v2_records_carry_cause_window_and_overlap() {
        let s = parse(V2).unwrap();
        let r = &s.records;
        assert_eq!(r.len(), 5);

        // bh-off, with the stack sampled in the window and a found overlap.
        assert_eq!(
            (r[0].kind, r[0].cause, r[0].lower_bound, r[0].latency_ns),
            (Kind::Soft, Some(Cause::BhOff), false, 100_111_000)
        );
        assert_eq!(r[0].stack.len(), 5);
        assert_eq!(r[0].stack[0], "__local_bh_enable_ip+0x5e/0x80");
        assert_eq!(r[0].window_stack.len(), 6);
        assert_eq!(
            r[0].window_stack[2],
            "irqoff_sample_softirq_window+0x20/0x53 [irqoff_sample]"
        );
        assert_eq!((r[0].window_pid, r[0].window_comm.as_str()), (79, "sh"));
        assert_eq!(
            r[0].overlap,
            Some(Overlap {
                cpu: 1,
                kind: Kind::Hard,
                latency_ns: Some(99_800_123),
                pid: 90,
                comm: "irq_test".into()
            })
        );

        // hard: no cause, no window stack.
        assert_eq!(
            (
                r[1].kind,
                r[1].cause,
                r[1].stack.len(),
                r[1].window_stack.len(),
                r[1].window_pid
            ),
            (Kind::Hard, None, 7, 0, 0)
        );
        assert_eq!(
            r[1].overlap.as_ref().map(|o| (o.cpu, o.kind, o.latency_ns)),
            Some((0, Kind::Soft, Some(100_111_000)))
        );

        // ksoftirqd-wait: how long the thread waited, what ran instead (escaped comm), and an
        // overlap whose record was not found.
        assert_eq!(
            (r[2].cause, r[2].runnable_ns, r[2].comm.as_str()),
            (Some(Cause::KsoftirqdWait), 48_000_000, "ksoftirqd/2")
        );
        assert_eq!(
            (
                r[2].window_pid,
                r[2].window_comm.as_str(),
                r[2].window_stack.len()
            ),
            (131, "my hog", 5)
        );
        assert_eq!(
            r[2].overlap,
            Some(Overlap {
                cpu: 3,
                kind: Kind::Soft,
                latency_ns: None,
                pid: 0,
                comm: String::new()
            })
        );
        assert_eq!(
            (
                r[3].runnable_ns,
                r[3].window_stack.len(),
                r[3].overlap.as_ref()
            ),
            (0, 0, None)
        );

        // A window still open: latency so far, no end stack yet.
        assert!(r[4].lower_bound);
        assert_eq!(
            (r[4].stack.len(), r[4].window_stack.len(), r[4].cause),
            (0, 4, Some(Cause::BhOff))
        );
    }

    const WATCHER: &str = include_str!("../../tests/fixtures/records-watcher.txt");

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

    const STALL: &str = include_str!("../../tests/fixtures/records-stall.txt");

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

    /// Claim: files of modules before stalls (records v1, v2, with the watcher; counters)
    /// parse, with no stalls (unknown, not zero) and `stall_gaps` 0; the counters
    /// file's `stall` line (the same header) parses too.
    #[test]
    fn files_before_stalls_parse_unchanged() {
        for text in [V1, V2, WATCHER] {
            let s = parse(text).unwrap();
            assert_eq!(s.stalls, None);
            assert!(s.cpus.iter().all(|c| c.stall_gaps == 0));
        }
        let counters = include_str!("../../tests/fixtures/counters-v1.txt");
        assert_eq!(parse(counters).unwrap().stalls, None);
        let with = counters.replacen(
            "\ncpu 0 ",
            "\nstall count=2 over_threshold=1 sum_ns=70000000 longest_ns=50000000 latest_start_ns=1000 latest_end_ns=50001000\ncpu 0 ",
            1,
        );
        let c = parse(&with).unwrap();
        assert_eq!(
            c.stalls
                .map(|st| (st.count, st.over_threshold, st.longest_ns)),
            Some((2, 1, 50_000_000))
        );
        assert_eq!(c.worst, parse(counters).unwrap().worst);
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

    #[test]
    fn v2_unknown_keys_and_lines_are_ignored() {
        let text = V2
            .replace(
                " window_frames=0 window_pid=0",
                " window_frames=0 future=7 window_pid=0",
            )
            .replace(
                "\nend\n",
                "\nfuture_line a=b\nhist 0 soft-future 1 2 3\nend\n",
            );
        assert_eq!(parse(&text).unwrap(), parse(V2).unwrap());
    }

    #[test]
    fn v2_overlap_comm_is_unescaped() {
        let text = V2.replace("overlap_comm=irq_test", "overlap_comm=irq\\x20test");
        assert_eq!(
            parse(&text).unwrap().records[0]
                .overlap
                .as_ref()
                .unwrap()
                .comm,
            "irq test"
        );
    }

    #[test]
    fn v2_rejects_what_it_cannot_read() {
        // A v2 record line without its v2 keys.
        let text = "trace_irqoff records v2\nconfig enabled=1 period_ns=1 threshold_ns=1 hz=1 records_per_cpu=1 soft_period_ns=1 soft_event_ns=1\nrecord cpu=0 kind=hard lower_bound=0 latency_ns=1 timestamp_ns=1 pid=1 comm=x frames=0\nend\n";
        assert!(matches!(
            parse(text),
            Err(ParseError::Malformed { line: 3, .. })
        ));
        assert!(matches!(
            parse(&V2.replace("cause=bh-off", "cause=nmi")),
            Err(ParseError::Malformed { .. })
        ));
        // Window frames owed, or out of place.
        assert_eq!(
            parse(&V2.replace("window_frame worker_thread+0x256/0x3b0\nend\n", "")),
            Err(ParseError::Truncated)
        );
        let missing_window_frame = V2.replacen("window_frame ksys_write+0x75/0xc0\n", "", 1);
        assert!(matches!(
            parse(&missing_window_frame),
            Err(ParseError::Malformed { .. })
        ));
        let stray = V2.replace("\nend\n", "\nwindow_frame x+0x1/0x2\nend\n");
        assert!(matches!(parse(&stray), Err(ParseError::Malformed { .. })));
        assert_eq!(
            parse("trace_irqoff records v3\nend\n"),
            Err(ParseError::Version("3".into()))
        );
        assert_eq!(
            ParseError::Version("3".into()).to_string(),
            "unsupported records format version 3 (this trace-irqoff reads versions 1 to 2)"
        );
    }
}
