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

# The phases' truth: JStates's "phase NAME THREAD_CPU_NS WALL_NS" lines
# in $1 (its output).
java_cpu() { awk -v p="$2" '$1 == "phase" && $2 == p { print $3 }' "$1"; }
java_wall() { awk -v p="$2" '$1 == "phase" && $2 == p { print $4 }' "$1"; }

# The metrics java_col reads, in this order (-metrics of a csv -functions).
java_metrics=i.total:i.totalcpu:i.lock:i.sleep:i.wait:i.textpfault:i.datapfault:i.kernelpfault
java_metrics=$java_metrics:e.total:e.totalcpu:e.lock:e.sleep:e.wait:e.textpfault:e.datapfault:e.kernelpfault:name

# java_col CSV FUNC i|e total|cpu|lock|sleep|wait: ns.  cpu is what the
# thread's CPU clock counts: User, System and Trap CPU and the page
# faults' time (the module's own microstates; absent with perf).
java_col() {
	local n
	case $4 in
	total) n=1 ;; cpu) n="2 6 7 8" ;; lock) n=3 ;; sleep) n=4 ;; wait) n=5 ;;
	esac
	awk -F, -v f="$2" -v c="$n" -v o="$([ "$3" = e ] && echo 8 || echo 0)" '
		$NF == f { k = split(c, cs, " "); for (i = 1; i <= k; i++) v += $(cs[i] + o); x = 1 }
		END { printf "%.0f", x ? v * 1e9 : 0 }' "$1"
}

# java_within GOT WANT PERCENT WHAT
java_within() {
	local d=$(($1 - $2))
	d=${d#-}
	check $((d * 100)) -le $(($3 * $2)) "$4: $((($1) / 1000000)) ms, the program measured $((($2) / 1000000)) ms (within $3%)"
}

# java_cpu_check EXP OUT THR FUNC PHASE [STEAL]: the CPU time of FUNC
# on thread THR, but for its report() after the phase's measure, is the
# phase's ThreadMXBean CPU time within 3%; and at most STEAL ns (the
# machine's steal time over the recording, default 0) more: on a virtual
# machine the perf backend's on-CPU time holds the hypervisor's steal,
# which the thread's CPU clock leaves out.
java_cpu_check() {
	local got want steal=${6:-0}
	"$LWPROF" print -thread_select "$3" -filters "inStack(\"$4\") && !inStack(\"JStates.report()\")" \
		-printmode csv -metrics $java_metrics -functions "$1" >"$5.csv" 2>/dev/null
	got=$(java_col "$5.csv" '<Total>' i cpu)
	want=$(java_cpu "$2" "$5")
	check $((got * 100)) -ge $((want * 97)) "$4 CPU time: $((got / 1000000)) ms, at least 97% of the $((want / 1000000)) ms the program measured"
	check $((got * 100)) -le $((want * 103 + steal * 100)) "$4 CPU time: $((got / 1000000)) ms, at most 103% of it and the $((steal / 1000000)) ms of steal time"
}

# java_block_check CSV OUT FUNC i|e STATE PHASE: FUNC's time off CPU is
# the phase's (its wall time less its CPU time) within 2%, and all of it
# STATE (the thread blocked) but the Wait CPU after the wake-up, within
# 2%.
java_block_check() {
	local off st w
	off=$(($(java_col "$1" "$3" "$4" total) - $(java_col "$1" "$3" "$4" cpu)))
	st=$(java_col "$1" "$3" "$4" "$5")
	w=$(java_col "$1" "$3" "$4" wait)
	java_within "$off" $(($(java_wall "$2" "$6") - $(java_cpu "$2" "$6"))) 2 \
		"$3 ($4): the $6 phase's time off CPU"
	java_within $((st + w)) "$off" 2 "$3 ($4): $5 $((st / 1000000)) ms and Wait CPU $((w / 1000000)) ms of it"
}

# java_since_main EXP OUT: -filters' TSTAMP of the phases' start (JStates's
# "main NANOTIME" line, on the experiment's clock)
java_since_main() {
	local s m
	s=$(sed -n 's/^start_ns = //p' "$1/log.txt")
	m=$(awk '$1 == "main" { print $2 }' "$2")
	echo $((m - s))
}
