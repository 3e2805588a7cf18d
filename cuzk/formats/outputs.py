"""Writing a command's output files safely: checked before any work, written atomically, several all-or-nothing.

A command that computes for seconds or minutes and then cannot write its result, or writes it over its own input,
wastes the work or destroys the input. Hence two steps:

    check_outputs(outputs, inputs)   before any work: every output path must be writable and distinct — not empty,
                                     not a directory, in a directory that exists and where a file can be created,
                                     not the same file as an input (same device and inode, so also through a
                                     symlink or a hard link; the resolved paths where a file does not exist yet)
                                     nor as another output. Each refusal is an :class:`OutputPathError`: one line.
    atomic_outputs(paths)            a context giving one temporary path per output, next to it (same filesystem),
                                     for the existing writers to write; on a normal exit every temporary is fsync'ed,
                                     then all are renamed onto their targets one after the other (``os.replace``) and
                                     the directories fsync'ed. An exception inside the context, or a failure before
                                     the renames, removes the temporaries and leaves every target as it was.
    write_atomic(path, data)         one file's bytes or text that way; write_outputs({path: data}) several.

Special targets. An existing file that is not regular is never renamed over (that would replace ``/dev/null``'s
device node when run as root): a character device or a pipe — ``/dev/stdout``, ``/dev/null``, a shell's
``>(process substitution)`` — is written in place, as snarkjs does, after all the outputs' contents were made (in
temporaries of the system's temporary folder) and before any regular file is renamed; its write errors are one
line (``/dev/full: cannot write: No space left on device``). ``/dev/stdout``, ``/dev/stderr``, ``/dev/fd/N`` and
``/proc/self/fd/N`` are written through the process's own descriptor, at its offset, even when it leads to a regular
file (a shell's ``> file``), so that the redirection gets the data in order with what the command prints. Other
non-regular files (sockets, block devices) are refused; a regular file of a pseudo filesystem such as
``/proc/version`` is refused because no file can be created beside it. Two paths naming one stream (the proof and
the public signals both to ``/dev/stdout``) are refused as any two equal outputs are.

A replaced file keeps its permission bits; being a new file, it is no longer a hard link of another name (a
symlink is written through: the file it points to is replaced, the link stays).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import BinaryIO

from cuzk.reference.errors import CuzkError

PathLike = str | os.PathLike[str]
_FD_ALIAS = re.compile(r"/dev/(stdout|stderr|fd/(?P<fd>\d+))|/proc/(?P<pid>self|thread-self|\d+)/fd/(?P<pfd>\d+)")


class OutputPathError(CuzkError, ValueError):
    """An output path that cannot or must not be written, found before any work: the path and the reason."""

    def __init__(self, path: PathLike, problem: str) -> None:
        self.path, self.problem = os.fspath(path), problem
        super().__init__(f"{_shown(self.path)}: {problem}")


class OutputWriteError(CuzkError, OSError):
    """Writing an output failed (a full disk, ``/dev/full``, a file removed meanwhile); the targets not yet renamed
    onto are as they were, and no temporary is left behind."""

    def __init__(self, path: PathLike, problem: str) -> None:
        self.path, self.problem = os.fspath(path), problem
        super().__init__(f"{_shown(self.path)}: {problem}")


def _shown(path: str) -> str:
    """A path as a message shows it: as given, or quoted where it is empty or holds unprintable characters."""
    return path if path and path.isprintable() else repr(path)


# --- checking before the work ----------------------------------------------------------------------------------


def check_outputs(outputs: Iterable[PathLike | None], inputs: Iterable[PathLike | None] = ()) -> None:
    """Refuse, with an :class:`OutputPathError`, any output that could not be written or that is an input or
    another output (None entries, options not given, are skipped). Nothing is written: a probe file created
    beside each output to prove the directory writable is removed at once."""
    given_inputs = [os.fspath(path) for path in inputs if path is not None and os.fspath(path)]
    seen: dict[object, str] = {}
    for output in (os.fspath(path) for path in outputs if path is not None):
        check_output(output)
        identity = _identity(output)
        for source in given_inputs:
            if _identity(source) == identity:
                raise OutputPathError(
                    output, f"is the input file {source}; cuzk does not overwrite its inputs: choose another path"
                )
        if identity in seen:
            raise OutputPathError(output, f"is also the path of another output ({seen[identity]}); give each its own")
        seen[identity] = output


def check_output(path: PathLike) -> None:
    """Refuse one output path that cannot be written (see :func:`check_outputs`)."""
    path = os.fspath(path)
    if not path:
        raise OutputPathError(path, "an output path cannot be empty")
    found = _stat(path)
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise OutputPathError(path, "is a directory; give the path of a file in it")
    if found is not None and (not stat.S_ISREG(found.st_mode) or _FD_ALIAS.fullmatch(os.path.abspath(path))):
        _check_stream(path, found.st_mode)
        return
    if found is None and path.endswith(("/", os.sep)):
        raise OutputPathError(path, "ends with a '/': it names a directory, not a file")
    folder = os.path.dirname(path) or "."
    real_folder = os.path.dirname(os.path.realpath(path))
    if not os.path.isdir(real_folder):
        what = "is not a directory" if os.path.exists(real_folder) else "does not exist"
        raise OutputPathError(path, f"the directory {folder} {what}")
    if found is not None:
        try:
            os.close(os.open(path, os.O_WRONLY))  # no O_TRUNC: the file is not changed, its permissions are tried
        except OSError as exc:
            raise OutputPathError(path, f"cannot be written: {exc.strerror}") from None
    try:
        os.remove(_new_temporary(real_folder, ".cuzk-probe"))
    except OSError as exc:
        raise OutputPathError(path, f"cannot create a file in {folder}: {exc.strerror}") from None


def _stat(path: str) -> os.stat_result | None:
    """The file's status through symlinks; None where it does not exist (a refusal where the path is unusable)."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        raise OutputPathError(path, "a part of the path before the file name is not a directory") from None
    except OSError as exc:
        raise OutputPathError(path, f"cannot be used as an output: {exc.strerror}") from None
    except ValueError:
        raise OutputPathError(path, "is not a valid path (it contains a NUL character)") from None


def _check_stream(path: str, mode: int) -> None:
    """A character device, a pipe or a file descriptor's alias is written in place: it must be writable."""
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        kind = "a block device" if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode) else "a special file"
        raise OutputPathError(path, f"is {kind}: cuzk writes regular files, character devices and pipes only")
    if not os.access(path, os.W_OK):
        raise OutputPathError(path, "cannot be written: permission denied")


def _identity(path: str) -> object:
    """What makes two paths one file: (device, inode) of an existing file, else the resolved path."""
    try:
        found = os.stat(path)
        return (found.st_dev, found.st_ino)
    except (OSError, ValueError):
        try:
            return os.path.realpath(path)
        except (OSError, ValueError):
            return path


# --- writing ---------------------------------------------------------------------------------------------------


@dataclass
class _Target:
    """One output: where it goes (``real``: symlinks resolved, so that a link is written through, not replaced),
    whether it is written in place (``stream``), the permission bits to keep, and its temporary."""

    path: str
    real: str
    stream: bool
    mode: int | None
    temporary: str = ""


@contextlib.contextmanager
def atomic_outputs(paths: Sequence[PathLike]) -> Iterator[list[str]]:
    """The temporary paths of ``paths``, in order, for writers to write; on leaving without an exception all are
    synced and put in place (streams first, then the renames), all-or-nothing up to the renames themselves.

    An exception inside the block is raised again after the temporaries are removed; an OSError of the writing
    or the committing becomes an :class:`OutputWriteError`. Already renamed targets cannot be taken back if a later
    rename fails (renames in one folder do not fail but for a vanished folder or a full inode table).
    """
    targets: list[_Target] = []
    try:
        for path in paths:
            targets.append(_prepare(os.fspath(path)))
        try:
            yield [target.temporary for target in targets]
        except OSError as exc:
            raise _write_error(exc, targets) from None
        _commit(targets)
    finally:
        for target in targets:
            with contextlib.suppress(OSError):
                os.remove(target.temporary)


def _write_error(exc: OSError, targets: list[_Target]) -> OutputWriteError:
    """An OSError of the block's writers as an :class:`OutputWriteError` naming the output it is about: the one
    whose temporary the error names, else all of them."""
    about = exc.path if isinstance(exc, OutputWriteError) else exc.filename
    culprit = next((t.path for t in targets if t.temporary == about), ", ".join(t.path for t in targets))
    problem = exc.problem if isinstance(exc, OutputWriteError) else f"cannot write: {exc.strerror or exc}"
    return OutputWriteError(culprit, problem)


def _prepare(path: str) -> _Target:
    """The target of ``path`` and a fresh, empty temporary for it: beside the file, or in the system's temporary
    folder for a stream."""
    if not path:
        raise OutputWriteError(path, "an output path cannot be empty")
    try:
        found: os.stat_result | None = os.stat(path)
    except FileNotFoundError:
        found = None  # a missing folder is found when the temporary is created
    except OSError as exc:
        raise OutputWriteError(path, f"cannot write: {exc.strerror}") from None
    except ValueError:
        raise OutputWriteError(path, "is not a valid path (it contains a NUL character)") from None
    if found is not None and stat.S_ISDIR(found.st_mode):
        raise OutputWriteError(path, "is a directory")
    stream = found is not None and (not stat.S_ISREG(found.st_mode) or bool(_FD_ALIAS.fullmatch(os.path.abspath(path))))
    real = path if stream else os.path.realpath(path)
    mode = stat.S_IMODE(found.st_mode) if found is not None and not stream else None
    target = _Target(path, real, stream, mode)
    folder = tempfile.gettempdir() if stream else os.path.dirname(real)
    try:
        target.temporary = _new_temporary(folder, f".{os.path.basename(real)}" if not stream else "cuzk-output")
    except OSError as exc:
        raise OutputWriteError(path, f"cannot create a file in {folder}: {exc.strerror or exc}") from None
    return target


def _new_temporary(folder: str, prefix: str) -> str:
    """Create an empty file of a new name in ``folder`` (mode 0666 less the umask, as ``open`` would) and return
    its path."""
    for _ in range(100):
        path = os.path.join(folder, f"{prefix}.{secrets.token_hex(4)}.tmp")
        try:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
            return path
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {folder}")


def _commit(targets: list[_Target]) -> None:
    """Sync every temporary, write the streams, then rename the files and sync their folders."""
    current = targets[0] if targets else None
    try:
        for current in targets:
            _fsync(current.temporary)
        for current in (t for t in targets if t.stream):
            with open(current.temporary, "rb") as source, _open_stream(current.path) as out:
                shutil.copyfileobj(source, out)
        for current in (t for t in targets if not t.stream):
            if current.mode is not None:
                os.chmod(current.temporary, current.mode)
            os.replace(current.temporary, current.real)
            with contextlib.suppress(OSError):  # not every system or filesystem can sync a folder
                _fsync(os.path.dirname(current.real) or ".")
    except OSError as exc:
        raise OutputWriteError(current.path if current else "", f"cannot write: {exc.strerror}") from None


def _open_stream(path: str) -> BinaryIO:
    """A stream target opened for writing. One of this process's descriptors (``/dev/stdout``, ``/dev/fd/3``, …)
    is written through a copy of it, at its offset and without truncating: what a shell's ``> file`` collects stays
    in order with what the command prints (Python's buffers are flushed first). Any other is opened by its path."""
    descriptor = _own_descriptor(path)
    if descriptor is None:
        return open(path, "wb")
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(AttributeError, OSError, ValueError):
            if stream.fileno() == descriptor:
                stream.flush()
    return os.fdopen(os.dup(descriptor), "wb")


def _own_descriptor(path: str) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout`` is 1), or None."""
    alias = _FD_ALIAS.fullmatch(os.path.abspath(path))
    if alias is None or alias["pid"] not in (None, "self", "thread-self", str(os.getpid())):
        return None
    number = alias["fd"] or alias["pfd"]
    return int(number) if number is not None else 1 if path.endswith("stdout") else 2


def _fsync(path: str) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def write_outputs(contents: Mapping[PathLike, bytes | str]) -> None:
    """Write each path's bytes (text as UTF-8) all-or-nothing, as :func:`atomic_outputs`."""
    paths = list(contents)
    with atomic_outputs(paths) as temporaries:
        for path, temporary in zip(paths, temporaries, strict=True):
            data = contents[path]
            with open(temporary, "wb") as out:
                out.write(data.encode("utf-8") if isinstance(data, str) else data)


def write_atomic(path: PathLike, data: bytes | str) -> None:
    """Write one file's bytes (text as UTF-8) atomically: the previous file stays whole until the new one is."""
    write_outputs({path: data})


__all__ = [
    "OutputPathError",
    "OutputWriteError",
    "atomic_outputs",
    "check_output",
    "check_outputs",
    "write_atomic",
    "write_outputs",
]
