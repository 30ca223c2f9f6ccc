#!/bin/sh
# Every file a comment or a document names exists: markdown links, paths of this tree
# (frontend/..., docs/..., tests/...), and upper-case *.md names (README.md, SECURITY.md);
# nothing cites a file outside the repository.
# Prints one line per dangling reference and "refs: N checked, N dangling"; exit 1 if any.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
if git rev-parse --git-dir >/dev/null 2>&1; then
	files=$(git ls-files -- '*.c' '*.h' '*.sh' '*.py' '*.md' '*.ini' '*.in' '*.1' '*.5' '*.8' \
		'*.spec' Makefile 'packaging/debian/*' '.ci/*' .clang-format .clang-tidy)
else
	files=$(find . -type f \( -name '*.[ch]' -o -name '*.sh' -o -name '*.py' -o -name '*.md' \
		-o -name '*.ini' -o -name '*.[158]' -o -name Makefile \) ! -path './build*' | sed 's|^\./||')
fi
python3 - "$top" $files <<'PY'
import os, re, sys
top = sys.argv[1]
files = sys.argv[2:]
roots = "docs|tests|tools|frontend|helper|lib|policy|reaper|packaging|python|examples|bench"
path_re = re.compile(r'(?<![\w./-])((?:%s)/[A-Za-z0-9_.+/-]*[A-Za-z0-9_])' % roots)
md_re = re.compile(r'(?<![\w./-])([A-Z][A-Z0-9_-]*\.md)\b')
link_re = re.compile(r'\]\(([^)\s]+)\)')
names = {os.path.basename(f) for f in files}
checked = bad = 0
def exists(base, p):
    p = p.split('#')[0].rstrip('/')
    if not p:
        return True
    for cand in (os.path.join(base, p), os.path.join(top, p)):
        if os.path.exists(cand):
            return True
    return False
for f in files:
    try:
        text = open(os.path.join(top, f), encoding='utf-8', errors='replace').read()
    except OSError:
        continue
    base = os.path.dirname(os.path.join(top, f))
    for n, line in enumerate(text.splitlines(), 1):
        refs = []
        # notes kept beside a checkout are nobody else's: the project cites its own files
        if re.search(r'\.\./shared\b', line) and f != 'tools/check-refs.sh':
            checked += 1
            bad += 1
            print(f"{f}:{n}: cites a file outside the repository (../shared)")
        if f.endswith('.md'):
            refs += [(m, 'link') for m in link_re.findall(line)
                     if not re.match(r'[a-z]+:', m)]
        for m in path_re.finditer(line):
            rest = re.match(r'\S*', line[m.end():]).group(0)
            # a pattern (frontend/*.c, lib/stage*, tests/unit/test-FOO) is no file name
            if re.search(r'[*\[{<$%]', rest) or re.search(r'(^|[/-])[A-Z]{2,}\b', m.group(1)):
                continue
            # paths inside an installed package, not in this tree
            if m.group(1).startswith('lib/systemd'):
                continue
            # MCP's method names (sandcap-mcp), not files
            if m.group(1) in ('tools/call', 'tools/list'):
                continue
            refs.append((m.group(1), 'path'))
        for m in md_re.findall(line):
            checked += 1
            if m not in names:
                bad += 1
                print(f"{f}:{n}: names {m}, which is not in this tree")
        for r, kind in refs:
            # build products, globs and placeholders are not files of the tree
            if any(c in r for c in '*<>$%{') or r.startswith(('build', 'tests/vm/scenarios/NN')):
                continue
            checked += 1
            if not exists(base, r):
                bad += 1
                print(f"{f}:{n}: {kind} {r} does not exist")
print(f"refs: {checked} checked, {bad} dangling")
sys.exit(1 if bad else 0)
PY
