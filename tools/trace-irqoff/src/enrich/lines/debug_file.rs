// SPDX-License-Identifier: GPL-2.0
//! One debug file read for `--lines`: its ELF symbol table and DWARF (`addr2line`), a
//! whole compressed module decompressed, compressed debug sections decompressed, and a
//! relocatable module's DWARF relocated with each section at an address of its own.

use std::collections::HashMap;
use std::path::Path;

use addr2line::gimli;
use object::{Object, ObjectSection, ObjectSymbol, RelocationKind, RelocationTarget};

use super::{hex, Frame};
use crate::model::snapshot::SourceLine;

type Reader = gimli::EndianSlice<'static, gimli::RunTimeEndian>;

/// One debug file, read.
pub(super) struct DebugFile {
    ctx: addr2line::Context<Reader>,
    /// Function symbols by name (and by demangled name): (address, size).
    pub(super) symbols: HashMap<String, Vec<(u64, u64)>>,
}

impl DebugFile {
    /// Reads `path`; `None` if it is not an ELF file with DWARF line information.
    ///
    /// The file stays mapped, and a module's relocated sections allocated, until the CLI
    /// exits: it resolves once and ends, and `addr2line` borrows them throughout.
    pub(super) fn open(path: &Path) -> Option<(Self, Option<String>)> {
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
                    file: tidy(file),
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
    pub(super) fn lines(&self, frame: &Frame<'_>, exact: bool) -> Vec<SourceLine> {
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

/// `file` without its `.` components. DWARF names a header that the build generated from the
/// build's top directory, as `BUILD/./arch/x86/include/generated/...`: the same file as
/// `BUILD/arch/...`, which is what a user looks for.
pub(super) fn tidy(file: &str) -> String {
    Path::new(file)
        .components()
        .collect::<std::path::PathBuf>()
        .to_string_lossy()
        .into_owned()
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
