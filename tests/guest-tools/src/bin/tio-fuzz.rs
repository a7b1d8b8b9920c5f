// SPDX-License-Identifier: GPL-2.0
//! `tio-fuzz [--seed S] [--count N] [--workers W] [--dir DIR]`: fuzzes the writable files
//! under /proc/trace_irqoff (found by their mode bits) with N writes each, checked against
//! the rules of Documentation/trace-irqoff.rst:
//!
//! - a write is accepted (returns its length) or fails with an errno documented for that
//!   file (EINVAL always; EBUSY for `sampling_period`; EOPNOTSUPP for `tag_wait`; EPERM
//!   for the read-only ones); a pwrite(2) gets ESPIPE (seq_files take no positioned
//!   writes), a write(2) after lseek to an odd position is judged like any write;
//! - where the outcome follows from the input and the state (bad syntax, out of range), it
//!   is exactly that outcome;
//! - after an accepted write the file reads back what was written (serial phase: exactly;
//!   concurrent phase: a well-formed value, since other writers race).
//!
//! Half of the writes run in one process with an exact model of the settings; the other
//! half in W processes at once (this binary re-run with `--worker K`, seed derived from S),
//! interleaved with reads of every file and enable/disable. Read-only files get N/10 writes
//! (EPERM). Prints the seed and per-file counts (writes, accepted, each errno); the serial
//! phase replays exactly with the same `--seed S --count N` from the same settings (those
//! after load), the concurrent phase up to the interleaving. Exits 1 on any violation.

use std::collections::BTreeMap;
use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{FileExt, PermissionsExt};
use std::process::{Command, ExitCode, Stdio};

/// xorshift64*: small, seedable, the same sequence on every build.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        // splitmix64 of the seed, so that seeds 0, 1, 2... give unrelated streams.
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Rng((z ^ (z >> 31)) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len() as u64) as usize]
    }
}

/// Largest write the module takes (TIO_WRITE_MAX in the shim); longer ones are EINVAL.
const WRITE_MAX: usize = 64;
const PERIOD_MAX: u64 = 1000;
const THRESHOLD_MAX: u64 = 10_000;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Which {
    Enable,
    Period,
    Latency,
    TagWait,
    Cpus,
    ReadOnly,
}

fn which(name: &str) -> Which {
    match name {
        "enable" => Which::Enable,
        "sampling_period" => Which::Period,
        "trace_latency" => Which::Latency,
        "tag_wait" => Which::TagWait,
        "cpus" => Which::Cpus,
        _ => Which::ReadOnly,
    }
}

/// The documented syntax: decimal digits, at most one trailing newline, at most 64 bytes,
/// fitting u64. `None`: EINVAL whatever the file.
fn parse(buf: &[u8]) -> Option<u64> {
    if buf.len() > WRITE_MAX {
        return None;
    }
    let d = buf.strip_suffix(b"\n").unwrap_or(buf);
    if d.is_empty() || !d.iter().all(u8::is_ascii_digit) {
        return None;
    }
    d.iter().try_fold(0u64, |v, &b| {
        v.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })
}

/// What the module's settings are (serial phase) or may be (concurrent phase: `None`).
#[derive(Clone, Copy, Debug)]
struct Model {
    enabled: bool,
    period: u64,
    threshold: u64,
    tag_wait: bool,
    /// The CPUs chosen in `cpus`, one bit each.
    cpus: u128,
}

/// Possible CPUs of this machine (`/sys/devices/system/cpu/possible`), at most 128 here.
fn nr_cpus() -> u32 {
    static NR: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *NR.get_or_init(|| {
        let t = read("/sys/devices/system/cpu/possible").unwrap_or_default();
        let last = t
            .trim()
            .rsplit(['-', ','])
            .next()
            .and_then(|l| l.parse::<u32>().ok())
            .unwrap_or(0);
        (last + 1).min(128)
    })
}

/// `cpus`, as documented: numbers and A-B ranges, comma separated, one optional trailing
/// newline, at most 64 bytes, every CPU possible: the set chosen, or `None` (EINVAL).
fn cpulist(buf: &[u8]) -> Option<u128> {
    if buf.len() > WRITE_MAX {
        return None;
    }
    let text = std::str::from_utf8(buf.strip_suffix(b"\n").unwrap_or(buf)).ok()?;
    if text.is_empty() {
        return None;
    }
    let num = |s: &str| {
        if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
            s.parse::<u32>().ok()
        } else {
            None
        }
    };
    let mut set = 0u128;
    for item in text.split(',') {
        let (a, b) = match item.split_once('-') {
            Some((a, b)) => (num(a)?, num(b)?),
            None => (num(item)?, num(item)?),
        };
        if a > b || b >= nr_cpus() {
            return None;
        }
        for c in a..=b {
            set |= 1 << c;
        }
    }
    Some(set)
}

/// The outcomes allowed for a write: `Ok` and/or errnos.
#[derive(Default, Debug)]
struct Allowed {
    ok: bool,
    errnos: Vec<i32>,
}

impl Allowed {
    fn ok() -> Self {
        Allowed {
            ok: true,
            errnos: vec![],
        }
    }
    fn err(e: i32) -> Self {
        Allowed {
            ok: false,
            errnos: vec![e],
        }
    }
    fn either(e: i32) -> Self {
        Allowed {
            ok: true,
            errnos: vec![e],
        }
    }
    fn admits(&self, r: Result<(), i32>) -> bool {
        match r {
            Ok(()) => self.ok,
            Err(e) => self.errnos.contains(&e),
        }
    }
}

/// The documented outcome of writing `buf` to `w`, given the state (exact) or not.
fn allowed(w: Which, buf: &[u8], m: Option<&Model>, tag_source: bool) -> Allowed {
    if w == Which::ReadOnly {
        // Both are documented: over-long writes are EINVAL, writes to read-only files EPERM.
        return if buf.len() > WRITE_MAX {
            Allowed {
                ok: false,
                errnos: vec![libc::EINVAL, libc::EPERM],
            }
        } else {
            Allowed::err(libc::EPERM)
        };
    }
    if w == Which::Cpus {
        return match (cpulist(buf), m) {
            (None, _) => Allowed::err(libc::EINVAL),
            (Some(_), Some(m)) if m.enabled => Allowed::err(libc::EBUSY),
            (Some(_), Some(_)) => Allowed::ok(),
            (Some(_), None) => Allowed::either(libc::EBUSY),
        };
    }
    let Some(v) = parse(buf) else {
        return Allowed::err(libc::EINVAL);
    };
    match w {
        Which::Enable => {
            if v <= 1 {
                Allowed::ok()
            } else {
                Allowed::err(libc::EINVAL)
            }
        }
        Which::Period => {
            if !(1..=PERIOD_MAX).contains(&v) {
                Allowed::err(libc::EINVAL)
            } else {
                match m {
                    Some(m) if m.enabled => Allowed::err(libc::EBUSY),
                    Some(_) => Allowed::ok(),
                    None => Allowed::either(libc::EBUSY),
                }
            }
        }
        Which::Latency => {
            if v == 0 {
                return Allowed::ok();
            }
            if v > THRESHOLD_MAX {
                return Allowed::err(libc::EINVAL);
            }
            match m {
                Some(m) => {
                    if v >= 2 * m.period {
                        Allowed::ok()
                    } else {
                        Allowed::err(libc::EINVAL)
                    }
                }
                // Unknown period: 1..1000 ms, so 2P is 2..2000.
                None if v < 2 => Allowed::err(libc::EINVAL),
                None if v >= 2 * PERIOD_MAX => Allowed::ok(),
                None => Allowed::either(libc::EINVAL),
            }
        }
        Which::TagWait => match v {
            0 => Allowed::ok(),
            1 if tag_source => Allowed::ok(),
            1 => Allowed::err(libc::EOPNOTSUPP),
            _ => Allowed::err(libc::EINVAL),
        },
        Which::Cpus | Which::ReadOnly => unreachable!(),
    }
}

fn errno_name(e: i32) -> String {
    match e {
        libc::EPERM => "EPERM".into(),
        libc::ENOENT => "ENOENT".into(),
        libc::EFAULT => "EFAULT".into(),
        libc::EBUSY => "EBUSY".into(),
        libc::ENODEV => "ENODEV".into(),
        libc::EINVAL => "EINVAL".into(),
        libc::ENOMEM => "ENOMEM".into(),
        libc::EACCES => "EACCES".into(),
        libc::EOPNOTSUPP => "EOPNOTSUPP".into(),
        libc::ESPIPE => "ESPIPE".into(),
        e => format!("E{e}"),
    }
}

fn show(buf: &[u8]) -> String {
    let mut s = String::new();
    for &b in buf.iter().take(80) {
        match b {
            b'\n' => s.push_str("\\n"),
            b'\\' => s.push_str("\\\\"),
            0x21..=0x7e => s.push(b as char),
            _ => s.push_str(&format!("\\x{b:02x}")),
        }
    }
    if buf.len() > 80 {
        s.push_str(&format!("...({} bytes)", buf.len()));
    }
    s
}

/// Numbers worth trying for file `w`: every bound and its neighbours, and the integer limits.
fn numbers(w: Which, period: u64) -> Vec<String> {
    let mut v: Vec<u128> = vec![0, 1, 2, 3, 9, 10, 11, 99, 100];
    let bounds: &[u128] = match w {
        Which::Enable | Which::TagWait => &[1],
        Which::Cpus => &[nr_cpus() as u128],
        Which::Period => &[1, PERIOD_MAX as u128],
        Which::Latency => &[
            2 * period as u128,
            2,
            2 * PERIOD_MAX as u128,
            THRESHOLD_MAX as u128,
        ],
        Which::ReadOnly => &[1],
    };
    for &b in bounds {
        v.extend([b.saturating_sub(1), b, b + 1]);
    }
    for lim in [
        u32::MAX as u128,
        i32::MAX as u128,
        i64::MAX as u128,
        u64::MAX as u128,
    ] {
        v.extend([lim - 1, lim, lim + 1]);
    }
    let mut s: Vec<String> = v.iter().map(|n| n.to_string()).collect();
    // Overflow by one digit, and the ns value of a period that would overflow.
    s.push(format!("{}0", u64::MAX));
    s.push("18446744073709552".into());
    s.push(format!("{}", i64::MIN));
    s
}

/// One input for file `w`.
fn input(rng: &mut Rng, w: Which, period: u64) -> Vec<u8> {
    let base: Vec<u8> = rng.pick(&numbers(w, period)).clone().into_bytes();
    match rng.below(16) {
        // Random bytes, mostly short, sometimes up to 4096.
        0 => {
            let len = if rng.chance(4) {
                rng.below(4097)
            } else {
                rng.below(WRITE_MAX as u64 + 4)
            };
            (0..len).map(|_| rng.next() as u8).collect()
        }
        // Random digits (and the odd newline), any length up to 80.
        1 => {
            let len = rng.below(81);
            (0..len)
                .map(|_| {
                    if rng.chance(20) {
                        b'\n'
                    } else {
                        b'0' + rng.below(10) as u8
                    }
                })
                .collect()
        }
        // Exactly at and around the 64-byte limit: leading zeros keep the value.
        2 => {
            let len = (WRITE_MAX as u64 - 2 + rng.below(5)) as usize;
            let mut b = vec![b'0'; len.saturating_sub(base.len())];
            b.extend_from_slice(&base);
            if rng.chance(2) {
                b.pop();
                b.push(b'\n');
            }
            b
        }
        // Plain values, with or without a newline: the ones that should be accepted.
        3..=7 => {
            let mut b = if rng.chance(2) {
                valid(rng, w, period).into_bytes()
            } else {
                base
            };
            if rng.chance(2) {
                b.push(b'\n');
            }
            b
        }
        // Mutations of a valid value.
        _ => mutate(rng, base),
    }
}

/// A value inside the file's documented range.
fn valid(rng: &mut Rng, w: Which, period: u64) -> String {
    match w {
        Which::Period => (1 + rng.below(PERIOD_MAX)).to_string(),
        Which::Latency if rng.chance(4) => "0".into(),
        Which::Latency => (2 * period + rng.below(THRESHOLD_MAX + 1 - 2 * period)).to_string(),
        Which::Cpus => {
            let nr = u64::from(nr_cpus());
            let a = rng.below(nr);
            let b = a + rng.below(nr - a);
            if a == b {
                a.to_string()
            } else if rng.chance(2) {
                format!("{a}-{b}")
            } else {
                format!("{a},{b}")
            }
        }
        _ => rng.below(2).to_string(),
    }
}

fn mutate(rng: &mut Rng, mut b: Vec<u8>) -> Vec<u8> {
    let n = 1 + rng.below(3);
    for _ in 0..n {
        match rng.below(14) {
            0 => b.insert(0, *rng.pick(b"+-")),
            1 => b.insert(0, *rng.pick(b" \t\n\r\x0b")),
            2 => b.push(*rng.pick(b" \t\r\x0b")),
            3 => {
                let at = rng.below(b.len() as u64 + 1) as usize;
                b.insert(at, 0);
            }
            4 => {
                b.splice(0..0, rng.pick(&["0x", "0X", "0o", "0b", "0"]).bytes());
            }
            5 => b.extend_from_slice(b"\n\n"),
            6 => b.extend_from_slice(
                rng.pick(&["abc", "ms", "k", ".5", "e3", "\u{00e9}", "\u{0661}"])
                    .as_bytes(),
            ),
            7 if !b.is_empty() => {
                let at = rng.below(b.len() as u64) as usize;
                b[at] ^= 1 << rng.below(8);
            }
            8 => b.truncate(rng.below(b.len() as u64 + 1) as usize),
            9 => {
                let c = b.clone();
                b.extend_from_slice(&c);
            }
            10 => b.insert(0, b'\n'),
            11 => {
                let at = rng.below(b.len() as u64 + 1) as usize;
                b.insert(at, *rng.pick(b" _,"));
            }
            12 => b.push(b'\n'),
            _ => b.extend(std::iter::repeat_n(b'0', rng.below(70) as usize)),
        }
    }
    b
}

fn read(path: &str) -> Result<String, i32> {
    let mut s = Vec::new();
    File::open(path)
        .and_then(|mut f| f.read_to_end(&mut s))
        .map_err(|e| e.raw_os_error().unwrap_or(0))?;
    Ok(String::from_utf8_lossy(&s).into_owned())
}

/// A number in "prefix Nms" from the first line of a file.
fn first_ms(text: &str, prefix: &str) -> Option<u64> {
    text.lines()
        .next()?
        .strip_prefix(prefix)?
        .strip_suffix("ms")?
        .parse()
        .ok()
}

struct Fuzzer {
    dir: String,
    files: Vec<(String, Which)>,
    tag_source: bool,
    rng: Rng,
    /// Per file: writes, accepted, errno -> count.
    counts: BTreeMap<String, (u64, u64, BTreeMap<String, u64>)>,
    reads: u64,
    failures: Vec<String>,
    fds: BTreeMap<String, File>,
    /// The last write was a pwrite.
    pwrite: bool,
}

impl Fuzzer {
    fn path(&self, name: &str) -> String {
        format!("{}/{}", self.dir, name)
    }

    fn fail(&mut self, msg: String) {
        if self.failures.len() < 20 {
            eprintln!("tio-fuzz: FAIL: {msg}");
        }
        self.failures.push(msg);
    }

    /// One write of `buf` to `name`: plain write on a kept descriptor, or pwrite at an odd
    /// offset, or through a fresh open.
    fn write(&mut self, name: &str, buf: &[u8]) -> Result<(), i32> {
        let path = self.path(name);
        if self.rng.chance(16) || !self.fds.contains_key(name) {
            match OpenOptions::new().write(true).open(&path) {
                Ok(f) => {
                    self.fds.insert(name.to_string(), f);
                }
                Err(e) => return Err(e.raw_os_error().unwrap_or(0)),
            }
        }
        let off = *self.rng.pick(&[
            0u64,
            1,
            3,
            7,
            63,
            64,
            65,
            4095,
            4097,
            1 << 31,
            (1 << 40) + 1,
        ]);
        let how = self.rng.below(8);
        self.pwrite = how == 0;
        let Some(f) = self.fds.get_mut(name) else {
            return Err(libc::EBADF);
        };
        let r = match how {
            // seq_file clears FMODE_PWRITE: the VFS answers ESPIPE before the module is
            // asked (checked by the caller).
            0 => f.write_at(buf, off),
            // A write at an odd file position: the module must not care where.
            1 | 2 => f.seek(SeekFrom::Start(off)).and_then(|_| f.write(buf)),
            _ => f.write(buf),
        };
        match r {
            Ok(n) if n == buf.len() => Ok(()),
            Ok(n) => {
                let msg = format!(
                    "{name}: write of {} bytes returned {n}: {}",
                    buf.len(),
                    show(buf)
                );
                self.fail(msg);
                Ok(())
            }
            Err(e) => Err(e.raw_os_error().unwrap_or(0)),
        }
    }

    fn count(&mut self, name: &str, r: Result<(), i32>) {
        let pwrite = self.pwrite;
        let c = self.counts.entry(name.to_string()).or_default();
        c.0 += 1;
        match r {
            Ok(()) => c.1 += 1,
            Err(e) if pwrite => *c.2.entry(format!("{}(pwrite)", errno_name(e))).or_default() += 1,
            Err(e) => *c.2.entry(errno_name(e)).or_default() += 1,
        }
    }

    /// Reads every file; each must read (no errno) and look like itself.
    fn read_all(&mut self) {
        let names: Vec<String> = fs::read_dir(&self.dir)
            .map(|d| {
                d.filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        for name in names {
            self.reads += 1;
            match read(&self.path(&name)) {
                Ok(text) => {
                    let good = match name.as_str() {
                        // Enabling and disabling while a concurrent writer waits for the CPUs.
                        "enable" => matches!(
                            text.as_str(),
                            "enabled\n" | "disabled\n" | "enabling\n" | "disabling\n"
                        ),
                        "cpus" => cpulist(text.as_bytes()).is_some(),
                        "sampling_period" => {
                            first_ms(&text, "").is_some_and(|p| (1..=PERIOD_MAX).contains(&p))
                        }
                        "trace_latency" => first_ms(&text, "trace_irqoff_latency: ")
                            .is_some_and(|t| (2..=THRESHOLD_MAX).contains(&t)),
                        "records" => {
                            text.starts_with("trace_irqoff records v2\n") && text.ends_with("end\n")
                        }
                        "counters" => {
                            text.starts_with("trace_irqoff counters v1\n")
                                && text.ends_with("end\n")
                        }
                        "tag_wait" => text.starts_with("tag_wait: "),
                        _ => true,
                    };
                    if !good {
                        let msg = format!("{name} reads malformed: {}", show(text.as_bytes()));
                        self.fail(msg);
                    }
                }
                Err(e) => {
                    let msg = format!("reading {name} failed: {}", errno_name(e));
                    self.fail(msg);
                }
            }
        }
    }

    /// The settings as the files show them.
    fn observe(&mut self) -> Option<Model> {
        let en = read(&self.path("enable")).ok()?;
        let p = first_ms(&read(&self.path("sampling_period")).ok()?, "")?;
        let t = first_ms(
            &read(&self.path("trace_latency")).ok()?,
            "trace_irqoff_latency: ",
        )?;
        let tw = read(&self.path("tag_wait")).ok()?;
        let cpus = cpulist(read(&self.path("cpus")).ok()?.as_bytes())?;
        Some(Model {
            enabled: en == "enabled\n",
            period: p,
            threshold: t,
            tag_wait: tw.starts_with("tag_wait: enabled"),
            cpus,
        })
    }

    /// Whether the file(s) an accepted write to `w` changes read back as the model says
    /// (cheaper than `observe`, which reads all four).
    fn shows(&self, w: Which, m: &Model) -> bool {
        let threshold = || {
            first_ms(
                &read(&self.path("trace_latency")).unwrap_or_default(),
                "trace_irqoff_latency: ",
            ) == Some(m.threshold)
        };
        match w {
            Which::Enable => {
                read(&self.path("enable")).ok().as_deref()
                    == Some(if m.enabled { "enabled\n" } else { "disabled\n" })
            }
            Which::Period => {
                first_ms(&read(&self.path("sampling_period")).unwrap_or_default(), "")
                    == Some(m.period)
                    && threshold()
            }
            Which::Latency => threshold(),
            Which::TagWait => read(&self.path("tag_wait")).is_ok_and(|t| {
                t.starts_with(if m.tag_wait {
                    "tag_wait: enabled"
                } else {
                    "tag_wait: disabled"
                })
            }),
            Which::Cpus => {
                read(&self.path("cpus"))
                    .ok()
                    .and_then(|t| cpulist(t.as_bytes()))
                    == Some(m.cpus)
            }
            Which::ReadOnly => true,
        }
    }

    /// Serial: an exact model; each write's outcome and the settings after it are checked.
    fn serial(&mut self, count: u64) {
        let Some(mut m) = self.observe() else {
            self.fail("cannot read the settings".into());
            return;
        };
        let writable: Vec<(String, Which)> = self
            .files
            .iter()
            .filter(|f| f.1 != Which::ReadOnly)
            .cloned()
            .collect();
        let readonly: Vec<(String, Which)> = self
            .files
            .iter()
            .filter(|f| f.1 == Which::ReadOnly)
            .cloned()
            .collect();
        let mut plan: Vec<(String, Which)> = Vec::new();
        for f in &writable {
            plan.extend(std::iter::repeat_n(f.clone(), count as usize));
        }
        for f in &readonly {
            plan.extend(std::iter::repeat_n(f.clone(), (count / 10) as usize));
        }
        // Shuffle, so the files interleave.
        for i in (1..plan.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            plan.swap(i, j);
        }
        for (i, (name, w)) in plan.iter().enumerate() {
            let buf = input(&mut self.rng, *w, m.period);
            let r = self.write(name, &buf);
            let want = if self.pwrite {
                Allowed::err(libc::ESPIPE)
            } else {
                allowed(*w, &buf, Some(&m), self.tag_source)
            };
            self.count(name, r);
            if !want.admits(r) {
                let got = r.map_or_else(errno_name, |()| "accepted".into());
                let msg = format!(
                    "{name} <- \"{}\": got {got}, documented {want:?} (state {m:?})",
                    show(&buf)
                );
                self.fail(msg);
            }
            if r.is_ok() {
                let v = parse(&buf).unwrap_or(0);
                match w {
                    Which::Enable => m.enabled = v == 1,
                    Which::Period => {
                        m.period = v;
                        m.threshold = m.threshold.max(2 * v);
                    }
                    Which::Latency if v != 0 => m.threshold = v,
                    Which::TagWait => m.tag_wait = v == 1,
                    Which::Cpus => m.cpus = cpulist(&buf).unwrap_or(m.cpus),
                    _ => {}
                }
            }
            // Read back after every accepted write, and after every 64th write anyway
            // (bad input changes nothing).
            if i % 64 == 0 || r.is_ok() && !self.shows(*w, &m) {
                let seen = self.observe();
                match seen {
                    Some(s)
                        if (s.enabled, s.period, s.threshold, s.tag_wait)
                            == (m.enabled, m.period, m.threshold, m.tag_wait) => {}
                    _ => {
                        let msg = format!(
                            "after {name} <- \"{}\" ({}): the files show {seen:?}, expected {m:?}",
                            show(&buf),
                            if r.is_ok() { "accepted" } else { "refused" }
                        );
                        self.fail(msg);
                        if let Some(s) = seen {
                            m = s;
                        }
                    }
                }
            }
            if i % 500 == 0 {
                self.read_all();
            }
        }
    }

    /// Concurrent: the outcome is checked where it does not depend on the other writers.
    fn concurrent(&mut self, count: u64) {
        let writable: Vec<(String, Which)> = self
            .files
            .iter()
            .filter(|f| f.1 != Which::ReadOnly)
            .cloned()
            .collect();
        if writable.is_empty() {
            return;
        }
        let mut plan: Vec<(String, Which)> = Vec::new();
        for f in &writable {
            plan.extend(std::iter::repeat_n(f.clone(), count as usize));
        }
        for i in (1..plan.len()).rev() {
            let j = self.rng.below(i as u64 + 1) as usize;
            plan.swap(i, j);
        }
        for (i, (name, w)) in plan.into_iter().enumerate() {
            let buf = input(&mut self.rng, w, 10);
            let r = self.write(&name, &buf);
            let want = if self.pwrite {
                Allowed::err(libc::ESPIPE)
            } else {
                allowed(w, &buf, None, self.tag_source)
            };
            self.count(&name, r);
            if !want.admits(r) {
                let got = r.map_or_else(errno_name, |()| "accepted".into());
                let msg = format!(
                    "{name} <- \"{}\": got {got}, documented {want:?} (concurrent)",
                    show(&buf)
                );
                self.fail(msg);
            }
            if self.rng.chance(50) {
                // enable/disable in between, as users do.
                let on: &[u8] = if self.rng.chance(2) { b"1\n" } else { b"0\n" };
                let r = self.write("enable", on);
                self.count("enable", r);
                let want = if self.pwrite {
                    Allowed::err(libc::ESPIPE)
                } else {
                    Allowed::ok()
                };
                if !want.admits(r) {
                    let got = r.map_or_else(errno_name, |()| "accepted".into());
                    let msg = format!("enable <- {}: got {got}, documented {want:?}", show(on));
                    self.fail(msg);
                }
            }
            if i % 200 == 0 {
                self.read_all();
            }
        }
    }

    fn report(&self, who: &str) {
        for (name, (n, ok, errs)) in &self.counts {
            let e: Vec<String> = errs.iter().map(|(k, v)| format!("{k}={v}")).collect();
            println!("{who} file={name} writes={n} accepted={ok} {}", e.join(" "));
        }
        println!(
            "{who} reads={} failures={}",
            self.reads,
            self.failures.len()
        );
    }
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let num = |name: &str, def: u64| arg(&args, name).map_or(Some(def), |v| v.parse().ok());
    let (Some(seed), Some(count), Some(workers)) = (
        num("--seed", 0).map(|s| {
            if s == 0 {
                std::process::id() as u64
                    ^ (std::time::SystemTime::now()
                        .duration_since(std::time::UNIX_EPOCH)
                        .map_or(1, |d| d.as_nanos() as u64))
            } else {
                s
            }
        }),
        num("--count", 10_000),
        num("--workers", 4),
    ) else {
        eprintln!("usage: tio-fuzz [--seed S] [--count N] [--workers W] [--dir DIR]");
        return ExitCode::from(2);
    };
    let dir = arg(&args, "--dir").unwrap_or_else(|| "/proc/trace_irqoff".into());
    let worker = arg(&args, "--worker").and_then(|w| w.parse::<u64>().ok());

    let mut files: Vec<(String, Which)> = Vec::new();
    let Ok(entries) = fs::read_dir(&dir) else {
        eprintln!("tio-fuzz: {dir}: cannot list");
        return ExitCode::FAILURE;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let mode = e.metadata().map_or(0, |m| m.permissions().mode());
        let w = if mode & 0o200 != 0 {
            which(&name)
        } else {
            Which::ReadOnly
        };
        if mode & 0o200 != 0 && w == Which::ReadOnly {
            eprintln!("tio-fuzz: {name} is writable but not documented");
            return ExitCode::FAILURE;
        }
        files.push((name, w));
    }
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let tag_source = read(&format!("{dir}/tag_wait"))
        .is_ok_and(|t| !t.lines().next().unwrap_or("").contains("(source: none)"));

    let mut f = Fuzzer {
        dir: dir.clone(),
        files,
        tag_source,
        rng: Rng::new(seed),
        counts: BTreeMap::new(),
        reads: 0,
        failures: vec![],
        fds: BTreeMap::new(),
        pwrite: false,
    };

    if let Some(k) = worker {
        // One of the concurrent workers: its own stream, derived from the master seed.
        f.rng = Rng::new(seed ^ (k + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        f.concurrent(count);
        f.report("worker");
        return if f.failures.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }

    let serial = count.div_ceil(2);
    let conc = count - serial;
    let per_worker = conc.div_ceil(workers.max(1));
    println!(
        "tio-fuzz: seed={seed} count={count} (serial {serial}, concurrent {workers} x {per_worker} per file) files={}",
        f.files.iter().map(|(n, w)| format!("{n}{}", if *w == Which::ReadOnly { "(ro)" } else { "" })).collect::<Vec<_>>().join(",")
    );
    let t0 = std::time::Instant::now();
    f.serial(serial);
    let t1 = t0.elapsed();
    let exe = std::env::current_exe().unwrap_or_else(|_| "tio-fuzz".into());
    let children: Vec<_> = (0..workers)
        .filter_map(|k| {
            Command::new(&exe)
                .args([
                    "--seed",
                    &seed.to_string(),
                    "--count",
                    &per_worker.to_string(),
                    "--dir",
                    &dir,
                    "--worker",
                    &k.to_string(),
                ])
                .stdout(Stdio::piped())
                .spawn()
                .ok()
        })
        .collect();
    if children.len() as u64 != workers {
        f.fail(format!(
            "only {} of {workers} workers started",
            children.len()
        ));
    }
    // The parent reads every file while the workers write.
    let mut outs = Vec::new();
    let mut running: Vec<_> = children;
    while !running.is_empty() {
        f.read_all();
        let mut still = Vec::new();
        for mut c in running {
            match c.try_wait() {
                Ok(Some(_)) => outs.push(c),
                _ => still.push(c),
            }
        }
        running = still;
    }
    for c in outs {
        let Ok(out) = c.wait_with_output() else {
            continue;
        };
        if !out.status.success() {
            f.fail(format!("a worker failed ({})", out.status));
        }
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let mut kv: BTreeMap<&str, &str> = BTreeMap::new();
            for t in line.split_whitespace().skip(1) {
                if let Some((k, v)) = t.split_once('=') {
                    kv.insert(k, v);
                }
            }
            if let Some(name) = kv.get("file") {
                let c = f.counts.entry(name.to_string()).or_default();
                for (k, v) in &kv {
                    let v: u64 = v.parse().unwrap_or(0);
                    match *k {
                        "file" => {}
                        "writes" => c.0 += v,
                        "accepted" => c.1 += v,
                        e => *c.2.entry(e.to_string()).or_default() += v,
                    }
                }
            } else if let Some(r) = kv.get("reads") {
                f.reads += r.parse::<u64>().unwrap_or(0);
            }
        }
    }
    let t2 = t0.elapsed();
    // Settings must still be consistent: threshold >= 2P.
    match f.observe() {
        Some(m) if m.threshold >= 2 * m.period => {}
        m => f.fail(format!("settings inconsistent at the end: {m:?}")),
    }
    f.report("tio-fuzz:");
    println!(
        "tio-fuzz: serial {:.1}s, concurrent {:.1}s, seed={seed}: {}",
        t1.as_secs_f64(),
        (t2 - t1).as_secs_f64(),
        if f.failures.is_empty() {
            "PASS"
        } else {
            "FAIL"
        }
    );
    let _ = std::io::stdout().flush();
    if f.failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
