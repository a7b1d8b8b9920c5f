// SPDX-License-Identifier: GPL-2.0
/* Thin wrappers over inline helpers for irqoff_sample_main.rs; no logic here. */
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/completion.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
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

/* The holder: a plain busy loop on its CPU with the lock held, interrupts on. */
static void sample_hold_fn(struct work_struct *w)
{
	u64 end;

	raw_spin_lock(&sample_raw_lock);
	complete(&sample_held);
	end = ktime_get_ns() + (u64)sample_hold_us * NSEC_PER_USEC;
	while (ktime_get_ns() < end)
		cpu_relax();
	raw_spin_unlock(&sample_raw_lock);
}
static DECLARE_WORK(sample_hold_work, sample_hold_fn);

int sample_hold_start(unsigned int cpu, unsigned int us)
{
	if (!cpu_online(cpu))
		return -EINVAL;
	sample_hold_us = us;
	reinit_completion(&sample_held);
	queue_work_on(cpu, system_highpri_wq, &sample_hold_work);
	wait_for_completion(&sample_held);
	return 0;
}

void sample_hold_wait(void) { flush_work(&sample_hold_work); }
void sample_lock(void) { raw_spin_lock(&sample_raw_lock); }
void sample_unlock(void) { raw_spin_unlock(&sample_raw_lock); }

static void sample_noop(void *info) { }
int sample_call_on(unsigned int cpu) { return smp_call_function_single(cpu, sample_noop, NULL, 1); }
