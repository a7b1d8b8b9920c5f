// SPDX-License-Identifier: GPL-2.0
/* Thin wrappers over inline helpers for irqoff_sample_main.rs; no logic here. */
#include <linux/bottom_half.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/smp.h>

#include "irqoff_sample_shim.h"

void sample_irq_disable(void) { local_irq_disable(); }
void sample_irq_enable(void) { local_irq_enable(); }
void sample_bh_disable(void) { local_bh_disable(); }
void sample_bh_enable(void) { local_bh_enable(); }
void sample_preempt_disable(void) { preempt_disable(); }
void sample_preempt_enable(void) { preempt_enable(); }
unsigned int sample_this_cpu(void) { return raw_smp_processor_id(); }

static void sample_noop(void *info) { }
int sample_call_on(unsigned int cpu) { return smp_call_function_single(cpu, sample_noop, NULL, 1); }
