// SPDX-License-Identifier: GPL-2.0
//! reStructuredText pieces every section writes: simple tables and headings.

use std::fmt::Write;

/// A simple table of HEAD and ROWS, each column as wide as its widest cell; an empty
/// cell is written `..` (an empty first cell would end the table).
pub fn table(out: &mut String, head: &[&str], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..head.len())
        .map(|i| {
            rows.iter()
                .map(|r| r[i].chars().count())
                .chain([head[i].chars().count()])
                .max()
                .unwrap_or(1)
                .max(1)
        })
        .collect();
    let sep: String = widths
        .iter()
        .map(|w| "=".repeat(*w))
        .collect::<Vec<_>>()
        .join("  ");
    let line = |cells: Vec<String>| {
        cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c}{}", " ".repeat(w - c.chars().count())))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    };
    let _ = writeln!(out, "{sep}");
    let _ = writeln!(
        out,
        "{}",
        line(head.iter().map(|s| s.to_string()).collect())
    );
    let _ = writeln!(out, "{sep}");
    for r in rows {
        let cells: Vec<String> = r
            .iter()
            .map(|c| {
                if c.is_empty() {
                    "..".to_string()
                } else {
                    c.clone()
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line(cells));
    }
    let _ = writeln!(out, "{sep}\n");
}

/// TITLE underlined with CH, as long as the title in characters.
pub fn heading(o: &mut String, title: &str, ch: char) {
    let _ = writeln!(
        o,
        "{title}\n{}\n",
        ch.to_string().repeat(title.chars().count())
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Claim: a table's columns are as wide as their widest cell (head included, in
    /// characters, not bytes), cells are two spaces apart with no trailing space, and an
    /// empty cell is written `..`.
    #[test]
    fn table_widths_and_empty_cells() {
        let mut o = String::new();
        let rows = vec![
            vec!["µs".to_string(), String::new()],
            vec!["long cell".to_string(), "x".to_string()],
        ];
        table(&mut o, &["a", "bb"], &rows);
        assert_eq!(
            o,
            "=========  ==\na          bb\n=========  ==\nµs         ..\nlong cell  x\n=========  ==\n\n"
        );
    }

    /// Claim: a heading's underline has one character per character of the title.
    #[test]
    fn heading_underline_counts_characters() {
        let mut o = String::new();
        heading(&mut o, "Één", '-');
        assert_eq!(o, "Één\n---\n\n");
    }
}
