"""Chromium for the audit page's browser tests: Debian's ``/usr/bin/chromium`` under Playwright.

Playwright never downloads a browser here: it launches the system Chromium (``make test``
installs it when missing) headless, without a sandbox (tests run as root in containers).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.helpers import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TIMEOUT_MS = 30_000
# With AUDIT_SCREENSHOTS=1 (`make audit-screenshots`) the browser tests also save what they
# saw where the documentation shows it; otherwise only into the test's temporary folder.
SCREENSHOTS = ROOT / "benchmarks" / "results" / "audit_page"


def require_chromium() -> None:
    """Fail (not skip) without Chromium: the page's tests are part of the suite."""
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs it (apt-get install chromium)")


@contextmanager
def chromium(sync_api: Any) -> Iterator[Any]:
    """A headless Chromium for a module's tests."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@contextmanager
def tab(browser: Any, *, width: int = 1400, height: int = 1000) -> Iterator[Any]:
    """A fresh browser context and page; fails the test on any JavaScript error on the page."""
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    yield page
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def sign_in(page: Any, url: str, key: str) -> None:
    """Open the audit page and enter an API key."""
    page.goto(f"{url}/audit")
    page.get_by_role("textbox", name="API key").fill(key)
    page.get_by_role("button", name="Use this key", exact=True).click()


def screenshot(page: Any, folder: Path, name: str) -> Path:
    """A PNG of the viewport in ``folder`` (and in :data:`SCREENSHOTS` when asked for)."""
    path = folder / name
    page.screenshot(path=str(path))
    if os.environ.get("AUDIT_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        # A palette of 64 colours keeps a page of text legible at a third of the size.
        with Image.open(path) as shot:
            shot.convert("RGB").quantize(colors=64).save(SCREENSHOTS / name, optimize=True)
    return path
