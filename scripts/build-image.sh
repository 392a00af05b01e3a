#!/usr/bin/env bash
# Builds the OCI image of nvcre-manager without a container daemon: the script writes the image
# itself, as an OCI image layout directory (oci-layout, index.json, blobs/sha256/: config, manifest
# and one gzipped layer) and as an archive that `docker load` and `podman load` read (the same
# blobs plus Docker's manifest.json).
#
# The image holds the binary, every shared library `ldd` names plus the dynamic loader (the manager
# links CAF, Boost, OpenSSL, yaml-cpp, RE2 and jemalloc dynamically; a static glibc would break
# getaddrinfo, so the libraries travel with it instead), /etc/passwd and /etc/group naming UID
# 65532, the CA bundle, and an empty /tmp (mode 1777): no shell, nothing else. It runs as
# 65532:65532 with entrypoint /nvcre-manager; /manager links to it so a Deployment written for
# NVCRE's image (command: [/manager]) works too. Layers are reproducible: sorted entries, owner
# 0:0, mtime 0, gzip without a timestamp.
#
# Usage: scripts/build-image.sh [--binary PATH] [--out DIR] [--name REPO:TAG]
#   --binary  the nvcre-manager to package (default: build/manager/nvcre-manager)
#   --out     output directory (default: build/image): oci/ and nvcre-manager-image.tar
#   --name    image name (default: nvcre/manager:latest, the image deploy/ names)
# Check it with `skopeo inspect oci:build/image/oci`; load it with
# `docker load -i build/image/nvcre-manager-image.tar` (or podman load).
set -euo pipefail
cd "$(dirname "$0")/.."

binary=build/manager/nvcre-manager
out=build/image
name=nvcre/manager:latest
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --name) name=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-image: unknown argument \"$1\" (see --help)" >&2; exit 2 ;;
  esac
done
if [ ! -x "$binary" ]; then
  echo "build-image: $binary is not an executable; build it first (scripts/build.sh, or" \
       "cmake --build build --target nvcre-manager) or pass --binary PATH" >&2
  exit 1
fi
case "$name" in
  *:*) tag=${name##*:} ;;
  *) tag=latest; name=$name:latest ;;
esac
version=$(sed -nE 's/^project\(nvcre VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
arch=$(uname -m)
case "$arch" in
  x86_64) oci_arch=amd64 ;;
  aarch64) oci_arch=arm64 ;;
  *) oci_arch=$arch ;;
esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
mkdir -p "$root/etc" "$root/tmp"
chmod 1777 "$root/tmp"

install -m 0755 "$binary" "$root/nvcre-manager"
# Debug info stays in the build tree (a RelWithDebInfo binary is ~10x larger with it); the symbol
# table stays, so stack traces still name functions.
strip --strip-debug "$root/nvcre-manager"
ln -s nvcre-manager "$root/manager"

# Every library the binary needs, at the path the loader looks for it, and the loader itself at
# the path the binary's PT_INTERP names (resolving symlinks such as /lib64 -> /lib/x86_64-...).
copy_file() {  # copy_file <absolute path>: the file's content at that path inside the image
  local path=$1
  mkdir -p "$root$(dirname "$path")"
  cp -L "$path" "$root$path"
}
ldd_output=$(ldd "$binary")
if grep -q 'not found' <<<"$ldd_output"; then
  echo "build-image: $binary needs libraries this machine does not have:" >&2
  grep 'not found' <<<"$ldd_output" >&2
  exit 1
fi
while read -r path; do
  copy_file "$path"
done < <(awk '/=> \// { print $3 } /^[[:space:]]*\/[^ ]*ld-linux/ { print $1 }' <<<"$ldd_output")
interpreter=$(readelf -l "$binary" | sed -nE 's/.*Requesting program interpreter: (.*)\]/\1/p')
[ -n "$interpreter" ] && [ ! -e "$root$interpreter" ] && copy_file "$interpreter"

printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
  > "$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' > "$root/etc/group"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  mkdir -p "$root/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
fi
find "$root" -exec touch -h -d @0 {} +

# The layer, then config, manifest and index, each a blob named by its sha256.
blobs=$out/oci/blobs/sha256
rm -rf "$out/oci" "$out/nvcre-manager-image.tar"
mkdir -p "$blobs"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 --format=posix \
    --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime \
    -C "$root" -cf "$work/layer.tar" .
diff_id=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
gzip -n -9 -c "$work/layer.tar" > "$work/layer.tar.gz"
layer_digest=$(sha256sum "$work/layer.tar.gz" | cut -d' ' -f1)
layer_size=$(stat -c %s "$work/layer.tar.gz")
mv "$work/layer.tar.gz" "$blobs/$layer_digest"

blob() {  # blob <file>: moves it into blobs/ and prints "<digest> <size>"
  local digest size
  digest=$(sha256sum "$1" | cut -d' ' -f1)
  size=$(stat -c %s "$1")
  mv "$1" "$blobs/$digest"
  echo "$digest $size"
}

printf '%s' '{"created":"1970-01-01T00:00:00Z","architecture":"'"$oci_arch"'","os":"linux",'\
'"config":{"User":"65532:65532","Entrypoint":["/nvcre-manager"],"WorkingDir":"/",'\
'"Env":["PATH=/"],"Labels":{"org.opencontainers.image.title":"nvcre-manager",'\
'"org.opencontainers.image.version":"'"$version"'"}},'\
'"rootfs":{"type":"layers","diff_ids":["sha256:'"$diff_id"'"]},'\
'"history":[{"created":"1970-01-01T00:00:00Z","created_by":"scripts/build-image.sh"}]}' \
  > "$work/config.json"
read -r config_digest config_size < <(blob "$work/config.json")

printf '%s' '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",'\
'"config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:'"$config_digest"'","size":'"$config_size"'},'\
'"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:'"$layer_digest"'","size":'"$layer_size"'}]}' \
  > "$work/manifest.json"
read -r manifest_digest manifest_size < <(blob "$work/manifest.json")

printf '%s' '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",'\
'"manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:'"$manifest_digest"'","size":'"$manifest_size"','\
'"annotations":{"org.opencontainers.image.ref.name":"'"$tag"'","io.containerd.image.name":"'"$name"'"}}]}' \
  > "$out/oci/index.json"
printf '%s' '{"imageLayoutVersion":"1.0.0"}' > "$out/oci/oci-layout"

# docker load / podman load: Docker's manifest.json beside the OCI layout, in one tar.
mkdir -p "$work/archive"
cp -r "$out/oci/." "$work/archive/"
printf '%s' '[{"Config":"blobs/sha256/'"$config_digest"'","RepoTags":["'"$name"'"],'\
'"Layers":["blobs/sha256/'"$layer_digest"'"]}]' > "$work/archive/manifest.json"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@0 -C "$work/archive" \
    -cf "$out/nvcre-manager-image.tar" .

echo "build-image: $name (sha256:$manifest_digest), layer $((layer_size / 1024)) KiB"
echo "  OCI layout:     $out/oci  (skopeo inspect oci:$out/oci)"
echo "  docker archive: $out/nvcre-manager-image.tar  (docker load -i ...)"
