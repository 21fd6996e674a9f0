"""Checkpoints of ``hearts-dd annotate -o OUT --resume``: a run of hours that stops (Ctrl-C, a
signal, a lost worker pool, a full disk, a reboot) keeps the records it wrote, and the same
command again goes on from there.

Two files beside OUT (beside the file it names, through a symbolic link), visible so that a
user sees what a stopped run left: ``OUT.part``, the output so far, and ``OUT.checkpoint``, a
small JSON file that says how much of it is complete (records, bytes, the summary's counts)
and what run made it (inputs, options, hearts-dd's version). The sidecar is written after the
data it describes is flushed and synced, through a temporary file renamed over it, at most
every ``INTERVAL`` seconds (a million small endgames are not to wait on the disk for each), so
the data may run past it: a resumed run cuts it back to the sidecar's byte count.

The inputs are checked by content rather than by size and time of change: the sidecar keeps a
SHA-256 of the records done (their bytes as read, and their file's name), which a resumed run
reads again anyway (to count them off, unsolved), so the check costs a hash of bytes already in
hand. It holds for standard input and for a file copied or touched since, and refuses an input
edited in the part already done, whatever its time stamp says. A SHA-256 of the data's complete
part likewise refuses ``OUT.part`` edited, or a sidecar's byte count edited by hand, which
would have cut the data back into the middle of a record.
"""
from __future__ import annotations

import fcntl
import hashlib
import json
import os
import stat
import tempfile
import threading
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any, BinaryIO, Callable, Iterator

from .batch import STOP_SIGNALS, signals_blocked
from .errors import HeartsError
from .pbn import Record
from .writers import TAIL

__all__ = ["Checkpoint", "CheckpointError", "INTERVAL"]

#: The sidecar's own format; another one is refused like another run's.
FORMAT = 2
#: Seconds between checkpoints at most: each syncs the data and the sidecar to the disk.
INTERVAL = 1.0
#: What a sidecar's ``run`` holds, as a user would name a difference in it.
_WHAT = {"version": "hearts-dd version", "format": "--format", "review": "--review/--no-review",
         "rules": "--rules", "time_limit": "--time-limit", "inputs": "inputs",
         "names": "input names"}


class CheckpointError(HeartsError):
    """A checkpoint that cannot be resumed: another run's, unreadable, or its data gone."""


@dataclass(frozen=True)
class Done:
    """What the data file holds complete; replaced whole, never changed, so that a signal
    between two statements cannot leave it half updated."""

    records: int = 0
    annotated: int = 0
    errors: int = 0
    bytes: int = 0
    digest: Any = field(default_factory=hashlib.sha256)     # of the records' input, so far


def _input_of(record: Record) -> bytes:
    """What a done record's hash covers: its bytes as read (the records' bytes together are
    the whole input, so the state the reader carried from game to game is covered too) and
    the file it is from, as the outputs name it."""
    data = record.before + record.raw + record.after
    return f"{record.source or ''}\0{len(data)}\0".encode("utf-8", "surrogateescape") + data


class Checkpoint:
    """The data file and sidecar of one ``--resume`` run. Open it (which reads an existing
    checkpoint and refuses one of another run), ``begin`` with the input records (which counts
    off those done), write each record through ``writing``, then ``finish`` (OUT replaced, the
    checkpoint gone) or, if the run stops, ``keep``."""

    def __init__(self, target: str, run: dict[str, Any], mode: int) -> None:
        self.target = target
        self.data_path, self.state_path = target + ".part", target + ".checkpoint"
        self.run = run
        self.lock = threading.Lock()          # a record's write, or a checkpoint's flush
        self._saving = threading.Lock()       # one sidecar write at a time
        self.done = Done()
        self.failed: OSError | None = None    # a checkpoint the saving thread could not write
        self.verified = False                 # the data file is this run's to write
        self.saved = 0                        # the records the sidecar on disk says are done
        self.replaced = False                 # the data is OUT now: nothing left to keep
        self.refused = False                  # the checkpoint is another run's: left as it is
        self._dirty = False
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._output = hashlib.sha256()       # of the data's first ``_hashed`` bytes
        self._hashed = 0
        self.held = self._read()
        self.out = self._open_data(mode)

    @property
    def created(self) -> bool:
        """There was no checkpoint: this run makes it."""
        return self.held is None

    # -- opening ---------------------------------------------------------------------------------
    def _refuse(self, why: str) -> CheckpointError:
        self.refused = True
        return CheckpointError(f"{self.state_path}: {why}")

    def _read(self) -> dict[str, Any] | None:
        """The sidecar's content, None when there is none; refused when it is not this run's."""
        try:
            fd = os.open(self.state_path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise self._refuse(f"cannot read it: {e.strerror or e}") from None
        start_over = f"remove it and {os.path.basename(self.data_path)} to start over"
        try:
            with os.fdopen(fd, "rb") as f:
                state = json.loads(f.read())
            # (each check its own words: a KeyError or AttributeError said "('records')" or
            # "('list' object has no attribute 'get')")
            if not isinstance(state, dict) or state.get("hearts-dd checkpoint") != FORMAT:
                raise ValueError("not a hearts-dd checkpoint of this version")
            counts = [state.get(k) for k in ("records", "annotated", "errors", "bytes")]
            if not all(type(n) is int and n >= 0 for n in counts) or \
                    not all(isinstance(state.get(k), str) for k in ("input_sha256", "output_sha256")) or \
                    not isinstance(state.get("run"), dict) or \
                    max(state["annotated"], state["errors"]) > state["records"]:
                raise ValueError("a field is missing or bad")
        except (OSError, ValueError, RecursionError) as e:     # (json's for a nesting bomb)
            why = ("nested too deeply" if isinstance(e, RecursionError)
                   else getattr(e, "strerror", None) or str(e) or type(e).__name__)
            raise self._refuse(f"not a readable checkpoint ({why}): {start_over}") from None
        differs = [f"{_WHAT.get(k, k)} {_shown(state['run'].get(k))}, not {_shown(v)}"
                   for k, v in self.run.items() if state["run"].get(k) != v]
        if differs:
            raise self._refuse(f"made by another run ({'; '.join(differs)}): give the same inputs "
                               f"and options, or {start_over}")
        return state

    def _open_data(self, mode: int) -> BinaryIO:
        """The data file, locked against a second run on the same output, at the end of what
        the checkpoint holds (cut back only once ``begin`` found the inputs the same)."""
        held_bytes = 0 if self.held is None else self.held["bytes"]
        flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_CREAT if self.created else 0)
        try:
            fd = os.open(self.data_path, flags, 0o600)
        except FileNotFoundError:
            if self.created:    # (no such folder)
                raise CheckpointError(f"cannot write {self.data_path}: no such file or "
                                      "directory") from None
            raise self._refuse(f"{self.data_path}, the output it describes, is missing: remove "
                               f"{os.path.basename(self.state_path)} to start over") from None
        except OSError as e:
            raise CheckpointError(f"cannot write {self.data_path}: {e.strerror or e}") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
                raise self._refuse(f"{self.data_path} is not a regular file of yours")
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise self._refuse(f"{self.data_path} is being written by another run") from None
            if self.created:
                os.ftruncate(fd, 0)
                os.fchmod(fd, mode)
            elif st.st_size < held_bytes:
                raise self._refuse(f"{self.data_path} holds {st.st_size} bytes, fewer than the "
                                   f"{held_bytes} it says: remove both to start over")
            out = os.fdopen(fd, "r+b")
        except BaseException:
            os.close(fd)
            raise
        out.seek(held_bytes)
        return out

    # -- running ---------------------------------------------------------------------------------
    def begin(self, records: Iterator[Record],
              counted: Callable[[], None] = lambda: None) -> tuple[Record | None, bytes]:
        """Count off the records the checkpoint holds (read, not solved) and check that they
        are those it was made from (``counted`` called for each); then cut the data back to them
        and start checkpointing. The last record counted off and the data's last bytes, for the
        writer to go on from (None when there was none)."""
        empty = hashlib.sha256().hexdigest()
        held = self.held or {"records": 0, "annotated": 0, "errors": 0, "bytes": 0,
                             "input_sha256": empty, "output_sha256": empty}
        self._hash_output(held["bytes"])
        if self._output.hexdigest() != held["output_sha256"]:
            raise self._refuse(f"{self.data_path}'s first {held['bytes']} bytes are not those it "
                               "describes (changed since?): remove both to start over")
        digest = hashlib.sha256()
        last = None
        for n in range(held["records"]):
            record = next(records, None)
            if record is None:
                raise self._refuse(f"the inputs hold {n} records, fewer than the {held['records']} "
                                   "it holds: an input changed? Give the same inputs, or remove "
                                   f"it and {os.path.basename(self.data_path)} to start over")
            digest.update(_input_of(record))
            last = record
            counted()
        if digest.hexdigest() != held["input_sha256"]:
            raise self._refuse(f"the inputs' first {held['records']} records are not those it was "
                               "made from: an input changed? Give the same inputs, or remove it "
                               f"and {os.path.basename(self.data_path)} to start over")
        self.out.truncate(held["bytes"])
        tail = os.pread(self.out.fileno(), min(held["bytes"], TAIL), held["bytes"] - min(held["bytes"], TAIL))
        self.done = Done(held["records"], held["annotated"], held["errors"], held["bytes"], digest)
        self.saved = held["records"]      # (what the sidecar on disk says, until the next save)
        self.verified = True
        self.save()
        self._thread = threading.Thread(target=self._keep_saving, name="hearts-dd checkpoint",
                                        daemon=True)
        # (blocked for good in the thread, which starts with this mask: a stop it took would
        # reach the main thread only at its next bytecode, not in a wait)
        with signals_blocked(STOP_SIGNALS):
            self._thread.start()
        return last, tail

    def writing(self, write: Callable[[Record, dict[str, Any]], None]
                ) -> Callable[[Record, dict[str, Any]], None]:
        """``write``, with each record counted into the checkpoint once it is written."""
        def counted_write(record: Record, result: dict[str, Any]) -> None:
            with self.lock:
                if self.failed is not None:
                    raise self.failed
                write(record, result)
                d = self.done
                digest = d.digest.copy()
                digest.update(_input_of(record))
                self.done = Done(d.records + 1, d.annotated + (result["players"] is not None),
                                 d.errors + (result["error"] is not None), self.out.tell(), digest)
                self._dirty = True
        return counted_write

    def _keep_saving(self) -> None:
        """A checkpoint a second while records come, and one for the last of a burst: a run of
        full deals may write several at once and then solve for minutes."""
        while not self._stop.wait(INTERVAL):
            if self._dirty:
                try:
                    self.save()
                except OSError as e:    # (the run's next write raises it)
                    self.failed = e
                    return

    def _hash_output(self, end: int) -> None:
        """Hash the data up to byte ``end`` (on the disk, or in its cache: flushed), from where
        the last call stopped."""
        while self._hashed < end:
            block = os.pread(self.out.fileno(), min(end - self._hashed, 1 << 20), self._hashed)
            if not block:
                raise OSError(f"{self.data_path} ends at byte {self._hashed}, short of {end}")
            self._output.update(block)
            self._hashed += len(block)

    def save(self, wait: float = -1) -> None:
        """Flush and sync the data, then write the sidecar that describes it (atomically)."""
        with self._saving:
            with signals_blocked(STOP_SIGNALS):  # (a stop right after the acquire: left held)
                if not self.lock.acquire(timeout=wait):
                    return
                try:
                    done = self.done
                    self._dirty = False
                    self.out.flush()
                finally:
                    self.lock.release()
            os.fsync(self.out.fileno())
            self._hash_output(done.bytes)
            state = {"hearts-dd checkpoint": FORMAT, "output": self.target, "run": self.run,
                     "records": done.records, "annotated": done.annotated, "errors": done.errors,
                     "bytes": done.bytes, "input_sha256": done.digest.hexdigest(),
                     "output_sha256": self._output.hexdigest()}
            folder = os.path.dirname(self.state_path)
            with signals_blocked(STOP_SIGNALS):  # (a stop in between: a temporary file left)
                fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(self.state_path)}.")
                try:
                    with os.fdopen(fd, "w", encoding="utf-8") as f:
                        json.dump(state, f, indent=1)
                        f.write("\n")
                        f.flush()
                        os.fsync(f.fileno())
                    os.replace(tmp, self.state_path)
                except BaseException:
                    with suppress(OSError):
                        os.unlink(tmp)
                    raise
                self.saved = done.records
            _sync_folder(folder)

    def _stop_saving(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    # -- ending ----------------------------------------------------------------------------------
    def finish(self, whole: Callable[[], None] = lambda: None) -> None:
        """The run is complete (its writer closed): the data becomes OUT, the checkpoint goes.
        (In this order: a stop in between leaves OUT whole and a sidecar that says its data is
        missing, rather than OUT's records lost with the sidecar.) ``whole`` is called right
        after the rename, with the stop signals still blocked (the command has them ignored
        from there on: OUT is whole, and the run no longer stops)."""
        self._stop_saving()
        self.save()
        with signals_blocked(STOP_SIGNALS):
            os.replace(self.data_path, self.target)
            self.replaced = True
            whole()
        _sync_folder(os.path.dirname(self.target))
        with suppress(OSError):
            os.unlink(self.state_path)
        with suppress(OSError):
            self.out.close()

    def keep(self) -> str | None:
        """The run stopped: a last checkpoint of what was written, and the line that says what is
        kept (None when nothing is: a checkpoint refused, or one of this run without records,
        removed)."""
        self._stop_saving()
        if self.replaced:       # (stopped as it ended: OUT is whole)
            with suppress(OSError):
                os.unlink(self.state_path)
            with suppress(OSError):
                self.out.close()
            return None
        if self.verified and self.failed is None:
            with suppress(OSError, ValueError):
                self.save(wait=5)   # (a stop inside a write releases the lock; 5 s in case not)
        with suppress(OSError):
            self.out.close()
        if self.refused:
            return None
        records = self.saved if self.verified else (self.held or {}).get("records", 0)
        if self.created and records == 0:
            for path in (self.data_path, self.state_path):
                with suppress(OSError):
                    os.unlink(path)
            return None
        return (f"hearts-dd: {records} record{'s' if records != 1 else ''} kept in "
                f"{self.data_path} (and {os.path.basename(self.state_path)}): run the same "
                "command again to go on from there")


def _shown(value: Any) -> str:
    """A run's setting as its difference is named: ``--review/--no-review on, not off``."""
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, dict):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


def _sync_folder(folder: str) -> None:
    """A rename made durable: the folder's entry synced too (where the system allows)."""
    with suppress(OSError):
        fd = os.open(folder or ".", os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
