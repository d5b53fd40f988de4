// The backup definition form: targets, schedule, retention, consistency and repository, for a new backup or an existing one (PUT replaces the definition).
import { useState } from 'preact/hooks';
import { api, can, naturally, ok, ProblemBox, useAction, useLoad, useSession, type paths } from '../../../sdk/portal/kit.tsx';

export type BackupView = paths['/api/v1/backups/{name}']['get']['responses'][200]['content']['application/json'];
type Body = paths['/api/v1/backups/{name}']['put']['requestBody']['content']['application/json'];
type Retention = NonNullable<Body['retention']>;

export const keeps = ['last', 'hourly', 'daily', 'weekly', 'monthly', 'yearly'] as const;

/** the targets of a definition in words: "stacks web, api; the sites; Dockwright's database" */
export function targetWords(targets: Record<string, unknown>): string {
  return Object.entries(targets).flatMap(([key, value]) => {
    if (key === 'stacks' && Array.isArray(value)) return value.length ? [`stacks ${value.join(', ')}`] : [];
    if (key === 'sites') return value ? ['the sites'] : [];
    if (key === 'database') return value ? ["Dockwright's database"] : [];
    return value === false || value === null ? [] : [key];
  }).join('; ') || 'nothing';
}

/** the retention policy in words: "last 3, daily 7" */
export function retentionWords(r: BackupView['retention']): string {
  return r ? keeps.filter((k) => r[k]).map((k) => `${k} ${r[k]}`).join(', ') : 'every snapshot is kept';
}

/** KEY=value lines as an object; a line without `=` is refused */
function envOf(text: string): Record<string, string> | string {
  const env: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const at = line.indexOf('=');
    if (at < 1) return `"${line}" is not KEY=value`;
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

export function BackupForm({ name: fixed, backup, onSaved }: { name?: string; backup?: BackupView; onSaved(view: BackupView): void }) {
  const session = useSession();
  const stacks = useLoad(async () => (can('stacks:read') ? (await ok(api.GET('/api/v1/stacks', { params: { query: { limit: 500 } } }))).map((s) => s.name).sort(naturally) : []), []);
  const before = (backup?.targets ?? {}) as { stacks?: string[]; sites?: boolean; database?: boolean };
  const [name, setName] = useState(fixed ?? '');
  const [chosen, setChosen] = useState<string[]>(before.stacks ?? []);
  const [sites, setSites] = useState(Boolean(before.sites));
  const [database, setDatabase] = useState(Boolean(before.database));
  const [schedule, setSchedule] = useState(backup?.schedule ?? '');
  const [retention, setRetention] = useState<Record<string, string>>(Object.fromEntries(keeps.map((k) => [k, String(backup?.retention?.[k] ?? '')])));
  const [consistency, setConsistency] = useState<'live' | 'stop'>(backup?.consistency ?? 'live');
  const [custom, setCustom] = useState(backup ? !backup.repository.default : false);
  const [url, setUrl] = useState(backup?.repository.url ?? '');
  const [env, setEnv] = useState(backup?.repository.env.map((k) => `${k}=`).join('\n') ?? '');
  const [sshKey, setSshKey] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const kept = Object.fromEntries(keeps.filter((k) => retention[k].trim()).map((k) => [k, Number(retention[k])])) as Retention;
    const environment = envOf(env);
    const body: Body = {
      // targets this form does not know (another plugin's) are sent back as they were
      targets: { ...backup?.targets, stacks: chosen, ...(can('sites:read') || before.sites ? { sites } : {}), ...(session?.user.role === 'admin' || before.database ? { database } : {}) },
      schedule: schedule.trim() || null,
      retention: Object.keys(kept).length ? kept : null,
      consistency,
      ...(custom ? { repository: { url: url.trim(), ...(typeof environment === 'object' && Object.keys(environment).length ? { env: environment } : {}), ...(sshKey.trim() ? { sshKey } : {}) } } : {}),
      ...(password ? { password } : {}),
    };
    const saved = await act.run(async () => {
      if (typeof environment === 'string') throw { status: 400, title: 'Bad Request', detail: `repository credentials: ${environment}`, type: '' };
      return ok(api.PUT('/api/v1/backups/{name}', { params: { path: { name } }, body }));
    });
    if (saved) { setPassword(''); setSshKey(''); onSaved(saved); }
  };
  const setKeep = (k: string, v: string) => setRetention({ ...retention, [k]: v });
  return (
    <form class="card" onSubmit={submit} aria-labelledby="backup-form-title">
      <h2 id="backup-form-title">{backup ? 'Change this backup' : 'Define a backup'}</h2>
      {!fixed && <label>Name (lowercase letters, digits and -)<input name="backup-name" required pattern="[a-z0-9][a-z0-9\-]{0,62}" value={name} onInput={(e) => setName(e.currentTarget.value)} /></label>}
      <fieldset>
        <legend>What to back up</legend>
        {stacks.data && stacks.data.length > 0 && <p class="muted">The named volumes of the stacks chosen:</p>}
        <div class="scopes">{[...new Set([...(stacks.data ?? []), ...chosen])].map((s) => (
          <label class="check"><input type="checkbox" checked={chosen.includes(s)} onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, s] : chosen.filter((x) => x !== s))} /> stack {s}</label>
        ))}</div>
        {(can('sites:read') || before.sites) && <label class="check"><input type="checkbox" checked={sites} onChange={(e) => setSites(e.currentTarget.checked)} /> every site (kept versions and drafts)</label>}
        {(session?.user.role === 'admin' || before.database) && <label class="check"><input type="checkbox" checked={database} onChange={(e) => setDatabase(e.currentTarget.checked)} /> Dockwright's own database</label>}
      </fieldset>
      <label>Schedule (cron of 5 fields or @daily, @hourly…, server time; empty: only when run by hand)<input name="schedule" value={schedule} placeholder="0 3 * * *" onInput={(e) => setSchedule(e.currentTarget.value)} /></label>
      <fieldset>
        <legend>Retention: snapshots kept after each run (empty: all)</legend>
        <div class="scopes">{keeps.map((k) => (
          <label class="inline">{k}<input type="number" min={1} max={10000} value={retention[k]} onInput={(e) => setKeep(k, e.currentTarget.value)} /></label>
        ))}</div>
      </fieldset>
      <label>Consistency<select value={consistency} onChange={(e) => setConsistency(e.currentTarget.value as 'live' | 'stop')}>
        <option value="live">live: the containers keep running during the snapshot</option>
        <option value="stop">stop: the stacks' containers are stopped during the snapshot, then started again</option>
      </select></label>
      <fieldset>
        <legend>Repository</legend>
        <label class="check"><input type="radio" name="repository" checked={!custom} onChange={() => setCustom(false)} /> the default folder in Dockwright's data directory</label>
        <label class="check"><input type="radio" name="repository" checked={custom} onChange={() => setCustom(true)} /> another restic repository</label>
        {custom && (
          <>
            <label>Repository (a folder below an allowed root, or sftp:, rest:, s3:, b2:, azure:, gs:, swift:)<input name="repository-url" required value={url} placeholder="s3:https://s3.example.com/bucket/dockwright" onInput={(e) => setUrl(e.currentTarget.value)} /></label>
            <label>Credentials (KEY=value per line, e.g. AWS_ACCESS_KEY_ID; stored sealed, never shown again{backup?.repository.env.length ? '; enter the values again to keep them' : ''})<textarea rows={3} spellcheck={false} autoComplete="off" value={env} onInput={(e) => setEnv(e.currentTarget.value)} /></label>
            {url.startsWith('sftp:') && <label>SSH private key for sftp (optional; stored sealed{backup?.repository.sshKey ? '; paste it again to keep it' : ''})<textarea rows={3} spellcheck={false} autoComplete="off" value={sshKey} onInput={(e) => setSshKey(e.currentTarget.value)} /></label>}
          </>
        )}
        <label>Repository password (at least 8 characters; empty: {backup ? 'keep the current one' : 'one is generated'})<input type="password" autoComplete="new-password" minLength={8} value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></label>
      </fieldset>
      <div class="actions"><button type="submit" class="primary" disabled={act.busy}>{backup ? 'Save backup' : 'Create backup'}</button></div>
      <ProblemBox problem={act.problem} />
    </form>
  );
}
