/*
 * scrub.c: variables an escalated command never takes from the caller.
 *
 * An escalated command's environment is built from an allowlist
 * (escenv.c); this list is the floor under it.  Any variable that makes a
 * program load or run code chosen by whoever set it, or write where it
 * says, would let the sandboxed side act unsandboxed, so none of these
 * comes from the caller, not even when the embedder passes it by name
 * (shellesc_config.pass_env: starting such a session fails).  The list is
 * a default: embedders replace it with shellesc_config.scrub.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "server.h"

const char *const shellesc_default_scrub[] = {
	"LD_*",			/* the dynamic loader: preload, audit, library path */
	"GCONV_PATH", "GETCONF_DIR", "HOSTALIASES", "LOCALDOMAIN", "RES_OPTIONS",
	"MALLOC_*", "GLIBC_TUNABLES", "NLSPATH", "LOCPATH", "TZDIR",
	"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "BASH_FUNC_*",
	"PROMPT_COMMAND", "ZDOTDIR", "IFS", "CDPATH",
	"PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT",
	"PYTHONUSERBASE", "PYTHONBREAKPOINT",
	"PERL5*", "PERLLIB", "RUBYOPT", "RUBYLIB", "NODE_OPTIONS", "NODE_PATH",
	"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
	"LUA_INIT*", "LUA_PATH*", "LUA_CPATH*", "TCLLIBPATH",
	"GIT_EXEC_PATH", "GIT_CONFIG*", "GIT_SSH", "GIT_SSH_COMMAND",
	"GIT_ASKPASS", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR",
	"GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR", "GIT_SEQUENCE_EDITOR",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_TRACE*", "HISTFILE",
	"SSH_ASKPASS", "SUDO_ASKPASS", "PAGER", "EDITOR", "VISUAL",
	"SHELLESC_*", "EXEC_WRAPPER",
	NULL
};

bool
scrub_match(const char *entry, const char *const *scrub)
{
	size_t name = strcspn(entry, "=");

	for (; *scrub; scrub++) {
		size_t len = strlen(*scrub);

		if (len > 0 && (*scrub)[len - 1] == '*') {
			if (name >= len - 1 && strncmp(entry, *scrub, len - 1) == 0)
				return true;
		} else if (len == name && strncmp(entry, *scrub, len) == 0)
			return true;
	}
	return false;
}
