#!/usr/bin/env bash
# The manager's secure metrics endpoint (the default, --metrics-secure) against kube-sim enforcing
# RBAC: HTTPS with the self-signed certificate made at start, a scrape without a token is 401, one
# with a token the API server does not know is 401, a ServiceAccount token without `get /metrics`
# is 403, and one bound to deploy/'s nvcre-metrics-reader role gets 200 and the metrics. Then the
# same with --metrics-cert-path (the certificate given is the one served) and --metrics-secure=false
# (plain HTTP, no questions asked).
# Usage: secure_metrics_test.sh <source dir> <nvcre-manager> <kube-sim>
set -euo pipefail
src=$1 manager=$2 kube_sim=$3

work=$(mktemp -d)
pids=()
cleanup() {
  set +e
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

admin=admin-$RANDOM$RANDOM
# kube-sim over HTTPS with a throwaway certificate: kubectl sends bearer tokens over https only.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=kube-sim \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/sim.key" -out "$work/sim.crt" 2>/dev/null
"$kube_sim" --port 0 --crds "$src/deploy/crds" --authorization rbac --admin-token "$admin" \
  --tls-cert-file "$work/sim.crt" --tls-private-key-file "$work/sim.key" > "$work/sim.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q 'listening on' "$work/sim.log" && break; sleep 0.1; done
url=$(sed -nE 's/.*listening on (https?:[^ ]*).*/\1/p' "$work/sim.log")
[ -n "$url" ] || fail "kube-sim did not start: $(cat "$work/sim.log")"
kubeconfig() {  # kubeconfig <file> <token>
  printf 'apiVersion: v1\nkind: Config\nclusters: [{name: sim, cluster: {server: "%s", certificate-authority: "%s"}}]\n' \
    "$url" "$work/sim.crt" > "$1"
  printf 'contexts: [{name: sim, context: {cluster: sim, user: u}}]\ncurrent-context: sim\n' >> "$1"
  printf 'users: [{name: u, user: {token: "%s"}}]\n' "$2" >> "$1"
}
kubeconfig "$work/admin.kubeconfig" "$admin"
k() { kubectl --kubeconfig "$work/admin.kubeconfig" --cache-dir "$work/cache" "$@"; }

# deploy/'s metrics roles; two scrapers, one of them bound to the reader role.
k create namespace nvcre > /dev/null
k create namespace monitoring > /dev/null
k apply -f "$src/deploy/manager/metrics_roles.yaml" > /dev/null
k create serviceaccount prometheus -n monitoring > /dev/null
k create serviceaccount stranger -n monitoring > /dev/null
k apply -f - > /dev/null <<'YAML'
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: prometheus-metrics}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: nvcre-metrics-reader}
subjects: [{kind: ServiceAccount, name: prometheus, namespace: monitoring}]
YAML
reader=$(k create token prometheus -n monitoring)
stranger=$(k create token stranger -n monitoring)

start_manager() {  # start_manager <log> <args...>: the manager with the admin's credentials
  local log=$1; shift
  "$manager" --kubeconfig "$work/admin.kubeconfig" --health-probe-bind-address 127.0.0.1:0 "$@" \
    > /dev/null 2> "$log" &
  pids+=($!)
}

# scrape <scheme> <port> [token] -> "<status> <first line of the body>"
scrape() {
  python3 - "$@" <<'PY'
import ssl, sys, time, urllib.error, urllib.request
scheme, port = sys.argv[1], sys.argv[2]
request = urllib.request.Request(f"{scheme}://127.0.0.1:{port}/metrics")
if len(sys.argv) > 3:
    request.add_header("Authorization", "Bearer " + sys.argv[3])
context = ssl._create_unverified_context() if scheme == "https" else None
for attempt in range(100):  # the listener comes up while the manager starts
    try:
        with urllib.request.urlopen(request, context=context, timeout=10) as answer:
            body = answer.read().decode()
            # Families appear with their first sample: a scrape in the first moments of a slow
            # start (a sanitized build) may find none yet, so ask again.
            if not body and attempt < 99:
                time.sleep(0.1)
                continue
            print(answer.status, "nvcre_" in body and "metrics" or body[:80])
            break
    except urllib.error.HTTPError as error:
        print(error.code, error.read().decode().strip())
        break
    except (ConnectionError, urllib.error.URLError):
        time.sleep(0.1)
else:
    print("no answer")
PY
}
expect() {  # expect <what> <actual> <expected>
  [ "$2" = "$3" ] || fail "$1: got \"$2\", want \"$3\""
  echo "ok: $1: $2"
}

port=$(free_port)
start_manager "$work/secure.log" --metrics-bind-address "127.0.0.1:$port"
expect "no token" "$(scrape https "$port")" "401 Unauthorized"
expect "unknown token" "$(scrape https "$port" not-a-token)" "401 Unauthorized"
expect "token without get /metrics" "$(scrape https "$port" "$stranger")" \
  "403 Authorization denied for user system:serviceaccount:monitoring:stranger"
expect "metrics reader" "$(scrape https "$port" "$reader")" "200 metrics"
expect "plain HTTP to the HTTPS port" "$(scrape http "$port" "$reader")" "no answer"
# The self-signed certificate names 127.0.0.1.
openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | openssl x509 -noout -ext subjectAltName \
  | grep -q 'IP Address:127.0.0.1' || fail "the self-signed certificate does not name 127.0.0.1"

# --metrics-cert-path: the given certificate is served.
mkdir -p "$work/certs"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=given-metrics \
  -keyout "$work/certs/key.pem" -out "$work/certs/cert.pem" 2>/dev/null
port=$(free_port)
start_manager "$work/given.log" --metrics-bind-address "127.0.0.1:$port" \
  --metrics-cert-path "$work/certs" --metrics-cert-name cert.pem --metrics-cert-key key.pem
expect "metrics reader, given certificate" "$(scrape https "$port" "$reader")" "200 metrics"
openssl s_client -connect "127.0.0.1:$port" </dev/null 2>/dev/null | openssl x509 -noout -subject \
  | grep -q 'CN *= *given-metrics' || fail "the certificate in --metrics-cert-path is not served"

# A missing certificate stops the manager with the file named.
if "$manager" --kubeconfig "$work/admin.kubeconfig" --health-probe-bind-address 127.0.0.1:0 \
     --metrics-bind-address 127.0.0.1:0 --metrics-cert-path "$work/nowhere" 2> "$work/bad.log"; then
  fail "a missing --metrics-cert-path was accepted"
fi
grep -q "Error: --metrics-cert-path: cannot load the certificate $work/nowhere/tls.crt" "$work/bad.log" \
  || fail "missing certificate: $(cat "$work/bad.log")"

# --metrics-secure=false: plain HTTP, no token needed.
port=$(free_port)
start_manager "$work/plain.log" --metrics-bind-address "127.0.0.1:$port" --metrics-secure=false
expect "plain HTTP without a token" "$(scrape http "$port")" "200 metrics"
echo "PASS"
