#!/usr/bin/env bash
# Remakes the fixture in this directory: a database made by the previous release (commit 9f4a691,
# before the signer process existed), with one wallet of each type, each of which signed a message.
#
#   TEST_DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test apps/api/src/custody/previous-release/make-fixture.sh
#
# It checks out that commit in a temporary git worktree, installs it (npm ci), starts its service
# with `npm start` in local mode on a scratch PostgreSQL database and a temporary DATA_DIR, creates an
# API key with its CLI, five wallets and five signatures over REST, stops it, and writes here:
#   dump.sql       pg_dump --inserts --no-owner --no-privileges of that database (plain SQL)
#   keks.json      that release's DATA_DIR/keks.json: the generated user- and service-share KEKs
#   wallets.json   the API key, and each wallet's id, address, public key, message and signature
# The worktree, the database and the data directory are removed again. Needs git, npm, curl, jq,
# psql and pg_dump. The keys in these files are throwaway local test keys.
# PREVIOUS_RELEASE_DIR=<an installed checkout of 9f4a691> skips the worktree and its npm ci.
set -euo pipefail

PREVIOUS=9f4a691
HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(git -C "$HERE" rev-parse --show-toplevel)
SERVER=${TEST_DATABASE_URL:?set TEST_DATABASE_URL to a PostgreSQL server (any database on it)}
PORT=${FIXTURE_PORT:-18931}
WORK=$(mktemp -d)
WORKTREE=${PREVIOUS_RELEASE_DIR:-$WORK/release}
DATA="$WORK/data"
DB="prev_release_fixture_$$"
DB_URL="${SERVER%/*}/$DB"
SERVICE_PID=

cleanup() {
  [ -n "$SERVICE_PID" ] && kill "$SERVICE_PID" 2>/dev/null || true
  psql -q "$SERVER" -c "DROP DATABASE IF EXISTS \"$DB\" WITH (FORCE)" || true
  [ -z "${PREVIOUS_RELEASE_DIR:-}" ] && git -C "$REPO" worktree remove --force "$WORKTREE" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${PREVIOUS_RELEASE_DIR:-}" ]; then
  git -C "$REPO" worktree add --detach "$WORKTREE" "$PREVIOUS"
  (cd "$WORKTREE" && npm ci --no-audit --no-fund)
fi
[ "$(git -C "$WORKTREE" rev-parse HEAD)" = "$(git -C "$REPO" rev-parse "$PREVIOUS")" ] || { echo "$WORKTREE is not $PREVIOUS" >&2; exit 1; }
psql -q "$SERVER" -c "CREATE DATABASE \"$DB\""

export APP_ENV=local DATA_DIR="$DATA" DATABASE_URL="$DB_URL" LOCAL_DEVNETS=off CONSOLE=off
mkdir -p "$DATA"
# `npm start` execs node: the pid of the process npm started is the service's once it listens.
(cd "$WORKTREE" && PORT="$PORT" exec npm start >"$WORK/service.log" 2>&1) &
SERVICE_PID=$!
for _ in $(seq 1 240); do
  grep -q 'wallet service listening' "$WORK/service.log" && break
  sleep 0.5
done
grep -q 'wallet service listening' "$WORK/service.log" || { cat "$WORK/service.log"; exit 1; }

KEYS=$(cd "$WORKTREE" && npm run --silent keys -- create --partner previous-release)
KEY=$(jq -er .apiKey <<<"$KEYS")
API="http://127.0.0.1:$PORT/v1"
api() { curl -sf -H "X-API-Key: $KEY" -H 'content-type: application/json' "$@"; }

WALLETS='[]'
for TYPE in EVM COSMOS SOLANA STELLAR SUI; do
  WALLET=$(api -X POST "$API/wallets" -d "{\"type\":\"$TYPE\",\"userIdentifier\":\"previous-release-$TYPE\",\"userIdentifierType\":\"CUSTOM_ID\"}")
  ID=$(jq -er .id <<<"$WALLET")
  MESSAGE="signed by the previous release ($TYPE)"
  SIGNED=$(api -X POST "$API/wallets/$ID/sign-message" -d "$(jq -n --arg m "$MESSAGE" '{message: $m}')")
  WALLETS=$(jq --argjson w "$WALLET" --argjson s "$SIGNED" --arg m "$MESSAGE" \
    '. + [{type: $w.type, id: $w.id, address: $w.address, publicKey: $w.publicKey, message: $m, signature: $s.signature}]' <<<"$WALLETS")
done

kill "$SERVICE_PID"
wait "$SERVICE_PID" 2>/dev/null || true
SERVICE_PID=

pg_dump --inserts --no-owner --no-privileges --format=plain "$DB_URL" >"$HERE/dump.sql"
cp "$DATA/keks.json" "$HERE/keks.json"
jq -n --arg commit "$(git -C "$REPO" rev-parse "$PREVIOUS")" --argjson keys "$KEYS" --argjson wallets "$WALLETS" \
  '{release: $commit, apiKey: $keys.apiKey, partnerId: $keys.partnerId, projectId: $keys.projectId, wallets: $wallets}' >"$HERE/wallets.json"
echo "fixture written to $HERE" >&2
