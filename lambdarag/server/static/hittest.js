// The hit test page: GET /api/search?explain=1 for one question, rendered stage by stage (server text only
// through textContent, never innerHTML).
"use strict";

const form = document.getElementById("hit-form");
const statusLine = document.getElementById("status");
const report = document.getElementById("report");
const byId = (id) => document.getElementById(id);

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (className) node.className = className;
  return node;
}

function num(value, digits = 4) {
  return typeof value === "number" ? value.toFixed(digits) : "";
}

function table(target, headers, rows) {
  target.replaceChildren();
  const head = el("tr");
  for (const h of headers) head.appendChild(el("th", h));
  target.appendChild(head);
  for (const row of rows) {
    const tr = el("tr", null, row.className || "");
    for (const cell of row.cells) {
      const td = el("td", cell.text, cell.num ? "num" : "");
      tr.appendChild(td);
    }
    target.appendChild(tr);
  }
}

function list(values) {
  return (values || []).join("、");
}

function splitList(text) {
  return text.split(/[,，]/).map((s) => s.trim()).filter(Boolean);
}

function filtersFromForm() {
  const filters = {};
  for (const key of ["doc_ids", "tags"]) {
    const values = splitList(byId(key).value);
    if (values.length) filters[key] = values;
  }
  for (const key of ["title", "source_prefix", "date_from", "date_to"]) {
    const value = byId(key).value.trim();
    if (value) filters[key] = value;
  }
  return filters;
}

function showQuery(x) {
  const dl = byId("query");
  dl.replaceChildren();
  const e = x.expanded || {};
  const rows = [
    ["原问题", x.question], ["改写后", `${x.condensed.question}（${x.condensed.method}）`],
    ["BM25 查询", e.bm25_query], ["向量查询", e.dense_query], ["图谱查询", e.graph_query], ["百科查询", e.wiki_query],
    ["关键词", list(e.keywords)], ["实体", list((e.entities || []).map((en) => `${en.name}(${en.kind})`))],
    ["时间范围", e.time_scope ? JSON.stringify(e.time_scope) : "无"],
  ];
  for (const [label, value] of rows) {
    dl.appendChild(el("dt", label));
    dl.appendChild(el("dd", value || ""));
  }
}

function showIntent(x) {
  const i = x.intent;
  byId("intent").textContent = `意图：${i.intent}（方式 ${i.method}，领先 ${num(i.margin, 2)}）`;
  table(byId("intent-scores"), ["意图", "得分", "命中的关键词"], Object.entries(i.scores).map(([name, score]) => ({
    className: name === i.intent ? "kept" : "",
    cells: [{ text: name }, { text: num(score, 2), num: true }, { text: list(i.matched[name]) }],
  })));
}

function showScope(x) {
  const s = x.scope;
  byId("scope").textContent = s
    ? `过滤条件 ${JSON.stringify(s.filters)}：${s.documents}/${s.of_documents} 篇文档，${s.chunks}/${s.of_chunks} 个片段`
    : "未过滤：检索全部文档";
}

function showChannels(x) {
  const box = byId("channels");
  box.replaceChildren();
  for (const ch of x.channels) {
    const div = el("div", null, "channel");
    div.dataset.channel = ch.name;
    const weight = ch.weight === null || ch.weight === undefined ? "—" : num(ch.weight, 2);
    div.appendChild(el("h3", `${ch.name} · 权重 ${weight} · ${num(ch.ms, 1)} ms · ${ch.candidates} 个候选`));
    div.appendChild(el("p", `查询：${ch.query}`, "note-query"));
    if (ch.error) div.appendChild(el("p", `错误：${ch.error}`, "note"));
    if (ch.note) div.appendChild(el("p", ch.note, "note"));
    const t = el("table");
    table(t, ["名次", "得分", "片段", "文档标题", "进入融合结果"], ch.hits.map((h) => ({
      className: h.kept ? "kept" : "",
      cells: [{ text: h.rank, num: true }, { text: num(h.score), num: true }, { text: h.chunk_id },
        { text: h.title }, { text: h.kept ? "是" : "" }],
    })));
    div.appendChild(t);
    box.appendChild(div);
  }
}

function showFused(x) {
  const f = x.fusion;
  byId("fusion").textContent = `RRF k=${f.rrf_k}，权重 ${JSON.stringify(f.weights)}，文档扩散 ${num(f.document_spread, 3)}，` +
    `共 ${f.candidates} 个候选，保留前 ${f.top_k} 个`;
  table(byId("fused"), ["名次", "片段", "文档标题", "总分", "各通道名次", "RRF 贡献", "加权提升", "学习排序", "重排"],
    x.fused.map((r) => ({
      className: r.kept ? "kept" : "cut",
      cells: [{ text: r.rank, num: true }, { text: r.chunk_id }, { text: r.title }, { text: num(r.score, 6), num: true },
        { text: Object.entries(r.ranks).map(([c, n]) => `${c}#${n}`).join(" ") },
        { text: Object.entries(r.rrf).map(([c, v]) => `${c} ${num(v, 5)}`).join(" ") },
        { text: Object.entries(r.boosts).map(([b, v]) => `${b} ×${num(1 + v, 2)}`).join(" ") },
        { text: num(r.learned) }, { text: num(r.rerank) }],
    })));
}

function showStages(x) {
  const g = x.gate;
  byId("gate").textContent = `重合度 ${num(g.overlap, 3)}（阈值 ${num(g.threshold, 2)}）：${g.passed ? "通过" : "未通过"}` +
    `${g.rewritten ? `，改写重试“${g.rewritten}”，保留 ${g.kept}` : ""}。${g.reason || ""}`;
  byId("learned").textContent = `学习排序：${x.learned.used ? "已使用" : "未使用"}（${x.learned.status}）`;
  const r = x.rerank;
  byId("rerank").textContent = `重排：${r.status}${r.n ? `，${r.n} 个候选` : ""}，${num(r.ms, 1)} ms${r.reason ? `（${r.reason}）` : ""}`;
  table(byId("stages"), ["阶段", "毫秒"], Object.entries(x.stages).map(([name, ms]) => ({
    cells: [{ text: name }, { text: num(ms, 2), num: true }],
  })));
}

function render(x) {
  showQuery(x);
  showIntent(x);
  showScope(x);
  showChannels(x);
  showFused(x);
  showStages(x);
  report.hidden = false;
}

async function run(event) {
  event.preventDefault();
  const params = new URLSearchParams({ question: byId("question").value.trim(), explain: "1" });
  const topK = byId("top_k").value.trim();
  if (topK) params.set("top_k", topK);
  const filters = filtersFromForm();
  if (Object.keys(filters).length) params.set("filters", JSON.stringify(filters));
  statusLine.className = "status";
  statusLine.textContent = "检索中…";
  try {
    const response = await fetch(`/api/search?${params}`, { headers: { Accept: "application/json" } });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error ? body.error.message : `HTTP ${response.status}`);
    render(body.explain);
    statusLine.textContent = `${body.hits.length} 条结果 · ${body.explain.found ? "找到答案依据" : "未找到依据"}`;
  } catch (err) {
    report.hidden = true;
    statusLine.className = "status error";
    statusLine.textContent = `出错：${err.message}`;
  }
}

form.addEventListener("submit", run);
