// The registry of stack drivers, by the CRI name a config target and `stack up --cri` use.
import { containerdDriver } from './containerd.ts';
import { crioDriver } from './crio.ts';
import type { StackDriver } from './driver.ts';
import type { CriName } from './state.ts';

export const STACK_DRIVERS: Record<CriName, StackDriver> = {
  containerd: containerdDriver,
  'cri-o': crioDriver,
};

export function driverFor(cri: CriName): StackDriver {
  return STACK_DRIVERS[cri];
}
