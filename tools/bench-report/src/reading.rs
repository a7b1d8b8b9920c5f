// SPDX-License-Identifier: GPL-2.0
//! The closing section, "Reading these numbers": why the figures are what they are.

/// The section, whole: it depends on no figure.
pub const READING: &str = "Reading these numbers
=====================

- **The guest clock.** Guest time counts instructions (``-icount shift=0,sleep=off``): every
  guest instruction takes 1 ns of guest time and idle time is skipped, so timer interrupts
  arrive on time and no gap comes from the host. The VM has one socket with N cores
  (``-smp cpus=N,sockets=1,cores=N``): the guest keeps its TSC as clocksource (header
  above) and does not mark it unstable.
- **Reading the irqsoff tracer.** Two things make its maximum a reading of the injected
  window. The VM has one socket: with two, the kernel marks the TSC unstable (``TSCs
  unsynchronized``) and falls back to HPET, and the irqsoff tracer's per-CPU,
  sched_clock-based trace clock disagrees between CPUs, so a section measured across two
  CPUs' clocks comes out hundreds of ms long. And ``check_critical_timing()`` in
  ``kernel/trace/trace_irqsoff.c`` records a section as the new maximum only if no other
  section, on any CPU, became the maximum since it started (``critical_sequence ==
  max_sequence``): with ``tracing_max_latency`` at 0, the first ~1 ms irq-off section on
  CPU 0 during a long window on CPU 1 becomes the maximum, and the window, ending later,
  is discarded (a 1000 us reading naming CPU 0, ``irqentry_enter`` to
  ``asm_sysvec_apic_timer_interrupt``). So the bench sets ``tracing_max_latency`` to a
  floor only the injected window can pass (D/2) and accepts a reading only if its header
  names CPU 1 and a start in the window's code; the precheck shows the result.
- The errors in the accuracy table are the sampler's own: a hardirq window of length D
  that starts a phase U after the last expiry is reported as D + U - P, i.e. between D - P
  and D. The random phase is drawn after the trace buffer is cleared (clearing waits for
  an RCU grace period, which ends in step with the tick).
- The softirq side sees a window at the hrtimer's resolution: a look that finds softirqs
  held off queues the softirq probe, and a probe that runs P or more later is an event
  from halfway back to the look before. So its detection from 2P is certain and its error
  is within P/2 plus the probe's start-up, at any HZ. The timer_list (the original's
  sampler, still there as a backstop) needs a gap of 2Ps + one timer-wheel granule + one
  jiffy (Ps = P, at least 4 ms, rounded up to jiffies: 22 ms at P = 10 ms, 10 ms at
  P = 1 ms with HZ 1000; at HZ 250 Ps is 12 ms and 4 ms, the gaps 32 ms and 16 ms) and
  reports only what the probe did not.
- The original reports latency in whole ms, counts an event from a gap of 2P whatever HZ
  (at P = 1 ms a jiffy-rounded timer_list gap of 2-3 ms is already an event: its false
  softirq events), and names the tracer's own frames first in the records its
  timer_list takes.
- False events: nothing injects windows in these runs, but the kernel itself opens real
  ones (a softirq handler freeing memory for milliseconds blocks every other softirq on
  its CPU; a CPU spinning for a lock in an interrupt handler keeps interrupts off). So
  each of our events is judged by the kernel's own trace of the run, taken in a tracefs
  instance of its own: ``irq:softirq_raise``, ``softirq_entry`` and ``softirq_exit``
  (softirqs could not run from a vector's raise to its entry, and while a handler ran),
  ``timer:hrtimer_start`` and ``hrtimer_expire_entry`` (hard interrupts could not run
  from a hard hrtimer's expiry to its expiry in hard interrupt context), and our own
  ``trace_irqoff:hardirq_off`` and ``softirq_off``. An event is confirmed when a window
  of its kind on its CPU (spans less than 50 us apart merged) overlaps it by at least its
  length less the tolerance (one period for hardirq events, one period and one jiffy for
  softirq events) and at least half its length; an event the trace does not confirm is a
  false event (tests/guest-tools/src/witness.rs). The trace starts a second before the
  run, and the module's counts are cleared when the run starts (starting a trace patches
  code on every CPU). A ``ksoftirqd-wait`` event is a real delay of the timer softirq
  (left to ksoftirqd, which did not get the CPU), what the tool is for. The worst
  records are listed under the table. Reading ``records`` is not free: the file names
  every frame of every record when read, and one read of that seq_file runs its show
  function again each time its buffer has to grow; the last column of the table counts
  the events that came while the bench read it.
- Hardirq events with nothing injected, where the records list them with in-window stacks
  in ``native_queued_spin_lock_slowpath``, are a CPU spinning for a lock with interrupts
  off for that long in guest time; the original counted hardirq events in the same runs.
  Reproduced outside the bench on Debian's 7.3 (30 s of shell-loop stress with null_blk
  reads, P = 1 ms): three windows of 19-36 ms on CPU 1, every in-window sample (17 to 35
  NMIs each) in the same spin, ``hrtimer_try_to_cancel`` called from the deadline
  server's ``update_curr_dl_se`` (from ``enqueue_task_fair``, ``pick_task_fair``), while
  CPU 0 reported no late hrtimer of its own, so no CPU held that hrtimer base's lock
  with interrupts off for that long. Not explained: on hardware, a waiter spins only
  while a holder runs; the emulator's round-robin of vCPUs may be what lets it spin.
- ``late_timer_gaps``: a timer_list gap the probe did not report is a softirq-off window
  only if a look inside it saw softirq work left to ksoftirqd; one whose looks found
  softirqs free to run (in the softirq loop between handlers, or enabled with nothing
  waiting) is the timer's own lateness, counted in that column and never an event. On
  the bench kernel under stress at P = 1 ms such gaps are about 3.0 ms, which a judge by
  length alone would take for ``bh-off`` events (one traced: about 1 ms of a task with
  bottom halves off, then about 2 ms in which no timer softirq was raised on that CPU
  although the timer_list was due).
- ``bh-off`` events under stress at P = 1 ms on the bench kernel that are below the
  threshold (no record) come from the probe: a look found a softirq handler running or
  bottom halves off, and the pending softirqs ran a period or more later. One traced
  (softirq, timer and scheduler events, 8 s of the same kind of stress): the look came
  inside an RCU softirq handler that ran 1.0 ms; the softirqs raised meanwhile (the
  probe's and the timer's) ran 1.0 ms after that handler returned, with no event traced
  on that CPU in between though its hrtimer kept its period; the probe reported 1.5 ms.
  A delay of pending softirqs in guest time, not a window the tool made up; what the CPU
  did in that untraced millisecond is not explained.
- Some windows are not read by the irqsoff tracer even with the floor (precheck and the
  *read* counts): the header then names CPU 0 and a section of about 90-95 ms that
  started at ``irqentry_enter``, i.e. CPU 0 appeared to keep interrupts off for almost
  the whole of CPU 1's window, ended first, and became the maximum. CPU 0 was idle. Not
  verified: QEMU's single-threaded round-robin runs one vCPU at a time, and CPU 1
  spinning with interrupts off may keep the CPU until the next scheduler kick, with CPU 0
  paused inside its interrupt entry meanwhile.
- Overhead: the loops run on both CPUs, and both vCPUs share one instruction clock, so the
  loop ratio is the share of all instructions that went to the configuration while both
  CPUs were busy: on hardware, the share of each CPU. It counts instructions, not cycles
  (no cache misses, no interrupt-entry cost beyond its instructions). The hackbench-like
  workload varies with its thread interleaving from run to run; its intervals are wider.
- Cost per sample is in guest instructions (1 ns each).
";
