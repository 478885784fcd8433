# SPDX-License-Identifier: GPL-2.0
# Helpers for the Java tests (source tests/lib/test.sh first): the JDK,
# the agent and the workloads (tests/progs/java/, built by make where a
# JDK is), and what the agent's file says.

java_progs=$LWPROF_BUILD/tests/progs/java

# java_need: skip unless java, the agent and the workloads are here.
java_need() {
	command -v java >/dev/null 2>&1 || skip "no java (openjdk-17-jdk-headless)"
	[ -e "$LWPROF_BUILD/liblwprof_jvmti.so" ] ||
		skip "no liblwprof_jvmti.so: make found no JDK headers"
	[ -e "$java_progs/JStates.class" ] || skip "no JStates.class: make found no javac"
}

# java_methods EXP: "ID CLASS.NAME" of every method the agent recorded.
java_methods() {
	"$LWPROF" dump "$1" 2>/dev/null | awk '$2 == "JMETHOD" {
		for (i = 3; i <= NF; i++) {
			split($i, kv, "=")
			f[kv[1]] = substr($i, length(kv[1]) + 2)
		}
		c = f["class"]; sub(/^L/, "", c); sub(/;$/, "", c); gsub(/\//, ".", c)
		print f["id"], c "." f["name"]
	}'
}
