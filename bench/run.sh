#!/usr/bin/env bash
# deskgraph benchmark: seeds PostgreSQL (and optionally SQLite), starts the release server and the floor,
# drives each scenario with wrk, and writes target/bench/results.{json,md}. Not part of `cargo test`/CI.
#
#   bench/run.sh
#
# Environment (all optional):
#   PG_URL=postgres://postgres@127.0.0.1:5432   server URL; the script (re)creates database deskgraph_bench
#   TICKETS=100000  USERS=1000  PROJECTS=20  COMMENTS=3   seed size
#   DURATION=10s  WARMUP=3s  CONNS=32  THREADS=2            wrk settings per scenario
#   SQLITE=1        also run the read scenarios on SQLite (seeded the same way)
#   SKIP_BUILD=1    reuse the existing release binaries
#   POOL=8          database connections for deskgraph and the floor
#   BIN=…  FLOOR_BIN=…  other binaries (e.g. BIN=target/debug/deskgraph to smoke-test the harness itself)
#   SEED_ARGS="--open-share 0.1 --sla-policies"   more `deskgraph seed` options (a tenth open, SLA clocks)
#   DB_NAME=deskgraph_bench   the PostgreSQL database to (re)create
#   REUSE_DB=1      keep DB_NAME as a previous run left it (no drop, no seed): paired runs at a size that
#                   takes long to seed; the writes of earlier runs stay in it
#   ONLY=regex      run only the scenarios whose name matches (e.g. ONLY='create|update|rest_detail'); the floor always runs
#   MAIL_MESSAGES=5000  MAIL_PARALLEL=8   the mail-in scenario (bench/mail.py)
#   TRIGGERS_MATCHING=5   how many of the 200 triggers of the *_triggers scenarios match each write (bench/triggers.py)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/target/bench
mkdir -p "$OUT"
PG_URL=${PG_URL:-postgres://postgres@127.0.0.1:5432}
TICKETS=${TICKETS:-100000}
USERS=${USERS:-1000}
PROJECTS=${PROJECTS:-20}
COMMENTS=${COMMENTS:-3}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-3s}
CONNS=${CONNS:-32}
THREADS=${THREADS:-2}
POOL=${POOL:-8}
DG_PORT=18091
FLOOR_PORT=18093
BIN=${BIN:-$ROOT/target/release/deskgraph}
FLOOR_BIN=${FLOOR_BIN:-$ROOT/target/floor/release/perf-floor}
PIDS=()

cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT

log() { echo "[bench] $*" >&2; }
# Never end silently: a step that fails says which one and why before `set -e` ends the run.
trap 'log "stopped: line $LINENO failed (exit $?): $BASH_COMMAND"' ERR

if ! command -v wrk >/dev/null; then
  log "installing wrk"
  apt-get install -y wrk >/dev/null || { echo "install wrk (apt-get install -y wrk)" >&2; exit 1; }
fi

if [ -z "${SKIP_BUILD:-}" ]; then
  log "building release binaries"
  (cd "$ROOT" && cargo build --release --bin deskgraph)
  (cd "$ROOT/bench/floor" && CARGO_TARGET_DIR=$ROOT/target/floor cargo build --release)
fi

wait_up() { # url
  for _ in $(seq 1 100); do curl -fs "$1" >/dev/null 2>&1 && return 0; sleep 0.2; done
  echo "server at $1 did not come up" >&2; exit 1
}

statements() { curl -fs "http://127.0.0.1:$DG_PORT/metrics" | awk '/^db_statements_total/ {print $2}' | tail -1; }

peak_rss_mb() { awk '/VmHWM/ {printf "%.1f", $2/1024}' "/proc/$1/status"; }

# CPU time in clock ticks: of process $1, and of every PostgreSQL process (its pooled backends live through
# a scenario). Per request, they are steadier than requests per second on a shared machine.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
# A process that exits while the files are read makes `cat` fail; that must not end the run (pipefail).
pg_ticks() { { cat /proc/[0-9]*/stat 2>/dev/null || true; } | awk '$2 == "(postgres)" {t += $14 + $15} END {print t + 0}'; }

RESULTS=$OUT/results.jsonl
: > "$RESULTS"

# scenario NAME SYSTEM PID URL TOKEN METHOD BODY IDS TYPE (see bench/wrk.lua for BODY alternatives, `@file`
# bodies, IDS and TYPE, the body's content type)
scenario() {
  local name=$1 system=$2 pid=$3 url=$4 token=$5 method=${6:-GET} body=${7:-} ids=${8:-}
  local type=${9:-application/json}
  if [ -n "${ONLY:-}" ] && [ "$system" != floor ] && ! [[ $name =~ $ONLY ]]; then return; fi
  local check first_body=${body%%||*} auth="Authorization: Bearer $token"
  # `cookie:NAME=VALUE`: a web page, with a session cookie (bench/wrk.lua does the same).
  [[ $token == cookie:* ]] && auth="Cookie: ${token#cookie:}"
  check=$(curl -s -o /dev/null -w '%{http_code}' -X "$method" -H "$auth" \
    -H "Content-Type: $type" ${first_body:+--data-binary "$first_body"} "$url")
  case $check in 2*) ;; *) log "$name on $system answers $check; skipped"; return ;; esac
  wrk -t"$THREADS" -c"$CONNS" -d"$WARMUP" -s "$ROOT/bench/wrk.lua" "$url" -- "$token" "$method" "$body" "$ids" \
    "$type" >/dev/null
  local before=0 after=0 cpu0 cpu1 pg0 pg1
  [ "$system" != floor ] && before=$(statements)
  cpu0=$(cpu_ticks "$pid") pg0=$(pg_ticks)
  local line
  line=$(wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$ROOT/bench/wrk.lua" "$url" \
    -- "$token" "$method" "$body" "$ids" "$type" 2>"$OUT/wrk-$name-$system.err" | sed -n 's/^RESULT //p' || true)
  if [ -z "$line" ]; then
    log "$name on $system: wrk printed no RESULT line (see $OUT/wrk-$name-$system.err); scenario skipped"
    return
  fi
  cpu1=$(cpu_ticks "$pid") pg1=$(pg_ticks)
  [ "$system" != floor ] && after=$(statements)
  local rss
  rss=$(peak_rss_mb "$pid")
  python3 - "$name" "$system" "$line" "$before" "$after" "$rss" "$((cpu1 - cpu0))" "$((pg1 - pg0))" \
    "$(getconf CLK_TCK)" >>"$RESULTS" <<'PY'
import json, sys
name, system, line, before, after, rss, cpu, pg, hz = sys.argv[1:]
r = json.loads(line)
r.update(scenario=name, system=system, rps=r["requests"] / r["seconds"], peak_rss_mb=float(rss))
per_request_ms = 1000.0 / float(hz) / max(r["requests"], 1)
r.update(server_cpu_ms=int(cpu) * per_request_ms, db_cpu_ms=int(pg) * per_request_ms)
if system != "floor" and before and after:
    r["statements_per_request"] = (float(after) - float(before)) / max(r["requests"], 1)
print(json.dumps(r))
PY
  log "$(tail -1 "$RESULTS")"
}

seed() { # DATABASE_URL SEEDFILE
  if [ -n "${REUSE_DB:-}" ] && [ -s "$2" ]; then
    log "reusing the database seeded as $(head -1 "$2")"
    cat "$2"
    return
  fi
  log "seeding $TICKETS tickets into $1"
  # shellcheck disable=SC2086 # SEED_ARGS is a list of options
  DATABASE_URL=$1 "$BIN" seed --tickets "$TICKETS" --users "$USERS" --projects "$PROJECTS" \
    --comments-per-ticket "$COMMENTS" ${SEED_ARGS:-} | tee "$2"
}

run_system() { # BACKEND DATABASE_URL
  local backend=$1 url=$2 seedfile requester agent
  seedfile=$(seed "$url" "$OUT/seed-$backend-${DB_NAME}.txt")
  if [ "$backend" = postgres ] && [ -z "${REUSE_DB:-}" ]; then
    # Freshly loaded rows: set their hint bits and visibility map now rather than during the first scenarios.
    psql -X -q "$url" -c "VACUUM ANALYZE"
  fi
  requester=$(echo "$seedfile" | sed -n 's/^requester: //p')
  agent=$(echo "$seedfile" | sed -n 's/^agent: //p')
  local team_token req_token
  team_token=$(DATABASE_URL=$url "$BIN" token create "$agent" --name bench | tail -1)
  req_token=$(DATABASE_URL=$url "$BIN" token create "$requester" --name bench | tail -1)
  DATABASE_URL=$url DESKGRAPH_DB_POOL_SIZE=$POOL RUST_LOG=warn \
    DESKGRAPH_RATE_LIMIT_AUTHENTICATED=1000000000 DESKGRAPH_RATE_LIMIT_ANONYMOUS=1000000000 \
    DESKGRAPH_GRAPHQL_POINTS=1000000000 DESKGRAPH_GRAPHQL_POINTS_ANONYMOUS=1000000000 \
    "$BIN" serve --bind "127.0.0.1:$DG_PORT" >"$OUT/server-$backend.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait_up "http://127.0.0.1:$DG_PORT/healthz"
  local base="http://127.0.0.1:$DG_PORT" sys="deskgraph-$backend" id
  id=$(curl -fs -H "Authorization: Bearer $team_token" "$base/api/tickets/?limit=1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["id"])')
  local gql_list='{"query":"{ tickets(first: 20) { nodes { id ticketNumber title status priority createdAt commentsCount requester { username fullName } assignee { username } project { name } } } }"}'
  local gql_list_total='{"query":"{ tickets(first: 20) { totalCount nodes { id ticketNumber title status priority createdAt commentsCount requester { username fullName } assignee { username } project { name } } } }"}'
  local gql_search='{"query":"{ search(query: \"printer disconnecting\", first: 20) { totalCount nodes { score highlights ticket { id ticketNumber title status priority requester { username } } } } }"}'
  local gql_detail="{\"query\":\"{ ticket(databaseId: $id) { id ticketNumber title description status priority requester { username fullName } assignee { username } project { name } } }\"}"
  scenario rest_list_team "$sys" "$pid" "$base/api/tickets/" "$team_token"
  scenario rest_list_requester "$sys" "$pid" "$base/api/tickets/" "$req_token"
  scenario rest_list_q "$sys" "$pid" "$base/api/tickets/?q=printer" "$team_token"
  scenario rest_list_status "$sys" "$pid" "$base/api/tickets/?status=open" "$team_token"
  # Each seeded ticket carries one of eight tags: a filter by one matches an eighth of them.
  scenario rest_list_tag "$sys" "$pid" "$base/api/tickets/?tag=printer" "$team_token"
  # The seed defines fifty custom fields; each ticket holds one of eight sites in `site`.
  scenario rest_list_field "$sys" "$pid" "$base/api/tickets/?field.site=Oslo" "$team_token"
  scenario rest_detail "$sys" "$pid" "$base/api/tickets/$id/" "$team_token"
  scenario graphql_list "$sys" "$pid" "$base/graphql" "$team_token" POST "$gql_list"
  scenario graphql_list_total "$sys" "$pid" "$base/graphql" "$team_token" POST "$gql_list_total"
  scenario graphql_search "$sys" "$pid" "$base/graphql" "$team_token" POST "$gql_search"
  scenario graphql_detail "$sys" "$pid" "$base/graphql" "$team_token" POST "$gql_detail"
  local gql_detail_comments="{\"query\":\"{ ticket(databaseId: $id) { id ticketNumber title status comments(first: 20) { nodes { body commentType createdAt author { username fullName } } } } }\"}"
  scenario graphql_detail_comments "$sys" "$pid" "$base/graphql" "$team_token" POST "$gql_detail_comments"
  # The web pages an agent works in, signed in with a session (the agent's password set for it): the queue's
  # first page (open work, newest first, with SLA badges) and a ticket's page.
  local session
  printf 'bench-password-1\n' | DATABASE_URL=$url "$BIN" user set-password "$agent" >/dev/null
  session=$(curl -fs -o /dev/null -c - -H 'Content-Type: application/json' \
    --data "{\"username\":\"$agent\",\"password\":\"bench-password-1\"}" "$base/accounts/login/" |
    awk '$6 == "sessionid" {print $7}')
  scenario web_queue "$sys" "$pid" "$base/tickets/" "cookie:sessionid=$session"
  scenario web_ticket "$sys" "$pid" "$base/tickets/$id/" "cookie:sessionid=$session"
  # Opened by an agent for the requester: besides the ticket, its audit record and counters, each create
  # queues an email to the requester in the outbox (delivered by the instance's worker to the log mailer).
  local req_id
  req_id=$(curl -fs -H "Authorization: Bearer $req_token" -H 'Content-Type: application/json' \
    --data '{"query":"{ me { databaseId } }"}' "$base/graphql" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["data"]["me"]["databaseId"])')
  scenario create_ticket "$sys" "$pid" "$base/api/tickets/" "$team_token" POST \
    "{\"title\":\"Bench printer ticket\",\"description\":\"Created by bench/run.sh\",\"priority\":\"high\",\"requester\":$req_id}"
  scenario add_comment "$sys" "$pid" "$base/api/tickets/$id/comments/" "$team_token" POST \
    '{"content":"Bench comment from bench/run.sh"}'
  # A priority change on one of a thousand open tickets picked at random per request: the update, its audit
  # record and, with SLA policies, the ticket's clock recomputed and its breach checks rescheduled.
  local open_ids
  open_ids=$(curl -fs -H "Authorization: Bearer $team_token" "$base/api/tickets/?status=open&limit=100" |
    python3 -c 'import json,sys; print(",".join(str(t["id"]) for t in json.load(sys.stdin)["results"]))')
  if [ "$backend" = postgres ]; then
    open_ids=$(psql -X -At "$url" -c "SELECT string_agg(id::text, ',') FROM (SELECT id FROM tickets
      WHERE archived_at IS NULL AND status IN ('new', 'open', 'in_progress') ORDER BY md5(id::text) LIMIT 1000) s")
  fi
  scenario update_ticket "$sys" "$pid" "$base/api/tickets/${open_ids%%,*}/" "$team_token" PATCH \
    '{"priority":"low"}||{"priority":"medium"}||{"priority":"high"}||{"priority":"critical"}' "$open_ids"
  # The same creates and priority changes with 200 active triggers of three conditions each, five of which
  # match every one of those writes (bench/triggers.py); the triggers are removed again afterwards.
  if [ -z "${ONLY:-}" ] || [[ create_ticket_triggers =~ $ONLY ]] || [[ update_ticket_triggers =~ $ONLY ]]; then
    local admin_token
    DATABASE_URL=$url "$BIN" user create bench-admin --password bench-password-1 --staff --superuser \
      >/dev/null 2>&1 || true
    admin_token=$(DATABASE_URL=$url "$BIN" token create bench-admin --name bench | tail -1)
    python3 "$ROOT/bench/triggers.py" install "$base" "$admin_token" "$OUT/trigger-ids.txt"
    scenario create_ticket_triggers "$sys" "$pid" "$base/api/tickets/" "$team_token" POST \
      "{\"title\":\"Bench printer ticket\",\"description\":\"Created by bench/run.sh\",\"priority\":\"high\",\"requester\":$req_id}"
    scenario update_ticket_triggers "$sys" "$pid" "$base/api/tickets/${open_ids%%,*}/" "$team_token" PATCH \
      '{"priority":"low"}||{"priority":"medium"}||{"priority":"high"}||{"priority":"critical"}' "$open_ids"
    python3 "$ROOT/bench/triggers.py" remove "$base" "$admin_token" "$OUT/trigger-ids.txt"
  fi
  # Attachments, 1 MiB each (so req/s is MiB/s): uploads of one file (content-addressed, so after the first
  # its bytes are received, hashed and typed, and the row written), and downloads of it.
  local file_body="$OUT/upload-1mib.multipart" boundary=deskgraphbench
  python3 - "$file_body" "$boundary" <<'PY'
import hashlib, sys
path, boundary = sys.argv[1], sys.argv[2]
data = b"".join(hashlib.sha256(i.to_bytes(4, "big")).digest() for i in range(32768))
head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"bench.bin\"\r\n"
        "Content-Type: application/octet-stream\r\n\r\n").encode()
open(path, "wb").write(head + data + f"\r\n--{boundary}--\r\n".encode())
PY
  local type="multipart/form-data; boundary=$boundary" attachment
  scenario upload_1mib "$sys" "$pid" "$base/api/tickets/$id/attachments/" "$team_token" POST "@$file_body" "" \
    "$type"
  if [ -z "${ONLY:-}" ] || [[ download_1mib =~ $ONLY ]]; then
    attachment=$(curl -fs -H "Authorization: Bearer $team_token" -H "Content-Type: $type" \
      --data-binary "@$file_body" "$base/api/tickets/$id/attachments/" |
      python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    scenario download_1mib "$sys" "$pid" "$base/api/attachments/$attachment/download/" "$team_token"
  fi
  # One bulk change of 10,000 open tickets picked at random (PostgreSQL), asked for over REST and made by this
  # instance's worker ticket by ticket: timed from asking to done (bench/bulk.py).
  if [ "$backend" = postgres ] && { [ -z "${ONLY:-}" ] || [[ bulk_10000 =~ $ONLY ]]; }; then
    psql -X -At "$url" -c "SELECT string_agg(id::text, ',') FROM (SELECT id FROM tickets WHERE archived_at IS NULL
      AND status IN ('new', 'open', 'in_progress') ORDER BY md5(id::text || 'bulk') LIMIT 10000) s" \
      >"$OUT/bulk-ids.txt"
    python3 "$ROOT/bench/bulk.py" "$base" "$team_token" "$OUT/bulk-ids.txt" "$pid" "$RESULTS" "$sys"
  fi
  # Merges of open tickets picked at random among 20,000 into one of 50 others (PostgreSQL): each moves the
  # source's comments, files and time, adds its tags and followers, closes it and posts two notices. A source
  # picked twice answers 409 (counted in non2xx). Last, as it closes tickets.
  if [ "$backend" = postgres ] && { [ -z "${ONLY:-}" ] || [[ merge_ticket =~ $ONLY ]]; }; then
    local pool="SELECT id FROM tickets WHERE archived_at IS NULL AND merged_into_id IS NULL AND id <> $id
      AND status IN ('new', 'open', 'in_progress') ORDER BY md5(id::text || 'merge')" merge_ids merge_into
    merge_into=$(psql -X -At "$url" -c "SELECT string_agg('{\"into\":' || id || '}', '||') FROM ($pool LIMIT 50) s")
    merge_ids=$(psql -X -At "$url" -c "SELECT string_agg(id::text, ',') FROM ($pool OFFSET 50 LIMIT 20000) s")
    echo "$merge_ids" >"$OUT/merge-ids.txt"
    scenario merge_ticket "$sys" "$pid" "$base/api/tickets/${merge_ids%%,*}/merge/" "$team_token" POST \
      "$merge_into" "@$OUT/merge-ids.txt"
  fi
  if [ "$backend" = postgres ]; then
    log "EXPLAIN of the list page"
    psql -X "$url" >"$OUT/explain.txt" 2>&1 <<SQL || true
SET random_page_cost = 1.1; -- as the service's connections (src/db/mod.rs)
EXPLAIN ANALYZE SELECT * FROM tickets WHERE archived_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 20;
EXPLAIN ANALYZE SELECT * FROM tickets WHERE archived_at IS NULL AND (requester_id = 1 OR assignee_id = 1) ORDER BY created_at DESC, id DESC LIMIT 20;
EXPLAIN ANALYZE SELECT * FROM tickets WHERE archived_at IS NULL AND (lower(title) LIKE '%printer%' OR lower(description) LIKE '%printer%') ORDER BY created_at DESC, id DESC LIMIT 20;
EXPLAIN ANALYZE SELECT count(*) FROM tickets WHERE archived_at IS NULL AND (lower(title) LIKE '%printer%' OR lower(description) LIKE '%printer%');
SQL
  fi
  kill "$pid"; wait "$pid" 2>/dev/null || true
}

DB_NAME=${DB_NAME:-deskgraph_bench}
# PostgreSQL: a fresh database each run, unless REUSE_DB.
if [ -z "${REUSE_DB:-}" ]; then
  psql -X -q "$PG_URL/postgres" -c "DROP DATABASE IF EXISTS $DB_NAME" -c "CREATE DATABASE $DB_NAME"
fi
# Plain connections, as the floor's (its sqlx has no TLS): TLS over loopback only costs CPU.
PG_DB="$PG_URL/$DB_NAME?sslmode=disable"
run_system postgres "$PG_DB"

# The floor, same data, same machine, same run.
if [ -x "$FLOOR_BIN" ]; then
DATABASE_URL=$PG_DB PORT=$FLOOR_PORT POOL_SIZE=$POOL "$FLOOR_BIN" >"$OUT/floor.log" 2>&1 &
FLOOR_PID=$!
PIDS+=("$FLOOR_PID")
wait_up "http://127.0.0.1:$FLOOR_PORT/api/tickets/"
FID=$(psql -X -At "$PG_DB" -c "SELECT id FROM tickets WHERE archived_at IS NULL ORDER BY created_at DESC, id DESC LIMIT 1")
scenario list floor "$FLOOR_PID" "http://127.0.0.1:$FLOOR_PORT/api/tickets/" none
scenario list_naive_count floor "$FLOOR_PID" "http://127.0.0.1:$FLOOR_PORT/api/tickets-count/" none
scenario detail floor "$FLOOR_PID" "http://127.0.0.1:$FLOOR_PORT/api/tickets/$FID/" none
kill "$FLOOR_PID"
else
  log "no floor binary at $FLOOR_BIN: ratios left empty"
fi

if [ -n "${SQLITE:-}" ]; then
  rm -f "$OUT/bench.sqlite"*
  run_system sqlite "sqlite://$OUT/bench.sqlite?mode=rwc"
fi

# Mail in through `deskgraph mail-in`, a process per message as a mail server pipes it, on a fresh SQLite
# database: new tickets, then replies threading onto them (bench/mail.py).
if [ -z "${ONLY:-}" ] || [[ mail_in =~ $ONLY ]]; then
  rm -f "$OUT/mail.sqlite"*
  DATABASE_URL="sqlite://$OUT/mail.sqlite?mode=rwc" "$BIN" migrate >/dev/null
  python3 "$ROOT/bench/mail.py" "$BIN" "sqlite://$OUT/mail.sqlite?mode=rwc" "$RESULTS"
  # The same messages handed to the running service (`mail-in --url`), on another fresh database.
  rm -f "$OUT/mail-http.sqlite"*
  secret=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')
  DATABASE_URL="sqlite://$OUT/mail-http.sqlite?mode=rwc" DESKGRAPH_MAIL_IN_SECRET=$secret RUST_LOG=warn \
    "$BIN" serve --bind "127.0.0.1:$DG_PORT" >"$OUT/server-mail.log" 2>&1 &
  mail_pid=$!
  PIDS+=("$mail_pid")
  wait_up "http://127.0.0.1:$DG_PORT/healthz"
  MAIL_URL="http://127.0.0.1:$DG_PORT/" MAIL_SERVER_PID=$mail_pid DESKGRAPH_MAIL_IN_SECRET=$secret \
    python3 "$ROOT/bench/mail.py" "$BIN" "sqlite://$OUT/mail-http.sqlite?mode=rwc" "$RESULTS"
  kill "$mail_pid"
fi

python3 "$ROOT/bench/report.py" "$RESULTS" "$OUT" "$TICKETS" "wrk -t$THREADS -c$CONNS -d$DURATION"
log "results in $OUT/results.md and $OUT/results.json"
