"""Starts bubblewrap with its options on file descriptors instead of its command line: the program of
every sandboxed process (``arena.referee.sandbox.command``).

It reads ``VARIABLE`` from its environment (comma-separated base64 blobs: bwrap's path, the files
bwrap reads, bwrap's options, the bot's command; the last two NUL-separated), puts each file in a memfd
at descriptor 3, 4, ... (the options name them: ``--seccomp 3``, ``--ro-bind-data 4 /proc/stat``) and
the options in the next one, removes the variable and execs ``bwrap ARGS --args N -- COMMAND``, ARGS
being its own arguments (none, as arena starts it). So neither ``ps`` on the host nor
``/proc/1/cmdline`` in the sandbox (bwrap is its pid 1) shows the sandbox's options and the host's
folders they name: only the bot's own command, which the bot sees as its own command line anyway.
(bwrap takes no command from an ``--args`` file.)

Design detail: the referee cannot hand bwrap a descriptor itself, since the processes that start a
sandbox (``BotProcess``, a build) close every descriptor but the standard ones; the environment passes
through. The referee runs this file as a script whose ``#!`` line names its own interpreter with
``-SE`` (``sandbox.starter``): no site, only built-in modules, one interpreter start of about 10 ms.
"""

import binascii
import os
import sys

VARIABLE = "ARENA_SANDBOX_SETUP"
FIRST_FD = 3  # the descriptor of the first file; the options come last


def main() -> None:
    env = dict(os.environ)
    try:
        blobs = [binascii.a2b_base64(blob) for blob in env.pop(VARIABLE).split(",")]
    except (KeyError, ValueError):
        print(f"arena: {sys.argv[0]} starts arena's bot sandbox, not run by hand", file=sys.stderr)
        sys.exit(127)
    bwrap, files, command = os.fsdecode(blobs[0]), blobs[1:-1], blobs[-1].split(b"\0")
    for number, data in enumerate(files, FIRST_FD):
        fd = os.memfd_create("arena-sandbox", 0)
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
        if fd != number:
            os.dup2(fd, number)
            os.close(fd)
        os.set_inheritable(number, True)
    argv: list[str | bytes] = [bwrap, *sys.argv[1:], "--args", str(FIRST_FD + len(files) - 1), "--", *command]
    try:
        os.execve(bwrap, argv, env)
    except OSError as exc:
        print(f"arena: cannot start bubblewrap {bwrap}: {exc.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
