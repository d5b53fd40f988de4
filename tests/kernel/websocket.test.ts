// The RFC 6455 server side without a network: the accept key, frames of every length, masking, fragments, ping/pong, close and the refusals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { acceptKey, encodeFrame, FrameParser, Opcode, WebSocketConnection } from '../../kernel/http/websocket.ts';

const mask = Buffer.from([0x37, 0xfa, 0x21, 0x3d]);

test('the accept key of RFC 6455 section 1.3', () => {
  assert.equal(acceptKey('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=');
});

test('frames of 7-bit, 16-bit and 64-bit lengths, masked, read back whole from one byte at a time', () => {
  for (const size of [0, 5, 125, 126, 65535, 65536, 70000]) {
    const payload = Buffer.alloc(size, 'a');
    const wire = encodeFrame(Opcode.text, payload, mask);
    const parser = new FrameParser(true, 1 << 20);
    const frames = size < 200 ? [...wire].flatMap((b) => parser.push(Buffer.from([b]))) : parser.push(wire);
    assert.equal(frames.length, 1, `size ${size}`);
    assert.deepEqual(frames[0].payload, payload);
    assert.equal(frames[0].opcode, Opcode.text);
  }
  // the RFC's example: a masked "Hello"
  const hello = Buffer.from([0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]);
  assert.equal(new FrameParser(true, 100).push(hello)[0].payload.toString(), 'Hello');
  assert.deepEqual(encodeFrame(Opcode.text, Buffer.from('Hello')), Buffer.from([0x81, 0x05, 0x48, 0x65, 0x6c, 0x6c, 0x6f]));
});

test('refused: an unmasked client frame, a frame over the limit, a long or fragmented control frame, an unknown opcode', () => {
  assert.throws(() => new FrameParser(true, 100).push(encodeFrame(Opcode.text, Buffer.from('x'))), { code: 1002 });
  assert.throws(() => new FrameParser(true, 100).push(encodeFrame(Opcode.text, Buffer.alloc(101), mask)), { code: 1009 });
  assert.throws(() => new FrameParser(true, 1000).push(encodeFrame(Opcode.ping, Buffer.alloc(126), mask)), { code: 1002 });
  const unfinished = encodeFrame(Opcode.ping, Buffer.alloc(1), mask);
  unfinished[0] &= 0x7f;
  assert.throws(() => new FrameParser(true, 100).push(unfinished), { code: 1002 });
  assert.throws(() => new FrameParser(true, 100).push(encodeFrame(3, Buffer.alloc(1), mask)), { code: 1002 });
});

/** a connection over an in-memory socket: what the client sends, and the frames the server wrote */
function connection() {
  const socket = new PassThrough();
  const written: Buffer[] = [];
  socket.write = ((chunk: Buffer) => { written.push(chunk); return true; }) as never;
  socket.end = (() => socket) as never;
  const ws = new WebSocketConnection(socket as never, Buffer.alloc(0), 64);
  const messages: string[] = [];
  const closes: [number, string][] = [];
  ws.on('message', (t) => messages.push(t));
  ws.on('close', (code, reason) => closes.push([code, reason]));
  const sent = () => new FrameParser(false, 1 << 20).push(Buffer.concat(written));
  return { socket, ws, messages, closes, sent, client: (frame: Buffer) => socket.emit('data', frame) };
}

test('a message in fragments with a ping between; the ping is answered with its payload', () => {
  const c = connection();
  const first = encodeFrame(Opcode.text, Buffer.from('hel'), mask);
  first[0] &= 0x7f;
  c.client(first);
  c.client(encodeFrame(Opcode.ping, Buffer.from('p1'), mask));
  c.client(encodeFrame(Opcode.continuation, Buffer.from('lo ✓'), mask));
  assert.deepEqual(c.messages, ['hello ✓']);
  assert.deepEqual(c.sent().map((f) => [f.opcode, f.payload.toString()]), [[Opcode.pong, 'p1']]);
  c.ws.send('out');
  assert.deepEqual(c.sent().at(-1)!.payload.toString(), 'out');
});

test('a close is answered with its code; a message too large or not UTF-8 closes with 1009 or 1007', () => {
  const c = connection();
  const payload = Buffer.alloc(2);
  payload.writeUInt16BE(1000);
  c.client(encodeFrame(Opcode.close, payload, mask));
  assert.deepEqual(c.closes, [[1000, '']]);
  assert.equal(c.sent()[0].opcode, Opcode.close);
  assert.equal(c.sent()[0].payload.readUInt16BE(0), 1000);
  assert.equal(c.ws.send('late'), false);

  const big = connection();
  big.client(encodeFrame(Opcode.text, Buffer.alloc(65), mask));
  assert.equal(big.closes[0][0], 1009);
  const bad = connection();
  bad.client(encodeFrame(Opcode.text, Buffer.from([0xc3, 0x28]), mask));
  assert.equal(bad.closes[0][0], 1007);
});
