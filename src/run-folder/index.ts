/**
 * The run folder (`results/<run-id>/`, SPEC §3): its file names, ids, the
 * manifest and summary documents, and `trials.jsonl` (streamed reader,
 * crash repair, appender); how every file is written (whole, atomically:
 * files.ts; several together: transaction.ts), who owns a folder (lock.ts)
 * and how a command opens one (open.ts). A leaf module: it imports only the
 * spec, and solve, aggregate, report and the CLI all read and write runs
 * through it.
 */
export {
  REPORT_FILES,
  RUN_FILES,
  RunFolderWriteError,
  TEMPORARY_SUFFIX,
  assertRunFolder,
  checkRunId,
  createRunId,
  runFile,
  temporaryName,
  writeError,
  writeFileAtomic,
  writeFileDurable,
  type FileChunk,
  type FileContent,
  type RunFileWriter,
} from './files.ts';
export {
  asWritten,
  readManifest,
  readOptionalManifest,
  readSummary,
  writeManifest,
  writeSummary,
} from './documents.ts';
export {
  TrialAppender,
  createDuplicateCheck,
  parseTrialLine,
  readNumberedTrials,
  readTrialLines,
  readTrialLinesAt,
  readTrials,
  repairTrials,
  replaceTrials,
  type AppendWrite,
  type NumberedTrial,
  type TrialLine,
  type TrialLinePlace,
} from './trials.ts';
export { gradedText, parseUngradedTrialLine, trialLine, type UngradedTrial } from './graded-tail.ts';
export { findRunFolder, listRuns, locateRun, noRunFolder } from './locate.ts';
export { LOCK_FILE, liveLockOwner, lockRunFolder, releaseRunFolderLock, type LockOwner, type RunLock } from './lock.ts';
export { PENDING_FILE, RunFolderTransaction, removeOwnTemporaryFiles, repairRunFolder } from './transaction.ts';
export { checkRunFiles, openRunFolder, repairIdleRunFolder, type RunFileProblem } from './open.ts';
