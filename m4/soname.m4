# GPUIMG_SONAME(VARIABLE, LIBNAME, LIBS)
# ---------------------------------------
# The file gpuimg loads at run time for -lLIBNAME as LIBS link it (src/core/dynlib.h): its
# SONAME read from a linked test program (libjxl.so.0.7), made a full path where LIBS name a -L
# directory holding it. VARIABLE is set to it, empty where it cannot be found.
AC_DEFUN([GPUIMG_SONAME], [
  AC_REQUIRE([AC_PROG_CC])
  AC_CHECK_TOOL([READELF], [readelf], [no])
  AC_MSG_CHECKING([the file to load for lib$2])
  $1=
  gpuimg_soname_LIBS=$LIBS
  LIBS="-Wl,--no-as-needed $3 $LIBS"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([], [])],
    [AS_IF([test "x$READELF" != xno],
      [$1=`$READELF -d conftest$EXEEXT 2>/dev/null | sed -n 's/.*(NEEDED).*\@<:@\(lib$2\.so@<:@^@:>@@:>@*\)@:>@.*/\1/p' | sed 1q`])])
  LIBS=$gpuimg_soname_LIBS
  AS_IF([test -n "$$1"], [
    for gpuimg_w in $3; do
      AS_CASE([$gpuimg_w], [-L*], [AS_IF([test -f "${gpuimg_w#-L}/$$1"], [$1="${gpuimg_w#-L}/$$1"; break])])
    done])
  AC_MSG_RESULT([${$1:-not found}])
])
