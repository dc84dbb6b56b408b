// judged dashboard for contest day. Polls the API every 2 s (pools, hosts,
// dead letters, the latest submissions) and every 10 s each pool's history
// (kept by judged on the server side: GET /v1/pools/NAME/history), which
// it draws per pool with time and count axes. States that need someone are
// highlighted and listed at the top. Admin tokens get pool and dead-letter
// buttons; a viewer token sees all of it read-only. Plain JS, no
// dependencies, no build step.
"use strict";

// The fragment: token (taken out at once), sub (the submission whose
// report is open), oldest (seconds of waiting that raise an alert).
const frag = new URLSearchParams(location.hash.slice(1));
if (frag.get("token")) {
  // this tab's sessionStorage only: gone with the tab, never in
  // localStorage (kept forever), nor in the address bar or the history
  sessionStorage.setItem("judged-token", frag.get("token"));
  frag.delete("token");
  window.history.replaceState(null, "", location.pathname + location.search + (frag.toString() ? "#" + frag : ""));
}
localStorage.removeItem("judged-token");   // what earlier versions kept
let token = sessionStorage.getItem("judged-token");
if (!token) {
  token = prompt("judge-api token (admin or viewer)") || "";
  sessionStorage.setItem("judged-token", token);
}
const auth = { headers: { Authorization: "Bearer " + token } };
const OLDEST_ALERT_MS = (Number(frag.get("oldest")) || 60) * 1000;
const HISTORY_MS = 3600000;
let isAdmin = false;
let pools = [];

// ------------------------------------------------------------- helpers

function $(sel) { return document.querySelector(sel); }

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text === undefined || text === null ? "" : String(text);
  if (cls) td.className = cls;
  return td;
}

function setStatus(text) { $("#status").textContent = text; }

function seconds(ms) { return ms === null || ms === undefined ? "" : (ms / 1000).toFixed(1) + " s"; }

function clock(ms) { return ms ? new Date(ms).toLocaleTimeString([], { hour12: false }) : ""; }

async function api(method, path) {
  const r = await fetch(path, { method: method, headers: auth.headers });
  const body = await r.json().catch(() => ({}));
  if (!r.ok) throw new Error(method + " " + path + ": HTTP " + r.status + (body.error ? ": " + body.error : ""));
  return body;
}

function button(td, label, action) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = label;
  b.addEventListener("click", async () => {
    try {
      await action();
      await refresh();
    } catch (e) {
      setStatus(String(e));
    }
  });
  td.appendChild(b);
}

// ---------------------------------------------------------------- pools

function poolRow(tb, p) {
  const row = tb.insertRow();
  row.dataset.pool = p.name;
  row.dataset.state = p.state;
  if (p.state !== "active") row.classList.add("st-" + p.state);
  if (p.dlq > 0) row.classList.add("warn");
  if (p.oldest_ms > OLDEST_ALERT_MS) row.classList.add("slow");
  if (p.hosts === 0 && p.depth > 0) row.classList.add("nohost");
  cell(row, p.name);
  cell(row, p.state, "state");
  cell(row, p.languages.join(", "));
  cell(row, p.depth);
  cell(row, p.running);
  cell(row, p.slots);
  cell(row, p.hosts, "hosts");
  cell(row, seconds(p.oldest_ms), "oldest");
  cell(row, p.dlq, "dlq");
  cell(row, p.expected_wait_ms === null ? "?" : seconds(p.expected_wait_ms));
  const td = cell(row, "", "admin-only");
  if (isAdmin)
    for (const a of ["pause", "resume", "drain"])
      button(td, a, () => api("POST", "/v1/pools/" + encodeURIComponent(p.name) + "/" + a));
}

// What needs someone, in words, for the list at the top.
function alerts(pl, hosts) {
  const out = [];
  for (const p of pl) {
    if (p.state !== "active") out.push(["pool-" + p.state, "pool " + p.name + " is " + p.state +
      (p.depth ? " with " + p.depth + " waiting" : "")]);
    if (p.hosts === 0 && p.depth > 0) out.push(["pool-nohost", "pool " + p.name + ": " + p.depth + " waiting and no live host"]);
    if (p.oldest_ms > OLDEST_ALERT_MS) out.push(["pool-slow", "pool " + p.name + ": the oldest submission waits " + seconds(p.oldest_ms)]);
    if (p.dlq > 0) out.push(["pool-dlq", "pool " + p.name + ": " + p.dlq + " dead letter" + (p.dlq > 1 ? "s" : "")]);
  }
  for (const h of hosts)
    if (!h.alive) out.push(["host-dead", "host " + h.name + " is dead (last heartbeat " + clock(h.time) + ")"]);
  const ul = $("#alerts");
  ul.replaceChildren();
  for (const [kind, text] of out) {
    const li = document.createElement("li");
    li.dataset.kind = kind;
    li.textContent = text;
    ul.appendChild(li);
  }
  if (!out.length) {
    const li = document.createElement("li");
    li.className = "ok";
    li.textContent = "all pools active, all hosts alive, no dead letters";
    ul.appendChild(li);
  }
}

function hostRows(hosts) {
  const tb = $("#hosts tbody");
  tb.replaceChildren();
  for (const h of hosts) {
    const row = tb.insertRow();
    row.dataset.host = h.name;
    if (!h.alive) row.classList.add("dead");
    cell(row, h.name);
    cell(row, h.alive ? "alive" : "dead", "alive");
    cell(row, h.state);
    cell(row, (h.pools || []).map((p) => p.name).join(", "));
    cell(row, h.slots);
    cell(row, h.busy);
    cell(row, h.version);
    cell(row, h.time ? seconds(Date.now() - h.time) + " ago" : "");
  }
}

// ---------------------------------------------------------- submissions

function submissionRows(subs) {
  const tb = $("#submissions tbody");
  tb.replaceChildren();
  for (const s of subs) {
    const row = tb.insertRow();
    row.dataset.id = s.id;
    cell(row, clock(s.time));
    const a = document.createElement("a");
    a.href = "#sub=" + encodeURIComponent(s.id);   // the click-through: hashchange opens it
    a.textContent = s.id;
    row.insertCell().appendChild(a);
    cell(row, s.problem);
    cell(row, s.language);
    cell(row, s.host);
    cell(row, s.pool);
    cell(row, s.verdict, s.verdict);
    cell(row, s.score);
  }
}

function deadLetterRows(dl) {
  const tb = $("#dlq tbody");
  tb.replaceChildren();
  $("#dlq-note").textContent = isAdmin ? "" : "(read only)";
  for (const d of dl) {
    const row = tb.insertRow();
    row.dataset.dlq = d.dlq_id;
    cell(row, d.dlq_id);
    cell(row, d.pool);
    cell(row, d.id);
    cell(row, d.reason);
    cell(row, d.attempts);
    cell(row, clock(d.time));
    const td = cell(row, "", "admin-only");
    if (isAdmin) {
      const path = "/v1/dlq/" + encodeURIComponent(d.dlq_id) + "/";
      button(td, "requeue", () => api("POST", path + "requeue"));
      button(td, "drop", async () => {
        if (confirm("drop dead letter " + d.dlq_id + "? its submission keeps the verdict IE"))
          await api("POST", path + "drop");
      });
    }
  }
}

// The report of #sub=ID: summary, tests, compile output.
async function showDetail() {
  const id = new URLSearchParams(location.hash.slice(1)).get("sub");
  const sec = $("#detail");
  if (!id) {
    sec.hidden = true;
    return;
  }
  const s = await api("GET", "/v1/submissions/" + encodeURIComponent(id));
  sec.hidden = false;
  sec.dataset.id = s.id;
  $("#detail-id").textContent = s.id;
  const sum = $("#detail-summary tbody");
  sum.replaceChildren();
  for (const [k, v] of [["verdict", s.verdict], ["score", s.score], ["state", s.state], ["problem", s.problem],
    ["language", s.language], ["host", s.host], ["pool", s.pool], ["owner", s.owner], ["attempts", s.attempts],
    ["queue wait", seconds(s.queue_wait_ms)], ["judging", seconds(s.judging_ms)], ["message", s.message]]) {
    const row = sum.insertRow();
    row.dataset.field = k;
    cell(row, k);
    cell(row, v, k === "verdict" ? v : null);
  }
  const tb = $("#detail-tests tbody");
  tb.replaceChildren();
  for (const t of s.tests || []) {
    const row = tb.insertRow();
    row.dataset.test = t.name;
    cell(row, t.name);
    cell(row, t.verdict, t.verdict);
    cell(row, t.cpu_time === undefined ? "" : t.cpu_time.toFixed(3) + " s");
    cell(row, t.wall_time === undefined ? "" : t.wall_time.toFixed(3) + " s");
    cell(row, t.memory === undefined ? "" : Math.round(t.memory / 1024) + " KiB");
    cell(row, t.exit_code);
    cell(row, t.host);
    cell(row, t.checker_message);
    // a communication test: a row under it for each process (user 0.., manager)
    for (const p of t.processes || []) {
      const pr = tb.insertRow();
      pr.className = "process";
      pr.dataset.test = t.name;
      pr.dataset.process = p.name;
      cell(pr, "\u21b3 " + p.name);
      cell(pr, p.verdict, p.verdict);
      cell(pr, p.cpu_time.toFixed(3) + " s");
      cell(pr, p.wall_time.toFixed(3) + " s");
      cell(pr, Math.round(p.memory / 1024) + " KiB");
      cell(pr, p.signal ? "signal " + p.signal : p.exit_code);
      cell(pr, "");
      cell(pr, "");
    }
  }
  const c = s.compile;
  $("#compile-output").textContent = c ? "[" + c.status + (c.cached ? ", cached" : "") + "]\n" + (c.output || "") : "(not compiled yet)";
}

// --------------------------------------------------------------- charts

function chartFor(pool) {
  let fig = document.querySelector('figure[data-pool="' + CSS.escape(pool) + '"]');
  if (!fig) {
    fig = document.createElement("figure");
    fig.dataset.pool = pool;
    const c = document.createElement("canvas");
    c.width = 1000;
    c.height = 170;
    fig.appendChild(c);
    fig.appendChild(document.createElement("figcaption"));
    $("#charts").appendChild(fig);
  }
  return fig;
}

function niceMax(v) {
  for (const m of [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000])
    if (v <= m) return m;
  return Math.ceil(v / 10000) * 10000;
}

// One pool's buckets: bars of verdicts (AC, others) per 10 s, lines of
// admissions and depth, a time axis and a count axis.
function draw(fig, h) {
  const c = fig.querySelector("canvas"), g = c.getContext("2d");
  const L = 44, R = 10, T = 16, B = 22, W = c.width - L - R, H = c.height - T - B;
  const bs = h.buckets, step = h.bucket_ms;
  const t1 = Math.max(Date.now(), bs.length ? bs[bs.length - 1].time + step : 0), t0 = t1 - HISTORY_MS;
  const x = (t) => L + ((t - t0) / HISTORY_MS) * W;
  const judged = (b) => Object.values(b.judged).reduce((a, n) => a + n, 0);
  const max = niceMax(Math.max(1, ...bs.map((b) => Math.max(judged(b), b.admitted, b.depth))));
  const y = (v) => T + H - (v / max) * H;
  g.clearRect(0, 0, c.width, c.height);
  g.font = "11px sans-serif";
  g.fillStyle = "#222";
  g.fillText(h.pool, L, 11);
  // axes, with counts at 0, half and max and the time every 10 minutes
  g.strokeStyle = "#999";
  g.beginPath();
  g.moveTo(L, T);
  g.lineTo(L, T + H);
  g.lineTo(L + W, T + H);
  g.stroke();
  g.textAlign = "right";
  for (const v of max % 2 ? [0, max] : [0, max / 2, max]) {
    g.fillText(String(v), L - 4, y(v) + 4);
    g.strokeStyle = "#eee";
    g.beginPath();
    g.moveTo(L + 1, y(v));
    g.lineTo(L + W, y(v));
    g.stroke();
  }
  g.textAlign = "center";
  for (let t = Math.ceil(t0 / 600000) * 600000; t <= t1; t += 600000)
    g.fillText(new Date(t).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", hour12: false }), x(t), c.height - 6);
  const bw = Math.max(1, (step / HISTORY_MS) * W - 1);
  for (const b of bs) {
    const ac = b.judged.AC || 0, other = judged(b) - ac;
    g.fillStyle = "#17803d";
    g.fillRect(x(b.time), y(ac), bw, y(0) - y(ac));
    g.fillStyle = "#b3261e";
    g.fillRect(x(b.time), y(ac + other), bw, y(ac) - y(ac + other));
  }
  for (const [key, color] of [["admitted", "#e08a00"], ["depth", "#2f6fdb"]]) {
    g.strokeStyle = color;
    g.beginPath();
    bs.forEach((b, i) => (i ? g.lineTo : g.moveTo).call(g, x(b.time + step / 2), y(b[key])));
    g.stroke();
  }
  const sum = (f) => bs.reduce((a, b) => a + f(b), 0);
  const cap = fig.querySelector("figcaption");
  fig.dataset.admitted = sum((b) => b.admitted);
  fig.dataset.judged = sum(judged);
  cap.textContent = h.pool + ", last hour: " + fig.dataset.admitted + " admitted, " + fig.dataset.judged +
    " judged, depth up to " + Math.max(0, ...bs.map((b) => b.depth)) + ", " + bs.length + " buckets";
}

async function histories() {
  for (const p of pools) {
    try {
      draw(chartFor(p.name), await api("GET", "/v1/pools/" + encodeURIComponent(p.name) + "/history"));
    } catch (e) {
      setStatus(String(e));
    }
  }
}

// --------------------------------------------------------------- refresh

async function refresh() {
  try {
    const [p, h, d, s] = await Promise.all([api("GET", "/v1/pools"), api("GET", "/v1/hosts"),
      api("GET", "/v1/dlq"), api("GET", "/v1/submissions?limit=25")]);
    pools = p.pools;
    const tb = $("#pools tbody");
    tb.replaceChildren();
    for (const x of pools) poolRow(tb, x);
    hostRows(h.hosts);
    alerts(pools, h.hosts);
    submissionRows(s.submissions);
    deadLetterRows(d.dead_letters);
    setStatus("updated " + clock(Date.now()));
  } catch (e) {
    setStatus(String(e));
  }
}

async function start() {
  try {
    const me = await api("GET", "/v1/whoami");
    isAdmin = me.roles.includes("admin");
    document.body.classList.toggle("admin", isAdmin);
    $("#whoami").textContent = me.name + " (" + me.roles.join(", ") + (isAdmin ? "" : ", read only") + ")";
  } catch (e) {
    setStatus(String(e));
  }
  await refresh();
  await histories();
  await showDetail().catch((e) => setStatus(String(e)));
  document.body.dataset.ready = "1";   // the first full picture is on the page
  setInterval(refresh, 2000);
  setInterval(histories, 10000);
}

window.addEventListener("hashchange", () => showDetail().catch((e) => setStatus(String(e))));
$("#detail-close").addEventListener("click", (ev) => {
  ev.preventDefault();
  window.history.replaceState(null, "", location.pathname + location.search);
  showDetail();
});
start();
