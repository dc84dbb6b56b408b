#!/usr/bin/env bash
# tests/package/test_package.sh BUILD_DIR SOURCE_DIR - the Debian package on a
# bare Debian 12.
#
# Builds the .deb with CPack, installs it with apt (so its Depends and
# Recommends are what pull in the libraries, redis-server and the compilers)
# on a bare Debian 12 root made by debootstrap, and inside that root:
#   1. checks the installed files and judged's and judgectl's defaults
#      (/etc/judged/judged.yaml, JUDGED_CONFIG, /usr/share/judged/languages);
#   2. runs judged/demo.sh against the installed executables and languages
#      (--prefix /usr) for the recommended compilers' languages (C, C++,
#      Python 3);
#   3. starts `judged` with no arguments, as judged.service does and confined
#      as it confines it (read-only root but for /var/lib/judged and
#      /run/judge-sandbox, empty /root and /home, private /tmp,
#      no_new_privs), on the shipped /etc/judged/judged.yaml, and judges one
#      submission made by `judgectl submit` with no --config;
#   3b. starts judge-api beside it, confined as judge-api.service confines it
#      (no capabilities, read-only root, no_new_privs), and judges a
#      submission made over HTTP with a token from `judgectl tokens add`;
#   4. starts judge-sandbox.service's ExecStart confined as that unit does
#      (read-only /usr and /etc, no_new_privs) and runs a client through it
#      with --workdir in /tmp and --stdout in /root.
#
# How the root is entered: `unshare --mount --pid --fork` + chroot into an
# overlay mount. The sandbox pivot_roots each box, which a plain chroot into
# a directory forbids (EINVAL: the root is not a mount point); the overlay's
# mount point is one. The private mount namespace keeps the overlay, /proc,
# the /sys and /dev binds and the sandbox's own mounts off the host, and the
# pid namespace ends every process started inside (judged, its redis-server,
# the boxes) when the test ends. The boxes use the host's cgroups through
# the /sys bind, under a cgroup parent and slots of this build tree's own.
# (systemd-nspawn is not used: it needs systemd-container and wants to own
# the cgroup tree, which the sandbox inside must write.)
#
# Slow (first run: debootstrap and ~150 MB of packages; later runs reuse the
# bootstrap tree and the downloaded .debs cached under BUILD_DIR/package-test)
# and needs the Debian mirror, so it runs only when JUDGED_TEST_PACKAGE=1.
set -euo pipefail

if [ "${JUDGED_TEST_PACKAGE:-}" != 1 ]; then
    echo "package test skipped: set JUDGED_TEST_PACKAGE=1 to run it (slow; needs the Debian mirror)"
    exit 77
fi
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
mirror=${JUDGED_DEBIAN_MIRROR:-http://deb.debian.org/debian}
cache=$build/package-test
[ "$(id -u)" = 0 ] || { echo "package test: needs root" >&2; exit 1; }
for tool in debootstrap unshare cpack file dpkg-shlibdeps; do
    command -v "$tool" >/dev/null || { echo "package test: $tool is missing (.ci/install-deps)" >&2; exit 1; }
done
mkdir -p "$cache/deb" "$cache/archives/partial"
step() { printf '== %s (%ds)\n' "$*" "$SECONDS"; }

step "cpack -G DEB"
rm -f "$cache/deb"/*.deb
(cd "$build" && cpack -G DEB -B "$cache/deb" >"$cache/cpack.log" 2>&1) || { cat "$cache/cpack.log"; exit 1; }
deb=$(ls "$cache/deb"/judged_*.deb)
dpkg-deb -I "$deb" | sed -n 's/^ \(Depends\|Recommends\|Suggests\):/  &/p'

# The bare root, made once per build tree. Services are never started in it
# (policy-rc.d), so installing redis-server does not start one.
if [ ! -e "$cache/base/.complete" ]; then
    step "debootstrap bookworm"
    rm -rf "$cache/base" "$cache/base.tmp"
    debootstrap --variant=minbase bookworm "$cache/base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        { tail -20 "$cache/debootstrap.log"; exit 1; }
    printf '#!/bin/sh\nexit 101\n' >"$cache/base.tmp/usr/sbin/policy-rc.d"
    chmod 755 "$cache/base.tmp/usr/sbin/policy-rc.d"
    touch "$cache/base.tmp/.complete"
    mv "$cache/base.tmp" "$cache/base"
fi

# slots and cgroup parent of this build tree (other trees may run suites now).
# 200..288: no other suite uses them (runner 300.., judged 600..999, the
# shipped config 100..), so .ci/run runs this test beside the others.
hash=$(printf %s "$build" | cksum | cut -d' ' -f1)
first_slot=$((200 + hash % 9 * 10))   # the demo takes 8, judge-sandbox the 9th
cgroup_parent=judged-package-test-$((hash % 100000))

step "enter the root"
work=$(mktemp -d "$cache/run.XXXXXX")
trap 'rm -rf "$work"' EXIT
export cache src deb work first_slot cgroup_parent
unshare --mount --pid --fork --propagation private bash -euo pipefail -c '
    root=$work/root
    mkdir -p "$work/upper" "$work/wk" "$root"
    # an overlay keeps the cached tree clean; where overlayfs cannot be
    # mounted (the build tree on an overlay itself) a copy bound onto itself
    if ! mount -t overlay overlay -o "lowerdir=$cache/base,upperdir=$work/upper,workdir=$work/wk" \
            "$root" 2>/dev/null; then
        cp -a "$cache/base/." "$root/"
        mount --bind "$root" "$root"
    fi
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs tmpfs "$root/run"
    mount -t tmpfs tmpfs "$root/tmp"
    mount --bind "$cache/archives" "$root/var/cache/apt/archives"
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    cp "$deb" "$root/root/"
    mkdir -p "$root/opt/judged-demo/judged"
    cp "$src/judged/demo.sh" "$root/opt/judged-demo/judged/"
    cp -r "$src/testdata" "$root/opt/judged-demo/"
    cp "$src/tests/package/in_root.sh" "$root/root/"
    exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        bash /root/in_root.sh "${deb##*/}" "$first_slot" "$cgroup_parent" </dev/null
'
echo "package test passed in ${SECONDS}s"
