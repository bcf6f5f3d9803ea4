"""What reference text states and the offline summarizer may quote: a TeX command named in prose,
a lead-in that runs on into its list, an entry whose term carries its variable's name or is set in
quotes; and what it may not: a package's internal macros, an ordinal pointing back at
alternatives named before."""

from __future__ import annotations

from indexer.summarizers.base import SummaryRequest
from indexer.summarizers.cues import leans_back, quotable
from indexer.summarizers.extractive import ExtractiveSummarizer
from indexer.summarizers.units import units_of


def _summary(title: str, text: str) -> list[str]:
    request = SummaryRequest("k", "section", title, [title], [text], passage_starts=[0])
    return [s.text for s in ExtractiveSummarizer().summarize_one(request).sentences]


def _units(text: str) -> list[tuple[str | None, str, bool]]:
    return [(u.term, u.text, u.opens) for u in units_of([(0, text)])]


def test_a_sentence_naming_tex_commands_is_prose_but_code_run_into_one_is_not() -> None:
    named = (
        "The citation style can be selected by means of the \\setcitestyle, \\bibpunct and "
        "\\citestyle commands or via \\bibliographystyle{bst} with a predefined \\bibstyle@bst."
    )
    assert quotable(named)
    assert not quotable("The prototype is int main(char *argv) { return 0; } in this case.")
    assert not quotable("Write \\def\\x{\\y=1} & \\z to set both of them at once.")
    # "@" marks a package's internal macro: its implementation, not a name for the user.
    assert not quotable("The \\f@nch@head macro is reset by \\f@nch@initialise every time.")
    assert named in _summary("Priority of style commands", named)


def test_a_lead_in_running_on_into_its_list_is_quoted_with_its_items() -> None:
    text = (
        "By default, the pump runs in automatic mode. This can be changed by\n\n"
        "1. setting the switch on the panel to manual, or\n"
        "2. giving the option --manual to the controller.\n"
    )
    assert _units(text) == [
        (
            None,
            "By default, the pump runs in automatic mode. This can be changed by setting the "
            "switch on the panel to manual; giving the option --manual to the controller.",
            True,
        )
    ]


def test_an_ordinal_naming_one_of_the_alternatives_before_points_back() -> None:
    assert leans_back(
        "To mitigate confusion, this manual refers to the second type of linking as dlopening."
    )
    assert leans_back("The last method is the fastest of all.")
    assert not leans_back("The second argument is the name of the file to read.")


def test_an_entry_named_with_its_variable_or_in_quotes_is_quoted_under_its_name() -> None:
    text = (
        "Options are read from the configuration file.\n\n"
        "max_size (CCACHE_MAXSIZE)\n\n"
        "This option specifies the maximum size of the cache.\n\n"
        "‘pass_all’\n\n"
        "Will pass every library through without any checking.\n"
    )
    units = _units(text)
    assert (
        "max_size (CCACHE_MAXSIZE)",
        "max_size (CCACHE_MAXSIZE): This option specifies the maximum size of the cache.",
        True,
    ) in units
    assert (
        "‘pass_all’",
        "‘pass_all’: Will pass every library through without any checking.",
        True,
    ) in units
    # Under an example, a remark on it ("This builds …") names no entry.
    example = "To build it, run:\n\nmake all\n\nThis builds the program in the current folder.\n"
    assert all(term is None for term, _, _ in _units(example))
