"""Following a release: the pointer `promote` writes beside its releases, and a follower
that swaps in the bundle it names.

`promote --release-dir R` copies the promoted bundle to `R/<bundle_version>`, then writes
`R/production.json` (`{"bundle_version": V, "path": V}`, the path relative to R) through a
temporary file renamed over the old one, so a reader sees the old pointer or the new one,
never half of either. A `ReleaseFollower` stats the pointer at most every `interval_s`;
when it changed, it reads it, verifies the bundle it names (format, every file's hash,
the signature when a key is set, and that the manifest's version is the pointer's: a
directory swapped under a released name is refused) and builds the new object with
`load`. A release that fails is logged and remembered, and the one already loaded keeps
serving until the pointer moves again. Nothing here imports torch or MLflow.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from serving.bundle.files import BundleError, verify_bundle

log = logging.getLogger(__name__)

POINTER_FILE = "production.json"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Release:
    """The bundle a pointer names."""

    version: str
    path: Path  # absolute


def write_pointer(release_dir: str | Path, version: str) -> Path:
    """Point `release_dir/production.json` at `release_dir/<version>`, atomically."""
    root = Path(release_dir)
    if not (root / version).is_dir():
        raise BundleError(f"{root / version}: no such release to point at")
    text = json.dumps({"bundle_version": version, "path": version}, indent=1) + "\n"
    fd, tmp = tempfile.mkstemp(dir=root, prefix=".production.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, root / POINTER_FILE)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return root / POINTER_FILE


def read_pointer(pointer: str | Path) -> Release:
    """The release a pointer file names; `BundleError` naming the file and field."""
    pointer = Path(pointer)
    try:
        data = json.loads(pointer.read_text(encoding="utf-8"))
    except OSError as err:
        raise BundleError(f"{pointer}: cannot read the release pointer: {err.strerror}") from None
    except ValueError as err:
        raise BundleError(f"{pointer}: not JSON ({err})") from None
    if not isinstance(data, dict):
        raise BundleError(f"{pointer}: a release pointer is a JSON object")
    for key in ("bundle_version", "path"):
        if not isinstance(data.get(key), str) or not data[key]:
            raise BundleError(f"{pointer}: {key}: expected a non-empty string")
    return Release(data["bundle_version"], (pointer.parent / data["path"]).resolve())


def is_pointer(path: str | Path) -> bool:
    """A `--bundle` argument that is a release pointer (a JSON file), not a bundle dir."""
    return Path(path).is_file() and Path(path).suffix == ".json"


class ReleaseFollower(Generic[T]):
    """The object `load` built from the release a pointer names, swapped when the
    pointer moves (see the module doc). `current` never changes under a caller that
    holds it; `check` returns the new object when it swapped one in."""

    def __init__(
        self,
        pointer: str | Path,
        load: Callable[[Path], T],
        *,
        public_key: Any = None,
        interval_s: float = 2.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pointer = Path(pointer)
        self.load = load
        self.public_key = public_key
        self.interval_s = interval_s
        self.clock = clock
        self.refused: list[tuple[str, str]] = []  # (version, why), newest last
        self._lock = threading.Lock()
        self._stamp = self._stat()
        self.release = read_pointer(self.pointer)
        self.current: T = self._open(self.release)  # a bad first release fails the start
        self._next = clock() + interval_s

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = self.pointer.stat()
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _open(self, release: Release) -> T:
        manifest = verify_bundle(release.path, public_key=self.public_key)
        if manifest.bundle_version != release.version:
            raise BundleError(f"{release.path}: holds bundle {manifest.bundle_version}, the "
                              f"pointer names {release.version}")
        return self.load(release.path)

    def check(self, *, force: bool = False) -> T | None:
        """Swap in the pointer's release if it moved; the new object, or None. Never
        raises: a release that fails verification or loading is logged and refused."""
        with self._lock:
            now = self.clock()
            if not force and now < self._next:
                return None
            self._next = now + self.interval_s
            stamp = self._stat()
            if stamp == self._stamp:
                return None
            self._stamp = stamp
            release: Release | None = None
            try:
                release = read_pointer(self.pointer)
                if release == self.release:
                    return None
                loaded = self._open(release)
            except (BundleError, OSError, ValueError) as err:
                version = release.version if release is not None else "?"
                self.refused.append((version, str(err)))
                log.error("release %s refused, still serving %s: %s", version,
                          self.release.version, err)
                return None
            log.info("release %s -> %s (%s)", self.release.version, release.version,
                     self.pointer)
            self.release, self.current = release, loaded
            return loaded

    def get(self) -> T:
        """The current object, after a (rate-limited) check for a new release."""
        self.check()
        return self.current
