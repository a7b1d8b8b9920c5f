// SPDX-License-Identifier: GPL-2.0
//! The join: each delay with the irq-off windows that explain it (same CPU as one that
//! serves it, overlapping it in time), or the sentence that none does, and its limits
//! (the sampling precision, the part of the span no longer held). Pure: values in,
//! values out.

use crate::model::delay::{
    cpu_list, cpu_words, Delay, DelayKind, Explained, Limits, Match, Pause, Window,
};
use crate::model::explain_wakeup::{PhaseKind, Wakeup};

/// Each delay of `delays` with the windows of `windows` that explain it, in the delays'
/// order.
#[cfg(test)]
pub fn join(delays: &[Delay], windows: &[Window], limits: Limits) -> Vec<Explained> {
    join_all(delays, windows, &[], limits)
}

/// [`join`], and the pauses of the whole machine (`stalls`: start and end, ns) that held
/// each delay.
pub fn join_all(
    delays: &[Delay],
    windows: &[Window],
    stalls: &[(u64, u64)],
    limits: Limits,
) -> Vec<Explained> {
    delays
        .iter()
        .map(|d| explain_one(d, windows, stalls, limits))
        .collect()
}

/// One delay of [`join_all`].
pub fn explain_one(
    d: &Delay,
    windows: &[Window],
    stalls: &[(u64, u64)],
    limits: Limits,
) -> Explained {
    let mut found: Vec<Match> = windows
        .iter()
        .filter(|w| d.cpus.contains(&w.cpu))
        .filter_map(|w| {
            let exact = overlap(d.start_ns, d.end_ns, w.start_ns, w.join_end());
            let early = w.start_ns.saturating_sub(limits.period_ns);
            let near =
                overlap(d.start_ns, d.end_ns, early, w.join_end()) > 0 && !ended_before(d, w);
            (exact > 0 || near).then(|| Match {
                window: w.clone(),
                overlap_ns: exact,
                within_precision: exact == 0,
            })
        })
        .collect();
    found.sort_by(|a, b| {
        b.overlap_ns
            .cmp(&a.overlap_ns)
            .then(a.window.start_ns.cmp(&b.window.start_ns))
    });
    let mut pauses: Vec<Pause> = stalls
        .iter()
        .filter_map(|&(start_ns, end_ns)| {
            let overlap_ns = overlap(d.start_ns, d.end_ns, start_ns, end_ns);
            (overlap_ns > 0).then_some(Pause {
                start_ns,
                end_ns,
                overlap_ns,
            })
        })
        .collect();
    pauses.sort_by_key(|p| p.start_ns);
    pauses.dedup();
    // The shortest window the module sees is 2 periods: a shorter delay with no window
    // may still have been one.
    let too_short = found.is_empty() && d.len_ns() < limits.period_ns.saturating_mul(2);
    let not_explained = (found.is_empty() && pauses.is_empty()).then(|| {
        if too_short {
            too_short_words(limits.period_ns)
        } else {
            not_explained(d)
        }
    });
    Explained {
        delay: d.clone(),
        windows: found,
        not_explained,
        before_held: limits.held_from_ns.is_some_and(|h| d.start_ns < h),
        too_short,
        pauses,
    }
}

/// What is said of a delay too short for the module to tell: "too short to tell: windows
/// under 20 ms (2 sampling periods of 10 ms) are not seen".
fn too_short_words(period_ns: u64) -> String {
    format!(
        "too short to tell: windows under {} (2 sampling periods of {}) are not seen",
        crate::model::clock::ms(period_ns.saturating_mul(2)),
        crate::model::clock::ms(period_ns)
    )
}

/// Whether the delay's end shows that window `w` had not begun then: it ended on `w`'s
/// CPU, by an event that needs interrupts on there (a hardirq-off window) or a softirq
/// run there (any window). The window's start can then not be moved back over it.
fn ended_before(d: &Delay, w: &Window) -> bool {
    d.end_cpu == Some(w.cpu) && (w.kind == "hard" || d.kind == DelayKind::Softirq)
}

/// The length of [a0, a1) ∩ [b0, b1).
pub fn overlap(a0: u64, a1: u64, b0: u64, b1: u64) -> u64 {
    a1.min(b1).saturating_sub(a0.max(b0))
}

/// "not explained by an irq-off window on ..." for `d`.
fn not_explained(d: &Delay) -> String {
    let on = match (&d.kind, d.cpus.as_slice()) {
        (_, []) => "any CPU (no CPU is known to serve it)".to_string(),
        (DelayKind::Io | DelayKind::TagWait, _) => {
            format!("the CPUs that serve this device ({})", cpu_list(&d.cpus))
        }
        (DelayKind::Task, _) => format!("the CPUs this task ran on ({})", cpu_list(&d.cpus)),
        (DelayKind::Softirq | DelayKind::Wakeup, _) => cpu_words(&d.cpus),
    };
    format!("not explained by an irq-off window on {on}")
}

/// Each phase of each wake-up joined with the windows on its CPU (and the pauses of the
/// whole machine, `stalls`), as `join_all` joins a delay. The timer's lateness (its
/// expiry a hard interrupt: nanosleep's timers are hard ones) and a delivery through
/// the wake list's IPI are joined with hardirq-off windows only; but a timer that
/// expired outside hard interrupt context (on PREEMPT_RT a normal task's sleep timer
/// expires in the softirq thread) is held by softirq-off windows too.
pub fn join_wakeups(v: &mut [Wakeup], windows: &[Window], stalls: &[(u64, u64)], limits: Limits) {
    for w in v {
        w.before_held = limits.held_from_ns.is_some_and(|h| w.start_ns < h);
        let end_cpus = end_cpus(w);
        for (p, end_cpu) in w.phases.iter_mut().zip(end_cpus) {
            let d = Delay {
                kind: DelayKind::Wakeup,
                start_ns: p.start_ns,
                end_ns: p.end_ns,
                cpus: vec![p.cpu],
                end_cpu,
                issue_cpu: None,
                evidence: Vec::new(),
                device: None,
                vector: None,
                task: Some(w.task.clone()),
            };
            // An interrupt (the timer's, the wake list's IPI) is held by a hardirq-off
            // window only: a softirq-off one does not explain it. A timer that expired
            // in the softirq thread is no interrupt.
            let interrupt = (p.phase == PhaseKind::TimerLateness && !w.timer_soft)
                || (p.phase == PhaseKind::Delivery && w.ipi);
            let held: Vec<Window> = windows
                .iter()
                .filter(|x| !interrupt || x.kind == "hard")
                .cloned()
                .collect();
            let e = explain_one(&d, &held, stalls, limits);
            p.windows = e.windows;
            p.not_explained = e.not_explained;
            p.too_short = e.too_short;
            p.pauses = e.pauses;
        }
    }
}

/// The CPU the event that ended each phase of `w` ran on: the expiry on the timer's CPU
/// (in its interrupt), the `sched_wakeup` on the target CPU only through the IPI, the
/// switch-in on its CPU. A hardirq-off window there had not begun then.
fn end_cpus(w: &Wakeup) -> Vec<Option<u32>> {
    w.phases
        .iter()
        .map(|p| match p.phase {
            PhaseKind::TimerLateness => Some(p.cpu),
            PhaseKind::Delivery => w.ipi.then_some(w.target_cpu),
            PhaseKind::RunQueue => Some(w.ran_cpu),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn window(cpu: u32, start_ms: u64, end_ms: u64) -> Window {
        Window {
            cpu,
            kind: "hard".into(),
            cause: None,
            start_ns: start_ms * MS,
            end_ns: end_ms * MS,
            comm: "sh".into(),
            pid: 63,
            culprit: "irqoff_sample_hardirq_window".into(),
            context: None,
            open: false,
        }
    }

    fn delay(kind: DelayKind, cpus: &[u32], start_ms: u64, end_ms: u64) -> Delay {
        Delay {
            kind,
            start_ns: start_ms * MS,
            end_ns: end_ms * MS,
            cpus: cpus.to_vec(),
            end_cpu: None,
            issue_cpu: None,
            evidence: Vec::new(),
            device: Some("252:0".into()),
            vector: None,
            task: None,
        }
    }

    const LIMITS: Limits = Limits {
        period_ns: 10 * MS,
        held_from_ns: Some(500 * MS),
        trace_lost: 0,
    };

    /// Claim: a window on a serving CPU that overlaps the delay explains it, with the
    /// overlap in ns; one on another CPU, or one that ended long before, does not.
    #[test]
    fn a_window_on_a_serving_cpu_that_overlaps_explains() {
        let ws = [
            window(1, 1000, 1100),
            window(0, 1000, 1100),
            window(1, 700, 800),
        ];
        let e = join(&[delay(DelayKind::Io, &[1], 1050, 1120)], &ws, LIMITS);
        assert_eq!(e[0].windows.len(), 1);
        assert_eq!(e[0].windows[0].window.cpu, 1);
        assert_eq!(e[0].windows[0].overlap_ns, 50 * MS);
        assert!(!e[0].windows[0].within_precision);
        assert_eq!(e[0].not_explained, None);
        assert!(!e[0].before_held);
    }

    /// Claim: with no window on the serving CPUs the answer is the sentence of the issue,
    /// naming the CPUs: the device's, a softirq's one CPU, a task's.
    #[test]
    fn none_on_the_serving_cpus_is_said_in_words() {
        let ws = [window(0, 1000, 1100)];
        let io = join(&[delay(DelayKind::Io, &[1, 2, 3], 1050, 1120)], &ws, LIMITS);
        assert!(io[0].windows.is_empty());
        assert_eq!(
            io[0].not_explained.as_deref(),
            Some("not explained by an irq-off window on the CPUs that serve this device (1-3)")
        );
        let sirq = join(&[delay(DelayKind::Softirq, &[1], 1050, 1120)], &ws, LIMITS);
        assert_eq!(
            sirq[0].not_explained.as_deref(),
            Some("not explained by an irq-off window on CPU 1")
        );
        let task = join(&[delay(DelayKind::Task, &[2, 5], 1050, 1120)], &ws, LIMITS);
        assert_eq!(
            task[0].not_explained.as_deref(),
            Some("not explained by an irq-off window on the CPUs this task ran on (2,5)")
        );
    }

    /// Claim: a window that ends just before the delay starts, by less than one sampling
    /// period, explains it only "within precision" with 0 overlap; one that ends a
    /// period or more before it does not (the true start is at most a period earlier,
    /// the end is exact).
    #[test]
    fn sampling_precision_widens_the_start_only() {
        // Delay 1000..1100; window 1105..1200 starts 5 ms after the delay ended.
        let e = join(
            &[delay(DelayKind::Softirq, &[1], 1000, 1100)],
            &[window(1, 1105, 1200)],
            LIMITS,
        );
        assert_eq!(e[0].windows.len(), 1);
        assert!(e[0].windows[0].within_precision);
        assert_eq!(e[0].windows[0].overlap_ns, 0);
        let far = join(
            &[delay(DelayKind::Softirq, &[1], 1000, 1100)],
            &[window(1, 1111, 1200)],
            LIMITS,
        );
        assert!(far[0].windows.is_empty());
    }

    /// Claim: a delay that ended on the window's CPU by an event that needed interrupts
    /// on there is not matched within precision with a hardirq-off window that began
    /// after it (the window had not begun), nor a softirq delay with any window there;
    /// a delay that ended elsewhere still is.
    #[test]
    fn an_end_on_the_windows_cpu_bounds_its_start() {
        let mut io = delay(DelayKind::Io, &[1], 1000, 1100);
        io.end_cpu = Some(1);
        let hard = [window(1, 1105, 1200)];
        assert!(join(&[io.clone()], &hard, LIMITS)[0].windows.is_empty());
        let mut soft = window(1, 1105, 1200);
        soft.kind = "soft".into();
        assert_eq!(
            join(&[io.clone()], &[soft.clone()], LIMITS)[0]
                .windows
                .len(),
            1
        );
        let mut sirq = delay(DelayKind::Softirq, &[1], 1000, 1100);
        sirq.end_cpu = Some(1);
        assert!(join(&[sirq], &[soft], LIMITS)[0].windows.is_empty());
        io.end_cpu = Some(0);
        io.cpus = vec![0, 1];
        assert_eq!(join(&[io.clone()], &hard, LIMITS)[0].windows.len(), 1);
        // An overlap in earnest is kept whatever the end.
        io.end_cpu = Some(1);
        assert_eq!(
            join(&[io], &[window(1, 1050, 1200)], LIMITS)[0]
                .windows
                .len(),
            1
        );
    }

    /// Claim: a window still open explains a delay after the time it was last seen open
    /// (it went on), with the overlap up to the delay's end; a closed one would not.
    #[test]
    fn a_window_still_open_goes_on() {
        let mut w = window(1, 1000, 1050);
        let d = delay(DelayKind::Io, &[1], 1100, 1200);
        assert!(
            join(std::slice::from_ref(&d), std::slice::from_ref(&w), LIMITS)[0]
                .windows
                .is_empty()
        );
        w.open = true;
        let e = join(&[d], &[w], LIMITS);
        assert_eq!(e[0].windows[0].overlap_ns, 100 * MS);
    }

    /// Claim: a delay that starts before the oldest window held says so; one after it
    /// does not; with no known start of what is held, none says so.
    #[test]
    fn a_delay_before_what_is_held_is_flagged() {
        let d = [
            delay(DelayKind::Io, &[1], 400, 600),
            delay(DelayKind::Io, &[1], 600, 700),
        ];
        let e = join(&d, &[], LIMITS);
        assert!(e[0].before_held);
        assert!(!e[1].before_held);
        let unknown = Limits {
            held_from_ns: None,
            ..LIMITS
        };
        assert!(!join(&d, &[], unknown)[0].before_held);
    }

    /// Claim: a delay shorter than 2 sampling periods with no window is "too short to
    /// tell", never "not explained"; one of 2 periods or more is not explained; a short
    /// one a window explains is explained.
    #[test]
    fn a_delay_under_two_periods_is_too_short_to_tell() {
        let short = join(&[delay(DelayKind::Io, &[1], 1000, 1019)], &[], LIMITS);
        assert!(short[0].too_short);
        assert_eq!(
            short[0].not_explained.as_deref(),
            Some("too short to tell: windows under 20.000 ms (2 sampling periods of 10.000 ms) are not seen")
        );
        let long = join(&[delay(DelayKind::Io, &[1], 1000, 1020)], &[], LIMITS);
        assert!(!long[0].too_short);
        assert!(long[0]
            .not_explained
            .as_deref()
            .unwrap()
            .starts_with("not explained"));
        let seen = join(
            &[delay(DelayKind::Io, &[1], 1000, 1010)],
            &[window(1, 990, 1100)],
            LIMITS,
        );
        assert!(!seen[0].too_short && seen[0].not_explained.is_none());
    }

    /// Claim: a pause of the whole machine that overlaps a delay is joined with it (and
    /// then it is not "not explained"); one that does not overlap is not.
    #[test]
    fn a_pause_of_the_whole_machine_holds_a_delay() {
        let d = [delay(DelayKind::Io, &[1], 1000, 1100)];
        let e = join_all(
            &d,
            &[],
            &[(1050, 1300), (2000, 2100)].map(|(a, b)| (a * MS, b * MS)),
            LIMITS,
        );
        assert_eq!(
            e[0].pauses,
            [Pause {
                start_ns: 1050 * MS,
                end_ns: 1300 * MS,
                overlap_ns: 50 * MS
            }]
        );
        assert_eq!(e[0].not_explained, None);
        let none = join_all(&d, &[], &[(2000 * MS, 2100 * MS)], LIMITS);
        assert!(none[0].pauses.is_empty() && none[0].not_explained.is_some());
    }

    /// Claim: several windows come longest overlap first.
    #[test]
    fn longest_overlap_first() {
        let ws = [window(1, 1000, 1010), window(2, 1000, 1090)];
        let e = join(&[delay(DelayKind::Task, &[1, 2], 1000, 1100)], &ws, LIMITS);
        let cpus: Vec<u32> = e[0].windows.iter().map(|m| m.window.cpu).collect();
        assert_eq!(cpus, [2, 1]);
    }
}
