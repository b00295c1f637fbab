// What a file handed to `validate` or `publish` is: a run config (YAML, or JSON without a result's
// fields), a result (JSON) or a bisection report (JSON with steps and an outcome). Pure: by
// extension first, then by content.
import { extname } from 'node:path';

export type ValidatedKind = 'config' | 'result' | 'bisection';

/**
 * `.yaml`/`.yml` are configs; a JSON object with a bisection report's `steps` and `outcome` (and
 * no `runId`) is a bisection report; anything else that parses as a JSON object with a result's
 * `runId` or `schemaVersion` is a result; JSON without them is a config when it looks like one
 * (no `results`), else a result (so its errors name the missing fields); text that is not JSON
 * is YAML, hence a config, unless it is named `.json` (then it is a broken result).
 */
export function detectKind(path: string, text: string): ValidatedKind {
  const ext = extname(path).toLowerCase();
  if (ext === '.yaml' || ext === '.yml') return 'config';
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return ext === '.json' ? 'result' : 'config';
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) return 'result';
  const keys = Object.keys(doc);
  if (keys.includes('steps') && keys.includes('outcome') && !keys.includes('runId')) return 'bisection';
  if (keys.includes('runId') || keys.includes('schemaVersion') || keys.includes('results')) return 'result';
  return 'config';
}
