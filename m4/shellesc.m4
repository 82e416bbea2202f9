# shellesc's local autoconf macros.

# SHELLESC_REQUIRE_PKG(VAR, MODULE, DEBIAN-PACKAGE)
# Like PKG_CHECK_MODULES, but a missing module stops configure with the
# name of the Debian package that provides it.
AC_DEFUN([SHELLESC_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([pkg-config module '$2' not found: install it with 'apt-get install $3'])])
])

# SHELLESC_WARNINGS: -Wall -Wextra always; -Werror with --enable-werror.
AC_DEFUN([SHELLESC_WARNINGS], [
  AC_ARG_ENABLE([werror],
    [AS_HELP_STRING([--enable-werror], [treat compiler warnings as errors (CI turns this on)])],
    [], [enable_werror=no])
  WARN_CFLAGS="-Wall -Wextra -Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wformat=2 -Wno-unused-parameter"
  AS_IF([test "x$enable_werror" = xyes], [WARN_CFLAGS="$WARN_CFLAGS -Werror"])
  AC_SUBST([WARN_CFLAGS])
])

# SHELLESC_SANITIZERS: --enable-sanitizers builds everything with ASan+UBSan.
AC_DEFUN([SHELLESC_SANITIZERS], [
  AC_ARG_ENABLE([sanitizers],
    [AS_HELP_STRING([--enable-sanitizers], [build with AddressSanitizer and UndefinedBehaviorSanitizer])],
    [], [enable_sanitizers=no])
  SAN_CFLAGS=""
  SAN_LDFLAGS=""
  AS_IF([test "x$enable_sanitizers" = xyes], [
    SAN_CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
    SAN_LDFLAGS="-fsanitize=address,undefined"
  ])
  AM_CONDITIONAL([SANITIZERS], [test "x$enable_sanitizers" = xyes])
  AC_SUBST([SAN_CFLAGS])
  AC_SUBST([SAN_LDFLAGS])
])

# SHELLESC_INSTALL_PATHS: where the server finds the wrapper and the preload
# library once installed, so an installed shellesc needs no environment.
AC_DEFUN([SHELLESC_INSTALL_PATHS], [
  AC_ARG_WITH([wrapper-path],
    [AS_HELP_STRING([--with-wrapper-path=PATH], [installed shellesc-execve-wrapper @<:@LIBEXECDIR/shellesc/shellesc-execve-wrapper@:>@])],
    [SHELLESC_WRAPPER_PATH=$withval], [SHELLESC_WRAPPER_PATH='${libexecdir}/shellesc/shellesc-execve-wrapper'])
  AC_ARG_WITH([preload-path],
    [AS_HELP_STRING([--with-preload-path=PATH], [installed libshellesc_preload.so @<:@LIBDIR/shellesc/libshellesc_preload.so@:>@])],
    [SHELLESC_PRELOAD_PATH=$withval], [SHELLESC_PRELOAD_PATH='${libdir}/shellesc/libshellesc_preload.so'])
  AC_SUBST([SHELLESC_WRAPPER_PATH])
  AC_SUBST([SHELLESC_PRELOAD_PATH])
])

# SHELLESC_STATIC_WRAPPER: link shellesc-execve-wrapper statically.  A
# patched shell pays one extra exec of the wrapper per command, and a
# static program starts without the dynamic loader (no libc to map and
# relocate).  Off with --enable-sanitizers (ASan cannot link statically);
# --disable-static-wrapper links it dynamically anyway.
AC_DEFUN([SHELLESC_STATIC_WRAPPER], [
  AC_REQUIRE([SHELLESC_SANITIZERS])
  AC_ARG_ENABLE([static-wrapper],
    [AS_HELP_STRING([--disable-static-wrapper], [link shellesc-execve-wrapper dynamically (default: static, except with --enable-sanitizers)])],
    [], [enable_static_wrapper=auto])
  AS_IF([test "x$enable_static_wrapper" = xyes && test "x$enable_sanitizers" = xyes],
    [AC_MSG_ERROR([--enable-static-wrapper and --enable-sanitizers do not mix: ASan cannot link statically])])
  AS_IF([test "x$enable_static_wrapper" = xauto && test "x$enable_sanitizers" = xyes],
    [enable_static_wrapper=no])
  WRAPPER_LDFLAGS=""
  AS_IF([test "x$enable_static_wrapper" != xno], [
    dnl static-pie keeps ASLR for the wrapper; plain -static where it is not supported.
    for shellesc_flag in -static-pie -static; do
      AC_MSG_CHECKING([whether programs link with $shellesc_flag])
      shellesc_save_LDFLAGS=$LDFLAGS
      LDFLAGS="$LDFLAGS $shellesc_flag"
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <unistd.h>]], [[return (int)getpid();]])],
        [shellesc_static=yes], [shellesc_static=no])
      LDFLAGS=$shellesc_save_LDFLAGS
      AC_MSG_RESULT([$shellesc_static])
      AS_IF([test "x$shellesc_static" = xyes], [WRAPPER_LDFLAGS="-Xcompiler $shellesc_flag"; break])
    done
    AS_IF([test -n "$WRAPPER_LDFLAGS"], [enable_static_wrapper="yes ($shellesc_flag)"],
      [test "x$enable_static_wrapper" = xyes],
        [AC_MSG_ERROR([--enable-static-wrapper: cannot link a static program (is libc6-dev installed?)])],
      [AC_MSG_WARN([cannot link a static program: the wrapper is linked dynamically]); enable_static_wrapper=no])
  ])
  AC_SUBST([WRAPPER_LDFLAGS])
])
