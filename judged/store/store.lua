#!lua name=judged_store
--[[
store.lua - the problem store's atomic steps as ONE Redis Functions library
(judged/store/store.c is the C side; key layout in store.h and
judged/DESIGN.md, "Problem store"). Blobs are uploaded by plain HSETs into
a staging key of their own and made whole by judged_store_blob_put; what
must happen at once - checking that every blob is there, the quota,
reference counts, the manifest and the current version - happens in
judged_store_commit.

Keys of commit and remove, in this order: judge:problem:NAME,
judge:problem:NAME:versions, judge:manifest:V, judge:version:V:names,
judge:problems, judge:store:bytes, then the version's distinct blobs
judge:blob:SHA. Every key is declared: on a Redis Cluster these keys would
need one hash tag (see DESIGN.md); on one Redis they need nothing.

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
]]

-- Bump on any change to this file: a program loads the library only over
-- an older one.
local VERSION = 4

local function fail(msg)
  error({err = 'ERR store: ' .. msg})
end

local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

redis.register_function{function_name = 'judged_store_version', flags = {'no-writes'},
  callback = function() return VERSION end}

-- args: name, version, manifest, quota (bytes, 0 = none), then the size of
-- each blob key (in key order), then optionally the version's summary.
-- A new version: every blob must be complete (field size) with the size the
-- manifest says; the bytes of blobs no stored version referenced yet are
-- added to judge:store:bytes, refused past the quota; each blob's refs += 1
-- (once per version). Then the version becomes NAME's current one.
-- reply: {'result', 'new'|'current'|'revived', 'previous', V or ''}
redis.register_function('judged_store_commit', function(keys, a)
  local name, ver, man, quota = a[1], a[2], a[3], tonumber(a[4]) or 0
  if #keys < 6 or (#a ~= #keys - 2 and #a ~= #keys - 1) then fail('bad arguments') end
  local summary = (#a == #keys - 1) and a[#a] or nil
  local cur = redis.call('HGET', keys[1], 'current')
  if cur == ver then
    if summary then redis.call('HSET', keys[1], 'summary:' .. ver, summary) end
    return {'result', 'current', 'previous', cur}
  end
  local fresh = redis.call('EXISTS', keys[3]) == 0
  if fresh then
    local added = 0
    for i = 7, #keys do
      local b = redis.call('HMGET', keys[i], 'size', 'refs')
      if not b[1] then fail(keys[i] .. ' is missing or incomplete') end
      if tonumber(b[1]) ~= tonumber(a[i - 2]) then fail(keys[i] .. ' has another size') end
      if not b[2] or tonumber(b[2]) <= 0 then added = added + tonumber(b[1]) end
    end
    local bytes = tonumber(redis.call('GET', keys[6]) or '0')
    if quota > 0 and bytes + added > quota then
      fail('quota exceeded: the store holds ' .. bytes .. ' bytes, this version adds ' .. added ..
           ', the quota is ' .. quota)
    end
    -- referenced from now on: no longer the leftover that expires
    for i = 7, #keys do
      redis.call('HINCRBY', keys[i], 'refs', 1)
      redis.call('PERSIST', keys[i])
    end
    redis.call('INCRBY', keys[6], added)
    redis.call('SET', keys[3], man)
  end
  local now = now_ms()
  redis.call('SADD', keys[4], name)
  redis.call('HSET', keys[1], 'current', ver, 'updated', now)
  if summary then redis.call('HSET', keys[1], 'summary:' .. ver, summary) end
  redis.call('ZADD', keys[2], now, ver)
  redis.call('SADD', keys[5], name)
  return {'result', fresh and 'new' or 'revived', 'previous', cur or ''}
end)

-- keys: a blob's staging key (judge:blob:SHA:part:TOKEN, private to one
-- push), the blob judge:blob:SHA. args: n (chunks), size, ttl (ms).
-- The staged copy becomes the blob, complete, unless the blob is complete
-- already (another push of the same content finished first: the same
-- bytes, the copy is dropped). Until a commit references it the blob
-- expires after ttl: an upload that was refused, or a push that died
-- before its commit, leaves nothing for good.
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

-- args: name, version. Removes a version that is not NAME's current one;
-- when no problem lists it any more, its manifest goes, and so does every
-- blob no other version references (its bytes leave judge:store:bytes).
-- reply: {'result', 'removed', 'freed', BYTES}
redis.register_function('judged_store_remove', function(keys, a)
  local name, ver = a[1], a[2]
  if #keys < 6 then fail('bad arguments') end
  if redis.call('HGET', keys[1], 'current') == ver then
    fail('version ' .. ver .. ' is the current version of ' .. name .. ': push another first')
  end
  if not redis.call('ZSCORE', keys[2], ver) then
    fail('problem ' .. name .. ' has no version ' .. ver)
  end
  redis.call('ZREM', keys[2], ver)
  redis.call('HDEL', keys[1], 'summary:' .. ver)
  redis.call('SREM', keys[4], name)
  local freed = 0
  if redis.call('SCARD', keys[4]) == 0 then
    for i = 7, #keys do
      if redis.call('HINCRBY', keys[i], 'refs', -1) <= 0 then
        freed = freed + tonumber(redis.call('HGET', keys[i], 'size') or '0')
        redis.call('DEL', keys[i])
      end
    end
    redis.call('DECRBY', keys[6], freed)
    redis.call('DEL', keys[3])
  end
  return {'result', 'removed', 'freed', freed}
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

-- keys: judge:blob:SHA of a refused (or failed) upload. Deletes each that
-- no version references (no refs): what a refused upload staged leaves
-- Redis at once instead of filling it for a week.
-- reply: bytes freed
redis.register_function('judged_store_unstage', function(keys, a)
  local freed = 0
  for i = 1, #keys do
    local m = redis.call('HMGET', keys[i], 'refs', 'size')
    if (tonumber(m[1] or '0') or 0) <= 0 then
      freed = freed + (tonumber(m[2] or '0') or 0)
      redis.call('DEL', keys[i])
    end
  end
  return freed
end)
