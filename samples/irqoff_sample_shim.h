/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the irqoff_sample module needs from C: the irq/bh/preempt toggles are inline
 * functions or macros that Rust cannot call. bindgen generates the Rust side.
 */
#ifndef IRQOFF_SAMPLE_SHIM_H
#define IRQOFF_SAMPLE_SHIM_H

void sample_irq_disable(void);
void sample_irq_enable(void);
void sample_bh_disable(void);
void sample_bh_enable(void);
void sample_preempt_disable(void);
void sample_preempt_enable(void);
unsigned int sample_this_cpu(void);
/* Runs an empty function on cpu and waits for it (an IPI); 0 or -errno. */
int sample_call_on(unsigned int cpu);

#endif
