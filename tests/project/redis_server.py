"""A throwaway ``redis-server`` on a free port that a test can stop and start again, empty
(nothing kept on disk) or persistent (an append-only file in a folder of the test's, as the
compose file's Redis keeps its data)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    def __init__(self, data_dir: Path | None = None) -> None:
        self.port = free_port()
        self.data_dir = data_dir  # None: nothing survives a restart
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        binary = shutil.which("redis-server")
        assert binary, "redis-server is needed"
        command = [binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
        if self.data_dir is None:
            command += ["--appendonly", "no"]
        else:
            command += ["--appendonly", "yes", "--appendfsync", "always"]
            command += ["--dir", str(self.data_dir)]
        self.process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                assert self.process.poll() is None, "redis-server exited"
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        """SIGTERM, as ``docker compose restart redis`` does (a persistent one flushes its
        file first); SIGKILL if it does not exit."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
