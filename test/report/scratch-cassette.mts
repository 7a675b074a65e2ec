import { loadProject } from '../../src/load/index.ts';
import { writeFileSync } from 'node:fs';
const project = await loadProject('.');
const lines: string[] = [];
for (const domain of project.domains) for (const surface of domain.surfaces) for (const task of domain.tasks) {
  const first = surface.payload[0]!;
  // turn 0: call the first tool with an empty object on odd-length ids, else answer in text; turn 1: answer.
  const call = task.id.length % 2 === 1;
  lines.push(JSON.stringify({ v: 1, provider: 'replay', model: 'scratch', label: 'synthetic: scratch', key: { domain: domain.name, task: task.id, surface: surface.id, trial: '*', turn: 0 },
    response: call ? { text: null, tool_calls: [{ id: 'c1', name: first.name, arguments: '{"ticket_id":"T-102"}' }] } : { text: 'I can answer that directly; which ticket?', tool_calls: [] } }));
  lines.push(JSON.stringify({ v: 1, provider: 'replay', model: 'scratch', label: 'synthetic: scratch', key: { domain: domain.name, task: task.id, surface: surface.id, trial: '*', turn: 1 },
    response: { text: 'Done: ticket T-102 is open.', tool_calls: [] } }));
}
writeFileSync('/tmp/rr/scratch.jsonl', lines.join('\n') + '\n');
console.log(lines.length);
