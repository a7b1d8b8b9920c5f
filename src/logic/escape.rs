// SPDX-License-Identifier: GPL-2.0

//! Escaping of task names for the machine-readable file. Pure logic (`core` only).
//!
//! A comm may hold any byte but NUL. In `key=value` lines it is written with every byte
//! outside printable ASCII, and space, `\` and `=`, as `\xHH`, so a line always splits on
//! spaces and the original bytes can be recovered.

use core::fmt;

/// Displays bytes escaped as described above.
pub(crate) struct Escaped<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.0 {
            if b.is_ascii_graphic() && b != b'\\' && b != b'=' {
                fmt::Write::write_char(f, char::from(b))?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

/// Displays bytes as text, replacing what is not printable ASCII with `?`, for the files
/// people read.
pub(crate) struct Printable<'a>(pub(crate) &'a [u8]);

impl fmt::Display for Printable<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in self.0 {
            let c = if b == b' ' || b.is_ascii_graphic() {
                char::from(b)
            } else {
                '?'
            };
            fmt::Write::write_char(f, c)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;

    /// Claim: `Escaped` keeps printable ASCII and writes space, `=`, `\`, newline and
    /// non-ASCII bytes as `\xHH`; `Printable` keeps spaces and prints control bytes as `?`.
    #[test]
    fn escapes_separators_and_non_ascii() {
        assert_eq!(format!("{}", Escaped(b"bash")), "bash");
        assert_eq!(
            format!("{}", Escaped(b"kworker/1:1 x")),
            "kworker/1:1\\x20x"
        );
        assert_eq!(
            format!("{}", Escaped(b"a=b\\c\n\xff")),
            "a\\x3db\\x5cc\\x0a\\xff"
        );
        assert_eq!(format!("{}", Printable(b"a b\x01")), "a b?");
    }
}
