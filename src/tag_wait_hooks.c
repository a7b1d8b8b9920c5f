// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks that see a blk-mq submitter about to sleep for a tag. Only C can do this: it reads
 * block-layer structures and registers tracepoint probes and kprobes. Each hook reduces
 * what it sees to plain integers and hands them to Rust (tag_wait.rs), which counts them
 * and fires trace_irqoff:block_rq_tag_wait.
 *
 * Sources, chosen at load time:
 *  - TIO_TAG_SOURCE_TRACEPOINT: a probe on the upstream block:block_rq_tag_wait (7.2+),
 *    found with for_each_kernel_tracepoint (it is not exported).
 *  - TIO_TAG_SOURCE_KPROBE: kernels without it. blk_mq_get_tag's slow path kicks the
 *    hardware queue (blk_mq_run_hw_queue(hctx)) and then calls
 *    sbitmap_prepare_to_wait(bt, ...) right where the tracepoint would fire. Kprobes on
 *    both, filtered on the caller being blk_mq_get_tag (other users of sbitmap are not
 *    counted), give the hctx and the pool.
 * Both: a kretprobe on blk_mq_get_tag times the calls in which the task slept (its
 * context-switch count changed): the wait's duration.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>

#include "shim.h"

static struct tracepoint *tio_tp;
static unsigned long tio_get_tag_start, tio_get_tag_end;

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

static void tio_find_tp(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "block_rq_tag_wait"))
		*(struct tracepoint **)priv = tp;
}

/* Source (b): the hctx kicked last by blk_mq_get_tag on this CPU, and by which task. */
struct tio_kick {
	struct task_struct *task;
	struct blk_mq_hw_ctx *hctx;
};
static DEFINE_PER_CPU(struct tio_kick, tio_kick);

static bool tio_called_from_get_tag(struct pt_regs *regs)
{
	/* At function entry the return address is on top of the stack. */
	unsigned long ret = regs_get_kernel_stack_nth(regs, 0);

	return ret >= tio_get_tag_start && ret < tio_get_tag_end;
}

static int tio_kick_pre(struct kprobe *p, struct pt_regs *regs)
{
	if (tio_called_from_get_tag(regs)) {
		struct tio_kick *k = this_cpu_ptr(&tio_kick);

		k->task = current;
		k->hctx = (struct blk_mq_hw_ctx *)regs_get_kernel_argument(regs, 0);
	}
	return 0;
}

static int tio_prepare_wait_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct sbitmap_queue *bt = (struct sbitmap_queue *)regs_get_kernel_argument(regs, 0);
	struct tio_kick *k = this_cpu_ptr(&tio_kick);
	struct blk_mq_hw_ctx *hctx;
	struct blk_mq_tags *st;
	bool is_sched;

	if (!tio_called_from_get_tag(regs))
		return 0;
	hctx = k->task == current ? k->hctx : NULL;
	k->task = NULL;
	if (!hctx) {
		trace_irqoff_rs_tag_wait_unattributed();
		return 0;
	}
	st = hctx->sched_tags;
	is_sched = st && (bt == &st->bitmap_tags || bt == &st->breserved_tags);
	tio_report(hctx, is_sched, bt == &(is_sched ? st : hctx->tags)->breserved_tags);
	return 0;
}

static struct kprobe tio_kick_kp = {
	.symbol_name = "blk_mq_run_hw_queue",
	.pre_handler = tio_kick_pre,
};
static struct kprobe tio_wait_kp = {
	.symbol_name = "sbitmap_prepare_to_wait",
	.pre_handler = tio_prepare_wait_pre,
};

/* Both: the duration of blk_mq_get_tag calls that slept. */
struct tio_get_tag {
	u64 start;
	unsigned long switches;
};

static int tio_get_tag_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct tio_get_tag *d = (struct tio_get_tag *)ri->data;

	/* Kprobe handlers run like NMIs: only the NMI-safe clock may be read. */
	d->start = ktime_get_mono_fast_ns();
	d->switches = current->nvcsw + current->nivcsw;
	return 0;
}

static int tio_get_tag_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct tio_get_tag *d = (struct tio_get_tag *)ri->data;

	if (current->nvcsw + current->nivcsw != d->switches)
		trace_irqoff_rs_tag_wait_done(ktime_get_mono_fast_ns() - d->start);
	return 0;
}

static struct kretprobe tio_get_tag_rp = {
	.kp.symbol_name = "blk_mq_get_tag",
	.entry_handler = tio_get_tag_entry,
	.handler = tio_get_tag_ret,
	.data_size = sizeof(struct tio_get_tag),
	.maxactive = 256,
};

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

int tio_tag_wait_available(int source)
{
	int ret;

	if (source == TIO_TAG_SOURCE_TRACEPOINT) {
		tio_tp = NULL;
		for_each_kernel_tracepoint(tio_find_tp, &tio_tp);
		return tio_tp != NULL;
	}
	/* Kprobe shim: all three hooks must be placeable. */
	ret = register_kretprobe(&tio_get_tag_rp);
	if (ret)
		return 0;
	unregister_kretprobe(&tio_get_tag_rp);
	ret = register_kprobe(&tio_kick_kp);
	if (ret)
		return 0;
	unregister_kprobe(&tio_kick_kp);
	ret = register_kprobe(&tio_wait_kp);
	if (ret)
		return 0;
	unregister_kprobe(&tio_wait_kp);
	return 1;
}

/* Registered structures must be clean before each registration. */
static void tio_reset_probes(void)
{
	memset(&tio_get_tag_rp.kp, 0, sizeof(tio_get_tag_rp.kp));
	tio_get_tag_rp.kp.symbol_name = "blk_mq_get_tag";
	tio_get_tag_rp.nmissed = 0;
	memset(&tio_kick_kp, 0, sizeof(tio_kick_kp));
	tio_kick_kp.symbol_name = "blk_mq_run_hw_queue";
	tio_kick_kp.pre_handler = tio_kick_pre;
	memset(&tio_wait_kp, 0, sizeof(tio_wait_kp));
	tio_wait_kp.symbol_name = "sbitmap_prepare_to_wait";
	tio_wait_kp.pre_handler = tio_prepare_wait_pre;
}

int tio_tag_wait_register(int source)
{
	int ret;

	tio_reset_probes();
	ret = register_kretprobe(&tio_get_tag_rp);
	if (ret)
		return ret;
	if (source == TIO_TAG_SOURCE_TRACEPOINT) {
		ret = tio_tp ? tracepoint_probe_register(tio_tp, tio_tp_probe, NULL) : -ENOENT;
	} else {
		ret = tio_get_tag_range((unsigned long)tio_get_tag_rp.kp.addr);
		if (!ret)
			ret = register_kprobe(&tio_kick_kp);
		if (!ret) {
			ret = register_kprobe(&tio_wait_kp);
			if (ret)
				unregister_kprobe(&tio_kick_kp);
		}
	}
	if (ret)
		unregister_kretprobe(&tio_get_tag_rp);
	return ret;
}

void tio_tag_wait_unregister(int source)
{
	if (source == TIO_TAG_SOURCE_TRACEPOINT) {
		tracepoint_probe_unregister(tio_tp, tio_tp_probe, NULL);
		/* No probe may still run once the module's memory can go away. */
		tracepoint_synchronize_unregister();
	} else {
		unregister_kprobe(&tio_wait_kp);
		unregister_kprobe(&tio_kick_kp);
	}
	unregister_kretprobe(&tio_get_tag_rp);
}

unsigned long tio_tag_wait_missed(void)
{
	return tio_get_tag_rp.nmissed;
}
