import type { Command } from 'commander';
import { ConfigError } from '../../spec/errors.ts';

interface InitFlags {
  name?: string;
  fromOpenai?: string;
  fromAnthropic?: string;
  example?: boolean;
  force?: boolean;
}

async function initAction(dir: string | undefined, flags: InitFlags): Promise<void> {
  const path = await import('node:path');
  const target = dir ?? '.';
  const shown = path.relative(process.cwd(), path.resolve(target)) || '.';
  const cd = shown === '.' ? '' : `cd ${shown} && `;
  if (flags.example) {
    if (flags.fromOpenai || flags.fromAnthropic)
      throw new ConfigError({
        file: '(command line)',
        field: 'example',
        message: '--example writes the shipped example; it takes no tools file',
      });
    const { writeExample } = await import('../../init/example.ts');
    const result = await writeExample(target, { force: flags.force });
    process.stdout.write(`wrote the shipped example (tickets, billing) to ${shown}/\n`);
    for (const file of [...result.files, ...result.cassettes]) process.stdout.write(`  ${file}\n`);
    process.stdout.write(
      `\nnext: ${cd}npx toolmark run && npx toolmark compare results/<run-id>:wide-v1 results/<run-id>:typed-v2\n`,
    );
    return;
  }
  if (flags.fromOpenai && flags.fromAnthropic)
    throw new ConfigError({
      file: '(command line)',
      field: 'from-openai',
      message: 'give one tools file',
      expected: '--from-openai FILE or --from-anthropic FILE',
    });
  const from = flags.fromOpenai
    ? { file: flags.fromOpenai, provider: 'openai' as const }
    : flags.fromAnthropic
      ? { file: flags.fromAnthropic, provider: 'anthropic' as const }
      : undefined;
  const { scaffoldProject } = await import('../../init/scaffold.ts');
  const result = await scaffoldProject({ dir: target, name: flags.name, from, force: flags.force });
  process.stdout.write(`scaffolded domain "${result.domain}" in ${shown}/\n`);
  for (const file of result.files) process.stdout.write(`  ${file}\n`);
  process.stdout.write(
    `\nnext: ${cd}npx toolmark validate && npx toolmark run   (replays the starter cassette: no key)\n`,
  );
}

/** `toolmark init [dir]`: scaffold a project (or write the shipped example with --example). */
export function describe(program: Command): Command {
  return program
    .command('init')
    .argument('[dir]', 'folder to scaffold in (default: the current folder)')
    .description(
      'Scaffold a toolmark project: config, a domain, a surface, train and held-out tasks, a starter cassette, a CI workflow',
    )
    .option(
      '--from-openai <file>',
      'build the domain from an OpenAI tools file (Chat Completions or Responses `tools` array)',
    )
    .option('--from-anthropic <file>', 'build the domain from an Anthropic Messages `tools` array')
    .option(
      '--name <name>',
      'domain name (folder under suites/); default: the tools file name, or "notes" for the template',
    )
    .option('--example', 'write the shipped example (tickets, billing) with its synthetic cassettes instead')
    .option('--force', 'overwrite files that exist')
    .action((dir: string | undefined, flags: InitFlags) => initAction(dir, flags));
}
