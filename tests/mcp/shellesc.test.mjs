// shellesc.test.mjs: shellesc mcp through the official MCP TypeScript SDK
// client (and raw JSON-RPC for what the SDK never sends): real servers,
// real shells, real escalated processes, a real Landlock sandbox.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { EmptyResultSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

import { G, pidsOf, parse, Raw, SANITIZED, shell, sleep, start, testDir, until } from './helpers.mjs';

const T = { timeout: 120000 };
// stdout and stderr are two pipes, read as they come: writes close together
// may swap.  Where the order matters, the command sends both to one.
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
		['command', 'workdir', 'timeout_ms', 'login']);
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
	// stdout and stderr are two pipes: close writes may come in either order
	assert.match(text.output, new RegExp(`^(out\nerr|err\nout)\n${dir}\n$`));
	assert.equal(text.timed_out, false);
	assert.ok(Number.isInteger(text.duration.secs) && Number.isInteger(text.duration.nanos));
	for (const k of Object.keys(text))
		assert.deepEqual(r.structuredContent[k], text[k], k);
	assert.equal(r.structuredContent.signal, null);
	assert.equal(r.structuredContent.output_bytes, text.output.length);
	assert.deepEqual(r.structuredContent.sandbox.type, 'none');
	assert.deepEqual(r.structuredContent.decisions, []);
	// no sandbox, but the session's seccomp filter all the same (nothing in
	// it may type on a terminal: docs/security.md)
	const f = await shell(client, { command: 'grep ^Seccomp: /proc/self/status', workdir: dir });
	assert.equal(parse(f).output, 'Seccomp:\t2\n');
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
	const rules = 'prefix_rule(pattern=["sh", "-c", "echo $PPID"], decision="allow")\n' +
		'prefix_rule(pattern=["rm"], decision="forbidden")\n';
	const { client, dir, logs, pid } = await start(t, { rules });
	fs.writeFileSync(path.join(dir, 'keep'), '');
	const r = await shell(client, { workdir: dir, command: G2 +
		'G sh -c \'echo $PPID\'; G rm keep; echo rm=$?; G true; echo true=$?' });
	const out = parse(r).output;
	// escalated: run by the server itself, outside the shell's tree
	assert.match(out, new RegExp(`^${pid}\n`));
	assert.match(out, /shellesc: execution denied: Execution forbidden by policy\n/);
	assert.match(out, /rm=126\ntrue=0\n/);
	assert.ok(fs.existsSync(path.join(dir, 'keep')));
	const d = r.structuredContent.decisions;
	assert.deepEqual(d.map((x) => [x.program, x.decision]),
		[['/usr/bin/sh', 'escalate'], ['/usr/bin/rm', 'deny']]);
	assert.equal(d[0].rule.source, path.join(dir, 'codex/rules/t.rules:1'));
	assert.equal(d[1].reason, 'Execution forbidden by policy');
	assert.deepEqual(d[1].argv, ['rm', 'keep']);
	await until(() => logs.length >= 2);
	assert.deepEqual(logs.map((l) => [l.level, l.data.decision.decision]),
		[['notice', 'escalate'], ['warning', 'deny']]);
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
		assert.equal(asked[0].message, `Allow agent to run \`/usr/bin/uname -s\` in \`${dir}\`?`);
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
	// before any update: the command line's sandbox, none here
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
		layers: [{ source: 'workspace-write', writable_roots: [inside, inside], network: false }],
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
		[{ command: 'true' }, /workdir must be an absolute path/],
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
