"""What a summary covers: each entry of a reference is quoted before any is quoted twice, a
notice every part opens with names no part, a heading naming back matter is back matter only
where back matter lies, and a licence says what it is in its own words."""

from __future__ import annotations

from indexer.sourced import SourcedSentence
from indexer.summarizers.base import ChildSummary, SummaryRequest
from indexer.summarizers.cues import leans_back
from indexer.summarizers.extractive import ExtractiveSummarizer


def _summary(title: str, text: str) -> list[str]:
    request = SummaryRequest("k", "section", title, [title], [text], passage_starts=[0])
    return [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]


def test_a_sentence_pointing_at_what_the_reader_has_seen_leans_back() -> None:
    assert leans_back("As you can see, the fields are delimited by space characters.")
    assert leans_back("As we have seen in section 15, the header info comes from the marks.")


def test_each_entry_is_quoted_before_any_entry_is_quoted_twice() -> None:
    text = "Two builtin commands manipulate the history list.\n\n" + "".join(
        f"{term}\n\n{text}\n\n"
        for term, text in [
            ("fc", "Selects a range of commands and edits or re-executes them."),
            ("history", "Displays the history list with line numbers."),
            ("-c", "Clears the history list."),
            ("-d offset", "Deletes the history entry at position offset in the history list."),
            ("-w", "Writes the history list out to the history file."),
            ("-r", "Reads the history file and appends its contents to the history list."),
        ]
    )
    request = SummaryRequest("k", "section", "History", ["History"], [text], passage_starts=[0])
    result = ExtractiveSummarizer(max_tokens=40).summarize_one(request)
    summary = [s.text for s in result.sentences]
    # Ranked by how central each unit is, the options of history filled the budget first.
    assert "fc: Selects a range of commands and edits or re-executes them." in summary, summary
    assert sum(s.startswith("history") for s in summary) == 1, summary


def test_a_notice_every_part_opens_with_names_no_part() -> None:
    notice = SourcedSentence("This old guide is superseded by the new guide.", ((10, 56),), "lead")
    children = []
    for i, (title, own) in enumerate(
        [
            ("First steps", "Check whether the package is already packaged."),
            ("Building", "Rebuild the package in a clean chroot."),
            ("Uploading", "Sign the changes file before the upload."),
        ]
    ):
        start = 100 * (i + 1)
        lead = SourcedSentence(notice.text, ((start, start + 46),), "lead")
        statement = SourcedSentence(own, ((start + 50, start + 50 + len(own)),), "statement")
        children.append(
            ChildSummary(title, f"{lead.text} {own}", [lead, statement], heading=(start - 9, start))
        )
    request = SummaryRequest("k", "document", "Guide", ["Guide"], [])
    request.children = children
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]
    assert not any(notice.text in s for s in sentences), sentences
    assert "First steps: Check whether the package is already packaged." in sentences


def test_a_licence_calls_itself_this_license_and_says_what_it_is() -> None:
    assert not leans_back("The purpose of this License is to make a manual free.")
    assert not leans_back("This License is a kind of copyleft.")
    assert leans_back("This license permits reuse.")  # a licence named before, in prose
    purpose = SourcedSentence(
        "The GNU General Public License is a free, copyleft license for software.",
        ((40, 113),),
        "lead",
    )
    request = SummaryRequest("k", "chapter", "GNU General Public License", ["GPL"], [])
    request.children = [
        ChildSummary("Preamble", purpose.text, [purpose], heading=(30, 38)),
        ChildSummary("Terms and Conditions", "", [], heading=(200, 220)),
    ]
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]
    assert sentences[0].endswith("a licence text, not summarized."), sentences
    # What it is, as its preamble states it, and no clause of its terms.
    assert purpose.text in sentences, sentences


def test_a_licence_text_is_named_with_its_version_and_its_stated_purpose() -> None:
    text = (
        "B.1 License for copying this manual\n\nVersion 1.3, 3 November 2008\n\n"
        "```\nCopyright © 2000, 2008 Free Software Foundation, Inc.\n\n"
        "Everyone is permitted to copy and distribute verbatim copies\n"
        "of this license document, but changing it is not allowed.\n```\n\n"
        "0. PREAMBLE\n\n"
        "The purpose of this License is to make a manual, textbook, or other functional and"
        " useful document free in the sense of freedom. Secondarily, this License preserves"
        " for the author a way to get credit for their work.\n\n"
        "1. APPLICABILITY AND DEFINITIONS\n\n"
        "This License applies to any manual that contains a notice placed by the copyright"
        " holder saying it can be distributed under the terms of this License.\n\n"
        "A. Use in the Title Page a title distinct from that of the Document.\n\n"
        "8. Include an unaltered copy of this License.\n\n"
        "2. VERBATIM COPYING\n\nYou may copy and distribute the Document in any medium.\n"
    )
    title = "GNU Free Documentation License"
    request = SummaryRequest(
        "k", "section", title, ["Manual", "Appendix B Copying", title], [text],
        passage_starts=[0],
    )  # fmt: skip
    result = ExtractiveSummarizer().summarize_one(request)
    sentences = [s.text for s in result.sentences]
    assert sentences[0] == (
        "GNU Free Documentation License, Version 1.3, 3 November 2008: a licence text,"
        " not summarized."
    ), sentences
    assert sentences[1].startswith("The purpose of this License is to make a manual"), sentences
    # Its clauses by title, in order (an item numbered inside a clause is none of them), and
    # no clause quoted, no copying notice.
    assert sentences[2:] == [
        "It covers PREAMBLE, APPLICABILITY AND DEFINITIONS and VERBATIM COPYING."
    ], sentences
    # The version and the purpose rest on the lines that state them.
    version = result.sentences[0].spans[-1]
    assert text[version[0] : version[1]] == "Version 1.3, 3 November 2008"
    (purpose,) = result.sentences[1].spans
    assert text[purpose[0] : purpose[1]].startswith("The purpose of this License")
    # A licence opening with a clause too long to read as one statement is named only.
    grant = "Permission is hereby granted, free of charge, to any person obtaining a copy" + (
        ", and to deal in the Software without restriction" * 8
    )
    request.passages = [f"MIT License\n\nCopyright (c) 2020 Someone\n\n{grant}.\n"]
    request.title = request.heading_path[-1] = "MIT License"
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]
    assert sentences == ["MIT License: a licence text, not summarized."], sentences


def test_a_heading_naming_back_matter_deep_in_the_body_is_a_topic() -> None:
    text = (
        "References without an author are cited by their key. The year is replaced by the"
        " letter n when it is missing.\n"
    )
    title = "2.7 Authorless and Yearless References"
    request = SummaryRequest(
        "k", "section", title, ["Citations", "2 Using this Package", title], [text],
        passage_starts=[0],
    )  # fmt: skip
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]
    assert sentences[0].startswith("References without an author are cited"), sentences
    # In an appendix, or as a part of the document itself, it is back matter: named only.
    for path in (["Manual", "Appendix B Indexes", title], ["Manual", title]):
        request.heading_path = path
        sentences = [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]
        assert sentences[0].endswith("a list of references, not summarized."), sentences


def test_a_part_named_by_what_it_covers_cites_every_heading_it_names() -> None:
    a, b, c = (10, 20), (300, 312), (400, 415)
    child = ChildSummary(
        "Examples",
        "",
        [
            SourcedSentence("Writing to Files: Use a single line.", (a, (22, 40)), "part"),
            SourcedSentence(
                "It also covers Forwarding (RFC3164 mode) and JSON.", (b, c), "outline"
            ),
        ],
        heading=(0, 8),
        children=["Writing to Files", "Forwarding (RFC3164 mode)", "JSON"],
    )
    other = SourcedSentence("Templates define formats.", ((600, 625),), "lead")
    request = SummaryRequest("k", "chapter", "Templates", ["Manual", "Templates"], [])
    request.children = [child, ChildSummary("Syntax", other.text, [other], heading=(590, 596))]
    line = next(
        s for s in ExtractiveSummarizer().summarize_one(request).sentences
        if s.text.startswith("Examples: covers")
    )  # fmt: skip
    # It had cited the headings of the parts with a line of their own only.
    assert {a, b, c} <= set(line.spans), line


def _chapter(statements: list[list[str]]) -> SummaryRequest:
    children = []
    for i, said in enumerate(statements):
        start, sentences = 1000 * (i + 1), []
        for k, text in enumerate(said):
            at = start + 10 + 200 * k
            kind = "lead" if k == 0 else "statement"
            sentences.append(SourcedSentence(text, ((at, at + len(text)),), kind))
        title = f"Part {i + 1}"
        children.append(
            ChildSummary(title, " ".join(said), sentences, heading=(start, start + 6), passages=2)
        )
    request = SummaryRequest("k", "chapter", "Chapter", ["Manual", "Chapter"], [])
    request.children = children
    return request


def test_a_chapter_saying_little_quotes_more_of_what_its_parts_say() -> None:
    parts = [
        [
            "Lintian checks the package for policy errors.",
            "It runs on the built package after every build.",
            "A warning does not stop the build.",
        ],
        [
            "Uploads go to the archive through dput.",
            "The changes file must be signed first.",
            "Rejected uploads are reported by mail.",
        ],
        [
            "Sponsors review packages of new maintainers.",
            "A sponsor uploads the package under their own key.",
            "Requests for sponsorship are filed as bugs.",
        ],
    ]
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(_chapter(parts)).sentences]
    # Each part by its lead, then its further statements under its heading, in their order.
    assert sentences == [f"Part {i + 1}: {' '.join(said)}" for i, said in enumerate(parts)]
    # A chapter whose part lines already say enough keeps one line per part.
    topics = ("policy", "packaging", "licensing", "uploads", "sponsoring")
    long = [
        [
            f"The {topic} check reports each error of {topic} it finds with the file and the"
            " line where it was found, so that the maintainer can fix every such error before"
            " the package is uploaded.",
            f"Errors of {topic} are listed by severity.",
        ]
        for topic in topics
    ]
    sentences = [s.text for s in ExtractiveSummarizer().summarize_one(_chapter(long)).sentences]
    assert not any("listed by severity" in s for s in sentences), sentences
