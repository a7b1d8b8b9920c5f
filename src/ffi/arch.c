// SPDX-License-Identifier: GPL-2.0
/*
 * The architecture seam of the C shim (arch.h): x86_64 and arm64.
 *
 * NMIs: on x86_64 the module sends the NMI vector to one CPU through its local APIC and
 * registers an NMI_UNKNOWN handler: default_do_nmi calls it only for an NMI that no
 * NMI_LOCAL handler (perf, GHES, the kernel's backtraces...) claimed and that had no
 * platform reason (SERR, IOCHK), and that the back-to-back logic did not swallow; so the
 * module never takes an NMI that another subsystem would have handled (see
 * Documentation/design.rst, "Which NMIs are ours"). arm64 offers modules neither: its pseudo-NMIs
 * (CONFIG_ARM64_PSEUDO_NMI with irqchip.gicv3_pseudo_nmi=1) serve only the kernel's own
 * IPIs (IPI_CPU_BACKTRACE, IPI_KGDB_ROUNDUP), whose handlers are not hookable and print
 * to the kernel log, and there is no register_nmi_handler. So tio_nmi_supported() is 0
 * there, and the watcher reports windows still open without their stacks.
 */
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/smp.h>
#include <linux/uaccess.h>
#include <linux/unroll.h>
#include <asm/hardirq.h>
#ifdef CONFIG_X86_64
#include <asm/apic.h>
#include <asm/irq_regs.h>
#include <asm/nmi.h>
#include <asm/unwind.h>
#endif
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif
#ifdef CONFIG_ARM64
#include <asm/pointer_auth.h>
#include <asm/virt.h>
#endif

#include "arch.h"
#include "shim.h"

unsigned long tio_arch_entry_return_address(struct pt_regs *regs)
{
#ifdef CONFIG_ARM64
	return ptrauth_strip_kernel_insn_pac(procedure_link_pointer(regs));
#else
	return regs_get_kernel_stack_nth(regs, 0);
#endif
}

int tio_under_hypervisor(void)
{
#if defined(CONFIG_X86)
	return boot_cpu_has(X86_FEATURE_HYPERVISOR) ? 1 : 0;
#elif defined(CONFIG_ARM64)
	/* CurrentEL, read inline: is_hyp_mode_available() needs symbols modules lack. */
	return is_kernel_in_hyp_mode() ? 0 : 1;
#else
	return 1;
#endif
}

/*
 * One pass over x86's counts, unrolled (on every run of the hrtimer's sample): every index
 * is then a constant, and no per-entry test or bounds check is left.
 */
static __always_inline unsigned long long tio_arch_sum(bool timer)
{
	unsigned long long n = 0;
#ifdef CONFIG_X86
	const irq_cpustat_t *s = this_cpu_ptr(&irq_stat);
	unsigned int i;

	unrolled_full
	for (i = 0; i < IRQ_COUNT_MAX; i++) {
		if (i == IRQ_COUNT_NMI)
			continue;
#ifdef CONFIG_X86_LOCAL_APIC
		if (i == IRQ_COUNT_APIC_PERF || (!timer && i == IRQ_COUNT_APIC_TIMER))
			continue;
#endif
		n += READ_ONCE(s->counts[i]);
	}
#endif
	return n;
}

unsigned long long tio_arch_irq_events(void)
{
	return tio_arch_sum(true);
}

unsigned long long tio_arch_irq_events_but_timer(void)
{
	return tio_arch_sum(false);
}

int tio_arch_irq_time_accounted(void)
{
#if !defined(CONFIG_IRQ_TIME_ACCOUNTING)
	return 0;
#elif defined(CONFIG_X86)
	/* mark_tsc_unstable() turns the accounting off (disable_sched_clock_irqtime). */
	return !check_tsc_unstable();
#else
	return 1;
#endif
}

#ifdef CONFIG_ARM64
/*
 * The instructions that unmask interrupts: msr daifclr, #imm (local_irq_enable); msr
 * daif, xN (local_irq_restore); msr ICC_PMR_EL1, xN (both, with pseudo-NMIs' priority
 * masking, where a barrier may follow).
 */
static bool tio_insn_unmasks(u32 insn)
{
	return (insn & 0xfffff0ffU) == 0xd50340ffU || (insn & 0xffffffe0U) == 0xd51b4220U ||
	       (insn & 0xffffffe0U) == 0xd5184600U;
}
#endif

int tio_arch_irqs_came_on_before(unsigned long ip)
{
#ifdef CONFIG_ARM64
	/*
	 * An interrupt that a write to DAIF unmasks is taken before the next instruction
	 * (QEMU ends its translation block there too); one unmasked by a PMR write may
	 * wait for the barrier after it.
	 */
	__le32 insn[2];

	if (ip < 8 || copy_from_kernel_nofault(insn, (void *)(ip - 8), sizeof(insn)))
		return -1;
	return tio_insn_unmasks(le32_to_cpu(insn[1])) || tio_insn_unmasks(le32_to_cpu(insn[0]));
#else
	return -1;
#endif
}

#ifdef CONFIG_X86_64
/* The registers of the context our NMI handler interrupted, while it runs. */
static DEFINE_PER_CPU(struct pt_regs *, tio_nmi_regs);

static int tio_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	int claimed;

	this_cpu_write(tio_nmi_regs, regs);
	claimed = trace_irqoff_rs_nmi(smp_processor_id(), instruction_pointer(regs));
	this_cpu_write(tio_nmi_regs, NULL);
	return claimed ? NMI_HANDLED : NMI_DONE;
}
NOKPROBE_SYMBOL(tio_nmi_handler);

/*
 * What stack_trace_save_regs() does (it is not exported), with the unwinder's exported
 * interface, one step per call: the interrupted instruction, then the return addresses
 * from the interrupted registers on. The unwind starts where the culprit is, not at our
 * handler: the handler, the hrtimer or NMI code and the interrupt entry are neither walked
 * nor saved; and no step is taken past the last frame the caller keeps.
 */
struct tio_unwind_walk {
	struct unwind_state state;
	/* The interrupted instruction, returned first (then 0). */
	unsigned long ip;
	/* unwind_start() stood on the first return address, not returned yet. */
	bool fresh;
};
static_assert(sizeof(struct tio_unwind_walk) <= sizeof(struct tio_unwind));
static_assert(__alignof__(struct tio_unwind_walk) <= __alignof__(struct tio_unwind));

int tio_unwind_interrupted_start(struct tio_unwind *u)
{
	struct tio_unwind_walk *w = (struct tio_unwind_walk *)u;
	struct pt_regs *regs;

	if (in_nmi())
		regs = this_cpu_read(tio_nmi_regs);
	else
		regs = in_hardirq() ? get_irq_regs() : NULL;
	if (!regs)
		return -1;
	if (user_mode(regs))
		return 0;
	w->ip = instruction_pointer(regs);
	w->fresh = true;
	unwind_start(&w->state, current, regs, NULL);
	return 1;
}

unsigned long tio_unwind_interrupted_next(struct tio_unwind *u)
{
	struct tio_unwind_walk *w = (struct tio_unwind_walk *)u;
	unsigned long ip = w->ip;

	if (ip) {
		w->ip = 0;
		return ip;
	}
	if (!w->fresh)
		unwind_next_frame(&w->state);
	w->fresh = false;
	if (unwind_done(&w->state))
		return 0;
	/*
	 * unwind_get_return_address() checks that the address is kernel text: for an
	 * address in module space that is a module tree lookup (about 300 instructions) with
	 * interrupts off, for every frame. The unwinder found the frame through ORC; an
	 * address in module space is taken as it is (the namer names it later, or shows it
	 * raw), and the next step's ORC lookup ends the walk if it is not code.
	 */
	if (w->state.ip >= MODULES_VADDR && w->state.ip < MODULES_END)
		return w->state.ip;
	return unwind_get_return_address(&w->state);
}

int tio_nmi_supported(void)
{
	return 1;
}

int tio_nmi_register(void)
{
	return register_nmi_handler(NMI_UNKNOWN, tio_nmi_handler, 0, "trace_irqoff");
}

void tio_nmi_unregister(void)
{
	unregister_nmi_handler(NMI_UNKNOWN, "trace_irqoff");
}

int tio_nmi_send(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	__apic_send_IPI_mask(cpumask_of(cpu), NMI_VECTOR);
	return 0;
}

unsigned long long tio_nmi_count(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return ULLONG_MAX;
	return READ_ONCE(per_cpu(irq_stat, cpu).counts[IRQ_COUNT_NMI]);
}
#else
/* arm64 exports no unwinder: the caller saves the whole stack and cuts it. */
int tio_unwind_interrupted_start(struct tio_unwind *u)
{
	return -1;
}

unsigned long tio_unwind_interrupted_next(struct tio_unwind *u)
{
	return 0;
}

int tio_nmi_supported(void)
{
	return 0;
}

int tio_nmi_register(void)
{
	return -EOPNOTSUPP;
}

void tio_nmi_unregister(void)
{
}

int tio_nmi_send(unsigned int cpu)
{
	return -EOPNOTSUPP;
}

unsigned long long tio_nmi_count(unsigned int cpu)
{
	return ULLONG_MAX;
}
#endif
