import { parse as parseYaml, YAMLParseError } from 'yaml';
import { ConfigSchema, type Config } from '@runtime-bench/schemas';
import { RbError, errorMessage, parseWithFriendlyErrors } from '../errors.ts';
import { readTextFile } from '../util/read-file.ts';

/** Parses and validates YAML config text; every error names the file, the field and the problem. */
export function parseConfig(text: string, where: string): Config {
  let doc: unknown;
  try {
    doc = parseYaml(text, { prettyErrors: true });
  } catch (error) {
    const detail = error instanceof YAMLParseError ? error.message : errorMessage(error);
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: not valid YAML: ${detail}`,
      'fix the YAML syntax at the line shown',
    );
  }
  // An empty file is most likely a mistake (a wrong path, a truncated file), and defaulting it
  // would silently start the full default suite; `{}` says "all defaults" on purpose.
  if (doc === null || doc === undefined)
    throw new RbError(
      'CONFIG_INVALID',
      `${where}: the config is empty (no field is set, only comments or blank lines)`,
      'set at least one field, e.g. `benchmarks: [operations]`, or write `{}` to run every default on purpose',
    );
  return parseWithFriendlyErrors(ConfigSchema, doc, where, {
    code: 'CONFIG_INVALID',
    title: 'invalid config',
    hint: 'see examples/quick.yaml and schemas/json/config.schema.json for every field and its default',
  });
}

export async function loadConfig(path: string): Promise<Config> {
  const text = await readTextFile(path, {
    code: 'CONFIG_UNREADABLE',
    message: (reason) => `cannot read config ${path}: ${reason}`,
    hint: 'check the --config path',
  });
  return parseConfig(text, path);
}
