// Statements with parameters are prepared once per connection (bounded in number), and a table changed under one is prepared again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../helpers/harness.ts';
import { StatementNames } from '../../kernel/db/index.ts';

test('a statement with parameters is prepared on its connection once and reused; one without stays unprepared', async () => {
  const server = await startServer({ plugins: {} });
  const session = await server.app.db.session();
  try {
    const text = 'SELECT $1::int + 1 AS n';
    assert.deepEqual((await session.query(text, [1])).rows, [{ n: 2 }]);
    assert.deepEqual((await session.query(text, [41])).rows, [{ n: 42 }]);
    await session.query('SELECT 7 AS plain');
    const { rows } = await session.query<{ statement: string; from_sql: boolean }>('SELECT statement, from_sql FROM pg_prepared_statements');
    assert.deepEqual(rows.filter((r) => r.statement === text).map((r) => r.from_sql), [false], 'prepared once, by the protocol');
    assert.equal(rows.some((r) => r.statement.includes('plain')), false);
    // a failing statement is not left half-prepared: the next call with the same text still runs
    await assert.rejects(session.query('SELECT $1::int / 0 AS n', [1]), /division by zero/);
    await assert.rejects(session.query('SELECT $1::int FROM nowhere', [1]), /does not exist/);
    assert.deepEqual((await session.query(text, [2])).rows, [{ n: 3 }]);
  } finally {
    session.release();
    await server.close();
  }
});

test('a table changed under a prepared SELECT * answers with its new shape, outside and inside a transaction', async () => {
  const server = await startServer({ plugins: {} });
  const db = server.app.db;
  const session = await db.session();
  try {
    await session.query('CREATE TABLE reshaped (id int PRIMARY KEY, a text)');
    await session.query('INSERT INTO reshaped VALUES (1, $1)', ['x']);
    const text = 'SELECT * FROM reshaped WHERE id = $1';
    assert.deepEqual((await session.query(text, [1])).rows, [{ id: 1, a: 'x' }]);
    await session.query('ALTER TABLE reshaped ADD COLUMN b text');
    assert.deepEqual((await session.query(text, [1])).rows, [{ id: 1, a: 'x', b: null }], 'prepared again, not refused');
    await session.query('ALTER TABLE reshaped ADD COLUMN c text');
    // in a transaction the refusal has already ended it: the transaction fails, and the next one runs the new shape
    await assert.rejects(session.tx((tx) => tx.query(text, [1])), /cached plan must not change result type/);
    assert.deepEqual((await session.tx((tx) => tx.query(text, [1]))).rows, [{ id: 1, a: 'x', b: null, c: null }]);
  } finally {
    session.release();
    await server.close();
  }
});

test('names are given to a bounded number of texts; past the bound a text runs unnamed', () => {
  const names = new StatementNames(2);
  const a = names.nameOf('SELECT $1');
  assert.ok(a);
  assert.equal(names.nameOf('SELECT $1'), a, 'the same text keeps its name');
  const b = names.nameOf('SELECT $1, $2');
  assert.ok(b && b !== a);
  assert.equal(names.nameOf('SELECT $1, $2, $3'), undefined);
  names.forget('SELECT $1');
  const again = names.nameOf('SELECT $1');
  assert.ok(again && again !== a && again !== b, 'a forgotten text is prepared afresh under a name never used before');
});
