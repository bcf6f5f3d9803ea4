"""The audit lint of a sourced summary: each sentence against the spans it cites."""

from __future__ import annotations

from indexer.lint import Linter
from indexer.lint.dependency import default_dependency_model, leaning
from indexer.lint.sourced import lint_sentences
from indexer.sourced import ResolvedSentence, ResolvedSpan

TEXT = (
    "Replacement\n\n"
    "Check the seal every week. Replace the seal only if the leakage exceeds 10 drops per "
    "minute. This keeps the pump dry.\n\n"
    "The following tools are needed:\n\n"
    "- a 13 mm spanner\n- a seal puller\n"
)


def _cite(summary: str, *quoted: str, kind: str = "statement") -> ResolvedSentence:
    spans = tuple(ResolvedSpan(TEXT.index(q), TEXT.index(q) + len(q)) for q in quoted)
    return ResolvedSentence(summary, spans, kind)


def _rules(*sentences: ResolvedSentence) -> list[str]:
    return [f.rule for f in lint_sentences(Linter(None), sentences, TEXT, ["Replacement"])]


def test_a_quoted_sentence_with_its_condition_draws_no_flag() -> None:
    quote = "Replace the seal only if the leakage exceeds 10 drops per minute."
    assert _rules(_cite(quote, quote)) == []


def test_a_dropped_condition_and_a_changed_number_are_flagged_against_the_cited_span() -> None:
    cited = "Replace the seal only if the leakage exceeds 10 drops per minute."
    rules = _rules(_cite("Replace the seal when the leakage exceeds 12 drops per minute.", cited))
    assert any(r.startswith("condition.") for r in rules), rules
    assert "number.absent" in rules or "number.changed" in rules, rules


def test_a_condition_stated_in_the_next_sentence_of_its_paragraph_is_not_dropped() -> None:
    # The cited sentence has no condition; its paragraph does, next to it: compared within the
    # paragraph, a summary keeping that condition draws no condition flag.
    said = _cite(
        "Check the seal every week; replace it only if the leakage exceeds 10 drops per minute.",
        "Check the seal every week.",
    )
    assert not any(r.startswith("condition.") for r in _rules(said))


def test_an_outline_line_is_never_linted() -> None:
    line = _cite("Replacement: replace the seal always", "Replacement", kind="outline")
    assert _rules(line) == []


def test_a_quote_that_leans_on_a_left_out_sentence_is_flagged_with_the_dependency_model() -> None:
    back = _cite("This keeps the pump dry.", "This keeps the pump dry.")
    forward = _cite("The following tools are needed:", "The following tools are needed:")
    flags = lint_sentences(Linter(None), [back, forward], TEXT, ["Replacement"])
    assert [(f.rule, f.sentence) for f in flags] == [
        ("dependency.back", 0),
        ("dependency.forward", 1),
    ]
    assert "Replace the seal only if" in (flags[0].source_text or "")
    assert "a 13 mm spanner" in (flags[1].source_quote or "")
    # Rated by the model fitted on the sentences the team's judges read (tuning half), not by
    # the planted-fault model.
    model = default_dependency_model()
    cited = [(s.char_start, s.char_end) for x in (back, forward) for s in x.spans]
    quotes = ("This keeps the pump dry.", "The following tools are needed:")
    for flag, quoted in zip(flags, quotes, strict=True):
        found = leaning(quoted, TEXT, TEXT.index(quoted), cited, ["Replacement"])
        assert flag.confidence == model.probability(found.features)


def test_the_first_sentence_of_a_paragraph_leans_on_its_heading_only() -> None:
    quote = "Check the seal every week."
    assert _rules(_cite(quote, quote)) == []


def test_a_quote_whose_antecedent_or_list_the_summary_also_quotes_is_not_flagged() -> None:
    rule = "Replace the seal only if the leakage exceeds 10 drops per minute."
    lead = "The following tools are needed:"
    summary = [
        _cite(rule, rule),
        _cite("This keeps the pump dry.", "This keeps the pump dry."),
        _cite(lead, lead),
        _cite("a 13 mm spanner", "a 13 mm spanner"),
        _cite("a seal puller", "a seal puller"),
    ]
    assert not any(r.startswith("dependency.") for r in _rules(*summary))


def test_a_lead_in_and_its_labelled_items_are_checked_against_every_item() -> None:
    text = (
        "Colors\n\nFirst check that your TERM variable is correct, recommended values are:\n\n"
        "- under screen: screen-256color\n\n- under tmux: screen-256color or tmux-256color\n\n"
        "- outside screen/tmux: xterm-256color, rxvt-256color\n"
    )
    quoted = [
        "First check that your TERM variable is correct, recommended values are:",
        "under screen: screen-256color",
        "under tmux: screen-256color or tmux-256color",
        "outside screen/tmux: xterm-256color, rxvt-256color",
    ]
    spans = tuple(ResolvedSpan(text.index(q), text.index(q) + len(q)) for q in quoted)
    summary = (
        "First check that your TERM variable is correct, recommended values are: under screen: "
        "screen-256color; under tmux: screen-256color or tmux-256color; outside screen/tmux: "
        "xterm-256color, rxvt-256color."
    )
    # The lead-in and the items' own labels are the statement, not names to take off with
    # their spans: every item's value is in what the sentence cites.
    said = [ResolvedSentence(summary, spans, "lead")]
    flags = lint_sentences(Linter(None), said, text, ["Colors"])
    assert [f.rule for f in flags] == []
    changed = summary.replace("or tmux-256color", "or tmux-88color")
    flags = lint_sentences(Linter(None), [ResolvedSentence(changed, spans, "lead")], text, [])
    assert "number.code" in [f.rule for f in flags]


def test_a_negated_any_quoted_with_its_lead_in_is_supported_by_a_contracted_negation() -> None:
    for apostrophe in ("'", "’"):
        item = f"Structure management that doesn{apostrophe}t require any C code file generation"
        text = f"Features\n\nThe main features of this library are:\n\n- {item}.\n- Speed.\n"
        lead = "The main features of this library are:"
        spans = tuple(ResolvedSpan(text.index(q), text.index(q) + len(q)) for q in (lead, item))
        quoted = ResolvedSentence(f"{lead} {item}", spans)
        assert lint_sentences(Linter(None), [quoted], text, ["Features"]) == [], apostrophe
        dropped = ResolvedSentence(f"{lead} {item.replace(f'doesn{apostrophe}t', 'does')}", spans)
        rules = [f.rule for f in lint_sentences(Linter(None), [dropped], text, ["Features"])]
        assert rules, apostrophe  # the negation left out is still caught


def _at(text: str, summary: str, *quoted: str, kind: str = "statement") -> ResolvedSentence:
    spans = tuple(ResolvedSpan(text.index(q), text.index(q) + len(q)) for q in quoted)
    return ResolvedSentence(summary, spans, kind)


def test_a_sentence_wrapped_over_lines_in_its_source_is_read_whole() -> None:
    # Wrapped text breaks lines mid-sentence; read line by line, "will not have" and "access
    # to any external routes" were two sentences, and the quoted "any" had no negation.
    text = (
        "Networking\n\nWith `--network none` the container will not have\n"
        "access to any external routes, only to its loopback interface.\n"
    )
    cited = (
        "With `--network none` the container will not have\n"
        "access to any external routes, only to its loopback interface."
    )
    said = "With --network none the container will not have access to any external routes, only"
    quoted = _at(text, f"{said} to its loopback interface.", cited)
    assert lint_sentences(Linter(None), [quoted], text, ["Networking"]) == []
    dropped = _at(text, quoted.text.replace("will not have", "will have"), cited)
    flags = lint_sentences(Linter(None), [dropped], text, ["Networking"])
    assert [f.rule for f in flags] == ["negation.dropped"]
