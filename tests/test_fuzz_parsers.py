"""The parsers under mutated real input (a short run; ``make fuzz`` runs 10,000 per format)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fuzz_support import check_parse, mutations, seed

FORMATS = ["markdown", "html", "pdf"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_seed_parses(fmt: str) -> None:
    assert check_parse(seed(fmt), fmt) == "parsed"


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_mutated_document_parses_or_is_refused(fmt: str) -> None:
    @settings(
        max_examples=60 if fmt != "pdf" else 25,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(data=mutations(fmt))
    def parses_or_is_refused(data: bytes) -> None:
        check_parse(data, fmt)

    parses_or_is_refused()
