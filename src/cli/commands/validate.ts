import type { Command } from 'commander';
import type { Project } from '../../load/index.ts';
import type { ResolvedSurface } from '../../spec/index.ts';
import { collect } from '../cli-helpers.ts';

interface ValidateFlags {
  root: string;
  domain?: string[];
  printSurface?: string;
  json?: boolean;
}

/** Left-aligned text table; numeric-looking cells are right-aligned. */
export function formatTable(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) =>
          /^[\d.,]+%?$/.test(cell) && column > 0 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
        )
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** What `validate --print-surface` shows: the merged surface as the model sees it, plus how calls route to actions. */
export function surfaceForPrinting(surface: ResolvedSurface): Record<string, unknown> {
  return {
    id: surface.id,
    domain: surface.domain,
    extends: surface.extends,
    description: surface.description,
    strict: surface.strict,
    system: surface.system,
    hash: surface.hash,
    file: surface.file,
    tools: surface.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      ...(tool.mapping.kind === 'identity'
        ? { action: tool.mapping.action }
        : {
            tool: tool.tool,
            actions_by: { field: tool.mapping.field, arguments: tool.mapping.arguments, map: tool.mapping.map },
          }),
      parameters: tool.parameters,
    })),
    ...largeSurfaceFields(surface),
  };
}

/** `visibility:` and `perturb:` (issue 19): the declaration and what it made (distractors, in payload order). */
function largeSurfaceFields(surface: ResolvedSurface): Record<string, unknown> {
  const distractors = new Set(surface.distractors ?? []);
  return {
    ...(surface.visibility ? { visibility: surface.visibility } : {}),
    ...(surface.perturb ? { perturb: surface.perturb, payload_order: surface.payload.map((tool) => tool.name) } : {}),
    ...(distractors.size > 0
      ? {
          distractors: surface.payload
            .filter((tool) => distractors.has(tool.name))
            .map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.parameters })),
        }
      : {}),
  };
}

/** Counts per kind and split, in the order kinds are documented. */
function taskCounts(project: Project) {
  return project.domains.map((domain) => {
    const counts: Record<string, { train: number; heldout: number }> = {};
    for (const task of domain.tasks) {
      counts[task.kind] ??= { train: 0, heldout: 0 };
      counts[task.kind]![task.split]++;
    }
    return { domain: domain.name, counts };
  });
}

function overviewJson(project: Project) {
  const counts = taskCounts(project);
  return {
    ok: true,
    root: project.root,
    config: project.configFile,
    domains: project.domains.map((domain, index) => ({
      name: domain.name,
      actions: domain.domain.actions.map((action) => action.id),
      surfaces: domain.surfaces.map((surface) => ({
        id: surface.id,
        extends: surface.extends,
        hash: surface.hash,
        tools: surface.tools.map((tool) => tool.name),
        strict: surface.strict,
      })),
      tasks: counts[index]!.counts,
    })),
  };
}

function overviewText(project: Project, TASK_KINDS: readonly string[]): string {
  const lines = [`OK ${project.root}${project.configFile ? '' : ' (no toolmark.config.yaml: defaults)'}`];
  const counts = taskCounts(project);
  project.domains.forEach((domain, index) => {
    const total = domain.tasks.length;
    lines.push(
      '',
      `domain ${domain.name}: ${domain.domain.actions.length} actions, ${domain.surfaces.length} surfaces, ${total} tasks`,
    );
    const surfaceRows = [['surface', 'hash', 'tools', 'strict', 'extends']];
    for (const surface of domain.surfaces)
      surfaceRows.push([
        surface.id,
        surface.hash.slice(0, 19),
        String(surface.tools.length),
        surface.strict ? 'yes' : 'no',
        surface.extends ?? '-',
      ]);
    lines.push(indent(formatTable(surfaceRows)));
    const kinds = TASK_KINDS.filter((kind) => counts[index]!.counts[kind]).map(
      (kind) => [kind, counts[index]!.counts[kind]!] as const,
    );
    const taskRows = [['kind', 'train', 'heldout']];
    for (const [kind, count] of kinds) taskRows.push([kind, String(count.train), String(count.heldout)]);
    taskRows.push([
      'total',
      String(kinds.reduce((sum, [, count]) => sum + count.train, 0)),
      String(kinds.reduce((sum, [, count]) => sum + count.heldout, 0)),
    ]);
    lines.push('', indent(formatTable(taskRows)));
  });
  return lines.join('\n');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

async function validateAction(flags: ValidateFlags, setExitCode: (code: number) => void): Promise<void> {
  const { loadProject } = await import('../../load/index.ts');
  const { ConfigError } = await import('../../spec/index.ts');
  let project: Project;
  try {
    project = await loadProject(flags.root, { domains: flags.domain });
  } catch (error) {
    if (!(error instanceof ConfigError) || !flags.json) throw error;
    process.stdout.write(`${JSON.stringify({ ok: false, issues: error.issues }, null, 2)}\n`);
    setExitCode(2);
    return;
  }

  if (flags.printSurface !== undefined) {
    const { closest } = await import('../../spec/suggest.ts');
    const matches = project.domains
      .flatMap((domain) => domain.surfaces)
      .filter((surface) => surface.id === flags.printSurface);
    if (matches.length !== 1) {
      const all = project.domains.flatMap((domain) => domain.surfaces.map((surface) => surface.id));
      throw new ConfigError({
        file: '(command line)',
        field: 'print-surface',
        message:
          matches.length === 0
            ? `unknown surface "${flags.printSurface}"`
            : `surface id "${flags.printSurface}" exists in several domains; add --domain`,
        expected: matches.length === 0 ? `one of ${all.join(', ')}` : undefined,
        suggestion: matches.length === 0 ? closest(flags.printSurface, all) : undefined,
      });
    }
    const printable = surfaceForPrinting(matches[0]!);
    if (flags.json) process.stdout.write(`${JSON.stringify(printable, null, 2)}\n`);
    else {
      const { stringify } = await import('yaml');
      process.stdout.write(stringify(printable, { lineWidth: 0 }));
    }
    return;
  }

  process.stdout.write(
    flags.json
      ? `${JSON.stringify(overviewJson(project), null, 2)}\n`
      : `${overviewText(project, (await import('../../spec/index.ts')).TASK_KINDS)}\n`,
  );
}

/** `toolmark validate`: lint config, domains, surfaces and tasks; exit 2 on any issue. */
export function describe(program: Command, setExitCode: (code: number) => void): Command {
  return program
    .command('validate')
    .description('Check the config, domains, surfaces and tasks; print a summary or every issue (exit 2)')
    .option('--root <dir>', 'project root', process.cwd())
    .option('--domain <name>', 'only this domain (repeatable)', collect)
    .option('--print-surface <id>', 'print the merged surface (after extends) as YAML, or JSON with --json')
    .option('--json', 'machine-readable output')
    .action((flags: ValidateFlags) => validateAction(flags, setExitCode));
}
