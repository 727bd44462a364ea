"""Write tests/slowest.txt: the fast tests that make check leaves out.

    make slowest        # times the quick tests one at a time, then runs this

Reads the times a quick run wrote with ``--time-tests FILE`` and lists every
test that took at least --limit seconds of its own (set-up, call and
tear-down, less what it paid for fixtures it shares with the rest of the
session).  A test that paid that much for a fixture of its module is listed
by its module: left out alone, it would hand the cost to the module's next
test.  The whole suite still runs every one of them; this only keeps the
quick check quick.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("times", type=Path, help="the file a run with --time-tests wrote")
    parser.add_argument("--limit", type=float, default=0.25, help="seconds a test may take (default 0.25)")
    parser.add_argument("--output", type=Path, default=Path("tests/slowest.txt"))
    args = parser.parse_args()
    times: dict[str, dict[str, float]] = json.loads(args.times.read_text(encoding="utf-8"))
    if not times:
        print(f"{args.times}: no tests timed", file=sys.stderr)
        return 1

    # a module whose tests paid --limit for a fixture of the module is listed
    # whole, with all its tests' seconds; other tests each by their own
    modules = {nodeid.split("::")[0] for nodeid, t in times.items() if t["module"] >= args.limit}
    listed: dict[str, float] = defaultdict(float)
    for nodeid, t in times.items():
        module = nodeid.split("::")[0]
        own = t["seconds"] - t["session"]
        if module in modules:
            listed[module] += own
        elif own - t["module"] >= args.limit:
            listed[nodeid] += own

    def kept(nodeid: str) -> bool:
        return nodeid not in listed and nodeid.split("::")[0] not in listed

    others = [t["seconds"] for n, t in times.items() if kept(n)]
    left_out = sum(t["seconds"] for n, t in times.items() if not kept(n))
    tests = sum(1 for n in times if not kept(n))
    header = [
        "# The tests make check leaves out (--leave-out-slowest); the whole suite runs them all.",
        f"# From the quick run of {date.today().isoformat()}, one test at a time (make slowest): each test",
        f"# listed took at least {args.limit:g} s of its own; a module listed alone spent that long on",
        "# a fixture of the module, and its figure is all its tests' seconds.",
        f"# {tests} tests left out, {left_out:.0f} s in all; the {len(others)} tests kept took {sum(others):.0f} s.",
        "# Written by `make slowest` (.ci/slowest.py): regenerate, and read the diff.",
    ]
    body = [f"{listed[name]:6.1f}  {name}" for name in sorted(listed)]
    args.output.write_text("\n".join(header + body) + "\n", encoding="utf-8")
    print(f"{args.output}: {tests} of {len(times)} tests left out ({left_out:.0f} s of "
          f"{left_out + sum(others):.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
