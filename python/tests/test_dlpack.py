"""DLPack out (DeviceArray.__dlpack__) and in (any __dlpack__ producer given to gpuimg), and the
CUDA array interface's stream. Without a GPU the capsules are read back with ctypes, the way a
consumer reads them, and fake producers hand gpuimg tensors over host memory (kDLCPU,
kDLCUDAHost); where a GPU is (and PyTorch or CuPy), real tensors go through.

Environment: SAMPLES (the samples folder), GPUIMG_REQUIRE_GPU=1 (device arrays must work)."""
import ctypes
import gc
import os
import weakref

import numpy as np

import gpuimg
from gpuimg import _cuda, _dlpack
from gpuimg._lib import Image



class api:
    """The capsule functions a consumer calls (objects of our own: pythonapi.NAME is shared)."""
    PyCapsule_IsValid = ctypes.pythonapi["PyCapsule_IsValid"]
    PyCapsule_IsValid.argtypes, PyCapsule_IsValid.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
    PyCapsule_GetPointer = ctypes.pythonapi["PyCapsule_GetPointer"]
    PyCapsule_GetPointer.argtypes, PyCapsule_GetPointer.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_void_p
    PyCapsule_SetName = ctypes.pythonapi["PyCapsule_SetName"]
    PyCapsule_SetName.argtypes, PyCapsule_SetName.restype = [ctypes.py_object, ctypes.c_void_p], ctypes.c_int

USED = ctypes.create_string_buffer(b"used_dltensor")   # a capsule keeps its name's pointer
USED_V = ctypes.create_string_buffer(b"used_dltensor_versioned")


def have_gpu():
    try:
        gpuimg.to_device(np.zeros((2, 2), np.uint8))
        return True
    except gpuimg.Error as e:
        assert os.environ.get("GPUIMG_REQUIRE_GPU") != "1", f"GPUIMG_REQUIRE_GPU=1: {e}"
        return False


def fake_device_array(a, device=0, stride=None):
    """A DeviceArray over host memory (owner NULL: nothing freed): what the export reads, no GPU."""
    c = 1 if a.ndim == 2 else a.shape[2]
    img = Image(a.ctypes.data, stride or a.strides[0], a.shape[1], a.shape[0], c, 8 * a.itemsize, device, None)
    d = gpuimg.DeviceArray(img)
    d._keep = a
    return d


def consume(capsule, versioned=False):
    """What a consumer does: the managed tensor's address, the capsule renamed."""
    name = b"dltensor_versioned" if versioned else b"dltensor"
    assert api.PyCapsule_IsValid(capsule, name), "not an unused capsule of that name"
    ptr = api.PyCapsule_GetPointer(capsule, name)
    assert api.PyCapsule_SetName(capsule, ctypes.addressof(USED_V if versioned else USED)) == 0
    layout = _dlpack.DLManagedTensorVersioned if versioned else _dlpack.DLManagedTensor
    return ptr, layout.from_address(ptr)


def call_deleter(ptr, m):
    ctypes.CFUNCTYPE(None, ctypes.c_void_p)(m.deleter)(ptr)


def test_device_array_capsule():
    base = _dlpack.live()
    for shape, dt, pad in [((5, 7, 3), np.uint8, 0), ((4, 6), np.uint16, 0), ((3, 5, 4), np.uint16, 8),
                           ((2, 3, 2), np.uint8, 3)]:
        item = np.dtype(dt).itemsize
        stride = (int(np.prod(shape[1:])) + pad) * item
        buf = np.zeros(shape[0] * stride // item, dt)
        view = np.lib.stride_tricks.as_strided(buf, shape=shape, strides=(stride,) + (
            (shape[2] * item, item) if len(shape) == 3 else (item,)))
        for versioned in (False, True):
            d = fake_device_array(view, stride=stride)
            assert d.__dlpack_device__() == (2, 0)
            cai = d.__cuda_array_interface__
            assert cai["version"] == 3 and cai["stream"] is None and cai["data"] == (buf.ctypes.data, False)
            assert (cai["strides"] is None) == (pad == 0)
            ref = weakref.ref(d)
            cap = d.__dlpack__(max_version=(1, 0) if versioned else None)
            assert type(cap).__name__ == "PyCapsule"
            ptr, m = consume(cap, versioned)
            t = m.dl_tensor
            if versioned:
                assert (m.version.major, m.version.minor) == (1, 0) and m.flags == 0
            assert t.data == buf.ctypes.data and t.byte_offset == 0
            assert (t.device.device_type, t.device.device_id) == (2, 0)
            assert (t.dtype.code, t.dtype.bits, t.dtype.lanes) == (1, 8 * item, 1)
            assert t.ndim == len(shape) and tuple(t.shape[i] for i in range(t.ndim)) == shape
            want = (stride // item,) + ((shape[2], 1) if len(shape) == 3 else (1,))
            assert tuple(t.strides[i] for i in range(t.ndim)) == want, (shape, want)
            assert _dlpack.live() == base + 1
            del cap, d   # the capsule renamed: its destructor leaves the tensor alone
            gc.collect()
            assert _dlpack.live() == base + 1, "a consumed capsule's destructor freed the tensor"
            assert ref() is not None, "the DeviceArray went before the consumer's deleter"
            call_deleter(ptr, m)
            gc.collect()
            assert _dlpack.live() == base and ref() is None, "the deleter left the DeviceArray alive"
    # a capsule nobody consumed: its destructor frees the tensor and lets the array go
    d = fake_device_array(np.zeros((3, 4), np.uint8), device=1)
    ref = weakref.ref(d)
    caps = [d.__dlpack__(), d.__dlpack__(max_version=(1, 2)), d.__dlpack__(stream=-1), d.__dlpack__(1),
            d.__dlpack__(stream=2, dl_device=(2, 1), copy=False)]
    assert api.PyCapsule_IsValid(caps[1], b"dltensor_versioned") and api.PyCapsule_IsValid(caps[0], b"dltensor")
    assert _dlpack.live() == base + 5
    del d, caps
    gc.collect()
    assert _dlpack.live() == base and ref() is None
    # the arguments the protocol refuses
    d = fake_device_array(np.zeros((3, 4), np.uint8))
    for kw, err in [(dict(stream=0), ValueError), (dict(stream="s"), TypeError), (dict(dl_device=(2, 5)), BufferError),
                    (dict(dl_device=(1, 0), copy=False), BufferError), (dict(dl_device=(4, 0)), BufferError)]:
        try:
            d.__dlpack__(**kw)
        except err:
            pass
        else:
            raise AssertionError(f"__dlpack__({kw}) taken")
    assert _dlpack.live() == base


class Producer:
    """A DLPack producer over a numpy array, on device type `kind` (1: kDLCPU, 3: kDLCUDAHost, 2:
    kDLCUDA, which only a test without a GPU may claim), counting the deleter's calls; `old`: a
    __dlpack__ without max_version (DLPack before 1.0)."""

    class Owner:
        def __init__(self, prod, a):
            self.prod, self.a = prod, a

        def __del__(self):
            self.prod.deleted += 1

    def __init__(self, a, kind=1, old=False, strides=None):
        self.a, self.kind, self.old, self.strides = a, kind, old, strides
        self.deleted = self.made = 0
        self.streams, self.capsules, self.versioned = [], [], []

    def __dlpack_device__(self):
        return (self.kind, 0)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None, **kw):
        if self.old and max_version is not None:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        self.streams.append(stream)
        versioned = max_version is not None and max_version[0] >= 1
        self.versioned.append(versioned)
        a = self.a
        strides = self.strides or tuple(s // a.itemsize for s in a.strides)
        self.made += 1
        cap = _dlpack.export(Producer.Owner(self, a), a.ctypes.data, (self.kind, 0), a.shape, strides,
                             8 * a.itemsize, versioned)
        self.capsules.append(cap)
        return cap


def test_numpy_takes_our_capsules():
    if not hasattr(np, "from_dlpack"):
        print("numpy", np.__version__, "has no from_dlpack")
        return
    base = _dlpack.live()
    a = np.arange(5 * 6 * 3, dtype=np.uint16).reshape(5, 6, 3)
    p = Producer(a)
    r = np.from_dlpack(p)
    assert r.ctypes.data == a.ctypes.data and np.array_equal(r, a) and r.dtype == np.uint16
    assert p.deleted == 0
    del r
    gc.collect()
    assert p.deleted == 1 and _dlpack.live() == base
    # a padded view: strides in elements
    v = a[1:, 1:-1]
    r = np.from_dlpack(Producer(v))
    assert np.array_equal(r, v) and r.strides == v.strides


def test_run_takes_dlpack_inputs():
    base = _dlpack.live()
    rng = np.random.default_rng(2)
    for shape, dt in [((9, 13, 3), np.uint8), ((7, 5), np.uint16), ((6, 4, 4), np.uint16)]:
        a = rng.integers(0, np.iinfo(dt).max, size=shape, dtype=dt, endpoint=True)
        want = a[:, ::-1]
        # kDLCPU: through numpy.from_dlpack
        p = Producer(a)
        assert np.array_equal(gpuimg.run("flip=h", p, backend="cpu"), want)
        gc.collect()
        assert p.made == p.deleted == 1 and p.streams == [None]
        # kDLCUDAHost: the module reads the tensor itself; versioned, and a producer before 1.0
        for old in (False, True):
            p = Producer(a, kind=3, old=old)
            assert np.array_equal(gpuimg.run("flip=h", p, backend="cpu"), want)
            assert p.made == p.deleted == 1, "the deleter is called once, when the call returns"
            assert p.streams == [None] and p.versioned == [not old]
            assert api.PyCapsule_IsValid(p.capsules[0], b"used_dltensor_versioned" if not old else b"used_dltensor")
        # padded rows, strides in elements; and a view whose columns run backwards (repacked)
        v = a[1:-1, 1:]
        p = Producer(v, kind=3)
        assert np.array_equal(gpuimg.run("copy", p), v) and p.deleted == 1
        r = a[:, ::-1]
        p = Producer(np.ascontiguousarray(a), kind=3, strides=None)
        assert np.array_equal(gpuimg.encode(p, "png"), gpuimg.encode(a, "png")) and p.deleted == 1
        assert np.array_equal(gpuimg.decode(gpuimg.encode(Producer(r, kind=3), "png")), r)
    gc.collect()
    assert _dlpack.live() == base
    # what an image cannot be: refused, the deleter still called once
    for bad, err in [(np.zeros((4, 4), np.uint32), TypeError), (np.zeros((4, 4, 5), np.uint8), ValueError),
                     (np.zeros(16, np.uint8), ValueError)]:
        p = Producer(bad, kind=3)
        try:
            gpuimg.run("copy", p)
        except err:
            pass
        else:
            raise AssertionError(f"{bad.dtype} {bad.shape} taken")
        assert p.deleted == 1, (bad.shape, p.deleted)
    assert _dlpack.live() == base


def test_dlpack_cuda_input_without_gpu():
    """A kDLCUDA producer: asked for the legacy default stream (1); its tensor's deleter called
    once whether the call works or fails. Only where no GPU is: its memory is the host's."""
    if have_gpu():
        return
    a = np.zeros((4, 6, 3), np.uint8)
    for fn in (lambda p: gpuimg.run("gray", p), lambda p: gpuimg.to_host(p), lambda p: gpuimg.encode(p, "png")):
        p = Producer(a, kind=2)
        try:
            fn(p)
        except gpuimg.Error as e:
            assert e.status in ("ENOGPU", "ECUDA", "EUNSUPPORTED"), (e.status, str(e))
        assert p.streams == [1] and p.made == p.deleted == 1
        assert api.PyCapsule_IsValid(p.capsules[0], b"used_dltensor_versioned")
    # columns not contiguous: refused before the library, the deleter called
    p = Producer(a, kind=2, strides=(18, 1, 6))
    try:
        gpuimg.run("gray", p)
    except ValueError:
        pass
    else:
        raise AssertionError("non-contiguous columns accepted")
    assert p.deleted == 1


class CAI:
    """An object with a __cuda_array_interface__ alone."""

    def __init__(self, a, **extra):
        self.__cuda_array_interface__ = dict(shape=a.shape, typestr=a.dtype.str, data=(a.ctypes.data, False),
                                             strides=None, version=3, **extra)


def test_cuda_array_interface_stream():
    # 1 and 2 (the default streams) and None: nothing to wait for, the driver not even loaded
    loaded = _cuda._driver is not None
    for s in (None, 1, 2):
        _cuda.stream_wait(s, 0)
    assert (_cuda._driver is not None) == loaded
    for bad in (0, -3, "1"):
        try:
            _cuda.stream_wait(bad, 0)
        except ValueError:
            pass
        else:
            raise AssertionError(f"stream {bad!r} taken")
    a = np.zeros((4, 4), np.uint8)
    for extra, err in [(dict(stream=0), ValueError), (dict(mask=object()), ValueError)]:
        try:
            gpuimg.run("copy", CAI(a, **extra))
        except err:
            pass
        else:
            raise AssertionError(f"{extra} taken")
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:   # no driver: a stream to wait for is an ECUDA error, named
        try:
            gpuimg.run("copy", CAI(a, stream=0x1234))
        except gpuimg.Error as e:
            assert e.status == "ECUDA" and "stream" in str(e), (e.status, str(e))
        else:
            raise AssertionError("a stream waited for without a driver")


def test_torch_and_cupy_round_trips():
    """Where a GPU and PyTorch or CuPy are: tensors in through DLPack (on a side stream too),
    DeviceArrays out into torch.from_dlpack and cupy.from_dlpack without a copy, the DeviceArray
    alive while torch uses it and freed once torch lets go."""
    if not have_gpu():
        return
    a = gpuimg.read(os.path.join(os.environ["SAMPLES"], "elarun-640x400.png"))
    want = gpuimg.run("gray,resize=50%", a, backend="cpu")
    base = _dlpack.live()
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_numpy(a).cuda()
        r = gpuimg.run("gray,resize=50%", t)
        assert isinstance(r, gpuimg.DeviceArray) and np.array_equal(r.numpy(), want)
        back = torch.from_dlpack(r)
        assert back.data_ptr() == r.__cuda_array_interface__["data"][0] and back.device.index == r.device
        ref = weakref.ref(r)
        del r
        gc.collect()
        assert ref() is not None and _dlpack.live() == base + 1, "torch's tensor lost its DeviceArray"
        assert np.array_equal(back.cpu().numpy(), want)
        del back
        gc.collect()
        assert ref() is None and _dlpack.live() == base, "torch never called the deleter"
        import torch.utils.dlpack
        r = gpuimg.run("gray,resize=50%", t)
        assert np.array_equal(torch.utils.dlpack.from_dlpack(r.__dlpack__()).cpu().numpy(), want)
        # a side stream's result: torch makes the legacy default stream wait for it
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            for _ in range(3):
                big = torch.from_numpy(a).cuda().flip(1).contiguous()
            r = gpuimg.run("copy", big)
        assert np.array_equal(r.numpy(), a[:, ::-1])
        # and back into gpuimg: torch's view of a DeviceArray, given to run
        assert np.array_equal(gpuimg.run("copy", torch.from_dlpack(gpuimg.to_device(a))).numpy(), a)
        del r, big
        gc.collect()
        print("torch", torch.__version__, "round trip through DLPack")
    try:
        import cupy
    except ImportError:
        cupy = None
    if cupy is not None:
        c = cupy.asarray(a)
        r = gpuimg.run("gray,resize=50%", c)
        assert np.array_equal(cupy.asnumpy(cupy.from_dlpack(r)), want)
        # __cuda_array_interface__ alone, made on a stream of its own: waited for through the driver
        s = cupy.cuda.Stream(non_blocking=True)
        with s:
            x = cupy.ascontiguousarray(cupy.asarray(a)[:, ::-1])
            cai = CAI.__new__(CAI)
            cai.__cuda_array_interface__ = x.__cuda_array_interface__
            assert cai.__cuda_array_interface__.get("stream") not in (None, 1, 2)
            r = gpuimg.run("copy", cai)
        assert np.array_equal(r.numpy(), a[:, ::-1])
        print("cupy", cupy.__version__, "round trip through DLPack and the CUDA array interface")
    gc.collect()
    assert _dlpack.live() == base


def test_dlpack_refused_falls_back_to_the_array_interface():
    """A producer whose __dlpack__ raises BufferError (PyTorch off its current device) is read
    through its __cuda_array_interface__ where it has one; without one the BufferError stands."""
    if have_gpu():
        return
    a = np.zeros((4, 4), np.uint8)

    class Refuses(CAI):
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, **kw):
            self.asked = True
            raise BufferError("Can't export tensors on a different CUDA device index")

    r = Refuses(a, stream=0)   # stream 0: the interface's own refusal shows it was read
    try:
        gpuimg.run("copy", r)
    except ValueError as e:
        assert r.asked and "stream 0" in str(e), str(e)
    else:
        raise AssertionError("no ValueError")
    p = Producer(a, kind=2)
    p.__dlpack__ = lambda **kw: (_ for _ in ()).throw(BufferError("refused"))
    try:
        gpuimg.run("copy", p)
    except BufferError:
        pass
    else:
        raise AssertionError("no BufferError")
