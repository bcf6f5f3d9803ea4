"""Entries as reference manuals declare them, and sentences that announce what follows.

A Texinfo definition line ("Function: int lt_dladderror (…)", "[Global flag]idn2_flags
IDN2_NFC_INPUT") names the entry its paragraph describes: the declared name, never a type word
or the category. A command line with a variable or a pipe is an example, no entry's synopsis.
A sentence announcing what follows ("Below are …", "We give here …", "… are as follows." over a
line break) is quoted with it or not at all, and so is the last sentence before a list.
"""

from __future__ import annotations

import pytest

from indexer.summarizers.blocks import blocks_of
from indexer.summarizers.cues import leans_back, points_forward
from indexer.summarizers.terms import entries_of, term_of
from indexer.summarizers.units import listing, units_of


def _units(text: str) -> list[str]:
    return [u.text for u in units_of([(0, text)])]


def _term(text: str) -> str | None:
    blocks = blocks_of(text, 0)
    found = term_of(blocks[0], blocks[1])
    return None if found is None else found.text


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Function: int lt_dladderror (const char *diagnostic)", "lt_dladderror"),
        ("Variable: const lt_dlsymlist lt_preloaded_symbols[]", "lt_preloaded_symbols"),
        ("Macro: LTDL_SET_PRELOADED_SYMBOLS", "LTDL_SET_PRELOADED_SYMBOLS"),
        ("[Global flag]idn2_flags IDN2_NFC_INPUT", "IDN2_NFC_INPUT"),
        ("[Return code]idn2_rc IDN2_MALLOC", "IDN2_MALLOC"),
        (
            "Macro: int mpfr_round_nearest_away (int (foo)(mpfr_t, ...), mpfr_t rop, ...)",
            "mpfr_round_nearest_away",
        ),
        ("Data Type: mpfr_t", "mpfr_t"),
    ],
)
def test_a_definition_line_names_what_it_declares(line: str, name: str) -> None:
    assert _term(f"{line}\n\nThis function allows you to report an error.") == name


def test_a_label_with_a_colon_is_no_definition() -> None:
    # Read as a definition, "Default" would be a category and "the" the declared name.
    line = "Default: the system's locale"
    assert _term(f"{line}\n\nThis value is read at start-up.") == line


def test_this_function_below_a_definition_is_the_entry_it_defines() -> None:
    text = (
        "Function: int lt_dladderror (const char *diagnostic)\n\n"
        "This function allows you to integrate your own error messages into lt_dlerror.\n\n"
        "Function: int lt_dlseterror (int errorcode)\n\n"
        "Use this function to raise errors from your own module loaders.\n"
    )
    units = _units(text)
    assert units[0].startswith("lt_dladderror: This function allows"), units
    assert [e.text for e in entries_of([(0, text)])] == ["lt_dladderror", "lt_dlseterror"]


def test_a_command_line_to_run_is_no_entry_of_the_paragraph_below() -> None:
    text = (
        "```\nfind $CCACHE_DIR -type d | xargs chmod g+s\n```\n\n"
        "The reason to avoid the hard link mode is that hard links share timestamps.\n"
    )
    assert _term(text) is None
    assert not any(u.startswith("find:") for u in _units(text))
    # A synopsis with options and placeholders still names its command.
    assert _term("```\ngrep [-i] [-e pattern] file\n```\n\nSearch the file.") == "grep"


@pytest.mark.parametrize(
    "sentence",
    [
        "The direct interfaces to the library are as\nfollows.",
        "Below are the interfaces of the library documented.",
        "We give here in alphabetical order the functions that were added after 2.2.",
    ],
)
def test_a_sentence_announcing_what_follows_points_forward(sentence: str) -> None:
    assert points_forward(sentence)


def test_below_a_figure_points_nowhere() -> None:
    assert not points_forward("The value must stay below 10.")


def test_that_after_a_preposition_points_back() -> None:
    assert leans_back("Terminology has changed since that revision.")
    assert not leans_back("Terminology has changed since the 1.0 release.")


def test_a_part_of_a_set_named_before_points_back() -> None:
    assert leans_back("Each of the commands has a PRIVATE, PUBLIC and INTERFACE mode.")
    assert not leans_back("Most of the time, the default build type is used.")
    assert not leans_back("Each target corresponds to an executable or library.")


def test_the_sentence_before_a_list_goes_with_it_or_not_at_all() -> None:
    text = (
        "Reports help us fix bugs. There are a few things you should think about.\n\n"
        + "".join(f"- Item {i} is something to include in a report.\n\n" for i in range(3))
        + "Some text between the lists.\n\n- A last item stands here.\n"
    )
    units = _units(text)
    assert units[0] == "Reports help us fix bugs.", units
    # Never alone ("There are a few things …" as all there is to say): with its items, and
    # the one after the text between them counted.
    things = [u for u in units if "a few things" in u]
    assert len(things) == 1 and things[0].startswith(
        "There are a few things you should think about: Item 0 is something"
    ), units
    assert things[0].endswith("; and 1 more."), units


def test_the_list_of_a_lead_in_that_cannot_stand_goes_with_it() -> None:
    text = (
        "Another way to collaborate is a single shared repository. I set mine up for a team"
        " of five.\n\n"
        "However, this mode is not recommended, because exchanging patches has advantages:\n\n"
        "- A single maintainer can process incoming changes at very high rates.\n"
        "- No repository is special, and another developer can take over maintenance.\n"
    )
    units = _units(text)
    assert units == ["Another way to collaborate is a single shared repository."], units


def test_a_sentence_with_a_footnote_mark_is_no_synopsis() -> None:
    text = (
        "In addition to the above examples, we need to check the ABI compatibility further and"
        " bump versions for some symbols manually as needed. [98]\n\n"
        "Although it is only a secondary reference, the wiki pages may be useful.\n"
    )
    assert _term(text) is None


def test_a_pointer_to_a_previous_section_is_no_statement() -> None:
    text = "You may want to set a base directory, as discussed in a previous section.\n"
    assert _units(text) == []


def test_a_list_counts_the_items_after_an_items_own_example() -> None:
    items = "".join(f"- fn_{i} in version {i}.\n" for i in range(4))
    text = (
        f"{items}- fn_old in version 3. It was named fn_older before.\n\n"
        "```\n#define fn_older fn_old\n```\n\n"
        "Code that needs both versions should use the new name.\n\n"
        + "".join(f"- gn_{i} in version {i}.\n" for i in range(30))
    )
    found = listing([(0, text)])
    assert found is not None
    shown = found.text.count(" in version ")
    more = int(found.text.rsplit("and ", 1)[1].split(" more")[0])
    assert shown + more == 35, found.text


def test_a_lead_in_to_an_items_example_keeps_the_list_going() -> None:
    text = (
        "This statement includes property values. It supports the following parameters:\n\n"
        "- name - the name of the property\n\n- outname - the output field name\n\n"
        "To create a format you can use several options together. This gives YYYY-MM-DD:\n\n"
        '```\nproperty(name="timereported" dateformat="year")\n```\n\n'
        "- caseconversion - converts the case of the text\n\n"
        "- securepath - makes path names safe for dynafile templates\n"
    )
    units = _units(text)
    # Two of four parameters quoted as all of them would mislead, and so would the last two
    # alone: the first two are quoted with how many more there are.
    assert units == [
        "This statement includes property values. It supports the following parameters: name -"
        " the name of the property; outname - the output field name; and 2 more."
    ], units


def test_a_definition_line_in_print_is_the_entry_not_the_lead_ins_list() -> None:
    text = (
        "The flags parameter can take on the following values:\n"
        "[Global flag]idn2_flags IDN2_NFC_INPUT\nApply NFC normalization on input.\n"
        "[Global flag]idn2_flags IDN2_TRANSITIONAL\nPerform TR46 transitional processing.\n"
    )
    units = _units(text)
    assert not any("following values" in u for u in units), units
    assert "IDN2_NFC_INPUT: Apply NFC normalization on input." in units, units


def test_a_label_over_another_list_ends_the_list_before_it() -> None:
    text = (
        "Examples:\n\n- http://localhost\n\n- http://example.com/cache/\n\n"
        "Optional attributes:\n\n- bearer-token: Token used to authorize the requests.\n\n"
        "- keep-alive: If true, keep the connection open.\n"
    )
    found = listing([(0, text)])
    assert found is not None
    assert "more" not in found.text, found.text


@pytest.mark.parametrize("term", ["!", "!!", "!-n", "$?", "^"])
def test_an_operator_on_its_own_line_names_the_entry_below_it(term: str) -> None:
    text = f"{term}\n\nStart a history substitution unless a space follows.\n"
    assert _term(text) == term
    listed = f"Event designators refer to history entries.\n\n{text}\n!n\n\nRefer to line n.\n"
    units = _units(listed)
    assert f"{term}: Start a history substitution unless a space follows." in units, units
    assert "Start a history substitution unless a space follows." not in units, units


@pytest.mark.parametrize("line", ["***", "---", "?"])
def test_a_separator_or_a_stray_mark_is_no_entry(line: str) -> None:
    text = f"{line}\n\nStart a history substitution unless a space follows.\n"
    assert _term(text) is None


def test_a_lead_in_to_one_form_takes_it_though_a_paragraph_follows() -> None:
    text = (
        "The format for appending standard output and standard error is:\n\n"
        "```\n&>>word\n```\n\nThis is semantically equivalent to\n\n```\n>>word 2>&1\n```\n"
    )
    assert _units(text) == [
        "The format for appending standard output and standard error is: `&>>word`."
    ]


def test_a_mark_alone_is_an_entry_not_an_option_of_the_entry_before() -> None:
    text = (
        "Here are the word designators:\n\n^\n\nThe first argument; that is, word 1.\n\n"
        "$\n\nThe last argument.\n\n%\n\nThe first word matched by the most recent search.\n"
    )
    units = _units(text)
    assert "%: The first word matched by the most recent search." in units, units
    assert not any(u.startswith("$ %") for u in units), units


def test_an_option_after_a_lead_in_begins_its_list_of_entries() -> None:
    text = (
        "The following components of mode-args are treated specially:\n\n-o\n\n"
        "Note that the -o option is now fully supported.\n\n"
        "It is emulated on platforms that do not support it.\n\n-shared\n\n"
        "Even if libtool was configured with --disable-static, the object is built shared.\n"
    )
    units = _units(text)
    assert not any(u.endswith("specially: `-o`.") for u in units), units
