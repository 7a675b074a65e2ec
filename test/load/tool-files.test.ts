import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readToolFile } from '../../src/load/tool-files.ts';
import type { ConfigIssue } from '../../src/spec/index.ts';

const root = join(import.meta.dirname, '../fixtures/tool-files');

async function read(name: string) {
  const issues: ConfigIssue[] = [];
  const file = await readToolFile(name, root, issues);
  return { file, issues };
}

describe('tools file readers', () => {
  it('reads an OpenAI Chat tools array, schemas exactly as written', async () => {
    const { file, issues } = await read('openai-tools.json');
    expect(issues).toEqual([]);
    expect(file!.format).toBe('openai');
    expect(file!.tools.map((tool) => tool.name)).toEqual(['get_weather', 'book_table']);
    expect(Object.keys(file!.tools[1]!.inputSchema)).toEqual([
      '$schema',
      'type',
      'properties',
      'required',
      'additionalProperties',
    ]);
    expect(file!.tools[0]).not.toHaveProperty('strict');
  });

  it('reads an Anthropic tools array', async () => {
    const { file, issues } = await read('anthropic-tools.json');
    expect(issues).toEqual([]);
    expect(file).toMatchObject({
      format: 'anthropic',
      tools: [{ name: 'get_weather', description: 'Current weather for a city.', inputSchema: { required: ['city'] } }],
    });
  });

  it('reads a saved MCP tools/list JSON-RPC response with title, outputSchema and annotations', async () => {
    const { file, issues } = await read('mcp-tools-list.json');
    expect(issues).toEqual([]);
    expect(file!.format).toBe('mcp');
    expect(file!.tools[0]).toMatchObject({
      name: 'get_weather',
      title: 'Weather',
      annotations: { readOnlyHint: true },
      outputSchema: { required: ['temperature'] },
    });
  });

  it('rejects a file mixing formats at the offending entry', async () => {
    const { file, issues } = await read('mixed.json');
    expect(file).toBeNull();
    expect(issues).toEqual([
      expect.objectContaining({
        file: 'mixed.json',
        line: 3,
        field: '[1]',
        message: 'this tool is in the anthropic format, but the file is openai',
      }),
    ]);
  });

  it('rejects a malformed entry with file, line and field', async () => {
    const { file, issues } = await read('malformed.json');
    expect(file).toBeNull();
    expect(issues).toEqual([
      expect.objectContaining({
        file: 'malformed.json',
        line: 3,
        field: 'tools[0].function.name',
        message: 'required field is missing',
      }),
    ]);
  });
});
