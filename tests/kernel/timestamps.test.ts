// The timestamptz parser's text fast path: it gives exactly the ISO string a Date would, for every form PostgreSQL sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isoTimestamp } from '../../kernel/db/index.ts';

const viaDate = (v: string) => new Date(v.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).toISOString();

test('UTC timestamps of every fraction length read as a Date would read them', () => {
  const fixed = ['2026-11-22 23:40:35+00', '2026-11-22 23:40:35.1+00', '2026-11-22 23:40:35.12+00', '2026-11-22 23:40:35.123+00',
    '2026-11-22 23:40:35.123456+00', '2026-11-22 23:40:35.999999+00', '0001-01-01 00:00:00+00', '9999-12-31 23:59:59.999999+00', '1970-01-01 00:00:00.000001+00'];
  const random = Array.from({ length: 20_000 }, () => {
    const at = new Date(Math.floor(Math.random() * 4e12) - 1e12).toISOString().slice(0, 19).replace('T', ' ');
    const micro = String(Math.floor(Math.random() * 1e6)).padStart(6, '0').slice(0, 1 + Math.floor(Math.random() * 6)).replace(/0+$/, '');
    return `${at}${micro ? `.${micro}` : ''}+00`;
  });
  for (const v of [...fixed, ...random]) assert.equal(isoTimestamp(v), viaDate(v), v);
});

test('other offsets take the Date path', () => {
  for (const v of ['2026-11-22 23:40:35.123456+05:30', '2026-11-22 23:40:35.5+02', '2026-11-22 01:00:00-08']) assert.equal(isoTimestamp(v), viaDate(v), v);
  assert.equal(isoTimestamp('2026-11-22 01:00:00-08'), '2026-11-22T09:00:00.000Z');
});
