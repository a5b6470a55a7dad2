"""The push channel's own costs that the live tests (tests/api/test_push.py) cannot see:
how a frame is written, and that a message is not handed to a thread before it is
handled (issue 24)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tournaments.api import push


def test_a_frame_is_compact_json_that_reads_back_as_it_was_sent_russian_included() -> None:
    content = {
        "type": "problem",
        "game": 7,
        "problem": {"status": 404, "detail": "нет игры 7", "errors": [{"at": None}]},
        "view": {"hand": [{"rank": "Q", "suit": "♠"}], "score": 1.5, "over": False},
    }
    text = push.frame_text(content)
    assert json.loads(text) == content
    assert "нет игры 7" in text and "♠" in text  # UTF-8 characters, not \u escapes
    assert text == json.dumps(content, ensure_ascii=False, separators=(",", ":"))


def test_a_frame_writes_keys_that_are_not_strings_as_the_standard_library_does() -> None:
    content: dict[Any, Any] = {"type": "view", "counts": {0: 3, 1: 4}}
    assert json.loads(push.frame_text(content)) == json.loads(json.dumps(content))


def test_a_message_goes_to_its_handler_without_channels_hop_to_close_connections(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async def hop() -> None:
        raise AssertionError("handed to Channels' database thread")

    monkeypatch.setattr("channels.consumer.aclose_old_connections", hop)
    consumer = push.PushConsumer()
    handled: list[dict[str, Any]] = []

    async def websocket_receive(message: dict[str, Any]) -> None:
        handled.append(message)

    consumer.websocket_receive = websocket_receive  # type: ignore[method-assign,assignment]
    message = {"type": "websocket.receive", "text": "{}"}
    asyncio.run(consumer.dispatch(message))
    assert handled == [message]
    with pytest.raises(ValueError, match="No handler"):
        asyncio.run(consumer.dispatch({"type": "websocket.dance"}))


def test_channels_dispatch_is_still_the_one_the_consumer_copied_without_its_hop() -> None:
    """PushConsumer.dispatch is Channels' AsyncConsumer.dispatch less one line: if an
    upgrade of Channels changes its dispatch, this fails, so that the copy is looked at
    again rather than left behind (what it does is in push.PushConsumer.dispatch's text)."""
    import inspect
    import textwrap

    from channels.consumer import AsyncConsumer

    body = textwrap.dedent(inspect.getsource(AsyncConsumer.dispatch))
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    assert lines == [
        "async def dispatch(self, message):",
        '"""',
        "Works out what to do with a message.",
        '"""',
        "handler = getattr(self, get_handler_name(message), None)",
        "if handler:",
        "await aclose_old_connections()",
        "await handler(message)",
        "else:",
        'raise ValueError("No handler for message type %s" % message["type"])',
    ], "Channels' dispatch changed: review PushConsumer.dispatch, which copies it"


def test_a_client_gone_mid_answer_leaves_the_consumer_to_its_disconnect() -> None:
    # Found by trying: a bot that sent a move and dropped its socket before the answer made
    # the answer's send raise, which ended the consumer before its disconnect, so the
    # caller's open-stream slots stayed taken until they expired.
    from django.contrib.auth.models import AnonymousUser
    from uvicorn.protocols.utils import ClientDisconnected

    consumer = push.PushConsumer()
    consumer.begin({"user": AnonymousUser(), "auth": None, "refusal": None})

    async def gone(message: dict[str, Any]) -> None:
        raise ClientDisconnected()

    consumer.base_send = gone  # type: ignore[method-assign,assignment]
    asyncio.run(consumer.send_json({"type": "hello"}))  # nothing raised
    asyncio.run(consumer.receive(text_data='{"type": "dance", "game": 1}'))  # its refusal
