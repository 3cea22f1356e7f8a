#!/usr/bin/env bash
# Load BSPs compiled by srcmap in the peer readers (srctools, bsp_tool, valvebsp), installed
# from PyPI into a virtual environment (default /tmp/srcmap-peers-venv).
# Usage: scripts/vbsp_peer_load.sh FILE.bsp...
set -eu
VENV=${VENV:-/tmp/srcmap-peers-venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q srctools bsp_tool valvebsp
fi
exec "$VENV/bin/python" "$(dirname "$0")/vbsp_peer_load.py" "$@"
