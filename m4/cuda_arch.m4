# GPUIMG_CUDA_ARCH: the GPU architectures the kernels are compiled for, from $with_cuda_arch
# (--with-cuda-arch), $NVCC and $CUDA_HOME_DIR. Sets CUDA_GENCODE (nvcc's -gencode flags),
# cuda_arch_list (the targets: sm_NN machine code, compute_NN PTX) and cuda_arch_why.
#   auto     the GPUs present, else ptx (the default)
#   native   the GPUs present; an error where there is none
#   ptx      PTX of the lowest architecture alone: the driver compiles it for the GPU it runs on,
#            once, into its cache (~/.nv/ComputeCache)
#   all      machine code for every architecture this nvcc knows from the lowest up
#   80,90    machine code for each (commas or spaces)
# Every choice but ptx adds PTX of its highest architecture, which later GPUs compile (nvcc
# makes it on the way to that machine code: no second compile). The GPUs present are asked of
# nvidia-smi, else of the toolkit's __nvcc_device_query; setting gpuimg_cv_cuda_gpus (e.g.
# ./configure gpuimg_cv_cuda_gpus="80 90", or none) answers for them.
AC_DEFUN([GPUIMG_CUDA_ARCH], [
dnl the lowest the kernels build for: they use cp.async (sm_80)
cuda_arch_min=80
cuda_known=`"$NVCC" --list-gpu-code 2>/dev/null | sed -n 's/^sm_\([[0-9]][[0-9]]*\)$/\1/p' | sort -un | tr '\n' ' ' | sed 's/ *$//'`
AS_IF([test -z "$cuda_known"], [AC_MSG_ERROR([$NVCC --list-gpu-code lists no architecture])])
cuda_sass=
cuda_ptx=
cuda_arch_why=
cuda_req=`echo "$with_cuda_arch" | tr ',' ' '`
AS_CASE([$cuda_req],
  [auto|native], [
    AC_CACHE_CHECK([for the GPUs present (compute capabilities)], [gpuimg_cv_cuda_gpus], [
      cuda_found=
      AS_IF([command -v nvidia-smi >/dev/null 2>&1], [
        cuda_found=`nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' | grep -x '[[0-9]][[0-9]]*'`])
      AS_IF([test -z "$cuda_found" && test -x "$CUDA_HOME_DIR/bin/__nvcc_device_query"], [
        cuda_found=`"$CUDA_HOME_DIR/bin/__nvcc_device_query" 2>/dev/null | tr ', ' '\n\n' | grep -x '[[0-9]][[0-9]]*'`])
      gpuimg_cv_cuda_gpus=`echo "$cuda_found" | sort -un | tr '\n' ' ' | sed 's/ *$//'`
      AS_IF([test -z "$gpuimg_cv_cuda_gpus"], [gpuimg_cv_cuda_gpus=none])])
    cuda_left=
    for a in $gpuimg_cv_cuda_gpus; do
      AS_CASE([$a], [none], [continue], [*[[!0-9]]*], [AC_MSG_ERROR([gpuimg_cv_cuda_gpus: '$a' is not a compute capability like 90])])
      AS_IF([test "$a" -lt $cuda_arch_min],
              [AC_MSG_WARN([the GPU of compute capability $a is older than the kernels need ($cuda_arch_min): not compiled for])],
            [AS_CASE([" $cuda_known "], [*" $a "*], [cuda_sass="$cuda_sass $a"],
              [cuda_left="$cuda_left $a"])])
    done
    dnl a GPU newer than this nvcc runs the PTX of the highest it knows
    AS_IF([test -n "$cuda_left"], [
      for a in $cuda_known; do cuda_top=$a; done
      AS_CASE([" $cuda_sass "], [*" $cuda_top "*], [], [cuda_sass="$cuda_sass $cuda_top"])
      AC_MSG_WARN([a GPU of compute capability$cuda_left is newer than $NVCC knows: compiled for $cuda_top, whose PTX the driver compiles for it])])
    AS_IF([test -n "$cuda_sass"],
      [cuda_arch_why="the GPUs present; --with-cuda-arch=LIST for others"],
      [AS_IF([test "x$cuda_req" = xnative],
         [AC_MSG_ERROR([--with-cuda-arch=native: no GPU found (nvidia-smi or the driver)])])
       cuda_ptx=$cuda_arch_min
       AS_IF([test "x$gpuimg_cv_cuda_gpus" = xnone], [cuda_arch_why="no GPU here"], [cuda_arch_why="no GPU here that the kernels support"])
       cuda_arch_why="$cuda_arch_why: PTX, which the driver compiles for the GPU it runs on at its first use and caches; --with-cuda-arch=LIST for machine code"])],
  [ptx], [
    cuda_ptx=$cuda_arch_min
    cuda_arch_why="--with-cuda-arch=ptx: the driver compiles it for the GPU it runs on at its first use and caches"],
  [all], [
    for a in $cuda_known; do
      AS_IF([test "$a" -ge $cuda_arch_min], [cuda_sass="$cuda_sass $a"])
    done
    cuda_arch_why="--with-cuda-arch=all: every architecture $NVCC knows from $cuda_arch_min"],
  [''|yes|no], [AC_MSG_ERROR([--with-cuda-arch needs a value: auto, native, ptx, all or compute capabilities like 80,90])],
  [
    for a in $cuda_req; do
      AS_CASE([$a], [*[[!0-9]]*], [AC_MSG_ERROR([--with-cuda-arch: '$a' is not auto, native, ptx, all or a compute capability like 90])])
      AS_IF([test "$a" -lt $cuda_arch_min], [AC_MSG_ERROR([--with-cuda-arch: the kernels need compute capability $cuda_arch_min or later (got $a)])])
      AS_CASE([" $cuda_known "], [*" $a "*], [], [AC_MSG_ERROR([--with-cuda-arch: $NVCC does not know sm_$a (it knows: $cuda_known)])])
      cuda_sass="$cuda_sass $a"
    done
    cuda_arch_why="--with-cuda-arch=$with_cuda_arch"])
cuda_sass=`echo $cuda_sass | tr ' ' '\n' | sort -un | tr '\n' ' '`
CUDA_GENCODE=
cuda_arch_list=
for a in $cuda_sass; do
  CUDA_GENCODE="$CUDA_GENCODE -gencode arch=compute_$a,code=sm_$a"
  cuda_arch_list="$cuda_arch_list sm_$a"
  cuda_ptx=$a
done
CUDA_GENCODE="$CUDA_GENCODE -gencode arch=compute_$cuda_ptx,code=compute_$cuda_ptx"
cuda_arch_list=`echo $cuda_arch_list compute_$cuda_ptx`
AC_MSG_NOTICE([CUDA targets: $cuda_arch_list ($cuda_arch_why)])
])
