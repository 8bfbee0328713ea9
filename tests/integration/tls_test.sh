#!/usr/bin/env bash
# Integration tests of transport security: a real fedmf-coordinator and fedmf-client processes on
# 127.0.0.1 with certificates made by deploy/gen-certs.sh in a temporary directory.
# Usage: tls_test.sh BUILD_DIR CASE, CASE one of
#   tls            server TLS: a stream client and a --one_stream_per_user client train 2 rounds;
#                  `status` works over TLS, plaintext clients and status are refused
#   mtls           mutual TLS: three client identities train 2 rounds, identities in the log;
#                  `status` answers the admin identity only
#   mtls_refusals  no client certificate, a certificate of another CA, a client trusting another
#                  CA, a revoked identity (listed at start and added while running; a connected
#                  client revoked loses its live stream; a client revoked between its
#                  registration and its stream cannot open it), one identity joining twice, a
#                  session token presented from another certificate: each refused, the
#                  coordinator unharmed
#   health         `fedmf-coordinator health` (grpc.health.v1 Check, what the probes run): SERVING
#                  over mutual TLS with the admin identity; refused without a client certificate;
#                  a clear UNAVAILABLE and a non-zero exit once nothing listens on the port
# Every process started here is killed on exit.
set -euo pipefail
BUILD="$1"
CASE="$2"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
COORD="$BUILD/server/fedmf-coordinator"
CLIENT="$BUILD/client/fedmf-client"
ATTACKER="$BUILD/tests/abuse/fedmf-attacker"
source "$ROOT/tools/lib/processes.sh"
processes_init tls
command -v openssl >/dev/null || { echo "SKIP: openssl not found"; exit 77; }
SMALL="synthetic:users=300,items=200,per_user=30,min_per_user=10"
CERTS="$WORK/certs"
"$ROOT/deploy/gen-certs.sh" "$CERTS" --host localhost --ip 127.0.0.1 --clients client-:3 \
  --client admin --client mallory >"$WORK/gen-certs.out" || fail "gen-certs.sh failed"
"$ROOT/deploy/gen-certs.sh" "$WORK/other-ca" --ip 127.0.0.1 --client client-0 >/dev/null ||
  fail "gen-certs.sh (second CA) failed"
SERVER_TLS=(--tls_cert="$CERTS/server.pem" --tls_key="$CERTS/server.key")
CA=(--tls_ca="$CERTS/ca.pem")
# identity ID: the client flags of a gen-certs.sh identity
identity() { echo "--tls_cert=$CERTS/clients/$1.pem --tls_key=$CERTS/clients/$1.key"; }

# client NAME FLAGS...: a client in the background, log $WORK/NAME.log, pid in LAST_PID.
client() {
  local name="$1"
  shift
  "$CLIENT" --coordinator="127.0.0.1:$PORT" --data="$SMALL" "$@" >"$WORK/$name.log" 2>&1 &
  LAST_PID=$!
  PIDS+=("$LAST_PID")
}
# refused NAME PATTERN: client NAME exited non-zero and its log matches PATTERN.
refused() {
  if wait "$2"; then fail "$1 was accepted"; fi
  grep -qE "$3" "$WORK/$1.log" || fail "$1: no '$3' in its log"
  echo "refused as expected: $1: $(grep -oE "$3" "$WORK/$1.log" | head -n 1)"
}
ROUNDS=(--eval_data="$SMALL" --rounds=2 --participation=0.1 --min_clients=20 --set=mechanism=none
  --set=item_model=full --set=compression=2 --eval_every=0 --wait_for_users=300)

case "$CASE" in
  tls)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${SERVER_TLS[@]}" "${ROUNDS[@]}"
    grep -q 'event=listening .*tls=server' "$WORK/coordinator.log" || fail "not listening with TLS"
    # A plaintext client cannot talk to a TLS port (it gives up after 3 s of failed connects).
    client plaintext --shard=0/2 --give_up_after_s=3
    refused plaintext "$LAST_PID" "UNAVAILABLE: giving up"
    # Status is queried while the coordinator waits for the stream client's 150 users (so the
    # count cannot change under it): the pool client's 150 streams are connected.
    client pool --shard=1/2 --one_stream_per_user --channels=2 --give_up_after_s=40 "${CA[@]}"
    pool_pid=$LAST_PID
    wait_for "$WORK/coordinator.log" "event=stream_open .*status=OK" 30 150
    "$COORD" status --target="127.0.0.1:$PORT" "${CA[@]}" >"$WORK/status.out" ||
      fail "status over TLS failed"
    grep -q "registered_users=150 connected_clients=150 " "$WORK/status.out" ||
      fail "status: $(cat "$WORK/status.out")"
    if "$COORD" status --target="127.0.0.1:$PORT" >"$WORK/plain-status.out" 2>&1; then
      fail "plaintext status was answered"
    fi
    client stream --shard=0/2 --give_up_after_s=40 "${CA[@]}" --tls_server_name=localhost
    stream_pid=$LAST_PID
    wait "$COORD_PID" || fail "coordinator failed"
    wait "$stream_pid" || fail "the stream client failed"
    wait "$pool_pid" || fail "the pool client failed"
    grep -q 'event=training_end rounds=2 ' "$WORK/coordinator.log" || fail "not 2 rounds"
    grep -q 'event=client_start .*tls=server' "$WORK/stream.log" || fail "client not on TLS"
    echo "2 rounds over TLS: $(grep -c 'event=stream_open .*status=OK' "$WORK/coordinator.log") streams"
    ;;

  mtls)
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${SERVER_TLS[@]}" \
      --tls_client_ca="$CERTS/ca.pem" --max_streams_per_identity=150 "${ROUNDS[@]}"
    grep -q 'event=listening .*tls=mutual' "$WORK/coordinator.log" || fail "not mutual TLS"
    pids=()
    # client-2 hosts its users on one stream each (one certificate, up to 150 streams). Status is
    # queried while the coordinator still waits for client-1's users: 101 streams, 200 users.
    for i in 0 2 1; do
      extra=()
      [[ $i == 2 ]] && extra=(--one_stream_per_user)
      # shellcheck disable=SC2046
      client "client-$i" --shard="$i/3" --give_up_after_s=40 "${CA[@]}" $(identity "client-$i") \
        "${extra[@]}"
      pids+=("$LAST_PID")
      [[ $i == 2 ]] || continue
      wait_for "$WORK/coordinator.log" "event=stream_open .*status=OK" 30 101
      # shellcheck disable=SC2046
      "$COORD" status --target="127.0.0.1:$PORT" "${CA[@]}" $(identity admin) \
        >"$WORK/status.out" || fail "status with a client certificate failed"
      grep -q "registered_users=200 connected_clients=101 " "$WORK/status.out" ||
        fail "status: $(cat "$WORK/status.out")"
      # A participant's certificate is not an admin identity (--admin_identities=admin).
      # shellcheck disable=SC2046
      if "$COORD" status --target="127.0.0.1:$PORT" "${CA[@]}" $(identity client-0) \
          >"$WORK/status-client.out" 2>&1; then
        fail "status with a participant's certificate was answered"
      fi
      grep -q "PERMISSION_DENIED.*'client-0' is not an admin identity" "$WORK/status-client.out" ||
        fail "status with a participant's certificate: $(cat "$WORK/status-client.out")"
      # ... nor may it submit or cancel runs; the admin identity passes (this one-shot
      # coordinator takes no submitted runs: UNIMPLEMENTED, after the identity check).
      printf 'algorithm: "dpmf-rp"\nrounds: 1\nnum_users: 200\nnum_items: 100\n' >"$WORK/run.textproto"
      for call in "submit $WORK/run.textproto" "cancel 1"; do
        # shellcheck disable=SC2046,SC2086
        if "$COORD" $call --target="127.0.0.1:$PORT" "${CA[@]}" $(identity client-0) \
            >"$WORK/run-client.out" 2>&1; then
          fail "$call with a participant's certificate was answered"
        fi
        grep -q "PERMISSION_DENIED.*'client-0' is not an admin identity" "$WORK/run-client.out" ||
          fail "$call with a participant's certificate: $(cat "$WORK/run-client.out")"
      done
      # shellcheck disable=SC2046
      if "$COORD" runs --target="127.0.0.1:$PORT" "${CA[@]}" $(identity admin) \
          >"$WORK/runs-admin.out" 2>&1; then
        fail "runs on a one-shot coordinator was answered"
      fi
      grep -q "UNIMPLEMENTED.*takes no submitted runs" "$WORK/runs-admin.out" ||
        fail "runs with the admin certificate: $(cat "$WORK/runs-admin.out")"
    done
    wait "$COORD_PID" || fail "coordinator failed"
    for pid in "${pids[@]}"; do wait "$pid" || fail "a client failed"; done
    grep -q 'event=training_end rounds=2 ' "$WORK/coordinator.log" || fail "not 2 rounds"
    for i in 0 1 2; do
      grep -q "event=stream_open .*identity=client-$i status=OK" "$WORK/coordinator.log" ||
        fail "no stream of identity client-$i"
    done
    echo "2 rounds over mutual TLS, identities: $(grep -o 'identity=[^ ]*' "$WORK/coordinator.log" | sort -u | tr '\n' ' ')"
    ;;

  mtls_refusals)
    echo "mallory" >"$WORK/revoked.txt"
    # The coordinator waits for users that never come: it only has to refuse the clients below.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${SERVER_TLS[@]}" \
      --tls_client_ca="$CERTS/ca.pem" --revoked_identities="$WORK/revoked.txt" \
      --num_users=300 --num_items=200 --rounds=1 --wait_for_users=300
    # Three clients whose handshakes fail retry until they give up (3 s): they run while the
    # cases below do, and are checked at the end. No client certificate:
    client no_cert --shard=0/3 --give_up_after_s=3 "${CA[@]}"
    no_cert_pid=$LAST_PID
    # A certificate signed by another CA (same identity name as a real one).
    client other_ca_cert --shard=0/3 --give_up_after_s=3 "${CA[@]}" \
      --tls_cert="$WORK/other-ca/clients/client-0.pem" --tls_key="$WORK/other-ca/clients/client-0.key"
    other_ca_cert_pid=$LAST_PID
    # A client that trusts another CA does not accept the coordinator's certificate.
    # shellcheck disable=SC2046
    client other_ca_server --shard=0/3 --give_up_after_s=3 --tls_ca="$WORK/other-ca/ca.pem" \
      $(identity client-0)
    other_ca_server_pid=$LAST_PID
    # A revoked identity is refused at registration, at once (no retries).
    # shellcheck disable=SC2046
    client revoked --shard=0/3 --give_up_after_s=30 "${CA[@]}" $(identity mallory)
    refused revoked "$LAST_PID" "PERMISSION_DENIED: identity 'mallory' is revoked"
    grep -q "event=register .*identity=mallory .*PERMISSION_DENIED" "$WORK/coordinator.log" ||
      fail "revocation not logged"
    # One identity joining twice: the second stream is refused while the first lives.
    # shellcheck disable=SC2046
    client first --shard=0/3 --give_up_after_s=30 "${CA[@]}" $(identity client-0)
    first_pid=$LAST_PID
    wait_for "$WORK/coordinator.log" "event=stream_open .*identity=client-0 status=OK" 10
    # shellcheck disable=SC2046
    client twice --shard=1/3 --give_up_after_s=4 "${CA[@]}" $(identity client-0)
    twice_pid=$LAST_PID
    wait_for "$WORK/coordinator.log" \
      "event=stream_open .*status=\"ALREADY_EXISTS: identity 'client-0' already has 1 live" 10
    refused twice "$twice_pid" "UNAVAILABLE: giving up .*ALREADY_EXISTS"
    # A session token opens a stream only from the certificate it was issued on (issue 48): one
    # registered by client-2, presented from client-1's certificate, is refused at open.
    # shellcheck disable=SC2046
    "$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$SMALL" --users=210 "${CA[@]}" \
      $(identity client-2) --stream_tls_cert="$CERTS/clients/client-1.pem" \
      --stream_tls_key="$CERTS/clients/client-1.key" >"$WORK/carried_token.log" 2>&1 &
    carried_pid=$!
    PIDS+=("$carried_pid")
    carried="the session token was issued on TLS identity 'client-2'"
    carried+=", not on this stream's 'client-1'"
    wait_for "$WORK/coordinator.log" \
      "event=stream_refused .*identity=client-1 reason=\"$carried\"" 10
    wait "$carried_pid" || fail "the attacker failed to run: $(tail -n 3 "$WORK/carried_token.log")"
    grep -q "event=attacker_stop .*code=7 status=\"$carried\"" "$WORK/carried_token.log" ||
      fail "carried token: $(tail -n 1 "$WORK/carried_token.log")"
    echo "refused as expected: a session token presented from another certificate"
    # Revoking while running: the file is re-read; client-1's next registration is refused.
    sleep 1.1  # the list is checked for changes at most once a second
    echo "client-1" >>"$WORK/revoked.txt"
    # shellcheck disable=SC2046
    client revoked_later --shard=1/3 --give_up_after_s=30 "${CA[@]}" $(identity client-1)
    refused revoked_later "$LAST_PID" "PERMISSION_DENIED: identity 'client-1' is revoked"
    grep -q 'event=revocation_list .*revoked_identities=2' "$WORK/coordinator.log" ||
      fail "the revocation file was not re-read"
    # Revoking a connected client ends its live stream, and its reconnection is refused: it exits.
    sleep 1.1
    echo "client-0" >>"$WORK/revoked.txt"
    wait_for "$WORK/coordinator.log" "event=stream_revoked identity=client-0 " 10
    refused first "$first_pid" "PERMISSION_DENIED: identity 'client-0' is revoked"
    # Revoked between its registration and its stream: the session token opens no stream.
    # shellcheck disable=SC2046
    "$ATTACKER" --coordinator="127.0.0.1:$PORT" --data="$SMALL" --users=200,201 "${CA[@]}" \
      $(identity client-2) --open_stream_after_file="$WORK/open-stream" \
      >"$WORK/late_stream.log" 2>&1 &
    late_pid=$!
    PIDS+=("$late_pid")
    wait_for "$WORK/late_stream.log" "event=registered " 10
    sleep 1.1  # the stream open re-reads the changed list: at most once a second
    echo "client-2" >>"$WORK/revoked.txt"
    touch "$WORK/open-stream"
    wait "$late_pid" || fail "the attacker failed to run: $(tail -n 3 "$WORK/late_stream.log")"
    grep -q "event=attacker_stop .*code=7 status=\"identity 'client-2' is revoked\"" \
      "$WORK/late_stream.log" || fail "stream of a revoked identity not refused at open"
    grep -q "event=stream_refused identity=client-2 " "$WORK/coordinator.log" ||
      fail "no stream_refused line for client-2"
    echo "refused as expected: a stream opened after its identity's revocation"
    refused no_cert "$no_cert_pid" "UNAVAILABLE: giving up"
    refused other_ca_cert "$other_ca_cert_pid" "UNAVAILABLE: giving up"
    refused other_ca_server "$other_ca_server_pid" "UNAVAILABLE: giving up"
    kill -0 "$COORD_PID" || fail "coordinator died"
    grep -q 'event=round ' "$WORK/coordinator.log" && fail "a round ran without its users"
    ;;

  health)
    # The coordinator waits for users that never come: the health service answers meanwhile.
    start_coordinator "$WORK/coordinator.log" --listen=127.0.0.1:0 "${SERVER_TLS[@]}" \
      --tls_client_ca="$CERTS/ca.pem" --num_users=300 --num_items=200 --rounds=1 \
      --wait_for_users=300
    # shellcheck disable=SC2046
    "$COORD" health --target="127.0.0.1:$PORT" "${CA[@]}" $(identity admin) \
      >"$WORK/health.out" 2>&1 || fail "health over mutual TLS failed: $(cat "$WORK/health.out")"
    grep -qx "127.0.0.1:$PORT: health status SERVING" "$WORK/health.out" ||
      fail "health: $(cat "$WORK/health.out")"
    echo "answered: $(cat "$WORK/health.out")"
    if "$COORD" health --target="127.0.0.1:$PORT" "${CA[@]}" >"$WORK/no-cert.out" 2>&1; then
      fail "health without a client certificate was answered"
    fi
    grep -q "no health answer: UNAVAILABLE" "$WORK/no-cert.out" ||
      fail "health without a client certificate: $(cat "$WORK/no-cert.out")"
    # Nothing listens on the port any more.
    kill -9 "$COORD_PID"
    wait "$COORD_PID" 2>/dev/null || true
    status=0
    # shellcheck disable=SC2046
    "$COORD" health --target="127.0.0.1:$PORT" "${CA[@]}" $(identity admin) \
      >"$WORK/closed.out" 2>&1 || status=$?
    ((status != 0)) || fail "health answered on a closed port: $(cat "$WORK/closed.out")"
    grep -q "^fedmf-coordinator: UNAVAILABLE: 127.0.0.1:$PORT: no health answer: UNAVAILABLE" \
      "$WORK/closed.out" || fail "closed port: $(cat "$WORK/closed.out")"
    echo "closed port, exit $status: $(head -n 1 "$WORK/closed.out")"
    ;;

  *) echo "unknown case $CASE"; exit 2 ;;
esac
echo "PASS $CASE"
