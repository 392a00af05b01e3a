#!/usr/bin/env bash
# Checks the include rules that keep the layers apart: each room includes only the rooms below it
# (its own headers aside), and only actors/ includes CAF. Prints every offending include as
# file:line and exits 1; prints one line and exits 0 when every rule holds.
set -euo pipefail
cd "$(dirname "$0")/.."

# room -> the other rooms it may include
declare -A allowed=(
  [jsonkit]=""
  [cel]="jsonkit"
  [k8s]="jsonkit cel"
  [api]="jsonkit cel k8s"
  [measure]="jsonkit cel k8s api"
  [platform]="jsonkit cel k8s api"
  # what setup installs and the status model: pure, the CLI does the API calls
  [install]="jsonkit cel k8s api"
  # the report is pure: k8s/ for times only (no REST client: the CLI fetches the objects)
  [report]="jsonkit cel k8s api measure"
  [reconcile]="jsonkit cel k8s api measure platform"
  [overrides]="jsonkit cel k8s api platform"
  [measurement]="jsonkit cel k8s api measure reconcile"
  [job]="jsonkit cel k8s api measure platform reconcile"
  [workflow]="jsonkit cel k8s api measure platform reconcile overrides job"
  [catalog]="jsonkit cel k8s api platform overrides"
  [certification]="jsonkit cel k8s api measure platform reconcile overrides job workflow catalog"
  [workloadrun]="jsonkit cel k8s api measure platform reconcile overrides job workflow catalog"
  [sim]="jsonkit cel k8s api"
  [actors]="jsonkit cel k8s api measure platform reconcile measurement overrides job workflow catalog certification workloadrun sim"
  [manager]="jsonkit cel k8s api measure report platform reconcile measurement overrides job workflow catalog certification workloadrun actors sim"
  [clusterinfo]="jsonkit cel k8s api platform workflow"
  [cli]="jsonkit cel k8s api measure platform reconcile overrides job workflow catalog certification workloadrun report clusterinfo install"
)

status=0
for room in "${!allowed[@]}"; do
  [ -d "$room" ] || continue
  while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    target=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([a-z_]+)\/.*/\1/p' <<<"${rest#*:}")
    [ -n "$target" ] && [ "$target" != "$room" ] || continue
    [ -d "$target" ] || continue  # a generated or third-party path, not a room of ours
    if [[ " ${allowed[$room]} " != *" $target "* ]]; then
      echo "$file:$line: $room/ must not include $target/ (allowed: ${allowed[$room]:-none})"
      status=1
    fi
  done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$room" --include='*.cpp' --include='*.hpp' || true)
done

# The report is built from objects handed in: it never talks to the API server itself.
while IFS= read -r hit; do
  echo "$hit: report/ and install/ must not use the REST client (the CLI does the API calls)"
  status=1
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"k8s/(rest_client|http_transport|tls_client|watch_stream|resource_mapper)' report install || true)

# CAF belongs to the actor shell alone (and to the tests and benches that drive actors directly).
while IFS= read -r hit; do
  echo "$hit: only actors/ includes CAF"
  status=1
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*<caf/' --include='*.cpp' --include='*.hpp' \
           $(ls -d */ | grep -vE '^(actors|test|bench|build[^/]*)/$') || true)

[ "$status" -eq 0 ] && echo "check-layers: every include follows the layer rules"
exit "$status"
