#!/usr/bin/env bash
# Entry point of a fedmf-client replica in a container (docker-compose.yml, deploy/k8s): finds
# this replica's shard i of FEDMF_REPLICAS, then runs fedmf-client --shard=i/N with TLS from the
# mounted certificates. The shard comes from, in this order:
#   FEDMF_SHARD=i            set explicitly
#   FEDMF_SHARD_FROM=hostname  the trailing number of the host name (a Kubernetes StatefulSet pod
#                            fedmf-client-7 is shard 7)
#   FEDMF_CLAIM_DIR=DIR      a directory shared by the replicas (compose --scale): the replica
#                            claims the lowest free shard by creating DIR/shard-i atomically
#                            (mkdir) and writing its host name there; a restarted container (same
#                            host name) finds its claim again. `docker-compose down -v` clears it.
# Environment: FEDMF_REPLICAS (N, required), FEDMF_COORDINATOR (host:port), FEDMF_DATA,
# FEDMF_ENROLLMENT_TOKEN, FEDMF_CERTS (directory from deploy/gen-certs.sh: TLS when it holds
# ca.pem; mutual TLS with client-i.pem/.key from FEDMF_CLIENT_CERTS, default FEDMF_CERTS/clients,
# when FEDMF_MTLS=1), FEDMF_TLS_SERVER_NAME.
# Extra arguments go to fedmf-client. FEDMF_DRY_RUN=1 prints the command instead of running it.
set -euo pipefail
N="${FEDMF_REPLICAS:?set FEDMF_REPLICAS to the number of client replicas}"
[[ "$N" =~ ^[1-9][0-9]*$ ]] || { echo "client-replica: FEDMF_REPLICAS='$N' is not a count" >&2; exit 2; }
host="${FEDMF_HOSTNAME:-$(hostname)}"  # FEDMF_HOSTNAME: for tests of the claims

# Builtins only, except one mkdir per free-looking shard: N replicas starting at once on a busy
# node must not fork N^2 processes between them.
claim() {
  local dir="$1" i owner
  mkdir -p "$dir"
  for ((i = 0; i < N; i++)); do  # our own claim first (a restart)
    owner=""
    { read -r owner <"$dir/shard-$i/owner"; } 2>/dev/null || true
    if [[ "$owner" == "$host" ]]; then echo "$i"; return 0; fi
  done
  for ((i = 0; i < N; i++)); do
    [[ -e "$dir/shard-$i" ]] && continue  # claimed by another replica
    if mkdir "$dir/shard-$i" 2>/dev/null; then
      echo "$host" >"$dir/shard-$i/owner"
      echo "$i"
      return 0
    fi
  done
  echo "client-replica: all $N shards in $dir are claimed (more replicas than FEDMF_REPLICAS?)" >&2
  return 1
}

if [[ -n "${FEDMF_SHARD:-}" ]]; then
  shard="$FEDMF_SHARD"
elif [[ "${FEDMF_SHARD_FROM:-}" == hostname ]]; then
  [[ "$host" =~ -([0-9]+)$ ]] || { echo "client-replica: host name '$host' has no ordinal" >&2; exit 2; }
  shard="${BASH_REMATCH[1]}"
elif [[ -n "${FEDMF_CLAIM_DIR:-}" ]]; then
  shard="$(claim "$FEDMF_CLAIM_DIR")"
else
  echo "client-replica: set FEDMF_SHARD, FEDMF_SHARD_FROM=hostname or FEDMF_CLAIM_DIR" >&2
  exit 2
fi
[[ "$shard" =~ ^[0-9]+$ && "$shard" -lt "$N" ]] ||
  { echo "client-replica: shard '$shard' is not in [0, $N)" >&2; exit 2; }

args=(--coordinator="${FEDMF_COORDINATOR:-coordinator:50051}" --data="${FEDMF_DATA:-synthetic}"
  --shard="$shard/$N" --name="client-$shard")
[[ -n "${FEDMF_ENROLLMENT_TOKEN:-}" ]] && args+=(--enrollment_token="$FEDMF_ENROLLMENT_TOKEN")
certs="${FEDMF_CERTS:-/certs}"
if [[ -f "$certs/ca.pem" ]]; then
  args+=(--tls_ca="$certs/ca.pem")
  [[ -n "${FEDMF_TLS_SERVER_NAME:-}" ]] && args+=(--tls_server_name="$FEDMF_TLS_SERVER_NAME")
  if [[ "${FEDMF_MTLS:-0}" == 1 ]]; then
    ids="${FEDMF_CLIENT_CERTS:-$certs/clients}"
    [[ -f "$ids/client-$shard.pem" ]] ||
      { echo "client-replica: no certificate $ids/client-$shard.pem" >&2; exit 2; }
    args+=(--tls_cert="$ids/client-$shard.pem" --tls_key="$ids/client-$shard.key")
  fi
fi
if [[ "${FEDMF_DRY_RUN:-0}" == 1 ]]; then
  echo "fedmf-client ${args[*]} $*"
  exit 0
fi
exec fedmf-client "${args[@]}" "$@"
