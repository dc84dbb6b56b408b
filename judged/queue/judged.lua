#!lua name=judged
--[[
judged.lua - the queue protocol of judged as ONE Redis Functions library
(Redis >= 7.0: FUNCTION LOAD, FCALL). judged embeds this file at build time
and loads it at start (FUNCTION LOAD REPLACE when Redis holds an older
version); judged/queue/queue.c is the C side, one function per operation.
Protocol and key layout: judged/DESIGN.md.

Calling convention: every function takes exactly one key, the pool's normal
queue judge:{POOL}:q:normal (it routes the call to the pool's node in a
cluster), and its arguments as a flat field/value list, e.g.

  FCALL judged_admit 1 judge:{native}:q:normal pool native lang c \
        problem aplusb source "<the source>" key platform-42

Every key a function touches carries the pool's hash tag {POOL}. Replies are
flat field/value lists too ({'result', 'admitted', 'id', ...}), except where a
plain list is the natural answer (renew: the entries we lost). Bad arguments
are error replies starting with "ERR judged:".

Functions that act on a claimed entry first check that the caller still owns
it (XPENDING for that entry and consumer): XCLAIM, XACK and XDEL have no owner
check of their own.
]]

-- Bump on every change, of a function's arguments or reply or only of its
-- code: judged loads the library only over an OLDER one (and refuses to
-- replace a NEWER one: another host runs a newer judged), so an unbumped
-- change never reaches a Redis that holds the previous text. Version 9
-- changed code alone; hosts of version 8 keep working against it. Version
-- 10 leaves empty fields out of claim replies, which hosts of versions 8
-- and 9 read as empty (a missing field is an empty one to queue.c).
-- Version 11 acknowledges and trims from the head instead of XDEL (release
-- below); older hosts' XDELs still work beside it, only the lag they spoil
-- stays unknown until the head passes their tombstones. Version 12
-- rewrites the idempotency key on a duplicate admission (replicated
-- admission: the retry's WAIT then covers the original write).
-- Version 13 keeps a submission's result (verdict, score, report,
-- finished, dead, and a rejudge's rejudge/previous_verdict/previous_score)
-- in judge:{P}:res:ID, a key only judged's and the admin's functions
-- write: the platform's ACL user writes submission hashes (admission) and
-- could rewrite a verdict kept there (issue 25). Hosts and readers of
-- version 12 and older read verdicts from the submission hash: upgrade
-- them together (README, "Roles"); judged copies the results of
-- submissions finished before, once (judged_migrate_result below).
-- Version 14 adds checkpoints (issue 27): judged_progress takes a test's
-- record, the judging's identity and the host, and keeps the record in
-- judge:{P}:ckpt:ID (a new identity empties it first); judged_checkpoint
-- reads it for a host taking the job over, judged_note adds a line to the
-- attempt history (the takeover resumed, or started over and why); a
-- published finish (when its new argument ckpt says there is one), a dead
-- letter and a rejudge delete it. Hosts of
-- version 13 call judged_progress without a record and keep working
-- against it (their jobs leave no checkpoint, so a takeover starts over).
-- Version 15 (issue 40) admits priority 'verify' (a package's own
-- submissions, judge-api's verify): into the rejudge lane (judge:{P}:rejudge,
-- what contest and normal work leave over), bounded by max_queue on its own
-- and never counted against contest and normal admissions (a job a host
-- has taken is pending in q:normal like a rejudge's: at most the pool's
-- slots); its retries (at once: no delayed entry) and requeues go back to
-- that lane; judged_cancel takes a waiting one off it. Hosts of version 14 keep working against it (the lane is claimed as
-- before).
local VERSION = 15
local GROUP = 'judged'

local function fail(msg)
  error({err = 'ERR judged: ' .. msg})
end

local function key(pool, suffix)
  return 'judge:{' .. pool .. '}:' .. suffix
end

-- a submission's result hash: judge:{P}:res:ID (the submission: sub:ID).
-- A submission is done when its result has a verdict; the submission
-- hash's own 'state' (queued, running, done) is informational: the
-- platform's ACL user may write it, so no decision rests on it.
local function res_key(pool, sid)
  return key(pool, 'res:' .. sid)
end

-- the one naming rule of pools, languages and problems (queue_valid_name in
-- queue.c is the same rule): 1..128 of [A-Za-z0-9_.-], not starting with '.'
-- or '-' (no paths, no dot files, no options)
local function valid_name(s)
  return type(s) == 'string' and #s >= 1 and #s <= 128 and
         string.find(s, '^[%w_][%w_.-]*$') ~= nil
end

-- flat field/value list -> table; later fields win
local function argmap(a)
  if #a % 2 ~= 0 then fail('arguments must be field/value pairs') end
  local t = {}
  for i = 1, #a, 2 do t[a[i]] = a[i + 1] end
  return t
end

local function need_all(t, names)
  for i = 1, #names do
    if t[names[i]] == nil then fail('missing argument \'' .. names[i] .. '\'') end
  end
end

local function need(t, ...)
  need_all(t, {...})
end

-- Pool names already found valid: the name check is a pattern match, ~2%
-- of a job's instructions in Redis (callgrind), and a host sends the same
-- few names all day. Bounded, so that callers inventing names cannot grow
-- it; a pure cache of a pure check (nothing in it is replicated or kept).
local valid_pools, nvalid_pools = {}, 0

-- the pool, checked, and the queue key the caller passed must be its own
local function pool_of(keys, t)
  need(t, 'pool')
  if not valid_pools[t.pool] then
    if not valid_name(t.pool) then fail('bad pool name \'' .. t.pool .. '\'') end
    if nvalid_pools < 1000 then valid_pools[t.pool], nvalid_pools = true, nvalid_pools + 1 end
  end
  if keys[1] ~= key(t.pool, 'q:normal') then
    fail('the key must be ' .. key(t.pool, 'q:normal'))
  end
  return t.pool
end

-- Redis' clock in ms, as the string HSET and XADD write and as a number.
-- Every Lua number passed to redis.call is formatted with "%.14g" (~4,000
-- instructions a time, callgrind), so the hot path passes strings.
local function now_pair()
  local t = redis.call('TIME')
  local us = t[2]
  local s = t[1] .. string.sub(string.rep('0', 6 - #us) .. us, 1, 3)
  return s, tonumber(s)
end

local function now_ms()
  local _, n = now_pair()
  return n
end

local QUEUES = {contest = 'q:contest', normal = 'q:normal'}
local function queue_key(pool, q)
  if not QUEUES[q] then fail('queue must be contest or normal, not \'' .. tostring(q) .. '\'') end
  return key(pool, QUEUES[q])
end

local function owned(k, consumer, eid)
  return #redis.call('XPENDING', k, GROUP, eid, eid, '1', consumer) > 0
end

-- the group's fields of XINFO GROUPS k as a table (nil: no such group)
local function group_info(k)
  for _, gi in ipairs(redis.call('XINFO', 'GROUPS', k)) do
    local g = {}
    for j = 1, #gi, 2 do g[gi[j]] = gi[j + 1] end
    if g.name == GROUP then return g end
  end
  return nil
end

local function lastdelivered(k)
  local g = group_info(k)
  return g and g['last-delivered-id'] or '0-0'
end

-- the stream id right after id (an XTRIM MINID that removes id itself)
local function after(id)
  local ms, seq = string.match(id, '^(%d+)-(%d+)$')
  if not ms or #seq > 15 then return id end   -- never with '*' ids: keep that one
  return ms .. '-' .. string.format('%d', tonumber(seq) + 1)
end

-- Acknowledges entry eid of work queue k and trims the stream's head: up to
-- the oldest pending entry, or with none pending past eid itself (every
-- entry up to eid has then been read and acknowledged). Never XDEL:
-- deleting an entry the group has read (the last delivered one, while an
-- older one still runs) leaves a tombstone, and Redis then reports the
-- group's lag as unknown (nil) in XINFO GROUPS. The lag is what an
-- autoscaler reads (KEDA's redis-streams scaler, /metrics'
-- judged_queue_lag); trimming from the head keeps it exact. Entries that
-- ended behind an older running one stay until a later release passes
-- them (not XINFO GROUPS for the exact last-delivered id: it cost a job
-- ~33k Redis instructions, 8%; DESIGN.md, "Lag").
local function release(k, eid)
  redis.call('XACK', k, GROUP, eid)
  local p = redis.call('XPENDING', k, GROUP)
  redis.call('XTRIM', k, 'MINID', p[1] > 0 and p[2] or after(eid))
end

-- Jobs of work queue k that wait or run: the group's lag (entries no host
-- has read) plus its pending entries. XLEN counts finished entries still
-- behind a running one too; it is the answer only where Redis cannot tell
-- the lag (tombstones of an older library's XDEL) or no group exists yet.
local function backlog(k)
  if redis.call('EXISTS', k) == 0 then return 0 end
  local g = group_info(k)
  if g and type(g.lag) == 'number' then return g.lag + g.pending end
  return redis.call('XLEN', k)
end

local function entry_sid(fields, pool)
  local sid = ''
  if fields then
    for i = 1, #fields, 2 do if fields[i] == 'id' then sid = fields[i + 1] end end
  end
  if string.sub(sid, 1, #pool + 1) ~= pool .. '-' or string.find(sid, '[{}:]') then return nil end
  return sid
end

-- a submission's checkpoint: the records of its finished tests (fields
-- t1, t2, ...) under the identity of the judging that made them
local function ckpt_key(pool, sid)
  return key(pool, 'ckpt:' .. sid)
end

-- one step of a submission's progress, for judge-api's
-- GET /v1/submissions/ID/events; the stream expires an hour after its last step
local function progress(pool, sid, stage, test, count, verdict, host)
  local k = key(pool, 'progress:' .. sid)
  if host then
    redis.call('XADD', k, 'MAXLEN', '~', '10000', '*', 'stage', stage, 'test', test,
               'count', count, 'verdict', verdict, 'host', host)
  else
    redis.call('XADD', k, 'MAXLEN', '~', '10000', '*', 'stage', stage, 'test', test,
               'count', count, 'verdict', verdict)
  end
  redis.call('PEXPIRE', k, 3600000)
end

-- a test's record into the checkpoint; records of another judging (a
-- start-over: another binary, problem, language file) go first. It expires
-- with the progress stream: a job left waiting longer starts over.
local function checkpoint(pool, sid, test, identity, record)
  local k = ckpt_key(pool, sid)
  if redis.call('HGET', k, 'identity') ~= identity then
    redis.call('DEL', k)
    redis.call('HSET', k, 'identity', identity, 't' .. test, record)
  else
    redis.call('HSET', k, 't' .. test, record)
  end
  redis.call('PEXPIRE', k, 3600000)
end

-- one read or claimed entry -> a job for the caller (or nothing: an entry
-- deleted while pending, or a submission already done); now_s, now: the
-- clock (now_pair)
local function job(q, stream, e, out, host, pool, now_s, now)
  if not e then return end
  local eid, f = e[1], e[2]
  if not f then redis.call('XACK', stream, GROUP, eid) return end
  local sid = entry_sid(f, pool)
  if not sid then
    table.insert(out, {'queue', q, 'entry', eid, 'id', '',
                       'poison', 'poison: entry has no valid submission id'})
    return
  end
  local sk = key(pool, 'sub:' .. sid)
  local v = redis.call('HMGET', sk, 'lang', 'problem', 'source', 'attempts', 'state', 'version',
                       'created', 'rejudged')
  if not v[1] or not v[2] or not v[3] then
    table.insert(out, {'queue', q, 'entry', eid, 'id', sid,
                       'poison', 'poison: submission ' .. sid .. ' is missing or incomplete'})
    return
  end
  if redis.call('HEXISTS', res_key(pool, sid), 'verdict') == 1 then
    release(stream, eid) return
  end
  -- no "compiling" progress entry: judge-api derives that first step from
  -- the state (an XADD to a new key and its PEXPIRE were ~a quarter of a
  -- claim's time in Redis; library version 8)
  redis.call('HSET', sk, 'state', 'running', 'host', host, 'started', now_s)
  -- wait: admission (or the rejudge) to now on Redis' clock (the metrics'
  -- definition), for judged's per-job log line and the host's metrics
  -- (queue_stats: hosts count published verdicts, see judged_finish)
  local since = tonumber(v[8] or v[7] or '')
  -- fields that would be empty are left out (the reader takes a missing
  -- field as empty): every element of the reply is converted twice
  local j = {'queue', q, 'entry', eid, 'id', sid, 'lang', v[1], 'problem', v[2], 'source', v[3],
             'attempts', v[4] or '0', 'wait', since and math.max(0, now - since) or -1}
  if v[6] and v[6] ~= '' then j[17], j[18] = 'version', v[6] end
  out[#out + 1] = j
end

-- dead-letter an owned entry; the submission (if any) gets the final
-- verdict IE and its one result event
-- Counters for metrics (judge-api's GET /metrics) in judge:{P}:stats. A
-- verdict judged_finish publishes is counted by its host (queue_stats in
-- queue.c, written once per heartbeat); a dead letter's IE is counted here,
-- by bury: verdicts by name, and histograms (non-cumulative buckets, upper
-- bounds in ms) of the queue wait (created -> started) and of judging
-- (started -> finished), with their sums. A histogram's count is the sum
-- of its buckets (the reader adds them up): no ':count' field, two
-- HINCRBYs fewer per job (library version 6).
local BUCKETS = {10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000}
local function observe(stats, name, ms)
  local b = '+Inf'
  for _, le in ipairs(BUCKETS) do
    if ms <= le then b = tostring(le) break end
  end
  redis.call('HINCRBY', stats, name .. ':le:' .. b, 1)
  redis.call('HINCRBY', stats, name .. ':sum', ms)
end
-- created, started, rejudged: the submission's fields
local function count_verdict(pool, verdict, now, created, started, rejudged)
  local stats = key(pool, 'stats')
  redis.call('HINCRBY', stats, 'verdict:' .. verdict, 1)
  -- a rejudge waited from its rejudge, not from the original admission
  created, started = tonumber(rejudged or created or ''), tonumber(started or '')
  if created and started then observe(stats, 'wait', math.max(0, started - created)) end
  if started then observe(stats, 'judging', math.max(0, now - started)) end
end

-- retention (ms, 0 = keep): a finished submission's hash expires that long
-- after its verdict; a rejudge or a requeue makes it live again (PERSIST)
local function expire_after(k, ms)
  if ms and ms > 0 then redis.call('PEXPIRE', k, ms) end
end

-- ret: {results_max, retention, dlq_retention} (named arguments of the caller)
local function bury(pool, q, eid, sid, host, reason, ret)
  local stream, sub, now = queue_key(pool, q), key(pool, 'sub:' .. sid), now_ms()
  local attempts = redis.call('HGET', sub, 'attempts') or '0'
  local history = redis.call('HGET', sub, 'history') or '[]'
  if sid ~= '' then redis.call('DEL', ckpt_key(pool, sid)) end
  local orig = redis.call('XRANGE', stream, eid, eid)
  local of = {}
  if orig[1] and orig[1][2] then
    for i = 1, #orig[1][2], 2 do of[orig[1][2][i]] = orig[1][2][i + 1] end
  end
  local f = {'id', sid, 'entry', eid, 'reason', reason, 'attempts', attempts,
             'history', history, 'fields', cjson.encode(of), 'time', now, 'host', host}
  if sid ~= '' then
    local m = redis.call('HMGET', sub, 'lang', 'problem', 'priority')
    if m[1] then table.insert(f, 'lang') table.insert(f, m[1]) end
    if m[2] then table.insert(f, 'problem') table.insert(f, m[2]) end
    if m[3] then table.insert(f, 'priority') table.insert(f, m[3]) end
  end
  -- dead letters are kept dlq_retention: older ones are trimmed by each new
  -- one, and the stream itself expires dlq_retention after its newest
  local dlq = key(pool, 'dlq')
  if ret.dlq > 0 then
    redis.call('XADD', dlq, 'MINID', tostring(math.max(0, now - ret.dlq)), '*', unpack(f))
    redis.call('PEXPIRE', dlq, ret.dlq)
  else
    redis.call('XADD', dlq, '*', unpack(f))
  end
  local rk = sid ~= '' and res_key(pool, sid)
  if sid ~= '' and redis.call('EXISTS', sub) == 1 and redis.call('HEXISTS', rk, 'verdict') == 0 then
    -- the runner's report shape (DESIGN.md, "The stored report"); written as
    -- text because cjson would encode the empty tests list as an object
    local pv = redis.call('HGET', sub, 'version') or ''
    local rep = '{"verdict":"IE","score":0,"compile":null,"tests":[],"subtasks":[],"message":' ..
                cjson.encode(reason) .. ',"problem_version":' ..
                (pv ~= '' and cjson.encode(pv) or 'null') .. '}'
    redis.call('HSET', rk, 'verdict', 'IE', 'score', '0', 'report', rep, 'finished', now, 'dead', '1')
    redis.call('HSET', sub, 'state', 'done')
    local m = redis.call('HMGET', sub, 'created', 'started', 'rejudged')
    count_verdict(pool, 'IE', now, m[1], m[2], m[3])
    redis.call('XADD', key(pool, 'results'), 'MAXLEN', '~', ret.max, '*', 'id', sid, 'verdict', 'IE',
               'score', '0', 'pool', pool, 'time', now, 'problem_version', pv)
    -- requeue needs the submission while its dead letter lives: the longer
    -- of the two periods, or kept when either keeps
    if ret.keep > 0 and ret.dlq > 0 then
      expire_after(sub, math.max(ret.keep, ret.dlq))
      expire_after(rk, math.max(ret.keep, ret.dlq))
    end
  end
  release(stream, eid)
end

local function num(t, name, default)
  local v = t[name]
  if v == nil then return default end
  local n = tonumber(v)
  if not n then fail('argument \'' .. name .. '\' must be a number, not \'' .. v .. '\'') end
  return n
end

-- a whole number argument as redis.call takes it: the caller's digits as
-- they are, else v (its num() value) formatted as an integer
local function int_arg(t, name, v)
  local s = t[name]
  if s and string.find(s, '^%d+$') then return s end
  return string.format('%d', v)
end

-- the retention arguments of finish, retry and dead_letter (ms, 0 = keep)
local function retention_args(t)
  return {max = t.results_max or '100000', keep = num(t, 'retention', 0),
          dlq = num(t, 'dlq_retention', 0)}
end

-------------------------------------------------------------------- version

redis.register_function{function_name = 'judged_version', flags = {'no-writes'},
  callback = function() return VERSION end}

-- Queues submission id of priority pr: contest and normal on their
-- streams; verify in the rejudge lane (claimed after them).
local function enqueue(pool, id, pr)
  if pr == 'verify' then redis.call('RPUSH', key(pool, 'rejudge'), id)
  else redis.call('XADD', key(pool, pr == 'contest' and 'q:contest' or 'q:normal'), '*', 'id', id) end
end

---------------------------------------------------------------------- admit
-- args: pool, lang, problem, source; optional key (idempotency), priority
-- (contest|normal), max_queue and max_source (default: what judged
-- published in judge:{P}:config), version (the problem version to judge
-- with: 64 hex digits, or '' for the hosts' local problems directory).
-- Without `version` the problem store's current version of the problem is
-- recorded (judge:problem:NAME, read here: the one key outside the pool's
-- hash tag, fine on one Redis; a cluster client passes `version`), or ''
-- when the store does not hold the problem. The language must be one the
-- pool serves (judge:{P}:config languages, when published). Optional owner,
-- hash, callback, metadata are stored with the submission (judge-api: the
-- token's name, the request's hash, the webhook URL, the platform's
-- metadata); with hash, the same key and another hash is a 'conflict'
-- (nothing written). The idempotency key expires after idempotency_ttl ms
-- (default: what judged published; 0 = kept); a key whose submission has
-- expired (retention) admits anew.
-- reply: {'result', 'admitted'|'duplicate'|'conflict', 'id', ID} or {'result', 'busy', 'waiting', N}
local function admit(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'lang', 'problem', 'source')
  if not valid_name(t.lang) then fail('bad language name \'' .. t.lang .. '\'') end
  if not valid_name(t.problem) then fail('bad problem name \'' .. t.problem .. '\'') end
  local pr = t.priority or 'normal'
  if pr ~= 'contest' and pr ~= 'normal' and pr ~= 'verify' then
    fail('priority must be contest, normal or verify')
  end
  if t.source == '' then fail('empty source') end
  if t.key and (#t.key < 1 or #t.key > 200) then fail('key must be 1 to 200 characters') end
  local ver = t.version
  if ver == nil then ver = redis.call('HGET', 'judge:problem:' .. t.problem, 'current') or '' end
  if ver ~= '' and not string.find(ver, '^' .. string.rep('[0-9a-f]', 64) .. '$') then
    fail('version must be 64 lowercase hex digits or empty')
  end
  local cfg = redis.call('HMGET', key(pool, 'config'), 'languages', 'max_queue', 'max_source',
                         'idempotency_ttl')
  if cfg[1] and not string.find(cfg[1], ' ' .. t.lang .. ' ', 1, true) then
    fail('pool ' .. pool .. ' does not serve language \'' .. t.lang .. '\'')
  end
  local maxsrc = num(t, 'max_source', tonumber(cfg[3] or '0'))
  if maxsrc > 0 and #t.source > maxsrc then
    fail('source is larger than ' .. maxsrc .. ' bytes')
  end
  if t.key then
    local e = redis.call('GET', key(pool, 'idem:' .. t.key))
    -- a key whose submission expired (retention) is free again
    if e and redis.call('EXISTS', key(pool, 'sub:' .. e)) == 0 then e = nil end
    if e then
      -- the same key with another request body (hash given by the caller):
      -- a client bug the caller must hear about, not the old id
      if t.hash and redis.call('HGET', key(pool, 'sub:' .. e), 'hash') ~= t.hash then
        return {'result', 'conflict', 'id', e}
      end
      -- written again as it is: the call then has a replication offset at
      -- or after the original admission's, so a WAIT after it (admission
      -- durability) confirms the original reached a replica
      redis.call('SET', key(pool, 'idem:' .. t.key), e, 'KEEPTTL')
      return {'result', 'duplicate', 'id', e}
    end
  end
  local mq = num(t, 'max_queue', tonumber(cfg[2] or '0'))
  if mq > 0 and pr == 'verify' then
    -- the lane has its own bound: verification never fills what contest
    -- and normal admissions count
    local n = redis.call('LLEN', key(pool, 'rejudge'))
    if n >= mq then return {'result', 'busy', 'waiting', n} end
  elseif mq > 0 then
    local n = backlog(key(pool, 'q:contest')) + backlog(key(pool, 'q:normal')) +
              redis.call('ZCARD', key(pool, 'delayed'))
    if n >= mq then return {'result', 'busy', 'waiting', n} end
  end
  local now = now_ms()
  local id = string.format('%s-%011x-%08x', pool, now, redis.call('INCR', key(pool, 'seq')))
  redis.call('HSET', key(pool, 'sub:' .. id), 'id', id, 'pool', pool, 'lang', t.lang,
             'problem', t.problem, 'priority', pr, 'key', t.key or '', 'state', 'queued',
             'attempts', '0', 'created', now, 'source', t.source, 'version', ver)
  -- optional: who admitted it (an API token's name), the request's hash
  -- (idempotency), a webhook URL and the platform's opaque metadata
  for _, f in ipairs({'owner', 'hash', 'callback', 'metadata'}) do
    if t[f] and t[f] ~= '' then redis.call('HSET', key(pool, 'sub:' .. id), f, t[f]) end
  end
  if t.key then
    local ttl = num(t, 'idempotency_ttl', tonumber(cfg[4] or '0'))
    if ttl > 0 then redis.call('SET', key(pool, 'idem:' .. t.key), id, 'PX', ttl)
    else redis.call('SET', key(pool, 'idem:' .. t.key), id) end
  end
  -- a pool's first admission creates both queues with their consumer
  -- groups (from id 0, as queue_ensure_groups): the lag, what an autoscaler
  -- reads, is known before any judged host has started (scaling from zero)
  local qk = key(pool, pr == 'contest' and 'q:contest' or 'q:normal')
  if redis.call('EXISTS', qk) == 0 then
    for _, q in pairs(QUEUES) do
      if redis.call('EXISTS', key(pool, q)) == 0 then
        redis.call('XGROUP', 'CREATE', key(pool, q), GROUP, '0', 'MKSTREAM')
      end
    end
  end
  enqueue(pool, id, pr)
  return {'result', 'admitted', 'id', id}
end
redis.register_function('judged_admit', admit)

---------------------------------------------------------------------- claim
-- args: pool, host, count; optional contest_from, normal_from: '>' (default)
-- reads new entries; an entry id re-reads this consumer's own pending entries
-- after it (a restarted host); '' skips that queue. Only when the pool is
-- active ('>' reads) or not paused (re-reads).
-- reply: {'state', S, 'jobs', {job...}, 'contest_delivered', ID, 'normal_delivered', ID,
--         'contest_last', ID, 'normal_last', ID}
-- where *_delivered are the group's last-delivered ids (to block on) when
-- nothing was found, *_last the last ids read (a re-read's cursor); a job is
-- {'queue', Q, 'entry', E, 'id', SID, 'poison', WHY, 'lang', .., 'problem', ..,
--  'source', .., 'attempts', N, 'version', V, 'wait', MS}
-- A field whose value would be empty is left out (readers take a missing
-- field as empty): *_delivered, *_last, a job's poison and version.
local CLAIM_ARGS, NAMES = {'host', 'count'}, {'contest', 'normal'}
-- now_s, now: the caller's clock (now_pair), read here when not given
local function claim(pool, t, now_s, now)
  need_all(t, CLAIM_ARGS)
  local from = {t.contest_from or '>', t.normal_from or '>'}
  local st = redis.call('GET', key(pool, 'state')) or 'active'
  local fresh = from[1] == '>' or from[2] == '>'
  if (fresh and st ~= 'active') or st == 'paused' then
    return {'state', st, 'jobs', {}, 'contest_delivered', '', 'normal_delivered', '',
            'contest_last', '', 'normal_last', ''}
  end
  if not now_s then now_s, now = now_pair() end
  local n, out, last = num(t, 'count', 0), {}, {'', ''}
  local n0 = n
  for i = 1, 2 do
    local k = key(pool, QUEUES[NAMES[i]])
    -- an empty contest queue is skipped cheaply; the normal queue is read anyway
    if n > 0 and from[i] ~= '' and (i == 2 or from[i] ~= '>' or redis.call('XLEN', k) > 0) then
      local r = redis.call('XREADGROUP', 'GROUP', GROUP, t.host, 'COUNT',
                           n == n0 and int_arg(t, 'count', n) or string.format('%d', n),
                           'STREAMS', k, from[i])
      if r and r[1] then
        for _, e in ipairs(r[1][2]) do
          n = n - 1
          if e then last[i] = e[1] end
          job(NAMES[i], k, e, out, t.host, pool, now_s, now)
        end
      end
    end
  end
  -- rejudges only fill what contest and normal work left of this claim: a
  -- rejudge entry is appended to the normal queue and read by this claim
  -- at once (atomically: no other host can take it), never ahead of work
  if n > 0 and st == 'active' and from[2] == '>' and redis.call('LLEN', key(pool, 'rejudge')) > 0 then
    local k = key(pool, 'q:normal')
    local ids = redis.call('LPOP', key(pool, 'rejudge'), string.format('%d', n))
    for _, sid in ipairs(ids or {}) do redis.call('XADD', k, '*', 'id', sid) end
    local r = redis.call('XREADGROUP', 'GROUP', GROUP, t.host, 'COUNT', string.format('%d', n),
                         'STREAMS', k, '>')
    if r and r[1] then
      for _, e in ipairs(r[1][2]) do
        if e then last[2] = e[1] end
        job('normal', k, e, out, t.host, pool, now_s, now)
      end
    end
  end
  -- empty ids are left out of the reply (the reader takes them as empty)
  local r = {'state', st, 'jobs', out}
  if #out == 0 and fresh then
    r[5], r[6] = 'contest_delivered', lastdelivered(key(pool, 'q:contest'))
    r[7], r[8] = 'normal_delivered', lastdelivered(key(pool, 'q:normal'))
  end
  if last[1] ~= '' then r[#r + 1], r[#r + 2] = 'contest_last', last[1] end
  if last[2] ~= '' then r[#r + 1], r[#r + 2] = 'normal_last', last[2] end
  return r
end
redis.register_function('judged_claim', function(keys, a)
  local t = argmap(a)
  return claim(pool_of(keys, t), t)
end)

-------------------------------------------------------------------- reclaim
-- args: pool, host, queue, min_idle (ms), count, cursor, max_deliveries (0 = no limit)
-- XAUTOCLAIM one step. An entry delivered more than max_deliveries times was
-- taken over again and again without finishing (it may crash whole hosts):
-- it comes back as poison, to be dead-lettered with the final verdict IE.
-- reply: {'state', S, 'cursor', NEXT, 'jobs', {job...}}
redis.register_function('judged_reclaim', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'host', 'queue', 'min_idle', 'count', 'cursor')
  local k = queue_key(pool, t.queue)
  local st = redis.call('GET', key(pool, 'state')) or 'active'
  if st == 'paused' then return {'state', st, 'cursor', '0-0', 'jobs', {}} end
  -- A scan's first step: when no pending entry has been idle for
  -- min_idle, XAUTOCLAIM would walk the whole PEL (count*10 entries per
  -- step, one FCALL round trip of the caller per step) to claim nothing.
  -- With a fleet the PEL holds every host's jobs and every host with a free
  -- slot looks (bench_fleet, 50 hosts: ~18 steps per reclaimed job), so one
  -- XPENDING IDLE (a loop in C, no reply but the first hit) answers "none",
  -- or tells where the first idle entry is, to start there.
  local cursor = t.cursor
  if cursor == '0-0' then
    local idle = redis.call('XPENDING', k, GROUP, 'IDLE', num(t, 'min_idle', 0), '-', '+', 1)
    if #idle == 0 then return {'state', st, 'cursor', '0-0', 'jobs', {}} end
    cursor = idle[1][1]
  end
  local r = redis.call('XAUTOCLAIM', k, GROUP, t.host, t.min_idle, cursor, 'COUNT', t.count)
  local out, maxd = {}, num(t, 'max_deliveries', 0)
  local now_s, now = now_pair()
  for _, e in ipairs(r[2]) do
    local p = e and redis.call('XPENDING', k, GROUP, e[1], e[1], 1) or {}
    if p[1] and maxd > 0 and p[1][4] > maxd then
      table.insert(out, {'queue', t.queue, 'entry', e[1], 'id', entry_sid(e[2], pool) or '',
                         'poison', 'delivered ' .. p[1][4] ..
                         ' times without finishing (does it crash its host?)'})
    else
      job(t.queue, k, e, out, t.host, pool, now_s, now)
    end
  end
  return {'state', st, 'cursor', r[1], 'jobs', out}
end)

---------------------------------------------------------------------- renew
-- args: pool, host, then any number of (contest|normal, ENTRY) pairs.
-- Renews the lease of each entry still ours (XCLAIM JUSTID: idle time reset,
-- delivery count unchanged). reply: the entries we lost.
redis.register_function('judged_renew', function(keys, a)
  if #a % 2 ~= 0 then fail('arguments must be field/value pairs') end
  local pool, host, lost = nil, nil, {}
  for i = 1, #a, 2 do
    if a[i] == 'pool' then pool = pool_of(keys, {pool = a[i + 1]})
    elseif a[i] == 'host' then host = a[i + 1]
    else
      if not pool or not host then fail('pool and host come before the entries') end
      local k = queue_key(pool, a[i])
      if owned(k, host, a[i + 1]) then
        redis.call('XCLAIM', k, GROUP, host, 0, a[i + 1], 'JUSTID')
      else table.insert(lost, a[i + 1]) end
    end
  end
  return lost
end)

--------------------------------------------------------------------- finish
-- args: pool, host, queue, entry, id, verdict, score, report (JSON), results_max;
-- optional retention (ms, 0 = keep), ckpt (present: delete the checkpoint)
-- Owner check; the first finish stores the verdict and publishes the one
-- event (a job that ran twice after a crash publishes once), and the
-- submission expires `retention` ms later; then the entry is released.
-- Claiming the next job is the dispatcher's business (judged_claim).
-- reply: {'result', 'lost'|'published'|'already_done'}
local FINISH_ARGS = {'host', 'queue', 'entry', 'id', 'verdict', 'score', 'report'}
-- the one result event of a finish; ...: the rejudge fields, if any (as
-- arguments, not a table to unpack: no table per job)
local function result_event(pool, t, now_s, version, ...)
  redis.call('XADD', key(pool, 'results'), 'MAXLEN', '~', t.results_max or '100000', '*',
             'id', t.id, 'verdict', t.verdict, 'score', t.score, 'pool', pool, 'time', now_s,
             'problem_version', version, ...)
end
-- now_s: the caller's clock (now_pair), read here when not given
local function finish(pool, t, now_s)
  need_all(t, FINISH_ARGS)
  local k, sk, rk = queue_key(pool, t.queue), key(pool, 'sub:' .. t.id), res_key(pool, t.id)
  if not owned(k, t.host, t.entry) then return {'result', 'lost'} end
  local res = 'already_done'
  -- everything this function reads of the result, in one HMGET (every
  -- HMGET/HSET scans the small hash)
  local m = redis.call('HMGET', rk, 'verdict', 'rejudge', 'previous_verdict', 'previous_score')
  if not m[1] then
    if not now_s then now_s = now_pair() end
    local version = redis.call('HGET', sk, 'version') or ''
    -- the result first: a caller whose ACL may not write it (the
    -- platform's user, FCALLing this itself) is refused before any write
    redis.call('HSET', rk, 'verdict', t.verdict, 'score', t.score, 'report', t.report, 'finished', now_s)
    redis.call('HSET', sk, 'state', 'done')
    -- nothing left to resume; only when the caller says there is one (a
    -- DEL of a missing key is ~2% of a job's instructions, bench_instr)
    if t.ckpt then redis.call('DEL', ckpt_key(pool, t.id)) end
    if m[2] and m[2] ~= '' then
      result_event(pool, t, now_s, version, 'rejudge', 'true', 'rejudge_id', m[2],
                   'previous_verdict', m[3] or '', 'previous_score', m[4] or '')
    else
      result_event(pool, t, now_s, version)
    end
    -- no count_verdict here: the host adds up what it published and writes
    -- judge:{P}:stats once per heartbeat (queue_stats_flush): five HINCRBYs
    -- per job were a quarter of a job's Redis commands (library version 6)
    local keep = num(t, 'retention', 0)
    if keep > 0 then
      local ms = int_arg(t, 'retention', keep)
      redis.call('PEXPIRE', sk, ms)
      redis.call('PEXPIRE', rk, ms)
      -- its progress stream (an hour) never outlives the submission
      if keep < 3600000 then redis.call('PEXPIRE', key(pool, 'progress:' .. t.id), ms) end
    end
    res = 'published'
  end
  release(k, t.entry)
  return {'result', res}
end
redis.register_function('judged_finish', function(keys, a)
  local t = argmap(a)
  return finish(pool_of(keys, t), t)
end)

--------------------------------------------------------------- finish_claim
-- args: those of judged_finish, and count (plus optional contest_from,
-- normal_from) of judged_claim: a worker's finish and the claim of its
-- slot's next job (the dispatch policy decides when, dispatch.c) in ONE
-- call: two calls cost the server two function dispatches and argument
-- maps per job (library version 8). The two steps stay the functions
-- above, in that order; the claim runs whatever the finish answered.
-- reply: {'finish', <judged_finish's reply>, 'claim', <judged_claim's reply>}
redis.register_function('judged_finish_claim', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  -- one clock read for both steps
  local now_s, now = now_pair()
  local f = finish(pool, t, now_s)
  return {'finish', f, 'claim', claim(pool, t, now_s, now)}
end)

---------------------------------------------------------------------- retry
-- args: pool, host, queue, entry, id, reason, max_attempts, delay (ms), results_max;
-- optional retention, dlq_retention (ms, 0 = keep: see bury)
-- An infrastructure failure: attempts += 1, history appended; below
-- max_attempts the id waits in the delayed zset for `delay` ms, else it is
-- dead-lettered with the final verdict IE.
-- reply: {'result', 'lost'|'scheduled'|'dead', 'attempts', N}
redis.register_function('judged_retry', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'host', 'queue', 'entry', 'id', 'reason', 'max_attempts', 'delay')
  local k, sk = queue_key(pool, t.queue), key(pool, 'sub:' .. t.id)
  if not owned(k, t.host, t.entry) then return {'result', 'lost', 'attempts', 0} end
  local now = now_ms()
  local n = redis.call('HINCRBY', sk, 'attempts', 1)
  local h = cjson.decode(redis.call('HGET', sk, 'history') or '[]')
  table.insert(h, {time = now, host = t.host, reason = t.reason})
  redis.call('HSET', sk, 'history', cjson.encode(h))
  if n >= num(t, 'max_attempts', 3) then
    bury(pool, t.queue, t.entry, t.id, t.host,
         'infrastructure failure ' .. n .. ' times; last: ' .. t.reason, retention_args(t))
    return {'result', 'dead', 'attempts', n}
  end
  redis.call('HSET', sk, 'state', 'queued')
  if redis.call('HGET', sk, 'priority') == 'verify' then
    -- back to its lane, which waits for idle slots anyway: the delayed set
    -- counts against contest and normal admissions, verification must not
    redis.call('RPUSH', key(pool, 'rejudge'), t.id)
  else
    redis.call('ZADD', key(pool, 'delayed'), now + num(t, 'delay', 0), t.id)
  end
  release(k, t.entry)
  return {'result', 'scheduled', 'attempts', n}
end)

--------------------------------------------------------------- dead_letter
-- args: pool, host, queue, entry, id ('' for a poison entry), reason, results_max;
-- optional retention, dlq_retention (ms, 0 = keep: see bury)
-- reply: {'result', 'lost'|'dead'}
redis.register_function('judged_dead_letter', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'host', 'queue', 'entry', 'id', 'reason')
  if not owned(queue_key(pool, t.queue), t.host, t.entry) then return {'result', 'lost'} end
  bury(pool, t.queue, t.entry, t.id, t.host, t.reason, retention_args(t))
  return {'result', 'dead'}
end)

-------------------------------------------------------------------- promote
-- args: pool, limit. Moves retries whose delay is over back to their queue.
-- reply: how many moved
redis.register_function('judged_promote', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  local ids = redis.call('ZRANGEBYSCORE', key(pool, 'delayed'), '-inf', now_ms(), 'LIMIT', 0,
                         num(t, 'limit', 100))
  for _, id in ipairs(ids) do
    local pr = redis.call('HGET', key(pool, 'sub:' .. id), 'priority')
    -- ZREM first: a caller whose ACL allows XADD to the queues (the platform
    -- user) but not this fails before writing anything
    redis.call('ZREM', key(pool, 'delayed'), id)
    enqueue(pool, id, pr)
  end
  return #ids
end)

-------------------------------------------------------------------- rejudge
-- args: pool, id, version (64 hex, or '' for the hosts' problems
-- directory), rejudge_id. Queues a judged submission again at the rejudge
-- priority (judge:{P}:rejudge, taken only by what claims leave over): its
-- verdict and score become previous_verdict and previous_score, the version
-- is the one given, and its result will be a new event with rejudge true.
-- reply: {'result', 'queued'|'not_done'|'missing'}
redis.register_function('judged_rejudge', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'id', 'version', 'rejudge_id')
  if t.version ~= '' and not string.find(t.version, '^' .. string.rep('[0-9a-f]', 64) .. '$') then
    fail('version must be 64 lowercase hex digits or empty')
  end
  local sk, rk = key(pool, 'sub:' .. t.id), res_key(pool, t.id)
  if redis.call('EXISTS', sk) == 0 then return {'result', 'missing'} end
  local st = redis.call('HMGET', rk, 'verdict', 'score')
  if not st[1] then return {'result', 'not_done'} end
  redis.call('DEL', rk, ckpt_key(pool, t.id))
  redis.call('HSET', rk, 'rejudge', t.rejudge_id, 'previous_verdict', st[1], 'previous_score', st[2] or '')
  redis.call('PERSIST', sk)
  redis.call('HSET', sk, 'state', 'queued', 'attempts', '0', 'version', t.version, 'rejudged', now_ms())
  redis.call('RPUSH', key(pool, 'rejudge'), t.id)
  return {'result', 'queued'}
end)

--------------------------------------------------------------------- cancel
-- args: pool, id. Takes a submission of priority verify that is still
-- waiting in the rejudge lane off it and deletes it (no host has it: the
-- lane is popped atomically by claim). One a host took runs to its end.
-- reply: {'result', 'cancelled'|'running'|'done'|'missing'}
redis.register_function('judged_cancel', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'id')
  local sk = key(pool, 'sub:' .. t.id)
  local pr = redis.call('HGET', sk, 'priority')
  if not pr then return {'result', 'missing'} end
  if pr ~= 'verify' then fail('only a verify submission can be cancelled') end
  if redis.call('LREM', key(pool, 'rejudge'), 0, t.id) > 0 then
    redis.call('DEL', sk, res_key(pool, t.id), ckpt_key(pool, t.id))
    return {'result', 'cancelled'}
  end
  if redis.call('HEXISTS', res_key(pool, t.id), 'verdict') == 1 then return {'result', 'done'} end
  return {'result', 'running'}
end)

------------------------------------------------------------------- give_back
-- args: pool, host, idle (ms), then (contest|normal, ENTRY) pairs.
-- Hands owned entries back without spending an attempt: they stay pending
-- but look idle for `idle` ms, so any host's next reclaim takes them.
-- reply: how many were handed back
redis.register_function('judged_give_back', function(keys, a)
  if #a % 2 ~= 0 then fail('arguments must be field/value pairs') end
  local pool, host, idle, n = nil, nil, nil, 0
  for i = 1, #a, 2 do
    if a[i] == 'pool' then pool = pool_of(keys, {pool = a[i + 1]})
    elseif a[i] == 'host' then host = a[i + 1]
    elseif a[i] == 'idle' then idle = a[i + 1]
    else
      if not pool or not host or not idle then fail('pool, host and idle come before the entries') end
      local k, eid = queue_key(pool, a[i]), a[i + 1]
      if owned(k, host, eid) then
        redis.call('XCLAIM', k, GROUP, host, 0, eid, 'IDLE', idle, 'JUSTID')
        local e = redis.call('XRANGE', k, eid, eid)
        local sid = e[1] and entry_sid(e[1][2], pool)
        if sid and redis.call('HGET', key(pool, 'sub:' .. sid), 'state') == 'running' then
          redis.call('HSET', key(pool, 'sub:' .. sid), 'state', 'queued')
        end
        n = n + 1
      end
    end
  end
  return n
end)

-------------------------------------------------------------------- requeue
-- args: pool, entry (of the dead-letter stream). Admits the submission again
-- (attempts reset, verdict cleared). reply: {'id', SID}
redis.register_function('judged_requeue', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'entry')
  local e = redis.call('XRANGE', key(pool, 'dlq'), t.entry, t.entry)
  if #e == 0 then fail('no such dead-letter entry') end
  local f, sid = e[1][2], nil
  for i = 1, #f, 2 do if f[i] == 'id' and f[i + 1] ~= '' then sid = f[i + 1] end end
  if not sid then fail('a poison entry has no submission to requeue; drop it') end
  local sk = key(pool, 'sub:' .. sid)
  if redis.call('EXISTS', sk) == 0 then fail('submission ' .. sid .. ' no longer exists') end
  local rk = res_key(pool, sid)
  redis.call('HDEL', rk, 'verdict', 'score', 'report', 'finished', 'dead')
  redis.call('PERSIST', sk)
  redis.call('PERSIST', rk)
  redis.call('HSET', sk, 'state', 'queued', 'attempts', '0')
  enqueue(pool, sid, redis.call('HGET', sk, 'priority'))
  redis.call('XDEL', key(pool, 'dlq'), t.entry)
  return {'id', sid}
end)

------------------------------------------------------------- migrate_result
-- args: pool, id. Moves the result of a submission judged under library
-- version 10 or older (verdict, score, report, finished, dead, and a
-- rejudge's fields) from its hash to judge:{P}:res:ID, with the hash's
-- expiry. judged calls it for every submission when it loads this version
-- over an older one (queue_library_ensure): once, so that nothing written
-- into a submission hash later (the platform's ACL user may) becomes a
-- verdict. A submission that already has a result is left alone.
-- reply: 1 moved, 0 nothing to move
local RESULT_FIELDS = {'verdict', 'score', 'report', 'finished', 'dead', 'rejudge', 'previous_verdict',
                       'previous_score'}
redis.register_function('judged_migrate_result', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'id')
  local sk, rk = key(pool, 'sub:' .. t.id), res_key(pool, t.id)
  local v = redis.call('HMGET', sk, 'state', unpack(RESULT_FIELDS))
  if redis.call('EXISTS', rk) == 1 then return 0 end
  local out, any = {}, false
  for i = 1, #RESULT_FIELDS do
    any = any or not not v[i + 1]   -- a missing field is false in Lua
    -- a verdict only of a submission version 10 called done
    if v[i + 1] and (i > 5 or v[1] == 'done') then
      out[#out + 1], out[#out + 2] = RESULT_FIELDS[i], v[i + 1]
    end
  end
  if not any then return 0 end
  -- the result first: a caller who may not write it is refused before
  -- the submission hash is touched
  if #out > 0 then redis.call('HSET', rk, unpack(out)) end
  redis.call('HDEL', sk, unpack(RESULT_FIELDS))
  if #out == 0 then return 0 end
  local ttl = redis.call('PTTL', sk)
  if ttl > 0 then redis.call('PEXPIRE', rk, ttl) end
  return 1
end)

---------------------------------------------------------------------- reap
-- args: pool, consumer. Removes the consumer (a dead host) from both queues'
-- group, but only where nothing is pending for it (XGROUP DELCONSUMER would
-- drop its pending entries). reply: {'result', 'gone'|'pending', 'removed', N}
redis.register_function('judged_reap', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'consumer')
  local res, removed = 'gone', 0
  for _, q in ipairs({'q:contest', 'q:normal'}) do
    local ok, cs = pcall(redis.call, 'XINFO', 'CONSUMERS', key(pool, q), GROUP)
    if ok then
      for _, c in ipairs(cs) do
        local name, pend
        for j = 1, #c, 2 do
          if c[j] == 'name' then name = c[j + 1] elseif c[j] == 'pending' then pend = c[j + 1] end
        end
        if name == t.consumer then
          if pend == 0 then
            redis.call('XGROUP', 'DELCONSUMER', key(pool, q), GROUP, t.consumer)
            removed = removed + 1
          else res = 'pending' end
        end
      end
    end
  end
  return {'result', res, 'removed', removed}
end)

------------------------------------------------------------------ set_state
-- args: pool, state (active|draining|paused). Every host's next claim sees it.
-- reply: {'state', S}
redis.register_function('judged_set_state', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'state')
  if t.state == 'active' then redis.call('DEL', key(pool, 'state'))
  elseif t.state == 'draining' or t.state == 'paused' then redis.call('SET', key(pool, 'state'), t.state)
  else fail('state must be active, draining or paused') end
  return {'state', t.state}
end)

------------------------------------------------------------------- progress
-- args: pool, id, stage (compiling|test), test, count, verdict; optional
-- host (shown in the entry), identity and record (the test's checkpoint)
-- One entry of a submission's progress stream judge:{P}:progress:ID (read by
-- judge-api's GET /v1/submissions/ID/events), which expires an hour after
-- its last entry: one write per test for judged, XADD and PEXPIRE in one
-- call, and with a record its checkpoint (HGET, HSET, PEXPIRE) in the same.
redis.register_function('judged_progress', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'id', 'stage')
  progress(pool, t.id, t.stage, t.test or '0', t.count or '0', t.verdict or '', t.host)
  if t.record then
    need(t, 'identity', 'test')
    checkpoint(pool, t.id, t.test, t.identity, t.record)
  end
  return 'OK'
end)

----------------------------------------------------------------- checkpoint
-- args: pool, id. The checkpoint as stored: {'identity', I, 't1', R1, ...}
-- (empty: none), for a host that took the job over.
redis.register_function{function_name = 'judged_checkpoint', flags = {'no-writes'},
  callback = function(keys, a)
    local t = argmap(a)
    local pool = pool_of(keys, t)
    need(t, 'id')
    return redis.call('HGETALL', ckpt_key(pool, t.id))
  end}

----------------------------------------------------------------------- note
-- args: pool, host, queue, entry, id, note. A line of the attempt history
-- (the submission's 'history', beside judged_retry's) that spends no
-- attempt: what a takeover did with the checkpoint. Owner-checked.
-- reply: 'OK' or 'lost'
redis.register_function('judged_note', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'host', 'queue', 'entry', 'id', 'note')
  if not owned(queue_key(pool, t.queue), t.host, t.entry) then return 'lost' end
  local sk = key(pool, 'sub:' .. t.id)
  local h = cjson.decode(redis.call('HGET', sk, 'history') or '[]')
  table.insert(h, {time = now_ms(), host = t.host, note = t.note})
  redis.call('HSET', sk, 'history', cjson.encode(h))
  return 'OK'
end)

---------------------------------------------------------------- publish_pool
-- args: pool, languages (space-separated), max_queue, max_source; optional
-- idempotency_ttl (ms, 0 = keep). judged publishes its pool settings at
-- start and on reload, so an admission by FCALL applies the same checks
-- (and key expiry) as judgectl. reply: 'OK'
redis.register_function('judged_publish_pool', function(keys, a)
  local t = argmap(a)
  local pool = pool_of(keys, t)
  need(t, 'languages', 'max_queue', 'max_source')
  redis.call('HSET', key(pool, 'config'), 'languages', ' ' .. t.languages .. ' ',
             'max_queue', num(t, 'max_queue', 0), 'max_source', num(t, 'max_source', 0),
             'idempotency_ttl', num(t, 'idempotency_ttl', 0))
  return redis.status_reply('OK')
end)
