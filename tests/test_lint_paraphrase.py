"""The lint on paraphrased summaries: conditions in sentences of their own, labels, negations said
in other words, positions, and the words that look absolute or negative but are not.

The configured linter (static vectors from the bundled model) where meaning matters; the
words-only lint where the rule alone decides.
"""

from __future__ import annotations

import pytest

from indexer.lint import Linter, lint_summary
from indexer.lint.standalone import restriction
from indexer.lint.text import sentences
from indexer.settings import Settings


@pytest.fixture(scope="module")
def linter() -> Linter:
    return Linter.from_settings(Settings())


def kinds(flags: list) -> list[str]:  # type: ignore[type-arg]
    return sorted({f.kind for f in flags})


# a condition stated in a sentence of its own ---------------------------------------------------
XML = [
    "Embeds an extra user comment string at the start of the XML output. Only works when "
    "--xml=yes is specified; ignored otherwise."
]


def test_a_condition_in_its_own_sentence_must_be_kept(linter: Linter) -> None:
    flags = linter.lint("The user comment is embedded at the start of the XML output.", XML)
    assert kinds(flags) == ["condition"]
    assert flags[0].source_quote == "Only works when --xml=yes is specified"
    assert "restricts this" in flags[0].message
    assert flags[0].summary_text == "The user comment is embedded at the start of the XML output."
    kept = "With --xml=yes, the user comment is embedded at the start of the XML output."
    assert linter.lint(kept, XML) == []


def test_a_sentence_restricting_its_own_statement_is_no_condition_of_the_last() -> None:
    assert restriction("This parameter can only be set at server start.") is None
    assert restriction("This happens only if the server shuts down cleanly.") is not None
    assert restriction("Only works when --xml=yes is specified; ignored otherwise.") is not None
    assert restriction("The option is ignored unless a port is given.") is not None
    source = [
        "Sets the number of connection slots reserved for superusers. This parameter can only "
        "be set at server start."
    ]
    assert lint_summary("It reserves connection slots for superusers.", source) == []


def test_a_bracketed_condition_is_a_condition(linter: Linter) -> None:
    source = [
        "A semicolon-separated list specifying the rpath to use in installed targets (for "
        "platforms that support it)."
    ]
    dropped = "INSTALL_RPATH is a semicolon-separated list giving the rpath of installed targets."
    assert "condition" in kinds(linter.lint(dropped, source))
    kept = (
        "INSTALL_RPATH is a semicolon-separated list giving the rpath of installed targets, on "
        "platforms that support an rpath."
    )
    assert "condition" not in kinds(linter.lint(kept, source))


# labels: headings and titles support names and numbers, state nothing ---------------------------
def test_a_name_from_the_heading_is_no_invented_code() -> None:
    source = ["Unlike many policies, this one does not warn when it is not set."]
    summary = "Leaving CMP0091 unset produces no warning."
    assert kinds(lint_summary(summary, source)) == ["number"]
    assert lint_summary(summary, source, labels=["CMP0091"]) == []


def test_an_outline_number_is_no_quantity() -> None:
    source = ["Inspect the seal faces every 2,000 operating hours."]
    flags = lint_summary(
        "Inspect the seal faces every 1.2 operating hours.", source, labels=["1.2 Inspection"]
    )
    assert kinds(flags) == ["number"]


# negations said in other words -------------------------------------------------------------------
def test_a_negation_said_by_a_negative_word_is_kept() -> None:
    source = ["It is not generally advisable to disable them, because you may miss real errors."]
    assert (
        lint_summary("Disabling them is generally inadvisable: real errors may be missed.", source)
        == []
    )
    flags = lint_summary(
        "Disabling them is generally advisable: real errors may be missed.", source
    )
    assert kinds(flags) == ["negation"]


def test_an_exception_restates_but_not() -> None:
    source = ["Item names starting with -, but not -l or -framework, are treated as linker flags."]
    assert (
        lint_summary(
            "Items beginning with -, other than -l or -framework, are linker flags.", source
        )
        == []
    )


def test_one_source_negation_supports_one_summary_negation() -> None:
    source = ["In some environments, freeing with a non-matching function can cause crashes."]
    faithful = "In some environments, freeing with a function that does not match can crash."
    assert lint_summary(faithful, source) == []
    flipped = "In some environments, freeing with a function that does not match cannot crash."
    assert kinds(lint_summary(flipped, source)) == ["negation"]


def test_a_comparative_limit_is_no_negation() -> None:
    source = ["Ideally these should be concise, no more than a single line, but informative."]
    summary = "They should ideally be concise, no longer than a single line, yet informative."
    assert lint_summary(summary, source) == []


# absolutes -------------------------------------------------------------------------------------
def test_any_after_a_condition_or_a_negation_is_no_universal() -> None:
    source = ["For compilers that have no notion of a standard level, this has no effect."]
    assert lint_summary("Compilers lacking any notion of a standard level ignore it.", source) == []
    assert lint_summary("If any option is given, it is ignored.", ["Options are ignored."]) == []
    flags = lint_summary("Any option is ignored.", ["Some options are ignored."])
    assert kinds(flags) == ["absolute"]


def test_a_hedged_negation_supports_no_never() -> None:
    source = ["Multiple commands are not necessarily combined into one stateful shell."]
    flags = lint_summary("Several commands are never combined into one stateful shell.", source)
    assert kinds(flags) == ["absolute"]
    assert (
        lint_summary("Several commands are not necessarily combined into one shell.", source) == []
    )


# positions -------------------------------------------------------------------------------------
def test_a_changed_position_is_a_changed_number() -> None:
    source = ["INPUT_FILE is attached to the standard input of the first process in the pipeline."]
    flags = lint_summary("INPUT_FILE feeds the standard input of the last process.", source)
    assert kinds(flags) == ["number"]
    assert flags[0].summary_quote == "last" and flags[0].source_quote == "first"
    assert lint_summary("INPUT_FILE feeds the standard input of the first process.", source) == []
    same = ["The entry listed last is run at the final step."]
    assert lint_summary("The entry listed last runs at the last step.", same) == []


# sentences -------------------------------------------------------------------------------------
def test_no_sentence_ends_at_an_abbreviation() -> None:
    text = "Specifies the build type on single-configuration generators (e.g. Ninja). Next."
    assert [s.text for s in sentences(text)] == [
        "Specifies the build type on single-configuration generators (e.g. Ninja).",
        "Next.",
    ]


def test_a_version_of_three_parts_is_compared_as_written() -> None:
    source = ["In 2.4.23 and earlier, the directive only applied to the main server."]
    flags = lint_summary("In 2.4.33 and earlier it only applied to the main server.", source)
    assert kinds(flags) == ["number"]
    assert flags[0].summary_quote == "2.4.33"
    assert lint_summary("In 2.4.23 and earlier it only applied to the main server.", source) == []


# negations written other ways ------------------------------------------------------------------
def test_a_typographic_apostrophe_negates_too() -> None:
    source = ["The cache isn’t written when the disk is full."]
    assert lint_summary("The cache is not written when the disk is full.", source) == []
    flags = lint_summary("The cache is written when the disk is full.", source)
    assert kinds(flags) == ["negation"]


def test_a_negative_word_further_on_is_no_double_negation() -> None:
    source = ["Fast disks alone are not a sufficient reason for turning off fsync."]
    assert lint_summary("Fast disks alone do not justify turning fsync off.", source) == []


def test_a_negation_referring_back_governs_its_sentence() -> None:
    source = ["Before 8.4 the server appended the epoch to such names, but this is no longer so."]
    assert (
        lint_summary("Since 8.4 the server no longer appends the epoch to such names.", source)
        == []
    )


def test_a_negation_in_a_bracket_is_an_aside_where_a_clause_starts_inside_another() -> None:
    source = [
        "If the command was stopped by a signal (other than SIGTERM, which is sent at shutdown) "
        "or by an error of the shell (such as command not found), recovery aborts and the "
        "server will not start."
    ]
    summary = (
        "If the command is killed by a signal other than SIGTERM, or the shell reports an "
        "error, recovery aborts and the server does not start."
    )
    assert lint_summary(summary, source) == []


def test_a_negative_prefix_on_the_negated_word_restates_the_negation() -> None:
    source = ["CMake warns when the policy is not set and then uses the OLD behavior."]
    assert lint_summary("If the policy is left unset, CMake warns and uses OLD.", source) == []
    assert kinds(lint_summary("If the policy is set, CMake warns and uses OLD.", source)) == [
        "negation"
    ]


# a hedge restated as a certainty ---------------------------------------------------------------
def test_a_hedge_said_as_a_certainty_is_an_absolute() -> None:
    source = ["The key file is read at startup, so it may be owned by and readable only by root."]
    flags = lint_summary("Read at startup, the key file must be owned by root.", source)
    assert kinds(flags) == ["absolute"]
    assert flags[0].summary_quote == "must" and flags[0].source_quote == "may"
    assert lint_summary("Read at startup, the key file may be owned by root.", source) == []
    certain = ["The key file must be owned by root, though it may be readable by others."]
    assert lint_summary("The key file must be owned by root.", certain) == []


# numbers and what they count -------------------------------------------------------------------
def test_a_unit_is_not_what_a_bare_number_counts() -> None:
    source = ["A checkpoint runs when the log reaches a threshold of 1000 pages."]
    flags = lint_summary("A checkpoint runs once the log reaches 1000 kilobytes.", source)
    assert kinds(flags) == ["number"]
    assert lint_summary("A checkpoint runs once the log reaches 1000 pages.", source) == []


def test_a_value_joined_to_its_unit_by_dots_has_that_unit() -> None:
    source = ["By default it runs git worktree prune --expire 3.months.ago."]
    assert kinds(lint_summary("By default it prunes after three weeks.", source)) == ["number"]
    assert lint_summary("By default it prunes after three months.", source) == []
