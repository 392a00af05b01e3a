#!/usr/bin/env bash
# The manager's image as a cluster would run it: scripts/build-image.sh builds it, skopeo reads
# both the OCI layout and the docker archive, the layers (checked against their digests) are
# unpacked into a directory, and the binary runs from there under chroot as UID 65532, so only
# what the image holds is there: `--help`, then against kube-sim until /readyz answers and a
# Certification gets its finalizer. Needs root (chroot), skopeo and kubectl.
# Usage: image_test.sh <source dir> <nvcre-manager> <kube-sim>
set -euo pipefail
src=$1 manager=$2 kube_sim=$3

work=$(mktemp -d)
sim_pid=""
manager_pid=""
cleanup() {
  set +e
  [ -n "$manager_pid" ] && kill "$manager_pid" 2>/dev/null && wait "$manager_pid" 2>/dev/null
  [ -n "$sim_pid" ] && kill "$sim_pid" 2>/dev/null && wait "$sim_pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$src/scripts/build-image.sh" --binary "$manager" --out "$work/image" --name nvcre/manager:test

# skopeo reads the layout and the archive; the config says who runs what.
skopeo inspect "oci:$work/image/oci" > "$work/inspect.json"
skopeo inspect --config "oci:$work/image/oci" > "$work/config.json"
skopeo inspect "docker-archive:$work/image/nvcre-manager-image.tar" > "$work/inspect-archive.json"
tar -xOf "$work/image/nvcre-manager-image.tar" ./manifest.json > "$work/archive-manifest.json"
python3 - "$work" <<'PY'
import json, sys
work = sys.argv[1]
inspect = json.load(open(f"{work}/inspect.json"))
config = json.load(open(f"{work}/config.json"))["config"]
archive = json.load(open(f"{work}/inspect-archive.json"))
tags = json.load(open(f"{work}/archive-manifest.json"))[0]["RepoTags"]
assert inspect["Os"] == "linux", inspect
assert len(inspect["Layers"]) == 1, inspect["Layers"]
assert config["User"] == "65532:65532", config
assert config["Entrypoint"] == ["/nvcre-manager"], config
assert archive["Digest"] and archive["Layers"], archive
assert tags == ["nvcre/manager:test"], tags
PY

# Unpack: index -> manifest -> layers, each blob checked against its digest.
blobs=$work/image/oci/blobs/sha256
digest_of() { python3 -c 'import json,sys; print(eval(sys.argv[2], {}, {"d": json.load(open(sys.argv[1]))}).split(":")[1])' "$@"; }
manifest=$(digest_of "$work/image/oci/index.json" 'd["manifests"][0]["digest"]')
root=$work/rootfs
mkdir -p "$root"
layers=$(python3 -c 'import json,sys; print(" ".join(l["digest"].split(":")[1] for l in json.load(open(sys.argv[1]))["layers"]))' "$blobs/$manifest")
for blob in "$manifest" $layers; do
  [ "$(sha256sum "$blobs/$blob" | cut -d' ' -f1)" = "$blob" ] || fail "blob $blob does not match its digest"
done
for layer in $layers; do tar -xzf "$blobs/$layer" -C "$root"; done

[ ! -e "$root/bin/sh" ] && [ ! -e "$root/usr/bin/sh" ] || fail "the image has a shell"
[ "$(stat -c %a "$root/tmp")" = 1777 ] || fail "/tmp is not mode 1777"
[ -x "$root/nvcre-manager" ] || fail "no /nvcre-manager"
# Nothing of the root filesystem is writable by the manager's user: only /tmp is.
writable=$(find "$root" -path "$root/tmp" -prune -o \( -perm -o+w -a ! -type l \) -print)
[ -z "$writable" ] || fail "world-writable outside /tmp: $writable"

run_image() { chroot --userspec=65532:65532 "$root" "$@"; }
run_image /nvcre-manager --help > "$work/help.txt" || fail "--help exited $?"
grep -q -- '--metrics-bind-address' "$work/help.txt" || fail "--help: $(cat "$work/help.txt")"
run_image /manager --help > /dev/null || fail "/manager does not run the manager"

# Against kube-sim: ready, and a Certification reconciled (its finalizer added).
"$kube_sim" --port 0 --crds "$src/deploy/crds" --cluster aws:h100:4 > "$work/sim.log" 2>&1 &
sim_pid=$!
for _ in $(seq 100); do grep -q 'listening on' "$work/sim.log" && break; sleep 0.1; done
url=$(sed -nE 's/.*listening on (http[^ ]*).*/\1/p' "$work/sim.log")
[ -n "$url" ] || fail "kube-sim did not start: $(cat "$work/sim.log")"
cat > "$root/tmp/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters: [{name: sim, cluster: {server: "$url"}}]
contexts: [{name: sim, context: {cluster: sim, user: u}}]
current-context: sim
users: [{name: u, user: {}}]
KC
chmod 644 "$root/tmp/kubeconfig"
probe_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# chroot itself in the background (not through run_image): $! is then the manager's own PID, which
# chroot execs into, so the cleanup stops the manager and not only a subshell around it.
chroot --userspec=65532:65532 "$root" /nvcre-manager --kubeconfig /tmp/kubeconfig \
  --health-probe-bind-address "127.0.0.1:$probe_port" > "$work/manager.log" 2>&1 &
manager_pid=$!
ready=""
for _ in $(seq 300); do
  if python3 -c 'import sys,urllib.request; sys.exit(0 if urllib.request.urlopen(sys.argv[1], timeout=2).status == 200 else 1)' \
       "http://127.0.0.1:$probe_port/readyz" 2>/dev/null; then ready=1; break; fi
  kill -0 "$manager_pid" 2>/dev/null || fail "the manager exited: $(cat "$work/manager.log")"
  sleep 0.1
done
[ -n "$ready" ] || fail "/readyz never answered 200: $(tail -20 "$work/manager.log")"

kubectl_sim() { kubectl --kubeconfig "$root/tmp/kubeconfig" --cache-dir "$work/cache" "$@"; }
kubectl_sim create namespace gpu-validation > /dev/null
kubectl_sim create -f "$src/examples/certification.yaml" > /dev/null
finalizer=""
for _ in $(seq 300); do
  finalizer=$(kubectl_sim get certification rack7-burnin -n gpu-validation \
                -o jsonpath='{.metadata.finalizers[0]}')
  [ -n "$finalizer" ] && break
  sleep 0.1
done
[ -n "$finalizer" ] || fail "the Certification was not reconciled: $(tail -20 "$work/manager.log")"
echo "PASS: image runs as 65532 from its own layers; reconciled (finalizer $finalizer)"
