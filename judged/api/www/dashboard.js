// judged dashboard: polls /v1/pools and /v1/hosts every 2 s, follows
// /v1/events (Server-Sent Events read with fetch, so the token goes in the
// Authorization header, never in a URL) for the latest verdicts, and draws
// depth and throughput of the last 10 minutes. Plain JS, no dependencies.
"use strict";

// The token lives in this tab's sessionStorage only: gone with the tab,
// never in localStorage (kept forever) and, once read, not in the address
// bar or the history either (#token= is taken out at once).
const params = new URLSearchParams(location.hash.slice(1));
if (params.get("token")) {
  sessionStorage.setItem("judged-token", params.get("token"));
  window.history.replaceState(null, "", location.pathname + location.search);
}
localStorage.removeItem("judged-token");   // what earlier versions kept
let token = sessionStorage.getItem("judged-token");
if (!token) {
  token = prompt("judge-api admin token") || "";
  sessionStorage.setItem("judged-token", token);
}
const auth = { headers: { Authorization: "Bearer " + token } };
const history = [];          // {t, depth, verdicts}
let verdictsSince = 0;       // verdict events since the last sample

function cell(row, text, cls) {
  const td = row.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function setStatus(text) {
  document.getElementById("status").textContent = text;
}

async function getJSON(path) {
  const r = await fetch(path, auth);
  if (!r.ok) throw new Error(path + ": HTTP " + r.status);
  return r.json();
}

async function refresh() {
  try {
    const [p, h] = await Promise.all([getJSON("/v1/pools"), getJSON("/v1/hosts")]);
    const pb = document.querySelector("#pools tbody");
    pb.replaceChildren();
    let depth = 0;
    for (const x of p.pools) {
      const row = pb.insertRow();
      row.dataset.pool = x.name;
      cell(row, x.name);
      cell(row, x.state);
      cell(row, x.languages.join(", "));
      cell(row, x.depth);
      cell(row, x.running);
      cell(row, x.slots);
      cell(row, (x.oldest_ms / 1000).toFixed(1) + " s");
      cell(row, x.dlq);
      depth += x.depth;
    }
    const hb = document.querySelector("#hosts tbody");
    hb.replaceChildren();
    for (const x of h.hosts) {
      const row = hb.insertRow();
      cell(row, x.name);
      cell(row, x.alive ? "yes" : "no");
      cell(row, x.state || "");
      cell(row, x.slots ?? "");
      cell(row, x.busy ?? "");
      cell(row, x.version || "");
    }
    history.push({ t: Date.now(), depth: depth, verdicts: verdictsSince });
    verdictsSince = 0;
    while (history.length && history[0].t < Date.now() - 600000) history.shift();
    draw();
    setStatus("updated " + new Date().toLocaleTimeString());
  } catch (e) {
    setStatus(String(e));
  }
}

function draw() {
  const c = document.getElementById("chart"), g = c.getContext("2d");
  g.clearRect(0, 0, c.width, c.height);
  if (history.length < 2) return;
  const t0 = Date.now() - 600000;
  const x = (t) => ((t - t0) / 600000) * c.width;
  // throughput per 10 s bucket
  const buckets = new Array(60).fill(0);
  for (const s of history) {
    const i = Math.floor((s.t - t0) / 10000);
    if (i >= 0 && i < 60) buckets[i] += s.verdicts;
  }
  const maxD = Math.max(1, ...history.map((s) => s.depth));
  const maxT = Math.max(1, ...buckets);
  g.strokeStyle = "#2f6fdb";
  g.beginPath();
  history.forEach((s, i) => {
    const y = c.height - 4 - (s.depth / maxD) * (c.height - 8);
    i ? g.lineTo(x(s.t), y) : g.moveTo(x(s.t), y);
  });
  g.stroke();
  g.fillStyle = "rgba(224,138,0,0.6)";
  buckets.forEach((v, i) => {
    const h = (v / maxT) * (c.height - 8);
    g.fillRect((i / 60) * c.width, c.height - h, c.width / 60 - 2, h);
  });
}

function addVerdict(ev) {
  const tb = document.querySelector("#verdicts tbody");
  const row = tb.insertRow(0);
  row.dataset.id = ev.id;
  cell(row, new Date(ev.time).toLocaleTimeString());
  cell(row, ev.id);
  cell(row, ev.pool);
  cell(row, ev.verdict, ev.verdict);
  cell(row, ev.score);
  while (tb.rows.length > 25) tb.deleteRow(-1);
  verdictsSince++;
}

// SSE over fetch: resumes from the last event id after a dropped connection
async function follow() {
  let last = String(Date.now() - 600000) + "-0";   // the last 10 minutes first
  for (;;) {
    try {
      const r = await fetch("/v1/events?since=" + encodeURIComponent(last), auth);
      if (!r.ok) throw new Error("events: HTTP " + r.status);
      const reader = r.body.getReader(), dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let end;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          let id = null, data = null;
          for (const line of block.split("\n")) {
            if (line.startsWith("id: ")) id = line.slice(4);
            else if (line.startsWith("data: ")) data = line.slice(6);
          }
          if (id && data) {
            last = id;
            addVerdict(JSON.parse(data));
          }
        }
      }
    } catch (e) {
      setStatus(String(e));
    }
    await new Promise((res) => setTimeout(res, 1000));
  }
}

refresh();
setInterval(refresh, 2000);
follow();
