#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Booted with three CPUs: the cases that need them (readers while writers wait on a third
# CPU, cases/33-readers-three-cpus.sh; the watcher's takeover, cases/81-takeover.sh).
. /tests/lib.sh
. /tests/cases/33-readers-three-cpus.sh
. /tests/cases/81-takeover.sh
done_testing
