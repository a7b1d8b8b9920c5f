// SPDX-License-Identifier: GPL-2.0

//! Stalls: spans in which no sampled CPU ran at all. Pure logic (`core` only), shared with
//! the host via `tools/tio-logic`.
//!
//! A hardirq-off window delays one CPU's hrtimer; the others go on running theirs. When
//! the whole machine stands still with its clock running (a VM paused by its host, a live
//! migration's last phase, a single-threaded emulator not scheduled, a stopped QEMU),
//! every CPU's hrtimer is late over the same span, idle CPUs' too. So the samplers keep a
//! pulse: every hrtimer run looks at the machine-wide last beat and beats itself if that
//! is half a period old or more (at most about two writes of one shared word per period,
//! whatever the number of CPUs). Two beats further apart than a period mark a *silence*:
//! from half a period after the first beat (until then some CPU may have run without
//! beating) to the second, no sampled CPU's hrtimer ran. A silence of a period or more is
//! posted on a small ring ([`SILENCE_SLOTS`] posts, read in constant time).
//!
//! A gap of one CPU is then judged without the part of it that was silent (see
//! `gap::Rules::hard_decision_in`), but only if the CPU *came back with the machine*: its
//! sampler ran again within the silence's length (at least a period) of its end
//! ([`came_back`]). When a stopped machine resumes, every CPU's overdue timer is due at
//! once, and the host runs the vCPUs again in turns; a CPU whose gap goes on after the
//! others ran again for longer than the silence lasted was held by something of its own
//! past the silence, with interrupts off, and nothing shows that it was stopped rather
//! than held before, so its whole gap is judged as a window. This is the case that breaks the
//! proxy "no hrtimer ran anywhere, so the machine stood still": on a two-CPU machine,
//! CPU 1 in a long irq-off window and CPU 0 spinning with interrupts off for a few
//! milliseconds (Linux 7.3's clocksource watchdog waits so for the other CPU in its
//! inter-CPU skew check) leave a silence inside CPU 1's window; CPU 0 ends it, CPU 1 does
//! not come back until its window ends.
//!
//! What this still cannot tell apart: every sampled CPU having hard interrupts off over
//! the same span and all ending it together (stop_machine) is silence that every CPU came
//! back from, so that common part is counted as a stall, and only what lies outside it is
//! reported as a window; the CPU that ends a silence always came back with it, so its
//! own short irq-off spin inside another CPU's window is a stall of its own gap (and is
//! counted on the `stall` line). A stop of the machine inside a CPU's real window is part
//! of that window's length (the CPU did not come back with the machine). It takes two
//! sampled CPUs: with one (a one-vCPU VM, or a `cpus` selection of one) every gap of that
//! CPU would be silent, so no silence counts.

use crate::logic::gap::Window;

/// Silences kept for the gaps that end after them: a pause ends every CPU's gap within a
/// period or so, so the ring needs to hold only the latest few.
pub(crate) const SILENCE_SLOTS: usize = 8;

/// Whether an hrtimer run at `now` beats, the machine's last beat having been at `last`
/// (0: none yet): once it is half a period old.
pub(crate) const fn beats(last: u64, now: u64, period_ns: u64) -> bool {
    last == 0 || now >= last.saturating_add(period_ns / 2)
}

/// The silence that a beat at `now` ends, the last beat having been at `last`: no sampled
/// CPU ran from half a period after `last` (every run before `now` found the beat younger
/// than half a period, or it would have beaten) to `now`. `None` where it is shorter than
/// a period, which two CPUs running on time never leave, or where there was no beat.
pub(crate) const fn silence(last: u64, now: u64, period_ns: u64) -> Option<Window> {
    if last == 0 {
        return None;
    }
    let start = last.saturating_add(period_ns / 2);
    if now >= start.saturating_add(period_ns) {
        Some(Window { start, end: now })
    } else {
        None
    }
}

/// Whether a CPU whose sampler ran again at `to` came back with the machine from silence
/// `s`: within the silence's own length of its end, and at least within `back_ns` (that
/// sampler's period). A resumed machine's overdue timers are all due at once, but a host
/// runs its vCPUs in turns: under TCG, after 300 ms stops of QEMU with both vCPUs busy,
/// the second ran again 10-13 ms after the first. A CPU that ran again later than the
/// silence lasted had been held past it by something of its own.
pub(crate) const fn came_back(s: Window, to: u64, back_ns: u64) -> bool {
    let len = s.end.saturating_sub(s.start);
    let within = if len > back_ns { len } else { back_ns };
    to <= s.end.saturating_add(within)
}

/// Nanoseconds of the gap [`from`, `to`) of a CPU whose sampler ran again at `to` inside
/// the `silences` it came back from ([`came_back`]: `back_ns` is that sampler's period).
/// The silences never overlap one another (each lies between two consecutive beats).
/// Constant time: [`SILENCE_SLOTS`] at most.
pub(crate) fn silent_ns(
    from: u64,
    to: u64,
    back_ns: u64,
    silences: impl Iterator<Item = Window>,
) -> u64 {
    silences
        .take(SILENCE_SLOTS)
        .filter(|&s| came_back(s, to, back_ns))
        .map(|s| s.overlap(from, to))
        .fold(0u64, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;
    const P: u64 = 10 * MS;

    fn w(start: u64, end: u64) -> Window {
        Window { start, end }
    }

    /// Replays every CPU's hrtimer runs in time order through the pulse, as the samplers
    /// do: returns the silences posted.
    fn replay(mut runs: Vec<u64>) -> Vec<Window> {
        runs.sort_unstable();
        let (mut last, mut posted) = (0, Vec::new());
        for now in runs {
            if beats(last, now, P) {
                if let Some(s) = silence(last, now, P) {
                    posted.push(s);
                }
                last = now;
            }
        }
        posted
    }

    /// Runs of one CPU every `P` from `from` to `to`, offset by `phase`.
    fn every_period(from: u64, to: u64, phase: u64) -> Vec<u64> {
        (0..)
            .map(|i| from + phase + i * P)
            .take_while(|&t| t < to)
            .collect()
    }

    /// Two CPUs running on time, in any phase, with jitter up to a quarter period, never
    /// leave a silence: an ordinary machine posts nothing.
    #[test]
    fn cpus_on_time_leave_no_silence() {
        for phase in [0, MS, 5 * MS, 9 * MS] {
            let mut runs = every_period(0, 2000 * MS, 0);
            runs.extend(
                every_period(0, 2000 * MS, phase)
                    .into_iter()
                    .enumerate()
                    .map(|(i, t)| t + (i as u64 % 3) * P / 8),
            );
            assert_eq!(replay(runs), vec![], "phase {phase}");
        }
    }

    /// One CPU with hard interrupts off for 300 ms while the other runs on time: the other
    /// goes on beating, so there is no silence and the window keeps its whole length.
    #[test]
    fn window_on_one_cpu_is_not_silence() {
        let mut runs = every_period(0, 1000 * MS, 0);
        // CPU 1: runs until 200 ms, then nothing until 500 ms, then on time again.
        runs.extend(every_period(0, 200 * MS, 3 * MS));
        runs.push(500 * MS);
        runs.extend(every_period(500 * MS, 1000 * MS, 3 * MS));
        let silences = replay(runs);
        assert_eq!(silences, vec![]);
        assert_eq!(silent_ns(193 * MS, 500 * MS, P, silences.into_iter()), 0);
    }

    /// The whole VM paused for 300 ms (every CPU, idle or busy, stopped at 200 ms and
    /// resumed at 500 ms): one silence, which covers each CPU's gap but for at most a
    /// period and a half at its start.
    #[test]
    fn pause_of_every_cpu_is_one_silence() {
        for phase in [MS, 5 * MS, 9 * MS] {
            let mut runs = every_period(0, 200 * MS, 0);
            runs.extend(every_period(0, 200 * MS, phase));
            // On resume each CPU's hrtimer fires at once, within a few microseconds.
            runs.extend([500 * MS, 500 * MS + 7_000]);
            runs.extend(every_period(500 * MS + P, 800 * MS, 0));
            runs.extend(every_period(500 * MS + P, 800 * MS, phase));
            let silences = replay(runs.clone());
            assert_eq!(silences.len(), 1, "phase {phase}: {silences:?}");
            let s = silences[0];
            assert!(s.end == 500 * MS && s.start <= 200 * MS + P / 2, "{s:?}");
            // Each CPU's gap: from its last run before the pause to its first after.
            for (last, first) in [(190 * MS, 500 * MS), (190 * MS + phase, 500 * MS + 7_000)] {
                let silent = silent_ns(last, first, P, silences.iter().copied());
                let gap = first - last;
                assert!(
                    gap - silent <= P + P / 2,
                    "phase {phase}: gap {gap} silent {silent}"
                );
            }
        }
    }

    /// A silence is never counted beyond the span asked about, and silences add up.
    #[test]
    fn silent_ns_is_the_overlap() {
        let s = [w(100, 200), w(300, 400)];
        assert_eq!(silent_ns(0, 1000, 1000, s.into_iter()), 200);
        assert_eq!(silent_ns(150, 350, 1000, s.into_iter()), 100);
        assert_eq!(silent_ns(200, 300, 1000, s.into_iter()), 0);
        assert_eq!(silent_ns(0, 1000, 1000, core::iter::empty()), 0);
    }

    /// A gap counts only the silences its CPU came back from: those that ended at most
    /// their own length, or a period where that is longer, before the CPU ran again.
    #[test]
    fn silent_ns_counts_only_silences_come_back_from() {
        let s = [w(100 * MS, 200 * MS), w(300 * MS, 400 * MS)];
        // Ran again 4 ms after the second ended: only that one counts (the first ended
        // 204 ms before, more than its 100 ms).
        assert_eq!(silent_ns(0, 404 * MS, P, s.into_iter()), 100 * MS);
        // Exactly the silence's length after it: still came back with it.
        assert!(came_back(s[1], 500 * MS, P));
        assert_eq!(silent_ns(0, 500 * MS, P, s.into_iter()), 100 * MS);
        // Later: held past both, neither counts.
        assert!(!came_back(s[1], 500 * MS + 1, P));
        assert_eq!(silent_ns(0, 500 * MS + 1, P, s.into_iter()), 0);
        // A silence shorter than a period: a period after it is still with it.
        let short = w(100 * MS, 104 * MS);
        assert!(came_back(short, 104 * MS + P, P));
        assert!(!came_back(short, 104 * MS + P + 1, P));
    }

    /// The busy VM stopped for 300 ms, as tests/vm/stall.sh measured it under TCG: CPU 0
    /// ran first after the stop and ended the silence, CPU 1's turn came 13 ms later. CPU 1
    /// came back with the machine: what remains of its gap is no window.
    #[test]
    fn vcpus_resumed_in_turns_came_back_with_the_machine() {
        let mut runs = every_period(0, 200 * MS, 0);
        runs.extend(every_period(500 * MS, 700 * MS, 0));
        runs.extend(every_period(0, 200 * MS, 5 * MS));
        runs.extend(every_period(513 * MS, 700 * MS, 0));
        let silences = replay(runs);
        assert_eq!(silences.len(), 1, "{silences:?}");
        let gap = (195 * MS, 513 * MS);
        let silent = silent_ns(gap.0, gap.1, P, silences.iter().copied());
        assert!(gap.1 - gap.0 - silent <= 2 * P, "{silences:?} {silent}");
    }

    /// The case that breaks the proxy "no hrtimer ran, so the machine stood still", as
    /// traced on Linux 7.3 in the VM: CPU 1 has hard interrupts off from 100 to 220 ms;
    /// at 150 ms CPU 0's clocksource watchdog waits for CPU 1 with interrupts off for
    /// 6.6 ms, so neither CPU's hrtimer runs and a silence is posted. CPU 0 ends it and
    /// came back with it (a stall of its own, ordinary gap); CPU 1 ran again 63 ms later,
    /// so its window keeps its whole length.
    #[test]
    fn window_past_another_cpus_spin_keeps_its_length() {
        let mut runs = every_period(0, 300 * MS, 0);
        // CPU 0 does not run from 150 to 156.6 ms (its 150 ms run is late).
        runs.retain(|&t| t != 150 * MS);
        runs.push(156_600_000);
        // CPU 1: on time until 97 ms, then nothing until 220 ms.
        runs.extend(every_period(0, 100 * MS, 7 * MS));
        runs.push(220 * MS);
        runs.extend(every_period(220 * MS + P, 300 * MS, 0));
        let silences = replay(runs);
        assert_eq!(silences.len(), 1, "{silences:?}");
        let s = silences[0];
        assert!(s.start < 150 * MS && s.end == 156_600_000, "{s:?}");
        // CPU 0's gap, 140 to 156.6 ms: it ended the silence, all of it inside.
        let cpu0 = silent_ns(140 * MS, 156_600_000, P, silences.iter().copied());
        assert_eq!(cpu0, s.end - s.start);
        // CPU 1's gap, 97 to 220 ms: none of it silent.
        assert_eq!(silent_ns(97 * MS, 220 * MS, P, silences.iter().copied()), 0);
    }

    /// The first beat ends no silence; a beat younger than half a period is not renewed.
    #[test]
    fn first_beat_and_renewal() {
        assert!(beats(0, 1, P));
        assert_eq!(silence(0, 500 * MS, P), None);
        assert!(!beats(100 * MS, 104 * MS, P));
        assert!(beats(100 * MS, 105 * MS, P));
        assert_eq!(silence(100 * MS, 114 * MS, P), None);
        assert_eq!(silence(100 * MS, 115 * MS, P), Some(w(105 * MS, 115 * MS)));
    }
}
