// The problem codes the certificates plugin answers with (listed in docs/reference/problem-codes.md).
import type { ProblemDef } from '../../sdk/index.ts';

export const problems: Readonly<Record<string, ProblemDef>> = {
  'certificate-is-acme': { status: 409, title: 'a certificate of that name comes from a CA (ACME): delete it first, or upload under another name' },
  'certificate-is-upload': { status: 409, title: 'a certificate of that name is an upload: delete it first, or request under another name' },
  'certificate-refused': { status: 422, title: 'the uploaded certificate cannot be used (`errors` says why)' },
  'certificate-request-refused': { status: 422, title: 'a domain of the request cannot be validated with the challenge asked for' },
};
