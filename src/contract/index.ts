import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { schemaCost } from '../cost/schema-cost.ts';
import { createDomainRegistry, type Domain } from '../registry/index.ts';
import type { ToolDefinition } from '../spec/index.ts';
import { loadContractCases, RUNTIME_NAMES, type RuntimeName } from './case-file.ts';
import { renderContractMarkdown, renderContractTable } from './render.ts';
import { runCase, type CaseRun } from './run-case.ts';
import { summarizeContract, type ContractSummary } from './summarize.ts';

export { CONTRACT_SCOPE } from './summarize.ts';
export type { ContractSummary, RuntimeSummary } from './summarize.ts';
export type { CaseRun } from './run-case.ts';
export { renderContractTable, renderContractMarkdown } from './render.ts';

export const DEFAULT_CASES_FILE = 'suites/tickets/contract-cases.yaml';
export const DEFAULT_OUT_DIR = 'results/contract';

/** The model-facing tools payload of a runtime: what a provider would be sent (SPEC §5 schema cost). */
export function toolsPayload(domain: Domain, tools: readonly string[]): ToolDefinition[] {
  const registry = createDomainRegistry(domain, tools);
  return tools.map((name) => ({
    name,
    description: registry.get(name)!.description,
    parameters: registry.inputSchema(name),
    strict: false,
  }));
}

export interface ContractResult {
  summary: ContractSummary;
  runs: Record<RuntimeName, CaseRun[]>;
  /** Files written (empty when no output folder was given). */
  files: string[];
}

/**
 * Replay every contract case through the wide runtime and the typed
 * registry, summarise, and (with `outDir`) write `summary.json`,
 * `report.md` and `cases.jsonl` (one line per case, both runs).
 * Throws ConfigError for a bad case file.
 */
export async function runContract(
  options: { cases?: string; root?: string; outDir?: string | null } = {},
): Promise<ContractResult> {
  const root = options.root ?? process.cwd();
  const loaded = await loadContractCases(options.cases ?? DEFAULT_CASES_FILE, root);
  const runs: Record<RuntimeName, CaseRun[]> = { wide: [], typed: [] };
  for (const contractCase of loaded.spec.cases) {
    for (const runtime of RUNTIME_NAMES) {
      runs[runtime].push(await runCase(loaded.domain, runtime, loaded.spec.runtimes[runtime], contractCase));
    }
  }
  const costs = {
    wide: schemaCost(toolsPayload(loaded.domain, loaded.spec.runtimes.wide.tools)),
    typed: schemaCost(toolsPayload(loaded.domain, loaded.spec.runtimes.typed.tools)),
  };
  const summary = summarizeContract({ casesFile: loaded.file, spec: loaded.spec, runs, costs });

  const files: string[] = [];
  if (options.outDir) {
    const dir = resolve(root, options.outDir);
    await mkdir(dir, { recursive: true });
    const lines = loaded.spec.cases.map((contractCase, index) =>
      JSON.stringify({
        v: 1,
        case: contractCase.id,
        intent: contractCase.intent,
        expect: contractCase.expect,
        wide: runs.wide[index],
        typed: runs.typed[index],
      }),
    );
    const outputs: [string, string][] = [
      ['summary.json', `${JSON.stringify(summary, null, 2)}\n`],
      ['report.md', renderContractMarkdown(summary)],
      ['cases.jsonl', `${lines.join('\n')}\n`],
    ];
    for (const [name, text] of outputs) {
      await writeFile(join(dir, name), text, 'utf8');
      files.push(join(dir, name));
    }
  }
  return { summary, runs, files };
}
