"""libgpuimg through ctypes: the C API's declarations (include/gpuimg.h), loaded once, found
where the package's docstring says ("Finding the library").

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


class Info(ctypes.Structure):
    """struct gpuimg_info"""
    _fields_ = [
        ("format", ctypes.c_char * 16),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("channels", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("orientation", ctypes.c_int),
        ("frames", ctypes.c_int),
        ("progressive", ctypes.c_int),
        ("cmyk", ctypes.c_int),
        ("icc", ctypes.c_size_t),
        ("exif", ctypes.c_size_t),
        ("xmp", ctypes.c_size_t),
        ("iptc", ctypes.c_size_t),
        ("comment", ctypes.c_size_t),
        ("xres", ctypes.c_double),
        ("yres", ctypes.c_double),
        ("bytes", ctypes.c_size_t),
    ]


SONAME = "libgpuimg.so.0"   # the library's ABI: the module loads no other


def _pkg_config_library():
    """libgpuimg.so.0 in the libdir that pkg-config's gpuimg.pc names now, or None."""
    import subprocess
    try:
        libdir = subprocess.run(["pkg-config", "--variable=libdir", "gpuimg"], check=True, capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    path = os.path.join(libdir, SONAME)
    return path if libdir and os.path.exists(path) else None


def _candidates():
    """(where, name) in the order the module tries them (the package's docstring states it)."""
    env = os.environ.get("GPUIMG_LIBRARY")
    if env:
        yield "GPUIMG_LIBRARY", env
        return   # named: that file or an error, never another library
    try:
        from . import _config  # written at install (setup.py): the library pkg-config found then
        if _config.LIBRARY:
            yield "the path recorded at install", _config.LIBRARY
    except ImportError:
        pass
    yield "the dynamic loader", SONAME
    found = _pkg_config_library()
    if found:
        yield "pkg-config", found
    found = ctypes.util.find_library("gpuimg")
    if found and os.path.basename(found).startswith(SONAME):
        yield "ctypes.util.find_library", found


class _DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p), ("sname", ctypes.c_char_p),
                ("saddr", ctypes.c_void_p)]


def _file_of(lib, name):
    """The file the dynamic loader took for lib (dladdr on one of its functions), else name."""
    try:
        dladdr = ctypes.CDLL(None).dladdr
        dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
        info = _DlInfo()
        if dladdr(ctypes.cast(lib.gpuimg_version, ctypes.c_void_p), ctypes.byref(info)) and info.fname:
            return os.fsdecode(info.fname)
    except (OSError, AttributeError):
        pass
    return name


def _load():
    errors = []
    for where, name in _candidates():
        try:
            lib = ctypes.CDLL(name)
        except OSError as e:
            errors.append(f"{where}: {e}")
            continue
        return lib, (name if os.sep in name else _file_of(lib, name))
    raise ImportError("gpuimg: cannot load libgpuimg (install the library with `make install`, or set "
                      "GPUIMG_LIBRARY to libgpuimg.so.0's path): " + "; ".join(errors))


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
    ("gpuimg_ctx_get", ctypes.c_char_p, [_ctx, ctypes.c_char_p]),
    ("gpuimg_ctx_cancel", None, [_ctx]),
    ("gpuimg_ctx_error", ctypes.c_char_p, [_ctx]),
    ("gpuimg_ctx_backend", ctypes.c_char_p, [_ctx]),
    ("gpuimg_ctx_note", ctypes.c_char_p, [_ctx]),
    ("gpuimg_image_wrap", Image, [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                  ctypes.c_size_t, ctypes.c_int]),
    ("gpuimg_image_copy", _status, [_ctx, _img, ctypes.c_int, _img]),
    ("gpuimg_image_free", None, [_img]),
    ("gpuimg_read", _status, [_ctx, ctypes.c_char_p, _img]),
    ("gpuimg_info_read", _status, [_ctx, ctypes.c_char_p, ctypes.POINTER(Info)]),
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
    try:
        _f = getattr(lib, _name)
    except AttributeError:
        raise ImportError(f"gpuimg: {library_path} has no {_name}: a library older than this module "
                          "(make install the library of this source tree)") from None
    _f.restype = _res
    _f.argtypes = _args

# the C library's free, for gpuimg_encode's buffer
libc_free = ctypes.CDLL(None).free
libc_free.argtypes = [ctypes.c_void_p]
libc_free.restype = None
