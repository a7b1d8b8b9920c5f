// SPDX-License-Identifier: GPL-2.0
/*
 * Creates the tracepoint trace_irqoff:block_rq_tag_wait (trace.h). A file of its own: the
 * event has the upstream one's name, so it cannot be created where hooks.c sees
 * <trace/events/block.h>.
 */
#include "hooks.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

void tio_trace_block_rq_tag_wait(unsigned int dev, unsigned int hctx_id, unsigned int nr_tags,
				 int is_sched_tag, int is_reserved)
{
	trace_block_rq_tag_wait(dev, hctx_id, nr_tags, is_sched_tag, is_reserved);
}
