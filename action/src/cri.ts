// What the action asks of the installer and of `stack up` for the chosen CRI runtime (containerd
// or CRI-O) and CRI client: pure argument building from the inputs and the install record.
import { RbError } from '@runtime-bench/runner';
import type { InstallRecord } from '@runtime-bench/runner/install';
import type { ActionInputs } from './inputs.ts';

/** `name@version` specs from the inputs; `latest` means "what is there" for the path source. */
export function installSpecs(inputs: ActionInputs): string[] {
  const pin = (name: string, version: string) =>
    inputs.source === 'path' && (version === 'latest' || version === '') ? name : `${name}@${version}`;
  const specs = [pin(inputs.cri, inputs['cri-version'])];
  specs.push(
    ...inputs['oci-runtimes']
      .split(/[\s,]+/)
      .filter(Boolean)
      .map((s) => (inputs.source === 'path' ? s.replace(/@latest$/, '') : s)),
  );
  // The crictl transport needs crictl: the pinned version, else the latest (or the runner's).
  if (inputs['crictl-version'] || inputs['cri-client'] === 'crictl')
    specs.push(pin('crictl', inputs['crictl-version'] || 'latest'));
  return specs;
}

/** `stack up` arguments for the installed CRI runtime: `--containerd BIN` or `--cri cri-o --crio BIN`. */
export function stackUpArgs(inputs: ActionInputs, record: InstallRecord, config: string): string[] {
  const args = [
    'stack',
    'up',
    '--stack',
    inputs['stack-name'],
    '--config',
    config,
    ...(inputs['fix-host'] ? ['--fix-host'] : []),
  ];
  if (inputs.cri === 'cri-o') {
    const crio = record.crio[0]?.binary;
    if (!crio)
      throw new RbError(
        'INSTALL_RECORD',
        'cri: cri-o, but the install recorded no crio binary',
        'install it with cri: cri-o and a cri-version (release source) or CRI-O on PATH (path source)',
      );
    return [...args, '--cri', 'cri-o', '--crio', crio];
  }
  const containerd = record.containerd[0]?.binary;
  return [...args, ...(containerd ? ['--containerd', containerd] : [])];
}

/** Version of the installed CRI runtime, for the target's name. */
export function criVersion(inputs: ActionInputs, record: InstallRecord): string | undefined {
  return inputs.cri === 'cri-o' ? record.crio[0]?.version : record.containerd[0]?.version;
}
