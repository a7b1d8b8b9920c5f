/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tag-wait feature's tracepoint, trace_irqoff:block_rq_tag_wait: one event per
 * submitter about to sleep for a tag. Created in trace.c; the module's other tracepoints
 * are in src/ffi/trace_irqoff_trace.h, under the same system.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM trace_irqoff

#if !defined(_TRACE_IRQOFF_TAG_WAIT_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_IRQOFF_TAG_WAIT_H

#include <linux/tracepoint.h>
#include <linux/kdev_t.h>

/* Same fields and format as the upstream block:block_rq_tag_wait (7.2+). */
TRACE_EVENT(block_rq_tag_wait,
	TP_PROTO(dev_t dev, u32 hctx_id, u32 nr_tags, bool is_sched_tag, bool is_reserved),
	TP_ARGS(dev, hctx_id, nr_tags, is_sched_tag, is_reserved),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u32, hctx_id)
		__field(u32, nr_tags)
		__field(bool, is_sched_tag)
		__field(bool, is_reserved)
	),
	TP_fast_assign(
		__entry->dev = dev;
		__entry->hctx_id = hctx_id;
		__entry->nr_tags = nr_tags;
		__entry->is_sched_tag = is_sched_tag;
		__entry->is_reserved = is_reserved;
	),
	TP_printk("%d,%d hctx=%u starved on %s%s tags (depth=%u)",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->hctx_id,
		  __entry->is_sched_tag ? "scheduler" : "hardware",
		  __entry->is_reserved ? " reserved" : "", __entry->nr_tags)
);

#endif /* _TRACE_IRQOFF_TAG_WAIT_H */

/* Found through the shim's include directory (Kbuild: -I src/ffi). */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH ../tag_wait
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
