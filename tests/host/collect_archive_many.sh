#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The archiver with many load objects (the fake module's scripted
# mappings, tests/lib/fake_maps.c): 5000 MMAP records of 700 processes
# over 300 files, 20 of them hard links (another path to an inode), and 30
# paths replaced by a new file (another inode) after the recorder has seen
# them mapped.  Truth: each (device, inode, path) mapped is archived once,
# with exactly the bytes that inode held, and nothing else under the
# files' directory.
. "$(dirname "$0")/../lib/test.sh"

fake=$LWPROF_BUILD/tests/lib/fake_lwprof.so
[ -e "$fake" ] || { echo "FAIL: $fake not built (run make)"; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
o=$tmp/objs
mkdir "$o"
# obj.K: "object K" (no ELF: archived as nobuildid/MAJ-MIN-INO/obj.K)
for k in $(seq 0 279); do echo "object $k" >"$o/obj.$k"; done
for k in $(seq 280 299); do ln "$o/obj.$((k - 280))" "$o/obj.$k"; done
dev=$(stat -c '%Hd:%Ld' "$o/obj.0")
# what each inode holds, and which paths map it: "INO PATH CONTENT"
truth() { for k in "$@"; do echo "$(stat -c %i "$o/obj.$k") $o/obj.$k $(cat "$o/obj.$k")"; done; }
truth $(seq 0 299) >expect

# 5000 records: record i maps obj.(i * 7 % 300) in process 100000 + i % 700;
# after record 2500, obj.(10 * r) for r < 30 are replaced, then mapped again.
{
	for p in $(seq 100000 100699); do echo "start $p p$p"; done
	for i in $(seq 0 4999); do
		echo "mmap $((100000 + i % 700)) $o/obj.$((i * 7 % 300))"
		if [ $i = 2499 ]; then
			echo sync
			for r in $(seq 0 29); do
				echo "object $((10 * r)) v2" >"$o/new.$r"
				echo "rename $o/new.$r $o/obj.$((10 * r))"
			done
		fi
	done
	for p in $(seq 100000 100699); do echo "exit $p p$p"; done
} >script
check "$(grep -c '^mmap ' script)" -eq 5000 "the script maps 5000 times"

export FAKE_LWPROF_LOG=$tmp/fake.log FAKE_LWPROF_DONE=$tmp/done \
	FAKE_LWPROF_MMAPS=$tmp/script FAKE_LWPROF_SAMPLES=10
LD_PRELOAD=$fake LWPROF_DEVICE=/dev/null timeout 120 "$LWPROF" collect \
	-o x.er sh -c 'until [ -e "$0" ]; do sleep 0.01; done' "$tmp/done" \
	>/dev/null 2>err.txt
check $? -eq 0 "collect exits 0"
check "$(grep -c '^maps: ' fake.log)" -eq 0 "the fake did every line of the script"
# the replaced paths' new inodes, mapped after the rename
truth $(seq 0 10 290) >>expect
sort -u expect >expect.s
check "$(wc -l <expect.s)" -eq 330 "330 (inode, path) pairs were mapped"

idx=x.er/archives/index.txt
grep " $o/" $idx >mine
check "$(wc -l <mine)" -eq 330 "index.txt: one line per (inode, path), 330"
check "$(awk '{ print $2 }' mine | sort -u)" = "$dev" "  all on the files' device"
while read -r id dv ino size rel path; do
	echo "$ino $path $(cat "x.er/archives/$rel")"
	[ "$id" = - ] || echo "unexpected build-id $id for $path"
	[ "$rel" = "nobuildid/${dv/:/-}-$ino/${path##*/}" ] ||
		echo "unexpected name $rel for $path"
done <mine | sort >got
diff expect.s got >diff.txt
check $? -eq 0 "each archived copy holds what its inode held ($(head -c 300 diff.txt))"
check "$(grep -c 'not archived' x.er/log.txt)" -eq 0 "no warning that a file was not archived"
check "$(find x.er/archives/nobuildid -mindepth 1 -type d | wc -l)" -eq 310 \
	"310 inodes archived: 280 files + 30 replacements (a hard link is its file's)"
check "$(find x.er/archives/nobuildid -type f | wc -l)" -eq 330 \
	"330 copies: one per inode and name"
done_testing
