#!/bin/bash
# redis_boundary.sh SOURCE_DIR - the Redis boundary of judged/DESIGN.md
# ("The Redis boundary"): every Redis command of judged, judgectl and
# judge-api lives in judged/queue/ or judged/store/, and so does every key
# name. Fails, naming the file and line, on a source file of judged/api,
# judged/daemon, judged/ctl or judged/core that issues a command (hiredis
# or queue_cmd), builds a key (queue_key) or spells a key name "judge:...".
set -u
src=${1:?usage: redis_boundary.sh SOURCE_DIR}
cd "$src" || exit 2

folders="judged/api judged/daemon judged/ctl judged/core"
commands='\b(queue_cmdv?|redis(v)?Command(Argv)?|redisAppendCommand(Argv)?|redisGetReply|redisConnect[A-Za-z]*|queue_key)[[:space:]]*\('
# a key name inside a string literal (comments may name keys to explain)
keys='"[^"]*judge:[{a-z][^"]*"'

found=0
checked=0
while IFS= read -r file; do
    checked=$((checked + 1))
    while IFS= read -r hit; do
        echo "$file:$hit" >&2
        found=$((found + 1))
    done < <(grep -nE "$commands|$keys" "$file" | grep -vE '^[0-9]+:[[:space:]]*(/?\*|//)')
done < <(find $folders -name '*.[ch]' | sort)

if [ "$checked" -eq 0 ]; then
    echo "redis_boundary: no source files under $folders" >&2
    exit 2
fi
if [ "$found" -gt 0 ]; then
    echo "redis_boundary: $found Redis command(s) or key name(s) outside judged/queue and judged/store:" \
         "add a function to queue.h or store.h instead" >&2
    exit 1
fi
echo "redis_boundary: $checked files of $folders name no Redis command and no key"
