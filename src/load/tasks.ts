import { join } from 'node:path';
import { z } from 'zod';
import {
  KNOWN_ERROR_CODES,
  TaskSpec,
  kindRules,
  type ConfigIssue,
  type Constraint,
  type Split,
  type Task,
} from '../spec/index.ts';
import type { Domain } from '../registry/domain.ts';
import { errorCodeSpec, toolSchemaOf } from '../registry/index.ts';
import { checkConstraint, regexProblem } from './constraints.ts';
import { readSourceFile, type FieldPath, type SourceFile } from './source-file.ts';
import { closest } from '../spec/suggest.ts';
import { yamlFilesIn } from './yaml-files.ts';
import { propertyNames } from './tool-schema.ts';
import { plainTask } from './plain-task.ts';
import { zodIssuesToConfigIssues } from './zod-issues.ts';
import { shapeCheck } from '../spec/shape-check.ts';

/** The file's outer shape; each task is checked on its own so one bad task does not hide the others. */
const TaskFileShape = z.strictObject({ v: z.literal(1).optional(), tasks: z.array(z.unknown()).min(1) });

/**
 * A file whose outer shape TaskFileShape takes as it is: its list is used without zod, which
 * would copy it item by item (z.unknown() each) only to hand back the same items.
 */
const isPlainTaskFile = shapeCheck(TaskFileShape);

/** A task with the file it came from, for later cross-file checks. */
export class LocatedTask {
  constructor(
    readonly task: Task,
    readonly source: SourceFile,
    /** Its place in the file's `tasks` list. */
    readonly index: number,
  ) {}

  /** Its field path in the file, made only when an issue needs it (a list per task was garbage for nothing). */
  get path(): FieldPath {
    return ['tasks', this.index];
  }
}

/**
 * Read train (`suites/<d>/tasks`) or held-out (`heldout/<d>/tasks`) task
 * files of one domain: the tasks of each file, file after file. A file's
 * SourceFile (its text, its parse, its item offsets: what an issue's line
 * needs) is held by its tasks' LocatedTask only, so a caller that checks a
 * file's tasks before asking for the next lets it go (src/load/task-set.ts).
 */
export async function* readTaskFiles(
  root: string,
  domainName: string,
  split: Split,
  issues: ConfigIssue[],
  /** Read only the files this accepts (a re-score parses only the task files that changed, src/load/task-files.ts). */
  only?: (path: string) => boolean,
): AsyncGenerator<LocatedTask[]> {
  const dir =
    split === 'train' ? join(root, 'suites', domainName, 'tasks') : join(root, 'heldout', domainName, 'tasks');
  for (const path of await yamlFilesIn(dir, root, issues)) {
    if (only && !only(path)) continue;
    const source = await readSourceFile(path, root, issues);
    if (!source) continue;
    const value = source.value();
    let tasks = isPlainTaskFile(value) ? value.tasks : undefined;
    if (tasks === undefined) {
      const shape = TaskFileShape.safeParse(value);
      if (!shape.success) {
        issues.push(...zodIssuesToConfigIssues(source, TaskFileShape, shape.error, value));
        continue;
      }
      tasks = shape.data.tasks;
    }
    const located: LocatedTask[] = [];
    const file = source.display;
    for (let index = 0; index < tasks.length; index++) {
      const item = tasks[index];
      const where = { file, line: source.itemLine('tasks', index) };
      // The plain task is checked without zod (src/load/plain-task.ts); zod checks the rest and words their issues.
      let task = plainTask(item, domainName, split, where);
      if (task === undefined) {
        const parsed = TaskSpec.safeParse(item);
        if (!parsed.success) {
          issues.push(...zodIssuesToConfigIssues(source, TaskSpec, parsed.error, item, ['tasks', index]));
          continue;
        }
        task = { ...parsed.data, domain: domainName, split, source: where };
      }
      located.push(new LocatedTask(task, source, index));
    }
    yield located;
  }
}

/** Actions a task needs some surface to express (any_of: one of them suffices). */
export function requiredActions(task: Task): { all: string[]; anyOf: string[] } {
  const expect = task.expect;
  // The common task names one action: no list to merge.
  if (!expect.sequence) return { all: expect.action ? [expect.action] : [], anyOf: expect.any_of ?? [] };
  const all = [
    ...(expect.action ? [expect.action] : []),
    ...(expect.sequence ?? []).map((step) => (typeof step === 'string' ? step : step.action)),
  ];
  return { all: [...new Set(all)], anyOf: expect.any_of ?? [] };
}

/**
 * What checking a task needs of its domain, looked up once per domain
 * rather than once per task (10,000 tasks would build each list 10,000 times).
 */
export interface DomainLookup {
  actionIds: string[];
  knownActions: Set<string>;
  views: string[];
  /** The top-level argument names of each action's registry tool (empty when it declares none). */
  argumentNames(action: string | undefined): string[];
}

export function domainLookup(domain: Domain): DomainLookup {
  const actionIds = domain.actions.map((action) => action.id);
  const names = new Map<string | undefined, string[]>();
  return {
    actionIds,
    knownActions: new Set(actionIds),
    views: Object.keys(domain.views),
    argumentNames(action) {
      let found = names.get(action);
      if (!found) {
        const tool = action
          ? domain.tools.find((candidate) => (candidate.action ?? candidate.name) === action)
          : undefined;
        found = tool ? propertyNames(toolSchemaOf(tool.input).jsonSchema) : [];
        names.set(action, found);
      }
      return found;
    },
  };
}

/** What the checks of one task report against: its place, its domain, where issues go. */
interface TaskCheck {
  located: LocatedTask;
  domain: Domain;
  issues: ConfigIssue[];
  lookup: DomainLookup;
}

/**
 * The checks below are module functions taking a TaskCheck rather than
 * closures made per task: three closures per task were ~20 ms of a
 * 10,000-task load while the build kept function names (each one a
 * defineProperty call as it was made), and are garbage per task still.
 */
function issueAt(check: TaskCheck, field: FieldPath, details: Parameters<SourceFile['issue']>[1]): void {
  const { source, path } = check.located;
  check.issues.push(source.issue([...path, ...field], details));
}

/** Is `id` an action of the domain? If not, an issue at `field` (with a suggestion). */
function isKnownAction(check: TaskCheck, id: string, field: FieldPath): boolean {
  if (check.lookup.knownActions.has(id)) return true;
  issueAt(check, field, {
    message: `unknown action "${id}"`,
    expected: `an action of domain ${check.domain.name}`,
    suggestion: closest(id, check.lookup.actionIds),
  });
  return false;
}

/** Argument names the action's tool declares, and each constraint's own problems. */
function checkArgs(
  check: TaskCheck,
  action: string | undefined,
  args: Record<string, Constraint> | undefined,
  field: FieldPath,
): void {
  if (!args) return;
  const names = check.lookup.argumentNames(action);
  for (const name in args) {
    if (!Object.prototype.hasOwnProperty.call(args, name)) continue;
    // Scoring matches top-level argument names only (src/score/constraint.ts).
    if (names.length > 0 && !names.includes(name))
      issueAt(check, [...field, name], {
        message: `action ${action} has no argument "${name}"`,
        expected: `one of ${names.join(', ')}`,
        suggestion: closest(name, names),
      });
    const problem = checkConstraint(args[name]!);
    if (problem) issueAt(check, [...field, name], problem);
  }
}

/** Is one of `fields` given in `expect`? */
function expectsOneOf(expect: Task['expect'], fields: readonly (keyof Task['expect'])[]): boolean {
  for (const field of fields) if (expect[field] !== undefined) return true;
  return false;
}

/** Each id of `expect.<field>` an action of the domain (else an issue at its place). */
function knownActions(check: TaskCheck, ids: readonly string[], field: 'any_of' | 'distractors'): void {
  for (let index = 0; index < ids.length; index++) isKnownAction(check, ids[index]!, ['expect', field, index]);
}

const TARGETS = ['action', 'abstain', 'any_of', 'sequence'] as const;
/** Fields every task's check names (read-only: an issue copies them), made once. */
const EXPECT_ACTION: FieldPath = ['expect', 'action'];
const EXPECT_ARGS: FieldPath = ['expect', 'args'];

/**
 * Checks of one task against its domain: expectation shape per kind, known
 * actions (with suggestions), views, argument names and constraints.
 */
export function checkTask(
  located: LocatedTask,
  domain: Domain,
  issues: ConfigIssue[],
  lookup: DomainLookup = domainLookup(domain),
): void {
  const check: TaskCheck = { located, domain, issues, lookup };
  const { task } = located;
  const expect = task.expect;

  let targetCount = 0;
  for (const field of TARGETS) if (expect[field] !== undefined) targetCount++;
  if (targetCount > 1)
    issueAt(check, ['expect'], {
      message: `expect gives ${TARGETS.filter((field) => expect[field] !== undefined).join(' and ')}; give only one of action, abstain, any_of, sequence`,
    });
  const rules = kindRules(task.kind);
  if (!expectsOneOf(expect, rules.expects)) {
    issueAt(check, ['expect'], {
      message: `a ${task.kind} task needs ${rules.expects.map((field) => `expect.${field}${field === 'abstain' ? ': true' : ''}`).join(' (or ')}${rules.expects.length > 1 ? ')' : ''}`,
    });
  }
  if (expect.ask_about !== undefined && !rules.abstains)
    issueAt(check, ['expect', 'ask_about'], {
      message: `ask_about is for a task that should ask instead of calling; this is a ${task.kind} task`,
      expected: 'ask_about only in a must-abstain task',
    });
  if (expect.ask_about !== undefined && !Array.isArray(expect.ask_about)) {
    const problem = regexProblem(expect.ask_about.regex, { ignoreCase: true });
    if (problem) issueAt(check, ['expect', 'ask_about', 'regex'], problem);
  }
  if (rules.distractors && !expect.distractors?.length)
    issueAt(check, ['expect'], {
      message: `a ${task.kind} task names its near-synonym distractors in expect.distractors`,
    });

  if (expect.action) isKnownAction(check, expect.action, EXPECT_ACTION);
  if (expect.any_of) knownActions(check, expect.any_of, 'any_of');
  if (expect.distractors) knownActions(check, expect.distractors, 'distractors');
  // Loops, not forEach: a callback is a closure made per task (checkTask runs once per task).
  const faults = task.faults;
  for (let index = 0; index < faults.length; index++) {
    const fault = faults[index]!;
    isKnownAction(check, fault.action, ['faults', index, 'action']);
    // A fault's code reaches the model with the category its table gives; an undeclared one would have none.
    if (fault.error !== undefined && !errorCodeSpec(fault.error, domain.errors)) {
      const codes = [...Object.keys(KNOWN_ERROR_CODES), ...Object.keys(domain.errors ?? {})];
      issueAt(check, ['faults', index, 'error'], {
        message: `error code "${fault.error}" is declared neither by toolmark nor by domain ${domain.name}`,
        expected: `a framework code or one of the domain's errors (${Object.keys(domain.errors ?? {}).join(', ') || 'it declares none'})`,
        suggestion: closest(fault.error, codes),
      });
    }
  }

  checkArgs(check, expect.action, expect.args, EXPECT_ARGS);
  const sequence = expect.sequence ?? [];
  for (let index = 0; index < sequence.length; index++) {
    const step = sequence[index]!;
    const action = typeof step === 'string' ? step : step.action;
    if (
      isKnownAction(
        check,
        action,
        typeof step === 'string' ? ['expect', 'sequence', index] : ['expect', 'sequence', index, 'action'],
      ) &&
      typeof step !== 'string'
    ) {
      checkArgs(check, action, step.args, ['expect', 'sequence', index, 'args']);
    }
  }

  if (expect.final_state === undefined) return;
  const { views } = lookup;
  for (const [view, constraint] of Object.entries(expect.final_state)) {
    if (!views.includes(view))
      issueAt(check, ['expect', 'final_state'], {
        key: view,
        message: `unknown final_state view "${view}"`,
        expected: views.length > 0 ? `one of ${views.join(', ')}` : 'a view declared by the domain (it declares none)',
        suggestion: closest(view, views),
      });
    const problem = checkConstraint(constraint);
    if (problem) issueAt(check, ['expect', 'final_state', view], problem);
  }
}
