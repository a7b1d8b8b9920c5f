// SPDX-License-Identifier: GPL-2.0
//! The report's SVG plots: reported against true latency per period, and the overhead
//! ratios with their intervals.

use std::path::Path;

use anyhow::Result;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::ratios::Overhead;
use crate::stats::{median, median_ci};
use crate::windows::Window;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Scatter<'a, 'b> =
    ChartContext<'a, SVGBackend<'b>, Cartesian2d<RangedCoordf64, RangedCoordf64>>;

/// Reported against true latency of the windows WS, one panel per period (10 and 1 ms),
/// with the reported = true line and the +/- P band.
pub fn accuracy(path: &Path, ws: &[Window], title: &str) -> Result<()> {
    let root = SVGBackend::new(path, (1000, 460)).into_drawing_area();
    root.fill(&WHITE)?;
    let panels = root.split_evenly((1, 2));
    for (area, p) in panels.iter().zip([10u64, 1]) {
        accuracy_panel(area, ws, title, p)?;
    }
    root.present()?;
    Ok(())
}

fn accuracy_panel(area: &Area, ws: &[Window], title: &str, p: u64) -> Result<()> {
    let max = ws
        .iter()
        .filter(|w| w.period_ms == p)
        .map(|w| w.true_ms.max(w.reported_ms.unwrap_or(0.0)))
        .fold(1.0, f64::max)
        * 1.05;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{title}: reported vs true, P = {p} ms"),
            ("sans-serif", 16),
        )
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(45)
        .build_cartesian_2d(0.0..max, 0.0..max)?;
    chart
        .configure_mesh()
        .x_desc("true window (ms)")
        .y_desc("reported (ms)")
        .draw()?;
    let pf = p as f64;
    chart
        .draw_series(LineSeries::new(
            [(0.0, 0.0), (max, max)],
            BLACK.stroke_width(1),
        ))?
        .label("reported = true");
    chart
        .draw_series(LineSeries::new(
            [(0.0, pf), (max, max + pf)],
            RGBColor(150, 150, 150).stroke_width(1),
        ))?
        .label("true +/- P");
    chart.draw_series(LineSeries::new(
        [(pf, 0.0), (max, max - pf)],
        RGBColor(150, 150, 150).stroke_width(1),
    ))?;
    accuracy_points(&mut chart, ws, p)?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .border_style(BLACK)
        .background_style(WHITE)
        .draw()?;
    Ok(())
}

/// The windows' (true, reported) points, per tool and kind: ours as circles, the
/// original's as triangles.
fn accuracy_points(chart: &mut Scatter, ws: &[Window], p: u64) -> Result<()> {
    for (tool, kind, color, label) in [
        ("ours", "hard", BLUE, "ours hardirq-off"),
        ("ours", "soft", RED, "ours softirq-off"),
        (
            "peer",
            "hard",
            RGBColor(0, 150, 0),
            "original (C) hardirq-off",
        ),
        (
            "peer",
            "soft",
            RGBColor(230, 140, 0),
            "original (C) softirq-off",
        ),
    ] {
        let pts: Vec<(f64, f64)> = ws
            .iter()
            .filter(|w| w.tool == tool && w.period_ms == p && w.kind == kind)
            .filter_map(|w| w.reported_ms.map(|r| (w.true_ms, r)))
            .collect();
        if pts.is_empty() {
            continue;
        }
        if tool == "ours" {
            chart
                .draw_series(pts.iter().map(|&xy| Circle::new(xy, 3, color.filled())))?
                .label(label)
                .legend(move |(x, y)| Circle::new((x, y), 3, color.filled()));
        } else {
            chart
                .draw_series(
                    pts.iter()
                        .map(|&xy| TriangleMarker::new(xy, 4, color.filled())),
                )?
                .label(label)
                .legend(move |(x, y)| TriangleMarker::new((x, y), 4, color.filled()));
        }
    }
    Ok(())
}

/// The overhead ratios of ROWS as bars with their 95% intervals: the CPU-bound loop's
/// and the hackbench-like workload's, side by side.
pub fn overhead(path: &Path, rows: &[Overhead], title: &str) -> Result<()> {
    let root = SVGBackend::new(path, (1000, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let halves = root.split_evenly((1, 2));
    for (area, (name, pick)) in halves
        .iter()
        .zip([("CPU-bound loop", 0), ("hackbench-like", 1)])
    {
        let data: Vec<(String, f64, f64, f64)> = rows
            .iter()
            .map(|r| {
                let v = if pick == 0 { &r.spin } else { &r.hack };
                let m = median(&mut v.clone());
                let (lo, hi) = median_ci(v).unwrap_or((m, m));
                (r.config.clone(), m, lo, hi)
            })
            .filter(|d| d.1.is_finite())
            .collect();
        overhead_panel(area, &data, &format!("{title}: {name}"))?;
    }
    root.present()?;
    Ok(())
}

/// One workload's bars: DATA holds (configuration, median, interval low, high).
fn overhead_panel(area: &Area, data: &[(String, f64, f64, f64)], title: &str) -> Result<()> {
    let top = data.iter().map(|d| d.3).fold(1.02, f64::max) * 1.03;
    let bottom = data.iter().map(|d| d.2).fold(0.98, f64::min) * 0.97;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("{title}, ratio to not loaded (median, 95% CI)"),
            ("sans-serif", 14),
        )
        .margin(10)
        .x_label_area_size(60)
        .y_label_area_size(55)
        .build_cartesian_2d((0..data.len()).into_segmented(), bottom..top)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_label_formatter(&|x| match x {
            SegmentValue::CenterOf(i) => data.get(*i).map(|r| r.0.clone()).unwrap_or_default(),
            _ => String::new(),
        })
        .x_label_style(("sans-serif", 10))
        .y_desc("ratio")
        .draw()?;
    chart.draw_series(data.iter().enumerate().map(|(i, r)| {
        let color = if r.0.starts_with("peer") {
            RGBColor(0, 150, 0)
        } else if r.0.starts_with("ours") || r.0.starts_with("loaded") {
            BLUE
        } else {
            RGBColor(200, 120, 0)
        };
        Rectangle::new(
            [
                (SegmentValue::Exact(i), bottom),
                (SegmentValue::Exact(i + 1), r.1),
            ],
            color.mix(0.6).filled(),
        )
    }))?;
    chart.draw_series(data.iter().enumerate().map(|(i, r)| {
        ErrorBar::new_vertical(SegmentValue::CenterOf(i), r.2, r.1, r.3, BLACK.filled(), 10)
    }))?;
    chart.draw_series(LineSeries::new(
        [
            (SegmentValue::Exact(0), 1.0),
            (SegmentValue::Exact(data.len()), 1.0),
        ],
        BLACK,
    ))?;
    Ok(())
}
