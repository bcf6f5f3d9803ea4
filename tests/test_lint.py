"""The summary lint finds the failures experts found, and stays quiet on faithful text."""

from __future__ import annotations

from indexer.lint import Linter, lint_summary
from indexer.settings import Settings

SOURCE = [
    "Tighten the impeller nut to 95 N·m. Replace the seal only if the leakage exceeds 10 drops "
    "per minute. Do not start the pump before the casing is filled with liquid.",
    "Lubricate the bearings every 2,000 operating hours.",
]


def kinds(summary: str) -> list[str]:
    return [f.kind for f in lint_summary(summary, SOURCE)]


def test_faithful_summary_is_clean() -> None:
    summary = (
        "Tighten the impeller nut to 95 N·m. Replace the seal only if the leakage exceeds 10 "
        "drops per minute."
    )
    assert kinds(summary) == []


def test_invented_number_is_flagged() -> None:
    flags = lint_summary("Tighten the impeller nut to 120 N·m.", SOURCE)
    assert "number" in [f.kind for f in flags]
    assert "120" in flags[0].summary_text


def test_dropped_condition_is_flagged() -> None:
    flags = lint_summary("Replace the seal when the leakage exceeds 10 drops per minute.", SOURCE)
    assert "condition" in [f.kind for f in flags]
    cond = next(f for f in flags if f.kind == "condition")
    assert "only if" in cond.message
    assert cond.source_text and "only if" in cond.source_text


def test_dropped_negation_is_flagged() -> None:
    assert "negation" in kinds("Start the pump before the casing is filled with liquid.")


def test_unsupported_absolute_is_flagged() -> None:
    assert "absolute" in kinds("Always replace the seal when the leakage exceeds 10 drops.")


def test_number_formats_match() -> None:
    assert kinds("Lubricate the bearings every 2,000 operating hours.") == []


def test_part_numbers_and_codes_are_not_invented_numbers() -> None:
    source = ["Order seal kit PX-2041-S when alarm E-12 appears."]
    assert lint_summary("Seal kit PX-2041-S is ordered when alarm E-12 appears.", source) == []
    flags = lint_summary("Seal kit PX-2042-S is ordered when alarm E-12 appears.", source)
    assert "number" in [f.kind for f in flags]


# The aligned lint: paraphrases, units, negations both ways, what the summarizer adds -----------
PG = [
    "On Windows, the default is empty, which means no Unix-domain socket is created by default.",
    "A session will allocate temporary buffers as needed. However if a buffer is actually used "
    "an additional 8192 bytes will be consumed for it.",
    "Maximum time between automatic WAL checkpoints. The default is five minutes (5min).",
    "Any logical decoding or replication requests for other libraries will be refused.",
]


def test_paraphrase_that_drops_a_scope_is_flagged_with_the_scope_quoted() -> None:
    faithful = "On Windows no Unix-domain socket is made by default."
    assert lint_summary(faithful, PG) == []
    flags = lint_summary("No Unix-domain socket is made by default.", PG)
    assert [f.kind for f in flags] == ["condition"]
    assert flags[0].source_quote == "On Windows"
    assert flags[0].source_text is not None and flags[0].source_text.startswith("On Windows")


def test_units_are_compared_with_their_values() -> None:
    assert lint_summary("A used temporary buffer costs another 8192 bytes.", PG) == []
    flags = lint_summary("A used temporary buffer costs another 8192 kilobytes.", PG)
    assert "number" in [f.kind for f in flags]
    assert flags[0].summary_quote == "8192 kilobytes" and flags[0].source_quote == "8192 bytes"
    assert lint_summary("The default gap between checkpoints is 5 min.", PG) == []
    assert [f.kind for f in lint_summary("The default is five hours.", PG)] == ["number"]


def test_numbers_in_words_and_ranges_are_read() -> None:
    source = ["The allowed range is 1 to 1000. The default is three connections."]
    assert lint_summary("It takes 1 to 1000 and defaults to 3 connections.", source) == []
    assert {f.kind for f in lint_summary("It takes 1 to 100.", source)} == {"number"}
    assert {f.kind for f in lint_summary("It defaults to four connections.", source)} == {"number"}


def test_added_and_dropped_negations_are_flagged_and_implicit_ones_accepted() -> None:
    assert lint_summary("Requests for other libraries are refused.", PG) == []
    added = lint_summary("Requests for other libraries are not refused.", PG)
    assert [f.kind for f in added] == ["negation"] and added[0].summary_quote == "not"
    # "does not accept" restated as "refuses" keeps the negation
    source = ["The server does not accept connections for other libraries."]
    assert lint_summary("The server refuses connections for other libraries.", source) == []
    dropped = lint_summary("The server accepts connections for other libraries.", source)
    assert [f.kind for f in dropped] == ["negation"]


def test_absolute_needs_support_about_the_same_thing() -> None:
    source = ["Some operating systems provide the function, but it does nothing there."]
    assert lint_summary("Some operating systems provide this function.", source) == []
    flags = lint_summary("All operating systems provide the function.", source)
    assert [f.kind for f in flags] == ["absolute"] and flags[0].summary_quote == "All"


def test_what_the_summarizer_adds_and_verbatim_sentences_are_never_flagged() -> None:
    summary = "Contents: Seals; Bearings; and 20 more.\n" + SOURCE[0].split(". ")[1] + "."
    assert lint_summary(summary, SOURCE) == []
    assert lint_summary("How to replace and inspect the seals.", SOURCE) == []


def test_a_sentence_quoted_without_its_inline_code_marks_is_verbatim() -> None:
    source = [
        "By default, all containers have networking enabled and they can make any outgoing "
        "connections. The operator can completely disable networking\n"
        "with `docker run --network none` which disables all incoming and outgoing\n"
        "networking."
    ]
    quoted = (
        "The operator can completely disable networking with docker run --network none "
        "which disables all incoming and outgoing networking."
    )
    linter = Linter.from_settings(Settings())  # aligned by meaning, "disable" meets "enabled"
    assert linter.lint(quoted, source) == []
    # Not quoted once a word is added: it is checked.
    flags = linter.lint(quoted.replace("networking.", "networking for 10 seconds."), source)
    assert "number" in [f.kind for f in flags]


def test_the_configured_linter_aligns_with_vectors_from_the_bundled_encoder() -> None:
    linter = Linter.from_settings(Settings())
    assert linter.name.endswith("all-MiniLM-L6-v2/static")
    assert linter.lint("On Windows no Unix-domain socket is made by default.", PG) == []
    assert [f.kind for f in linter.lint("No Unix-domain socket is made by default.", PG)] == [
        "condition"
    ]
    words_only = Linter.from_settings(Settings(lint_alignment="words"))
    assert words_only.vectors is None and words_only.name != linter.name


def test_a_correction_that_restores_the_condition_in_other_words_clears_the_flag() -> None:
    linter = Linter.from_settings(Settings())
    smoothed = linter.lint("Replace the seal when the leakage exceeds 10 drops per minute.", SOURCE)
    assert [f.kind for f in smoothed] == ["condition"]
    assert smoothed[0].source_quote == "only if the leakage exceeds 10 drops per minute"
    restored = "Only replace the seal when more than 10 drops leak per minute."
    assert linter.lint(restored, SOURCE) == []


def test_a_condition_restated_in_other_words_is_not_flagged_but_a_dropped_one_is() -> None:
    """The rules alone flag "With many replicas" as dropping "In clusters with a large number of
    replicas"; the fitted decision stands down when a summary span is close enough in meaning
    (its similarity here is about 0.66: under a bound of 0.6 the flag goes, at the shipped
    model's bound it is decided by the model), and it raises a condition that is really gone."""
    import json

    from indexer.lint.decide import FEATURES, MODEL_PATH, ModelDecider, RulesOnly

    source = ["In clusters with a large number of replicas, the coordinator may delay each commit."]
    linter = Linter.from_settings(Settings())
    rules = Linter(linter.vectors, decider=RulesOnly())
    restated = "With many replicas, the coordinator may delay each commit."
    assert MODEL_PATH.exists()
    assert [f.kind for f in rules.lint(restated, source)] == ["condition"]

    def bounded(sim: float) -> Linter:
        model = {"kind": "bounds", "features": list(FEATURES), "below": {"phrase_sim": sim}}
        return Linter(linter.vectors, decider=ModelDecider(model))

    assert bounded(0.6).lint(restated, source) == []
    assert [f.kind for f in bounded(0.7).lint(restated, source)] == ["condition"]
    shipped = json.loads(MODEL_PATH.read_text())["below"]["phrase_sim"]
    assert (linter.lint(restated, source) == []) == (shipped <= 0.66)
    dropped = linter.lint("The coordinator may delay each commit.", source)
    assert [f.kind for f in dropped] == ["condition"]
    assert dropped[0].source_quote == "In clusters with a large number of replicas"


# Negation scope, limits on amounts, compound amounts ---------------------------------------
MEMCHECK = [
    "The blocks pointed to by their src and dst pointers aren't allowed to overlap. "
    "Memcheck keeps track of all heap blocks issued in response to calls to malloc/new et al. "
    "So when the program exits, it knows which blocks have not been freed.",
    "This minimises false error rates but can cause up to 30% performance degradation.",
    "For example, to ignore 4 byte accesses at 8192 bytes below the stack pointer, use "
    "--ignore-range-below-sp=8192-8189.",
]


def test_an_added_negation_needs_a_source_negation_about_the_same_words() -> None:
    linter = Linter.from_settings(Settings())
    # the source's "aren't allowed" governs the same words, in another sentence
    assert linter.lint("Overlapping src and dst blocks are not allowed.", MEMCHECK) == []
    # "have not been freed" governs other words than "keep track of heap blocks"
    flags = linter.lint("Memcheck does not keep track of the heap blocks.", MEMCHECK)
    assert [f.kind for f in flags] == ["negation"] and flags[0].summary_quote == "not"


def test_a_dropped_negation_may_be_restated_by_an_equivalent() -> None:
    source = ["If the output file name does not contain %p, the outputs are intermingled."]
    assert (
        lint_summary("Unless the file name contains %p, the outputs are intermingled.", source)
        == []
    )
    flags = lint_summary("If the file name contains %p, the outputs are intermingled.", source)
    assert [f.kind for f in flags] == ["negation"]


def test_a_negation_that_denies_a_negative_word_is_no_negation() -> None:
    linter = Linter.from_settings(Settings())
    source = ["expression2 is not evaluated if expression1 alone determines the result."]
    kept = "expression2 is not evaluated when expression1 alone determines the outcome."
    assert linter.lint(kept, source) == []
    flags = linter.lint(kept.replace("not evaluated", "not skipped"), source)
    assert [f.kind for f in flags] == ["negation"]


def test_a_limit_dropped_from_its_amount_is_a_dropped_condition() -> None:
    linter = Linter.from_settings(Settings())
    kept = "Choosing yes gives the fewest false errors, at a cost of up to 30% in performance."
    assert linter.lint(kept, MEMCHECK) == []
    bare = linter.lint(kept.replace("up to 30%", "30%"), MEMCHECK)
    assert [f.kind for f in bare] == ["condition"] and bare[0].source_quote is not None
    assert "up to 30%" in bare[0].source_quote


def test_a_compound_amount_is_its_amount() -> None:
    linter = Linter.from_settings(Settings())
    summary = "To ignore 4-byte accesses 8192 bytes below the stack pointer, pass 8192-8189."
    assert linter.lint(summary, MEMCHECK) == []
    flags = linter.lint(summary.replace("4-byte", "8-byte"), MEMCHECK)
    assert "number" in [f.kind for f in flags] and flags[0].summary_quote == "8-byte"


def test_an_added_negation_is_supported_by_a_source_negation_of_its_word_anywhere() -> None:
    source = [
        "The default setting contains the codes EX_TEMPFAIL and EX_CANTCREAT from sysexits.h. "
        "Other return codes are treated as permanent errors. On a system that does not define "
        "these macros, Exim assumes values of 75 and 73."
    ]
    summary = (
        "The temporary codes default to EX_TEMPFAIL and EX_CANTCREAT from sysexits.h, taken as "
        "75 and 73 where it does not define them."
    )
    linter = Linter.from_settings(Settings())
    assert [f for f in linter.lint(summary, source) if f.kind == "negation"] == []
    invented = "The temporary codes do not default to EX_TEMPFAIL and EX_CANTCREAT from sysexits.h."
    assert [f.rule for f in linter.lint(invented, source) if f.kind == "negation"] == [
        "negation.added"
    ]
