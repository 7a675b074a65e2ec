/**
 * The synthetic behaviours behind the shipped cassettes. Each is one table
 * of rates: the probability that, at a given decision point, the synthetic
 * model deviates from the right move. Surface-dependent multipliers live in
 * `SURFACE_EFFECTS` below, so every number that shapes the shipped results
 * is on this page.
 *
 * These are scripted fixtures for demonstrating toolmark, never a claim about
 * how any real model behaves.
 */

export interface Behaviour {
  name: string;
  /** One line for docs and labels. */
  summary: string;
  /** Reads names and the first words of descriptions only (sensitive to how a revision was tuned). */
  skimsDescriptions: boolean;
  rates: Rates;
}

/** Probabilities per decision (0…1). "On a wide surface" multipliers are applied on top (see SURFACE_EFFECTS). */
export interface Rates {
  /** Picks a near-synonym (get ↔ lookup_slow, preview ↔ record, list ↔ get, invoice.get ↔ lookup_archive …) for a step. */
  confuse: number;
  /** Skips the preview before a write the user asked to preview (writes unapproved). */
  skipPreview: number;
  /** Writes straight away where a careful model would preview and ask first. */
  writeUnasked: number;
  /** Re-sends a write after `approval_required` instead of asking the user. */
  resendAfterApproval: number;
  /** Does what an instruction injected into tool output says. */
  followInjection: number;
  /** Adds a call the task does not need (an extra read before or after the work). */
  overCall: number;
  /** On a must-abstain task: calls a tool anyway (guessing what was missing, or a stand-in action). */
  guessInsteadOfAsk: number;
  /** After a retryable timeout: gives up instead of retrying. */
  giveUpOnTimeout: number;
  /** After a structured argument error from the tool: re-sends the same arguments instead of fixing them. */
  ignoreArgumentHint: number;
  /** After `*_not_found`: guesses a different id instead of telling the user. */
  guessAfterNotFound: number;
  /** Emits a call whose arguments are broken (invalid JSON or a wrong-typed field). */
  malformed: number;
  /** After its own malformed call came back `invalid_arguments`: sends a correct call (else gives up). */
  recoverAfterInvalid: number;
  /** Stops paging early ("that's probably enough"). */
  stopPagingEarly: number;
  /** Answers without the facts it read (a terse "done"). */
  terseAnswer: number;
  /** On the wide tool: names an operation that does not exist (`read`, `fetch`, `create`). */
  wrongOperationName: number;
  /** On the wide tool: puts the arguments at the top level instead of inside `payload`. */
  flatWideArguments: number;
  /**
   * On a deferred surface, when its one search did not return the tool it needs: calls the search's first
   * result instead (else says it found no tool for this and asks). scripts/synthetic/searching.ts.
   */
  pickClosestWhenMissing: number;
}

/** Mostly right; sometimes makes an unnecessary extra call. */
export const CAREFUL: Behaviour = {
  name: 'careful',
  summary: 'mostly right; previews before writes, asks when information is missing, sometimes over-calls',
  skimsDescriptions: false,
  rates: {
    confuse: 0.04,
    skipPreview: 0.0,
    writeUnasked: 0.0,
    resendAfterApproval: 0.0,
    followInjection: 0.02,
    overCall: 0.12,
    guessInsteadOfAsk: 0.04,
    giveUpOnTimeout: 0.03,
    ignoreArgumentHint: 0.03,
    guessAfterNotFound: 0.0,
    malformed: 0.0,
    recoverAfterInvalid: 1.0,
    stopPagingEarly: 0.03,
    terseAnswer: 0.02,
    wrongOperationName: 0.1,
    flatWideArguments: 0.08,
    pickClosestWhenMissing: 0.1,
  },
};

/** Confuses near-synonyms, skips previews, writes unasked, follows injected instructions. */
export const HASTY: Behaviour = {
  name: 'hasty',
  summary: 'confuses near-synonyms, skips previews, sometimes writes without approval or follows injected instructions',
  skimsDescriptions: true,
  rates: {
    confuse: 0.45,
    skipPreview: 0.35,
    writeUnasked: 0.4,
    resendAfterApproval: 0.4,
    followInjection: 0.3,
    overCall: 0.05,
    guessInsteadOfAsk: 0.3,
    giveUpOnTimeout: 0.3,
    ignoreArgumentHint: 0.35,
    guessAfterNotFound: 0.3,
    malformed: 0.02,
    recoverAfterInvalid: 0.7,
    stopPagingEarly: 0.3,
    terseAnswer: 0.15,
    wrongOperationName: 0.25,
    flatWideArguments: 0.2,
    pickClosestWhenMissing: 0.8,
  },
};

/** Gets the intent right but fumbles arguments: malformed JSON, wrong types; recovers only sometimes. */
export const SLOPPY: Behaviour = {
  name: 'sloppy',
  summary:
    'right intent, but emits malformed JSON or wrong-typed arguments; recovers after invalid_arguments only sometimes',
  skimsDescriptions: false,
  rates: {
    confuse: 0.1,
    skipPreview: 0.1,
    writeUnasked: 0.1,
    resendAfterApproval: 0.1,
    followInjection: 0.1,
    overCall: 0.08,
    guessInsteadOfAsk: 0.12,
    giveUpOnTimeout: 0.1,
    ignoreArgumentHint: 0.25,
    guessAfterNotFound: 0.1,
    malformed: 0.22,
    recoverAfterInvalid: 0.55,
    stopPagingEarly: 0.1,
    terseAnswer: 0.08,
    wrongOperationName: 0.2,
    flatWideArguments: 0.25,
    pickClosestWhenMissing: 0.5,
  },
};

export const BEHAVIOURS: readonly Behaviour[] = [CAREFUL, HASTY, SLOPPY];

/**
 * How what the model sees changes the rates (multipliers on `confuse` and
 * `skipPreview` / `writeUnasked`). Derived from the tools payload of each
 * request (names and descriptions) by `surface-traits.ts`:
 *
 * - `wide`: one multiplexed tool, one description for every operation —
 *   nothing tells get from slow or preview from record, and no contract
 *   stops an unapproved write.
 * - `disambiguated`: the right tool's description (or its near-synonym's)
 *   names the other tool and says when to use which.
 * - `tunedRevision`: a revision that shortened its parent's descriptions
 *   around the phrasings it was tuned on (train). A skimming model is helped
 *   on those phrasings and loses the general guidance elsewhere — the
 *   overfit pattern the held-out check exists to catch. Applies to the
 *   `hasty` behaviour only (careful models read the whole description).
 * - `tellingNames`: the exposed names of the two near-synonyms differ by a
 *   word that says which is which (`find_archived_invoice` vs `get_invoice`,
 *   `preview_refund` vs `submit_refund`; the words are `NAME_CUES` in
 *   `surface-traits.ts`). Per behaviour: the skimming `hasty` model picks
 *   tools by name and gains most, `sloppy` a little, `careful` (which reads
 *   whole descriptions) hardly at all. Dotted namespaced ids that differ only
 *   in their last segment (`billing.invoice.get` vs
 *   `billing.invoice.lookup_archive`) read as opaque ids: `plainNames`.
 *   Names and descriptions are two cues for the same fact, so the stronger
 *   of `disambiguated`/`undisambiguated` and the name factor applies (not
 *   their product); never on a wide tool.
 */
export const SURFACE_EFFECTS = {
  // multipliers on `confuse`; `wide` also on `skipPreview` / `writeUnasked`, `tunedRevision` on all three
  wide: { confuse: 1.6, skipPreview: 2.0, writeUnasked: 1.5 },
  disambiguated: { confuse: 0.35 },
  undisambiguated: { confuse: 1.0 },
  tunedRevision: { hastyTrain: 0.3, hastyHeldout: 1.3 },
  // multipliers on `confuse`, by behaviour name
  tellingNames: { careful: 0.85, hasty: 0.45, sloppy: 0.8 },
  plainNames: { careful: 1.0, hasty: 1.0, sloppy: 1.0 },
  // chance per distractor tool in the payload of calling one instead of the right tool (capped at 0.6), by behaviour
  distractorPull: { careful: 0.004, hasty: 0.014, sloppy: 0.007 },
} as const satisfies Record<string, Record<string, number>>;

/**
 * The chance that a step calls a distractor instead, on a payload with
 * `count` distractors: linear in the catalog's padding, capped at 0.6.
 * A scripted assumption for demonstrating `toolmark sweep`, not a measurement.
 */
export function distractorPull(behaviour: Behaviour, count: number): number {
  const table: Record<string, number> = SURFACE_EFFECTS.distractorPull;
  return Math.min(0.6, (table[behaviour.name] ?? 0.007) * count);
}

/** The `tellingNames` / `plainNames` multiplier for a behaviour (1 for a behaviour not in the table). */
export function nameEffect(behaviour: Behaviour, telling: boolean): number {
  const table: Record<string, number> = telling ? SURFACE_EFFECTS.tellingNames : SURFACE_EFFECTS.plainNames;
  return table[behaviour.name] ?? 1;
}
