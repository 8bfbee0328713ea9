#!/usr/bin/env bash
# Offline checks of the deployment descriptions (no Docker daemon, no Kubernetes cluster).
# Usage: deploy/validate-config.sh compose|compose-scaleout|k8s|k8s-scaleout|replica-shards
#   compose         docker-compose config parses docker-compose.yml (with FEDMF_REPLICAS=50) and
#                   the services (the coordinator a --service, the run's submit), volumes and
#                   health check are there
#   compose-scaleout  the same with deploy/compose-scaleout.yml over it: the coordinator service a
#                   combiner, a `front` service the clients reach, the `front` identity
#   k8s             kubectl kustomize renders deploy/k8s; the expected objects (the --service
#                   Deployment, the run's ConfigMap and submit Job) are there; the
#                   Secrets of make-secrets.sh render from gen-certs.sh output (kubectl create
#                   --dry-run=client, offline)
#   k8s-scaleout    kubectl kustomize renders deploy/k8s/scaleout (docs/scale-out.md): the combiner
#                   StatefulSet (--role=combiner --service), the fronts' Deployment behind the
#                   devices' Service, the submit Job pointed at the combiner; the Secrets carry
#                   the `front` identity
#   replica-shards  40 client replicas started at once claim 40 distinct shards (client-replica.sh)
# Exit 77 (skip) with a message when docker-compose / kubectl is not installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d /tmp/fedmf-validate.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
need() {
  command -v "$1" >/dev/null && return 0
  echo "SKIP: $1 not installed (deploy/install-deps.sh installs docker-compose and kubectl)"
  exit 77
}

case "${1:-}" in
  compose)
    need docker-compose
    (cd "$ROOT" && FEDMF_REPLICAS=50 docker-compose -f docker-compose.yml config) >"$WORK/config.yml" ||
      fail "docker-compose config refused docker-compose.yml"
    for want in '^  certs:' '^  coordinator:' '^  submit:' '^  client:' '- --service$' \
      'fedmf-coordinator submit /tmp/run.textproto' '^  coordinator-state:' '^  claims:' \
      "FEDMF_REPLICAS: '50'" 'condition: service_healthy' 'condition: service_completed_successfully' \
      '--tls_client_ca=/certs/ca.pem' 'fedmf-client-replica' '^      - health$' \
      '--metrics_listen=0.0.0.0:9090'; do
      grep -qe "$want" "$WORK/config.yml" || fail "docker-compose config: no '$want'"
    done
    echo "docker-compose config: OK ($(docker-compose version --short 2>/dev/null || echo '?'))"
    ;;
  compose-scaleout)
    need docker-compose
    (cd "$ROOT" && FEDMF_REPLICAS=50 docker-compose -f docker-compose.yml \
      -f deploy/compose-scaleout.yml config) >"$WORK/config.yml" ||
      fail "docker-compose config refused docker-compose.yml + deploy/compose-scaleout.yml"
    for want in '^  front:' '- --role=combiner$' '- --role=front$' '- --service$' \
      '- --front_identities=front$' '- --combiner=coordinator:50051$' 'FEDMF_COORDINATOR: front:50051' \
      '--host front ' '--client front' '- --replica_tls_cert=/certs/clients/front.pem$'; do
      grep -qe "$want" "$WORK/config.yml" || fail "docker-compose config: no '$want'"
    done
    echo "docker-compose config (scale-out override): OK"
    ;;
  k8s)
    need kubectl
    kubectl kustomize "$ROOT/deploy/k8s" >"$WORK/k8s.yml" || fail "kubectl kustomize failed"
    for want in 'kind: Deployment' 'kind: StatefulSet' 'kind: PersistentVolumeClaim' \
      'kind: ConfigMap' 'name: fedmf-coordinator' 'claimName: fedmf-state' 'kind: Job' \
      'name: fedmf-run' '- --service$' 'fedmf-coordinator submit /etc/fedmf/run/run.textproto' \
      'value: hostname' 'secretName: fedmf-clients' '- health$' \
      'prometheus.io/scrape: "true"' 'prometheus.io/port: "9090"' 'containerPort: 9090' \
      '--metrics_listen=0.0.0.0:9090'; do
      grep -qe "$want" "$WORK/k8s.yml" || fail "kustomize output: no '$want'"
    done
    [[ "$(grep -c '^kind: Service$' "$WORK/k8s.yml")" == 2 ]] || fail "expected 2 Services"
    "$ROOT/deploy/gen-certs.sh" "$WORK/certs" --host fedmf-coordinator --clients client-:4 \
      --client admin >/dev/null || fail "gen-certs.sh failed"
    "$ROOT/deploy/k8s/make-secrets.sh" "$WORK/certs" token >"$WORK/secrets.yml" ||
      fail "make-secrets.sh failed"
    [[ "$(grep -c '^kind: Secret$' "$WORK/secrets.yml")" == 4 ]] || fail "expected 4 Secrets"
    grep -q '  client-3.pem: ' "$WORK/secrets.yml" || fail "no client-3.pem in fedmf-clients"
    ! grep -q 'ca.key' "$WORK/secrets.yml" || fail "the CA key leaked into a Secret"
    echo "kubectl kustomize + Secrets (client dry run): OK ($(kubectl version --client 2>/dev/null | head -n 1))"
    ;;
  k8s-scaleout)
    need kubectl
    kubectl kustomize "$ROOT/deploy/k8s/scaleout" >"$WORK/k8s.yml" || fail "kubectl kustomize failed"
    for want in 'name: fedmf-combiner$' 'name: fedmf-front$' 'kind: PodDisruptionBudget' \
      '- --role=combiner$' '- --role=front$' '- --service$' '- --front_identities=front$' \
      '- --combiner=fedmf-combiner-0.fedmf-combiner:50051$' 'volumeClaimTemplates:' \
      'value: fedmf-combiner-0.fedmf-combiner:50051$' 'key: front.pem' 'name: fedmf-client$'; do
      grep -qe "$want" "$WORK/k8s.yml" || fail "kustomize output: no '$want'"
    done
    # The devices' Service keeps its name and selects the fronts; no single coordinator is left.
    python3 - "$WORK/k8s.yml" <<'PY' || fail "Service fedmf-coordinator does not select the fronts"
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
svc = [d for d in docs if d["kind"] == "Service" and d["metadata"]["name"] == "fedmf-coordinator"]
sys.exit(0 if svc and svc[0]["spec"]["selector"].get("app.kubernetes.io/component") == "front" else 1)
PY
    [[ "$(grep -c '^kind: Deployment$' "$WORK/k8s.yml")" == 1 ]] || fail "expected 1 Deployment"
    "$ROOT/deploy/gen-certs.sh" "$WORK/certs" --host fedmf-coordinator \
      --host fedmf-combiner-0.fedmf-combiner --clients client-:4 --client admin --client front \
      >/dev/null || fail "gen-certs.sh failed"
    "$ROOT/deploy/k8s/make-secrets.sh" "$WORK/certs" token >"$WORK/secrets.yml" ||
      fail "make-secrets.sh failed"
    grep -q '  front.pem: ' "$WORK/secrets.yml" || fail "no front.pem in fedmf-clients"
    echo "kubectl kustomize deploy/k8s/scaleout + Secrets: OK"
    ;;
  replica-shards)
    n=40
    for ((r = 0; r < n; r++)); do
      FEDMF_REPLICAS=$n FEDMF_CLAIM_DIR="$WORK/claims" FEDMF_HOSTNAME="replica-$r" FEDMF_DRY_RUN=1 \
        FEDMF_CERTS="$WORK/none" "$ROOT/deploy/client-replica.sh" >"$WORK/replica-$r.out" 2>&1 &
    done
    wait
    shards="$(sed -n 's/.*--shard=\([0-9]*\)\/.*/\1/p' "$WORK"/replica-*.out | sort -n | uniq | wc -l)"
    [[ "$shards" == "$n" ]] || fail "$n replicas claimed $shards distinct shards"
    # A restarted replica (same host name) gets its shard back; one replica too many is refused.
    again="$(FEDMF_REPLICAS=$n FEDMF_CLAIM_DIR="$WORK/claims" FEDMF_HOSTNAME=replica-7 \
      FEDMF_DRY_RUN=1 FEDMF_CERTS="$WORK/none" "$ROOT/deploy/client-replica.sh")"
    grep -q -- "--name=$(sed -n 's/.*--name=\([^ ]*\).*/\1/p' "$WORK/replica-7.out") " <<<"$again " ||
      fail "replica-7 did not get its shard back: $again"
    if FEDMF_REPLICAS=$n FEDMF_CLAIM_DIR="$WORK/claims" FEDMF_HOSTNAME=extra FEDMF_DRY_RUN=1 \
      "$ROOT/deploy/client-replica.sh" >/dev/null 2>&1; then
      fail "replica $((n + 1)) of $n got a shard"
    fi
    echo "client-replica.sh: $n concurrent replicas, $n distinct shards: OK"
    ;;
  *) echo "usage: $0 compose|compose-scaleout|k8s|k8s-scaleout|replica-shards" >&2; exit 2 ;;
esac
echo "PASS ${1}"
