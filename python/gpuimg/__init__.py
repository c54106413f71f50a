"""gpuimg: image processing on the GPU and every CPU core, from Python.

    import gpuimg
    a = gpuimg.read("photo.jpg")                  # numpy.ndarray, uint8, (H, W, 3), RGB
    b = gpuimg.run("resize=800x,sharpen=1", a)    # a numpy array in, a numpy array out
    gpuimg.write("thumb.webp", b, webp_quality=80)

Pipelines are the command's (`man gpuimg`, OPERATIONS); options are its long options with `_`
for `-` (`jpeg_quality=85`, `backend="cpu"`, `strip="gps"`), given to a `Context` or to one call.
Arrays are (H, W) or (H, W, C) with C from 1 to 4 (grey, grey+alpha, RGB, RGBA), uint8 or
uint16. A CUDA array (`__cuda_array_interface__`: CuPy, PyTorch, Numba) given to `run` is
processed on its device and the result stays there, a `DeviceArray`, with no copy to the host.

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

import numpy as np

from ._lib import Image, lib, libc_free, library_path

__all__ = ["Context", "DeviceArray", "Error", "read", "decode", "write", "encode", "run", "convert",
           "to_device", "__version__", "library_path"]

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


def _cuda_device(x):
    """The device of a CUDA array: its __dlpack_device__ (CuPy, PyTorch), its .device, or 0."""
    try:
        kind, dev = x.__dlpack_device__()
        if int(kind) == 2:
            return int(dev)
    except (AttributeError, TypeError, ValueError):
        pass
    d = getattr(x, "device", None)
    for attr in ("id", "index"):
        if isinstance(getattr(d, attr, None), int):
            return getattr(d, attr)
    return 0


def _device_image(x):
    """An object with __cuda_array_interface__ as an image of its device memory."""
    cai = x.__cuda_array_interface__
    shape = tuple(cai["shape"])
    typestr = cai["typestr"]
    if typestr[1:] not in ("u1", "u2") or (typestr[1:] == "u2" and typestr[0] == ">"):
        raise TypeError(f"gpuimg: a device image is uint8 or uint16 (little-endian), not {typestr}")
    item = int(typestr[2])
    if len(shape) == 2:
        c = 1
    elif len(shape) == 3 and 1 <= shape[2] <= 4:
        c = shape[2]
    else:
        raise ValueError(f"gpuimg: an image is (H, W) or (H, W, C) with C from 1 to 4, not {shape}")
    strides = cai.get("strides")
    row = shape[1] * c * item
    if strides is None:
        stride = row
    else:
        if strides[1] != c * item or (len(shape) == 3 and strides[2] != item):
            raise ValueError("gpuimg: a device image's pixels must be contiguous along each row (make it with "
                             ".contiguous() or cupy.ascontiguousarray)")
        stride = strides[0]
        if stride < row:
            raise ValueError("gpuimg: a device image's rows must lie one after another, at least a row apart (not "
                             f"{stride} bytes): make it with .contiguous() or cupy.ascontiguousarray")
    return lib.gpuimg_image_wrap(cai["data"][0], shape[1], shape[0], c, 8 * item, stride, _cuda_device(x))


class DeviceArray:
    """An image in a CUDA device's memory, made by gpuimg. CuPy, PyTorch and Numba take it without
    a copy through `__cuda_array_interface__` (`cupy.asarray(d)`, `torch.as_tensor(d,
    device="cuda")`); `numpy()` copies it down."""

    def __init__(self, img):
        self._owned = _Owned(img)
        self.shape = _shape(img)
        self.dtype = _dtype(img.depth)
        self.device = img.device

    @property
    def __cuda_array_interface__(self):
        img = self._owned.img
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (img.data, False),
                "strides": None if img.stride == img.width * img.channels * self.dtype.itemsize
                else (img.stride,) + ((img.channels * self.dtype.itemsize, self.dtype.itemsize)
                                      if len(self.shape) == 3 else (self.dtype.itemsize,)),
                "version": 3}

    def __dlpack_device__(self):
        return (2, self.device)

    def numpy(self):
        """The image copied down into host memory."""
        return _default().to_host(self)

    def __repr__(self):
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device={self.device})"


def _image(x):
    """(Image, what to keep alive) for a numpy array, a CUDA array or a DeviceArray."""
    if isinstance(x, DeviceArray):
        return x._owned.img, x
    if hasattr(x, "__cuda_array_interface__"):
        return _device_image(x), x
    return _host_image(x)


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

    def __init__(self, **options):
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

    def set(self, **options):
        """Set options: `ctx.set(jpeg_quality=85, strip="gps", force=True)`."""
        for k, v in options.items():
            self._call(lib.gpuimg_ctx_set, k.replace("_", "-").encode(), _text(v).encode())

    @property
    def backend(self):
        """Where the last run went: "cpu" or "gpu"."""
        return lib.gpuimg_ctx_backend(self._ptr).decode()

    @property
    def note(self):
        """Why auto took the CPU for the last run, or ""."""
        return lib.gpuimg_ctx_note(self._ptr).decode(errors="replace")

    def read(self, path):
        """A file decoded (upright, as the command reads it) into a numpy array."""
        img = Image()
        self._call(lib.gpuimg_read, _path(path), ctypes.byref(img))
        return _to_numpy(img)

    def decode(self, data, name=None, pipeline=None, device=None, errors="raise"):
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

    def write(self, path, image):
        """image written to path, its format from the extension (or the `format` option)."""
        img, keep = _image(image)
        self._call(lib.gpuimg_write, _path(path), ctypes.byref(img))
        del keep

    def encode(self, image, format="png"):
        """image encoded in memory: the file's bytes ("png", "jpg", "webp", ...)."""
        img, keep = _image(image)
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        self._call(lib.gpuimg_encode, ctypes.byref(img), format.encode(), ctypes.byref(p), ctypes.byref(n))
        try:
            return ctypes.string_at(p.value, n.value)
        finally:
            libc_free(p)
            del keep

    def run(self, pipeline, image):
        """A pipeline on image: a numpy array in, a numpy array out; a CUDA array or DeviceArray
        in, a DeviceArray on its device out."""
        img, keep = _image(image)
        out = Image()
        self._call(lib.gpuimg_run, pipeline.encode(), ctypes.byref(img), ctypes.byref(out))
        del keep
        return DeviceArray(out) if out.device >= 0 else _to_numpy(out)

    def convert(self, pipeline, src, dst):
        """A file through a pipeline to a file, as the command does it (the same bytes)."""
        self._call(lib.gpuimg_convert, pipeline.encode(), _path(src), _path(dst))

    def to_device(self, image, device=0):
        """image copied up to a CUDA device: a DeviceArray."""
        img, keep = _image(image)
        out = Image()
        self._call(lib.gpuimg_image_copy, ctypes.byref(img), _device_index(device), ctypes.byref(out))
        del keep
        return DeviceArray(out)

    def to_host(self, image):
        """A DeviceArray (or CUDA array) copied down into a numpy array."""
        img, keep = _image(image)
        out = Image()
        self._call(lib.gpuimg_image_copy, ctypes.byref(img), -1, ctypes.byref(out))
        del keep
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


def read(path, **options):
    """A file decoded into a numpy array (H, W) or (H, W, C), uint8 or uint16, RGB(A) order,
    turned upright by its EXIF orientation."""
    return _ctx(options).read(path)


def decode(data, name=None, pipeline=None, device=None, errors="raise", **options):
    """A file's bytes decoded into a numpy array; a list of files and bytes decoded at once
    (through pipeline, if given) into numpy arrays, or with device="cuda" into DeviceArrays
    through the GPU's JPEG engines: `gpuimg.decode(paths, pipeline="resize=224x224!",
    device="cuda")`; errors="return" leaves each failed input's gpuimg.Error in the list."""
    return _ctx(options).decode(data, name, pipeline, device, errors)


def write(path, image, **options):
    """An array (numpy, CUDA or DeviceArray) written to path, the format from its extension:
    `gpuimg.write("a.jpg", a, jpeg_quality=85)`."""
    _ctx(options).write(path, image)


def encode(image, format="png", **options):
    """An array encoded in memory: the file's bytes."""
    return _ctx(options).encode(image, format)


def run(pipeline, image, **options):
    """A pipeline ("gray,resize=50%") on an array: numpy in, numpy out; a CUDA array in, a
    DeviceArray on the same device out, with no copy to the host."""
    return _ctx(options).run(pipeline, image)


def convert(pipeline, src, dst, **options):
    """A file through a pipeline to a file, as `gpuimg PIPELINE SRC DST` does."""
    _ctx(options).convert(pipeline, src, dst)


def to_device(image, device=0, **options):
    """An array copied up to a CUDA device: a DeviceArray."""
    return _ctx(options).to_device(image, device)
