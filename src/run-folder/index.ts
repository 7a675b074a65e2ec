/**
 * The run folder (`results/<run-id>/`, SPEC §3): its file names, ids, the
 * manifest and summary documents, and `trials.jsonl` (streamed reader,
 * crash repair, appender). A leaf module: it imports only the spec, and
 * solve, aggregate, report and the CLI all read and write runs through it.
 */
export { RUN_FILES, assertRunFolder, checkRunId, createRunId, runFile, writeFileAtomic } from './files.ts';
export { readManifest, readOptionalManifest, readSummary, writeManifest, writeSummary } from './documents.ts';
export {
  TrialAppender,
  parseTrialLine,
  readTrialLines,
  readTrials,
  repairTrials,
  replaceTrials,
  type TrialLine,
} from './trials.ts';
export { gradedText, parseUngradedTrialLine, trialLine, type UngradedTrial } from './graded-tail.ts';
export { findRunFolder, listRuns, locateRun, noRunFolder } from './locate.ts';
