"""A small WebSocket load client on raw sockets and epoll (RFC 6455, standard library only), fast enough to load
one mockd reactor from one Python process. Run as a script, prints JSON on stdout:

    wsclient.py echo PORT PATH CONNECTIONS SECONDS      closed loop: every connection sends a text frame, waits for
                                                        the answer, sends the next; msg/s and round-trip latency
    wsclient.py churn PORT PATH SESSIONS                one session after another: connect + handshake -> first
                                                        frame from the server -> close frame and drop
    wsclient.py hold PORT PATH CONNECTIONS              open CONNECTIONS sockets, wait for each one's first frame,
                                                        print a JSON line, wait for a line on stdin, close them all
"""
import base64
import json
import os
import resource
import select
import socket
import sys
import time

HOST = "127.0.0.1"


def handshake(port, path, timeout=30):
    s = socket.create_connection((HOST, port), timeout=timeout)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    key = base64.b64encode(os.urandom(16)).decode()
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, HOST, port, key)).encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            raise OSError("closed during the handshake")
        data += chunk
    if not data.startswith(b"HTTP/1.1 101"):
        raise OSError("handshake refused: %r" % data[:80])
    return s, data.split(b"\r\n\r\n", 1)[1]


def frame(payload, opcode=0x1):
    mask = os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode])
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([0x80 | 127]) + n.to_bytes(8, "big")
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def frames(buffer):
    """Complete server frames at the start of buffer: (list of (opcode, payload), rest)."""
    out = []
    while len(buffer) >= 2:
        b1 = buffer[1] & 0x7F
        at = 2
        if b1 == 126:
            if len(buffer) < 4:
                break
            b1, at = int.from_bytes(buffer[2:4], "big"), 4
        elif b1 == 127:
            if len(buffer) < 10:
                break
            b1, at = int.from_bytes(buffer[2:10], "big"), 10
        if len(buffer) < at + b1:
            break
        out.append((buffer[0] & 0x0F, buffer[at:at + b1]))
        buffer = buffer[at + b1:]
    return out, buffer


def pct(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p))]


def raise_nofile():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def echo(port, path, connections, seconds):
    raise_nofile()
    socks, buffers, sent_at = {}, {}, {}
    for _ in range(connections):
        s, rest = handshake(port, path)
        s.setblocking(False)
        socks[s.fileno()] = s
        buffers[s.fileno()] = rest
    poller = select.epoll()
    for fd in socks:
        poller.register(fd, select.EPOLLIN)
    message = frame(b'{"type":"message","text":"ping"}')
    latencies, received, errors = [], 0, 0
    cpu0 = time.process_time()
    start = time.perf_counter()
    for fd, s in socks.items():
        sent_at[fd] = time.perf_counter()
        s.send(message)
    end = start + seconds
    while True:
        now = time.perf_counter()
        if now >= end:
            break
        for fd, _ in poller.poll(end - now):
            try:
                data = socks[fd].recv(65536)
            except BlockingIOError:
                continue
            if not data:
                errors += 1
                poller.unregister(fd)
                continue
            got, buffers[fd] = frames(buffers[fd] + data)
            for opcode, _payload in got:
                if opcode == 0x1 or opcode == 0x2:
                    t = time.perf_counter()
                    latencies.append((t - sent_at[fd]) * 1000)
                    received += 1
                    sent_at[fd] = t
                    socks[fd].send(message)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu0
    for s in socks.values():
        s.close()
    return {"connections": connections, "seconds": wall, "received": received, "msgPerSec": received / wall,
            "p50": pct(latencies, 0.5), "p99": pct(latencies, 0.99), "max": max(latencies) if latencies else None,
            "errors": errors, "clientCpuShare": cpu / wall}


def churn(port, path, sessions):
    first, whole, errors = [], [], 0
    for _ in range(sessions):
        t0 = time.perf_counter()
        try:
            s, rest = handshake(port, path)
            buffer = rest
            got = []
            while not got:
                got, buffer = frames(buffer)
                if got:
                    break
                chunk = s.recv(65536)
                if not chunk:
                    raise OSError("closed before the first frame")
                buffer += chunk
            t1 = time.perf_counter()
            s.sendall(frame(b"\x03\xe8", opcode=0x8))
            s.close()
            t2 = time.perf_counter()
            first.append((t1 - t0) * 1000)
            whole.append((t2 - t0) * 1000)
        except OSError:
            errors += 1
    return {"sessions": sessions, "errors": errors, "firstP50": pct(first, 0.5), "firstP99": pct(first, 0.99),
            "wholeP50": pct(whole, 0.5), "wholeP99": pct(whole, 0.99), "wholeMax": max(whole) if whole else None,
            "total": sum(whole) / 1000}


def hold(port, path, connections):
    raise_nofile()
    socks, errors = [], 0
    for _ in range(connections):
        try:
            s, rest = handshake(port, path)
            buffer = rest
            got, buffer = frames(buffer)
            while not got:
                chunk = s.recv(65536)
                if not chunk:
                    raise OSError("closed")
                got, buffer = frames(buffer + chunk)
            socks.append(s)
        except OSError:
            errors += 1
    print(json.dumps({"open": len(socks), "errors": errors}), flush=True)
    sys.stdin.readline()
    for s in socks:
        s.close()


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "echo":
        print(json.dumps(echo(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]), float(sys.argv[5]))))
    elif mode == "churn":
        print(json.dumps(churn(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))))
    elif mode == "hold":
        hold(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
