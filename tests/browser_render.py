#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Drive headless Chromium through chromedriver's WebDriver HTTP API (the
standard library only): load the page `axe render --format html` wrote from
a file:// URL, click logical cell K, read the shown points, type a
coordinate into the highlight box, and save a screenshot.

usage: browser_render.py CHROMEDRIVER CHROMIUM PAGE K COORD EXPECT SHOT
           [PAGE2 COORD2 EXPECT2]...
EXPECT holds `axe apply`'s answer for the cell, one `{axis: v, ...}` line
per point. Each further PAGE2 COORD2 EXPECT2 triple loads another page,
types COORD2 (a coordinate of the layout's shape, or a single linear
index) and checks that the page shows the coordinate of the layout's
shape and EXPECT2's points. The screenshot is taken last, on the first
page with cell K clicked and its points shown (checked again right before
it). Exit 0 when every page shows exactly the expected points (as axis ->
value maps, in order), 1 when one does not or the browser does not start
(the caller checked that chromium and chromedriver are installed)."""
import base64
import json
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


def call(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.loads(resp.read().decode())["value"]


def points(text):
    """The {axis: value} maps of every `{a: 1, b: 2}` line of "text"."""
    out = []
    for line in text.splitlines():
        m = re.fullmatch(r"\s*\{(.*)\}\s*", line)
        if m:
            out.append({k.strip(): int(v) for k, v in
                        (kv.split(":") for kv in m.group(1).split(","))})
    return out


def start(driver):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([driver, "--port=%d" % port],
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    base = "http://127.0.0.1:%d" % port
    for _ in range(100):
        try:
            if call(base, "GET", "/status").get("ready"):
                return proc, base
        except OSError:
            pass
        time.sleep(0.1)
    proc.kill()
    return None, base


def session(base, chromium):
    caps = {"capabilities": {"alwaysMatch": {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": chromium, "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--window-size=1600,1200"]}}}}
    return call(base, "POST", "/session", caps)["sessionId"]


def element(base, sid, css):
    return call(base, "POST", "/session/%s/element" % sid,
                {"using": "css selector", "value": css})[ELEMENT]


def attr(base, sid, el, name):
    return call(base, "GET", "/session/%s/element/%s/attribute/%s"
                % (sid, el, name))


def interact(base, sid, k, coord):
    """Color by lane (cell K is lane 8: palette slot c8, its first band
    relabelled 'w6 r1'; physical cell 81 is lane 8 too), switch to the
    physical view and click the cell of warp 6, lane 8, register 1 (row
    32 + 8 of the (warp, lane) rows, column 1): it holds COORD."""
    failures = 0
    opt = element(base, sid, '#colorby option[value="lane"]')
    call(base, "POST", "/session/%s/element/%s/click" % (sid, opt), {})
    cell = element(base, sid, '#logical rect[data-k="%s"]' % k)
    label = element(base, sid, '#logical rect[data-k="%s"] + text' % k)
    shown = call(base, "GET", "/session/%s/element/%s/text" % (sid, label))
    if "c8" not in attr(base, sid, cell, "class").split() or \
            shown != "w6 r1":
        print("FAIL: colored by lane, cell %s has class %r, label %r "
              "(want c8, 'w6 r1')"
              % (k, attr(base, sid, cell, "class"), shown))
        failures += 1
    phys = element(base, sid, '#physical rect[data-k="81"]')
    if "c8" not in attr(base, sid, phys, "class").split():
        print("FAIL: colored by lane, physical cell w6 l8 r1 has class %r"
              % attr(base, sid, phys, "class"))
        failures += 1
    opt = element(base, sid, '#view option[value="physical"]')
    call(base, "POST", "/session/%s/element/%s/click" % (sid, opt), {})
    phys = element(base, sid, '#physical rect[data-k="81"]')
    call(base, "POST", "/session/%s/element/%s/click" % (sid, phys), {})
    info = element(base, sid, "#info")
    shown = call(base, "GET", "/session/%s/element/%s/text" % (sid, info))
    want = "[%s]" % coord
    if want not in shown.splitlines()[1:]:
        print("FAIL: physical cell w6 l8 r1 shows %r, want %s"
              % (shown, want))
        failures += 1
    print("physical cell 81: %s" % shown.replace("\n", "  "))
    return failures


def info_text(base, sid):
    info = element(base, sid, "#info")
    return call(base, "GET", "/session/%s/element/%s/text" % (sid, info))


def type_coord(base, sid, page, coord, want):
    """Type COORD into the box of PAGE: the info box must name the
    coordinate of the layout's shape and list WANT's points."""
    call(base, "POST", "/session/%s/url" % sid, {"url": "file://" + page})
    box = element(base, sid, "#find")
    call(base, "POST", "/session/%s/element/%s/value" % (sid, box),
         {"text": coord})
    shown = info_text(base, sid)
    head = shown.splitlines()[0] if shown else ""
    print("typed %s: %s" % (coord, shown.replace("\n", "  ")))
    if points(shown) != want or not want:
        print("FAIL: typing %s shows %r, want %r" % (coord, shown, want))
        return 1
    crd = re.findall(r"-?\d+", coord)
    if len(crd) > 1 and head != "[%s]" % ",".join(crd):
        print("FAIL: typing %s names the cell %r" % (coord, head))
        return 1
    return 0


def screenshot(base, sid, page, k, want, shot):
    """Reload the first page, click cell K with the window scrolled to the
    top and save the screenshot once the info box shows its points."""
    call(base, "POST", "/session/%s/url" % sid, {"url": "file://" + page})
    call(base, "POST", "/session/%s/execute/sync" % sid,
         {"script": "window.scrollTo(0, 0);", "args": []})
    cell = element(base, sid, '#logical rect[data-k="%s"]' % k)
    call(base, "POST", "/session/%s/element/%s/click" % (sid, cell), {})
    shown = info_text(base, sid)
    png = call(base, "GET", "/session/%s/screenshot" % sid)
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png))
    print("screenshot: %s (info: %s)" % (shot, shown.replace("\n", "  ")))
    if points(shown) != want:
        print("FAIL: the screenshot shows %r, not cell %s" % (shown, k))
        return 1
    return 0


def check(base, sid, page, k, coord, want, shot):
    call(base, "POST", "/session/%s/url" % sid, {"url": "file://" + page})
    cell = element(base, sid, '#logical rect[data-k="%s"]' % k)
    before = call(base, "GET", "/session/%s/element/%s/rect" % (sid, cell))
    call(base, "POST", "/session/%s/element/%s/click" % (sid, cell), {})
    info = element(base, sid, "#info")
    shown = call(base, "GET", "/session/%s/element/%s/text" % (sid, info))
    failures = 0
    # Showing a cell's points must not move the cells: a box that grew
    # with its text pushed the pictures down, and the cell that came under
    # the still pointer took over the box (mouseover; Chromium 156 fires
    # it after a layout shift).
    after = call(base, "GET", "/session/%s/element/%s/rect" % (sid, cell))
    if (after["x"], after["y"]) != (before["x"], before["y"]):
        print("FAIL: showing cell %s moved it from %r to %r"
              % (k, before, after))
        failures += 1
    if points(shown) != want or not want:
        print("FAIL: clicked cell %s shows %r, axe apply says %r"
              % (k, shown, want))
        failures += 1
    box = element(base, sid, "#find")
    call(base, "POST", "/session/%s/element/%s/value" % (sid, box),
         {"text": coord})
    typed = call(base, "GET", "/session/%s/element/%s/text" % (sid, info))
    if points(typed) != want:
        print("FAIL: typing %s shows %r" % (coord, typed))
        failures += 1
    failures += interact(base, sid, k, coord)
    print("clicked cell %s: %s" % (k, shown.replace("\n", "  ")))
    return failures


def main():
    driver, chromium, page, k, coord, expect, shot = sys.argv[1:8]
    more = sys.argv[8:]
    total = 7 + len(more) // 3
    with open(expect) as f:
        want = points(f.read())
    proc, base = start(driver)
    if proc is None:
        print("FAIL: chromedriver is installed but did not start")
        print("0 passed, %d failed" % total)
        return 1
    try:
        try:
            sid = session(base, chromium)
        except OSError as e:
            print("FAIL: chromium is installed but no browser session "
                  "started: %s" % e)
            print("0 passed, %d failed" % total)
            return 1
        try:
            failures = check(base, sid, page, k, coord, want, shot)
            for i in range(0, len(more) - 2, 3):
                with open(more[i + 2]) as f:
                    failures += type_coord(base, sid, more[i], more[i + 1],
                                           points(f.read()))
            failures += screenshot(base, sid, page, k, want, shot)
        except urllib.error.HTTPError as e:
            print("FAIL: the page does not answer as expected: %s %s"
                  % (e, e.read().decode(errors="replace")[:300]))
            failures = total
        finally:
            call(base, "DELETE", "/session/%s" % sid)
    finally:
        proc.kill()
        proc.wait()
    print("%d passed, %d failed" % (total - failures, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
