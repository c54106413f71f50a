"""The one CUDA call the module makes itself: waiting for a producer's stream, through the driver.

A `__cuda_array_interface__` (version 3) that names a stream says the data is (being) written on
it: the consumer must wait for that stream before reading. libgpuimg offers no call that takes a
stream, and its CUDA runtime is linked in statically and hidden, so the module asks the driver,
libcuda.so.1, which every process that uses a GPU has loaded (the runtime itself opens it):
cuStreamSynchronize on the stream, inside the device's primary context (the one the CUDA runtime,
CuPy, PyTorch and Numba share). A CUstream and a cudaStream_t are the same handle.

Streams 1 (the legacy default stream) and 2 (the calling thread's per-thread default stream) need
no wait: libgpuimg works on the calling thread's per-thread default stream, which CUDA orders
after the legacy default stream's work, and after its own.
"""
import ctypes
from typing import Optional

__all__ = ["stream_wait"]

_driver: Optional[ctypes.CDLL] = None


def _load() -> ctypes.CDLL:
    global _driver
    if _driver is None:
        d = ctypes.CDLL("libcuda.so.1")
        for name, args in [("cuInit", [ctypes.c_uint]),
                           ("cuDeviceGet", [ctypes.POINTER(ctypes.c_int), ctypes.c_int]),
                           ("cuDevicePrimaryCtxRetain", [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]),
                           ("cuDevicePrimaryCtxRelease_v2", [ctypes.c_int]),
                           ("cuCtxPushCurrent_v2", [ctypes.c_void_p]),
                           ("cuCtxPopCurrent_v2", [ctypes.POINTER(ctypes.c_void_p)]),
                           ("cuStreamSynchronize", [ctypes.c_void_p]),
                           ("cuGetErrorString", [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)])]:
            f = getattr(d, name)
            f.argtypes, f.restype = args, ctypes.c_int
        _driver = d
    return _driver


def _check(d, rc, what):
    if rc:
        s = ctypes.c_char_p()
        d.cuGetErrorString(rc, ctypes.byref(s))
        raise OSError(f"{what}: {s.value.decode(errors='replace') if s.value else 'CUDA error'} ({rc})")


def stream_wait(stream: Optional[int], device: int) -> None:
    """Return once the work queued on `stream` (a `__cuda_array_interface__`'s "stream") of CUDA
    device `device` is done: None, 1 and 2 at once (see the module's text); 0 is refused, as the
    interface says. OSError where the driver cannot be used or the wait fails."""
    if stream is None or stream in (1, 2):
        return
    if not isinstance(stream, int) or stream < 0:
        raise ValueError(f"gpuimg: a __cuda_array_interface__ stream is None or a positive int, not {stream!r}")
    if stream == 0:
        raise ValueError("gpuimg: a __cuda_array_interface__ stream 0 is ambiguous (the interface disallows it: "
                         "1 is the legacy default stream, 2 the per-thread one)")
    d = _load()
    _check(d, d.cuInit(0), "cuInit")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    _check(d, d.cuDeviceGet(ctypes.byref(dev), device), f"cuDeviceGet({device})")
    _check(d, d.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    try:
        _check(d, d.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent")
        try:
            _check(d, d.cuStreamSynchronize(stream), "cuStreamSynchronize")
        finally:
            d.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    finally:
        d.cuDevicePrimaryCtxRelease_v2(dev)
