"""The summary benchmark's peers: lead, sumy's LexRank and TextRank, and the v2 extractive
summarizer read from git history. Each keeps its budget, answers in document order, and points
every sentence at the characters of the input it came from."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from benchmarks.summaries.peers import (
    HistoryUnavailable,
    LeadPeer,
    Peer,
    PeerSentence,
    SumyPeer,
    V2Peer,
    locate,
    paragraph_chunks,
)
from indexer.summarizers.sentences import strip_markup
from indexer.tokens import count_tokens

MARKDOWN = """## Log rotation

The **rotate** command moves the current log aside and opens a new one. Rotation runs every \
night at midnight unless [the schedule](schedule.md) says otherwise. Old logs are compressed \
with `gzip` after one day.

Warning: never delete the current log while the daemon is running.

| option | default |
|--------|---------|
| keep   | 7       |

```
rotate --keep 7 /var/log/daemon.log
```

Warning: never delete the current log while the daemon is running.

The `keep` option sets how many old logs are kept (see the
option reference, p. 12) before the oldest is removed.
"""

# The first sentence shares almost nothing with the rest: the central ones come later.
CENTRAL = """This page was last revised for release four of the server.

The server writes a backup of every database each night. A nightly backup goes to the backup \
volume. The backup volume keeps every nightly backup for thirty days. The restore tool reads a \
nightly backup from the backup volume and rebuilds the database. Restoring one database takes \
about an hour on a small server. Old backups are removed from the volume after thirty days. The \
restore tool checks each backup before it rebuilds a database. Logs of each backup and each \
restore are kept with the server logs.
"""

BUDGETS = (15, 40, 100)


@pytest.fixture(scope="module")
def sumy_installed() -> None:
    pytest.importorskip("sumy", reason="sumy is not installed (pip install sumy)")


@pytest.fixture(scope="module")
def v2() -> V2Peer:
    peer = V2Peer()
    try:
        peer.load()
    except HistoryUnavailable as exc:
        pytest.skip(f"the v2 summarizer needs the repository's git history: {exc}")
    return peer


@pytest.fixture
def offline_nltk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """NLTK finds no data and may download none: the sumy peers must not need any."""
    nltk = pytest.importorskip("nltk")
    mp = pytest.MonkeyPatch()
    mp.setattr(nltk.data, "path", [str(tmp_path_factory.mktemp("no_nltk_data"))])

    def refuse(*args: object, **kwargs: object) -> bool:
        raise AssertionError("a peer tried to download NLTK data")

    mp.setattr(nltk, "download", refuse)
    yield
    mp.undo()


def _tokens(sentences: list[PeerSentence]) -> int:
    return sum(count_tokens(s.text) for s in sentences)


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", strip_markup(text))


def _assert_sourced_in_order(sentences: list[PeerSentence], text: str) -> None:
    starts = [s.spans[0][0] for s in sentences]
    assert starts == sorted(starts)
    for s in sentences:
        assert len(s.spans) == 1
        begin, end = s.spans[0]
        assert text[begin:end] == s.text


def test_lead_takes_the_opening_prose_sentences_while_they_fit() -> None:
    out = LeadPeer().summarize(MARKDOWN, budget_tokens=40, title="Log rotation")
    assert [s.text for s in out] == [
        "The **rotate** command moves the current log aside and opens a new one.",
        "Rotation runs every night at midnight unless [the schedule](schedule.md) says otherwise.",
    ]
    _assert_sourced_in_order(out, MARKDOWN)
    # the next sentence would have fitted on its own: lead stops at the first that does not
    third = "Old logs are compressed with `gzip` after one day."
    assert _tokens(out) + count_tokens(third) > 40
    assert LeadPeer().summarize(MARKDOWN, budget_tokens=5) == []


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("text", [MARKDOWN, CENTRAL], ids=["markdown", "central"])
def test_lead_and_sumy_peers_keep_the_budget_and_quote_their_source_exactly(
    sumy_installed: None, offline_nltk: None, budget: int, text: str
) -> None:
    peers: list[Peer] = [LeadPeer(), SumyPeer("lexrank"), SumyPeer("textrank")]
    for peer in peers:
        out = peer.summarize(text, budget_tokens=budget)
        assert out or isinstance(peer, LeadPeer), peer.name
        assert _tokens(out) <= budget, peer.name
        _assert_sourced_in_order(out, text)
        joined = " ".join(s.text for s in out)
        assert "|" not in joined and "```" not in joined  # table rows and code are no prose


def test_lexrank_and_textrank_pick_central_sentences_not_the_lead(
    sumy_installed: None, offline_nltk: None
) -> None:
    first = "This page was last revised for release four of the server."
    lead = [s.text for s in LeadPeer().summarize(CENTRAL, budget_tokens=40)]
    assert lead[0] == first
    for name in ("lexrank", "textrank"):
        peer = SumyPeer(name)
        ranking = peer.ranking(CENTRAL)
        assert len(ranking) == 9 and ranking[0].text != first
        out = [s.text for s in peer.summarize(CENTRAL, budget_tokens=40)]
        assert out != lead and first not in out
        assert ranking[0].text in out


def test_sumy_peers_keep_repeated_sentences_apart(sumy_installed: None) -> None:
    text = (
        "Never delete the current log file by hand. The daemon rotates its log file nightly. "
        "Never delete the current log file by hand."
    )
    for name in ("lexrank", "textrank"):
        out = SumyPeer(name).summarize(text, budget_tokens=100)
        assert [s.spans[0][0] for s in out] == [0, text.index("The"), text.rindex("Never")]
        _assert_sourced_in_order(out, text)


def test_sumy_peer_names() -> None:
    with pytest.raises(ValueError):
        SumyPeer("lsa")


def test_paragraph_chunks_cut_at_paragraph_breaks_only() -> None:
    paragraphs = [f"Paragraph {i}" + " word" * 60 for i in range(8)]
    text = "\n\n".join(paragraphs)
    chunks = paragraph_chunks(text, 1000)
    assert len(chunks) > 1
    assert "\n\n".join(chunks) == text.strip()
    assert all(len(c) <= 1000 for c in chunks)
    assert paragraph_chunks("x" * 3000 + "\n\nshort") == ["x" * 3000, "short"]


def test_locate_finds_a_normalized_sentence_in_its_markup() -> None:
    text = "Intro.\n\nSee [the docs](https://x.org/a.html) for the **full**\nlist (p. 3). Next."
    begin, end = locate("See the docs for the full list (p. 3).", text)
    assert text[begin:end] == "See [the docs](https://x.org/a.html) for the **full**\nlist (p. 3)."
    assert locate("See the docs for the full list (p. 3).", text, begin + 1) == (-1, -1)
    assert locate("Nothing like this is there.", text) == (-1, -1)


def test_v2_reproduces_the_old_summary_of_a_markdown_section(v2: V2Peer) -> None:
    out = v2.summarize(MARKDOWN, budget_tokens=400, title="Log rotation")
    # every prose sentence once, markup stripped, whitespace collapsed; no heading or table row,
    # but a fenced code line whose fence its markup stripping removed
    assert [s.text for s in out] == [
        "The rotate command moves the current log aside and opens a new one.",
        "Rotation runs every night at midnight unless the schedule says otherwise.",
        "Old logs are compressed with gzip after one day.",
        "Warning: never delete the current log while the daemon is running.",
        "rotate --keep 7 /var/log/daemon.log",
        "The keep option sets how many old logs are kept (see the option reference, p. 12) "
        "before the oldest is removed.",
    ]
    starts = [s.spans[0][0] for s in out]
    assert starts == sorted(starts)
    for s in out:
        begin, end = s.spans[0]
        assert _words(MARKDOWN[begin:end]) == _words(s.text)
    assert MARKDOWN[slice(*out[1].spans[0])] == (
        "Rotation runs every night at midnight unless [the schedule](schedule.md) says otherwise."
    )
    # the repeated warning is quoted from its first occurrence
    assert out[3].spans[0][0] == MARKDOWN.index("Warning")


@pytest.mark.parametrize("budget", BUDGETS)
@pytest.mark.parametrize("text", [MARKDOWN, CENTRAL], ids=["markdown", "central"])
def test_v2_keeps_its_budget_as_it_did(v2: V2Peer, budget: int, text: str) -> None:
    out = v2.summarize(text, budget_tokens=budget)
    assert out and all(s.spans for s in out)
    # v2 let the first sentence it ranked run up to twice the budget when it did not fit,
    # without charging it: at most one such sentence, the others within the budget
    over = [s for s in out if count_tokens(s.text) > budget]
    assert len(over) <= 1 and all(count_tokens(s.text) <= 2 * budget for s in over)
    assert _tokens([s for s in out if s not in over]) <= budget
    if budget >= 40:
        assert not over and _tokens(out) <= budget
    starts = [s.spans[0][0] for s in out]
    assert starts == sorted(starts)
    for s in out:
        assert _words(text[slice(*s.spans[0])]) == _words(s.text)


def test_v2_overflow_and_fallback(v2: V2Peer) -> None:
    text = "The restore tool rebuilds every database from the most recent nightly backup."
    assert LeadPeer().summarize(text, budget_tokens=10) == []
    out = v2.summarize(text, budget_tokens=10)
    assert [s.text for s in out] == [text] and 10 < count_tokens(text) <= 20
    assert out[0].spans == ((0, len(text)),)
    # at a budget of 8 tokens or less v2 chose nothing and showed the title
    assert v2.summarize(text, budget_tokens=8, title="Restore") == [PeerSentence("Restore", ())]


def test_v2_chapter_summary_opens_with_its_contents(v2: V2Peer) -> None:
    children = [
        ("Rotation", "Logs rotate nightly at midnight by default."),
        ("Retention", "Contents: Limits.\nOld logs are kept for seven days by default."),
    ]
    text = v2.summarize_node([], children, "chapter", "Logs", 100)
    assert text == (
        "Contents: Rotation; Retention.\n"
        "Logs rotate nightly at midnight by default. Old logs are kept for seven days by default."
    )


def test_v2_locates_transcript_sentences_around_removed_fillers(v2: V2Peer) -> None:
    text = (
        "Alice: Um, the pump, you know, failed twice on Monday morning at the plant.\n"
        "Bob: Okay so what happened then with the backup pump?\n"
        "Alice: The backup pump kind of started late, about five minutes after the alarm.\n"
    )
    out = v2.summarize(text, budget_tokens=80)
    assert [s.text for s in out] == [
        "the pump, failed twice on Monday morning at the plant.",
        "The backup pump started late, about five minutes after the alarm.",
    ]
    assert text[slice(*out[1].spans[0])] == (
        "The backup pump kind of started late, about five minutes after the alarm."
    )
