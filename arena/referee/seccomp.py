"""The seccomp filter of every sandboxed process (bots and build commands): the system calls that no
bot needs and an attacker would use, refused by the kernel before they run.

bubblewrap loads the filter (``--seccomp FD``, ``arena.referee.sandbox``) just before it starts the
bot, after its own namespaces and mounts are made; every process the bot starts inherits it, and no
process can remove it. It is built with libseccomp (through the ``pyseccomp`` binding), compiled once
per referee process, and handed to bubblewrap as the classic BPF program ``seccomp_export_bpf`` writes.

What it refuses is ``REFUSED`` (docs/security.md lists it with the reasons): the kernel keyring (a
bot's key outlived its sandbox and told its next process, in the next rotation of a duplicate deal,
the opponent's whole hand), other processes' memory, kernel code and BPF, mounts and namespaces, the
clock, swap, reboot, io_uring, userfaultfd, the ``personality`` flag that turns address randomisation
off, and the socket families that are not confined to the sandbox's network namespace (vsock).

Design detail, the errno: a refused call fails with ``EPERM`` as if the bot lacked the privilege,
except where a language runtime probes for a newer call and falls back only on ``ENOSYS``, "this
kernel does not have it": ``clone3`` (glibc's threads and posix_spawn, Go's os/exec) falls back on
``clone``, and Node's libuv uses epoll when ``io_uring_setup`` is missing. A refused socket family
fails with ``EAFNOSUPPORT``, as on a kernel built without it. Docker's default profile does the same.

Design detail, a denylist: every call not named here is allowed (the default action), so the
runtimes of every kit (Python, Node, Go, static binaries) run unchanged. Docker's profile is an
allowlist instead; a call the kernel adds later is allowed here until it is named (docs/security.md,
"What remains"). Names this libseccomp does not know are left out (``skipped``).

Design detail, the ABIs: on x86_64 a process can also make 32-bit (``int 0x80``, i386) and x32 system
calls, whose numbers differ; the filter covers all three ABIs with the same rules, as Docker's does
(and on arm64, 32-bit ARM). A call from any other ABI kills the process.
"""

from __future__ import annotations

import dataclasses
import errno
import functools
import os

# The namespace flags of clone(2): a process that may not unshare may not clone into a new namespace.
CLONE_NAMESPACES = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
}
ADDR_NO_RANDOMIZE = 0x0040000  # personality(2): no address space randomisation in the next exec
PERSONALITY_QUERY = 0xFFFFFFFF  # personality(0xffffffff) only reads the current persona
# Socket families Docker's profile refuses; vsock reaches the virtual machine's host from any network
# namespace, and AF_ALG (the kernel's crypto) has been a way into the kernel.
SOCKET_FAMILIES = {
    "AF_DECnet": 12,
    "AF_ECONET": 19,
    "AF_ATMSVC": 20,
    "AF_IRDA": 23,
    "AF_WANPIPE": 25,
    "AF_ISDN": 34,
    "AF_CAIF": 37,
    "AF_ALG": 38,
    "AF_VSOCK": 40,
}


@dataclasses.dataclass(frozen=True)
class Refusal:
    """System calls refused with ``errno`` (always, or only ``when`` their arguments say so)."""

    names: tuple[str, ...]
    errno: int
    why: str
    when: str = ""  # "": every call; else the arguments that are refused (the others run)


def _refuse(names: str, code: int, why: str, when: str = "") -> Refusal:
    return Refusal(tuple(names.split()), code, why, when)


REFUSED: tuple[Refusal, ...] = (
    _refuse(
        "add_key keyctl request_key",
        errno.EPERM,
        "the kernel keyring is not namespaced: a key linked into the keyring of the uid the sandbox maps "
        "to outlives the sandbox, and a later process of the same bot (the next rotation of a duplicate "
        "deal) read the opponent's hand from it",
    ),
    _refuse(
        "ptrace process_vm_readv process_vm_writev process_madvise pidfd_getfd kcmp",
        errno.EPERM,
        "reading, writing or comparing another process's memory and descriptors",
    ),
    _refuse("move_pages migrate_pages", errno.EPERM, "moving another process's memory"),
    _refuse(
        "bpf perf_event_open userfaultfd",
        errno.EPERM,
        "kernel programs, performance counters (a side channel on other processes) and user page-fault "
        "handling (a standard tool of kernel exploits)",
    ),
    _refuse(
        "io_uring_setup io_uring_enter io_uring_register",
        errno.ENOSYS,
        "io_uring, a large and often-exploited kernel interface (Docker refuses it too); ENOSYS, so "
        "Node's libuv falls back to epoll",
    ),
    _refuse(
        "kexec_load kexec_file_load init_module finit_module delete_module create_module "
        "get_kernel_syms query_module",
        errno.EPERM,
        "loading kernel code",
    ),
    _refuse(
        "mount umount umount2 pivot_root chroot fsopen fsconfig fsmount fspick move_mount open_tree "
        "open_tree_attr mount_setattr",
        errno.EPERM,
        "changing the sandbox's mounts (the old and the new mount API)",
    ),
    _refuse("unshare setns", errno.EPERM, "entering or making namespaces"),
    _refuse(
        "clone",
        errno.EPERM,
        "making namespaces (threads and processes still start)",
        when="with a CLONE_NEW* flag",
    ),
    _refuse(
        "clone3",
        errno.ENOSYS,
        "its flags are in memory, where a filter cannot read them; ENOSYS, so glibc and Go fall back "
        "to clone, whose flags are checked",
    ),
    _refuse(
        "personality",
        errno.EPERM,
        "turning address randomisation off for the next program",
        when="with ADDR_NO_RANDOMIZE (reading the persona still works)",
    ),
    _refuse(
        "settimeofday stime clock_settime clock_settime64 adjtimex clock_adjtime clock_adjtime64",
        errno.EPERM,
        "setting or tuning the machine's clock",
    ),
    _refuse("swapon swapoff reboot", errno.EPERM, "swap and reboot"),
    _refuse(
        "sched_setaffinity",
        errno.EPERM,
        "widening the CPUs a worker pinned the bot to where no cgroup can cap its CPU share (reading its "
        "affinity still works)",
    ),
    _refuse(
        "acct quotactl quotactl_fd lookup_dcookie nfsservctl uselib ustat sysfs _sysctl vm86 vm86old "
        "iopl ioperm syslog vhangup sethostname setdomainname fanotify_init open_by_handle_at",
        errno.EPERM,
        "administration and obsolete calls Docker's profile refuses as well (open_by_handle_at: the "
        "'shocker' escape, opening any file of a mount by its handle)",
    ),
    _refuse(
        "socket",
        errno.EAFNOSUPPORT,
        "socket families outside the sandbox's network namespace (vsock reaches the host of a virtual "
        "machine) or with a history of kernel holes (AF_ALG)",
        when="of families " + ", ".join(SOCKET_FAMILIES),
    ),
)

# The calls every filter must refuse: the sandbox does not start where libseccomp lacks one.
_ESSENTIAL = """add_key keyctl request_key bpf perf_event_open userfaultfd io_uring_setup io_uring_enter
    io_uring_register ptrace process_vm_readv process_vm_writev kexec_load kexec_file_load init_module
    finit_module delete_module mount umount2 pivot_root fsopen fsmount move_mount open_tree swapon
    swapoff reboot settimeofday clock_settime adjtimex clock_adjtime unshare setns clone clone3
    personality"""
ESSENTIAL = frozenset(_ESSENTIAL.split())


class SeccompUnavailable(RuntimeError):
    """libseccomp (or its binding) is missing, or refused to build the filter; the message says which."""


def _library():
    try:
        import pyseccomp
    except (ImportError, RuntimeError, OSError) as exc:  # RuntimeError: "Unable to find libseccomp"
        raise SeccompUnavailable(
            f"the bot sandbox's seccomp filter needs libseccomp ({exc}): install libseccomp2 "
            "(apt-get install libseccomp2) and arena's dependency pyseccomp (pip install pyseccomp)"
        ) from None
    return pyseccomp


def number(name: str) -> int:
    """Returns the native number of system call ``name`` (negative: none on this architecture)."""
    lib = _library()
    return lib.resolve_syscall(lib.Arch.NATIVE, name)


def _extra_arches(lib) -> tuple[int, ...]:
    """Returns the other ABIs a native process can call the kernel with (Docker's "subArchitectures")."""
    native = lib.system_arch()
    if native == lib.Arch.X86_64:
        return (lib.Arch.X86, lib.Arch.X32)
    if native == lib.Arch.AARCH64:
        return (lib.Arch.ARM,)
    return ()


def _clone_flags_index(lib) -> int:
    """Returns which argument of clone(2) holds its flags (the second on s390)."""
    return 1 if lib.system_arch() in (lib.Arch.S390, lib.Arch.S390X) else 0


@functools.cache
def _compiled() -> tuple[bytes, tuple[str, ...]]:
    lib = _library()
    try:
        flt = lib.SyscallFilter(lib.ALLOW)
        flt.set_attr(lib.Attr.ACT_BADARCH, lib.KILL_PROCESS)
        for arch in _extra_arches(lib):
            flt.add_arch(arch)
        skipped = []
        for refusal in REFUSED:
            action = lib.ERRNO(refusal.errno)
            for name in refusal.names:
                nr = lib.resolve_syscall(lib.Arch.NATIVE, name)
                if nr == -1:  # __NR_SCMP_ERROR: this libseccomp does not know the call
                    skipped.append(name)
                    continue
                for args in _conditions(lib, name):
                    flt.add_rule(action, nr, *args)
        missing = ESSENTIAL.intersection(skipped)
        if missing:
            raise SeccompUnavailable(f"this libseccomp does not know {', '.join(sorted(missing))}: update it")
        with _memfd() as out:
            flt.export_bpf(out)
            out.seek(0)
            program = out.read()
    except OSError as exc:
        raise SeccompUnavailable(
            f"libseccomp could not build the bot sandbox's seccomp filter: {exc}"
        ) from None
    return program, tuple(skipped)


def _conditions(lib, name: str) -> list[tuple]:
    """Returns the argument conditions of each rule for ``name`` (any one refuses the call); [()] for
    a call refused whatever its arguments."""
    if name == "clone":  # one rule per namespace flag: a flag that is set refuses the call
        index = _clone_flags_index(lib)
        return [(lib.Arg(index, lib.MASKED_EQ, bit, bit),) for bit in CLONE_NAMESPACES.values()]
    if name == "personality":
        # ADDR_NO_RANDOMIZE is set and the value is not the query 0xffffffff, i.e. some other of its 32
        # bits is clear (libseccomp compares each argument once per rule, so: one rule per bit). The
        # kernel reads an unsigned int: the masks leave the upper half of the register out.
        others = [1 << bit for bit in range(32) if 1 << bit != ADDR_NO_RANDOMIZE]
        return [(lib.Arg(0, lib.MASKED_EQ, ADDR_NO_RANDOMIZE | bit, ADDR_NO_RANDOMIZE),) for bit in others]
    if name == "socket":  # the family is an int: compare the lower half of the register only
        return [(lib.Arg(0, lib.MASKED_EQ, 0xFFFFFFFF, family),) for family in SOCKET_FAMILIES.values()]
    return [()]


class _memfd:
    def __enter__(self):
        self.file = os.fdopen(os.memfd_create("arena-seccomp", os.MFD_CLOEXEC), "w+b")
        return self.file

    def __exit__(self, *exc: object) -> None:
        self.file.close()


def program() -> bytes:
    """Returns the filter as a classic BPF program for ``bwrap --seccomp`` (built once per process);
    raises SeccompUnavailable when libseccomp is missing or cannot build it."""
    return _compiled()[0]


def skipped() -> tuple[str, ...]:
    """Returns the names of ``REFUSED`` that this libseccomp does not know (left out of the filter)."""
    return _compiled()[1]


def refused_names() -> list[str]:
    """Returns every system call name the filter refuses (in whole or in part), in ``REFUSED``'s order."""
    return [name for refusal in REFUSED for name in refusal.names if name not in skipped()]
