"""Benchmark: what a user waits for when a command starts, each run a new process.

    python -m scripts.bench_startup [--runs 5]
    python -m scripts.bench_startup --paired [--runs 7]

On the embedded default (embedded PostgreSQL, Qdrant Edge) in a throw-away ARIA_MEM_HOME with
10 memories, the median over ``--runs`` new processes of:

  aria-mem --help                         (imports only)
  aria-mem list                           (PostgreSQL only)
  aria-mem search "Any ideas for dinner tonight?"
      in-process model, service warm      (the aria-mem service has the index and the model)
      in-process model, no service yet    (this search starts the service, which loads the
                                           model; the wall time includes that wait)
      Ollama adapter, fake Ollama server  (the model server's time is the fake's: ~nothing)

For each: wall time, CPU time (user + system) and peak memory of the command's process, and
whether it imports torch (from one more run under ``-X importtime``, not timed). The embedded
PostgreSQL is started before timing, as it is after a machine's first command.

``--paired``: a warm ``search`` against ``--help``, run in turns (help, search, help, ...) so
that both see the same machine load; per pair the ratio search/help, and the medians of both
and of the ratios (issue 38: a warm search at most 1.25x ``--help``), in wall time and in the
command's own CPU time (user + system, which a busy machine disturbs less).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

ROOT = Path(__file__).resolve().parent.parent

QUESTION = "Any ideas for dinner tonight?"
FACTS = [
    "The user is allergic to peanuts.",
    "The user's sister Maya loves pottery.",
    "The user is vegetarian since 2019.",
    "The user's favourite cuisine is Thai food.",
    "The user works as a nurse on night shifts.",
    "The user has a dog called Biscuit.",
    "The user is learning Spanish.",
    "The user runs every Sunday morning.",
    "The user dislikes coriander.",
    "The user's partner Sam cooks on Fridays.",
]


@dataclass(frozen=True)
class Run:
    wall: float
    cpu: float
    peak_mib: float
    torch: bool


def run_once(args: list[str], env: dict[str, str], *, imports: bool = False) -> Run:
    """One new process; its own rusage (os.wait4), not the sum of all children so far.
    With ``imports``, run under ``-X importtime`` (slower) to see whether torch was loaded."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, *(["-X", "importtime"] if imports else []), "-m", "aria_mem", *args],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    stderr = proc.stderr.read().decode(errors="replace")
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        tail = "\n".join(line for line in stderr.splitlines() if "import time" not in line)
        raise SystemExit(f"aria-mem {' '.join(args)} failed ({proc.returncode}): {tail[-800:]}")
    torch = any(
        line.startswith("import time:") and line.rsplit("|", 1)[-1].strip() == "torch"
        for line in stderr.splitlines()
    )
    return Run(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, torch)


def measure(label: str, args: list[str], env: dict[str, str], runs: int) -> str:
    loads_torch = run_once(args, env, imports=True).torch  # also warms the file cache
    got = [run_once(args, env) for _ in range(runs)]
    wall = statistics.median(r.wall for r in got)
    cpu = statistics.median(r.cpu for r in got)
    peak = statistics.median(r.peak_mib for r in got)
    torch = "yes" if loads_torch else "no"
    row = f"| {label} | {wall:.2f} s | {cpu:.2f} s | {peak:.0f} MiB | {torch} |"
    print(row, flush=True)
    return row


def stop_service(env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "aria_mem", "stop"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        check=True,
    )


def measure_cold(label: str, args: list[str], env: dict[str, str], runs: int) -> str:
    """Each run with no service running (stopped before it; PostgreSQL started again)."""
    got = []
    for _ in range(runs):
        stop_service(env)
        run_once(["list"], env)  # PostgreSQL up again: only the service is cold
        got.append(run_once(args, env))
    wall = statistics.median(r.wall for r in got)
    cpu = statistics.median(r.cpu for r in got)
    peak = statistics.median(r.peak_mib for r in got)
    row = f"| {label} | {wall:.2f} s | {cpu:.2f} s | {peak:.0f} MiB | no |"
    print(row, flush=True)
    return row


def paired(env: dict[str, str], runs: int) -> None:
    """A warm search and ``--help`` in turns; the median of each and of their ratio."""
    search = ["search", QUESTION]
    run_once(search, env)  # the service up, its model loaded, the file cache warm
    run_once(["--help"], env)
    pairs = []
    for _ in range(runs):
        help_run = run_once(["--help"], env)
        search_run = run_once(search, env)
        pairs.append((help_run, search_run))
        print(
            f"help {help_run.wall:.3f} s  search {search_run.wall:.3f} s  "
            f"ratio {search_run.wall / help_run.wall:.2f}  (CPU {help_run.cpu:.3f} s, "
            f"{search_run.cpu:.3f} s: {search_run.cpu / help_run.cpu:.2f})",
            flush=True,
        )
    for what in ("wall", "cpu"):
        helps = [getattr(h, what) for h, _ in pairs]
        searches = [getattr(s, what) for _, s in pairs]
        ratio = statistics.median(s / h for h, s in zip(helps, searches, strict=True))
        print(
            f"median of {runs} pairs, {what}: --help {statistics.median(helps):.3f} s, warm "
            f"search {statistics.median(searches):.3f} s, ratio {ratio:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument(
        "--paired", action="store_true", help="only a warm search against --help, in turns"
    )
    args = parser.parse_args()
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="aria-startup-") as tmp:
        home = Path(tmp) / "home"
        base = {k: v for k, v in os.environ.items() if not k.startswith(("ARIA_MEM_", "OLLAMA_"))}
        local = {
            **base,
            "ARIA_MEM_HOME": str(home),
            "ARIA_MEM_EMBEDDER_PROVIDER": "sentence-transformers",
            "ARIA_MEM_RETRIEVAL_MIN_SIMILARITY": "0.25",
        }
        try:
            for fact in FACTS:
                run_once(["remember", fact], local)
            if args.paired:
                paired(local, args.runs)
                return
            rows.append(
                measure(
                    "`aria-mem search`, in-process model, service warm",
                    ["search", QUESTION],
                    local,
                    args.runs,
                )
            )
            rows.append(
                measure_cold(
                    "`aria-mem search` that starts the service (and its model)",
                    ["search", QUESTION],
                    local,
                    args.runs,
                )
            )
            rows.append(measure("`aria-mem list`", ["list"], local, args.runs))
            rows.append(measure("`aria-mem --help`", ["--help"], local, args.runs))
            with FakeOllama(FakeOllamaState(dim=384)) as fake:
                remote = {
                    **base,
                    "ARIA_MEM_HOME": str(Path(tmp) / "ollama-home"),
                    "ARIA_MEM_EMBEDDER_PROVIDER": "ollama",
                    "ARIA_MEM_EMBEDDER_HOST": fake.url,
                }
                for fact in FACTS:
                    run_once(["remember", fact], remote)
                rows.append(
                    measure(
                        "`aria-mem search`, Ollama adapter, fake server",
                        ["search", QUESTION],
                        remote,
                        args.runs,
                    )
                )
        finally:
            from aria_mem.adapters.postgres import embedded
            from aria_mem.adapters.service.folder import stop_service as stop_in

            for folder in (home, Path(tmp) / "ollama-home"):
                stop_in(folder / "data" / "index")
                embedded.stop(folder / "data" / "postgres")
    print(f"\nmedian of {args.runs} runs, each a new process (its own CPU and memory, not the")
    print("service's)\n")
    print("| command | wall | CPU | peak memory | imports torch |")
    print("|---|---:|---:|---:|---:|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
