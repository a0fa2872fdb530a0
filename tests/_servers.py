"""A TCP server on 127.0.0.1 that accepts connections and never answers: what a dead
proxy or server looks like to a client, without touching the network."""

import contextlib
import socket
import threading


@contextlib.contextmanager
def silent_server():
    """Yield ``(port, accepted)``: the server's port and the connections it accepted."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted, stop = [], threading.Event()

    def serve():
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], accepted
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        server.close()
