#!/usr/bin/env bash
# Makes the TLS material of a fedmf deployment with the openssl CLI: a CA, the coordinator's
# certificate (SAN: every --host name and --ip address) and one client certificate per --client
# identity (CN = the identity the coordinator sees under mutual TLS). ECDSA P-256 keys, PEM files.
#
# Usage: deploy/gen-certs.sh OUT_DIR [--host NAME]... [--ip ADDR]... [--client ID]...
#                            [--clients PREFIX:N] [--days N] [--force]
#   --host/--ip     names in the server certificate (default: --host localhost --ip 127.0.0.1)
#   --client ID     a client certificate OUT_DIR/clients/ID.pem + ID.key (repeatable)
#   --clients P:N   clients P0 .. P(N-1), e.g. client-:50 for client-0 .. client-49
#   --days N        validity (default 825)
#   --force         replace existing files (default: keep them; an existing CA signs new ones)
# Files: ca.pem (give to every party), ca.key (keep offline), server.pem, server.key,
# clients/ID.pem, clients/ID.key. A second CA for refusal tests: run again with another OUT_DIR.
set -euo pipefail

usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
[[ $# -ge 1 && "$1" != -* ]] || usage
OUT="$1"
shift
HOSTS=()
IPS=()
CLIENTS=()
DAYS=825
FORCE=false
while [[ $# -gt 0 ]]; do
  case "$1" in
    --host) HOSTS+=("$2"); shift 2 ;;
    --ip) IPS+=("$2"); shift 2 ;;
    --client) CLIENTS+=("$2"); shift 2 ;;
    --clients)
      prefix="${2%:*}"
      count="${2##*:}"
      [[ "$count" =~ ^[0-9]+$ ]] || { echo "gen-certs: --clients wants PREFIX:N, got '$2'" >&2; exit 2; }
      for ((i = 0; i < count; i++)); do CLIENTS+=("$prefix$i"); done
      shift 2 ;;
    --days) DAYS="$2"; shift 2 ;;
    --force) FORCE=true; shift ;;
    *) echo "gen-certs: unknown argument '$1'" >&2; usage ;;
  esac
done
if [[ ${#HOSTS[@]} -eq 0 && ${#IPS[@]} -eq 0 ]]; then
  HOSTS=(localhost)
  IPS=(127.0.0.1)
fi
command -v openssl >/dev/null || { echo "gen-certs: openssl not found (apt-get install openssl)" >&2; exit 1; }
for id in "${CLIENTS[@]}"; do
  [[ "$id" =~ ^[A-Za-z0-9._-]+$ ]] ||
    { echo "gen-certs: client identity '$id' must match [A-Za-z0-9._-]+" >&2; exit 2; }
done

mkdir -p "$OUT/clients"
umask 077  # keys readable by the owner only
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT

newkey() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
needed() { $FORCE || [[ ! -s "$1" ]]; }

# sign NAME KEY CERT EXTENSIONS: a certificate for KEY with subject CN=NAME, signed by the CA.
sign() {
  local name="$1" key="$2" cert="$3" ext="$4"
  printf '%s\n' "$ext" >"$TMP/ext.cnf"
  openssl req -new -key "$key" -subj "/O=fedmf/CN=$name" -out "$TMP/req.csr" 2>/dev/null
  openssl x509 -req -in "$TMP/req.csr" -CA "$OUT/ca.pem" -CAkey "$OUT/ca.key" -CAcreateserial \
    -CAserial "$OUT/ca.srl" -days "$DAYS" -sha256 -extfile "$TMP/ext.cnf" -out "$cert" 2>/dev/null
  chmod 644 "$cert"
}

if needed "$OUT/ca.pem"; then
  newkey "$OUT/ca.key"
  openssl req -x509 -new -key "$OUT/ca.key" -subj "/O=fedmf/CN=fedmf CA" -days "$DAYS" -sha256 \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -out "$OUT/ca.pem" 2>/dev/null
  chmod 644 "$OUT/ca.pem"
  echo "gen-certs: CA $OUT/ca.pem"
fi

san=""
for h in "${HOSTS[@]}"; do san+="${san:+,}DNS:$h"; done
for ip in "${IPS[@]}"; do san+="${san:+,}IP:$ip"; done
if needed "$OUT/server.pem"; then
  newkey "$OUT/server.key"
  sign "${HOSTS[0]:-${IPS[0]}}" "$OUT/server.key" "$OUT/server.pem" \
    "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=$san"
  echo "gen-certs: server $OUT/server.pem ($san)"
fi

for id in "${CLIENTS[@]}"; do
  needed "$OUT/clients/$id.pem" || continue
  newkey "$OUT/clients/$id.key"
  sign "$id" "$OUT/clients/$id.key" "$OUT/clients/$id.pem" \
    "basicConstraints=critical,CA:FALSE
keyUsage=critical,digitalSignature
extendedKeyUsage=clientAuth
subjectAltName=DNS:$id"
done
[[ ${#CLIENTS[@]} -eq 0 ]] || echo "gen-certs: ${#CLIENTS[@]} client certificates in $OUT/clients"
