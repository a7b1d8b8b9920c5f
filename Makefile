# SPDX-License-Identifier: GPL-2.0
#
# trace_irqoff: `make demo` and `make test` set everything up themselves (packages,
# rust-src, bindgen, kernel source, a cached Rust-enabled test kernel, the initramfs).
#
#   make                 build trace_irqoff.ko and the samples against KDIR
#   make KDIR=/lib/modules/$(uname -r)/build    ... against your own Rust-enabled kernel
#   make modules_install install them into KDIR's module tree
#   make rust-kbuild KVER=<release> [DEB=<dir>]  give a distribution kernel's headers the
#                        Rust build files they lack (tools/rust-kbuild), or package them
#   make cli             the static trace-irqoff binary (CLI_TARGET=aarch64-unknown-linux-musl
#                        for arm64)
#   make install-cli     install it with its man pages and bash, zsh and fish completions
#                        under PREFIX (default /usr/local; DESTDIR for staging), so that
#                        `man trace-irqoff` finds it
#   make deb             target/debian/trace-irqoff-dkms_*.deb and trace-irqoff_*.deb
#                        (CLI_TARGET=aarch64-unknown-linux-musl: trace-irqoff_*_arm64.deb)
#   make test            builds, host tests and the VM suites, side by side (TEST_JOBS,
#                        default nproc), ending in "N passed, N failed"
#   make test-sanitize   the VM suite on the sanitizer kernels only: sanitize (KASAN,
#                        kmemleak, UBSAN, KUnit; also part of make test) and kcsan
#   make demo            a scripted incident in the VM, shown through the CLI
#   make bench           accuracy and overhead benchmarks (not part of make test)
#   make soak            a long random soak in the VM (SOAK_SECS, SOAK_KERNEL; not part of make test)
#
# KDIR defaults to the test kernel, built once into $(TRACE_IRQOFF_CACHE)
# (~/.cache/trace-irqoff) by tools/kernels/build-kernel. With KDIR given, the compiler
# follows that kernel's .config (LLVM=-<clang major> for a clang build, none for GCC);
# `make LLVM=...` overrides.

# rustup's toolchain builds the test kernel and the CLI; for a kernel given with KDIR the
# system's rustc comes first (a distribution kernel needs the distribution's rustc).
ifeq ($(KDIR),)
export PATH := $(HOME)/.cargo/bin:$(PATH)
else
export PATH := $(PATH):$(HOME)/.cargo/bin
endif
# make cli CLI_TARGET=aarch64-unknown-linux-musl: the arm64 CLI (.cargo/config.toml).
CLI_TARGET ?= x86_64-unknown-linux-musl
CLI_BIN := target/$(CLI_TARGET)/release/trace-irqoff

.PHONY: all modules setup kernel modules_install rust-kbuild cli install-cli install-cli-files deb test test-sanitize test-host demo bench soak clean

all: modules

setup:
	@tools/kernels/setup-deps

kernel: setup
	@tools/kernels/build-kernel test >/dev/null

ifeq ($(KDIR),)
modules: kernel
	@$(MAKE) --no-print-directory KDIR="$$(tools/kernels/build-kernel test)" modules
modules_install: kernel
	@$(MAKE) --no-print-directory KDIR="$$(tools/kernels/build-kernel test)" modules_install
# --print never builds; "|| echo /nonexistent" keeps an empty KDIR from recursing forever.
clean:
	@$(MAKE) --no-print-directory KDIR="$$(tools/kernels/build-kernel --print test 2>/dev/null || echo /nonexistent)" clean
else
# What the kernel in KDIR was built with. Debian's headers have .config; a bare build
# tree may only have auto.conf. $(shell) gets PATH explicitly: make 4.3 does not hand
# exported variables to it, and the recipes must see the same tools the checks saw.
KCONFIG := $(firstword $(wildcard $(KDIR)/.config $(KDIR)/include/config/auto.conf))
kconf = $(if $(KCONFIG),$(shell sed -n 's/^$(1)=//p' '$(KCONFIG)' | sed 's/^"//; s/"$$//'))
on_path = $(shell PATH='$(PATH)' command -v $(1))
KREL := $(or $(shell cat '$(KDIR)/include/config/kernel.release' 2>/dev/null),$(patsubst linux-headers-%,%,$(notdir $(realpath $(KDIR)))))

# A GCC kernel gets no LLVM (LLVM=-19 there would link with ld.lld and fail); a clang
# kernel gets its own clang major if installed under that suffix (Debian's clang-19).
ifeq ($(origin LLVM),command line)
KLLVM := $(LLVM)
else ifeq ($(call kconf,CONFIG_CC_IS_CLANG),y)
clang_major := $(shell expr $(call kconf,CONFIG_CLANG_VERSION) / 10000)
KLLVM := $(if $(call on_path,clang-$(clang_major)),-$(clang_major),1)
else
KLLVM :=
endif
KBUILD_ARGS := LLVM=$(KLLVM)
# DKMS 3.0 appends CC=clang LD=ld.lld for a clang-built kernel; where only the suffixed
# tools exist (clang-19), map those to the ones LLVM=-N selects instead of failing.
ifneq ($(filter -%,$(KLLVM)),)
ifeq ($(origin CC)/$(CC)/$(call on_path,clang),command line/clang/)
KBUILD_ARGS += CC=clang$(KLLVM)
endif
ifeq ($(origin LD)/$(LD)/$(call on_path,ld.lld),command line/ld.lld/)
KBUILD_ARGS += LD=ld.lld$(KLLVM)
endif
endif

# One sentence each, before kbuild would fail somewhere less obvious.
# Kbuild ignores a RUSTC from the environment (it assigns rustc), so check what it runs.
ifneq ($(origin RUSTC),command line)
RUSTC := rustc
endif
streq = $(and $(findstring x$(1)x,x$(2)x),$(findstring x$(2)x,x$(1)x))
rustc_text := $(shell PATH='$(PATH)' $(RUSTC) --version 2>/dev/null)
kernel_rustc_text := $(call kconf,CONFIG_RUSTC_VERSION_TEXT)
err_config := $(KDIR) has no .config (nor include/config/auto.conf): KDIR must be a configured kernel build tree or a linux-headers tree
err_rust := $(KDIR) is a kernel without CONFIG_RUST=y, so it cannot load a Rust module
err_rmeta := $(KDIR) has no Rust build files (Debian's headers ship none): run `make rust-kbuild KVER=$(KREL)` first (see README)
err_rustc := '$(RUSTC) --version' says "$(or $(rustc_text),nothing)" but the kernel in $(KDIR) was built with "$(kernel_rustc_text)", and only that exact rustc produces Rust symbols the kernel can resolve (install it, or pass RUSTC=/path/to/it)
check_config = $(if $(KCONFIG),,$(error $(err_config)))
check_build = $(check_config)$(if $(filter y,$(call kconf,CONFIG_RUST)),,$(error $(err_rust)))$(if $(wildcard $(KDIR)/rust/libkernel.rmeta),,$(error $(err_rmeta)))$(if $(call streq,$(rustc_text),$(kernel_rustc_text)),,$(error $(err_rustc)))

modules:
	$(check_build)
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS) modules
modules_install:
	$(check_config)
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS) modules_install
# Cleaning needs no Rust build files; the DKMS copy of the source has no Cargo.toml.
clean:
	$(if $(wildcard $(KDIR)/Makefile),-$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS) clean)
	$(if $(wildcard Cargo.toml),cargo clean)
endif

# The Rust build files Debian's headers lack, made from the kernel's own source.
rust-kbuild:
	$(if $(KVER),,$(error give the kernel release: make rust-kbuild KVER=$$(uname -r) [DEB=<dir>]))
	tools/rust-kbuild $(if $(DEB),--deb $(DEB)) $(KVER)

cli: setup
	cargo build --quiet --release --locked --target $(CLI_TARGET) -p trace-irqoff
	cargo build --quiet --profile guest --locked --target $(CLI_TARGET) -p trace-irqoff-guest-tools

# Where install-cli puts the CLI, its man pages and completions (DESTDIR: a staging root).
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
BASH_COMPLETIONS ?= $(PREFIX)/share/bash-completion/completions
ZSH_COMPLETIONS ?= $(PREFIX)/share/zsh/site-functions
FISH_COMPLETIONS ?= $(PREFIX)/share/fish/vendor_completions.d

install-cli: cli
	@$(MAKE) --no-print-directory install-cli-files

# What install-cli installs, from the CLI built before (CLI_BIN; its man pages and
# completions come from the binary itself, so it must run here: the host's CLI_TARGET).
install-cli-files:
	install -D -m 0755 $(CLI_BIN) $(DESTDIR)$(BINDIR)/trace-irqoff
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASH_COMPLETIONS) \
		$(DESTDIR)$(ZSH_COMPLETIONS) $(DESTDIR)$(FISH_COMPLETIONS)
	$(CLI_BIN) man --dir $(DESTDIR)$(MANDIR)/man1
	chmod 0644 $(DESTDIR)$(MANDIR)/man1/trace-irqoff*.1
	$(CLI_BIN) completions bash > $(DESTDIR)$(BASH_COMPLETIONS)/trace-irqoff
	$(CLI_BIN) completions zsh > $(DESTDIR)$(ZSH_COMPLETIONS)/_trace-irqoff
	$(CLI_BIN) completions fish > $(DESTDIR)$(FISH_COMPLETIONS)/trace-irqoff.fish

# trace-irqoff-dkms (module source for DKMS) and trace-irqoff (the CLI) in target/debian/.
# CLI_TARGET=aarch64-unknown-linux-musl: the arm64 CLI package (man pages and completions
# from this host's CLI).
deb: cli
ifneq ($(CLI_TARGET),x86_64-unknown-linux-musl)
	@$(MAKE) --no-print-directory cli CLI_TARGET=x86_64-unknown-linux-musl
endif
	tools/debian/build-debs $(CLI_TARGET)

# The runner builds the test kernel, the modules and the CLI itself, beside other steps.
test: setup
	@tests/run

# setup: packages and kernel source; cli: the CLI and the guest tools. The runner builds
# the sanitizer kernels (cached) and our modules against them itself.
test-sanitize: setup cli
	@tests/run sanitize

# The demo ends with the incident report, which leaves the guest on its console (kept in
# the log, not shown).
demo: setup modules cli
	@bash -o pipefail -c 'tests/vm/run --script tests/demo.sh --log target/demo/vm.log | \
		sed -u "/^@@REPORT-BEGIN/,/^@@REPORT-END/c\\(the page, encoded for the host: target/demo/vm.log)"'
	@tests/report/extract target/demo/vm.log incident.html > target/demo/incident.html
	@echo "The incident report: target/demo/incident.html (open it in a browser)"

# Benchmarks on a production-like kernel; writes bench/results.json and
# Documentation/benchmarks.rst (see tests/bench/run for the knobs).
bench: setup cli
	@tests/bench/run

# Random operations under continuous readers for SOAK_SECS (default 1800) s of host time,
# on SOAK_KERNEL (see tests/soak/run); fails on errors, splats, leaks.
soak: setup modules cli
	@tests/soak/run
