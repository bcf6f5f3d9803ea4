"""A node with parts says what its own text says, in proportion to that text's share."""

from __future__ import annotations

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.cues import quotable
from indexer.summarizers.extractive import ExtractiveSummarizer

_OWN = (
    "The pid option sets the process namespace mode of the container.\n\n"
    "By sharing a namespace, processes in the container can see every process on the host.\n\n"
    "A shared namespace is meant for debugging tools such as strace and gdb."
)


def _request(below: int) -> SummaryRequest:
    """A section whose own text is one passage, over two examples of ``below`` passages each."""
    start = len(_OWN) + 2
    request = SummaryRequest(
        "k",
        "section",
        "PID settings",
        ["Run reference", "PID settings"],
        [_OWN],
        passage_starts=[0],
    )
    children = []
    for n, title in enumerate(("Example: htop", "Example: strace")):
        at = start + 100 * n
        said = SourcedSentence(f"Run {title[9:]} in a container.", ((at + 20, at + 40),))
        children.append(ChildSummary(title, said.text, [said], (at, at + 15), below))
    request.children = children
    return request


def test_a_node_whose_own_text_is_a_fair_share_quotes_more_of_it_than_its_opening() -> None:
    sentences = ExtractiveSummarizer().summarize_one(_request(1)).sentences
    texts = [s.text for s in sentences]
    assert texts[0].startswith("The pid option sets"), texts
    assert any("see every process on the host" in t for t in texts), texts
    # The parts still have their line, after what the node says itself.
    assert texts[-2].startswith("Example: htop"), texts
    assert texts[-1].startswith("Example: strace"), texts
    # The statements keep the spans of what they quote.
    for s in sentences[:-2]:
        ((a, b),) = s.spans
        assert _OWN[a:b] == s.text, s


def test_a_node_whose_own_text_is_a_small_share_is_opened_by_one_statement() -> None:
    sentences = ExtractiveSummarizer().summarize_one(_request(5)).sentences
    texts = [s.text for s in sentences]
    assert texts[0].startswith("The pid option sets"), texts
    assert not any("see every process on the host" in t for t in texts), texts
    assert texts[1].startswith("Example: htop"), texts


def test_a_negated_listing_is_a_statement_not_a_pointer_to_elsewhere() -> None:
    assert quotable(
        'Only interfaces which are not listed in "/etc/network/interfaces" are managed by NM.'
    )
    assert not quotable("This option is also described in the next chapter.")
