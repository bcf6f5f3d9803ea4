"""Fit the intent model and the mix weights on the questions' tuning half (``make train-mix``).

Training questions: the tuning half of ``benchmarks/questions/realdocs/*.jsonl`` (questions
written over real manuals from Debian packages, ``split: "tune"``) and the fixture questions.
The held-out half is never read here. The intent model also learns from
``benchmarks/questions/intent_phrasings.jsonl``: 300 questions labelled with their intent only,
written apart from any corpus over six kinds of documents (manuals, API pages, specifications,
meetings, support calls, handbooks), so that it reads phrasings our manuals never prompted.

1. Intent: multinomial logistic regression over the cue features and the query embedding
   (:mod:`retriever.intent`).
2. Mix: the weights of :data:`retriever.mix.FEATURES`, fitted by a listwise softmax over each
   question's candidates (the probability of the gold candidates), with the intent
   probabilities taken out of fold (each question's intent from a model fitted without its
   questions file), so the mix learns how far to trust an estimate it did not see fitted.
   Two sets of weights are fitted, one for the first place and one for the others
   (:class:`retriever.mix.MixModel`); in each, a specific question counts ``passage_weight``
   times in the loss, so that losing its passage's first place costs more than a summary one
   place lower. Every pair of :data:`PASSAGE_WEIGHTS` (the rest's no larger than the first's)
   is cross-validated; among the pairs whose specific hit@1 stays within one point of the
   passages-only ranking, the best global hit@5 wins.

Cross-validation is by questions file (one corpus at a time held out), so the figures say how
the models do on documents they were not fitted on. Writes ``retriever/models/intent.json`` and
``retriever/models/mix.json`` with the figures.
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.common import ROOT
from benchmarks.corpora import QUESTIONS, fixtures_folder, indexed_store, realdocs_folder

MODELS = ROOT / "retriever" / "models"
NAMED_PER_DOCUMENT = 3
NAMED_WEIGHT = 0.25  # made-up questions teach what naming a part is worth, not the rest
NAMED_TEMPLATES = (
    "What does section {number} cover?",
    "summarize chapter {number}",
    "Give me an overview of the {title} section",
    "what is the {title} chapter about",
)
INTENT_C = 3.0
MIX_L2 = 0.01
PASSAGE_WEIGHTS = (1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
HIT1_TOLERANCE = 0.01


@dataclass
class Sample:
    """One training question with what the retriever gathered for it."""

    qid: str
    group: str
    intent: str
    cues: np.ndarray
    prepared: Any  # retriever.retriever.Prepared
    gold: set[str]
    passages_only_rank: int | None


def load_questions(path: Path, *, split: str | None) -> list[Any]:
    """Questions of one file (only the given split when ``split`` is set)."""
    from retriever.evaluation import load_questions as parse

    return [q for q in parse(path) if split is None or q.split == split]


def samples(store: Path, questions: Sequence[Any], group_of: dict[str, str]) -> list[Sample]:
    """Gather each question's candidates through the real retriever code path."""
    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import Evaluation
    from retriever.intent_cues import cue_features
    from retriever.retriever import Retriever

    retriever = Retriever(Index(Settings(store=store)))
    evaluation = Evaluation(retriever)
    snapshot = retriever.snapshots.take()
    vectors = retriever.embedder.embed([q.question for q in questions])
    out = []
    for q, vector in zip(questions, vectors, strict=True):
        gold = evaluation.gold_ids(q, snapshot)
        if not gold:
            print(f"warning: gold of {q.id} is not in the index", file=sys.stderr)
            continue
        request = retriever.request(q.question, k=10, documents=q.documents)
        prepared = retriever.prepare(request, vector, snapshot)
        ranked = sorted(prepared.passages, key=lambda c: -c.score)
        rank = next((i for i, c in enumerate(ranked, 1) if c.node_id in gold), None)
        cues = np.concatenate([cue_features(q.question), vector])
        intent = evaluation.intent_of(q, evaluation.gold_node(q, snapshot))
        out.append(Sample(q.id, group_of[q.id], intent, cues, prepared, gold, rank))
    return out


PHRASINGS = ROOT / "benchmarks" / "questions" / "intent_phrasings.jsonl"


@dataclass(frozen=True)
class Phrasings:
    """Questions labelled with their intent only (no corpus, no gold)."""

    cues: np.ndarray
    labels: np.ndarray

    @staticmethod
    def load() -> Phrasings:
        """Read and embed :data:`PHRASINGS`."""
        from indexer.embedding.minilm import MiniLMEmbedder
        from retriever.intent import INTENTS
        from retriever.intent_cues import cue_features

        rows = [json.loads(line) for line in PHRASINGS.open(encoding="utf-8") if line.strip()]
        vectors = MiniLMEmbedder().embed([r["question"] for r in rows])
        cues = np.stack(
            [
                np.concatenate([cue_features(r["question"]), v])
                for r, v in zip(rows, vectors, strict=True)
            ]
        )
        return Phrasings(cues, np.array([INTENTS.index(r["intent"]) for r in rows]))


def named_part_samples(store: Path, group: str) -> list[Any]:
    """Questions that name a chapter or section by its number or heading, made from the
    headings of the indexed documents (gold: that node). The labelled questions rarely do, so
    without these the mix could not learn what naming a part is worth."""
    import random

    from indexer.index import Index
    from indexer.settings import Settings
    from retriever.evaluation import Question

    catalog = Index(Settings(store=store)).catalog
    rng = random.Random(7)
    out = []
    for doc in sorted(catalog.served_documents(), key=lambda d: d.doc_id):
        inner = catalog.nodes.records_of_build(doc.build_id, inner=True)
        parts = [n for n in inner if n.level in ("chapter", "section") and n.title]
        for node in rng.sample(parts, min(NAMED_PER_DOCUMENT, len(parts))):
            number, _, title = (
                node.title.partition(" ") if node.title[0].isdigit() else ("", "", node.title)
            )
            template = rng.choice(NAMED_TEMPLATES[:2] if number else NAMED_TEMPLATES[2:])
            text = template.format(number=number.rstrip("."), title=title.strip())
            out.append(
                Question(
                    id=f"named-{group}-{node.node_id}",
                    question=text,
                    kind="global",
                    source=doc.doc_id,
                    heading_path=node.heading_path,
                    evidence="",
                    intent="section",
                    documents=[doc.doc_id] if rng.random() < 0.5 else None,
                )
            )
    return out


def fit_intent(samples_: Sequence[Sample], extra: Phrasings) -> Any:
    """The intent logistic regression over the given samples and the phrasings."""
    from sklearn.linear_model import LogisticRegression

    from retriever.intent import INTENTS

    x = np.concatenate([np.stack([s.cues for s in samples_]), extra.cues])
    y = np.concatenate([[INTENTS.index(s.intent) for s in samples_], extra.labels])
    return LogisticRegression(C=INTENT_C, max_iter=5000).fit(x, y)


def out_of_fold_intents(samples_: Sequence[Sample], extra: Phrasings) -> np.ndarray:
    """Each sample's intent probabilities from a model fitted without its group."""
    probs = np.zeros((len(samples_), 3))
    groups = np.array([s.group for s in samples_])
    for group in sorted(set(groups)):
        train = [s for s, g in zip(samples_, groups, strict=True) if g != group]
        model = fit_intent(train, extra)
        test = np.flatnonzero(groups == group)
        probs[test] = model.predict_proba(np.stack([samples_[int(i)].cues for i in test]))
    return probs


def mix_rows(samples_: Sequence[Sample], probs: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per sample: the mix feature matrix and the gold mask of its candidates."""
    from retriever.intent import INTENTS, Intent
    from retriever.mix import features

    out = []
    for s, p in zip(samples_, probs, strict=True):
        intent = Intent(label=INTENTS[int(np.argmax(p))], scores=dict(zip(INTENTS, p, strict=True)))
        data = s.prepared.mix_input(intent)
        mask = np.array([c.node_id in s.gold for c in data.candidates])
        out.append((features(data), mask))
    return out


def fit_mix(rows: Sequence[tuple[np.ndarray, np.ndarray]], weights: Sequence[float]) -> np.ndarray:
    """Listwise softmax: maximize the probability of each question's gold candidates."""
    from scipy.optimize import minimize

    from retriever.mix import FEATURES

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        total, grad = 0.0, np.zeros_like(w)
        for (x, gold), weight in zip(rows, weights, strict=True):
            if not gold.any():
                continue
            s = x @ w
            p_all = np.exp(s - s.max())
            p_all /= p_all.sum()
            p_gold = np.where(gold, p_all, 0.0)
            p_gold /= p_gold.sum()
            shifted = np.exp(s - s.max())
            total += weight * (np.log(shifted.sum()) - np.log(shifted[gold].sum()))
            grad += weight * (x.T @ (p_all - p_gold))
        n = len(rows)
        return total / n + MIX_L2 * float(w @ w), grad / n + 2 * MIX_L2 * w

    start = np.zeros(len(FEATURES))
    for name in ("passage.relevance", "section.relevance", "document.relevance"):
        start[FEATURES.index(name)] = 1.0
    result = minimize(loss, start, jac=True, method="L-BFGS-B")
    return np.asarray(result.x)


def loss_weight(sample: Sample, passage_weight: float) -> float:
    """How much one question counts in the mix's loss."""
    if sample.group == "named-parts":
        return NAMED_WEIGHT
    return passage_weight if sample.intent == "passage" else 1.0


def ranks(
    rows: Sequence[tuple[np.ndarray, np.ndarray]], first: np.ndarray, rest: np.ndarray
) -> list[int | None]:
    """The rank of the first gold candidate of each question, as :meth:`MixModel.rank` orders:
    the first place by ``first``, the others by ``rest``."""
    out: list[int | None] = []
    for x, gold in rows:
        scores = x @ rest
        scores[int(np.argmax(x @ first))] = np.inf
        order = np.argsort(-scores, kind="stable")
        out.append(next((i for i, j in enumerate(order, 1) if gold[j]), None))
    return out


def hit(values: Sequence[int | None], k: int) -> float:
    """Share of ranks at most ``k``."""
    return float(np.mean([r is not None and r <= k for r in values])) if values else 0.0


def fold_weights(
    samples_: Sequence[Sample], rows: Sequence[tuple[np.ndarray, np.ndarray]]
) -> dict[tuple[str, float], np.ndarray]:
    """Mix weights fitted without each group, for every passage weight."""
    groups = [s.group for s in samples_]
    out = {}
    for group in sorted(set(groups) - {"named-parts"}):
        train = [i for i, g in enumerate(groups) if g != group]
        for weight in PASSAGE_WEIGHTS:
            out[group, weight] = fit_mix(
                [rows[i] for i in train], [loss_weight(samples_[i], weight) for i in train]
            )
    return out


def cross_validate(
    samples_: Sequence[Sample],
    rows: Sequence[tuple[np.ndarray, np.ndarray]],
    folds: dict[tuple[str, float], np.ndarray],
    weights: tuple[float, float],
) -> dict[str, float]:
    """Mix figures per intent, each group ranked by the weights fitted without it, the first
    place fitted with ``weights[0]``, the rest with ``weights[1]``."""
    groups = [s.group for s in samples_]
    by_intent: dict[str, list[int | None]] = defaultdict(list)
    # Made-up questions (named parts) are always trained on and never scored.
    for group in sorted(set(groups) - {"named-parts"}):
        test = [i for i, g in enumerate(groups) if g == group]
        fitted = ranks([rows[i] for i in test], folds[group, weights[0]], folds[group, weights[1]])
        for i, r in zip(test, fitted, strict=True):
            by_intent[samples_[i].intent].append(r)
    passages_only = [
        s.passages_only_rank for s in samples_ if s.intent == "passage" and s.group != "named-parts"
    ]
    return {
        "passage_weight_first": weights[0],
        "passage_weight_rest": weights[1],
        "specific_hit@1": round(hit(by_intent["passage"], 1), 4),
        "specific_hit@1_passages_only": round(hit(passages_only, 1), 4),
        "section_hit@5": round(hit(by_intent["section"], 5), 4),
        "document_hit@3": round(hit(by_intent["document"], 3), 4),
        "global_hit@5": round(hit(by_intent["section"] + by_intent["document"], 5), 4),
    }


def choose(trials: Sequence[dict[str, float]]) -> dict[str, float]:
    """The trial with the best global hit@5 among those keeping specific hit@1 within
    :data:`HIT1_TOLERANCE` of passages-only (then the better document hit@3, the better
    specific hit@1, the smaller weights)."""
    keeping = [
        t
        for t in trials
        if t["specific_hit@1"] >= t["specific_hit@1_passages_only"] - HIT1_TOLERANCE
    ]
    return max(
        keeping or [max(trials, key=lambda t: t["specific_hit@1"])],
        key=lambda t: (
            t["global_hit@5"],
            t["document_hit@3"],
            t["specific_hit@1"],
            -t["passage_weight_first"],
            -t["passage_weight_rest"],
        ),
    )


def main() -> dict[str, Any]:
    """Fit both models, write them, and return the cross-validated figures."""
    from retriever.intent import INTENTS
    from retriever.intent_cues import CUE_NAMES
    from retriever.mix import FEATURES, PLACES

    group_of: dict[str, str] = {}
    real = []
    for path in sorted(QUESTIONS.glob("*.jsonl")):
        for q in load_questions(path, split="tune"):
            group_of[q.id] = path.stem
            real.append(q)
    fixture_questions = load_questions(ROOT / "fixtures" / "questions.jsonl", split=None)
    for q in fixture_questions:
        group_of[q.id] = "fixtures"
    real_store = indexed_store("realdocs", realdocs_folder())
    fixture_store = indexed_store("fixtures", fixtures_folder())
    named = named_part_samples(real_store, "realdocs")
    named_fixtures = named_part_samples(fixture_store, "fixtures")
    for q in named + named_fixtures:
        group_of[q.id] = "named-parts"
    data = samples(real_store, real + named, group_of)
    data += samples(fixture_store, fixture_questions + named_fixtures, group_of)
    phrasings = Phrasings.load()
    probs = out_of_fold_intents(data, phrasings)
    labels = np.array([INTENTS.index(s.intent) for s in data])
    scored = np.array([s.group != "named-parts" for s in data])
    intent_cv = float(np.mean(probs.argmax(1)[scored] == labels[scored]))
    rows = mix_rows(data, probs)
    folds = fold_weights(data, rows)
    trials = [
        cross_validate(data, rows, folds, (first, rest))
        for first in PASSAGE_WEIGHTS
        for rest in PASSAGE_WEIGHTS
        if rest <= first
    ]
    chosen = choose(trials)
    places = {
        "first": chosen["passage_weight_first"],
        "rest": chosen["passage_weight_rest"],
    }
    fitted = {
        place: fit_mix(rows, [loss_weight(s, weight) for s in data])
        for place, weight in places.items()
    }
    intent_model = fit_intent(data, phrasings)
    counts = {i: int(np.sum(labels == n)) for n, i in enumerate(INTENTS)}
    fitted_on = {
        "questions": len(data),
        "by_intent": counts,
        "intent_phrasings": len(phrasings.labels),
        "groups": sorted(set(group_of.values())),
        "split": "tune (realdocs) + all fixture questions",
    }
    MODELS.mkdir(exist_ok=True)
    (MODELS / "intent.json").write_text(
        json.dumps(
            {
                "intents": list(INTENTS),
                "cue_names": list(CUE_NAMES),
                "coef": np.round(intent_model.coef_, 6).tolist(),
                "intercept": np.round(intent_model.intercept_, 6).tolist(),
                "C": INTENT_C,
                "fitted_on": fitted_on,
                "cross_validated_accuracy": round(intent_cv, 4),
            },
            indent=1,
        )
        + "\n"
    )
    (MODELS / "mix.json").write_text(
        json.dumps(
            {
                "features": list(FEATURES),
                **{
                    place: {
                        "passage_weight": places[place],
                        "weights": np.round(fitted[place], 6).tolist(),
                    }
                    for place in PLACES
                },
                "l2": MIX_L2,
                "fitted_on": fitted_on,
                "cross_validated": chosen,
                "trials": trials,
            },
            indent=1,
        )
        + "\n"
    )
    return {"intent_cv_accuracy": intent_cv, "chosen": chosen, "trials": trials, **fitted_on}


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
