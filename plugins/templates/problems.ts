// The problem codes the templates plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'invalid-template': { status: 422, title: 'the stack does not make a valid template (its `errors` name each field)' },
  'invalid-variables': { status: 422, title: 'a variable is missing or fails its type or validation (its `errors` name the template and each field)' },
  'no-template': { status: 404, title: 'the stack was not made from a catalogue template' },
  'template-gone': { status: 409, title: 'the stack\'s template is no longer offered by its source' },
  'update-conflicts': { status: 409, title: 'the template update conflicts with the stack\'s own edits: resolve them and send the compose' },
};
