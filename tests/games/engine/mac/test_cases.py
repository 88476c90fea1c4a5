"""Each mac refusal case raises its code with a message naming the reason."""

from __future__ import annotations

import pytest

from games.engine import ERROR_CODES

from .cases import MAC_CASES, MAC_CASES_EXTRA

ALL = {**MAC_CASES, **MAC_CASES_EXTRA}


@pytest.mark.parametrize("code", sorted(ALL))
def test_case_raises_its_code(code: str) -> None:
    build, phrase = ALL[code]
    err = build()
    assert err.code == code, (code, err)
    assert phrase in err.message
    assert code in ERROR_CODES
