/**
 * Issue 16 items 1 and 5: a clarifying question written the way chat models
 * write it is detected, a `?` that is not prose is not, and a must-abstain
 * task may say what the question must be about. Every row runs as a real
 * trial through a live wire adapter; the expected class is written by hand.
 */
import { describe, expect, it } from 'vitest';
import { asksQuestion, questionsIn, trialFacts } from '../../src/score/index.ts';
import { fakeServerPerTest } from '../providers/fake-server.ts';
import { says, ticketTask, verdict, WIRES, wireTrial } from './wire-trial.ts';

const startServer = fakeServerPerTest();

/** [final answer, does it ask the user something?] */
const PHRASINGS: [string, boolean][] = [
  // Questions, as chat models write them.
  ['Which ticket do you mean?', true],
  ['**Could you tell me the ticket number?**', true],
  ['*Which ticket should I look at?*', true],
  ['_Which ticket should I look at?_', true],
  ['***Which ticket?***', true],
  ['~~Done.~~ Which ticket is it?', true],
  ['Which one?!', true],
  ['Which one??', true],
  ['Which one?…', true],
  ['Could you share the ticket ID? 🙂', true],
  ['Could you share the ticket ID?🙏', true],
  ['He asked: "Which ticket is it?"', true],
  ["'Which ticket?' is what I need to know.", true],
  ['(Which ticket is it?)', true],
  ['I need one detail:\n\n- Which ticket number is it?\n- Nothing else.', true],
  ['1. Which ticket is it?', true],
  ['## Which ticket do you mean?\nI can look it up once I know.', true],
  ['> Which ticket do you mean?', true],
  ['I can check that. Which ticket, e.g. T-102?', true],
  ['Quel ticket ?', true],
  ['どのチケットですか？', true],
  ['See https://help.example.com/faq?topic=tickets — which ticket is it?', true],
  // Not questions: a `?` that is syntax, not prose.
  ['The status is open.', false],
  ['See https://help.example.com/faq?topic=tickets for details.', false],
  ['See [the FAQ](https://help.example.com/faq?topic=tickets).', false],
  ['Visit www.example.com/search?q=T-102 to track it.', false],
  ['Use `ticket?id=T-102` in the search box.', false],
  ['Run this:\n```\nfind ? -name "*.log"\n```\nIt lists the logs.', false],
  ['Run this:\n~~~sh\ncurl "https://x.test/a?b=1"\n~~~', false],
  ['The query string is a?b=1 in that case.', false],
  ['Rate: ?', false],
  ['', false],
];

describe('item 1: clarifying questions as chat models write them', () => {
  it.each(PHRASINGS)('%j asks: %s', (text, asks) => {
    expect(asksQuestion(text)).toBe(asks);
  });

  it.each(WIRES)('%s: every phrasing, scored end to end in a must-abstain task with ask: true', async (wire) => {
    const task = ticketTask({ kind: 'must-abstain', expect: { abstain: true, ask: true } });
    for (const [text, asks] of PHRASINGS) {
      if (text === '') continue; // an empty answer has no text block on the Anthropic wire
      const record = await wireTrial(startServer, { wire, task, turns: [says(text)] });
      expect(record.final_text).toBe(text);
      expect(verdict(record, 'abstain')).toMatchObject({
        pass: asks,
        actual: { class: asks ? 'asked_for_information' : 'answered', calls: 0 },
      });
      // task_success follows: nothing else in this task can fail.
      expect(record.success).toBe(asks);
      expect(trialFacts(record)!.abstention).toBe(asks ? 'asked_for_information' : 'answered');
    }
  });

  it('the question sentence is kept whole for ask_about ("e.g." does not end it)', () => {
    expect(questionsIn('I can check that. Which ticket, e.g. T-102?')).toEqual(['Which ticket, e.g. T-102?']);
    expect(questionsIn('**Which ticket?** Or *which invoice?*')).toEqual(['**Which ticket?', '** Or *which invoice?']);
  });
});

describe('item 5: what the question must be about', () => {
  const closing = 'I can help with tickets. Anything else I can help with?';

  it('without ask_about any question counts (the documented fallback), even a closing offer', async () => {
    const task = ticketTask({
      kind: 'must-abstain',
      messages: [{ role: 'user', content: 'Check my ticket' }],
      expect: { abstain: true, ask: true },
    });
    const record = await wireTrial(startServer, { task, turns: [says(closing)] });
    expect(verdict(record, 'abstain')).toMatchObject({ pass: true, actual: { class: 'asked_for_information' } });
  });

  it.each(WIRES)('%s: with words, a closing offer is not asking; a question naming one of them is', async (wire) => {
    const task = ticketTask({
      kind: 'must-abstain',
      messages: [{ role: 'user', content: 'Check my ticket' }],
      expect: { abstain: true, ask_about: ['ticket id', 'ticket number', 'which ticket'] },
    });
    const offer = await wireTrial(startServer, { wire, task, turns: [says(closing)] });
    expect(verdict(offer, 'abstain')).toMatchObject({
      pass: false,
      expected: { abstain: true, ask: true, ask_about: ['ticket id', 'ticket number', 'which ticket'] },
      actual: { class: 'answered', calls: 0 },
    });
    expect(offer.success).toBe(false);
    const asked = await wireTrial(startServer, {
      wire,
      task,
      turns: [says('Sure. **What is the Ticket Number?** Anything else?')],
    });
    expect(verdict(asked, 'abstain')).toMatchObject({ pass: true, actual: { class: 'asked_for_information' } });
    expect(asked.success).toBe(true);
    // The words must be in a question, not anywhere in the answer.
    const statement = await wireTrial(startServer, {
      wire,
      task,
      turns: [says('I need the ticket number. Anything else?')],
    });
    expect(verdict(statement, 'abstain')!.pass).toBe(false);
  });

  it('with a pattern (case-insensitive)', async () => {
    const task = ticketTask({
      kind: 'must-abstain',
      expect: { abstain: true, ask_about: { regex: '\\bT-\\d{3}\\b|ticket (id|number)' } },
    });
    const examples: [string, boolean][] = [
      ['Is it t-102 or T-103?', true],
      ['What is your TICKET ID?', true],
      ['Could you say more?', false],
    ];
    for (const [text, pass] of examples) {
      const record = await wireTrial(startServer, { task, turns: [says(text)] });
      expect([text, verdict(record, 'abstain')!.pass]).toEqual([text, pass]);
    }
  });
});
