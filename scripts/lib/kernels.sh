# SPDX-License-Identifier: GPL-2.0
# The kernels of scripts/kernels, for scripts that source this file with
# $top set to the top of the tree.
#
# kernels_of ROLE...: the releases with one of the roles, in the file's
# order, one a line ("guest": the test guest's one).
kernels_of() {
	awk -v roles=" $* " '$1 !~ /^#/ && NF >= 2 && index(roles, " " $2 " ") {
		print $1 }' "$top/scripts/kernels"
}
