#!/bin/sh
# placeholder-history.sh: the placeholder check (backend/tool/files/elided.go)
# over every file this repository's history changed by hand, old against
# new, as if each change had been a model's write: each refusal it makes is
# a false alarm. Prints them and the share; TestPlaceholderHistory fails
# over 0.2%.
#   scripts/placeholder-history.sh [DIR]   (DIR: where the pairs go; a temporary folder by default)
set -eu
cd "$(dirname "$0")/.."
dir=${1:-$(mktemp -d)}
mkdir -p "$dir"
: > "$dir/index.txt"
n=0
for c in $(git rev-list --no-merges HEAD); do
	git rev-parse -q --verify "$c^" > /dev/null || continue
	for f in $(git diff-tree --no-commit-id -r --diff-filter=M --name-only "$c" | grep -E '\.(go|ts|svelte|md|sh|py|css|js|json|yml|yaml|html)$|Makefile$'); do
		n=$((n + 1))
		git show "$c^:$f" > "$dir/$n.old"
		git show "$c:$f" > "$dir/$n.new"
		echo "$n $c $f" >> "$dir/index.txt"
	done
done
echo "placeholder-history: $n files changed, in $dir"
SHRIMP_PLACEHOLDER_PAIRS=$dir GOTOOLCHAIN=auto go test -count=1 -v -run '^TestPlaceholderHistory$' ./backend/tool/files
