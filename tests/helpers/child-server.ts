// A kernel in a child process (for tests that kill it): config from DW_TEST_CONFIG (JSON), prints {"url": …} once it serves.
import { boot } from '../../kernel/app.ts';
import { root } from './harness.ts';

const app = await boot({ root, env: { NODE_ENV: 'test' }, config: JSON.parse(process.env.DW_TEST_CONFIG ?? '{}') });
process.stdout.write(JSON.stringify({ url: app.url }) + '\n');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
