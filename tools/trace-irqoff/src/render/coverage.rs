// SPDX-License-Identifier: GPL-2.0
//! Whether a view of the module's records (`records`, `top`) shows every window: the
//! event ring's windows are merged into the store's, and what neither holds any more is
//! said in a footnote, with the command that has them.

pub use crate::enrich::ring_windows::Coverage;

impl Coverage {
    /// The footnote, one sentence (none when every window is shown); wrapped to `cols`
    /// on a terminal.
    pub fn footnote(&self, cols: Option<usize>) -> String {
        let Some(l) = self.sentence() else {
            return String::new();
        };
        match cols {
            Some(w) => super::line::wrap(&l, w),
            None => l + "\n",
        }
    }

    /// The sentence of [`Coverage::footnote`].
    pub fn sentence(&self) -> Option<String> {
        if self.unshown == 0 {
            return None;
        }
        let n = self.unshown;
        let windows = if n == 1 { "window" } else { "windows" };
        Some(match &self.no_ring {
            Some(why) => format!(
                "{n} {windows} over the threshold not shown: the module's store did not keep them (dropped or replaced by worse ones), and no event ring gives them back: {why}; trace-irqoff status counts them, and once the ring runs (trace-irqoff enable) record --last and watch show every window"
            ),
            None => format!(
                "{n} {windows} over the threshold not shown: neither the module's store (dropped or replaced) nor the event ring (overwritten) holds them any more; trace-irqoff status counts them, trace-irqoff record keeps every window from its start"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: the footnote is there exactly when windows are not shown, says which
    /// command has them, and fits the terminal.
    #[test]
    fn the_footnote_names_what_is_missing_and_where() {
        assert_eq!(Coverage::default().footnote(Some(80)), "");
        let c = Coverage {
            added: 0,
            unshown: 7,
            no_ring: Some("the event ring is off".into()),
        };
        let f = c.footnote(Some(80));
        assert!(
            f.starts_with("7 windows over the threshold not shown"),
            "{f}"
        );
        assert!(f.contains("record --last and watch"), "{f}");
        assert!(f.lines().all(|l| l.chars().count() <= 80), "{f}");
        let c = Coverage {
            unshown: 1,
            no_ring: None,
            ..c
        };
        assert!(c.footnote(None).starts_with("1 window over"));
    }
}
