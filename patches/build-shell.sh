#!/bin/sh
# build-shell.sh [--unpatched] [--check [--session MODE]] zsh|bash OUTDIR
# build-shell.sh --source zsh|bash OUTDIR
#
# Build Debian bookworm's zsh or bash with shellesc's EXEC_WRAPPER patch
# (patches/SHELL-exec-wrapper.patch) and install it under OUTDIR:
# OUTDIR/bin/zsh (with its modules and functions) or OUTDIR/bin/bash.
#
#   --unpatched  build the same source without the patch, into
#                OUTDIR/unpatched (the control case for the suites)
#   --check      then run the shell's own test suite with EXEC_WRAPPER
#                unset, output in OUTDIR/SHELL-suite.log.  zsh's `make
#                check` judges itself (a script that fails is printed and
#                run again alone, up to twice: timing).  bash's `make tests` only prints
#                what differs from its expected output (some of which
#                depends on the machine: root, no tty, locales), so the
#                patched build's output must equal the unpatched build's
#                (build that first), script by script, apart from paths
#                and pids; a script that differs is run again (timing).
#   --source     only unpack Debian's source, unpatched and unbuilt, into
#                OUTDIR/src/SHELL-pristine and print that path (what
#                make bench builds as real work)
#   --session MODE  run the suite inside a live shellesc session instead,
#                `$SHELLESC run --force --mode MODE` (wrapper, both, or kernel:
#                the kernel layer alone, nothing of shellesc in the tree) with
#                an empty rules file (every command is asked and runs), in a
#                copy of the build tree (so two modes can run at once);
#                output in OUTDIR/SHELL-suite-MODE.log.  zsh's must pass
#                with as many successful scripts as the run with
#                EXEC_WRAPPER unset; bash's must equal the unpatched
#                build's, as above.  SHELLESC names the shellesc command
#                (SHELLESC_PRELOAD and SHELLESC_WRAPPER, when set, its
#                preload and wrapper).
#
# Needs, once, as root: a deb-src entry (added from the existing bookworm deb
# entries when apt has none), the build dependencies (an explicit list,
# much smaller than apt-get build-dep: no TeX, no docs) and Debian's stock
# zsh (the control case of the probe test).  Idempotent: a finished build
# of the same patch and options is reused; anything else
# is rebuilt from a freshly unpacked source (downloads are kept in
# OUTDIR/src).  Documentation is not built.
set -eu

unpatched=no check=no session="" source_only=no
while [ $# -gt 0 ]; do
	case $1 in
	--unpatched) unpatched=yes ;;
	--check) check=yes ;;
	--source) source_only=yes ;;
	--session) shift; session=${1:-} ;;
	-*) echo "build-shell.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
	shift
done
if [ $# -ne 2 ] || { [ "$1" != zsh ] && [ "$1" != bash ]; }; then
	echo "usage: build-shell.sh [--unpatched] [--check [--session MODE]] zsh|bash OUTDIR" >&2
	exit 2
fi
case $session in
''|wrapper|both|kernel) ;;
*) echo "build-shell.sh: --session wrapper, both or kernel" >&2; exit 2 ;;
esac
sh_name=$1
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$2"
top=$(cd "$2" && pwd)
patch_file=$here/$sh_name-exec-wrapper.patch
# Patched: OUTDIR, built in OUTDIR/src/SHELL; unpatched: OUTDIR/unpatched,
# built in OUTDIR/src/SHELL-unpatched.  Downloads: OUTDIR/src.
out=$top tree=$top/src/$sh_name
[ $unpatched = no ] || out=$top/unpatched tree=$top/src/$sh_name-unpatched
started=$(date +%s)
log() { echo "build-shell.sh: $sh_name${session:+ ($session session)}: $* ($(($(date +%s) - started))s)"; }
die() { echo "build-shell.sh: $sh_name: $*" >&2; exit 1; }

case $sh_name in
zsh)	upstream=5.9
	packages="dpkg-dev build-essential libncurses-dev zsh"
	# Debian's etcdir, so the startup files are the stock zsh's.
	conf="--with-tcsetpgrp --enable-etcdir=/etc/zsh --disable-gdbm --disable-pcre --disable-cap"
	;;
bash)	upstream=5.2.15
	packages="dpkg-dev build-essential libncurses-dev"
	conf="--without-bash-malloc"	# as Debian configures it
	;;
esac

# Whatever was built lives in OUTDIR; a stamp names what it was built from
stamp=$out/.build-$sh_name.stamp
# (the patch's diff, not its header).
tag="$conf $(if [ $unpatched = no ]; then sed -n '/^--- /,$p' "$patch_file" | cksum; else echo unpatched; fi)"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "ok installed"; }

# A deb-src twin of every active bookworm deb entry, deb822 and one-line.
add_deb_src() {
	d=/etc/apt/sources.list.d new=$(mktemp -d)
	for f in "$d"/*.sources; do
		[ -f "$f" ] || continue
		awk 'BEGIN { RS = ""; ORS = "\n\n" }
		    /(^|\n)Types:[^\n]*deb/ && /bookworm/ && !/deb-src/ &&
		    !/(^|\n)Enabled:[ \t]*no/ { sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$f"
	done >"$new/shellesc-deb-src.sources"
	cat /etc/apt/sources.list "$d"/*.list 2>/dev/null |
	    sed -n 's/^[ \t]*deb\([ \t][^#]*bookworm.*\)$/deb-src\1/p' >"$new/shellesc-deb-src.list"
	for f in "$new"/*; do
		[ ! -s "$f" ] || { mv "$f" "$d/" && log "added $d/${f##*/}"; }
	done
	rm -rf "$new"
	ls "$d"/shellesc-deb-src.* >/dev/null 2>&1 || die "no bookworm deb entry to derive a deb-src entry from"
}

# Packages and the source entry, as root, only when something is missing.
prepare_apt() {
	missing=""
	for p in $packages; do installed "$p" || missing="$missing $p"; done
	has_src=yes
	apt-cache showsrc --only-source "$sh_name" 2>/dev/null | grep -q '^Version:' || has_src=no
	[ -z "$missing" ] && [ $has_src = yes ] && return 0
	[ "$(id -u)" = 0 ] || die "needs root once: missing packages:$missing; deb-src entry: $has_src"
	[ $has_src = yes ] || add_deb_src
	apt-get update -qq
	apt-cache showsrc --only-source "$sh_name" 2>/dev/null | grep -q '^Version:' ||
	    die "apt knows no source package $sh_name even with deb-src entries"
	if [ -n "$missing" ]; then
		log "installing$missing"
		# shellcheck disable=SC2086 # a list of names
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
	fi
}

# The Debian version apt would fetch, e.g. 5.9-4; its upstream part must
# be the one the patch was written for.
source_version() {
	v=$(apt-cache showsrc --only-source "$sh_name" | sed -n 's/^Version: //p' | sort -V | tail -n 1)
	u=${v#*:}
	u=${u%-*}
	[ "$u" = "$upstream" ] || die "the patch is for $sh_name $upstream; apt offers $v"
	echo "$v"
}

# Download Debian's source of version (once: kept in OUTDIR/src); dsc names it.
fetch() {
	src=$top/src
	mkdir -p "$src"
	dsc=$src/${sh_name}_${1#*:}.dsc
	if [ ! -f "$dsc" ]; then
		log "fetching the source of $sh_name $1"
		(cd "$src" && apt-get source -qq --download-only -o APT::Sandbox::User=root "$sh_name=$1" >/dev/null)
	fi
}

build() {
	fetch "$1"
	rm -rf "$tree"
	dpkg-source --no-check -x "$dsc" "$tree" >/dev/null
	cd "$tree"
	if [ $unpatched = no ]; then
		log "applying $(basename "$patch_file")"
		patch -p1 --quiet --no-backup-if-mismatch <"$patch_file"
	fi
	log "configuring"
	# shellcheck disable=SC2086 # a list of options
	./configure -q --prefix="$out" $conf >configure.log 2>&1 || { tail -n 30 configure.log; die "configure failed"; }
	log "building"
	case $sh_name in
	zsh)	make -C Src -j"$(nproc)" >make.log 2>&1 || { tail -n 30 make.log; die "make failed"; }
		make install.bin install.modules install.fns >install.log 2>&1 ||
		    { tail -n 30 install.log; die "install failed"; }
		;;
	bash)	make -j"$(nproc)" bash >make.log 2>&1 || { tail -n 30 make.log; die "make failed"; }
		install -D -m 755 bash "$out/bin/bash"
		;;
	esac
	echo "$tag" >"$stamp"
	log "installed $out/bin/$sh_name"
}

# The command words that run a suite: in a session (--session), or as is.
in_session() {
	if [ -n "$session" ]; then
		"$SHELLESC" run --force --mode "$session" -p "$top/empty.rules" -- "$@"
	else
		env -u EXEC_WRAPPER "$@"
	fi
}

# A fresh copy of the build tree that other users can reach (zsh's
# P01privileged runs zsh as one), for a suite that must not share it.
tree_copy() {
	c=$(mktemp -d "${TMPDIR:-/tmp}/shellesc-$sh_name-$1.XXXXXX")
	chmod 755 "$c"
	if ! others_can_enter "$c"; then	# (it sets d)
		rm -rf "$c"
		c=$(mktemp -d "/var/tmp/shellesc-$sh_name-$1.XXXXXX")
		chmod 755 "$c"
	fi
	case $c in
	*/shellesc-$sh_name-$1.*) ;;
	*) die "mktemp gave '$c'" ;;
	esac
	cp -a "$tree/." "$c/"
	echo "$c"
}

# bash's suite output (stdin) without what differs between two builds or runs.
bash_normalize() {
	sed -e "s|$top/src/bash[-a-z]*|BUILD|g" -e "s|${copy:-/nonexistent/}|BUILD|g" \
	    -e 's/process group ([0-9]*)/process group (PID)/'
}

# Split a bash suite log into DIR/run-NAME, one file per test script.
bash_sections() {
	bash_normalize <"$1" | awk -v d="$2" '
	    /^run-[A-Za-z0-9_.-]+$/ { if (f) close(f); f = d "/" $0; printf "" >f; next }
	    f { print >f }'
}

# Run one of bash's test scripts as run-all does, in build tree $1 (the
# patched one in the session, with --session).
bash_one_test() {
	(cd "$1/tests" && BASH_TSTOUT=$(mktemp) && export BUILD_DIR="$1" THIS_SH="$1/bash" \
	    PATH=".:$1/tests:$PATH" BASH_TSTOUT && unset BASH_ENV EXEC_WRAPPER &&
	    if [ "$1" = "$ptree" ]; then in_session sh "$2"; else sh "$2"; fi 2>&1 </dev/null
	    rm -f "$BASH_TSTOUT") | bash_normalize
}

# Whether some output of test $2 kept in $1 from one build equals some
# output kept from the other.
bash_outputs_meet() {
	for a in "$1"/unpatched/"$2".*; do
		for b in "$1"/patched/"$2".*; do
			cmp -s "$a" "$b" && return 0
		done
	done
	return 1
}

# The patched build's suite output must equal the unpatched one's, script
# by script.  Some of bash's tests depend on timing (read -t, the clock
# ticking during $EPOCHSECONDS tests): a script whose output differs is run
# again in both trees, up to four times, and passes when an output of the
# one build equals an output of the other.
compare_bash_suites() {
	cmpd=$out/bash-suite${session:+-$session}.cmp
	rm -rf "$cmpd"
	mkdir -p "$cmpd/unpatched" "$cmpd/patched"
	bash_sections "$1" "$cmpd/unpatched"
	bash_sections "$2" "$cmpd/patched"
	failed="" n=0
	for t in $( (ls "$cmpd/unpatched"; ls "$cmpd/patched") | sort -u); do
		n=$((n + 1)) try=0
		mv "$cmpd/unpatched/$t" "$cmpd/unpatched/$t.0" 2>/dev/null || : >"$cmpd/unpatched/$t.0"
		mv "$cmpd/patched/$t" "$cmpd/patched/$t.0" 2>/dev/null || : >"$cmpd/patched/$t.0"
		until bash_outputs_meet "$cmpd" "$t"; do
			if [ $try = 4 ]; then
				diff "$cmpd/unpatched/$t.0" "$cmpd/patched/$t.0" || :
				failed="$failed $t"
				break
			fi
			try=$((try + 1))
			log "$t: output differs; running it again in both builds ($try/4)"
			bash_one_test "$top/src/bash-unpatched" "$t" >"$cmpd/unpatched/$t.$try"
			bash_one_test "$ptree" "$t" >"$cmpd/patched/$t.$try"
		done
	done
	[ -z "$failed" ] || die "the output of$failed differs from the unpatched build's (above)"
	log "the output of all $n test scripts equals the unpatched build's"
	[ -z "$session" ] || [ "$n" -gt 50 ] || die "only $n test scripts ran in the session"
}

# Can users other than root reach dir (search permission on it and every parent)?
others_can_enter() {
	d=$1
	while [ -n "$d" ] && [ "$d" != / ]; do
		case $(stat -c %A "$d") in
		*x|*t) ;;
		*) return 1 ;;
		esac
		d=$(dirname "$d")
	done
}

# zsh's suite in the build tree, or, when other users cannot reach it, in a
# copy they can: run as root, P01privileged runs zsh as another user, which
# must load the tree's modules (a checkout under `mktemp -d` is 0700).
run_zsh_suite() {
	dir=$tree
	if ! others_can_enter "$tree"; then
		dir=$(mktemp -d "${TMPDIR:-/tmp}/shellesc-zsh-suite.XXXXXX")
		chmod 755 "$dir"
		if ! others_can_enter "$dir"; then
			rm -rf "$dir"
			dir=$(mktemp -d /var/tmp/shellesc-zsh-suite.XXXXXX)
			chmod 755 "$dir"
		fi
		log "other users cannot reach $tree (zsh's P01privileged runs zsh as one): the suite runs in a copy, $dir"
		cp -a "$tree/." "$dir/"
	fi
	rc=0
	(cd "$dir" && in_session make check) >"$suite_log" 2>&1 </dev/null || rc=$?
	[ $rc = 0 ] || { zsh_rerun_failures "$dir" && rc=0; }
	[ "$dir" = "$tree" ] || rm -rf "$dir"
	return $rc
}

# The test scripts a zsh suite log names as failed (or passed when they
# were expected to fail), a name a line.
zsh_failures() {
	sed -n 's#^\./\([A-Z][0-9][0-9][A-Za-z0-9_]*\)\.ztst: test \(failed\|XPassed\)\.$#\1#p' "$1" | sort -u
}

# zsh's summary count of failed test scripts in a suite log, or "".
zsh_failure_count() {
	sed -n 's/^[0-9]* successful test scripts*, \([0-9]*\) failures*.*/\1/p' "$1" | tail -n 1
}

# A few of zsh's tests depend on timing (job control, `sleep`, the clock),
# and the suite shares two cores with a build: after a failed suite in dir
# DIR (log $suite_log), print what failed, and run each failed script again
# alone, up to twice.  Succeeds when every one passes on a run of its own,
# and then ends the log with the count that includes them; fails when one
# never does, or when the log does not name each failure (a crash).
zsh_rerun_failures() {
	names=$(zsh_failures "$suite_log") rerun_passed=0 passed=$(zsh_successes "$suite_log")
	[ -n "$names" ] || return 1
	[ "$(echo "$names" | wc -l)" = "$(zsh_failure_count "$suite_log")" ] || return 1
	for t in $names; do
		echo "build-shell.sh: $sh_name: $t failed:" >&2
		sed -n "/^\.\/$t\.ztst: starting\./,/^\.\/$t\.ztst: test /p" "$suite_log" | head -n 80 >&2
		try=1
		until (cd "$1" && in_session make check TESTNUM="$t") >"$suite_log.$t.$try" 2>&1 </dev/null; do
			[ $try = 2 ] && { log "$t failed again on a run of its own (see $suite_log.$t.*)"; return 1; }
			try=$((try + 1))
		done
		log "$t passed on a run of its own (run $try); the suite counts it as passed"
		rerun_passed=$((rerun_passed + 1))
	done
	echo "$((passed + rerun_passed)) successful test scripts, 0 failures, counting" \
	    "$rerun_passed that passed on a run of their own:" $names >>"$suite_log"
}

# zsh's successful test scripts in a suite log, or 0.
zsh_successes() {
	[ -f "$1" ] || { echo 0; return; }
	sed -n 's/^\([0-9]*\) successful test scripts.*/\1/p' "$1" | tail -n 1 | grep . || echo 0
}

# The session's preload and wrapper, for the other users some scripts run
# as (zsh's P01privileged): when they cannot reach the ones named, copies
# in $copy, which they can, are named instead.
session_parts_reachable() {
	for v in SHELLESC_PRELOAD SHELLESC_WRAPPER; do
		eval "f=\${$v:-}"
		if [ -n "$f" ] && ! others_can_enter "$(dirname "$f")"; then
			cp "$f" "$copy/.shellesc-${f##*/}"
			eval "$v=\$copy/.shellesc-\${f##*/}"
			export "$v"
		fi
	done
}

# The shell's own suite inside a live session (--session), in a copy of
# the build tree.
run_session_suite() {
	[ -x "${SHELLESC:-}" ] || die "--session needs SHELLESC, the shellesc command to run the session"
	: >"$top/empty.rules"
	suite_log=$out/$sh_name-suite-$session.log
	copy=$(tree_copy "$session") || exit 1
	case $copy in
	*/shellesc-$sh_name-$session.*) ;;
	*) die "not a copy of the build tree: '$copy'" ;;
	esac
	session_parts_reachable
	log "running the test suite in a $session session, in $copy (output in $suite_log)"
	rc=0
	case $sh_name in
	zsh)	(cd "$copy" && in_session make check) >"$suite_log" 2>&1 </dev/null || rc=$?
		[ $rc = 0 ] || { zsh_rerun_failures "$copy" && rc=0; }
		rm -rf "$copy"
		grep -E 'successful test scripts|failures|skipped' "$suite_log" | tail -n 3 || true
		[ $rc = 0 ] || die "zsh's test suite failed in a $session session (see $suite_log)"
		want=$(zsh_successes "$out/zsh-suite.log") got=$(zsh_successes "$suite_log")
		[ "$want" = 0 ] || [ "$got" = "$want" ] ||
		    die "$got successful test scripts in a $session session, $want with EXEC_WRAPPER unset"
		log "suite done: $got successful test scripts, 0 failures"
		;;
	bash)	(cd "$copy" && in_session make tests) >"$suite_log" 2>&1 </dev/null || true
		log "suite done: $(grep -c '^run-' "$suite_log") test scripts"
		control=$top/unpatched/bash-suite.log
		[ -f "$control" ] || die "no $control to compare with: run build-shell.sh --unpatched --check bash first"
		ptree=$copy
		rc=0
		(compare_bash_suites "$control" "$suite_log") || rc=$?
		rm -rf "$copy"
		[ $rc = 0 ] || exit $rc
		;;
	esac
}

# The shell's own suite, with EXEC_WRAPPER unset, in the build tree.
run_suite() {
	[ -z "$session" ] || { run_session_suite; return; }
	ptree=$tree
	cd "$tree"
	suite_log=$out/$sh_name-suite.log
	log "running the test suite (output in $suite_log)"
	case $sh_name in
	zsh)	rc=0
		run_zsh_suite || rc=$?
		grep -E 'successful test scripts|failures|skipped' "$suite_log" | tail -n 3 || true
		log "suite done"
		[ $rc = 0 ] || die "zsh's test suite failed (see $suite_log)"
		;;
	bash)	env -u EXEC_WRAPPER make tests >"$suite_log" 2>&1 </dev/null || true
		log "suite done: $(grep -c '^run-' "$suite_log") test scripts"
		[ $unpatched = no ] || return 0
		control=$top/unpatched/bash-suite.log
		[ -f "$control" ] || die "no $control to compare with: run build-shell.sh --unpatched --check bash first"
		compare_bash_suites "$control" "$suite_log"
		;;
	esac
}

if [ $source_only = yes ]; then
	pristine=$top/src/$sh_name-pristine
	if [ ! -f "$pristine/configure" ]; then
		prepare_apt
		fetch "$(source_version)"
		rm -rf "$pristine"
		dpkg-source --no-check -x "$dsc" "$pristine" >/dev/null
	fi
	echo "$pristine"
	exit 0
fi
if [ -x "$out/bin/$sh_name" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$tag" ]; then
	log "reusing the finished build in $out"
else
	prepare_apt
	version=$(source_version)
	build "$version"
fi
[ $check = no ] || [ $unpatched = yes ] || [ -z "$session" ] ||
    [ -x "$out/bin/$sh_name" ] || die "no patched $sh_name built"
[ $check = no ] || run_suite
