// mockd dashboard: plain script, no dependencies. Everything shown comes from the control API of the daemon
// that served this page. Recorded requests and bodies are user data: they are only ever written as text
// (textContent, text nodes, attribute values set one by one), never as HTML.
"use strict";

const tokenKey = "mockd-control-token";
const state = {
  session: null,
  rows: [],
  bySeq: new Map(),
  selected: null,
  filter: null,
  tab: "journal",
  feed: null,
  scenarios: [],
  harURL: null,
};

function $(id) {
  return document.getElementById(id);
}

// el("td", {class: "num"}, "text", child): strings become text nodes, never markup.
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name.startsWith("data-")) node.setAttribute(name, String(value));
    else if (name === "onclick") node.addEventListener("click", value);
    else node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

function token() {
  return sessionStorage.getItem(tokenKey);
}

// #token=… on first load: kept in sessionStorage and removed from the address bar (a fragment never reaches
// the server, its logs or a Referer).
function takeTokenFromFragment() {
  const match = /^#token=(.+)$/.exec(location.hash);
  if (!match) return;
  sessionStorage.setItem(tokenKey, decodeURIComponent(match[1]));
  history.replaceState(null, "", location.pathname + location.search);
}

class Unauthorized extends Error {}

function headers(session, extra) {
  const result = Object.assign({}, extra || {});
  const value = token();
  if (value) result["Authorization"] = "Bearer " + value;
  if (session) result["X-Mockd-Session"] = session;
  return result;
}

async function api(path, options) {
  const settings = options || {};
  const init = { method: settings.method || "GET", headers: headers(settings.session, settings.headers) };
  if (settings.json !== undefined) {
    init.body = JSON.stringify(settings.json);
    init.headers["Content-Type"] = "application/json";
  }
  if (settings.signal) init.signal = settings.signal;
  const response = await fetch("/__mockd/" + path, init);
  if (response.status === 401) {
    askForToken(token() ? "The token was refused." : "");
    throw new Unauthorized("unauthorized");
  }
  return response;
}

async function apiJSON(path, options) {
  const response = await api(path, options);
  const text = await response.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (error) {
    body = { message: text };
  }
  if (!response.ok) {
    const message = body && body.message ? body.message : "HTTP " + response.status;
    throw new Error(message);
  }
  return body;
}

function askForToken(message) {
  $("token-form").hidden = false;
  $("token-error").textContent = message || "";
  $("token-input").focus();
}

function say(message, isError) {
  const status = $("status");
  status.textContent = message;
  status.className = isError ? "error" : "";
}

function timeOf(iso) {
  const date = new Date(iso);
  return isNaN(date) ? "" : date.toLocaleTimeString([], { hour12: false }) + "." +
    String(date.getMilliseconds()).padStart(3, "0");
}

function ago(iso) {
  if (!iso) return "never";
  const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
  if (seconds < 60) return seconds + " s ago";
  if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
  return timeOf(iso);
}

// MARK: sessions

async function refreshSessions() {
  let answer;
  try {
    answer = await apiJSON("sessions");
  } catch (error) {
    if (!(error instanceof Unauthorized)) $("live").textContent = "offline";
    return;
  }
  $("token-form").hidden = true;
  const body = clear($("sessions").tBodies[0]);
  for (const session of answer.sessions) {
    const row = el("tr", { "data-session": session.id, class: session.id === state.session ? "selected" : "" },
      el("td", {}, session.id), el("td", {}, session.scenario), el("td", { class: "num" }, session.journalCount),
      el("td", { title: session.lastActivity || "" }, ago(session.lastActivity)));
    row.addEventListener("click", () => openSession(session.id));
    body.append(row);
  }
  // The overall coverage reads every session's journal: only again when some session's traffic or scenario
  // changed.
  const signature = JSON.stringify(answer.sessions.map((session) => [session.id, session.scenario,
    session.journalCount, session.lastActivity]));
  if (signature !== state.sessionsSignature) {
    state.sessionsSignature = signature;
    refreshOverall();
  }
  if (!state.session && answer.sessions.length > 0) {
    const wanted = new URLSearchParams(location.search).get("session");
    if (wanted) {
      const known = answer.sessions.find((session) => session.id === wanted);
      if (known) openSession(known.id);
    } else {
      // Opened fresh: the session with the newest request, else the default one, followed live at once.
      openSession(activeSession(answer.sessions).id);
    }
  }
}

// The session that saw the newest request (lastActivity), else the default session, else the first.
function activeSession(sessions) {
  let newest = null;
  for (const session of sessions) {
    if (session.lastActivity && (!newest || session.lastActivity > newest.lastActivity)) newest = session;
  }
  return newest || sessions.find((session) => session.id === "default") || sessions[0];
}

async function refreshHealth() {
  try {
    const health = await apiJSON("health");
    $("daemon").textContent = "version " + health.version + (health.set ? " · set " + health.set :
      " · scenario " + health.scenario);
  } catch (error) {
    // Shown by the token form or the offline badge.
  }
}

async function openSession(id) {
  if (state.feed) state.feed.abort();
  state.session = id;
  state.rows = [];
  state.bySeq = new Map();
  state.selected = null;
  state.filter = null;
  $("session").hidden = false;
  $("empty").hidden = true;
  $("session-title").textContent = "Session " + id;
  $("har-link").hidden = true;
  clear($("journal").tBodies[0]);
  $("detail").hidden = true;
  $("filter").hidden = true;
  say("");
  for (const row of $("sessions").tBodies[0].rows) {
    row.classList.toggle("selected", row.dataset.session === id);
  }
  const url = new URL(location.href);
  url.searchParams.set("session", id);
  history.replaceState(null, "", url.pathname + url.search);
  loadScenarios();
  followJournal(id);
  showTab(state.tab);
}

async function loadScenarios() {
  const select = clear($("scenario-select"));
  try {
    const answer = await apiJSON("scenarios", { session: state.session });
    state.scenarios = answer.scenarios;
    for (const scenario of answer.scenarios) {
      select.append(el("option", { value: scenario.name, selected: scenario.active ? "selected" : null },
        scenario.name + (scenario.problem ? " (invalid)" : "")));
    }
  } catch (error) {
    say(error.message, true);
  }
}

async function switchScenario() {
  const name = $("scenario-select").value;
  try {
    const answer = await apiJSON("scenario", { method: "PUT", session: state.session, json: { name: name } });
    say("Session " + answer.session + " now uses " + answer.name);
    refreshSessions();
  } catch (error) {
    say(error.message, true);
  }
}

async function resetSession() {
  try {
    await apiJSON("reset", { method: "POST", session: state.session });
    say("Session " + state.session + " was reset");
    refreshSessions();
  } catch (error) {
    say(error.message, true);
  }
}

// The HAR is fetched with the token, then offered as a download of a blob: a plain link could not send it.
async function downloadHAR() {
  try {
    const response = await api("journal.har", { session: state.session });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const blob = await response.blob();
    if (state.harURL) URL.revokeObjectURL(state.harURL);
    state.harURL = URL.createObjectURL(blob);
    const link = $("har-link");
    link.href = state.harURL;
    link.download = "mockd-" + state.session + ".har";
    link.textContent = link.download;
    link.hidden = false;
    link.click();
    say("HAR of " + state.session + " ready");
  } catch (error) {
    say(error.message, true);
  }
}

// MARK: live journal

// The journal as Server-Sent Events, read with fetch (EventSource cannot send the token). Leaving the session
// or the page aborts the request, and the daemon lets the stream go.
function followJournal(id) {
  const controller = new AbortController();
  state.feed = controller;
  let after = 0;
  let connections = 0;
  const connect = async () => {
    // Reconnected (the daemon restarted, or the network dropped): the whole journal again, never a gap.
    if (connections++ > 0) {
      after = 0;
      resetRows();
    }
    try {
      const response = await api("journal/stream?after=" + after, { session: id, signal: controller.signal });
      if (!response.ok) throw new Error("HTTP " + response.status);
      $("live").textContent = "live";
      $("live").className = "badge on";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = parseEvent(block);
          if (event.type === "entry") {
            const row = JSON.parse(event.data);
            after = row.sequence;
            addRow(row);
          } else if (event.type === "reset") {
            after = 0;
            resetRows();
          }
        }
      }
    } catch (error) {
      if (controller.signal.aborted || error instanceof Unauthorized) return;
    }
    if (controller.signal.aborted) return;
    $("live").textContent = "reconnecting";
    $("live").className = "badge";
    setTimeout(connect, 1000);
  };
  connect();
}

function parseEvent(block) {
  const event = { type: "message", data: "" };
  const data = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") event.type = value;
    else if (field === "data") data.push(value);
  }
  event.data = data.join("\n");
  return event;
}

function resetRows() {
  state.rows = [];
  state.bySeq = new Map();
  state.selected = null;
  clear($("journal").tBodies[0]);
  $("detail").hidden = true;
  renderTab();
}

function isFrame(row) {
  return row.method === "WS-IN" || row.method === "WS-OUT";
}

// An entry that is not an HTTP request the app sent: a WebSocket frame, a pushed event, a webhook mockd sent, a
// state change a socket message caused. Its payload is previewed under its target.
function isSynthetic(row) {
  return isFrame(row) || row.method === "SSE-OUT" || row.method === "WEBHOOK" || row.method === "STATE";
}

// "← #4": the entry that caused this one (a push, a state change), which a click shows.
function causeLink(sequence) {
  const link = el("a", { href: "#entry=" + sequence, class: "cause", "data-cause": sequence }, "← #" + sequence);
  link.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    showDetail(sequence);
  });
  return link;
}

// The sessions list follows new rows within a moment, not only at its next refresh.
function soonRefreshSessions() {
  if (state.sessionsRefresh) return;
  state.sessionsRefresh = setTimeout(() => {
    state.sessionsRefresh = null;
    refreshSessions();
  }, 250);
}

// The most rows the page keeps (the daemon's default --journal-limit): the oldest go, as in the journal.
const maxRows = 10000;

function addRow(row) {
  soonRefreshSessions();
  state.rows.push(row);
  state.bySeq.set(row.sequence, row);
  if (state.rows.length > maxRows) {
    const oldest = state.rows.shift();
    state.bySeq.delete(oldest.sequence);
    const shown = $("journal").tBodies[0].querySelector('tr[data-seq="' + oldest.sequence + '"]');
    if (shown) shown.remove();
  }
  if (matchesFilter(row)) $("journal").tBodies[0].append(journalRow(row));
  if (state.tab === "misses" && !row.matched) renderMisses();
  if (state.tab === "websockets" && (isFrame(row) || row.status === 101)) renderWebSockets();
}

// The stub filter (a link clicked) and the words typed in the filter box: every word must appear in the row's
// method, target, status, stub or fault.
function matchesFilter(row) {
  if (state.filter && !answeredBy(row, state.filter)) return false;
  const words = $("search").value.toLowerCase().split(/\s+/).filter((word) => word);
  if (words.length === 0) return true;
  const text = [row.method, row.target, row.status ?? "", row.stub || "no match", (row.edited || []).join(" "),
    row.fault || ""].join(" ").toLowerCase();
  return words.every((word) => text.includes(word));
}

// Whether `id` answered the row, itself or as what an override edited (a stub served through a patch).
function answeredBy(row, id) {
  return row.stub === id || (row.edited || []).includes(id);
}

function stubLink(id) {
  const link = el("a", { href: "#stub=" + encodeURIComponent(id), class: "stub-link", "data-stub": id }, id);
  link.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    showStub(id);
  });
  return link;
}

function journalRow(row) {
  // The override and what it edited, nearest first: "patch-me › GET_v1_me".
  const answered = row.stub
    ? [stubLink(row.stub)].concat((row.edited || []).flatMap((id) => [el("span", { class: "muted" }, " › "),
      stubLink(id)]))
    : el("span", { class: "muted" }, row.proxied ? "upstream" : "no match");
  const status = row.fault ? "—" : row.status === null ? "" : String(row.status);
  const preview = row.preview || "";
  const target = isSynthetic(row)
    ? [row.target, el("span", { class: "frame" }, preview.length > 90 ? preview.slice(0, 90) + "…" : preview)]
    : [row.target];
  if (row.causedBy) target.push(causeLink(row.causedBy));
  // A push that reached nothing, a webhook refused or unanswered: said in the row.
  if (isSynthetic(row) && row.note) target.push(el("span", { class: "row-note" }, row.note));
  const tr = el("tr", { "data-seq": row.sequence, class: row.matched ? "" : "miss" },
    el("td", { class: "num" }, row.sequence), el("td", { class: "nowrap" }, timeOf(row.time)),
    el("td", { class: "nowrap" }, row.method), el("td", { class: "target" }, target),
    el("td", { class: "num" }, status), el("td", { class: "stub" }, answered),
    el("td", { class: "num" },
      isSynthetic(row) && row.method !== "WEBHOOK" ? "" : row.durationMs.toFixed(1) + " ms"),
    el("td", { class: row.fault ? "error" : "" }, row.fault || ""));
  tr.addEventListener("click", () => showDetail(row.sequence));
  return tr;
}

function renderJournal() {
  const body = clear($("journal").tBodies[0]);
  for (const row of state.rows) if (matchesFilter(row)) body.append(journalRow(row));
  $("filter").hidden = !state.filter;
  $("filter-text").textContent = state.filter ? "Answered by " + state.filter : "";
}

// The stub or override that answered: what it is (runtime stub, override, stub of a mock set) and what it
// matches and answers, with the journal filtered to the requests it answered.
async function showStub(id) {
  state.filter = id;
  showTab("journal");
  renderJournal();
  const detail = clear($("detail"));
  detail.hidden = false;
  detail.append(el("h3", {}, "Stub " + id));
  const used = state.rows.filter((row) => answeredBy(row, id)).length;
  detail.append(el("p", {}, "Answered " + used + " request" + (used === 1 ? "" : "s") + " of this session."));
  let answer;
  try {
    answer = await apiJSON("scenario/answers/" + encodeURIComponent(id), { session: state.session });
  } catch (error) {
    detail.append(el("p", { class: "error" }, error.message));
    return;
  }
  if (state.filter !== id) return;
  const facts = el("table", { class: "headers stub-facts" });
  const fact = (name, value) => facts.append(el("tr", {}, el("td", {}, name), el("td", {}, value)));
  if (answer.kind === "runtimeStub") {
    fact("Kind", "runtime stub of session " + answer.session);
    detail.append(facts, el("pre", { class: "stub-definition" }, JSON.stringify(answer.definition, null, 2)));
    return;
  }
  if (answer.kind === "override") {
    const match = answer.match;
    fact("Kind", "override in scenario " + answer.scenario + " (priority " + answer.priority + ")");
    fact("Matches", [match.method || "any method", match.host ? "//" + match.host : "", match.path || "any path"]
      .filter((part) => part).join(" "));
    if (match.query) fact("Query", match.query.join("&"));
    if (match.headers) fact("Headers", match.headers.join("; "));
    if (match.body) fact("Body", "matched (see the scenario file)");
    fact("Steps", answer.steps + ", then " + answer.afterLast);
    if (answer.state) fact("State machine", answer.state);
    detail.append(facts);
    return;
  }
  const request = answer.request;
  fact("Kind", "stub of mock set " + answer.set + " (scenario " + answer.scenario + ")");
  fact("Request", request.method + " " + (request.host ? "//" + request.host : "") + request.path +
    (request.query ? "?" + request.query : ""));
  if (request.headers.length > 0) fact("Headers", request.headers.join("; "));
  if (request.body) fact("Body", request.body);
  fact("Responses", answer.responses.length + ", then " + answer.afterLast);
  detail.append(facts);
  answer.responses.forEach((response, index) => {
    detail.append(el("h3", {}, "Response " + (index + 1) + ": " + response.status + " · " + response.bodySize +
      " bytes"), headerTable(response.headers));
  });
}

async function showDetail(sequence) {
  state.selected = sequence;
  for (const row of $("journal").tBodies[0].rows) {
    row.classList.toggle("selected", Number(row.dataset.seq) === sequence);
  }
  const detail = clear($("detail"));
  detail.hidden = false;
  let entry;
  try {
    entry = await apiJSON("journal/entries/" + sequence, { session: state.session });
  } catch (error) {
    detail.append(el("p", { class: "error" }, error.message));
    return;
  }
  if (state.selected !== sequence) return;
  detail.append(el("h3", { id: "detail-title" }, "#" + entry.sequence + " " + entry.method + " " + entry.target));
  const facts = [
    "answered by " + (entry.stub || (entry.proxied ? "the upstream" : "nothing (a miss)")) +
      (entry.edited ? ", editing " + entry.edited.join(" › ") : ""),
    entry.durationMs.toFixed(1) + " ms",
  ];
  if (entry.fault) facts.push("fault " + entry.fault);
  if (entry.host) facts.push("host " + entry.host);
  detail.append(el("p", { class: "muted" }, facts.join(" · ")));
  if (entry.causedBy) {
    const cause = state.bySeq.get(entry.causedBy);
    detail.append(el("p", { id: "detail-cause" }, "Caused by ", causeLink(entry.causedBy),
      cause ? " " + cause.method + " " + cause.target : ""));
  }
  if (entry.note) detail.append(el("p", { id: "detail-note", class: "note" }, entry.note));
  // What this entry caused: the pushes of its answer (or of the socket message), and the state changes.
  const effects = state.rows.filter((row) => row.causedBy === entry.sequence);
  if (effects.length > 0) {
    const start = new Date(entry.time).getTime();
    const list = el("ul", { class: "plain" });
    for (const effect of effects) {
      const link = el("a", { href: "#entry=" + effect.sequence, "data-effect": effect.sequence },
        "#" + effect.sequence + " " + effect.method + " " + effect.target);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        showDetail(effect.sequence);
      });
      list.append(el("li", {}, link, el("span", { class: "muted" },
        " +" + (new Date(effect.time).getTime() - start) + " ms" + (effect.preview ? ": " + effect.preview : "") +
        (effect.note ? " (" + effect.note + ")" : ""))));
    }
    detail.append(el("div", { id: "detail-effects" }, el("h3", {}, "Caused"), list));
  }
  const request = el("div", { id: "detail-request" }, el("h3", {}, "Request"),
    headerTable(entry.headers), bodyView(entry.body, entry.bodyBase64, headerValue(entry.headers, "content-type"),
      entry.bodySize));
  const sent = entry.response;
  const response = el("div", { id: "detail-response" },
    el("h3", {}, "Response " + (sent.status === null ? "(none: " + (entry.fault || "fault") + ")" : sent.status)),
    headerTable(sent.headers),
    sent.fromFile ? el("p", { class: "muted" }, "Served from its body file (" + sent.size + " bytes).")
      : bodyView(sent.body, sent.bodyBase64, headerValue(sent.headers, "content-type"), sent.size),
    sent.truncated ? el("p", { class: "muted" }, "Preview cut at 256 KiB of " + sent.size + " bytes.") : null);
  detail.append(el("div", { class: "columns" }, request, response));
  if (entry.nearMisses && entry.nearMisses.length > 0) detail.append(nearMissView(entry.nearMisses));
}

function headerValue(lines, name) {
  for (const line of lines || []) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return "";
}

function headerTable(lines) {
  const table = el("table", { class: "headers" });
  for (const line of lines || []) {
    const colon = line.indexOf(":");
    table.append(el("tr", {}, el("td", {}, line.slice(0, colon)), el("td", {}, line.slice(colon + 1).trim())));
  }
  return table;
}

// A body as text (JSON pretty-printed), an image, or a hex dump of binary.
function bodyView(text, base64, contentType, size) {
  if (text === undefined && base64 === undefined) {
    return el("p", { class: "muted" }, size > 0 ? "Body of " + size + " bytes (not kept)." : "No body.");
  }
  const type = (contentType || "").toLowerCase();
  if (base64 !== undefined && /^image\/(png|jpeg|gif|webp|avif|bmp|x-icon|vnd\.microsoft\.icon)/.test(type)) {
    const kind = type.split(";")[0].trim();
    return el("div", {}, el("img", { class: "preview", alt: "image body", src: "data:" + kind + ";base64," + base64 }),
      el("p", { class: "muted" }, kind + ", " + size + " bytes"));
  }
  if (base64 !== undefined) return el("pre", { class: "body hex" }, hexDump(base64));
  if (type.includes("json") || /^\s*[[{]/.test(text)) {
    try {
      return el("pre", { class: "body json" }, JSON.stringify(JSON.parse(text), null, 2));
    } catch (error) {
      // Not JSON after all: shown as text.
    }
  }
  return el("pre", { class: "body text" }, text);
}

function hexDump(base64) {
  const bytes = Uint8Array.from(atob(base64), (character) => character.charCodeAt(0));
  const lines = [];
  const shown = Math.min(bytes.length, 4096);
  for (let offset = 0; offset < shown; offset += 16) {
    const chunk = bytes.slice(offset, Math.min(offset + 16, shown));
    const hex = Array.from(chunk, (byte) => byte.toString(16).padStart(2, "0")).join(" ");
    const ascii = Array.from(chunk, (byte) => (byte >= 32 && byte < 127 ? String.fromCharCode(byte) : ".")).join("");
    lines.push(offset.toString(16).padStart(8, "0") + "  " + hex.padEnd(48) + "  " + ascii);
  }
  if (bytes.length > shown) lines.push("… " + (bytes.length - shown) + " more bytes");
  return lines.join("\n");
}

function none() {
  return el("span", { class: "muted" }, "(none)");
}

// What a miss's nearest stubs expected next to what the request had, part by part.
function nearMissView(nearMisses) {
  const box = el("div", { class: "near-misses" }, el("h3", {}, "Nearest stubs"));
  for (const miss of nearMisses) {
    const table = el("table", { class: "side-by-side" },
      el("thead", {}, el("tr", {}, el("th", {}, "Part"), el("th", {}, "Stub " + miss.stub + " expects"),
        el("th", {}, "The request has"))));
    const body = el("tbody");
    for (const difference of miss.differs) {
      body.append(el("tr", { "data-part": difference.part }, el("td", {}, difference.part),
        el("td", { class: "expected" }, difference.expected || none()),
        el("td", { class: "actual" }, difference.actual || none())));
    }
    table.append(body);
    box.append(el("div", { class: "near-miss", "data-stub": miss.stub },
      el("p", { class: "muted" }, miss.stub + " in " + miss.set + " · distance " + miss.distance), table));
  }
  return box;
}

// MARK: tabs

function showTab(name) {
  state.tab = name;
  for (const button of $("tabs").querySelectorAll("button")) {
    button.classList.toggle("active", button.dataset.tab === name);
  }
  for (const view of ["journal", "misses", "coverage", "websockets"]) $("view-" + view).hidden = view !== name;
  renderTab();
}

function renderTab() {
  if (state.tab === "misses") renderMisses();
  else if (state.tab === "coverage") renderCoverage();
  else if (state.tab === "websockets") renderWebSockets();
}

function renderMisses() {
  const view = clear($("view-misses"));
  const misses = state.rows.filter((row) => !row.matched && !isFrame(row) && !row.proxied);
  if (misses.length === 0) view.append(el("p", { class: "muted" }, "No request of this session missed."));
  // Newest first.
  for (const row of misses.reverse()) {
    const card = el("div", { class: "miss-card", "data-seq": row.sequence },
      el("h3", {}, "#" + row.sequence + " " + row.method + " " + row.target + " → " + (row.status ?? row.fault)));
    if (row.nearMisses && row.nearMisses.length > 0) card.append(nearMissView(row.nearMisses.slice(0, 3)));
    else card.append(el("p", { class: "muted" }, "No stub came close."));
    view.append(card);
  }
}

function unusedList(title, items, describe) {
  const box = el("div", {}, el("h3", {}, title));
  if (items.length === 0) box.append(el("p", { class: "muted" }, "all used"));
  else box.append(el("ul", { class: "plain" }, items.map((item) => el("li", {}, describe(item)))));
  return box;
}

function coverageParts(report) {
  const parts = [
    unusedList("Stubs never used (" + report.stubs.used + " of " + report.stubs.total + " used)", report.stubs.unused,
      (stub) => stub.id + " (" + stub.set + ")"),
    unusedList("Overrides never used (" + report.overrides.used + " of " + report.overrides.total + " used)",
      report.overrides.unused, (id) => id),
  ];
  if (report.runtimeStubs && report.runtimeStubs.total > 0) {
    parts.push(unusedList("Runtime stubs never used (" + report.runtimeStubs.used + " of " + report.runtimeStubs.total +
      " used)", report.runtimeStubs.unused, (id) => id));
  }
  if (report.complete === false) {
    parts.push(el("p", { class: "muted" }, "Incomplete: older journal entries were dropped (--journal-limit)."));
  }
  return parts;
}

async function renderCoverage() {
  const view = $("view-coverage");
  let answer;
  try {
    answer = await apiJSON("coverage", { session: state.session });
  } catch (error) {
    clear(view).append(el("p", { class: "error" }, error.message));
    return;
  }
  const session = answer.session;
  clear(view).append(el("h3", { id: "coverage-title" }, "Session " + session.session + " · scenario " +
    session.scenario + " · " + session.requests + " requests"), el("div", { id: "coverage-session" },
    coverageParts(session)));
  renderOverall(answer.overall);
}

async function refreshOverall() {
  try {
    renderOverall((await apiJSON("coverage")).overall);
  } catch (error) {
    // Shown elsewhere.
  }
}

// Over the daemon's life: per scenario (whatever became of its sessions), then per mock set.
function renderOverall(overall) {
  const box = clear($("overall"));
  for (const report of overall.scenarios) {
    box.append(el("div", { class: "overall-scenario", "data-scenario": report.scenario },
      el("h3", {}, report.scenario + " (sessions " + report.sessions.join(", ") + ")"), coverageParts(report)));
  }
  for (const set of overall.sets || []) {
    box.append(el("div", { class: "overall-set", "data-set": set.set },
      unusedList("Set " + set.set + ": stubs never used (" + set.used + " of " + set.total + " used)", set.unused,
        (id) => id)));
  }
}

// Each WebSocket connection of the session (its frames in the journal by path and connection number) on a
// timeline: when each frame went in or out, relative to the connection's first frame.
function renderWebSockets() {
  const view = clear($("view-websockets"));
  const connections = new Map();
  for (const row of state.rows) {
    if (!isFrame(row)) continue;
    const key = row.target + " #" + (row.connection ?? "?");
    if (!connections.has(key)) connections.set(key, { path: row.target, number: row.connection, frames: [] });
    connections.get(key).frames.push(row);
  }
  if (connections.size === 0) {
    view.append(el("p", { class: "muted" }, "No WebSocket frames in this session's journal."));
    return;
  }
  for (const connection of connections.values()) {
    const start = new Date(connection.frames[0].time).getTime();
    const end = new Date(connection.frames[connection.frames.length - 1].time).getTime();
    const span = Math.max(1, end - start);
    const line = el("div", { class: "timeline" });
    const table = el("table", { class: "frames" },
      el("thead", {}, el("tr", {}, el("th", {}, "At"), el("th", {}, "Direction"), el("th", {}, "Type"),
        el("th", {}, "Payload"))));
    const body = el("tbody");
    for (const frame of connection.frames) {
      const offset = new Date(frame.time).getTime() - start;
      const incoming = frame.method === "WS-IN";
      const tick = el("span", { class: "tick " + (incoming ? "in" : "out"), title: "+" + offset + " ms" });
      tick.style.left = (2 + (96 * offset) / span) + "%";
      line.append(tick);
      const row = el("tr", { "data-seq": frame.sequence }, el("td", { class: "num" }, "+" + offset + " ms"),
        el("td", { class: incoming ? "in" : "out" }, incoming ? "client → mockd" : "mockd → client",
          frame.causedBy ? [" ", causeLink(frame.causedBy)] : []),
        el("td", {}, frame.opcode || ""), el("td", { class: "target" }, frame.preview || ""));
      row.addEventListener("click", () => {
        showTab("journal");
        showDetail(frame.sequence);
      });
      body.append(row);
    }
    table.append(body);
    view.append(el("div", { class: "ws-connection", "data-path": connection.path },
      el("h3", {}, connection.path + " · connection " + (connection.number ?? "?") + " · " + connection.frames.length +
        " frames over " + (end - start) + " ms"), line, table));
  }
}

// MARK: start

function start() {
  takeTokenFromFragment();
  $("token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(tokenKey, $("token-input").value);
    $("token-input").value = "";
    refreshHealth();
    refreshSessions();
    // A live journal stopped by a refused token follows again.
    if (state.session) openSession(state.session);
  });
  $("scenario-switch").addEventListener("click", switchScenario);
  $("reset").addEventListener("click", resetSession);
  $("har").addEventListener("click", downloadHAR);
  $("search").addEventListener("input", renderJournal);
  $("filter-clear").addEventListener("click", () => {
    state.filter = null;
    renderJournal();
  });
  for (const button of $("tabs").querySelectorAll("button")) {
    button.addEventListener("click", () => showTab(button.dataset.tab));
  }
  refreshHealth();
  refreshSessions();
  setInterval(refreshSessions, 2000);
}

document.addEventListener("DOMContentLoaded", start);
