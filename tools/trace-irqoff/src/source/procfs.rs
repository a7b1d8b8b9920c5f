// SPDX-License-Identifier: GPL-2.0
//! Access to `/proc/trace_irqoff`, with kernel errors turned into plain sentences.
//!
//! [`Backend`] is the file access itself (the real directory, or an in-memory fake in
//! tests that can fail like the kernel does); [`Module`] gives the typed operations.

use std::io;
use std::path::{Path, PathBuf};

use rustix::io::Errno;
use tio_logic::limits::{PERIOD_MS_MAX, PERIOD_MS_MIN, THRESHOLD_MS_MAX};

use crate::model::settings::{Settings, Switching};
use crate::model::snapshot::{self, Snapshot};
use crate::parse::original;

/// What can go wrong talking to the module.
#[derive(Debug, thiserror::Error)]
pub enum ProcError {
    #[error("the proc root {0} does not exist")]
    ProcRootMissing(PathBuf),
    #[error("the trace_irqoff module is not loaded ({0} does not exist)")]
    NotLoaded(PathBuf),
    #[error("permission denied on {0}")]
    Permission(PathBuf),
    #[error("the module refused '{value}' for {file}: malformed or out of range")]
    Invalid { file: String, value: String },
    #[error("the sampling period cannot change while tracing is enabled")]
    Busy,
    #[error("tag-wait tracking is not available on this kernel")]
    Unsupported,
    #[error("could not read the module's records: {0}")]
    Format(#[from] crate::parse::records::ParseError),
    #[error("{what} {path}: {source}")]
    Io {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
}

impl ProcError {
    /// One line telling the user what to do next.
    pub fn hint(&self) -> Option<String> {
        match self {
            ProcError::ProcRootMissing(_) => Some("--proc-root names where the proc file system is mounted (default /proc)".into()),
            ProcError::NotLoaded(_) => Some("load it first: sudo insmod trace_irqoff.ko (or sudo modprobe trace_irqoff)".into()),
            ProcError::Permission(_) => Some("the files are root-only (mode 0600): run as root, e.g. with sudo".into()),
            ProcError::Invalid { file, .. } if file == "cpus" => {
                Some("give CPUs as the kernel lists them (0-3,8), each one possible (see /sys/devices/system/cpu/possible)".into())
            }
            ProcError::Invalid { .. } => Some(format!(
                "the period is {PERIOD_MS_MIN}..{PERIOD_MS_MAX} ms; the threshold is 2 x period..{THRESHOLD_MS_MAX} ms"
            )),
            ProcError::Busy => Some("disable first (trace-irqoff disable), or use: trace-irqoff enable --period MS".into()),
            ProcError::Unsupported => Some("this kernel has neither block:block_rq_tag_wait nor the functions the kprobe shim hooks".into()),
            ProcError::Format(_) => Some("the module and this trace-irqoff may be of different versions".into()),
            ProcError::Io { .. } => None,
        }
    }
}

/// Reading and writing the module's files.
pub trait Backend {
    /// Where the files are, for messages.
    fn path(&self, name: &str) -> PathBuf;
    fn present(&self) -> bool;
    /// Whether the proc root itself exists (else [`Backend::present`] is false anyway).
    fn root_present(&self) -> bool;
    /// The proc root, for messages.
    fn root(&self) -> PathBuf;
    fn read(&self, name: &str) -> io::Result<String>;
    fn write(&self, name: &str, data: &str) -> io::Result<()>;
    /// Takes the advisory lock that `record` holds while it owns the module's settings;
    /// `None` when another process holds it. Released when the [`Lock`] is dropped.
    fn try_lock(&self) -> io::Result<Option<Lock>>;
}

/// The advisory lock of [`Backend::try_lock`]: an `flock` on the module's directory, which
/// the kernel drops with the process however it ends, so a killed `record` leaves none.
pub struct Lock {
    fd: Option<rustix::fd::OwnedFd>,
}

impl Lock {
    /// A lock that holds nothing: where the kernel has no file locking
    /// (`CONFIG_FILE_LOCKING` off), or on a fake proc root.
    pub fn none() -> Self {
        Self { fd: None }
    }

    /// Whether this really excludes another `record`.
    pub fn is_held(&self) -> bool {
        self.fd.is_some()
    }
}

/// The real directory under a proc root.
pub struct Dir {
    root: PathBuf,
    dir: PathBuf,
}

impl Dir {
    pub fn new(proc_root: &Path) -> Self {
        Self {
            root: proc_root.to_path_buf(),
            dir: proc_root.join("trace_irqoff"),
        }
    }
}

impl Backend for Dir {
    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn present(&self) -> bool {
        self.dir.is_dir()
    }

    fn root_present(&self) -> bool {
        self.root.is_dir()
    }

    fn root(&self) -> PathBuf {
        self.root.clone()
    }

    fn read(&self, name: &str) -> io::Result<String> {
        std::fs::read_to_string(self.dir.join(name))
    }

    fn write(&self, name: &str, data: &str) -> io::Result<()> {
        use std::io::Write;
        // One write(2), as `echo` does: the module parses each write as a whole.
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(self.dir.join(name))?;
        f.write_all(data.as_bytes())
    }

    fn try_lock(&self) -> io::Result<Option<Lock>> {
        use rustix::fs::{flock, open, FlockOperation, Mode, OFlags};
        let fd = open(
            &self.dir,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )?;
        match flock(&fd, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(Lock { fd: Some(fd) })),
            Err(Errno::WOULDBLOCK) => Ok(None),
            // A kernel without file locking: nothing can be excluded, the caller says so.
            Err(Errno::NOSYS) => Ok(Some(Lock::none())),
            Err(e) => Err(e.into()),
        }
    }
}

/// The module, through a backend.
pub struct Module<B: Backend> {
    backend: B,
    /// Demangle Rust symbols in the stacks of snapshots (off: `--raw-symbols`).
    demangle: bool,
}

impl<B: Backend> Module<B> {
    /// Fails with [`ProcError::NotLoaded`] when the module's directory is missing.
    pub fn open(backend: B) -> Result<Self, ProcError> {
        if !backend.root_present() {
            return Err(ProcError::ProcRootMissing(backend.root()));
        }
        if !backend.present() {
            return Err(ProcError::NotLoaded(backend.path("")));
        }
        Ok(Self {
            backend,
            demangle: true,
        })
    }

    /// Stacks as the kernel printed them (`--raw-symbols`), not demangled.
    pub fn raw_symbols(mut self, raw: bool) -> Self {
        self.demangle = !raw;
        self
    }

    fn read(&self, name: &str) -> Result<String, ProcError> {
        self.backend
            .read(name)
            .map_err(|e| self.io_error("cannot read", name, e, ""))
    }

    fn write(&self, name: &str, value: &str) -> Result<(), ProcError> {
        self.backend
            .write(name, &format!("{value}\n"))
            .map_err(|e| self.io_error("cannot write", name, e, value))
    }

    fn io_error(&self, what: &'static str, name: &str, e: io::Error, value: &str) -> ProcError {
        let path = self.backend.path(name);
        match (e.kind(), Errno::from_io_error(&e)) {
            (io::ErrorKind::PermissionDenied, _) => ProcError::Permission(path),
            (io::ErrorKind::NotFound, _) => ProcError::NotLoaded(self.backend.path("")),
            (_, Some(Errno::BUSY)) => ProcError::Busy,
            (_, Some(Errno::OPNOTSUPP)) => ProcError::Unsupported,
            (_, Some(Errno::INVAL)) => ProcError::Invalid {
                file: name.to_string(),
                value: value.to_string(),
            },
            _ => ProcError::Io {
                what,
                path,
                source: e,
            },
        }
    }

    /// The module's state as it reads, from `records`; from the human files when the
    /// module has none (the original trace-irqoff). Only read: `enrich::prepare` dates,
    /// bounds and names its records.
    pub fn read_snapshot(&self) -> Result<Snapshot, ProcError> {
        match self.backend.read("records") {
            Ok(text) => Ok(crate::parse::records::parse(&text)?),
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.backend.present() => {
                self.snapshot_original()
            }
            Err(e) => Err(self.io_error("cannot read", "records", e, "")),
        }
    }

    /// Whether Rust symbols in its stacks are to be demangled (not `--raw-symbols`).
    pub fn demangles(&self) -> bool {
        self.demangle
    }

    /// The proc root of its system, where its records' cgroups are looked up.
    pub fn proc_root(&self) -> PathBuf {
        self.backend.root()
    }

    /// The counters without the records, from `counters` (O(CPUs) to read, whatever the
    /// records hold); from `records` when the module has no `counters` file (older
    /// versions, the original trace-irqoff).
    pub fn counters(&self) -> Result<Snapshot, ProcError> {
        match self.backend.read("counters") {
            Ok(text) => Ok(crate::parse::records::parse(&text)?),
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.backend.present() => {
                self.read_snapshot()
            }
            Err(e) => Err(self.io_error("cannot read", "counters", e, "")),
        }
    }

    fn snapshot_original(&self) -> Result<Snapshot, ProcError> {
        let settings = self.settings()?;
        let latency = original::parse_trace_latency(&self.read("trace_latency")?)?;
        let hist = original::parse_distribute(&self.read("distribute")?)?;
        let mut cpu_ids: Vec<u32> = latency.records.iter().map(|r| r.cpu).collect();
        cpu_ids.sort_unstable();
        cpu_ids.dedup();
        let cpus = cpu_ids.into_iter().map(snapshot::Cpu::new).collect();
        let ms = 1_000_000;
        Ok(Snapshot {
            version: 0,
            config: snapshot::Config {
                enabled: settings.enabled,
                period_ns: settings.period_ms * ms,
                threshold_ns: settings.threshold_ms * ms,
                hz: 0,
                records_per_cpu: 0,
                soft_period_ns: settings.period_ms * ms,
                soft_event_ns: 2 * settings.period_ms * ms,
                cpus: None,
                nohz_full: None,
                unsampled: None,
                counts_since_ns: None,
                enabled_since_ns: None,
                realtime_offset_ns: None,
                counts_since: None,
                enabled_since: None,
            },
            cpus,
            records: latency.records,
            watcher: None,
            ongoing: Vec::new(),
            tag_wait: None,
            stalls: None,
            original_hist: Some(hist),
            worst: None,
        })
    }

    /// Period, threshold and the switch. A plain directory standing in for the module
    /// (`--proc-root` on a copy of the files, the tests) holds the values as last written
    /// ("1", "20"), not as the module prints them ("enabled", "20ms"): both are read.
    pub fn settings(&self) -> Result<Settings, ProcError> {
        let enable = self.read("enable")?;
        // Still on while a writer turns it off.
        let enabled = matches!(enable.trim(), "enabled" | "1" | "disabling");
        let switching = Switching::parse(enable.trim());
        let period = self.read("sampling_period")?;
        let period_ms = parse_ms(period.trim())
            .or_else(|| period.trim().parse().ok())
            .ok_or_else(|| self.unexpected("sampling_period", &period))?;
        let latency = self.read("trace_latency")?;
        let first = latency.lines().next().unwrap_or("");
        let threshold_ms = first
            .strip_prefix("trace_irqoff_latency: ")
            .and_then(parse_ms)
            .or_else(|| first.trim().parse().ok().filter(|&t| t != 0))
            .ok_or_else(|| self.unexpected("trace_latency", first))?;
        Ok(Settings {
            enabled,
            period_ms,
            threshold_ms,
            switching,
        })
    }

    fn unexpected(&self, name: &str, text: &str) -> ProcError {
        ProcError::Format(crate::parse::records::ParseError::Malformed {
            line: 1,
            what: format!("{name}: unexpected '{}'", text.trim()),
        })
    }

    pub fn set_enabled(&self, on: bool) -> Result<(), ProcError> {
        self.write("enable", if on { "1" } else { "0" })
    }

    pub fn set_period(&self, ms: u64) -> Result<(), ProcError> {
        self.write("sampling_period", &ms.to_string())
    }

    pub fn set_threshold(&self, ms: u64) -> Result<(), ProcError> {
        self.write("trace_latency", &ms.to_string())
    }

    /// The CPUs sampled, as the module lists them (`None`: a module without `cpus`).
    pub fn cpus(&self) -> Result<Option<String>, ProcError> {
        match self.backend.read("cpus") {
            Ok(t) => Ok(Some(t.trim().to_string())),
            Err(e) if e.kind() == io::ErrorKind::NotFound && self.backend.present() => Ok(None),
            Err(e) => Err(self.io_error("cannot read", "cpus", e, "")),
        }
    }

    pub fn set_cpus(&self, list: &str) -> Result<(), ProcError> {
        self.write("cpus", list)
    }

    pub fn set_tag_wait(&self, on: bool) -> Result<(), ProcError> {
        self.write("tag_wait", if on { "1" } else { "0" })
    }

    pub fn clear(&self) -> Result<(), ProcError> {
        self.write("trace_latency", "0")
    }

    /// Puts period, threshold and the switch back as they were; writes nothing when they
    /// still are (a needless disable would be a gap in sampling).
    pub fn restore(&self, s: Settings) -> Result<(), ProcError> {
        if self.settings()? == s {
            return Ok(());
        }
        self.set_enabled(false)?;
        self.set_period(s.period_ms)?;
        self.set_threshold(s.threshold_ms)?;
        self.set_enabled(s.enabled)
    }

    /// The lock `record` holds; `None` while another `record` runs.
    pub fn try_lock(&self) -> Result<Option<Lock>, ProcError> {
        self.backend
            .try_lock()
            .map_err(|e| self.io_error("cannot lock", "", e, ""))
    }

    /// Whether this is the running kernel's module (proc root `/proc`), whose event
    /// stream can be read; not a copy of its files under another root, nor a test's.
    pub fn is_live(&self) -> bool {
        self.backend.root() == Path::new("/proc")
    }

    /// Whether a `record` holds the lock now (it restores its own settings at the end).
    pub fn recording_elsewhere(&self) -> bool {
        matches!(self.backend.try_lock(), Ok(None))
    }
}

/// "10ms" -> 10.
pub fn parse_ms(s: &str) -> Option<u64> {
    s.strip_suffix("ms")?.parse().ok()
}

#[cfg(test)]
pub mod fake {
    //! An in-memory module that validates like the kernel and can be told to fail.
    use super::*;
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    pub struct Fake {
        pub files: RefCell<HashMap<String, String>>,
        /// Every write fails with this errno.
        pub fail_writes: Option<Errno>,
        pub loaded: bool,
        /// Another process holds the `record` lock.
        pub locked: bool,
        /// Writes so far, in order: (file, value).
        pub writes: RefCell<Vec<(String, String)>>,
        /// Reads of `records` that still work; then they fail with EIO.
        pub records_reads_left: Cell<Option<usize>>,
        /// What `records` holds after each read, in turn (the module moving on).
        pub records_script: RefCell<Vec<String>>,
    }

    impl Fake {
        pub fn new(records: &str) -> Self {
            let mut files = HashMap::new();
            files.insert("enable".into(), "disabled\n".into());
            files.insert("sampling_period".into(), "10ms\n".into());
            files.insert(
                "trace_latency".into(),
                "trace_irqoff_latency: 50ms\n\n hardirq:\n\n softirq:\n".into(),
            );
            files.insert("records".into(), records.into());
            Self {
                files: RefCell::new(files),
                fail_writes: None,
                loaded: true,
                locked: false,
                writes: RefCell::new(Vec::new()),
                records_reads_left: Cell::new(None),
                records_script: RefCell::new(Vec::new()),
            }
        }
    }

    impl Backend for &Fake {
        fn path(&self, name: &str) -> PathBuf {
            PathBuf::from("/fake/trace_irqoff").join(name)
        }
        fn present(&self) -> bool {
            self.loaded
        }
        fn root_present(&self) -> bool {
            true
        }
        fn root(&self) -> PathBuf {
            PathBuf::from("/fake")
        }
        fn read(&self, name: &str) -> io::Result<String> {
            if name == "records" {
                match self.records_reads_left.get() {
                    Some(0) => return Err(Errno::IO.into()),
                    Some(n) => self.records_reads_left.set(Some(n - 1)),
                    None => {}
                }
                let text = self.files.borrow()["records"].clone();
                let mut script = self.records_script.borrow_mut();
                if !script.is_empty() {
                    self.files
                        .borrow_mut()
                        .insert("records".into(), script.remove(0));
                }
                return Ok(text);
            }
            self.files
                .borrow()
                .get(name)
                .cloned()
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        }
        fn write(&self, name: &str, data: &str) -> io::Result<()> {
            if let Some(errno) = self.fail_writes {
                return Err(errno.into());
            }
            let v = data.trim_end();
            self.writes
                .borrow_mut()
                .push((name.to_string(), v.to_string()));
            let mut files = self.files.borrow_mut();
            let enabled = files["enable"].trim() == "enabled";
            match name {
                "enable" => {
                    files.insert(
                        name.into(),
                        if v == "1" { "enabled\n" } else { "disabled\n" }.into(),
                    );
                }
                "sampling_period" if enabled => return Err(Errno::BUSY.into()),
                "sampling_period" => {
                    files.insert(name.into(), format!("{v}ms\n"));
                }
                "trace_latency" if v != "0" => {
                    files.insert(
                        name.into(),
                        format!("trace_irqoff_latency: {v}ms\n\n hardirq:\n\n softirq:\n"),
                    );
                }
                "cpus" if enabled => return Err(Errno::BUSY.into()),
                // A machine of four possible CPUs.
                "cpus"
                    if v.is_empty()
                        || !v.bytes().all(|b| matches!(b, b'0'..=b'3' | b',' | b'-')) =>
                {
                    return Err(Errno::INVAL.into());
                }
                "cpus" => {
                    files.insert(name.into(), format!("{v}\n"));
                }
                _ => {}
            }
            Ok(())
        }
        fn try_lock(&self) -> io::Result<Option<Lock>> {
            Ok((!self.locked).then_some(Lock::none()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fake::Fake;
    use super::*;

    const RECORDS: &str = include_str!("../../tests/fixtures/records-v1.txt");

    /// Claim: the kernel's EBUSY, EINVAL and EACCES on writes to the module's files
    /// become plain sentences with hints: the period cannot change while enabled (disable
    /// first), the value was refused (with the valid ranges), permission denied (run as
    /// root).
    #[test]
    fn kernel_errnos_become_sentences() {
        let mut fake = Fake::new(RECORDS);
        fake.fail_writes = Some(Errno::BUSY);
        let m = Module::open(&fake).unwrap();
        let e = m.set_period(20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the sampling period cannot change while tracing is enabled"
        );
        assert!(e.hint().unwrap().contains("disable first"));
        fake.fail_writes = Some(Errno::INVAL);
        let m = Module::open(&fake).unwrap();
        let e = m.set_threshold(7).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the module refused '7' for trace_latency: malformed or out of range"
        );
        assert_eq!(
            e.hint().unwrap(),
            "the period is 1..1000 ms; the threshold is 2 x period..10000 ms"
        );
        fake.fail_writes = Some(Errno::ACCESS);
        let m = Module::open(&fake).unwrap();
        let e = m.set_enabled(true).unwrap_err();
        assert!(e.to_string().starts_with("permission denied on"));
        assert!(e.hint().unwrap().contains("root"));
    }

    /// Claim: opening the module when its proc files are absent fails with
    /// ProcError::NotLoaded.
    #[test]
    fn unloaded_module() {
        let mut fake = Fake::new(RECORDS);
        fake.loaded = false;
        assert!(matches!(Module::open(&fake), Err(ProcError::NotLoaded(_))));
    }
}
