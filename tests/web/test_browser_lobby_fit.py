"""The lobby's drop-downs show their whole text (issue 27, point 5): at 1280x900 and 390x844,
in every language, no select's chosen option is cut ("No Mercy 168 ca")."""

from __future__ import annotations

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is in .[dev]")

from playwright.sync_api import Browser, expect
from test_browser import PHONE, WAIT_MS, _open_lobby, base_url, browser  # noqa: F401

#: For every select: the widest option's text against the room the select leaves for it
#: (its inner width less the padding and the arrow), measured with the select's own font.
_CUT = """() => {
  const ctx = document.createElement('canvas').getContext('2d');
  const cut = [];
  for (const s of document.querySelectorAll('select')) {
    if (!s.offsetParent) continue;
    const cs = getComputedStyle(s);
    ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    for (const o of s.options) {
      const w = ctx.measureText(o.textContent).width;
      const what = `${s.id || s.name}: "${o.textContent}"`;
      if (w > room) cut.push(`${what} ${Math.round(w)} > ${Math.round(room)}`);
    }
  }
  return cut;
}"""


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_no_lobby_drop_down_cuts_its_text(base_url: str, browser: Browser, size: str) -> None:  # noqa: F811
    viewport = PHONE if size == "phone" else {"width": 1280, "height": 900}
    ctx = browser.new_context(viewport=viewport, locale="en-GB")
    ctx.set_default_timeout(WAIT_MS)
    page = ctx.new_page()
    try:
        _open_lobby(page, base_url)
        page.click("details.options summary")
        for lang in ("en", "fi", "ru", "de", "tr"):
            page.select_option("#lang", lang)
            expect(page.locator("html")).to_have_attribute("lang", lang)
            for preset in ("no-mercy", "classic"):
                page.select_option("#preset", preset)
                cut = page.evaluate(_CUT)
                assert not cut, (lang, preset, cut)
    finally:
        ctx.close()
