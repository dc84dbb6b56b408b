#!/usr/bin/env bash
# tests/package/in_root.sh DEB FIRST_SLOT CGROUP_PARENT - test_package.sh's
# steps inside the bare Debian 12 root (see there): install DEB with apt,
# check the installed files and defaults, run the demo against them, run
# judged as judged.service would on the shipped /etc/judged/judged.yaml,
# judge-api beside it as judge-api.service would, and the judge-sandbox
# server as judge-sandbox.service would.
set -euo pipefail
deb=$1 first_slot=$2 cgroup_parent=$3
step() { printf '== %s (%ds)\n' "$*" "$SECONDS"; }
fail() { echo "package test: $*" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive

step "apt-get install ./$deb (with its Recommends)"
apt-get update -qq </dev/null
apt-get install -y -qq "/root/$deb" </dev/null >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log; exit 1; }
for pkg in libseccomp2 libcap2 libhiredis0.14 libyaml-0-2 libjansson4 libmicrohttpd12 libcurl4 redis-server gcc g++ python3; do
    dpkg -s "$pkg" >/dev/null 2>&1 || fail "$pkg was not installed with judged"
done

step "1. installed files and defaults"
for f in /usr/bin/judged /usr/bin/judgectl /usr/bin/judge-api /usr/bin/judge-sandbox /usr/bin/judge-sandbox-core \
         /usr/share/judged/www/index.html \
         /usr/share/judged/languages/c.yaml /usr/lib/systemd/system/judged.service \
         /usr/lib/systemd/system/judge-sandbox.service /etc/judged/judged.yaml; do
    [ -e "$f" ] || fail "$f is not installed"
done
grep -qx /etc/judged/judged.yaml /var/lib/dpkg/info/judged.conffiles ||
    fail "/etc/judged/judged.yaml is not a conffile"
out=$(judgectl --help)
[[ $out == *"defaults to"*"/usr/share/judged/languages."* ]] || fail "judgectl --help: $out"
out=$(judged --help)
[[ $out == *"read from"*"/usr/share/judged/languages."* ]] || fail "judged --help: $out"
[[ $(judgectl languages) == *$'\n'"python3 "* ]] || fail "judgectl languages: $(judgectl languages 2>&1)"
# no --config: /etc/judged/judged.yaml (its embedded Redis is not running yet)
out=$(judgectl pools 2>&1) && fail "judgectl pools answered without judged: $out"
case $out in *"/var/lib/judged/redis/redis.sock"*) ;; *) fail "judgectl pools did not read /etc/judged/judged.yaml: $out" ;; esac
out=$(JUDGED_CONFIG=/nonexistent.yaml judgectl pools 2>&1) || true
case $out in *"/nonexistent.yaml"*) ;; *) fail "judgectl ignored JUDGED_CONFIG: $out" ;; esac
out=$(JUDGED_CONFIG=/nonexistent.yaml judged 2>&1) && fail "judged started on a missing config"
case $out in *"/nonexistent.yaml"*) ;; *) fail "judged ignored JUDGED_CONFIG: $out" ;; esac
# the thin client execs judge-sandbox-core from its own directory, which
# starts a server; slot first_slot+8 is not one of the demo's (or judged's)
out=$(judge-sandbox --json --box $((first_slot + 8)) --cgroup-parent "$cgroup_parent" -- /bin/true)
[[ $out == *'"status":"OK"'* ]] || fail "judge-sandbox (thin client + core): $out"

# a unit's CapabilityBoundingSet= as setpriv's --bounding-set
bounding() {
    local caps
    caps=$(sed -n 's/^CapabilityBoundingSet=//p' "/usr/lib/systemd/system/$1.service")
    [ -n "$caps" ] || fail "$1.service has no CapabilityBoundingSet="
    caps=${caps,,}
    caps=${caps//cap_/}
    echo "-all,+${caps// /,+}"
}
judged_caps=$(bounding judged)
sandbox_caps=$(bounding judge-sandbox)

step "2. demo.sh --prefix /usr (judged with judged.service's bounding set)"
setpriv --inh-caps=-all --bounding-set="$judged_caps" bash /opt/judged-demo/judged/demo.sh --prefix /usr --langs c,cpp,python3 \
    --first-slot "$first_slot" --cgroup-parent "$cgroup_parent"

step "3. judged as judged.service starts it (confined alike), on /etc/judged/judged.yaml"
mkdir -p /srv/problems
cp -r /opt/judged-demo/testdata/aplusb /srv/problems/
sed -i "s/^first_slot: [0-9]*.*\$/first_slot: $first_slot\ncgroup_parent: $cgroup_parent/" /etc/judged/judged.yaml
grep -q "^first_slot: $first_slot" /etc/judged/judged.yaml || fail "the example config has no first_slot: line"
ExecStart=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/judged.service)
[ "$ExecStart" = "/usr/bin/judged --config /etc/judged/judged.yaml" ] || fail "ExecStart=$ExecStart"
# judged.service's confinement, rebuilt with mount(8) since no systemd runs
# here: in a mount namespace of its own (ProtectSystem=strict) the root and
# /run are read-only but for StateDirectory= and RuntimeDirectory= (both),
# (ProtectHome=) /root and /home are empty, (PrivateTmp=) /tmp is a fresh
# tmpfs, and (NoNewPrivileges=, CapabilityBoundingSet=) judged runs under
# no_new_privs with the unit's capabilities only.
mkdir -p /var/lib/judged /run/judge-sandbox /run/judged /home
unshare --mount --propagation private sh -euc '
    mount --bind /var/lib/judged /var/lib/judged
    mount --bind /run/judge-sandbox /run/judge-sandbox
    mount --bind /run/judged /run/judged
    mount -o remount,bind,ro /
    mount -o remount,bind,ro /run
    mount -t tmpfs -o ro,mode=0755 tmpfs /root
    mount -t tmpfs -o ro,mode=0755 tmpfs /home
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    ! touch /usr/judged-probe 2>/dev/null || { echo "/usr is writable" >&2; exit 1; }
    exec setpriv --no-new-privs --inh-caps=-all --bounding-set="$0" /usr/bin/judged
' "$judged_caps" >/tmp/judged.log 2>&1 &
judged_pid=$!
for _ in $(seq 300); do
    judgectl pools >/dev/null 2>&1 && break
    kill -0 "$judged_pid" 2>/dev/null || { cat /tmp/judged.log; fail "judged exited"; }
    sleep 0.1
done
id=$(judgectl submit --problem aplusb --lang c /srv/problems/aplusb/solutions/ac.c)
result=$(judgectl result --wait 300 --json "$id")
verdict=$(python3 -c 'import json,sys; print(json.load(sys.stdin).get("verdict"))' <<<"$result")
[ "$verdict" = AC ] || { cat /tmp/judged.log; fail "ac.c under the shipped config: $result"; }
echo "aplusb/ac.c under /etc/judged/judged.yaml: AC"

step "3b. judge-api as judge-api.service starts it (confined alike): a submission over HTTP"
ExecStart=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/judge-api.service)
[ "$ExecStart" = "/usr/bin/judge-api --config /etc/judged/judged.yaml" ] || fail "judge-api.service: ExecStart=$ExecStart"
grep -qx 'CapabilityBoundingSet=' /usr/lib/systemd/system/judge-api.service || fail "judge-api.service keeps capabilities"
# any free port (the host's network: 8080 may be taken), the default tokens file
printf 'api:\n  listen: 127.0.0.1:0\n' >>/etc/judged/judged.yaml
token=$(judgectl tokens add platform --role submit)
[ "$(stat -c %a /etc/judged/tokens)" = 600 ] || fail "the tokens file is not 0600"
# CapabilityBoundingSet= (empty), NoNewPrivileges=, ProtectSystem=strict
# (all read-only), ProtectHome=, PrivateTmp=
# The log exists before the loop below reads it: the background shell's
# redirect may come after the first read (CI lost that race once: sed's
# "No such file" under set -e ended the test).
: >/var/log/judge-api.log
unshare --mount --propagation private sh -euc '
    mount -o remount,bind,ro /
    mount -o remount,bind,ro /run
    mount -t tmpfs -o ro,mode=0755 tmpfs /root
    mount -t tmpfs -o ro,mode=0755 tmpfs /home
    mount -t tmpfs -o mode=1777 tmpfs /tmp
    exec setpriv --no-new-privs --inh-caps=-all --bounding-set=-all "$@"
' judge-api $ExecStart >/var/log/judge-api.log 2>&1 &
api_pid=$!
port=
for _ in $(seq 300); do
    port=$(sed -n 's/^judge-api: listening on port \([0-9]*\).*/\1/p' /var/log/judge-api.log)
    [ -n "$port" ] && break
    kill -0 "$api_pid" 2>/dev/null || { cat /var/log/judge-api.log; fail "judge-api exited"; }
    sleep 0.1
done
[ -n "$port" ] || { cat /var/log/judge-api.log; fail "judge-api did not listen"; }
verdict=$(PORT=$port TOKEN=$token python3 - <<'PY'
import json, os, urllib.request
base = "http://127.0.0.1:%s" % os.environ["PORT"]
auth = {"Authorization": "Bearer " + os.environ["TOKEN"], "Content-Type": "application/json"}
src = open("/srv/problems/aplusb/solutions/ac.c").read()
body = json.dumps({"problem": "aplusb", "language": "c", "source": src}).encode()
with urllib.request.urlopen(urllib.request.Request(base + "/v1/submissions", body, auth)) as r:
    assert r.status == 202, r.status
    sid = json.load(r)["id"]
with urllib.request.urlopen(urllib.request.Request(base + "/v1/submissions/%s?wait=30" % sid, None, auth), timeout=60) as r:
    print(json.load(r).get("verdict"))
PY
) || { cat /var/log/judge-api.log; fail "the submission over HTTP failed"; }
[ "$verdict" = AC ] || { cat /var/log/judge-api.log; fail "ac.c over HTTP: $verdict"; }
echo "aplusb/ac.c over HTTP through the confined judge-api: AC"
kill -TERM "$api_pid"
wait "$api_pid" || { cat /var/log/judge-api.log; fail "judge-api did not stop cleanly on SIGTERM"; }
kill -TERM "$judged_pid"
wait "$judged_pid" || { cat /tmp/judged.log; fail "judged did not stop cleanly on SIGTERM"; }

step "4. judge-sandbox --serve as judge-sandbox.service starts it (confined alike)"
# step 1's client started a server on demand in /run/judge-sandbox, in the
# slot used here: stop it if it has not yet exited on its own (it does once
# idle for a while, and steps 2-3 may have taken longer than that)
old=$(cat /run/judge-sandbox/server.pid 2>/dev/null || true)
if [ -n "$old" ] && kill -TERM "$old" 2>/dev/null; then
    while kill -0 "$old" 2>/dev/null; do sleep 0.1; done
fi
ExecStart=$(sed -n 's/^ExecStart=//p' /usr/lib/systemd/system/judge-sandbox.service)
[ "$ExecStart" = "/usr/bin/judge-sandbox --serve --run-dir /run/judge-sandbox --server-idle 0" ] ||
    fail "judge-sandbox.service: ExecStart=$ExecStart"
# ProtectSystem=full: /usr and /etc read-only; no PrivateTmp, no ProtectHome
unshare --mount --propagation private sh -euc '
    for d in /usr /etc; do mount --bind $d $d; mount -o remount,bind,ro $d; done
    exec setpriv --no-new-privs --inh-caps=-all --bounding-set="$0" "$@"
' "$sandbox_caps" $ExecStart --cgroup-parent "$cgroup_parent" >/tmp/server.log 2>&1 &
server_pid=$!
for _ in $(seq 300); do
    [ "$(cat /run/judge-sandbox/server.pid 2>/dev/null)" = "$server_pid" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat /tmp/server.log; fail "the server exited"; }
    sleep 0.1
done
# a client's --workdir and --stdout in its /tmp and /root, as the server sees them too
mkdir -p /tmp/client-work
out=$(cd /root && judge-sandbox --json --box $((first_slot + 8)) --cgroup-parent "$cgroup_parent" \
      --workdir /tmp/client-work --stdout out.txt -- /bin/sh -c 'echo hi > note; echo out')
[[ $out == *'"status":"OK"'* ]] || { cat /tmp/server.log; fail "judge-sandbox through the server: $out"; }
[ "$(cat /tmp/client-work/note)" = hi ] || fail "the box did not write the client's /tmp/client-work"
[ "$(cat /root/out.txt)" = out ] || fail "--stdout out.txt did not reach the client's /root"
[ "$(cat /run/judge-sandbox/server.pid)" = "$server_pid" ] || fail "the client was not served by the unit's server"
echo "judge-sandbox through the confined server: OK"
kill -TERM "$server_pid"
wait "$server_pid" || { cat /tmp/server.log; fail "the server did not stop cleanly on SIGTERM"; }
step "done"
