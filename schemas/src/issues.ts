import type { z } from 'zod';

/** Renders an issue path the way a user would write it: `targets[0].handlers`, `parameters["performance.cpu"]`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`;
    else if (typeof key === 'string' && /^[A-Za-z_$][\w$-]*$/.test(key)) out += out ? `.${key}` : key;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out || '(top level)';
}

/** One line per zod issue, each naming the field: `<where>: <field>: <problem>`. */
export function describeIssues(error: z.ZodError, where: string): string[] {
  return error.issues.map((issue) => `${where}: ${formatIssuePath(issue.path)}: ${issue.message}`);
}
