# SPDX-License-Identifier: GPL-2.0
# Shared paths for the set-up, kernel build and VM scripts. Sourced, not run.
: "${TRACE_IRQOFF_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/trace-irqoff}"
export TRACE_IRQOFF_CACHE
export PATH="$HOME/.cargo/bin:$PATH"
# Kernel source versions to try, newest preferred first (trixie-backports).
KSRC_PREFERRED="7.3"
LLVM_SUFFIX="-19"
BINDGEN_VERSION="0.73.2"
REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
log() { printf '[trace-irqoff] %s\n' "$*" >&2; }
# copy_sources DEST [PATH...]: this checkout's sources (what git tracks, and untracked
# files it does not ignore; never build products) under PATH..., into DEST.
copy_sources() {
	local dest=$1
	shift
	(cd "$REPO_ROOT" && git ls-files -z -co --exclude-standard -- "$@" | tar --null -T - -cf -) |
		tar -C "$dest" -xf -
}
