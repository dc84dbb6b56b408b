#!/usr/bin/env bash
# tests/package/test_hardening.sh BUILD_DIR [--no-fortify] [--no-fortify-in NAME]...
#                                  [--static NAME]...
#
# What a user (or Debian's lintian, or checksec) would check on the installed
# executables: `cmake --install` into a scratch DESTDIR, then, with readelf,
# for every ELF file installed:
#   - ELF type DYN: a position-independent executable (PIE), loaded at a
#     random address;
#   - BIND_NOW (FLAGS BIND_NOW or FLAGS_1 NOW) and a GNU_RELRO segment: full
#     RELRO, the GOT read-only once every symbol is bound at start;
#   - __stack_chk_fail referenced: the stack protector's canaries;
#   - a __*_chk symbol (__memcpy_chk, __snprintf_chk, ...): _FORTIFY_SOURCE's
#     checked copies, unless --no-fortify (a build that does not optimize, or
#     a sanitizer build: CMakeLists.txt says why) or --no-fortify-in NAME (the
#     musl-built judge-sandbox: musl has no _FORTIFY_SOURCE);
#   - and with --static NAME, that NAME is a static PIE (no interpreter, no
#     shared library needed): hardening must not cost judge-sandbox and its
#     core the start-up time their static linking buys.
# tests/package/CMakeLists.txt registers it where JUDGED_HARDEN is on. The
# static executables (judge-sandbox, judge-sandbox-core) are static PIEs; their
# symbols are in .symtab, which `cmake --install` keeps (the .deb strips it),
# and their __stack_chk_fail may come from libc.a itself, so for them that
# check says less.
set -euo pipefail
build=$(cd "$1" && pwd)
shift
fortify=1
no_fortify_in=" "
static=" "
while [ $# -gt 0 ]; do
    case $1 in
        --no-fortify) fortify=0 ;;
        --no-fortify-in) no_fortify_in+="$2 "; shift ;;
        --static) static+="$2 "; shift ;;
        *) echo "test_hardening.sh: unknown argument $1" >&2; exit 2 ;;
    esac
    shift
done
command -v readelf >/dev/null || { echo "hardening test: readelf is missing (binutils)" >&2; exit 1; }
dest=$(mktemp -d /tmp/judged-hardening-test.XXXXXX)
trap 'rm -rf "$dest"' EXIT
DESTDIR=$dest cmake --install "$build" --prefix /usr >"$dest/install.log" 2>&1 ||
    { cat "$dest/install.log"; exit 1; }

failed=0
checked=0
while IFS= read -r -d '' f; do
    [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
    name=${f#"$dest"}
    missing=()
    # read whole, not piped into grep -q (which may close the pipe early)
    header=$(readelf -hW "$f")
    dynamic=$(readelf -dW "$f")
    segments=$(readelf -lW "$f")
    grep -Eq '^ +Type: +DYN ' <<<"$header" || missing+=("PIE (ELF type is not DYN)")
    grep -Eq '\(FLAGS\) +.*BIND_NOW|\(FLAGS_1\) +Flags:.* NOW' <<<"$dynamic" || missing+=("BIND_NOW")
    grep -Eq '^ +GNU_RELRO ' <<<"$segments" || missing+=("GNU_RELRO segment")
    # both symbol tables: .dynsym (what a dynamic executable imports) and
    # .symtab (a static executable's own)
    syms=$(readelf -sW "$f" | awk '{print $8}' | sed 's/@.*//' | sort -u)
    grep -qx '__stack_chk_fail' <<<"$syms" || missing+=("__stack_chk_fail (stack protector)")
    if [ "$fortify" = 1 ] && [[ $no_fortify_in != *" ${name##*/} "* ]]; then
        grep -Eqx '__[a-z0-9_]+_chk' <<<"$(grep -vx '__stack_chk_fail' <<<"$syms")" ||
            missing+=("a __*_chk symbol (_FORTIFY_SOURCE)")
    fi
    if [[ $static == *" ${name##*/} "* ]]; then
        ! grep -Eq '^ +INTERP ' <<<"$segments" && ! grep -q '(NEEDED)' <<<"$dynamic" ||
            missing+=("static linking (it has an interpreter or needs shared libraries)")
    fi
    checked=$((checked + 1))
    if [ ${#missing[@]} -gt 0 ]; then
        failed=1
        printf 'hardening test: %s lacks:' "$name"
        printf ' %s;' "${missing[@]}"
        echo
    else
        has="PIE, BIND_NOW, GNU_RELRO, __stack_chk_fail"
        [ "$fortify" = 1 ] && [[ $no_fortify_in != *" ${name##*/} "* ]] && has+=", __*_chk"
        [[ $static == *" ${name##*/} "* ]] && has+=", static"
        echo "$name: $has"
    fi
done < <(find "$dest" -type f -perm -u+x -print0 | sort -z)
[ "$checked" -ge 5 ] || { echo "hardening test: only $checked ELF executables installed" >&2; exit 1; }
[ "$failed" = 0 ] || exit 1
echo "hardening test passed ($checked executables)"
