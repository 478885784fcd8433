# SPDX-License-Identifier: GPL-2.0
# For guest tests of lwprof collect; source after test.sh.
#
# collect_setup NAME: load lwprof.ko (skip if it cannot sample), and cd to a
# fresh work directory on the guest's tmpfs.  collect_done: keep the work
# directory in $LWPROF_OUT/NAME if a check failed, then done_testing.
. "$(dirname "${BASH_SOURCE[0]}")/session.sh"

progs=$LWPROF_BUILD/tests/progs

collect_setup() {
	load_lwprof
	"$LWPROF" version | grep -Eq 'features 0x[0-9a-f]*[2367abef]\)' ||
		skip "the module cannot sample (LWPROF_FEAT_SAMPLE)"
	work=$(mktemp -d "/tmp/$1.XXXXXX") || exit 1
	keep=$LWPROF_OUT/$1
	rm -rf "$keep"
	cd "$work" || exit 1
}

collect_done() {
	if [ "$t_failed" -ne 0 ]; then
		mkdir -p "$keep" && cp -r "$work"/* "$keep"/ 2>/dev/null
		echo "# experiments kept in $keep"
	fi
	cd / && rm -rf "$work"
	done_testing
}

# key EXP KEY: the value of KEY in EXP/log.txt.
key() { sed -n "s/^$2 = //p" "$1/log.txt"; }
# field NAME: the value of NAME=... on each line of stdin (a dump's).
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
# within A B PCT: A is within PCT percent of B (B > 0).
within() { awk -v a="$1" -v b="$2" -v p="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= b * p / 100) }'; }
