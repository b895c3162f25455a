"""The README's picture of the review page (`make screenshot`): a throw-away home on the embedded
defaults with a few memories, the fake Ollama of the tests for vectors, `aria-mem ui` as a
person starts it, and Debian's chromium through Playwright on its "why" view.

    python -m scripts.screenshot [docs/review-page.png]
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import httpx

from tests.fakes.ollama_server import FakeOllama

ROOT = Path(__file__).resolve().parent.parent
USER, COMPANION = "sam", "aria"
MEMORIES = (
    ("RelationshipFact", "Sam's sister Maya loves pottery and throws bowls on Sundays."),
    ("RelationshipFact", "Sam's cat Biscuit hates the vacuum cleaner."),
    ("Preference", "Sam drinks green tea in the morning, never coffee."),
    ("Goal", "Sam wants to run a half marathon in the spring."),
    ("EpisodicEvent", "Sam went to Maya's pottery exhibition in May."),
)
MESSAGE = "How+is+Sam%27s+sister+Maya%2C+who+loves+pottery%3F"


def main(target: Path) -> None:
    chromium = shutil.which("chromium")
    if chromium is None:
        sys.exit("screenshot: no browser found (apt install chromium)")
    with tempfile.TemporaryDirectory(prefix="aria-screenshot-") as folder, FakeOllama() as fake:
        env = {k: v for k, v in os.environ.items() if not k.startswith("ARIA_MEM_")}
        env |= {"ARIA_MEM_HOME": str(Path(folder) / "home"), "ARIA_MEM_EMBEDDER_HOST": fake.url}
        env |= {"ARIA_MEM_USER": USER, "ARIA_MEM_COMPANION": COMPANION}
        seed = Path(folder) / "seed.jsonl"
        seed.write_text("".join(_line(kind, text) + "\n" for kind, text in MEMORIES))
        _aria(env, "migrate")
        _aria(env, "import", str(seed))
        try:
            target.write_bytes(_picture(env, chromium))
        finally:
            _aria(env, "stop")
    print(f"screenshot: wrote {target}")


def _line(kind: str, text: str) -> str:
    return json.dumps(
        {"id": str(uuid.uuid4()), "user_id": USER, "companion_id": COMPANION, "type": kind}
        | {"text": text, "created_at": "2026-06-01T10:00:00+00:00"}
    )


def _aria(env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "aria_mem", *args], env=env, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"screenshot: `aria-mem {' '.join(args)}` failed ({done.returncode})")


def _picture(env: dict[str, str], chromium: str) -> bytes:
    """The page's "why" view for a question about Sam's sister, 1000 by 640 pixels."""
    from playwright.sync_api import sync_playwright

    ui = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "ui", "--no-browser", "--json", "--address",
         "127.0.0.1:0", "--user", USER, "--companion", COMPANION],
        stdout=subprocess.PIPE, env=env, cwd=ROOT, text=True,
    )  # fmt: skip
    try:
        assert ui.stdout is not None
        address = json.loads(ui.stdout.readline())
        with httpx.Client(follow_redirects=False, timeout=30) as client:
            cookie = client.get(address["login"]).cookies
        base = address["url"].rstrip("/")
        path = "/" + base.split("/", 3)[3]
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
            context = browser.new_context(viewport={"width": 1000, "height": 640})
            context.add_cookies(
                [{"name": name, "value": value, "domain": "127.0.0.1", "path": path}
                 for name, value in cookie.items()]
            )  # fmt: skip
            page = context.new_page()
            page.goto(f"{base}/why?message={MESSAGE}")
            picture = page.screenshot()
            browser.close()
        return picture
    finally:
        ui.terminate()
        ui.wait(timeout=30)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "review-page.png")
