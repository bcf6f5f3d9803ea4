"""The dependency check: what a quoted sentence leans on that the summary leaves out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer.lint.dependency import (
    FEATURES,
    DependencyModel,
    default_dependency_model,
    dependency_flag,
    leaning,
)
from indexer.lint.flags import LintFlag

PARAGRAPH = (
    "Pump maintenance\n\n"
    "The pump runs a self-test at every start. The second run checks the seal. "
    "It stops the pump when the seal leaks. The pump draws 40 W while it runs.\n"
)


def _flag(text: str, quoted: str, *also: str, labels: tuple[str, ...] = ()) -> LintFlag | None:
    """The dependency flag of ``quoted`` in ``text`` for a summary that also quotes ``also``."""
    cited = [(text.index(q), text.index(q) + len(q)) for q in (quoted, *also)]
    return dependency_flag(quoted, text, text.index(quoted), cited, labels)


def test_a_mid_paragraph_sentence_whose_subject_is_the_sentence_before_is_flagged() -> None:
    flag = _flag(PARAGRAPH, "It stops the pump when the seal leaks.")
    assert flag is not None
    assert flag.rule == "dependency.back"
    # The flag quotes what was left out, in one line an expert can act on.
    assert flag.source_quote == "The second run checks the seal."
    assert "The second run checks the seal." in flag.message
    assert flag.confidence == default_dependency_model().probability(
        leaning(flag.summary_text, PARAGRAPH, PARAGRAPH.index(flag.summary_text)).features
    )


def test_a_self_contained_mid_paragraph_sentence_is_not_flagged() -> None:
    assert _flag(PARAGRAPH, "The pump draws 40 W while it runs.") is None


def test_a_referring_sentence_is_not_flagged_when_the_summary_quotes_its_antecedent() -> None:
    quoted = "It stops the pump when the seal leaks."
    assert _flag(PARAGRAPH, quoted) is not None
    assert _flag(PARAGRAPH, quoted, "The second run checks the seal.") is None


def test_a_definite_reference_to_a_left_out_sentence_counts_only_as_a_feature() -> None:
    found = leaning("The second run checks the seal.", PARAGRAPH, PARAGRAPH.index("The second"))
    assert found.features["left_out"] == 1.0
    assert found.features["pronoun_left_out"] == 0.0


def test_this_names_the_nodes_own_subject_when_its_noun_is_in_the_headings() -> None:
    text = "Release Notes\n\nThe changes follow. You may skip this Release safely.\n"
    quoted = "You may skip this Release safely."
    assert _flag(text, quoted, labels=("Release Notes",)) is None
    assert _flag(text, quoted, labels=("Upgrading",)) is not None
    # A licence calls itself "this License" under any of its headings.
    text = "Terms\n\nThe terms follow. You may copy this License freely.\n"
    assert _flag(text, "You may copy this License freely.", labels=("Terms",)) is None


OPTIONS = (
    "Options\n\n"
    "--rcfile filename\n\n"
    "Execute commands from filename instead of the usual startup file.\n\n"
    "--login\n\n"
    "The --login option makes the shell act as a login shell.\n"
)


def test_a_description_without_the_term_it_describes_is_flagged_with_the_term() -> None:
    flag = _flag(OPTIONS, "Execute commands from filename instead of the usual startup file.")
    assert flag is not None and flag.rule == "dependency.label"
    assert flag.source_quote == "--rcfile filename"


def test_a_description_is_not_flagged_when_it_names_its_term_or_the_summary_does() -> None:
    assert _flag(OPTIONS, "The --login option makes the shell act as a login shell.") is None
    described = "Execute commands from filename instead of the usual startup file."
    assert _flag(OPTIONS, described, "--rcfile filename") is None


def test_the_nodes_own_heading_is_no_left_out_term() -> None:
    text = "Startup files\n\nBash reads the startup files in a fixed order.\n"
    quoted = "Bash reads the startup files in a fixed order."
    assert _flag(text, quoted, labels=("Startup files",)) is None


LIST = (
    "Modifications\n\n"
    "You may distribute a modified version. In addition, you must do these things in it:\n\n"
    "- Delete any section entitled Endorsements.\n"
    "- Preserve all the copyright notices.\n"
    "- Keep the title page unchanged.\n"
)


def test_a_list_item_without_its_lead_in_is_flagged_with_the_lead_in() -> None:
    flag = _flag(LIST, "Delete any section entitled Endorsements.")
    assert flag is not None and flag.rule == "dependency.item"
    assert flag.source_quote == "In addition, you must do these things in it:"
    lead = "In addition, you must do these things in it:"
    assert _flag(LIST, "Delete any section entitled Endorsements.", lead) is None


def test_a_lead_in_without_its_list_or_with_part_of_it_is_flagged_with_the_list() -> None:
    lead = "In addition, you must do these things in it:"
    alone = _flag(LIST, lead)
    assert alone is not None and alone.rule == "dependency.forward"
    assert "Delete any section entitled Endorsements." in (alone.source_quote or "")
    part = _flag(LIST, lead, "Delete any section entitled Endorsements.")
    assert part is not None and part.rule == "dependency.partial"
    items = (
        "Delete any section entitled Endorsements.",
        "Preserve all the copyright notices.",
        "Keep the title page unchanged.",
    )
    whole = _flag(LIST, lead, *items)
    assert whole is None or whole.rule != "dependency.partial"


def test_a_table_cell_without_its_rows_first_cell_is_flagged_with_it() -> None:
    text = (
        "Drivers\n\n| Driver | Description |\n|---|---|\n"
        "| `etwlogs` | Writes log messages as ETW events. |\n"
    )
    flag = _flag(text, "Writes log messages as ETW events.")
    assert flag is not None and flag.rule == "dependency.cell"
    assert flag.source_quote == "`etwlogs`"


def test_a_model_fitted_on_other_features_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dependency.json"
    path.write_text(json.dumps({"features": ["back"], "weights": {"back": 1.0}, "intercept": 0}))
    with pytest.raises(ValueError, match="other features"):
        DependencyModel.load(path)


def test_the_confidence_rises_with_the_features_weights() -> None:
    model = DependencyModel(dict.fromkeys(FEATURES, 0.0) | {"lead_in": 2.0}, -1.0)
    none = dict.fromkeys(FEATURES, 0.0)
    assert model.probability(none) < model.probability(none | {"lead_in": 1.0})


def test_an_items_lead_in_wrapped_over_lines_is_quoted_whole() -> None:
    text = LIST.replace("do these things in it:", "do these\nthings in it:")
    flag = _flag(text, "Delete any section entitled Endorsements.")
    assert flag is not None and flag.rule == "dependency.item"
    assert flag.source_quote == "In addition, you must do these things in it:"


NUMBERED = (
    "Recovery\n\n"
    "If the cache holds a bad object file, the easiest way of fixing it is this:\n\n"
    "1. Build so that the bad object file ends up in the build tree.\n\n"
    "2. Remove the bad object file from the build tree.\n\n"
    "3. Rebuild with the recache setting on.\n"
)


def test_a_lead_in_followed_by_its_numbered_list_is_no_lead_in_without_it() -> None:
    lead = "If the cache holds a bad object file, the easiest way of fixing it is this:"
    steps = [line[3:] for line in NUMBERED.splitlines() if line[:1].isdigit()]
    # The summary quotes the list from its first item, past the "1. " marker.
    assert _flag(NUMBERED, lead, *steps, labels=("Recovery",)) is None
    part = _flag(NUMBERED, lead, steps[0])
    assert part is not None and part.rule == "dependency.partial"
    alone = _flag(NUMBERED, lead, steps[1])
    assert alone is not None and alone.rule == "dependency.forward"


DEFINITIONS = (
    "Platforms\n\n"
    "The examples compare the procedure on two different platforms:\n\n"
    "‘a23’\n\nAn Ultrix 4.2 platform with only static libraries.\n\n"
    "‘burger’\n\nA NetBSD/i386 1.2 platform with shared libraries.\n\n"
    "You can follow these examples on your own platform.\n"
)


def test_a_lead_in_followed_by_its_first_terms_description_is_no_lead_in_without_it() -> None:
    lead = "The examples compare the procedure on two different platforms:"
    first = "An Ultrix 4.2 platform with only static libraries."
    assert _flag(DEFINITIONS, lead, first, labels=("Platforms",)) is None
    # A command line is no term: what follows it is not the list the lead-in announces.
    form = (
        "Usage\n\nThe basic command takes this form:\n\n$ pump run [OPTIONS] MODE\n\n"
        "The command must name a mode.\n\nDry runs\n\nThey check the seal only.\n"
    )
    flag = _flag(form, "The basic command takes this form:", "The command must name a mode.")
    assert flag is not None and flag.rule == "dependency.forward"
