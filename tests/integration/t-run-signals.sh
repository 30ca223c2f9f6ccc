#!/bin/sh
# sandcap run: signals sent to sandcap reach the sandbox (SIGINT, SIGTERM, SIGHUP, SIGQUIT), and an
# interactive command on a terminal gets the foreground (reads the tty, ^C reaches it).
# Its job-control checks wait on a terminal with deadlines: it runs alone.
# integration: serial
. "$(dirname "$0")/libtest.sh"

# start_bg SIG: run a command that reports the signal it gets, in the background; wait
# until it is ready; send SIG to sandcap; collect the exit status in $rc.
forward() {
	sig=$1
	rm -f "$T/ready" "$T/got"
	(as_user_exec "$SANDCAP" run -q -- sh -c "trap 'echo $sig > $T/got; exit 42' $sig
		touch $T/ready; while :; do sleep 0.05; done" 2>/dev/null) &
	pid=$!
	LIBTEST_PIDS="$LIBTEST_PIDS $pid"
	i=0
	while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	kill -s "$sig" "$pid"
	wait "$pid"
	rc=$?
	eq "SIG$sig to sandcap reaches the command" "$sig" "$(cat "$T/got" 2>/dev/null)"
	eq "... and sandcap exits with its status" 42 "$rc"
}
forward TERM
forward INT
forward HUP
forward QUIT

# bg_ready CMD...: CMD in the background as the test user, its pid in $pid, waited for
# (a deadline, not a timing target) until it has touched $T/ready.
bg_ready() {
	rm -f "$T/ready"
	(as_user_exec "$@" 2>/dev/null) &
	pid=$!
	LIBTEST_PIDS="$LIBTEST_PIDS $pid"
	i=0
	while [ ! -e "$T/ready" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
}

# Forwarded to the whole process group: a child of the command gets it too.
# (the command waits for its child on SIGTERM: the sandbox ends with the command)
bg_ready "$SANDCAP" run -q -- sh -c "sh -c 'trap \"echo child > $T/child; exit 0\" TERM;
	touch $T/ready; while :; do sleep 0.05; done' & trap 'wait; exit 0' TERM; wait"
kill -TERM "$pid"
wait "$pid"
eq "SIGTERM reaches the command's children" child "$(cat "$T/child" 2>/dev/null)"

# ... and a process outside the group (setsid'd) gets it too, once (sandcap(1): each
# process gets each signal once).
rm -f "$T/outside"
bg_ready "$SANDCAP" run -q -- sh -c "setsid sh -c 'trap \"echo got >> $T/outside; exit 0\" TERM;
	touch $T/ready; while :; do sleep 0.05; done' & trap 'sleep 0.5; exit 0' TERM; wait"
kill -TERM "$pid"
wait "$pid"
eq "SIGTERM reaches a process outside the command's group, once" got "$(cat "$T/outside" 2>/dev/null)"

# A stopped command still gets it: a SIGCONT follows (without one the signal stays pending
# and sandcap waits for ever; a hang here is a failure, bounded by timeout).
bg_ready timeout -s KILL 30 "$SANDCAP" run -q --report "$T/stopped.json" -- \
	sh -c "touch $T/ready; kill -STOP \$\$; echo resumed"
sleep 0.2
kill -TERM "$(pgrep -P "$pid" | head -n 1)" 2>/dev/null || kill -TERM "$pid"
wait "$pid"
eq "SIGTERM to sandcap ends a stopped command: exit 143" 143 "$?"
eq "... verdict killed" killed "$(json "$T/stopped.json" '["verdict"]')"

# A terminal: the command becomes the foreground group, reads the tty, gets ^C itself;
# sandcap gets the terminal back at the end.
if python3 -c 'import pty' 2>/dev/null; then
	out=$(python3 - "$SANDCAP" <<'PY' 2>&1
import os, pty, sys, time, select, signal
sandcap = sys.argv[1]
signal.alarm(60)        # a hang is a failure, not a stuck suite
pid, fd = pty.fork()
if pid == 0:
    os.execv(sandcap, [sandcap, "run", "-q", "--", "sh", "-c",
                   "read x; echo got:$x; trap 'echo int; exit 3' INT; echo armed; "
                   "while :; do sleep 0.05; done"])
buf = b""
def until(pat, t=10):
    global buf
    end = time.time() + t
    while pat not in buf and time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                buf += os.read(fd, 1024)
            except OSError:
                break
    return pat in buf
time.sleep(0.3)
os.write(fd, b"hello\n")
print("read-ok" if until(b"got:hello") else "read-none")
print("armed" if until(b"armed") else "notarmed")
os.write(fd, b"\x03")
until(b"int")
_, st = os.waitpid(pid, 0)
print("int-ok" if b"int" in buf else "int-none", os.waitstatus_to_exitcode(st))
PY
)
	contains "interactive command reads the terminal" read-ok "$out"
	contains "^C on the terminal reaches the command, status passes through" "int-ok 3" "$out"
	# ^Z: the command stops, sandcap stops with it (the shell sees the job stopped); fg
	# continues both and hands the terminal back to the command.  Under an interactive
	# shell: a job that leads its own session has no job control, and there sandcap does
	# not stop (below).
	out=$(python3 - "$SANDCAP" "$SRCDIR/tests/integration" <<'PY' 2>&1
import sys, time
sandcap = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from ptyshell import Shell, PROMPT
sh = Shell(60)
# Builtins only: ^Z must not land while dash vforks (the vfork child stops, its parent
# waits uninterruptibly for it and never stops: the job would hang, sandcap or not).
sh.cmd("%s run -q -- sh -c 'echo ready; read x; echo finished'" % sandcap)
sh.until(b"ready")
time.sleep(0.2)         # into read(2); an earlier ^Z stops it just the same
sh.write(b"\x1a")
print("stopped-ok" if sh.until(b"Stopped") else "stopped-none")
sh.until(PROMPT, 5)
sh.cmd("fg")
time.sleep(0.3)
sh.write(b"go\n")
print("finished-ok" if sh.until(b"finished") else "finished-none")
sh.until(PROMPT, 5)
sh.cmd("echo rc=$?")
print("rc0-ok" if sh.until(b"rc=0") else "rc0-none")
sh.close()
PY
)
	contains "^Z stops the command and sandcap (the shell shows the job Stopped)" stopped-ok "$out"
	contains "fg resumes both; the command reads its line and finishes" finished-ok "$out"
	contains "... with status 0" rc0-ok "$out"
	# ^Z during the start-up: the child, started with clone(CLONE_VM | CLONE_VFORK), must
	# not stop before its exec, where sandcap waits for it and cannot stop the job too (the
	# terminal would hang).  The ^Z lands at a random moment of the start-up each time (a
	# race on purpose); whichever side it hits, the job stops and continues (fg) or runs
	# on, and always finishes.  With the stop signals default until the exec, about 1 run
	# in 50 hung.
	out=$(python3 - "$SANDCAP" "$SRCDIR/tests/integration" <<'PY' 2>&1
import random, sys, time
sandcap = sys.argv[1]
sys.path.insert(0, sys.argv[2])
from ptyshell import Shell, PROMPT
sh = Shell(900)         # a hang of the test itself is a failure, not a stuck suite
hung = 0
for i in range(30):
    sh.cmd("%s run -q -- sh -c 'read x; echo finished-$((40 + 2))'" % sandcap)
    time.sleep(random.uniform(0.001, 0.03))
    sh.write(b"\x1a")
    if sh.until(b"Stopped", 2):
        sh.until(PROMPT, 5)
        sh.cmd("fg")
        time.sleep(0.2)
    sh.write(b"x\n")
    done = sh.until(b"finished-42", 15)
    if not done and b"Stopped" in sh.buf:
        # The job did stop, later than the 2 s above (a busy machine): the shell took the
        # line.  Not a hang: continue it as above.
        sh.until(PROMPT, 5)
        sh.cmd("fg")
        time.sleep(0.2)
        sh.write(b"x\n")
        done = sh.until(b"finished-42", 15)
    if not done:
        hung += 1
        sh.write(b"\x03")
    sh.until(PROMPT, 5)
print("hung", hung)
sh.close()
PY
)
	eq "^Z at any moment of the start-up never hangs the job (30 runs)" "hung 0" "$out"
	# Started in the background of an interactive shell, a command that reads the terminal
	# stops as a plain `cat &` does (the job shows Stopped), and fg hands it the terminal
	# (real-workload review: it stayed stopped for ever, the job shown running).
	out=$(python3 - "$SANDCAP" "$T/bg.json" "$SRCDIR/tests/integration" <<'PY' 2>&1
import sys, time
sandcap, rep = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from ptyshell import Shell, PROMPT
sh = Shell(60)
sh.cmd("%s run -q --report %s -- cat &" % (sandcap, rep))
sh.until(PROMPT)
# The job's state as the shell sees it, asked until cat has met its read (a deadline).
stopped = False
for i in range(40):
    sh.cmd("jobs -l")
    if sh.until(b"Stopped", 0.25):
        stopped = True
        break
print("stopped-ok" if stopped else "stopped-none")
sh.cmd("fg")
time.sleep(0.5)
sh.write(b"hello-bg\n")
print("echoed-ok" if sh.until(b"hello-bg\r\nhello-bg") else "echoed-none")
sh.write(b"\x04")
sh.until(PROMPT)
sh.cmd("echo rc=$?")
print("rc0-ok" if sh.until(b"rc=0") else "rc0-none")
sh.close()
PY
)
	contains "started in the background, cat reading the terminal: the job shows Stopped" \
		stopped-ok "$out"
	contains "... fg gives it the terminal: it reads and echoes a line" echoed-ok "$out"
	contains "... ^D ends it, status 0" rc0-ok "$out"
	# Job control in the background, as the review of it found wanting: under another job
	# leader (sh -c 'sandcap ...' &) sandcap never stops itself, so --timeout still fires;
	# fg of a job that has not stopped yet gives it the terminal; a sandbox that stops
	# itself over and over (bg each second) does not hold off --timeout.
	out=$(python3 - "$SANDCAP" "$T" "$SRCDIR/tests/integration" <<'PY' 2>&1
import os, sys, time
sandcap, T = sys.argv[1], sys.argv[2]
sys.path.insert(0, sys.argv[3])
from ptyshell import Shell, PROMPT
sh = Shell(100)
sh.cmd("sh -c '%s run -q --timeout 2 -- cat; echo RC=$?' &" % sandcap)
print("leader-ok" if sh.until(b"RC=124", 20) else "leader-none")
sh.until(PROMPT, 2)
sh.cmd("%s run -q -- sh -c 'sleep 1.5; read x; echo got:$x' &" % sandcap)
sh.until(PROMPT, 5)
sh.cmd("fg")
time.sleep(3)
sh.write(b"hi-fg\n")
print("fg-ok" if sh.until(b"got:hi-fg", 10) else "fg-none")
sh.until(PROMPT, 5)
sh.cmd("%s run -q --timeout 2 --grace 0.5 --report %s/selfstop.json -- sh -c 'trap \"\" TERM; "
       "while :; do kill -TSTP $$; done' &" % (sandcap, T))
sh.until(PROMPT, 5)
done = False
for i in range(20):
    time.sleep(1)
    if os.path.exists("%s/selfstop.json" % T):
        done = True
        break
    sh.cmd("bg")
print("selfstop-ok" if done else "selfstop-none")
sh.close()
PY
)
	# A job that leads its own session (ssh -t, script -c: no shell does job control):
	# a sandbox that stops itself does not stop sandcap, so --timeout still fires (review).
	sl=$(python3 - "$SANDCAP" <<'PY' 2>&1
import os, pty, select, signal, sys, time
signal.alarm(60)        # a hang is a failure, not a stuck suite
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "run", "-q", "--timeout", "2", "--", "sh", "-c",
                           "kill -TSTP $$; sleep 1"])
while True:
    r, _, _ = select.select([fd], [], [], 0.5)
    if r:
        try:
            if not os.read(fd, 1024):
                break
        except OSError:
            break
    p, st = os.waitpid(pid, os.WNOHANG)
    if p:
        break
else:
    p = 0
if not p:
    p, st = os.waitpid(pid, 0)
print("exit", os.waitstatus_to_exitcode(st))
PY
)
	eq "a session-leading job whose command stops itself: --timeout still ends it (124)" \
		"exit 124" "$sl"
	contains "background under another job leader (sh -c ... &): --timeout still fires (124)" \
		leader-ok "$out"
	contains "fg of a background job not yet stopped: it gets the terminal and reads a line" \
		fg-ok "$out"
	contains "a sandbox stopping itself over and over (bg each second): --timeout still ends it" \
		selfstop-ok "$out"
	eq "... with verdict timeout" timeout "$(json "$T/selfstop.json" '["verdict"]')"
else
	notok "python3 pty module missing: terminal test not run"
fi

# A SIGTSTP to sandcap stops the sandbox, and a SIGCONT continues it (no terminal: sandcap
# itself runs on).  A SIGCONT sent right after the stop undid it (review).
rm -f "$T/tick"
(as_user_exec "$SANDCAP" run -q -- sh -c "while :; do date +%s%N > $T/tick; sleep 0.05; done" \
	2>/dev/null) &
pid=$!
LIBTEST_PIDS="$LIBTEST_PIDS $pid"
i=0; while [ ! -s "$T/tick" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
kill -TSTP "$pid"
sleep 0.5
t1=$(cat "$T/tick"); sleep 0.6; t2=$(cat "$T/tick")
eq "SIGTSTP to sandcap stops the sandbox (it writes nothing more)" "$t1" "$t2"
kill -CONT "$pid"
i=0; while [ "$(cat "$T/tick")" = "$t2" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
expect "... and SIGCONT continues it" test "$(cat "$T/tick")" != "$t2"
kill -TERM "$pid"
wait "$pid"

# A caller that ignores SIGCHLD: the kernel would reap sandcap's children unseen, and the
# supervisor spun at 100% CPU forever waiting for an end it could not see (outside review).
# sandcap takes the default back; the command sees SIGCHLD default, as every other signal.
rm -f "$T/chld"
timeout -s KILL 30 python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execvp(sys.argv[1], sys.argv[1:])' "$SANDCAP" run -q --no-cgroup -- \
	sh -c "grep SigIgn /proc/self/status > $T/chld; (sleep 0.1 &); exit 3" 2>/dev/null
rc=$?
left=$(pgrep -f "$T/chld" | tr '\n' ' ')
[ -z "$left" ] || kill -KILL $left 2>/dev/null
eq "started with SIGCHLD ignored: sandcap ends with the command's status" 3 "$rc"
eq "... and leaves no process of its own behind (its supervisor spun before)" "" "$left"
eq "... the command ran with no signal ignored" "SigIgn:	0000000000000000" "$(cat "$T/chld" 2>/dev/null)"

# A clean signal state for the command although sandcap was started with signals ignored
# (they survive exec) and blocked: the child resets only the signals the kernel reports
# ignored or caught (#19), which must still leave nothing behind.
st=$( (trap '' PIPE HUP USR1 USR2; as_user_exec "$SANDCAP" run -q -- cat /proc/self/status) \
	2>&1)
eq "no signal ignored in the command (sandcap started with PIPE HUP USR1 USR2 ignored)" \
	0000000000000000 "$(echo "$st" | sed -n 's/^SigIgn:[[:space:]]*//p')"
eq "no signal caught in the command (sandcap's handlers do not leak)" \
	0000000000000000 "$(echo "$st" | sed -n 's/^SigCgt:[[:space:]]*//p')"
eq "no signal blocked in the command" \
	0000000000000000 "$(echo "$st" | sed -n 's/^SigBlk:[[:space:]]*//p')"

done_testing
