// Which target kind runs a config. A kubernetes target runs alone; CRI and engine targets may share
// a config (kinds/mixed-kind.ts); a new kind is one more case here and a module implementing
// TargetKind (run/pipeline.ts).
import { criTargets, type Config } from '@runtime-bench/schemas';
import { engineKind } from '../engine/kind.ts';
import { kubernetesKind } from '../kubernetes/execute.ts';
import { criKind } from './cri-kind.ts';
import { mixedKind } from './mixed-kind.ts';
import type { TargetKind } from '../run/pipeline.ts';

/** The kind that runs `config`, its selection checked before anything starts; `file` names the config in errors. */
export function targetKindOf(config: Config, file: string): TargetKind {
  if (config.targets.some((t) => t.kind === 'kubernetes')) return kubernetesKind(config, file);
  if (config.targets.some((t) => t.kind === 'engine'))
    return criTargets(config.targets).length > 0 ? mixedKind(config, file) : engineKind(config, file);
  return criKind(config, file);
}
