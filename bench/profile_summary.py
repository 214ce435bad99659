"""Where a process's CPU went, from a py-spy speedscope profile.

    .venv/bin/py-spy record --gil --pid PID --duration 20 --rate 250 --format speedscope -o daphne.json
    .venv/bin/python bench/profile_summary.py daphne.json [--top 15]

(``bench/ws_load.py --profile daphne.json`` records one over its measured
window.) ``--gil`` samples only the thread holding the GIL, so the samples are
the process's Python CPU, not threads waiting for PostgreSQL or a lock. Prints
the share of samples by function and by package where the time was spent
(self: the frame on top of the stack; sums to 100 %), and by package anywhere
on the stack (inclusive: "games" includes the Django and psycopg work a move's
transaction calls), and by stage of a move (each sample once, in the first of
``STAGES`` its stack touches above the last event-loop callback or thread-pool
job that started it). Samples whose top frame is a known wait (a selector, a
condition, psycopg waiting for the server) are counted apart as idle.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

WAITS = {
    "EpollSelector.select",
    "Condition.wait",
    "Connection.wait",
    "Event.wait",
    "_worker",
    "Thread._wait_for_tstate_lock",
    "wait",
    "wait_c",
    "_PollLikeSelector.select",
}
APPS = ("config", "games", "accounts", "ratings", "bench")


def package_of(path: str) -> str:
    m = re.search(r"site-packages/([^/]+?)(?:\.py)?(?:/|$)", path)
    if m:
        return m.group(1)
    m = re.search(rf"/({'|'.join(APPS)})/(?:(engines|ai|services)/)?", path)
    if m:
        return m.group(1) + (f".{m.group(2)}" if m.group(2) else "")
    m = re.search(r"lib/python3\.\d+/([^/]+?)(?:\.py)?(?:/|$)", path)
    return f"stdlib {m.group(1)}" if m else path


# Stages of a move, first match wins, tested against the packages and function
# names anywhere on the sample's stack.
STAGES: list[tuple[str, str]] = [
    ("socket opens (consumer connect, _open)", r"fn:_open$|fn:GameConsumer\.connect$"),
    ("engine (legal moves, apply, position view)", r"pkg:games\.engines$"),
    ("snapshot built for the broadcast (games.bus)", r"fn:snapshot$|fn:send_game_event$"),
    ("PostgreSQL driver (psycopg)", r"pkg:psycopg$"),
    ("Django ORM and transaction", r"pkg:django$"),
    ("move service, own code (games.services, games.store.rows)", r"pkg:games\.services$"),
    ("channel layer (channels_redis, redis-py)", r"pkg:(channels_redis|redis)$"),
    ("websocket frames in and out (daphne, autobahn, Twisted)", r"pkg:(daphne|autobahn|twisted|txaio)$"),
    (
        "thread-pool hand-offs (asgiref, concurrent.futures, threading)",
        r"pkg:(asgiref|stdlib concurrent|stdlib threading)$",
    ),
    ("consumer dispatch (channels, core.websocket, games.live.consumers)", r"pkg:(channels|config|games)$"),
    ("JSON", r"pkg:stdlib json$"),
    ("asyncio event loop", r"pkg:stdlib asyncio$"),
]


BOUNDARIES = {"Handle._run", "_worker", "BaseEventLoop._run_once"}


def stage_of(names: set[str]) -> str:
    for stage, pattern in STAGES:
        rule = re.compile(pattern)
        if any(rule.search(name) for name in names):
            return stage
    return "other"


def summarize(path: Path, top: int) -> None:
    data = json.loads(path.read_text())
    frames = data["shared"]["frames"]
    by_function: Counter[str] = Counter()
    self_package: Counter[str] = Counter()
    any_package: Counter[str] = Counter()
    stages: Counter[str] = Counter()
    busy = idle = 0.0
    for profile in data["profiles"]:
        for stack, weight in zip(profile["samples"], profile["weights"], strict=True):
            if not stack:
                continue
            leaf = frames[stack[-1]]
            if leaf["name"] in WAITS:
                idle += weight
                continue
            busy += weight
            file = leaf.get("file", "?")
            package = package_of(file)
            by_function[f"{leaf['name']}  [{package}, {Path(file).name}:{leaf.get('line', '?')}]"] += weight
            self_package[package] += weight
            for name in {package_of(frames[i].get("file", "?")) for i in stack}:
                any_package[name] += weight
            # Only the frames above the last scheduling point (an event-loop
            # callback, a thread-pool job) say what the sample was doing: every
            # main-thread stack starts in daphne's and Twisted's run loop.
            cut = max((k for k, i in enumerate(stack) if frames[i]["name"] in BOUNDARIES), default=-1)
            own = stack[cut + 1 :]
            names = {f"pkg:{package_of(frames[i].get('file', '?'))}" for i in own}
            names |= {f"fn:{frames[i]['name']}" for i in own}
            stages[stage_of(names) if own else "asyncio event loop"] += weight
    print(f"{path}: {busy:.1f} s of samples busy, {idle:.1f} s in waits (left out)")
    for title, counter in (
        ("by stage of a move", stages),
        ("self time by function", by_function),
        ("self time by package", self_package),
        ("inclusive by package", any_package),
    ):
        print(f"\n{title} (top {top}), share of busy samples:")
        for name, weight in counter.most_common(top):
            print(f"  {weight / busy * 100:5.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    summarize(args.profile, args.top)


if __name__ == "__main__":
    main()
