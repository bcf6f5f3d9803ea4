"""Peer summarizers, compared with Overstory's offline summarizer side by side on the same nodes.

Each peer summarizes a node's source text to a token budget (counted with the embedding model's
tokenizer, :func:`indexer.tokens.count_tokens`) and returns its sentences with the exact
character spans of the text they were taken from, so that every system is scored by the same
span-based scorer:

- ``lead``: the first prose sentences of the text, in order, while they fit.
- ``lexrank`` and ``textrank``: sumy's LexRank and TextRank over the sentences of Overstory's own
  splitter (:func:`indexer.summarizers.sentences.sentence_spans`), with a plain word tokenizer,
  so that no NLTK data (punkt) is needed.
- ``v2``: the extractive summarizer as it was before the sourced-sentence rework (prompt version
  ``extractive-v2``, commit :data:`V2_COMMIT`), read from the repository's git history at run
  time and loaded as a throw-away package; none of its code is kept in the tree.

``lead``, ``lexrank`` and ``textrank`` choose among the same candidates: the pieces of the
splitter that read as prose (:func:`indexer.summarizers.sentences.is_prose`), not table rows,
code lines or fragments. ``v2`` chooses among its own, split and filtered as it did then.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import re
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

from indexer.summarizers.sentences import Piece, is_prose, sentence_spans
from indexer.tokens import count_tokens

REPO = Path(__file__).resolve().parents[2]
V2_COMMIT = "eba5acf"
PEER_NAMES = ("lead", "lexrank", "textrank", "v2")

_V2_MODULES = ("sentences", "dialogue", "extractive")
_V2_OUTLINE_PREFIX = "Contents: "
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
# sumy's own tokenizer keeps the tokens made of letters (with inner apostrophes and hyphens).
_WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
_TOKEN = re.compile(r"\w+")
_LINK_TARGET = r"\]\([^)]*\)"
_TAG = r"</?[A-Za-z][^>]*>"
_NOT_BEFORE = frozenset(".!?,;:)]>")


@dataclass(frozen=True)
class PeerSentence:
    """One sentence of a peer's summary.

    Attributes:
        text: The sentence as the summary shows it.
        spans: ``[start, end)`` character offsets into the text given to ``summarize``; empty
            for a line that quotes nothing of it (v2's ``Contents: ...`` outline, its fallback).
    """

    text: str
    spans: tuple[tuple[int, int], ...]


class Peer(Protocol):
    """A summarizer compared with Overstory's: a node's text in, sourced sentences out."""

    name: str

    def summarize(
        self, text: str, *, budget_tokens: int, title: str | None = None
    ) -> list[PeerSentence]:
        """Summarize ``text`` in at most ``budget_tokens`` model tokens.

        Args:
            text: The node's source text.
            budget_tokens: The summary's length budget in model tokens.
            title: The node's heading, if it has one.

        Returns:
            The summary's sentences in document order, each with its spans in ``text``.
        """
        ...


def _prose(text: str) -> list[Piece]:
    return [p for p in sentence_spans(text) if is_prose(p.text)]


def _quoted(piece: Piece) -> PeerSentence:
    return PeerSentence(piece.text, ((piece.start, piece.end),))


class LeadPeer:
    """The first prose sentences of the text, in order, while they fit the budget."""

    name = "lead"

    def summarize(
        self, text: str, *, budget_tokens: int, title: str | None = None
    ) -> list[PeerSentence]:
        """Summarize ``text`` by its opening sentences.

        Args:
            text: The node's source text.
            budget_tokens: The summary's length budget in model tokens.
            title: Unused: the lead baseline reads the text only.

        Returns:
            The leading prose sentences, stopping at the first one that would exceed the budget.
        """
        out: list[PeerSentence] = []
        used = 0
        for piece in _prose(text):
            cost = count_tokens(piece.text)
            if used + cost > budget_tokens:
                break
            out.append(_quoted(piece))
            used += cost
        return out


class _Words:
    """A word tokenizer as sumy's document model asks of one (needs no NLTK data)."""

    language = "english"

    def to_words(self, sentence: str) -> tuple[str, ...]:
        """The words of ``sentence``: runs of letters, with inner apostrophes and hyphens."""
        return tuple(_WORD.findall(sentence))


class SumyPeer:
    """sumy's LexRank or TextRank, ranking the sentences of Overstory's splitter.

    The ranked sentences are kept best first while they fit the budget (a sentence that does
    not fit is passed over for the next one that does), then put back in document order.
    """

    def __init__(self, name: str) -> None:
        """Make the peer.

        Args:
            name: ``lexrank`` or ``textrank``.

        Raises:
            ValueError: For any other name.
        """
        if name not in ("lexrank", "textrank"):
            raise ValueError(f"no sumy peer named {name!r}")
        self.name = name
        self._summarizer: Any = None
        self._lock = threading.Lock()

    def _ranker(self) -> Any:
        with self._lock:
            if self._summarizer is None:
                from sumy.nlp.stemmers import Stemmer
                from sumy.summarizers.lex_rank import LexRankSummarizer
                from sumy.summarizers.text_rank import TextRankSummarizer
                from sumy.utils import get_stop_words

                cls = LexRankSummarizer if self.name == "lexrank" else TextRankSummarizer
                summarizer = cls(Stemmer("english"))
                summarizer.stop_words = get_stop_words("english")
                self._summarizer = summarizer
            return self._summarizer

    def ranking(self, text: str) -> list[Piece]:
        """The prose sentences of ``text``, best rated first by the sumy algorithm.

        Args:
            text: The node's source text.

        Returns:
            Every prose piece of ``text``, in sumy's rating order (ties in document order).
        """
        from sumy.models.dom import ObjectDocumentModel, Paragraph, Sentence

        pieces = _prose(text)
        if not pieces:
            return []
        words = _Words()
        sentences = [Sentence(p.text, words) for p in pieces]
        # sumy keys its ratings by sentence text, so pieces are found again by object identity.
        index = {id(s): i for i, s in enumerate(sentences)}
        paragraphs: list[list[Any]] = [[]]
        for i, sentence in enumerate(sentences):
            if i and _PARAGRAPH_BREAK.search(text, pieces[i - 1].end, pieces[i].start):
                paragraphs.append([])
            paragraphs[-1].append(sentence)
        document = ObjectDocumentModel([Paragraph(p) for p in paragraphs])
        ranked: list[Any] = []

        def keep_all(infos: Sequence[Any]) -> Sequence[Any]:
            # sumy hands a callable count its sentences best rated first.
            ranked.extend(info.sentence for info in infos)
            return infos

        self._ranker()(document, keep_all)
        return [pieces[index[id(s)]] for s in ranked]

    def summarize(
        self, text: str, *, budget_tokens: int, title: str | None = None
    ) -> list[PeerSentence]:
        """Summarize ``text`` by its best rated sentences.

        Args:
            text: The node's source text.
            budget_tokens: The summary's length budget in model tokens.
            title: Unused: LexRank and TextRank read the sentences only.

        Returns:
            The kept sentences in document order.
        """
        kept: list[Piece] = []
        used = 0
        for piece in self.ranking(text):
            cost = count_tokens(piece.text)
            if used + cost > budget_tokens:
                continue
            kept.append(piece)
            used += cost
        return [_quoted(p) for p in sorted(kept, key=lambda p: p.start)]


class HistoryUnavailable(RuntimeError):
    """The v2 summarizer's source cannot be read from the repository's git history."""


@dataclass
class _V2Request:
    """What the v2 summarizer reads of a ``SummaryRequest`` as it was at :data:`V2_COMMIT`."""

    key: str
    level: str
    title: str | None
    passages: list[str]
    children: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _V2Identity:
    backend: str
    model: str
    prompt_version: str


@dataclass
class _V2Result:
    key: str
    text: str | None
    error: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    parts: int = 1


_V2_LOADED: dict[tuple[Path, str], ModuleType] = {}
_V2_LOAD_LOCK = threading.Lock()
_V2_CHOSEN = threading.local()


def _git_show(repo: Path, commit: str, path: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), "show", f"{commit}:{path}"],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        raise HistoryUnavailable(f"cannot run git to read {path} at {commit}: {exc}") from exc
    if done.returncode != 0:
        raise HistoryUnavailable(
            f"{path} at commit {commit} is not in the git history of {repo} (a shallow clone?): "
            + done.stderr.strip()
        )
    return done.stdout


def _load_v2(repo: Path, commit: str) -> ModuleType:
    """The v2 ``extractive`` module, loaded once per process from git as a private package.

    Its three files are written to a temporary folder with their ``indexer.summarizers.``
    imports pointed at the private package; ``base`` is a stand-in holding only the small
    types the old code builds (its ``SummaryRequest`` differs from today's). ``_select`` is
    wrapped to record the sentences it chose, so that each can be located in the source.
    """
    key = (repo.resolve(), commit)
    with _V2_LOAD_LOCK:
        if key in _V2_LOADED:
            return _V2_LOADED[key]
        sources = {
            name: _git_show(repo, commit, f"indexer/summarizers/{name}.py") for name in _V2_MODULES
        }
        digest = hashlib.sha1(f"{key[0]}:{commit}".encode()).hexdigest()[:10]
        package = f"_overstory_summarizer_v2_{digest}"
        base = ModuleType(f"{package}.base")
        vars(base).update(
            SummarizerIdentity=_V2Identity, SummaryRequest=_V2Request, SummaryResult=_V2Result
        )
        loaded = [package, base.__name__, *(f"{package}.{name}" for name in _V2_MODULES)]
        try:
            with tempfile.TemporaryDirectory(prefix="summarizer-v2-") as tmp:
                folder = Path(tmp) / package
                folder.mkdir()
                (folder / "__init__.py").write_text("", encoding="utf-8")
                for name, source in sources.items():
                    source = re.sub(
                        r"^(\s*(?:from|import)\s+)indexer\.summarizers\.",
                        rf"\g<1>{package}.",
                        source,
                        flags=re.M,
                    )
                    (folder / f"{name}.py").write_text(source, encoding="utf-8")
                spec = importlib.util.spec_from_file_location(
                    package, folder / "__init__.py", submodule_search_locations=[str(folder)]
                )
                assert spec is not None and spec.loader is not None
                root = importlib.util.module_from_spec(spec)
                sys.modules[package] = root
                sys.modules[base.__name__] = base
                spec.loader.exec_module(root)
                # Each file loaded from where it was written, dependencies first (the names are
                # those of the throw-away package, not of this repository's modules).
                for name in _V2_MODULES:
                    module = _load_file(f"{package}.{name}", folder / f"{name}.py")
        except BaseException:
            for name in loaded:
                sys.modules.pop(name, None)
            raise
        select: Callable[[list[tuple[str, float]], int], list[str]] = module._select

        def recording(candidates: list[tuple[str, float]], budget: int) -> list[str]:
            chosen = select(candidates, budget)
            _V2_CHOSEN.sentences = list(chosen)
            return chosen

        setattr(module, "_select", recording)  # noqa: B010
        _V2_LOADED[key] = module
        return module


def paragraph_chunks(text: str, size: int = 1000) -> list[str]:
    """``text`` cut at paragraph breaks into passages of about ``size`` characters.

    Args:
        text: A node's source text.
        size: The length a passage grows to before the next paragraph starts a new one; a
            longer paragraph stays whole.

    Returns:
        The non-empty passages, in order, stripped of surrounding whitespace.
    """
    chunks: list[str] = []
    start = last = 0
    for cut in [m.end() for m in _PARAGRAPH_BREAK.finditer(text)] + [len(text)]:
        if cut - start > size and last > start:
            chunks.append(text[start:last])
            start = last
        last = cut
    chunks.append(text[start:])
    return [c.strip() for c in chunks if c.strip()]


def _gap(fillers: str | None) -> str:
    """What may stand between two words of a v2 sentence in its source: punctuation,
    whitespace, markup the sentence lost (link targets, HTML tags) and, in a transcript, the
    fillers v2 removed."""
    options = [_LINK_TARGET, _TAG, *([f"(?i:{fillers})"] if fillers else []), r"\W"]
    # possessive: a failed match never backtracks into the gap
    return f"(?:{'|'.join(options)})++"


def locate(sentence: str, text: str, start: int = 0, fillers: str | None = None) -> tuple[int, int]:
    """Where a sentence whose markup and spacing were normalized stands in ``text``.

    Args:
        sentence: The sentence as shown (markup stripped, whitespace collapsed).
        text: The source text.
        start: The offset to search from.
        fillers: A regular expression of filler words removed from the sentence, if any.

    Returns:
        ``[start, end)`` of the first occurrence at or after ``start``: the sentence's words in
        order, with the markup and punctuation around them; ``(-1, -1)`` if there is none.
    """
    words = _TOKEN.findall(sentence)
    if not words:
        return (-1, -1)
    core = _gap(fillers).join(re.escape(w) for w in words)
    tail = rf"(?:{_LINK_TARGET}|{_TAG}|[^\w\s(\[<])*+"
    m = re.compile(rf"(?<!\w){core}(?!\w){tail}").search(text, start)
    if m is None:
        return (-1, -1)
    begin = m.start()
    while begin > start and not text[begin - 1].isspace():
        c = text[begin - 1]
        if c.isalnum() or c == "_" or c in _NOT_BEFORE:
            break
        begin -= 1
    return (begin, m.end())


class V2Peer:
    """The extractive summarizer before the sourced-sentence rework (``extractive-v2``).

    It scored sentences by TF-IDF centrality with a small bonus for opening a passage, picked
    them with maximal marginal relevance, stripped their markup and collapsed their whitespace;
    a chapter's summary opened with a ``Contents: ...`` outline of its parts. Its budget rule is
    kept as it was: when no sentence fits, the first it ranks may still be taken if it is at
    most twice the budget.
    """

    name = "v2"

    def __init__(
        self, *, repo: Path = REPO, commit: str = V2_COMMIT, chunk_chars: int = 1000
    ) -> None:
        """Make the peer; the old code is read from git on first use.

        Args:
            repo: The repository whose history holds the old summarizer.
            commit: The commit to read it from.
            chunk_chars: The passage size ``summarize`` cuts a node's text into.
        """
        self.repo = repo
        self.commit = commit
        self.chunk_chars = chunk_chars

    def load(self) -> ModuleType:
        """Read the old summarizer from git and load it (once per process).

        Returns:
            The loaded ``extractive`` module.

        Raises:
            HistoryUnavailable: If git or the commit's files cannot be had.
        """
        return _load_v2(self.repo, self.commit)

    def _run(
        self,
        passages: list[str],
        children: list[tuple[str, str]],
        level: str,
        title: str | None,
        budget_tokens: int,
    ) -> tuple[str, list[str]]:
        module = self.load()
        summarizer = module.ExtractiveSummarizer(max_tokens=budget_tokens)
        request = _V2Request(
            key="peer", level=level, title=title, passages=passages, children=children
        )
        _V2_CHOSEN.sentences = []
        result = summarizer.summarize_one(request)
        chosen: list[str] = _V2_CHOSEN.sentences
        return str(result.text), chosen

    def summarize_node(
        self,
        passages: list[str],
        children: list[tuple[str, str]],
        level: str,
        title: str | None,
        budget_tokens: int,
    ) -> str:
        """The old summarizer's text for one node, as it ran in the product's tree.

        Args:
            passages: The node's own passages, in order.
            children: ``(title, summary)`` of the node's children, in order.
            level: ``section``, ``chapter``, ``document`` or ``cluster``.
            title: The node's heading.
            budget_tokens: The summary's length budget in model tokens.

        Returns:
            The summary as v2 wrote it (a chapter's opens with its ``Contents: ...`` line).

        Raises:
            HistoryUnavailable: If the old summarizer cannot be read from git.
        """
        return self._run(passages, children, level, title, budget_tokens)[0]

    def summarize(
        self, text: str, *, budget_tokens: int, title: str | None = None
    ) -> list[PeerSentence]:
        """Summarize ``text`` as one section whose passages are its paragraphs' chunks.

        Args:
            text: The node's source text.
            budget_tokens: The summary's length budget in model tokens.
            title: The node's heading (v2 shows it when no sentence is chosen).

        Returns:
            v2's sentences in document order, each located in ``text`` word for word; a line
            that quotes nothing (an outline, the fallback title) has empty spans.

        Raises:
            HistoryUnavailable: If the old summarizer cannot be read from git.
        """
        passages = paragraph_chunks(text, self.chunk_chars)
        shown, chosen = self._run(passages, [], "section", title, budget_tokens)
        body = " ".join(chosen)
        out = [PeerSentence(line, ()) for line in shown.split("\n") if line and line != body]
        dialogue = sys.modules[f"{self.load().__package__}.dialogue"]
        fillers = dialogue._FILLERS.pattern if dialogue.is_dialogue(passages) else None
        cursor = 0
        for sentence in chosen:
            begin, end = locate(sentence, text, cursor, fillers)
            if begin < 0:
                begin, end = locate(sentence, text, 0, fillers)
            if begin < 0:
                out.append(PeerSentence(sentence, ()))
                continue
            out.append(PeerSentence(sentence, ((begin, end),)))
            cursor = end
        return out


def _load_file(name: str, path: Path) -> ModuleType:
    """The module at ``path``, registered under ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def make_peer(name: str) -> Peer:
    """The peer called ``name``.

    Args:
        name: One of :data:`PEER_NAMES`.

    Returns:
        A new peer.

    Raises:
        ValueError: For an unknown name.
    """
    if name == "lead":
        return LeadPeer()
    if name in ("lexrank", "textrank"):
        return SumyPeer(name)
    if name == "v2":
        return V2Peer()
    raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEER_NAMES)}")


def all_peers() -> list[Peer]:
    """One of each peer, in :data:`PEER_NAMES` order."""
    return [make_peer(n) for n in PEER_NAMES]
