// SPDX-License-Identifier: GPL-2.0
//! `explain`'s answer as text for people: one paragraph per delay, what explains it or
//! the sentence that nothing does, then the limits; every line within 80 columns.

use std::fmt::Write;

use crate::model::clock::{ms, secs};
use crate::model::delay::{cpu_list, Delay, DelayKind, Explained, Match, Pause, Window};
use crate::model::explain_answer::{Answer, Verdict};
use crate::model::explain_wakeup::{Phase, Wakeup, Wakeups};

/// The width every line fits in.
pub const WIDTH: usize = 80;

/// The wake-ups the text shows, slowest first (`--json` has them all).
pub const WAKEUPS_SHOWN: usize = 20;

/// The whole answer.
pub fn text(a: &Answer) -> String {
    let mut o = String::new();
    // One line, never wrapped: `head -n 1` gives a script the whole verdict.
    if !a.verdict_line.is_empty() {
        let _ = writeln!(o, "{}", a.verdict_line);
    }
    // With --wakeups and no delay, the wake-ups' sentence says the span.
    if a.wakeups.is_none() || !a.delays.is_empty() {
        para(&mut o, "", &summary(a));
    }
    if let Some(n) = &a.netdev {
        para(&mut o, "", &n.words());
    }
    if let Some(w) = &a.wakeups {
        if !a.delays.is_empty() {
            o.push('\n');
        }
        para(&mut o, "", &wakeup_summary(a, w));
        for x in w.wakeups.iter().take(WAKEUPS_SHOWN) {
            o.push('\n');
            wakeup(&mut o, x);
        }
        if w.wakeups.len() > WAKEUPS_SHOWN {
            o.push('\n');
            para(
                &mut o,
                "",
                &format!(
                    "({} more, each faster: --json has them all.)",
                    w.wakeups.len() - WAKEUPS_SHOWN
                ),
            );
        }
    }
    for e in &a.delays {
        o.push('\n');
        delay(&mut o, e);
    }
    o.push('\n');
    para(&mut o, "", &limits(a));
    for n in &a.notes {
        para(&mut o, "", &format!("Note: {n}"));
    }
    o
}

/// The answer's first sentence: how many delays of what length in which span, how many
/// explained, and how many windows were seen where (`report --explain` says the same).
pub fn summary(a: &Answer) -> String {
    let explained = a.delays.iter().filter(|e| !e.windows.is_empty()).count();
    let span = match (a.span_start_ns, a.span_end_ns) {
        (Some(s), Some(e)) => format!("from {} s to {} s", secs(s), secs(e)),
        _ => "in an empty trace".to_string(),
    };
    format!(
        "{} of {} or more {span}, {explained} explained by irq-off windows \
         ({} seen, from the {}).",
        counted(a.delays.len(), "delay"),
        ms(a.min_ns),
        counted(a.windows_seen, "window"),
        match a.windows_from.as_str() {
            "records+ring" => "records and the event ring",
            _ => "records only",
        }
    )
}

/// One thing asked about, as the verdict weighs it: a delay or a wake-up.
struct Asked<'a> {
    len_ns: u64,
    /// Held by an irq-off window.
    held: bool,
    /// Could be told (not too short, not begun before the windows held).
    told: bool,
    paused: bool,
    headline: String,
    windows: Vec<&'a Window>,
}

/// The delays and wake-ups of `a`, as the verdict weighs them.
fn asked(a: &Answer) -> Vec<Asked<'_>> {
    let delays = a.delays.iter().map(|e| Asked {
        len_ns: e.delay.len_ns(),
        held: !e.windows.is_empty(),
        told: !e.too_short && !e.before_held,
        paused: !e.pauses.is_empty(),
        headline: headline(&e.delay),
        windows: e.windows.iter().map(|m| &m.window).collect(),
    });
    let wakeups = a.wakeups.iter().flat_map(|w| &w.wakeups).map(|w| Asked {
        len_ns: w.len_ns(),
        held: w.explained(),
        told: !w.too_short() && !w.before_held,
        paused: w.paused(),
        headline: wakeup_headline(w),
        windows: w
            .phases
            .iter()
            .flat_map(|p| &p.windows)
            .map(|m| &m.window)
            .collect(),
    });
    delays.chain(wakeups).collect()
}

/// What was asked about, counted: "3 delays", and with `--wakeups` "2 delays and 4
/// wake-ups" (only "4 wake-ups" with no delay); `held` puts "N of" before each.
fn asked_words(a: &Answer, held: bool) -> String {
    let of = |n: usize, all: usize, what: &str| {
        if held {
            format!("{n} of {}", counted(all, what))
        } else {
            counted(all, what)
        }
    };
    let d_held = a.delays.iter().filter(|e| !e.windows.is_empty()).count();
    let delays = of(d_held, a.delays.len(), "delay");
    match &a.wakeups {
        None => delays,
        Some(w) => {
            let w_held = w.wakeups.iter().filter(|w| w.explained()).count();
            let wakeups = of(w_held, w.wakeups.len(), "wake-up");
            if a.delays.is_empty() {
                wakeups
            } else {
                format!("{delays} and {wakeups}")
            }
        }
    }
}

/// The verdict of `a` (its delays and wake-ups joined) and the line that says it before
/// the details: "Verdict: yes: 2 of 3 delays were held by irq-off windows; the worst, a
/// hardirq-off window of ... on CPU 1 by irq_test[90] in f", "Verdict: no: none of the 3
/// delays was held by an irq-off window; the largest: ...", "Verdict: unknown: ..."
/// (why). With `--wakeups` the wake-ups count too: "1 of 2 delays and 3 of 4 wake-ups".
pub fn verdict(a: &Answer) -> (Verdict, String) {
    let items = asked(a);
    let all = items.len();
    let held: Vec<&Asked<'_>> = items.iter().filter(|e| e.held).collect();
    if !held.is_empty() {
        let worst = held.iter().flat_map(|e| &e.windows).max_by_key(|w| {
            (
                w.end_ns.saturating_sub(w.start_ns),
                std::cmp::Reverse(w.start_ns),
            )
        });
        // "1 of 2 delays and 0 of 3 wake-ups were": two counts take the plural.
        let one_count = a.wakeups.is_none() || a.delays.is_empty();
        let were = if held.len() == 1 && one_count {
            "was"
        } else {
            "were"
        };
        let mut line = format!(
            "Verdict: yes: {} {were} held by irq-off windows",
            asked_words(a, true)
        );
        if let Some(w) = worst {
            let _ = write!(line, "; the worst, {}", window_words(w));
        }
        line.push('.');
        return (Verdict::Yes, line);
    }
    if all == 0 {
        let what = if a.wakeups.is_some() {
            "delay or wake-up"
        } else {
            "delay"
        };
        return (
            Verdict::Unknown,
            format!(
                "Verdict: unknown: no {what} of {} or more was traced in the span.",
                ms(a.min_ns)
            ),
        );
    }
    let mut told: Vec<&Asked<'_>> = items.iter().filter(|e| e.told).collect();
    if told.is_empty() {
        return (
            Verdict::Unknown,
            format!(
                "Verdict: unknown: {} too short to tell (windows under {} are not seen) or began before the oldest window held.",
                if all == 1 { format!("the {} was", asked_words(a, false)) } else { format!("all {} were", asked_words(a, false)) },
                ms(a.limits.period_ns.saturating_mul(2))
            ),
        );
    }
    told.sort_by_key(|e| std::cmp::Reverse(e.len_ns));
    let largest: Vec<String> = told
        .iter()
        .take(3)
        .map(|e| {
            let mut h = e.headline.clone();
            if e.paused {
                h.push_str(", held by a pause of the whole VM");
            }
            h
        })
        .collect();
    let none = if all == 1 {
        format!("the {} was not", asked_words(a, false))
    } else {
        format!("none of the {} was", asked_words(a, false))
    };
    (
        Verdict::No,
        format!(
            "Verdict: no: {none} held by an irq-off window; the largest: {}.",
            largest.join("; ")
        ),
    )
}

/// "1 delay", "2 delays".
fn counted(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// The answer's limits in one sentence or two: the sampling period, since when windows
/// are held and how many delays and wake-ups began before that, and how many were too
/// short to tell (`report --explain` says the same).
pub fn limits(a: &Answer) -> String {
    let mut limits = format!(
        "Limits: window edges are known to within the sampling period ({}).",
        ms(a.limits.period_ns)
    );
    match a.limits.held_from_ns {
        Some(h) => {
            let _ = write!(limits, " Windows are held from {} s on", secs(h));
            let before = a.delays.iter().filter(|e| e.before_held).count();
            if before > 0 {
                let _ = write!(
                    limits,
                    "; {} began before that: windows then are no longer held",
                    counted(before, "delay")
                );
            }
            let woken = a
                .wakeups
                .iter()
                .flat_map(|w| &w.wakeups)
                .filter(|w| w.before_held)
                .count();
            if woken > 0 {
                let _ = write!(limits, "; {} began before that", counted(woken, "wake-up"));
            }
            limits.push('.');
        }
        None => limits.push_str(" Since when windows are held is unknown."),
    }
    let short = a.delays.iter().filter(|e| e.too_short).count();
    let short_woken = a
        .wakeups
        .iter()
        .flat_map(|w| &w.wakeups)
        .filter(|w| w.too_short())
        .count();
    let _ = write!(
        limits,
        " Windows under {} (2 sampling periods) are not seen",
        ms(a.limits.period_ns.saturating_mul(2))
    );
    let shorts: Vec<String> = [(short, "delay"), (short_woken, "wake-up")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| counted(n, what))
        .collect();
    if !shorts.is_empty() {
        let _ = write!(
            limits,
            ": {} shorter than that {} too short to tell",
            shorts.join(" and "),
            if short + short_woken == 1 {
                "is"
            } else {
                "are"
            }
        );
    }
    limits.push('.');
    if a.limits.trace_lost > 0 {
        let _ = write!(
            limits,
            " The trace's own ring lost {} events: delays may be missing.",
            a.limits.trace_lost
        );
    }
    limits
}

/// The wake-ups' first sentence: how many of what length, whose, in which span, how
/// many explained, the windows seen, and how the shares are rounded.
pub fn wakeup_summary(a: &Answer, w: &Wakeups) -> String {
    let explained = w.wakeups.iter().filter(|x| x.explained()).count();
    let tids: Vec<u32> = w
        .threads
        .iter()
        .filter_map(|t| u32::try_from(*t).ok())
        .collect();
    let threads = if tids.len() == 1 {
        format!("thread {}", cpu_list(&tids))
    } else {
        format!("threads {}", cpu_list(&tids))
    };
    let span = match (a.span_start_ns, a.span_end_ns) {
        (Some(s), Some(e)) => format!("from {} s to {} s", secs(s), secs(e)),
        _ => "in an empty trace".to_string(),
    };
    format!(
        "{} of {} or more of {} ({threads}) {span}, {explained} explained by irq-off \
         windows ({} seen, from the {}); slowest first, each phase with its share of the \
         whole in whole percents (largest remainder: they add up to 100).",
        counted(w.wakeups.len(), "wake-up"),
        ms(a.min_ns),
        w.of,
        counted(a.windows_seen, "window"),
        match a.windows_from.as_str() {
            "records+ring" => "records and the event ring",
            _ => "records only",
        }
    )
}

/// What was woken and how long it took: "wake-up of cat[123] took 83.500 ms from
/// 3.950000 s".
pub fn wakeup_headline(w: &Wakeup) -> String {
    format!(
        "wake-up of {} took {} from {} s",
        w.task,
        ms(w.len_ns()),
        secs(w.start_ns)
    )
}

/// Where a wake-up went: "by a timer on CPU 1; woken from CPU 0 to CPU 1 through the wake
/// list's IPI; ran on CPU 1".
pub fn wakeup_route(w: &Wakeup) -> String {
    let mut parts = Vec::new();
    let soft = if w.timer_soft {
        " (expired in the softirq thread)"
    } else {
        ""
    };
    match (w.timer_cpu, w.expires_ns) {
        (Some(cpu), Some(_)) => parts.push(format!("by a timer on CPU {cpu}{soft}")),
        (Some(cpu), None) => parts.push(format!(
            "by a timer on CPU {cpu}{soft} started before the trace (its lateness is not known)"
        )),
        (None, _) => {}
    }
    parts.push(match (w.remote(), w.ipi) {
        (false, _) => format!("woken on CPU {}", w.target_cpu),
        (true, true) => format!(
            "woken from CPU {} to CPU {} through the wake list's IPI",
            w.waker_cpu, w.target_cpu
        ),
        (true, false) => format!(
            "woken from CPU {} to CPU {} (enqueued by the waker)",
            w.waker_cpu, w.target_cpu
        ),
    });
    parts.push(format!("ran on CPU {}", w.ran_cpu));
    parts.join("; ")
}

fn wakeup(o: &mut String, w: &Wakeup) {
    para(
        o,
        "",
        &format!("{}; {}", wakeup_headline(w), wakeup_route(w)),
    );
    for p in &w.phases {
        para(o, "  ", &phase(p));
    }
    if w.before_held {
        para(
            o,
            "  ",
            "(it began before the oldest window held: an earlier window would not show)",
        );
    }
}

/// A phase in one paragraph: "run-queue wait 83.412 ms (99%) on CPU 1, while sh[11]
/// ran: explained by a hardirq-off window of ...".
pub fn phase(p: &Phase) -> String {
    let mut s = format!(
        "{} {} ({}%) on CPU {}",
        p.phase.words(),
        ms(p.len_ns()),
        p.share_pct,
        p.cpu
    );
    if !p.ran_meanwhile.is_empty() {
        let mut names: Vec<&str> = p.ran_meanwhile.iter().take(4).map(String::as_str).collect();
        let more = p.ran_meanwhile.len().saturating_sub(4);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        let last = names.pop().unwrap_or("");
        let list = if names.is_empty() {
            last.to_string()
        } else {
            format!("{}, {last}", names.join(", "))
        };
        let _ = write!(s, ", while {list}{more} ran");
    }
    let mut why: Vec<String> = p.windows.iter().map(window).collect();
    why.extend(p.pauses.iter().map(pause));
    // Too short: the limits say why, once.
    if p.too_short {
        why.push("too short to tell".into());
    } else {
        why.extend(p.not_explained.clone());
    }
    let _ = write!(s, ": {}", why.join("; "));
    s
}

fn delay(o: &mut String, e: &Explained) {
    let d = &e.delay;
    let mut head = headline(d);
    if !d.evidence.is_empty() {
        let _ = write!(head, "; {}", d.evidence.join("; "));
    }
    para(o, "", &head);
    for m in &e.windows {
        para(o, "  ", &window(m));
    }
    for p in &e.pauses {
        para(o, "  ", &pause(p));
    }
    if let Some(s) = &e.not_explained {
        para(o, "  ", s);
    }
    if e.before_held {
        para(
            o,
            "  ",
            "(it began before the oldest window held: an earlier window would not show)",
        );
    }
}

/// What was delayed and for how long, without its evidence: "I/O on 252:0 by dd-70 took
/// 90.000 ms from 3.950000 s".
pub fn headline(d: &Delay) -> String {
    let what = match d.kind {
        DelayKind::Io => format!(
            "I/O on {}{}",
            d.device.as_deref().unwrap_or("?"),
            d.task
                .as_deref()
                .map(|t| format!(" by {t}"))
                .unwrap_or_default()
        ),
        DelayKind::Softirq => format!(
            "softirq {} on CPU {}",
            d.vector.as_deref().unwrap_or("?"),
            cpu_list(&d.cpus)
        ),
        DelayKind::TagWait => format!(
            "tag wait on {} by {}",
            d.device.as_deref().unwrap_or("?"),
            d.task.as_deref().unwrap_or("?")
        ),
        DelayKind::Task => format!("task {}", d.task.as_deref().unwrap_or("?")),
        DelayKind::Wakeup => format!(
            "wake-up of {} on CPU {}",
            d.task.as_deref().unwrap_or("?"),
            cpu_list(&d.cpus)
        ),
    };
    let verb = match d.kind {
        DelayKind::Io => "took",
        DelayKind::Softirq | DelayKind::TagWait | DelayKind::Wakeup => "waited",
        DelayKind::Task => "ran for",
    };
    format!(
        "{what} {verb} {} from {} s",
        ms(d.len_ns()),
        secs(d.start_ns)
    )
}

/// "explained by a hardirq-off window of ... on CPU 1 by sh[63] in f, overlapping it ...".
pub fn window(m: &Match) -> String {
    let overlap = if m.within_precision {
        "overlapping only within the sampling period".to_string()
    } else {
        format!("overlapping it {}", ms(m.overlap_ns))
    };
    format!("explained by {}, {overlap}", window_words(&m.window))
}

/// "held by a pause of the whole VM of 300.000 ms from 4.000000 s (a stall the module
/// counted), overlapping it 50.000 ms".
pub fn pause(p: &Pause) -> String {
    format!(
        "held by a pause of the whole VM of {} from {} s (a stall the module counted), overlapping it {}",
        ms(p.end_ns.saturating_sub(p.start_ns)),
        secs(p.start_ns),
        ms(p.overlap_ns)
    )
}

/// A window in words: "a hardirq-off window of 99.800 ms on CPU 1 by irq_test[90] in
/// irqoff_sample_hardirq_window"; one opened in interrupt context names the task it
/// interrupted, not as its doer: "a hardirq-off window of 120.000 ms in an IPI function
/// (irqctx_spin) on CPU 1, interrupting kdamond.0[54]".
pub fn window_words(w: &Window) -> String {
    let kind = match (w.kind.as_str(), w.cause.as_deref()) {
        ("hard", _) => "hardirq-off".to_string(),
        (_, Some(c)) => format!("softirq-off ({c})"),
        _ => "softirq-off".to_string(),
    };
    let open = if w.open { " and counting" } else { "" };
    if let Some(c) = &w.context {
        let culprit = if w.culprit == crate::enrich::culprit::UNSEEN {
            String::new()
        } else {
            format!(" ({})", w.culprit)
        };
        return format!(
            "a {kind} window of {}{open} in {c}{culprit} on CPU {}, interrupting {}[{}]",
            ms(w.end_ns.saturating_sub(w.start_ns)),
            w.cpu,
            w.comm,
            w.pid
        );
    }
    format!(
        "a {kind} window of {}{open} on CPU {} by {}[{}] in {}",
        ms(w.end_ns.saturating_sub(w.start_ns)),
        w.cpu,
        w.comm,
        w.pid,
        w.culprit
    )
}

/// `text` wrapped at spaces to [`WIDTH`], every line after the first indented two more
/// than `indent`.
fn para(o: &mut String, indent: &str, text: &str) {
    let mut line = indent.to_string();
    let mut empty = true;
    let more = format!("{indent}  ");
    for word in text.split(' ').filter(|w| !w.is_empty()) {
        if !empty && line.len() + 1 + word.len() > WIDTH {
            let _ = writeln!(o, "{line}");
            line = more.clone();
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    let _ = writeln!(o, "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enrich::explain_join::join;
    use crate::model::delay::Limits;

    /// Claim: an explained delay names the window's kind, CPU, task and culprit and the
    /// overlap; an unexplained one the sentence; no line is wider than 80 columns.
    #[test]
    fn paragraphs_fit_80_columns() {
        let ms_ = 1_000_000;
        let d = |cpus: Vec<u32>| Delay {
            kind: DelayKind::Io,
            start_ns: 1000 * ms_,
            end_ns: 1100 * ms_,
            cpus,
            end_cpu: Some(1),
            issue_cpu: Some(0),
            evidence: vec!["completed on CPU 1".into()],
            device: Some("252:0".into()),
            vector: None,
            task: Some("dd-70".into()),
        };
        let w = Window {
            cpu: 1,
            kind: "hard".into(),
            cause: None,
            start_ns: 990 * ms_,
            end_ns: 1090 * ms_,
            comm: "sh".into(),
            pid: 63,
            culprit: "irqoff_sample_hardirq_window".into(),
            context: None,
            open: false,
        };
        let limits = Limits {
            period_ns: 10 * ms_,
            held_from_ns: Some(1050 * ms_),
            trace_lost: 0,
        };
        let a = Answer {
            verdict: Verdict::Unknown,
            verdict_line: String::new(),
            span_start_ns: Some(900 * ms_),
            span_end_ns: Some(1200 * ms_),
            min_ns: ms_,
            limits,
            windows_from: "records+ring".into(),
            windows_seen: 1,
            delays: join(&[d(vec![1]), d(vec![0])], &[w], limits),
            wakeups: None,
            netdev: None,
            notes: vec![],
        };
        let t = text(&a);
        assert!(t.lines().all(|l| l.len() <= WIDTH), "{t}");
        let flat = t.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("I/O on 252:0 by dd-70 took 100.000 ms"),
            "{t}"
        );
        assert!(flat.contains("hardirq-off window of 100.000 ms on CPU 1 by sh[63] in irqoff_sample_hardirq_window, overlapping it 90.000 ms"), "{t}");
        assert!(
            flat.contains(
                "not explained by an irq-off window on the CPUs that serve this device (0)"
            ),
            "{t}"
        );
        assert!(flat.contains("2 delays began before that"), "{t}");
        assert!(
            flat.contains("Windows under 20.000 ms (2 sampling periods) are not seen."),
            "{t}"
        );
    }

    /// Claim: the limits count in the singular and plural right ("1 delay began", "2
    /// delays began"), and count the wake-ups too short to tell beside the delays ("1
    /// delay and 1 wake-up shorter than that are too short to tell"; "1 wake-up ... is").
    #[test]
    fn the_limits_count_delays_and_wakeups_in_words() {
        let ms_ = 1_000_000;
        let limits = Limits {
            period_ns: 10 * ms_,
            held_from_ns: Some(500 * ms_),
            trace_lost: 0,
        };
        let mut a = answer_of(&[io(400, 405, 1)], &[]);
        a.limits = limits;
        a.delays = join(&[io(400, 405, 1)], &[], limits);
        let flat = |a: &Answer| limits_words(a);
        let one = flat(&a);
        assert!(
            one.contains("; 1 delay began before that: windows then are no longer held."),
            "{one}"
        );
        assert!(
            one.contains(": 1 delay shorter than that is too short to tell."),
            "{one}"
        );
        a.delays = join(&[io(400, 405, 1), io(450, 600, 1)], &[], limits);
        assert!(
            flat(&a).contains("; 2 delays began before that:"),
            "{}",
            flat(&a)
        );
        let woken = crate::model::explain_wakeup::Wakeup {
            task: "cat[1]".into(),
            tid: 1,
            start_ns: 600 * ms_,
            end_ns: 601 * ms_,
            expires_ns: None,
            timer_cpu: None,
            timer_soft: false,
            waker_cpu: 0,
            target_cpu: 0,
            ipi: false,
            ran_cpu: 0,
            phases: Vec::new(),
            before_held: false,
        };
        let mut v = vec![woken];
        v[0].phases.push(crate::model::explain_wakeup::Phase {
            phase: crate::model::explain_wakeup::PhaseKind::RunQueue,
            start_ns: 600 * ms_,
            end_ns: 601 * ms_,
            cpu: 0,
            share_pct: 100,
            windows: Vec::new(),
            not_explained: None,
            too_short: true,
            pauses: Vec::new(),
            ran_meanwhile: Vec::new(),
        });
        a.wakeups = Some(crate::model::explain_wakeup::Wakeups {
            of: "cat[1]".into(),
            threads: vec![1],
            wakeups: v,
        });
        a.delays = join(&[io(400, 405, 1)], &[], limits);
        let both = flat(&a);
        assert!(
            both.contains(": 1 delay and 1 wake-up shorter than that are too short to tell."),
            "{both}"
        );
        a.delays.clear();
        let w = flat(&a);
        assert!(
            w.contains(": 1 wake-up shorter than that is too short to tell."),
            "{w}"
        );
    }

    /// The limits of `a` with their words joined by one space.
    fn limits_words(a: &Answer) -> String {
        limits(a).split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// An answer of `delays` joined with `windows`, its verdict set.
    fn answer_of(delays: &[Delay], windows: &[Window]) -> Answer {
        let limits = Limits {
            period_ns: 10_000_000,
            held_from_ns: None,
            trace_lost: 0,
        };
        let mut a = Answer {
            verdict: Verdict::Unknown,
            verdict_line: String::new(),
            span_start_ns: Some(0),
            span_end_ns: Some(3_000_000_000),
            min_ns: 1_000_000,
            limits,
            windows_from: "records".into(),
            windows_seen: windows.len(),
            delays: join(delays, windows, limits),
            wakeups: None,
            netdev: None,
            notes: vec![],
        };
        (a.verdict, a.verdict_line) = verdict(&a);
        a
    }

    fn io(start_ms: u64, end_ms: u64, cpu: u32) -> Delay {
        Delay {
            kind: DelayKind::Io,
            start_ns: start_ms * 1_000_000,
            end_ns: end_ms * 1_000_000,
            cpus: vec![cpu],
            end_cpu: Some(cpu),
            issue_cpu: Some(cpu),
            evidence: vec![],
            device: Some("252:0".into()),
            vector: None,
            task: Some("dd-70".into()),
        }
    }

    fn hard(cpu: u32, start_ms: u64, end_ms: u64, culprit: &str) -> Window {
        Window {
            cpu,
            kind: "hard".into(),
            cause: None,
            start_ns: start_ms * 1_000_000,
            end_ns: end_ms * 1_000_000,
            comm: "irq_test".into(),
            pid: 90,
            culprit: culprit.into(),
            context: None,
            open: false,
        }
    }

    /// Claim: the verdict is yes when any delay was held by a window, counting them and
    /// naming the longest window that explains one (CPU, length, task, culprit); it is
    /// the text's first line, whole (not wrapped, however long).
    #[test]
    fn verdict_yes_names_the_worst_window() {
        let a = answer_of(
            &[io(1000, 1100, 1), io(1000, 1100, 0), io(2000, 2050, 1)],
            &[
                hard(1, 990, 1090, "short_one"),
                hard(1, 1900, 2040, "long_one"),
            ],
        );
        assert_eq!(a.verdict, Verdict::Yes);
        assert_eq!(
            a.verdict_line,
            "Verdict: yes: 2 of 3 delays were held by irq-off windows; the worst, a hardirq-off window of 140.000 ms on CPU 1 by irq_test[90] in long_one."
        );
        assert_eq!(text(&a).lines().next(), Some(a.verdict_line.as_str()));
    }

    /// Claim: with no delay held by a window the verdict is no and names the largest
    /// delays that could be told, longest first, not those too short to tell; with only
    /// delays too short, or none, it is unknown and says why.
    #[test]
    fn verdict_no_and_unknown() {
        let a = answer_of(
            &[io(1000, 1030, 0), io(2000, 2090, 0), io(3000, 3005, 0)],
            &[],
        );
        assert_eq!(a.verdict, Verdict::No);
        assert_eq!(
            a.verdict_line,
            "Verdict: no: none of the 3 delays was held by an irq-off window; the largest: I/O on 252:0 by dd-70 took 90.000 ms from 2.000000 s; I/O on 252:0 by dd-70 took 30.000 ms from 1.000000 s."
        );
        let short = answer_of(&[io(1000, 1005, 0)], &[]);
        assert_eq!(short.verdict, Verdict::Unknown);
        assert!(
            short
                .verdict_line
                .starts_with("Verdict: unknown: the 1 delay was too short to tell"),
            "{}",
            short.verdict_line
        );
        let none = answer_of(&[], &[]);
        assert_eq!(
            (none.verdict, none.verdict_line.as_str()),
            (
                Verdict::Unknown,
                "Verdict: unknown: no delay of 1.000 ms or more was traced in the span."
            )
        );
    }

    /// Claim: the limits say how many delays were too short to tell and how many events
    /// the trace's own ring lost; a pause of the whole VM is said under its delay.
    #[test]
    fn what_could_not_be_seen_is_said() {
        let ms_ = 1_000_000;
        let d = |start: u64, end: u64| Delay {
            kind: DelayKind::Softirq,
            start_ns: start * ms_,
            end_ns: end * ms_,
            cpus: vec![1],
            end_cpu: Some(1),
            issue_cpu: None,
            evidence: vec![],
            device: None,
            vector: Some("TIMER".into()),
            task: None,
        };
        let limits = Limits {
            period_ns: 10 * ms_,
            held_from_ns: None,
            trace_lost: 7,
        };
        let a = Answer {
            verdict: Verdict::Unknown,
            verdict_line: String::new(),
            span_start_ns: Some(0),
            span_end_ns: Some(2000 * ms_),
            min_ns: ms_,
            limits,
            windows_from: "records".into(),
            windows_seen: 0,
            delays: crate::enrich::explain_join::join_all(
                &[d(100, 105), d(1000, 1100)],
                &[],
                &[(1050 * ms_, 1350 * ms_)],
                limits,
            ),
            wakeups: None,
            netdev: None,
            notes: vec![],
        };
        let flat = text(&a).split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("too short to tell: windows under 20.000 ms"),
            "{flat}"
        );
        assert!(
            flat.contains("1 delay shorter than that is too short to tell."),
            "{flat}"
        );
        assert!(
            flat.contains("The trace's own ring lost 7 events"),
            "{flat}"
        );
        assert!(flat.contains("held by a pause of the whole VM of 300.000 ms from 1.050000 s (a stall the module counted), overlapping it 50.000 ms"), "{flat}");
    }

    /// Claim: a window opened in interrupt context is said to be in that context,
    /// interrupting its task, never "by" it.
    #[test]
    fn a_window_in_interrupt_context_is_not_by_its_task() {
        let w = Window {
            cpu: 1,
            kind: "hard".into(),
            cause: None,
            start_ns: 0,
            end_ns: 120_000_000,
            comm: "kdamond.0".into(),
            pid: 54,
            culprit: "irqctx_spin".into(),
            context: Some("an IPI function".into()),
            open: false,
        };
        assert_eq!(
            window_words(&w),
            "a hardirq-off window of 120.000 ms in an IPI function (irqctx_spin) on CPU 1, interrupting kdamond.0[54]"
        );
    }

    /// Claim: an answer's JSON reads back as the same answer (`report --explain`), the
    /// fields left out when empty (`end_cpu`, `device`, `vector`, `task`, `cause`,
    /// `not_explained`, `open`) read as empty.
    #[test]
    fn the_json_reads_back() {
        let ms_ = 1_000_000;
        let d = Delay {
            kind: DelayKind::Softirq,
            start_ns: 1000 * ms_,
            end_ns: 1100 * ms_,
            cpus: vec![1],
            end_cpu: None,
            issue_cpu: None,
            evidence: vec![],
            device: None,
            vector: Some("NET_RX".into()),
            task: None,
        };
        let limits = Limits {
            period_ns: 10 * ms_,
            held_from_ns: None,
            trace_lost: 0,
        };
        let a = Answer {
            verdict: Verdict::Unknown,
            verdict_line: String::new(),
            span_start_ns: None,
            span_end_ns: None,
            min_ns: ms_,
            limits,
            windows_from: "records".into(),
            windows_seen: 0,
            delays: join(&[d], &[], limits),
            wakeups: None,
            netdev: None,
            notes: vec![],
        };
        let json = serde_json::to_string(&a).unwrap();
        for left_out in [
            "end_cpu",
            "issue_cpu",
            "device",
            "task",
            "not_explained\":null",
            "open",
        ] {
            assert!(!json.contains(left_out), "{json}");
        }
        let back: Answer = serde_json::from_str(&json).unwrap();
        assert_eq!(back, a);
    }
}
