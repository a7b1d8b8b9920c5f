#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Journal entries in the journal export format (systemd's JOURNAL_EXPORT_FORMATS), as
# `trace-irqoff journal` writes them (Documentation/fleet.rst, "The journal";
# tools/trace-irqoff/src/render/journal_entry.rs),
# for tests/alerts/run to turn into journal files with systemd-journal-remote and to run
# fleet.rst's query on. Times are relative to now. Usage: journal-export.py DIR writes
# DIR/HOST.export for each host, and prints the windows the query must list (more than
# 50 ms, in the last hour) as "HOST LENGTH ms", in time order.
import os
import struct
import sys
import time
import uuid

now = int(time.time() * 1e6)
MIN = 60 * 1000000


def field(k, v):
    v = str(v).encode()
    if b"\n" in v:  # the binary form, as journald exports a multi-line field
        return k.encode() + b"\n" + struct.pack("<Q", len(v)) + v + b"\n"
    return k.encode() + b"=" + v + b"\n"


# (host, minutes ago, kind, cause, ns, culprit, task, pid, listed): in upload order.
windows = [
    ("db-1", 30, "soft", "ksoftirqd-wait", 120_500_000, "blk_mq_run_hw_queue", "postgres", 777, True),
    # A late upload: two hours old, written after a newer entry of its host.
    ("db-1", 130, "hard", "", 400_000_000, "old_window", "old", 1, False),
    ("web-1", 20, "soft", "bh-off", 30_000_000, "tcp_v4_rcv", "nginx", 4242, False),
    ("web-1", 10, "hard", "", 99_800_000, "irqoff_sample_hardirq_window [irqoff_sample]", "kworker/1:2", 88, True),
    # 50 ms exactly is not more than 50 ms.
    ("batch-1", 5, "hard", "", 50_000_000, "exactly_fifty", "make", 9, False),
    ("batch-1", 4, "soft", "bh-off", 50_000_001, "just_over", "make", 9, True),
]
exports = {}
want = []
seq = 0
for host, ago, kind, cause, ns, culprit, task, pid, listed in windows:
    seq += 1
    e = field("__REALTIME_TIMESTAMP", now - ago * MIN)
    e += field("__MONOTONIC_TIMESTAMP", seq * 1000000)
    e += field("_BOOT_ID", uuid.uuid5(uuid.NAMESPACE_DNS, host).hex)
    e += field("_HOSTNAME", host)
    e += field("SYSLOG_IDENTIFIER", "trace-irqoff")
    e += field("PRIORITY", 4 if ns >= 100_000_000 else 5)
    what = "hardirq off" if kind == "hard" else f"softirq off ({cause})"
    e += field("MESSAGE", f"cpu 1: {what} {ns // 1_000_000}.{ns % 1_000_000 // 100_000} ms by {task}[{pid}] in {culprit}")
    e += field("MESSAGE_ID", "7d28f52686e843388e7ee73c6f19a1b1")
    e += field("TRACE_IRQOFF_CPU", 1)
    e += field("TRACE_IRQOFF_KIND", kind)
    if cause:
        e += field("TRACE_IRQOFF_CAUSE", cause)
    e += field("TRACE_IRQOFF_LATENCY_NS", ns)
    e += field("TRACE_IRQOFF_CULPRIT", culprit)
    e += field("TRACE_IRQOFF_TASK", task)
    e += field("TRACE_IRQOFF_PID", pid)
    e += field("TRACE_IRQOFF_CGROUP", "/system.slice/app.service")
    e += field("TRACE_IRQOFF_STACK", culprit.split(" ")[0] + "+0x1f/0x90\nfoo+0x1/0x2\nbar+0x3/0x4")
    exports[host] = exports.get(host, b"") + e + b"\n"
    if listed:
        want.append((ago, f"{host} {ns / 1e6} ms"))
# The rate limit's count of dropped windows (no length, though the longest dropped was
# over 50 ms), and another program's entry.
dropped = (field("MESSAGE_ID", "268e642560dd4c5a8b45406bd0c3c0fa") + field("TRACE_IRQOFF_DROPPED", 1000)
           + field("TRACE_IRQOFF_LOST", 0) + field("TRACE_IRQOFF_DROPPED_MAX_NS", 60_000_000))
for ident, msg, more in [
    ("trace-irqoff", "dropped 1000 windows in 10s by the rate limit (burst 100, 10/s); the longest was 60.0 ms on cpu 1 (hardirq off)", dropped),
    ("sshd", "hello", b""),
]:
    seq += 1
    exports["web-1"] += (field("__REALTIME_TIMESTAMP", now - 2 * MIN) + field("__MONOTONIC_TIMESTAMP", seq * 1000000)
              + field("_BOOT_ID", uuid.uuid5(uuid.NAMESPACE_DNS, "web-1").hex) + field("_HOSTNAME", "web-1")
              + field("SYSLOG_IDENTIFIER", ident) + field("PRIORITY", 4) + field("MESSAGE", msg) + more + b"\n")
for host, data in exports.items():
    with open(os.path.join(sys.argv[1], host + ".export"), "wb") as f:
        f.write(data)
for _, line in sorted(want, reverse=True):
    print(line)
