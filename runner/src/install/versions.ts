// Reading a component's version from the component itself (`runc --version`, …): pure parsing.
import type { ComponentName } from './components.ts';

/**
 * The version a component reports, in the form releases are named: the first x.y[.z] of the
 * output (`runc version 1.3.6+ds1` → `1.3.6`, `containerd … v2.1.9 …` → `2.1.9`); for runsc the
 * release date (`runsc version release-20240729.0` → `20240729.0`). Null when none is printed.
 */
export function parseReportedVersion(name: ComponentName, output: string): string | null {
  if (name === 'runsc') {
    const m = /runsc version (?:release-)?(\S+)/.exec(output);
    return m ? m[1]! : null;
  }
  const m = /(?:^|[\s/v])v?(\d+\.\d+(?:\.\d+)?)(?=$|[\s~+-])/m.exec(output);
  return m ? m[1]! : null;
}

/** True when a reported version is the requested one (`1.28` matches `1.28`, `1.1` matches `1.1.0`). */
export function sameVersion(requested: string, reported: string): boolean {
  const norm = (v: string) => v.replace(/^v/, '').replace(/(\.0)+$/, '');
  return norm(requested) === norm(reported);
}
