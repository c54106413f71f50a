"""The Python module against the command: the same pixels and bytes, errors as exceptions, the
caller's arrays untouched, no leak over 10,000 calls, device arrays where a GPU is. pytest runs
these; so does tests/python.sh without pytest (each test_* function in turn).

Environment: GPUIMG (the command), SAMPLES (its samples folder), WORK (a scratch folder),
GPUIMG_REQUIRE_GPU=1 (device arrays must work)."""
import os
import resource
import subprocess
import threading

import numpy as np

import gpuimg

GPUIMG = os.environ["GPUIMG"]
SAMPLES = os.environ["SAMPLES"]
WORK = os.environ["WORK"]
PNG = os.path.join(SAMPLES, "elarun-640x400.png")
JPG = os.path.join(SAMPLES, "path-640x400.jpg")


def command(*args):
    subprocess.run([GPUIMG, "--no-server", "--backend=cpu", *args], check=True, capture_output=True)


def work(name):
    p = os.path.join(WORK, name)
    if os.path.exists(p):
        os.remove(p)
    return p


def expect_error(status, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except gpuimg.Error as e:
        assert e.status == status, (e.status, str(e))
        return str(e)
    raise AssertionError(f"no gpuimg.Error ({status})")


def test_version():
    out = subprocess.run([GPUIMG, "--version"], check=True, capture_output=True, text=True).stdout
    assert gpuimg.__version__ in out.split("\n")[0], (gpuimg.__version__, out)


def test_read_is_the_commands_decode():
    a = gpuimg.read(PNG)
    assert a.dtype == np.uint8 and a.shape[:2] == (400, 640) and a.ndim == 3
    cmd = work("copy.png")
    command("copy", PNG, cmd)
    assert np.array_equal(a, gpuimg.read(cmd))
    j = gpuimg.read(JPG)
    command("--format=png", "copy", JPG, work("jpg.png"))
    assert np.array_equal(j, gpuimg.read(os.path.join(WORK, "jpg.png")))


def test_run_equals_the_command():
    ctx = gpuimg.Context(backend="cpu")
    a = ctx.read(PNG)
    for pipeline in ["gray,resize=50%", "blur=2", "resize=301x177!:filter=lanczos3", "rotate=90,flip=h", "gray"]:
        b = ctx.run(pipeline, a)
        cmd = work("cmd.png")
        command(pipeline, PNG, cmd)
        assert np.array_equal(b, ctx.read(cmd)), pipeline
    assert ctx.backend == "cpu"
    g = ctx.run("gray", a)
    assert g.ndim == (2 if a.shape[2] == 3 else 3)


def test_convert_and_write_are_the_commands_bytes():
    out, cmd = work("convert.png"), work("cmd2.png")
    gpuimg.convert("gray,resize=50%", PNG, out, backend="cpu", threads=2)
    command("--threads=2", "gray,resize=50%", PNG, cmd)
    assert open(out, "rb").read() == open(cmd, "rb").read()
    a = gpuimg.read(JPG)
    w = work("w.jpg")
    gpuimg.write(w, a, jpeg_quality=80)
    cmdj = work("cmd.jpg")
    command("--jpeg-quality=80", "copy", JPG, cmdj)
    assert np.array_equal(gpuimg.read(w), gpuimg.read(cmdj))


def test_encode_decode():
    a = gpuimg.read(PNG)
    for fmt in ["png", "webp", "tif"]:
        try:
            data = gpuimg.encode(a, fmt, webp_lossless=True)
        except gpuimg.Error as e:   # a build without libwebp or libtiff
            assert e.status == "EUNSUPPORTED" and fmt != "png", str(e)
            continue
        assert isinstance(data, bytes) and len(data) > 100
        b = gpuimg.decode(data, name="x." + fmt)
        # an opaque alpha may be left out (libwebp writes none)
        assert b.shape == a.shape or (b.shape[2] == 3 and (a[..., 3] == 255).all()), (fmt, b.shape)
        assert np.array_equal(b, a[..., : b.shape[2]]), fmt
        assert np.array_equal(gpuimg.decode(bytearray(data)), b)
        assert np.array_equal(gpuimg.decode(np.frombuffer(data, np.uint8)), b)
    jpg = gpuimg.encode(a, "jpg", jpeg_quality=95)
    assert jpg[:2] == b"\xff\xd8"
    assert np.abs(gpuimg.decode(jpg).astype(int) - a[..., :3]).mean() < 3


def test_layouts_and_the_callers_memory():
    rng = np.random.default_rng(1)
    for shape, dt in [((23, 37), np.uint8), ((23, 37, 2), np.uint16), ((31, 17, 3), np.uint16), ((9, 5, 4), np.uint8)]:
        top = np.iinfo(dt).max
        a = rng.integers(0, top, size=shape, dtype=dt, endpoint=True)
        keep = a.copy()
        f = gpuimg.run("flip=h", a, backend="cpu")
        assert f.dtype == dt and f.shape == a.shape
        assert np.array_equal(f, a[:, ::-1]), shape
        assert np.array_equal(a, keep)
        t = gpuimg.run("transpose", a, backend="cpu")
        assert np.array_equal(t, np.swapaxes(a, 0, 1))
        # a view: padded rows (no copy), reversed columns and Fortran order (copied)
        assert np.array_equal(gpuimg.run("copy", a[2:, 1:-1]), a[2:, 1:-1])
        assert np.array_equal(gpuimg.run("copy", a[:, ::-1]), a[:, ::-1])
        assert np.array_equal(gpuimg.run("copy", np.asfortranarray(a)), a)
    big = np.zeros((4, 4, 3), dtype=">u2")
    big[1, 2] = (1, 256, 65535)
    assert np.array_equal(gpuimg.run("copy", big), big.astype(np.uint16))
    # the result is the caller's to change
    r = gpuimg.run("copy", np.zeros((3, 3), np.uint8))
    r[0, 0] = 7
    assert r[0, 0] == 7


def test_errors():
    msg = expect_error("EOPEN", gpuimg.read, os.path.join(WORK, "missing.png"))
    assert "missing.png" in msg
    expect_error("EDECODE", gpuimg.decode, b"not an image, only some text here", name="t.txt")
    a = gpuimg.read(PNG)
    assert "nosuchop" in expect_error("EPARAM", gpuimg.run, "gray,nosuchop", a)
    expect_error("EGEOMETRY", gpuimg.run, "pad=10x10", a)
    expect_error("EUSAGE", gpuimg.Context, no_such_option=1)
    ctx = gpuimg.Context()
    for i in range(300):   # set again and again: each value replaces the one before
        ctx.set(jpeg_quality=80 + i % 10)
    expect_error("EUSAGE", gpuimg.run, "gray", a, jpeg_quality=0)
    expect_error("EUSAGE", gpuimg.encode, a, "gif87")
    expect_error("ETOOBIG", gpuimg.read, PNG, max_pixels=1000)
    data = open(PNG, "rb").read()
    expect_error("EDECODE", gpuimg.decode, data[: len(data) // 2])
    got = gpuimg.decode([PNG, b"garbage, not an image", JPG], pipeline="gray", errors="return")
    assert isinstance(got[1], gpuimg.Error) and got[1].status == "EDECODE" and got[0].ndim >= 2 and got[2].ndim == 2
    assert "input 1" in expect_error("EDECODE", gpuimg.decode, [PNG, b"garbage, not an image"])
    out = work("exists.png")
    gpuimg.write(out, a)
    expect_error("EEXISTS", gpuimg.write, out, a)
    gpuimg.write(out, a, force=True)
    for bad, kind in [(np.zeros((4, 4), np.float32), TypeError), (np.zeros((4, 4, 5), np.uint8), ValueError),
                      (np.zeros(16, np.uint8), ValueError)]:
        try:
            gpuimg.run("copy", bad)
        except kind:
            pass
        else:
            raise AssertionError(f"{bad.dtype} {bad.shape} taken")


def test_threads_at_once():
    a = gpuimg.read(PNG)
    want = gpuimg.run("blur=3,resize=50%", a, backend="cpu")
    bad = []

    def work_():
        ctx = gpuimg.Context(backend="cpu", threads=1)
        for _ in range(5):
            if not np.array_equal(ctx.run("blur=3,resize=50%", a), want):
                bad.append(1)

    ts = [threading.Thread(target=work_) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not bad


def rss_kib():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * (os.sysconf("SC_PAGE_SIZE") // 1024)


def test_no_leak():
    ctx = gpuimg.Context(backend="cpu", threads=1)
    a = np.zeros((64, 64, 3), np.uint8)
    data = gpuimg.encode(a, "png")

    def calls(n):
        for _ in range(n):
            ctx.run("gray,resize=50%", a)
            ctx.decode(data)

    calls(2000)   # the allocator's and the interpreter's caches filled
    rounds = [rss_kib()]
    for _ in range(3):
        calls(10000)
        rounds.append(rss_kib())
    grew = [b - a for a, b in zip(rounds, rounds[1:])]
    print(f"RSS {rounds[0]} KiB, then {grew} KiB over three rounds of 10,000 calls")
    # a leak grows every round (50 bytes a call: 500 KiB); memory another thread takes once (the
    # JPEG engines an earlier test started, on a GPU machine) grows one round
    assert min(grew) < 512 and rounds[-1] - rounds[0] < 16384, f"RSS grew {grew} KiB over rounds of 10,000 calls"


def test_device_arrays():
    try:
        d = gpuimg.to_device(np.zeros((2, 2), np.uint8), "cuda:0")
    except gpuimg.Error as e:
        assert os.environ.get("GPUIMG_REQUIRE_GPU") != "1", f"GPUIMG_REQUIRE_GPU=1: {e}"
        print(f"no device arrays here: {e}")
        return
    del d
    a = gpuimg.read(PNG)
    d = gpuimg.to_device(a)
    assert d.shape == a.shape and d.__cuda_array_interface__["data"][0]
    r = gpuimg.run("gray,resize=50%", d)
    assert isinstance(r, gpuimg.DeviceArray) and r.device == d.device
    assert np.array_equal(r.numpy(), gpuimg.run("gray,resize=50%", a, backend="cpu"))
    out = work("device.png")
    gpuimg.write(out, r)
    assert np.array_equal(gpuimg.read(out), r.numpy())
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        c = cupy.asarray(a)
        rc = gpuimg.run("gray,resize=50%", c)
        assert np.array_equal(cupy.asnumpy(cupy.asarray(rc)), r.numpy())
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():   # a tensor in, a DeviceArray out, torch's view of it
        rt = gpuimg.run("gray,resize=50%", torch.from_numpy(a).cuda())
        back = torch.as_tensor(rt, device="cuda")
        assert back.data_ptr() == rt.__cuda_array_interface__["data"][0]
        assert np.array_equal(back.cpu().numpy(), r.numpy())
        print("torch", torch.__version__, "takes gpuimg's device arrays")


def test_info_is_the_commands():
    """gpuimg.info says what `gpuimg info --json` says, from the header alone."""
    import json
    names = ["path-640x400.jpg", "elarun-640x400.png", "canopee-960x540.png"]
    out = subprocess.run([GPUIMG, "info", "--json"] + [os.path.join(SAMPLES, n) for n in names], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    for n, line in zip(names, out):
        want = json.loads(line)
        got = gpuimg.info(os.path.join(SAMPLES, n))
        for k in ("format", "width", "height", "channels", "depth", "orientation", "frames", "bytes"):
            assert got[k] == want[k], (n, k, got[k], want[k])
        for k in ("icc", "exif", "xmp", "iptc", "comment"):
            assert got[k] == (want[k] or 0), (n, k)
        assert got["progressive"] == want.get("progressive"), n
    try:
        gpuimg.info(os.path.join(WORK, "no-such-file.jpg"))
    except gpuimg.Error as e:
        assert e.status == "EOPEN" and "no-such-file.jpg" in str(e), str(e)
    else:
        raise AssertionError("a missing file described")


def test_options_read_back():
    ctx = gpuimg.Context(jpeg_quality=85)
    assert ctx.get("jpeg_quality") == "85" and ctx.get("jpeg-quality") == "85"
    assert ctx.get("strip") is None
    try:
        ctx.set(jpeg_quality=101)
    except gpuimg.Error:
        pass
    else:
        raise AssertionError("jpeg_quality=101 accepted")
    assert ctx.get("jpeg_quality") == "85"


def test_cancel_from_another_thread():
    """A long batch cancelled from another thread raises ECANCELED; the context runs the next call."""
    import threading
    ctx = gpuimg.Context(backend="cpu", jobs=1, threads=1)
    data = gpuimg.encode(np.zeros((200, 300, 3), np.uint8), "png")
    returned = threading.Event()

    def keep_cancelling():   # a cancel before the call begins has no effect: again until it returns
        while not returned.wait(0.01):
            ctx.cancel()
    t = threading.Thread(target=keep_cancelling)
    t.start()
    try:
        ctx.decode([data] * 20000, pipeline="gray")
    except gpuimg.Error as e:
        assert e.status == "ECANCELED", (e.status, str(e))
    else:
        raise AssertionError("a batch of 20000 was not cancelled")
    finally:
        returned.set()
        t.join()
    assert len(ctx.decode([data] * 2, pipeline="gray")) == 2
