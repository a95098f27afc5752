"""clients/examples/bot.py (the Python tutorial bot) against a real tapisd.

Environment: TAPISD, BOT_PY.
"""
import os
import subprocess
import sys

from clientutil import Server, check, run

TAPISD = os.environ["TAPISD"]
BOT_PY = os.environ["BOT_PY"]


@check
def the_example_bot_plays_a_game_to_the_end():
    server = Server(TAPISD, "--bot-delay", "0")
    try:
        p = subprocess.run([sys.executable, BOT_PY, server.address, "--players", "2",
                            "--games", "2", "--target", "40"],
                           capture_output=True, text=True, timeout=240)
    finally:
        server.stop()
    assert p.returncode == 0, "exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr)
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("game 1: ") and lines[1].startswith(
        "game 2: "), p.stdout


@check
def the_example_stays_short_and_uses_the_standard_library_only():
    text = open(BOT_PY).read()
    assert len(text.splitlines()) < 150
    for line in text.splitlines():
        if line.startswith("import ") or line.startswith("from "):
            mod = line.split()[1].split(".")[0]
            assert mod in ("json", "random", "socket", "sys"), line


if __name__ == "__main__":
    run()
