#!/usr/bin/env bash
# judged/demo.sh [BUILD_DIR] - the main job, on an embedded default.
#
# Starts judged with its own private redis-server (no `redis:` in the
# config) and judge-api in front of it, prints the dashboard's URL, submits
# every sample solution in testdata/*/solutions/ over HTTP (POST
# /v1/submissions, as a contest platform would), long-polls each result and
# prints the verdict it got next to the one its file name promises. Exits
# non-zero if any differs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
bin=$build/bin
for tool in judged judgectl judge-api; do
    [ -x "$bin/$tool" ] || { echo "demo: $bin/$tool is missing: build first" >&2; exit 2; }
done

state=$(mktemp -d /tmp/judged-demo.XXXXXX)
config=$state/judged.yaml
cat >"$config" <<EOF
state_dir: $state
problems: $root/testdata
languages: $root/languages
lease: 30s
heartbeat: 5s
max_attempts: 3
first_slot: 700
pools:
  native: {languages: [c, cpp, rust, go, pascal], slots: 2}
  python: {languages: [python3], slots: 1}
  java:   {languages: [java, javascript], slots: 1}
api:
  listen: 127.0.0.1:0
  tokens: $state/tokens
EOF

"$bin/judged" --config "$config" >"$state/judged.log" 2>&1 &
judged_pid=$!
api_pid=
cleanup() {
    [ -z "$api_pid" ] || kill -TERM "$api_pid" 2>/dev/null || true
    kill -TERM "$judged_pid" 2>/dev/null || true
    wait "$judged_pid" 2>/dev/null || true
    rm -rf "$state"
}
trap cleanup EXIT

ctl() { "$bin/judgectl" --config "$config" "$@"; }
for _ in $(seq 300); do
    ctl pools >/dev/null 2>&1 && break
    kill -0 "$judged_pid" 2>/dev/null || { cat "$state/judged.log" >&2; exit 1; }
    sleep 0.1
done

# judge-api, with a token for the platform and one for the dashboard
platform=$(ctl tokens add demo-platform --role submit)
admin=$(ctl tokens add demo-admin --role admin)
"$bin/judge-api" --config "$config" >"$state/api.log" 2>&1 &
api_pid=$!
port=
for _ in $(seq 300); do
    port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$state/api.log")
    [ -n "$port" ] && break
    kill -0 "$api_pid" 2>/dev/null || { cat "$state/api.log" >&2; exit 1; }
    sleep 0.1
done
api=http://127.0.0.1:$port
echo "dashboard (while the demo runs): $api/#token=$admin"
http() { curl -sS --fail-with-body -H "Authorization: Bearer $platform" -H 'Content-Type: application/json' "$@"; }
body() { python3 -c 'import json,sys; print(json.dumps({"problem": sys.argv[1], "language": sys.argv[2],
                                                        "source": open(sys.argv[3]).read()}))' "$@"; }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[2]).get(sys.argv[1], ""))' "$1" "$2"; }

declare -A lang_of=([c]=c [cpp]=cpp [py]=python3 [java]=java [rs]=rust [go]=go
                    [js]=javascript [pas]=pascal)
ids=() names=() expected=()
for solution in "$root"/testdata/*/solutions/*; do
    file=${solution##*/}
    lang=${lang_of[${file##*.}]:-}
    [ -n "$lang" ] || continue
    problem=$(basename "$(dirname "$(dirname "$solution")")")
    reply=$(body "$problem" "$lang" "$solution" | http --data-binary @- "$api/v1/submissions")
    ids+=("$(field id "$reply")")
    names+=("$problem/$file")
    verdict=${file%%.*}
    expected+=("${verdict%%_*}")
done
echo "submitted ${#ids[@]} solutions over HTTP; judging..."

printf '%-34s %-9s %-8s %s\n' SOLUTION EXPECTED VERDICT SCORE
passed=0 failed=0
for i in "${!ids[@]}"; do
    json=$(http "$api/v1/submissions/${ids[$i]}?wait=30")
    while [ "$(field state "$json")" != done ]; do   # each long-poll is at most 30 s
        json=$(http "$api/v1/submissions/${ids[$i]}?wait=30")
    done
    verdict=$(field verdict "$json")
    score=$(field score "$json")
    want=${expected[$i]^^}
    mark=ok
    if [ "$verdict" = "$want" ]; then passed=$((passed + 1)); else failed=$((failed + 1)); mark=MISMATCH; fi
    printf '%-34s %-9s %-8s %-6s %s\n' "${names[$i]}" "$want" "$verdict" "$score" "$mark"
done
echo "demo: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
