/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tag-wait feature's part of the C/Rust boundary, beside the shim's (src/ffi/shim.h):
 * the sources and hooks in hooks.c, and the entry points in Rust that the hooks call
 * (src/entry.rs, which hands them to src/tag_wait/hooks.rs). Plain types only: bindgen
 * turns this header into the Rust declarations at build time (hooks_bindings.rs).
 */
#ifndef TRACE_IRQOFF_TAG_WAIT_HOOKS_H
#define TRACE_IRQOFF_TAG_WAIT_HOOKS_H

/* Where tag waits come from (hooks.c). */
enum tio_tag_source {
	TIO_TAG_SOURCE_NONE = 0,
	TIO_TAG_SOURCE_TRACEPOINT = 1,
	TIO_TAG_SOURCE_KPROBE = 2,
};
/* Whether source can be used on this kernel (nothing stays registered). */
int tio_tag_wait_available(int source);
/* Registers the hooks of source; 0 or -errno. */
int tio_tag_wait_register(int source);
/* Unregisters them and waits until no hook runs. */
void tio_tag_wait_unregister(int source);
/* Tracepoint trace_irqoff:block_rq_tag_wait (upstream fields and format). */
void tio_trace_block_rq_tag_wait(unsigned int dev, unsigned int hctx_id, unsigned int nr_tags,
				 int is_sched_tag, int is_reserved);

/* Implemented in Rust (src/entry.rs, which hands them to src/tag_wait/hooks.rs). */
/* A submitter is about to sleep for a tag of the pool (is_sched_tag, is_reserved). */
void trace_irqoff_rs_tag_wait(unsigned int dev, unsigned int hctx_id, unsigned int nr_tags,
			      int is_sched_tag, int is_reserved);
/* Kprobe source: what the kick hook copied while blk_mq_get_tag's hctx was valid. pool and
 * nr_tags are indexed by enum tio_tag_pool; a pool the hctx lacks has address 0. */
enum tio_tag_pool {
	TIO_TAG_POOL_HW = 0,
	TIO_TAG_POOL_HW_RESERVED = 1,
	TIO_TAG_POOL_SCHED = 2,
	TIO_TAG_POOL_SCHED_RESERVED = 3,
	TIO_TAG_POOLS = 4,
};
struct tio_tag_kick {
	unsigned long task;
	unsigned int dev;
	unsigned int hctx_id;
	unsigned long pool[TIO_TAG_POOLS];
	unsigned int nr_tags[TIO_TAG_POOLS];
};
/* The task kicked a hardware queue in blk_mq_get_tag's slow path. */
void trace_irqoff_rs_tag_kick(const struct tio_tag_kick *kick);
/* The task is about to sleep on the pool at bt (compared with its kick's copy only). */
void trace_irqoff_rs_tag_prepare(unsigned long task, unsigned long bt);
/* The task passed sbitmap_finish_wait in blk_mq_get_tag: its kick's copy is dropped. */
void trace_irqoff_rs_tag_done(unsigned long task);
void trace_irqoff_rs_tag_wait_start(unsigned long wait, unsigned long long now_ns);
void trace_irqoff_rs_tag_wait_end(unsigned long wait, unsigned long long now_ns);

#endif
