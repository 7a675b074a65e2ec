import { z } from 'zod';

/**
 * A task or surface id. Ids become file names and HTML anchors, so they
 * start with a letter or digit: `..` or `.hidden` would name a parent
 * folder or a hidden file.
 */
export const SuiteId = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash or underscore, starting with a letter or digit');
