#!/bin/sh
# sandcap run --profile (issue 10), as sctest with admin profiles installed by root: lookup in
# the documented order ($XDG_CONFIG_HOME/sandcap/profiles.ini, else ~/.config/sandcap/profiles.ini;
# then /etc/sandcap/profiles.d/*.ini in name order, or $SANDCAP_PROFILES_DIR), first match wins as
# a whole, command-line flags override the profile, errors name the file and line.
# vm-timeout: 150
# vm-cost: 9
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
R=$SCRATCH
chmod 0777 "$R"
H=/home/sctest
D=/etc/sandcap/profiles.d
MiB=1048576
trap 'rm -rf "$D" "$H/.config/sandcap" "$H/xdg" "$H/pd"' EXIT
mkdir -p "$D"
printf '[small]\nmemory = 32M\npids = 16\n\n[both]\nmemory = 40M\n\n[admin]\nmemory = 24M\ntimeout = 7s\n' \
	> "$D/10-site.ini"
printf '[both]\nmemory = 36M\n\n[late]\npids = 12\n' > "$D/20-more.ini"
printf '[small]\nmemory = 99M\n' > "$D/ignored.conf"
chmod 0644 "$D"/*
mkdir -p "$H/.config/sandcap" "$H/xdg/sandcap" "$H/pd"
printf '; mine\n[small]\nmemory = 48M\n' > "$H/.config/sandcap/profiles.ini"
printf '[small]\nmemory = 56M\n' > "$H/xdg/sandcap/profiles.ini"
printf '[both]\nmemory = 44M\n' > "$H/pd/a.ini"
chown -R sctest:sctest "$H/.config" "$H/xdg" "$H/pd"

u() { env -i PATH="$PATH" HOME=$H SANDCAP_HELPER="$SANDCAP_HELPER" TMPDIR=/tmp "$@"; }
# prof [ENV=...] -- ARGS: sandcap run -q ARGS --report $R/p.json -- true as sctest; sets $rc
prof() {
	e=""
	while [ "$1" != -- ]; do e="$e $1"; shift; done
	shift
	rm -f "$R/p.json"
	# shellcheck disable=SC2086
	run_rc u $e vm-as-user sctest "$SANDCAP" run -q "$@" --report "$R/p.json" -- true 2> "$R/p.err"
}
lim() { json_get "$R/p.json" ".limits.$1"; }

prof -- --profile small
is "$rc" 0 "--profile small runs"
# shellcheck disable=SC2088 # a literal ~ in the description
is "$(lim memory)" $((48 * MiB)) "~/.config/sandcap/profiles.ini comes before /etc/sandcap/profiles.d (48M)"
is "$(lim pids)" 64 \
	"first match wins as a whole: the admin's [small] pids = 16 is not merged in (policy default 64)"
prof XDG_CONFIG_HOME=$H/xdg -- --profile small
is "$(lim memory)" $((56 * MiB)) "\$XDG_CONFIG_HOME/sandcap/profiles.ini replaces ~/.config (56M)"
prof -- --profile both
is "$(lim memory)" $((40 * MiB)) "profiles.d in name order: 10-site.ini before 20-more.ini (40M)"
prof -- --profile late
is "$(lim pids)" 12 "a profile only in 20-more.ini is found (pids 12)"
prof -- --profile admin
is "$(lim memory) $(lim timeout_ms)" "$((24 * MiB)) 7000" "[admin] from /etc/sandcap/profiles.d: memory 24M, timeout 7s"
prof SANDCAP_PROFILES_DIR=$H/pd -- --profile both
is "$(lim memory)" $((44 * MiB)) "\$SANDCAP_PROFILES_DIR replaces /etc/sandcap/profiles.d (44M)"
prof SANDCAP_PROFILES_DIR=$H/pd -- --profile admin
is "$rc" 125 "with \$SANDCAP_PROFILES_DIR, /etc/sandcap/profiles.d is not read: [admin] not found (125)"
prof -- --profile small --memory 64M
is "$(lim memory)" $((64 * MiB)) "a flag after --profile overrides it (64M)"
prof -- --memory 64M --profile small
is "$(lim memory)" $((64 * MiB)) "a flag before --profile overrides it too (64M)"
prof -- --profile=admin --timeout 3s
is "$(lim memory) $(lim timeout_ms)" "$((24 * MiB)) 3000" "--profile=NAME: memory from it, --timeout from the command line"
prof -- --profile nosuch
is "$rc" 125 "an unknown profile: exit 125"
like "$(cat "$R/p.err")" "nosuch.*$H/.config/sandcap/profiles.ini.*$D" "an unknown profile: the message names where it looked"
check_fails "an unknown profile: nothing ran" test -e "$R/p.json"
printf '[small]\nmemory = 48M\nmemroy = 1G\n' > "$H/.config/sandcap/profiles.ini"
prof -- --profile both
is "$rc" 125 "a malformed user file: exit 125 (even for a profile found later)"
like "$(cat "$R/p.err")" "$H/.config/sandcap/profiles.ini:3:.*memroy" "a malformed user file: FILE:LINE and the key"
printf '[big]\nmemory = 1G\n' > "$H/.config/sandcap/profiles.ini"
prof -- --profile big
is "$rc" 125 "a profile over the policy's ceiling: refused (125)"
like "$(cat "$R/p.err")" "192" "a profile over the ceiling: the message names the ceiling"

# A policy that cannot be used refuses the run, saying why (the reason is formatted only
# then: issue 19); the admin's mode is put back whatever happens.
P=/etc/sandcap/sandbox.ini
mode=$(stat -c %a "$P")
trap 'chmod "$mode" "$P"; rm -rf "$D" "$H/.config/sandcap" "$H/xdg" "$H/pd"' EXIT
chmod g+w "$P"
prof --
chmod "$mode" "$P"
is "$rc" 125 "a group-writable policy: refused (125)"
like "$(cat "$R/p.err")" "the policy $P cannot be used" "... the message names the policy"
like "$(cat "$R/p.err")" "cannot be used: writable by group .mode 0664., must not be" "... and why"
prof --
is "$rc" 0 "its mode back: the run goes on"
done_testing
