#!/usr/bin/env bash
# tests/package/test_install.sh BUILD_DIR SOURCE_DIR - what `cmake --install`
# puts where, and that the installed executables find their defaults there.
# Installs into a scratch DESTDIR (never the host's /usr or /etc), so it is
# fast and runs with every suite; the .deb on a bare Debian 12 is
# test_package.sh.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fail() { echo "install test: $*" >&2; exit 1; }
dest=$(mktemp -d /tmp/judged-install-test.XXXXXX)
trap 'rm -rf "$dest"' EXIT

DESTDIR=$dest cmake --install "$build" --prefix /usr >"$dest.log" 2>&1 || { cat "$dest.log"; exit 1; }
rm -f "$dest.log"

# the files
for f in usr/bin/judged usr/bin/judgectl usr/bin/judge-api usr/bin/judge-sandbox usr/bin/judge-sandbox-core; do
    [ -x "$dest/$f" ] || fail "/$f is not installed (or not executable)"
done
want=$(cd "$src/languages" && ls -- *.yaml)
have=$(cd "$dest/usr/share/judged/languages" && ls)
[ "$want" = "$have" ] || fail "share/judged/languages has: $have; languages/ has: $want"
cmp -s "$src/packaging/judged.yaml" "$dest/etc/judged/judged.yaml" || fail "/etc/judged/judged.yaml is not the example"
for unit in judged judge-sandbox judge-api; do
    [ -f "$dest/usr/lib/systemd/system/$unit.service" ] || fail "$unit.service is not installed"
done

# the installed executables' defaults: PREFIX/share/judged/languages beside
# their bin/, and the example configuration loads (judgectl gets as far as
# connecting to the embedded Redis it names)
out=$("$dest/usr/bin/judgectl" --help)
[[ $out == *"defaults to"*"$dest/usr/share/judged/languages."* ]] || fail "judgectl --help: $out"
out=$("$dest/usr/bin/judged" --help)
[[ $out == *"$dest/usr/share/judged/languages."* ]] || fail "judged --help: $out"
out=$("$dest/usr/bin/judgectl" languages)
for lang in $want; do
    [[ $out == *$'\n'"${lang%.yaml} "* ]] || fail "installed judgectl languages lacks ${lang%.yaml}: $out"
done
out=$(JUDGED_CONFIG=$dest/etc/judged/judged.yaml "$dest/usr/bin/judgectl" pools 2>&1) && fail "pools: $out"
[[ $out == *"/var/lib/judged/redis/redis.sock"* ]] || fail "the example config does not load: $out"

# the units name the installed executables, and systemd accepts them
grep -qx 'ExecStart=/usr/bin/judged --config /etc/judged/judged.yaml' \
    "$dest/usr/lib/systemd/system/judged.service" || fail "judged.service: wrong ExecStart"
grep -q '^ExecStart=/usr/bin/judge-sandbox --serve' \
    "$dest/usr/lib/systemd/system/judge-sandbox.service" || fail "judge-sandbox.service: wrong ExecStart"
grep -qx 'ExecStart=/usr/bin/judge-api --config /etc/judged/judged.yaml' \
    "$dest/usr/lib/systemd/system/judge-api.service" || fail "judge-api.service: wrong ExecStart"
grep -qx 'CapabilityBoundingSet=' "$dest/usr/lib/systemd/system/judge-api.service" ||
    fail "judge-api.service keeps capabilities"
# Every other program the units run must be on any Debian 12, however minimal:
# one from an Essential package (/bin/kill is procps's, which a minbase root
# lacks, and systemd-analyze verify fails there on a unit naming it).
for unit in judged judge-sandbox judge-api; do
    for prog in $(sed -n 's/^Exec[A-Za-z]*=[-@:+!]*\([^ ]*\).*/\1/p' \
                  "$dest/usr/lib/systemd/system/$unit.service"); do
        case $prog in /usr/bin/judge*) continue ;; esac
        pkg=$(dpkg -S "$prog" 2>/dev/null | grep -v '^diversion by' | cut -d: -f1) ||
            fail "$unit.service runs $prog, which no package owns"
        [ "$(dpkg-query -W -f='${Essential}' "$pkg")" = yes ] ||
            fail "$unit.service runs $prog, from $pkg, which is not Essential (a minimal Debian lacks it)"
    done
done
command -v systemd-analyze >/dev/null || fail "systemd-analyze is missing (package systemd, .ci/install-deps)"
mkdir "$dest/verify"
for unit in judged judge-sandbox judge-api; do
    # verify checks that ExecStart's program exists: point it into DESTDIR
    sed "s|=/usr/bin/|=$dest/usr/bin/|" "$dest/usr/lib/systemd/system/$unit.service" \
        >"$dest/verify/$unit.service"
done
out=$(systemd-analyze verify "$dest/verify/judged.service" "$dest/verify/judge-sandbox.service" \
      "$dest/verify/judge-api.service" 2>&1) ||
    fail "systemd-analyze verify: $out"
[ -z "$out" ] || fail "systemd-analyze verify warns: $out"

# another prefix: the units follow it; an edited configuration is kept
echo "# edited" >>"$dest/etc/judged/judged.yaml"
DESTDIR=$dest cmake --install "$build" --prefix /opt/judged >/dev/null
grep -qx 'ExecStart=/opt/judged/bin/judged --config /etc/judged/judged.yaml' \
    "$dest/opt/judged/lib/systemd/system/judged.service" || fail "--prefix /opt/judged: wrong ExecStart"
[ "$(tail -1 "$dest/etc/judged/judged.yaml")" = "# edited" ] || fail "an edited judged.yaml was overwritten"
cmp -s "$src/packaging/judged.yaml" "$dest/etc/judged/judged.yaml.example" || fail "no judged.yaml.example"
echo "install test passed"
