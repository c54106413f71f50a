/* gpuimg: turning CUDA errors into gpuimg errors. CUDA_TRY evaluates a runtime call and, on
 * failure, writes "what: CUDA message (code)" into the caller's err buffer and returns the code.
 * LAUNCH_TRY checks a kernel launch (configuration errors) the same way. Never aborts. */
#ifndef GPUIMG_CHECK_H
#define GPUIMG_CHECK_H
#include <cstdio>
#include <cuda_runtime.h>

#define CUDA_TRY(call, err, errlen)                                                                  \
    do {                                                                                             \
        cudaError_t e_ = (call);                                                                     \
        if (e_ != cudaSuccess) {                                                                     \
            std::snprintf((err), (errlen), "%s: %s (%d)", #call, cudaGetErrorString(e_), (int)e_);   \
            return (int)e_;                                                                          \
        }                                                                                            \
    } while (0)

/* After a <<<...>>> launch: catches bad configurations and earlier asynchronous errors. */
#define LAUNCH_TRY(err, errlen) CUDA_TRY(cudaGetLastError(), err, errlen)

#endif
