# Shell library for the guests' harnesses, guest-harness.sh and sysd-harness.sh (after
# they set R and the counters tapn, passed and failed):
#
#   tap ok|not-ok DESC   one TAP line of the run, numbered, counted, appended to $R/tap
#                        and printed on the console
tap() {
	tapn=$((tapn + 1))
	if [ "$1" = ok ]; then
		passed=$((passed + 1)); line="ok $tapn - $2"
	else
		failed=$((failed + 1)); line="not ok $tapn - $2"
	fi
	echo "$line" >> "$R/tap"
	echo "$line"
}
