"""core.converters: a row id in a path is 1 to 18 digits; a longer number is no such URL."""

from __future__ import annotations

import pytest

from tests.games.api.conftest import PlayerClient, problem

HUGE = "487549700207416770560"  # more than a 64-bit key holds


@pytest.mark.parametrize(
    "path",
    [
        f"/api/v1/games/{HUGE}/",
        f"/api/v1/games/{HUGE}/table/",
        f"/api/v1/players/{HUGE}/profile/",
        f"/api/v1/players/me/webhooks/{HUGE}/deliveries/",
        f"/api/v1/games/{HUGE}/review/",
    ],
)
def test_an_id_too_large_for_any_row_is_not_found(ada: PlayerClient, path: str) -> None:
    problem(ada.get(path), 404, "not_found")


def test_the_largest_id_a_row_can_have_is_looked_up(ada: PlayerClient) -> None:
    problem(ada.get("/api/v1/games/999999999999999999/"), 404, "not_found")  # no such game
    assert ada.get(f"/api/v1/games/{HUGE}/").status_code == 404
