// SPDX-License-Identifier: GPL-2.0
//! What every section of the report uses: HTML escaping, the colour of a window, the
//! note that closes a section, the width of its drawings.

use std::fmt::Write;

use crate::model::snapshot::{Cause, Kind};

/// The page's width in SVG units (it scales to the window).
pub const WIDTH: f64 = 1100.0;

/// `s` with `& < > " '` escaped: fit for HTML and SVG text and attributes.
pub fn esc(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

/// The colour of a window: hardirq-off red, bh-off orange, ksoftirqd-wait blue, a softirq
/// window of unknown cause (records before format v2) purple.
pub fn colour(kind: Kind, cause: Option<Cause>) -> &'static str {
    match (kind, cause) {
        (Kind::Hard, _) => "#d62728",
        (Kind::Soft, Some(Cause::BhOff)) => "#ff7f0e",
        (Kind::Soft, Some(Cause::KsoftirqdWait)) => "#1f77b4",
        (Kind::Soft, None) => "#9467bd",
    }
}

/// Ends a section, saying first what it left out: `n` (when any) and `what`.
pub fn close(o: &mut String, n: usize, what: &str) {
    if n > 0 {
        let _ = writeln!(o, "<p class=\"note\">{n} {}.</p>", esc(what));
    }
    o.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every character HTML gives a meaning to is escaped, the rest kept.
    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<script>alert('x&y')</script> \"q\" ü"),
            "&lt;script&gt;alert(&#39;x&amp;y&#39;)&lt;/script&gt; &quot;q&quot; ü"
        );
    }
}
