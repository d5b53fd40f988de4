// The input rules alone: the URL forms, branch names and tree paths that are accepted, and how they come out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { branchError, commitId, parseRepoUrl, treePath } from '../../../plugins/git/validate.ts';

test('accepted repository URLs: https (password moves out), ssh://, scp form, local only below an allowed root', () => {
  assert.deepEqual(parseRepoUrl('https://github.com/owner/repo.git', []), { url: 'https://github.com/owner/repo.git', display: 'https://github.com/owner/repo.git', kind: 'https' });
  assert.deepEqual(parseRepoUrl('https://bot:t%40ken@git.example.com:8443/o/r', []),
    { url: 'https://git.example.com:8443/o/r', display: 'https://git.example.com:8443/o/r', kind: 'https', username: 'bot', password: 't@ken' });
  assert.equal(parseRepoUrl('ssh://git@git.example.com:2222/o/r.git', []).kind, 'ssh');
  assert.equal(parseRepoUrl('git@github.com:owner/repo.git', []).url, 'git@github.com:owner/repo.git');
  assert.equal(parseRepoUrl('gitea.local:team/app', []).kind, 'ssh');

  const root = mkdtempSync(join(tmpdir(), 'dw-validate-'));
  try {
    assert.equal(parseRepoUrl(`${root}/a.git`, [root]).kind, 'local');
    assert.equal(parseRepoUrl(`file://${root}/a.git`, [root]).url, `file://${root}/a.git`);
    assert.throws(() => parseRepoUrl(`${root}/a.git`, []), /not allowed on this install/);
    // a link inside the root that leads out does not make its target allowed
    symlinkSync('/etc', join(root, 'etc-link'));
    assert.throws(() => parseRepoUrl(`${root}/etc-link`, [root]), /not below a folder/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('branch names follow git check-ref-format --branch', () => {
  for (const ok of ['main', 'release/1.2', 'feature-x_y', 'v1.0', 'users/ana/fix']) assert.equal(branchError(ok), null, ok);
  for (const bad of ['', '-x', '--foo', 'a..b', 'x y', 'a~b', 'a^b', 'a:b', 'a?b', 'a*b', 'a[b', 'a\\b', 'a@{b', '@', 'HEAD', '/a', 'a/', 'a//b', 'a.', '.a', 'a/.b', 'a.lock', 'a/b.lock', 'tab\there']) {
    assert.notEqual(branchError(bad), null, bad);
  }
});

test('tree paths are relative, normalised and never climb out; commits are hex ids', () => {
  assert.equal(treePath('./deploy//compose.yaml'), 'deploy/compose.yaml');
  for (const bad of ['', '/etc/passwd', '../x', 'a/../../x', 'a/..', '-x', 'a\\b', '.', 'a\nb']) assert.throws(() => treePath(bad), Error, bad);
  assert.equal(commitId('ABCDEF1'), 'abcdef1');
  for (const bad of ['abc', 'main', 'HEAD~1', 'g'.repeat(40), '1'.repeat(65)]) assert.throws(() => commitId(bad), Error, bad);
});
