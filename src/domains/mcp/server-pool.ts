import { cp, mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ToolEnvironmentError } from '../../spec/index.ts';
import { resolveEndpoint, type McpServerConfig } from './server-config.ts';
import { openSession, type McpSession } from './session.ts';

/** One trial's server: its session and its own temporary folder. */
export interface Lease {
  session: McpSession;
  /** The trial's fresh folder (real path), or null when the server declares none. */
  workdir: string | null;
  /** Closes the session, removes the folder, frees the slot. Idempotent. */
  release(): Promise<void>;
}

/**
 * The sessions of one MCP server within a run: at most `max_sessions` open
 * at once (a trial waits for a slot), each with a fresh workdir, every one
 * closed by `closeAll` — and, should the process exit without it (a second
 * Ctrl-C exits at once), killed by an exit hook, so no server outlives the
 * run. One pool per loaded domain: nothing here is module state.
 */
export class ServerPool {
  readonly #config: McpServerConfig;
  readonly #dir: string;
  readonly #env: NodeJS.ProcessEnv;
  readonly #leases = new Set<Lease>();
  readonly #pids = new Set<number>();
  readonly #waiting: Array<() => void> = [];
  #open = 0;
  #closed = false;
  #hooked = false;
  readonly #onExit = () => {
    for (const pid of this.#pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  };

  constructor(config: McpServerConfig, dir: string, env: NodeJS.ProcessEnv = process.env) {
    this.#config = config;
    this.#dir = dir;
    this.#env = env;
  }

  /** Server processes alive right now (stdio), for tests and diagnostics. */
  livePids(): number[] {
    return [...this.#pids];
  }

  /** Open a session for one trial, waiting for a free slot first. */
  async lease(): Promise<Lease> {
    if (this.#closed) throw new ToolEnvironmentError('the MCP server pool is closed (the run is ending)');
    await this.#acquire();
    let workdir: string | null = null;
    try {
      if (this.#config.workdir) {
        workdir = await realpath(await mkdtemp(join(tmpdir(), 'toolmark-mcp-')));
        if (this.#config.workdir.seed !== undefined)
          await cp(resolve(this.#dir, this.#config.workdir.seed), workdir, { recursive: true });
      }
      const endpoint = resolveEndpoint(this.#config, { dir: this.#dir, workdir: workdir ?? undefined, env: this.#env });
      this.#hook(true);
      const session = await openSession(endpoint, {
        startTimeoutMs: this.#config.start_timeout_ms,
        onSpawn: (pid) => this.#pids.add(pid),
        onExit: (pid) => this.#pids.delete(pid),
      });
      let released: Promise<void> | null = null;
      const lease: Lease = {
        session,
        workdir,
        release: () => {
          released ??= (async () => {
            try {
              await session.close();
            } finally {
              if (workdir !== null) await rm(workdir, { recursive: true, force: true });
              this.#leases.delete(lease);
              this.#free();
            }
          })();
          return released;
        },
      };
      this.#leases.add(lease);
      return lease;
    } catch (error) {
      if (workdir !== null) await rm(workdir, { recursive: true, force: true });
      this.#free();
      if (error instanceof ToolEnvironmentError) throw error;
      throw new ToolEnvironmentError(
        `could not start the MCP server: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }

  /**
   * Close every open session; trials still waiting for a slot fail. Safe to
   * call more than once; the pool can be leased from again afterwards (a
   * second run over the same loaded project).
   */
  async closeAll(): Promise<void> {
    this.#closed = true;
    for (const wake of this.#waiting.splice(0)) wake();
    await Promise.allSettled([...this.#leases].map((lease) => lease.release()));
    if (this.#pids.size === 0) this.#hook(false);
    this.#closed = false;
  }

  /** The exit hook is held while any session may be open. */
  #hook(on: boolean): void {
    if (on === this.#hooked) return;
    this.#hooked = on;
    if (on) process.on('exit', this.#onExit);
    else process.off('exit', this.#onExit);
  }

  async #acquire(): Promise<void> {
    while (this.#open >= this.#config.max_sessions) {
      await new Promise<void>((wake) => this.#waiting.push(wake));
      if (this.#closed) throw new ToolEnvironmentError('the MCP server pool is closed (the run is ending)');
    }
    this.#open += 1;
  }

  #free(): void {
    this.#open -= 1;
    this.#waiting.shift()?.();
    if (this.#open === 0 && this.#pids.size === 0) this.#hook(false);
  }
}
