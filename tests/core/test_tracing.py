"""core.tracing: a no-op until a tracer is installed; on-commit hand-offs keep their trace."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import transaction
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from core import tracing


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.enable(provider.get_tracer("test"))
    try:
        yield exporter
    finally:
        tracing.disable()


def test_off_everything_is_a_no_op() -> None:
    assert not tracing.enabled()
    assert tracing.span("a", x=1) is tracing.span("b")
    with tracing.span("a", x=1) as current:
        assert current is None
    tracing.annotate(x=1)

    @tracing.traced("f")
    def double(n: int) -> int:
        return 2 * n

    assert double(21) == 42


@pytest.mark.django_db(transaction=True)
def test_off_on_commit_is_djangos() -> None:
    ran: list[int] = []
    with transaction.atomic():
        tracing.on_commit("x", lambda: ran.append(1))
        assert ran == []
    assert ran == [1]


def test_spans_nest_and_carry_their_attributes(spans: InMemorySpanExporter) -> None:
    @tracing.traced("inner")
    def inner() -> None:
        tracing.annotate(**{"canasta.game.id": 7, "canasta.seat": None})

    with tracing.span("outer", kind="test", absent=None):
        inner()
    done = {s.name: s for s in spans.get_finished_spans()}
    assert dict(done["outer"].attributes or {}) == {"kind": "test"}
    assert dict(done["inner"].attributes or {}) == {"canasta.game.id": 7}
    outer = done["outer"].context
    assert outer is not None and done["inner"].parent is not None
    assert done["inner"].parent.span_id == outer.span_id


@pytest.mark.django_db(transaction=True)
def test_an_on_commit_hand_off_is_a_child_of_the_span_that_registered_it(
    spans: InMemorySpanExporter,
) -> None:
    ran: list[str] = []
    with transaction.atomic():
        with tracing.span("move"):
            tracing.on_commit("live.notify", lambda: ran.append("notified"), **{"a": 1})
        with tracing.span("elsewhere"):
            pass
        assert ran == []
    assert ran == ["notified"]
    done = {s.name: s for s in spans.get_finished_spans()}
    hand_off = done["on_commit live.notify"]
    move = done["move"].context
    assert move is not None and hand_off.parent is not None
    assert hand_off.parent.span_id == move.span_id  # not "elsewhere", not a root
    assert dict(hand_off.attributes or {}) == {"a": 1}


@pytest.mark.django_db(transaction=True)
def test_a_rolled_back_hand_off_never_runs(spans: InMemorySpanExporter) -> None:
    ran: list[int] = []
    with pytest.raises(RuntimeError), transaction.atomic():
        tracing.on_commit("x", lambda: ran.append(1))
        raise RuntimeError
    assert ran == []
    assert not [s for s in spans.get_finished_spans() if s.name == "on_commit x"]


def test_a_failure_is_recorded_by_its_code_never_its_message(
    spans: InMemorySpanExporter,
) -> None:
    class Refused(Exception):
        code = "card_not_in_hand"

    @tracing.traced("move")
    def move() -> None:
        raise Refused("you do not hold QH")

    with pytest.raises(Refused), tracing.span("outer"):
        move()
    with pytest.raises(KeyError), tracing.span("plain"):
        raise KeyError("QH")
    done = {s.name: s for s in spans.get_finished_spans()}
    assert done["move"].attributes == {"error.type": "card_not_in_hand"}
    assert done["outer"].attributes == {"error.type": "card_not_in_hand"}
    assert done["plain"].attributes == {"error.type": "KeyError"}
    for span in done.values():
        assert not span.events  # no exception event: its message may quote the request
        assert "QH" not in repr(span.to_json())
