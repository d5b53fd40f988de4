// dockwright-plugin-notes: short notes behind a GET and a revisioned PUT, and a job that counts their words.
import { definePlugin, defineJob, defineRoute, JobAcceptedSchema, problem, reply, Type } from 'dockwright/sdk';

const Params = Type.Object({ name: Type.String({ pattern: '^[a-z0-9-]{1,40}$' }) });
const Note = Type.Object({ name: Type.String(), text: Type.String(), revision: Type.Integer() });

export default definePlugin({
  name: 'notes',
  version: '1.0.0',
  sdk: '^1',                                    // the SDK versions this plugin works with: the kernel refuses others
  env: [],                                      // the environment variables it reads (ctx.env holds only these)
  services: ['db', 'revisions'],                // the kernel services it uses (ctx holds only these)
  options: Type.Object({ maxLength: Type.Integer({ minimum: 1, default: 10_000 }) }),
  setup(ctx) {                                  // register only; do I/O in ctx.onStart
    ctx.scopes.define({
      'notes:read': { description: 'read notes', role: 'viewer' },
      'notes:write': { description: 'write notes and count their words', role: 'operator' },
    });
    ctx.migrations.from(new URL('../migrations', import.meta.url));   // node-pg-migrate .sql files, tables named notes_…

    const read = async (name: string) => {
      const { rows: [note] } = await ctx.db.query<{ text: string; revision: number }>('SELECT text, revision FROM notes_entries WHERE name = $1', [name]);
      if (!note) throw problem(404, `no note "${name}"`);
      return { name, ...note };
    };

    const count = ctx.jobs.define(defineJob({
      type: 'notes.count',
      input: Type.Object({ name: Type.String() }),
      async run(job) {
        const { text } = await read(job.input.name);
        const words = text.split(/\s+/).filter(Boolean).length;
        job.log(`${job.input.name} has ${words} words`);
        return { words };
      },
    }));

    ctx.routes.add(defineRoute({
      method: 'GET', path: '/notes/:name', scopes: ['notes:read'], summary: 'Read a note', params: Params, response: Note,
      handler: async ({ params }) => read(params.name),
    }));
    ctx.routes.add(defineRoute({
      method: 'PUT', path: '/notes/:name', scopes: ['notes:write'], revision: 'required', errors: [409],
      summary: 'Write a note: If-Match: "<revision>", or If-None-Match: * to create it',
      params: Params, body: Type.Object({ text: Type.String({ maxLength: ctx.options.maxLength }) }, { additionalProperties: false }),
      response: Note, activity: 'notes.write', resource: 'note:{name}',
      handler: async ({ params, body, revision, principal }) => {
        await ctx.revisions.write({
          kind: 'note', key: params.name, expected: revision, actor: principal.actor,   // revision is a number here
          apply: async (tx, next) => {
            await tx.query(`INSERT INTO notes_entries (name, text, revision) VALUES ($1, $2, $3)
                            ON CONFLICT (name) DO UPDATE SET text = $2, revision = $3`, [params.name, body.text, next]);
            return { text: body.text };
          },
        });
        return read(params.name);
      },
    }));
    ctx.routes.add(defineRoute({
      method: 'POST', path: '/notes/:name/count', scopes: ['notes:write'], summary: 'Count the words of a note (a job: 202)',
      params: Params, status: 202, response: JobAcceptedSchema, activity: 'notes.count', resource: 'note:{name}',
      handler: async ({ params, principal }) => {
        await read(params.name);
        const job = await count.enqueue({ name: params.name }, { actor: principal.actor, resource: `note:${params.name}` });
        return reply(202, { ...job, jobId: job.id });
      },
    }));
    return { read };                            // the API of plugins that require this one
  },
});
