"""A TCP proxy on loopback for fault tests: ``python tests/tcp_proxy.py TARGET_PORT`` listens on a free
port, prints it, and forwards every connection to TARGET_PORT on 127.0.0.1.

SIGUSR1 cuts the network: every open connection is dropped (reset) and new ones are reset as soon as
they arrive. SIGUSR2 heals it: connections go through again.
"""

from __future__ import annotations

import asyncio
import signal
import sys


class Proxy:
    """Forwards connections to ``target`` unless cut."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.cut = False
        self.open: set[asyncio.StreamWriter] = set()

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Pipes one client connection to the target and back until either side closes."""
        if self.cut:
            writer.transport.abort()
            return
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        pair = {writer, up_writer}
        self.open |= pair
        await asyncio.gather(
            self.pipe(reader, up_writer), self.pipe(up_reader, writer), return_exceptions=True
        )
        for w in pair:
            w.transport.abort()
        self.open -= pair

    async def pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Copies bytes one way; when that side ends, the whole connection is dropped."""
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.transport.abort()

    def drop(self) -> None:
        """Cuts the network: resets every open connection, and new ones from now on."""
        self.cut = True
        for writer in list(self.open):
            writer.transport.abort()

    def heal(self) -> None:
        """Lets connections through again."""
        self.cut = False


async def main(target: int) -> None:
    proxy = Proxy(target)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGUSR1, proxy.drop)
    loop.add_signal_handler(signal.SIGUSR2, proxy.heal)
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1])))
