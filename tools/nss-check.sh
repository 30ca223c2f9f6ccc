#!/bin/sh
# nss-check BINARY MAP [OBJECT...]: fails unless BINARY is static (no shared library, no
# interpreter), its link map (ld -Map) shows no member of glibc's NSS (getpw*, getgr*,
# initgroups, getaddrinfo, nsswitch, the nss_* modules), and no OBJECT (the project's own,
# linked into it) calls what loads modules at run time: dlopen(), setlocale(), newlocale(),
# iconv_open() (gconv).  The static sandcap must hand every run that needs them to its
# dynamic twin (frontend/nss.h, SECURITY.md "sandcap is static-pie"); the Makefile runs this
# on every link, tests/integration/t-nss.sh proves it can fail.
set -u
bin=$1 map=$2
shift 2
for f in "$bin" "$map" "$@"; do
	[ -s "$f" ] || { echo "nss-check: $f: missing or empty" >&2; exit 1; }
done
if readelf -d "$bin" 2>/dev/null | grep -q '(NEEDED)' || readelf -l "$bin" | grep -q INTERP; then
	echo "nss-check: $bin is not static (it needs a shared library or an interpreter)" >&2
	exit 1
fi
hits=$(grep -oE 'libc\.a\((nss_[a-z_]*|getpw[a-z_]*|getgr(gid|nam|ent)[a-z_]*|initgroups|getaddrinfo|nsswitch|compat-[a-z]*)\.o\)' \
	"$map" | sort -u | tr '\n' ' ')
if [ -n "$hits" ]; then
	echo "nss-check: $bin links glibc's NSS ($hits): what needs it belongs in the dynamic" \
		"twin, sandcap-nss (frontend/nss.h)" >&2
	exit 1
fi
for o in "$@"; do
	calls=$(nm -u "$o" 2>/dev/null | grep -oE ' (dlopen|dlmopen|setlocale|newlocale|iconv_open)$' |
		sort -u | tr '\n' ' ')
	if [ -n "$calls" ]; then
		echo "nss-check: $o calls$calls: in a static program that loads modules with" \
			"glibc's static dlopen(); it belongs in the dynamic twin (frontend/nss.h)" >&2
		exit 1
	fi
done
exit 0
