// SPDX-License-Identifier: GPL-2.0
/*
 * The part of trace_irqoff that Rust cannot express: proc_ops tables, inline helpers and
 * macros. Each function is a few lines over plain integers and opaque pointers; every
 * decision is made in Rust (src/ffi.rs and what it calls).
 */
#include <linux/cgroup.h>
#include <linux/context_tracking_state.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
/* struct hrtimer_cpu_base: hrtimer_bases.h from 7.3, hrtimer_defs.h before. */
#if __has_include(<linux/hrtimer_bases.h>)
#include <linux/hrtimer_bases.h>
#else
#include <linux/hrtimer_defs.h>
#endif
#include <linux/jiffies.h>
#include <linux/kernel_stat.h>
#include <linux/hardirq.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/proc_fs.h>
#include <linux/ratelimit.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/stacktrace.h>
#include <linux/stop_machine.h>
#include <linux/tick.h>
#include <linux/timekeeping.h>
#include <linux/timer.h>
#include <linux/uaccess.h>
#include <linux/version.h>
#include <linux/workqueue.h>
#include <asm/irq_regs.h>

#include "arch.h"
#include "shim.h"

#define CREATE_TRACE_POINTS
#include "trace_irqoff_trace.h"

static_assert(TIO_SYMBOL_LEN >= KSYM_SYMBOL_LEN);
static_assert(TIO_COMM_LEN == TASK_COMM_LEN);

static struct proc_dir_entry *tio_dir;

/*
 * Every file is a seq_file iterator over the elements Rust defines for it (one for a
 * control file; for trace_latency, distribute, records and counters one per CPU and
 * part), so that a read holds one element at a time and a buffer that overflows costs a
 * second pass over one element, not over the whole file. The element index + 1 is the
 * iterator; m->private is the file's id.
 */
static void *tio_seq_start(struct seq_file *m, loff_t *pos)
{
	if (*pos < 0 || *pos >= trace_irqoff_rs_elements((unsigned long)m->private))
		return NULL;
	return (void *)(unsigned long)(*pos + 1);
}

static void *tio_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return tio_seq_start(m, pos);
}

static void tio_seq_stop(struct seq_file *m, void *v)
{
}

static int tio_seq_show(struct seq_file *m, void *v)
{
	return trace_irqoff_rs_show((unsigned long)m->private, m, (unsigned long)v - 1);
}

static const struct seq_operations tio_seq_ops = {
	.start = tio_seq_start,
	.next = tio_seq_next,
	.stop = tio_seq_stop,
	.show = tio_seq_show,
};

static int tio_open(struct inode *inode, struct file *file)
{
	int ret = seq_open(file, &tio_seq_ops);

	if (!ret)
		((struct seq_file *)file->private_data)->private = pde_data(inode);
	return ret;
}

static ssize_t tio_write(struct file *file, const char __user *ubuf, size_t count,
			 loff_t *ppos)
{
	struct seq_file *m = file->private_data;
	char buf[TIO_WRITE_MAX];
	int ret;

	if (count > sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	ret = trace_irqoff_rs_write((unsigned long)m->private, buf, count);
	return ret < 0 ? ret : count;
}

int tio_seq_overflowed(void *m)
{
	return seq_has_overflowed(m);
}

/* Read-only files have a write handler too: Rust answers EPERM (root bypasses the mode). */
static const struct proc_ops tio_ops = {
	.proc_open = tio_open,
	.proc_read = seq_read,
	.proc_write = tio_write,
	.proc_lseek = seq_lseek,
	.proc_release = seq_release,
};

static const struct {
	const char *name;
	umode_t mode;
} tio_files[TIO_FILE_COUNT] = {
	[TIO_FILE_ENABLE] = { "enable", 0600 },
	[TIO_FILE_SAMPLING_PERIOD] = { "sampling_period", 0600 },
	[TIO_FILE_TRACE_LATENCY] = { "trace_latency", 0600 },
	[TIO_FILE_DISTRIBUTE] = { "distribute", 0400 },
	[TIO_FILE_RECORDS] = { "records", 0400 },
	[TIO_FILE_TAG_WAIT] = { "tag_wait", 0600 },
	[TIO_FILE_CPUS] = { "cpus", 0600 },
	[TIO_FILE_COUNTERS] = { "counters", 0400 },
};

int tio_proc_create(void)
{
	unsigned long i;

	tio_dir = proc_mkdir("trace_irqoff", NULL);
	if (!tio_dir)
		return -ENOMEM;
	for (i = 0; i < TIO_FILE_COUNT; i++) {
		if (!proc_create_data(tio_files[i].name, tio_files[i].mode, tio_dir,
				      &tio_ops, (void *)i)) {
			proc_remove(tio_dir);
			return -ENOMEM;
		}
	}
	return 0;
}

void tio_proc_remove(void)
{
	proc_remove(tio_dir);
}

int tio_sprint_symbol(char *buf, unsigned long addr)
{
	return sprint_symbol(buf, addr);
}

int tio_current_task(char *buf)
{
	strscpy(buf, current->comm, TIO_COMM_LEN);
	return task_pid_nr(current);
}

unsigned long long tio_current_cgroup_id(void)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	/* task_dfl_cgroup() dereferences current's css_set under RCU. */
	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(current));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

int tio_current_is_idle(void)
{
	return is_idle_task(current);
}

void tio_preempt_disable(void)
{
	preempt_disable();
}

void tio_preempt_enable(void)
{
	preempt_enable();
}

/* The interrupted context's registers in hard interrupt context, else NULL. */
static struct pt_regs *tio_irq_regs(void)
{
	return in_hardirq() ? get_irq_regs() : NULL;
}

unsigned long tio_irq_regs_ip(void)
{
	struct pt_regs *regs = tio_irq_regs();

	return regs ? instruction_pointer(regs) : 0;
}

int tio_irq_regs_irqs_came_on(void)
{
	struct pt_regs *regs = tio_irq_regs();

	if (!regs || user_mode(regs))
		return -1;
	return tio_arch_irqs_came_on_before(instruction_pointer(regs));
}

unsigned int tio_stack_save(unsigned long *entries, unsigned int max)
{
	return stack_trace_save(entries, max, 0);
}

int tio_text_can_vanish(unsigned long addr)
{
#ifdef MODULES_VADDR
	return addr >= MODULES_VADDR && addr < MODULES_END;
#else
	return 1;
#endif
}

unsigned int tio_core_text_high(void)
{
	return (unsigned long)&_printk >> 32;
}

/*
 * %pSb: a module's frame carries the module's build id where the kernel has
 * CONFIG_STACKTRACE_BUILD_ID ("func+0x1f/0x80 [module BUILDID]"), taken while the
 * module is there, for source lines later (trace-irqoff records --lines); as %pS
 * elsewhere, and for core-kernel frames.
 */
int tio_format_symbol(char *buf, unsigned int len, unsigned long addr)
{
	return scnprintf(buf, len, "%pSb", (void *)addr);
}

unsigned int tio_interrupted(void)
{
	unsigned int what = 0;

	if (!in_hardirq())
		return 0;
	if (is_idle_task(current) && irq_count() == HARDIRQ_OFFSET)
		what |= TIO_INTERRUPTED_IDLE_LOOP;
	if (in_serving_softirq())
		what |= TIO_INTERRUPTED_SERVING_SOFTIRQ;
	if (softirq_count())
		what |= TIO_INTERRUPTED_BH_OFF;
	if (get_irq_regs() && user_mode(get_irq_regs()))
		what |= TIO_INTERRUPTED_USER;
	return what;
}

unsigned int tio_interrupted_steal(unsigned long long *steal)
{
	*steal = tio_steal_ns();
	return tio_interrupted();
}

int tio_nmi_interrupted_hardirq(void)
{
	/* NMI entry adds one hardirq level of its own. */
	return in_nmi() && hardirq_count() > HARDIRQ_OFFSET;
}

int tio_nmi_interrupted_idle_wait(void)
{
	/* NMI entry adds one NMI and one hardirq level of its own. */
	if (!in_nmi() || !is_idle_task(current) || irq_count() != NMI_OFFSET + HARDIRQ_OFFSET)
		return 0;
#ifdef CONFIG_CONTEXT_TRACKING_IDLE
	/*
	 * Every wait of the idle loop (cpu_idle_poll, default_idle_call, cpuidle_enter_state)
	 * runs between ct_cpuidle_enter() and ct_cpuidle_exit(), where RCU is not watching;
	 * an NMI that comes in there is the outermost one from RCU-idle, which ct_nmi_enter()
	 * marks with an nmi_nesting of exactly 1. The rest of the idle loop (an IPI function
	 * run by flush_smp_call_function_queue() from do_idle() on a polling CPU, which took
	 * no interrupt) runs with RCU watching.
	 */
	return ct_nmi_nesting() == 1;
#else
	return 1;
#endif
}

unsigned long long tio_steal_ns(void)
{
	/* One per-CPU load: no torn read against this CPU's tick, also if preemptible. */
	return this_cpu_read(kernel_cpustat.cpustat[CPUTIME_STEAL]);
}

unsigned long long tio_irq_events(void)
{
	return __this_cpu_read(kstat.irqs_sum) + tio_arch_irq_events();
}

unsigned long long tio_irq_events_but_timer(void)
{
	return __this_cpu_read(kstat.irqs_sum) + tio_arch_irq_events_but_timer();
}

unsigned long long tio_irq_time_ns(void)
{
	const u64 *c = kcpustat_this_cpu->cpustat;

	if (!tio_arch_irq_time_accounted())
		return ULLONG_MAX;
	return READ_ONCE(c[CPUTIME_IRQ]) + READ_ONCE(c[CPUTIME_SOFTIRQ]);
}

unsigned long long tio_idle_sleep_ns(void)
{
	u64 us = get_cpu_idle_time_us(raw_smp_processor_id(), NULL);

	return us == (u64)-1 ? ULLONG_MAX : us * NSEC_PER_USEC;
}

unsigned int tio_hrtimer_retries(const void *timer)
{
#ifdef CONFIG_HIGH_RES_TIMERS
	const struct hrtimer *t = timer;

	/* The callback of t is running: t->base is its CPU's base and cannot change. */
	return READ_ONCE(t->base->cpu_base->nr_retries);
#else
	return 0;
#endif
}

unsigned long long tio_hrtimer_forward(void *timer, unsigned long long now,
					unsigned long long interval)
{
	struct hrtimer *t = timer;
	ktime_t delta = ktime_sub(ns_to_ktime(now), hrtimer_get_expires(t));

	if (likely(delta >= 0 && delta < (s64)interval && interval >= hrtimer_resolution &&
		   !hrtimer_is_queued(t))) {
		/* No overflow: the expiry is now or earlier, interval at most a second. */
		hrtimer_add_expires_ns(t, interval);
		return 1;
	}
	return hrtimer_forward(t, ns_to_ktime(now), ns_to_ktime(interval));
}

unsigned long long tio_hrtimer_expires_ns(const void *timer)
{
	return ktime_to_ns(hrtimer_get_expires(timer));
}

int tio_softirq_thread_pid(unsigned int cpu, int timers)
{
	char name[TASK_COMM_LEN], comm[TASK_COMM_LEN];
	struct task_struct *p;
	int pid = 0;

	snprintf(name, sizeof(name), timers ? "ktimers/%u" : "ksoftirqd/%u", cpu);
	rcu_read_lock();
	for_each_process(p) {
		/*
		 * Other tasks' flags and comm change under us (a task sets its own PF_ bits;
		 * a new kthread is named after it is listed): READ_ONCE and get_task_comm()
		 * read them the way the kernel does, a whole word or a NUL-terminated copy.
		 */
		if (!(READ_ONCE(p->flags) & PF_KTHREAD))
			continue;
		get_task_comm(comm, p);
		if (!strcmp(comm, name)) {
			pid = task_pid_nr(p);
			break;
		}
	}
	rcu_read_unlock();
	return pid;
}

/* The CPU number of a per-CPU thread named "<prefix><cpu>", or -1. */
static int tio_thread_cpu(const char *comm, const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned int cpu;

	if (strncmp(comm, prefix, n) || kstrtouint(comm + n, 10, &cpu) || cpu > INT_MAX)
		return -1;
	return cpu;
}

void tio_softirq_thread_pids(int *ksoftirqd, int *ktimers, unsigned int nr)
{
	char comm[TASK_COMM_LEN];
	struct task_struct *p;
	int cpu;

	rcu_read_lock();
	for_each_process(p) {
		/* As in tio_softirq_thread_pid. */
		if (!(READ_ONCE(p->flags) & PF_KTHREAD))
			continue;
		get_task_comm(comm, p);
		cpu = tio_thread_cpu(comm, "ksoftirqd/");
		if (cpu >= 0 && cpu < nr) {
			ksoftirqd[cpu] = task_pid_nr(p);
			continue;
		}
		cpu = tio_thread_cpu(comm, "ktimers/");
		if (cpu >= 0 && cpu < nr)
			ktimers[cpu] = task_pid_nr(p);
	}
	rcu_read_unlock();
}

int tio_task_waiting(int pid)
{
	struct task_struct *t;
	int ret;

	rcu_read_lock();
	t = pid ? pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID) : NULL;
	ret = t && t != current && READ_ONCE(t->on_rq);
	rcu_read_unlock();
	return ret;
}

#if defined(CONFIG_PREEMPT_RT) && IS_ENABLED(CONFIG_PREEMPT_RT_NEEDS_BH_LOCK)
#define TIO_BH_LOCK 1
#else
#define TIO_BH_LOCK 0
#endif

int tio_has_bh_lock(void)
{
	return TIO_BH_LOCK;
}

int tio_task_holds_bh_lock(int pid)
{
#if TIO_BH_LOCK
	struct task_struct *t;
	int ret;

	rcu_read_lock();
	t = pid ? pid_task(find_pid_ns(pid, &init_pid_ns), PIDTYPE_PID) : NULL;
	ret = t && t != current && READ_ONCE(t->softirq_disable_cnt) != 0;
	rcu_read_unlock();
	return ret;
#else
	return 0;
#endif
}

unsigned long tio_irq_save(void)
{
	unsigned long flags;

	local_irq_save(flags);
	return flags;
}

void tio_irq_restore(unsigned long flags)
{
	local_irq_restore(flags);
}

unsigned long long tio_now_ns(void)
{
	return ktime_get_ns();
}

unsigned long long tio_now_ns_nmi(void)
{
	return ktime_get_mono_fast_ns();
}

long long tio_realtime_offset_ns(void)
{
	return ktime_to_ns(ktime_mono_to_real(0));
}

unsigned long tio_jiffies(void)
{
	return READ_ONCE(jiffies);
}

unsigned long tio_hz(void)
{
	return HZ;
}

int tio_cpu_online(unsigned int cpu)
{
	return cpu < nr_cpu_ids && cpu_online(cpu);
}

int tio_cpu_nohz_full(unsigned int cpu)
{
	return cpu < nr_cpu_ids && tick_nohz_full_cpu(cpu);
}

static DEFINE_PER_CPU(struct timer_list, tio_softtimer);
/* The timer was set up (by a start): only then may it be shut down. */
static DEFINE_PER_CPU(bool, tio_softtimer_ready);

static void tio_softtimer_fn(struct timer_list *t)
{
	unsigned long next = trace_irqoff_rs_softirq_sample(smp_processor_id());

	if (next)
		mod_timer(t, jiffies + next);
}

int tio_softtimer_start(unsigned long delay, int deferrable)
{
	struct timer_list *t = this_cpu_ptr(&tio_softtimer);

	if (this_cpu_read(tio_softtimer_ready) && timer_pending(t))
		return -EBUSY;

	/* Irq-safe: see tio_irqs_on_begin() in shim.h. */
	timer_setup(t, tio_softtimer_fn,
		    TIMER_PINNED | TIMER_IRQSAFE | (deferrable ? TIMER_DEFERRABLE : 0));
	t->expires = jiffies + delay;
	add_timer_on(t, smp_processor_id());
	this_cpu_write(tio_softtimer_ready, true);
	return 0;
}

void tio_softtimer_stop(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu) || !per_cpu(tio_softtimer_ready, cpu))
		return;
	timer_shutdown_sync(per_cpu_ptr(&tio_softtimer, cpu));
}

unsigned long tio_function_address(const char *name)
{
	struct kprobe kp = { .symbol_name = name, .flags = KPROBE_FLAG_DISABLED };

	/*
	 * register_kprobe() resolves the name into kp.addr first and only then refuses a
	 * function that may not be probed (noinstr, entry code): either way kp.addr is the
	 * function's address, or NULL if the name has no symbol.
	 */
	if (!register_kprobe(&kp))
		unregister_kprobe(&kp);
	return (unsigned long)kp.addr;
}

void tio_cpus_read_lock(void)
{
	cpus_read_lock();
}

void tio_cpus_read_unlock(void)
{
	cpus_read_unlock();
}

int tio_irqs_on_begin(void)
{
	if (!irqs_disabled())
		return 0;
	local_irq_enable();
	return 1;
}

void tio_irqs_on_end(int enabled)
{
	if (enabled)
		local_irq_disable();
}

static DEFINE_PER_CPU(struct work_struct, tio_probe_work);

static void tio_probe_fn(struct work_struct *w)
{
	trace_irqoff_rs_probe_ran(smp_processor_id());
}

void tio_probe_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		INIT_WORK(per_cpu_ptr(&tio_probe_work, cpu), tio_probe_fn);
}

int tio_probe_arm(void)
{
	unsigned int cpu = smp_processor_id();

	return queue_work_on(cpu, system_bh_highpri_wq, per_cpu_ptr(&tio_probe_work, cpu));
}

void tio_probe_cancel(unsigned int cpu)
{
	cancel_work_sync(per_cpu_ptr(&tio_probe_work, cpu));
}

unsigned int tio_softirq_pending(void)
{
	return local_softirq_pending();
}

int tio_cpuhp_add(void)
{
	return cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "trace_irqoff:online",
				 trace_irqoff_rs_cpu_online, trace_irqoff_rs_cpu_offline);
}

void tio_cpuhp_remove(int state)
{
	cpuhp_remove_state(state);
}

void tio_trace_hardirq_off(unsigned int cpu, unsigned long long latency_ns, int pid,
			   const char *comm, unsigned long long cgroup, unsigned long long end_ns,
			   unsigned long long seq, int end_shows_culprit,
			   unsigned long long together_ns,
			   const unsigned long long *frames, unsigned int nr_frames)
{
	trace_hardirq_off(cpu, latency_ns, pid, comm, 0, cgroup, end_ns, seq,
			  end_shows_culprit, together_ns, frames, nr_frames);
}

int tio_trace_windows_enabled(void)
{
	return trace_hardirq_off_enabled() || trace_softirq_off_enabled();
}

void tio_trace_softirq_off(unsigned int cpu, unsigned long long latency_ns, int pid,
			   const char *comm, unsigned long long cgroup, int cause,
			   unsigned long long end_ns, unsigned long long seq, int end_shows_culprit,
			   const unsigned long long *frames, unsigned int nr_frames)
{
	trace_softirq_off(cpu, latency_ns, pid, comm, cause, cgroup, end_ns, seq,
			  end_shows_culprit, 0, frames, nr_frames);
}

void tio_trace_irqoff_ongoing(unsigned int cpu, unsigned long long length_ns, int pid,
			      const char *comm, int stuck)
{
	trace_irqoff_ongoing(cpu, length_ns, pid, comm, stuck);
}

void tio_trace_stall(unsigned int cpu, unsigned long long start_ns, unsigned long long end_ns)
{
	trace_stall(cpu, start_ns, end_ns);
}

static void tio_namer_fn(struct work_struct *work)
{
	trace_irqoff_rs_name_frames();
}
static DECLARE_WORK(tio_namer_work, tio_namer_fn);

static int tio_namer_module_event(struct notifier_block *nb, unsigned long state, void *data)
{
	if (state == MODULE_STATE_GOING)
		trace_irqoff_rs_name_frames();
	return NOTIFY_DONE;
}

static struct notifier_block tio_namer_nb = {
	.notifier_call = tio_namer_module_event,
};

/* Kicks queue the work only between start and stop (KUnit's records run before either). */
static bool tio_namer_on;

int tio_namer_start(void)
{
	int err = register_module_notifier(&tio_namer_nb);

	if (!err)
		WRITE_ONCE(tio_namer_on, true);
	return err;
}

/*
 * The unbound system workqueue: system_dfl_wq from 6.18 on, where queueing on its old name
 * (system_unbound_wq, now marked deprecated) logs "enqueued on deprecated workqueue".
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 18, 0)
#define TIO_UNBOUND_WQ system_dfl_wq
#else
#define TIO_UNBOUND_WQ system_unbound_wq
#endif

void tio_namer_kick(void)
{
	if (READ_ONCE(tio_namer_on))
		queue_work(TIO_UNBOUND_WQ, &tio_namer_work);
}

void tio_namer_stop(void)
{
	WRITE_ONCE(tio_namer_on, false);
	unregister_module_notifier(&tio_namer_nb);
	cancel_work_sync(&tio_namer_work);
}

int tio_warn_ratelimit(void)
{
	static DEFINE_RATELIMIT_STATE(rs, 5 * HZ, 10);

	return __ratelimit(&rs);
}

/*
 * stop_machine() (shim.h). The calls are counted under a lock by their entry and return
 * handlers (process context, rare); the function and CPUs are written only when the
 * count goes from 0 to 1, and "ambiguous" is set when a second call enters while one is in
 * flight and cleared only at the next 0 to 1. So while exactly one call is in flight and
 * ambiguous is clear, the fields are that call's: the reader takes no lock.
 */
static DEFINE_RAW_SPINLOCK(tio_stop_lock);
static unsigned int tio_stop_calls;
static int tio_stop_ambiguous;
static unsigned long tio_stop_fn;
static const struct cpumask *tio_stop_cpus;
static unsigned int tio_stop_first;
static DEFINE_PER_CPU(int, tio_in_multi_cpu_stop);

static int tio_stop_call_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long flags;
	unsigned int calls;

	raw_spin_lock_irqsave(&tio_stop_lock, flags);
	calls = tio_stop_calls;
	if (calls == 0) {
		WRITE_ONCE(tio_stop_fn, regs_get_kernel_argument(regs, 0));
		WRITE_ONCE(tio_stop_cpus, (const struct cpumask *)regs_get_kernel_argument(regs, 2));
		/* The caller holds the CPU hotplug lock: the first online CPU stays first. */
		WRITE_ONCE(tio_stop_first, cpumask_first(cpu_online_mask));
		WRITE_ONCE(tio_stop_ambiguous, 0);
	} else {
		WRITE_ONCE(tio_stop_ambiguous, 1);
	}
	/* Publishes the fields before the count that lets a reader take them. */
	smp_store_release(&tio_stop_calls, calls + 1);
	raw_spin_unlock_irqrestore(&tio_stop_lock, flags);
	return 0;
}

static int tio_stop_call_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tio_stop_lock, flags);
	WRITE_ONCE(tio_stop_calls, tio_stop_calls - 1);
	raw_spin_unlock_irqrestore(&tio_stop_lock, flags);
	return 0;
}

static int tio_multi_cpu_stop_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_write(tio_in_multi_cpu_stop, 1);
	return 0;
}

static int tio_multi_cpu_stop_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	this_cpu_write(tio_in_multi_cpu_stop, 0);
	return 0;
}

static struct kretprobe tio_stop_call_rp = {
	.kp.symbol_name = "stop_machine_cpuslocked",
	.entry_handler = tio_stop_call_entry,
	.handler = tio_stop_call_return,
	/* Callers wait for one another on the stopper's mutex; a few at once at most. */
	.maxactive = 8,
};

/*
 * The other callers of multi_cpu_stop (stop_core_cpuslocked on x86 with SMT,
 * stop_machine_from_inactive_cpu), probed where the kernel has them: while one is in
 * flight no function is named, as their function is not taken.
 */
static int tio_stop_other_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&tio_stop_lock, flags);
	WRITE_ONCE(tio_stop_ambiguous, 1);
	WRITE_ONCE(tio_stop_calls, tio_stop_calls + 1);
	raw_spin_unlock_irqrestore(&tio_stop_lock, flags);
	return 0;
}

static struct kretprobe tio_stop_other_rp[] = {
	{
		.kp.symbol_name = "stop_core_cpuslocked",
		.entry_handler = tio_stop_other_entry,
		.handler = tio_stop_call_return,
		.maxactive = 8,
	},
	{
		.kp.symbol_name = "stop_machine_from_inactive_cpu",
		.entry_handler = tio_stop_other_entry,
		.handler = tio_stop_call_return,
		.maxactive = 8,
	},
};
static bool tio_stop_other_registered[ARRAY_SIZE(tio_stop_other_rp)];

static struct kretprobe tio_multi_cpu_stop_rp = {
	.kp.symbol_name = "multi_cpu_stop",
	.entry_handler = tio_multi_cpu_stop_entry,
	.handler = tio_multi_cpu_stop_return,
	/* 0: the kernel's default, one or two per possible CPU (one stopper thread each). */
	.maxactive = 0,
};

static bool tio_stop_registered;

int tio_stop_machine_register(void)
{
	int ret = register_kretprobe(&tio_multi_cpu_stop_rp);

	if (ret)
		return ret;
	ret = register_kretprobe(&tio_stop_call_rp);
	if (ret) {
		unregister_kretprobe(&tio_multi_cpu_stop_rp);
		return ret;
	}
	for (int i = 0; i < ARRAY_SIZE(tio_stop_other_rp); i++)
		tio_stop_other_registered[i] = !register_kretprobe(&tio_stop_other_rp[i]);
	WRITE_ONCE(tio_stop_registered, true);
	return 0;
}

void tio_stop_machine_unregister(void)
{
	WRITE_ONCE(tio_stop_registered, false);
	for (int i = 0; i < ARRAY_SIZE(tio_stop_other_rp); i++)
		if (tio_stop_other_registered[i])
			unregister_kretprobe(&tio_stop_other_rp[i]);
	unregister_kretprobe(&tio_stop_call_rp);
	unregister_kretprobe(&tio_multi_cpu_stop_rp);
}

unsigned long long tio_stop_machine_callback(void)
{
	const struct cpumask *cpus;
	unsigned int cpu = smp_processor_id();

	if (!READ_ONCE(tio_stop_registered) || !this_cpu_read(tio_in_multi_cpu_stop))
		return 0;
	/* Pairs with the entry's release: the fields of the call counted are visible. */
	if (smp_load_acquire(&tio_stop_calls) != 1 || READ_ONCE(tio_stop_ambiguous) ||
	    READ_ONCE(tio_stop_call_rp.nmissed) || READ_ONCE(tio_multi_cpu_stop_rp.nmissed))
		return 0;
	cpus = READ_ONCE(tio_stop_cpus);
	/* The call is in flight (this CPU is inside its multi_cpu_stop): cpus is alive. */
	if (cpus ? !cpumask_test_cpu(cpu, cpus) : cpu != READ_ONCE(tio_stop_first))
		return 0;
	return READ_ONCE(tio_stop_fn);
}
