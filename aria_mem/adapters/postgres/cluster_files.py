"""What root does in the embedded cluster's folder, which the server's own account can write:
when aria-mem runs as root, the embedded server runs as the system account
``embedded_postgres``, which owns the data folder and ``postmaster.pid``. Should that account
be another program's to command (it is a shared name), a link planted there, or a path written
into ``postmaster.pid``, would make root write, give away or delete what it points at. So a
file there is written with ``private.write_private`` (a new file renamed over the name, given
to the account through its descriptor: a link is replaced, never followed), and a socket
folder read from ``postmaster.pid`` is removed only if it is one aria-mem made.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

SOCKET_FOLDER = "aria-mem-pg-"
"""How the private socket folder made beside a long data path is named (``mkdtemp``)."""


def made_socket_folder(folder: Path, pgdata: Path, owner: int) -> bool:
    """Whether ``folder`` (read from ``postmaster.pid``) is the data folder or a socket folder
    aria-mem made for this server: named ``SOCKET_FOLDER...`` right in the runtime or temporary
    folder, written plainly (no ``..``), a folder itself, not a link, and the server account's
    (``owner``), not another person's server's."""
    if folder == pgdata:
        return True
    bases = {Path(tempfile.gettempdir()), Path(os.environ.get("XDG_RUNTIME_DIR") or "/nonexistent")}
    plain = folder.is_absolute() and str(folder) == os.path.normpath(folder)
    if not plain or folder.parent not in bases or not folder.name.startswith(SOCKET_FOLDER):
        return False
    try:
        info = os.lstat(folder)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == owner
