/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture seam of the C shim: everything that differs between x86_64 and arm64
 * is in arch.c behind these functions (and tio_nmi_* in shim.h), nowhere else. On the
 * Rust side the seam is the stack cut's frame names (src/logic/stack.rs, ArchFrames).
 *
 * Not for bindgen: Rust calls none of these directly.
 */
#ifndef TRACE_IRQOFF_ARCH_H
#define TRACE_IRQOFF_ARCH_H

struct pt_regs;

/*
 * The return address of a function at its first instruction, from a kprobe there: on top
 * of the stack on x86_64, in the link register on arm64 (with any pointer-authentication
 * code stripped).
 */
unsigned long tio_arch_entry_return_address(struct pt_regs *regs);

/*
 * Interrupts this CPU took that kstat's irqs_sum does not count: x86's APIC vectors
 * (timer, IPIs, irq_work) but the NMIs and perf's; 0 on arm64, where IPIs and the timer
 * are interrupts like any other.
 */
unsigned long long tio_arch_irq_events(void);

/* tio_arch_irq_events() less the local APIC timer's on x86; 0 on arm64. */
unsigned long long tio_arch_irq_events_but_timer(void);

/* Whether the kernel accounts interrupt time per exit here (tio_irq_time_ns). */
int tio_arch_irq_time_accounted(void);

/*
 * Whether the instruction just before the kernel text address ip (or the one before it)
 * turned hard interrupts on: an interrupt taken at ip was then pending when they came
 * on, where a window ended. 0: neither did, so an interrupt taken at ip came into code
 * that already ran with interrupts on. -1: this architecture cannot tell (x86, where an
 * interrupt let in by sti comes one instruction of unknown length later), or the text
 * could not be read.
 */
int tio_arch_irqs_came_on_before(unsigned long ip);

#endif
