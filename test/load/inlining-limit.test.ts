import { afterEach, describe, expect, it, vi } from 'vitest';

// Task files are read with a small inlining limit for V8's optimizing compiler
// (src/load/inlining-limit.ts): set while any read is under way, V8's default
// restored after the last one however it ends, never set over a user's choice.

const flags = vi.hoisted(() => [] as string[]);
vi.mock('node:v8', async (original) => ({
  ...(await original<typeof import('node:v8')>()),
  setFlagsFromString: (flag: string) => flags.push(flag),
}));

const { userChoseInliningLimit, withSmallInlining } = await import('../../src/load/inlining-limit.ts');

afterEach(() => {
  flags.length = 0;
});

describe('withSmallInlining', () => {
  it("gives the read's value, with the small limit set during the read and V8's default after", async () => {
    const value = await withSmallInlining(async () => {
      expect(flags).toEqual(['--max-inlined-bytecode-size=60']);
      return 42;
    });
    expect(value).toBe(42);
    expect(flags).toEqual(['--max-inlined-bytecode-size=60', '--max-inlined-bytecode-size=460']);
  });

  it('restores the default after a read that fails, and passes its error on', async () => {
    await expect(
      withSmallInlining(async () => {
        throw new Error('unreadable');
      }),
    ).rejects.toThrow('unreadable');
    expect(flags).toEqual(['--max-inlined-bytecode-size=60', '--max-inlined-bytecode-size=460']);
  });

  it('restores the default only when the last of overlapping reads ends', async () => {
    let finishFirst!: () => void;
    const first = withSmallInlining(() => new Promise<void>((resolve) => (finishFirst = resolve)));
    await withSmallInlining(async () => {});
    expect(flags).toEqual(['--max-inlined-bytecode-size=60']);
    finishFirst();
    await first;
    expect(flags).toEqual(['--max-inlined-bytecode-size=60', '--max-inlined-bytecode-size=460']);
  });
});

describe('userChoseInliningLimit', () => {
  it('sees the flag on the command line or in NODE_OPTIONS, in either spelling', () => {
    expect(userChoseInliningLimit(['--max-inlined-bytecode-size=100'])).toBe(true);
    expect(userChoseInliningLimit([], '--max_inlined_bytecode_size=100 --inspect')).toBe(true);
    expect(userChoseInliningLimit(['--max-inlined-bytecode-size', '100'])).toBe(true);
    expect(userChoseInliningLimit(['--inspect', '--cpu-prof'], '--max-old-space-size=512')).toBe(false);
    expect(
      userChoseInliningLimit(['--max-inlined-bytecode-size-small=10'], '--max-inlined-bytecode-size-cumulative=9'),
    ).toBe(false);
  });
});
