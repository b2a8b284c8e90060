"""A minimal client of Chromium's DevTools protocol for one page target (over tornado's websocket client,
which the notebook kernel already depends on), and the few calls the book check makes through it: evaluate an
expression in the page, save a screenshot, set the viewport's width."""
from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path


class DevTools:
    """A minimal DevTools-protocol client for one page target."""

    def __init__(self, connection):
        self.connection = connection
        self.next_id = 0
        self.events: list[dict] = []

    @classmethod
    async def connect(cls, url: str) -> "DevTools":
        from tornado.websocket import websocket_connect

        return cls(await websocket_connect(url, max_message_size=512 * 1024 * 1024))

    async def call(self, method: str, timeout: float = 60.0, **params) -> dict:
        self.next_id += 1
        wanted = self.next_id
        await self.connection.write_message(json.dumps({"id": wanted, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = await asyncio.wait_for(self.connection.read_message(), max(deadline - time.monotonic(), 0.01))
            if message is None:
                raise RuntimeError("the browser closed the DevTools connection")
            data = json.loads(message)
            if data.get("id") == wanted:
                if "error" in data:
                    raise RuntimeError(f"{method}: {data['error']}")
                return data.get("result", {})
            if "method" in data:
                self.events.append(data)

    async def wait_event(self, method: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, event in enumerate(self.events):
                if event["method"] == method:
                    return self.events.pop(i)
            message = await asyncio.wait_for(self.connection.read_message(), max(deadline - time.monotonic(), 0.01))
            if message is None:
                raise RuntimeError("the browser closed the DevTools connection")
            data = json.loads(message)
            if "method" in data:
                self.events.append(data)


async def evaluate(devtools: DevTools, expression: str, timeout: float, what: str):
    """The value of ``expression`` in the page (a promise awaited); RuntimeError naming ``what`` if it threw."""
    reply = await devtools.call("Runtime.evaluate", expression=expression, awaitPromise=True, returnByValue=True,
                                timeout=timeout)
    if "exceptionDetails" in reply:
        raise RuntimeError(f"{what} failed: {reply['exceptionDetails'].get('text')}")
    return reply["result"]["value"]


async def save_screenshot(devtools: DevTools, path: Path, timeout: float) -> None:
    shot = await devtools.call("Page.captureScreenshot", format="png", timeout=timeout)
    path.write_bytes(base64.b64decode(shot["data"]))


async def set_width(devtools: DevTools, width: int, timeout: float) -> None:
    await devtools.call("Emulation.setDeviceMetricsOverride", width=width, height=900, deviceScaleFactor=1,
                        mobile=False, timeout=timeout)
