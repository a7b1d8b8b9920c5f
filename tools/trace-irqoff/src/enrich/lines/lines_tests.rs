// SPDX-License-Identifier: GPL-2.0
//! Host tests of `--lines`: frames, the lookup order of debug files, build-id notes, and
//! debug files read (relocatable and linked, compressed in every way the fixtures of
//! tests/fixtures/debug give).

use super::debug_file::DebugFile;
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
    let name = "trace_irqoff::enrich::lines::parse_frame";
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
/// A generated header's path as DWARF gives it, `BUILD/./arch/...`, is shown as
/// `BUILD/arch/...`; other paths are kept as they are.
#[test]
fn dot_components_leave_paths() {
    use super::debug_file::tidy;
    assert_eq!(
        tidy("debian/build/build_amd64_none_amd64/./arch/x86/include/generated/asm/syscalls_64.h"),
        "debian/build/build_amd64_none_amd64/arch/x86/include/generated/asm/syscalls_64.h"
    );
    assert_eq!(
        tidy("/usr/src/linux/./kernel/./time/hrtimer.c"),
        "/usr/src/linux/kernel/time/hrtimer.c"
    );
    assert_eq!(tidy("fs/read_write.c"), "fs/read_write.c");
    assert_eq!(tidy("../rust/kernel/lib.rs"), "../rust/kernel/lib.rs");
}

/// Claim: the GNU build ID is found among ELF notes after a note of another owner and
/// read as the lowercase hex of its bytes, and notes that hold only the other owner's
/// note give none.
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
