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
        _copy_tree(self.path, fresh, None)
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
        self._snapshot, self._signature = fresh, signature

    def rollback(self) -> None:
        """Restore the workspace as the last snapshot found it."""
        if self._snapshot is None:
            raise SandboxError("no snapshot to roll back to (no run has started)")
        fd = os.open(self.path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            for name in os.listdir(fd):
                st = os.lstat(name, dir_fd=fd)
                if stat.S_ISDIR(st.st_mode):
                    _remove_dir(fd, name)
                else:
                    os.unlink(name, dir_fd=fd)
        finally:
            os.close(fd)
        _copy_tree(self._snapshot, self.path, self.owner)
        self._signature = self._walk()

    def remove(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        if self._snapshot is not None:
            shutil.rmtree(self._snapshot, ignore_errors=True)
            self._snapshot = None


def _copy_tree(src: str, dst: str, owner: int | None) -> None:
    """Copy the tree ``src`` into the existing directory ``dst`` through directory file
    descriptors, never following a symlink on either side: a worker process still running
    may swap any name for a symlink to a host path at any moment, and the host (maybe root)
    must neither read through it (a snapshot) nor write through it (a rollback). A name that
    appears in ``dst`` meanwhile is refused (``O_EXCL``), not overwritten. Symlinks are copied
    as symlinks; other special files are left out."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    sfd, dfd = os.open(src, flags), os.open(dst, flags)
    try:
        _copy_dir(sfd, dfd, owner)
    except FileExistsError as exc:
        raise SandboxError(f"the workspace changed while it was copied: {exc.filename!r}") from None
    finally:
        os.close(sfd)
        os.close(dfd)


def _copy_dir(sfd: int, dfd: int, owner: int | None) -> None:
    for name in os.listdir(sfd):
        st = os.lstat(name, dir_fd=sfd)
        if stat.S_ISLNK(st.st_mode):
            os.symlink(os.readlink(name, dir_fd=sfd), name, dir_fd=dfd)
            if owner is not None:
                os.chown(name, owner, owner, dir_fd=dfd, follow_symlinks=False)
        elif stat.S_ISDIR(st.st_mode):
            os.mkdir(name, 0o700, dir_fd=dfd)
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
            try:
                sub_s = os.open(name, flags, dir_fd=sfd)
            except OSError:  # swapped for a symlink since the lstat: not followed
                continue
            try:
                sub_d = os.open(name, flags, dir_fd=dfd)
                try:
                    if owner is not None:
                        os.fchown(sub_d, owner, owner)
                    _copy_dir(sub_s, sub_d, owner)
                finally:
                    os.close(sub_d)
            finally:
                os.close(sub_s)
        elif stat.S_ISREG(st.st_mode):
            try:
                rfd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=sfd)
            except OSError:
                continue
            try:
                if not stat.S_ISREG(os.fstat(rfd).st_mode):  # swapped for a fifo or device
                    continue
                wfd = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                              stat.S_IMODE(st.st_mode) & 0o777, dir_fd=dfd)
                try:
                    while chunk := os.read(rfd, 1 << 20):
                        os.write(wfd, chunk)
                    os.utime(wfd, ns=(st.st_atime_ns, st.st_mtime_ns))
                    if owner is not None:
                        os.fchown(wfd, owner, owner)
                finally:
                    os.close(wfd)
            finally:
                os.close(rfd)


def _remove_dir(parent: int, name: str) -> None:
    """Remove the directory ``name`` under ``parent`` and all it holds through directory fds,
    never following a symlink (``shutil.rmtree(dir_fd=)`` needs 3.11)."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=parent)
    except OSError:  # swapped for a symlink or a file meanwhile: remove the name itself
        os.unlink(name, dir_fd=parent)
        return
    try:
        for entry in os.listdir(fd):
            if stat.S_ISDIR(os.lstat(entry, dir_fd=fd).st_mode):
                _remove_dir(fd, entry)
            else:
                os.unlink(entry, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)
