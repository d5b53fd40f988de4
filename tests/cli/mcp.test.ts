// MCP: the SDK's own client over POST /api/v1/mcp and over `dw mcp` (stdio): tools listed with annotations, stack_status, deploy_stack only with confirm and the scope, values redacted, calls in the activity log as MCP.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { TestServer } from '../helpers/harness.ts';
import { busybox, cleanupProjects, createStack, startStacksServer, uniqueName } from '../plugins/stacks/helpers.ts';
import { installCli, type Installed } from './helpers.ts';

let s: TestServer;
let cli: Installed;
const name = uniqueName('mcpstack');

async function connect(token: string): Promise<Client> {
  const client = new Client({ name: 'dockwright-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${s.url}/api/v1/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

const textOf = (result: any): string => result.content.map((c: any) => c.text).join('\n');

before(async () => {
  [s, cli] = await Promise.all([startStacksServer(), installCli()]);
  await createStack(s, name, busybox());
  const env = await s.api('GET', `/api/v1/stacks/${name}`);
  assert.equal((await s.api('PUT', `/api/v1/stacks/${name}/env`, { body: { values: { DB_PASSWORD: 'hunter2-very-secret', MODE: 'blue' } }, headers: { 'if-match': `"${env.body.revision}"` } })).status, 200);
});
after(async () => {
  await cleanupProjects(name);
  await s?.close();
  cli?.remove();
});

test('the tools are listed for a model: the required seven and more, mutations annotated, read tools read-only', async () => {
  const client = await connect(s.admin);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const required of ['list_stacks', 'stack_status', 'stack_logs', 'deploy_stack', 'rollback_stack', 'job_status', 'list_attention']) assert.ok(names.includes(required), required);
  assert.ok(tools.length >= 15 && tools.length <= 20, `${tools.length} tools`);
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  assert.equal(byName.list_stacks!.annotations?.readOnlyHint, true);
  assert.equal(byName.rollback_stack!.annotations?.destructiveHint, true);
  assert.equal(byName.stop_stack!.annotations?.destructiveHint, true);
  assert.equal(byName.deploy_stack!.annotations?.readOnlyHint, false);
  assert.ok((byName.deploy_stack!.inputSchema.properties as any).confirm, 'deploy_stack takes confirm');
  for (const tool of tools) assert.ok((tool.description ?? '').length > 40, `${tool.name} is described`);
  await client.close();
});

test('stack_status answers the stack; stack_variables names the variables without their values', async () => {
  const client = await connect(s.admin);
  const status = JSON.parse(textOf(await client.callTool({ name: 'stack_status', arguments: { name } })));
  assert.equal(status.name, name);
  assert.equal(status.status, 'never-deployed');
  const vars = await client.callTool({ name: 'stack_variables', arguments: { name } });
  assert.deepEqual(JSON.parse(textOf(vars)).names, ['DB_PASSWORD', 'MODE']);
  assert.ok(!textOf(vars).includes('hunter2') && !textOf(vars).includes('blue'));
  const missing = await client.callTool({ name: 'stack_status', arguments: { name: 'no-such-stack' } });
  assert.equal(missing.isError, true);
  assert.match(textOf(missing), /404/);
  await client.close();
});

test('deploy_stack does nothing without confirm: true, deploys with it, and each call is in the activity log as MCP', async () => {
  const client = await connect(s.admin);
  const held = await client.callTool({ name: 'deploy_stack', arguments: { name } });
  assert.equal(held.isError, true);
  assert.match(textOf(held), /confirm: true/);
  assert.equal((await s.api('GET', `/api/v1/stacks/${name}`)).body.status, 'never-deployed');
  const done = await client.callTool({ name: 'deploy_stack', arguments: { name, confirm: true, wait: 120 } });
  assert.notEqual(done.isError, true, textOf(done));
  const job = JSON.parse(textOf(done)).job;
  assert.equal(job.status, 'succeeded', textOf(done));
  const jobStatus = JSON.parse(textOf(await client.callTool({ name: 'job_status', arguments: { id: job.id } })));
  assert.equal(jobStatus.status, 'succeeded');
  const activity = (await s.api('GET', '/api/v1/activity?limit=50')).body as any[];
  const toolCalls = activity.filter((a) => a.action === 'mcp.deploy_stack');
  assert.deepEqual(toolCalls.map((a) => [a.result, a.actor.channel, a.resource]).sort(), [['ok', 'mcp', `stack:${name}`], ['refused', 'mcp', `stack:${name}`]]);
  const deploy = activity.find((a) => a.resource === `stack:${name}` && /deploy/.test(a.action) && !a.action.startsWith('mcp.'));
  assert.equal(deploy?.actor.channel, 'mcp', 'the deploy itself is marked as made through MCP');
  assert.ok(!JSON.stringify(activity).includes('hunter2'));
  await client.close();
});

test('a read-only token\'s deploy_stack is refused even with confirm, and deploys nothing', async () => {
  const reader = await s.token('operator', ['stacks:read', 'jobs:read']);
  const client = await connect(reader);
  const before = (await s.api('GET', '/api/v1/jobs?limit=100')).body.length;
  const refused = await client.callTool({ name: 'deploy_stack', arguments: { name, confirm: true } });
  assert.equal(refused.isError, true);
  assert.match(textOf(refused), /403[^]*stacks:deploy/);
  assert.equal((await s.api('GET', '/api/v1/jobs?limit=100')).body.length, before, 'no job started');
  const status = JSON.parse(textOf(await client.callTool({ name: 'stack_status', arguments: { name } })));
  assert.equal(status.status, 'running', 'reading still works');
  await client.close();
});

test('the endpoint wants a valid bearer token', async () => {
  const res = await fetch(`${s.url}/api/v1/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
  assert.equal(res.status, 401);
  await assert.rejects(connect('dw_wrong-token'));
});

test('dw mcp serves the same tools over stdio', async () => {
  const client = new Client({ name: 'dockwright-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: cli.bin, args: ['mcp'], env: { PATH: process.env.PATH!, DOCKWRIGHT_URL: s.url, DOCKWRIGHT_TOKEN: s.admin } }));
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === 'stack_status'));
  const listed = JSON.parse(textOf(await client.callTool({ name: 'list_stacks', arguments: {} })));
  assert.ok(listed.some((x: any) => x.name === name));
  await client.close();
});

test('a malformed message is a 400 problem, not a crash; the endpoint takes POST only', async () => {
  for (const body of ['{}', '"text"', '[1,2]', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}']) {
    const res = await fetch(`${s.url}/api/v1/mcp`, { method: 'POST', headers: { authorization: `Bearer ${s.admin}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body });
    assert.ok(res.status === 400 || res.status === 200, `${body}: ${res.status}`);
    if (res.status === 400) assert.equal(res.headers.get('content-type'), 'application/problem+json');
    else assert.match(await res.text(), /no_such_tool/);
  }
  const noAccept = await fetch(`${s.url}/api/v1/mcp`, { method: 'POST', headers: { authorization: `Bearer ${s.admin}`, 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' });
  assert.equal(noAccept.status, 406);
  const get = await fetch(`${s.url}/api/v1/mcp`, { headers: { authorization: `Bearer ${s.admin}` } });
  assert.ok(get.status === 405 || get.status === 404, String(get.status));
});
