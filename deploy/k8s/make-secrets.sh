#!/usr/bin/env bash
# Prints the Secrets of deploy/k8s as YAML (offline: kubectl create --dry-run=client) from a
# directory made by deploy/gen-certs.sh, plus the enrollment token. Apply with kubectl apply -f -.
#   deploy/gen-certs.sh certs --host fedmf-coordinator --host fedmf-coordinator.NAMESPACE.svc \
#     --clients client-:4 --client admin
#   deploy/k8s/make-secrets.sh certs TOKEN | kubectl apply -f -
# Secrets: fedmf-ca (ca.pem: everyone), fedmf-server (server.pem, server.key: the coordinator
# only), fedmf-clients (clients/*: the client pods, and admin.* for the coordinator's probe),
# fedmf-enrollment (token). ca.key is never put in the cluster.
set -euo pipefail
[[ $# -eq 2 ]] || { sed -n '2,10p' "$0" >&2; exit 2; }
DIR="$1"
TOKEN="$2"
for f in ca.pem server.pem server.key clients/admin.pem; do
  [[ -f "$DIR/$f" ]] || { echo "make-secrets: $DIR/$f missing (run deploy/gen-certs.sh)" >&2; exit 1; }
done
k() { kubectl create secret generic "$@" --dry-run=client -o yaml; echo "---"; }
k fedmf-ca --from-file=ca.pem="$DIR/ca.pem"
k fedmf-server --from-file=server.pem="$DIR/server.pem" --from-file=server.key="$DIR/server.key"
k fedmf-clients --from-file="$DIR/clients"
kubectl create secret generic fedmf-enrollment --from-literal=token="$TOKEN" --dry-run=client -o yaml
