#!/usr/bin/env bash
# Usage: scripts/render-html.sh [--install] [--out PNG] [--size WIDTHxHEIGHT] [FILE.html]
#
# Renders an auditctl HTML page in headless Chromium and checks that it rendered. Without FILE it
# makes one: records Examples/checkout.json into a scratch database, replays it against
# checkout.v2 with --html, and renders that page.
#
# Checks, each of which fails the run:
#   - Chromium loads the page and runs its script: in the DOM it dumps, every timeline mark of the
#     file is there and carries the tooltip the script moves out of its SVG title;
#   - the screenshot is a PNG of exactly the window size;
#   - it is not blank: decoded with Python's standard library (zlib), it has many colours and a
#     fair share of pixels that are not the page background.
# Prints one line: "render-html: OK: …" or "render-html: FAILED: …".
#
# Chromium is Debian's package `chromium`. When it is missing the script skips (exit 77) unless
# given --install, which runs `apt-get update && apt-get install -y chromium` first.
#
# Exit status: 0 rendered, 1 did not render, 2 bad usage or setup, 77 skipped (no Chromium).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
install=no
out=""
size="1400x1000"
page=""
while [ $# -gt 0 ]; do
    case "$1" in
        --install) install=yes ;;
        --out) out="${2:?--out needs a file}"; shift ;;
        --size) size="${2:?--size needs WIDTHxHEIGHT}"; shift ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "render-html: unknown option $1" >&2; exit 2 ;;
        *) page="$1" ;;
    esac
    shift
done
if ! [[ "$size" =~ ^([0-9]+)x([0-9]+)$ ]]; then
    echo "render-html: --size takes WIDTHxHEIGHT, not '$size'" >&2
    exit 2
fi
width="${BASH_REMATCH[1]}"
height="${BASH_REMATCH[2]}"

browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then
    if [ "$install" = no ]; then
        echo "render-html: SKIPPED: chromium is not installed (run with --install to install Debian's chromium)"
        exit 77
    fi
    echo "render-html: installing chromium" >&2
    apt-get update >&2 && apt-get install -y chromium >&2
    browser="$(command -v chromium)"
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
if [ -z "$page" ]; then
    echo "render-html: building auditctl and recording the checkout example" >&2
    source "$root/scripts/lib/swift-flags.sh"
    (cd "$root" && swift build "${swift_flags[@]}" --product auditctl >&2)
    auditctl="$(cd "$root" && swift build "${swift_flags[@]}" --show-bin-path)/auditctl"
    "$auditctl" record --scenario "$root/Examples/checkout.json" --db "$scratch/audit.sqlite" >/dev/null
    page="$scratch/checkout-replay.html"
    status=0
    "$auditctl" replay --session 1 --delegate checkout.v2 --db "$scratch/audit.sqlite" --html "$page" \
        >/dev/null || status=$?
    if [ "$status" -ne 1 ]; then
        echo "render-html: FAILED: the checkout replay exited $status, expected 1 (its regression)"
        exit 1
    fi
fi
if [ ! -f "$page" ]; then
    echo "render-html: FAILED: no such file: $page"
    exit 1
fi
page="$(cd "$(dirname "$page")" && pwd)/$(basename "$page")"
out="${out:-${page%.html}.png}"

chrome=("$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --hide-scrollbars --no-first-run
    --user-data-dir="$scratch/profile" --window-size="$width,$height")
rm -f "$out"
timeout 120 "${chrome[@]}" --screenshot="$out" "file://$page" >"$scratch/chromium.log" 2>&1 || true
timeout 120 "${chrome[@]}" --dump-dom "file://$page" >"$scratch/dom.html" 2>>"$scratch/chromium.log" || true

python3 - "$page" "$scratch/dom.html" "$out" "$width" "$height" <<'PYTHON'
import re, struct, sys, zlib

page, dom_path, png_path, width, height = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])

def fail(reason):
    print(f"render-html: FAILED: {reason}")
    sys.exit(1)

source = open(page, encoding="utf-8", errors="replace").read()
dom = open(dom_path, encoding="utf-8", errors="replace").read()
marks = len(re.findall(r'<rect[^>]*class="m ', source))
rendered = len(re.findall(r'<rect[^>]*class="m ', dom))
tipped = len(re.findall(r'<rect[^>]*class="m [^>]*data-tip="', dom))
if not dom.strip():
    fail("chromium dumped no DOM")
if rendered != marks:
    fail(f"the DOM has {rendered} timeline marks, the file {marks}")
if tipped != marks:
    fail(f"the page's script did not run: {tipped} of {marks} marks have a tooltip")

try:
    data = open(png_path, "rb").read()
except OSError:
    fail(f"chromium wrote no screenshot ({png_path})")
if data[:8] != b"\x89PNG\r\n\x1a\n":
    fail(f"{png_path} is not a PNG")
position, chunks = 8, {}
idat = b""
while position < len(data):
    length, kind = struct.unpack(">I4s", data[position:position + 8])
    body = data[position + 8:position + 8 + length]
    if kind == b"IDAT":
        idat += body
    else:
        chunks.setdefault(kind, body)
    position += 12 + length
png_width, png_height, depth, colour_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
if (png_width, png_height) != (width, height):
    fail(f"the screenshot is {png_width}x{png_height}, not {width}x{height}")
if depth != 8 or colour_type not in (2, 6):
    fail(f"unexpected PNG format (bit depth {depth}, colour type {colour_type})")
channels = 3 if colour_type == 2 else 4
stride = png_width * channels
raw = zlib.decompress(idat)
previous = bytearray(stride)
colours = {}
for row in range(png_height):
    start = row * (stride + 1)
    kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
    if kind == 1:
        for i in range(channels, stride):
            line[i] = (line[i] + line[i - channels]) & 255
    elif kind == 2:
        line = bytearray((a + b) & 255 for a, b in zip(line, previous))
    elif kind == 3:
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            line[i] = (line[i] + ((left + previous[i]) >> 1)) & 255
    elif kind == 4:
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = previous[i]
            c = previous[i - channels] if i >= channels else 0
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, channels * 2):  # every other pixel is plenty to count colours
        pixel = bytes(line[i:i + 3])
        colours[pixel] = colours.get(pixel, 0) + 1
    previous = line
total = sum(colours.values())
background = max(colours.values())
ink = 1 - background / total
if len(colours) < 16:
    fail(f"the screenshot is blank: {len(colours)} colours")
if ink < 0.02:
    fail(f"the screenshot is nearly blank: {ink:.1%} of it differs from the background")
print(f"render-html: OK: {page.rsplit('/', 1)[-1]} rendered to {png_path} ({png_width}x{png_height}, "
      f"{len(colours)} colours, {ink:.1%} not background, {rendered} of {marks} marks in the DOM with tooltips)")
PYTHON
