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
//! own.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use addr2line::gimli;
use object::{Object, ObjectSection, ObjectSymbol, RelocationKind, RelocationTarget};

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

type Reader = gimli::EndianSlice<'static, gimli::RunTimeEndian>;

/// One debug file, read.
struct DebugFile {
    ctx: addr2line::Context<Reader>,
    /// Function symbols by name (and by demangled name): (address, size).
    symbols: HashMap<String, Vec<(u64, u64)>>,
}

impl DebugFile {
    /// Reads `path`; `None` if it is not an ELF file with DWARF line information.
    ///
    /// The file stays mapped, and a module's relocated sections allocated, until the CLI
    /// exits: it resolves once and ends, and `addr2line` borrows them throughout.
    fn open(path: &Path) -> Option<(Self, Option<String>)> {
        let file = std::fs::File::open(path).ok()?;
        // SAFETY: The map is only read. A debug file changed while mapped would give wrong
        // lines or a parse error, not undefined behaviour in safe code reading bytes; the
        // CLI does not write it.
        let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
        let data: &'static [u8] = match decompressed(&map) {
            Some(bytes) => bytes?.leak(),
            None => Box::leak(Box::new(map)),
        };
        let obj = object::File::parse(data).ok()?;
        obj.section_by_name(".debug_info")?;
        let relocatable = obj.kind() == object::ObjectKind::Relocatable;
        let bases = if relocatable {
            section_bases(&obj)
        } else {
            HashMap::new()
        };
        let endian = if obj.is_little_endian() {
            gimli::RunTimeEndian::Little
        } else {
            gimli::RunTimeEndian::Big
        };
        let load = |id: gimli::SectionId| -> Result<Reader, ()> {
            let bytes: &'static [u8] = match obj.section_by_name(id.name()) {
                Some(s) if relocatable => relocated(&obj, &s, &bases),
                Some(s) => section_data(&s),
                None => &[],
            };
            Ok(gimli::EndianSlice::new(bytes, endian))
        };
        let dwarf = gimli::Dwarf::load(load).ok()?;
        let ctx = addr2line::Context::from_dwarf(dwarf).ok()?;
        let mut symbols: HashMap<String, Vec<(u64, u64)>> = HashMap::new();
        for sym in obj.symbols() {
            if sym.kind() != object::SymbolKind::Text {
                continue;
            }
            let Ok(name) = sym.name() else { continue };
            let base = match sym.section_index() {
                Some(i) if relocatable => bases.get(&i.0).copied().unwrap_or(0),
                _ => 0,
            };
            let at = (base + sym.address(), sym.size());
            if let Ok(d) = rustc_demangle::try_demangle(name) {
                symbols.entry(format!("{d:#}")).or_default().push(at);
            }
            symbols.entry(name.to_string()).or_default().push(at);
        }
        let id = obj.build_id().ok().flatten().map(hex);
        Some((Self { ctx, symbols }, id))
    }

    /// The address of `frame`'s function: its symbol of that name whose size is the
    /// frame's, else the largest one no larger that holds the offset (the kernel's size of
    /// a function, `/0x80`, runs to the next symbol: alignment and padding after the
    /// function count too).
    fn function_address(&self, frame: &Frame<'_>) -> Option<u64> {
        let v = self.symbols.get(frame.function)?;
        v.iter()
            .find(|(_, size)| *size == frame.size)
            .or_else(|| {
                v.iter()
                    .filter(|(_, size)| *size <= frame.size && frame.offset <= *size)
                    .max_by_key(|(_, size)| *size)
            })
            .map(|(addr, _)| *addr)
    }

    /// The locations at `probe`, innermost first; empty where the line is not known.
    fn locations(&self, probe: u64, frame: &Frame<'_>) -> Vec<SourceLine> {
        let mut out = Vec::new();
        let Ok(mut it) = self.ctx.find_frames(probe).skip_all_loads() else {
            return out;
        };
        while let Ok(Some(f)) = it.next() {
            let function = f
                .function
                .as_ref()
                .and_then(|n| n.raw_name().ok())
                .map(|n| match rustc_demangle::try_demangle(&n) {
                    Ok(d) => format!("{d:#}"),
                    Err(_) => n.into_owned(),
                })
                .unwrap_or_else(|| frame.function.to_string());
            match f.location {
                Some(addr2line::Location {
                    file: Some(file),
                    line: Some(line),
                    ..
                }) if line > 0 => out.push(SourceLine {
                    function,
                    file: file.to_string(),
                    line,
                }),
                // Code of no line (compiler-made): not this address's place.
                _ => return Vec::new(),
            }
        }
        out
    }

    /// The source lines of `frame`. `exact`: its offset may be the instruction itself (the
    /// first frame of a stack: where it was interrupted, or a return address where the
    /// stack was cut), tried first; else a return address, whose call is the byte before.
    fn lines(&self, frame: &Frame<'_>, exact: bool) -> Vec<SourceLine> {
        let Some(addr) = self.function_address(frame) else {
            return Vec::new();
        };
        let at = addr + frame.offset;
        let mut found = if exact {
            self.locations(at, frame)
        } else {
            Vec::new()
        };
        if found.is_empty() && frame.offset > 0 {
            found = self.locations(at - 1, frame);
        }
        found
    }
}

/// A whole file compressed as the kernel compresses modules (xz, zstd, gzip), by its magic
/// bytes: `None` if it is not, `Some(None)` if it does not decompress.
fn decompressed(data: &[u8]) -> Option<Option<Vec<u8>>> {
    use std::io::Read;
    let mut out = Vec::new();
    let ok = if data.starts_with(b"\xfd7zXZ\0") {
        lzma_rs::xz_decompress(&mut &data[..], &mut out).is_ok()
    } else if data.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
        ruzstd::decoding::StreamingDecoder::new(data)
            .is_ok_and(|mut d| d.read_to_end(&mut out).is_ok())
    } else if data.starts_with(&[0x1f, 0x8b]) {
        flate2::read::MultiGzDecoder::new(data)
            .read_to_end(&mut out)
            .is_ok()
    } else {
        return None;
    };
    Some(ok.then_some(out))
}

/// A section's bytes, decompressed if it is compressed (`SHF_COMPRESSED`, `.zdebug_*`);
/// empty if they cannot be read. Decompressed bytes stay until the CLI exits, as the map.
fn section_data(s: &object::Section<'static, '_>) -> &'static [u8] {
    match s.uncompressed_data() {
        Ok(std::borrow::Cow::Borrowed(b)) => b,
        Ok(std::borrow::Cow::Owned(v)) => v.leak(),
        Err(_) => &[],
    }
}

/// Addresses for the allocated sections of a relocatable file, each its own range.
fn section_bases(obj: &object::File<'_>) -> HashMap<usize, u64> {
    let mut at = 0x1000u64;
    let mut bases = HashMap::new();
    for s in obj.sections() {
        if let object::SectionFlags::Elf { sh_flags } = s.flags() {
            if sh_flags & u64::from(object::elf::SHF_ALLOC) != 0 {
                bases.insert(s.index().0, at);
                at = (at + s.size() + 0x1000) & !0xfff;
            }
        }
    }
    bases
}

/// A section of a relocatable file with its absolute relocations applied (S + A, the
/// target's section at its address from [`section_bases`]).
fn relocated(
    obj: &object::File<'_>,
    s: &object::Section<'_, '_>,
    bases: &HashMap<usize, u64>,
) -> &'static [u8] {
    let Ok(data) = s.uncompressed_data() else {
        return &[];
    };
    let mut bytes = data.into_owned();
    let little = obj.is_little_endian();
    for (offset, r) in s.relocations() {
        if r.kind() != RelocationKind::Absolute {
            continue;
        }
        let target = match r.target() {
            RelocationTarget::Symbol(i) => obj.symbol_by_index(i).ok().map(|sym| {
                let base = sym
                    .section_index()
                    .and_then(|i| bases.get(&i.0).copied())
                    .unwrap_or(0);
                base + sym.address()
            }),
            RelocationTarget::Section(i) => Some(bases.get(&i.0).copied().unwrap_or(0)),
            _ => None,
        };
        let (Some(target), Ok(at)) = (target, usize::try_from(offset)) else {
            continue;
        };
        let width = usize::from(r.size() / 8);
        let Some(field) = bytes.get_mut(at..at + width) else {
            continue;
        };
        let implicit = if r.has_implicit_addend() {
            read(field, little)
        } else {
            0
        };
        let value = target
            .wrapping_add_signed(r.addend())
            .wrapping_add(implicit);
        write(field, value, little);
    }
    bytes.leak()
}

fn read(field: &[u8], little: bool) -> u64 {
    let mut b = [0u8; 8];
    if little {
        b[..field.len()].copy_from_slice(field);
        u64::from_le_bytes(b)
    } else {
        b[8 - field.len()..].copy_from_slice(field);
        u64::from_be_bytes(b)
    }
}

fn write(field: &mut [u8], value: u64, little: bool) {
    let n = field.len();
    if little {
        field.copy_from_slice(&value.to_le_bytes()[..n]);
    } else {
        field.copy_from_slice(&value.to_be_bytes()[8 - n..]);
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(dir: &Path) -> Options {
        Options {
            vmlinux: None,
            debug_dir: dir.join("debug"),
            release: "7.3.0-test".into(),
            kernel_build_id: Some("abcdef0123".into()),
            root: dir.join("root"),
        }
    }

    /// Claim: frames parse with and without module, with demangled names, and frames
    /// without offset (addresses) do not.
    #[test]
    fn frames_parse() {
        assert_eq!(
            parse_frame("irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample]"),
            Some(Frame {
                function: "irqoff_sample_hardirq_window",
                offset: 0x2d,
                size: 0x53,
                module: Some("irqoff_sample")
            })
        );
        assert_eq!(
            parse_frame("<a::B as c::D>::f+0x1/0x20 [m 0a1b]").map(|f| (f.function, f.module)),
            Some(("<a::B as c::D>::f", Some("m")))
        );
        assert_eq!(
            parse_frame("vfs_write+0x1d7/0x210").map(|f| f.module),
            Some(None)
        );
        assert_eq!(parse_frame("0xffffffffa000a15e"), None);
    }

    /// Claim: the kernel's debug file is looked for at --vmlinux, by build id, Debian's
    /// boot/vmlinux-RELEASE, then the build tree, in that order.
    #[test]
    fn kernel_lookup_order() {
        let d = Path::new("/t");
        let mut o = opts(d);
        o.vmlinux = Some("/k/vmlinux".into());
        assert_eq!(
            kernel_candidates(&o),
            vec![
                PathBuf::from("/k/vmlinux"),
                PathBuf::from("/t/debug/.build-id/ab/cdef0123.debug"),
                PathBuf::from("/t/debug/boot/vmlinux-7.3.0-test"),
                PathBuf::from("/t/root/lib/modules/7.3.0-test/build/vmlinux"),
            ]
        );
        o.vmlinux = None;
        o.kernel_build_id = None;
        assert_eq!(kernel_candidates(&o).len(), 2);
    }

    /// Claim: a module's debug file is looked for by build id, then by name under the debug
    /// directory's lib/modules/RELEASE, then under /lib/modules/RELEASE (not its build
    /// tree), `-` and `_` alike; files that are not there are not offered.
    #[test]
    fn module_lookup_order() {
        let t = tempfile::tempdir().expect("tempdir");
        let d = t.path();
        let touch = |p: &str| {
            let p = d.join(p);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(p, b"").expect("write");
        };
        touch("debug/.build-id/12/3456.debug");
        touch("debug/lib/modules/7.3.0-test/updates/dkms/irqoff-sample.ko");
        touch("root/lib/modules/7.3.0-test/extra/irqoff_sample.ko");
        touch("root/lib/modules/7.3.0-test/build/samples/irqoff_sample.ko");
        touch("root/lib/modules/7.3.0-test/extra/other.ko");
        touch("root/lib/modules/7.3.0-test/kernel/x/null_blk.ko.xz");
        touch("root/lib/modules/7.3.0-test/kernel/y/null_blk.ko.zst");
        touch("root/lib/modules/7.3.0-test/kernel/z/null_blk.ko.gz");
        touch("root/lib/modules/7.3.0-test/kernel/z/null_blk.ko.bz2");
        let o = opts(d);
        assert_eq!(
            module_candidates(&o, "irqoff_sample", Some("123456")),
            vec![
                d.join("debug/.build-id/12/3456.debug"),
                d.join("debug/lib/modules/7.3.0-test/updates/dkms/irqoff-sample.ko"),
                d.join("root/lib/modules/7.3.0-test/extra/irqoff_sample.ko"),
            ]
        );
        assert_eq!(
            module_candidates(&o, "null_blk", None),
            vec![
                d.join("root/lib/modules/7.3.0-test/kernel/x/null_blk.ko.xz"),
                d.join("root/lib/modules/7.3.0-test/kernel/y/null_blk.ko.zst"),
                d.join("root/lib/modules/7.3.0-test/kernel/z/null_blk.ko.gz"),
            ],
            "compressed modules, as the kernel compresses them"
        );
        assert_eq!(
            module_candidates(&o, "irqoff_sample", Some("ffff")).len(),
            2,
            "no file for another build id"
        );
        assert!(module_candidates(&o, "absent", None).is_empty());
    }

    /// Claim: a debug directory that is a package unpacked with `dpkg-deb -x` is looked in
    /// at its usr/lib/debug, for the kernel and the modules alike.
    #[test]
    fn an_unpacked_package_is_a_debug_directory() {
        let t = tempfile::tempdir().expect("tempdir");
        let inner = t.path().join("debug/usr/lib/debug");
        let ko = inner.join("lib/modules/7.3.0-test/kernel/m.ko");
        std::fs::create_dir_all(ko.parent().expect("parent")).expect("mkdir");
        std::fs::write(&ko, b"").expect("write");
        let o = opts(t.path());
        assert_eq!(
            kernel_candidates(&o)[..2],
            [
                inner.join(".build-id/ab/cdef0123.debug"),
                inner.join("boot/vmlinux-7.3.0-test")
            ]
        );
        assert_eq!(module_candidates(&o, "m", None), vec![ko]);
    }

    /// A debug-information fixture (tests/fixtures/debug/make).
    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/debug")
            .join(name)
    }

    /// The source lines of every offset of the fixture's two functions.
    fn fixture_lines(file: &DebugFile) -> Vec<Vec<SourceLine>> {
        let mut all = Vec::new();
        for function in ["fixture_window", "fixture_caller"] {
            let size = file.symbols[function][0].1;
            for offset in 0..size {
                let frame = Frame {
                    function,
                    offset,
                    size,
                    module: Some("fixture"),
                };
                all.push(file.lines(&frame, true));
            }
        }
        all
    }

    /// Claim: a module's debug information compressed gives the same source lines, at every
    /// offset of its functions, inlined function included, and the same build id as
    /// uncompressed: debug sections compressed with zlib or zstd (SHF_COMPRESSED) or as
    /// GNU's .zdebug_*, and whole modules compressed as .ko.xz, .ko.zst or .ko.gz (fixtures
    /// made by tests/fixtures/debug/make from one fixture.debug).
    #[test]
    fn compressed_debug_information_gives_the_same_lines() {
        let (plain, id) = DebugFile::open(&fixture("fixture.debug")).expect("fixture.debug");
        let id = id.expect("a build id");
        let want = fixture_lines(&plain);
        assert!(
            want.iter().any(|l| matches!(l.as_slice(),
                [inner, outer] if inner.function == "fixture_spin" && outer.function == "fixture_window")),
            "fixture_spin is inlined into fixture_window: {want:?}"
        );
        assert!(
            want.iter()
                .flatten()
                .all(|l| l.file == "/src/fixture.c" && (1..=20).contains(&l.line)),
            "{want:?}"
        );
        for name in [
            "fixture-zlib.debug",
            "fixture-zstd.debug",
            "fixture-zdebug.debug",
            "fixture.debug.xz",
            "fixture.debug.zst",
            "fixture.debug.gz",
        ] {
            let (file, has) = DebugFile::open(&fixture(name)).expect(name);
            assert_eq!(has.as_deref(), Some(id.as_str()), "{name}'s build id");
            assert_eq!(fixture_lines(&file), want, "{name}");
        }
    }

    /// Claim: a compressed module found by name under the debug directory resolves a
    /// record's frame, and a compressed file that does not decompress is no debug file.
    #[test]
    fn compressed_modules_resolve_frames() {
        let t = tempfile::tempdir().expect("tempdir");
        let dir = t.path().join("debug/lib/modules/7.3.0-test/kernel/drivers");
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::copy(fixture("fixture.debug.xz"), dir.join("fixture.ko.xz")).expect("copy");
        let mut r = Record::new(0, crate::model::snapshot::Kind::Hard);
        let size = 0x30; // fixture_window's size (readelf -s fixture.debug)
        r.stack = vec![format!("fixture_window+0x4/{size:#x} [fixture]")];
        let mut res = Resolver::new(opts(t.path()));
        res.annotate(&mut r);
        let l = &r.lines[&r.stack[0]];
        assert_eq!(
            l.last().map(|l| l.function.as_str()),
            Some("fixture_window")
        );
        assert!(l.iter().all(|l| l.file == "/src/fixture.c"), "{l:?}");

        let broken = t.path().join("broken.ko.zst");
        let mut bytes = std::fs::read(fixture("fixture.debug.zst")).expect("read");
        bytes.truncate(bytes.len() / 2);
        std::fs::write(&broken, bytes).expect("write");
        assert!(DebugFile::open(&broken).is_none());
    }

    /// Claim: in a relocatable object (as a module is), with each function in a section of
    /// its own, a frame resolves to its source line through the applied relocations, with
    /// the function inlined there first and the frame's own function after it. Needs a C
    /// compiler (`cc`); without one there is nothing to check.
    #[test]
    fn relocatable_objects_resolve_with_inlined_functions() {
        let t = tempfile::tempdir().expect("tempdir");
        let src = t.path().join("t.c");
        std::fs::write(
            &src,
            "static int helper(int x) { return x * x + 7; }\n\
             __attribute__((noinline)) int second(volatile int *p)\n\
             {\n\
             \treturn helper(*p) + helper(*p + 1);\n\
             }\n\
             __attribute__((noinline)) int first(volatile int *p)\n\
             {\n\
             \treturn second(p) * 2 + 1;\n\
             }\n",
        )
        .expect("write");
        let obj = t.path().join("t.o");
        let built = std::process::Command::new("cc")
            .args(["-O2", "-g", "-ffunction-sections", "-c", "-o"])
            .arg(&obj)
            .arg(&src)
            .status();
        if !built.is_ok_and(|s| s.success()) {
            eprintln!("no C compiler: not checked");
            return;
        }
        let (file, _) = DebugFile::open(&obj).expect("debug file");
        let size = |f: &str| file.symbols[f][0].1;
        let second = file.symbols["second"][0];
        let first = file.symbols["first"][0];
        assert_ne!(second.0, first.0, "each section at an address of its own");
        let l = file.lines(
            &Frame {
                function: "first",
                offset: 0,
                size: size("first"),
                module: Some("t"),
            },
            true,
        );
        assert!(
            matches!(l.as_slice(), [one] if one.function == "first" && (6..=8).contains(&one.line)),
            "{l:?}"
        );
        // Somewhere in second's body, the inlined helper or second's own line 4.
        let mut inlined = false;
        for off in 0..size("second") {
            let l = file.lines(
                &Frame {
                    function: "second",
                    offset: off,
                    size: size("second"),
                    module: Some("t"),
                },
                true,
            );
            if let [inner, outer] = l.as_slice() {
                assert_eq!((inner.function.as_str(), inner.line), ("helper", 1));
                assert_eq!((outer.function.as_str(), outer.line), ("second", 4));
                assert!(outer.file.ends_with("t.c"), "{outer:?}");
                inlined = true;
            }
        }
        assert!(inlined, "helper is inlined into second somewhere");
        // The kernel's size runs to the next symbol (alignment, padding): a larger one
        // still names this function; a smaller one is another function of that name.
        let sized = |size| Frame {
            function: "second",
            offset: 1,
            size,
            module: None,
        };
        assert!(!file.lines(&sized(size("second") + 0x10), false).is_empty());
        assert!(file.lines(&sized(size("second") - 1), false).is_empty());
    }

    /// Claim: in a linked file (as vmlinux is) a frame named by its demangled Rust name
    /// resolves through the symbol table to its own source: this test binary's
    /// `parse_frame`, built with debug information.
    #[test]
    fn linked_files_resolve_demangled_frames() {
        let exe = std::env::current_exe().expect("exe");
        let Some((file, _)) = DebugFile::open(&exe) else {
            eprintln!("the test binary has no debug information: not checked");
            return;
        };
        let name = "trace_irqoff::lines::parse_frame";
        let &[(_, size)] = file.symbols[name].as_slice() else {
            panic!("one {name}");
        };
        let frame = Frame {
            function: name,
            offset: 4,
            size,
            module: None,
        };
        let l = file.lines(&frame, false);
        let own = l.last().expect("a line");
        assert!(own.file.ends_with("lines.rs"), "{own:?}");
        assert_eq!(own.function, name);
    }

    /// Claim: the build id is read from a notes section of several notes.
    #[test]
    fn build_id_from_notes() {
        let mut n = Vec::new();
        let note = |n: &mut Vec<u8>, name: &[u8], kind: u32, desc: &[u8]| {
            n.extend((name.len() as u32).to_ne_bytes());
            n.extend((desc.len() as u32).to_ne_bytes());
            n.extend(kind.to_ne_bytes());
            n.extend(name);
            n.resize(n.len().div_ceil(4) * 4, 0);
            n.extend(desc);
            n.resize(n.len().div_ceil(4) * 4, 0);
        };
        note(&mut n, b"Xen\0", 6, &[1, 2, 3]);
        note(&mut n, b"GNU\0", 3, &[0xde, 0xad, 0xbe, 0xef, 0x01]);
        assert_eq!(note_build_id(&n).as_deref(), Some("deadbeef01"));
        assert_eq!(note_build_id(&n[..20]), None);
    }

    /// Claim: without debug information nothing is resolved and the hint names what lacks
    /// it and the Debian package.
    #[test]
    fn no_debug_information_gives_a_hint() {
        let t = tempfile::tempdir().expect("tempdir");
        let mut r = Record::new(0, crate::model::snapshot::Kind::Hard);
        r.stack = vec!["f+0x1/0x10 [m]".into(), "vfs_write+0x1d7/0x210".into()];
        let mut res = Resolver::new(opts(t.path()));
        res.annotate(&mut r);
        assert!(r.lines.is_empty());
        let hint = res.hint().expect("hint");
        assert!(hint.contains("kernel 7.3.0-test, module m"), "{hint}");
        assert!(hint.contains("linux-image-7.3.0-test-dbg"), "{hint}");
    }
}
