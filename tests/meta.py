#!/usr/bin/env python3
"""gpuimg tests: metadata put into test inputs and read back from outputs, by Python's own byte
handling (independent of gpuimg's parser).

  meta.py jpeg IN.jpg OUT.jpg ORIENT DPIX DPIY [broken-icc]   IN with an RGB ICC profile (APP2, in
          two pieces), EXIF with the orientation and JFIF density put in
  meta.py png IN.png OUT.png ORIENT DPIX DPIY [EXIF_PAD]      IN with iCCP, eXIf (padded to EXIF_PAD
          bytes) and pHYs put in
  meta.py jpeg IN.jpg OUT.jpg ORIENT DPIX DPIY dims           the same, the EXIF with a make and
          an Exif IFD (exif(dims=True))
  meta.py jpeg IN.jpg OUT.jpg ORIENT DPIX DPIY notiff-KIND   the EXIF with a make and an Exif IFD
          of nothing a TIFF's EXIF directory carries: KIND makernote, interop (an interoperability
          pointer), unknown (a tag EXIF does not define) or mismatch (ISO as text)
  meta.py jpeg IN.jpg OUT.jpg ORIENT DPIX DPIY fill           the same as without, with 0xFF fill
          bytes before every marker after SOI up to the scan (JPEG allows any number)
  meta.py show FILE    one line: icc=LEN:CRC|none exif=LEN|none orient=N density=XxY|none (a TIFF:
          exif=none, orient its own tag's)
  meta.py pieces IN.jpg OUT.jpg   IN with every piece: EXIF (a make, a GPS directory whose latitude
          holds the bytes 0x5A5A5A5A), XMP (APP1), IPTC (APP13, a caption), a comment (COM), ICC
  meta.py pieces-show FILE     one line: exif=yes|no gps=yes|no gpsbytes=yes|no xmp=CRC|none
          iptc=CRC|none comment=TEXT|none icc=CRC|none (JPEG, PNG, WebP, TIFF; a JPEG XL container's
          uncompressed Exif and "xml " boxes: its profile, inside the codestream, is djxl's to read)
  meta.py gps-edge KIND IN.jpg OUT.jpg  IN with EXIF whose GPS directory is hostile, the mark
          0x5A5A5A5A in its values: self (the GPS pointer points at IFD0; no mark), utf8 (a value of EXIF
          3.0's type 129), chain (a second directory chained after it), twoptr (two pointers)
  meta.py png-prefix IN.png OUT.png     IN with an eXIf chunk that keeps JPEG's "Exif\0\0" prefix,
          holding exif_gps()
  meta.py dims FILE    one line: pixels=WxH (EXIF's PixelX/YDimension, or none) image=WxH (a JPEG's
          SOF, a PNG's IHDR, a TIFF's IFD0) make= exposure= iso= makernote=yes|no (EXIF's, a TIFF's
          own IFD0 and EXIF directory)
"""
import struct
import sys
import zlib


def icc(space=b"RGB "):
    """A minimal ICC profile libpng takes: a header, no tags."""
    h = bytearray(128)
    struct.pack_into(">I", h, 0, 132)
    h[8:12] = b"\x02\x10\x00\x00"
    h[12:16] = b"mntr"
    h[16:20] = space
    h[20:24] = b"XYZ "
    h[36:40] = b"acsp"
    struct.pack_into(">iii", h, 68, 0xF6D6, 0x10000, 0xD32D)   # D50
    h[100:128] = b"gpuimg test profile, no tags"[:28].ljust(28, b"\0")
    return bytes(h) + struct.pack(">I", 0)


def ifds(e, ifd0, sub):
    """A TIFF structure in byte order e: IFD0's entries, then the Exif IFD's (pointed to from
    IFD0); each entry (tag, type, values), values of more than 4 bytes placed after the IFDs."""
    size = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1}
    fmt = {1: "B", 2: "B", 3: "H", 4: "I", 7: "B"}
    n0, n1 = len(ifd0) + 1, len(sub)
    base = 8 + 2 + 12 * n0 + 4
    sub_at, extra_at = base, base + 2 + 12 * n1 + 4
    extra = b""

    def table(entries):
        nonlocal extra
        out = b""
        for tag, typ, vals in entries:
            raw = b"".join(struct.pack(e + "II", a, b) for a, b in vals) if typ == 5 else \
                struct.pack(e + fmt[typ] * len(vals), *vals)
            cnt = len(raw) // size[typ]
            if len(raw) <= 4:
                out += struct.pack(e + "HHI", tag, typ, cnt) + raw.ljust(4, b"\0")
            else:
                out += struct.pack(e + "HHII", tag, typ, cnt, extra_at + len(extra))
                extra += raw + b"\0" * (len(raw) & 1)
        return out

    t0 = table(ifd0 + [(0x8769, 4, [sub_at])])
    t1 = table(sub)
    return ((b"II\x2a\x00" if e == "<" else b"MM\x00\x2a") + struct.pack(e + "I", 8) + struct.pack(e + "H", n0) + t0
            + struct.pack(e + "I", 0) + struct.pack(e + "H", n1) + t1 + struct.pack(e + "I", 0) + extra)


NOT_TIFF = {"makernote": [(0x927C, 7, list(b"maker note"))], "interop": [(0xA005, 4, [0])],
            "unknown": [(0xEEEE, 3, [7])], "mismatch": [(0x8827, 2, list(b"200\0"))]}


def exif(orient, pad=0, dims=False, notiff=None):
    """Big-endian TIFF: IFD0 with the orientation, then pad bytes of a maker note's worth; with
    dims, little-endian: IFD0 with the orientation and a make, an Exif IFD with the pixel
    dimensions 4000x3000 (a SHORT and a LONG), an exposure of 1/60, the EXIF version, ISO 200 and
    a maker note."""
    if notiff:
        return ifds("<", [(0x010F, 2, list(b"gpuimg-test\0")), (0x0112, 3, [orient])], NOT_TIFF[notiff])
    if dims:
        return ifds("<", [(0x010F, 2, list(b"gpuimg-test\0")), (0x0112, 3, [orient])],
                    [(0x829A, 5, [(1, 60)]), (0x8827, 3, [200]), (0x9000, 7, list(b"0231")),
                     (0x927C, 7, list(b"maker note")), (0xA002, 3, [4000]), (0xA003, 4, [3000])])
    t = b"MM\x00\x2a" + struct.pack(">I", 8) + struct.pack(">H", 1)
    t += struct.pack(">HHIHH", 0x0112, 3, 1, orient, 0) + struct.pack(">I", 0)
    return t + b"\0" * max(0, pad - len(t))


def segment(marker, payload):
    return b"\xff" + bytes([marker]) + struct.pack(">H", len(payload) + 2) + payload


def segments(data):
    """(marker, payload) of each segment of a JPEG from SOI to the scan, fill bytes skipped"""
    pos = 2
    while pos + 4 <= len(data) and data[pos] == 0xFF:
        while data[pos + 1] == 0xFF:
            pos += 1
        m, n = data[pos + 1], struct.unpack(">H", data[pos + 2:pos + 4])[0]
        if m in (0xDA, 0xD9):
            return
        yield m, data[pos + 4:pos + 2 + n]
        pos += 2 + n


def with_fill(data):
    """The JPEG data with two fill bytes before each marker from SOI's next to the scan's"""
    out, pos = data[:2], 2
    for m, p in segments(data):
        out += b"\xff\xff" + segment(m, p)
        pos += 4 + len(p)
    return out + b"\xff\xff" + data[pos:]


def make_jpeg(src, dst, orient, dx, dy, broken=False, dims=False, fill=False, notiff=None):
    data = open(src, "rb").read()
    assert data[:2] == b"\xff\xd8"
    rest = data[2:]
    if rest[:2] == b"\xff\xe0":   # the encoder's JFIF segment, replaced
        rest = rest[2 + struct.unpack(">H", rest[2:4])[0]:]
    jfif = b"JFIF\0\x01\x01\x01" + struct.pack(">HH", dx, dy) + b"\0\0"
    p = icc()
    half = len(p) // 2
    pieces = [segment(0xE2, b"ICC_PROFILE\0" + bytes([1, 2]) + p[:half])]
    if not broken:
        pieces.append(segment(0xE2, b"ICC_PROFILE\0" + bytes([2, 2]) + p[half:]))
    out = b"\xff\xd8" + segment(0xE0, jfif) + segment(0xE1, b"Exif\0\0" + exif(orient, dims=dims, notiff=notiff)) + b"".join(pieces) + rest
    open(dst, "wb").write(with_fill(out) if fill else out)


def chunk(kind, payload):
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", zlib.crc32(kind + payload))


def make_png(src, dst, orient, dx, dy, pad=0):
    data = open(src, "rb").read()
    ihdr_end = 8 + 8 + 13 + 4
    extra = chunk(b"iCCP", b"test\0\0" + zlib.compress(icc()))
    extra += chunk(b"eXIf", exif(orient, pad))
    extra += chunk(b"pHYs", struct.pack(">IIB", round(dx / 0.0254), round(dy / 0.0254), 1))
    open(dst, "wb").write(data[:ihdr_end] + extra + data[ihdr_end:])


def orientation(t):
    be = t[:2] == b"MM"
    e = ">" if be else "<"
    ifd = struct.unpack(e + "I", t[4:8])[0]
    n = struct.unpack(e + "H", t[ifd:ifd + 2])[0]
    for i in range(n):
        tag, typ, cnt = struct.unpack(e + "HHI", t[ifd + 2 + 12 * i:ifd + 10 + 12 * i])
        if tag == 0x0112:
            return struct.unpack(e + "H", t[ifd + 10 + 12 * i:ifd + 12 + 12 * i])[0]
    return 0


def entries(t, ifd):
    """{tag: (type, count, the value field's 4 bytes)} of the IFD at ifd"""
    e = ">" if t[:2] == b"MM" else "<"
    out = {}
    for i in range(struct.unpack(e + "H", t[ifd:ifd + 2])[0]):
        tag, typ, cnt = struct.unpack(e + "HHI", t[ifd + 2 + 12 * i:ifd + 10 + 12 * i])
        out[tag] = (typ, cnt, t[ifd + 10 + 12 * i:ifd + 14 + 12 * i])
    return out


def exif_fields(t):
    """(pixel dimensions or None, make or None, exposure or None, ISO or None, maker note?) of a
    TIFF structure"""
    e = ">" if t[:2] == b"MM" else "<"
    ifd0 = entries(t, struct.unpack(e + "I", t[4:8])[0])

    def text(d, k):
        if k not in d:
            return None
        typ, cnt, f = d[k]
        at = struct.unpack(e + "I", f)[0] if cnt > 4 else None
        return (t[at:at + cnt] if at is not None else f[:cnt]).rstrip(b"\0").decode()
    make = text(ifd0, 0x010F)
    if 0x8769 not in ifd0:
        return None, make, None, None, False
    sub = entries(t, struct.unpack(e + "I", ifd0[0x8769][2])[0])
    val = lambda k: struct.unpack(e + ("H" if sub[k][0] == 3 else "I"), sub[k][2][:2 if sub[k][0] == 3 else 4])[0]
    px = (val(0xA002), val(0xA003)) if 0xA002 in sub and 0xA003 in sub else None
    exp = None
    if 0x829A in sub:
        at = struct.unpack(e + "I", sub[0x829A][2])[0]
        a, b = struct.unpack(e + "II", t[at:at + 8])
        exp = "%d/%d" % (a, b)
    return px, make, exp, val(0x8827) if 0x8827 in sub else None, 0x927C in sub


def dims(path):
    data = open(path, "rb").read()
    size, ex = None, None
    if data[:2] == b"\xff\xd8":
        for m, p in segments(data):
            if m == 0xE1 and p[:6] == b"Exif\0\0":
                ex = p[6:]
            elif m in (0xC0, 0xC1, 0xC2):
                size = struct.unpack(">HH", p[1:5])[::-1]
    elif data[:4] in (b"II*\0", b"MM\0*"):   # a TIFF file is itself the structure EXIF is made of
        ex = data
        e = "<" if data[:2] == b"II" else ">"
        d = entries(data, struct.unpack(e + "I", data[4:8])[0])
        size = tuple(struct.unpack(e + ("H" if d[k][0] == 3 else "I"), d[k][2][:2 if d[k][0] == 3 else 4])[0]
                     for k in (256, 257))
    else:
        size = struct.unpack(">II", data[16:24])
        pos = 8
        while pos + 12 <= len(data):
            n, kind = struct.unpack(">I4s", data[pos:pos + 8])
            if kind == b"eXIf":
                ex = data[pos + 8:pos + 8 + n]
            pos += 12 + n
    px, make, exp, iso, note = exif_fields(ex) if ex else (None, None, None, None, False)
    print("pixels=%s image=%dx%d make=%s exposure=%s iso=%s makernote=%s" % (
        "%dx%d" % px if px else "none", size[0], size[1], make, exp, iso, "yes" if note else "no"))


def png_chunks(data):
    """(type, payload) of each chunk of a PNG after its signature"""
    pos = 8
    while pos + 12 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        yield kind, data[pos + 8:pos + 8 + n]
        pos += 12 + n


def without_app(data):
    """A JPEG's bytes after SOI without its APPn and COM segments"""
    rest, pos = b"", 2
    for m, p in segments(data):
        if not (0xE0 <= m <= 0xEF or m == 0xFE):
            rest += segment(m, p)
        pos += 4 + len(p)
    return rest + data[pos:]


def show(path):
    data = open(path, "rb").read()
    prof, ex, dens, tiff_orient = None, None, None, None
    if data[:2] == b"\xff\xd8":
        pieces = {}
        for m, p in segments(data):
            if m == 0xE0 and p[:5] == b"JFIF\0" and p[7] == 1:
                dens = struct.unpack(">HH", p[8:12])
            elif m == 0xE1 and p[:6] == b"Exif\0\0":
                ex = p[6:]
            elif m == 0xE2 and p[:12] == b"ICC_PROFILE\0":
                pieces[p[12]] = p[14:]
        if pieces:
            prof = b"".join(pieces[k] for k in sorted(pieces))
    elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        pos = 12
        while pos + 8 <= len(data):
            kind, n = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
            p = data[pos + 8:pos + 8 + n]
            if kind == b"ICCP":
                prof = p
            elif kind == b"EXIF":
                ex = p[6:] if p[:6] == b"Exif\0\0" else p
            pos += 8 + n + (n & 1)
    elif data[:4] in (b"II*\0", b"MM\0*"):   # a TIFF's own orientation tag, not EXIF's
        e = "<" if data[:2] == b"II" else ">"
        ifd = struct.unpack(e + "I", data[4:8])[0]
        tags = {}
        for i in range(struct.unpack(e + "H", data[ifd:ifd + 2])[0]):
            tag, typ, cnt, val = struct.unpack(e + "HHII", data[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
            tags[tag] = (typ, cnt, val, data[ifd + 10 + 12 * i:ifd + 14 + 12 * i])
        tiff_orient = struct.unpack(e + "H", tags[274][3][:2])[0] if 274 in tags else 0
        if 34675 in tags:
            typ, cnt, off, _ = tags[34675]
            prof = data[off:off + cnt]
        if 282 in tags and 283 in tags:
            unit = struct.unpack(e + "H", tags[296][3][:2])[0] if 296 in tags else 2
            r = [struct.unpack(e + "II", data[tags[t][2]:tags[t][2] + 8]) for t in (282, 283)]
            f = 1 if unit == 2 else 2.54
            dens = tuple(round(a / b * f) for a, b in r)
    else:
        for kind, p in png_chunks(data):
            if kind == b"iCCP":
                prof = zlib.decompress(p[p.index(b"\0") + 2:])
            elif kind == b"eXIf":
                ex = p
            elif kind == b"pHYs" and p[8] == 1:
                x, y = struct.unpack(">II", p[:8])
                dens = (round(x * 0.0254), round(y * 0.0254))
    print("icc=%s exif=%s orient=%d density=%s" % (
        "%d:%08x" % (len(prof), zlib.crc32(prof)) if prof else "none",
        len(ex) if ex else "none", tiff_orient if tiff_orient is not None else orientation(ex) if ex else 0,
        "%dx%d" % dens if dens else "none"))


XMP = (b'<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF '
       b'xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/'
       b'elements/1.1/" dc:creator="gpuimg-test"/></rdf:RDF></x:xmpmeta><?xpacket end="w"?>')
IPTC = b"\x1c\x02\x00\x00\x02\x00\x04" + b"\x1c\x02\x78\x00\x0bgpuimg-test"   # version 4, caption
COMMENT = b"made by gpuimg-test"
GPS_MARK = b"\x5a\x5a\x5a\x5a"


def exif_gps():
    """Little-endian: IFD0 with a make and a GPS pointer; the GPS IFD: a version, N, a latitude of
    three rationals whose first numerator is 0x5A5A5A5A"""
    e = "<"
    make = b"gpuimg-test\0"
    ifd0 = 8
    n0 = 2
    make_at = ifd0 + 2 + 12 * n0 + 4
    gps_at = make_at + len(make)
    n1 = 3
    lat_at = gps_at + 2 + 12 * n1 + 4
    t = b"II\x2a\x00" + struct.pack(e + "I", ifd0) + struct.pack(e + "H", n0)
    t += struct.pack(e + "HHII", 0x010F, 2, len(make), make_at) + struct.pack(e + "HHII", 0x8825, 4, 1, gps_at)
    t += struct.pack(e + "I", 0) + make
    t += struct.pack(e + "H", n1) + struct.pack(e + "HHI", 0x0000, 1, 4) + bytes([2, 3, 0, 0])
    t += struct.pack(e + "HHI", 0x0001, 2, 2) + b"N\0\0\0" + struct.pack(e + "HHII", 0x0002, 5, 3, lat_at)
    t += struct.pack(e + "I", 0) + GPS_MARK + struct.pack(e + "IIIII", 1, 1, 1, 1, 1)
    return t


def make_pieces(src, dst):
    rest = without_app(open(src, "rb").read())
    p = icc()
    ps = b"Photoshop 3.0\0" + b"8BIM\x04\x04\0\0" + struct.pack(">I", len(IPTC)) + IPTC + b"\0" * (len(IPTC) & 1)
    out = (b"\xff\xd8" + segment(0xE1, b"Exif\0\0" + exif_gps()) + segment(0xE1, b"http://ns.adobe.com/xap/1.0/\0" + XMP)
           + segment(0xE2, b"ICC_PROFILE\0" + bytes([1, 1]) + p) + segment(0xED, ps) + segment(0xFE, COMMENT) + rest)
    open(dst, "wb").write(out)


JXL_BOX = b"\0\0\0\x0cJXL \r\n\x87\n"


def bmff_boxes(data):
    """An ISO media file's top-level boxes as (type, contents)."""
    pos = 0
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I", data[pos:pos + 4])[0], data[pos + 4:pos + 8]
        h = 8
        if n == 1:
            n, h = struct.unpack(">Q", data[pos + 8:pos + 16])[0], 16
        elif n == 0:
            n = len(data) - pos
        yield kind, data[pos + h:pos + n]
        pos += n


def pieces_show(path):
    data = open(path, "rb").read()
    got = {"exif": None, "xmp": None, "iptc": None, "comment": None, "icc": None}
    if data[:2] == b"\xff\xd8":
        for m, p in segments(data):
            if m == 0xE1 and p[:6] == b"Exif\0\0":
                got["exif"] = p[6:]
            elif m == 0xE1 and p[:29] == b"http://ns.adobe.com/xap/1.0/\0":
                got["xmp"] = p[29:]
            elif m == 0xE2 and p[:12] == b"ICC_PROFILE\0":
                got["icc"] = p[14:]
            elif m == 0xED and p[:14] == b"Photoshop 3.0\0" and p[14:20] == b"8BIM\x04\x04":
                n = struct.unpack(">I", p[22:26])[0]
                got["iptc"] = p[26:26 + n]
            elif m == 0xFE:
                got["comment"] = p
    elif data[:4] == b"RIFF":
        pos = 12
        while pos + 8 <= len(data):
            kind, n = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
            p = data[pos + 8:pos + 8 + n]
            key = {b"EXIF": "exif", b"XMP ": "xmp", b"ICCP": "icc"}.get(kind)
            if key:
                got[key] = p
            pos += 8 + n + (n & 1)
    elif data[:12] == JXL_BOX:
        for kind, p in bmff_boxes(data):
            if kind == b"Exif":
                got["exif"] = p[4 + struct.unpack(">I", p[:4])[0]:]
            elif kind == b"xml ":
                got["xmp"] = p
    elif data[:4] in (b"II*\0", b"MM\0*"):
        e = "<" if data[:2] == b"II" else ">"
        ifd = struct.unpack(e + "I", data[4:8])[0]
        size = {1: 1, 2: 1, 3: 2, 4: 4, 7: 1}
        for i in range(struct.unpack(e + "H", data[ifd:ifd + 2])[0]):
            tag, typ, cnt, val = struct.unpack(e + "HHII", data[ifd + 2 + 12 * i:ifd + 14 + 12 * i])
            n = cnt * size.get(typ, 1)
            v = data[ifd + 10 + 12 * i:ifd + 10 + 12 * i + n] if n <= 4 else data[val:val + n]
            key = {700: "xmp", 33723: "iptc", 34675: "icc", 34665: "exif"}.get(tag)
            if key:
                got[key] = v if key != "exif" else b"dir"
    else:
        for kind, p in png_chunks(data):
            if kind == b"iCCP":
                got["icc"] = zlib.decompress(p[p.index(b"\0") + 2:])
            elif kind == b"eXIf":
                got["exif"] = p
            elif kind in (b"iTXt", b"tEXt"):
                key, text = p.split(b"\0", 1)
                if kind == b"iTXt":   # flag, method, language, translated keyword
                    text = text[2:].split(b"\0", 2)[2]
                if key == b"XML:com.adobe.xmp":
                    got["xmp"] = text
                elif key == b"Comment":
                    got["comment"] = text
    ex = got["exif"]
    crc = lambda k: "%08x" % zlib.crc32(got[k]) if got[k] else "none"
    print("exif=%s gps=%s gpsbytes=%s xmp=%s iptc=%s comment=%s icc=%s" % (
        "yes" if ex else "no", "yes" if ex and ex != b"dir" and 0x8825 in [struct.unpack("<H" if ex[:2] == b"II" else ">H", ex[10 + 12 * i:12 + 12 * i])[0] for i in range(struct.unpack("<H" if ex[:2] == b"II" else ">H", ex[8:10])[0])] else "no",
        "yes" if ex and GPS_MARK in ex else "no", crc("xmp"), crc("iptc").replace("none", "none") if got["iptc"] is None else "%08x" % zlib.crc32(got["iptc"].rstrip(b"\0")),
        got["comment"].decode("latin-1") .replace(" ", "_") if got["comment"] else "none", crc("icc")))


def gps_edge(kind):
    """Little-endian EXIF for gps-edge (see the top)"""
    e = "<"
    if kind == "self":   # IFD0 of a make and the GPS pointer, pointing at IFD0 itself (no mark: no GPS data)
        return (b"II*\0" + struct.pack(e + "IH", 8, 2) + struct.pack(e + "HHI", 0x010F, 2, 4) + b"cam\0"
                + struct.pack(e + "HHII", 0x8825, 4, 1, 8) + struct.pack(e + "I", 0))
    if kind == "twoptr":   # two pointers to two directories, each a latitude of the mark
        d1, d2 = 8 + 2 + 24 + 4, 8 + 2 + 24 + 4 + 18 + 24
        ifd0 = struct.pack(e + "H", 2) + struct.pack(e + "HHII", 0x8825, 4, 1, d1) + struct.pack(e + "HHII", 0x8825, 4, 1, d2) + struct.pack(e + "I", 0)
        def gdir(at):
            return struct.pack(e + "H", 1) + struct.pack(e + "HHII", 2, 5, 3, at + 18) + struct.pack(e + "I", 0) + GPS_MARK + struct.pack(e + "IIIII", 1, 1, 1, 1, 1)
        return b"II*\0" + struct.pack(e + "I", 8) + ifd0 + gdir(d1) + gdir(d2)
    g = 8 + 2 + 12 + 4   # IFD0: the pointer alone; the GPS directory right after
    if kind == "utf8":   # a GPSDateStamp of type 129 (UTF-8) holding the mark
        gd = struct.pack(e + "H", 1) + struct.pack(e + "HHII", 0x1D, 129, 11, g + 18) + struct.pack(e + "I", 0) + b"2024:" + GPS_MARK + b"\0\0"
    else:   # chain: the GPS directory's next link to a second one whose latitude is the mark
        d2 = g + 18
        gd = (struct.pack(e + "H", 1) + struct.pack(e + "HHI", 1, 2, 2) + b"N\0\0\0" + struct.pack(e + "I", d2)
              + struct.pack(e + "H", 1) + struct.pack(e + "HHII", 2, 5, 3, d2 + 18) + struct.pack(e + "I", 0) + GPS_MARK + struct.pack(e + "IIIII", 1, 1, 1, 1, 1))
    return b"II*\0" + struct.pack(e + "IH", 8, 1) + struct.pack(e + "HHII", 0x8825, 4, 1, g) + struct.pack(e + "I", 0) + gd


def jpeg_with_exif(src, dst, ex):
    open(dst, "wb").write(b"\xff\xd8" + segment(0xE1, b"Exif\0\0" + ex) + without_app(open(src, "rb").read()))


def png_prefix(src, dst):
    data = open(src, "rb").read()
    ihdr_end = 8 + 8 + 13 + 4
    open(dst, "wb").write(data[:ihdr_end] + chunk(b"eXIf", b"Exif\0\0" + exif_gps()) + data[ihdr_end:])


if __name__ == "__main__":
    a = sys.argv[1:]
    if a[0] == "jpeg":
        make_jpeg(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), len(a) > 6 and a[6] == "broken",
                  len(a) > 6 and a[6] == "dims", len(a) > 6 and a[6] == "fill",
                  a[6][7:] if len(a) > 6 and a[6].startswith("notiff-") else None)
    elif a[0] == "png":
        make_png(a[1], a[2], int(a[3]), int(a[4]), int(a[5]), int(a[6]) if len(a) > 6 else 0)
    elif a[0] == "dims":
        dims(a[1])
    elif a[0] == "pieces":
        make_pieces(a[1], a[2])
    elif a[0] == "pieces-show":
        pieces_show(a[1])
    elif a[0] == "gps-edge":
        jpeg_with_exif(a[2], a[3], gps_edge(a[1]))
    elif a[0] == "png-prefix":
        png_prefix(a[1], a[2])
    elif a[0] == "icc":
        sys.stdout.write("%d:%08x\n" % (len(icc()), zlib.crc32(icc())))
    else:
        show(a[1])
