#!/usr/bin/env bash
# Screenshots of the main pages, from the demo's data, in Chromium: into docs/screenshots/.
#   scripts/screenshots.sh            build the release binary, start the demo on a free port, take them
#   DESKGRAPH_BIN=path scripts/screenshots.sh   with a binary already built
# Needs Chromium and chromedriver (scripts/install-browser.sh); installs Selenium from PyPI.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-browser.sh >/dev/null
python3 -m pip install --quiet --disable-pip-version-check 'selenium>=4.20,<5'
bin="${DESKGRAPH_BIN:-}"
if [[ -z "$bin" ]]; then
  cargo build --release --quiet --bin deskgraph
  bin="$PWD/target/release/deskgraph"
fi
work="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
(cd "$work" && exec "$bin" demo --bind "127.0.0.1:$port" >"$work/demo.log" 2>&1) &
demo=$!
trap 'kill "$demo" 2>/dev/null || true; wait "$demo" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 1 60); do
  curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  sleep 1
done
python3 scripts/screenshots/take.py "http://127.0.0.1:$port" docs/screenshots
