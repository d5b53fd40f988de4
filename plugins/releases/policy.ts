// Which tag an update policy picks: the same tag (digest), or the newest semver tag within the patch, minor or major bound.
import semver from 'semver';
import type { Policy } from './store.ts';

/** a tag read as a version (a leading v allowed), or null */
export function versionOf(tag: string): semver.SemVer | null {
  return semver.parse(tag.replace(/^v(?=\d)/, ''));
}

/**
 * The tag to compare against under the policy: `digest` keeps the running tag; patch/minor/major the newest version
 * tag within the bound (pre-releases only when the running tag is one; the same `v` spelling as the running tag).
 * null for `none`, or when the running tag is no version (the caller then falls back to `digest`).
 */
export function candidateTag(policy: Policy, running: string, tags: readonly string[]): string | null {
  if (policy === 'none') return null;
  if (policy === 'digest') return running;
  const current = versionOf(running);
  if (!current) return null;
  const prefixed = running.startsWith('v');
  let best: { tag: string; version: semver.SemVer } = { tag: running, version: current };
  for (const tag of tags) {
    if (tag.startsWith('v') !== prefixed) continue;
    const v = versionOf(tag);
    if (!v || (v.prerelease.length && !current.prerelease.length)) continue;
    if (v.major !== current.major && policy !== 'major') continue;
    if (v.minor !== current.minor && policy === 'patch') continue;
    if (semver.gt(v, best.version)) best = { tag, version: v };
  }
  return best.tag;
}
