// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks that see a blk-mq submitter about to sleep for a tag. Only C can do this: it reads
 * block-layer structures and registers tracepoint probes and kprobes. Each hook reduces
 * what it sees to plain integers and hands them to Rust (hooks.rs, through src/entry.rs),
 * which counts them and fires trace_irqoff:block_rq_tag_wait (trace.c).
 *
 * Sources, chosen at load time:
 *  - TIO_TAG_SOURCE_TRACEPOINT: a probe on the upstream block:block_rq_tag_wait (7.2+),
 *    found with for_each_kernel_tracepoint (it is not exported).
 *  - TIO_TAG_SOURCE_KPROBE: kernels without it. blk_mq_get_tag's slow path kicks the
 *    hardware queue (blk_mq_run_hw_queue(hctx)) and then calls
 *    sbitmap_prepare_to_wait(bt, ...) right where the tracepoint would fire. Kprobes on
 *    both, filtered on the caller being blk_mq_get_tag (other users of sbitmap are not
 *    counted), give the hctx and the pool.
 * Both: kprobes on sbitmap_prepare_to_wait and sbitmap_finish_wait called from
 * blk_mq_get_tag time each wait.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include <linux/version.h>

#include "arch.h"
#include "hooks.h"

/*
 * Every attachment's prototype, checked against the kernel built against: a hook reads
 * its arguments by position (regs_get_kernel_argument), so a changed prototype must not
 * build. blk_mq_get_tag is not checked: only its address range is used.
 */
static_assert(__same_type(&blk_mq_run_hw_queue, void (*)(struct blk_mq_hw_ctx *, bool)));
static_assert(__same_type(&sbitmap_prepare_to_wait,
			  void (*)(struct sbitmap_queue *, struct sbq_wait_state *,
				   struct sbq_wait *, int)));
static_assert(__same_type(&sbitmap_finish_wait,
			  void (*)(struct sbitmap_queue *, struct sbq_wait_state *,
				   struct sbq_wait *)));

static struct tracepoint *tio_tp;
static unsigned long tio_get_tag_start, tio_get_tag_end;
/* The tracepoint counts waits; the kprobes only time them. */
static int tio_tracepoint_mode;

static void tio_report(struct blk_mq_hw_ctx *hctx, bool is_sched, bool is_reserved)
{
	struct request_queue *q = hctx->queue;
	struct blk_mq_tags *tags = is_sched ? hctx->sched_tags : hctx->tags;
	unsigned int nr = tags ? (is_reserved ? tags->nr_reserved_tags : tags->nr_tags) : 0;

	trace_irqoff_rs_tag_wait(q->disk ? disk_devt(q->disk) : 0, hctx->queue_num, nr,
				 is_sched, is_reserved);
}

/* Source (a): same arguments as the upstream tracepoint. */
static void tio_tp_probe(void *data, struct request_queue *q, struct blk_mq_hw_ctx *hctx,
			 bool is_sched_tag, unsigned int alloc_flags)
{
	tio_report(hctx, is_sched_tag, alloc_flags & BLK_MQ_REQ_RESERVED);
}

/*
 * The probe is attached by name to a tracepoint that is not exported; where the kernel
 * built against declares it (7.2 and later), its prototype is checked here.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0)
#include <trace/events/block.h>
static_assert(__same_type(&register_trace_block_rq_tag_wait,
			  int (*)(typeof(&tio_tp_probe), void *)));
#endif

static void tio_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "block_rq_tag_wait"))
		*(struct tracepoint **)priv = tp;
}

/*
 * Source (b). The kick hook runs inside blk_mq_get_tag with data->hctx as its argument.
 * That hctx, its queue and disk are valid there and only there: the caller of
 * blk_mq_get_tag holds a q_usage_counter reference (blk_queue_enter/bio_queue_enter in
 * block/blk-mq.c), and what frees an hctx (__blk_mq_update_nr_hw_queues, queue release)
 * or the disk (del_gendisk -> blk_mq_freeze_queue_wait) first waits for that counter to
 * drain. So the kick hook copies everything the wait needs into plain integers (dev_t,
 * queue number, the pools' addresses and depths) and Rust keeps the copy keyed by the
 * task; the prepare hook only compares addresses with it and dereferences nothing. The
 * copy is dropped by the task's next sbitmap_finish_wait from blk_mq_get_tag, which every
 * path from the kick to blk_mq_get_tag's return passes (the retry that succeeds breaks to
 * the finish_wait after the loop; a sleep ends in the one inside it).
 */
static void tio_pool(struct tio_tag_kick *k, int i, struct sbitmap_queue *bt, unsigned int nr)
{
	k->pool[i] = (unsigned long)bt;
	k->nr_tags[i] = nr;
}

static bool tio_called_from_get_tag(struct pt_regs *regs)
{
	unsigned long ret = tio_arch_entry_return_address(regs);

	return ret >= tio_get_tag_start && ret < tio_get_tag_end;
}

static int tio_kick_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct blk_mq_hw_ctx *hctx = (struct blk_mq_hw_ctx *)regs_get_kernel_argument(regs, 0);
	struct blk_mq_tags *st, *ht;
	struct tio_tag_kick k = { .task = (unsigned long)current };

	if (!tio_called_from_get_tag(regs))
		return 0;
	st = hctx->sched_tags;
	ht = hctx->tags;
	k.dev = hctx->queue->disk ? disk_devt(hctx->queue->disk) : 0;
	k.hctx_id = hctx->queue_num;
	if (st) {
		tio_pool(&k, TIO_TAG_POOL_SCHED, &st->bitmap_tags, st->nr_tags);
		tio_pool(&k, TIO_TAG_POOL_SCHED_RESERVED, &st->breserved_tags, st->nr_reserved_tags);
	}
	if (ht) {
		tio_pool(&k, TIO_TAG_POOL_HW, &ht->bitmap_tags, ht->nr_tags);
		tio_pool(&k, TIO_TAG_POOL_HW_RESERVED, &ht->breserved_tags, ht->nr_reserved_tags);
	}
	trace_irqoff_rs_tag_kick(&k);
	return 0;
}

static int tio_prepare_wait_pre(struct kprobe *p, struct pt_regs *regs)
{
	unsigned long bt = regs_get_kernel_argument(regs, 0);

	if (!tio_called_from_get_tag(regs))
		return 0;
	/* Kprobe handlers run like NMIs: only the NMI-safe clock may be read. */
	trace_irqoff_rs_tag_wait_start(regs_get_kernel_argument(regs, 2), ktime_get_mono_fast_ns());
	if (!tio_tracepoint_mode)	/* else the tracepoint probe counts the wait */
		trace_irqoff_rs_tag_prepare((unsigned long)current, bt);
	return 0;
}

static struct kprobe tio_kick_kp, tio_wait_kp;

/*
 * Both sources: the wait's duration, from sbitmap_prepare_to_wait to sbitmap_finish_wait
 * on the same on-stack struct sbq_wait (its address identifies the wait). Rust keeps the
 * start times. The kprobes have a no-op post handler: that keeps them from being
 * optimized into jumps, whose deferred (un)optimization raced with fast re-registration
 * (an unhandled int3 when tracking was toggled under load).
 */
static void tio_post_noop(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
}

static int tio_finish_wait_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (!tio_called_from_get_tag(regs))
		return 0;
	trace_irqoff_rs_tag_wait_end(regs_get_kernel_argument(regs, 2), ktime_get_mono_fast_ns());
	if (!tio_tracepoint_mode)
		trace_irqoff_rs_tag_done((unsigned long)current);
	return 0;
}

static struct kprobe tio_finish_kp;

/* blk_mq_get_tag's address range, for the caller filter. */
static int tio_get_tag_range(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	char *slash, *end;
	unsigned long size;

	sprint_symbol(buf, addr);	/* "blk_mq_get_tag+0x0/0x2a0" */
	slash = strchr(buf, '/');
	if (!slash)
		return -ENOENT;
	end = strpbrk(slash, " ");
	if (end)
		*end = '\0';
	if (kstrtoul(slash + 1, 16, &size))
		return -ENOENT;
	tio_get_tag_start = addr;
	tio_get_tag_end = addr + size;
	return 0;
}

/*
 * Fresh probe structures before each registration; `flags` KPROBE_FLAG_DISABLED registers
 * them without arming them (no text patching), to learn whether they can be placed.
 */
static void tio_reset_probes(u32 flags)
{
	memset(&tio_kick_kp, 0, sizeof(tio_kick_kp));
	tio_kick_kp.symbol_name = "blk_mq_run_hw_queue";
	tio_kick_kp.pre_handler = tio_kick_pre;
	tio_kick_kp.post_handler = tio_post_noop;
	tio_kick_kp.flags = flags;
	memset(&tio_wait_kp, 0, sizeof(tio_wait_kp));
	tio_wait_kp.symbol_name = "sbitmap_prepare_to_wait";
	tio_wait_kp.pre_handler = tio_prepare_wait_pre;
	tio_wait_kp.post_handler = tio_post_noop;
	tio_wait_kp.flags = flags;
	memset(&tio_finish_kp, 0, sizeof(tio_finish_kp));
	tio_finish_kp.symbol_name = "sbitmap_finish_wait";
	tio_finish_kp.pre_handler = tio_finish_wait_pre;
	tio_finish_kp.post_handler = tio_post_noop;
	tio_finish_kp.flags = flags;
}

/*
 * Finds blk_mq_get_tag's range through a kprobe's resolved address. The kprobe is
 * registered disabled: the hot function's text is never patched, no CPU is interrupted.
 */
static int tio_find_get_tag(void)
{
	struct kprobe kp = {
		.symbol_name = "blk_mq_get_tag",
		.flags = KPROBE_FLAG_DISABLED,
	};
	int ret = register_kprobe(&kp);

	if (ret)
		return ret;
	ret = tio_get_tag_range((unsigned long)kp.addr);
	unregister_kprobe(&kp);
	return ret;
}

/*
 * The kick hook goes in last and comes out first: while it is registered, the finish hook
 * that drops what it stores is too. What a task stored before an unregistration is
 * cleared by Rust at the next registration.
 */
static int tio_register_kprobes(bool kick, u32 flags)
{
	int ret;

	tio_reset_probes(flags);
	ret = tio_find_get_tag();
	if (ret)
		return ret;
	ret = register_kprobe(&tio_finish_kp);
	if (ret)
		return ret;
	ret = register_kprobe(&tio_wait_kp);
	if (ret)
		goto out_finish;
	ret = kick ? register_kprobe(&tio_kick_kp) : 0;
	if (ret)
		goto out_wait;
	return 0;
out_wait:
	unregister_kprobe(&tio_wait_kp);
out_finish:
	unregister_kprobe(&tio_finish_kp);
	return ret;
}

static void tio_unregister_kprobes(bool kick)
{
	if (kick)
		unregister_kprobe(&tio_kick_kp);
	unregister_kprobe(&tio_wait_kp);
	unregister_kprobe(&tio_finish_kp);
}

int tio_tag_wait_available(int source)
{
	if (source == TIO_TAG_SOURCE_TRACEPOINT) {
		tio_tp = NULL;
		for_each_kernel_tracepoint(tio_find_tp, &tio_tp);
		return tio_tp != NULL;
	}
	/* Kprobe shim: all its hooks must be placeable (tried disabled: nothing is armed). */
	if (tio_register_kprobes(true, KPROBE_FLAG_DISABLED))
		return 0;
	tio_unregister_kprobes(true);
	return 1;
}

int tio_tag_wait_register(int source)
{
	bool tp = source == TIO_TAG_SOURCE_TRACEPOINT;
	int ret;

	tio_tracepoint_mode = tp;
	ret = tio_register_kprobes(!tp, 0);
	if (ret || !tp)
		return ret;
	ret = tio_tp ? tracepoint_probe_register(tio_tp, tio_tp_probe, NULL) : -ENOENT;
	if (ret)
		tio_unregister_kprobes(false);
	return ret;
}

void tio_tag_wait_unregister(int source)
{
	bool tp = source == TIO_TAG_SOURCE_TRACEPOINT;

	if (tp) {
		tracepoint_probe_unregister(tio_tp, tio_tp_probe, NULL);
		/* No probe may still run once the module's memory can go away. */
		tracepoint_synchronize_unregister();
	}
	tio_unregister_kprobes(!tp);
}
