#!/bin/bash
# layering.sh SOURCE_DIR - the layering rule of judged/DESIGN.md ("Source
# layout"), checked on every #include "..." of every production source file:
# a file may include a header of its own folder, or the public header of a
# folder its own folder may use, and nothing else (no include upward, none
# into another folder's private header, none from tests/). Prints each
# violation as FILE:LINE: and exits 1 if there is one.
set -u
src=${1:?usage: layering.sh SOURCE_DIR}
cd "$src" || exit 2

# folder        public header  folders it may include
table='
common          common.h       -
common/yaml     yaml_doc.h     common
common/fileset  fileset.h      common
sandbox         sandbox.h      common
runner          runner.h       sandbox yaml fileset common
judged/queue    queue.h        common
judged/store    store.h        queue yaml fileset common
judged/core     core.h         queue store yaml common
judged/api      api.h          core store queue fileset common
judged/daemon   -              core store queue runner common
judged/ctl      -              core api store queue runner fileset common
'
declare -A public allowed
while read -r folder header uses; do
    [ -n "$folder" ] || continue
    public[$folder]=$header
    allowed[$folder]=$uses
done <<< "$table"
# a folder named by its last component in the table's third column
declare -A by_short
for folder in "${!public[@]}"; do by_short[${folder##*/}]=$folder; done

violations=0
checked=0
while IFS= read -r file; do
    folder=${file%/*}
    if [ -z "${public[$folder]+x}" ]; then
        echo "$file: in a folder the layering table does not know ($folder): add it to" \
             "judged/DESIGN.md and tests/layering.sh" >&2
        violations=$((violations + 1))
        continue
    fi
    while IFS=: read -r line header; do
        checked=$((checked + 1))
        [ -e "$folder/$header" ] && [[ $header != */* ]] && continue   # its own folder
        ok=0
        for short in ${allowed[$folder]}; do
            [ "$short" = - ] && continue
            target=${by_short[$short]}
            [ "$header" = "${public[$target]}" ] && ok=1
        done
        if [ $ok = 0 ]; then
            echo "$file:$line: includes \"$header\", which $folder/ may not include" \
                 "(judged/DESIGN.md, \"Source layout\")" >&2
            violations=$((violations + 1))
        fi
    done < <(grep -n -o -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]+"' "$file" |
             sed -E 's/^([0-9]+):.*"([^"]+)"/\1:\2/')
done < <(find common sandbox runner judged -name '*.[ch]' | sort)

if [ $violations -gt 0 ]; then
    echo "layering: $violations include(s) break the rule" >&2
    exit 1
fi
echo "layering: $checked includes checked, none breaks the rule"
