#!/bin/sh
# run.sh BUILDDIR [ZSH] [shellesc-bench options]: what `make bench` runs.
#
# As root it installs sudo (Debian's, for its intercept mode, the nearest
# production peer) if missing, and turns intercept mode on through a
# drop-in in /etc/sudoers.d that it removes afterwards, whatever happens.
# Without root, the sudo rows are reported as not measured.  ZSH is a zsh
# built by patches/build-shell.sh; when empty, the one `make shells` builds
# (BUILDDIR/shells/bin/zsh) is used if it is there; the patched bash is
# BUILDDIR/shells/bin/bash when there.  The results go to
# BUILDDIR/bench/results.json, with the commit of this checkout.
set -eu
builddir=$1
commit=$(git -C "$(dirname "$0")" describe --always --dirty 2>/dev/null || echo unknown)
zsh=${2:-}
shift $(($# < 2 ? $# : 2))

dropin=/etc/sudoers.d/zz-shellesc-bench
sudo_opt=
if [ "$(id -u)" = 0 ]; then
	if ! command -v sudo >/dev/null 2>&1; then
		echo "bench: installing sudo (for its intercept mode)"
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends sudo >/dev/null
	fi
	if [ -e /usr/libexec/sudo/sudo_intercept.so ]; then
		trap 'rm -f "$dropin" "$dropin.new"' EXIT
		trap 'exit 130' INT TERM
		printf 'Defaults intercept, intercept_type=dso\n' >"$dropin.new"
		chmod 0440 "$dropin.new"
		visudo -qcf "$dropin.new" >/dev/null
		mv "$dropin.new" "$dropin"
		sudo_opt=--sudo
	else
		echo "bench: this sudo has no sudo_intercept.so: its rows are not measured"
	fi
fi

if [ -z "$zsh" ] && [ -x "$builddir/shells/bin/zsh" ]; then
	zsh=$builddir/shells/bin/zsh
fi
[ -z "$zsh" ] || echo "bench: patched zsh: $zsh"
# The patched bash, for the both-mode rows: the one `make shells` builds.
bash=
[ ! -x "$builddir/shells/bin/bash" ] || bash=$builddir/shells/bin/bash
[ -z "$bash" ] || echo "bench: patched bash: $bash"

# The MCP rows' client and the reference server (bench/mcp.c): the npm
# packages the MCP tests pin, installed as they install them.
src=$(cd "$(dirname "$0")/.." && pwd)
if SHELLESC_TOP_SRCDIR=$src SHELLESC_TOP_BUILDDIR=$builddir sh "$src/tests/mcp/run" --install >/dev/null; then
	cp "$src/bench/mcp-loop.mjs" "$builddir/tests/mcp/"
else
	echo "bench: the MCP rows' npm packages are not installed (their rows say why)"
fi

# The real-work rows (bench/work.c) build Debian's zsh source.
work=$(sh "$src/patches/build-shell.sh" --source zsh "$builddir/shells" | tail -n 1) || work=
[ -d "$work" ] || { echo "bench: zsh's source could not be unpacked (its rows say why)"; work=; }

echo "bench: load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"
"$builddir/bench/shellesc-bench" --builddir "$builddir" --zsh "$zsh" --bash "$bash" $sudo_opt \
	--work-src "$work" --commit "$commit" --json "$builddir/bench/results.json" "$@"
