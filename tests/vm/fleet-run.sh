# Shell function for the fleet scenarios (80-fleet-*.root.sh), sourced after lib.sh and
# pytest-tap.sh by a root scenario:
#   fleet_pytest MODULE   runs python/tests/MODULE with pytest as sctest (from sctest's
#                         cgroup, the scenario environment, HOME and TMPDIR in a scratch
#                         directory of sctest's) while tests/vm/leaf-lister.py shows it,
#                         as root, the leaves under the 0700 delegated parent; then one TAP
#                         line per pytest test, and root's own checks: no leaf, no mount under
#                         /run/sandcap, no sctest process, no global OOM kill in the guest.
# SANDCAP_CELERY_TIME_LIMIT: Celery's time_limit in the time-limit test, waited in full.
# The sandboxed command must be up before it fires: 1-3 s in an idle guest, so 20 s leaves
# room for a guest several times slower (60 s cost 40 s of every run).
# shellcheck shell=sh
fleet_pytest() {
	_mod=$1
	_u=$SCRATCH/u
	_list=/run/sandcap-test-leaves.json
	chmod 0755 "$SCRATCH"
	mkdir -m 0700 "$_u" && chown sctest:sctest "$_u"
	# A mark in the kernel log: the leaves' own OOM kills print pages of it, and the ring
	# wraps, so counting the whole log before and after compared different windows.
	_mark="sandcap-fleet-start-$$-$(date +%s%N)"
	echo "$_mark" > /dev/kmsg
	python3 "$SRCDIR/tests/vm/leaf-lister.py" /sys/fs/cgroup/sandcap "$_list" &
	_lister=$!
	_i=0; while [ ! -s "$_list" ] && [ $_i -lt 100 ]; do sleep 0.1; _i=$((_i + 1)); done
	check "the root-side leaf lister runs" test -s "$_list"
	diag "guest memory before: $(free -m | awk '/^Mem:/ { print $2 " MiB total, " $7 " MiB available" }')"
	# pytest's own lines as TAP comments, as they come (the 24 calls' time among them).
	# shellcheck disable=SC2086
	{ env -i PATH=/opt/sandcap/bin:/usr/bin:/bin HOME="$_u" USER=sctest LOGNAME=sctest \
		LANG=C.UTF-8 TMPDIR="$_u" PYTHONDONTWRITEBYTECODE=1 SRCDIR="$SRCDIR" \
		SANDCAP="$SANDCAP" SANDCAP_HELPER="$SANDCAP_HELPER" \
		SANDCAP_TEST_LEAF_LIST="$_list" SANDCAP_TEST_FLEET_GUARD=900 \
		SANDCAP_CELERY_TIME_LIMIT=20 SANDCAP_TEST_FLEET_CALL_TIMEOUT=300 \
		vm-as-user sctest /usr/bin/python3 -m pytest -p no:cacheprovider -v -s -rs \
		--junitxml="$_u/junit.xml" -o junit_family=xunit2 \
		"$SRCDIR/python/tests/$_mod" 2>&1
	  echo "rc=$?" > "$SCRATCH/rc"; } | sed -u 's/^/# /'
	diag "guest memory after: $(free -m | awk '/^Mem:/ { print $7 " MiB available" }')"
	junit_tap "$_u/junit.xml"
	_rc=$(sed -n 's/^rc=//p' "$SCRATCH/rc")
	_nf=$(grep -c '^F' "$_u/junit.xml.tap" 2>/dev/null)
	is "$([ "${_rc:-1}" = 0 ] && echo 0 || echo 1)" "$([ "${_nf:-0}" = 0 ] && echo 0 || echo 1)" \
		"pytest's exit status agrees with its results"
	kill "$_lister" 2>/dev/null
	wait "$_lister" 2>/dev/null
	rm -f "$_list" "$_list.tmp"
	is "$(find /sys/fs/cgroup/sandcap -mindepth 2 -maxdepth 2 -type d | wc -l)" 0 \
		"root: no leaf left under the delegated parent"
	is "$(awk '$2 ~ "^/run/sandcap/" { n++ } END { print n + 0 }' /proc/mounts)" 0 \
		"root: nothing mounted under /run/sandcap"
	check_fails "root: no process of sctest left" pgrep -u sctest
	if dmesg | grep -q -- "$_mark"; then
		is "$(dmesg | sed -n "/$_mark/,\$p" | grep -c 'Out of memory')" 0 \
			"root: no global OOM kill in the guest (memory limits were the leaves' own)"
	else
		skip "root: no global OOM kill in the guest" "the kernel log wrapped past the run's start"
	fi
	cp "$_u/junit.xml" "$VM_RESULTS/" 2>/dev/null
}
