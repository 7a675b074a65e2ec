import { ConfigError } from '../spec/index.ts';
import type { ConfigIssue, ModelRequest } from '../spec/index.ts';
import type { PlannedTrial } from './plan.ts';
import { buildRequest, initialMessages } from './request.ts';

/**
 * Before any model call: ask providers that can check (replay) whether the
 * first turn of every planned trial is answerable (present, not stale), so a
 * stale or incomplete cassette stops the run with exit 2 and nothing written.
 */
export function preflight(
  plan: Iterable<PlannedTrial>,
  options: {
    settings?: ModelRequest['settings'];
    /**
     * The plan's tasks are copies made for this one pass (`withTaskCopies`): nothing is
     * remembered of them (no starting messages, no request hash), as nothing would be found again.
     */
    askedOnce?: boolean;
  } = {},
): void {
  const once = options.askedOnce === true;
  const issues: ConfigIssue[] = [];
  let more = 0;
  // Every trial of a model × surface × task starts with the same request: build and hash it once.
  // A plan lists a task's trials one after another (planTrials), so only the last request is kept:
  // a map of them all held 100,000 requests at once for 100,000 distinct tasks.
  let last: (Pick<PlannedTrial, 'provider' | 'surface' | 'task'> & { request: ModelRequest }) | null = null;
  for (const planned of plan) {
    const check = planned.provider.check;
    if (!check) continue;
    if (
      last === null ||
      last.provider !== planned.provider ||
      last.surface !== planned.surface ||
      last.task !== planned.task
    ) {
      const request = buildRequest({
        model: planned.provider.model,
        surface: planned.surface,
        messages: initialMessages(planned.task, { remember: !once }),
        settings: options.settings,
        actor: planned.task.actor,
        native: planned.provider.toolSearch ?? null,
        askedOnce: once,
      });
      last = { provider: planned.provider, surface: planned.surface, task: planned.task, request };
    }
    const key = {
      domain: planned.domain.name,
      task: planned.task.id,
      surface: planned.surface.id,
      trial: planned.trial,
      turn: 0,
    };
    const problem = check.call(planned.provider, last.request, key);
    if (!problem) continue;
    if (issues.length < 10)
      issues.push({ file: `--provider ${planned.provider.id}:${planned.provider.model}`, message: problem.message });
    else more += 1;
  }
  if (more > 0) issues.push({ file: '--provider', message: `… and ${more} more trials with the same kind of problem` });
  if (issues.length > 0) throw new ConfigError(issues);
}
