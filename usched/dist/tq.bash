# SPDX-License-Identifier: GPL-2.0
#
# tq.bash - bash completion of usched, tqsim, tqbench and tqstat, installed
# as bash-completion/completions/usched with the others linked to it.
#
# The options are those the program's own --help lists, read when asked,
# so that what this offers is what the installed program takes; an option
# whose argument --help calls FILE, DIR or PATH completes a path. Only the
# values of a few options, and tqsim's commands, are named here.

# The --options "$1 --help" lists, one a line.
_tq_options()
{
	"$1" --help 2>&1 | grep -o -- '--[a-z0-9][a-z0-9-]*' | sort -u
}

# What "$1 --help" calls the argument of option $2 (FILE, DIR, N, ...), if any.
_tq_argument()
{
	"$1" --help 2>&1 | sed -n "s/^ *\(-[a-z0-9], \)\?$2 \([A-Z][A-Za-z.]*\).*/\2/p" | head -n1
}

_tq()
{
	local cmd=$1 cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} words=

	COMPREPLY=()
	case $prev in
	--policy) words="fifo paper neh exact auto flow" ;;
	--workers) words="thread process" ;;
	--transport) words="module socket auto" ;;
	--deadline) words="refuse flag" ;;
	--dma | --copy-engines) words="1 2" ;;
	--*)
		case $(_tq_argument "$cmd" "$prev") in
		FILE* | PATH) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
		DIR) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
		[A-Z]*) return ;;	# a value of its own: nothing to offer
		esac ;;
	esac
	if [ -z "$words" ] && [ "${cmd##*/}" = tqsim ] && [ "$COMP_CWORD" -eq 1 ]; then
		words="makespan order perms stream eval bench --help --version"
	elif [ -z "$words" ] && [[ $cur == -* ]]; then
		words=$(_tq_options "$cmd")
	elif [ -z "$words" ]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}

complete -F _tq usched tqsim tqbench tqstat
