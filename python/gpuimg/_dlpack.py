"""DLPack (https://dmlc.github.io/dlpack/latest/) through ctypes alone: no compiler, no Python
headers.

Out: `export` puts a tensor's description in a DLManagedTensor (DLPack 0.8's layout, capsule
"dltensor") or a DLManagedTensorVersioned (1.0, capsule "dltensor_versioned"), both allocated by
ctypes, inside a PyCapsule made by `PyCapsule_New`. The managed tensor keeps a Python object (the
owner of the memory: a DeviceArray, a numpy array) alive until its deleter runs: the consumer calls
it when done, having renamed the capsule "used_dltensor" ("used_dltensor_versioned"); the capsule's
destructor calls it for a capsule no consumer took.

In: `Imported` takes a capsule from a producer's `__dlpack__`, reads its tensor, renames the
capsule as the protocol says and calls the managed tensor's deleter once, at `release()` (or when
it is collected).

Both callbacks (the deleter, the capsule destructor) are ctypes functions kept for the process's
life: a consumer may call the deleter late, from any thread (ctypes takes the GIL for it).
"""
import ctypes
from typing import Any, Dict, Optional, Sequence, Tuple

__all__ = ["KDLCPU", "KDLCUDA", "KDLCUDAHOST", "KDLUINT", "FLAG_READ_ONLY", "FLAG_IS_COPIED", "DLDevice",
           "DLDataType", "DLTensor", "DLManagedTensor", "DLPackVersion", "DLManagedTensorVersioned", "export",
           "Imported", "live"]

# DLDeviceType, DLDataTypeCode and the versioned tensor's flags (dlpack.h)
KDLCPU = 1
KDLCUDA = 2
KDLCUDAHOST = 3
KDLUINT = 1
FLAG_READ_ONLY = 1 << 0
FLAG_IS_COPIED = 1 << 1
# the version a versioned capsule states: 1.0's layout, which later 1.x keep
VERSION = (1, 0)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    """DLPack 0.8's managed tensor (capsule "dltensor"); deleter: void (*)(DLManagedTensor *)."""
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    """DLPack 1.x's managed tensor (capsule "dltensor_versioned")."""
    _fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p),
                ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_MAXDIM = 3   # (H, W, C): all an image has


class _Export(ctypes.Structure):
    """One allocation: the managed tensor first (its address is the allocation's), its shape and strides."""
    _fields_ = [("m", DLManagedTensor), ("shape", ctypes.c_int64 * _MAXDIM), ("strides", ctypes.c_int64 * _MAXDIM)]


class _ExportVersioned(ctypes.Structure):
    _fields_ = [("m", DLManagedTensorVersioned), ("shape", ctypes.c_int64 * _MAXDIM),
                ("strides", ctypes.c_int64 * _MAXDIM)]


def _api(name):
    """A function of the Python C API, a ctypes object of our own: ctypes.pythonapi.NAME is one
    object that every module shares (and may give other argtypes), pythonapi[NAME] a new one."""
    return ctypes.pythonapi[name]


def _forever(obj):
    """obj never freed: C holds its address past anything Python could know (a capsule's name, a
    callback a consumer may call at any time)."""
    incref = _api("Py_IncRef")
    incref.argtypes, incref.restype = [ctypes.py_object], None
    incref(obj)
    return obj


# The capsule names live as long as the process: a capsule keeps a pointer to its name.
_NAMES = {n: _forever(ctypes.create_string_buffer(n)) for n in
          (b"dltensor", b"used_dltensor", b"dltensor_versioned", b"used_dltensor_versioned")}


def _name(n: bytes) -> int:
    return ctypes.addressof(_NAMES[n])


_PyCapsule_New = _api("PyCapsule_New")
_PyCapsule_New.restype = ctypes.py_object
_PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_PyCapsule_IsValid = _api("PyCapsule_IsValid")
_PyCapsule_IsValid.restype = ctypes.c_int
_PyCapsule_IsValid.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_GetPointer = _api("PyCapsule_GetPointer")
_PyCapsule_GetPointer.restype = ctypes.c_void_p
_PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_PyCapsule_SetName = _api("PyCapsule_SetName")
_PyCapsule_SetName.restype = ctypes.c_int
_PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_void_p]
# The same two for the capsule destructor, which gets the capsule as a bare pointer (its count is
# 0: a py_object would revive it) and may run while an exception is pending (pythonapi's functions
# would raise it there): plain C calls, taking and returning no reference.
# CFUNCTYPE releases the GIL around the call (PYFUNCTYPE would raise an exception pending there):
# safe here, where no other thread sees the dying capsule and GetPointer runs only on a capsule
# IsValid passed, so neither sets an error.
_raw_is_valid = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ctypes.cast(_PyCapsule_IsValid, ctypes.c_void_p).value)
_raw_get_pointer = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ctypes.cast(_PyCapsule_GetPointer, ctypes.c_void_p).value)

# The managed tensors handed out and not yet deleted: address -> (the ctypes allocation, owner).
_live: Dict[int, Tuple[Any, Any]] = {}


def live() -> int:
    """How many exported tensors no consumer has deleted yet (and no capsule destructor freed)."""
    return len(_live)


def _delete(addr):
    """The deleter both layouts name: the allocation and the owner it kept alive let go; a second
    call for one tensor does nothing."""
    try:
        _live.pop(addr, None)
    except Exception:   # the interpreter shutting down: nothing left to free
        pass


_DELETER = _forever(ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_delete))


def _capsule_gone(cap):
    """PyCapsule destructor: a capsule still named "dltensor" ("dltensor_versioned") was never
    consumed, so its tensor is freed here; a consumer's renamed capsule is the consumer's to free."""
    try:
        for n in (b"dltensor", b"dltensor_versioned"):
            if _raw_is_valid(cap, n):
                _delete(_raw_get_pointer(cap, n))
                return
    except Exception:
        pass


_CAPSULE_DESTRUCTOR = _forever(ctypes.CFUNCTYPE(None, ctypes.c_void_p)(_capsule_gone))


def export(owner: Any, data: int, device: Tuple[int, int], shape: Sequence[int], strides: Sequence[int],
           bits: int, versioned: bool, flags: int = 0) -> Any:
    """A DLPack capsule of unsigned samples of `bits` bits at `data` on `device` ((type, id)),
    `shape` and `strides` in elements, C order; `owner` is kept alive until the consumer deletes the
    tensor. versioned: a DLManagedTensorVersioned ("dltensor_versioned", version 1.0, `flags`),
    else a DLManagedTensor ("dltensor")."""
    if not 1 <= len(shape) <= _MAXDIM or len(strides) != len(shape):
        raise BufferError(f"gpuimg: DLPack export of {len(shape)} dimensions")
    e = (_ExportVersioned if versioned else _Export)()
    m = e.m
    if versioned:
        m.version.major, m.version.minor = VERSION
        m.flags = flags
    t = m.dl_tensor
    t.data = data
    t.device.device_type, t.device.device_id = device
    t.ndim = len(shape)
    t.dtype.code, t.dtype.bits, t.dtype.lanes = KDLUINT, bits, 1
    for i, (n, s) in enumerate(zip(shape, strides)):
        e.shape[i], e.strides[i] = n, s
    t.shape = ctypes.cast(ctypes.addressof(e) + type(e).shape.offset, ctypes.POINTER(ctypes.c_int64))
    t.strides = ctypes.cast(ctypes.addressof(e) + type(e).strides.offset, ctypes.POINTER(ctypes.c_int64))
    t.byte_offset = 0
    m.deleter = ctypes.cast(_DELETER, ctypes.c_void_p).value
    addr = ctypes.addressof(e)
    _live[addr] = (e, owner)
    try:
        return _PyCapsule_New(addr, _name(b"dltensor_versioned" if versioned else b"dltensor"),
                              ctypes.cast(_CAPSULE_DESTRUCTOR, ctypes.c_void_p).value)
    except BaseException:
        _live.pop(addr, None)
        raise


_call_deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Imported:
    """A producer's DLPack capsule, consumed: its tensor's fields read (`data`, `device`
    (type, id), `shape`, `strides` in elements or None for compact rows, `code`, `bits`,
    `lanes`, `readonly`), the capsule renamed "used_dltensor" ("used_dltensor_versioned"), and the
    producer's deleter called once by `release()` (or when this object is collected). A versioned
    capsule of another major version is refused (its deleter called) with BufferError."""

    def __init__(self, capsule: Any):
        self._ptr: Optional[int] = None
        for name, used, layout in ((b"dltensor_versioned", b"used_dltensor_versioned", DLManagedTensorVersioned),
                                   (b"dltensor", b"used_dltensor", DLManagedTensor)):
            if _PyCapsule_IsValid(capsule, name):
                ptr = _PyCapsule_GetPointer(capsule, name)
                _PyCapsule_SetName(capsule, _name(used))
                break
        else:
            raise TypeError("gpuimg: __dlpack__ gave no unused DLPack capsule (\"dltensor\" or \"dltensor_versioned\")")
        self._ptr = ptr
        self._capsule = capsule   # renamed: its destructor leaves the tensor to us
        m = layout.from_address(ptr)
        self._deleter = m.deleter
        self.versioned = layout is DLManagedTensorVersioned
        if self.versioned and m.version.major != VERSION[0]:
            v = (m.version.major, m.version.minor)
            self.release()
            raise BufferError(f"gpuimg: a DLPack {v[0]}.{v[1]} tensor: this module reads 1.x")
        self.readonly = bool(self.versioned and m.flags & FLAG_READ_ONLY)
        t = m.dl_tensor
        self.device = (t.device.device_type, t.device.device_id)
        self.code, self.bits, self.lanes = t.dtype.code, t.dtype.bits, t.dtype.lanes
        n = t.ndim
        self.shape = tuple(t.shape[i] for i in range(n)) if n > 0 else ()
        self.strides = tuple(t.strides[i] for i in range(n)) if n > 0 and t.strides else None
        self.data = (t.data or 0) + t.byte_offset

    def release(self) -> None:
        """The producer's deleter called (once: later calls do nothing)."""
        ptr, self._ptr = self._ptr, None
        if ptr and self._deleter:
            _call_deleter(self._deleter)(ptr)

    def __del__(self):
        self.release()

    def __enter__(self) -> "Imported":
        return self

    def __exit__(self, *exc) -> None:
        self.release()
