// SPDX-License-Identifier: GPL-2.0
//! Frames as people read them: Rust symbols demangled (legacy `_ZN...E` and v0 `_R...`
//! schemes), the rest as the kernel printed them (`%pS`: `func+0x1f/0x80 [module]`).
//! `--raw-symbols` keeps every frame as printed; the /proc files always are.

use crate::model::snapshot::Record;

/// A frame as the kernel prints it with build ids (`%pSb` where the kernel has
/// CONFIG_STACKTRACE_BUILD_ID: `func+0x1f/0x80 [module 0123abcd...]`): the frame as `%pS`
/// prints it, `[module]`, and the module's name and build id. Other frames are kept.
pub fn split_build_id(frame: &str) -> (String, Option<(String, String)>) {
    // The module's own reading of its frames (tio-logic): `func+0x1f/0x80 [module`.
    let Some(head) = tio_logic::names::without_build_id(frame.as_bytes()) else {
        return (frame.to_string(), None);
    };
    let head = &frame[..head.len()];
    let module = head.rsplit_once('[').map_or("", |(_, m)| m);
    let id = &frame[head.len() + 1..frame.len() - 1];
    (
        format!("{head}]"),
        Some((module.to_string(), id.to_ascii_lowercase())),
    )
}

/// `frame` with its symbol demangled when it is a Rust one; offset and module kept.
pub fn demangle_frame(frame: &str) -> String {
    let (symbol, rest) = split(frame);
    match rustc_demangle::try_demangle(symbol) {
        // `{:#}` leaves out the hashes (crate disambiguators and legacy `::h...`).
        Ok(d) => format!("{d:#}{rest}"),
        Err(_) => frame.to_string(),
    }
}

/// Every frame of `records` (end stack, in-window stack, profile stacks) demangled
/// ([`demangle_frame`]): what the store's records and the event ring's windows both go
/// through, so one window has one name whichever way it came. Frames already demangled
/// stay as they are.
pub fn demangle_records(records: &mut [Record]) {
    for r in records {
        let profile = r
            .profile
            .iter_mut()
            .flat_map(|p| p.stacks.iter_mut().flat_map(|s| s.frames.iter_mut()));
        for f in r.stack.iter_mut().chain(&mut r.window_stack).chain(profile) {
            *f = demangle_frame(f);
        }
    }
}

/// The function of a frame, without offset and module: "func+0x1f/0x80 [mod]" -> "func".
/// A demangled name may hold spaces (`<A as B>::f`), so the offset or the module suffix
/// ends it, not the first space.
pub fn function(frame: &str) -> &str {
    split(frame).0
}

/// The kernel module a frame is in ("irqoff_sample" of "f+0x30/0x4d [irqoff_sample]");
/// none for the kernel's own code.
pub fn module(frame: &str) -> Option<&str> {
    let tail = split(frame).1;
    tail[tail.rfind(" [")? + 2..].strip_suffix(']')
}

/// (symbol, "+0x../0x.. [module]" or " [module]" or "").
fn split(frame: &str) -> (&str, &str) {
    let end = frame
        .rfind("+0x")
        .or_else(|| frame.strip_suffix(']').and_then(|f| f.rfind(" [")))
        .unwrap_or(frame.len());
    frame.split_at(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a frame's module is the name in its brackets, with or without an offset;
    /// a frame of the kernel's own code has none.
    #[test]
    fn a_frames_module_is_the_name_in_its_brackets() {
        assert_eq!(
            module("irqoff_sample_hardirq_window+0x30/0x4d [irqoff_sample]"),
            Some("irqoff_sample")
        );
        assert_eq!(module("hog [my_mod]"), Some("my_mod"));
        assert_eq!(module("vfs_write+0x1d7/0x210"), None);
        assert_eq!(module("0xffffffff81000000"), None);
    }

    /// Claim: a Rust v0-mangled frame is demangled to its path (a trait impl as
    /// `<Type as Trait>::method`), with its +offset/size and [module] kept.
    #[test]
    fn v0_symbols_are_demangled_with_offset_and_module_kept() {
        let raw = "_RNvXs4_Cs7mu83waahYW_18irqoff_sample_mainNtB5_12SampleDeviceNtNtCsb5MLIFMWygY_6kernel10miscdevice10MiscDevice10write_iter+0x71c/0x870 [irqoff_sample]";
        assert_eq!(
            demangle_frame(raw),
            "<irqoff_sample_main::SampleDevice as kernel::miscdevice::MiscDevice>::write_iter+0x71c/0x870 [irqoff_sample]"
        );
    }

    /// Claim: a frame with its module's build id reads as the same frame without it, and
    /// gives the module's name and id; frames without one are kept as they are.
    #[test]
    fn build_ids_are_split_off_module_frames() {
        assert_eq!(
            split_build_id("irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample 0a1B2c3d4e5f60718293a4b5c6d7e8f901234567]"),
            (
                "irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample]".to_string(),
                Some((
                    "irqoff_sample".to_string(),
                    "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567".to_string()
                ))
            )
        );
        for f in [
            "vfs_write+0x1d7/0x210",
            "f+0x1/0x2 [m]",
            "<a::B as c::D>::f+0x1/0x2 [m]",
            "f+0x1/0x2 [m notahexid]",
            "0xffffffffa000a15e",
        ] {
            assert_eq!(split_build_id(f), (f.to_string(), None));
        }
    }

    /// Claim: a Rust legacy-mangled (_ZN...E) frame is demangled without its hash,
    /// keeping its offset.
    #[test]
    fn legacy_symbols_are_demangled() {
        assert_eq!(
            demangle_frame("_ZN4core3fmt5write17h0123456789abcdefE+0x10/0x20"),
            "core::fmt::write+0x10/0x20"
        );
    }

    /// Claim: C symbols (with or without a module), bare addresses and a `_R` name that
    /// is not a valid v0 symbol are left exactly as printed.
    #[test]
    fn c_symbols_and_addresses_stay_as_printed() {
        for f in [
            "vfs_write+0x1d7/0x210",
            "irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample]",
            "0xffffffffa000a15e",
            "_Rbogus+0x1/0x2",
        ] {
            assert_eq!(demangle_frame(f), f);
        }
    }

    /// Claim: a frame's function name is everything before its +offset or [module], for C
    /// and demangled Rust names alike, and a bare address is its own name.
    #[test]
    fn function_ends_at_offset_or_module() {
        assert_eq!(
            function("irqoff_sample_hardirq_window+0x2d/0x53 [irqoff_sample]"),
            "irqoff_sample_hardirq_window"
        );
        assert_eq!(function("vfs_write+0x1d7/0x210"), "vfs_write");
        assert_eq!(function("0xffffffff81000000"), "0xffffffff81000000");
        assert_eq!(
            function("<a::B as c::D>::f+0x1/0x2 [m]"),
            "<a::B as c::D>::f"
        );
        assert_eq!(function("f [m]"), "f");
    }
}
