"""libgpuimg through ctypes: the C API's declarations (include/gpuimg.h), loaded once.

ctypes releases the GIL around every call into the library, so that other Python threads run
while an image is decoded, processed or encoded.
"""
import ctypes
import ctypes.util
import os

__all__ = ["lib", "Image", "library_path"]


class Image(ctypes.Structure):
    """struct gpuimg_image"""
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("stride", ctypes.c_size_t),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("channels", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("device", ctypes.c_int),
        ("owner", ctypes.c_void_p),
    ]


def _candidates():
    env = os.environ.get("GPUIMG_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _config  # written by the build (setup.py): the library found then
        yield _config.LIBRARY
    except ImportError:
        pass
    found = ctypes.util.find_library("gpuimg")
    if found:
        yield found
    yield "libgpuimg.so.0"


def _load():
    errors = []
    for name in _candidates():
        try:
            return ctypes.CDLL(name), name
        except OSError as e:
            errors.append(str(e))
    raise ImportError("gpuimg: cannot load libgpuimg (install the library with `make install`, or set "
                      "GPUIMG_LIBRARY to its path): " + "; ".join(errors))


lib, library_path = _load()

_ctx = ctypes.c_void_p
_img = ctypes.POINTER(Image)
_status = ctypes.c_int
for _name, _res, _args in [
    ("gpuimg_version", ctypes.c_char_p, []),
    ("gpuimg_strerror", ctypes.c_char_p, [ctypes.c_int]),
    ("gpuimg_ctx_new", _ctx, []),
    ("gpuimg_ctx_free", None, [_ctx]),
    ("gpuimg_ctx_set", _status, [_ctx, ctypes.c_char_p, ctypes.c_char_p]),
    ("gpuimg_ctx_error", ctypes.c_char_p, [_ctx]),
    ("gpuimg_ctx_backend", ctypes.c_char_p, [_ctx]),
    ("gpuimg_ctx_note", ctypes.c_char_p, [_ctx]),
    ("gpuimg_image_wrap", Image, [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_size_t, ctypes.c_int]),
    ("gpuimg_image_copy", _status, [_ctx, _img, ctypes.c_int, _img]),
    ("gpuimg_image_free", None, [_img]),
    ("gpuimg_read", _status, [_ctx, ctypes.c_char_p, _img]),
    ("gpuimg_decode", _status, [_ctx, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p, _img]),
    ("gpuimg_write", _status, [_ctx, ctypes.c_char_p, _img]),
    ("gpuimg_encode", _status, [_ctx, _img, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                ctypes.POINTER(ctypes.c_size_t)]),
    ("gpuimg_run", _status, [_ctx, ctypes.c_char_p, _img, _img]),
    ("gpuimg_decode_batch", _status, [_ctx, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                                      ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t), ctypes.c_char_p,
                                      ctypes.c_int, _img, ctypes.POINTER(ctypes.c_int)]),
    ("gpuimg_convert", _status, [_ctx, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]),
]:
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

# the C library's free, for gpuimg_encode's buffer
libc_free = ctypes.CDLL(None).free
libc_free.argtypes = [ctypes.c_void_p]
libc_free.restype = None
