// mcp-loop.mjs: the bash loop of make bench through an MCP server's
// `shell` tool, driven over stdio by the official MCP SDK client, as an
// agent's harness would.  Run by shellesc-bench (bench/mcp.c) from a
// directory whose node_modules holds the SDK (BUILDDIR/tests/mcp):
//
//   node mcp-loop.mjs N ROUNDS DIR -- SERVER [ARGS...]
//
// DIR is HOME, CODEX_HOME's parent (rules in DIR/codex/rules) and the
// calls' workdir.  Each round makes two calls, interleaved: an empty
// command and a loop of N `/bin/true`, so the difference is N execs and
// nothing else (the server's own work for a call, the shell's start).
// Prints one line: the median seconds of the loop calls and of the empty
// calls.
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';

const [n, rounds, dir, sep, command, ...args] = process.argv.slice(2);
if (sep !== '--' || !command || !(Number(n) > 0) || !(Number(rounds) > 0)) {
	process.stderr.write('usage: node mcp-loop.mjs N ROUNDS DIR -- SERVER [ARGS...]\n');
	process.exit(2);
}

const env = {
	PATH: '/usr/bin:/bin', LC_ALL: 'C',
	HOME: path.join(dir, 'home'), CODEX_HOME: path.join(dir, 'codex'),
};
for (const k of ['SHELLESC_WRAPPER', 'SHELLESC_PRELOAD'])
	if (process.env[k])
		env[k] = process.env[k];
let stderr = '';
const transport = new StdioClientTransport({ command, args, cwd: dir, env, stderr: 'pipe' });
transport.stderr.on('data', (d) => { stderr += d; });
const client = new Client({ name: 'shellesc-bench', version: '1.0.0' }, { capabilities: {} });

// One call; its wall time in seconds.  A failed call ends the run.
async function timed(cmd) {
	const t0 = process.hrtime.bigint();
	const r = await client.callTool({ name: 'shell',
		arguments: { command: cmd, workdir: dir, login: false, timeout_ms: 600000 } },
		undefined, { timeout: 600000 });
	const s = Number(process.hrtime.bigint() - t0) / 1e9;
	const out = JSON.parse(r.content[0].text);
	if (r.isError || out.exit_code !== 0)
		throw new Error(`${cmd.slice(0, 40)}: ${r.content[0].text.slice(0, 300)}`);
	return s;
}

try {
	await client.connect(transport);
	// The reference runs nothing before it is told its sandbox; both get none.
	await client.request({ method: 'codex/sandbox-state/update', params: {
		sandboxPolicy: { type: 'danger-full-access' }, sandboxCwd: dir } }, EmptyResultSchema);
	const loop = `i=0; while [ $i -lt ${Number(n)} ]; do /bin/true; i=$((i+1)); done`;
	const empty = [], loops = [];
	await timed(':');		// warm: the first call pays for the server's start
	for (let i = 0; i < Number(rounds); i++) {
		empty.push(await timed(':'));
		loops.push(await timed(loop));
	}
	const median = (v) => v.sort((a, b) => a - b)[Math.floor(v.length / 2)];
	process.stdout.write(`${median(loops)} ${median(empty)}\n`);
	await client.close();
} catch (e) {
	process.stderr.write(`mcp-loop: ${e.message}\n${stderr.slice(-2000)}`);
	process.exit(1);
}
