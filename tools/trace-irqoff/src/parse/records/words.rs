// SPDX-License-Identifier: GPL-2.0
//! Words that lines of several kinds hold: the kind of a window, a task name as the
//! module escapes it.

use crate::fields::{malformed, ParseError};
use crate::model::snapshot::Kind;

/// Undoes the module's `\xHH` escaping of comm (`tio_logic::escape`, the module's own
/// escaping and its inverse), as text.
pub fn unescape(s: &str) -> String {
    String::from_utf8_lossy(&tio_logic::escape::unescape(s)).into_owned()
}

/// The kind of window `s` names, on line `n`.
pub fn kind(n: usize, s: &str) -> Result<Kind, ParseError> {
    Kind::from_name(s).ok_or_else(|| malformed(n, format!("unknown kind '{s}'")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: `unescape` turns the module's \xNN escapes back into their characters
    /// (space, `=`, backslash), leaves plain words alone and keeps an invalid escape as
    /// written.
    #[test]
    fn unescape_round_trips_module_escapes() {
        assert_eq!(unescape("kworker/1:1\\x20x"), "kworker/1:1 x");
        assert_eq!(unescape("a\\x3db\\x5cc"), "a=b\\c");
        assert_eq!(unescape("plain"), "plain");
        assert_eq!(unescape("bad\\xZZ"), "bad\\xZZ");
    }
}
