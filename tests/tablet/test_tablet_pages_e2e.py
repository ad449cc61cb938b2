"""The seat tablet's states before it plays: setup form, refused login, no table yet.

A private broker with provisioned seat users and tablet/ over HTTP (conftest.py), no
controller: what a player sees when the tablet is set up wrong or the table is not running.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from .conftest import SKIP, TableRig, open_tablet, shot

pytestmark = [pytest.mark.broker, pytest.mark.skipif(SKIP is not None, reason=SKIP or "")]


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TableRig]:
    r = TableRig(tmp_path_factory.mktemp("tablet-pages"), tablet_seats=(3,))
    try:
        yield r.start(table=False)
    finally:
        r.stop()


def test_setup_form_lists_what_the_url_lacks(browser: Any, rig: TableRig) -> None:
    """Without settings the page asks for them; a bad seat and a missing password are named."""
    base = rig.url(3).split("?")[0]
    page = open_tablet(browser, base + "?table=t1&seat=12")
    try:
        page.wait_for_function("() => document.body.dataset.screen === 'setup'", timeout=10_000)
        assert page.locator("#setup").is_visible()
        errors = page.locator("#setup-errors").inner_text()
        assert "seat: a number 1..10" in errors and "pass:" in errors and "table:" not in errors
        shot(page, "00-setup")
        # filling the form reloads the page with the settings in its URL, and it connects
        form = page.locator("#setup")
        form.locator('input[name="seat"]').fill("3")
        form.locator('input[name="pass"]').fill(rig.creds["seat_users"]["3"]["password"])
        form.locator('input[name="ws"]').fill(rig.url(3).split("ws=")[1])
        form.locator("button").click()
        page.wait_for_function("() => window.livetable && window.livetable.connected", timeout=10_000)
        assert "seat=3" in page.url  # the user defaults to t1-seat3 (docs/tablet.md)
        assert page.evaluate("document.body.dataset.screen") == "catching-up"  # no table running
        assert page.errors == []
    finally:
        page.context.close()


def test_wrong_password_is_said_and_never_connects(browser: Any, rig: TableRig) -> None:
    """The broker refuses a wrong seat password: the page says so and stays "connecting"."""
    page = open_tablet(browser, rig.url(3).replace("&pass=", "&pass=wrong"))
    try:
        page.wait_for_function("() => !document.querySelector('#notice').hidden", timeout=10_000)
        assert "refused this seat's login" in page.locator("#notice").inner_text()
        assert page.evaluate("document.body.dataset.screen") == "connecting"
        assert page.evaluate("window.livetable.connected") is False
        shot(page, "00-login-refused")
    finally:
        page.context.close()
