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
//! A silence alone proves nothing about one CPU: every CPU with hard interrupts off over
//! the same span (`stop_machine()`, a lock convoy of `spin_lock_irqsave` callers, a
//! window of one CPU inside another's) leaves the same silence as a host that stopped the
//! machine. So a silence is taken out of a CPU's gap only with *evidence*, of that CPU,
//! that it was not running with interrupts off through it ([`Evidence::proves_stall`]):
//!
//! - a host can stop the machine at all: the CPU reports a hypervisor. On bare metal
//!   nothing can stop every CPU with its clock running, so no silence is ever a stall
//!   there, and every gap is judged at its whole length;
//! - and the CPU came back from the gap in a way that shows it was not holding interrupts
//!   off: into the idle loop, user space or the return from an interrupt (where the
//!   kernel turns them on after a handler: the return to user space, the preemption on
//!   the return to kernel code, the softirq loop; on a busy TCG guest a third of the stops
//!   came back there), and not out of an interrupt handler, IPI
//!   function or softirq that ran long (those return there too): shown by sleep proven
//!   over the whole gap (`gap::SleepEvidence`), by the kernel's interrupt time accounting
//!   (less than half the silence in handlers), in the idle loop by its idle time (asleep
//!   for at least half the silence), in user space by no interrupt but the local timer's
//!   in the gap ([`Evidence::proves_stall`]). A CPU that came back in kernel code (at a
//!   site that turns interrupts on again, `multi_cpu_stop`, `_raw_spin_unlock_irqrestore`,
//!   or out of an interrupt handler that ran long) shows nothing of the sort.
//!
//! Steal the kernel accounted over the gap is evidence of its own, taken out as steal
//! (`gap::Steal`), silence or not. A gap with silence but without evidence is judged at
//! its whole length, and its window says how much of it every CPU was late together
//! ([`together_ns`]): a host pause, `stop_machine()` or a lock convoy, which the guest
//! cannot tell apart. A missed window is worse than a false one. It takes two sampled
//! CPUs: with one (a one-vCPU VM, or a `cpus` selection of one) every gap of that CPU would
//! be silent, so no silence counts.
//!
//! A CPU that sleeps with its hrtimer parked (`sampler::sleep`) has no run to miss. A
//! silence that such a CPU slept through is *lone* (`gap::Silent::lone`): every CPU awake
//! was late together, nothing more. The park that leaves every sampled CPU parked marks
//! the last beat ([`PARKED`]): the time after it is every CPU asleep, which is no
//! silence. After any other beat some CPU had its hrtimer due within a period, so a
//! wake-up that finds no beat since ends a lone silence ([`wake_silence`]), as does a run
//! whose next sampled CPUs include one that sleeps parked. On a VM a lone silence is posted and stays in the windows over
//! it (`together_ns`), never taken out with a CPU's evidence: a host pause while one CPU
//! was awake and the others slept leaves it, and so would that CPU's own window if its
//! sleeping watcher had not yet woken. On bare metal it is not posted.

use crate::logic::gap::Window;

/// What a CPU's run after a gap shows about how it spent the machine's silences in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Evidence {
    /// A host can stop the machine: the CPU reports a hypervisor (`ffi::under_hypervisor`).
    pub(crate) vm: bool,
    /// The run's interrupt came into the idle loop, or into user space.
    pub(crate) idle_loop: bool,
    pub(crate) user: bool,
    /// The run's interrupt came into the return from an interrupt, where the kernel turns
    /// interrupts on again: the return to user space (`exit_to_user_mode_loop`), the
    /// preemption on the return to kernel code (`preempt_schedule_irq`), the softirq loop
    /// run on an interrupt's exit. What held interrupts off before was an interrupt
    /// handler (and the few instructions of its entry and exit), whose time the kernel
    /// accounts.
    pub(crate) exit: bool,
    /// The CPU is proven to have slept through the whole gap (`gap::SleepEvidence`).
    pub(crate) asleep: bool,
    /// The time the kernel accounted to hard interrupt handlers and softirqs on this CPU in
    /// the gap (`None`: it accounts none, or the run before did not read it).
    pub(crate) irq_ns: Option<u64>,
    /// The time the CPU slept in the idle loop in the gap (`None`: not accounted, or not
    /// read by the run before, which read it only in the idle loop).
    pub(crate) idle_ns: Option<u64>,
    /// The CPU handled no interrupt but its local timer's in the gap.
    pub(crate) quiet: bool,
}

impl Evidence {
    /// Whether `silent_ns` of the gap, in which no sampled CPU ran, may be taken out of it
    /// as a stall: only on a machine a host can stop, and only for a CPU that came back
    /// into the idle loop, user space or the return from an interrupt (a window in kernel
    /// code ends in kernel code, where it turns interrupts on) and then was not in an
    /// interrupt handler or softirq for that time either (one that ran long returns
    /// there too). What shows that, best first:
    /// sleep proven over the whole gap; the kernel's interrupt time accounting (less than
    /// half the silence in handlers); in the idle loop, its idle time (at least half the
    /// silence asleep); in user space, no interrupt but the local timer's in the gap.
    pub(crate) const fn proves_stall(self, silent_ns: u64) -> bool {
        if !self.vm || !(self.idle_loop || self.user || self.exit) {
            return false;
        }
        if self.asleep {
            return true;
        }
        if let Some(irq) = self.irq_ns {
            return irq < silent_ns / 2;
        }
        if self.idle_loop {
            if let Some(idle) = self.idle_ns {
                return idle >= silent_ns / 2;
            }
        }
        self.user && self.quiet
    }
}

/// The part of a window of `latency_ns` in which every CPU was late together: the silence
/// left in it (without evidence, `verdict::with_evidence`), at most the window's length.
pub(crate) const fn together_ns(together: u64, latency_ns: u64) -> u64 {
    if together < latency_ns {
        together
    } else {
        latency_ns
    }
}

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

/// The lowest bit of the pulse's last beat: that beat was the park that left every sampled
/// CPU parked, after which no CPU has a run to miss. After any other beat (an hrtimer or
/// timer_list run, a wake-up, a park that left another CPU's hrtimer queued) some CPU had
/// its hrtimer due within a period, until it parks (a beat too). The time loses its
/// lowest nanosecond.
pub(crate) const PARKED: u64 = 1;

/// The pulse's word for a beat at `now`, the park of the last unparked CPU (`all_parked`)
/// or not.
pub(crate) const fn stamp(now: u64, all_parked: bool) -> u64 {
    if all_parked {
        now | PARKED
    } else {
        now & !PARKED
    }
}

/// The lone silence that a sleeping CPU's wake-up at `now` ends, the pulse's last beat
/// being `raw` ([`stamp`]): none after the park that left every CPU parked (they may have
/// slept since, with no run to miss); after any other beat some CPU had its hrtimer due
/// within a period, so [`silence`] from it. The waker slept through it: *lone*, every CPU
/// with a run to miss late together.
pub(crate) const fn wake_silence(raw: u64, now: u64, period_ns: u64) -> Option<Window> {
    if raw & PARKED != 0 {
        return None;
    }
    silence(raw, now, period_ns)
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

    #[derive(Clone, Copy)]
    enum Ev {
        Run,
        Park,
        Wake,
    }

    /// Replays hrtimer runs, parks and wake-ups of parked CPUs of a two-CPU machine in
    /// time order through the pulse's word and its count of parked CPUs, as
    /// `Peers::beat`, `beat_park` and `beat_awake` do: the silences posted, each with
    /// whether a wake-up ended it (lone).
    fn replay_sleeps(mut evs: Vec<(u64, Ev)>) -> Vec<(Window, bool)> {
        evs.sort_by_key(|&(t, _)| t);
        let (mut raw, mut parked, mut posted) = (0u64, 0, Vec::new());
        for (now, ev) in evs {
            let last = raw & !PARKED;
            match ev {
                Ev::Run | Ev::Park => {
                    if beats(last, now, P) {
                        // Lone where the other CPU sleeps parked (`neighbour_sleeps`).
                        if let Some(s) = silence(last, now, P) {
                            posted.push((s, parked > 0));
                        }
                        raw = stamp(now, false);
                    }
                    if let Ev::Park = ev {
                        parked += 1;
                        raw = stamp(now, parked == 2);
                    }
                }
                Ev::Wake => {
                    parked -= 1;
                    if let Some(s) = wake_silence(raw, now, P) {
                        posted.push((s, true));
                    }
                    raw = stamp(now, false);
                }
            }
        }
        posted
    }

    /// Every CPU asleep with its hrtimer parked for seconds, then woken: no silence. The
    /// time in which every CPU slept is no silence of a running machine, however short
    /// the last CPU's stay awake before it parked.
    #[test]
    fn sleep_of_every_cpu_is_no_silence() {
        for awake_for in [0, MS / 10, 3 * MS, 2 * P] {
            let mut evs: Vec<(u64, Ev)> = every_period(0, 105 * MS, 0)
                .into_iter()
                .map(|t| (t, Ev::Run))
                .collect();
            // CPU 1 parks at 20 ms; CPU 0 parks at 105 ms.
            evs.push((20 * MS, Ev::Park));
            evs.push((105 * MS, Ev::Park));
            // CPU 0 wakes at 2 s and parks again after `awake_for`; CPU 1 wakes at 4 s.
            evs.push((2000 * MS, Ev::Wake));
            evs.extend(
                every_period(2000 * MS + P, 2000 * MS + awake_for, 0)
                    .into_iter()
                    .map(|t| (t, Ev::Run)),
            );
            evs.push((2000 * MS + awake_for + 1, Ev::Park));
            evs.push((4000 * MS, Ev::Wake));
            assert_eq!(replay_sleeps(evs), vec![], "awake for {awake_for}");
        }
    }

    /// The cases that failed tests/vm/stall.sh on Debian's 7.3. CPU 1 sleeps parked; an
    /// interrupt wakes CPU 0 at 1000 ms, and the host stops the VM for 300 ms inside its
    /// softirqs. On resume CPU 1's wake-up (its interrupt became pending in the stop) runs
    /// before CPU 0's overdue hrtimer: the wake-up posts a lone silence that covers CPU 0's
    /// gap but for half a period, so its window says every CPU awake was late together.
    /// So too where CPU 0 slept with its hrtimer queued (a watcher of CPU 1, awake until it
    /// parked) and the stop came before that hrtimer's run.
    #[test]
    fn pause_with_one_cpu_awake_is_a_lone_silence() {
        let woke = 1000 * MS;
        let resumed = woke + 300 * MS;
        // Both CPUs park; CPU 0 wakes; the stop; `first` and `then` on resume.
        let pause = |first, then| {
            vec![
                (woke - 42 * MS, Ev::Park),
                (woke - 40 * MS, Ev::Park),
                (woke, Ev::Wake),
                (resumed, first),
                (resumed + 50_000, then),
            ]
        };
        let posted = replay_sleeps(pause(Ev::Wake, Ev::Run));
        assert_eq!(posted, vec![(w(woke + P / 2, resumed), true)]);
        let gap = (woke, resumed + 50_000);
        let silent = silent_ns(gap.0, gap.1, P, posted.iter().map(|&(w, _)| w));
        assert!(gap.1 - gap.0 - silent <= P, "{silent}");
        // CPU 0's hrtimer first instead: its run ends the silence (`Peers::beat_silence`
        // posts it lone, CPU 1 being parked), and CPU 1's wake-up then finds a young beat.
        let posted = replay_sleeps(pause(Ev::Run, Ev::Wake));
        assert_eq!(posted, vec![(w(woke + P / 2, resumed), true)]);
        // CPU 0 asleep with its hrtimer queued, last run at 996 ms; CPU 1 parks at 1000 ms
        // (one of two parked), the stop, CPU 1's wake-up first on resume.
        let evs = vec![
            (woke - 4 * MS, Ev::Run),
            (woke, Ev::Park),
            (resumed, Ev::Wake),
            (resumed + 50_000, Ev::Run),
        ];
        let posted = replay_sleeps(evs);
        assert_eq!(posted, vec![(w(woke + P / 2, resumed), true)]);
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

    /// The evidence rule: bare metal never takes a silence out, whatever the CPU came back
    /// to; a VM does only for a CPU that came back asleep, in user space or in the return
    /// from an interrupt, with its handlers' time short of half the silence. A CPU that came
    /// back in kernel code (stop_machine's `multi_cpu_stop`, the unlock of a lock convoy,
    /// the end of another window) keeps the silence in its window, as every CPU late
    /// together.
    #[test]
    fn a_stall_needs_evidence() {
        let silent = 140 * MS;
        let base = Evidence {
            vm: true,
            idle_loop: false,
            user: false,
            exit: false,
            asleep: false,
            irq_ns: None,
            idle_ns: None,
            quiet: false,
        };
        // Bare metal: nothing is evidence.
        for e in [
            Evidence {
                idle_loop: true,
                asleep: true,
                ..base
            },
            Evidence {
                user: true,
                quiet: true,
                irq_ns: Some(0),
                ..base
            },
        ] {
            assert!(e.proves_stall(silent));
            assert!(!Evidence { vm: false, ..e }.proves_stall(silent), "{e:?}");
        }
        // Came back in kernel code: never, whatever else.
        let kernel = Evidence {
            asleep: true,
            quiet: true,
            irq_ns: Some(0),
            idle_ns: Some(silent),
            ..base
        };
        assert!(!kernel.proves_stall(silent));
        // Interrupt time accounted: a host pause leaves almost none in the gap; a window in
        // an IPI function or softirq that returned to the idle loop or user space leaves
        // its length.
        let idle = Evidence {
            idle_loop: true,
            ..base
        };
        let user = Evidence {
            user: true,
            quiet: true,
            ..base
        };
        // The return from an interrupt (to user space, the preemption on the return to
        // kernel code, the softirq loop on an interrupt's exit): as user space, but the
        // timer's interrupt alone is no evidence (the handler returned from may be its).
        let exit = Evidence { exit: true, ..base };
        assert!(!Evidence {
            quiet: true,
            ..exit
        }
        .proves_stall(silent));
        for e in [idle, user, exit] {
            assert!(Evidence {
                irq_ns: Some(20_000),
                ..e
            }
            .proves_stall(silent));
            assert!(!Evidence {
                irq_ns: Some(150 * MS),
                ..e
            }
            .proves_stall(silent));
        }
        // Without it, the idle loop's sleep time: the paused idle CPU slept through the
        // silence (idle time of the whole gap); one in an IPI function did not.
        assert!(Evidence {
            idle_ns: Some(150 * MS),
            ..idle
        }
        .proves_stall(silent));
        assert!(!Evidence {
            idle_ns: Some(10 * MS),
            ..idle
        }
        .proves_stall(silent));
        assert!(!idle.proves_stall(silent));
        // In user space without either: only a gap with no interrupt but the timer's.
        assert!(user.proves_stall(silent));
        assert!(!Evidence {
            quiet: false,
            ..user
        }
        .proves_stall(silent));
        assert_eq!(together_ns(30 * MS, 20 * MS), 20 * MS);
        assert_eq!(together_ns(30 * MS, 140 * MS), 30 * MS);
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
