// Overstory audit page: the summary sentence by sentence, the source passages (tables as
// tables) and the source diff of a stale review. Plain JavaScript, no dependencies. Text from
// the service is only ever inserted as text nodes, never as HTML.
"use strict";

window.OverstoryAuditSource = (function () {
  const WORD = /[\p{L}\p{N}]/u;
  const SEPARATOR_ROW = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
  const DIFF_CONTEXT = 160; // characters of unchanged text kept either side of a change

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (name === "className") node.className = value;
      else if (name === "text") node.textContent = value;
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function pagesText(pages) {
    if (!pages || pages[0] === null || pages[0] === undefined) return "";
    return pages[0] === pages[1] ? `p. ${pages[0]}` : `pp. ${pages[0]}–${pages[1]}`;
  }

  // --- flag needles --------------------------------------------------------------------------
  // Where the needles occur in text, whole words only, overlaps dropped: [{start, end, kind, title}].
  function needleRanges(text, needles) {
    const ranges = [];
    const lower = text.toLowerCase();
    for (const needle of needles) {
      const wanted = (needle.text || "").trim();
      if (wanted.length < 1) continue;
      let from = 0;
      for (;;) {
        const at = lower.indexOf(wanted.toLowerCase(), from);
        if (at < 0) break;
        from = at + wanted.length;
        // Whole words only: a flagged "50" is not the end of "3,550".
        if (WORD.test(wanted[0]) && WORD.test(text[at - 1] || "")) continue;
        if (WORD.test(wanted[wanted.length - 1]) && WORD.test(text[from] || "")) continue;
        ranges.push({ start: at, end: from, kind: needle.kind, title: needle.title });
      }
    }
    ranges.sort((a, b) => a.start - b.start || b.end - a.end);
    const kept = [];
    for (const range of ranges) {
      if (kept.length && range.start < kept[kept.length - 1].end) continue;
      kept.push(range);
    }
    return kept;
  }

  // Text with every occurrence of the needles marked; built from text nodes only.
  function highlighted(text, needles) {
    const fragment = document.createDocumentFragment();
    let pos = 0;
    for (const range of needleRanges(text, needles)) {
      fragment.append(text.slice(pos, range.start));
      fragment.append(el("mark", { className: range.kind, title: range.title },
        text.slice(range.start, range.end)));
      pos = range.end;
    }
    fragment.append(text.slice(pos));
    return fragment;
  }

  // --- tables in passage text ----------------------------------------------------------------
  function lines(text) {
    const out = [];
    let start = 0;
    for (const part of text.split("\n")) {
      out.push({ start, end: start + part.length, text: part });
      start += part.length + 1;
    }
    return out;
  }

  // A line's cells as [start, end) ranges of the text, trimmed; the blank outside an edge pipe
  // ("| a | b |") is no cell. An escaped pipe ("\\|") is text.
  function cellsOf(line) {
    const t = line.text;
    const bounds = [-1];
    for (let i = 0; i < t.length; i += 1) {
      if (t[i] === "|" && t[i - 1] !== "\\") bounds.push(i);
    }
    if (bounds.length === 1) return [];
    bounds.push(t.length);
    const cells = [];
    for (let i = 0; i + 1 < bounds.length; i += 1) {
      let a = bounds[i] + 1;
      let b = bounds[i + 1];
      const edge = i === 0 || i === bounds.length - 2;
      if (edge && !t.slice(a, b).trim()) continue;
      while (a < b && /\s/.test(t[a])) a += 1;
      while (b > a && /\s/.test(t[b - 1])) b -= 1;
      cells.push({ start: line.start + a, end: line.start + b });
    }
    return cells;
  }

  // Rows without a separator are a table when two thirds of them have one number of cells,
  // and, for two cells, when there are three rows or more (two lines of "a | b" are as likely
  // two shell pipelines).
  function isTable(rows, separated) {
    const body = rows.filter((r) => !r.separator);
    if (!body.length || body.some((r) => r.cells.length < 2)) return false;
    if (separated) return true;
    const counts = new Map();
    for (const r of body) counts.set(r.cells.length, (counts.get(r.cells.length) || 0) + 1);
    const [width, modal] = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    return modal >= (width === 2 ? 3 : 2) && modal * 3 >= body.length * 2;
  }

  // The passage cut into text blocks and tables (pipe rows; a |---| row makes the rows above
  // it a header): [{type: "text"|"table", start, end, rows?}].
  function blocks(text) {
    const groups = [];
    let group = null;
    for (const line of lines(text)) {
      const separator = SEPARATOR_ROW.test(line.text) && line.text.includes("|");
      const cells = separator ? [] : cellsOf(line);
      if (separator || cells.length >= 2) {
        if (!group) groups.push((group = []));
        group.push({ line, cells, separator });
      } else {
        group = null;
      }
    }
    const out = [];
    let pos = 0;
    for (const rows of groups) {
      // A separator row proves a Markdown table, even one whose header is in an earlier passage.
      const firstSeparator = rows.findIndex((r) => r.separator);
      if (!isTable(rows, firstSeparator >= 0)) continue;
      const start = rows[0].line.start;
      const end = rows[rows.length - 1].line.end;
      // The line breaks around a table are the table's edges, not blank lines of text.
      const before = text[start - 1] === "\n" ? start - 1 : start;
      if (before > pos) out.push({ type: "text", start: pos, end: before });
      const tableRows = rows
        .map((r, i) => ({ cells: r.cells, header: i < firstSeparator, separator: r.separator }))
        .filter((r) => !r.separator);
      out.push({ type: "table", start, end, rows: tableRows });
      pos = text[end] === "\n" ? end + 1 : end;
    }
    if (pos < text.length || !out.length) out.push({ type: "text", start: pos, end: text.length });
    return out;
  }

  // --- passages ------------------------------------------------------------------------------
  // Segments of passage text [from, to) cut at every sentence span boundary (absolute `cuts`),
  // each a <span class="seg"> with its absolute range; flagged words inside a <mark>.
  function segments(passage, from, to, cuts, flagged) {
    const base = passage.char_start;
    const fragment = document.createDocumentFragment();
    const pieces = (a, b, into) => {
      let at = a;
      for (const cut of cuts) {
        const rel = cut - base;
        if (rel <= at || rel >= b) continue;
        into.append(seg(at, rel));
        at = rel;
      }
      if (b > at) into.append(seg(at, b));
    };
    const seg = (a, b) => el("span", {
      className: "seg", "data-start": base + a, "data-end": base + b,
    }, passage.text.slice(a, b));
    let pos = from;
    for (const range of flagged) {
      const a = Math.max(range.start, from);
      const b = Math.min(range.end, to);
      if (a >= b) continue;
      pieces(pos, a, fragment);
      const mark = el("mark", { className: range.kind, title: range.title });
      pieces(a, b, mark);
      fragment.append(mark);
      pos = b;
    }
    pieces(pos, to, fragment);
    return fragment;
  }

  function tableOf(passage, block, cuts, flagged) {
    const width = Math.max(...block.rows.map((r) => r.cells.length));
    const head = el("thead");
    const body = el("tbody");
    for (const row of block.rows) {
      const tr = el("tr");
      for (let i = 0; i < width; i += 1) {
        const cell = row.cells[i];
        const td = el(row.header ? "th" : "td", row.header ? { scope: "col" } : {});
        if (cell) td.append(segments(passage, cell.start, cell.end, cuts, flagged));
        tr.append(td);
      }
      (row.header ? head : body).append(tr);
    }
    return el("table", { className: "passage-table" }, head.children.length ? head : null, body);
  }

  function passageLabel(passage) {
    const path = passage.heading_path && passage.heading_path.length
      ? passage.heading_path.join(" › ")
      : "(before the first heading)";
    return [path, pagesText(passage.pages)].filter(Boolean).join(" · ");
  }

  // One passage as a list item: its heading path and pages, then its text (tables as tables).
  function passageItem(passage, cuts, needles) {
    const text = passage.text || "";
    const flagged = needleRanges(text, needles);
    const quote = el("blockquote", { className: "passage-text" });
    for (const block of blocks(text)) {
      if (block.type === "table") quote.append(tableOf(passage, block, cuts, flagged));
      else quote.append(el("span", { className: "passage-run" },
        segments(passage, block.start, block.end, cuts, flagged)));
    }
    return el("li", {
      "data-node-id": passage.node_id,
      "data-start": passage.char_start,
      "data-end": passage.char_end,
    }, el("span", { className: "passage-meta", text: passageLabel(passage) }), quote);
  }

  function sentenceCuts(sentences) {
    const cuts = new Set();
    for (const s of sentences || []) {
      for (const span of s.spans) {
        cuts.add(span.char_start);
        cuts.add(span.char_end);
      }
    }
    return [...cuts].sort((a, b) => a - b);
  }

  function renderPassages(list, passages, sentences, needles) {
    const cuts = sentenceCuts(sentences);
    list.replaceChildren(...passages.map((p) => passageItem(p, cuts, needles)));
  }

  // --- sentences -----------------------------------------------------------------------------
  // The summary with each sourced sentence a selectable element; the text between stays as it
  // is, so the summary reads exactly as served.
  function renderSentences(box, summary, sentences, needles) {
    box.replaceChildren();
    box.removeAttribute("role");
    if (!sentences || !sentences.length) {
      box.append(highlighted(summary, needles));
      return false;
    }
    const found = [];
    let at = 0;
    for (const s of sentences) {
      const where = summary.indexOf(s.text, at);
      if (where < 0) return renderSentences(box, sentences.map((x) => x.text).join(" "), sentences, needles);
      found.push(where);
      at = where + s.text.length;
    }
    box.setAttribute("role", "listbox");
    box.setAttribute("aria-label", "Summary sentences: select one to see its source");
    let pos = 0;
    sentences.forEach((s, i) => {
      box.append(summary.slice(pos, found[i]));
      box.append(el("span", {
        className: s.verified ? "sentence" : "sentence unverified",
        role: "option",
        "aria-selected": "false",
        tabindex: i === 0 ? "0" : "-1",
        "data-index": i,
        title: s.verified ? null : "Not verified: no source sentence was found to support it",
      }, highlighted(s.text, needles)));
      pos = found[i] + s.text.length;
    });
    box.append(summary.slice(pos));
    return true;
  }

  function sentencePages(sentence) {
    let low = null;
    let high = null;
    for (const span of sentence.spans) {
      if (!span.pages) continue;
      low = low === null ? span.pages[0] : Math.min(low, span.pages[0]);
      high = high === null ? span.pages[1] : Math.max(high, span.pages[1]);
    }
    return low === null ? "" : pagesText([low, high]);
  }

  // Mark exactly the sentence's spans in every passage shown; the first mark is scrolled to.
  // Returns how many passages hold a part of it and how many spans lie in none shown.
  function showSources(list, sentence) {
    for (const old of list.querySelectorAll(".seg.sentence-hit")) old.classList.remove("sentence-hit");
    for (const old of list.querySelectorAll("li.holds-sentence")) old.classList.remove("holds-sentence");
    let first = null;
    const holders = new Set();
    const found = new Set();
    for (const seg of list.querySelectorAll(".seg")) {
      const a = Number(seg.dataset.start);
      const b = Number(seg.dataset.end);
      const spans = sentence.spans.filter((s) => s.char_start <= a && b <= s.char_end);
      if (!spans.length) continue;
      spans.forEach((s) => found.add(s));
      seg.classList.add("sentence-hit");
      const item = seg.closest("li");
      item.classList.add("holds-sentence");
      holders.add(item);
      first = first || seg;
    }
    if (first) first.scrollIntoView({ block: "nearest", inline: "nearest" });
    return { holders: holders.size, outside: sentence.spans.length - found.size };
  }

  function sentenceInfo(sentence, index, total, shown) {
    const pages = sentencePages(sentence);
    const parts = [`Sentence ${index + 1} of ${total}`];
    parts.push(pages ? `source ${pages}` : "source without page numbers");
    if (!sentence.spans.length) parts.push("cites no source");
    if (shown.holders) parts.push(`in ${shown.holders} passage${shown.holders === 1 ? "" : "s"} shown`);
    if (shown.outside) {
      parts.push(`${shown.outside} of its ${sentence.spans.length} source span${sentence.spans.length === 1 ? "" : "s"} `
        + "outside the passages shown (a heading, or a passage not shown)");
    }
    if (!sentence.verified) {
      parts.push(sentence.spans.length
        ? "NOT VERIFIED: what is marked is the closest source found, and it does not support the sentence"
        : "NOT VERIFIED: no source sentence was found to support it");
    }
    return parts.join(" · ");
  }

  // --- the source diff of a stale review -----------------------------------------------------
  function diffRun(op) {
    const text = op.text;
    const body = text.replace(/\s+$/, "");
    const tail = text.slice(body.length);
    if (op.op === "equal") return document.createTextNode(text);
    const tag = op.op === "added" ? "ins" : "del";
    const said = op.op === "added" ? "added" : "removed";
    const run = el(tag, { className: `diff-${op.op}`, title: `${said} since the review` }, body);
    const fragment = document.createDocumentFragment();
    fragment.append(run, tail);
    return fragment;
  }

  function shortened(text, keepStart, keepEnd) {
    if (text.length <= DIFF_CONTEXT * 2 + 40) return text;
    const head = keepStart ? text.slice(0, DIFF_CONTEXT) : "";
    const tail = keepEnd ? text.slice(text.length - DIFF_CONTEXT) : "";
    const skipped = text.length - head.length - tail.length;
    const fragment = document.createDocumentFragment();
    fragment.append(head, el("span", { className: "diff-skip", text: ` [… ${skipped} unchanged characters …] ` }), tail);
    return fragment;
  }

  function renderDiff(box, diff) {
    box.replaceChildren(el("h3", { id: "source-diff-title", text: "Source changed since the review" }));
    const review = diff.review;
    const when = review ? new Date(review.reviewed_at * 1000).toLocaleString() : "";
    box.append(el("p", { className: `diff-status diff-${diff.status}`, text: diff.message }));
    if (review) {
      const from = diff.reviewed_revision ? `revision ${diff.reviewed_revision.slice(0, 12)}` : "a revision no longer kept";
      box.append(el("p", { className: "meta",
        text: `Reviewed (${review.status}) by ${review.reviewer}, ${when}, on ${from}; now revision ${(diff.revision || "").slice(0, 12)}.` }));
    }
    if (diff.status !== "changed") return;
    box.append(el("p", { className: "meta diff-counts" },
      `${diff.words.added} word${diff.words.added === 1 ? "" : "s"} added, ${diff.words.removed} removed: `,
      el("del", { className: "diff-removed", text: "struck through" }), " was in the reviewed source, ",
      el("ins", { className: "diff-added", text: "underlined" }), " is new."));
    const text = el("div", { className: "diff-text", "aria-labelledby": "source-diff-title" });
    diff.ops.forEach((op, i) => {
      text.append(op.op === "equal" ? shortened(op.text, i > 0, i < diff.ops.length - 1) : diffRun(op));
    });
    box.append(text);
  }

  return {
    el, pagesText, highlighted, blocks, renderPassages, renderSentences, showSources,
    sentenceInfo, renderDiff,
  };
})();
