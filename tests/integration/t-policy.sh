#!/bin/sh
# t-policy.sh: `sandcap policy check` and `sandcap policy show` on real files: malformed policies
# (each refused at its line with its reason), the helper's trust checks on real owners,
# modes, symlinks and directories, and resolution for a user in two groups.  TAP output.
# Env (from tests/integration/run.sh): SANDCAP, BUILD, SRCDIR.
set -u
: "${SANDCAP:?}" "${BUILD:?}" "${SRCDIR:?}"
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - # SKIP $*"; }

# A directory for the trust tests must sit under root-owned parents nobody else can write
# (that is what the helper demands): /tmp (1777) would fail them all.  Use the build
# directory if its chain qualifies, else /run.
chain_ok() {
	d=$1
	while :; do
		# shellcheck disable=SC2046
		set -- $(stat -c '%u %a' "$d") || return 1
		[ "$1" -eq 0 ] || return 1
		m=$2; o=${m#"${m%?}"}; gm=${m%?}; g=${gm#"${gm%?}"}
		case "$g$o" in *[2367]*) return 1;; esac
		[ "$d" = / ] && return 0
		d=$(dirname "$d")
	done
}
base=
if [ "$(id -u)" -eq 0 ]; then
	for cand in "$BUILD" /run /var/cache; do
		if [ -d "$cand" ] && chain_ok "$cand"; then base=$cand; break; fi
	done
fi
T=$(mktemp -d "${base:-${TMPDIR:-/tmp}}/sandcap-t-policy.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
chmod 755 "$T"

# run_check FILE [ARGS]: runs `sandcap policy check ARGS FILE`, sets rc and out (both streams).
run_check() {
	f=$1; shift
	out=$("$SANDCAP" policy check "$@" "$f" 2>&1); rc=$?
}

# --- the example --------------------------------------------------------------------------
# Its users and groups (developers, ci-runner, ...) are this host's only by chance: the
# warnings about names the user database does not know are all it may say.
out=$("$SANDCAP" policy check --no-trust "$SRCDIR/sandbox.ini.example" 2> "$T/ex.err"); rc=$?
other=$(grep -v ': warning: .*: no \(user\|group\) .* in the \(user\|group\) database' "$T/ex.err")
case $out in "$SRCDIR/sandbox.ini.example: OK"*) good=1 ;; *) good=0 ;; esac
if [ "$rc" -eq 0 ] && [ "$good" -eq 1 ] && [ -z "$other" ]; then
	ok "sandbox.ini.example passes the checker (at most warnings of unknown names)"
else
	notok "sandbox.ini.example passes the checker (rc=$rc: $out; $other)"
fi

# --- malformed policies: "NAME|TEXT (printf format)|LINE|REASON" --------------------------
long=$(printf '%0300d' 0 | tr 0 a)
sec60=$(printf '%060d' 0 | tr 0 g)
i=0
while IFS='|' read -r name text line reason; do
	[ -n "$name" ] || continue
	i=$((i + 1))
	f="$T/bad$i.ini"
	# shellcheck disable=SC2059
	printf "$text" > "$f"
	run_check "$f" --no-trust
	if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qF "$f:$line: " &&
	   printf '%s\n' "$out" | grep "$f:$line: " | grep -qF -- "$reason"; then
		ok "$name: refused at line $line ($reason)"
	else
		notok "$name: want exit 1 and '$f:$line: ...$reason...', got rc=$rc: $out"
	fi
done <<EOF
unknown key|[limits]\nmemory = 1G\nswap = 1G\n|3|unknown key 'swap'
repeated key|[limits]\nmemory = 1G\npids = 10\nmemory = 2G\n|4|repeated key 'memory' in [limits] (first set at line 2)
continuation line|[defaults]\nmemory = 1G\n    2G\n|3|continuation lines are not supported
300-byte value|[sandcap]\ncgroup_root = /$long\n|2|bytes long; the limit is 196
60-byte section name|[limits]\npids = 5\n[group:$sec60]\npids = 6\n|3|group name in [group:
60-byte user section|[user:$sec60]\nallow = no\n|1|is 60 bytes long; the limit is 32
memory = -1|[limits]\nmemory = -1\n|2|memory: invalid size '-1'
cpu = 0%|[group:builders]\ncpu = 0%%\n|2|cpu: 0 is not allowed
memory = max|[user:alice]\nmemory = max\n|2|not accepted: leave the key out
bad unit|[limits]\ndisk = 10X\n|2|disk: invalid size '10X'
pids out of range|[limits]\npids = 5000000\n|2|out of range (1..4194304)
unknown section|[limit]\nmemory = 1G\n|1|unknown section [limit]
EOF

# NUL byte (printf with a format cannot carry it through the table).
f="$T/nul.ini"
printf '[limits]\nmemory = 1G\npids = 1\000 0\n' > "$f"
run_check "$f" --no-trust
if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qF "$f:3: NUL byte"; then
	ok "NUL byte: refused at line 3"
else
	notok "NUL byte: want '$f:3: NUL byte', got rc=$rc: $out"
fi

# Every error is reported, not just the first.
f="$T/many.ini"
printf '[limits]\nfoo = 1\ncpu = 0%%\n[defaults]\nmemory = -1\n' > "$f"
run_check "$f" --no-trust
cnt=$(printf '%s\n' "$out" | grep -c "^$f:[0-9]*: ")
if [ "$rc" -eq 1 ] && [ "$cnt" -eq 3 ]; then
	ok "check reports all 3 errors"
else
	notok "check reports all 3 errors (rc=$rc, $cnt lines: $out)"
fi

run_check "$T/does-not-exist.ini"
if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -q "cannot read"; then
	ok "a missing file fails with exit 1"
else
	notok "a missing file fails with exit 1 (rc=$rc: $out)"
fi
"$SANDCAP" policy check --bogus "$T/x.ini" >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 125 ]; then ok "unknown option exits 125"; else notok "unknown option exits 125 (got $rc)"; fi

# --- trust checks --------------------------------------------------------------------------
if [ -z "$base" ]; then
	for what in "root-owned 0644 file passes" "group-writable file" "file owned by nobody" \
	    "symlink" "directory writable by others"; do
		skip "trust: $what (needs root and a root-owned directory chain)"
	done
else
	D="$T/etc"
	mkdir -m 755 "$D"
	f="$D/sandbox.ini"
	cp "$SRCDIR/sandbox.ini.example" "$f"
	chown 0:0 "$f"; chmod 644 "$f"
	run_check "$f"
	# The example's names are this host's only by chance: warnings of them may precede.
	if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out" | grep -q 'would be refused' &&
		printf '%s\n' "$out" | tail -n 1 | grep -qxF -e "$f: OK" -e "$f: OK, with $(printf '%s\n' "$out" | grep -c ': warning: ') warnings"; then
		ok "trust: root-owned 0644 file in a root-owned 0755 dir passes"
	else
		notok "trust: root-owned 0644 file passes (rc=$rc: $out)"
	fi

	chmod 664 "$f"
	run_check "$f"
	if [ "$rc" -eq 1 ] &&
	   printf '%s' "$out" | grep -qF "$f: would be refused by the helper: writable by group"; then
		ok "trust: group-writable (664) file is refused"
	else
		notok "trust: group-writable file is refused (rc=$rc: $out)"
	fi
	if printf '%s' "$out" | grep -qF "(its contents are valid: --no-trust checks only them)"; then
		ok "... saying its contents are valid, and --no-trust"
	else
		notok "... saying its contents are valid, and --no-trust ($out)"
	fi
	chmod 644 "$f"

	chown 65534 "$f"
	run_check "$f"
	if [ "$rc" -eq 1 ] && printf '%s' "$out" |
	   grep -qF "$f: would be refused by the helper: owned by uid 65534, must be owned by root"; then
		ok "trust: file owned by nobody is refused"
	else
		notok "trust: file owned by nobody is refused (rc=$rc: $out)"
	fi
	chown 0 "$f"

	ln -s sandbox.ini "$D/link.ini"
	run_check "$D/link.ini"
	if [ "$rc" -eq 1 ] && printf '%s' "$out" | grep -qF "would be refused by the helper: is a symbolic link"; then
		ok "trust: a symlink is refused"
	else
		notok "trust: a symlink is refused (rc=$rc: $out)"
	fi

	chmod 757 "$D"
	run_check "$f"
	if [ "$rc" -eq 1 ] && printf '%s' "$out" |
	   grep -qF "would be refused by the helper: directory $D is writable by other"; then
		ok "trust: a directory writable by others is refused"
	else
		notok "trust: a directory writable by others is refused (rc=$rc: $out)"
	fi
	chmod 755 "$D"
fi

# --- show: a user in two groups --------------------------------------------------------
f="$T/show.ini"
cat > "$f" <<'EOF'
[sandcap]
allow_groups = developers
[limits]
memory = 2G
cpu = 200%
pids = 256
disk = 4G
sandboxes = 4
total_memory = 6G
total_pids = 2000
[defaults]
memory = 512M
timeout = 10m
[group:builders]
memory = 8G
cpu = 400%
total_memory = 16G
[group:testers]
memory = 4G
pids = 1024
timeout = 5m
sandboxes = 6
[user:mallory]
allow = no
EOF
out=$("$SANDCAP" policy show --user bob --groups developers,builders,testers "$f" 2>/dev/null); rc=$?
# expect LIMIT CEILING FROM DEFAULT FROM
expect_row() {
	row=$(printf '%s\n' "$out" | awk -v k="$1" '$1 == k' | tr -s ' ')
	if [ "$row" = "$2" ]; then ok "show two groups: $1 -> $2"; else notok "show two groups: $1: want '$2', got '$row'"; fi
}
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -q '^allowed: yes$'; then
	ok "show: bob (developers, builders, testers) is allowed"
else
	notok "show: bob is allowed (rc=$rc: $out)"
fi
# In the admin's own units: as the file writes them.
expect_row memory "memory 8G [group:builders] 512M [defaults]"
expect_row cpu "cpu 400% [group:builders] 400% [group:builders] (the ceiling)"
expect_row pids "pids 1024 [group:testers] 1024 [group:testers] (the ceiling)"
expect_row disk "disk 4G [limits] 4G [limits] (the ceiling)"
expect_row timeout "timeout 5m [group:testers] 5m [defaults] (capped by [group:testers])"
expect_row sandboxes "sandboxes 6 [group:testers]"
expect_row total_memory "total_memory 16G [group:builders]"
expect_row total_cpu "total_cpu none built-in"
expect_row total_pids "total_pids 2000 [limits]"

# One table: every row's FROM starts in the same column, the total_* rows too.
cols=$(printf '%s\n' "$out" | awk '$1 ~ /^(memory|cpu|pids|disk|timeout|sandboxes|total_memory|total_cpu|total_pids)$/ { print index($0, "[") + index($0, "built-in") }' | sort -u | wc -l)
if [ "$cols" -eq 1 ]; then ok "show: the limits, sandboxes and total_* rows are aligned"
else notok "show: rows aligned ($out)"; fi
# --no-trust, as policy check takes it: no note about the helper's trust checks.
out2=$("$SANDCAP" policy show --no-trust --user bob --groups developers "$f" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && ! printf '%s\n' "$out2" | grep -q 'would be refused by the helper'; then
	ok "show --no-trust is accepted and skips the trust checks"
else
	notok "show --no-trust (rc=$rc: $out2)"
fi
out=$("$SANDCAP" policy show --user mallory --groups developers "$f" 2>/dev/null)
if printf '%s\n' "$out" | grep -qF 'allowed: no (denied by [user:mallory] allow = no)'; then
	ok "show: mallory is denied by her user section"
else
	notok "show: mallory is denied ($out)"
fi
out=$("$SANDCAP" policy show --user eve --groups users "$f" 2>/dev/null)
if printf '%s\n' "$out" | grep -qF 'allowed: no (not allowed by [sandcap] allow_groups'; then
	ok "show: a user outside allow_groups is denied"
else
	notok "show: a user outside allow_groups is denied ($out)"
fi
# A name no section can have is said (a typo, or a directory name that still gets the
# defaults and its groups' sections), and the result shown all the same.
out=$("$SANDCAP" policy show --user bob --groups 'developers,te;sters' "$f" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qF "warning: --groups: 'te;sters' can name no [group:] section" &&
	printf '%s\n' "$out" | grep -q '^allowed: yes$'; then
	ok "show: --groups with a name the grammar forbids: a warning naming it, then the result"
else
	notok "show: --groups 'te;sters' warned (rc=$rc: $out)"
fi
out=$("$SANDCAP" policy show --user 'bob@corp.example' --groups developers "$f" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | grep -qF "warning: --user: 'bob@corp.example' can name no [user:] section" &&
	printf '%s\n' "$out" | grep -q '^user: *bob@corp.example$'; then
	ok "show: --user with a directory-style name: a warning, then its defaults and groups"
else
	notok "show: --user 'bob@corp.example' warned and shown (rc=$rc: $out)"
fi
# Groups from the user database: root is in group root.
printf '[group:root]\npids = 77\n' > "$T/root.ini"
out=$("$SANDCAP" policy show --user root "$T/root.ini" 2>/dev/null); rc=$?
if [ "$rc" -eq 0 ] && printf '%s\n' "$out" | awk '$1 == "pids"' | grep -q '77 *\[group:root\]'; then
	ok "show: groups come from the user database (root -> [group:root])"
else
	notok "show: groups from the user database (rc=$rc: $out)"
fi

# --- what loads but is likely not what the admin meant ------------------------------------
# Names the user and group databases do not know (typos of this host's root, nobody,
# nogroup): a warning naming the nearest existing name, an error with --strict.
if getent passwd nobody > /dev/null && getent group nogroup > /dev/null &&
	! getent passwd nobdy > /dev/null && ! getent group nogrop > /dev/null; then
	printf '[sandcap]\nallow_groups = nogrop\n[group:nogrop]\npids = 8\n[user:nobdy]\nallow = no\n' > "$T/typo.ini"
	run_check "$T/typo.ini" --no-trust
	if [ "$rc" -eq 0 ] &&
		printf '%s\n' "$out" | grep -qF "typo.ini:5: warning: [user:nobdy]: no user 'nobdy' in the user database: did you mean 'nobody'?" &&
		printf '%s\n' "$out" | grep -qF "typo.ini:2: warning: allow_groups: no group 'nogrop' in the group database: did you mean 'nogroup'?" &&
		printf '%s\n' "$out" | grep -qF "typo.ini:3: warning: [group:nogrop]: no group 'nogrop'" &&
		printf '%s\n' "$out" | grep -qF "typo.ini: OK, with 3 warnings"; then
		ok "check: a typo in a user or group name is a warning naming the nearest name"
	else
		notok "check: typos warned with the nearest name (rc=$rc: $out)"
	fi
	run_check "$T/typo.ini" --no-trust --strict
	if [ "$rc" -eq 1 ] && printf '%s\n' "$out" | grep -qF "typo.ini:5: [user:nobdy]: no user 'nobdy'" &&
		! printf '%s\n' "$out" | grep -q 'OK'; then
		ok "check --strict: an unknown name is an error (exit 1)"
	else
		notok "check --strict: unknown names are errors (rc=$rc: $out)"
	fi
else
	skip "this host lacks user nobody or group nogroup (or has nobdy/nogrop)"
	skip "this host lacks user nobody or group nogroup (or has nobdy/nogrop)"
fi
# Values that load but cannot do what they say: each with its line and fix.
printf '[limits]\nmemory = 2G\ntimeout = 30m\ntotal_memory = 1G\n[defaults]\nmemory = 3G\ndisk = 4G\ntimeout = 1h\n' > "$T/incoherent.ini"
run_check "$T/incoherent.ini" --no-trust
if [ "$rc" -eq 0 ] &&
	printf '%s\n' "$out" | grep -qF "incoherent.ini:6: warning: [defaults] memory = 3G is above its ceiling memory = 2G in [limits] (line 2): a run that does not ask gets the ceiling; lower the default to at most 2G" &&
	printf '%s\n' "$out" | grep -qF "incoherent.ini:8: warning: [defaults] timeout = 1h is above its ceiling timeout = 30m" &&
	printf '%s\n' "$out" | grep -qF "incoherent.ini:4: warning: [limits] total_memory = 1G is below the per-sandbox ceiling memory = 2G in [limits] (line 2)" &&
	printf '%s\n' "$out" | grep -qF "incoherent.ini:7: warning: [defaults] disk = 4G is larger than every memory ceiling (the largest: 2G in [limits], line 2)"; then
	ok "check: a default above its ceiling, a total below it, a disk over every memory: warned with line and fix"
else
	notok "check: incoherent values warned (rc=$rc: $out)"
fi
run_check "$T/incoherent.ini" --no-trust --strict
if [ "$rc" -eq 1 ]; then ok "check --strict: incoherent values fail the check"
else notok "check --strict: incoherent values fail (rc=$rc: $out)"; fi

"$SANDCAP" policy show "$T/bad1.ini" >/dev/null 2>&1; rc=$?
if [ "$rc" -eq 1 ]; then ok "show refuses an invalid file"; else notok "show refuses an invalid file (rc=$rc)"; fi

echo "1..$n"
[ "$failed" -eq 0 ]
