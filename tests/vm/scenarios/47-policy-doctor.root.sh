#!/bin/sh
# What the admin is told about the policy file itself: sandcap doctor calls a file that does
# not parse "invalid" (with its line), one it may not use "cannot be used", and none "no
# policy file"; never "no readable policy" for a file that is there and readable.
# vm-timeout: 60
# vm-cost: 4
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
F=/etc/sandcap/sandbox.ini
doc() { vm-as-user sctest env SANDCAP_HELPER="$SANDCAP_HELPER" "$SANDCAP" doctor 2>&1; }

printf '[limits]\npids = 512x\n' > "$F"
out=$(doc)
like "$out" "policy $F: invalid: $F:2: pids: invalid number" "doctor: an invalid policy is 'invalid', with its line"
like "$out" 'delegated parent: unknown \(the policy is invalid' "doctor: the parent is unknown because the policy is invalid"
case $out in *"no readable policy"*) fail "doctor never says 'no readable policy' of a readable file" "$out" ;;
	*) ok "doctor never says 'no readable policy' of a readable file" ;; esac

chmod 0666 "$F"
out=$(doc)
like "$out" 'delegated parent: unknown \(the policy cannot be used' "doctor: a policy others can write 'cannot be used'"
case $out in *"$F: invalid"*) fail "... and is not called invalid" "$out" ;; *) ok "... and is not called invalid" ;; esac

rm -f "$F"
out=$(doc)
like "$out" 'delegated parent: unknown \(no policy file' "doctor: no file at all is 'no policy file'"
done_testing
