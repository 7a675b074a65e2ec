import { readFileSync } from 'node:fs';
import path from 'node:path';
import pLimit from 'p-limit';
import { beforeAll, describe, expect, it } from 'vitest';
import { createProviders, parseProviderSpec } from '../../providers/index.ts';
import { loadProject, type Project } from '../../src/load/index.ts';
import { createDomainRegistry, type Registry } from '../../src/registry/index.ts';
import { scoreTrial } from '../../src/score/index.ts';
import { planTrials, runTrial } from '../../src/solve/index.ts';
import type { TrialRecord } from '../../src/spec/index.ts';
import { expandGlob } from '../../providers/replay/index.ts';

/**
 * Replays the shipped synthetic cassettes over the current tasks and
 * surfaces, exactly as `npm start` does. Fails whenever a task or surface was
 * edited without `npx tsx scripts/make-cassettes.ts`: that is the point.
 */
const root = path.resolve(import.meta.dirname, '../..');
let project: Project;
const records: TrialRecord[] = [];
let planned = 0;

beforeAll(async () => {
  project = await loadProject(root);
  const { config } = project;
  const providers = [];
  for (const text of config.run.providers)
    providers.push(...(await createProviders(parseProviderSpec(text, config.providers), { config, env: {}, root })));
  const plan = planTrials(project.domains, providers, { split: 'all', trials: config.run.trials });
  planned = plan.length;
  const registries = new Map<string, Registry<unknown>>();
  const limit = pLimit(16);
  await Promise.all(
    plan.map((trial) =>
      limit(async () => {
        let registry = registries.get(trial.domain.name);
        if (!registry)
          registries.set(
            trial.domain.name,
            (registry = createDomainRegistry(trial.domain.domain) as Registry<unknown>),
          );
        const raw = await runTrial({
          provider: trial.provider,
          domain: trial.domain.domain,
          surface: trial.surface,
          task: trial.task,
          trial: trial.trial,
          registry,
        });
        records.push(scoreTrial(raw, trial.task, trial.domain.domain.actions));
      }),
    ),
  );
}, 600_000);

function successRate(model: string, surface: string, split?: string): number {
  const group = records.filter(
    (record) => record.model === model && record.surface === surface && (!split || record.split === split),
  );
  return group.filter((record) => record.success).length / group.length;
}

describe('shipped synthetic cassettes', () => {
  it('npm start replays three synthetic behaviours over every surface, both splits and all four kinds, five trials each', () => {
    expect(project.config.run.trials).toBe(5);
    expect(new Set(records.map((record) => record.model))).toEqual(
      new Set(['synthetic-careful', 'synthetic-hasty', 'synthetic-sloppy']),
    );
    const surfaces = project.domains.flatMap((domain) =>
      domain.surfaces.map((surface) => `${domain.name}/${surface.id}`),
    );
    expect(new Set(records.map((record) => `${record.domain}/${record.surface}`))).toEqual(new Set(surfaces));
    expect(new Set(records.map((record) => record.split))).toEqual(new Set(['train', 'heldout']));
    expect(new Set(records.map((record) => record.kind))).toEqual(
      new Set(['must-call', 'must-abstain', 'similar-tool', 'multi-step']),
    );
  });

  it('are not stale: every planned trial replays to the end with matching request hashes', () => {
    expect(records).toHaveLength(planned);
    const errored = records.filter((record) => record.status === 'errored');
    // On failure this names the first stale or missing turn and how to fix it.
    expect(
      errored.slice(0, 3).map((record) => record.error?.message),
      'regenerate with: npx tsx scripts/make-cassettes.ts',
    ).toEqual([]);
    expect(
      records.every(
        (record) =>
          record.stop_reason === 'answered' || record.stop_reason === 'max_calls' || record.stop_reason === 'max_turns',
      ),
    ).toBe(true);
  });

  it('would be caught as stale after a surface edit (the check above can fail)', async () => {
    const domain = project.domains.find((candidate) => candidate.name === 'tickets')!;
    const surface = domain.surfaces.find((candidate) => candidate.id === 'typed-v3')!;
    const edited = {
      ...surface,
      payload: surface.payload.map((tool, index) =>
        index === 0 ? { ...tool, description: `${tool.description} Edited.` } : tool,
      ),
    };
    const [provider] = await createProviders(
      parseProviderSpec('replay:suites/tickets/cassettes/synthetic-careful.jsonl'),
      { config: project.config, env: {}, root },
    );
    const record = await runTrial({
      provider: provider!,
      domain: domain.domain,
      surface: edited,
      task: domain.tasks[0]!,
      trial: 0,
    });
    expect(record.status).toBe('errored');
    expect(record.error?.message).toMatch(/stale cassette: the surface `typed-v3` changed/);
  });

  it('show typed-v2 beating wide-v1 on task success for every behaviour', () => {
    for (const model of ['synthetic-careful', 'synthetic-hasty', 'synthetic-sloppy']) {
      expect(successRate(model, 'typed-v2'), model).toBeGreaterThan(successRate(model, 'wide-v1') + 0.1);
    }
  });

  it('show the hasty behaviour gaining from typed-v3 on train but not on held-out (the overfit demo)', () => {
    const trainGain =
      successRate('synthetic-hasty', 'typed-v3', 'train') - successRate('synthetic-hasty', 'typed-v2', 'train');
    const heldoutGain =
      successRate('synthetic-hasty', 'typed-v3', 'heldout') - successRate('synthetic-hasty', 'typed-v2', 'heldout');
    expect(trainGain).toBeGreaterThan(0.02);
    expect(heldoutGain).toBeLessThan(trainGain);
    // careful reads whole descriptions: the revision changes little for it.
    expect(
      Math.abs(successRate('synthetic-careful', 'typed-v3') - successRate('synthetic-careful', 'typed-v2')),
    ).toBeLessThan(0.03);
  });

  it('show namespaced-v2 (disambiguating descriptions) beating namespaced-v1 on both splits for hasty', () => {
    for (const split of ['train', 'heldout']) {
      expect(successRate('synthetic-hasty', 'namespaced-v2', split), split).toBeGreaterThan(
        successRate('synthetic-hasty', 'namespaced-v1', split),
      );
    }
  });

  it('show names mattering: flat-v1 (telling names) differs from namespaced-v1 (opaque ids) for hasty, hardly for careful', () => {
    // Same descriptions' weakness, different names: the skimming behaviour confuses near-synonyms less on flat-v1.
    for (const split of ['train', 'heldout']) {
      expect(successRate('synthetic-hasty', 'flat-v1', split), split).toBeGreaterThan(
        successRate('synthetic-hasty', 'namespaced-v1', split),
      );
    }
    const hastyTrials = (surface: string) =>
      records
        .filter((record) => record.model === 'synthetic-hasty' && record.surface === surface)
        .map((record) => `${record.task}/${record.trial}:${record.success}`)
        .sort();
    expect(hastyTrials('flat-v1')).not.toEqual(hastyTrials('namespaced-v1'));
    expect(
      Math.abs(successRate('synthetic-careful', 'flat-v1') - successRate('synthetic-careful', 'namespaced-v1')),
    ).toBeLessThan(0.03);
  });

  it('vary between trials: some tasks pass in some trials and fail in others', () => {
    const byTask = new Map<string, boolean[]>();
    for (const record of records) {
      const key = `${record.model}/${record.domain}/${record.surface}/${record.task}`;
      byTask.set(key, [...(byTask.get(key) ?? []), record.success === true]);
    }
    const flipping = [...byTask.values()].filter((outcomes) => outcomes.some(Boolean) && !outcomes.every(Boolean));
    expect(flipping.length).toBeGreaterThan(20);
  });

  it('label every line as synthetic and keep the files small', () => {
    let bytes = 0;
    for (const file of expandGlob('suites/*/cassettes/synthetic-*.jsonl', root)) {
      const text = readFileSync(file, 'utf8');
      bytes += text.length;
      for (const line of text.trimEnd().split('\n')) {
        const parsed = JSON.parse(line) as { label?: string; model: string; provider: string };
        expect(parsed.label).toMatch(
          /^synthetic: (careful|hasty|sloppy) — generated by scripts\/make-cassettes\.ts, not a real model$/,
        );
        expect(parsed.provider).toBe('synthetic');
      }
    }
    expect(bytes).toBeLessThan(15 * 1024 * 1024);
  });
});
