import { releaseRunFolderLock, removeOwnTemporaryFiles } from '../run-folder/index.ts';

/**
 * Ctrl-C while a command writes a run folder's summary and reports (`run`
 * after its trials, `report`, `merge`): those files are staged and
 * installed together (src/run-folder/transaction.ts), so quitting at once
 * loses nothing whole — the folder keeps the files it had before. This
 * handler says so and how to finish, removes this process's temporary
 * files and lock, and exits 130. Returns the function that removes it.
 */
export function guardFinishing(runDir: string, resume: string): () => void {
  const onInterrupt = () => {
    const removed = removeOwnTemporaryFiles(runDir);
    releaseRunFolderLock(runDir);
    const cleaned = removed.length > 0 ? `; removed ${removed.length} temporary files` : '';
    process.stderr.write(
      `\ninterrupted while writing the summary and reports of ${runDir}: nothing was left half-written (its summary and reports are all as before, or all new)${cleaned}; finish with: ${resume}\n`,
    );
    process.exit(130);
  };
  process.on('SIGINT', onInterrupt);
  return () => process.off('SIGINT', onInterrupt);
}
