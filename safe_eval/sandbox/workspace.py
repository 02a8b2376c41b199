"""A session's workspace: a host directory the worker may write, files in and out, snapshots.

The guest may have written anything here (``cpython`` mode), including symlinks to host files:
``put``/``get`` refuse absolute paths, ``..`` and every symlink on the way, and open the final
file with ``O_NOFOLLOW``, so the host never reads or writes outside the directory on the
guest's behalf. A snapshot is a copy taken before a run when the tree changed since the last
one; ``rollback`` puts its contents back in place (the directory itself stays, because the
sandbox has it mounted).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile

from safe_eval.errors import SandboxError

__all__ = ["Workspace"]



class Workspace:
    def __init__(self, owner: int | None = None, parent: str | None = None) -> None:
        """``owner``: the host uid the worker writes as (when it is not this process's);
        ``parent``: the directory to make it in (a zygote's workspaces root)."""
        self.path = tempfile.mkdtemp(prefix="safe-eval-ws-", dir=parent)
        self._snapshot: str | None = None
        self._signature: tuple[tuple[str, int, int, int], ...] | None = None
        self.owner = owner if owner is not None and owner != os.getuid() else None
        if self.owner is not None:
            os.chown(self.path, self.owner, self.owner)

    # -- files in and out ------------------------------------------------------------------
    def _parent_fd(self, relpath: str, create: bool) -> tuple[int, str]:
        parts = relpath.replace("\\", "/").split("/")
        if not relpath or relpath.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise SandboxError(f"workspace paths are relative, without '.' or '..': {relpath!r}")
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts[:-1]:
                if create:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                        if self.owner is not None:
                            os.chown(part, self.owner, self.owner, dir_fd=fd, follow_symlinks=False)
                    except FileExistsError:
                        pass
                nxt = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = nxt
        except OSError as exc:
            os.close(fd)
            raise SandboxError(f"workspace path {relpath!r}: {exc.strerror}") from None
        return fd, parts[-1]

    def put(self, relpath: str, data: bytes | str) -> None:
        """Write a file into the workspace (creating its directories)."""
        payload = data.encode() if isinstance(data, str) else bytes(data)
        dirfd, name = self._parent_fd(relpath, create=True)
        try:
            fd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644, dir_fd=dirfd)
        except OSError as exc:
            raise SandboxError(f"cannot write {relpath!r} in the workspace: {exc.strerror}") from None
        finally:
            os.close(dirfd)
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            if self.owner is not None:
                os.fchown(handle.fileno(), self.owner, self.owner)

    def get(self, relpath: str, *, max_bytes: int = 256 * 1024 * 1024) -> bytes:
        """Read a regular file from the workspace."""
        dirfd, name = self._parent_fd(relpath, create=False)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dirfd)
        except OSError as exc:
            raise SandboxError(f"cannot read {relpath!r} from the workspace: {exc.strerror}") from None
        finally:
            os.close(dirfd)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise SandboxError(f"{relpath!r} in the workspace is not a regular file")
            data = handle.read(max_bytes + 1)
        if len(data) > max_bytes:
            raise SandboxError(f"{relpath!r} in the workspace is larger than {max_bytes} bytes")
        return data

    def listing(self) -> list[str]:
        """Relative paths of the regular files in the workspace, sorted."""
        return sorted(p for p, kind, _, _ in self._walk() if kind == stat.S_IFREG)

    # -- snapshots -------------------------------------------------------------------------
    def _walk(self) -> tuple[tuple[str, int, int, int], ...]:
        out = []
        for root, dirs, files in os.walk(self.path):
            for name in dirs + files:
                full = os.path.join(root, name)
                st = os.lstat(full)
                rel = os.path.relpath(full, self.path)
                out.append((rel, stat.S_IFMT(st.st_mode), st.st_size, st.st_mtime_ns))
        return tuple(sorted(out))

    def snapshot(self) -> None:
        """Copy the tree unless it is unchanged since the last snapshot."""
        signature = self._walk()
        if signature == self._signature and self._snapshot is not None:
            return
        fresh = tempfile.mkdtemp(prefix="safe-eval-snap-")
        os.rmdir(fresh)
        shutil.copytree(self.path, fresh, symlinks=True)
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
        self._snapshot, self._signature = fresh, signature

    def rollback(self) -> None:
        """Restore the workspace as the last snapshot found it."""
        if self._snapshot is None:
            raise SandboxError("no snapshot to roll back to (no run has started)")
        for entry in os.scandir(self.path):
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path)
            else:
                os.unlink(entry.path)
        for entry in os.scandir(self._snapshot):
            target = os.path.join(self.path, entry.name)
            if entry.is_dir(follow_symlinks=False):
                shutil.copytree(entry.path, target, symlinks=True)
            else:
                shutil.copy2(entry.path, target, follow_symlinks=False)
        if self.owner is not None:
            for root, dirs, files in os.walk(self.path):
                for name in dirs + files:
                    os.chown(os.path.join(root, name), self.owner, self.owner, follow_symlinks=False)
        self._signature = self._walk()

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
            self._snapshot = None
