// reference.test.mjs: the same calls against shellesc mcp and against the
// reference, @openai/codex-shell-tool-mcp 0.97.0 (its own launcher,
// server, wrapper and patched bash, from the npm package as published),
// field by field.  Each row says whether the two agree, and the test holds
// each row to what docs/mcp.md says of it: a change on either side shows.
// The reference needs Codex's sandbox program for any sandbox, so both run
// under danger-full-access here.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';

import { connect, MODE, parse, Raw, SANITIZED, SHELLESC, testDir } from './helpers.mjs';

const RULES = 'prefix_rule(pattern=["id"], decision="allow")\n' +
	'prefix_rule(pattern=["rm"], decision="forbidden")\n' +
	'prefix_rule(pattern=["uname"], decision="prompt")\n';

// Why the reference cannot run here, or null.
function unusable(launcher) {
	if (SANITIZED)
		return 'a sanitizer build\'s preload cannot load into stock bash, and the calls compared are plain commands';
	if (process.platform !== 'linux' || !['x64', 'arm64'].includes(process.arch))
		return `the reference ships Linux binaries for x64 and arm64 only, not ${process.platform}/${process.arch}`;
	if (!fs.existsSync(launcher))
		return `${launcher} is missing`;
	const triple = process.arch === 'x64' ? 'x86_64-unknown-linux-musl' : 'aarch64-unknown-linux-musl';
	const server = path.join(path.dirname(launcher), '../vendor', triple, 'codex-exec-mcp-server');
	const r = spawnSync(server, ['--help'], { encoding: 'utf8' });
	if (r.error || r.status !== 0)
		return `its server does not run here: ${r.error?.message ?? r.stderr}`;
	return null;
}

const rows = [];

// One row of the comparison; agree is what docs/mcp.md says.
function row(what, ours, ref, agree) {
	const same = JSON.stringify(ours) === JSON.stringify(ref);
	rows.push({ what, same, ours, ref });
	assert.equal(same, agree, `${what}: shellesc ${JSON.stringify(ours)}, reference ${JSON.stringify(ref)}`);
}

// A call's outcome: the result's fields, or the JSON-RPC error's code.
async function outcome(client, args) {
	try {
		const r = await client.callTool({ name: 'shell', arguments: { login: false, ...args } });
		return { isError: r.isError, ...parse(r) };
	} catch (e) {
		return { error: e.code, message: e.message };
	}
}

async function both(t, launcher, answers) {
	const dir = testDir(t, RULES);
	const elicit = () => ({ action: answers.shift() });
	const ours = await connect(t, dir, SHELLESC, ['mcp', ...MODE], { elicit });
	const ref = await connect(t, dir, process.execPath, [launcher], { elicit });
	return { dir, ours, ref };
}

test('the same calls against the reference server: which fields agree', { timeout: 120000 }, async (t) => {
	const launcher = path.join(path.dirname(createRequire(import.meta.url)
		.resolve('@openai/codex-shell-tool-mcp/package.json')), 'bin/mcp-server.js');
	const why = unusable(launcher);
	if (why)
		return t.skip(`the reference cannot run here: ${why}`);
	const answers = ['accept', 'accept', 'decline', 'decline', 'cancel', 'cancel'];
	const { dir, ours, ref } = await both(t, launcher, answers);

	row('initialize: experimental capabilities', ours.client.getServerCapabilities().experimental,
		ref.client.getServerCapabilities().experimental, true);
	const [lo, lr] = [await ours.client.listTools(), await ref.client.listTools()];
	row('tools/list: tool names', lo.tools.map((x) => x.name), lr.tools.map((x) => x.name), true);
	// shellesc's adds three optional arguments (docs/mcp.md, asking for an escalation)
	const refOnly = structuredClone(lo.tools[0].inputSchema);
	for (const k of ['sandbox_permissions', 'justification', 'prefix_rule'])
		delete refOnly.properties[k];
	row('tools/list: inputSchema, beside shellesc\'s optional arguments', refOnly,
		lr.tools[0].inputSchema, true);
	row('tools/list: description (shellesc\'s adds a sentence)',
		lo.tools[0].description.slice(0, lr.tools[0].description.length), lr.tools[0].description, true);
	row('tools/list: outputSchema present', 'outputSchema' in lo.tools[0], 'outputSchema' in lr.tools[0], false);

	const before = [await outcome(ours.client, { command: 'echo x', workdir: dir }),
		await outcome(ref.client, { command: 'echo x', workdir: dir })];
	row('a call before any sandbox-state update: refused', 'error' in before[0], 'error' in before[1], false);
	const update = { method: 'codex/sandbox-state/update', params: {
		sandboxPolicy: { type: 'danger-full-access' }, sandboxCwd: dir } };
	row('sandbox-state/update danger-full-access', await ours.client.request(update, EmptyResultSchema),
		await ref.client.request(update, EmptyResultSchema), true);
	const bogus = { ...update, params: { ...update.params, sandboxPolicy: { type: 'bogus' } } };
	const codes = await Promise.all([ours, ref].map((s) =>
		s.client.request(bogus, EmptyResultSchema).then(() => 0, (e) => e.code)));
	row('sandbox-state/update of an unknown type: error code', codes[0], codes[1], true);

	const compare = async (name, args, fields, agree) => {
		const [o, r] = [await outcome(ours.client, { workdir: dir, ...args }),
			await outcome(ref.client, { workdir: dir, ...args })];
		for (const f of fields)
			row(`${name}: ${f}`, o[f], r[f], agree[f] ?? true);
		return [o, r];
	};
	await compare('plain', { command: 'echo out; exit 3' }, ['isError', 'exit_code', 'output', 'timed_out'], {});
	await compare('stderr before stdout', { command: 'echo err >&2; sleep 0.2; echo out' },
		['exit_code', 'output'], { output: false });
	const [o, r] = await compare('allow (escalated)', { command: 'id -u' }, ['exit_code', 'output'], {});
	row('duration: fields', Object.keys(o.duration), Object.keys(r.duration), true);
	const denied = await compare('forbidden', { command: 'rm -f /nonexistent-shellesc; echo rc=$?' },
		['exit_code'], {});
	row('forbidden: the reason text', ...denied.map((x) => /Execution forbidden by policy/.test(x.output)), true);
	row('forbidden: status of the denied command', ...denied.map((x) => x.output.match(/rc=(\d+)/)[1]), false);
	await compare('prompt, accepted', { command: 'uname' }, ['exit_code', 'output'], {});
	for (const [answer, text] of [['declined', 'User declined execution'], ['cancelled', 'User cancelled execution']]) {
		const res = await compare(`prompt, ${answer}`, { command: 'uname' }, ['exit_code'], { exit_code: false });
		row(`prompt, ${answer}: the reason text`, ...res.map((x) => x.output.includes(text)), true);
	}
	// shellesc adds what the reference cannot know: that the sandbox can
	// write the cwd (so for a caller that is not root here)
	row('elicitation: message', ours.asked[0].message.replace(' (the sandbox can write it)?', '?'),
		ref.asked[0].message, true);
	row('elicitation: requestedSchema', ours.asked[0].requestedSchema, ref.asked[0].requestedSchema, true);
	const timeout = await compare('timeout', { command: 'sleep 5', timeout_ms: 300 }, ['timed_out'], { timed_out: false });
	row('timeout: a JSON-RPC error', 'error' in timeout[0], 'error' in timeout[1], false);
	await compare('bad arguments', { command: 1 }, ['error'], {});
	await compare('no workdir', { command: 'true', workdir: undefined }, ['error'], {});
	// no timeout_ms: both stop the command at 10 s (the reference with an error)
	const timed = await Promise.all([ours, ref].map(async (x) => {
		const t0 = Date.now();
		const res = await outcome(x.client, { workdir: dir, command: 'sleep 30; echo done' });
		return { ms: Date.now() - t0, ended: res.timed_out === true || 'error' in res };
	}));
	row('no timeout_ms: ended after 10 s', ...timed.map((x) => x.ended && x.ms >= 9500 && x.ms < 20000), true);
	await compare('timeout_ms 0', { command: 'sleep 0.5; echo done', timeout_ms: 0 }, ['output'], { output: false });
	const big = await compare('2 MiB of output', { command: 'head -c 2097152 /dev/zero | tr "\\0" a' },
		['exit_code'], {});
	row('2 MiB of output: exactly the first 1 MiB, no marker',
		...big.map((x) => x.output === 'a'.repeat(1 << 20)), false);
	const unknown = await Promise.all([ours, ref].map((s) =>
		s.client.callTool({ name: 'nope', arguments: {} }).then(() => 0, (e) => e.code)));
	row('unknown tool: error code', unknown[0], unknown[1], true);

	// malformed JSON: shellesc answers -32700 and goes on; the reference's
	// transport stops reading, and the server exits
	const gone = [];
	for (const server of [{ command: SHELLESC, args: ['mcp', ...MODE] },
		{ command: process.execPath, args: [launcher] }]) {
		const raw = new Raw(t, dir, server);
		await raw.initialize();
		raw.send('this is not json');
		raw.send({ jsonrpc: '2.0', id: 9, method: 'ping' });
		let alive = false;
		for (let m; !alive && (m = await raw.next({ ms: 3000 }).catch(() => null)) !== null;)
			alive = m.id === 9 && 'result' in m;
		gone.push(alive);
	}
	row('malformed JSON: the server still answers', gone[0], gone[1], false);

	// one diagnostic a line: TAP shows each as a comment of its own
	t.diagnostic(`shellesc mcp against @openai/codex-shell-tool-mcp 0.97.0: ` +
		`${rows.filter((x) => x.same).length} agree, ${rows.filter((x) => !x.same).length} differ`);
	for (const x of rows) {
		t.diagnostic(`${x.same ? 'agree ' : 'DIFFER'}  ${x.what}`);
		if (!x.same)
			t.diagnostic(`        shellesc ${JSON.stringify(x.ours)}, reference ${JSON.stringify(x.ref)}`);
	}
});
