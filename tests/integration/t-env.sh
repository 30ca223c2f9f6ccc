#!/bin/sh
# The command's environment and working directory (issue 16): --env-clear, --env NAME,
# --env NAME=VALUE, --env-deny GLOB, in profiles too; the report lists names, never values;
# --chdir DIR, and --chdir @workspace refused without the helper.
. "$(dirname "$0")/libtest.sh"

senv() {        # senv ENV=V... -- SANDCAP-RUN-ARGS: sandcap run with extra caller variables
	e=""; while [ "$1" != -- ]; do e="$e $1"; shift; done; shift
	# shellcheck disable=SC2086
	as_user env $e "$SANDCAP" run "$@" > "$T/out" 2> "$T/err"
	rc=$?
}

senv AWS_SECRET_ACCESS_KEY=s3cr3t GH_TOKEN=tok EDITOR=vi LC_TIME=C -- -q --report "$T/e0.json" -- env
eq "no env option: exit 0" 0 "$rc"
contains "no env option: the whole environment passes (as before)" "AWS_SECRET_ACCESS_KEY=s3cr3t" "$(cat "$T/out")"
contains "report env: names the variables" '"EDITOR"' "$(json "$T/e0.json" '["env"]')"
expect "report env: never a value" sh -c "! grep -q s3cr3t '$T/e0.json'"

senv AWS_SECRET_ACCESS_KEY=s3cr3t GH_TOKEN=tok EDITOR=vi LC_TIME=C -- -q --env-clear --report "$T/e1.json" -- env
eq "--env-clear: exit 0" 0 "$rc"
expect "--env-clear: the secret is gone" sh -c "! grep -q AWS_SECRET '$T/out'"
expect "--env-clear: EDITOR is gone" sh -c "! grep -q '^EDITOR=' '$T/out'"
expect "--env-clear: PATH is kept" grep -q '^PATH=' "$T/out"
expect "--env-clear: LC_* is kept" grep -qx 'LC_TIME=C' "$T/out"
eq "--env-clear: the report's names are exactly the command's" \
	"$(sed 's/=.*//' "$T/out" | sort | tr '\n' ' ')" \
	"$(json "$T/e1.json" '["env"]' | python3 -c 'import json,sys; print(" ".join(sorted(json.load(sys.stdin))), end=" ")')"

senv GH_TOKEN=tok MY_TOKEN_X=1 EDITOR=vi -- -q --env-deny '*TOKEN*' -- env
expect "--env-deny '*TOKEN*': both TOKEN variables dropped" sh -c "! grep -q TOKEN '$T/out'"
expect "--env-deny: the rest passes" grep -qx 'EDITOR=vi' "$T/out"

senv GH_TOKEN=tok EDITOR=vi -- -q --env-clear --env-deny '*TOKEN*' --env GH_TOKEN --env EDITOR \
	--env NEW=a=b --env UNSET_IN_CALLER --env HOME=/nowhere -- env
expect "--env NAME passes it through (even if --env-deny matches)" grep -qx 'GH_TOKEN=tok' "$T/out"
expect "--env NAME passes EDITOR after --env-clear" grep -qx 'EDITOR=vi' "$T/out"
expect "--env NAME=VALUE sets (value with '=')" grep -qx 'NEW=a=b' "$T/out"
expect "--env NAME=VALUE replaces a kept variable" grep -qx 'HOME=/nowhere' "$T/out"
expect "--env NAME the caller has not set: absent" sh -c "! grep -q UNSET_IN_CALLER '$T/out'"

for bad in "--env ''" "--env =x" "--env 'A B=1'" "--env 1X" "--env-deny ''" "--env-deny A=B"; do
	eval "set -- $bad"
	sandcap_run "$@" -- true
	opt=$1
	if [ "$rc" = 125 ] && grep -q -- "^sandcap: $opt: " "$T/err"; then
		ok "refuses $bad (125, names $opt)"
	else
		notok "refuses $bad (rc $rc, stderr: $(cat "$T/err"))"
	fi
done

# --chdir
mkdir "$T/wd"; chmod 777 "$T/wd"
sandcap_run -q --chdir "$T/wd" -- sh -c 'pwd; echo "PWD=$PWD"'
eq "--chdir DIR: the command starts there" "$T/wd" "$(head -1 "$T/out")"
sandcap_run -q --chdir "$T/nonexistent" --report "$T/cd.json" -- true
eq "--chdir to a missing directory: 125" 125 "$rc"
eq "... verdict setup-error" setup-error "$(json "$T/cd.json" '["verdict"]')"
contains "... the message names --chdir and the directory" "--chdir: cannot enter '$T/nonexistent'" \
	"$(json "$T/cd.json" '["message"]')"
sandcap_run --chdir @workspace --report "$T/cw.json" -- true
eq "--chdir @workspace without the helper: 125" 125 "$rc"
contains "... says there is no workspace in rlimit mode" "no workspace in rlimit mode" "$(cat "$T/err")"
eq "... and writes a setup-error report" setup-error "$(json "$T/cw.json" '["verdict"]')"
sandcap_run --chdir @elsewhere -- true
eq "--chdir @elsewhere: 125" 125 "$rc"

# In a profile.
U=$T/u; mkdir -p "$U/sandcap"; chmod -R 777 "$U"
printf '[job]\nenv-clear = yes\nenv = X=1 EDITOR\nenv-deny = LC_*\nchdir = %s\n' "$T/wd" > "$U/sandcap/profiles.ini"
senv XDG_CONFIG_HOME="$U" EDITOR=vi LC_TIME=C SECRET=1 -- -q --profile job -- sh -c 'pwd; env'
eq "profile env/chdir: exit 0" 0 "$rc"
eq "profile chdir: the command starts there" "$T/wd" "$(head -1 "$T/out")"
expect "profile env-clear: SECRET gone" sh -c "! grep -q SECRET '$T/out'"
expect "profile env: X=1 set" grep -qx 'X=1' "$T/out"
expect "profile env: EDITOR passed" grep -qx 'EDITOR=vi' "$T/out"
expect "profile env-deny: LC_TIME dropped" sh -c "! grep -q LC_TIME '$T/out'"
printf '[bad]\nenv = A-B=1\n' > "$U/sandcap/profiles.ini"
senv XDG_CONFIG_HOME="$U" -- -q --profile bad -- true
eq "profile with a bad env word: 125" 125 "$rc"
contains "... FILE:LINE and the word" "profiles.ini:2: env: invalid variable name in 'A-B=1'" "$(cat "$T/err")"
done_testing
