import { dirname, relative, resolve } from 'node:path';
import { importUserModule, userModuleIssue } from '../load/user-module.ts';
import { guardUserCode } from '../load/user-code-guard.ts';
import { z } from 'zod';
import { readSourceFile } from '../load/source-file.ts';
import { zodIssuesToConfigIssues } from '../load/zod-issues.ts';
import { errorCodeSpec, type Domain } from '../registry/index.ts';
import { Actor, ActionsBy, ConfigError, type ConfigIssue } from '../spec/index.ts';

/** One hand-written proposal, replayed straight into a registry (no model). */
export const ContractCall = z.strictObject({
  tool: z.string(),
  arguments: z.unknown(),
});
export type ContractCall = z.infer<typeof ContractCall>;

/** An approval the user gave: one action with exactly these (action-level) arguments. */
export const ContractApproval = z.strictObject({
  action: z.string(),
  arguments: z.unknown(),
});
export type ContractApproval = z.infer<typeof ContractApproval>;

/**
 * What must hold after a case's calls. `ok`, `error_code`, `retryable` and
 * `output*` look at the final call; `side_effects` counts every write the
 * run executed; `replayed` asks whether any call was an idempotent replay.
 */
export const ContractExpectation = z.strictObject({
  ok: z.boolean(),
  side_effects: z.number().int().min(0),
  error_code: z.string().optional(),
  retryable: z.boolean().optional(),
  replayed: z.boolean().optional(),
  /** Deep subset of the final output. */
  output: z.record(z.string(), z.unknown()).optional(),
  /** A list in the final output and its largest allowed length. */
  output_length: z.strictObject({ field: z.string(), max: z.number().int().min(0) }).optional(),
  /** Does the final output carry a non-empty `next_cursor`? */
  has_next_cursor: z.boolean().optional(),
});
export type ContractExpectation = z.infer<typeof ContractExpectation>;

export const ContractCase = z.strictObject({
  id: z.string().regex(/^[a-z0-9-]+$/, 'lowercase letters, digits and dashes'),
  intent: z.string(),
  actor: Actor,
  approvals: z.array(ContractApproval).default([]),
  /** Proposals through the wide runtime and through the typed registry: the same intent, each in its own tool's terms. */
  wide: z.array(ContractCall).min(1),
  typed: z.array(ContractCall).min(1),
  expect: ContractExpectation,
});
export type ContractCase = z.infer<typeof ContractCase>;

/** A runtime under test: the registry tools it exposes, and how multiplexed ones map to actions. */
export const ContractRuntime = z.strictObject({
  label: z.string(),
  tools: z.array(z.string()).min(1),
  /** For a multiplexed tool: which argument selects the action and where the action's arguments sit. */
  actions_by: z.record(z.string(), ActionsBy).default({}),
});
export type ContractRuntime = z.infer<typeof ContractRuntime>;

export const ContractCaseFile = z.strictObject({
  v: z.literal(1),
  /** The domain module, relative to this file. */
  domain: z.string(),
  runtimes: z.strictObject({ wide: ContractRuntime, typed: ContractRuntime }),
  cases: z.array(ContractCase).min(1),
});
export type ContractCaseFile = z.infer<typeof ContractCaseFile>;

export type RuntimeName = 'wide' | 'typed';
export const RUNTIME_NAMES: readonly RuntimeName[] = ['wide', 'typed'];

export interface LoadedContractCases {
  file: string;
  spec: ContractCaseFile;
  domain: Domain;
}

function isDomain(value: unknown): value is Domain {
  const candidate = value as Partial<Domain> | null;
  return (
    !!candidate &&
    Array.isArray(candidate.tools) &&
    Array.isArray(candidate.actions) &&
    typeof candidate.createState === 'function'
  );
}

/**
 * Read and check a contract case file and import its domain. Every problem
 * is collected and thrown as one ConfigError (file:line, field).
 */
export async function loadContractCases(file: string, root = process.cwd()): Promise<LoadedContractCases> {
  const path = resolve(root, file);
  const issues: ConfigIssue[] = [];
  let source;
  try {
    source = await readSourceFile(path, root, issues);
  } catch {
    throw new ConfigError({
      file,
      message: 'cannot read the contract case file',
      expected: 'a YAML file such as suites/tickets/contract-cases.yaml',
    });
  }
  if (!source) throw new ConfigError(issues);
  const value = source.value();
  const parsed = ContractCaseFile.safeParse(value);
  if (!parsed.success) throw new ConfigError(zodIssuesToConfigIssues(source, ContractCaseFile, parsed.error, value));
  const spec = parsed.data;

  const domainPath = resolve(dirname(path), spec.domain);
  let module: { default?: unknown };
  try {
    module = await guardUserCode(`importing ${spec.domain}`, relative(root, domainPath), () =>
      importUserModule(domainPath),
    );
  } catch (error) {
    throw new ConfigError(userModuleIssue(error, domainPath, root, `cannot import ${spec.domain}`));
  }
  if (!isDomain(module.default))
    throw new ConfigError(
      source.issue(['domain'], {
        message: `${spec.domain} has no default-exported domain`,
        expected: 'export default defineDomain({...})',
      }),
    );
  const domain = module.default;

  const toolNames = new Set(domain.tools.map((tool) => tool.name));
  const actionIds = new Set(domain.actions.map((action) => action.id));
  for (const name of RUNTIME_NAMES) {
    spec.runtimes[name].tools.forEach((tool, index) => {
      if (!toolNames.has(tool))
        issues.push(
          source.issue(['runtimes', name, 'tools', index], {
            message: `unknown registry tool "${tool}"`,
            expected: `one of ${[...toolNames].join(', ')}`,
          }),
        );
    });
  }
  const seen = new Set<string>();
  spec.cases.forEach((contractCase, caseIndex) => {
    if (seen.has(contractCase.id))
      issues.push(source.issue(['cases', caseIndex, 'id'], { message: `duplicate case id "${contractCase.id}"` }));
    seen.add(contractCase.id);
    for (const name of RUNTIME_NAMES) {
      const allowed = spec.runtimes[name].tools;
      contractCase[name].forEach((call, callIndex) => {
        if (!allowed.includes(call.tool)) {
          issues.push(
            source.issue(['cases', caseIndex, name, callIndex, 'tool'], {
              message: `"${call.tool}" is not a tool of the ${name} runtime`,
              expected: `one of ${allowed.join(', ')}`,
            }),
          );
        }
      });
    }
    contractCase.approvals.forEach((approval, approvalIndex) => {
      if (!actionIds.has(approval.action))
        issues.push(
          source.issue(['cases', caseIndex, 'approvals', approvalIndex, 'action'], {
            message: `unknown action "${approval.action}"`,
            expected: `one of ${[...actionIds].join(', ')}`,
          }),
        );
    });
    const code = contractCase.expect.error_code;
    if (code !== undefined && !errorCodeSpec(code, domain.errors)) {
      issues.push(
        source.issue(['cases', caseIndex, 'expect', 'error_code'], {
          message: `error code "${code}" is declared neither by toolmark nor by the domain`,
          expected: `a framework code or one of the domain's errors (${Object.keys(domain.errors ?? {}).join(', ') || 'it declares none'})`,
        }),
      );
    }
  });
  if (issues.length > 0) throw new ConfigError(issues);
  return { file: source.display, spec, domain };
}
