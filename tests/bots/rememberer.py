"""A hostile Ninjan bot for tests/test_fair_play.py: it tries to carry its hand from one rotation of a
duplicate deal to the next, where the other seat now holds it, through every store it might reach.

usage: rememberer.py ADD_KEY REQUEST_KEY KEYCTL   (the native numbers of those system calls; ARENA_ADDRESS
and ARENA_TOKEN from the environment, as for every bot)

A duplicate deal deals the same cards in each rotation of the seats: the cards this bot holds in one
rotation are the hand its opponent holds in the next, and the three face-up piles, the same in every
rotation of a deal, name the deal. Each process of the bot (each rotation starts a fresh one):

1. at start-up, before it connects, looks in every store for what an earlier process left (``looked``,
   reported when the match starts, so that the match's log keeps it);
2. at its first decision, predicts the opponent's hand (``prediction``: what a store gave for this
   deal, else null), then stores ``{deal: hand}`` in every store and reads it back at once where the
   store took it (``stored``: "ok" or why not; ``kept``: that this very process can read it back;
   ``keeper_holds``, at the second decision: what its child serves);
3. plays the first legal action every time (the test reads its strikes in the match's result).

The stores: a module global (``memory``, and how many matches this process has played), a child that
leaves the session and serves the hand on an abstract Unix socket (``keeper``), files in /tmp, HOME,
/dev/shm, /var/tmp, /run/arena and the bot's own code folder, a System V shared memory segment
(``sysv_shm``), and the kernel keyring: ``add_key`` into its session keyring (@s), the user keyring
(@u) and the user-session keyring (@us), a named session keyring joined by name, ``keyctl link`` of
what it has into every keyring whose id /proc/keys shows and into @u and @us; looking back, a
``keyctl search`` of @s, @u, @us, ``request_key``, and a ``keyctl read`` of every id in /proc/keys.

Safety catches (the test machine may run it as root): nothing is tried unless the bot runs in the
sandbox (uid 65534 and a seccomp filter on); the keyring is touched only once ``add_key``,
``request_key`` and ``keyctl`` with harmless arguments (null pointers, no command) fail with EPERM, so
that a missing filter never lets it add a key to, or link one into, a keyring of the machine's.

Every report is a ``REMEMBER {json}`` line on stdout, flushed (the referee keeps it in the bot's log).
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import socket
import subprocess
import sys
import time

from arena.sdk import Bot

DESCRIPTION = b"arena-rememberer-hand"
NAMED_RING = b"arena-rememberer-ring"
KEEPER_NAME = "arena-rememberer-keeper"  # its socket's abstract name, and its argument
ABSTRACT_SOCKET = "\0" + KEEPER_NAME
SHM_KEY = 0x52454D42  # "REMB"
SHM_SIZE = 4096
KEY_SPEC_SESSION_KEYRING, KEY_SPEC_USER_KEYRING, KEY_SPEC_USER_SESSION_KEYRING = -3, -4, -5
RINGS = {"@s": KEY_SPEC_SESSION_KEYRING, "@u": KEY_SPEC_USER_KEYRING, "@us": KEY_SPEC_USER_SESSION_KEYRING}
KEYCTL_GET_KEYRING_ID, KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_LINK = 0, 1, 8
KEYCTL_SEARCH, KEYCTL_READ = 10, 11
IPC_CREAT = 0o1000

libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
libc.shmdt.argtypes = (ctypes.c_void_p,)
libc.shmget.argtypes = (ctypes.c_int, ctypes.c_size_t, ctypes.c_int)

# Module globals: what a process that played an earlier match would still hold.
MEMORY: dict[str, list[str]] = {}
MATCHES_PLAYED = 0

# A child in a session of its own (start_new_session) that holds the memory and serves it to whoever
# connects.
KEEPER = r"""
import socket, sys
server = socket.socket(socket.AF_UNIX)
server.bind("\0" + sys.argv[1])
server.listen(8)
memory = sys.stdin.buffer.readline()
while True:
    connection, _ = server.accept()
    with connection:
        connection.sendall(memory)
"""


def report(**fields: object) -> None:
    print("REMEMBER " + json.dumps(fields), flush=True)


def call(number: int, *args: object) -> int:
    """Makes system call ``number``; returns its result, or -errno."""
    words = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
    result = libc.syscall(ctypes.c_long(number), *words)
    return result if result != -1 else -ctypes.get_errno()


def why(code: int) -> str:
    return errno.errorcode.get(code, str(code))


def file_stores() -> dict[str, str]:
    code = os.path.dirname(os.path.abspath(__file__))
    return {
        "tmp": "/tmp/arena-rememberer.json",
        "home": os.path.join(os.environ.get("HOME", "/tmp"), ".arena-rememberer.json"),
        "dev_shm": "/dev/shm/arena-rememberer.json",
        "var_tmp": "/var/tmp/arena-rememberer.json",
        "run_arena": "/run/arena/arena-rememberer.json",
        "code_folder": os.path.join(code, ".arena-rememberer.json"),
        "cwd": os.path.join(os.getcwd(), ".arena-rememberer-cwd.json"),
    }


def sandboxed() -> bool:
    with contextlib.suppress(OSError):
        status = open("/proc/self/status").read()  # noqa: SIM115
        return os.getuid() == 65534 and "\nSeccomp:\t2\n" in status
    return False


class Keyring:
    def __init__(self, add_key: int, request_key: int, keyctl: int) -> None:
        self.add_key, self.request_key, self.keyctl = add_key, request_key, keyctl

    def refused(self) -> dict[str, int]:
        """The safety catch: each call with arguments that do nothing (null pointers, no command)."""
        return {
            "add_key": call(self.add_key, None, None, None, 0, 0),
            "request_key": call(self.request_key, None, None, None, 0),
            "keyctl": call(self.keyctl, -1, 0, 0, 0, 0),
        }

    def ring_ids(self, proc_keys: str) -> list[int]:
        """Returns the ids of the keyrings /proc/keys shows (hex, first column)."""
        ids = []
        for line in proc_keys.splitlines():
            words = line.split()
            if len(words) > 7 and words[7] == "keyring":
                with contextlib.suppress(ValueError):
                    ids.append(int(words[0], 16))
        return ids

    def read(self, key: int) -> str | None:
        buffer = ctypes.create_string_buffer(SHM_SIZE)
        size = call(self.keyctl, KEYCTL_READ, key, buffer, SHM_SIZE)
        return buffer.raw[: min(size, SHM_SIZE)].decode(errors="replace") if size >= 0 else None

    def look(self, proc_keys: str) -> tuple[dict[str, int], list[str]]:
        """Returns each lookup's result (a key id, or -errno) and the payloads found."""
        results, found = {}, []
        for name, ring in RINGS.items():
            results[f"search {name}"] = call(self.keyctl, KEYCTL_SEARCH, ring, b"user", DESCRIPTION, 0)
        results["request_key"] = call(self.request_key, b"user", DESCRIPTION, None, 0)
        for name, ring in RINGS.items():
            results[f"ring id {name}"] = call(self.keyctl, KEYCTL_GET_KEYRING_ID, ring, 0)
        for ring in self.ring_ids(proc_keys):
            results[f"read {ring:x}"] = call(self.keyctl, KEYCTL_READ, ring, None, 0)
            results[f"search {ring:x}"] = call(self.keyctl, KEYCTL_SEARCH, ring, b"user", DESCRIPTION, 0)
        for name, key in list(results.items()):
            if name.startswith(("search", "request_key")) and key > 0:
                payload = self.read(key)
                if payload:
                    found.append(payload)
        return results, found

    def store(self, payload: bytes, proc_keys: str) -> dict[str, int]:
        """Adds the payload to every keyring it can name and links what it has into the others."""
        results = {}
        for name, ring in RINGS.items():
            results[f"add_key {name}"] = call(self.add_key, b"user", DESCRIPTION, payload, len(payload), ring)
        results["join named ring"] = call(self.keyctl, KEYCTL_JOIN_SESSION_KEYRING, NAMED_RING)
        results["add_key named ring"] = call(
            self.add_key, b"user", DESCRIPTION, payload, len(payload), KEY_SPEC_SESSION_KEYRING
        )
        added = [key for name, key in results.items() if name.startswith("add_key") and key > 0]
        what = added[0] if added else KEY_SPEC_SESSION_KEYRING
        targets = {f"{ring:x}": ring for ring in self.ring_ids(proc_keys)}
        targets |= {"@u": KEY_SPEC_USER_KEYRING, "@us": KEY_SPEC_USER_SESSION_KEYRING}
        for name, ring in targets.items():
            results[f"link into {name}"] = call(self.keyctl, KEYCTL_LINK, what, ring)
        return results


def read_text(path: str) -> str:
    try:
        return open(path).read()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


class Rememberer(Bot):
    name = "rememberer"

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring
        self.armed = sandboxed()
        self.keyring_armed = False
        self.found: list[str] = []  # every memory an earlier process left, as text
        self.keeper: subprocess.Popen | None = None
        self.keeper_checked = False
        self.looked: dict[str, object] = {}  # what the start-up look found, reported at match start
        self.deal = ""
        self.hand: list[str] = []

    # -- 1. at start-up: look in every store -----------------------------------------------------

    def look(self) -> None:
        proc_keys, key_users = read_text("/proc/keys"), read_text("/proc/key-users")
        looked: dict[str, object] = {"memory": dict(MEMORY), "matches_played": MATCHES_PLAYED}
        if not self.armed:
            self.looked = {"looked": {}, "refused": "not sandboxed: nothing tried", "uid": os.getuid()}
            self.looked["seccomp"] = False
            return
        for store, path in file_stores().items():
            try:
                with open(path) as file:
                    self.found.append(file.read())
                    looked[store] = self.found[-1]
            except OSError as exc:
                looked[store] = None
                looked[f"{store} why"] = why(exc.errno or 0)
        try:
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(2)
                client.connect(ABSTRACT_SOCKET)
                self.found.append(client.recv(SHM_SIZE).decode(errors="replace"))
                looked["keeper"] = self.found[-1]
        except OSError as exc:
            looked["keeper"] = None
            looked["keeper why"] = why(exc.errno or 0)
        segment = libc.shmget(SHM_KEY, 0, 0)
        if segment >= 0:
            address = libc.shmat(segment, None, 0)
            looked["sysv_shm"] = ctypes.string_at(address).decode(errors="replace")
            self.found.append(looked["sysv_shm"])
        else:
            looked["sysv_shm"] = None
            looked["sysv_shm why"] = why(ctypes.get_errno())
        probes = self.keyring.refused()
        self.keyring_armed = all(result == -errno.EPERM for result in probes.values())
        keyring: dict[str, object] = {"probes": probes}
        if self.keyring_armed:
            keyring["results"], payloads = self.keyring.look(proc_keys)
            self.found += payloads
            keyring["found"] = payloads
        else:
            keyring["refused"] = "not tried: the keyring calls are not refused with EPERM"
        self.looked = {
            "looked": looked, "keyring": keyring, "proc_keys": proc_keys, "key_users": key_users,
            "uid": os.getuid(), "seccomp": self.armed,
        }  # fmt: skip
        # the keeper of this process, started now (fed at the first decision), before gRPC's threads
        self.keeper = subprocess.Popen(
            [sys.executable, "-c", KEEPER, KEEPER_NAME], stdin=subprocess.PIPE, start_new_session=True
        )

    # -- 2. at the first decision: predict, then store ---------------------------------------------

    def on_match_start(self, match) -> None:
        global MATCHES_PLAYED
        MATCHES_PLAYED += 1
        self.deal, self.hand, self.keeper_checked = "", [], False
        if self.looked:  # reported once the match has started, so that the match's log keeps it
            report(**self.looked)
            self.looked = {}

    def predict(self) -> list[str] | None:
        for text in [*self.found, json.dumps(MEMORY)]:
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                hand = json.loads(text).get(self.deal)
                if hand:
                    return hand
        return None

    def store(self) -> None:
        memory = dict(MEMORY) | {self.deal: self.hand}
        payload = json.dumps(memory).encode()
        stored: dict[str, str] = {}
        kept: dict[str, bool] = {}
        MEMORY.update(memory)
        stored["memory"] = "ok"
        if self.keeper is not None and self.keeper.stdin is not None:
            try:
                self.keeper.stdin.write(payload + b"\n")
                self.keeper.stdin.flush()
                stored["keeper"] = "ok"
            except OSError as exc:
                stored["keeper"] = why(exc.errno or 0)
        for store, path in file_stores().items():
            try:
                with open(path, "wb") as file:
                    file.write(payload)
                stored[store] = "ok"
                with open(path, "rb") as file:
                    kept[store] = file.read() == payload
            except OSError as exc:
                stored[store] = why(exc.errno or 0)
        segment = libc.shmget(SHM_KEY, SHM_SIZE, IPC_CREAT | 0o600)
        if segment >= 0:
            address = libc.shmat(segment, None, 0)
            if address not in (None, ctypes.c_void_p(-1).value):
                ctypes.memmove(address, payload + b"\0", min(len(payload) + 1, SHM_SIZE))
                kept["sysv_shm"] = ctypes.string_at(address) == payload
                libc.shmdt(address)  # detached, the segment stays (until its IPC namespace ends)
                stored["sysv_shm"] = "ok"
            else:
                stored["sysv_shm"] = why(ctypes.get_errno())
        else:
            stored["sysv_shm"] = why(ctypes.get_errno())
        keyring = self.keyring.store(payload, read_text("/proc/keys")) if self.keyring_armed else "not tried"
        report(deal=self.deal, hand=self.hand, stored=stored, kept=kept, keyring=keyring)

    def keeper_kept(self) -> None:
        """At the second decision, once the keeper has had time to start: it serves what it holds."""
        self.keeper_checked = True
        until = time.monotonic() + 5  # (the tournament's deadline is 10 s) a loaded machine's slow start
        while True:
            try:
                with socket.socket(socket.AF_UNIX) as client:
                    client.settimeout(2)
                    client.connect(ABSTRACT_SOCKET)
                    held = client.recv(SHM_SIZE)
                break
            except OSError as exc:
                held = why(exc.errno or 0).encode()
                if exc.errno != errno.ECONNREFUSED or time.monotonic() > until:
                    break
                time.sleep(0.05)
        report(deal=self.deal, keeper_holds=json.loads(held) if held.startswith(b"{") else held.decode())

    def choose(self, observation, legal_actions, deadline):
        if self.deal and self.armed and not self.keeper_checked:
            self.keeper_kept()
        if not self.deal and self.armed:
            self.deal = " ".join(str(pile.cards[-1]) for pile in observation.piles)
            self.hand = sorted(str(card) for card in observation.hand)
            prediction = self.predict()
            report(
                deal=self.deal, hand=self.hand, prediction=prediction, matches_played=MATCHES_PLAYED,
                memory=dict(MEMORY), found=self.found,
            )  # fmt: skip
            self.store()
        return 0


def main(argv: list[str]) -> int:
    add_key, request_key, keyctl = (int(word) for word in argv[:3])
    bot = Rememberer(Keyring(add_key, request_key, keyctl))
    bot.look()
    bot.run()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
