# SPDX-License-Identifier: GPL-2.0
#
# trace_irqoff: `make demo` and `make test` set everything up themselves (packages,
# rust-src, bindgen, kernel source, a cached Rust-enabled test kernel, the initramfs).
#
#   make                 build trace_irqoff.ko and the samples against KDIR
#   make KDIR=/lib/modules/$(uname -r)/build    ... against your own Rust-enabled kernel
#   make modules_install install them into KDIR's module tree
#   make cli             the static trace-irqoff binary
#   make test            host tests + the VM suite, ending in "N passed, N failed"
#   make demo            a scripted incident in the VM, shown through the CLI
#   make bench           accuracy and overhead benchmarks (not part of make test)
#
# KDIR defaults to the test kernel, built once into $(TRACE_IRQOFF_CACHE)
# (~/.cache/trace-irqoff) by tests/kernel/build-kernel.

LLVM ?= -19
export PATH := $(HOME)/.cargo/bin:$(PATH)
CLI_TARGET := x86_64-unknown-linux-musl
CLI_BIN := target/$(CLI_TARGET)/release/trace-irqoff

.PHONY: all modules setup kernel modules_install cli test test-host demo bench clean

all: modules

setup:
	@tests/kernel/setup-deps

kernel: setup
	@tests/kernel/build-kernel test >/dev/null

ifeq ($(KDIR),)
modules: kernel
	@$(MAKE) --no-print-directory KDIR="$$(tests/kernel/build-kernel test)" modules
modules_install: kernel
	@$(MAKE) --no-print-directory KDIR="$$(tests/kernel/build-kernel test)" modules_install
else
modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) LLVM=$(LLVM) modules
modules_install:
	$(MAKE) -C $(KDIR) M=$(CURDIR) LLVM=$(LLVM) modules_install
endif

cli: setup
	cargo build --quiet --release --locked --target $(CLI_TARGET) -p trace-irqoff -p trace-irqoff-guest-tools

test: setup modules cli
	@tests/run

demo: setup modules cli
	@tests/vm/run --script tests/demo.sh

# Benchmarks on a production-like kernel; writes bench/results.json and
# Documentation/benchmarks.rst (see tests/bench/run for the knobs).
bench: setup cli
	@tests/bench/run

clean:
	-$(MAKE) -C "$$(tests/kernel/build-kernel --print test 2>/dev/null)" M=$(CURDIR) LLVM=$(LLVM) clean 2>/dev/null
	cargo clean
