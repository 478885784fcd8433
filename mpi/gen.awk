# SPDX-License-Identifier: GPL-2.0
#
# The wrappers of the MPI functions that need nothing but their time, the
# communicator and a collective's root (a nonblocking collective's request
# too, for the wait that completes it), written from the MPI
# implementation's own declarations: awk -f gen.awk FUNCS MPI_H, with
# FUNCS libexp/mpi_funcs.h and MPI_H its mpi.h preprocessed (cc -E -P).
# A function of FUNCS the header does not declare (MPI-1's removed ones
# in a newer library) gets no wrapper; those of the classes p2p.c and
# life.c write by hand are left to them.
#
# Each also gets its Fortran bindings' wrappers (fortran.c says how they
# work), but for those fortran.c writes by hand: Fortran passes every
# argument by reference, then ierror, then the length of each CHARACTER
# argument (C's char *).  The mpi_f08 entry points are left out for
# functions with CHARACTER arguments, whose lengths mpi_f08 passes
# otherwise.

BEGIN {
	hand["Abort"] = hand["Init"] = hand["Init_thread"] = 1
	hand["Comm_free"] = hand["Request_free"] = 1
	printf "/* written by mpi/gen.awk: do not edit */\n"
	printf "#include <stddef.h>\n\n#include \"lwmpi.h\"\n\n"
}

# FUNCS: X(NAME, CLASS) entries
FNR == NR {
	line = $0
	while (match(line, /X\([A-Za-z_0-9]+, [A-Z]+\)/)) {
		e = substr(line, RSTART + 2, RLENGTH - 3)
		line = substr(line, RSTART + RLENGTH)
		split(e, kv, ", ")
		if (kv[2] == "OTHER" || kv[2] == "COLL" || kv[2] == "BARRIER" ||
		    kv[2] == "ICOLL")
			if (!(kv[1] in hand))
				want[kv[1]] = 1
		if (kv[2] == "ICOLL")
			icoll[kv[1]] = 1
	}
	next
}

{ text = text " " $0 }

# Fortran wrapper of NAME for symbol SYM: mpif.h's (f08 0), its real
# binding RSYM; mpi_f08's (f08 1), RSYM its lower-cased name, ierror
# may be NULL
function fortran(name, sym, rsym, f08,   j, fp, fa, ft) {
	fp = fa = ft = ""
	for (j = 1; j <= np; j++) {
		fp = fp sprintf("F *a%d, ", j)
		fa = fa sprintf("a%d, ", j)
		ft = ft "F *, "
	}
	fp = fp "F *ierr"
	fa = fa "ierr"
	ft = ft "F *"
	for (j = 1; j <= nstr; j++) {
		fp = fp sprintf(", size_t l%d", j)
		fa = fa sprintf(", l%d", j)
		ft = ft ", size_t"
	}
	printf "MW_API void %s(%s)\n{\n", sym, fp
	printf "\tstruct mw_call c;\n"
	if (f08)
		printf "\tF own;\n"
	printf "\n\tMW_REAL_F%s(\"%s\", (%s)%s);\n", f08 ? "08" : "", rsym, ft, f08 ? ", NULL" : ""
	if (f08)
		printf "\tif (!ierr)\n\t\tierr = &own;\n"
	printf "\tif (!MW_BEGIN(c, %s)) {\n\t\treal(%s);\n\t\treturn;\n\t}\n", name, fa
	printf "\tMW_CALL_F(c, real(%s));\n", fa
	if (fcomm) {
		printf "\tc.m.comm = mw_comm_id(MPI_Comm_f2c(*a%d));\n", fcomm
		if (froot)
			printf "\tc.m.root = mw_world(MPI_Comm_f2c(*a%d), *a%d);\n", fcomm, froot
		if ((name in icoll) && freq)
			printf "\tif (*ierr == MPI_SUCCESS)\n\t\tmw_coll_made(&c, MPI_Request_f2c(*a%d), MPI_Comm_f2c(*a%d));\n", freq, fcomm
	}
	printf "\tmw_end(&c);\n}\n\n"
}

# the last identifier of a parameter: its name
function pname(p,   q) {
	q = p
	gsub(/\[[^]]*\]/, "", q)
	sub(/[ \t]+$/, "", q)
	if (!match(q, /[A-Za-z_][A-Za-z_0-9]*$/))
		return ""
	return substr(q, RSTART, RLENGTH)
}

END {
	n = split(text, stmts, ";")
	for (i = 1; i <= n; i++) {
		s = stmts[i]
		if (!match(s, /(^|[^A-Za-z_0-9])int[ \t]+MPI_[A-Za-z_0-9]+[ \t]*\(/))
			continue
		head = substr(s, RSTART, RLENGTH)
		rest = substr(s, RSTART + RLENGTH)
		sub(/^[^M]*MPI_/, "", head)
		sub(/[ \t]*\($/, "", head)
		name = head
		if (!(name in want) || (name in done))
			continue
		# the parameters: to the matching parenthesis
		depth = 1
		for (k = 1; k <= length(rest) && depth; k++) {
			ch = substr(rest, k, 1)
			if (ch == "(")
				depth++
			else if (ch == ")")
				depth--
		}
		params = substr(rest, 1, k - 2)
		gsub(/[ \t]+/, " ", params)
		sub(/^ /, "", params)
		sub(/ $/, "", params)
		np = split(params, pv, ",")
		args = ""
		comm = root = req = ""
		fcomm = froot = freq = nstr = 0
		fskip = 0
		if (params == "void" || params == "")
			np = 0
		for (j = 1; j <= np; j++) {
			a = pname(pv[j])
			args = args (j > 1 ? ", " : "") a
			t = pv[j]
			sub(/^ /, "", t)
			if (!comm && t ~ /^MPI_Comm [A-Za-z_0-9]+$/) {
				comm = a
				fcomm = j
			}
			if (t ~ /^int root$/) {
				root = a
				froot = j
			}
			if (t ~ /^MPI_Request ?\*[A-Za-z_0-9]+$/) {
				req = a
				freq = j
			}
			if (t ~ /char ?\* ?\*/ || t ~ /char ?\*[^*]*\[/)
				fskip = 1	# arrays of strings: not wrapped
			else if (t ~ /char ?\*/)
				nstr++
		}
		if (params ~ /\.\.\./)
			continue	# variadic: not wrapped
		done[name] = 1
		printf "MW_API int MPI_%s(%s)\n{\n", name, np ? params : "void"
		printf "\tstruct mw_call c;\n\tint ret;\n\n"
		printf "\tif (!MW_BEGIN(c, %s))\n\t\treturn PMPI_%s(%s);\n", name, name, args
		printf "\tMW_CALL(c, ret, PMPI_%s(%s));\n", name, args
		if (comm)
			printf "\tc.m.comm = mw_comm_id(%s);\n", comm
		if (comm && root)
			printf "\tc.m.root = mw_world(%s, %s);\n", comm, root
		if ((name in icoll) && comm && req)
			printf "\tif (ret == MPI_SUCCESS)\n\t\tmw_coll_made(&c, *%s, %s);\n", req, comm
		printf "\tmw_end(&c);\n\treturn ret;\n}\n\n"
		if (fskip)
			continue
		lname = tolower(name)
		fortran(name, "mpi_" lname "_", "pmpi_" lname "_", 0)
		if (!nstr)
			fortran(name, "mpi_" lname "_f08_", lname, 1)
	}
}
