"""Where a process's CPU went, from a py-spy speedscope profile.

    .venv/bin/py-spy record --pid PID --duration 20 --format speedscope -o daphne.json
    .venv/bin/python bench/profile_summary.py daphne.json [--top 15]

(``bench/ws_load.py --profile daphne.json`` records one over its measured
window.) Prints the share of samples by function (self time: the frame on top of
the stack), and by package (inclusive: a sample counts once for every package on
its stack), so "Twisted", "channels_redis", "psycopg" or "games" can be
compared directly. Idle samples (threads waiting in select/epoll, a lock, or a
queue) are left out of both, since py-spy samples idle threads too unless
``--idle`` is off, and they cost no CPU.
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path

# A thread whose top frame is one of these is waiting, not computing.
IDLE = re.compile(r"^(select|poll|epoll|_poll|wait|acquire|_wait_for_tstate_lock|get|sleep|doPoll|recv|"
                  r"_worker|_recv_into|read|accept|readinto|_read_ready)\b")
PACKAGE = re.compile(r"(?:site-packages|lib/python3\.\d+)/([^/]+?)(?:\.py)?/")


def package_of(path: str) -> str:
    if "/site-packages/" in path:
        return PACKAGE.search(path).group(1) if PACKAGE.search(path) else path
    m = re.search(r"/(config|games|accounts|ratings)/", path)
    if m:
        return m.group(1) + " (this project)"
    m = re.search(r"lib/python3\.\d+/([^/]+?)(?:\.py)?(?:/|$)", path)
    return f"stdlib {m.group(1)}" if m else path


def summarize(path: Path, top: int) -> None:
    data = json.loads(path.read_text())
    frames = data["shared"]["frames"]
    by_function: Counter[str] = Counter()
    by_package: Counter[str] = Counter()
    busy = total = 0
    for profile in data["profiles"]:
        for stack, weight in zip(profile["samples"], profile["weights"], strict=True):
            total += weight
            if not stack:
                continue
            leaf = frames[stack[-1]]
            if IDLE.match(leaf["name"]) and ("threading" in leaf.get("file", "") or "selectors" in leaf.get(
                    "file", "") or "queue" in leaf.get("file", "") or "epoll" in leaf.get("file", "")
                    or leaf.get("file", "").endswith(("thread.py", "socket.py"))):
                continue
            busy += weight
            file = leaf.get("file", "?")
            by_function[f"{leaf['name']} ({package_of(file)}, {Path(file).name}:{leaf.get('line', '?')})"] += weight
            for package in {package_of(frames[i].get("file", "?")) for i in stack}:
                by_package[package] += weight
    print(f"{path}: {total} samples, {busy} busy ({busy / max(1, total) * 100:.0f} %)")
    print(f"\nself time by function (top {top}), share of busy samples:")
    for name, weight in by_function.most_common(top):
        print(f"  {weight / busy * 100:5.1f} %  {name}")
    print(f"\ninclusive by package (top {top}):")
    for name, weight in by_package.most_common(top):
        print(f"  {weight / busy * 100:5.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    summarize(args.profile, args.top)


if __name__ == "__main__":
    main()
