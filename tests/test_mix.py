"""How the query is read and how passages and summaries are mixed: the shipped models, the mix's
guarantees, and the real retriever over the fixture manuals with the real embedding model."""

from __future__ import annotations

import collections
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from indexer.embedding import Embedder
from indexer.errors import InvalidRequestError
from indexer.index import Index
from indexer.store.records import NodeRecord
from retriever.candidates import Candidate
from retriever.intent import INTENTS, Intent, IntentModel, forced_intent
from retriever.intent_cues import CUE_NAMES, cue_features, named_numbers
from retriever.mix import (
    FEATURES,
    MixInput,
    MixModel,
    document_match,
    features,
    number_match,
    title_match,
)
from retriever.names import heading_parts
from retriever.retriever import Retriever
from retriever.tokenize import tokenize

ROOT = Path(__file__).resolve().parent.parent
REALDOCS = ROOT / "benchmarks" / "questions" / "realdocs"


# the shipped models ------------------------------------------------------------------------
def test_models_match_the_code() -> None:
    intent = IntentModel.load()
    assert intent.coef.shape == (len(INTENTS), len(CUE_NAMES) + 384)
    mix = MixModel.load()
    raw = json.loads((ROOT / "retriever" / "models" / "mix.json").read_text())
    # fitted on the tuning half only, and the relevance within a kind counts for every level
    assert raw["fitted_on"]["split"].startswith("tune")
    for weights in (mix.first, mix.rest):
        assert weights.shape == (len(FEATURES),)
        for name in ("passage.relevance", "section.relevance", "document.relevance"):
            assert weights[FEATURES.index(name)] > 0, name
    # the first place is guarded for specific questions at least as hard as the rest
    assert raw["first"]["passage_weight"] >= raw["rest"]["passage_weight"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Summarize this manual for me", "document"),
        ("What is this document about?", "document"),
        ("What were the main topics of the meeting?", "document"),
        ("What is the default timeout of the health check?", "passage"),
        ("which flag disables the cache? --no-cache or -n?", "passage"),
        ("How do replication and failover relate to each other?", "section"),
    ],
)
def test_clear_questions_are_read_as_expected(
    minilm: Embedder, question: str, expected: str
) -> None:
    intent = IntentModel.load().estimate(question, minilm.embed([question])[0])
    assert intent.label == expected, intent
    assert intent.score > 0.5
    assert abs(sum(intent.scores.values()) - 1.0) < 1e-6


def test_forced_intent_is_labelled_and_keeps_the_others_alive() -> None:
    intent = forced_intent("section")
    assert intent.label == "section" and intent.source == "request"
    assert 0.9 < intent.score < 1.0
    assert all(v > 0 for v in intent.scores.values())
    assert intent.reading().label == "section"


def test_cue_features_see_overviews_and_specific_tokens() -> None:
    names = list(CUE_NAMES)
    overview = dict(zip(names, cue_features("Give me an overview of chapter 4"), strict=True))
    assert overview["summarize"] == 1 and overview["part"] == 1 and overview["numbered"] == 1
    fact = dict(
        zip(names, cue_features("default value of --max-conn in /etc/x.conf?"), strict=True)
    )
    assert fact["fact"] == 1 and fact["specific_tokens"] > 0 and fact["summarize"] == 0
    assert named_numbers("what does section 3.2 cover, and chapter 4?") == ["3.2", "4"]


def test_heading_matches() -> None:
    words = set(tokenize("give me an overview of redirections"))
    assert title_match(words, "3.6 Redirections") == 1.0
    assert title_match(words, "4 Shell Builtin Commands") == 0.0
    assert number_match({"3.6"}, "3.6 Redirections") == 1.0
    assert number_match({"3.6"}, "3.7 Executing Commands") == 0.0
    # the level word and the number are not what a user repeats of a heading
    assert title_match(set(tokenize("the network setup chapter")), "Chapter 5. Network setup") == 1
    assert number_match({"5"}, "Chapter 5. Network setup") == 1.0
    assert number_match({"A"}, "Appendix A Glossary") == 1.0


@pytest.mark.parametrize(
    ("title", "number", "words"),
    [
        ("3.2 Redirections", "3.2", {"redirection"}),
        ("Chapter 5. Network setup", "5", {"network", "setup"}),
        ("Appendix A Glossary", "A", {"glossary"}),
        ("A.1 Limits", "A.1", {"limit"}),
        ("A Note on Quoting", None, {"note", "quot"}),  # an article, not appendix A
        ("I18N and L10N", None, {"i18n", "l10n"}),  # a code, not a number
    ],
)
def test_heading_parts(title: str, number: str | None, words: set[str]) -> None:
    assert heading_parts(title) == (number, frozenset(words))


def test_a_question_about_whether_this_is_the_right_manual_is_cued() -> None:
    index = CUE_NAMES.index("which_document")
    for text in ("Is this the right spec for USB-C?", "is this manual the one to read for X"):
        assert cue_features(text)[index] == 1.0, text
    for text in ("is this option the right one?", "what is the default port"):
        assert cue_features(text)[index] == 0.0, text
    # a version is not a section number
    version = dict(zip(CUE_NAMES, cue_features("upgrading from bash 3.2 to 5.2"), strict=True))
    assert version["numbered"] == 0.0 and version["dotted_number"] == 1.0


# the mix never reorders passages -------------------------------------------------------------
def _record(node_id: str, level: str, parent: str | None) -> NodeRecord:
    return NodeRecord(
        node_id=node_id,
        build_id=1,
        doc_id="d",
        parent_id=parent,
        ordinal=int(node_id[1:]),
        level=level,
        title=f"{node_id} title",
        heading_path=(),
        char_start=0,
        char_end=1,
        pages=None,
        vector_id=None,
        summary_key="k",
        n_passages=1,
        first_passage=None,
        last_passage=None,
    )


@pytest.mark.parametrize("seed", range(20))
def test_the_mix_keeps_the_order_among_passages(seed: int) -> None:
    rng = random.Random(seed)
    passages = [Candidate(_record(f"p{i}", "passage", "s1")) for i in range(12)]
    for c in passages:
        c.score = rng.gauss(0, 1)
    passages.sort(key=lambda c: -c.score)
    summaries = [
        Candidate(_record("s1", "section", "r0")),
        Candidate(_record("r0", "document", None)),
    ]
    for c in summaries:
        c.score = rng.gauss(0, 1)
    probs = np.array([rng.random() for _ in INTENTS])
    probs /= probs.sum()
    intent = Intent(label="passage", scores=dict(zip(INTENTS, probs.tolist(), strict=True)))
    data = MixInput(
        query="q",
        intent=intent,
        passages=passages,
        summaries=summaries,
        below={"s1": [c.node_id for c in passages[:3]], "r0": [c.node_id for c in passages]},
    )
    assert features(data).shape == (14, len(FEATURES))
    order = [c.node_id for c in MixModel.load().rank(data) if c.node.is_passage]
    assert order == [c.node_id for c in passages]


def _one_question(query: str, probs: list[float], root_title: str | None) -> MixInput:
    passage = Candidate(_record("p1", "passage", "s1"))
    section = Candidate(_record("s1", "section", "r0"))
    root = Candidate(replace(_record("r0", "document", None), title=root_title))
    for c, score in zip((passage, section, root), (2.0, 1.0, 0.5), strict=True):
        c.score = score
    intent = Intent(label="section", scores=dict(zip(INTENTS, probs, strict=True)))
    return MixInput(
        query=query, intent=intent, passages=[passage], summaries=[section, root], below={}
    )


def test_a_named_root_answers_a_question_about_a_chapter() -> None:
    """A manual shipped one chapter per page: the root is what "the chapter" names."""
    probs = [0.05, 0.9, 0.05]
    named = features(_one_question("the network setup chapter", probs, "Chapter 5. Network setup"))
    other = features(_one_question("the network setup chapter", probs, "Chapter 4. Printing"))
    log_intent = FEATURES.index("document.log_intent")
    assert named[2, log_intent] == pytest.approx(np.log(0.95))
    assert other[2, log_intent] == pytest.approx(np.log(0.05))
    assert named[2, FEATURES.index("document.title_named")] == pytest.approx(0.95)
    assert other[2, FEATURES.index("document.title_named")] == 0.0


def _appendix(doc_id: str, title: str) -> Candidate:
    c = Candidate(
        replace(_record("s1", "section", "r0"), doc_id=doc_id, title="Appendix A Copying")
    )
    c.score = 1.0
    return c


def test_a_part_of_the_manual_the_question_names_ranks_above_the_same_part_of_another() -> None:
    query = "what is in appendix A of the libtasn1 manual?"
    ours, theirs = _appendix("libtasn1/libtasn1.pdf", "x"), _appendix("bash/bashref.html", "x")
    theirs.node = replace(theirs.node, node_id="s2")
    data = MixInput(
        query=query,
        intent=Intent(label="section", scores={"passage": 0.1, "section": 0.8, "document": 0.1}),
        passages=[],
        summaries=[theirs, ours],
        below={},
        titles={"bash/bashref.html": "Bash Reference Manual", "libtasn1/libtasn1.pdf": "Libtasn1"},
    )
    named = features(data)[:, FEATURES.index("section.document_named")]
    # "manual" is one of the three words of "Bash Reference Manual"
    assert named.tolist() == [pytest.approx(1 / 3), 1.0]
    assert [c.doc_id for c in (c.node for c in MixModel.load().rank(data))] == [
        "libtasn1/libtasn1.pdf",
        "bash/bashref.html",
    ]
    # named by its title ("the Bash Reference Manual"), or by its file where it has no title
    assert (
        document_match(
            set(tokenize("appendix A of the bash reference manual")),
            "b.html",
            "Bash Reference Manual",
        )
        == 1.0
    )
    assert document_match(set(tokenize("the bzip2 manual")), "bzip2/manual.pdf.gz", None) == 1.0
    assert document_match(set(tokenize("the bzip2 manual")), "bash/bashref.html", "Bash") == 0.0


def test_the_first_place_and_the_rest_are_ranked_by_their_own_weights() -> None:
    data = _one_question("q", [0.3, 0.4, 0.3], None)
    relevance = np.zeros(len(FEATURES))
    relevance[FEATURES.index("passage.relevance")] = 1.0
    relevance[FEATURES.index("section.relevance")] = 1.0
    summaries_first = relevance.copy()
    summaries_first[FEATURES.index("section.bias")] = 10.0
    summaries_first[FEATURES.index("document.bias")] = 5.0
    ranked = MixModel(first=relevance, rest=summaries_first).rank(data)
    assert [c.node_id for c in ranked] == ["p1", "s1", "r0"]
    scores = [c.score for c in ranked]
    assert scores == sorted(scores, reverse=True)
    ranked = MixModel(first=summaries_first, rest=relevance).rank(
        _one_question("q", [0.3] * 3, None)
    )
    assert [c.node_id for c in ranked] == ["s1", "p1", "r0"]


@pytest.mark.parametrize(
    ("p_passage", "passages_first"), [(0.95, 5), (0.8, 4), (0.65, 4), (0.55, 0), (0.1, 0)]
)
def test_a_summary_enters_the_top_five_as_far_as_the_reading_is_global(
    p_passage: float, passages_first: int
) -> None:
    """Weights that put every summary first: the best passages keep the first places while
    the question is not read as global, in the passages-only order."""
    passages = [Candidate(_record(f"p{i}", "passage", "s1")) for i in range(1, 8)]
    for i, c in enumerate(passages):
        c.score = 2.0 - i * 0.1
    summaries = [
        Candidate(_record("s1", "section", "r0")),
        Candidate(_record("r0", "document", None)),
    ]
    for c in summaries:
        c.score = 0.1
    rest = (1.0 - p_passage) / 2
    intent = Intent(
        label="passage", scores={"passage": p_passage, "section": rest, "document": rest}
    )
    data = MixInput(query="q", intent=intent, passages=passages, summaries=summaries, below={})
    weights = np.zeros(len(FEATURES))
    weights[FEATURES.index("passage.relevance")] = 1.0
    weights[FEATURES.index("section.bias")] = 10.0
    weights[FEATURES.index("document.bias")] = 9.0
    ranked = MixModel(first=weights, rest=weights).rank(data)
    ids = [c.node_id for c in ranked]
    assert ids[:passages_first] == [f"p{i}" for i in range(1, passages_first + 1)]
    assert ids[passages_first : passages_first + 2] == ["s1", "r0"]
    assert [c.node_id for c in ranked if c.node.is_passage] == [c.node_id for c in passages]
    scores = [c.score for c in ranked]
    assert scores == sorted(scores, reverse=True)


# the real retriever on the fixture manuals -----------------------------------------------------
@pytest.fixture(scope="module")
def retriever(fixtures_index: Index, minilm: Embedder) -> Retriever:
    return Retriever(fixtures_index, embedder=minilm)


def ask(retriever: Retriever, query: str, **options: Any) -> dict[str, Any]:
    return retriever.query(retriever.request(query, **options)).to_json()


def test_the_response_says_how_the_query_was_read(retriever: Retriever) -> None:
    out = ask(retriever, "torque for the impeller nut", k=5)
    assert out["intent"]["label"] == "passage" and out["intent"]["source"] == "estimated"
    assert set(out["intent"]["scores"]) == set(INTENTS)
    assert out["results"][0]["kind"] == "passage"


def test_a_whole_document_question_gets_the_root_first(retriever: Retriever) -> None:
    out = ask(retriever, "Summarize this manual", k=5, documents=["pump-x200.md"])
    assert out["intent"]["label"] == "document"
    top = out["results"][0]
    assert top["kind"] == "summary" and top["level"] == "document"
    assert top["doc_id"] == "pump-x200.md"


@pytest.mark.parametrize(
    ("question", "document", "heading"),
    [
        ("What does the troubleshooting chapter cover?", "pump-x200.md", "6 Troubleshooting"),
        ("Summarize chapter 6", "pump-x200.md", "6 Troubleshooting"),
        ("What's in section 5.3?", "pump-x200.md", "5.3 Mechanical seal"),
        ("summarize the NAT section", "netgate-ng40.html", "5.4 NAT"),
        ("What does the spindle chapter of the M-500 manual cover?", None, "5 Spindle"),
    ],
)
def test_a_named_chapter_or_section_gets_its_summary(
    retriever: Retriever, question: str, document: str | None, heading: str
) -> None:
    out = ask(retriever, question, k=5, documents=[document] if document else None)
    top = [(r["kind"], r["heading_path"][-1]) for r in out["results"][:3]]
    assert ("summary", heading) in top, top


def test_the_mix_reads_each_summarys_document_title(retriever: Retriever) -> None:
    question = "What does the troubleshooting chapter of the NG-40 gateway manual cover?"
    request = retriever.request(question, k=5)
    snapshot = retriever.snapshots.take()
    vector = retriever.embedder.embed([question])[0]
    prepared = retriever.prepare(request, vector, snapshot)
    data = prepared.mix_input(retriever.read_intent(request, vector))
    assert data.titles["netgate-ng40.html"].startswith("NG-40 Network Security Gateway")
    rows = features(data)
    named = {
        (c.node.doc_id, c.node.title): rows[i, FEATURES.index("section.document_named")]
        for i, c in enumerate(data.candidates)
        if not c.node.is_passage and c.node.parent_id is not None
    }
    # "ng-40", "ng", "40", "gateway" and "manual": five of the title's eight words
    assert named[("netgate-ng40.html", "8 Troubleshooting")] == pytest.approx(5 / 8)
    assert all(v < 5 / 8 for (doc, _), v in named.items() if doc != "netgate-ng40.html")
    top = [(r["doc_id"], r["heading_path"][-1]) for r in ask(retriever, question)["results"][:3]]
    assert ("netgate-ng40.html", "8 Troubleshooting") in top


def test_the_intent_can_be_forced(retriever: Retriever) -> None:
    question = "mechanical seal"
    forced = ask(retriever, question, k=5, documents=["pump-x200.md"], intent="document")
    assert forced["intent"] == {**forced["intent"], "label": "document", "source": "request"}
    assert forced["results"][0]["level"] == "document"
    passage = ask(retriever, question, k=5, documents=["pump-x200.md"], intent="passage")
    assert passage["results"][0]["kind"] == "passage"
    with pytest.raises(InvalidRequestError, match="intent"):
        retriever.request(question, intent="chapter")


def test_passages_only_ranks_passages_as_the_mix_does(retriever: Retriever) -> None:
    for question in ("replace the mechanical seal", "E-17", "spindle warm-up program"):
        mixed = [
            r["node_id"]
            for r in ask(retriever, question, k=20)["results"]
            if r["kind"] == "passage"
        ]
        alone = [r["node_id"] for r in ask(retriever, question, k=20, kinds=["passage"])["results"]]
        assert mixed == alone[: len(mixed)], question


# the question sets over real manuals ----------------------------------------------------------
def test_the_real_manual_questions_are_split_once() -> None:
    lines = [json.loads(line) for f in sorted(REALDOCS.glob("*.jsonl")) for line in f.open()]
    assert len(lines) >= 300
    assert len({q["id"] for q in lines}) == len(lines)
    assert len({q["gold"]["source"] for q in lines}) >= 3
    by = collections.Counter((q["intent"], q["split"]) for q in lines)
    for intent in INTENTS:
        total = by[(intent, "tune")] + by[(intent, "heldout")]
        assert total >= len(lines) / 3 - 20, (intent, by)
        assert abs(by[(intent, "tune")] - by[(intent, "heldout")]) <= 5, (intent, by)
    for q in lines:
        assert q["kind"] == ("specific" if q["intent"] == "passage" else "global")
        assert q["split"] in ("tune", "heldout")
        if q["intent"] == "passage":
            assert len(q["gold"]["evidence"]) >= 12
