// The problem codes the sites plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'draft-changed': { status: 412, title: 'the draft changed since it was read' },
  'edge-hostname-taken': { status: 409, title: 'a hostname asked for is routed by another stack or site' },
  'link-out-of-tree': { status: 422, title: 'a symbolic link of the content leads out of its repository or build' },
  'name-too-long': { status: 422, title: 'a file name is too long to be written' },
  'no-draft': { status: [404, 409], title: 'the site has no draft' },
  'no-source': { status: 409, title: 'the site has no git source to check' },
  'no-such-file': { status: [404, 422], title: 'no file at that path' },
  'no-such-folder': { status: 422, title: 'the folder to publish does not exist' },
  'no-such-version': { status: 404, title: 'the site has no version of that id' },
  'path-conflict': { status: 422, title: 'a file and a folder of the draft would have the same path' },
  'site-changed': { status: 412, title: 'the site changed since it was read, or If-None-Match: * found it exists (its `ETag` is the current one)' },
  'site-not-found': { status: 404, title: 'no site of that name' },
  'would-overwrite': { status: 409, title: 'restoring would replace the site\'s draft (restore with `overwrite: true`)' },
};
