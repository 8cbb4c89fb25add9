#!/usr/bin/env bash
# server/deploy/nginx.conf in front of a real shaderwatch-server, both on loopback, nginx as Debian ships
# it: the configuration loads, a run posts through TLS, and the slow-client and body-limit checks of
# issue 13 hold through it (health answers with 64 idle and 16 slowloris connections open; a chunked
# body and a 4 GiB Content-Length over the limit are 413 and store nothing).
# Usage: nginx_front_test.sh SERVER_BIN [NGINX_BIN]
set -euo pipefail
server=$1 nginx=${2:-nginx}
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
chmod 0755 "$tmp"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$server" serve --db "$tmp/sw.db" --port 0 --max-body-bytes 1048576 >"$tmp/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do grep -q "listening on" "$tmp/server.log" && break; sleep 0.1; done
upstream=$(grep -o '127.0.0.1:[0-9]*' "$tmp/server.log" | head -1)
[ -n "$upstream" ] || fail "the server did not start: $(cat "$tmp/server.log")"
token=$("$server" token create nginx-test --db "$tmp/sw.db" 2>/dev/null)

openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
  >/dev/null 2>&1 || fail "openssl could not make a certificate"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# Only the lines marked "site:" change; everything else is the file as shipped.
sed -e "s|server 127.0.0.1:8080;  # site:|server $upstream;  # site:|" \
    -e "s|listen 443 ssl; .*# site:.*|listen 127.0.0.1:$port ssl;|" \
    -e "s|ssl_certificate     .*# site:.*|ssl_certificate $tmp/cert.pem;|" \
    -e "s|ssl_certificate_key .*# site:.*|ssl_certificate_key $tmp/key.pem;|" \
    -e "s|client_max_body_size 64m; .*# site:.*|client_max_body_size 1m;|" \
    "$root/server/deploy/nginx.conf" >"$tmp/site.conf"
for line in "server $upstream;" "listen 127.0.0.1:$port ssl;" "client_max_body_size 1m;"; do
  grep -qF "$line" "$tmp/site.conf" || fail "the site: lines of nginx.conf changed shape ($line)"
done
mkdir -p "$tmp/nginx"
cat >"$tmp/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log warn;
events { worker_connections 512; }
http {
  access_log off;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  include $tmp/site.conf;
}
CONF
chmod -R a+rwX "$tmp/nginx"
"$nginx" -t -c "$tmp/nginx.conf" -p "$tmp/nginx" >"$tmp/nginx-t.log" 2>&1 || fail "nginx -t: $(cat "$tmp/nginx-t.log")"
"$nginx" -c "$tmp/nginx.conf" -p "$tmp/nginx" &
pids+=($!)

python3 - "$port" "$token" <<'PY' || fail "through nginx"
import socket, ssl, sys, time, json
port, token = int(sys.argv[1]), sys.argv[2]
ctx = ssl.create_default_context()
ctx.check_hostname = False
ctx.verify_mode = ssl.CERT_NONE

def tls():
    for _ in range(50):
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            return ctx.wrap_socket(s, server_hostname="localhost")
        except (ConnectionRefusedError, ssl.SSLError):
            time.sleep(0.1)
    raise SystemExit("nginx does not answer on port %d" % port)

def exchange(request, timeout=5):
    s = tls()
    s.settimeout(timeout)
    s.sendall(request)
    out = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            out += chunk
    except (socket.timeout, ConnectionResetError, ssl.SSLError):
        pass
    s.close()
    return out.decode("latin-1")

def post(body, extra=b""):
    return (b"POST /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
            b"Authorization: Bearer " + token.encode() + b"\r\n" + extra)

health = b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
assert exchange(health).startswith("HTTP/1.1 200"), "health through TLS"

doc = {"context": {"date": "2026-11-21T10:00:00+00:00", "sw_device_name": "GPU A"},
       "benchmarks": [{"name": "fam/var/1/hot", "run_name": "fam/var/1/hot", "run_type": "iteration",
                       "repetitions": 1, "repetition_index": 0, "threads": 1, "iterations": 10,
                       "real_time": 1000.0, "cpu_time": 990.0, "time_unit": "ns"}]}
body = json.dumps({"run": {"id": "via-nginx", "commit": "c1"}, "benchmark": doc}).encode()
answer = exchange(post(body, b"Content-Length: %d\r\n\r\n" % len(body)) + body)
assert answer.startswith("HTTP/1.1 201"), answer[:300]

# Idle (TCP only, no TLS handshake) and slowloris (a request that never ends its headers).
held = [socket.create_connection(("127.0.0.1", port)) for _ in range(64)]
slow = []
for _ in range(16):
    s = tls()
    s.sendall(b"GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\n")
    slow.append(s)
for _ in range(3):
    for s in slow:
        s.sendall(b"X-Slow: 1\r\n")
    start = time.time()
    answer = exchange(health, timeout=3)
    assert answer.startswith("HTTP/1.1 200"), "health with idle and slow clients open: %r" % answer[:200]
    print("health through nginx with 64 idle and 16 slowloris connections: %.3f s" % (time.time() - start))
    time.sleep(0.3)

# Over the limit, chunked: 413 from nginx, nothing reaches the server.
s = tls()
s.settimeout(5)
s.sendall(post(b"", b"Transfer-Encoding: chunked\r\n\r\n"))
chunk = b" " * 65536
try:
    for _ in range(40):
        s.sendall(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
except (BrokenPipeError, ConnectionResetError, ssl.SSLError):
    pass
try:
    answer = s.recv(4096).decode("latin-1")
except (ConnectionResetError, ssl.SSLError, socket.timeout):
    answer = ""
assert answer.startswith("HTTP/1.1 413"), "chunked over the limit: %r" % answer[:200]
answer = exchange(post(b"", b"Content-Length: 4294967296\r\n\r\n{"), timeout=3)
assert answer.startswith("HTTP/1.1 413"), "4 GiB Content-Length: %r" % answer[:200]

runs = exchange(b"GET /api/v1/runs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
stored = json.loads(runs.split("\r\n\r\n", 1)[1])["runs"]
assert [r["id"] for r in stored] == ["via-nginx"], stored
print("nginx front: TLS, slow clients and the body limit as documented")
PY
