// SPDX-License-Identifier: GPL-2.0
/*
 * The sleep of a CPU, as the samplers need it (shim.h: tio_sleep_*): the idle loop's
 * power:cpu_idle tracepoint says when it puts the CPU to sleep and when it is back, and
 * the tracepoints at the entry of every interrupt (and of every softirq) say when a
 * sleeping CPU was woken into a handler, before the handler runs. The probes only call into Rust
 * (trace_irqoff_rs_sleep, trace_irqoff_rs_woken, and at x86's local timer entry
 * trace_irqoff_rs_tick), on the CPU they fire on, with hard interrupts off.
 */
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/jiffies.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <trace/events/power.h>

#ifdef CONFIG_X86
#include <asm/hypervisor.h>
#include <asm/irq_vectors.h>
#endif

#include "shim.h"

/*
 * The interrupt entries, by name (none of them is exported; found with
 * for_each_kernel_tracepoint). irq_handler_entry: every device interrupt, and on arm64
 * every interrupt (IPIs and the local timer are per-CPU interrupts there). The x86 system
 * vectors have their own (irq_vectors): the local timer, the IPIs, irq_work and the
 * platform's vectors. A kernel without one of them has no such vector.
 */
static const char *const tio_vector_names[] = {
	"local_timer_entry",	 "call_function_entry",	  "call_function_single_entry",
	"reschedule_entry",	 "irq_work_entry",	  "x86_platform_ipi_entry",
	"thermal_apic_entry",	 "threshold_apic_entry",  "deferred_error_apic_entry",
	"error_apic_entry",	 "spurious_apic_entry",
};

static struct tracepoint *tio_vector_tp[ARRAY_SIZE(tio_vector_names)];
static struct tracepoint *tio_handler_tp;
/*
 * softirq_entry too: softirqs run on the exit of any interrupt, one without an entry
 * probe of its own included, and a softirq-off window there needs the hrtimer's looks.
 */
static struct tracepoint *tio_softirq_tp;
static bool tio_idle_registered;

static void tio_find_entries(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "irq_handler_entry")) {
		tio_handler_tp = tp;
		return;
	}
	if (!strcmp(tp->name, "softirq_entry")) {
		tio_softirq_tp = tp;
		return;
	}
	for (int i = 0; i < ARRAY_SIZE(tio_vector_names); i++)
		if (!strcmp(tp->name, tio_vector_names[i]))
			tio_vector_tp[i] = tp;
}

/*
 * This CPU sleeps in the idle loop (set where it goes to sleep, cleared at the first
 * entry after): every other entry, the busy CPU's every interrupt and softirq, returns
 * after this one read, without calling into Rust.
 */
static DEFINE_PER_CPU(bool, tio_asleep);

/*
 * The sleeps this CPU began in the idle loop since the probe was registered: between two
 * equal reads its idle sleep time (tio_idle_sleep_ns) cannot have moved.
 */
static DEFINE_PER_CPU(unsigned long long, tio_sleeps_begun);

/*
 * The Rust side runs with hard interrupts off: the idle loop and the hard interrupt
 * entries have them off already (the save is then a flag read); softirq_entry runs with
 * them on.
 */
static void tio_cpu_idle_probe(void *data, unsigned int state, unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	if (state == PWR_EVENT_EXIT) {
		if (this_cpu_read(tio_asleep)) {
			this_cpu_write(tio_asleep, false);
			trace_irqoff_rs_woken();
		}
	} else {
		this_cpu_inc(tio_sleeps_begun);
		this_cpu_write(tio_asleep, true);
		trace_irqoff_rs_sleep();
	}
	local_irq_restore(flags);
}

static void tio_woken(void)
{
	unsigned long flags;

	if (likely(!this_cpu_read(tio_asleep)))
		return;
	local_irq_save(flags);
	/* Read again with interrupts off: a nested entry may have cleared it. */
	if (this_cpu_read(tio_asleep)) {
		this_cpu_write(tio_asleep, false);
		trace_irqoff_rs_woken();
	}
	local_irq_restore(flags);
}

static void tio_handler_probe(void *data, int irq, struct irqaction *action)
{
	tio_woken();
}

/*
 * The jiffy from which this CPU's local timer interrupts look whether the hrtimer's
 * sample is due (tio_ride_gate); 0: none looks.
 */
static DEFINE_PER_CPU(unsigned long, tio_ride_from);

void tio_ride_gate(unsigned long from_jiffies)
{
	this_cpu_write(tio_ride_from, from_jiffies);
}

/*
 * x86's local timer interrupt, the tick's on a busy CPU, also takes the hrtimer's
 * sample when it is due (trace_irqoff_rs_tick): there, before its handler, interrupts
 * are as they were for the hrtimer's, and the hrtimer need not interrupt the CPU again.
 * Only from the jiffy the gate says: the ticks between two samples cost two loads.
 */
static void tio_vector_probe(void *data, int vector)
{
	tio_woken();
#ifdef CONFIG_X86
	if (vector == LOCAL_TIMER_VECTOR) {
		unsigned long from = this_cpu_read(tio_ride_from);

		if (from && time_after_eq(jiffies, from))
			trace_irqoff_rs_tick();
	}
#endif
}

static void tio_softirq_probe(void *data, unsigned int vec_nr)
{
	tio_woken();
}

static void tio_sleep_unregister_entries(void)
{
	for (int i = 0; i < ARRAY_SIZE(tio_vector_tp); i++)
		if (tio_vector_tp[i])
			tracepoint_probe_unregister(tio_vector_tp[i], tio_vector_probe, NULL);
	if (tio_softirq_tp)
		tracepoint_probe_unregister(tio_softirq_tp, tio_softirq_probe, NULL);
	if (tio_handler_tp)
		tracepoint_probe_unregister(tio_handler_tp, tio_handler_probe, NULL);
}

int tio_sleep_register(void)
{
	int ret;

#ifdef CONFIG_X86
	/*
	 * Hyper-V's and ACRN's interrupts (the Hyper-V timer in direct mode, VMBus) come on
	 * vectors without an entry tracepoint: a CPU woken by one would not be seen awake.
	 */
	if (hypervisor_is_type(X86_HYPER_MS_HYPERV) || hypervisor_is_type(X86_HYPER_ACRN))
		return -EOPNOTSUPP;
#endif
	for_each_kernel_tracepoint(tio_find_entries, NULL);
	/* Without the generic entries no sleeping CPU is known to wake: nothing parks. */
	if (!tio_handler_tp || !tio_softirq_tp)
		return -ENOENT;
	/* The entries first: a CPU never parks before its wake-ups are seen. */
	ret = tracepoint_probe_register(tio_handler_tp, tio_handler_probe, NULL);
	if (ret) {
		tio_handler_tp = NULL;
		return ret;
	}
	ret = tracepoint_probe_register(tio_softirq_tp, tio_softirq_probe, NULL);
	if (ret) {
		tio_softirq_tp = NULL;
		tio_sleep_unregister_entries();
		return ret;
	}
	for (int i = 0; i < ARRAY_SIZE(tio_vector_tp); i++) {
		if (!tio_vector_tp[i])
			continue;
		ret = tracepoint_probe_register(tio_vector_tp[i], tio_vector_probe, NULL);
		if (ret) {
			tio_vector_tp[i] = NULL;
			tio_sleep_unregister_entries();
			return ret;
		}
	}
	ret = register_trace_cpu_idle(tio_cpu_idle_probe, NULL);
	if (ret) {
		tio_sleep_unregister_entries();
		return ret;
	}
	tio_idle_registered = true;
	return 0;
}

void tio_sleep_unregister(void)
{
	if (!tio_idle_registered)
		return;
	unregister_trace_cpu_idle(tio_cpu_idle_probe, NULL);
	tio_sleep_unregister_entries();
	tio_idle_registered = false;
	/* No probe runs any more, on any CPU, once this returns. */
	tracepoint_synchronize_unregister();
}

unsigned long long tio_idle_sleeps(void)
{
	return READ_ONCE(tio_idle_registered) ? this_cpu_read(tio_sleeps_begun) : ULLONG_MAX;
}

int tio_sleep_entries(void)
{
	int n = (tio_handler_tp != NULL) + (tio_softirq_tp != NULL);

	for (int i = 0; i < ARRAY_SIZE(tio_vector_tp); i++)
		n += tio_vector_tp[i] != NULL;
	return n;
}

int tio_hrtimer_park(void *timer)
{
	return hrtimer_try_to_cancel(timer) == 1;
}

void tio_hrtimer_unpark(void *timer, unsigned long long expires_ns)
{
	hrtimer_start(timer, ns_to_ktime(expires_ns), HRTIMER_MODE_ABS_PINNED_HARD);
}

/*
 * Waking a sleeping watcher: a function call queued on it (its IPI's entry probe then
 * queues its hrtimer again); the function only says the call is over. One call in flight
 * per CPU: a caller claims the CPU's call first (two CPUs may wake the same watcher at
 * once, and a call's data may be queued only once).
 */
static DEFINE_PER_CPU(atomic_t, tio_wake_claim);

static void tio_wake_fn(void *info)
{
	atomic_set_release(this_cpu_ptr(&tio_wake_claim), 0);
}

static DEFINE_PER_CPU(call_single_data_t, tio_wake_csd) = CSD_INIT(tio_wake_fn, NULL);

void tio_wake_cpu(unsigned int cpu)
{
	atomic_t *claim;

	/*
	 * The caller has interrupts off: cpu cannot be taken offline meanwhile (that needs
	 * every CPU in stop_machine), so the check holds until the call is queued.
	 */
	if (cpu >= nr_cpu_ids || cpu == smp_processor_id() || !cpu_online(cpu))
		return;
	claim = per_cpu_ptr(&tio_wake_claim, cpu);
	if (atomic_cmpxchg_acquire(claim, 0, 1) != 0)
		return;
	if (smp_call_function_single_async(cpu, per_cpu_ptr(&tio_wake_csd, cpu)))
		atomic_set_release(claim, 0);
}

void tio_wake_sync(void)
{
	unsigned int cpu;

	/* Every call queued has run its function (a dying CPU runs its queue first)... */
	for_each_possible_cpu(cpu)
		while (atomic_read_acquire(per_cpu_ptr(&tio_wake_claim, cpu)))
			cpu_relax();
	/* ...and returned from it: it runs with interrupts off, which this waits out. */
	synchronize_rcu();
}
