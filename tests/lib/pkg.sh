# SPDX-License-Identifier: GPL-2.0
# For the tests of lwprof's packages and DKMS; source after test.sh, from
# the top of the tree.
#
# pkg_version, pkg_modversion: lwprof's version (the packages' and DKMS's)
# and the module's own (MODULE_VERSION).
pkg_version=$(sed -n 's/^#define LWPROF_VERSION "\(.*\)"/\1/p' userspace/cmd/cmds.h)
pkg_modversion=$(sed -n 's/^#define LWPROF_MODULE_VERSION\t*"\(.*\)"/\1/p' kmod/internal.h)

# check_mok_signed MODULE CERT KDIR: MODULE (a name or a .ko) carries
# DKMS's signature, made with CERT's key (the same serial number) and the
# hash of the kernel whose build tree is KDIR.
check_mok_signed() {
	local cert sig
	check "$(modinfo -F signer "$1")" = "DKMS module signing key" "signed by DKMS module signing key"
	cert=$(openssl x509 -inform DER -in "$2" -noout -serial 2>/dev/null |
		sed 's/^serial=//; s/^0*//' | tr a-f A-F)
	sig=$(modinfo -F sig_key "$1" | tr -d ':' | sed 's/^0*//' | tr a-f A-F)
	check "$sig" = "$cert" "signed with $2's key (serial $cert)"
	check "$(modinfo -F sig_hashalgo "$1")" = \
		"$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' "$3/.config")" \
		"with the kernel's CONFIG_MODULE_SIG_HASH"
}

# check_installed_tools DIR: with the module loaded, the lwprof package's
# commands work: /usr/bin/lwprof names the module; as nobody (in DIR),
# ptime times a sleep, collect records cpu_burn and print (the analyzer
# in /usr/libexec/lwprof) finds its burn(); man finds every page and
# bash-completion loads the completion.
check_installed_tools() {
	local dir=$1 out real p name
	check "$(command -v lwprof)" = /usr/bin/lwprof "lwprof on PATH is the package's"
	out=$(/usr/bin/lwprof version)
	check $? -eq 0 "lwprof version: exit 0 with the module loaded"
	check "$(sed -n 2p <<<"$out" | cut -d' ' -f1-3)" = "module: lwprof.ko $pkg_modversion" \
		"lwprof version names the module"
	chmod 0777 "$dir"
	out=$(cd "$dir" && nobody /usr/bin/lwprof ptime sleep 0.2 2>&1 >/dev/null)
	real=$(awk '$1 == "real" { print $2 }' <<<"$out")
	check "$(awk -v r="$real" 'BEGIN { print (r >= 0.2 && r < 30) }')" = 1 \
		"nobody: lwprof ptime sleep 0.2: real $real s"
	(cd "$dir" && nobody /usr/bin/lwprof collect -p 1ms -o burn.er \
		"$LWPROF_BUILD/tests/progs/cpu_burn" 0.3 >/dev/null 2>"$dir/collect.err")
	check $? -eq 0 "nobody: lwprof collect -p 1ms cpu_burn 0.3"
	# Anywhere in the list: cpu_burn's 0.3 s of CPU include its start,
	# which a loaded host's TCG guest can make most of it (ld.so over 9p).
	out=$(cd "$dir" && nobody /usr/bin/lwprof print -functions burn.er 2>&1)
	check $? -eq 0 "lwprof print runs /usr/libexec/lwprof/lwprof-print"
	grep -q ' burn$' <<<"$out" || check 0 = 1 "print -functions shows cpu_burn's burn: $out"
	for p in man/*.1; do
		name=$(basename "$p" .1)
		check "$(man -w "$name" 2>&1)" = "/usr/share/man/man1/$name.1.gz" "man -w $name"
	done
	check "$(MANWIDTH=80 man --warnings lwprof-collect 2>&1 >/dev/null)" = "" \
		"man lwprof-collect renders silently"
	check "$(bash -c '. /usr/share/bash-completion/bash_completion
		_completion_loader lwprof; complete -p lwprof' 2>&1)" = \
		"complete -F _lwprof lwprof" "bash-completion loads lwprof's completion on demand"
}

# pkg_guest_prepare UNDO: ready the guest for dpkg and DKMS: no module
# loaded or installed, dpkg without questions or man-db's trigger (it would index
# every man page of the host's root, over 9p under TCG: minutes; man -w
# needs no index; the file is in the guest's overlay, gone with it), a
# scratch directory $tmp, and at exit: UNDO (a shell command that takes
# away what the test installed), rmmod, $tmp removed.
pkg_guest_prepare() {
	pkg_undo=$1
	export DEBIAN_FRONTEND=noninteractive
	rm -f /var/lib/man-db/auto-update
	grep -q '^lwprof ' /proc/modules && rmmod lwprof
	# A lwprof.ko that make install left in the host's /lib/modules
	# (extra/) would be found beside DKMS's: depmod has no search order
	# here, so either may win.  Hide it in the guest's overlay.
	find "/lib/modules/$(uname -r)" -name 'lwprof.ko*' -print -delete |
		sed 's/^/note: hidden in the guest: /'
	tmp=$(mktemp -d)
	trap pkg_guest_cleanup EXIT
}

pkg_guest_cleanup() {
	local rc=$?
	grep -q '^lwprof ' /proc/modules && rmmod lwprof
	eval "$pkg_undo" >/dev/null 2>&1
	[ -z "${pkg_tree:-}" ] || umount "$pkg_tree"
	rm -rf "$tmp"
	exit $rc
}

# pkg_guest_index_tree: after pkg_guest_prepare, the running kernel's
# module tree holds its index files and links and none of its own
# modules, until the test ends (a bind mount of $tmp/tree over it).
# depmod reads every module of the tree it indexes: the kernel's 4023
# (396 MiB), over 9p under TCG, made dkms install and uninstall take most
# of their minutes.  What lwprof's package does to the tree is the same:
# its module in updates/dkms, depmod's index naming it, modprobe loading
# it, all of it gone at uninstall.  scripts/test-packages keeps the whole
# tree.
pkg_guest_index_tree() {
	local tree f
	tree=/lib/modules/$(uname -r)
	mkdir "$tmp/tree" || return 1
	for f in "$tree"/modules.* "$tree"/build "$tree"/source; do
		[ -e "$f" ] || [ -L "$f" ] || continue	# no source link: fine
		cp -a "$f" "$tmp/tree/" || return 1
	done
	mount --bind "$tmp/tree" "$tree" || return 1
	pkg_tree=$tree
}
