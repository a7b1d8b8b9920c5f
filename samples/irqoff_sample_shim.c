// SPDX-License-Identifier: GPL-2.0
/* Thin wrappers over inline helpers for irqoff_sample_main.rs; no logic here. */
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/irq_work.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/timer.h>
#include <linux/spinlock.h>
#include <linux/stop_machine.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>

#include "irqoff_sample_shim.h"

void sample_irq_disable(void) { local_irq_disable(); }
void sample_irq_enable(void) { local_irq_enable(); }
void sample_bh_disable(void) { local_bh_disable(); }
void sample_bh_enable(void) { local_bh_enable(); }
void sample_preempt_disable(void) { preempt_disable(); }
void sample_preempt_enable(void) { preempt_enable(); }
unsigned int sample_this_cpu(void) { return raw_smp_processor_id(); }

static DEFINE_RAW_SPINLOCK(sample_raw_lock);
static DECLARE_COMPLETION(sample_held);
static unsigned int sample_hold_us;
static int sample_hold_irqs_off;
static long long sample_held_ns;

/*
 * The holder: a plain busy loop on its CPU with the lock held, interrupts on or (a
 * window of its own, ended in the unlock) off.
 */
static void sample_hold_fn(struct work_struct *w)
{
	unsigned long flags = 0;
	u64 start, end;

	if (sample_hold_irqs_off)
		raw_spin_lock_irqsave(&sample_raw_lock, flags);
	else
		raw_spin_lock(&sample_raw_lock);
	start = ktime_get_ns();
	complete(&sample_held);
	end = start + (u64)sample_hold_us * NSEC_PER_USEC;
	while (ktime_get_ns() < end)
		cpu_relax();
	end = ktime_get_ns();
	if (sample_hold_irqs_off)
		raw_spin_unlock_irqrestore(&sample_raw_lock, flags);
	else
		raw_spin_unlock(&sample_raw_lock);
	/* After the unlock, so that it is no tail call: the interrupt that comes in there
	 * finds this function on the stack, as the culprit. */
	WRITE_ONCE(sample_held_ns, end - start);
}
static DECLARE_WORK(sample_hold_work, sample_hold_fn);

int sample_hold_start(unsigned int cpu, unsigned int us, int irqs_off)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	sample_hold_us = us;
	sample_hold_irqs_off = irqs_off;
	reinit_completion(&sample_held);
	queue_work_on(cpu, system_highpri_wq, &sample_hold_work);
	wait_for_completion(&sample_held);
	return 0;
}

void sample_hold_wait(void) { flush_work(&sample_hold_work); }
void sample_lock(void) { raw_spin_lock(&sample_raw_lock); }
void sample_unlock(void) { raw_spin_unlock(&sample_raw_lock); }
long long sample_hold_ns(void) { return READ_ONCE(sample_held_ns); }

unsigned long sample_lock_irqsave(void)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&sample_raw_lock, flags);
	return flags;
}

void sample_unlock_irqrestore(unsigned long flags)
{
	raw_spin_unlock_irqrestore(&sample_raw_lock, flags);
}

static void sample_noop(void *info) { }
int sample_call_on(unsigned int cpu) { return smp_call_function_single(cpu, sample_noop, NULL, 1); }

unsigned int sample_context(void)
{
	return (in_hardirq() ? SAMPLE_CTX_HARDIRQ : 0) |
	       (in_serving_softirq() ? SAMPLE_CTX_SOFTIRQ : 0) |
	       (is_idle_task(current) ? SAMPLE_CTX_IDLE_TASK : 0) |
	       (irqs_disabled() ? SAMPLE_CTX_IRQS_OFF : 0);
}

int sample_current_pid(void) { return task_pid_nr(current); }

/* One interrupt-context run at a time: its callback and argument, and its end. */
static DEFINE_MUTEX(sample_irq_lock);
static sample_fn_t sample_irq_fn;
static void *sample_irq_arg;
static DECLARE_COMPLETION(sample_irq_done);
static struct hrtimer sample_hrtimer;
static enum hrtimer_mode sample_hrtimer_mode;
static struct timer_list sample_timer;

/*
 * The window's callback, then its end: every kind below ends this way. Inlined, so that
 * each kind's own callback is the window function's caller, as its stack shows it.
 */
static __always_inline void sample_irq_run(void)
{
	sample_irq_fn(sample_irq_arg);
	complete(&sample_irq_done);
}

static enum hrtimer_restart sample_hrtimer_cb(struct hrtimer *t)
{
	sample_irq_run();
	return HRTIMER_NORESTART;
}

/*
 * How long after the request the hrtimer modes' callback runs, ms (at least 1): long
 * enough for every other CPU to be asleep when the window opens.
 */
static unsigned int hrtimer_delay_ms = 1;
module_param(hrtimer_delay_ms, uint, 0644);
MODULE_PARM_DESC(hrtimer_delay_ms, "Delay (ms) from a hrtimer or softhrtimer request to its window (default 1)");

/* Runs on the target CPU (an IPI): a pinned timer fires on the CPU that starts it. */
static void sample_hrtimer_arm(void *unused)
{
	u64 ms = max(READ_ONCE(hrtimer_delay_ms), 1U);

	hrtimer_start(&sample_hrtimer, ns_to_ktime(ms * NSEC_PER_MSEC), sample_hrtimer_mode);
}

static void sample_timer_cb(struct timer_list *t)
{
	sample_irq_run();
}

/*
 * The tasklet is scheduled from a pinned hard hrtimer callback on the target CPU, as a
 * driver schedules its tasklet from its interrupt handler: tasklet_schedule() queues on
 * the CPU it runs on. Not from the IPI function: where the target CPU polls in its idle
 * loop, that runs from the idle loop's flush of the call-function queue, and on
 * PREEMPT_RT a softirq raised there is a warning (do_softirq_post_smp_call_flush).
 */
static void sample_tasklet_cb(struct tasklet_struct *t)
{
	sample_irq_run();
}
static DECLARE_TASKLET(sample_tasklet, sample_tasklet_cb);

static enum hrtimer_restart sample_hrtimer_tasklet_cb(struct hrtimer *t)
{
	tasklet_schedule(&sample_tasklet);
	return HRTIMER_NORESTART;
}

/*
 * SAMPLE_RUN_HRTIMER_IN_BH: a tasklet, scheduled as SAMPLE_RUN_TASKLET's is, starts the
 * inner pinned hard hrtimer and spins with interrupts on until the window in that
 * hrtimer's callback is over. The window's interrupt comes into sample_tasklet_spin: no
 * code there turned interrupts on, and the window ends inside that interrupt, whose other
 * expired hrtimers then run in it.
 */
static struct hrtimer sample_inner_hrtimer;
static bool sample_inner_done;

static enum hrtimer_restart sample_inner_hrtimer_cb(struct hrtimer *t)
{
	sample_irq_run();
	WRITE_ONCE(sample_inner_done, true);
	return HRTIMER_NORESTART;
}

static noinline void sample_tasklet_spin(void)
{
	while (!READ_ONCE(sample_inner_done))
		cpu_relax();
}

static void sample_spin_tasklet_cb(struct tasklet_struct *t)
{
	hrtimer_start(&sample_inner_hrtimer, ns_to_ktime(NSEC_PER_MSEC),
		      HRTIMER_MODE_REL_PINNED_HARD);
	sample_tasklet_spin();
}
static DECLARE_TASKLET(sample_spin_tasklet, sample_spin_tasklet_cb);

static enum hrtimer_restart sample_hrtimer_spin_tasklet_cb(struct hrtimer *t)
{
	tasklet_schedule(&sample_spin_tasklet);
	return HRTIMER_NORESTART;
}

static void sample_bh_work_fn(struct work_struct *w)
{
	sample_irq_run();
}
static DECLARE_WORK(sample_bh_work, sample_bh_work_fn);

/*
 * A hard irq_work: irq_work_queue_on() is not exported to modules, so the IPI function
 * queues it on its own CPU with irq_work_queue(), which raises the irq_work interrupt
 * there; that interrupt is taken once the IPI function has returned.
 */
static void sample_irq_work_cb(struct irq_work *w)
{
	sample_irq_run();
}
static struct irq_work sample_irq_work = IRQ_WORK_INIT_HARD(sample_irq_work_cb);

static void sample_irq_work_raise(void *unused)
{
	irq_work_queue(&sample_irq_work);
}

/* Starts sample_hrtimer on cpu with callback cb in mode (pinned), and waits for the end. */
static int sample_hrtimer_on(unsigned int cpu, enum hrtimer_restart (*cb)(struct hrtimer *),
			     enum hrtimer_mode mode)
{
	int ret;

	sample_hrtimer_mode = mode;
	hrtimer_setup(&sample_hrtimer, cb, CLOCK_MONOTONIC, mode);
	ret = smp_call_function_single(cpu, sample_hrtimer_arm, NULL, 1);
	if (!ret)
		wait_for_completion(&sample_irq_done);
	hrtimer_cancel(&sample_hrtimer);
	return ret;
}

static int sample_stop_cb(void *unused)
{
	sample_irq_fn(sample_irq_arg);
	return 0;
}

int sample_run_on(unsigned int cpu, unsigned int how, sample_fn_t fn, void *arg)
{
	int ret = 0;

	mutex_lock(&sample_irq_lock);
	if (how == SAMPLE_RUN_STOP_MACHINE) {
		/* stop_machine() takes the CPU hotplug lock itself. */
		sample_irq_fn = fn;
		sample_irq_arg = arg;
		ret = cpu < nr_cpu_ids && cpu_online(cpu) ?
			stop_machine(sample_stop_cb, NULL, cpumask_of(cpu)) : -EINVAL;
		mutex_unlock(&sample_irq_lock);
		return ret;
	}
	cpus_read_lock();
	if (cpu >= nr_cpu_ids || !cpu_online(cpu)) {
		ret = -EINVAL;
		goto out;
	}
	sample_irq_fn = fn;
	sample_irq_arg = arg;
	reinit_completion(&sample_irq_done);
	switch (how) {
	case SAMPLE_RUN_IPI:
		ret = smp_call_function_single(cpu, fn, arg, 1);
		break;
	case SAMPLE_RUN_HRTIMER:
		ret = sample_hrtimer_on(cpu, sample_hrtimer_cb, HRTIMER_MODE_REL_PINNED_HARD);
		break;
	case SAMPLE_RUN_SOFTHRTIMER:
		ret = sample_hrtimer_on(cpu, sample_hrtimer_cb, HRTIMER_MODE_REL_PINNED_SOFT);
		break;
	case SAMPLE_RUN_TIMER:
		timer_setup(&sample_timer, sample_timer_cb, TIMER_PINNED);
		sample_timer.expires = jiffies + 1;
		add_timer_on(&sample_timer, cpu);
		wait_for_completion(&sample_irq_done);
		timer_delete_sync(&sample_timer);
		break;
	case SAMPLE_RUN_TASKLET:
		ret = sample_hrtimer_on(cpu, sample_hrtimer_tasklet_cb,
					HRTIMER_MODE_REL_PINNED_HARD);
		/* Until the tasklet is done: its callback completes before it returns. */
		tasklet_kill(&sample_tasklet);
		break;
	case SAMPLE_RUN_HRTIMER_IN_BH:
		WRITE_ONCE(sample_inner_done, false);
		hrtimer_setup(&sample_inner_hrtimer, sample_inner_hrtimer_cb, CLOCK_MONOTONIC,
			      HRTIMER_MODE_REL_PINNED_HARD);
		ret = sample_hrtimer_on(cpu, sample_hrtimer_spin_tasklet_cb,
					HRTIMER_MODE_REL_PINNED_HARD);
		/* Its callback completes before the tasklet stops spinning and returns. */
		tasklet_kill(&sample_spin_tasklet);
		hrtimer_cancel(&sample_inner_hrtimer);
		break;
	case SAMPLE_RUN_BHWORK:
		queue_work_on(cpu, system_bh_wq, &sample_bh_work);
		wait_for_completion(&sample_irq_done);
		flush_work(&sample_bh_work);
		break;
	case SAMPLE_RUN_IRQWORK:
		ret = smp_call_function_single(cpu, sample_irq_work_raise, NULL, 1);
		if (!ret)
			wait_for_completion(&sample_irq_done);
		irq_work_sync(&sample_irq_work);
		break;
	default:
		ret = -EINVAL;
	}
out:
	cpus_read_unlock();
	mutex_unlock(&sample_irq_lock);
	return ret;
}
