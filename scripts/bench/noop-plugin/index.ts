// A benchmark-only plugin: one job type that does nothing, to measure the job runner itself.
import { definePlugin, defineJob, Type } from '../../../sdk/index.ts';

export default definePlugin({
  name: 'bench',
  version: '1.0.0',
  setup(ctx) {
    return { noop: ctx.jobs.define(defineJob({ type: 'bench.noop', input: Type.Object({ i: Type.Integer() }), run: async () => null })) };
  },
});
