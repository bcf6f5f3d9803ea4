// Overstory audit page: review from the keyboard. The keys are listed on the page (#key-help)
// and on the buttons (aria-keyshortcuts). A key typed into a field (the note, the correction,
// the API key, a filter) is the field's: only Ctrl+Enter in the correction saves it.
"use strict";

window.OverstoryAuditKeys = (function () {
  const TYPING = new Set(["INPUT", "TEXTAREA", "SELECT"]);

  function typingIn(target) {
    return target instanceof Element && (TYPING.has(target.tagName) || target.isContentEditable);
  }

  // actions: {approve, correct, reject, next, previous, nextSentence, previousSentence,
  // firstSentence, lastSentence, save, escape, open(): whether a summary is open}.
  function install(actions, correction) {
    const onPage = {
      a: actions.approve,
      c: actions.correct,
      r: actions.reject,
      n: actions.next,
      p: actions.previous,
      j: actions.nextSentence,
      k: actions.previousSentence,
    };
    const inSummary = {
      ArrowDown: actions.nextSentence,
      ArrowRight: actions.nextSentence,
      ArrowUp: actions.previousSentence,
      ArrowLeft: actions.previousSentence,
      Home: actions.firstSentence,
      End: actions.lastSentence,
    };
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.isComposing) return;
      if (event.key === "Escape") {
        if (!(event.target instanceof HTMLTextAreaElement)) actions.escape(event);
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
      const inSentences = event.target instanceof Element && event.target.closest(".sentence");
      const action = (inSentences && inSummary[event.key]) || onPage[event.key.toLowerCase()];
      if (!action || (!actions.open() && action !== actions.next && action !== actions.previous)) return;
      event.preventDefault();
      action();
    });
    correction.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        actions.save();
      }
    });
  }

  return { install };
})();
