"""Server benchmark: edit-API latency and throughput with 1 and 50 concurrent clients on
loopback, export latency at 3x beside `collage export` of the same collage, and the server's
memory after 1,000 edits. Every loop is bounded in count and time. The 50 clients are 50
processes (threads of one Python process would measure its interpreter lock, not the server).
Run through bench/server/run."""
import http.client
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import multiprocessing
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from results import record  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
COLLAGE = os.path.join(ROOT, ".build", "release", "collage")


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0


class Client:
    def __init__(self, port, token):
        self.port = port
        self.token = token
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method, path, body=None):
        headers = {"Host": f"127.0.0.1:{self.port}", "X-Collage-Token": self.token}
        data = None
        if body is not None:
            data = json.dumps(body)
            headers["Content-Type"] = "application/json"
        self.connection.request(method, path, body=data, headers=headers)
        response = self.connection.getresponse()
        payload = response.read()
        return response.status, payload


def cpu_seconds(pid):
    """The CPU time (user and system) the process has used so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


class EditClient:
    """A client as thin as it can be, so the clients' own work takes little of the two cores the
    server shares with them: one keep-alive socket, the request bytes formatted directly, and of
    each answer only its status, its length and its version read (the whole answer is received)."""

    VERSION = re.compile(rb'"version":\s*(\d+)')

    def __init__(self, port, token, collage):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = (f"POST /api/collages/{collage}/edits HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                     f"X-Collage-Token: {token}\r\nContent-Type: application/json\r\n").encode()
        self.buffer = b""

    def edit(self, body):
        data = body.encode()
        self.socket.sendall(self.head + b"Content-Length: %d\r\n\r\n" % len(data) + data)
        while b"\r\n\r\n" not in self.buffer:
            self.receive()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status = int(head[9:12])
        length = int(re.search(rb"(?i)\r\ncontent-length:\s*(\d+)", head).group(1))
        while len(self.buffer) < length:
            self.receive()
        payload, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, payload

    def receive(self):
        chunk = self.socket.recv(65536)
        if not chunk:
            sys.exit("the server closed the connection")
        self.buffer += chunk


def edit_loop(client, collage, count, deadline, latencies, period=0.0, phase=0.0):
    """Edits in a loop; with a period, at most one edit per period, as a person dragging would,
    starting `phase` periods in (people editing at once do not all edit in the same instant)."""
    status, payload = client.call("GET", f"/api/collages/{collage}")
    version = json.loads(payload)["version"]
    client.connection.close()  # the server limits the connections one address may hold
    editor = EditClient(client.port, client.token, collage)
    next_start = time.perf_counter() + phase * period
    for index in range(count):
        if time.perf_counter() > deadline:
            break
        if period:
            pause = next_start - time.perf_counter()
            if pause > 0:
                time.sleep(pause)
            next_start += period
        started = time.perf_counter()
        status, payload = editor.edit('{"version": %d, "edits": [{"op": "rotateItem", "id": "i1", "degrees": %s}]}'
                                      % (version, (index % 300) - 150 + 0.5))
        latencies.append(time.perf_counter() - started)
        if status != 200:
            sys.exit(f"edit failed: {status} {payload[:200]}")
        # The answer's own version is its last member (keys are sorted; the document inside has one too).
        version = int(EditClient.VERSION.findall(payload)[-1])


def client_run(port, token, collage, count, period, phase):
    """One client's edits in its own process; the latencies it saw."""
    latencies = []
    edit_loop(Client(port, token), collage, count, time.perf_counter() + 60, latencies, period, phase)
    return latencies


def main():
    library = tempfile.mkdtemp(prefix="collage-bench-server-")
    try:
        subprocess.run([COLLAGE, "import", os.path.join(ROOT, "samples"), "--library", library],
                       check=True, stdout=subprocess.DEVNULL)
        photos = json.loads(subprocess.run([COLLAGE, "photos", "--json", "--library", library], check=True,
                                           capture_output=True, text=True).stdout)
        ids = [photo["id"] for photo in photos[:4]]
        collages = []
        for index in range(51):
            created = subprocess.run([COLLAGE, "new", "--json", "--title", f"Bench {index}", "--layout", "grid2x2",
                                      *ids, "--library", library], check=True, capture_output=True, text=True)
            collages.append(json.loads(created.stdout)["id"])
        server = subprocess.Popen([COLLAGE, "serve", "--port", "0", "--library", library, "--model", "/nonexistent"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
        try:
            probe = http.client.HTTPConnection("127.0.0.1", port)
            probe.request("GET", "/api/session", headers={"Host": f"127.0.0.1:{port}"})
            token = json.loads(probe.getresponse().read())["token"]

            print(f"\nEdit API (POST /api/collages/ID/edits, one rotateItem each, keep-alive):")
            latencies = []
            started = time.perf_counter()
            edit_loop(Client(port, token), collages[0], 500, started + 30, latencies)
            elapsed = time.perf_counter() - started
            print(f"  1 client, flat out:             p50 {percentile(latencies, 0.5) * 1000:6.2f} ms   p99 {percentile(latencies, 0.99) * 1000:6.2f} ms"
                  f"   {len(latencies) / elapsed:7.0f} edits/s")

            record("server.edit.one_client_p50_ms", percentile(latencies, 0.5) * 1000, "ms")
            for label, key, period in [("flat out", "flat_out", 0.0), ("an edit each 50 ms", "each_50ms", 0.05)]:
                with multiprocessing.get_context("fork").Pool(50) as pool:
                    cpu_before = cpu_seconds(server.pid)
                    started = time.perf_counter()
                    runs = pool.starmap(client_run, [(port, token, collages[1 + i], 100, period, i / 50) for i in range(50)])
                    elapsed = time.perf_counter() - started
                latencies = [latency for run in runs for latency in run]
                p99 = percentile(latencies, 0.99) * 1000
                rate = len(latencies) / elapsed
                cpu_per_edit = (cpu_seconds(server.pid) - cpu_before) / len(latencies) * 1000
                print(f"  50 clients, {label + ':':20} p50 {percentile(latencies, 0.5) * 1000:6.2f} ms"
                      f"   p99 {p99:6.2f} ms   {rate:7.0f} edits/s   (server CPU {cpu_per_edit:.2f} ms an edit)")
                record(f"server.edit.fifty_clients_{key}_p99_ms", p99, "ms")
                if period == 0.0:
                    record("server.edit.capacity_per_s", rate, "edits/s", better="higher")
            print("  (targets: p99 at most 10 ms with 50 clients at an edit each 50 ms; capacity at least 2,000 edits/s)")

            client = Client(port, token)
            times = []
            for _ in range(5):
                started = time.perf_counter()
                status, payload = client.call("GET", f"/api/collages/{collages[0]}/export?format=jpeg&scale=3")
                times.append(time.perf_counter() - started)
                assert status == 200, payload[:200]
            exported = statistics.median(times)
            command = []
            for _ in range(5):
                started = time.perf_counter()
                subprocess.run([COLLAGE, "export", collages[0], "--scale", "3", "--format", "jpeg", "--no-smart-crop", "-o",
                                os.path.join(library, "export.jpg"), "--library", library], check=True,
                               stdout=subprocess.DEVNULL)
                command.append(time.perf_counter() - started)
            print(f"\nExport at 3x (3,600 x 3,600 JPEG): editor (server) median {exported * 1000:.0f} ms, "
                  f"`collage export` of the same collage median {statistics.median(command) * 1000:.0f} ms")
            record("server.export_3x.ms", exported * 1000, "ms")
            record("server.export_3x.over_command", exported / statistics.median(command), "time ratio")

            before = rss_mb(server.pid)
            edit_loop(Client(port, token), collages[0], 1000, time.perf_counter() + 60, [])
            after = rss_mb(server.pid)
            edit_loop(Client(port, token), collages[0], 1000, time.perf_counter() + 60, [])
            later = rss_mb(server.pid)
            print(f"\nServer memory: {before:.0f} MB before, {after:.0f} MB after 1,000 edits, {later:.0f} MB after "
                  f"2,000 (growth over the second thousand: {later - after:+.1f} MB; bound: 5 MB)")
        finally:
            server.send_signal(2)
            server.wait(timeout=30)
    finally:
        shutil.rmtree(library, ignore_errors=True)


main()
