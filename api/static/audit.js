// Overstory audit page: plain JavaScript, no dependencies. Every data call goes to /v1 with
// the API key the auditor entered (kept in sessionStorage, i.e. for this tab only). Text from
// the service is always inserted as text (textContent), never as HTML.
"use strict";

(function () {
  const Source = window.OverstoryAuditSource;
  const Keys = window.OverstoryAuditKeys;
  const { el, pagesText, highlighted } = Source;
  const KEY_STORAGE = "overstory.apiKey";
  const PAGE = 20;
  const FLAG_NAMES = {
    condition: "dropped condition",
    negation: "dropped negation",
    number: "number not in the source",
    absolute: "unsupported absolute",
  };

  const state = { items: [], offset: 0, total: 0, current: null, detail: null, sentence: -1 };
  const $ = (id) => document.getElementById(id);

  // --- API ---------------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, body) {
      const err = (body && body.error) || {};
      super(err.message || `HTTP ${status}`);
      this.status = status;
      this.code = err.code;
      this.detail = err.detail;
    }
  }

  async function api(path, options = {}) {
    const key = sessionStorage.getItem(KEY_STORAGE);
    const headers = { Accept: "application/json", Authorization: `Bearer ${key}` };
    if (options.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method: options.method || "GET",
      headers,
      body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
      credentials: "omit",
      cache: "no-store",
    });
    let body = null;
    try {
      body = await response.json();
    } catch (_) {
      body = null;
    }
    if (!response.ok) {
      const error = new ApiError(response.status, body);
      if (response.status === 401) signOut(error.message);
      throw error;
    }
    return body;
  }

  // --- helpers -----------------------------------------------------------------------------
  function say(message) {
    $("status").textContent = message;
  }

  function pathText(node) {
    return node.heading_path && node.heading_path.length
      ? node.heading_path.join(" › ")
      : node.title || "(untitled)";
  }

  function flagCounts(flags) {
    const counts = new Map();
    for (const flag of flags) counts.set(flag.kind, (counts.get(flag.kind) || 0) + 1);
    return counts;
  }

  function flagChips(flags, hidden) {
    const box = el("span", { className: "chips" });
    if (hidden) {
      box.append(el("span", {
        className: "chip flag-hidden",
        title: "Less likely than the lint_min_confidence setting to name a real fault",
        text: `${hidden} unlikely flag${hidden === 1 ? "" : "s"} hidden`,
      }), " ");
    }
    if (!flags.length) {
      if (!hidden) box.append(el("span", { className: "chip flag-none", text: "no lint flags" }));
      return box;
    }
    const ordered = ["condition", "negation", "number", "absolute"];
    const counts = flagCounts(flags);
    for (const kind of ordered) {
      if (!counts.has(kind)) continue;
      box.append(" ", el("span", {
        className: `chip flag-${kind}`,
        text: `${counts.get(kind)} × ${FLAG_NAMES[kind] || kind}`,
      }));
    }
    return box;
  }

  // --- sign in -----------------------------------------------------------------------------
  function signOut(message) {
    sessionStorage.removeItem(KEY_STORAGE);
    $("workspace").hidden = true;
    $("forget-key").hidden = true;
    $("key-panel").hidden = false;
    $("key-error").textContent = message || "";
    $("api-key").value = "";
    $("api-key").focus();
  }

  async function signIn() {
    $("key-panel").hidden = true;
    $("forget-key").hidden = false;
    $("workspace").hidden = false;
    $("workspace").classList.add("detail-closed");
    try {
      await loadDocuments();
      await loadQueue();
    } catch (error) {
      if (error.status === 403) {
        signOut(`This key may not audit: ${error.message}`);
      } else if (error.status !== 401) {
        say(`Could not load the queue: ${error.message}`);
      }
    }
  }

  // --- the queue ---------------------------------------------------------------------------
  async function loadDocuments() {
    const select = $("filter-doc");
    const chosen = select.value;
    const body = await api("/v1/documents");
    while (select.options.length > 1) select.remove(1);
    for (const doc of body.documents) {
      select.append(el("option", { value: doc.doc_id, text: doc.doc_id }));
    }
    select.value = chosen;
  }

  async function loadQueue() {
    const params = new URLSearchParams({
      status: $("filter-status").value,
      limit: String(PAGE),
      offset: String(state.offset),
    });
    if ($("filter-doc").value) params.append("doc_id", $("filter-doc").value);
    if ($("filter-all-flags").checked) params.append("all_flags", "true");
    say("Loading the queue…");
    const body = await api(`/v1/audit/queue?${params}`);
    state.items = body.items;
    state.total = body.total;
    renderQueue(body);
    say("");
  }

  function renderQueue(body) {
    const list = $("queue-list");
    list.replaceChildren();
    const c = body.counts;
    const shown = body.status === "all" ? "summaries" : body.status;
    $("queue-summary").textContent =
      `Showing ${body.total} ${shown}. In all: ${c.pending} pending (${c.stale} stale), ` +
      `${c.corrected} corrected, ${c.approved} approved, ${c.rejected} rejected.`;
    body.items.forEach((item, i) => list.append(el("li", {}, queueButton(item, i))));
    if (!body.items.length) list.append(el("li", { className: "meta", text: "Nothing to show." }));
    const last = Math.min(state.offset + body.items.length, body.total);
    $("page-info").textContent = body.total ? `${state.offset + 1}–${last} of ${body.total}` : "";
    $("prev-page").disabled = state.offset === 0;
    $("next-page").disabled = last >= body.total;
  }

  function queueButton(item, index) {
    const node = item.node;
    const head = el("span", { className: "item-head" },
      el("span", { className: "badge level", text: node.level }),
      el("span", { className: `badge status-${item.status}`, text: item.status }),
      item.stale ? el("span", { className: "badge stale", text: "source changed — re-check" }) : null,
      flagChips(item.flags, item.hidden_flags || 0));
    const where = [node.doc_id, pagesText(node.pages)].filter(Boolean).join(", ");
    const excerpt = (node.summary || "").replace(/\s+/g, " ");
    const button = el("button", {
      type: "button",
      className: "queue-item",
      "data-node-id": node.node_id,
      "data-index": index,
      "aria-current": state.current && state.current.node.node_id === node.node_id ? "true" : null,
    },
      head,
      el("span", { className: "item-path", text: pathText(node) }),
      el("span", { className: "meta", text: where }),
      el("span", { className: "item-excerpt" },
        el("span", { className: "label-summary item-label", text: "Summary — not a quote" }), " ",
        excerpt.length > 220 ? `${excerpt.slice(0, 220)}…` : excerpt));
    button.addEventListener("click", () => openItem(state.items[index]));
    return button;
  }

  // --- one node ----------------------------------------------------------------------------
  function nodeUrl(item, tail = "") {
    return `/v1/nodes/${encodeURIComponent(item.node.node_id)}${tail}`;
  }

  async function openItem(item) {
    state.current = item;
    document.querySelectorAll(".queue-item").forEach((b) => {
      if (b.dataset.nodeId === item.node.node_id) b.setAttribute("aria-current", "true");
      else b.removeAttribute("aria-current");
    });
    say("Loading the node and its sources…");
    let detail;
    try {
      detail = await api(nodeUrl(item, "?passages_limit=200"));
    } catch (error) {
      say(`Could not open the node: ${error.message}`);
      return;
    }
    if (state.current !== item) return; // another summary was opened meanwhile
    renderDetail(item, detail);
    say("");
    $("detail-title").focus();
    if (item.stale) loadSourceDiff(item);
  }

  function renderDetail(item, detail) {
    const node = detail.node;
    state.detail = detail;
    $("workspace").classList.remove("detail-closed");
    $("detail-panel").hidden = false;
    $("detail-title").textContent = pathText(node);
    $("source-diff").hidden = true;
    $("source-diff").replaceChildren();
    renderMeta(item);
    renderSummary(node, item.flags, node.sentences);
    renderReview(item);
    renderPassages(detail, item.flags);
    $("correction-box").hidden = true;
    $("review-result").replaceChildren();
    $("review-note").value = "";
  }

  // A stale review: what changed in the source since, beside the summary.
  async function loadSourceDiff(item) {
    const box = $("source-diff");
    box.hidden = false;
    box.replaceChildren(el("p", { className: "meta", text: "Loading what changed in the source…" }));
    try {
      const diff = await api(nodeUrl(item, "/source-diff"));
      if (state.current === item) Source.renderDiff(box, diff);
    } catch (error) {
      if (state.current === item) {
        box.replaceChildren(el("p", { className: "error", text: `Could not compare the sources: ${error.message}` }));
      }
    }
  }

  // --- sentences and their sources ---------------------------------------------------------
  function sentences() {
    return (state.detail && state.detail.node.sentences) || [];
  }

  function selectSentence(index, { focus = true } = {}) {
    const all = sentences();
    const elements = $("detail-summary").querySelectorAll(".sentence");
    if (!elements.length || index < 0 || index >= elements.length) return;
    state.sentence = index;
    elements.forEach((e, i) => {
      e.setAttribute("aria-selected", String(i === index));
      e.setAttribute("tabindex", i === index ? "0" : "-1");
    });
    if (focus) elements[index].focus({ preventScroll: true });
    const shown = Source.showSources($("detail-passages"), all[index]);
    $("sentence-source").textContent = Source.sentenceInfo(all[index], index, all.length, shown);
  }

  function moveSentence(delta) {
    const count = $("detail-summary").querySelectorAll(".sentence").length;
    if (!count) return;
    const at = state.sentence < 0 ? (delta > 0 ? 0 : count - 1) : state.sentence + delta;
    selectSentence(Math.max(0, Math.min(count - 1, at)));
  }

  function renderMeta(item) {
    const node = state.detail.node;
    $("detail-meta").textContent = [
      `${node.level} of ${node.doc_id}`,
      pagesText(node.pages),
      `revision ${(node.revision || "").slice(0, 12)}`,
      `status: ${item.status}`,
    ].filter(Boolean).join(" · ");
    const reason = $("detail-reason");
    reason.hidden = !item.reason;
    reason.textContent = item.reason || "";
  }

  // The words a flag points at (the invented number, the added "always"); else its sentence.
  function flagNeedles(flags) {
    return flags.map((f) => ({
      text: f.summary_quote || f.summary_text, kind: `flag-${f.kind}`, title: f.message }));
  }

  // A flag's sentence as a quote, with what the flag points at marked in it.
  function flagQuote(label, sentence, quote, kind, title) {
    if (!sentence) return null;
    const needles = quote ? [{ text: quote, kind, title }] : [];
    return el("span", { className: "flag-source" }, `${label}: “`, highlighted(sentence, needles), "”");
  }

  function renderSummary(node, flags, sourced) {
    state.sentence = -1;
    const box = $("detail-summary");
    const has = Source.renderSentences(box, node.summary || "", sourced, flagNeedles(flags));
    $("sentence-source").textContent = has
      ? "Select a sentence (click, or J / K) to mark its source in the passages."
      : "This summary carries no source spans.";
    const s = node.summarizer;
    const review = node.review;
    if (review && review.corrected) {
      $("detail-summarizer").textContent =
        `Corrected by ${review.reviewer} (review ${review.review_id}).`;
      $("machine-summary").hidden = false;
      $("machine-summary-text").textContent = review.machine_summary || "";
    } else {
      $("detail-summarizer").textContent = s ? `Written by ${s.backend} / ${s.model}.` : "";
      $("machine-summary").hidden = true;
    }
    const list = $("detail-flags");
    list.replaceChildren();
    if (!flags.length) list.append(el("li", { text: "No lint flags." }));
    for (const flag of flags) {
      list.append(el("li", {},
        el("span", { className: `chip flag-${flag.kind}`, text: FLAG_NAMES[flag.kind] || flag.kind }),
        " ", flag.message,
        flag.confidence == null ? "" : el("span", {
          className: "flag-confidence", text: ` · confidence ${Math.round(flag.confidence * 100)} %`,
          title: "share of such flags that held a real fault on the planted-fault benchmark" }),
        flagQuote("Summary", flag.summary_text, flag.summary_quote, `flag-${flag.kind}`, flag.message),
        flagQuote("Source", flag.source_text, flag.source_quote, "source-hit", flag.message)));
    }
  }

  function renderReview(item) {
    const box = $("detail-review");
    box.replaceChildren();
    const review = item.review;
    if (!review) return;
    const when = new Date(review.created_at * 1000).toLocaleString();
    box.append(el("p", {},
      el("strong", { text: item.stale ? "Earlier review (of the old source): " : "Latest review: " }),
      `${review.status} by ${review.reviewer}, ${when}.`,
      review.note ? ` Note: ${review.note}` : ""));
    if (review.corrected_text && item.stale) {
      box.append(el("p", { className: "meta", text: `Earlier correction: ${review.corrected_text}` }));
    }
  }

  function renderPassages(detail, flags) {
    const sourceNeedles = flags
      .filter((f) => f.source_quote || f.source_text)
      .map((f) => ({ text: f.source_quote || f.source_text, kind: "source-hit", title: f.message }));
    $("sources-count").textContent = detail.passages_total > detail.passages.length
      ? `${detail.passages.length} of ${detail.passages_total} passages shown.`
      : `${detail.passages_total} passage${detail.passages_total === 1 ? "" : "s"}.`;
    Source.renderPassages($("detail-passages"), detail.passages, detail.node.sentences, sourceNeedles);
  }

  // --- reviewing ---------------------------------------------------------------------------
  async function submitReview(status, text) {
    const item = state.current;
    if (!item) return;
    const body = { status };
    const note = $("review-note").value.trim();
    if (note) body.note = note;
    if (text !== undefined) body.text = text;
    const buttons = document.querySelectorAll("#review-form button");
    buttons.forEach((b) => { b.disabled = true; });
    say("Saving the review…");
    try {
      const result = await api(`/v1/nodes/${encodeURIComponent(item.node.node_id)}/review`,
        { method: "POST", body });
      const rewritten = result.node.summary !== item.node.summary;
      item.status = result.review.status;
      item.review = result.review;
      item.stale = false;
      item.reason = null;
      item.flags = result.flags;
      item.node.summary = result.node.summary;
      item.node.summarizer = result.node.summarizer;
      item.node.review = result.node.review;
      // Another text is served: its sentences are found by the service (read again below).
      if (rewritten) state.detail.node.sentences = null;
      showResult(result);
      const wasEditing = !$("correction-box").hidden;
      $("correction-box").hidden = true;
      $("source-diff").hidden = true;
      renderMeta(item);
      renderSummary(item.node, item.flags, state.detail.node.sentences);
      renderReview(item);
      renderPassages(state.detail, item.flags);
      refreshListItem(item);
      say(`Saved: ${result.review.status}.`);
      if (wasEditing) $("detail-title").focus();
      if (rewritten) rereadSentences(item);
    } catch (error) {
      $("review-result").replaceChildren(el("p", { className: "error", text: `Not saved: ${error.message}` }));
      say("");
    } finally {
      buttons.forEach((b) => { b.disabled = false; });
    }
  }

  async function rereadSentences(item) {
    let detail;
    try {
      detail = await api(nodeUrl(item, "?passages_limit=200"));
    } catch (error) {
      say(`Could not read the new summary's sources: ${error.message}`);
      return;
    }
    if (state.current !== item) return;
    state.detail = detail;
    renderSummary(detail.node, item.flags, detail.node.sentences);
    renderPassages(detail, item.flags);
  }

  function showResult(result) {
    const box = $("review-result");
    const r = result.review;
    const what = r.status === "corrected" ? "Correction saved" : `Review saved (${r.status})`;
    box.replaceChildren(el("p", { className: "ok", text: `${what} by ${r.reviewer}.` }));
    if (r.status === "corrected" || r.corrected_text) {
      const n = result.flags.length;
      box.append(el("p", { id: "correction-flags-summary" },
        n ? `Your correction has ${n} lint flag${n === 1 ? "" : "s"}: ` : "Your correction has no lint flags. ",
        flagChips(result.flags)));
      const list = el("ul", { className: "flag-list", id: "correction-flags" });
      for (const flag of result.flags) {
        list.append(el("li", {},
          el("span", { className: `chip flag-${flag.kind}`, text: FLAG_NAMES[flag.kind] || flag.kind }),
          " ", flag.message));
      }
      box.append(list);
    }
  }

  function refreshListItem(item) {
    // The queue may have been reloaded while the detail was open: find the node's entry in
    // the list now shown, and carry the review over to it.
    const index = state.items.findIndex((i) => i.node.node_id === item.node.node_id);
    if (index < 0) return;
    if (state.items[index] !== item) state.items[index] = item;
    const old = document.querySelector(`.queue-item[data-index="${index}"]`);
    if (old) old.replaceWith(queueButton(item, index));
  }

  // --- wiring ------------------------------------------------------------------------------
  function wire() {
    $("key-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const key = $("api-key").value.trim();
      if (!key) {
        $("key-error").textContent = "Enter an API key.";
        return;
      }
      sessionStorage.setItem(KEY_STORAGE, key);
      $("key-error").textContent = "";
      signIn();
    });
    $("forget-key").addEventListener("click", () => signOut("Key forgotten."));
    $("filters").addEventListener("submit", (event) => {
      event.preventDefault();
      state.offset = 0;
      loadQueue().catch((error) => say(`Could not load the queue: ${error.message}`));
    });
    $("prev-page").addEventListener("click", () => {
      state.offset = Math.max(0, state.offset - PAGE);
      loadQueue().catch((error) => say(error.message));
    });
    $("next-page").addEventListener("click", () => {
      state.offset += PAGE;
      loadQueue().catch((error) => say(error.message));
    });
    wireDetail();
    Keys.install({
      approve: () => $("approve").click(),
      correct: () => $("edit").click(),
      reject: () => $("reject").click(),
      next: () => openRelative(1),
      previous: () => openRelative(-1),
      nextSentence: () => moveSentence(1),
      previousSentence: () => moveSentence(-1),
      firstSentence: () => selectSentence(0),
      lastSentence: () => selectSentence($("detail-summary").querySelectorAll(".sentence").length - 1),
      save: () => $("save-correction").click(),
      escape: () => {
        if (!$("detail-panel").hidden && $("correction-box").hidden) closeDetail();
      },
      open: () => !$("detail-panel").hidden,
    }, $("correction"));
  }

  function wireDetail() {
    $("close-detail").addEventListener("click", closeDetail);
    $("detail-summary").addEventListener("click", (event) => {
      const sentence = event.target instanceof Element && event.target.closest(".sentence");
      if (sentence) selectSentence(Number(sentence.dataset.index));
    });
    $("detail-summary").addEventListener("focusin", (event) => {
      const sentence = event.target instanceof Element && event.target.closest(".sentence");
      if (sentence && Number(sentence.dataset.index) !== state.sentence) {
        selectSentence(Number(sentence.dataset.index), { focus: false });
      }
    });
    $("approve").addEventListener("click", () => submitReview("approved"));
    $("reject").addEventListener("click", () => submitReview("rejected"));
    $("edit").addEventListener("click", () => {
      $("correction").value = state.current ? state.current.node.summary || "" : "";
      $("correction-box").hidden = false;
      $("correction").focus();
    });
    $("cancel-correction").addEventListener("click", () => {
      $("correction-box").hidden = true;
      $("edit").focus();
    });
    $("save-correction").addEventListener("click", () => {
      const text = $("correction").value.trim();
      if (!text) {
        $("review-result").replaceChildren(el("p", { className: "error", text: "Write the corrected summary first." }));
        $("correction").focus();
        return;
      }
      submitReview("corrected", text);
    });
  }

  // The next (delta 1) or previous (-1) summary of the queue, across its pages.
  async function openRelative(delta) {
    if (!state.items.length) return;
    const id = state.current && state.current.node.node_id;
    const at = state.items.findIndex((i) => i.node.node_id === id);
    let next = at < 0 ? (delta > 0 ? 0 : state.items.length - 1) : at + delta;
    try {
      if (next >= state.items.length) {
        if (state.offset + state.items.length >= state.total) return say("That was the last summary in the queue.");
        state.offset += PAGE;
        await loadQueue();
        next = 0;
      } else if (next < 0) {
        if (state.offset === 0) return say("That was the first summary in the queue.");
        state.offset = Math.max(0, state.offset - PAGE);
        await loadQueue();
        next = state.items.length - 1;
      }
    } catch (error) {
      return say(`Could not load the queue: ${error.message}`);
    }
    if (state.items[next]) await openItem(state.items[next]);
  }

  function closeDetail() {
    $("detail-panel").hidden = true;
    $("workspace").classList.add("detail-closed");
    const current = state.current && document.querySelector(
      `.queue-item[data-node-id="${CSS.escape(state.current.node.node_id)}"]`);
    state.current = null;
    if (current) current.focus();
  }

  document.addEventListener("DOMContentLoaded", () => {
    wire();
    if (sessionStorage.getItem(KEY_STORAGE)) signIn();
    else $("api-key").focus();
  });

})();
