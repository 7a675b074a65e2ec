/**
 * The config file's name, in a module of its own so that code which only
 * digests the project's files (src/load/input-digest.ts, and through it the
 * answer of a `report --rescore` that has nothing to do) does not load the
 * config schema with it.
 */
export const CONFIG_FILE = 'toolmark.config.yaml';
