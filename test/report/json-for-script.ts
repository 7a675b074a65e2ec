import { escapeJsonForScript } from '../../src/report/html/escape.ts';

/**
 * The tests' reference for the embedded trials: the whole value made into
 * JSON at once, then escaped for a `<script type="application/json">` element.
 */
export function jsonForScript(value: unknown): string {
  return escapeJsonForScript(JSON.stringify(value));
}
