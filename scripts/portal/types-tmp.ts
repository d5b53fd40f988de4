// tmp: generate
import { writeFileSync } from 'node:fs';
import { describeApi } from '../../kernel/describe.ts';
import { apiTypes } from './api-types.ts';
writeFileSync('sdk/portal/api.d.ts', apiTypes(await describeApi(process.cwd())));
