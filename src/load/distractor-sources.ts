import { formatConfigIssue, type ConfigIssue, type ToolDefinition } from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { importDomain } from './domains.ts';
import { domainDistractors, fileDistractors, type DistractorSources } from './distractors.ts';
import { readToolFile } from './tool-files.ts';

/**
 * The distractor sources of a project: `domain:<name>` imports any domain
 * of the project on demand (also one not selected with --domain), once;
 * `file:<path>` reads a tools file relative to the project root.
 */
export function projectDistractorSources(root: string, discovered: readonly string[]): DistractorSources {
  const domains = new Map<string, Promise<Domain | null>>();
  return {
    async domain(name) {
      if (!discovered.includes(name))
        return { problem: `unknown distractor domain "${name}"`, choices: [...discovered] };
      let found = domains.get(name);
      if (!found) {
        const issues: ConfigIssue[] = [];
        found = importDomain(root, name, issues).then((result) => result?.domain ?? null);
        domains.set(name, found);
      }
      const domain = await found;
      if (!domain)
        return {
          problem: `distractor domain "${name}" does not load (run toolmark validate --domain ${name})`,
          choices: [],
        };
      return domainDistractors(domain);
    },
    async file(path) {
      const issues: ConfigIssue[] = [];
      const file = await readToolFile(path, root, issues);
      if (!file) return { problem: `distractor tools file ${path}: ${issues.map(formatConfigIssue).join('; ')}` };
      return fileDistractors(file.tools) satisfies ToolDefinition[];
    },
  };
}
