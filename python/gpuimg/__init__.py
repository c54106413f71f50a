"""gpuimg: image processing on the GPU and every CPU core, from Python.

    import gpuimg
    a = gpuimg.read("photo.jpg")                  # numpy.ndarray, uint8, (H, W, 3), RGB
    b = gpuimg.run("resize=800x,sharpen=1", a)    # a numpy array in, a numpy array out
    gpuimg.write("thumb.webp", b, webp_quality=80)

Pipelines are the command's (`man gpuimg`, OPERATIONS); options are its long options with `_`
for `-` (`jpeg_quality=85`, `backend="cpu"`, `strip="gps"`), given to a `Context` or to one call.
Arrays are (H, W) or (H, W, C) with C from 1 to 4 (grey, grey+alpha, RGB, RGBA), uint8 or
uint16.

CUDA arrays: an array in a CUDA device's memory (PyTorch, CuPy, JAX, Numba), given to `run`,
`write`, `encode`, `to_device` or `to_host`, is read where it is, through DLPack (`__dlpack__`)
or else `__cuda_array_interface__`; `run`'s result stays on that device, a `DeviceArray`, which
PyTorch, CuPy and JAX take without a copy (`torch.from_dlpack(d)`, `cupy.from_dlpack(d)`, or
`cupy.asarray(d)` through its `__cuda_array_interface__`). Streams: the library works on the
calling thread's per-thread default stream and returns with its work done, so a DeviceArray
needs no synchronising (its interface states stream None). An input's pending work is waited for:
a DLPack producer is asked for the legacy default stream (`stream=1`; PyTorch refuses 2, the
per-thread stream), which CUDA orders before the library's; a `__cuda_array_interface__` naming a
stream of its own (not 1 or 2) is waited for through the CUDA driver (cuStreamSynchronize). A
DLPack tensor in host memory (kDLCPU) goes through `numpy.from_dlpack`; numpy results take part in
DLPack through numpy itself.

Errors are `gpuimg.Error` with the library's one-line message. Every call releases the GIL
while it works. A `Context` is used by one thread at a time; the module's functions use one
context per thread.

Finding the library: libgpuimg.so.0 is loaded at import from, in turn, (1) the file
GPUIMG_LIBRARY names (that or an ImportError: no other is tried), (2) the path pkg-config's
gpuimg.pc gave when the module was installed (`pip install ./python`), (3) the dynamic loader's
search for the soname libgpuimg.so.0 (LD_LIBRARY_PATH, ld.so.cache, /usr/lib), (4) the libdir
pkg-config names now, (5) `ctypes.util.find_library("gpuimg")` where it names libgpuimg.so.0.
`gpuimg.library_path` is the file loaded.
"""
import ctypes
import os
import threading
from typing import Any, Dict, Optional, Tuple, Union

import numpy as np

from . import _cuda, _dlpack
from ._dlpack import KDLCPU, KDLCUDA, KDLCUDAHOST
from ._lib import Image, Info, lib, libc_free, library_path

__all__ = ["Context", "DeviceArray", "Error", "info", "read", "decode", "write", "encode", "run", "convert",
           "to_device", "to_host", "__version__", "library_path"]

__version__ = lib.gpuimg_version().decode()

# include/gpuimg.h's enum gpuimg_status, in order
_STATUS = ["OK", "EUSAGE", "EPARAM", "ENOMEM", "EOPEN", "EDECODE", "ETOOBIG", "EEXISTS", "EWRITE", "EENCODE",
           "ENOGPU", "ECUDA", "EUNSUPPORTED", "ENODEVMEM", "ECANCELED", "EGEOMETRY", "EINTERNAL"]


class Error(Exception):
    """A failure of the library: `status` is its class ("EDECODE", "EPARAM", ...), `code` the
    number (include/gpuimg.h), the message the line the command would print."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.status = _STATUS[code] if 0 <= code < len(_STATUS) else str(code)


def _text(v):
    if isinstance(v, bool):
        return "1" if v else "0"
    return str(v)


def _path(p):
    return os.fsencode(p)


class _Owned:
    """What the library made behind an array: freed with it."""
    __slots__ = ("img",)

    def __init__(self, img):
        self.img = img

    def __del__(self):
        if self.img.owner:
            lib.gpuimg_image_free(ctypes.byref(self.img))


def _shape(img):
    h, w, c = img.height, img.width, img.channels
    return (h, w) if c == 1 else (h, w, c)


def _dtype(depth):
    return np.dtype(np.uint8) if depth == 8 else np.dtype(np.uint16)


def _to_numpy(img):
    """An array over the library's image, no copy; the image freed when the array is."""
    dt = _dtype(img.depth)
    row = img.width * img.channels * dt.itemsize
    buf = (ctypes.c_uint8 * (img.stride * img.height)).from_address(img.data)
    buf._gpuimg_owner = _Owned(img)   # the buffer, which the array keeps, keeps the image
    a = np.frombuffer(buf, dtype=np.uint8)
    if img.stride != row:   # rows apart (the library's own are packed)
        a = np.lib.stride_tricks.as_strided(a, shape=(img.height, row), strides=(img.stride, 1))
    return a.view(dt).reshape(_shape(img))


def _host_image(a):
    """A numpy array as an image of its memory (copied only where its pixels are not each row's
    contiguous samples, or not in host byte order). Returns (Image, the array to keep alive)."""
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    if a.dtype.kind != "u" or a.dtype.itemsize > 2:
        raise TypeError(f"gpuimg: an image is uint8 or uint16, not {a.dtype}")
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    if a.ndim == 2:
        c = 1
    elif a.ndim == 3 and 1 <= a.shape[2] <= 4:
        c = a.shape[2]
    else:
        raise ValueError(f"gpuimg: an image is (H, W) or (H, W, C) with C from 1 to 4, not {a.shape}")
    item = a.dtype.itemsize
    if a.strides[1] != c * item or (a.ndim == 3 and a.strides[2] != item) or a.strides[0] < a.shape[1] * c * item:
        a = np.ascontiguousarray(a)
    img = Image(a.ctypes.data, a.strides[0], a.shape[1], a.shape[0], c, 8 * item, -1, None)
    return img, a


def _dlpack_device(x: Any) -> Optional[Tuple[int, int]]:
    """x.__dlpack_device__() as (type, id), or None."""
    try:
        kind, dev = x.__dlpack_device__()
        return int(kind), int(dev)
    except (AttributeError, TypeError, ValueError):
        return None


def _cuda_device(x: Any) -> int:
    """The device of a CUDA array: its __dlpack_device__ (CuPy, PyTorch), its .device, or 0."""
    d = _dlpack_device(x)
    if d is not None and d[0] == KDLCUDA:
        return d[1]
    d = getattr(x, "device", None)
    for attr in ("id", "index"):
        if isinstance(getattr(d, attr, None), int):
            return getattr(d, attr)
    return 0


def _channels(shape: Tuple[int, ...]) -> int:
    if len(shape) == 2:
        return 1
    if len(shape) == 3 and 1 <= shape[2] <= 4:
        return shape[2]
    raise ValueError(f"gpuimg: an image is (H, W) or (H, W, C) with C from 1 to 4, not {shape}")


def _strided_image(data: int, shape: Tuple[int, ...], strides: Optional[Tuple[int, ...]], item: int,
                   device: int) -> Image:
    """An image of memory elsewhere (a CUDA device's, or pinned host memory): shape, strides in
    bytes (None: packed rows); each row's samples contiguous, rows at least a row apart."""
    c = _channels(shape)
    row = shape[1] * c * item
    if strides is None:
        stride = row
    else:
        if (shape[1] > 1 and strides[1] != c * item) or (len(shape) == 3 and c > 1 and strides[2] != item):
            raise ValueError("gpuimg: a device image's pixels must be contiguous along each row (make it with "
                             ".contiguous() or cupy.ascontiguousarray)")
        stride = strides[0] if shape[0] > 1 else row
        if stride < row:
            raise ValueError("gpuimg: a device image's rows must lie one after another, at least a row apart (not "
                             f"{stride} bytes): make it with .contiguous() or cupy.ascontiguousarray")
    return lib.gpuimg_image_wrap(data, shape[1], shape[0], c, 8 * item, stride, device)


def _device_image(x: Any) -> Image:
    """An object with __cuda_array_interface__ as an image of its device memory, its stream
    waited for (version 3's "stream": see the module's text)."""
    cai = x.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    if typestr[1:] not in ("u1", "u2") or (typestr[1:] == "u2" and typestr[0] == ">"):
        raise TypeError(f"gpuimg: a device image is uint8 or uint16 (little-endian), not {typestr}")
    if cai.get("mask") is not None:
        raise ValueError("gpuimg: a masked __cuda_array_interface__ (its \"mask\" is not None)")
    item = int(typestr[2])
    strides = cai.get("strides")
    device = _cuda_device(x)
    img = _strided_image(cai["data"][0], shape, tuple(strides) if strides is not None else None, item, device)
    stream = cai.get("stream")
    try:
        _cuda.stream_wait(stream, device)
    except OSError as e:
        raise Error(_STATUS.index("ECUDA"), f"gpuimg: waiting for the device array's stream {stream}: {e}") from None
    return img


def _dlpack_capsule(x: Any, stream: Optional[int]) -> Any:
    """x.__dlpack__ asked for a versioned capsule, or where x predates DLPack 1.0 (its __dlpack__
    takes no max_version) an unversioned one."""
    try:
        return x.__dlpack__(stream=stream, max_version=_dlpack.VERSION)
    except TypeError:
        return x.__dlpack__(stream=stream)


def _dlpack_image(t: "_dlpack.Imported") -> Tuple[Image, Any]:
    """A DLPack tensor of a CUDA device (or pinned host memory) as an image: (Image, a host array
    to keep, or None)."""
    if t.code != _dlpack.KDLUINT or t.bits not in (8, 16) or t.lanes != 1:
        raise TypeError(f"gpuimg: an image is uint8 or uint16, not DLPack type code {t.code}, {t.bits} bits, "
                        f"{t.lanes} lanes")
    item = t.bits // 8
    _channels(t.shape)
    strides = None if t.strides is None else tuple(s * item for s in t.strides)
    if t.device[0] == KDLCUDA:
        if strides is not None and min(strides) < 0:
            raise ValueError("gpuimg: a device image with negative strides: make it with .contiguous()")
        return _strided_image(t.data, t.shape, strides, item, t.device[1]), None
    # pinned host memory: a numpy view (any strides), which _host_image takes (repacked where it must)
    if strides is None:
        strides = tuple(int(np.prod(t.shape[i + 1:], dtype=np.int64)) * item for i in range(len(t.shape)))
    if min(t.shape) == 0:
        return _host_image(np.zeros(t.shape, _dtype(t.bits)))
    low = sum((n - 1) * s for n, s in zip(t.shape, strides) if s < 0)
    high = sum((n - 1) * s for n, s in zip(t.shape, strides) if s > 0) + item
    buf = (ctypes.c_uint8 * (high - low)).from_address(t.data + low)
    a = np.ndarray(t.shape, _dtype(t.bits), buffer=buf, offset=-low, strides=strides)
    return _host_image(a)


class _Input:
    """One input image of a library call (`with _Input(x) as img:`): a DeviceArray, a numpy
    array, a DLPack producer (`__dlpack__`: a CUDA tensor read in place, a host one through
    numpy.from_dlpack), a `__cuda_array_interface__` array (also a DLPack producer that refuses
    with BufferError, as PyTorch does for a tensor off its current device), or anything
    numpy.asarray takes. What keeps its memory is let go at the end: a DLPack tensor's deleter is
    called there."""
    __slots__ = ("img", "keep", "tensor")

    def __init__(self, x: Any):
        self.keep, self.tensor = x, None
        if isinstance(x, DeviceArray):
            self.img = x._owned.img
            return
        if isinstance(x, np.ndarray):
            self.img, self.keep = _host_image(x)
            return
        dev = _dlpack_device(x) if hasattr(x, "__dlpack__") else None
        if dev is not None and dev[0] == KDLCPU:
            self.img, self.keep = _host_image(np.from_dlpack(x) if hasattr(np, "from_dlpack") else np.asarray(x))
        elif dev is not None and dev[0] in (KDLCUDA, KDLCUDAHOST):
            # the legacy default stream for CUDA (see the module's text); none for host memory
            try:
                capsule = _dlpack_capsule(x, 1 if dev[0] == KDLCUDA else None)
            except BufferError:
                # PyTorch exports only from its current device: its array interface takes the
                # rest, as before DLPack (no stream given: its default stream is the legacy one)
                if not hasattr(x, "__cuda_array_interface__"):
                    raise
                self.img = _device_image(x)
                return
            self.tensor = _dlpack.Imported(capsule)
            try:
                self.img, self.keep = _dlpack_image(self.tensor)
            except BaseException:
                self.tensor.release()
                raise
        elif hasattr(x, "__cuda_array_interface__"):
            self.img = _device_image(x)
        else:
            self.img, self.keep = _host_image(x)

    def __enter__(self) -> Image:
        return self.img

    def __exit__(self, *exc) -> None:
        self.keep = None
        if self.tensor is not None:
            self.tensor.release()
            self.tensor = None


class DeviceArray:
    """An image in a CUDA device's memory, made by gpuimg: `shape` ((H, W) or (H, W, C)), `dtype`
    (uint8 or uint16), `device` (the CUDA device's index). PyTorch, CuPy and JAX take it without a
    copy through DLPack (`torch.from_dlpack(d)`, `cupy.from_dlpack(d)`, `jax.dlpack.from_dlpack(d)`)
    or `__cuda_array_interface__` (`cupy.asarray(d)`, `numba.cuda.as_cuda_array(d)`); the memory
    stays while they use it. `numpy()` copies it down. Its work is done when gpuimg returns it: no
    stream needs to wait for it."""

    def __init__(self, img: Image):
        """The library's device image img, owned from here on (gpuimg's functions make these)."""
        self._owned = _Owned(img)
        self.shape: Tuple[int, ...] = _shape(img)
        self.dtype: np.dtype = _dtype(img.depth)
        self.device: int = img.device

    def _strides(self) -> Tuple[int, ...]:
        """Strides in bytes."""
        img, item = self._owned.img, self.dtype.itemsize
        return (img.stride,) + ((img.channels * item, item) if len(self.shape) == 3 else (item,))

    @property
    def __cuda_array_interface__(self) -> dict:
        """CUDA Array Interface version 3: no mask, and stream None (nothing to wait for)."""
        img = self._owned.img
        packed = img.stride == img.width * img.channels * self.dtype.itemsize
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (img.data, False),
                "strides": None if packed else self._strides(), "stream": None, "version": 3}

    def __dlpack_device__(self) -> Tuple[int, int]:
        """(2, device): kDLCUDA and the device's index."""
        return (KDLCUDA, self.device)

    def __dlpack__(self, stream: Optional[int] = None, *, max_version: Optional[Tuple[int, int]] = None,
                   dl_device: Optional[Tuple[int, int]] = None, copy: Optional[bool] = None) -> Any:
        """A DLPack capsule of the image (the array API's protocol): "dltensor_versioned" (DLPack
        1.0) where max_version is (1, 0) or later, else "dltensor" (0.8's layout); uint8 or uint16,
        strides in elements. The DeviceArray lives until the consumer calls the tensor's deleter.

        stream: the consumer's (None, -1, 1, 2 or a cudaStream_t): nothing is waited for, the
        image being complete; 0 is refused (ambiguous). dl_device: None or (2, device) for this
        memory, (1, 0) (kDLCPU) for a copy in host memory; any other, BufferError. copy: True, a
        copy on the same device (or the host); False, BufferError where a copy is needed."""
        if stream is not None and (not isinstance(stream, int) or isinstance(stream, bool)):
            raise TypeError(f"gpuimg: a DLPack stream is None or an int, not {stream!r}")
        if stream == 0:
            raise ValueError("gpuimg: DLPack stream 0 is ambiguous on CUDA (1 is the legacy default stream)")
        versioned = max_version is not None and tuple(max_version)[0] >= 1
        target = None if dl_device is None else (int(dl_device[0]), int(dl_device[1]))
        item = self.dtype.itemsize
        if target is None or target == (KDLCUDA, self.device):
            src, flags = self, 0
            if copy:
                src, flags = _default().to_device(self, self.device), _dlpack.FLAG_IS_COPIED
            strides = src._strides()
            if any(s % item for s in strides):
                raise BufferError(f"gpuimg: rows {strides[0]} bytes apart are no whole number of samples")
            return _dlpack.export(src, src._owned.img.data, (KDLCUDA, src.device), src.shape,
                                  tuple(s // item for s in strides), 8 * item, versioned, flags)
        if target[0] == KDLCPU:
            if copy is False:
                raise BufferError("gpuimg: a DeviceArray reaches host memory (kDLCPU) only by a copy, and copy is "
                                  "False")
            a = self.numpy()
            return _dlpack.export(a, a.ctypes.data, (KDLCPU, 0), a.shape, tuple(s // item for s in a.strides),
                                  8 * item, versioned, _dlpack.FLAG_IS_COPIED)
        raise BufferError(f"gpuimg: a DeviceArray on CUDA device {self.device} is exported there or to the host "
                          f"(kDLCPU), not to DLPack device {target}")

    def numpy(self) -> np.ndarray:
        """The image copied down into host memory."""
        return _default().to_host(self)

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device={self.device})"


def _device_index(device):
    """None: host memory; "cuda", "cuda:N", N: that CUDA device."""
    if device is None:
        return -1
    if isinstance(device, int):
        return device
    if isinstance(device, str) and device.startswith("cuda"):
        return int(device[5:]) if device[4:5] == ":" else 0
    raise ValueError(f"gpuimg: device is None, \"cuda\", \"cuda:N\" or N, not {device!r}")


class Context:
    """The options of a run, kept (the command's long options with `_` for `-`):

        ctx = gpuimg.Context(backend="cpu", jpeg_quality=85, threads=4)
        ctx.write("out.jpg", ctx.run("resize=50%", ctx.read("in.png")))
    """

    def __init__(self, **options: Any):
        self._lock = threading.Lock()   # a context runs one call at a time; contexts run at once
        self._ptr = lib.gpuimg_ctx_new()
        if not self._ptr:
            raise MemoryError("gpuimg: no memory for a context")
        self.set(**options)

    def __del__(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr:
            lib.gpuimg_ctx_free(ptr)

    def _check(self, st):
        if st:
            raise Error(st, lib.gpuimg_ctx_error(self._ptr).decode(errors="replace"))

    def _call(self, fn, *args):
        """fn(context, *args) under the context's lock, its failure raised with its message."""
        with self._lock:
            self._check(fn(self._ptr, *args))

    def set(self, **options: Any) -> None:
        """Set options: `ctx.set(jpeg_quality=85, strip="gps", force=True)`."""
        for k, v in options.items():
            self._call(lib.gpuimg_ctx_set, k.replace("_", "-").encode(), _text(v).encode())

    def cancel(self) -> None:
        """From another thread: the call running on this context stops before its next step (a
        batch before its next input) and raises gpuimg.Error ECANCELED; no effect when none runs."""
        lib.gpuimg_ctx_cancel(self._ptr)

    def get(self, name: str) -> Optional[str]:
        """An option's value as last set (`ctx.get("jpeg_quality")` -> "85"), or None where it was
        never set (its default holds)."""
        v = lib.gpuimg_ctx_get(self._ptr, name.replace("_", "-").encode())
        return None if v is None else v.decode()

    @property
    def backend(self) -> str:
        """Where the last run went: "cpu" or "gpu"."""
        return lib.gpuimg_ctx_backend(self._ptr).decode()

    @property
    def note(self) -> str:
        """Why auto took the CPU for the last run, or ""."""
        return lib.gpuimg_ctx_note(self._ptr).decode(errors="replace")

    def info(self, path: Union[str, os.PathLike]) -> Dict[str, Any]:
        """What a file holds, from its header and metadata, no pixels decoded (`gpuimg info`):
        format, width, height (as stored), channels, depth, orientation, frames, progressive (None
        but for JPEG), cmyk, the bytes of each piece of metadata (icc, exif, xmp, iptc, comment: 0
        where absent), density (dots per inch, or None) and the file's bytes."""
        f = Info()
        self._call(lib.gpuimg_info_read, _path(path), ctypes.byref(f))
        d: Dict[str, Any] = {"format": f.format.decode()}
        d.update({k: getattr(f, k) for k, _ in Info._fields_ if k not in ("format", "xres", "yres")})
        d["progressive"] = None if f.progressive < 0 else bool(f.progressive)
        d["cmyk"] = bool(f.cmyk)
        d["density"] = (f.xres, f.yres) if f.xres > 0 or f.yres > 0 else None
        return d

    def read(self, path: Union[str, os.PathLike]) -> np.ndarray:
        """A file decoded (upright, as the command reads it) into a numpy array."""
        img = Image()
        self._call(lib.gpuimg_read, _path(path), ctypes.byref(img))
        return _to_numpy(img)

    def decode(self, data: Any, name: Optional[str] = None, pipeline: Optional[str] = None,
               device: Union[None, int, str] = None, errors: str = "raise") -> Any:
        """A file's bytes (bytes, bytearray, memoryview, a uint8 array) decoded into a numpy array.
        A list of files (paths) and bytes: decoded at once (and run through pipeline), a list of
        numpy arrays, or with device ("cuda", "cuda:1", 1) of DeviceArrays, the GPU's JPEG engines
        decoding the JPEGs they take in batched calls. errors="raise": the first failure raises
        gpuimg.Error; "return": each input that failed is its gpuimg.Error in the list."""
        if errors not in ("raise", "return"):
            raise ValueError(f"gpuimg: errors is \"raise\" or \"return\", not {errors!r}")
        if isinstance(data, (list, tuple)):
            return self._decode_many(data, pipeline, device, errors)
        if pipeline is not None or device is not None:
            return self._decode_many([data], pipeline, device, "raise")[0]
        if isinstance(data, bytes):   # read in place
            buf, n = data, len(data)
        else:
            mv = memoryview(data).cast("B")
            n = len(mv)
            buf = (ctypes.c_char * n).from_buffer_copy(mv) if mv.readonly else (ctypes.c_char * n).from_buffer(mv)
        img = Image()
        self._call(lib.gpuimg_decode, buf, n, name.encode() if name else None, ctypes.byref(img))
        return _to_numpy(img)

    def _decode_many(self, items, pipeline, device, errors):
        n = len(items)
        paths = (ctypes.c_char_p * max(n, 1))()
        bufs = (ctypes.c_void_p * max(n, 1))()
        lens = (ctypes.c_size_t * max(n, 1))()
        keep = []
        for i, x in enumerate(items):
            if isinstance(x, (str, os.PathLike)):
                paths[i] = _path(x)
            else:
                b = x if isinstance(x, bytes) else bytes(memoryview(x).cast("B"))
                keep.append(b)
                bufs[i] = ctypes.cast(ctypes.c_char_p(b), ctypes.c_void_p)
                lens[i] = len(b)
        dev = _device_index(device)
        outs = (Image * max(n, 1))()
        status = (ctypes.c_int * max(n, 1))()
        with self._lock:
            st = lib.gpuimg_decode_batch(self._ptr, n, paths, bufs, lens, pipeline.encode() if pipeline else None, dev,
                                         outs, status)
            msg = lib.gpuimg_ctx_error(self._ptr).decode(errors="replace") if st else ""
        res = [DeviceArray(outs[i]) if outs[i].device >= 0 else _to_numpy(outs[i]) if outs[i].data
               else Error(status[i], f"input {i}: {_STATUS[status[i]] if 0 <= status[i] < len(_STATUS) else status[i]}")
               for i in range(n)]
        del keep
        if st and errors == "raise":
            raise Error(st, msg)
        return res

    def write(self, path: Union[str, os.PathLike], image: Any) -> None:
        """image written to path, its format from the extension (or the `format` option)."""
        with _Input(image) as img:
            self._call(lib.gpuimg_write, _path(path), ctypes.byref(img))

    def encode(self, image: Any, format: str = "png") -> bytes:
        """image encoded in memory: the file's bytes ("png", "jpg", "webp", ...)."""
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        with _Input(image) as img:
            self._call(lib.gpuimg_encode, ctypes.byref(img), format.encode(), ctypes.byref(p), ctypes.byref(n))
        try:
            return ctypes.string_at(p.value, n.value)
        finally:
            libc_free(p)

    def run(self, pipeline: str, image: Any) -> Union[np.ndarray, "DeviceArray"]:
        """A pipeline on image: a numpy array in, a numpy array out; a CUDA array (DLPack or
        __cuda_array_interface__) or DeviceArray in, a DeviceArray on its device out."""
        out = Image()
        with _Input(image) as img:
            self._call(lib.gpuimg_run, pipeline.encode(), ctypes.byref(img), ctypes.byref(out))
        return DeviceArray(out) if out.device >= 0 else _to_numpy(out)

    def convert(self, pipeline: str, src: Union[str, os.PathLike], dst: Union[str, os.PathLike]) -> None:
        """A file through a pipeline to a file, as the command does it (the same bytes)."""
        self._call(lib.gpuimg_convert, pipeline.encode(), _path(src), _path(dst))

    def to_device(self, image: Any, device: Union[int, str] = 0) -> "DeviceArray":
        """image (a numpy array, a host or CUDA DLPack tensor, a CUDA array on the same device)
        copied up to a CUDA device: a DeviceArray."""
        out = Image()
        with _Input(image) as img:
            self._call(lib.gpuimg_image_copy, ctypes.byref(img), _device_index(device), ctypes.byref(out))
        return DeviceArray(out)

    def to_host(self, image: Any) -> np.ndarray:
        """A DeviceArray (or a CUDA array: DLPack, __cuda_array_interface__) copied down into a
        numpy array."""
        out = Image()
        with _Input(image) as img:
            self._call(lib.gpuimg_image_copy, ctypes.byref(img), -1, ctypes.byref(out))
        return _to_numpy(out)


_local = threading.local()


def _default():
    ctx = getattr(_local, "ctx", None)
    if ctx is None:
        ctx = _local.ctx = Context()
    return ctx


def _ctx(options):
    """The calling thread's context for these options, kept (up to 8 sets of options a thread)."""
    if not options:
        return _default()
    cache = getattr(_local, "by_options", None)
    if cache is None:
        cache = _local.by_options = {}
    key = tuple(sorted((k, _text(v)) for k, v in options.items()))
    ctx = cache.get(key)
    if ctx is None:
        if len(cache) >= 8:
            cache.pop(next(iter(cache)))
        ctx = cache[key] = Context(**options)
    return ctx


def info(path: Union[str, os.PathLike], **options: Any) -> Dict[str, Any]:
    """What a file holds from its header and metadata alone (no pixels decoded): a dict of
    format, width, height, channels, depth, orientation, frames, ... as `gpuimg info` says."""
    return _ctx(options).info(path)


def read(path: Union[str, os.PathLike], **options: Any) -> np.ndarray:
    """A file decoded into a numpy array (H, W) or (H, W, C), uint8 or uint16, RGB(A) order,
    turned upright by its EXIF orientation."""
    return _ctx(options).read(path)


def decode(data: Any, name: Optional[str] = None, pipeline: Optional[str] = None,
           device: Union[None, int, str] = None, errors: str = "raise", **options: Any) -> Any:
    """A file's bytes decoded into a numpy array; a list of files and bytes decoded at once
    (through pipeline, if given) into numpy arrays, or with device="cuda" into DeviceArrays
    through the GPU's JPEG engines: `gpuimg.decode(paths, pipeline="resize=224x224!",
    device="cuda")`; errors="return" leaves each failed input's gpuimg.Error in the list."""
    return _ctx(options).decode(data, name, pipeline, device, errors)


def write(path: Union[str, os.PathLike], image: Any, **options: Any) -> None:
    """An array (numpy, CUDA or DeviceArray) written to path, the format from its extension:
    `gpuimg.write("a.jpg", a, jpeg_quality=85)`."""
    _ctx(options).write(path, image)


def encode(image: Any, format: str = "png", **options: Any) -> bytes:
    """An array encoded in memory: the file's bytes."""
    return _ctx(options).encode(image, format)


def run(pipeline: str, image: Any, **options: Any) -> Union[np.ndarray, DeviceArray]:
    """A pipeline ("gray,resize=50%") on an array: numpy in, numpy out; a CUDA array in (a
    PyTorch tensor, CuPy, JAX: DLPack or __cuda_array_interface__), a DeviceArray on the same
    device out, with no copy to the host (`torch.from_dlpack(gpuimg.run("blur=2", t))`)."""
    return _ctx(options).run(pipeline, image)


def convert(pipeline: str, src: Union[str, os.PathLike], dst: Union[str, os.PathLike], **options: Any) -> None:
    """A file through a pipeline to a file, as `gpuimg PIPELINE SRC DST` does."""
    _ctx(options).convert(pipeline, src, dst)


def to_device(image: Any, device: Union[int, str] = 0, **options: Any) -> DeviceArray:
    """An array copied up to a CUDA device: a DeviceArray."""
    return _ctx(options).to_device(image, device)


def to_host(image: Any, **options: Any) -> np.ndarray:
    """A DeviceArray or CUDA array (DLPack, __cuda_array_interface__) copied down: a numpy array."""
    return _ctx(options).to_host(image)
