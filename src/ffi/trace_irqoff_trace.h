/* SPDX-License-Identifier: GPL-2.0 */
/* Tracepoints of trace_irqoff: one event per detected hardirq-off / softirq-off section. */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trace_irqoff

#if !defined(_TRACE_IRQOFF_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IRQOFF_TRACE_H

#include <linux/tracepoint.h>

#define TIO_TRACE_FRAMES 8

/*
 * One event per hardirq-off / softirq-off window, when it ends: the module's event
 * stream (trace-irqoff watch, record --until). lower_bound is kept in the record for
 * older readers and is always 0 (not an argument: BPF's tracepoints take 12 at most); cause as in shim.h (enum tio_cause), 0 for hardirq. end_ns: when the
 * window ended (CLOCK_MONOTONIC, the records' clock; it started latency_ns before). seq:
 * the window's number on its CPU (both kinds, from 1 at load: a gap is a window this
 * ring lost). cgroup: the task's cgroup v2 id (0: unknown), end_shows_culprit and
 * together_ns (the part of a window in which every CPU was late together, 0 for none):
 * as in records. frames: the culprit's stack where the window ended, culprit first, for windows
 * at the threshold while tracing the event (0x0: none), named only when the trace is read
 * (%pS), never on the sampler's path.
 */
DECLARE_EVENT_CLASS(trace_irqoff_event,
	TP_PROTO(unsigned int cpu, u64 latency_ns, int pid, const char *comm,
		 int cause, u64 cgroup, u64 end_ns, u64 seq, bool end_shows_culprit,
		 u64 together_ns, const u64 *frames, unsigned int nr_frames),
	TP_ARGS(cpu, latency_ns, pid, comm, cause, cgroup, end_ns, seq,
		end_shows_culprit, together_ns, frames, nr_frames),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u64, latency_ns)
		__field(bool, lower_bound)
		__field(int, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(int, cause)
		__field(u64, cgroup)
		__field(u64, end_ns)
		__field(u64, seq)
		__field(bool, end_shows_culprit)
		__field(u64, together_ns)
		__array(u64, frames, TIO_TRACE_FRAMES)
	),
	TP_fast_assign(
		unsigned int i;

		__entry->cpu = cpu;
		__entry->latency_ns = latency_ns;
		__entry->lower_bound = 0;
		__entry->pid = pid;
		strscpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->cause = cause;
		__entry->cgroup = cgroup;
		__entry->end_ns = end_ns;
		__entry->seq = seq;
		__entry->end_shows_culprit = end_shows_culprit;
		__entry->together_ns = together_ns;
		for (i = 0; i < TIO_TRACE_FRAMES; i++)
			__entry->frames[i] = i < nr_frames ? frames[i] : 0;
	),
	TP_printk("cpu=%u latency_ns=%llu lower_bound=%d pid=%d comm=%s cause=%s cgroup=%llu end_ns=%llu seq=%llu end_shows_culprit=%d together_ns=%llu frames=%pS;%pS;%pS;%pS;%pS;%pS;%pS;%pS",
		  __entry->cpu, __entry->latency_ns, __entry->lower_bound,
		  __entry->pid, __entry->comm,
		  __print_symbolic(__entry->cause, { 0, "-" }, { 1, "bh-off" }, { 2, "ksoftirqd-wait" }),
		  __entry->cgroup, __entry->end_ns, __entry->seq, __entry->end_shows_culprit,
		  __entry->together_ns,
		  (void *)(unsigned long)__entry->frames[0], (void *)(unsigned long)__entry->frames[1],
		  (void *)(unsigned long)__entry->frames[2], (void *)(unsigned long)__entry->frames[3],
		  (void *)(unsigned long)__entry->frames[4], (void *)(unsigned long)__entry->frames[5],
		  (void *)(unsigned long)__entry->frames[6], (void *)(unsigned long)__entry->frames[7])
);

DEFINE_EVENT(trace_irqoff_event, hardirq_off,
	TP_PROTO(unsigned int cpu, u64 latency_ns, int pid, const char *comm,
		 int cause, u64 cgroup, u64 end_ns, u64 seq, bool end_shows_culprit,
		 u64 together_ns, const u64 *frames, unsigned int nr_frames),
	TP_ARGS(cpu, latency_ns, pid, comm, cause, cgroup, end_ns, seq,
		end_shows_culprit, together_ns, frames, nr_frames));

DEFINE_EVENT(trace_irqoff_event, softirq_off,
	TP_PROTO(unsigned int cpu, u64 latency_ns, int pid, const char *comm,
		 int cause, u64 cgroup, u64 end_ns, u64 seq, bool end_shows_culprit,
		 u64 together_ns, const u64 *frames, unsigned int nr_frames),
	TP_ARGS(cpu, latency_ns, pid, comm, cause, cgroup, end_ns, seq,
		end_shows_culprit, together_ns, frames, nr_frames));

/*
 * A hardirq-off window still open on cpu, seen from another CPU: once when it passes the
 * threshold (stuck=0), once more when it passes the stuck length (stuck=1). pid/comm: the
 * task the last in-window NMI interrupted (0/empty before any).
 */
TRACE_EVENT(irqoff_ongoing,
	TP_PROTO(unsigned int cpu, u64 length_ns, int pid, const char *comm, bool stuck),
	TP_ARGS(cpu, length_ns, pid, comm, stuck),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u64, length_ns)
		__field(int, pid)
		__array(char, comm, TASK_COMM_LEN)
		__field(bool, stuck)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->length_ns = length_ns;
		__entry->pid = pid;
		strscpy(__entry->comm, comm, TASK_COMM_LEN);
		__entry->stuck = stuck;
	),
	TP_printk("cpu=%u length_ns=%llu pid=%d comm=%s stuck=%d",
		  __entry->cpu, __entry->length_ns, __entry->pid, __entry->comm, __entry->stuck)
);

/*
 * A stall of the whole machine: no sampled CPU's hrtimer ran from start_ns to end_ns
 * (CLOCK_MONOTONIC), so every CPU was late over it, idle ones too (a paused VM, a stopped
 * emulator). Not an irq-off window; once per stall, from the CPU that ran first after it.
 */
TRACE_EVENT(stall,
	TP_PROTO(unsigned int cpu, u64 start_ns, u64 end_ns),
	TP_ARGS(cpu, start_ns, end_ns),
	TP_STRUCT__entry(
		__field(unsigned int, cpu)
		__field(u64, start_ns)
		__field(u64, end_ns)
	),
	TP_fast_assign(
		__entry->cpu = cpu;
		__entry->start_ns = start_ns;
		__entry->end_ns = end_ns;
	),
	TP_printk("cpu=%u start_ns=%llu end_ns=%llu length_ns=%llu",
		  __entry->cpu, __entry->start_ns, __entry->end_ns,
		  __entry->end_ns - __entry->start_ns)
);

#endif /* _TRACE_IRQOFF_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace_irqoff_trace
#include <trace/define_trace.h>
