"""The audit lint of a sourced summary: each sentence against the spans it cites."""

from __future__ import annotations

from indexer.lint import Linter
from indexer.lint.dependency import default_dependency_model, leaning
from indexer.lint.sourced import lint_sentences
from indexer.settings import Settings
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
        last = quoted == quotes[-1]  # the summary ends with it
        found = leaning(quoted, TEXT, TEXT.index(quoted), cited, ["Replacement"], last=last)
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


def test_a_heading_that_holds_a_colon_is_taken_off_as_the_sentences_label() -> None:
    text = (
        "Container settings\n\nConnectivity\n\nNetwork: none\n\n"
        "The container gets no external interface. It keeps only a loopback interface.\n"
    )
    heading, first = "Network: none", "The container gets no external interface."
    # The statement is read at its own span, under its heading: "Connectivity" two blocks up
    # is no term the sentence describes.
    said = _at(text, f"{heading}: {first}", heading, first, kind="part")
    assert lint_sentences(Linter(None), [said], text, ["Container settings"]) == []
    # A statement leaning on the sentence the summary leaves out is still flagged, as itself.
    leans = "It keeps only a loopback interface."
    flags = lint_sentences(
        Linter(None), [_at(text, f"{heading}: {leans}", heading, leans)], text, []
    )
    assert [(f.rule, f.summary_text) for f in flags] == [("dependency.back", leans)]


LIST = (
    "Tools\n\nThe **following** tools are needed:\n\n- a 13 mm spanner\n- a seal puller\n"
    "- a torque wrench\n- a mallet\n\nCheck the seal every week.\n"
)
LEAD = "The following tools are needed:"
ITEMS = ("a 13 mm spanner", "a seal puller", "a torque wrench", "a mallet")


def _lead(*quoted: str) -> ResolvedSentence:
    return ResolvedSentence(
        quoted[0], (ResolvedSpan(LIST.index("The **"), LIST.index("needed:") + 7),)
    )


def test_a_lead_in_quoted_without_its_markup_is_read_to_the_end_of_its_span() -> None:
    # The quote is shorter than its source ("**" stripped): what follows it starts at its
    # span's end, where the summary's next quote, its list, starts.
    items = [_at(LIST, item, item) for item in ITEMS]
    assert lint_sentences(Linter(None), [_lead(LEAD), *items], LIST, ["Tools"]) == []
    rules = [f.rule for f in lint_sentences(Linter(None), [_lead(LEAD), *items[:1]], LIST)]
    assert rules == ["dependency.partial"]


def test_a_list_marked_and_n_more_is_not_flagged_as_partial() -> None:
    lead = ResolvedSpan(LIST.index("The **"), LIST.index("needed:") + 7)
    spans = (lead, *(_at(LIST, i, i).spans[0] for i in ITEMS[:2]))
    marked = ResolvedSentence(f"{LEAD} {'; '.join(ITEMS[:2])}; and 2 more.", spans, "lead")
    check = _at(LIST, "Check the seal every week.", "Check the seal every week.")
    assert lint_sentences(Linter(None), [marked, check], LIST, ["Tools"]) == []


def test_a_lead_in_presenting_something_else_as_its_list_is_shown_a_dangling_one_is_not() -> None:
    # The rubric's fault is a lead-in followed by something else; one the summary ends with
    # is visibly cut, and was judged misleading less than half the time (tuning half).
    floor = Settings().lint_min_confidence
    check = _at(LIST, "Check the seal every week.", "Check the seal every week.")
    followed = lint_sentences(Linter(None), [_lead(LEAD), check], LIST, ["Tools"])
    dangling = lint_sentences(Linter(None), [check, _lead(LEAD)], LIST, ["Tools"])
    assert [f.rule for f in followed] == [f.rule for f in dangling] == ["dependency.forward"]
    assert (dangling[0].confidence or 0.0) < floor <= (followed[0].confidence or 0.0)


def test_a_lead_in_that_says_what_it_announces_is_not_shown() -> None:
    text = (
        "Clean up\n\nTo start a container running a server, run:\n\n"
        "    $ docker run --name cache -d redis\n\n"
        "Containers keep their file systems by default. To remove the container when it exits,"
        " add the `--rm` flag:\n\n    --rm: Remove the container when it exits\n\n"
        "Named volumes are kept.\n"
    )
    floor = Settings().lint_min_confidence
    keep = _at(text, "Containers keep their file systems by default.", "Containers keep their")
    kept = _at(text, "Named volumes are kept.", "Named volumes are kept.")
    says = "To remove the container when it exits, add the `--rm` flag:"
    said = [keep, _at(text, says.replace("`", ""), says), kept]
    flags = [f for f in lint_sentences(Linter(None), said, text, ["Clean up"]) if f.sentence == 1]
    assert [f.rule for f in flags] == ["dependency.forward"]
    assert (flags[0].confidence or 0.0) < floor
    runs = "To start a container running a server, run:"
    said = [_at(text, runs, runs), kept]
    flags = [f for f in lint_sentences(Linter(None), said, text, ["Clean up"]) if f.sentence == 0]
    assert [f.rule for f in flags] == ["dependency.forward"]
    assert (flags[0].confidence or 0.0) >= floor
