import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadProject, type LoadedDomain } from '../../src/load/index.ts';
import { CAREFUL, HASTY, nameEffect, SLOPPY, SURFACE_EFFECTS } from '../../scripts/synthetic/behaviours.ts';
import { namesTell, SurfaceTraits } from '../../scripts/synthetic/surface-traits.ts';

const root = path.resolve(import.meta.dirname, '../..');
let billing: LoadedDomain;
let tickets: LoadedDomain;

beforeAll(async () => {
  const project = await loadProject(root);
  billing = project.domains.find((domain) => domain.name === 'billing')!;
  tickets = project.domains.find((domain) => domain.name === 'tickets')!;
});

function traits(domain: LoadedDomain, id: string): SurfaceTraits {
  const surface = domain.surfaces.find((candidate) => candidate.id === id)!;
  const parent = surface.extends ? domain.surfaces.find((candidate) => candidate.id === surface.extends)! : null;
  return new SurfaceTraits(surface, surface.payload, parent);
}

describe('name-sensitivity trait', () => {
  it('tells near-synonyms apart by a cue word in which their names differ', () => {
    expect(namesTell('get_invoice', 'find_archived_invoice')).toBe(true);
    expect(namesTell('preview_refund', 'submit_refund')).toBe(true);
    expect(namesTell('draft_ticket_followup', 'record_ticket_followup')).toBe(true);
    expect(namesTell('get_ticket', 'lookup_ticket_slow')).toBe(true);
    // No cue word among the differing words.
    expect(namesTell('get_customer', 'search_customers')).toBe(false);
    expect(namesTell('list_invoices', 'get_invoice')).toBe(false);
    // A cue word both names share says nothing about which is which.
    expect(namesTell('preview_refund', 'preview_refund_v2')).toBe(false);
    expect(namesTell('get_invoice', 'get_invoice')).toBe(false);
  });

  it('treats dotted ids that differ only in the last segment as neutral, whatever that segment says', () => {
    expect(namesTell('billing.invoice.get', 'billing.invoice.lookup_archive')).toBe(false);
    expect(namesTell('billing.refund.preview', 'billing.refund.submit')).toBe(false);
    // Different namespaces are read as words again.
    expect(namesTell('billing.invoice.get', 'archive.invoice.get')).toBe(true);
  });

  it('reads the shipped surfaces: flat-v1 names tell, namespaced-v1 and the wide tool do not', () => {
    const flat = traits(billing, 'flat-v1');
    const namespaced = traits(billing, 'namespaced-v1');
    const wide = traits(tickets, 'wide-v1');
    expect(flat.namesDistinguish('billing.invoice.get', 'billing.invoice.lookup_archive')).toBe(true);
    expect(flat.namesDistinguish('billing.refund.preview', 'billing.refund.submit')).toBe(true);
    expect(flat.namesDistinguish('billing.customer.get', 'billing.customer.search')).toBe(false);
    expect(namespaced.namesDistinguish('billing.invoice.get', 'billing.invoice.lookup_archive')).toBe(false);
    expect(namespaced.namesDistinguish('billing.refund.preview', 'billing.refund.submit')).toBe(false);
    expect(wide.namesDistinguish('ticket.get', 'ticket.lookup_slow')).toBe(false);
    expect(traits(tickets, 'typed-v3').namesDistinguish('ticket.preview_followup', 'ticket.record_followup')).toBe(
      true,
    );
  });

  it('helps hasty most, sloppy a little, careful least; opaque names are neutral', () => {
    expect(nameEffect(HASTY, true)).toBe(SURFACE_EFFECTS.tellingNames.hasty);
    expect(nameEffect(HASTY, true)).toBeLessThan(nameEffect(SLOPPY, true));
    expect(nameEffect(SLOPPY, true)).toBeLessThan(nameEffect(CAREFUL, true));
    expect(nameEffect(CAREFUL, true)).toBeLessThan(1);
    for (const behaviour of [CAREFUL, HASTY, SLOPPY]) expect(nameEffect(behaviour, false)).toBe(1);
    expect(nameEffect({ ...HASTY, name: 'unlisted' }, true)).toBe(1);
  });
});
