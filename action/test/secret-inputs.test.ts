// The CLI a step spawns never receives the secret inputs: the kubeconfig goes to it as a 0600
// file, the token (history and publish steps only) as RB_PUBLISH_TOKEN; github-token is used by
// the alert step itself.
import { describe, expect, test } from 'vitest';
import { withoutSecretInputs } from '../src/steps.ts';

describe('withoutSecretInputs', () => {
  test('drops the tokens (token, github-token) and the kubeconfig under either name the runner uses, keeps the rest', () => {
    const env = {
      INPUT_TOKEN: 's1',
      input_token: 's2',
      INPUT_KUBECONFIG: 's3',
      INPUT_GITHUB_TOKEN: 's4',
      'INPUT_GITHUB-TOKEN': 's5',
      'INPUT_CRI-VERSION': '1.7.24',
      INPUT_TOKENS_EXTRA: 'not an input of ours, kept',
      PATH: '/usr/bin',
    };
    expect(withoutSecretInputs(env)).toEqual({
      'INPUT_CRI-VERSION': '1.7.24',
      INPUT_TOKENS_EXTRA: 'not an input of ours, kept',
      PATH: '/usr/bin',
    });
  });
});
