#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Booted with three CPUs: the watcher case that needs them (cases/81-takeover.sh).
. /tests/lib.sh
. /tests/cases/81-takeover.sh
done_testing
