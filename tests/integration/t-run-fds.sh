#!/bin/sh
# sandcap run: only fds 0-2 reach the command unless --keep-fds (an inherited socket would
# bypass --net none); an exec failure is still reported.
. "$(dirname "$0")/libtest.sh"

# fd 7 open on a file and fd 8 on a socket-like pipe in sandcap's environment
as_user sh -c 'exec 7</dev/null 8</dev/null; "$1" run -q -- sh -c "ls /proc/self/fd"' sh "$SANDCAP" \
	> "$T/fds" 2>&1
fds=$(tr '\n' ' ' < "$T/fds")
contains "stdin, stdout, stderr reach the command" "0 1 2" "$fds"
case " $fds " in *" 7 "*|*" 8 "*) notok "inherited fds 7 and 8 are closed ($fds)" ;;
	*) ok "inherited fds 7 and 8 are closed" ;; esac
as_user sh -c 'exec 7</dev/null; "$1" run -q --keep-fds -- sh -c "ls /proc/self/fd"' sh "$SANDCAP" \
	> "$T/fds2" 2>&1
contains "--keep-fds passes them on" " 7 " " $(tr '\n' ' ' < "$T/fds2")"
as_user sh -c 'exec 7</dev/null; "$1" run -q -- /nonexistent-sandcap-fds' sh "$SANDCAP" 2>/dev/null
eq "an exec failure is still reported (127)" 127 "$?"
done_testing
