// shellesc.test.mjs: shellesc mcp through the official MCP TypeScript SDK
// client (and raw JSON-RPC for what the SDK never sends): real servers,
// real shells, real escalated processes, a real Landlock sandbox.
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';


import { cfgDir, G, MODE, pidsOf, parse, Raw, SANITIZED, sbin, serverEnv, SHELLESC, shell, sleep, start,
	startAs, tempUser, testDir, until } from './helpers.mjs';

const T = { timeout: 120000 };
// stdout and stderr are one pipe (the output keeps the order of writes);
// commands written before that still send both to one.
const G2 = 'exec 2>&1; ' + G;
const REF_TOOL_TEXT = 'Runs a shell command and returns its output. You MUST provide the workdir as an absolute path.';

// A sandbox-state update through the SDK.
function sandboxState(client, policy, cwd) {
	return client.request({ method: 'codex/sandbox-state/update',
		params: { sandboxPolicy: policy, sandboxCwd: cwd, codexLinuxSandboxExe: null } },
	EmptyResultSchema);
}

test('initialize: server info, capabilities, and each protocol version negotiated', T, async (t) => {
	const { client } = await start(t);
	assert.equal(client.getServerVersion().name, 'shellesc');
	const caps = client.getServerCapabilities();
	assert.ok(caps.tools);
	assert.deepEqual(caps.experimental, { 'codex/sandbox-state': { version: '1.0.0' } });
	assert.match(client.getInstructions(), /execute shell commands/);

	const raw = new Raw(t, testDir(t));
	for (const [asked, got] of [['2024-11-05', '2024-11-05'], ['2025-03-26', '2025-03-26'],
		['2025-06-18', '2025-06-18'], ['2025-11-25', '2025-06-18'], ['1999-01-01', '2025-06-18']]) {
		const r = await raw.initialize(asked);
		assert.equal(r.result.protocolVersion, got, `asked ${asked}`);
	}
	// before 2025-06-18 there is no outputSchema nor structuredContent
	await raw.initialize('2025-03-26');
	const list = await raw.request(1, 'tools/list', {});
	assert.equal(list.result.tools[0].outputSchema, undefined);
	const r = await raw.request(2, 'tools/call', { name: 'shell',
		arguments: { command: 'echo old', workdir: '/', login: false } });
	assert.equal(r.result.structuredContent, undefined);
	assert.equal(parse(r.result).output, 'old\n');
});

test('tools/list: the reference\'s shell tool, with an output schema', T, async (t) => {
	const { client } = await start(t);
	const { tools } = await client.listTools();
	assert.equal(tools.length, 1);
	assert.equal(tools[0].name, 'shell');
	assert.ok(tools[0].description.startsWith(REF_TOOL_TEXT));
	assert.deepEqual(tools[0].inputSchema.required, ['command', 'workdir']);
	assert.deepEqual(Object.keys(tools[0].inputSchema.properties),
		['command', 'workdir', 'timeout_ms', 'login', 'sandbox_permissions', 'justification',
			'prefix_rule']);
	assert.equal(tools[0].outputSchema.type, 'object');
	assert.ok(tools[0].outputSchema.required.includes('decisions'));
});

test('run: exit code, interleaved output, duration; text and structuredContent agree', T, async (t) => {
	const { client, dir } = await start(t);
	const r = await shell(client, { command: 'echo out; echo err >&2; sleep 0.2; pwd; exit 3',
		workdir: dir });
	assert.equal(r.isError, false);
	const text = parse(r);
	assert.deepEqual(Object.keys(text), ['exit_code', 'output', 'duration', 'timed_out']);
	assert.equal(text.exit_code, 3);
	// one pipe for stdout and stderr: the order they were written in
	assert.equal(text.output, `out\nerr\n${dir}\n`);
	assert.equal(text.timed_out, false);
	assert.ok(Number.isInteger(text.duration.secs) && Number.isInteger(text.duration.nanos));
	for (const k of Object.keys(text))
		assert.deepEqual(r.structuredContent[k], text[k], k);
	assert.equal(r.structuredContent.signal, null);
	assert.equal(r.structuredContent.output_bytes, text.output.length);
	// the default sandbox: Landlock on the start directory and a private TMPDIR
	assert.deepEqual(r.structuredContent.sandbox.type, 'landlock');
	assert.deepEqual(r.structuredContent.sandbox.layers.map((l) => l.source), ['default']);
	assert.deepEqual(r.structuredContent.decisions, []);
	// and the session's seccomp filter (nothing in it may type on a
	// terminal: docs/security.md)
	const f = await shell(client, { command: 'grep ^Seccomp: /proc/self/status', workdir: dir });
	assert.equal(parse(f).output, 'Seccomp:\t2\n');
});

test('start-up checks: --shell, rules, wrapper, preload; exit 125 with the reason', T, async (t) => {
	const dir = testDir(t);
	const mcp = (args, env = {}) => spawnSync(SHELLESC, ['mcp', ...MODE, ...args],
		{ cwd: dir, env: serverEnv(dir, env), input: '', encoding: 'utf8' });
	const cases = [
		[['--shell', 'bash'], {}, null],	// a bare name: found in PATH
		[['--shell', 'no-such-shell'], {}, /--shell no-such-shell: not found in PATH/],
		[['--shell', '/nonexistent/bash'], {}, /--shell \/nonexistent\/bash: No such file/],
		[['--shell', '/tmp'], {}, /--shell \/tmp: not an executable file/],
		[['-p', '/nonexistent.rules'], {}, /\/nonexistent.rules: No such file or directory \(-p takes a rules file/],
		[[], { SHELLESC_WRAPPER: '/nonexistent/wrapper' }, /exec wrapper \/nonexistent\/wrapper/],
	];
	if (!SANITIZED)
		cases.push([[], { SHELLESC_PRELOAD: '/nonexistent/p.so' }, /preload library \/nonexistent\/p.so/]);
	for (const [args, env, why] of cases) {
		const r = mcp(args, env);
		assert.equal(r.status, why ? 125 : 0, `${args} ${JSON.stringify(env)}: ${r.stderr}`);
		if (why)
			assert.match(r.stderr, why);
	}
	// started in /, the default sandbox would keep nothing: said at start
	const root = spawnSync(SHELLESC, ['mcp', ...MODE], { cwd: '/', env: serverEnv(dir), input: '',
		encoding: 'utf8' });
	assert.equal(root.status, 0, root.stderr);
	assert.match(root.stderr, /writable root \/ left out: it holds the rules file or directory /);
	assert.doesNotMatch(mcp([]).stderr, /warning/);
	// the shell PATH found is the one every call runs
	const { client, dir: d2 } = await start(t, { args: ['--shell', 'dash'] });
	const r = await shell(client, { workdir: d2, command: 'echo ${BASH_VERSION:-dash}' });
	assert.equal(parse(r).output, 'dash\n');
});

test('output: stdout and stderr in the order written, however close together', T, async (t) => {
	const { client, dir } = await start(t);
	const command = 'for i in $(seq 300); do echo o$i; echo e$i >&2; done';
	const want = Array.from({ length: 300 }, (_, i) => `o${i + 1}\ne${i + 1}\n`).join('');
	for (let k = 0; k < 3; k++)
		assert.equal(parse(await shell(client, { workdir: dir, command })).output, want);
});

test('run: login shell by default, --shell for another shell', T, async (t) => {
	const { client, dir } = await start(t);
	const r = await client.callTool({ name: 'shell', arguments: {
		command: 'shopt -q login_shell && echo login', workdir: dir } });
	assert.equal(parse(r).output, 'login\n');
	const other = await start(t, { args: ['--shell', '/bin/dash'] });
	const d = await shell(other.client, { command: 'echo ${BASH_VERSION:-dash}', workdir: other.dir });
	assert.equal(parse(d).output, 'dash\n');
});

test('the system bash through the preload: a plain command is caught', T, async (t) => {
	if (SANITIZED)
		return t.skip('a sanitizer build\'s preload cannot load into stock bash (docs/preload.md)');
	const { client, dir } = await start(t, { rules: 'prefix_rule(pattern=["id"], decision="allow")\n' });
	const r = await shell(client, { command: 'id -u', workdir: dir });
	assert.equal(parse(r).output, `${process.getuid()}\n`);
	assert.equal(r.structuredContent.decisions.length, 1);
	assert.equal(r.structuredContent.decisions[0].decision, 'escalate');
	assert.equal(r.structuredContent.decisions[0].intercept, 'preload');
});

test('allow escalates, forbidden denies, unmatched runs in place; logged', T, async (t) => {
	const rules = 'prefix_rule(pattern=["sh", "-c", "echo $PPID; cat /proc/$PPID/stat"], decision="allow")\n' +
		'prefix_rule(pattern=["rm"], decision="forbidden")\n';
	const { client, dir, logs, pid } = await start(t, { rules });
	fs.writeFileSync(path.join(dir, 'keep'), '');
	const r = await shell(client, { workdir: dir, command: G2 +
		'G sh -c \'echo $PPID; cat /proc/$PPID/stat\'; G rm keep; echo rm=$?; G true; echo true=$?' });
	const out = parse(r).output;
	// escalated: run by the server itself, outside the shell's tree; where
	// no cgroup can be made (an ordinary user) under the server's keeper,
	// a child of the server (docs/security.md)
	const [ppid, stat] = out.split('\n');
	const grandparent = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1];
	assert.ok(ppid === `${pid}` || grandparent === `${pid}`, `server ${pid}: ${out}`);
	assert.match(out, /shellesc: execution denied: Execution forbidden by policy\n/);
	assert.match(out, /rm=126\ntrue=0\n/);
	assert.ok(fs.existsSync(path.join(dir, 'keep')));
	const d = r.structuredContent.decisions;
	assert.deepEqual(d.map((x) => [x.program, x.decision]),
		[['/usr/bin/sh', 'escalate'], ['/usr/bin/rm', 'deny']]);
	assert.equal(d[0].rule, path.join(cfgDir(dir), 'codex/rules/t.rules:1'));
	assert.equal(d[1].reason, 'Execution forbidden by policy');
	assert.deepEqual(d[1].argv, ['rm', 'keep']);
	await until(() => logs.length >= 2);
	assert.deepEqual(logs.map((l) => [l.level, l.data.decision.decision]),
		[['notice', 'escalate'], ['warning', 'deny']]);
});

// issue 26: a result carried each decision as the audit log shows it
// (~600 B) and up to 64 of them; now a compact form, at most 16.
test('results stay small: 20 execs a rule matched, decisions compact and capped', T, async (t) => {
	const { client, dir } = await start(t, { rules: 'prefix_rule(pattern=["true"], decision="run")\n' });
	const r = await shell(client, { workdir: dir,
		command: G + 'for i in $(seq 20); do G true a b c d e f g h i j k l m n o p; done; echo done' });
	const size = JSON.stringify(r).length;
	t.diagnostic(`result of a call with 20 decisions: ${size} bytes`);
	assert.equal(parse(r).output, 'done\n');
	const s = r.structuredContent;
	assert.equal(s.decisions.length, 16);
	assert.equal(s.decisions_dropped, 4);
	for (const d of s.decisions) {
		assert.deepEqual(Object.keys(d), ['id', 'decision', 'program', 'argv', 'argc', 'rule',
			'intercept']);
		assert.equal(d.rule, path.join(cfgDir(dir), 'codex/rules/t.rules:1'));
		assert.equal(d.argc, 17);
		assert.deepEqual(d.argv, ['true', 'a', 'b', 'c', 'd', 'e', 'f', 'g']);
	}
	// each of the 16 decisions names the rules file by its path, which is
	// longer in a deeper build tree (make distcheck's): 3 KiB besides them
	const paths = 16 * path.join(cfgDir(dir), 'codex/rules/t.rules:1').length;
	assert.ok(size < 3072 + paths, `${size} bytes, ${paths} of them the rule's path`);
});

test('audit log: ids unique across calls; each line names its call, command and client', T, async (t) => {
	const dir = testDir(t);
	const log = path.join(dir, 'audit.log');
	const rules = 'prefix_rule(pattern=["id"], decision="allow")\n';
	const { client } = await start(t, { rules, args: ['-a', log] });
	const cmds = [G + 'G id -u; G true', G + 'G id -g; G true'];
	for (const command of cmds)
		assert.equal((await shell(client, { workdir: dir, command })).isError, false);
	const lines = fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
	const decisions = lines.filter((l) => l.event === 'decision');
	assert.equal(decisions.length, 4, JSON.stringify(lines));
	assert.equal(new Set(decisions.map((l) => l.id)).size, 4, 'decision ids repeat');
	for (const l of lines) {
		assert.deepEqual(l.client, { name: 'shellesc-tests', version: '1.0.0' });
		assert.ok(cmds.includes(l.command), l.command);
		assert.ok(Number.isInteger(l.call) || typeof l.call === 'string');
	}
	// one call per command, and another for the other
	const callOf = (c) => new Set(lines.filter((l) => l.command === c).map((l) => l.call));
	assert.equal(callOf(cmds[0]).size, 1);
	assert.equal(callOf(cmds[1]).size, 1);
	assert.notEqual([...callOf(cmds[0])][0], [...callOf(cmds[1])][0]);
	// each escalated command's end carries its decision's id and call
	const ends = lines.filter((l) => l.event === 'end');
	assert.equal(ends.length, 2);
	for (const e of ends) {
		const d = decisions.find((l) => l.id === e.id);
		assert.equal(d.decision, 'escalate');
		assert.equal(d.call, e.call);
	}
});

test('rules: -p files beside Codex\'s, --default deny', T, async (t) => {
	const dir = testDir(t);
	const p = path.join(dir, 'extra.rules');
	fs.writeFileSync(p, 'prefix_rule(pattern=["true"], decision="run")\n');
	const { client } = await start(t, { args: ['-p', p, '--default', 'deny'] });
	const r = await shell(client, { workdir: dir, command: G2 + 'G true; echo $?; G false; echo $?' });
	assert.match(parse(r).output, /^0\n.*no rule matched, and --default is deny\)\n126\n$/s);
});

const PROMPT = 'prefix_rule(pattern=["uname"], decision="prompt")\n';

for (const [action, expect] of [['accept', /^Linux\nrc=0\n$/],
	['decline', /execution denied: User declined execution\nrc=126\n$/],
	['cancel', /execution denied: User cancelled execution\nrc=126\n$/]]) {
	test(`prompt: elicitation answered ${action}`, T, async (t) => {
		const { client, dir, asked } = await start(t, { rules: PROMPT,
			elicit: async () => ({ action }) });
		const r = await shell(client, { workdir: dir, command: G2 + 'G uname -s; echo rc=$?' });
		assert.match(parse(r).output, expect);
		assert.equal(asked.length, 1);
		// dir is the start directory, which the default sandbox can write
		assert.equal(asked[0].message, `Allow agent to run \`/usr/bin/uname -s\` in \`${dir}\` (the sandbox can write it)?`);
		assert.equal(asked[0].requestedSchema.type, 'object');
		const d = r.structuredContent.decisions[0];
		assert.equal(d.asked, 'client');
		assert.equal(d.answer, action);
		assert.equal(d.decision, action === 'accept' ? 'escalate' : 'deny');
	});
}

test('prompt: an unanswered elicitation is withdrawn, after --prompt-timeout or with its call', T, async (t) => {
	const withdrawn = [];
	// never answers; records the server's notifications/cancelled
	const elicit = (params, extra) => new Promise(() => {
		extra.signal.addEventListener('abort', () => withdrawn.push(String(extra.signal.reason)));
	});
	const { client, dir, asked } = await start(t, { rules: PROMPT, elicit,
		args: ['--prompt-timeout', '1'] });
	const r = await shell(client, { workdir: dir, command: G2 + 'G uname -s; echo rc=$?' });
	assert.match(parse(r).output, /execution denied: No answer from the user in time \(--prompt-timeout 1\)\nrc=126\n$/);
	assert.equal(r.structuredContent.decisions[0].answer, 'timeout');
	await until(() => withdrawn.length === 1);
	assert.match(withdrawn[0], /No answer from the user in time/);

	const ac = new AbortController();
	const call = shell(client, { workdir: dir, command: G + 'G uname -s' }, { signal: ac.signal });
	assert.ok(await until(() => asked.length === 2), 'the second question never came');
	ac.abort('enough');
	await assert.rejects(call);
	assert.ok(await until(() => withdrawn.length === 2), JSON.stringify(withdrawn));
	assert.match(withdrawn[1], /The tool call ended before the user answered/);
});

test('prompt: a client without elicitation is told why; --approver answers instead', T, async (t) => {
	const { client, dir } = await start(t, { rules: PROMPT });
	const r = await shell(client, { workdir: dir, command: G2 + 'G uname -s; echo rc=$?' });
	assert.match(parse(r).output, /declared no elicitation capability.*--approver\nrc=126\n$/s);

	const approver = path.join(dir, 'approve');
	fs.writeFileSync(approver, '#!/bin/sh\ncat >/dev/null; echo \'{"decision": "escalate"}\'\n',
		{ mode: 0o755 });
	const a = await start(t, { rules: PROMPT, args: ['--approver', approver] });
	const ra = await shell(a.client, { workdir: a.dir, command: G + 'G uname -s; echo rc=$?' });
	assert.equal(parse(ra).output, 'Linux\nrc=0\n');
	assert.equal(ra.structuredContent.decisions[0].asked, 'approver');
});

test('sandbox-state: Landlock per policy; a write outside the roots is refused in place, done when escalated', T, async (t) => {
	const rules = 'prefix_rule(pattern=["cp"], decision="allow")\n';
	const { client, dir } = await start(t, { rules });
	const inside = path.join(dir, 'inside'), outside = path.join(dir, 'outside');
	fs.mkdirSync(inside);
	fs.mkdirSync(outside);
	// before any update: the default sandbox, the start directory (dir) writable
	let r = await shell(client, { workdir: inside, command: `touch ${outside}/before; echo $?` });
	assert.equal(parse(r).output, '0\n');
	try {
		await sandboxState(client, { type: 'workspace-write', writable_roots: [inside],
			network_access: false, exclude_slash_tmp: true, exclude_tmpdir_env_var: true }, inside);
	} catch (e) {
		if (/Landlock/.test(e.message))
			return t.skip(`this kernel has no usable Landlock: ${e.message}`);
		throw e;
	}
	r = await shell(client, { workdir: inside, command: G2 +
		`touch ${inside}/in; echo in=$?; touch ${outside}/inplace; echo inplace=$?; ` +
		`G cp /etc/hostname ${outside}/escalated; echo escalated=$?` });
	assert.match(parse(r).output, /in=0\n.*Permission denied\ninplace=1\nescalated=0\n$/s);
	assert.ok(fs.existsSync(path.join(inside, 'in')));
	assert.ok(!fs.existsSync(path.join(outside, 'inplace')));
	assert.ok(fs.existsSync(path.join(outside, 'escalated')));
	assert.deepEqual(r.structuredContent.sandbox, { type: 'landlock', policy: 'workspace-write',
		// inside is a writable root and sandboxCwd: listed once
		layers: [{ source: 'workspace-write', writable_roots: [inside], network: false }],
		network: false });

	await sandboxState(client, { type: 'read-only' }, inside);
	r = await shell(client, { workdir: inside, command: `exec 2>&1; touch ${inside}/ro; echo $?` });
	assert.match(parse(r).output, /Permission denied\n1\n$/);
	await sandboxState(client, { type: 'danger-full-access' }, inside);
	r = await shell(client, { workdir: inside, command: `touch ${outside}/full; echo $?` });
	assert.equal(parse(r).output, '0\n');

	await assert.rejects(sandboxState(client, { type: 'bogus' }, inside),
		(e) => e instanceof McpError && e.code === -32602 && /'bogus'/.test(e.message));
	await assert.rejects(sandboxState(client, { type: 'workspace-write', writable_roots: ['rel'] }, inside),
		(e) => e.code === -32602 && /writable_roots\[0\] must be an absolute path/.test(e.message));
	// a refused update changes nothing
	r = await shell(client, { workdir: inside, command: `touch ${outside}/still; echo $?` });
	assert.equal(parse(r).output, '0\n');
});

test('sandbox-state: the command line\'s sandbox is a floor the client cannot widen', T, async (t) => {
	const dir = testDir(t);
	const inside = path.join(dir, 'inside'), outside = path.join(dir, 'outside');
	fs.mkdirSync(inside);
	fs.mkdirSync(outside);
	const { client } = await start(t, { args: ['-s', 'landlock', '-w', inside] });
	let n = 0;	// a new file each time: touch of one that exists only sets times
	const write = async (where) => parse(await shell(client, { workdir: inside,
		command: `exec 2>&1; touch ${where}/f${++n}; echo $?` })).output;
	assert.match(await write(outside), /Permission denied\n1\n$/);
	await sandboxState(client, { type: 'danger-full-access' }, inside);
	assert.match(await write(outside), /Permission denied\n1\n$/);
	await sandboxState(client, { type: 'workspace-write', writable_roots: [inside, outside] }, inside);
	assert.match(await write(outside), /Permission denied\n1\n$/);
	assert.equal(await write(inside), '0\n');
	await sandboxState(client, { type: 'read-only' }, inside);
	assert.match(await write(inside), /Permission denied\n1\n$/);
	const r = await shell(client, { workdir: inside, command: 'true' });
	assert.deepEqual(r.structuredContent.sandbox.layers.map((l) => l.source),
		['command line', 'read-only']);
});

test('default sandbox: the start directory and a private TMPDIR, never the call\'s workdir', T, async (t) => {
	const { client, dir, stderr } = await start(t);
	const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'shellesc-out-')));
	t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
	assert.match(stderr(), /sandbox: landlock \(the default/);
	let n = 0;	// a new file each time: touch of one that exists only sets times
	const write = async (workdir, where) => parse(await shell(client, { workdir,
		command: `exec 2>&1; touch ${where}/f${++n}; echo $?` })).output;
	assert.equal(await write(dir, dir), '0\n');
	assert.equal(await write('/', '"$TMPDIR"'), '0\n');
	for (const workdir of ['/', outside, dir])
		assert.match(await write(workdir, outside), /Permission denied\n1\n$/, workdir);
	assert.match(await write(outside, '.'), /Permission denied\n1\n$/);
	assert.match(await write('/', '/tmp'), /Permission denied\n1\n$/);
	assert.deepEqual(fs.readdirSync(outside), []);
	// the private TMPDIR is the server's own, gone when it ends
	const tmp = parse(await shell(client, { workdir: dir, command: 'echo "$TMPDIR"' })).output.trim();
	assert.match(tmp, /\/shellesc\.[^/]+$/);
	assert.ok(fs.existsSync(tmp));
	await client.close();
	await until(() => !fs.existsSync(tmp));
	// --sandbox none is the explicit way out
	const none = await start(t, { args: ['--sandbox', 'none'] });
	assert.match(none.stderr(), /sandbox: none/);
	const r = await shell(none.client, { workdir: '/', command: `touch ${outside}/none; echo $?` });
	assert.equal(parse(r).output, '0\n');
	assert.equal(r.structuredContent.sandbox.type, 'none');
});

test('default sandbox: the client\'s roots replace the start directory, until an update', T, async (t) => {
	const { client, dir } = await start(t, { roots: (d) => [path.join(d, 'in side')] });
	const inside = path.join(dir, 'in side');
	fs.mkdirSync(inside);
	let n = 0;
	const write = async (where) => (await shell(client, { workdir: '/',
		command: `exec 2>&1; touch "${where}/f${++n}"; echo $?` }));
	// roots/list is answered after initialization: wait for it to be in force
	for (let i = 0; i < 200 && (await write(inside)).structuredContent.sandbox.layers[0].source !== 'roots'; i++)
		await sleep(20);
	const r = await write(inside);
	assert.equal(parse(r).output, '0\n');
	assert.deepEqual(r.structuredContent.sandbox.layers, [{ source: 'roots',
		writable_roots: [inside, r.structuredContent.sandbox.layers[0].writable_roots[1]],
		network: true }]);
	assert.match(parse(await write(dir)).output, /Permission denied\n1\n$/);
	assert.equal(parse(await write('$TMPDIR')).output, '0\n');
	// the client's own update replaces the default whole
	await sandboxState(client, { type: 'danger-full-access' }, dir);
	assert.equal(parse(await write(dir)).output, '0\n');
});

// The shell's tree and the escalated commands it started, by argv.
const SLEEPS = (n) => [['sleep', `${n}1`], ['sleep', `${n}2`]];
const sleepsCommand = (n) => G + `G sleep ${n}1 & sleep ${n}2 & wait`;
const sleepsRules = (n) => `prefix_rule(pattern=["sleep", "${n}1"], decision="allow")\n`;
const running = (n) => SLEEPS(n).every((a) => pidsOf(a).length > 0);
const gone = (n) => SLEEPS(n).every((a) => pidsOf(a).length === 0);

test('notifications/cancelled ends the command and what it escalated', T, async (t) => {
	const n = 9000 + (process.pid % 900);
	const { client, dir } = await start(t, { rules: sleepsRules(n) });
	const ac = new AbortController();
	const call = shell(client, { workdir: dir, command: sleepsCommand(n) }, { signal: ac.signal });
	assert.ok(await until(() => running(n)), 'the sleeps never started');
	const escalated = pidsOf(SLEEPS(n)[0]);
	ac.abort('enough');
	await assert.rejects(call);
	assert.ok(await until(() => gone(n)), `left running: ${JSON.stringify(SLEEPS(n).map(pidsOf))}`);
	assert.ok(escalated.length === 1);
	// and the server goes on
	const r = await shell(client, { workdir: dir, command: 'echo next' });
	assert.equal(parse(r).output, 'next\n');
});

// The client going away, or a signal to the server: every call's commands end.
for (const [how, n, end, status] of [
	['the client going away (EOF)', 8000, (raw) => raw.proc.stdin.end(), { code: 0, sig: null }],
	['SIGTERM to the server', 7000, (raw) => raw.proc.kill('SIGTERM'), { code: 128 + 15, sig: null }]]) {
	test(`${how} ends every call's commands; the server exits`, T, async (t) => {
		const k = n + (process.pid % 900);
		const dir = testDir(t, sleepsRules(k));
		const raw = new Raw(t, dir);
		await raw.initialize();
		raw.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'shell',
			arguments: { command: sleepsCommand(k), workdir: dir, login: false } } });
		assert.ok(await until(() => running(k)), `never started: ${raw.stderr}`);
		end(raw);
		assert.deepEqual(await raw.exited, status);
		assert.ok(await until(() => gone(k)), `left running: ${JSON.stringify(SLEEPS(k).map(pidsOf))}`);
	});
}

test('two calls run at once, each in its own session', T, async (t) => {
	const { client, dir } = await start(t, { rules: 'prefix_rule(pattern=["true"], decision="allow")\n' });
	// each waits for the other's file: one at a time would time out
	const wait = (mine, theirs) => `touch ${mine}; for i in $(seq 200); do ` +
		`[ -e ${theirs} ] && break; sleep 0.05; done; [ -e ${theirs} ] && echo met`;
	const [a, b] = await Promise.all([
		shell(client, { workdir: dir, timeout_ms: 20000, command: G + 'G true; ' + wait('a', 'b') }),
		shell(client, { workdir: dir, timeout_ms: 20000, command: wait('b', 'a') }),
	]);
	assert.equal(parse(a).output, 'met\n');
	assert.equal(parse(b).output, 'met\n');
	assert.equal(a.structuredContent.decisions.length, 1);
	assert.equal(b.structuredContent.decisions.length, 0);
});

test('past --max-calls a call waits for a slot; a cancelled one stops waiting', T, async (t) => {
	const { client, dir } = await start(t, { args: ['--max-calls', '1'] });
	const first = shell(client, { workdir: dir, command: 'sleep 1.5; echo first' });
	await sleep(300);
	const ac = new AbortController();
	const cancelled = shell(client, { workdir: dir, command: `touch ${dir}/ran` },
		{ signal: ac.signal });
	const second = shell(client, { workdir: dir, command: 'echo second' });
	await sleep(300);
	ac.abort('enough');
	await assert.rejects(cancelled);
	const [a, b] = await Promise.all([first, second]);
	assert.equal(a.isError, false);
	assert.equal(parse(a).output, 'first\n');
	assert.equal(b.isError, false, JSON.stringify(b.content));
	assert.equal(parse(b).output, 'second\n');
	assert.ok(!fs.existsSync(path.join(dir, 'ran')), 'the cancelled call ran');
});

test('timeout_ms ends the command: timed_out, with what it printed', T, async (t) => {
	const { client, dir } = await start(t);
	const r = await shell(client, { workdir: dir, timeout_ms: 3000, command: 'echo before; exec sleep 60' });
	const text = parse(r);
	assert.equal(text.timed_out, true);
	assert.equal(text.output, 'before\n');
	assert.equal(text.exit_code, 128 + 15);
	assert.equal(r.structuredContent.signal, 15);
	assert.ok(text.duration.secs < 30);
});

test('no timeout_ms: the reference\'s 10 s, or --default-timeout; timeout_ms 0: none', T, async (t) => {
	const { client, dir } = await start(t);
	let r = parse(await shell(client, { workdir: dir, command: 'echo before; exec sleep 60' }));
	assert.equal(r.timed_out, true);
	assert.equal(r.output, 'before\n');
	assert.ok(r.duration.secs >= 10 && r.duration.secs < 20, JSON.stringify(r.duration));
	const short = await start(t, { args: ['--default-timeout', '0.5'] });
	r = parse(await shell(short.client, { workdir: short.dir, timeout_ms: null, command: 'exec sleep 60' }));
	assert.equal(r.timed_out, true);
	assert.ok(r.duration.secs < 5, JSON.stringify(r.duration));
	// timeout_ms 0 is no timeout (the reference times out at once)
	r = parse(await shell(short.client, { workdir: short.dir, timeout_ms: 0, command: 'sleep 1; echo done' }));
	assert.equal(r.timed_out, false);
	assert.equal(r.output, 'done\n');
	// an explicit timeout_ms beats the default
	r = parse(await shell(short.client, { workdir: short.dir, timeout_ms: 5000, command: 'sleep 1; echo done' }));
	assert.equal(r.timed_out, false);
});

test('--max-output keeps the head and the tail, and says how much was dropped', T, async (t) => {
	const { client, dir } = await start(t, { args: ['--max-output', '1k'] });
	const r = await shell(client, { workdir: dir,
		command: 'printf HEAD; head -c 100000 /dev/zero | tr "\\0" x; printf TAIL' });
	const { output } = parse(r);
	const s = r.structuredContent;
	assert.equal(s.output_bytes, 100008);
	assert.equal(s.output_dropped, 100008 - 1024);
	assert.ok(output.startsWith('HEADxxx') && output.endsWith('xxxTAIL'));
	assert.match(output, /\n\[\.\.\. shellesc dropped 98984 bytes here \(--max-output 1024\)/);
	assert.ok(output.length < 1024 + 200);
	// bytes that are not UTF-8 still make a string
	const b = await shell(client, { workdir: dir, command: 'printf "a\\377b\\n"' });
	assert.equal(parse(b).output, 'a\ufffdb\n');
});

test('progress notifications while a command runs, when a token was sent', T, async (t) => {
	const { client, dir } = await start(t, { rules: 'prefix_rule(pattern=["true"], decision="allow")\n' });
	const seen = [];
	// the command runs until the test has seen a tick (at most 30 s)
	const r = await shell(client, { workdir: dir, command: G + 'G true; for i in $(seq 300); do ' +
		'[ -e ticked ] && break; sleep 0.1; done; [ -e ticked ] && echo ticked' }, {
		onprogress: (p) => {
			seen.push(p);
			if (/^running for/.test(p.message))
				fs.writeFileSync(path.join(dir, 'ticked'), '');
		},
	});
	assert.equal(parse(r).output, 'ticked\n');
	const said = seen.map((p) => p.message);
	assert.ok(said.includes('escalated /usr/bin/true'), JSON.stringify(said));
	assert.ok(said.some((m) => /^running for [1-9]\d* s$/.test(m)), JSON.stringify(said));
	for (let i = 1; i < seen.length; i++)
		assert.ok(seen[i].progress > seen[i - 1].progress);
});

test('bad input never stops the server: each error, then a good call', T, async (t) => {
	const dir = testDir(t);
	const raw = new Raw(t, dir);
	await raw.initialize();
	let id = 100;
	const good = async () => {
		const r = await raw.request(++id, 'tools/call', { name: 'shell',
			arguments: { command: 'echo good', workdir: dir, login: false } });
		assert.equal(parse(r.result).output, 'good\n', JSON.stringify(r));
	};
	const expectError = async (line, code, re, wantId = null) => {
		raw.send(line);
		const r = await raw.next();
		assert.equal(r.error?.code, code, `${String(line).slice(0, 80)} -> ${JSON.stringify(r)}`);
		assert.equal(r.id, wantId);
		assert.match(r.error.message, re);
		await good();
	};
	await expectError('this is not json', -32700, /Parse error/);
	await expectError('{"jsonrpc":"2.0","id":1,"method":"ping"', -32700, /Parse error/);
	await expectError(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1'), -32700, /Parse error/);
	await expectError('x'.repeat(5 << 20), -32700, /over 4194304 bytes/);
	await expectError('[{"jsonrpc":"2.0","id":1,"method":"ping"}]', -32600, /batches/);
	await expectError('42', -32600, /JSON object/);
	await expectError('{"jsonrpc":"1.0","id":2,"method":"ping"}', -32600, /jsonrpc/, 2);
	await expectError('{"jsonrpc":"2.0","id":3}', -32600, /method/, 3);
	await expectError('{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}', -32600, /id must be/);
	await expectError('{"jsonrpc":"2.0","id":4,"method":"no/such"}', -32601, /no\/such/, 4);
	await expectError('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1]}', -32602, /params/, 5);
	for (const [args, re] of [[{ command: 1, workdir: dir }, /command must be a string/],
		[{ command: 'true' }, /workdir is required/],
		[{ command: 'true', workdir: 'relative' }, /workdir must be an absolute path/],
		[{ command: 'true', workdir: dir, timeout_ms: -1 }, /timeout_ms/],
		[{ command: 'true', workdir: dir, login: 'yes' }, /login/]])
		await expectError({ jsonrpc: '2.0', id: ++id, method: 'tools/call',
			params: { name: 'shell', arguments: args } }, -32602, re, id);
	await expectError({ jsonrpc: '2.0', id: 6, method: 'tools/call',
		params: { name: 'nope', arguments: {} } }, -32602, /Unknown tool: nope/, 6);
	await expectError({ jsonrpc: '2.0', id: 7, method: 'codex/sandbox-state/update',
		params: { sandboxPolicy: { type: 'secret-sauce' } } }, -32602, /'secret-sauce'/, 7);
	// a failure of the tool itself is a result with isError
	const r = await raw.request(8, 'tools/call', { name: 'shell',
		arguments: { command: 'true', workdir: path.join(dir, 'none'), login: false } });
	assert.equal(r.result.isError, true);
	assert.match(r.result.content[0].text, /No such file or directory/);
	// notifications get no answer, whatever they hold
	raw.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":999}}');
	raw.send('{"jsonrpc":"2.0","method":"no/such/notification","params":7}');
	await good();
	assert.equal(raw.queue.length, 0);
});

// The kernel layer, in mcp's default mode (wrapper,kernel where a sanitizer
// build keeps the preload out): execs no preload or wrapper sees are
// decided, each running uname, which a rule forbids.  Without the layer
// all of them run it.
const UNAME_FORBIDDEN = 'prefix_rule(pattern=["uname"], decision="forbidden")\n';
const KERNEL_MODE = SANITIZED ? ['-m', 'wrapper,kernel'] : [];

async function unameDenied(t, command, dir0, args = KERNEL_MODE) {
	const { client, dir } = await start(t, { rules: UNAME_FORBIDDEN, args });
	const r = await shell(client, { workdir: dir0 ?? dir, command });
	const d = r.structuredContent.decisions.filter((x) => path.basename(x.program) === 'uname');
	assert.ok(d.length > 0, JSON.stringify(r.structuredContent));
	for (const x of d) {
		assert.equal(x.intercept, 'kernel');
		assert.equal(x.decision, 'deny');
		assert.equal(x.reason, 'Execution forbidden by policy');
	}
	return { out: parse(r).output, n: d.length };
}

test('the kernel layer: a static program\'s exec and a raw syscall(SYS_execve) are decided', T, async (t) => {
	const progs = path.join(process.env.SHELLESC_TOP_BUILDDIR, 'tests/progs');
	const { out, n } = await unameDenied(t,
		`${progs}/raw-exec-static syscall /bin/uname uname; ${progs}/raw-exec syscall /bin/uname uname`);
	assert.equal(out, 'ret=-1 errno=13\nret=-1 errno=13\n');
	assert.equal(n, 2);
});

test('the kernel layer: mcp takes the modes of run (wrapper,kernel)', T, async (t) => {
	const progs = path.join(process.env.SHELLESC_TOP_BUILDDIR, 'tests/progs');
	const { out } = await unameDenied(t, `${progs}/raw-exec-static syscall /bin/uname uname`,
		undefined, ['-m', 'wrapper,kernel']);
	assert.equal(out, 'ret=-1 errno=13\n');
});

test('the kernel layer: a Go program\'s os/exec is decided', { timeout: 300000 }, async (t) => {
	if (!fs.existsSync('/usr/bin/go'))
		return t.skip('golang-go is not installed (./bootstrap installs it): no Go program to run');
	const dir = testDir(t);
	fs.writeFileSync(path.join(dir, 'gouname.go'), 'package main\n\nimport (\n\t"fmt"\n\t"os"\n' +
		'\t"os/exec"\n)\n\nfunc main() {\n\tif err := exec.Command("/bin/uname").Run(); err != nil {\n' +
		'\t\tfmt.Println(err)\n\t\tos.Exit(3)\n\t}\n}\n');
	execFileSync('go', ['build', '-o', 'gouname', 'gouname.go'], { cwd: dir, env: {
		PATH: '/usr/bin:/bin', HOME: dir, GOCACHE: path.join(dir, 'gocache'),
		GOPATH: path.join(dir, 'gopath'), CGO_ENABLED: '0', GO111MODULE: 'off' } });
	const { out } = await unameDenied(t, `${dir}/gouname; echo exit=$?`, dir);
	assert.match(out, /permission denied\nexit=3\n$/);
});

// The code spans of a Markdown line, as CommonMark reads them: a run of n
// backticks opens a span that the next run of exactly n closes (one space
// stripped from each end when both are there); a run that no run closes
// is literal text.  Returns the text outside the spans and the spans.
function codeSpans(s) {
	const spans = [];
	let outside = '', i = 0;
	while (i < s.length) {
		if (s[i] !== '`') {
			outside += s[i++];
			continue;
		}
		let n = 0;
		while (s[i + n] === '`')
			n++;
		let j = i + n, close = -1;
		while (j < s.length) {
			if (s[j] !== '`') {
				j++;
				continue;
			}
			let m = 0;
			while (s[j + m] === '`')
				m++;
			if (m === n) {
				close = j;
				break;
			}
			j += m;
		}
		if (close < 0) {
			outside += '`'.repeat(n);
			i += n;
			continue;
		}
		let body = s.slice(i + n, close);
		if (body.length > 1 && body[0] === ' ' && body.at(-1) === ' ' && body.trim() !== '')
			body = body.slice(1, -1);
		spans.push(body);
		outside += '\u0000';
		i = close + n;
	}
	return { outside, spans };
}

test('prompt: the question names the real program, and no argument or cwd can leave its code span', T, async (t) => {
	const { client, dir, asked } = await start(t, { rules: PROMPT,
		elicit: async () => ({ action: 'decline' }) });
	const cwd = path.join(dir, 'a` is safe. Approve? `b');
	fs.mkdirSync(cwd);
	const img = '![x](https://host/p.png?k=DATA)';
	// a symlink named cat for uname: the question names uname
	const r = await shell(client, { workdir: cwd, command: G2 + 'mkdir bin && ' +
		'ln -s /usr/bin/uname bin/cat && G ./bin/cat -- \'``\' \'a`b\' \'' + img + '\'; echo rc=$?' });
	assert.match(parse(r).output, /User declined execution\nrc=126\n$/);
	assert.equal(asked.length, 1);
	const { outside, spans } = codeSpans(asked[0].message);
	assert.equal(outside, 'Allow agent to run \0 (called as \0) in \0 (the sandbox can write it)?', asked[0].message);
	assert.equal(spans[0], '/usr/bin/uname -- \'``\' \'a`b\' \'' + img + '\'');
	assert.equal(spans[1], path.join(cwd, 'bin/cat'));
	assert.equal(spans[2], cwd);

	// huge arguments: bounded, head and tail kept, the cut counted
	const big = await shell(client, { workdir: dir, command: G2 +
		'a=$(head -c 100000 /dev/zero | tr "\\0" x); G uname -s ' +
		'"$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" "$a" LAST; echo rc=$?' });
	assert.match(parse(big).output, /rc=126\n$/);
	assert.equal(asked.length, 2);
	const m = asked[1].message;
	assert.ok(m.length < 4096, `${m.length} bytes`);
	const b = codeSpans(m);
	assert.match(b.outside, /^Allow agent to run \0 in \0 \(the sandbox can write it\)\?\n\(\d+ bytes of the command and 0 of the directory cut from the middle\.\)$/);
	assert.match(b.spans[0], /^\/usr\/bin\/uname -s x+ \.\.\. x+ LAST$/);
	assert.equal(b.spans[1], dir);
});

test('prompt: one call has at most 4 questions open; past that, denied saying why, and another call is still asked', T, async (t) => {
	let release;
	const gate = new Promise((r) => { release = r; });
	const { client, dir, asked } = await start(t, { rules: PROMPT,
		elicit: async () => { await gate; return { action: 'decline' }; } });
	const other = path.join(dir, 'other');
	fs.mkdirSync(other);
	const flood = shell(client, { workdir: dir, timeout_ms: 60000, command: G2 +
		'for i in 1 2 3 4 5 6 7 8; do G uname -s & done; wait' });
	assert.ok(await until(() => asked.length >= 4), 'the first questions never came');
	const r2 = shell(client, { workdir: other, command: G2 + 'G uname -s; echo rc=$?' });
	assert.ok(await until(() => asked.some((a) => a.message.includes(other))),
		'the other call was never asked');
	release();
	const out = parse(await flood).output;
	assert.equal(out.match(/already has 4 questions open/g)?.length, 4, out);
	assert.equal(out.match(/User declined execution/g)?.length, 4, out);
	assert.match(parse(await r2).output, /User declined execution\nrc=126\n$/);
	assert.equal(asked.length, 5);
});

test('the process limit is named as such, not as the call limit', T, async (t) => {
	if (SANITIZED)
		return t.skip('a sanitizer build: LeakSanitizer cannot run its check at exit with the process limit reached');
	const user = tempUser(t);
	if (user === null)
		return t.skip('needs root, to make a user whose process limit the test owns');
	const { client, dir } = await startAs(t, user, { prefix: ['prlimit', '--nproc=40', '--'] });
	assert.equal(parse(await shell(client, { workdir: dir, command: 'echo ok' })).output, 'ok\n');
	// the user's other processes fill its limit
	const hogs = [];
	t.after(() => hogs.forEach((h) => h.kill('SIGKILL')));
	for (let i = 0; i < 40; i++)
		hogs.push(spawn(sbin('runuser'), ['-u', user.name, '--', 'sleep', '120'], { stdio: 'ignore' }));
	assert.ok(await until(() => pidsOf(['sleep', '120']).length >= 40), 'the hogs never started');
	const r = await shell(client, { workdir: dir, command: 'echo ok' });
	assert.equal(r.isError, true);
	assert.match(r.content[0].text, /Resource temporarily unavailable \(no new process or thread: the user's process limit/);
	assert.doesNotMatch(r.content[0].text, /too many shell commands/);
});

test('the shells get a built environment: no server secret unless --pass-env names it', T, async (t) => {
	const env = { OPENAI_API_KEY: 'sk-openai', AWS_SECRET_ACCESS_KEY: 'aws-secret',
		GITHUB_TOKEN: 'gh-token', DB_PASSWORD: 'db-pw', GOOGLE_APPLICATION_CREDENTIALS: '/k.json',
		HARNESS_THING: 'other', LANG: 'C.UTF-8' };
	const show = 'for v in OPENAI_API_KEY AWS_SECRET_ACCESS_KEY GITHUB_TOKEN DB_PASSWORD ' +
		'GOOGLE_APPLICATION_CREDENTIALS HARNESS_THING LANG HOME PATH; do ' +
		'printf "%s=%s\\n" $v "$(printenv $v)"; done';
	const { client, dir } = await start(t, { env });
	const out = parse(await shell(client, { workdir: dir, command: show })).output;
	assert.equal(out, 'OPENAI_API_KEY=\nAWS_SECRET_ACCESS_KEY=\nGITHUB_TOKEN=\nDB_PASSWORD=\n' +
		`GOOGLE_APPLICATION_CREDENTIALS=\nHARNESS_THING=\nLANG=C.UTF-8\nHOME=${cfgDir(dir)}/home\n` +
		'PATH=/usr/bin:/bin\n');
	const named = await start(t, { env, args: ['--pass-env', 'OPENAI_API_KEY'] });
	const o2 = parse(await shell(named.client, { workdir: named.dir, command: show })).output;
	assert.match(o2, /^OPENAI_API_KEY=sk-openai\nAWS_SECRET_ACCESS_KEY=\n/);
});

test('sandbox-state: roots are pinned when the update arrives; a root swapped for a link stays the directory it was', T, async (t) => {
	const user = tempUser(t);
	if (user === null)
		return t.skip('needs root, to run the server as a throwaway unprivileged user');
	const { client, dir } = await startAs(t, user);
	const ws = path.join(dir, 'ws'), root = path.join(ws, 'R'), home = path.join(dir, 'home');
	fs.mkdirSync(root, { recursive: true });
	fs.mkdirSync(home);
	spawnSync('chown', ['-R', `${user.uid}`, dir]);
	const policy = { type: 'workspace-write', writable_roots: [root], network_access: false,
		exclude_slash_tmp: true, exclude_tmpdir_env_var: true };
	try {
		await sandboxState(client, policy, ws);
	} catch (e) {
		if (/Landlock/.test(e.message))
			return t.skip(`this kernel has no usable Landlock: ${e.message}`);
		throw e;
	}
	// call 1: the root nested in sandboxCwd is moved away, a link to HOME put in its place
	let r = await shell(client, { workdir: ws,
		command: `mv ${root} ${root}.old && ln -s ${home} ${root} && echo swapped` });
	assert.equal(parse(r).output, 'swapped\n');
	// call 2: writing through the root's name reaches HOME no more
	r = await shell(client, { workdir: ws, command: `exec 2>&1; echo x > ${root}/PWNED; echo rc=$?; ` +
		`echo y > ${root}.old/kept; echo old=$?` });
	assert.match(parse(r).output, /Permission denied\nrc=1\nold=0\n$/);
	assert.ok(!fs.existsSync(path.join(home, 'PWNED')));
	assert.ok(fs.existsSync(path.join(root + '.old', 'kept')));
	assert.deepEqual(r.structuredContent.sandbox.layers[0].writable_roots, [root, ws]);
	// the same root named again: a link now, refused saying so; the pinned sandbox stays
	await assert.rejects(sandboxState(client, policy, ws), (e) => e.code === -32602 &&
		/writable root .*\/ws\/R: .*\/ws\/R is a symbolic link/.test(e.message));
	r = await shell(client, { workdir: ws, command: `echo x > ${root}/PWNED; echo rc=$?` });
	assert.match(parse(r).output, /rc=1\n$/);
	assert.ok(!fs.existsSync(path.join(home, 'PWNED')));
});

test('prompt: the cwd asked about is the one used, though swapped for a link while the question is open', T, async (t) => {
	const user = tempUser(t);
	if (user === null)
		return t.skip('needs root, to run the server as a throwaway unprivileged user');
	let swapped = false, proj = null;
	// accepts once the command has moved its cwd away and put a link in its place
	const elicit = async () => {
		swapped = await until(() => fs.existsSync(proj + '.old') &&
			fs.lstatSync(proj, { throwIfNoEntry: false })?.isSymbolicLink());
		return { action: 'accept' };
	};
	const { client, dir, asked } = await startAs(t, user,
		{ rules: 'prefix_rule(pattern=["touch"], decision="prompt")\n', elicit });
	const ws = path.join(dir, 'ws'), outside = path.join(dir, 'home', 'victim');
	proj = path.join(ws, 'proj');
	fs.mkdirSync(proj, { recursive: true });
	fs.mkdirSync(outside, { recursive: true });
	spawnSync('chown', ['-R', `${user.uid}`, dir]);
	try {
		await sandboxState(client, { type: 'workspace-write', writable_roots: [ws],
			network_access: false, exclude_slash_tmp: true, exclude_tmpdir_env_var: true }, ws);
	} catch (e) {
		if (/Landlock/.test(e.message))
			return t.skip(`this kernel has no usable Landlock: ${e.message}`);
		throw e;
	}
	const r = await shell(client, { workdir: ws, command: G2 + 'cd proj || exit 9; ' +
		`(sleep 1; mv ../proj ../proj.old && ln -s ${outside} ../proj) & ` +
		'G touch x; echo rc=$?; wait' });
	assert.ok(swapped, 'the cwd was never swapped while the question was open');
	assert.match(parse(r).output, /rc=0\n$/);
	assert.equal(asked.length, 1);
	assert.equal(asked[0].message,
		`Allow agent to run \`/usr/bin/touch x\` in \`${proj}\` (the sandbox can write it)?`);
	assert.ok(!fs.existsSync(path.join(outside, 'x')), 'the escalated touch followed the link');
	assert.ok(fs.existsSync(path.join(proj + '.old', 'x')));
});

test('sandbox-state: a narrowing update applies to calls that start after it; a running call keeps its sandbox', T, async (t) => {
	const { client, dir } = await start(t);
	const ws = path.join(dir, 'ws');
	fs.mkdirSync(ws);
	fs.mkdirSync(path.join(dir, 'home'));
	await sandboxState(client, { type: 'danger-full-access' }, ws);
	const running = shell(client, { workdir: ws, timeout_ms: 30000, command:
		`while [ ! -e ${dir}/go ]; do sleep 0.05; done; touch ${dir}/home/during; echo during=$?` });
	try {
		await sandboxState(client, { type: 'read-only' }, ws);
	} catch (e) {
		if (/Landlock/.test(e.message))
			return t.skip(`this kernel has no usable Landlock: ${e.message}`);
		throw e;
	}
	const after = await shell(client, { workdir: ws, command: `exec 2>&1; touch ${dir}/home/after; echo after=$?` });
	assert.match(parse(after).output, /Permission denied\nafter=1\n$/);
	fs.writeFileSync(path.join(dir, 'go'), '');
	assert.equal(parse(await running).output, 'during=0\n');
});

// A call's shell under a workspace-write sandbox of dir/inside alone;
// dir/outside is not writable.  null when the kernel has no Landlock.
async function askSandbox(t, client, dir) {
	const inside = path.join(dir, 'inside'), outside = path.join(dir, 'outside');
	for (const d of [inside, outside])
		fs.mkdirSync(d);
	try {
		await sandboxState(client, { type: 'workspace-write', writable_roots: [inside],
			network_access: false, exclude_slash_tmp: true, exclude_tmpdir_env_var: true }, inside);
	} catch (e) {
		if (/Landlock/.test(e.message))
			return null;
		throw e;
	}
	return { inside, outside };
}

test('profiles: an escalation into a profile runs under the call\'s sandbox widened by it, no wider', T, async (t) => {
	const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'shellesc-profile-'));
	t.after(() => fs.rmSync(extra, { recursive: true, force: true }));
	const { client, dir } = await start(t, { rules:
		`sandbox_profile(name = "extra", writable = ["${extra}"])\n` +
		'prefix_rule(pattern=["cp"], decision="allow", profile="extra")\n' });
	const sb = await askSandbox(t, client, dir);
	if (sb === null)
		return t.skip('this kernel has no usable Landlock');
	const { inside, outside } = sb;
	const r = await shell(client, { workdir: inside, command: G2 +
		`G cp /etc/hostname ${extra}/esc; echo extra=$?; ` +
		`G cp /etc/hostname ${outside}/esc; echo outside=$?; ` +
		`touch ${extra}/inplace; echo inplace=$?` });
	assert.match(parse(r).output, /extra=0\n.*outside=1\n.*inplace=1\n$/s);
	assert.ok(fs.existsSync(path.join(extra, 'esc')));
	assert.ok(!fs.existsSync(path.join(outside, 'esc')));
	assert.ok(!fs.existsSync(path.join(extra, 'inplace')));
});

// --- The agent may ask: sandbox_permissions, justification, prefix_rule (issue 27) ---

const learnedOf = (dir) => path.join(cfgDir(dir), 'home/.config/shellesc/rules/learned.rules');

for (const action of ['accept', 'decline']) {
	test(`ask: require_escalated with a justification is asked; answered ${action}, the first program only`, T, async (t) => {
		if (SANITIZED)
			return t.skip('the command\'s first program is caught by the preload only');
		const { client, dir, asked } = await start(t, { elicit: async () => ({ action }) });
		const sb = await askSandbox(t, client, dir);
		if (sb === null)
			return t.skip('this kernel has no usable Landlock');
		const r = await shell(client, { workdir: sb.inside,
			command: `touch ${sb.outside}/esc 2>&1; echo rc=$?; touch ${sb.outside}/again 2>&1; echo rc2=$?`,
			sandbox_permissions: 'require_escalated',
			justification: 'I need to write the build output outside the workspace.' });
		assert.equal(asked.length, 1, JSON.stringify(asked));
		const msg = asked[0].message;
		assert.ok(msg.startsWith(`Allow agent to run \`/usr/bin/touch ${sb.outside}/esc\``), msg);
		assert.match(msg, /\nThe agent itself asks for this escalation\.\nThe agent says: I need to write the build output outside the workspace\.$/);
		assert.equal(asked[0].requestedSchema.properties.keep_rule, undefined, 'no rule suggested: none to keep');
		const out = parse(r).output;
		// the second touch was not asked about: it ran in the sandbox
		assert.match(out, /rc2=1\n$/);
		assert.ok(!fs.existsSync(path.join(sb.outside, 'again')));
		const d = r.structuredContent.decisions[0];
		assert.equal(d.asked, 'client');
		if (action === 'accept') {
			assert.match(out, /^rc=0\n/);
			assert.ok(fs.existsSync(path.join(sb.outside, 'esc')), 'the accepted escalation did not run unsandboxed');
			assert.equal(d.decision, 'escalate');
		} else {
			assert.match(out, /execution denied: User declined execution\n(.*\n)?rc=126\n/);
			assert.ok(!fs.existsSync(path.join(sb.outside, 'esc')));
			assert.equal(d.decision, 'deny');
		}
	});
}

test('ask: sandbox_permissions never skips the question; the rules may still forbid it', T, async (t) => {
	const args = (dir) => ({ workdir: dir, command: G2 + 'G uname -s; echo rc=$?',
		sandbox_permissions: 'require_escalated', prefix_rule: ['uname'], justification: 'please' });
	// no elicitation, no approver: denied, saying why
	const a = await start(t);
	const ra = await shell(a.client, args(a.dir));
	assert.match(parse(ra).output, /declared no elicitation capability.*--approver\nrc=126\n$/s);
	assert.equal(ra.structuredContent.decisions[0].decision, 'deny');
	// a rule that escalates into another profile does not stand: asked
	const b = await start(t, { rules: 'prefix_rule(pattern=["uname"], decision="allow", profile="network")\n' });
	assert.match(parse(await shell(b.client, args(b.dir))).output, /declared no elicitation capability/);
	// forbidden: denied by the rule, nobody asked
	const c = await start(t, { rules: 'prefix_rule(pattern=["uname"], decision="forbidden")\n',
		elicit: async () => ({ action: 'accept' }) });
	const rc = await shell(c.client, args(c.dir));
	assert.match(parse(rc).output, /execution denied: Execution forbidden by policy\nrc=126\n$/);
	assert.equal(c.asked.length, 0);
	// an unknown profile: the call fails, naming it, and nothing runs
	const ru = await shell(c.client, { ...args(c.dir), command: `touch ${c.dir}/ran`,
		sandbox_permissions: 'no-such-profile' });
	assert.equal(ru.isError, true);
	assert.match(ru.content[0].text, /"no-such-profile", which the user's rules do not define/);
	assert.ok(!fs.existsSync(path.join(c.dir, 'ran')));
	// a prefix_rule that is not a list of words is a bad argument
	await assert.rejects(shell(c.client, { ...args(c.dir), prefix_rule: [] }), /prefix_rule/);
});

test('ask: the suggested prefix_rule, kept, is learned and applies to the next call unasked', T, async (t) => {
	const { client, dir, asked } = await start(t, {
		elicit: async () => ({ action: 'accept', content: { keep_rule: true } }) });
	const sb = await askSandbox(t, client, dir);
	if (sb === null)
		return t.skip('this kernel has no usable Landlock');
	const call = (name, extra) => shell(client, { workdir: sb.inside,
		command: G2 + `G touch ${sb.outside}/${name}; echo rc=$?`, ...extra });
	const ask = { sandbox_permissions: 'require_escalated', prefix_rule: ['touch'],
		justification: 'outside the workspace' };
	const r1 = await call('one', ask);
	assert.equal(asked.length, 1);
	assert.match(asked[0].message, /\nThe agent suggests keeping the rule `prefix_rule\(pattern=\["touch"\], decision="escalate"\)` /);
	assert.equal(asked[0].requestedSchema.properties.keep_rule.type, 'boolean');
	assert.match(parse(r1).output, /^rc=0\n$/);
	assert.equal(r1.structuredContent.decisions[0].answer, 'accept, rule kept');
	assert.match(fs.readFileSync(learnedOf(dir), 'utf8'),
		/^prefix_rule\(pattern=\["touch"\], decision="escalate"\)$/m);
	// the same call again, and one that asks for nothing: no question
	assert.match(parse(await call('two', ask)).output, /^rc=0\n$/);
	assert.match(parse(await call('three', {})).output, /^rc=0\n$/);
	assert.equal(asked.length, 1, JSON.stringify(asked));
	for (const f of ['one', 'two', 'three'])
		assert.ok(fs.existsSync(path.join(sb.outside, f)), f);
});

test('ask: into a profile by name; kept, the rule names the profile', T, async (t) => {
	const extra = fs.mkdtempSync(path.join(os.tmpdir(), 'shellesc-profile-'));
	t.after(() => fs.rmSync(extra, { recursive: true, force: true }));
	const { client, dir, asked } = await start(t, {
		rules: `sandbox_profile(name = "extra", writable = ["${extra}"])\n`,
		elicit: async () => ({ action: 'accept', content: { keep_rule: true } }) });
	const sb = await askSandbox(t, client, dir);
	if (sb === null)
		return t.skip('this kernel has no usable Landlock');
	const r = await shell(client, { workdir: sb.inside, command: G2 +
		`G cp /etc/hostname ${extra}/esc; echo extra=$?; G cp /etc/hostname ${sb.outside}/esc; echo outside=$?`,
		sandbox_permissions: 'extra', prefix_rule: ['cp', '/etc/hostname'] });
	assert.match(parse(r).output, /extra=0\n.*outside=1\n$/s);
	assert.ok(!fs.existsSync(path.join(sb.outside, 'esc')), 'the profile was widened');
	assert.match(asked[0].message, /It runs under the profile `extra`/);
	assert.match(fs.readFileSync(learnedOf(dir), 'utf8'),
		/^prefix_rule\(pattern=\["cp", "\/etc\/hostname"\], decision="escalate", profile="extra"\)$/m);
});

test('ask: the justification cannot break out of its line, nor grow the question', T, async (t) => {
	const { client, dir, asked } = await start(t, { elicit: async () => ({ action: 'decline' }) });
	const evil = 'ok`` ` ```\n\nAllow agent to run `true`?\r\n# Approved\n[click](http://x) <img src=x> \x1b[2J\\`*_';
	await shell(client, { workdir: dir, command: G2 + 'G uname -s', sandbox_permissions: 'require_escalated',
		prefix_rule: ['uname'], justification: evil });
	await shell(client, { workdir: dir, command: G2 + 'G uname -s', sandbox_permissions: 'require_escalated',
		prefix_rule: ['uname'], justification: 'A'.repeat(60000) + 'TAIL' });
	assert.equal(asked.length, 2);
	const lines = asked[0].message.split('\n');
	const said = lines.find((l) => l.startsWith('The agent says: '));
	assert.ok(said, asked[0].message);
	// the question, who asks, what it says, the rule: nothing more
	assert.equal(lines.length, 4, asked[0].message);
	assert.ok(!/[\x00-\x1f\x7f]/.test(said), said);
	// each Markdown character is escaped: an odd run of backslashes before it
	const text = said.slice('The agent says: '.length);
	for (const m of text.matchAll(/(\\*)[`[\]<>*_!]/g))
		assert.equal(m[1].length % 2, 1, `unescaped at ${m.index}: ${said}`);
	const long = asked[1].message;
	assert.ok(long.length < 4096, `${long.length} bytes`);
	assert.match(long, /A+ \.\.\. A+TAIL \(\d+ bytes cut\)/);
});

test('ask: the --approver answers a request, and is given what the agent asked', T, async (t) => {
	const dir = testDir(t);
	const approver = path.join(dir, 'approve'), seen = path.join(dir, 'seen.json');
	fs.writeFileSync(approver, `#!/bin/sh\ncat >${seen}; echo '{"decision": "escalate"}'\n`,
		{ mode: 0o755 });
	const { client, dir: d } = await start(t, { args: ['--approver', approver] });
	const r = await shell(client, { workdir: d, command: G2 + 'G uname -s; echo rc=$?',
		sandbox_permissions: 'network', prefix_rule: ['uname', '-s'], justification: 'why not' });
	assert.equal(parse(r).output, 'Linux\nrc=0\n');
	const dd = r.structuredContent.decisions[0];
	assert.deepEqual([dd.decision, dd.asked], ['escalate', 'approver']);
	const req = JSON.parse(fs.readFileSync(seen, 'utf8'));
	assert.deepEqual(req.requested, { profile: 'network', justification: 'why not',
		prefix_rule: ['uname', '-s'] });
	assert.equal(req.profile.name, 'network');
});
