#!lua name=judged_store
--[[
store.lua - the problem store's atomic steps as ONE Redis Functions library
(judged/store/store.c is the C side; key layout in store.h and
judged/DESIGN.md, "Problem store"). Blobs are uploaded by plain HSETs into
a staging key of their own and made whole by judged_store_blob_put; what
must happen at once - checking that every blob is there, the quota,
reference counts, the manifest and the current version - happens in
judged_store_commit.

Keys of commit and remove, in this order (the store's metadata: on a Redis
Cluster all of them carry the tag {store}, one slot; on one Redis they keep
the names of version 4): PREFIX problem:NAME, problem:NAME:versions,
manifest:V, version:V:names, problems, store:bytes, store:refs,
store:pins. Blobs (judge:blob:SHA) are never keys of these: each blob is
touched by one-key calls of its own (blob_put, blob_pin, blob_unpin,
unstage), in whatever slot its name falls.

Versions: 2 a blob is whole or absent, one no version lists expires.
3 (issue 28) a version's summary (what GET /v1/problems shows: title, type,
limits, as the runner read them; JSON) is the field summary:V of
judge:problem:NAME: commit takes it as an optional last argument (a caller
of version 2's layout still commits, recording none) and records it even
when V is current already (pushing the same content again fills in a
summary version 2 never recorded); remove deletes it. The key layouts are
version 2's.
4 (issue 40) judged_store_verify_claim: one verify of a problem's version
at a time (judge-api's POST .../verify); judged_store_unstage: a refused
upload's blobs that no version references go at once, not after a week.
5 (issue 41) blobs out of the metadata functions, so that a cluster runs
them: what a blob's life needs is on the blob (pins), what the quota needs
is in the metadata (store:refs). A push pins each blob with a token of its
own (field p:TOKEN, count `pins`; persistent while pinned), then commits;
a new version records its pusher's token (store:pins), and the blob
reference counts move to store:refs (SHA -> versions listing it), built
once by the first commit or remove from what version 4 left (a blob's
`refs` field then stays as a legacy pin, released when its version goes).
A push whose commit does not record its token (the version existed, or
the commit was refused) releases its pins; remove releases the recorded
token's. Each push having its own token, a remove and a push of the same
content at once never take the other's pin away. A pusher that dies
between its pins and its commit leaves its blobs pinned: bytes kept, never
a blob lost.
]]

-- Bump on any change to this file: a program loads the library only over
-- an older one.
local VERSION = 5

local function fail(msg)
  error({err = 'ERR store: ' .. msg})
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

redis.register_function{function_name = 'judged_store_version', flags = {'no-writes'},
  callback = function() return VERSION end}

-- The distinct blobs a manifest lists ("SHA SIZE PATH" lines): {{sha, size}}.
local function manifest_blobs(text)
  local seen, list = {}, {}
  for sha, size in string.gmatch(text, '(%x+) (%d+) [^\n]*\n') do
    if not seen[sha] then
      seen[sha] = true
      list[#list + 1] = {sha, tonumber(size)}
    end
  end
  return list
end

-- store:refs (keys[7]) from what version 4 left, once: every version some
-- problem lists counts once for each distinct blob of its manifest (as
-- version 4's blob refs did). A cluster never held a store before version
-- 5: there it finds nothing to count. The keys read are the metadata's,
-- of the same prefix (keys[5] is PREFIX problems).
local function ensure_refs(keys)
  if redis.call('HEXISTS', keys[7], '.layout') == 1 then return end
  local prefix = string.sub(keys[5], 1, #keys[5] - #'problems')
  local counted = {}
  for _, name in ipairs(redis.call('SMEMBERS', keys[5])) do
    for _, v in ipairs(redis.call('ZRANGE', prefix .. 'problem:' .. name .. ':versions', 0, -1)) do
      if not counted[v] then
        counted[v] = true
        local man = redis.call('GET', prefix .. 'manifest:' .. v)
        for _, b in ipairs(man and manifest_blobs(man) or {}) do
          redis.call('HINCRBY', keys[7], b[1], 1)
        end
      end
    end
  end
  redis.call('HSET', keys[7], '.layout', VERSION)
end

-- args: name, version, manifest, quota (bytes, 0 = none), token (the
-- pusher's pins), summary ('' = none), then SHA, SIZE of each distinct
-- blob (pinned by the caller, judged_store_blob_pin, which checked that it
-- is whole and of that size).
-- A new version: the bytes of blobs no stored version listed yet are added
-- to store:bytes, refused past the quota; each blob's count in store:refs
-- += 1; the token is recorded as the one holding V's blobs. Then the
-- version becomes NAME's current one.
-- reply: {'result', 'new'|'current'|'revived', 'previous', V or ''}; only
-- 'new' keeps the caller's pins.
redis.register_function('judged_store_commit', function(keys, a)
  if #keys ~= 8 or #a < 6 or (#a - 6) % 2 ~= 0 then fail('bad arguments') end
  local name, ver, man, quota, token = a[1], a[2], a[3], tonumber(a[4]) or 0, a[5]
  local summary = a[6] ~= '' and a[6] or nil
  ensure_refs(keys)
  local cur = redis.call('HGET', keys[1], 'current')
  if cur == ver then
    if summary then redis.call('HSET', keys[1], 'summary:' .. ver, summary) end
    return {'result', 'current', 'previous', cur}
  end
  local fresh = redis.call('EXISTS', keys[3]) == 0
  if fresh then
    local added = 0
    for i = 7, #a, 2 do
      if (tonumber(redis.call('HGET', keys[7], a[i]) or '0') or 0) <= 0 then
        added = added + (tonumber(a[i + 1]) or 0)
      end
    end
    local bytes = tonumber(redis.call('GET', keys[6]) or '0')
    if quota > 0 and bytes + added > quota then
      fail('quota exceeded: the store holds ' .. bytes .. ' bytes, this version adds ' .. added ..
           ', the quota is ' .. quota)
    end
    for i = 7, #a, 2 do redis.call('HINCRBY', keys[7], a[i], 1) end
    redis.call('INCRBY', keys[6], added)
    redis.call('SET', keys[3], man)
    redis.call('HSET', keys[8], ver, token)
  end
  local now = now_ms()
  redis.call('SADD', keys[4], name)
  redis.call('HSET', keys[1], 'current', ver, 'updated', now)
  if summary then redis.call('HSET', keys[1], 'summary:' .. ver, summary) end
  redis.call('ZADD', keys[2], now, ver)
  redis.call('SADD', keys[5], name)
  return {'result', fresh and 'new' or 'revived', 'previous', cur or ''}
end)

-- Whether a blob is held: pinned by a push's token, or referenced by a
-- version committed before version 5 (its `refs`).
local function held(key)
  local m = redis.call('HMGET', key, 'pins', 'refs')
  return (tonumber(m[1] or '0') or 0) > 0 or (tonumber(m[2] or '0') or 0) > 0
end

-- keys: a blob's staging key (judge:part:{judge:blob:SHA}:TOKEN, private to one
-- push, in the blob's slot), the blob judge:blob:SHA. args: n (chunks),
-- size, ttl (ms).
-- The staged copy becomes the blob, complete, unless the blob is complete
-- already (another push of the same content finished first: the same
-- bytes, the copy is dropped). Until a push pins it the blob expires after
-- ttl: an upload that was refused, or a push that died before its pins,
-- leaves nothing for good.
-- reply: 'stored' | 'present'
redis.register_function('judged_store_blob_put', function(keys, a)
  if #keys ~= 2 or #a ~= 3 then fail('bad arguments') end
  if redis.call('HEXISTS', keys[2], 'size') == 1 then
    redis.call('DEL', keys[1])
    return 'present'
  end
  if redis.call('EXISTS', keys[1]) == 0 then fail(keys[1] .. ' is gone (expired before it was complete)') end
  redis.call('HSET', keys[1], 'n', a[1], 'size', a[2])
  redis.call('RENAME', keys[1], keys[2])
  redis.call('PEXPIRE', keys[2], a[3])
  return 'stored'
end)

-- keys: judge:blob:SHA; args: token, size. The blob must be whole and of
-- that size; the token's pin holds it (persistent) until released.
-- Pinning twice with one token is one pin.
-- reply: 'pinned'
redis.register_function('judged_store_blob_pin', function(keys, a)
  if #keys ~= 1 or #a ~= 2 then fail('bad arguments') end
  local size = redis.call('HGET', keys[1], 'size')
  if not size then fail(keys[1] .. ' is missing or incomplete') end
  if tonumber(size) ~= tonumber(a[2]) then fail(keys[1] .. ' has another size') end
  if redis.call('HSETNX', keys[1], 'p:' .. a[1], '1') == 1 then
    redis.call('HINCRBY', keys[1], 'pins', 1)
  end
  redis.call('PERSIST', keys[1])
  return 'pinned'
end)

-- keys: judge:blob:SHA; args: token ('' = a reference of version 4's:
-- the blob's refs), then 'drop' (a removed version: a blob nothing holds
-- goes now) or 'expire' (a push's spare pins: it expires after ttl, as an
-- upload no version took), ttl (ms).
-- reply: 'kept' | 'dropped' | 'expiring' | 'gone'
redis.register_function('judged_store_blob_unpin', function(keys, a)
  if #keys ~= 1 or #a ~= 3 then fail('bad arguments') end
  if redis.call('EXISTS', keys[1]) == 0 then return 'gone' end
  if a[1] == '' then
    redis.call('HINCRBY', keys[1], 'refs', -1)
  elseif redis.call('HDEL', keys[1], 'p:' .. a[1]) == 1 then
    redis.call('HINCRBY', keys[1], 'pins', -1)
  end
  if held(keys[1]) then return 'kept' end
  if a[2] == 'drop' then
    redis.call('DEL', keys[1])
    return 'dropped'
  end
  redis.call('PEXPIRE', keys[1], a[3])
  return 'expiring'
end)

-- args: name, version, then SHA, SIZE of each distinct blob of the
-- version. Removes a version that is not NAME's current one; when no
-- problem lists it any more, its manifest goes, each blob's count in
-- store:refs goes down (the bytes of those no version lists any more
-- leave store:bytes) and the caller is told which pins to release.
-- reply: {'result', 'removed', 'freed', BYTES, 'release', 0|1, 'token',
-- TOKEN ('' = version 4's refs)}
redis.register_function('judged_store_remove', function(keys, a)
  if #keys ~= 8 or #a < 2 or #a % 2 ~= 0 then fail('bad arguments') end
  local name, ver = a[1], a[2]
  ensure_refs(keys)
  if redis.call('HGET', keys[1], 'current') == ver then
    fail('version ' .. ver .. ' is the current version of ' .. name .. ': push another first')
  end
  if not redis.call('ZSCORE', keys[2], ver) then
    fail('problem ' .. name .. ' has no version ' .. ver)
  end
  redis.call('ZREM', keys[2], ver)
  redis.call('HDEL', keys[1], 'summary:' .. ver)
  redis.call('SREM', keys[4], name)
  if redis.call('SCARD', keys[4]) > 0 then
    return {'result', 'removed', 'freed', 0, 'release', 0, 'token', ''}
  end
  local freed = 0
  for i = 3, #a, 2 do
    if redis.call('HINCRBY', keys[7], a[i], -1) <= 0 then
      redis.call('HDEL', keys[7], a[i])
      freed = freed + (tonumber(a[i + 1]) or 0)
    end
  end
  redis.call('DECRBY', keys[6], freed)
  redis.call('DEL', keys[3])
  local token = redis.call('HGET', keys[8], ver) or ''
  redis.call('HDEL', keys[8], ver)
  return {'result', 'removed', 'freed', freed, 'release', 1, 'token', token}
end)

-- keys: judge:verify:running:NAME:V; args: id, expected ('' = none), ttl
-- (s). Makes id the running verify of that version when the key holds
-- `expected` (nothing, or a verify the caller found finished), so two
-- requests that both found none running start one verify, not two.
-- reply: the id the key holds now ('' = none)
redis.register_function('judged_store_verify_claim', function(keys, a)
  if #keys ~= 1 or #a ~= 3 then fail('bad arguments') end
  local cur = redis.call('GET', keys[1]) or ''
  if cur ~= a[2] then return cur end
  redis.call('SET', keys[1], a[1], 'EX', a[3])
  return a[1]
end)

-- keys: judge:blob:SHA of a refused (or failed) upload (on a cluster one
-- at a time: each blob has its own slot). Deletes each that nothing holds
-- (no pin, no refs of version 4): what a refused upload staged leaves
-- Redis at once instead of filling it for a week.
-- reply: bytes freed
redis.register_function('judged_store_unstage', function(keys, a)
  local freed = 0
  for i = 1, #keys do
    if redis.call('EXISTS', keys[i]) == 1 and not held(keys[i]) then
      freed = freed + (tonumber(redis.call('HGET', keys[i], 'size') or '0') or 0)
      redis.call('DEL', keys[i])
    end
  end
  return freed
end)
