// The files the action's steps share in one work directory, by name: each step reads what an
// earlier one wrote.
import { join } from 'node:path';

export const paths = (workDir: string) => ({
  record: join(workDir, 'install.json'),
  /** The previous versions measured side by side, installed with their own record (side-by-side.ts). */
  previousRecord: join(workDir, 'install-previous.json'),
  /** What the side-by-side step hands the up step. */
  sideBySide: join(workDir, 'side-by-side.json'),
  config: join(workDir, 'config.yaml'),
  result: join(workDir, 'result.json'),
  summary: join(workDir, 'summary.md'),
  /** Cluster mode: the kubeconfig input as a 0600 file, removed after the run and by cleanup. */
  kubeconfig: join(workDir, 'kubeconfig.yaml'),
});
