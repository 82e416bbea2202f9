// helpers.mjs: shellesc mcp (and the reference server) as real processes,
// driven by the official MCP TypeScript SDK client, or raw over stdio for
// what the SDK would never send.  Each test gets a directory of its own,
// the server's cwd, and one for HOME and CODEX_HOME (testDir), so no user
// or system rules leak in.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
	ElicitRequestSchema,
	ListRootsRequestSchema,
	LoggingMessageNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const build = process.env.SHELLESC_TOP_BUILDDIR;
if (!build)
	throw new Error('SHELLESC_TOP_BUILDDIR is not set: run these through tests/mcp/run');

export const SHELLESC = path.join(build, 'server/cli/shellesc');
export const WRAPPER = path.join(build, 'wrapper/shellesc-execve-wrapper');
export const PRELOAD = path.join(build, 'preload/.libs/libshellesc_preload.so');
// A sanitizer build's preload cannot load into stock bash (docs/preload.md):
// there the server catches execs through EXEC_WRAPPER only, and commands go
// through it explicitly with G, as a patched shell does.
export const SANITIZED = process.env.SHELLESC_TEST_SANITIZED === '1';
export const MODE = SANITIZED ? ['-m', 'wrapper'] : [];
export const G = 'G() { "$EXEC_WRAPPER" "$(type -P "$1")" "$@"; }; ';

// A sanitizer build's server reports leaks and UB on its stderr at exit.
export function noSanitizerReport(stderr) {
	if (/LeakSanitizer|AddressSanitizer|runtime error:/.test(stderr))
		throw new Error(`the server's sanitizers reported:\n${stderr}`);
}

// A fresh directory, the server's cwd, and beside it, outside every
// directory a test makes writable (a writable root that holds rules is left
// out: cli-rules-guard.c), its configuration: home/ and codex/rules/t.rules
// holding rules, in the build tree (cfgDir(dir) names it).
const cfgBase = path.join(build, 'tests/mcp/cfg');
const cfgOf = new Map();

export function cfgDir(dir) {
	return cfgOf.get(dir) ?? dir;
}

export function testDir(t, rules = '') {
	const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'shellesc-mcp-')));
	fs.mkdirSync(cfgBase, { recursive: true });
	const cfg = fs.realpathSync(fs.mkdtempSync(path.join(cfgBase, 'c-')));
	fs.chmodSync(cfg, 0o755);
	cfgOf.set(dir, cfg);
	fs.mkdirSync(path.join(cfg, 'home'));
	fs.mkdirSync(path.join(cfg, 'codex/rules'), { recursive: true });
	fs.writeFileSync(path.join(cfg, 'codex/rules/t.rules'), rules);
	t.after(() => {
		fs.rmSync(dir, { recursive: true, force: true });
		fs.rmSync(cfg, { recursive: true, force: true });
		cfgOf.delete(dir);
	});
	return dir;
}

export function serverEnv(dir, extra = {}) {
	const cfg = cfgDir(dir);
	return {
		PATH: '/usr/bin:/bin',
		HOME: path.join(cfg, 'home'),
		CODEX_HOME: path.join(cfg, 'codex'),
		XDG_CONFIG_HOME: path.join(cfg, 'home/.config'),
		SHELLESC_WRAPPER: WRAPPER,
		SHELLESC_PRELOAD: PRELOAD,
		LSAN_OPTIONS: process.env.LSAN_OPTIONS ?? '',
		...extra,
	};
}

// Start an SDK client on command; elicit (if given) answers elicitation/create,
// roots (if given: directories) answers roots/list.
export async function connect(t, dir, command, args, { elicit, env = {}, roots } = {}) {
	const transport = new StdioClientTransport({
		command, args, cwd: dir, env: serverEnv(dir, env), stderr: 'pipe',
	});
	const client = new Client({ name: 'shellesc-tests', version: '1.0.0' },
		{ capabilities: { ...(elicit ? { elicitation: {} } : {}), ...(roots ? { roots: {} } : {}) } });
	const logs = [], asked = [];
	let stderr = '';
	transport.stderr.on('data', (d) => { stderr += d; });
	if (elicit)
		client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
			asked.push(req.params);
			return elicit(req.params, extra);
		});
	if (roots)
		client.setRequestHandler(ListRootsRequestSchema, async () => ({
			roots: roots.map((d) => ({ uri: `file://${encodeURI(d)}` })) }));
	client.setNotificationHandler(LoggingMessageNotificationSchema,
		(n) => logs.push(n.params));
	await client.connect(transport);
	t.after(async () => {
		await client.close();
		if (process.env.SHELLESC_TEST_VERBOSE)
			t.diagnostic(`server stderr:\n${stderr}`);
		noSanitizerReport(stderr);
	});
	return { client, transport, logs, asked, stderr: () => stderr, pid: transport.pid };
}

// shellesc mcp with rules in CODEX_HOME and extra options.
export async function start(t, { rules = '', args = [], elicit, env, roots } = {}) {
	const dir = testDir(t, rules);
	const s = await connect(t, dir, SHELLESC, ['mcp', ...MODE, ...args], { elicit, env,
		roots: typeof roots === 'function' ? roots(dir) : roots });
	return { ...s, dir };
}

// tools/call of shell; login defaults to false here (a login shell reads
// the machine's profile, which may start anything).
export function shell(client, args, opts) {
	return client.callTool({ name: 'shell', arguments: { login: false, ...args } },
		undefined, opts);
}

// The reference's result text, parsed.
export function parse(result) {
	return JSON.parse(result.content[0].text);
}

// /proc/PID/cmdline of every process whose argv is exactly argv.
export function pidsOf(argv) {
	const want = argv.join('\0') + '\0', found = [];
	for (const p of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(p))
			continue;
		try {
			if (fs.readFileSync(`/proc/${p}/cmdline`, 'latin1') === want &&
			    !/\) Z /.test(fs.readFileSync(`/proc/${p}/stat`, 'latin1')))
				found.push(Number(p));
		} catch { /* gone meanwhile */ }
	}
	return found;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Wait up to ms for fn() to be true; returns its last value.  Generous:
// a loaded machine may take seconds to start a shell.
export async function until(fn, ms = 15000) {
	const end = Date.now() + ms;
	let v;
	while (!(v = fn()) && Date.now() < end)
		await sleep(20);
	return v;
}

// A raw JSON-RPC peer: lines in, lines out, nothing checked on our side.
export class Raw {
	// shellesc mcp with args, or { command, args } for another server
	constructor(t, dir, args = [], env = {}) {
		const [cmd, argv] = Array.isArray(args) ? [SHELLESC, ['mcp', ...MODE, ...args]] :
			[args.command, args.args];
		this.proc = spawn(cmd, argv, {
			cwd: dir, env: serverEnv(dir, env), stdio: ['pipe', 'pipe', 'pipe'],
		});
		this.queue = [];
		this.waiters = [];
		this.stderr = '';
		this.proc.stderr.on('data', (d) => { this.stderr += d; });
		this.exited = new Promise((r) => this.proc.on('close', (code, sig) => {
			noSanitizerReport(this.stderr);
			r({ code, sig });
		}));
		readline.createInterface({ input: this.proc.stdout }).on('line', (l) => {
			const msg = JSON.parse(l);	// every line the server sends is JSON
			const w = this.waiters.shift();
			if (w)
				w(msg);
			else
				this.queue.push(msg);
		});
		t.after(() => this.proc.kill('SIGKILL'));
	}

	send(line) {
		this.proc.stdin.write(typeof line === 'string' ? line + '\n' : JSON.stringify(line) + '\n');
	}

	// The next message, skipping notifications unless asked for them.
	async next({ notifications = false, ms = 20000 } = {}) {
		for (;;) {
			const msg = this.queue.length ? this.queue.shift() :
				await Promise.race([new Promise((r) => this.waiters.push(r)),
					sleep(ms).then(() => { throw new Error(`no message in ${ms} ms`); })]);
			if (notifications || msg.method === undefined || msg.id !== undefined)
				return msg;
		}
	}

	async request(id, method, params) {
		this.send({ jsonrpc: '2.0', id, method, params });
		return this.next();
	}

	async initialize(version = '2025-06-18', capabilities = {}) {
		const r = await this.request(0, 'initialize', { protocolVersion: version, capabilities,
			clientInfo: { name: 'raw', version: '1' } });
		this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
		return r;
	}
}

// An administrator's program by its full path: the servers' PATH has no sbin.
export function sbin(name) {
	const dirs = ['/usr/sbin', '/sbin', '/usr/bin', '/bin'];
	const dir = dirs.find((d) => fs.existsSync(path.join(d, name)));
	if (dir === undefined)
		throw new Error(`${name} is not installed`);
	return path.join(dir, name);
}

// A throwaway unprivileged user for the tests of limits and of the
// sandbox (root passes both): created for the test, removed after it.
// Not root: null (the caller skips).
export function tempUser(t) {
	if (process.getuid() !== 0)
		return null;
	const name = `shellesc-t${process.pid}x${Math.floor(Math.random() * 1e6)}`;
	const run = (cmd, args) => {
		const r = spawnSync(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
		if (r.status !== 0)
			throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
	};
	run(sbin('useradd'), ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
	// -f: its server may not have exited yet when this runs.  Its processes
	// go first: one left (a sleep whose runuser was killed) would count
	// against the process limit of the next user given the same uid.
	t.after(() => {
		spawnSync('pkill', ['-KILL', '-u', name], { stdio: 'ignore' });
		run(sbin('userdel'), ['-f', name]);
	});
	const id = spawnSync('id', ['-u', name], { encoding: 'utf8' });
	return { name, uid: Number(id.stdout) };
}

// shellesc mcp as user (from tempUser), in a test directory it owns;
// prefix: a command that execs the rest (e.g. prlimit).
export async function startAs(t, user, { rules = '', args = [], elicit, env, prefix = [] } = {}) {
	const dir = testDir(t, rules);
	spawnSync('chown', ['-R', `${user.uid}`, dir, cfgDir(dir)]);
	const s = await connect(t, dir, sbin('runuser'), ['-m', '-u', user.name, '--', ...prefix,
		SHELLESC, 'mcp', ...MODE, ...args], { elicit, env });
	return { ...s, dir };
}
