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
