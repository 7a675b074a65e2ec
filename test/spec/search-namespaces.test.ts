import { describe, expect, it } from 'vitest';
import { namespaceOf, searchNamespaces } from '../../src/spec/index.ts';

describe('searchNamespaces: the OpenAI namespaces of dotted names', () => {
  it('groups by the first segment, in first-appearance order, describing each by what it holds unless told', () => {
    const names = ['billing.invoice.get', 'lookup', 'crm.contact.find', 'billing.refund.submit'];
    expect(searchNamespaces(names, { crm: 'Contacts and accounts.' })).toEqual([
      { name: 'billing', description: 'billing tools: invoice.get, refund.submit' },
      { name: 'crm', description: 'Contacts and accounts.' },
    ]);
  });

  it('leaves flat a first segment that is no legal namespace name or that an undotted tool already uses', () => {
    // `ticket` is also a flat tool's name; `bad name` has a space; `x`+65 characters is too long.
    const long = 'x'.repeat(65);
    const names = ['ticket', 'ticket.get', 'bad name.get', `${long}.get`, 'ok.get'];
    expect(searchNamespaces(names).map((namespace) => namespace.name)).toEqual(['ok']);
  });

  it('namespaceOf places a tool only in a namespace of the request', () => {
    const namespaces = [{ name: 'billing', description: 'd' }];
    expect(namespaceOf('billing.invoice.get', namespaces)).toEqual({ namespace: 'billing', inner: 'invoice.get' });
    expect(namespaceOf('crm.contact.find', namespaces)).toBeNull();
    expect(namespaceOf('billing', namespaces)).toBeNull();
  });
});
