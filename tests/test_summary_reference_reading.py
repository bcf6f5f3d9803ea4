"""How the offline summarizer reads reference prose: a sentence naming a few identifiers is a
statement, code run into one is not; "Here are …:" presents what follows; a pronoun may point at
nouns its own sentence coordinates; a note's mark is no sentence; an item's sub-list is the
item's; "__TIME__" is a name."""

from __future__ import annotations

from indexer.summarizers.cues import leans_back, quotable
from indexer.summarizers.sentences import statements_of, strip_markup
from indexer.summarizers.units import units_of


def _units(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def test_a_sentence_naming_identifiers_is_a_statement() -> None:
    assert quotable(
        "After that, you have to call prepare_revision_walk() for initialization, and then "
        "you can get the commits one by one with the function get_revision()."
    )
    assert quotable(
        "The build system supports cross compiling via arguments passed to the configure "
        "script: --build=... and --host=...."
    )


def test_code_run_into_a_sentence_is_no_statement() -> None:
    # Operators standing alone, a word dense with symbols, symbols in many of its words, a TeX
    # package's internal macros.
    assert not quotable("INTEGER: value=-1 -> value[0]=0xFF, len=1 for the negative case.")
    assert not quotable(
        "You will have to redefine it too: "
        "\\fancypagestyle{plain}{\\fancyhead{}\\renewcommand{\\headrule}{}}."
    )
    assert not quotable("Use $a=$b, $c=$d and $e=$f to swap all three values.")
    assert not quotable("Then we reset \\ps@f@nch@fancyproto to \\ps@f@nch@fancycore.")


def test_here_are_presents_what_follows_but_here_comma_points_back() -> None:
    assert not leans_back("Here are a set of rules to help you update the version information:")
    assert not leans_back("Here is the list of supported modes:")
    assert leans_back("Here, the file is read twice before it is closed.")


def test_a_pronoun_may_point_at_nouns_its_sentence_coordinates() -> None:
    assert not leans_back("If either revision or age are omitted, they default to 0.")
    assert not leans_back("Unless neither the host nor the port is given, they are both read.")
    assert leans_back("If omitted, they default to 0.")


def test_a_notes_mark_is_no_sentence_and_leaves_the_list_to_its_lead_in() -> None:
    text = "Updating the style is optional. However, it lets you use the new tools. [80]"
    assert [p.text for p in statements_of(text)] == [
        "Updating the style is optional.",
        "However, it lets you use the new tools.",
    ]
    listed = text + (
        "\n\n- If the rules file is old, update it to the new syntax."
        "\n- If the source format is old, convert it to the new one.\n"
    )
    assert _units(listed) == [
        "Updating the style is optional. However, it lets you use the new tools: If the rules "
        "file is old, update it to the new syntax; If the source format is old, convert it to "
        "the new one."
    ]


def test_a_list_of_rules_presented_with_here_are_is_quoted_with_its_items() -> None:
    text = (
        "Libraries carry version information of three numbers.\n\n"
        "Here are a set of rules to help you update your version information:\n\n"
        "1. Start with version information of 0:0:0 for each library.\n"
        "2. Update the version information only before a public release.\n"
    )
    assert _units(text)[1:] == [
        "Here are a set of rules to help you update your version information: Start with "
        "version information of 0:0:0 for each library; Update the version information only "
        "before a public release."
    ]


def test_an_items_own_sub_list_is_part_of_that_item_not_of_the_list() -> None:
    text = (
        "The pump is checked weekly.\n\n"
        "Here are some common problems and what may be done about them:\n\n"
        "- If the pressure drops, the pump has fallen back to manual mode. Some reasons are:\n\n"
        "  - The valve has been opened by hand.\n\n"
        "  - The sensor cable is loose.\n\n"
        "- If the motor stalls, clean the intake filter.\n"
    )
    assert _units(text)[1:] == [
        "Here are some common problems and what may be done about them: If the pressure drops, "
        "the pump has fallen back to manual mode; If the motor stalls, clean the intake filter."
    ]


def test_a_name_in_double_underscores_is_no_emphasis() -> None:
    assert strip_markup("the string __TIME__ is present") == "the string __TIME__ is present"
    assert strip_markup("call __init__ first") == "call __init__ first"
    assert strip_markup("a __strong phrase__ and **bold**") == "a strong phrase and bold"


def test_a_paragraph_saying_this_function_is_the_entrys_under_its_definition_line() -> None:
    text = (
        "Function: int lt_dladderror (const char *diagnostic)\n\n"
        "This function integrates your own error messages into lt_dlerror.\n\n"
        "If the allocation of an identifier fails, this function returns -1.\n\n"
        '```\nint myerror = lt_dladderror ("doh!");\n```\n\n'
        "Function: int lt_dlseterror (int errorcode)\n\n"
        "When writing your own loaders, you should use this function to raise errors. "
        "This function returns 0 on success.\n\n"
        "Loaders written before version 2 keep working.\n"
    )
    assert [(u.term, u.text) for u in units_of([(0, text)])] == [
        (
            "lt_dladderror",
            "lt_dladderror: This function integrates your own error messages into lt_dlerror.",
        ),
        (
            "lt_dladderror",
            "lt_dladderror: If the allocation of an identifier fails, this function returns -1.",
        ),
        (
            "lt_dlseterror",
            "lt_dlseterror: When writing your own loaders, you should use this"
            " function to raise errors.",
        ),
        ("lt_dlseterror", "lt_dlseterror: This function returns 0 on success."),
    ]


def test_a_sentence_leaning_back_goes_on_past_a_pointer_closing_the_paragraph_before() -> None:
    text = (
        "Another way to collaborate is one shared repository that several developers push to. "
        "See gitcvs-migration(7) for instructions on how to set this up.\n\n"
        "However, this mode of operation is not generally recommended.\n"
    )
    assert [(u.text, u.spans) for u in units_of([(0, text)])] == [
        (
            "Another way to collaborate is one shared repository that several developers push "
            "to. However, this mode of operation is not generally recommended.",
            ((0, 84), (150, 211)),
        )
    ]


def test_a_lead_in_going_on_past_a_pointer_takes_its_list_with_it() -> None:
    text = (
        "Another way to collaborate is a single shared repository. See gitcvs-migration(7)"
        " for how to set this up.\n\n"
        "However, this mode is not recommended, because exchanging patches has advantages:\n\n"
        "- A single maintainer can process incoming changes at very high rates.\n"
        "- No repository is special, and another developer can take over maintenance.\n"
    )
    assert [u.text for u in units_of([(0, text)])] == [
        "Another way to collaborate is a single shared repository. However, this mode is not "
        "recommended, because exchanging patches has advantages: A single maintainer can process "
        "incoming changes at very high rates; No repository is special, and another developer "
        "can take over maintenance."
    ]
