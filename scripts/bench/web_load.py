"""A bounded load test of the web table (``burako serve``) on loopback.

    python scripts/bench/web_load.py --bots greedy              # 50 clients, 20 seconds
    python scripts/bench/web_load.py --bots ppo --clients 20 --seconds 10
    python scripts/bench/web_load.py --store memory sqlite --rounds 3   # side by side

Starts ``burako serve`` as a subprocess on a free port of 127.0.0.1 (nothing else is ever
contacted), warms it up (one game and a bot move: numba compiles, ppo loads its policy),
then runs ``--clients`` clients for ``--seconds`` seconds: each plays games against the
bots as the page does (a new game, a bot move while a bot is to act, the first legal move
on its turn), with its own cookie jar like a browser. It stops by itself at the deadline
or after ``--max-requests``, stops the server and prints requests/s, the p50/p99/max
latency and the server's memory (RSS) before and at its peak.

``--store`` says where the server keeps its games: ``sqlite`` (the default of
``burako serve``: every move written to a SQLite file as it is played), ``memory``
(``--memory``: none kept) or ``postgres`` (``--db URL``, a database the caller runs).
Several stores with ``--rounds R`` alternate (``memory sqlite memory sqlite ...``), so
that a noisy machine weighs on each alike, and the last line gives each store's median
requests/s and p99 over the first store's. docs/RELIABILITY.md, "The web table under
load", has figures.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # scripts/<folder>/ sits two below the root
HOST = "127.0.0.1"  # loopback only: the script never sends a request anywhere else
#: bounds of a run, whatever the command line says
MAX_CLIENTS = 200
MAX_SECONDS = 600
STARTUP_SECONDS = 180  # the server's first start compiles the engine
REQUEST_TIMEOUT = 120


def _rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` in MiB (Linux /proc; 0 elsewhere)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Client:
    """One browser: a keep-alive connection, its cookie, its game."""

    def __init__(self, port: int, options: dict) -> None:
        self.conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT)
        self.cookie = ""
        self.options = options
        self.view: dict | None = None

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        headers = {"Cookie": self.cookie} if self.cookie else {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=headers)
        response = self.conn.getresponse()
        text = response.read()
        cookie = response.getheader("set-cookie")
        if cookie:
            self.cookie = cookie.split(";")[0]
        return response.status, json.loads(text) if text else {}

    def step(self, seed: int) -> int:
        """One request as the page would send it next; returns its status."""
        view = self.view
        if view is None or view["over"]:
            status, data = self.request("POST", "/api/games", {**self.options, "seed": seed})
        elif view["to_act"] != view["seat"]:
            status, data = self.request("POST", f"/api/games/{view['id']}/bot")
        else:
            move = {"action": view["moves"][0]["action"]}
            status, data = self.request("POST", f"/api/games/{view['id']}/move", move)
        if status in (200, 201):
            self.view = data
        else:
            self.view = None  # start afresh (a 503, a game dropped)
        return status


STORES = ("memory", "sqlite", "postgres")


def store_options(store: str, db: str | None) -> list[str]:
    """``burako serve``'s options for keeping games in ``store``."""
    if store == "memory":
        return ["--memory"]
    if store == "sqlite":
        return []  # the default: a SQLite file beside the records
    if store == "postgres":
        if not db:
            raise ValueError("--store postgres needs --db postgresql://...")
        return ["--db", db]
    raise ValueError(f"--store must be one of {', '.join(STORES)}, got {store!r}")


def start_server(records: str, options: list[str] = ()) -> tuple[subprocess.Popen, int]:
    """``burako serve`` on a free loopback port, with ``options`` added; returns the
    process and its port."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [
        sys.executable,
        "-c",
        "from burako_env.frontends.cli import main; main()",
        "serve",
        "--host",
        HOST,
        "--port",
        "0",
        "--records",
        records,
        "--bot-delay",
        "0",
        *options,
    ]
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    deadline = time.monotonic() + STARTUP_SECONDS
    port = None
    assert proc.stdout is not None
    while time.monotonic() < deadline and port is None:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("Burako table at "):
            port = int(line.rstrip().rstrip("/").rsplit(":", 1)[1])
    if port is None:
        proc.kill()
        raise RuntimeError("the server did not start (see its output above)")
    # drain its output so that it never blocks on a full pipe
    threading.Thread(target=proc.stdout.read, daemon=True).start()
    while True:  # the URL is printed before the socket listens
        try:
            status, _ = Client(port, {}).request("GET", "/api/options")
        except OSError:
            status = 0
        if status == 200:
            return proc, port
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("the server did not answer")
        time.sleep(0.2)


def run_load(
    clients: int = 50,
    seconds: float = 20.0,
    bots: str = "greedy",
    players: int = 4,
    max_requests: int = 1_000_000,
    store: str = "sqlite",
    db: str | None = None,
) -> dict:
    """Run the load test with the server keeping its games in ``store`` (see
    :func:`store_options`); returns its figures (also printed by :func:`main`)."""
    server_options = store_options(store, db)
    clients = max(1, min(clients, MAX_CLIENTS))
    seconds = max(0.1, min(seconds, MAX_SECONDS))
    options = {"players": players, "bots": bots}
    with tempfile.TemporaryDirectory() as records:
        proc, port = start_server(records, server_options)
        try:
            warm = Client(port, options)  # compile and load before the clock starts
            for _ in range(3):
                warm.step(0)
            rss_before = _rss_mb(proc.pid)
            latencies: list[float] = []
            statuses: dict[int, int] = {}
            lock = threading.Lock()
            deadline = time.monotonic() + seconds
            rss_peak = [rss_before]
            done = threading.Event()

            def watch_memory() -> None:
                while not done.wait(0.25):
                    rss_peak[0] = max(rss_peak[0], _rss_mb(proc.pid))

            def play(index: int) -> None:
                client = Client(port, options)
                seed = index * 1000
                while time.monotonic() < deadline:
                    with lock:
                        if len(latencies) >= max_requests:
                            return
                    began = time.perf_counter()
                    try:
                        status = client.step(seed)
                    except (OSError, http.client.HTTPException, ValueError):
                        status = 0  # no answer (a dropped connection, a timeout)
                        client = Client(port, options)
                    took = time.perf_counter() - began
                    seed += 1
                    with lock:
                        latencies.append(took)
                        statuses[status] = statuses.get(status, 0) + 1

            memory = threading.Thread(target=watch_memory, daemon=True)
            memory.start()
            threads = [threading.Thread(target=play, args=(i,)) for i in range(clients)]
            began = time.monotonic()
            for t in threads:
                t.start()
            for t in threads:
                t.join(REQUEST_TIMEOUT + seconds)
            elapsed = time.monotonic() - began
            done.set()
            memory.join()
        finally:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    ordered = sorted(latencies) or [0.0]

    def quantile(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {
        "bots": bots,
        "store": store,
        "clients": clients,
        "seconds": round(elapsed, 1),
        "requests": len(latencies),
        "requests_per_s": round(len(latencies) / elapsed, 1),
        "p50_ms": round(quantile(0.50) * 1000, 1),
        "p99_ms": round(quantile(0.99) * 1000, 1),
        "max_ms": round(ordered[-1] * 1000, 1),
        "statuses": dict(sorted(statuses.items())),
        "rss_before_mb": round(rss_before),
        "rss_peak_mb": round(rss_peak[0]),
    }


def describe(figures: dict) -> str:
    """One run's figures in one line."""
    return (
        f"{figures['bots']} bots, {figures['store']}, {figures['clients']} clients, "
        f"{figures['seconds']} s: {figures['requests']} requests, "
        f"{figures['requests_per_s']} requests/s; latency p50 {figures['p50_ms']} ms, "
        f"p99 {figures['p99_ms']} ms, max {figures['max_ms']} ms; statuses "
        f"{figures['statuses']}; server RSS {figures['rss_before_mb']} MB before, "
        f"{figures['rss_peak_mb']} MB at peak"
    )


def compare(runs: list[dict]) -> dict:
    """Each store's median requests/s and p99 over the runs, and their ratios to the
    first store's (the one named first)."""
    stores = list(dict.fromkeys(run["store"] for run in runs))

    def median(values: list[float]) -> float:
        ordered = sorted(values)
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2

    table = {
        store: {
            key: median([run[key] for run in runs if run["store"] == store])
            for key in ("requests_per_s", "p99_ms")
        }
        for store in stores
    }
    first = table[stores[0]]
    for row in table.values():
        row["requests_per_s_ratio"] = round(row["requests_per_s"] / first["requests_per_s"], 3)
        row["p99_ratio"] = round(row["p99_ms"] / first["p99_ms"], 3)
    return table


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50, help=f"at most {MAX_CLIENTS}")
    parser.add_argument("--seconds", type=float, default=20.0, help=f"at most {MAX_SECONDS}")
    parser.add_argument("--bots", default="greedy", help="the bots' agent (greedy, ppo, ...)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--max-requests", type=int, default=1_000_000)
    parser.add_argument(
        "--store",
        nargs="+",
        choices=STORES,
        default=["sqlite"],
        help="where the server keeps its games; several alternate, the first the baseline",
    )
    parser.add_argument("--db", help="the PostgreSQL URL for --store postgres")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each store, alternating")
    args = parser.parse_args(argv)
    if "postgres" in args.store and not args.db:
        parser.error("--store postgres needs --db postgresql://...")
    if not 1 <= args.rounds <= 20:
        parser.error(f"--rounds must be 1..20, got {args.rounds}")
    runs = []
    for _ in range(args.rounds):
        for store in args.store:
            figures = run_load(
                args.clients,
                args.seconds,
                args.bots,
                args.players,
                args.max_requests,
                store=store,
                db=args.db,
            )
            print(describe(figures), flush=True)
            runs.append(figures)
    if len(args.store) > 1:
        for store, row in compare(runs).items():
            print(
                f"{store}: median {row['requests_per_s']} requests/s "
                f"(x{row['requests_per_s_ratio']} of {args.store[0]}), median p99 "
                f"{row['p99_ms']} ms (x{row['p99_ratio']})"
            )
    return runs


if __name__ == "__main__":
    main()
