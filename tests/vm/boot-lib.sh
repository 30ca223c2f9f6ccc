# Shell library for the host drivers run.sh and sysd-run.sh (after they set uml, kcmd,
# tmp and bound):
#
#   uml_boot LOG   boots the guest (linux.uml, its own process group) with its console
#                  appended to LOG and a watchdog that SIGKILLs the whole group after
#                  $bound seconds (then $tmp/timed-out holds the bound); returns when the
#                  guest has gone, with its exit status in uml_rc.  While it runs, uml_pid
#                  and wd_pid name the guest and the watchdog for the caller's exit trap.
uml_boot() {
	# shellcheck disable=SC2086
	TMPDIR=$tmp setsid "$uml" $kcmd < /dev/null >> "$1" 2>&1 &
	uml_pid=$!
	(
		trap 'kill $sp 2>/dev/null; exit 0' TERM
		sleep "$bound" & sp=$!
		wait $sp
		echo "$bound" > "$tmp/timed-out"
		kill -KILL "-$uml_pid" 2>/dev/null
	) &
	wd_pid=$!
	wait "$uml_pid" 2>/dev/null
	uml_rc=$?
	kill "$wd_pid" 2>/dev/null
	wait "$wd_pid" 2>/dev/null
	wd_pid=""
	kill -KILL "-$uml_pid" 2>/dev/null
	uml_pid=""
}
