/* scripts.c - the Lua scripts of the queue protocol (judged/DESIGN.md).
 * Every script touches only keys of one pool, all under the hash tag {POOL}.
 * Scripts that act on a claimed entry first check that this consumer still
 * owns it (XPENDING for that id and consumer): XCLAIM, XACK and XDEL have no
 * owner check of their own. */
#include "jd.h"

/* owned(stream, group, consumer, id) */
#define LUA_OWNED \
    "local function owned(k, g, c, id)\n" \
    "  return #redis.call('XPENDING', k, g, id, id, 1, c) > 0\n" \
    "end\n"

/* job(): turn one read or claimed entry into a job for the caller.
 * Reply per job: {queue index, entry id, submission id, poison reason,
 *                 lang, problem, source, attempts} */
#define LUA_JOB \
    "local function job(qi, stream, e, out, g, host, prefix, now, pool)\n" \
    "  if not e then return end\n" \
    "  local eid, f = e[1], e[2]\n" \
    "  if not f then redis.call('XACK', stream, g, eid) return end\n" \
    "  local sid\n" \
    "  for i = 1, #f, 2 do if f[i] == 'id' then sid = f[i + 1] end end\n" \
    "  if not sid or string.sub(sid, 1, #pool + 1) ~= pool .. '-' or string.find(sid, '[{}:]') then\n" \
    "    table.insert(out, {qi, eid, '', 'poison: entry has no valid submission id'}) return\n" \
    "  end\n" \
    "  local sk = prefix .. sid\n" \
    "  local v = redis.call('HMGET', sk, 'lang', 'problem', 'source', 'attempts', 'state')\n" \
    "  if not v[1] or not v[2] or not v[3] then\n" \
    "    table.insert(out, {qi, eid, sid, 'poison: submission ' .. sid .. ' is missing or incomplete'}) return\n" \
    "  end\n" \
    "  if v[5] == 'done' then\n" \
    "    redis.call('XACK', stream, g, eid) redis.call('XDEL', stream, eid) return\n" \
    "  end\n" \
    "  redis.call('HSET', sk, 'state', 'running', 'host', host, 'started', now)\n" \
    "  table.insert(out, {qi, eid, sid, '', v[1], v[2], v[3], v[4] or '0'})\n" \
    "end\n" \
    "local function claimfrom(keys, starts, n, out, last, g, host, prefix, now, pool)\n" \
    "  for i = 1, 2 do\n" \
    "    if n > 0 and starts[i] ~= '' and (i == 2 or starts[i] ~= '>' or redis.call('XLEN', keys[i]) > 0) then\n" \
    "      local r = redis.call('XREADGROUP', 'GROUP', g, host, 'COUNT', n, 'STREAMS', keys[i], starts[i])\n" \
    "      if r and r[1] then\n" \
    "        for _, e in ipairs(r[1][2]) do\n" \
    "          n = n - 1\n" \
    "          if e then last[i] = e[1] end\n" \
    "          job(i - 1, keys[i], e, out, g, host, prefix, now, pool)\n" \
    "        end\n" \
    "      end\n" \
    "    end\n" \
    "  end\n" \
    "end\n"

/* dead(): dead-letter an owned entry; the submission (if any) gets the
 * final verdict IE and its one result event. */
#define LUA_DEAD \
    "local function dead(q, sub, dlq, results, g, c, eid, sid, reason, now, resmax, pool)\n" \
    "  local attempts = redis.call('HGET', sub, 'attempts') or '0'\n" \
    "  local history = redis.call('HGET', sub, 'history') or '[]'\n" \
    "  local orig = redis.call('XRANGE', q, eid, eid)\n" \
    "  local of = {}\n" \
    "  if orig[1] and orig[1][2] then\n" \
    "    for i = 1, #orig[1][2], 2 do of[orig[1][2][i]] = orig[1][2][i + 1] end\n" \
    "  end\n" \
    "  local f = {'id', sid, 'entry', eid, 'reason', reason, 'attempts', attempts,\n" \
    "             'history', history, 'fields', cjson.encode(of), 'time', now, 'host', c}\n" \
    "  if sid ~= '' then\n" \
    "    local m = redis.call('HMGET', sub, 'lang', 'problem', 'priority')\n" \
    "    if m[1] then table.insert(f, 'lang') table.insert(f, m[1]) end\n" \
    "    if m[2] then table.insert(f, 'problem') table.insert(f, m[2]) end\n" \
    "    if m[3] then table.insert(f, 'priority') table.insert(f, m[3]) end\n" \
    "  end\n" \
    "  redis.call('XADD', dlq, '*', unpack(f))\n" \
    "  if sid ~= '' and redis.call('EXISTS', sub) == 1 and redis.call('HGET', sub, 'state') ~= 'done' then\n" \
    "    local rep = cjson.encode({verdict = 'IE', score = 0, error = reason})\n" \
    "    redis.call('HSET', sub, 'state', 'done', 'verdict', 'IE', 'score', '0', 'report', rep,\n" \
    "               'finished', now, 'dead', '1')\n" \
    "    redis.call('XADD', results, 'MAXLEN', '~', resmax, '*', 'id', sid, 'verdict', 'IE',\n" \
    "               'score', '0', 'pool', pool, 'time', now)\n" \
    "  end\n" \
    "  redis.call('XACK', q, g, eid)\n" \
    "  redis.call('XDEL', q, eid)\n" \
    "end\n"

#define LUA_LASTDELIVERED \
    "local function lastdelivered(key, group)\n" \
    "  for _, gi in ipairs(redis.call('XINFO', 'GROUPS', key)) do\n" \
    "    local name, ld\n" \
    "    for j = 1, #gi, 2 do\n" \
    "      if gi[j] == 'name' then name = gi[j + 1] elseif gi[j] == 'last-delivered-id' then ld = gi[j + 1] end\n" \
    "    end\n" \
    "    if name == group then return ld end\n" \
    "  end\n" \
    "  return '0-0'\n" \
    "end\n"

/* KEYS: target queue, other queue, delayed, sub, idem
 * ARGV: id, max_queue (0 = none), has_key, field, value, ... */
const struct jd_script JD_SUBMIT = {"submit",
    "if ARGV[3] == '1' then\n"
    "  local e = redis.call('GET', KEYS[5])\n"
    "  if e then return {'dup', e} end\n"
    "end\n"
    "local mq = tonumber(ARGV[2])\n"
    "if mq > 0 then\n"
    "  local n = redis.call('XLEN', KEYS[1]) + redis.call('XLEN', KEYS[2]) + redis.call('ZCARD', KEYS[3])\n"
    "  if n >= mq then return {'busy', tostring(n)} end\n"
    "end\n"
    "redis.call('HSET', KEYS[4], unpack(ARGV, 4))\n"
    "if ARGV[3] == '1' then redis.call('SET', KEYS[5], ARGV[1]) end\n"
    "redis.call('XADD', KEYS[1], '*', 'id', ARGV[1])\n"
    "return {'ok', ARGV[1]}\n"};

/* KEYS: contest queue, normal queue, state
 * ARGV: group, consumer(host), count, sub prefix, pool, now, start1, start2
 * start '>' reads new entries; an id re-reads this consumer's own pending
 * entries after it (a restarted host). Reply: {state, jobs, ld1, ld2, last1, last2}
 * where ld* are the group's last-delivered ids (to block on) when nothing
 * was found, and last* the last ids seen (the history cursor). */
const struct jd_script JD_CLAIM = {"claim",
    LUA_JOB LUA_LASTDELIVERED
    "local st = redis.call('GET', KEYS[3]) or 'active'\n"
    "local fresh = ARGV[7] == '>'\n"
    "if (fresh and st ~= 'active') or st == 'paused' then return {st, {}, '', '', '', ''} end\n"
    "local out, last = {}, {'', ''}\n"
    "claimfrom({KEYS[1], KEYS[2]}, {ARGV[7], ARGV[8]}, tonumber(ARGV[3]), out, last,\n"
    "          ARGV[1], ARGV[2], ARGV[4], ARGV[6], ARGV[5])\n"
    "local ld = {'', ''}\n"
    "if #out == 0 and fresh then ld[1] = lastdelivered(KEYS[1], ARGV[1]) ld[2] = lastdelivered(KEYS[2], ARGV[1]) end\n"
    "return {st, out, ld[1], ld[2], last[1], last[2]}\n"};

/* KEYS: queue, state
 * ARGV: group, consumer, min_idle, sub prefix, pool, now, count, cursor, qi,
 *       max_deliveries (0 = no limit)
 * An entry delivered more than max_deliveries times was taken over again and
 * again without ever finishing (it may crash whole hosts): it comes back as
 * poison, to be dead-lettered with the final verdict IE.
 * Reply: {state, next cursor, jobs} */
const struct jd_script JD_RECLAIM = {"reclaim",
    LUA_JOB
    "local st = redis.call('GET', KEYS[2]) or 'active'\n"
    "if st == 'paused' then return {st, '0-0', {}} end\n"
    "local r = redis.call('XAUTOCLAIM', KEYS[1], ARGV[1], ARGV[2], ARGV[3], ARGV[8], 'COUNT', ARGV[7])\n"
    "local out = {}\n"
    "local maxd = tonumber(ARGV[10])\n"
    "for _, e in ipairs(r[2]) do\n"
    "  local p = e and redis.call('XPENDING', KEYS[1], ARGV[1], e[1], e[1], 1) or {}\n"
    "  if p[1] and maxd > 0 and p[1][4] > maxd then\n"
    "    local sid = ''\n"
    "    if e[2] then for i = 1, #e[2], 2 do if e[2][i] == 'id' then sid = e[2][i + 1] end end end\n"
    "    if string.sub(sid, 1, #ARGV[5] + 1) ~= ARGV[5] .. '-' or string.find(sid, '[{}:]') then sid = '' end\n"
    "    table.insert(out, {tonumber(ARGV[9]), e[1], sid, 'delivered ' .. p[1][4] ..\n"
    "                   ' times without finishing (does it crash its host?)'})\n"
    "  else\n"
    "    job(tonumber(ARGV[9]), KEYS[1], e, out, ARGV[1], ARGV[2], ARGV[4], ARGV[6], ARGV[5])\n"
    "  end\n"
    "end\n"
    "return {st, r[1], out}\n"};

/* KEYS: contest queue, normal queue
 * ARGV: group, consumer, then pairs (queue index 0|1, entry id).
 * Renews the lease of each entry still ours; returns the ids we lost. */
const struct jd_script JD_RENEW = {"renew",
    LUA_OWNED
    "local lost = {}\n"
    "for i = 3, #ARGV, 2 do\n"
    "  local k, id = KEYS[tonumber(ARGV[i]) + 1], ARGV[i + 1]\n"
    "  if owned(k, ARGV[1], ARGV[2], id) then\n"
    "    redis.call('XCLAIM', k, ARGV[1], ARGV[2], 0, id, 'JUSTID')\n"
    "  else table.insert(lost, id) end\n"
    "end\n"
    "return lost\n"};

/* KEYS: queue, sub, results, contest queue, normal queue, state
 * ARGV: group, consumer, entry, id, verdict, score, report, now, results_max,
 *       pool, claim_n, sub prefix
 * Finishes the job and, when claim_n > 0 and the pool is active, claims the
 * next claim_n new entries in the same round trip (a busy worker feeds
 * itself). Reply: {0 lost (nothing written) | 1 published | 2 already done
 * (acked only), jobs} */
const struct jd_script JD_FINISH = {"finish",
    LUA_OWNED LUA_JOB
    "local res = 2\n"
    "if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then\n"
    "  res = 0\n"
    "else\n"
    "  if redis.call('HGET', KEYS[2], 'state') ~= 'done' then\n"
    "    redis.call('HSET', KEYS[2], 'state', 'done', 'verdict', ARGV[5], 'score', ARGV[6],\n"
    "               'report', ARGV[7], 'finished', ARGV[8])\n"
    "    redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[9], '*', 'id', ARGV[4], 'verdict', ARGV[5],\n"
    "               'score', ARGV[6], 'pool', ARGV[10], 'time', ARGV[8])\n"
    "    res = 1\n"
    "  end\n"
    "  redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])\n"
    "  redis.call('XDEL', KEYS[1], ARGV[3])\n"
    "end\n"
    "local out = {}\n"
    "local n = tonumber(ARGV[11])\n"
    "if n > 0 and (redis.call('GET', KEYS[6]) or 'active') == 'active' then\n"
    "  claimfrom({KEYS[4], KEYS[5]}, {'>', '>'}, n, out, {'', ''}, ARGV[1], ARGV[2], ARGV[12],\n"
    "            ARGV[8], ARGV[10])\n"
    "end\n"
    "return {res, out}\n"};

/* KEYS: queue, sub, dlq, results, delayed
 * ARGV: group, consumer, entry, id, reason, now, results_max, pool, max_attempts, due
 * Reply: 0 lost, 1 scheduled for retry at due, 2 dead-lettered */
const struct jd_script JD_RETRY = {"retry",
    LUA_OWNED LUA_DEAD
    "if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return 0 end\n"
    "local a = redis.call('HINCRBY', KEYS[2], 'attempts', 1)\n"
    "local h = cjson.decode(redis.call('HGET', KEYS[2], 'history') or '[]')\n"
    "table.insert(h, {time = tonumber(ARGV[6]), host = ARGV[2], reason = ARGV[5]})\n"
    "redis.call('HSET', KEYS[2], 'history', cjson.encode(h))\n"
    "if a >= tonumber(ARGV[9]) then\n"
    "  dead(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4],\n"
    "       'infrastructure failure ' .. a .. ' times; last: ' .. ARGV[5], ARGV[6], ARGV[7], ARGV[8])\n"
    "  return 2\n"
    "end\n"
    "redis.call('HSET', KEYS[2], 'state', 'queued')\n"
    "redis.call('ZADD', KEYS[5], ARGV[10], ARGV[4])\n"
    "redis.call('XACK', KEYS[1], ARGV[1], ARGV[3])\n"
    "redis.call('XDEL', KEYS[1], ARGV[3])\n"
    "return 1\n"};

/* KEYS: queue, sub (or the pool's sub prefix when there is no id), dlq, results
 * ARGV: group, consumer, entry, id ('' if none), reason, now, results_max, pool */
const struct jd_script JD_DEAD = {"dead",
    LUA_OWNED LUA_DEAD
    "if not owned(KEYS[1], ARGV[1], ARGV[2], ARGV[3]) then return 0 end\n"
    "dead(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5],\n"
    "     ARGV[6], ARGV[7], ARGV[8])\n"
    "return 1\n"};

/* KEYS: delayed, contest queue, normal queue; ARGV: now, sub prefix, limit */
const struct jd_script JD_PROMOTE = {"promote",
    "local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[3])\n"
    "for _, id in ipairs(ids) do\n"
    "  local pr = redis.call('HGET', ARGV[2] .. id, 'priority')\n"
    "  redis.call('XADD', pr == 'contest' and KEYS[2] or KEYS[3], '*', 'id', id)\n"
    "  redis.call('ZREM', KEYS[1], id)\n"
    "end\n"
    "return #ids\n"};

/* KEYS: queue; ARGV: group, consumer, idle_ms, sub prefix, then (entry, id)
 * pairs. Hands entries back without spending an attempt: they stay in the
 * group but look idle for idle_ms, so any host's reclaim takes them now. */
const struct jd_script JD_GIVEBACK = {"giveback",
    LUA_OWNED
    "local n = 0\n"
    "for i = 5, #ARGV, 2 do\n"
    "  if owned(KEYS[1], ARGV[1], ARGV[2], ARGV[i]) then\n"
    "    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'IDLE', ARGV[3], 'JUSTID')\n"
    "    if ARGV[i + 1] ~= '' and redis.call('HGET', ARGV[4] .. ARGV[i + 1], 'state') == 'running' then\n"
    "      redis.call('HSET', ARGV[4] .. ARGV[i + 1], 'state', 'queued')\n"
    "    end\n"
    "    n = n + 1\n"
    "  end\n"
    "end\n"
    "return n\n"};

/* KEYS: dlq, contest queue, normal queue; ARGV: dlq entry id, sub prefix */
const struct jd_script JD_REQUEUE = {"requeue",
    "local e = redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1])\n"
    "if #e == 0 then return redis.error_reply('no such dead-letter entry') end\n"
    "local f, sid = e[1][2]\n"
    "for i = 1, #f, 2 do if f[i] == 'id' and f[i + 1] ~= '' then sid = f[i + 1] end end\n"
    "if not sid then return redis.error_reply('a poison entry has no submission to requeue; drop it') end\n"
    "local sk = ARGV[2] .. sid\n"
    "if redis.call('EXISTS', sk) == 0 then return redis.error_reply('submission ' .. sid .. ' no longer exists') end\n"
    "redis.call('HDEL', sk, 'verdict', 'score', 'report', 'finished', 'dead')\n"
    "redis.call('HSET', sk, 'state', 'queued', 'attempts', '0')\n"
    "local pr = redis.call('HGET', sk, 'priority')\n"
    "redis.call('XADD', pr == 'contest' and KEYS[2] or KEYS[3], '*', 'id', sid)\n"
    "redis.call('XDEL', KEYS[1], ARGV[1])\n"
    "return sid\n"};

/* KEYS: queue; ARGV: group, consumer. Removes a consumer only when nothing
 * is pending for it (XGROUP DELCONSUMER would drop its pending entries). */
const struct jd_script JD_REAP = {"reap",
    "for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do\n"
    "  local name, pend\n"
    "  for j = 1, #c, 2 do\n"
    "    if c[j] == 'name' then name = c[j + 1] elseif c[j] == 'pending' then pend = c[j + 1] end\n"
    "  end\n"
    "  if name == ARGV[2] then\n"
    "    if pend == 0 then redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], ARGV[2]) return 1 end\n"
    "    return 0\n"
    "  end\n"
    "end\n"
    "return -1\n"};
