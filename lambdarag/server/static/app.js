// The chat page: streams /api/ask as server-sent events, shows citations and the intent, posts ratings.
"use strict";

const INTENTS = {
  person: "找人", process: "办事流程", data: "数据", fact: "事实", compare: "对比",
  relation: "关系", synthesis: "综合", temporal: "时间",
};
const SESSION_KEY = "lambdarag-session";

const log = document.getElementById("log");
const form = document.getElementById("ask-form");
const input = document.getElementById("question");
const sendButton = document.getElementById("send");
const template = document.getElementById("answer-template");

// Splits "...[1]...[2]" into text nodes and citation links, never using innerHTML for server text.
function renderAnswer(box, text) {
  box.replaceChildren();
  const parts = text.split(/(\[\d+\])/);
  for (const part of parts) {
    const m = /^\[(\d+)\]$/.exec(part);
    if (m) {
      const a = document.createElement("a");
      a.href = "#";
      a.className = "cite";
      a.textContent = part;
      a.dataset.n = m[1];
      box.appendChild(a);
    } else if (part) {
      box.appendChild(document.createTextNode(part));
    }
  }
}

function citationItem(c) {
  const li = document.createElement("li");
  li.dataset.n = String(c.n);
  const details = document.createElement("details");
  const summary = document.createElement("summary");
  summary.textContent = `[${c.n}] ${c.title || c.doc_id}`;
  details.appendChild(summary);
  const fields = [["出处", c.breadcrumb], ["位置", c.locator], ["文档", c.doc_id]];
  for (const [label, value] of fields) {
    if (!value) continue;
    const p = document.createElement("p");
    p.className = "field";
    p.textContent = `${label}：${value}`;
    details.appendChild(p);
  }
  const quote = document.createElement("blockquote");
  quote.className = "excerpt";
  quote.textContent = c.excerpt || "";
  details.appendChild(quote);
  li.appendChild(details);
  return li;
}

function showCitations(turn, citations) {
  const list = turn.querySelector(".citations");
  list.replaceChildren(...citations.map(citationItem));
  turn.querySelector(".answer").addEventListener("click", (event) => {
    const link = event.target.closest("a.cite");
    if (!link) return;
    event.preventDefault();
    const item = list.querySelector(`li[data-n="${link.dataset.n}"] details`);
    if (item) { item.open = true; item.scrollIntoView({ block: "nearest" }); }
  });
}

function showIntent(turn, intent) {
  const badge = turn.querySelector(".intent");
  badge.textContent = intent ? `意图：${INTENTS[intent] || intent}` : "";
  badge.dataset.intent = intent || "";
}

function setupRating(turn, requestId) {
  const rated = turn.querySelector(".rated");
  for (const [cls, rating] of [["up", "up"], ["down", "down"]]) {
    const button = turn.querySelector(`.${cls}`);
    button.disabled = false;
    button.onclick = async () => {
      const res = await fetch("/api/feedback", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ request_id: requestId, rating }),
      });
      rated.textContent = res.ok ? "感谢反馈！" : "反馈提交失败";
      turn.querySelectorAll(".rating button").forEach((b) => { b.disabled = true; });
      turn.querySelector(`.${cls}`).classList.add("chosen");
    };
  }
}

function parseEvent(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  return { event, data: data.length ? JSON.parse(data.join("\n")) : null };
}

// Reads the SSE stream from fetch's ReadableStream (EventSource cannot POST a body).
async function* events(response) {
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, cut);
      buffer = buffer.slice(cut + 2);
      if (block.trim()) yield parseEvent(block);
    }
  }
}

function handle(turn, state, ev) {
  const status = turn.querySelector(".status");
  if (ev.event === "meta") {
    showIntent(turn, ev.data.intent);
    if (ev.data.session_id) sessionStorage.setItem(SESSION_KEY, ev.data.session_id);
  } else if (ev.event === "delta") {
    state.text += ev.data.text;
    renderAnswer(turn.querySelector(".answer"), state.text);
  } else if (ev.event === "citations") {
    showCitations(turn, ev.data.citations || []);
  } else if (ev.event === "result") {
    const r = ev.data;
    renderAnswer(turn.querySelector(".answer"), r.answer || state.text);
    showIntent(turn, r.intent);
    if (r.session_id) sessionStorage.setItem(SESSION_KEY, r.session_id);
    turn.classList.toggle("not-found", !r.found);
    status.textContent = r.found ? "" : "未找到";
    turn.dataset.requestId = r.request_id;
    setupRating(turn, r.request_id);
    turn.classList.add("done");
  } else if (ev.event === "error") {
    status.textContent = `出错：${ev.data.error.message}`;
    turn.classList.add("error");
  }
}

async function ask(question) {
  const turn = template.content.firstElementChild.cloneNode(true);
  turn.querySelector(".question").textContent = question;
  turn.querySelectorAll(".rating button").forEach((b) => { b.disabled = true; });
  document.getElementById("welcome")?.remove();
  log.appendChild(turn);
  turn.querySelector(".status").textContent = "正在检索…";
  const body = { question, stream: true };
  const session = sessionStorage.getItem(SESSION_KEY);
  if (session) body.session_id = session;
  try {
    const res = await fetch("/api/ask", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    if (!res.ok) {
      const err = await res.json().catch(() => ({ error: { message: res.statusText } }));
      handle(turn, {}, { event: "error", data: err });
      return;
    }
    turn.querySelector(".status").textContent = "";
    const state = { text: "" };
    for await (const ev of events(res)) handle(turn, state, ev);
  } catch (e) {
    handle(turn, {}, { event: "error", data: { error: { message: String(e) } } });
  }
  turn.scrollIntoView({ block: "end" });
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const question = input.value.trim();
  if (!question) return;
  input.value = "";
  sendButton.disabled = true;
  try { await ask(question); } finally { sendButton.disabled = false; input.focus(); }
});

input.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    form.requestSubmit();
  }
});

document.getElementById("new-session").addEventListener("click", () => {
  sessionStorage.removeItem(SESSION_KEY);
  log.replaceChildren();
});
