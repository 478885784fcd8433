# SPDX-License-Identifier: GPL-2.0
# The allocation storm of scripts/bench-trace -P: N rounds of a dict
# insert of a fresh string key and a list of three objects (a string, a
# tuple), a third of them deleted again.  With PYTHONMALLOC=malloc every
# object is a malloc and a free, from the interpreter's many call sites.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
d = {}
for i in range(n):
    k = "k%d" % i
    d[k] = [i, str(i), (i, i + 1)]
    if i % 3 == 0:
        del d[k]
print(len(d))
