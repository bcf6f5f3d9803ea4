"""A support chatbot over Overstory: retrieve with the LangChain retriever, answer with any
OpenAI-compatible model, quote passages with their pages and mark what came from a summary.

Runs offline against a local OpenAI-compatible server (Ollama, vLLM, llama.cpp's server):

    python examples/support_chatbot.py "What working length do I set for the seal?" \\
        --store .overstory --llm-base-url http://127.0.0.1:11434/v1 --model qwen2.5:3b

or against the HTTP API: ``--url http://127.0.0.1:8000 --api-key "$OVERSTORY_API_KEY"``.
The answer is followed by its sources: every quote with its document, section and pages, and
every summary marked as a summary (of which section and pages), never as a quote.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from langchain_core.documents import Document
from openai import OpenAI

from overstory.integrations import HttpSource, LocalSource
from overstory.integrations.langchain import OverstoryRetriever
from overstory.integrations.results import citation

SYSTEM = """You are a support assistant for technical manuals. Answer only from the numbered
sources. A source marked QUOTE is the manual's own text: quote it word for word in quotation
marks and cite it as [n] with its pages. A source marked SUMMARY is a summary written for the
index, not the manual's words: never put it in quotation marks, and say "according to the
summary of …" when you use it. If the sources do not answer the question, say so."""


def sources_block(docs: list[Document]) -> str:
    """The numbered sources as the model sees them."""
    parts = []
    for n, doc in enumerate(docs, start=1):
        mark = "QUOTE" if doc.metadata["kind"] == "passage" else "SUMMARY"
        parts.append(f"[{n}] {mark} | {citation(doc.metadata)}\n{doc.page_content}")
    return "\n\n".join(parts)


def source_lines(docs: list[Document]) -> list[str]:
    """The sources as printed under the answer: quotes quoted, summaries marked."""
    lines = []
    for n, doc in enumerate(docs, start=1):
        if doc.metadata["kind"] == "passage":
            text = " ".join(doc.page_content.split())
            lines.append(f'[{n}] {citation(doc.metadata)}: "{text}"')
        else:
            lines.append(f"[{n}] from a summary (not a quote): {citation(doc.metadata)}")
    return lines


def answer(question: str, retriever: OverstoryRetriever, llm: OpenAI, model: str) -> dict[str, Any]:
    """Retrieve, ask the model, and return the answer with its labelled sources."""
    docs = retriever.invoke(question)
    reply = llm.chat.completions.create(
        model=model,
        messages=[
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": f"Sources:\n\n{sources_block(docs)}\n\n{question}"},
        ],
        temperature=0,
    )
    return {
        "question": question,
        "answer": (reply.choices[0].message.content or "").strip(),
        "sources": [{"n": n, **d.metadata, "text": d.page_content} for n, d in enumerate(docs, 1)],
        "source_lines": source_lines(docs),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("question")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--store", help="An Overstory store to open in this process.")
    where.add_argument("--url", help="The Overstory HTTP API (with --api-key).")
    parser.add_argument("--api-key", default=os.environ.get("OVERSTORY_API_KEY"))
    parser.add_argument("--llm-base-url", default=os.environ.get("OPENAI_BASE_URL"))
    parser.add_argument("--llm-api-key", default=os.environ.get("OPENAI_API_KEY", "none"))
    parser.add_argument("--model", required=True, help="The chat model's name on that server.")
    parser.add_argument("-k", type=int, default=5, help="Sources to retrieve.")
    parser.add_argument("--json", action="store_true", help="Print one JSON document.")
    args = parser.parse_args(argv)
    source = (
        HttpSource(args.url, api_key=args.api_key) if args.url else LocalSource.open(args.store)
    )
    retriever = OverstoryRetriever(source=source, k=args.k)
    llm = OpenAI(base_url=args.llm_base_url, api_key=args.llm_api_key, max_retries=2)
    result = answer(args.question, retriever, llm, args.model)
    if args.json:
        print(json.dumps(result, ensure_ascii=False, indent=2))
    else:
        print(result["answer"], "", "Sources:", *result["source_lines"], sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
