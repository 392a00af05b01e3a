#!/usr/bin/env bash
# Size limits for non-test sources: no .cpp/.hpp file over 600 lines, no function over 120 lines
# (as universal-ctags measures it, from its first line to its `end:` line). Long files and
# functions are where reviews stop reading; split them into named pieces instead.
# Exits 1 listing the offenders (`path:line function N lines`, `path N lines`), else prints OK.
set -euo pipefail
cd "$(dirname "$0")/.."

max_file_lines=600
max_function_lines=120

if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
  echo "check-sizes: universal-ctags is required (scripts/install-deps.sh installs it)" >&2
  exit 1
fi

# Every top-level directory holding C++ sources, except tests and build trees.
dirs=()
while IFS= read -r dir; do
  case "$dir" in test | build*) continue ;; esac
  dirs+=("$dir")
done < <(find . -mindepth 1 \( -path './.*' -o -path './build*' \) -prune -o -name '*.cpp' -print | cut -d/ -f2 | sort -u)

# Captured first, so that a failing find, wc or ctags fails the check instead of passing it.
file_lines=$(find "${dirs[@]}" -type f \( -name '*.cpp' -o -name '*.hpp' \) -print0 | sort -z | xargs -0 wc -l)
function_spans=$(ctags -R --languages=C++ --kinds-C++=f --fields=+ne -x --_xformat='%{line} %{end} %N %F' "${dirs[@]}")

offenders=()
while IFS= read -r line; do
  [ -n "$line" ] && offenders+=("$line")
done < <(
  awk -v max="$max_file_lines" '$2 != "total" && $1 > max { print $2, $1, "lines" }' <<<"$file_lines"
  awk -v max="$max_function_lines" '{ n = $2 - $1 + 1; if (n > max) print $4 ":" $1, $3, n, "lines" }' <<<"$function_spans"
)

if [ ${#offenders[@]} -gt 0 ]; then
  echo "check-sizes: over ${max_file_lines} lines per file or ${max_function_lines} per function:" >&2
  printf '  %s\n' "${offenders[@]}" >&2
  exit 1
fi
echo "check-sizes: OK (${#dirs[@]} source dirs; files <= ${max_file_lines} lines, functions <= ${max_function_lines} lines)"
