#!/usr/bin/python3
"""gpuimg tests: a HEIF grid image of ROWS x COLS tiles, every tile the one HEVC tile of TEMPLATE
(a small HEIC gpuimg wrote), W x H in all: an item table of ROWS * COLS + 1 items, which libheif
1.15 reads in time that grows with the square of its items (tests/heif.sh; a hostile probe's).
    python3 tests/heif/mkgrid.py TEMPLATE.heic ROWS COLS W H OUT.heic
"""
import struct
import sys

def box(t, payload): return struct.pack(">I4s", 8+len(payload), t) + payload
def fbox(t, v, f, payload): return box(t, struct.pack(">I", (v<<24)|f) + payload)
src = open(sys.argv[1], 'rb').read()
# pull hvcC, tile ispe, pixi payloads and tile data from template
def find(t):
    i = src.find(t); n = struct.unpack(">I", src[i-4:i])[0]; return src[i-4:i-4+n]
hvcC = find(b'hvcC'); ispe64 = find(b'ispe'); pixi = find(b'pixi')
mdat_i = src.find(b'mdat'); tile = src[mdat_i+4:]
rows, cols, W, H = [int(x) for x in sys.argv[2:6]]; out = sys.argv[6]
N = rows*cols; gid = N+1
ftyp = box(b'ftyp', b'heic' + b'\0\0\0\0' + b'mif1heicmiaf')
hdlr = fbox(b'hdlr', 0, 0, b'\0'*4 + b'pict' + b'\0'*12 + b'\0')
pitm = fbox(b'pitm', 0, 0, struct.pack(">H", gid))
gdesc = struct.pack(">BBBBHH", 0, 0, rows-1, cols-1, W, H) if W < 65536 and H < 65536 else struct.pack(">BBBBII", 0, 1, rows-1, cols-1, W, H)
idat = box(b'idat', gdesc)
infes = b"".join(fbox(b'infe', 2, 1, struct.pack(">HH4s", i, 0, b'hvc1') + b'\0') for i in range(1, N+1))
infes += fbox(b'infe', 2, 0, struct.pack(">HH4s", gid, 0, b'grid') + b'\0')
iinf = fbox(b'iinf', 0, 0, struct.pack(">H", N+1) + infes)
ispeG = fbox(b'ispe', 0, 0, struct.pack(">II", W, H))
ipco = box(b'ipco', hvcC + ispe64 + ispeG + pixi)
ent = b"".join(struct.pack(">HBBB", i, 2, 0x81, 0x02) for i in range(1, N+1)) + struct.pack(">HBBB", gid, 2, 0x03, 0x84)
ipma = fbox(b'ipma', 0, 0, struct.pack(">I", N+1) + ent)
iprp = box(b'iprp', ipco + ipma)
iref = fbox(b'iref', 0, 0, box(b'dimg', struct.pack(">HH", gid, N) + b"".join(struct.pack(">H", i) for i in range(1, N+1))))
def build(data_off):
    e = b"".join(struct.pack(">HHHHII", i, 0, 0, 1, data_off, len(tile)) for i in range(1, N+1))
    e += struct.pack(">HHHHII", gid, 1, 0, 1, 0, len(gdesc))
    iloc = fbox(b'iloc', 1, 0, struct.pack(">BBH", 0x44, 0x00, N+1) + e)
    meta = fbox(b'meta', 0, 0, hdlr + pitm + idat + iloc + iinf + iprp + iref)
    return ftyp + meta
head = build(0)
data_off = len(head) + 8
f = build(data_off) + box(b'mdat', tile)
open(out, 'wb').write(f)
