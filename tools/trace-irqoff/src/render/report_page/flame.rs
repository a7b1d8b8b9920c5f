// SPDX-License-Identifier: GPL-2.0
//! The report's flame graph: the culprit stacks, weighted by time with interrupts off,
//! drawn as inline SVG.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::markup::{esc, WIDTH};

/// Frames of the flame graph narrower than this (pixels) are left out.
pub const FLAME_MIN_WIDTH: f64 = 1.0;

/// Height of a flame graph frame, pixels.
const FLAME_ROW: f64 = 17.0;

/// The flame graph of the culprit stacks weighted by time with interrupts off
/// (`folded` by latency: in-window profiles where there are), inline SVG.
pub fn flamegraph(o: &mut String, folded: &str) {
    o.push_str("<section id=\"flamegraph\">\n<h2>Flame graph</h2>\n");
    if folded.is_empty() {
        o.push_str("<p>No stacks to draw.</p>\n</section>\n");
        return;
    }
    o.push_str("<p class=\"note\">The culprit stacks weighted by the time with interrupts or softirqs off (ms), root at the bottom: kind, task, then the stack; a window with an in-window profile counts where it was sampled. Frames narrower than a pixel are left out; hover a frame for its name and weight.</p>\n");
    o.push_str(&flame_svg(folded));
    o.push_str("</section>\n");
}

/// A node of the flame graph: a frame and the weight of the stacks through it.
#[derive(Default)]
struct Flame {
    weight: u64,
    children: BTreeMap<String, Flame>,
}

impl Flame {
    /// The tree of `folded` (`root;...;leaf WEIGHT` lines): stacks merged from the root.
    fn of(folded: &str) -> Self {
        let mut root = Flame::default();
        for line in folded.lines() {
            let Some((stack, w)) = line.rsplit_once(' ') else {
                continue;
            };
            let Ok(w) = w.parse::<u64>() else { continue };
            root.weight += w;
            let mut node = &mut root;
            for frame in stack.split(';') {
                node = node.children.entry(frame.to_string()).or_default();
                node.weight += w;
            }
        }
        root
    }

    fn depth(&self) -> usize {
        self.children
            .values()
            .map(|c| c.depth() + 1)
            .max()
            .unwrap_or(0)
    }
}

/// The flame graph of `folded` as inline SVG, root at the bottom, a frame's width its
/// share of the weight; each frame's `<title>` says its name, weight (ms) and share.
/// Drawn here (a few rectangles and texts) rather than by inferno, whose licence
/// (CDDL-1.0) does not go with the GPL-2.0 binary it would be linked into.
fn flame_svg(folded: &str) -> String {
    let root = Flame::of(folded);
    let depth = root.depth();
    let height = (depth as f64 + 1.0) * FLAME_ROW + 30.0;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "<svg id=\"flamegraph-svg\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {WIDTH} {height}\" width=\"{WIDTH}\" height=\"{height}\" font-size=\"11\" font-family=\"monospace\">"
    );
    let _ = writeln!(
        o,
        "<text x=\"{}\" y=\"16\" text-anchor=\"middle\" font-size=\"13\">Culprit stacks, weighted by time with irqs off ({} ms in all)</text>",
        WIDTH / 2.0,
        root.weight
    );
    if root.weight > 0 {
        let scale = (WIDTH - 20.0) / root.weight as f64;
        flame_frames(&mut o, &root, root.weight, 10.0, height - FLAME_ROW, scale);
    }
    o.push_str("</svg>\n");
    o
}

/// Draws the children of `node` from `x` on, their row at `y`, and theirs above.
fn flame_frames(o: &mut String, node: &Flame, total: u64, mut x: f64, y: f64, scale: f64) {
    for (name, child) in &node.children {
        let w = child.weight as f64 * scale;
        if w >= FLAME_MIN_WIDTH {
            let pct = child.weight as f64 * 100.0 / total as f64;
            // Warm colours, the same for a name wherever it is (a hash of it).
            let h = name
                .bytes()
                .fold(5381u32, |h, b| h.wrapping_mul(33) ^ u32::from(b));
            let fill = format!(
                "rgb({},{},{})",
                205 + h % 50,
                (h >> 8) % 180 + 40,
                (h >> 16) % 55
            );
            // About 6.6 pixels a character at this size: as much of the name as fits.
            let fits = ((w - 6.0) / 6.6).max(0.0) as usize;
            let label: String = if name.chars().count() <= fits {
                name.clone()
            } else if fits > 2 {
                name.chars().take(fits - 2).collect::<String>() + ".."
            } else {
                String::new()
            };
            let _ = writeln!(
                o,
                "<g><title>{} ({} ms, {pct:.1}%)</title><rect x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\" fill=\"{fill}\" rx=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\">{}</text></g>",
                esc(name),
                child.weight,
                FLAME_ROW - 1.0,
                x + 3.0,
                y + FLAME_ROW - 5.0,
                esc(&label)
            );
            flame_frames(o, child, total, x, y - FLAME_ROW, scale);
        }
        x += w;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The flame graph is inline SVG without script; it merges stacks from the root,
    /// sizes frames by weight, and escapes what the records say.
    #[test]
    fn flame_graph_is_inline_svg_without_script() {
        let svg = flame_svg("hardirq-off;<script>x</script>;f 3\nhardirq-off;sh;g 1\n");
        assert!(svg.starts_with("<svg id=\"flamegraph-svg\" "), "{svg}");
        assert!(!svg.contains("<script"), "{svg}");
        assert!(
            svg.contains("&lt;script&gt;x&lt;/script&gt; (3 ms, 75.0%)"),
            "{svg}"
        );
        // One hardirq-off frame for both stacks, as wide as the graph.
        assert_eq!(
            svg.matches("<title>hardirq-off (4 ms, 100.0%)</title>")
                .count(),
            1
        );
        assert!(svg.contains("width=\"1080.0\""), "{svg}");
        assert!(svg.contains("<title>g (1 ms, 25.0%)</title>"), "{svg}");
    }
}
