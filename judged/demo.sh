#!/usr/bin/env bash
# judged/demo.sh [OPTIONS] [BUILD_DIR] - the main job, on an embedded default.
#
# Starts judged with its own private redis-server (no `redis:` in the
# config) and judge-api in front of it, prints the dashboard's URL, submits
# every sample solution in testdata/*/solutions/ over HTTP (POST
# /v1/submissions, as a contest platform would; the client is python3's
# urllib), long-polls each result and prints the verdict it got next to the
# one its file name promises. Exits non-zero if any differs.
#
# By default it runs BUILD_DIR/bin's executables (BUILD_DIR: build/) with the
# source tree's languages/. Options:
#   --prefix DIR        run an installed judged instead: DIR/bin/judged,
#                       DIR/bin/judgectl and DIR/bin/judge-api with
#                       DIR/share/judged/languages (/usr)
#   --langs L1,L2,...   submit only the solutions in these languages (the
#                       others' compilers may not be installed); default the
#                       first eight (c, cpp, python3, java, rust, go,
#                       javascript, pascal), which keeps the demo under 3
#                       minutes; `--langs all`: every language's samples
#                       (the second demo target, README.md)
#   --first-slot N      the sandbox slots to use (default 700; 8 of them: a
#                       companion per slot of the 4 the pools have)
#   --cgroup-parent P   the sandbox's cgroup parent (default: judged's own)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
bin= languages=$root/languages only=,c,cpp,python3,java,rust,go,javascript,pascal, first_slot=700 cgroup_parent=
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) bin=$2/bin languages=$2/share/judged/languages; shift 2 ;;
        --langs) only=,$2,; [ "$2" != all ] || only=; shift 2 ;;
        --first-slot) first_slot=$2; shift 2 ;;
        --cgroup-parent) cgroup_parent="cgroup_parent: $2"; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        -*) echo "demo: unknown option $1 (try --help)" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ -z "$bin" ]; then
    build=$(cd "${1:-$root/build}" && pwd)
    bin=$build/bin
fi
for tool in judged judgectl judge-api; do
    [ -x "$bin/$tool" ] || { echo "demo: $bin/$tool is missing: build first" >&2; exit 2; }
done
[ -d "$languages" ] || { echo "demo: no languages directory $languages" >&2; exit 2; }

# The pools' languages, each as a contest host would group them; only those
# the demo submits are served (and so warmed up at start: every language
# listed builds its prepared files first, which would hold a slot for
# minutes with all of them).
native="c c99 c11 cpp cpp03 cpp11 cpp14 cpp17 cpp03_clang cpp11_clang cpp14_clang cpp17_clang cpp20_clang
        rust go pascal d haskell ocaml csharp fortran ada objc lisp nasm nasm32 gas gas32 cobol"
python="python3 pypy3 ruby php perl lua bash tcl prolog erlang elixir scheme racket awk pike forth brainfuck r sed"
java="java javascript kotlin groovy coffeescript"
# "NAME: {languages: [...], slots: N}" for the languages of the pool the
# demo submits; nothing when it submits none of them
pool() {
    local name=$1 slots=$2 list= l
    for l in $3; do
        [ -z "$only" ] || [[ $only == *",$l,"* ]] || continue
        list+="${list:+, }$l"
    done
    [ -z "$list" ] || printf '  %s: {languages: [%s], slots: %s}\n' "$name" "$list" "$slots"
}

state=$(mktemp -d /tmp/judged-demo.XXXXXX)
config=$state/judged.yaml
cat >"$config" <<EOF
state_dir: $state
problems: $root/testdata
languages: $languages
lease: 30s
heartbeat: 5s
max_attempts: 3
first_slot: $first_slot
$cgroup_parent
# four boxes whatever the machine (two cores included): the samples of
# every language at once; a contest host keeps one box per core
oversubscribe: true
pools:
$(pool native 2 "$native")
$(pool python 1 "$python")
$(pool java 1 "$java")
api:
  listen: 127.0.0.1:0
  tokens: $state/tokens
EOF

: >"$state/judged.log"
"$bin/judged" --config "$config" >>"$state/judged.log" 2>&1 &
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
# the log exists before the loop below reads it (the background job's
# redirect may open it only after the first read)
: >"$state/api.log"
"$bin/judge-api" --config "$config" >>"$state/api.log" 2>&1 &
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
# http PATH [PROBLEM LANGUAGE FILE]: GET PATH, or POST the submission to PATH
http() {
    python3 - "$api" "$platform" "$@" <<'PY'
import json, sys, urllib.error, urllib.request
api, token, path = sys.argv[1:4]
body = None
if len(sys.argv) > 4:
    problem, language, file = sys.argv[4:7]
    body = json.dumps({"problem": problem, "language": language, "source": open(file).read()}).encode()
req = urllib.request.Request(api + path, data=body, headers={"Authorization": "Bearer " + token,
                                                              "Content-Type": "application/json"})
try:
    print(urllib.request.urlopen(req, timeout=60).read().decode())
except urllib.error.HTTPError as e:
    sys.exit(f"demo: {path}: HTTP {e.code} {e.read().decode()}")
PY
}
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[2]).get(sys.argv[1], ""))' "$1" "$2"; }

# each sample's language as judgectl languages --json tells it: a part of
# its name between underscores that is a language taking its extension
# (ac_pypy3.py), else the default for its extension (default_for)
catalog=$("$bin/judgectl" languages --json --languages "$languages")
lang_of() {
    python3 - "$catalog" "$1" <<'PY'
import json, sys
langs, name = json.loads(sys.argv[1]), sys.argv[2]
stem, dot, ext = name.rpartition(".")
ext = "." + ext
for part in stem.split("_")[1:]:
    for l in langs:
        if l["id"] == part and ext in l.get("extensions", []):
            sys.exit(print(part))
print(next((l["id"] for l in langs if ext in l.get("default_for", [])), ""))
PY
}
ids=() names=() expected=()
for solution in "$root"/testdata/*/solutions/*; do
    file=${solution##*/}
    lang=$(lang_of "$file")
    [ -n "$lang" ] || continue
    [ -z "$only" ] || [[ $only == *",$lang,"* ]] || continue
    problem=$(basename "$(dirname "$(dirname "$solution")")")
    reply=$(http /v1/submissions "$problem" "$lang" "$solution")
    ids+=("$(field id "$reply")")
    names+=("$problem/$file")
    verdict=${file%%.*}
    expected+=("${verdict%%_*}")
done
[ "${#ids[@]}" -gt 0 ] || { echo "demo: no solution to submit${only:+ in ${only:1:-1}}" >&2; exit 2; }
echo "submitted ${#ids[@]} solutions over HTTP; judging..."
printf '%-34s %-9s %-8s %s\n' SOLUTION EXPECTED VERDICT SCORE
passed=0 failed=0
for i in "${!ids[@]}"; do
    json=$(http "/v1/submissions/${ids[$i]}?wait=30")
    while [ "$(field state "$json")" != done ]; do   # each long-poll is at most 30 s
        json=$(http "/v1/submissions/${ids[$i]}?wait=30")
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
