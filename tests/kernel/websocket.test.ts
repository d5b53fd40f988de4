// The server side of RFC 6455 through ws, over an in-memory socket: fragments, ping/pong, close and the refusals (1002, 1007, 1009), linear reassembly, a peer that pings without reading held by pausing its socket; over TCP, the heartbeat and the access re-check.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Duplex } from 'node:stream';
import { WebSockets } from '../../kernel/http/upgrade.ts';
import { acceptWebSocket, webSocketServer, type WebSocketConnection, type WebSocketLimits } from '../../kernel/http/websocket.ts';
import { eventually as until } from '../helpers/harness.ts';

const Opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;
const mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

/** one client frame, masked as a client's must be (`fin` false: a fragment that more follow) */
function frame(opcode: number, payload: Buffer = Buffer.alloc(0), fin = true, masked = true): Buffer {
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + extra + (masked ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (masked ? 0x80 : 0) | (extra === 0 ? length : extra === 2 ? 126 : 127);
  if (extra === 2) head.writeUInt16BE(length, 2);
  else if (extra === 8) head.writeBigUInt64BE(BigInt(length), 2);
  if (!masked) return Buffer.concat([head, payload]);
  mask.copy(head, 2 + extra);
  const body = Buffer.from(payload);
  for (let i = 0; i < body.length; i++) body[i] ^= mask[i & 3];
  return Buffer.concat([head, body]);
}

/** the server's frames (never masked) out of what it wrote after the 101 */
function serverFrames(wire: Buffer): { opcode: number; payload: Buffer }[] {
  const frames: { opcode: number; payload: Buffer }[] = [];
  let at = wire.indexOf('\r\n\r\n') + 4;
  while (at + 2 <= wire.length) {
    let length = wire[at + 1] & 0x7f;
    let offset = at + 2;
    if (length === 126) { length = wire.readUInt16BE(at + 2); offset += 2; } else if (length === 127) { length = Number(wire.readBigUInt64BE(at + 2)); offset += 8; }
    frames.push({ opcode: wire[at] & 0x0f, payload: wire.subarray(offset, offset + length) });
    at = offset + length;
  }
  return frames;
}

/** a socket in memory: what the client sends is pushed in, what the server writes is kept; `stuck` writes never complete (a peer that does not read) */
class MemorySocket extends Duplex {
  readonly written: Buffer[] = [];
  readonly #held: (() => void)[] = [];
  constructor(private stuck = false) { super({ highWaterMark: 16 }); }
  override _read(): void {}
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error) => void): void {
    this.written.push(chunk);
    if (this.stuck) this.#held.push(done);
    else done();
  }
  /** the peer reads again: every held write completes */
  flush(): void {
    this.stuck = false;
    for (const done of this.#held.splice(0)) done();
  }
  // the server ending its side ends the connection, as the client's TCP would answer
  override _final(done: () => void): void {
    this.push(null);
    done();
  }
  setNoDelay(): void {}
  setTimeout(): void {}
  get wire(): Buffer { return Buffer.concat(this.written); }
}

function connection(limits: WebSocketLimits = { maxMessage: 64, maxBuffered: 1 << 20 }, stuck = false) {
  const socket = new MemorySocket(stuck);
  const key = randomBytes(16).toString('base64');
  const req = { method: 'GET', headers: { upgrade: 'websocket', connection: 'Upgrade', 'sec-websocket-key': key, 'sec-websocket-version': '13' } };
  const ws: WebSocketConnection = acceptWebSocket(webSocketServer(limits), limits, req as never, socket, Buffer.alloc(0), ['X-Request-Id: r1']);
  const messages: string[] = [];
  const closes: [number, string][] = [];
  ws.on('message', (t) => messages.push(t));
  ws.on('close', (code, reason) => closes.push([code, reason]));
  const settle = () => new Promise((r) => setImmediate(r));
  return { socket, ws, key, messages, closes, settle, sent: () => serverFrames(socket.wire), client: (bytes: Buffer) => { socket.push(bytes); return settle(); } };
}

test('the 101 carries the accept key of RFC 6455 section 1.3 and the answer\'s own headers', async () => {
  const c = connection();
  const head = c.socket.wire.toString('latin1');
  assert.match(head, /^HTTP\/1\.1 101 Switching Protocols\r\n/);
  assert.ok(head.includes(`Sec-WebSocket-Accept: ${createHash('sha1').update(`${c.key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64')}\r\n`));
  assert.ok(head.includes('X-Request-Id: r1\r\n'));
  assert.equal(c.ws.open, true);
});

test('a message in fragments with a ping between; the ping is answered with its payload; text out', async () => {
  const c = connection();
  await c.client(frame(Opcode.text, Buffer.from('hel'), false));
  await c.client(frame(Opcode.ping, Buffer.from('p1')));
  await c.client(frame(Opcode.continuation, Buffer.from('lo ✓')));
  assert.deepEqual(c.messages, ['hello ✓']);
  assert.deepEqual(c.sent().map((f) => [f.opcode, f.payload.toString()]), [[Opcode.pong, 'p1']]);
  assert.equal(c.ws.send('out'), true);
  await c.settle();
  assert.deepEqual(c.sent().at(-1)!.payload.toString(), 'out');
  // the RFC's example, one byte at a time: a masked "Hello"
  for (const b of [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]) await c.client(Buffer.from([b]));
  assert.equal(c.messages.at(-1), 'Hello');
});

test('a close is answered with its code; afterwards nothing is sent', async () => {
  const c = connection();
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(1000);
  await c.client(frame(Opcode.close, payload));
  assert.deepEqual(c.closes, [[1000, '']]);
  assert.equal(c.sent()[0].opcode, Opcode.close);
  assert.equal(c.sent()[0].payload.readUInt16BE(0), 1000);
  assert.equal(c.ws.send('late'), false);
});

test('refused: a message over the limit (1009), text that is not UTF-8 (1007), an unmasked frame, a long or fragmented ping, an unknown opcode (1002)', async () => {
  const cases: [string, Buffer, number][] = [
    ['too large', frame(Opcode.text, Buffer.alloc(65)), 1009],
    ['too large in fragments', Buffer.concat([frame(Opcode.text, Buffer.alloc(40), false), frame(Opcode.continuation, Buffer.alloc(40))]), 1009],
    ['not UTF-8', frame(Opcode.text, Buffer.from([0xc3, 0x28])), 1007],
    ['unmasked', frame(Opcode.text, Buffer.from('x'), true, false), 1002],
    ['long ping', frame(Opcode.ping, Buffer.alloc(126)), 1002],
    ['fragmented ping', frame(Opcode.ping, Buffer.alloc(1), false), 1002],
    ['opcode 3', frame(3, Buffer.alloc(1)), 1002],
  ];
  for (const [what, bytes, code] of cases) {
    const c = connection();
    await c.client(bytes);
    assert.equal(c.closes[0]?.[0], code, what);
    assert.equal(c.sent().at(-1)?.opcode, Opcode.close, `${what}: a close frame is sent`);
    assert.deepEqual(c.messages, [], what);
  }
});

test('a close frame whose reason is not UTF-8, or whose code may not be sent, is refused (1007, 1002), not echoed', async () => {
  const badReason = Buffer.concat([Buffer.from([0x03, 0xe8]), Buffer.from([0xff, 0xfe, 0x41])]);
  const c = connection();
  await c.client(frame(Opcode.close, badReason));
  assert.equal(c.closes[0]?.[0], 1007);
  assert.equal(c.sent()[0].payload.readUInt16BE(0), 1007, 'the server closes with 1007');
  const reserved = connection();
  await reserved.client(frame(Opcode.close, Buffer.from([0x03, 0xed])));
  assert.equal(reserved.closes[0]?.[0], 1002, 'code 1005 is never on the wire');
});

test('reassembly is linear: a 1 MiB frame that comes 16 bytes at a time is read in well under a second', async () => {
  const size = (1 << 20) - 64;
  const c = connection({ maxMessage: 1 << 20, maxBuffered: 1 << 20 });
  const wire = frame(Opcode.text, Buffer.alloc(size, 'a'));
  const started = performance.now();
  for (let at = 0; at < wire.length; at += 16) c.socket.push(wire.subarray(at, at + 16));
  while (c.messages.length === 0 && performance.now() - started < 60_000) await c.settle();
  const ms = performance.now() - started;
  assert.equal(c.messages[0]?.length, size);
  // 65,536 pieces: a parser that copies what it holds for each piece copies 32 GiB (minutes); a linear one takes ~0.1 s
  assert.ok(ms < 5000, `took ${Math.round(ms)} ms`);
});

test('a peer that pings without reading the pongs: its socket is paused once the pongs waiting reach the limit, and read again when they leave', async () => {
  const maxBuffered = 4096;
  const c = connection({ maxMessage: 1 << 20, maxBuffered }, true);
  const ping = frame(Opcode.ping, Buffer.alloc(125, 'p'));
  // 10 MB of pings: each answered with 127 bytes that the peer never takes
  for (let i = 0; i < 80_000; i++) c.socket.push(ping);
  for (let i = 0; i < 20; i++) await c.settle();
  assert.equal(c.socket.isPaused(), true, 'the socket is no longer read');
  const waiting = c.socket.writableLength;
  assert.ok(waiting < maxBuffered + 64 * 1024, `${waiting} bytes of pongs wait (at most the limit and one read's worth)`);
  assert.ok(c.socket.readableLength > 9_000_000, 'the rest waits unread, where the peer put it');
  assert.equal(c.ws.open, true, 'the connection stays open');
  c.socket.flush();
  for (let i = 0; i < 20 && c.socket.readableLength > 0; i++) await c.settle();
  assert.ok(c.socket.readableLength < 9_000_000, 'read again once the pongs left');
});

/** a real server whose upgrades the kernel's WebSockets take over (re-checked every 200 ms), and a raw client socket to it */
async function served(stillAllowed?: () => Promise<boolean>) {
  const webSockets = new WebSockets({ recheckMs: 200 });
  const peers: WebSocketConnection[] = [];
  const server = createServer();
  server.on('upgrade', (req, socket, head) => {
    (req as { upgradeHead?: Buffer }).upgradeHead = head;
    peers.push(webSockets.open(req as never, new ServerResponse(req), [], stillAllowed));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  const client = connect(port, '127.0.0.1');
  client.write(`GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`);
  await new Promise((r) => client.once('data', r));
  const closes: [number, string][] = [];
  peers[0].on('close', (code, reason) => closes.push([code, reason]));
  return { webSockets, peer: peers[0], client, closes, stop: () => { client.destroy(); server.close(); } };
}

test('a peer that went away while its connection was not read is noticed by the next heartbeat', async () => {
  const c = await served();
  c.peer.pause();
  // more than the server's socket reads ahead: it stops reading the connection altogether
  c.client.write(Buffer.concat(Array.from({ length: 64 }, () => frame(Opcode.text, Buffer.alloc(32 * 1024, 'x')))));
  await new Promise((r) => setTimeout(r, 300));
  c.client.resetAndDestroy();
  await until(async () => c.closes.length > 0, 5000, 'the close');
  assert.equal(c.webSockets.size, 0);
  c.stop();
});

test('a connection whose caller lost access is closed with 1008 at the next check', async () => {
  let allowed = true;
  const c = await served(async () => allowed);
  await new Promise((r) => setTimeout(r, 500));
  assert.deepEqual(c.closes, [], 'open while allowed');
  allowed = false;
  await until(async () => c.closes.length > 0, 5000, 'the close');
  assert.equal(c.closes[0][0], 1008);
  c.stop();
});
