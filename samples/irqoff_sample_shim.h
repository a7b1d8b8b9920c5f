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
/*
 * A lock another CPU holds: sample_hold_start queues a work item on cpu that takes the
 * lock, keeps it for us microseconds with interrupts on (irqs_off 0) or off (1: raw
 * spin_lock_irqsave, a window of its own in sample_hold_fn), and releases it; it returns
 * once the lock is held (0), or -errno. sample_lock / sample_unlock take and release it
 * here; sample_lock_irqsave / sample_unlock_irqrestore with interrupts off in between
 * (the flags to restore). sample_hold_wait waits for the holder to let go;
 * sample_hold_ns is how long it held the lock last, in ns.
 */
int sample_hold_start(unsigned int cpu, unsigned int us, int irqs_off);
void sample_lock(void);
void sample_unlock(void);
unsigned long sample_lock_irqsave(void);
void sample_unlock_irqrestore(unsigned long flags);
void sample_hold_wait(void);
long long sample_hold_ns(void);
/* Runs an empty function on cpu and waits for it (an IPI); 0 or -errno. */
int sample_call_on(unsigned int cpu);

/* What sample_context() reports of its caller's context, one bit each. */
#define SAMPLE_CTX_HARDIRQ 1u
#define SAMPLE_CTX_SOFTIRQ 2u
#define SAMPLE_CTX_IDLE_TASK 4u
#define SAMPLE_CTX_IRQS_OFF 8u
unsigned int sample_context(void);
/* The pid of the task that is current (0: the idle task). */
int sample_current_pid(void);

/*
 * Interrupt-context windows: sample_run_on runs fn(arg) on cpu from an IPI
 * (SAMPLE_RUN_IPI, smp_call_function_single), a pinned hard hrtimer (SAMPLE_RUN_HRTIMER),
 * a pinned timer_list callback (SAMPLE_RUN_TIMER, in the timer softirq), a tasklet that a
 * pinned hard hrtimer callback schedules there (SAMPLE_RUN_TASKLET, in the tasklet
 * softirq), a work item of the BH workqueue system_bh_wq queued there
 * (SAMPLE_RUN_BHWORK, in softirq context), a pinned soft hrtimer (SAMPLE_RUN_SOFTHRTIMER,
 * in the hrtimer softirq) or a hard irq_work that an IPI function queues there
 * (SAMPLE_RUN_IRQWORK, in the irq_work interrupt) or the function of a stop_machine()
 * that runs it there (SAMPLE_RUN_STOP_MACHINE), or a pinned hard hrtimer whose interrupt
 * comes into a tasklet that runs with interrupts on (SAMPLE_RUN_HRTIMER_IN_BH), and
 * returns once fn has returned there
 * and its tasklet, work item, timer or irq_work is idle again (0), or -errno (-EINVAL:
 * cpu offline or how unknown). It sleeps; one run at a time.
 */
#define SAMPLE_RUN_IPI 0u
#define SAMPLE_RUN_HRTIMER 1u
#define SAMPLE_RUN_TIMER 2u
#define SAMPLE_RUN_TASKLET 3u
#define SAMPLE_RUN_BHWORK 4u
#define SAMPLE_RUN_SOFTHRTIMER 5u
#define SAMPLE_RUN_IRQWORK 6u
/* fn(arg) as stop_machine()'s function on cpu: every online CPU has interrupts off. */
#define SAMPLE_RUN_STOP_MACHINE 7u
/*
 * fn(arg) in a pinned hard hrtimer callback on cpu, started by a tasklet there that then
 * spins with interrupts on (sample_tasklet_spin) until fn has returned: the window's
 * interrupt came into softirq code that did not turn interrupts on.
 */
#define SAMPLE_RUN_HRTIMER_IN_BH 8u
typedef void (*sample_fn_t)(void *arg);
int sample_run_on(unsigned int cpu, unsigned int how, sample_fn_t fn, void *arg);

#endif
