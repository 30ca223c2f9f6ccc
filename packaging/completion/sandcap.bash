# bash completion for sandcap
_sandcap()
{
	local cur prev words cword
	_init_completion 2>/dev/null || { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; cword=$COMP_CWORD; words=("${COMP_WORDS[@]}"); }
	local i
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			COMPREPLY=($(compgen -c -- "$cur")); return
		fi
	done
	if [[ $cword -eq 1 ]]; then
		COMPREPLY=($(compgen -W "run trace policy profile ps kill session doctor --help --version" -- "$cur"))
		return
	fi
	case ${words[1]} in
	run|trace)
		case $prev in
		--fs) COMPREPLY=($(compgen -W "none ro strict" -- "$cur")); return ;;
		--net) COMPREPLY=($(compgen -W "host proxy loopback none" -- "$cur")); return ;;
		--unix) COMPREPLY=($(compgen -W "host none" -- "$cur")); return ;;
		--allow) return ;;
		--rw|--ro|--report) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		--chdir) COMPREPLY=($(compgen -d -- "$cur") @workspace); return ;;
		esac
		COMPREPLY=($(compgen -W "--memory --cpu --pids --disk --timeout --grace --as --cpu-time
			--fsize --nofile --stack --core --nproc --fs --net --allow --unix --rw --ro --no-cgroup --fallback
			--report --report-fd --quiet --profile --headroom --runs --env --env-clear --env-deny
			--chdir --output-limit --keep-fds --session --help" -- "$cur")) ;;
	session)
		if [[ $cword -eq 2 ]]; then
			COMPREPLY=($(compgen -W "start show end ls --help" -- "$cur")); return
		fi
		case $prev in
		--fs) COMPREPLY=($(compgen -W "none ro strict" -- "$cur")); return ;;
		--net) COMPREPLY=($(compgen -W "host loopback none" -- "$cur")); return ;;
		--report) COMPREPLY=($(compgen -f -- "$cur")); return ;;
		esac
		COMPREPLY=($(compgen -W "--ttl --cpu-time --timeout --as --fs --net --name --report
			--no-cgroup --json --help" -- "$cur")) ;;
	policy)
		COMPREPLY=($(compgen -W "check show --user --groups --no-trust --strict" -- "$cur")) ;;
	esac
}
complete -F _sandcap sandcap
