// SPDX-License-Identifier: GPL-2.0
//! `--lines`: the source lines of a record's frames, from the kernel's and the modules'
//! debug information (DWARF, read with `addr2line`/`gimli`/`object`).
//!
//! A frame (`func+0x1f/0x80 [module]`) is resolved by name: its function's address in the
//! ELF symbol table of the debug file (the size, `/0x80`, must match the symbol's), plus
//! its offset, looked up in the DWARF with inlined functions. Where the debug file is:
//!
//! - the kernel: `--vmlinux PATH`; else `DEBUG_DIR/.build-id/xx/yyyy.debug` by the
//!   kernel's build id; else `DEBUG_DIR/boot/vmlinux-RELEASE` (Debian's
//!   `linux-image-RELEASE-dbg`); else `/lib/modules/RELEASE/build/vmlinux`;
//! - a module: `DEBUG_DIR/.build-id/xx/yyyy.debug` by its build id; else
//!   `DEBUG_DIR/lib/modules/RELEASE/**/NAME.ko`; else `/lib/modules/RELEASE/**/NAME.ko`
//!   if it has debug information; each name also as a compressed module, `NAME.ko.xz`,
//!   `NAME.ko.zst` or `NAME.ko.gz` (the kernel's `CONFIG_MODULE_COMPRESS_*`), which is
//!   decompressed in memory.
//!
//! `DEBUG_DIR` is `--debug-dir`, or `/usr/lib/debug`; a directory a debug package was
//! unpacked into (`dpkg-deb -x PKG DIR`) is taken at its `usr/lib/debug`. A file found by
//! name whose build id differs from the one the record keeps is not used. Compressed debug
//! sections are read: `SHF_COMPRESSED` with zlib or zstd (`objcopy
//! --compress-debug-sections`, `CONFIG_DEBUG_INFO_COMPRESSED_*`) and GNU's older
//! `.zdebug_*`. A module (`.ko`) is relocatable: its DWARF refers to its code through
//! relocations, which are applied here, with each of its sections at an address of its
//! own ([`debug_file`] reads one file; this file finds them and resolves frames).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::model::snapshot::{Record, SourceLine};

/// Where to look for debug information, and for which kernel.
#[derive(Debug, Clone)]
pub struct Options {
    /// `--vmlinux`: the kernel's debug file.
    pub vmlinux: Option<PathBuf>,
    /// `--debug-dir`, or /usr/lib/debug.
    pub debug_dir: PathBuf,
    /// The kernel release the records were taken on (`uname -r`).
    pub release: String,
    /// The kernel's build id (hex), where known.
    pub kernel_build_id: Option<String>,
    /// The root `/lib/modules` is under: `/` (another for tests).
    pub root: PathBuf,
}

/// The default `--debug-dir`.
pub const DEBUG_DIR: &str = "/usr/lib/debug";

/// `DIR/.build-id/xx/yyyy.debug` for build id `id`.
fn build_id_path(dir: &Path, id: &str) -> Option<PathBuf> {
    (id.len() > 2).then(|| {
        dir.join(".build-id")
            .join(&id[..2])
            .join(format!("{}.debug", &id[2..]))
    })
}

/// The debug directory `dir` stands for: its `usr/lib/debug` where it has one (a package
/// unpacked with `dpkg-deb -x`), else itself.
fn debug_root(dir: &Path) -> PathBuf {
    let inner = dir.join("usr/lib/debug");
    if inner.is_dir() {
        inner
    } else {
        dir.to_path_buf()
    }
}

/// Where the kernel's debug information may be, in the order tried.
pub fn kernel_candidates(o: &Options) -> Vec<PathBuf> {
    let dir = debug_root(&o.debug_dir);
    let mut v = Vec::new();
    v.extend(o.vmlinux.clone());
    v.extend(
        o.kernel_build_id
            .as_deref()
            .and_then(|id| build_id_path(&dir, id)),
    );
    v.push(dir.join("boot").join(format!("vmlinux-{}", o.release)));
    v.push(
        o.root
            .join("lib/modules")
            .join(&o.release)
            .join("build/vmlinux"),
    );
    v
}

/// Where module `name`'s debug information may be, in the order tried: the files that are
/// there.
pub fn module_candidates(o: &Options, name: &str, build_id: Option<&str>) -> Vec<PathBuf> {
    let dir = debug_root(&o.debug_dir);
    let mut v = Vec::new();
    v.extend(
        build_id
            .and_then(|id| build_id_path(&dir, id))
            .filter(|p| p.is_file()),
    );
    let tree = Path::new("lib/modules").join(&o.release);
    for top in [dir.join(&tree), o.root.join(&tree)] {
        let mut found = Vec::new();
        find_ko(&top, name, 0, &mut found);
        found.sort();
        v.extend(found);
    }
    v
}

/// The suffixes of a module's file: plain, then compressed (`CONFIG_MODULE_COMPRESS_*`).
const KO_SUFFIXES: [&str; 4] = [".ko", ".ko.xz", ".ko.zst", ".ko.gz"];

/// Files `NAME.ko` (or compressed, `NAME.ko.xz`...) under `dir` (a module's name has `_`
/// where its file may have `-`).
fn find_ko(dir: &Path, name: &str, depth: usize, out: &mut Vec<PathBuf>) {
    // Deep enough for kernel/drivers/net/ethernet/vendor/x/NAME.ko; no symlink loops.
    if depth > 12 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(kind) = e.file_type() else { continue };
        if kind.is_dir() {
            // /lib/modules/RELEASE/build and source: the kernel's tree, not its modules.
            if !(depth == 0 && (e.file_name() == "build" || e.file_name() == "source")) {
                find_ko(&path, name, depth + 1, out);
            }
        } else if let Some(file) = e.file_name().to_str() {
            let stem = KO_SUFFIXES.iter().find_map(|s| file.strip_suffix(s));
            if stem.is_some_and(|stem| stem.replace('-', "_") == name.replace('-', "_")) {
                out.push(path);
            }
        }
    }
}

/// A frame as shown: `func+0x1f/0x80 [module]`, the function maybe demangled.
#[derive(Debug, PartialEq, Eq)]
pub struct Frame<'a> {
    pub function: &'a str,
    pub offset: u64,
    pub size: u64,
    pub module: Option<&'a str>,
}

/// Parses a frame; `None` for one without offset and size (an address).
pub fn parse_frame(frame: &str) -> Option<Frame<'_>> {
    let (body, module) = match frame.strip_suffix(']').and_then(|f| f.rsplit_once(" [")) {
        Some((body, module)) => (body, Some(module.split(' ').next().unwrap_or(module))),
        None => (frame, None),
    };
    let (function, rest) = body.rsplit_once("+0x")?;
    let (offset, size) = rest.split_once("/0x")?;
    Some(Frame {
        function,
        offset: u64::from_str_radix(offset, 16).ok()?,
        size: u64::from_str_radix(size, 16).ok()?,
        module,
    })
}

/// The build id in an ELF note section's bytes (`/sys/kernel/notes`,
/// `/sys/module/NAME/notes/.note.gnu.build-id`), native byte order, as hex.
pub fn note_build_id(notes: &[u8]) -> Option<String> {
    let word = |at: usize| -> Option<usize> {
        let b: [u8; 4] = notes.get(at..at + 4)?.try_into().ok()?;
        Some(u32::from_ne_bytes(b) as usize)
    };
    let align = |n: usize| n.div_ceil(4) * 4;
    let mut at = 0;
    while at + 12 <= notes.len() {
        let (namesz, descsz, kind) = (word(at)?, word(at + 4)?, word(at + 8)?);
        let name = notes.get(at + 12..at + 12 + namesz)?;
        let desc_at = at + 12 + align(namesz);
        let desc = notes.get(desc_at..desc_at + descsz)?;
        // NT_GNU_BUILD_ID
        if kind == 3 && name == b"GNU\0" && !desc.is_empty() {
            return Some(hex(desc));
        }
        at = desc_at + align(descsz);
    }
    None
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The running kernel's build id.
pub fn running_kernel_build_id() -> Option<String> {
    note_build_id(&std::fs::read("/sys/kernel/notes").ok()?)
}

/// Fills the build ids of the modules in `records`' stacks that the kernel did not print,
/// from the modules loaded now (`/sys/module/NAME/notes`).
pub fn fill_build_ids(records: &mut [Record]) {
    let mut known: HashMap<String, Option<String>> = HashMap::new();
    for r in records {
        let modules: BTreeSet<String> = frames_of(r)
            .filter_map(|f| parse_frame(f).and_then(|f| f.module).map(str::to_string))
            .collect();
        for m in modules {
            if r.build_ids.contains_key(&m) {
                continue;
            }
            let id = known
                .entry(m.clone())
                .or_insert_with(|| {
                    let path = format!("/sys/module/{m}/notes/.note.gnu.build-id");
                    std::fs::read(path).ok().and_then(|b| note_build_id(&b))
                })
                .clone();
            if let Some(id) = id {
                r.build_ids.insert(m, id);
            }
        }
    }
}

/// Every frame of a record: end stack, window stack, profile stacks.
fn frames_of(r: &Record) -> impl Iterator<Item = &String> {
    let profile = r
        .profile
        .iter()
        .flat_map(|p| p.stacks.iter())
        .flat_map(|s| s.frames.iter());
    r.stack.iter().chain(r.window_stack.iter()).chain(profile)
}

mod debug_file;
#[cfg(test)]
mod lines_tests;

use debug_file::DebugFile;

/// Resolves frames to source lines, reading each debug file once.
pub struct Resolver {
    o: Options,
    /// The kernel's debug file, once looked for.
    kernel: Option<Option<DebugFile>>,
    /// Modules' debug files by (name, build id), once looked for.
    modules: HashMap<(String, Option<String>), Option<DebugFile>>,
    /// What had no debug information: "kernel RELEASE", "module NAME".
    missing: BTreeSet<String>,
    /// Frames looked up, by (frame, exact, its module's build id): `watch` resolves the
    /// same records again on every refresh.
    seen: HashMap<(String, bool, Option<String>), Vec<SourceLine>>,
}

impl Resolver {
    /// For `--lines` (`None` without it), on records taken on kernel `release` whose build
    /// id is `kernel_build_id`.
    pub fn for_args(
        a: &crate::cli::LinesArgs,
        release: Option<&str>,
        kernel_build_id: Option<&str>,
    ) -> Option<Self> {
        a.lines.then(|| {
            Self::new(Options {
                vmlinux: a.vmlinux.clone(),
                debug_dir: a.debug_dir.clone().unwrap_or_else(|| DEBUG_DIR.into()),
                release: release.unwrap_or_default().to_string(),
                kernel_build_id: kernel_build_id.map(str::to_string),
                root: "/".into(),
            })
        })
    }

    /// For `--lines` on the running kernel's records: its release, and its build id where
    /// `live` (the module's own files, not a copy of them under `--proc-root`).
    pub fn for_running(a: &crate::cli::LinesArgs, live: bool) -> Option<Self> {
        let release = rustix::system::uname()
            .release()
            .to_string_lossy()
            .into_owned();
        let id = live.then(running_kernel_build_id).flatten();
        Self::for_args(a, Some(&release), id.as_deref())
    }

    pub fn new(o: Options) -> Self {
        Self {
            o,
            kernel: None,
            modules: HashMap::new(),
            missing: BTreeSet::new(),
            seen: HashMap::new(),
        }
    }

    /// Sets `r.lines` for each of its frames with debug information; lines it has already
    /// (a `record --lines` file read back) are kept.
    pub fn annotate(&mut self, r: &mut Record) {
        let mut lines = std::mem::take(&mut r.lines);
        let profile = r
            .profile
            .iter()
            .flat_map(|p| p.stacks.iter())
            .map(|s| &s.frames);
        for stack in [&r.stack, &r.window_stack].into_iter().chain(profile) {
            for (i, frame) in stack.iter().enumerate() {
                if lines.contains_key(frame) {
                    continue;
                }
                let Some(f) = parse_frame(frame) else {
                    continue;
                };
                let id = f.module.and_then(|m| r.build_ids.get(m)).cloned();
                let key = (frame.clone(), i == 0, id);
                let found = match self.seen.get(&key) {
                    Some(found) => found.clone(),
                    None => {
                        let found = self.lines(&f, i == 0, &r.build_ids);
                        self.seen.insert(key, found.clone());
                        found
                    }
                };
                if !found.is_empty() {
                    lines.insert(frame.clone(), found);
                }
            }
        }
        r.lines = lines;
    }

    fn lines(
        &mut self,
        f: &Frame<'_>,
        exact: bool,
        build_ids: &BTreeMap<String, String>,
    ) -> Vec<SourceLine> {
        let file = match f.module {
            None => {
                if self.kernel.is_none() {
                    let found = kernel_candidates(&self.o)
                        .into_iter()
                        .find_map(|p| open_checked(&p, self.o.kernel_build_id.as_deref()));
                    if found.is_none() {
                        self.missing.insert(format!("kernel {}", self.o.release));
                    }
                    self.kernel = Some(found);
                }
                self.kernel.as_ref().and_then(Option::as_ref)
            }
            Some(m) => {
                let id = build_ids.get(m).cloned();
                let key = (m.to_string(), id.clone());
                if !self.modules.contains_key(&key) {
                    let found = module_candidates(&self.o, m, id.as_deref())
                        .into_iter()
                        .find_map(|p| open_checked(&p, id.as_deref()));
                    if found.is_none() {
                        self.missing.insert(format!("module {m}"));
                    }
                    self.modules.insert(key.clone(), found);
                }
                self.modules.get(&key).and_then(Option::as_ref)
            }
        };
        file.map(|d| d.lines(f, exact)).unwrap_or_default()
    }

    /// One sentence on what had no debug information and how to get it; `None` if all had.
    pub fn hint(&self) -> Option<String> {
        if self.missing.is_empty() {
            return None;
        }
        let what: Vec<&str> = self.missing.iter().map(String::as_str).collect();
        let r = &self.o.release;
        Some(format!(
            "no debug information for {}: for source lines install linux-image-{r}-dbg (Debian), \
             or give --vmlinux FILE and --debug-dir DIR (.build-id/xx/yyyy.debug, or \
             lib/modules/{r}/.../NAME.ko built with debug information)",
            what.join(", ")
        ))
    }
}

/// The debug file at `path`, if it is one and its build id is `id` where both are known.
fn open_checked(path: &Path, id: Option<&str>) -> Option<DebugFile> {
    let (file, has) = DebugFile::open(path)?;
    match (id, has) {
        (Some(want), Some(has)) if want != has => None,
        _ => Some(file),
    }
}
