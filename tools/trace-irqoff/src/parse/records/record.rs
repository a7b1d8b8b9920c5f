// SPDX-License-Identifier: GPL-2.0
//! The lines of a records file that make its records: `record`, then the `frame` and
//! `window_frame` lines it announces, then an optional `profile` with its `profile_stack`
//! and `profile_frame` lines. [`Records`] holds the records read so far and the lines the
//! last one still owes.

use tio_logic::grammar::{self, RecordKeys};

use super::words::{kind, unescape};
use crate::fields::{malformed, Fields, ParseError};
use crate::model::snapshot::{Cause, EndedBy, Overlap, Profile, ProfileStack, Record};

/// The first words of the lines read here.
pub const LINES: [&str; 6] = [
    "record",
    "frame",
    "window_frame",
    "profile",
    "profile_stack",
    "profile_frame",
];

/// A frame line's frame, `[module]` without the build id the kernel may print there (kept
/// in the record's `build_ids`).
fn module_frame(rec: &mut Record, text: &str) -> String {
    let (frame, id) = crate::symbols::split_build_id(text);
    if let Some((module, id)) = id {
        rec.build_ids.insert(module, id);
    }
    frame
}

/// The keys of a `record` line, as the module's table of its fields declares them: the
/// reader names no key of its own.
const K: RecordKeys = grammar::RECORD_KEY;

/// The v2 keys of a `record` line, filled into `r`.
fn record_v2(f: &Fields, r: &mut Record) -> Result<(), ParseError> {
    let n = f.line;
    r.cause = match f.str(K.cause)? {
        grammar::NONE => None,
        c => Some(Cause::from_name(c).ok_or_else(|| malformed(n, format!("unknown cause '{c}'")))?),
    };
    r.runnable_ns = f.num(K.runnable_ns)?;
    // 0: a kernel without cgroups.
    r.cgroup_id = f.opt_num::<u64>(K.cgroup)?.filter(|&id| id != 0);
    // Absent from modules before it: nothing together.
    r.together_ns = f.opt_num::<u64>(K.together_ns)?.unwrap_or(0);
    // Absent from modules before it: not known.
    r.ended_by = match f.opt_str(K.ended_by) {
        None => None,
        Some(e) => Some(
            EndedBy::from_name(e).ok_or_else(|| malformed(n, format!("unknown ended_by '{e}'")))?,
        ),
    };
    r.end_shows_culprit = f.num_or::<u8>(K.end_shows_culprit, 1)? != 0;
    // Absent from modules before it: no function named.
    r.stop_callback = f.num_or::<u8>(K.stop_callback, 0)? != 0;
    r.window_pid = f.num(K.window_pid)?;
    r.window_comm = unescape(f.str(K.window_comm)?);
    let overlap_cpu: i64 = f.num(K.overlap_cpu)?;
    r.overlap = if overlap_cpu < 0 {
        None
    } else {
        let latency_ns: u64 = f.num(K.overlap_latency_ns)?;
        Some(Overlap {
            cpu: u32::try_from(overlap_cpu)
                .map_err(|_| malformed(n, format!("{} {overlap_cpu}", K.overlap_cpu)))?,
            kind: kind(n, f.str(K.overlap_kind)?)?,
            // A kept record is never 0 ns long: 0 means the other record was not found.
            latency_ns: (latency_ns != 0).then_some(latency_ns),
            pid: f.num(K.overlap_pid)?,
            comm: unescape(f.str(K.overlap_comm)?),
        })
    };
    Ok(())
}

/// The records of a file so far, and the lines the last one still owes.
#[derive(Default)]
pub struct Records {
    pub records: Vec<Record>,
    /// `frame` lines, then `window_frame` lines, still owed to the last record.
    frames: usize,
    window: usize,
    /// `profile_stack` lines, and `profile_frame` lines of the current one, still owed.
    stacks: usize,
    profile_frames: usize,
    /// Whether the lines since the last `record` line are all its own (a profile may
    /// follow).
    in_record: bool,
}

impl Records {
    /// Takes note of line `n`, whose first word is `head` (any line of the file): refuses
    /// it where the last record still owes lines of another kind.
    pub fn next_line(&mut self, n: usize, head: &str) -> Result<(), ParseError> {
        if self.frames > 0 && head != "frame" {
            return Err(malformed(
                n,
                format!("expected {} more frame lines", self.frames),
            ));
        }
        if self.frames == 0 && self.window > 0 && head != "window_frame" {
            return Err(malformed(
                n,
                format!("expected {} more window_frame lines", self.window),
            ));
        }
        if self.profile_frames > 0 && head != "profile_frame" {
            return Err(malformed(
                n,
                format!("expected {} more profile_frame lines", self.profile_frames),
            ));
        }
        if self.profile_frames == 0 && self.stacks > 0 && head != "profile_stack" {
            return Err(malformed(
                n,
                format!("expected {} more profile_stack lines", self.stacks),
            ));
        }
        self.in_record = match head {
            "record" => true,
            "frame" | "window_frame" | "profile" | "profile_stack" | "profile_frame" => {
                self.in_record
            }
            _ => false,
        };
        Ok(())
    }

    /// Whether the last record still owes lines (the file was cut there).
    pub fn owed(&self) -> bool {
        self.frames > 0 || self.window > 0 || self.stacks > 0 || self.profile_frames > 0
    }

    /// Reads line `n` of a format `version` 2 or later (`v2`), the whole `line`, whose
    /// first word is `head` (one of [`LINES`]) and whose other words are `words`.
    pub fn line<'a>(
        &mut self,
        n: usize,
        head: &str,
        line: &str,
        words: impl Iterator<Item = &'a str>,
        v2: bool,
    ) -> Result<(), ParseError> {
        match head {
            "record" => self.record(n, words, v2)?,
            "frame" => {
                let rec = self
                    .records
                    .last_mut()
                    .filter(|_| self.frames > 0)
                    .ok_or_else(|| malformed(n, "frame outside a record"))?;
                let frame = module_frame(rec, &line["frame ".len().min(line.len())..]);
                rec.stack.push(frame);
                self.frames -= 1;
            }
            "window_frame" => {
                let rec = self
                    .records
                    .last_mut()
                    .filter(|_| self.window > 0)
                    .ok_or_else(|| malformed(n, "window_frame outside a record"))?;
                let frame = module_frame(rec, &line["window_frame ".len().min(line.len())..]);
                rec.window_stack.push(frame);
                self.window -= 1;
            }
            "profile" => self.profile(n, words)?,
            "profile_stack" => {
                let f = Fields::new(n, words)?;
                let p = self
                    .records
                    .last_mut()
                    .and_then(|r| r.profile.as_mut())
                    .filter(|_| self.stacks > 0)
                    .ok_or_else(|| malformed(n, "profile_stack outside a profile"))?;
                self.profile_frames = f.num("frames")?;
                p.stacks.push(ProfileStack {
                    count: f.num("count")?,
                    frames: Vec::with_capacity(self.profile_frames),
                });
                self.stacks -= 1;
            }
            "profile_frame" => {
                let rec = self
                    .records
                    .last_mut()
                    .filter(|r| r.profile.as_ref().is_some_and(|p| !p.stacks.is_empty()))
                    .filter(|_| self.profile_frames > 0)
                    .ok_or_else(|| malformed(n, "profile_frame outside a profile stack"))?;
                let frame = module_frame(rec, &line["profile_frame ".len().min(line.len())..]);
                if let Some(st) = rec.profile.as_mut().and_then(|p| p.stacks.last_mut()) {
                    st.frames.push(frame);
                }
                self.profile_frames -= 1;
            }
            _ => {}
        }
        Ok(())
    }

    /// A `record` line (line `n`, its `words`, of format v2 or later with `v2`): a record
    /// begins, its stacks' frames to follow.
    fn record<'a>(
        &mut self,
        n: usize,
        words: impl Iterator<Item = &'a str>,
        v2: bool,
    ) -> Result<(), ParseError> {
        let f = Fields::new(n, words)?;
        let mut r = Record {
            lower_bound: f.flag(K.lower_bound)?,
            latency_ns: f.num(K.latency_ns)?,
            timestamp_ns: f.num(K.timestamp_ns)?,
            pid: f.num(K.pid)?,
            comm: unescape(f.str(K.comm)?),
            ..Record::new(f.num(K.cpu)?, kind(n, f.str(K.kind)?)?)
        };
        r.ongoing = r.lower_bound && v2;
        self.frames = f.num(K.frames)?;
        self.window = 0;
        if v2 {
            record_v2(&f, &mut r)?;
            self.window = f.num(K.window_frames)?;
        }
        r.stack.reserve(self.frames);
        r.window_stack.reserve(self.window);
        self.records.push(r);
        Ok(())
    }

    /// A `profile` line (line `n`, its `words`): the profile of the record just read
    /// begins, its stacks to follow.
    fn profile<'a>(
        &mut self,
        n: usize,
        words: impl Iterator<Item = &'a str>,
    ) -> Result<(), ParseError> {
        let f = Fields::new(n, words)?;
        let rec = self
            .records
            .last_mut()
            .filter(|r| self.in_record && r.profile.is_none())
            .ok_or_else(|| malformed(n, "profile outside a record"))?;
        self.stacks = f.num("stacks")?;
        rec.profile = Some(Profile {
            samples: f.num("samples")?,
            weight: f.num("weight")?,
            distinct: f.num_or("distinct", self.stacks as u64)?,
            other: f.num_or("other", 0)?,
            stacks: Vec::with_capacity(self.stacks),
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::snapshot::Kind;
    use crate::parse::records::fixtures::V2;
    use crate::parse::records::{parse, ParseError};

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

    /// `l` with the `overlap_*` fields the module writes for `o`.
    fn with_overlap<'a>(
        l: grammar::RecordLine<'a>,
        o: grammar::LineOverlap<'a>,
    ) -> grammar::RecordLine<'a> {
        let (overlap_cpu, overlap_kind, overlap_latency_ns, overlap_pid, overlap_comm) = o.fields();
        grammar::RecordLine {
            overlap_cpu,
            overlap_kind,
            overlap_latency_ns,
            overlap_pid,
            overlap_comm,
            ..l
        }
    }

    /// Claim: every record line the module's writer prints parses back to the fields it
    /// was given: both kinds, every cause and none, a window still open, an overlap found,
    /// not found and not looked for, task names with spaces, `=`, `\` and tabs, the
    /// culprit's cgroup id (0, a kernel without cgroups: none), and each sampler that ends
    /// a window.
    #[test]
    fn record_lines_round_trip() {
        let lines = round_trip_lines();
        let text = written(&lines.map(|(_, l)| l));
        let s = parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
        assert_eq!(s.version, grammar::RECORDS_VERSION);
        assert_eq!(s.records.len(), lines.len());
        for ((o, l), r) in lines.iter().zip(&s.records) {
            assert_read_as_written(o, l, r);
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

    /// The first line of [`round_trip_lines`], written with the overlap `hog`: a bh-off
    /// window ended by the probe, with every field set.
    fn base_line(hog: grammar::LineOverlap<'static>) -> grammar::RecordLine<'static> {
        with_overlap(
            grammar::RecordLine {
                cpu: 3,
                kind: grammar::KindName::Soft,
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
                overlap_cpu: 0,
                overlap_kind: None,
                overlap_latency_ns: 0,
                overlap_pid: 0,
                overlap_comm: b"",
                frames: 3,
                window_frames: 2,
                window_pid: 43,
                window_comm: b"sh -c",
                cgroup: 5873,
                together_ns: 0,
                ended_by: grammar::EndedBy::Probe,
                stop_callback: false,
                ongoing: false,
            },
            hog,
        )
    }

    /// The lines of [`record_lines_round_trip`], each with the overlap it was written with:
    /// every kind, cause, overlap and path that ends a window, open and closed.
    fn round_trip_lines() -> [(grammar::LineOverlap<'static>, grammar::RecordLine<'static>); 5] {
        let hog = grammar::LineOverlap::Hard {
            cpu: 0,
            latency_ns: 99_000_000,
            pid: 7,
            comm: b"my hog",
        };
        let base = base_line(hog);
        let none = grammar::LineOverlap::None;
        let not_found = grammar::LineOverlap::NotFound { cpu: 1 };
        [
            (hog, base),
            (
                not_found,
                with_overlap(
                    grammar::RecordLine {
                        cause: Some(grammar::Cause::KsoftirqdWait),
                        end_shows_culprit: false,
                        ended_by: grammar::EndedBy::Timer,
                        ..base
                    },
                    not_found,
                ),
            ),
            (
                none,
                with_overlap(
                    grammar::RecordLine {
                        kind: grammar::KindName::Hard,
                        cause: None,
                        window_frames: 0,
                        // A kernel without cgroups.
                        cgroup: 0,
                        // Every CPU late together for 140 ms of it.
                        together_ns: 140_000_000,
                        ended_by: grammar::EndedBy::Hrtimer,
                        ..base
                    },
                    none,
                ),
            ),
            (
                none,
                with_overlap(
                    grammar::RecordLine {
                        kind: grammar::KindName::Hard,
                        lower_bound: true,
                        cause: None,
                        frames: 0,
                        ended_by: grammar::EndedBy::Hrtimer,
                        stop_callback: false,
                        ongoing: true,
                        ..base
                    },
                    none,
                ),
            ),
            (
                hog,
                grammar::RecordLine {
                    lower_bound: true,
                    cause: None,
                    frames: 0,
                    ended_by: grammar::EndedBy::Hrtimer,
                    ..base
                },
            ),
        ]
    }

    /// Asserts that `r` is what the reader made of `l`, written with the overlap `o`.
    fn assert_read_as_written(
        o: &grammar::LineOverlap<'_>,
        l: &grammar::RecordLine<'_>,
        r: &Record,
    ) {
        let str_of = |b: &[u8]| String::from_utf8(b.to_vec()).unwrap_or_default();
        assert_eq!((r.cpu, r.kind), (l.cpu, l.kind), "{l}");
        assert_eq!(r.cause, l.cause, "{l}");
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
        assert_eq!(r.together_ns, l.together_ns, "{l}");
        assert_eq!(r.ended_by, Some(l.ended_by), "{l}");
        assert_eq!(r.stop_callback, l.stop_callback, "{l}");
        assert_eq!(r.cgroup_id, Some(l.cgroup).filter(|&id| id != 0), "{l}");
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
        let want = match *o {
            grammar::LineOverlap::None => None,
            grammar::LineOverlap::NotFound { cpu } => {
                Some((cpu, Kind::Hard, None, 0, String::new()))
            }
            grammar::LineOverlap::Hard {
                cpu,
                latency_ns,
                pid,
                comm,
            } => Some((cpu, Kind::Hard, Some(latency_ns), pid, str_of(comm))),
        };
        assert_eq!(overlap, want, "{l}");
    }

    /// Claim: the reader needs every key the table declares where it reads one, and only
    /// those: a v2 line that lacks any one of the keys the reader takes as required is
    /// refused naming that key, and the keys it may lack (`cgroup`, `together_ns`,
    /// `ended_by`, `stop_callback`, `end_shows_culprit`, and those it does not read) are
    /// each the table's.
    #[test]
    fn reader_keys_are_the_tables() {
        let full = with_overlap(
            grammar::RecordLine {
                cpu: 0,
                kind: grammar::KindName::Soft,
                lower_bound: false,
                latency_ns: 1,
                timestamp_ns: 2,
                pid: 3,
                comm: b"sh",
                cause: Some(grammar::Cause::BhOff),
                runnable_ns: 4,
                samples: 5,
                bh_off_samples: 6,
                idle_samples: 7,
                jiffies: 8,
                end_shows_culprit: true,
                overlap_cpu: 0,
                overlap_kind: None,
                overlap_latency_ns: 0,
                overlap_pid: 0,
                overlap_comm: b"",
                frames: 0,
                window_frames: 0,
                window_pid: 9,
                window_comm: b"sh",
                cgroup: 10,
                together_ns: 11,
                ended_by: grammar::EndedBy::Timer,
                stop_callback: false,
                ongoing: false,
            },
            grammar::LineOverlap::NotFound { cpu: 1 },
        )
        .to_string();
        let header = V2.lines().take(2).collect::<Vec<_>>().join("\n");
        let text = |record: &str| format!("{header}\n{record}\nend\n");
        parse(&text(&full)).unwrap_or_else(|e| panic!("{e}\n{full}"));
        let mut optional = Vec::new();
        for key in grammar::RECORD_KEYS {
            let without: Vec<&str> = full
                .split(' ')
                .filter(|w| !w.starts_with(&format!("{key}=")))
                .collect();
            match parse(&text(&without.join(" "))) {
                Err(ParseError::Malformed { what, .. }) => {
                    assert_eq!(what, format!("missing '{key}'"))
                }
                Err(e) => panic!("{key}: {e}"),
                Ok(_) => optional.push(key),
            }
        }
        let k = grammar::RECORD_KEY;
        assert_eq!(
            optional,
            [
                k.samples,
                k.bh_off_samples,
                k.idle_samples,
                k.jiffies,
                k.end_shows_culprit,
                k.cgroup,
                k.together_ns,
                k.ended_by,
                k.stop_callback
            ]
        );
    }

    /// Claim: `ended_by` is read where a module prints it, each of its names, and a line
    /// without it (a module before it) reads as not known, in the record and in the JSON
    /// (no key there); a name the module does not declare is refused.
    #[test]
    fn ended_by_with_and_without() {
        let v2 = parse(V2).unwrap();
        assert!(v2.records.iter().all(|r| r.ended_by.is_none()));
        let json = serde_json::to_value(crate::enrich::windows(&v2.records)[0].json()).unwrap();
        assert!(json.get("ended_by").is_none(), "{json}");
        let line = V2
            .lines()
            .find(|l| l.starts_with("record "))
            .unwrap_or_default();
        for e in grammar::EndedBy::ALL {
            let text = V2.replacen(line, &format!("{line} ended_by={}", e.name()), 1);
            let s = parse(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
            assert_eq!(s.records[0].ended_by, Some(e));
            assert!(s.records[1..].iter().all(|r| r.ended_by.is_none()));
            let json = serde_json::to_value(crate::enrich::windows(&s.records)[0].json()).unwrap();
            assert_eq!(json["ended_by"], e.name());
        }
        let bad = V2.replacen(line, &format!("{line} ended_by=softirq"), 1);
        assert!(matches!(
            parse(&bad),
            Err(ParseError::Malformed { what, .. }) if what == "unknown ended_by 'softirq'"
        ));
    }

    /// Claim: `stop_callback=1` is read (and in the JSON), `stop_callback=0` and a line
    /// without it (a module before it) read as false, with no JSON key; a value other
    /// than a number is refused.
    #[test]
    fn stop_callback_with_and_without() {
        let v2 = parse(V2).unwrap();
        assert!(v2.records.iter().all(|r| !r.stop_callback));
        let line = V2
            .lines()
            .find(|l| l.starts_with("record "))
            .unwrap_or_default();
        for (v, want) in [("1", true), ("0", false)] {
            let text = V2.replacen(line, &format!("{line} stop_callback={v}"), 1);
            let s = parse(&text).unwrap_or_else(|err| panic!("{err}\n{text}"));
            assert_eq!(s.records[0].stop_callback, want);
            let json = serde_json::to_value(crate::enrich::windows(&s.records)[0].json()).unwrap();
            assert_eq!(json.get("stop_callback").is_some(), want, "{json}");
        }
        let bad = V2.replacen(line, &format!("{line} stop_callback=yes"), 1);
        assert!(parse(&bad).is_err());
    }

    /// Claim: every field of the record line reaches the JSON of `records --json` with
    /// the value the line gave it, under the name listed here (`overlap_*` inside
    /// `overlap`, the frame counts as the lengths of the stacks), or is listed as not
    /// carried: a field added to the table fails here until the reader carries it or
    /// this list says it does not.
    #[test]
    fn record_fields_reach_the_json() {
        let line = with_overlap(
            grammar::RecordLine {
                cpu: 1,
                kind: grammar::KindName::Soft,
                lower_bound: false,
                latency_ns: 2,
                timestamp_ns: 3,
                pid: 4,
                comm: b"a b",
                cause: Some(grammar::Cause::KsoftirqdWait),
                runnable_ns: 5,
                samples: 6,
                bh_off_samples: 7,
                idle_samples: 8,
                jiffies: 9,
                end_shows_culprit: false,
                overlap_cpu: 0,
                overlap_kind: None,
                overlap_latency_ns: 0,
                overlap_pid: 0,
                overlap_comm: b"",
                frames: 2,
                window_frames: 3,
                window_pid: 12,
                window_comm: b"sh",
                cgroup: 13,
                together_ns: 14,
                ended_by: grammar::EndedBy::Probe,
                stop_callback: true,
                ongoing: false,
            },
            grammar::LineOverlap::Hard {
                cpu: 10,
                latency_ns: 11,
                pid: 15,
                comm: b"my hog",
            },
        );
        let s = parse(&written(&[line])).unwrap();
        let windows = crate::enrich::windows(&s.records);
        let json = serde_json::to_value(windows[0].json()).unwrap();
        let k = grammar::RECORD_KEY;
        let overlap = |name: &str| json["overlap"][name].clone();
        let text = line.to_string();
        let mut carried = 0;
        for (key, value) in text.split(' ').skip(1).filter_map(|w| w.split_once('=')) {
            let got = match key {
                _ if [k.samples, k.bh_off_samples, k.idle_samples, k.jiffies].contains(&key) => {
                    continue
                }
                _ if key == k.overlap_cpu => overlap("cpu"),
                _ if key == k.overlap_kind => overlap("kind"),
                _ if key == k.overlap_latency_ns => overlap("latency_ns"),
                _ if key == k.overlap_pid => overlap("pid"),
                _ if key == k.overlap_comm => overlap("comm"),
                _ if key == k.frames => json["stack"].as_array().map(Vec::len).into(),
                _ if key == k.window_frames => json["window_stack"].as_array().map(Vec::len).into(),
                _ if key == k.cgroup => json["cgroup_id"].clone(),
                _ => json[key].clone(),
            };
            let got = match got {
                serde_json::Value::String(s) => s,
                serde_json::Value::Bool(b) => u8::from(b).to_string(),
                v => v.to_string(),
            };
            assert_eq!(got, unescape(value), "{key}");
            carried += 1;
        }
        assert_eq!(carried, grammar::NR_RECORD_FIELDS - 4);
    }

    /// Claim: the reader takes a v2 bh-off record's cause, both stacks and the overlap it
    /// found, and a hardirq-off record's overlap, without a cause or a window stack.
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
    }

    /// Claim: the reader takes a v2 ksoftirqd-wait record's wait, the task that ran instead
    /// (its name unescaped) and an overlap whose record was not found, and a window still
    /// open as a lower bound without an end stack.
    #[test]
    fn v2_records_carry_waits_and_open_windows() {
        let s = parse(V2).unwrap();
        let r = &s.records;
        assert_eq!(r.len(), 5);

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

    /// Claim: an overlapping window's comm with an escaped space (`irq\x20test`) is
    /// unescaped to "irq test".
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

    /// Claim: v2 records are rejected as malformed for a record line without its v2 keys
    /// (at that line), an unknown cause, a missing or stray window_frame, truncated when
    /// window frames are owed at the end, and version 3 is refused with a sentence naming
    /// the versions read (1 to 2).
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
