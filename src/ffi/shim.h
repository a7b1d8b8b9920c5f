/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The C/Rust boundary of trace_irqoff. Plain types only: bindgen turns this header into
 * the Rust declarations at build time (src/shim_bindings.rs), so the two sides cannot
 * drift apart. Opaque kernel objects travel as void pointers.
 */
#ifndef TRACE_IRQOFF_SHIM_H
#define TRACE_IRQOFF_SHIM_H

/* The files under /proc/trace_irqoff, by the id the show/write callbacks receive. */
enum tio_file {
	TIO_FILE_ENABLE = 0,
	TIO_FILE_SAMPLING_PERIOD = 1,
	TIO_FILE_TRACE_LATENCY = 2,
	TIO_FILE_DISTRIBUTE = 3,
	TIO_FILE_RECORDS = 4,
	TIO_FILE_TAG_WAIT = 5,
	TIO_FILE_CPUS = 6,
	TIO_FILE_COUNTERS = 7,
	TIO_FILE_COUNT = 8,
};

/* Longest write accepted by any control file; longer writes are -EINVAL. */
#define TIO_WRITE_MAX 64
/* Room for one symbolised address ("func+0x1f/0x80 [module]"). */
#define TIO_SYMBOL_LEN 704
/* Length of a task's comm, with its NUL. */
#define TIO_COMM_LEN 16

/* procfs: creates /proc/trace_irqoff and its files; 0 or -errno. */
int tio_proc_create(void);
void tio_proc_remove(void);

/* seq_has_overflowed(m) of the struct seq_file at m. */
int tio_seq_overflowed(void *m);

/* Symbolises addr as "func+off/size [mod]" into buf (TIO_SYMBOL_LEN); returns length. */
int tio_sprint_symbol(char *buf, unsigned long addr);

/* Copies current->comm into buf (TIO_COMM_LEN bytes, NUL-terminated); returns the pid. */
int tio_current_task(char *buf);

/*
 * The cgroup v2 id of the current task's cgroup on the default hierarchy (the inode
 * number of its directory on a cgroup2 mount); 0 without CONFIG_CGROUPS. Constant cost,
 * any context (hard interrupt, NMI): what bpf_get_current_cgroup_id() does.
 */
unsigned long long tio_current_cgroup_id(void);

/* Whether the current task is this CPU's idle task. */
int tio_current_is_idle(void);

/* preempt_disable() / preempt_enable(): macros, so Rust reaches them here. */
void tio_preempt_disable(void);
void tio_preempt_enable(void);

/* The interrupted instruction pointer in hard interrupt context, else 0. */
unsigned long tio_irq_regs_ip(void);

/*
 * In hard interrupt context, interrupting kernel code: whether the code had just turned
 * hard interrupts on (1) or already ran with them on (0) when the interrupt came in
 * (tio_arch_irqs_came_on_before); -1 where that cannot be told, in user space or
 * outside hard interrupt context.
 */
int tio_irq_regs_irqs_came_on(void);

/* Saves the current stack; returns the number of entries stored. */
unsigned int tio_stack_save(unsigned long *entries, unsigned int max);

/*
 * A walk of the stack that the current hard interrupt or NMI (our NMI handler's)
 * interrupted, one frame per call, so that the caller stops as soon as it has the frames
 * it keeps (each step is an unwinder lookup). The walk's state lives in the caller's
 * buffer (arch.c asserts that it fits); it points into nothing but the stack being walked.
 */
#define TIO_UNWIND_BYTES 256
struct tio_unwind {
	unsigned long words[TIO_UNWIND_BYTES / sizeof(unsigned long)];
};

/*
 * Starts a walk in `u`: 1 if there is one, 0 if the interrupted context was user space
 * (no kernel frame), -1 where it cannot be done (arm64, no interrupted registers): then
 * save the whole stack and cut it.
 */
int tio_unwind_interrupted_start(struct tio_unwind *u);

/*
 * The walk's next address (`u` started with a result of 1): the interrupted instruction
 * first, then the return addresses from its registers on; 0 at the end.
 */
unsigned long tio_unwind_interrupted_next(struct tio_unwind *u);

/*
 * The address of the core-kernel function `name` (NUL-terminated), 0 if there is none:
 * resolved by a kprobe registered disabled, which patches nothing (the address is the
 * kprobe's even where the function may not be probed). Process context; may sleep.
 */
unsigned long tio_function_address(const char *name);


/*
 * Whether addr lies where code that can go away lives (modules, BPF programs, trampolines):
 * its name must be taken when the stack is captured. The core kernel's text never goes.
 */
int tio_text_can_vanish(unsigned long addr);

/*
 * The upper 32 bits of the core kernel's text addresses (those of _printk): 0xffffffff on
 * x86_64, 0xffff8000 or near on arm64.
 */
unsigned int tio_core_text_high(void);

/* Formats addr as %pS ("func+0x1f/0x80 [module]") into buf of len bytes; returns the length. */
int tio_format_symbol(char *buf, unsigned int len, unsigned long addr);

/* What the running hard interrupt interrupted (0 outside hard interrupt context). */
enum tio_interrupted {
	/* The idle task itself: no other hardirq, softirq or NMI level below this one. */
	TIO_INTERRUPTED_IDLE_LOOP = 1,
	/* A softirq handler (in_serving_softirq()). */
	TIO_INTERRUPTED_SERVING_SOFTIRQ = 2,
	/* Code with bottom halves disabled, or a softirq handler (softirq_count() != 0). */
	TIO_INTERRUPTED_BH_OFF = 4,
	/* User space. */
	TIO_INTERRUPTED_USER = 8,
};
unsigned int tio_interrupted(void);
/*
 * The hrtimer's one look at its CPU: tio_interrupted(), and tio_steal_ns() into *steal
 * (one call where the hot path needs both).
 */
unsigned int tio_interrupted_steal(unsigned long long *steal);

/*
 * Interrupts this CPU has taken since boot, NMIs (and perf's NMI-delivered PMIs) not
 * counted: device interrupts and, on x86, the APIC's own vectors (timer, IPIs, irq_work).
 * Only differences between two reads on this CPU mean anything.
 */
unsigned long long tio_irq_events(void);
/*
 * Of those, the ones that are not the local timer's: tio_irq_events() less the APIC
 * timer's vector on x86. On arm64 the timer is an interrupt like any other, and this is
 * tio_irq_events().
 */
unsigned long long tio_irq_events_but_timer(void);
/*
 * The time this CPU has spent in hard interrupt handlers and softirqs since boot, ns, as
 * the kernel accounts it at each exit (CONFIG_IRQ_TIME_ACCOUNTING; on x86 only while the
 * TSC is stable, as the kernel turns it off otherwise); ULLONG_MAX where it does not.
 */
unsigned long long tio_irq_time_ns(void);
/*
 * The time this CPU has slept in the idle loop since boot (get_cpu_idle_time_us), ns, up
 * to the current interrupt's entry; ULLONG_MAX where the kernel does not account it
 * (no dynticks).
 */
unsigned long long tio_idle_sleep_ns(void);

/* In NMI context: whether the NMI interrupted a hard interrupt handler. */
int tio_nmi_interrupted_hardirq(void);

/*
 * In NMI context: whether the NMI interrupted the idle loop's wait (the idle task, with no
 * hard interrupt or softirq level below the NMI, inside the part of the idle loop where
 * RCU is not watching: polling, halted or in a C-state). Where the kernel has no
 * context tracking of idle (CONFIG_CONTEXT_TRACKING_IDLE), anywhere in the idle loop.
 */
int tio_nmi_interrupted_idle_wait(void);

/*
 * Steal time the kernel has accounted on this CPU since boot, in ns
 * (kcpustat_this_cpu->cpustat[CPUTIME_STEAL]); 0 where it accounts none (no paravirt steal
 * clock: bare metal, QEMU TCG). Updated only by this CPU (at its tick, and at idle exit);
 * any context on the CPU to read. In C: this_cpu_read is a per-CPU accessor macro.
 */
unsigned long long tio_steal_ns(void);

/*
 * hrtimer interrupt retries on the CPU whose hrtimer interrupt is running timer's callback:
 * a retry means callbacks of that interrupt ran past the next expiry. timer is the running
 * struct hrtimer; 0 without high-resolution timers.
 */
unsigned int tio_hrtimer_retries(const void *timer);

/*
 * hrtimer_forward(timer, now, interval) from timer's own callback, with its run on time
 * inline: where now lies within one interval past the expiry (interval no shorter than
 * the clock's resolution), the expiry moves on by interval and 1 overrun is returned,
 * as the kernel's would; any other run is the kernel's. now and interval in ns of the
 * monotonic clock (ktime_t), interval at most a second. In C: hrtimer_add_expires_ns()
 * is a static inline.
 */
unsigned long long tio_hrtimer_forward(void *timer, unsigned long long now,
					unsigned long long interval);

/* timer's expiry in ns of the monotonic clock, from timer's own callback (where nothing
 * else moves it). In C: hrtimer_get_expires() is a static inline. */
unsigned long long tio_hrtimer_expires_ns(const void *timer);

/* Pid of cpu's per-CPU kernel thread named "ksoftirqd/<cpu>" (timers = 0) or
 * "ktimers/<cpu>" (timers = 1); 0 if there is none. Process context. */
int tio_softirq_thread_pid(unsigned int cpu, int timers);

/* The pids of every CPU's softirq threads in one walk of the task list: ksoftirqd[cpu]
 * and ktimers[cpu] for cpu < nr (left as they are for a CPU without one). Process
 * context. */
void tio_softirq_thread_pids(int *ksoftirqd, int *ktimers, unsigned int nr);

/* Whether the task with this pid is queued to run but is not the current task. */
int tio_task_waiting(int pid);

/*
 * PREEMPT_RT with the per-CPU BH lock (CONFIG_PREEMPT_RT_NEEDS_BH_LOCK): whether the task
 * with this pid, not the current one, is inside a bottom-half-disabled section, and so
 * holds the lock that keeps every softirq of its CPU from running, though it does not
 * run itself (preempted). 0 on every other kernel, where such a section either cannot be
 * preempted or holds nothing.
 */
int tio_task_holds_bh_lock(int pid);
/* Whether this kernel has that lock. */
int tio_has_bh_lock(void);

/* Monotonic clock, ns since boot (ktime_get_ns); the kernel crate keeps it private. */
/*
 * local_irq_save()/local_irq_restore() for kernels whose `kernel` crate has no
 * local_interrupt_disable() (7.2): the flags to give back to tio_irq_restore().
 */
unsigned long tio_irq_save(void);
void tio_irq_restore(unsigned long flags);
unsigned long long tio_now_ns(void);
/* The same clock, readable in NMI context (ktime_get_mono_fast_ns). */
unsigned long long tio_now_ns_nmi(void);
/*
 * CLOCK_REALTIME minus CLOCK_MONOTONIC now, in ns (ktime_mono_to_real(0), one read of the
 * timekeeper's offset): the wall-clock time at which the monotonic clock was 0.
 */
long long tio_realtime_offset_ns(void);
/* The jiffies counter (the timer wheel's clock). */
unsigned long tio_jiffies(void);
/* The tick rate. */
unsigned long tio_hz(void);
/* Whether cpu is online (0 for any cpu >= nr_cpu_ids). */
int tio_cpu_online(unsigned int cpu);
/* Whether cpu is a nohz_full CPU (0 for any cpu >= nr_cpu_ids). */
int tio_cpu_nohz_full(unsigned int cpu);

/*
 * The per-CPU timer_list (softirq sampler). start: on the calling CPU, first expiry in
 * `jiffies`; each expiry calls trace_irqoff_rs_softirq_sample(cpu), whose non-zero result
 * is the next delay in jiffies; 0, or -EBUSY if that CPU's timer is already running (it
 * is left as it is). deferrable: non-zero for a timer that does not wake the CPU from
 * sleep (TIMER_DEFERRABLE: it runs at the first tick after). stop: shuts cpu's timer down
 * and waits for a running callback; a CPU number that is not possible, or whose timer was
 * never started, changes nothing.
 */
int tio_softtimer_start(unsigned long jiffies, int deferrable);
void tio_softtimer_stop(unsigned int cpu);

/*
 * The timer_list is irq-safe: its callback runs with interrupts disabled (the timer code
 * does not enable them around it, which with interrupt tracing costs more than the
 * callback's common path). For the rare long work (a record), the callback enables them:
 * irqs_on_begin enables interrupts if they are disabled and returns whether it did;
 * irqs_on_end(1) disables them again. Softirq or task context only.
 */
int tio_irqs_on_begin(void);
void tio_irqs_on_end(int enabled);

/* cpus_read_lock() / cpus_read_unlock(): no CPU comes or goes in between. Process
 * context; may sleep. */
void tio_cpus_read_lock(void);
void tio_cpus_read_unlock(void);

/*
 * The softirq probe: a per-CPU work item on the high-priority BH workqueue, so it runs in
 * softirq context on its CPU as soon as softirqs can run there; it calls
 * trace_irqoff_rs_probe_ran(cpu). init: once at load, for every possible CPU. arm: queues
 * this CPU's (any context); 0 if it was queued already. cancel: takes cpu's off the queue
 * and waits for a running one (process context).
 */
void tio_probe_init(void);
int tio_probe_arm(void);
void tio_probe_cancel(unsigned int cpu);

/* Softirqs pending on this CPU (local_softirq_pending()). */
unsigned int tio_softirq_pending(void);

/*
 * CPU hotplug: trace_irqoff_rs_cpu_online/offline run on each CPU that is or comes
 * online / goes offline, until tio_cpuhp_remove(). Returns the state (> 0) or -errno.
 */
int tio_cpuhp_add(void);
void tio_cpuhp_remove(int state);

/* Why softirqs could not run (the softirq_off tracepoint's cause). */
enum tio_cause {
	TIO_CAUSE_BH_OFF = 1,
	TIO_CAUSE_KSOFTIRQD_WAIT = 2,
};

/*
 * Tracepoints trace_irqoff:hardirq_off and trace_irqoff:softirq_off (the event stream): the
 * window's CPU, length and end (CLOCK_MONOTONIC), task and its cgroup v2 id
 * (tio_current_cgroup_id), its number on the CPU, for a hardirq-off window the part of
 * it in which every CPU was late together (together_ns, 0: none), and up to 8
 * culprit frames (addresses, culprit first; nr_frames may be 0).
 */
void tio_trace_hardirq_off(unsigned int cpu, unsigned long long latency_ns, int pid,
			   const char *comm, unsigned long long cgroup, unsigned long long end_ns,
			   unsigned long long seq, int end_shows_culprit,
			   unsigned long long together_ns,
			   const unsigned long long *frames, unsigned int nr_frames);
void tio_trace_softirq_off(unsigned int cpu, unsigned long long latency_ns, int pid,
			   const char *comm, unsigned long long cgroup, int cause,
			   unsigned long long end_ns, unsigned long long seq, int end_shows_culprit,
			   const unsigned long long *frames, unsigned int nr_frames);
/* Whether either of the two is being traced (a static key: no cost when not). */
int tio_trace_windows_enabled(void);

/* Tracepoint trace_irqoff:irqoff_ongoing: a hardirq-off window on cpu still open, seen by
 * another CPU (stuck: it passed the stuck length). */
void tio_trace_irqoff_ongoing(unsigned int cpu, unsigned long long length_ns, int pid,
			      const char *comm, int stuck);

/* Tracepoint trace_irqoff:stall: no sampled CPU ran from start_ns to end_ns
 * (CLOCK_MONOTONIC): the whole machine stood still (a paused VM). cpu: the CPU whose
 * hrtimer run ended it. */
void tio_trace_stall(unsigned int cpu, unsigned long long start_ns, unsigned long long end_ns);

/*
 * Looking into another CPU. tio_nmi_supported: whether this architecture lets the module
 * send an NMI to one CPU (x86_64). register: an NMI_UNKNOWN handler (it sees only NMIs
 * no other handler claimed and with no platform reason) that calls trace_irqoff_rs_nmi
 * and claims the NMI only if that returns non-zero; 0 or -errno.
 * unregister: removes it and waits until it no longer runs. send: NMI_VECTOR to cpu if
 * it is below nr_cpu_ids and online (0), else nothing (-EINVAL; -EOPNOTSUPP where NMIs
 * cannot be sent): a possible but absent CPU's APIC id is not one to send to.
 */
int tio_nmi_supported(void);
/*
 * Whether a host can stop this machine: the CPU reports a hypervisor (x86
 * X86_FEATURE_HYPERVISOR, CPUID leaf 1 ECX bit 31). arm64 has no such flag: a kernel that
 * runs at EL2 (is_kernel_in_hyp_mode: VHE) is the machine's own, bare metal or a host; one
 * at EL1 may be a guest and counts as one (so does a non-VHE host). 1 or 0.
 */
int tio_under_hypervisor(void);
int tio_nmi_register(void);
void tio_nmi_unregister(void);
int tio_nmi_send(unsigned int cpu);
/*
 * The NMIs cpu has taken since boot (x86: irq_stat's NMI count, moved at each NMI's
 * entry, whoever claims it), read from any CPU; ULLONG_MAX where NMIs are not ours to
 * send or cpu is not a possible CPU.
 */
unsigned long long tio_nmi_count(unsigned int cpu);
/*
 * The namer (src/capture/namer.rs): names the frames of records in module text off the capture
 * path. start: registers a module notifier that, when a module goes (MODULE_STATE_GOING,
 * after its exit function, while its symbols are still there), calls
 * trace_irqoff_rs_name_frames; 0 or -errno. kick: queues the namer's work item (unbound
 * workqueue), which calls trace_irqoff_rs_name_frames in process context; any context but
 * NMI, O(1), a no-op while it is queued already. stop: unregisters the notifier and waits
 * for the work item, which is not queued again once nothing kicks it.
 */
int tio_namer_start(void);
void tio_namer_kick(void);
void tio_namer_stop(void);
/*
 * stop_machine(): the function a call runs on this CPU, for the record of the window it
 * holds (every online CPU spins in multi_cpu_stop with interrupts off; the call's
 * function runs on the CPUs it names, on the first online one if it names none).
 * register: a kretprobe on stop_machine_cpuslocked (at entry: its function and CPUs;
 * calls counted in and out) and one on multi_cpu_stop (which CPUs are inside it); 0 or
 * -errno (no kprobes, a symbol not probeable). unregister: removes both and waits.
 * callback: hard interrupt context; the function of the call in flight if this CPU is
 * inside multi_cpu_stop, exactly one call is in flight since the last time none was,
 * none was missed, and this CPU is one it runs its function on; else 0. O(1). While a
 * call through stop_core_cpuslocked or stop_machine_from_inactive_cpu is in flight
 * (probed where the kernel has them), 0.
 */
int tio_stop_machine_register(void);
void tio_stop_machine_unregister(void);
unsigned long long tio_stop_machine_callback(void);
/*
 * The sleep of a CPU (idle.c). register: probes on power:cpu_idle and on the tracepoints
 * at the entry of every interrupt (irq_handler_entry, and x86's system vectors where the
 * kernel has them) and of every softirq (softirq_entry); from then on
 * trace_irqoff_rs_sleep runs where the idle loop puts a CPU to sleep,
 * trace_irqoff_rs_woken where it is back and at every such entry, before its handler (on
 * that CPU, hard interrupts off). 0 or -errno (-ENOENT: no irq_handler_entry or
 * softirq_entry; -EOPNOTSUPP: a Hyper-V or ACRN guest, whose interrupts come on vectors
 * without an entry tracepoint). unregister: removes them and waits until none runs.
 * entries: how many entries are probed.
 * park: from that CPU, with interrupts off, outside the timer's callback: takes the
 * timer out of its queue; non-zero if it was queued (and is now not). unpark: queues it
 * again, pinned to this CPU, to expire at expires_ns (the monotonic clock); a timer
 * still queued is moved there.
 */
int tio_sleep_register(void);
void tio_sleep_unregister(void);
int tio_sleep_entries(void);
/*
 * idle_sleeps: the sleeps this CPU began in the idle loop since register (power:cpu_idle's
 * entries, which every way the idle loop sleeps traces); ULLONG_MAX while the probes are
 * not registered. With interrupts off.
 */
unsigned long long tio_idle_sleeps(void);
int tio_hrtimer_park(void *timer);
/*
 * ride_gate: this CPU's local timer interrupts call trace_irqoff_rs_tick from the jiffy
 * from_jiffies on (0: never), x86 only; set with interrupts off.
 */
void tio_ride_gate(unsigned long from_jiffies);
/*
 * wake_cpu: from hard interrupt context (interrupts off), wakes cpu with a function call
 * that does nothing (its IPI's entry is what counts); a CPU that is offline, this one, or
 * one with such a call still in flight is left alone. wake_sync: process context, after
 * the last wake_cpu: waits until no such call is in flight or running.
 */
void tio_wake_cpu(unsigned int cpu);
void tio_wake_sync(void);
void tio_hrtimer_unpark(void *timer, unsigned long long expires_ns);
/* The kernel log's rate limit for the stuck message: non-zero if one may be printed now. */
int tio_warn_ratelimit(void);

/*
 * Implemented in Rust (src/entry.rs), called by the shim. bindgen declares them for Rust
 * too, and entry.rs checks at compile time that its definitions have these types.
 */
/* A file's number of elements (one show call each), and showing its element index. */
unsigned long trace_irqoff_rs_elements(unsigned int file);
int trace_irqoff_rs_show(unsigned int file, void *seq, unsigned long index);
int trace_irqoff_rs_write(unsigned int file, const char *buf, unsigned long len);
unsigned long trace_irqoff_rs_softirq_sample(unsigned int cpu);
void trace_irqoff_rs_probe_ran(unsigned int cpu);
int trace_irqoff_rs_cpu_online(unsigned int cpu);
int trace_irqoff_rs_cpu_offline(unsigned int cpu);
/* NMI on cpu, which interrupted ip: non-zero if the module asked for it (NMI context). */
int trace_irqoff_rs_nmi(unsigned int cpu, unsigned long ip);
/* The namer's pass (process context, may sleep). */
void trace_irqoff_rs_name_frames(void);
/* This CPU: the idle loop puts it to sleep; it is awake again or in an interrupt's entry. */
void trace_irqoff_rs_sleep(void);
void trace_irqoff_rs_woken(void);
/* x86: this CPU's local timer interrupt, at its entry, after the woken check. */
void trace_irqoff_rs_tick(void);

#endif
