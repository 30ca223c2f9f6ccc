#!/bin/sh
# #14 item 6: ATTACH of the helper's own pid, of another sandcap-helper, and of a process
# that already sits in another sandbox is refused; that process stays in its sandbox and
# dies with it.  Each line of hostile-client is one case (tests/vm/hostile-core.inc).
# vm-timeout: 120
# vm-cost: 2
# shellcheck source=tests/vm/lib.sh
. "$VMLIB"
run_hostile attach2
done_testing
