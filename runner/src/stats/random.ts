/**
 * A seeded pseudo-random generator: xoshiro128** 1.1 (Blackman & Vigna 2018,
 * https://prng.di.unimi.it/xoshiro128starstar.c), its 128-bit state filled from the seed by a
 * SplitMix-style sequence (golden-ratio increment, MurmurHash3's fmix32 finaliser). Statistics that resample (the bootstrap) take a seed so that the same input always
 * gives the same interval: a report must be reproducible, and Math.random() cannot be seeded.
 */
export interface Rng {
  /** A uniform float in [0, 1) with 32 random bits. */
  next(): number;
  /** A uniform integer in [0, n) for 1 ≤ n ≤ 2³², without modulo bias (rejection sampling). */
  int(n: number): number;
}

/** Returns a generator whose sequence depends only on `seed` (any finite number; its low 32 bits). */
export function createRng(seed: number): Rng {
  if (!Number.isFinite(seed)) throw new RangeError(`random seed must be a finite number, got ${seed}`);
  // Expands one 32-bit seed into four well-mixed state words (fmix32 is a bijection of distinct
  // inputs, so the four words are never all zero).
  let sm = seed >>> 0;
  const splitmix = (): number => {
    sm = (sm + 0x9e3779b9) >>> 0;
    let z = sm;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
  return createRngFromState([splitmix(), splitmix(), splitmix(), splitmix()]);
}

/**
 * xoshiro128** from an explicit 128-bit state (four unsigned 32-bit words, not all zero); exposed
 * so that tests can compare its output with the reference C implementation.
 */
export function createRngFromState(state: readonly [number, number, number, number]): Rng {
  let [s0, s1, s2, s3] = state.map((w) => w >>> 0) as [number, number, number, number];
  if ((s0 | s1 | s2 | s3) === 0) throw new RangeError('xoshiro128** state must not be all zero');
  const nextU32 = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (s1 << 9) >>> 0;
    s2 = (s2 ^ s0) >>> 0;
    s3 = (s3 ^ s1) >>> 0;
    s1 = (s1 ^ s2) >>> 0;
    s0 = (s0 ^ s3) >>> 0;
    s2 = (s2 ^ t) >>> 0;
    s3 = rotl(s3, 11);
    return result;
  };
  return {
    next: () => nextU32() / 0x1_0000_0000,
    int(n: number): number {
      if (!Number.isInteger(n) || n < 1 || n > 0x1_0000_0000)
        throw new RangeError(`random int bound must be an integer in [1, 2^32], got ${n}`);
      // Reject the top partial block of 2³² so that every residue is equally likely.
      const limit = 0x1_0000_0000 - (0x1_0000_0000 % n);
      for (;;) {
        const x = nextU32();
        if (x < limit) return x % n;
      }
    },
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
