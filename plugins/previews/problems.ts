// The problem codes the previews plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'previews-disabled': { status: 409, title: 'the stack has no previews set up' },
  'preview-hostname': { status: 422, title: 'the preview\'s hostname cannot be made from the domain set up' },
  'preview-hostname-taken': { status: 409, title: 'the preview\'s hostname is routed by another stack or site' },
  'preview-limit': { status: 409, title: 'the stack has as many previews as it may' },
  'preview-name-too-long': { status: 422, title: 'the preview\'s stack name would be too long' },
  'preview-removing': { status: 409, title: 'the preview is being removed' },
};
