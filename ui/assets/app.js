// Egret UI: plain JavaScript over /api/egret (no build step, no framework).
// Pages: #/ (topology list), #/topology/NAME (plans, stats, charts, errors, logs).
"use strict";

const POLL_MS = 3000;
const COLORS = ["#2f6fdf", "#d64545", "#2e9e5b", "#e0a100", "#8e44ad", "#16a2b8", "#7f8c8d", "#c0392b"];
// Storm UI's capacity thresholds (its "capacity" column turns red near 1).
const CAPACITY_HOT = 0.7, CAPACITY_WARM = 0.4;

let timer = null;
const $ = (sel, el = document) => el.querySelector(sel);

function esc(s) {
  return String(s ?? "").replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}
function num(n) { return n == null ? "–" : Number(n).toLocaleString("en-US"); }
function fix(n, d = 2) { return n == null ? "–" : Number(n).toFixed(d); }
function rate(n) { return n == null ? "–" : (n >= 100 ? n.toFixed(0) : n.toFixed(1)) + "/s"; }
function uptime(s) {
  s = Math.max(0, s | 0);
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
  return (d ? d + "d " : "") + (d || h ? h + "h " : "") + (d || h || m ? m + "m " : "") + (s % 60) + "s";
}
async function getJson(url) {
  const r = await fetch(url, { cache: "no-store" });
  const body = await r.json();
  if (!r.ok) throw new Error(body.errorMessage || r.statusText);
  return body;
}
function capacityColor(c) {
  if (c >= CAPACITY_HOT) return "#d64545";
  if (c >= CAPACITY_WARM) return "#e0a100";
  return "#2e9e5b";
}
function setStatus(text) { $("#status").textContent = text; }

// ---- topology list ----

async function listPage() {
  $("#crumb").innerHTML = "Topologies";
  const data = await getJson("/api/egret/topologies");
  const rows = data.topologies.map(t => `
    <tr data-topology="${esc(t.name)}">
      <td><a href="#/topology/${encodeURIComponent(t.name)}">${esc(t.name)}</a></td>
      <td class="muted">${esc(t.id)}</td>
      <td><span class="badge ${esc(t.status)}">${esc(t.status)}</span></td>
      <td class="num">${t.containers}</td><td class="num">${t.executors}</td><td class="num">${t.tasks}</td>
      <td>${uptime(t.uptimeSeconds)}</td>
      <td class="bottleneck-cell">${t.bottleneck ? `<span class="badge hot">bottleneck</span> <a href="#/topology/${encodeURIComponent(t.name)}">${esc(t.bottleneck)}</a>` : '<span class="muted">none</span>'}</td>
      <td class="num">${t.errors ? `<span class="badge hot">${t.errors}</span>` : "0"}</td>
    </tr>`).join("");
  $("#main").innerHTML = data.topologies.length ? `
    <h2>Topologies</h2>
    <table id="topologies"><thead><tr><th>Name</th><th>Id</th><th>Status</th><th class="num">Containers</th>
    <th class="num">Executors</th><th class="num">Tasks</th><th>Uptime</th><th>Bottleneck</th><th class="num">Errors</th></tr></thead>
    <tbody>${rows}</tbody></table>` : `<h2>Topologies</h2><p id="topologies" class="muted">No topologies running.</p>`;
}

// ---- the logical plan as a DAG ----

function layout(components, edges) {
  const layer = {};
  components.forEach(c => { layer[c.id] = 0; });
  // Longest path from a spout (a DAG: at most |components| rounds).
  for (let round = 0; round < components.length; round++) {
    let changed = false;
    edges.forEach(e => {
      if (e.from in layer && e.to in layer && layer[e.to] < layer[e.from] + 1 && e.from !== e.to) {
        layer[e.to] = layer[e.from] + 1; changed = true;
      }
    });
    if (!changed) break;
  }
  const byLayer = {};
  components.forEach(c => { (byLayer[layer[c.id]] ||= []).push(c.id); });
  const pos = {};
  const W = 190, H = 74, GX = 90, GY = 28;
  let maxRows = 1;
  Object.entries(byLayer).forEach(([l, ids]) => {
    maxRows = Math.max(maxRows, ids.length);
    ids.forEach((id, i) => { pos[id] = { x: 20 + l * (W + GX), y: 20 + i * (H + GY), w: W, h: H }; });
  });
  const layers = Object.keys(byLayer).length;
  return { pos, width: 40 + layers * (W + GX) - GX, height: 40 + maxRows * (H + GY) - GY };
}

function dag(overview) {
  const comps = overview.components, edges = overview.edges;
  const { pos, width, height } = layout(comps, edges);
  const edgeSvg = edges.map(e => {
    const a = pos[e.from], b = pos[e.to];
    if (!a || !b) return "";
    const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2, mx = (x1 + x2) / 2;
    return `<g class="edge" data-from="${esc(e.from)}" data-to="${esc(e.to)}" data-stream="${esc(e.stream)}">
      <path d="M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2 - 6},${y2}" marker-end="url(#arrow)"/>
      <text x="${mx}" y="${(y1 + y2) / 2 - 6}" text-anchor="middle" class="rate">${esc(e.stream)} · ${rate(e.rate)}</text></g>`;
  }).join("");
  const nodeSvg = comps.map(c => {
    const p = pos[c.id];
    const cap = c.kind === "bolt" ? (c.capacityNow ?? c.capacity) : null;
    const fill = c.kind === "spout" ? "#3b5b8c" : capacityColor(cap || 0);
    const bp = (c.backpressureRate || 0) > 0;
    const cls = ["node", c.kind, c.bottleneck ? "bottleneck" : "", bp ? "backpressure" : ""].join(" ");
    const line2 = c.kind === "spout" ? `emit ${rate(c.emitRate)}` : `capacity ${fix(cap, 2)}`;
    const line3 = c.bottleneck ? "⚠ bottleneck" : (bp ? "backpressure" : `${c.executors} executor${c.executors === 1 ? "" : "s"}`);
    return `<g class="${cls}" data-component="${esc(c.id)}" data-capacity="${cap ?? ""}">
      <a href="#/topology/${encodeURIComponent(overview.summary.name)}/component/${encodeURIComponent(c.id)}">
      <rect x="${p.x}" y="${p.y}" width="${p.w}" height="${p.h}" fill="${fill}"/>
      <text class="title" x="${p.x + 10}" y="${p.y + 20}">${esc(c.id)}</text>
      <text x="${p.x + 10}" y="${p.y + 40}">${line2}</text>
      <text x="${p.x + 10}" y="${p.y + 58}">${line3}</text></a></g>`;
  }).join("");
  return `<svg id="dag" viewBox="0 0 ${width} ${height}" height="${height}" preserveAspectRatio="xMinYMin meet">
    <defs><marker id="arrow" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
    <path d="M0,0 L10,5 L0,10 z" fill="#8a97a8"/></marker></defs>${edgeSvg}${nodeSvg}</svg>`;
}

// ---- charts (SVG polylines) ----

function chart(title, series, unit) {
  const W = 420, H = 150, L = 48, B = 20, T = 8;
  const entries = Object.entries(series).filter(([, pts]) => pts && pts.length);
  if (!entries.length) return `<div class="card chart-card" data-chart="${esc(title)}"><h3>${esc(title)}</h3><p class="muted">No samples yet (one every few seconds).</p></div>`;
  let t0 = Infinity, t1 = -Infinity, vmax = 0;
  entries.forEach(([, pts]) => pts.forEach(p => { t0 = Math.min(t0, p.t); t1 = Math.max(t1, p.t); vmax = Math.max(vmax, p.v); }));
  if (t1 === t0) t1 = t0 + 1000;
  if (vmax === 0) vmax = 1;
  const x = t => L + (t - t0) / (t1 - t0) * (W - L - 6), y = v => T + (1 - v / vmax) * (H - T - B);
  const lines = entries.map(([name, pts], i) =>
    `<polyline fill="none" stroke="${COLORS[i % COLORS.length]}" stroke-width="1.6" points="${pts.map(p => `${x(p.t).toFixed(1)},${y(p.v).toFixed(1)}`).join(" ")}"/>`).join("");
  const minutes = ((t1 - t0) / 60000).toFixed(1);
  const legend = entries.map(([name, pts], i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${esc(name)} ${fix(pts[pts.length - 1].v, 1)}</span>`).join("");
  return `<div class="card chart-card" data-chart="${esc(title)}"><h3>${esc(title)} <span class="muted">(${esc(unit)})</span></h3>
    <svg class="chart" viewBox="0 0 ${W} ${H}" width="100%">
      <line x1="${L}" y1="${H - B}" x2="${W}" y2="${H - B}" stroke="#ccd"/><line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="#ccd"/>
      <text x="${L - 4}" y="${T + 8}" text-anchor="end">${fix(vmax, vmax < 10 ? 2 : 0)}</text><text x="${L - 4}" y="${H - B}" text-anchor="end">0</text>
      <text x="${L}" y="${H - 5}">−${minutes} min</text><text x="${W - 6}" y="${H - 5}" text-anchor="end">now</text>${lines}</svg>
    <div class="legend">${legend}</div></div>`;
}

function pick(all, prefix, rename = k => k.slice(prefix.length)) {
  const out = {};
  Object.entries(all).forEach(([k, v]) => { if (k.startsWith(prefix)) out[rename(k)] = v; });
  return out;
}

function charts(all) {
  const scale = (pts, f) => pts.map(p => ({ t: p.t, v: p.v * f }));
  const latency = {};
  Object.entries(pick(all, "complete-latency-ms/")).forEach(([c, v]) => { latency[c + " mean"] = v; });
  Object.entries(pick(all, "complete-latency-p50-ms/")).forEach(([c, v]) => { latency[c + " p50"] = v; });
  Object.entries(pick(all, "complete-latency-p99-ms/")).forEach(([c, v]) => { latency[c + " p99"] = v; });
  const acks = {};
  Object.entries(pick(all, "acked/")).forEach(([c, v]) => { if (v.some(p => p.v > 0)) acks[c + " acked"] = v; });
  Object.entries(pick(all, "failed/")).forEach(([c, v]) => { if (v.some(p => p.v > 0)) acks[c + " failed"] = v; });
  const queue = {};
  if (all["queue-bytes-peak"]) queue["peak queue"] = scale(all["queue-bytes-peak"], 1 / 1024);
  if (all["ledger-bytes"]) queue["ledger"] = scale(all["ledger-bytes"], 1 / 1024);
  const memory = {};
  Object.entries(pick(all, "memory-bytes/")).forEach(([c, v]) => { memory[c] = scale(v, 1 / 1048576); });
  const heap = {};
  Object.entries(pick(all, "jvm-heap-bytes/")).forEach(([c, v]) => { heap[c] = scale(v, 1 / 1048576); });
  const bp = pick(all, "backpressure/");
  if (all["backpressure-ms"]) bp["spouts held (ms/s)"] = all["backpressure-ms"];
  return [
    chart("Throughput: emitted", pick(all, "emitted/"), "tuples/s"),
    chart("Throughput: executed", pick(all, "executed/"), "tuples/s"),
    chart("Capacity", pick(all, "capacity/"), "share of time in execute"),
    chart("Complete latency", latency, "ms, mean, p50 and p99 since start"),
    chart("Acks and fails", acks, "trees/s"),
    chart("Backpressure", bp, "engagements/s per congested component"),
    chart("Queue bytes", queue, "KiB"),
    chart("Restarts", all["restarts"] ? { restarts: all["restarts"] } : {}, "total"),
    chart("Memory (cgroup, when isolated)", memory, "MiB"),
    chart("JVM heap in use", heap, "MiB, summed over the component's instances"),
    chart("GC", pick(all, "gc-ms/"), "ms/s collecting, summed over the component's instances"),
  ].join("");
}

// ---- a topology ----

function componentsTable(o) {
  const rows = o.components.map(c => `
    <tr data-component="${esc(c.id)}" class="${c.bottleneck ? "bottleneck" : ""}">
      <td><a href="#/topology/${encodeURIComponent(o.summary.name)}/component/${encodeURIComponent(c.id)}">${esc(c.id)}</a>
        ${c.bottleneck ? '<span class="badge hot">bottleneck</span>' : ""}</td>
      <td>${c.kind}</td><td class="num">${c.executors}</td>
      <td class="num emitted">${num(c.emitted)}</td><td class="num">${rate(c.emitRate)}</td>
      <td class="num executed">${c.kind === "bolt" ? num(c.executed) : "–"}</td>
      <td class="num acked">${num(c.acked)}</td><td class="num">${num(c.failed)}</td>
      <td class="num">${c.kind === "bolt" ? fix(c.executeLatencyMs, 3) : "–"}</td>
      <td class="num">${c.kind === "bolt" ? fix(c.processLatencyMs, 3) : fix(c.completeLatencyMs, 1)}</td>
      <td class="num capacity" style="color:${c.kind === "bolt" ? capacityColor(c.capacity) : "inherit"}">${c.kind === "bolt" ? fix(c.capacity, 3) : "–"}</td>
      <td class="num">${c.errors}</td>
    </tr>`).join("");
  return `<table id="components"><thead><tr><th>Component</th><th>Kind</th><th class="num">Executors</th>
    <th class="num">Emitted</th><th class="num">Emit rate</th><th class="num">Executed</th><th class="num">Acked</th><th class="num">Failed</th>
    <th class="num">Execute ms</th><th class="num">Process / complete ms</th><th class="num">Capacity (${esc(o.window)} s)</th><th class="num">Errors</th></tr></thead>
    <tbody>${rows}</tbody></table>`;
}

function physicalPlan(o) {
  const sms = {};
  (o.physical.streamManagers || []).forEach(s => { sms[s.container] = s; });
  const name = encodeURIComponent(o.summary.name);
  return `<div class="containers" id="physical">${o.packing.containers.map(c => `
    <div class="container" data-container="${c.index}"><h4>Container ${c.index}
      <span class="muted">${sms[c.index] ? esc(sms[c.index].host + ":" + sms[c.index].dataPort) : "no stream manager yet"}</span></h4>
      <div class="instance"><a href="#/topology/${name}/log/stmgr-${c.index}">stmgr-${c.index}</a> · <a href="#/topology/${name}/log/container-${c.index}">container-${c.index}</a></div>
      ${c.instances.map(i => `<div class="instance" data-instance="${esc(i.id)}"><a href="#/topology/${name}/log/${encodeURIComponent(i.id)}">${esc(i.id)}</a>
        <span class="muted">${esc(i.component)} · tasks ${esc(i.tasks.join(","))} · ${i.heapMb} MB</span></div>`).join("")}
    </div>`).join("")}</div>`;
}

function errorsList(errors) {
  if (!errors.length) return `<div id="errors" class="errors"><p class="muted">No errors reported.</p></div>`;
  return `<div id="errors" class="errors">${errors.slice().reverse().map(e => `
    <div class="error" data-component="${esc(e.component)}"><b>${esc(e.component)}</b> task ${e.task} on ${esc(e.host)}:${e.port}
      <span class="muted">${new Date(e.time * 1000).toLocaleString()}</span>
      <pre>${esc(e.error)}</pre></div>`).join("")}</div>`;
}

async function topologyPage(name, focus) {
  const o = await getJson(`/api/egret/topologies/${encodeURIComponent(name)}`);
  const s = o.summary;
  $("#crumb").innerHTML = `<a href="#/">Topologies</a> › ${esc(s.name)}`;
  const hot = o.components.find(c => c.bottleneck);
  const banner = hot
    ? `<div id="bottleneck" data-component="${esc(hot.id)}">Bottleneck: <b>${esc(hot.id)}</b>, capacity ${fix(hot.capacity, 2)} (its executors spend that share of the time in execute; add executors or make it faster)</div>`
    : `<div id="bottleneck" class="none">No bottleneck: every bolt's capacity is below ${CAPACITY_HOT}.</div>`;
  let series = { series: {} };
  try { series = await getJson(`/api/egret/topologies/${encodeURIComponent(name)}/series`); } catch (e) { /* shown as no samples */ }
  let logSection = "";
  if (focus && focus.log) {
    const log = await getJson(`/api/egret/topologies/${encodeURIComponent(name)}/logs/${encodeURIComponent(focus.log)}?lines=300`);
    logSection = `<h2 id="log-title">Log of ${esc(focus.log)} <span class="muted">(last ${log.lines.length} lines)</span></h2><div id="log"><pre>${esc(log.lines.join("\n"))}</pre></div>`;
  }
  let componentSection = "";
  if (focus && focus.component) {
    const id = encodeURIComponent(s.id);
    const c = await getJson(`/api/v1/topology/${id}/component/${encodeURIComponent(focus.component)}?window=600`);
    componentSection = `<h2>Component ${esc(c.id)} <span class="muted">(${esc(c.componentType)}, last 10 min)</span></h2>
      <table id="executors"><thead><tr><th>Executor</th><th>Host:port</th><th class="num">Emitted</th><th class="num">Acked</th><th class="num">Executed</th><th class="num">Execute ms</th><th class="num">Capacity</th><th>Log</th></tr></thead><tbody>
      ${c.executorStats.map(e => `<tr><td>${esc(e.id)}</td><td>${esc(e.host)}:${e.port}</td><td class="num">${num(e.emitted)}</td><td class="num">${num(e.acked)}</td>
        <td class="num">${e.executed == null ? "–" : num(e.executed)}</td><td class="num">${e.executeLatency ?? "–"}</td><td class="num">${e.capacity ?? "–"}</td>
        <td><a href="#/topology/${encodeURIComponent(s.name)}/log/${encodeURIComponent(e.workerLogLink.split("/").pop())}">log</a></td></tr>`).join("")}</tbody></table>`;
  }
  $("#main").innerHTML = `
    <h2>${esc(s.name)} <span class="badge ${esc(s.status)}">${esc(s.status)}</span>
      <span class="muted">${esc(s.id)} · ${s.containers} containers · ${s.executors} executors · up ${uptime(s.uptimeSeconds)}</span></h2>
    ${s.unreachable ? `<p class="badge UNREACHABLE">${esc(s.unreachable)}</p>` : ""}
    ${banner}
    ${componentSection}${logSection}
    <h2>Logical plan <span class="muted">(colour: capacity; dashed red border: backpressure toward it; edges: tuples/s executed)</span></h2>
    ${dag(o)}
    <h2>Components</h2>${componentsTable(o)}
    <h2>Charts <span class="muted">(last hour, one point every ${series.resolutionSecs || o.resolutionSecs} s)</span></h2>
    <div class="grid" id="charts">${charts(series.series)}</div>
    <h2>Physical plan <span class="muted">(containers and instances; click for the log)</span></h2>${physicalPlan(o)}
    <h2>Errors</h2>${errorsList(o.errors)}`;
}

// ---- routing ----

async function render() {
  const hash = location.hash.replace(/^#\/?/, "");
  const parts = hash.split("/").map(decodeURIComponent);
  try {
    if (parts[0] === "topology" && parts[1]) {
      const focus = parts[2] === "log" ? { log: parts[3] } : parts[2] === "component" ? { component: parts[3] } : null;
      await topologyPage(parts[1], focus);
    } else {
      await listPage();
    }
    setStatus("updated " + new Date().toLocaleTimeString());
  } catch (e) {
    setStatus("error: " + e.message);
  }
}

function schedule() {
  clearTimeout(timer);
  timer = setTimeout(async () => { await render(); schedule(); }, POLL_MS);
}

window.addEventListener("hashchange", () => { render(); schedule(); });
render().then(schedule);
