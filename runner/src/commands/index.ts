import type { Command } from 'commander';
import { registerStack } from './stack.ts';
import { registerValidate } from './validate.ts';

/** Each command lives in its own module and adds itself to the program. */
export type RegisterCommand = (program: Command) => void;

export const commandModules: RegisterCommand[] = [
  registerStack,
  registerValidate,
];
