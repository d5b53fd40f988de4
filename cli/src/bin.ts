#!/usr/bin/env node
// The dw executable: runs the verb in argv and exits with its code.
import { run } from './main.ts';

run(process.argv.slice(2)).then((code) => { process.exitCode = code; });
