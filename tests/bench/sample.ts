/**
 * Times lines of a benchmark in rounds: each round runs every line a few
 * times in turn, so load from other work on the machine falls on all lines
 * alike and ratios between them measured in one run stay fair.
 *
 * @module
 */

/** One thing to time: `run` is awaited once per sample. */
export interface SampledLine {
  /** What the line measures, as printed. */
  name: string;
  /** Does the measured thing once. */
  run: () => Promise<unknown>;
  /** Runs before each sample, untimed: what the measured thing comes after in real use. */
  setup?: () => Promise<unknown>;
}

/** What the samples of one line came to, in ms. */
export interface Timing {
  /** The median sample. */
  p50: number;
  /** The mean sample. */
  mean: number;
  /** How many samples were taken. */
  samples: number;
}

/** Options for {@linkcode sampleInRounds}. */
export interface SampleOptions {
  /** Rounds over all lines. */
  rounds: number;
  /** Samples of each line in each round. */
  perRound: number;
  /** Untimed runs of each line before the first round, so that first-use costs are not timed. */
  warmup?: number;
}

/** Times `lines` in rounds and returns each line's timing by name. */
export async function sampleInRounds(
  lines: SampledLine[],
  options: SampleOptions,
): Promise<Map<string, Timing>> {
  const samples = new Map<string, number[]>(lines.map((line) => [line.name, []]));
  for (const line of lines) {
    for (let i = 0; i < (options.warmup ?? 3); i++) {
      await line.setup?.();
      await line.run();
    }
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const line of lines) {
      const taken = samples.get(line.name)!;
      for (let i = 0; i < options.perRound; i++) {
        await line.setup?.();
        const started = performance.now();
        await line.run();
        taken.push(performance.now() - started);
      }
    }
  }
  return new Map([...samples].map(([name, taken]) => [name, timingOf(taken)]));
}

/** The median and mean of `samples` (ms). */
export function timingOf(samples: number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const p50 = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50, mean, samples: sorted.length };
}
