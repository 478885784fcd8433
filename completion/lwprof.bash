# SPDX-License-Identifier: GPL-2.0
# bash completion for lwprof(1): installed as
# /usr/share/bash-completion/completions/lwprof.
#
# The commands, options and what each option takes are read from lwprof's
# own usage texts (lwprof --help, lwprof CMD -h, lwprof collect,
# lwprof print -help) once per shell, so they follow the program that is
# completed; counters come from lwprof collect -h.  Values by the name of
# their placeholder: PID, DIR, FILE, COL, NAME (counters), a|b|c choices.

# _lwprof_usage LWPROF CMD: CMD's usage text.
_lwprof_usage()
{
	case $2 in
	collect) LC_ALL=C "$1" collect 2>&1 ;;
	print) LC_ALL=C "$1" print -help 2>&1 ;;
	*) LC_ALL=C "$1" "$2" -h 2>&1 ;;
	esac
}

# _lwprof_parse CMD: read a usage text on stdin, print "OPTION<TAB>ARG"
# for every option (ARG empty when it takes none).  print's commands are
# words with a description that names their argument ("NAME: ...",
# "long | short: ...").
_lwprof_parse()
{
	if [[ $1 == print ]]; then
		local opt desc alts a parts
		sed -n '/^commands:/,$s/^  \([a-z_-][a-z_-]*\)  *\(.*\)$/-\1\t\2/p' |
		while IFS=$'\t' read -r opt desc; do
			if [[ $desc =~ ^([A-Z][A-Z|]*): ]]; then
				printf '%s\t%s\n' "$opt" "${BASH_REMATCH[1]}"
			elif [[ $desc =~ ^([a-z]+( \| [a-z ]+)+)(:|$) ]]; then
				# "text | csv | one delimiter character": the words.
				alts=""
				IFS='|' read -ra parts <<<"${BASH_REMATCH[1]}"
				for a in "${parts[@]}"; do
					a=${a# } a=${a% }
					[[ $a == *' '* ]] || alts+=${alts:+|}$a
				done
				printf '%s\t%s\n' "$opt" "$alts"
			else
				printf '%s\t\n' "$opt"
			fi
		done
		return
	fi
	awk '
	function emit(o, a) { if (!(o in seen)) { seen[o] = 1; print o "\t" a } }
	/^usage:|^       lwprof/ {
		s = $0
		while (match(s, /\[-[-a-zA-Z]+( [^] ]+)?\]/)) {
			n = split(substr(s, RSTART + 1, RLENGTH - 2), f, " ")
			emit(f[1], n > 1 ? f[2] : "")
			s = substr(s, RSTART + RLENGTH)
		}
		next
	}
	/^ +-/ {
		s = $0
		sub(/^ +/, "", s)
		arg = ""
		# The argument: one word after a single blank, before the
		# two blanks that start the description.
		if (match(s, /^-[-a-zA-Z]+(, --[-a-z]+)? [^ ]+(  +|$)/)) {
			t = substr(s, 1, RLENGTH)
			sub(/ +$/, "", t)
			n = split(t, f, " ")
			arg = f[n]
		}
		split(s, f, /[ ,]+/)
		emit(f[1], arg)
		if (f[2] ~ /^--/)
			emit(f[2], arg)
	}'
}

# _lwprof_options LWPROF CMD: the parsed options of CMD, cached.
declare -gA _lwprof_cache 2>/dev/null
_lwprof_options()
{
	local key="$1 $2"
	if [[ -z ${_lwprof_cache[$key]+set} ]]; then
		_lwprof_cache[$key]=$(_lwprof_usage "$1" "$2" | _lwprof_parse "$2")
	fi
	printf '%s\n' "${_lwprof_cache[$key]}"
}

_lwprof_commands()
{
	LC_ALL=C "$1" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p'
}

# _lwprof_value LWPROF CMD ARG: complete cur as the value of ARG.
_lwprof_value()
{
	local lw=$1 cmd=$2 arg=$3 prefix words
	case $arg in
	*PID*) _pids ;;
	*DIR*) _filedir -d ;;
	*FILE*) _filedir ;;
	COL)
		words=$(_lwprof_usage "$lw" "$cmd" |
			sed -n '/^columns:/,$p' | grep -oE '\<[A-Z]{2,}\>')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		;;
	NAME\[,*)
		# Counters, comma-separated: complete after the last comma.
		prefix=""
		[[ $cur == *,* ]] && prefix=${cur%,*},
		words=$(LC_ALL=C "$lw" collect -h 2>/dev/null |
			sed -n 's/^\([a-z][a-z0-9_-]*\),[0-9].*/\1/p')
		# After a name, a field is its interval or the next name.
		[[ -n $prefix ]] && words+=" on hi lo"
		COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "${cur##*,}"))
		compopt -o nospace
		;;
	*\|*)
		words=$(tr '|' '\n' <<<"$arg" | grep -E '^[a-z]+$')
		COMPREPLY=($(compgen -W "$words" -- "$cur"))
		;;
	esac
}

_lwprof()
{
	local cur prev words cword
	_init_completion -n := || return

	local lw=${words[0]} cmd="" ci=0 i opts opt arg
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} != -* ]]; then
			cmd=${words[i]} ci=$i
			break
		fi
	done
	if [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "-h --help --version" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_lwprof_commands "$lw")" -- "$cur"))
		fi
		return
	fi
	case $cmd in
	version|help) return ;;
	esac

	opts=$(_lwprof_options "$lw" "$cmd")
	[[ -n $opts ]] || return
	# Walk the words after the command: options, their values, and the
	# first operand (collect's and ptime's CMD, which takes the rest).
	for ((i = ci + 1; i < cword; i++)); do
		if [[ ${words[i]} == -* ]]; then
			arg=$(awk -F '\t' -v o="${words[i]}" '$1 == o { print $2 }' <<<"$opts")
			[[ -n $arg ]] && ((i++))
		elif [[ $cmd == collect || $cmd == ptime ]]; then
			_command_offset "$i"
			return
		fi
	done
	arg=$(awk -F '\t' -v o="$prev" '$1 == o { print $2 }' <<<"$opts")
	if ((cword > ci + 1)) && [[ $prev == -* && -n $arg ]]; then
		_lwprof_value "$lw" "$cmd" "$arg"
		return
	fi
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(cut -f1 <<<"$opts")" -- "$cur"))
		return
	fi
	case $cmd in
	collect|ptime) _command_offset "$cword" ;;
	print) _filedir -d ;;
	dump) _filedir rec ;;
	esac
}
complete -F _lwprof lwprof
