/** A turn key as replay looks it up: `trial: '*'` is a line that answers every trial. */
export interface TurnKeyFields {
  domain: string;
  task: string;
  surface: string;
  trial: number | '*';
  turn: number;
}

/** A TurnKeys as plain data (structured-clonable), to move it between threads. */
export interface TurnKeysSnapshot {
  scopes: Map<string, Map<string, number>>;
  scopeCount: number;
  count: number;
  columns: [Uint32Array, Float64Array, Float64Array, Uint32Array, Uint32Array, Uint32Array];
  units: Uint16Array;
  unitsUsed: number;
  table: Int32Array;
}

/** `trial: '*'` in the trial column (trials are non-negative). */
const ANY_TRIAL = -1;
const EMPTY = -1;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * Turn keys → slot numbers 0, 1, 2… (in the order keys are first added),
 * held in typed arrays rather than a Map of key strings.
 *
 * Why: a 100,000-task cassette has 200,000 keys. As a Map of JSON key
 * strings they were ~25 MB of heap that every full collection marked, and
 * every lookup built and hashed a new string (twice for a `trial: "*"`
 * line: the exact trial is tried first). Here a key is its domain × surface
 * (a small number: a cassette has few), its trial and turn, and its task
 * id's UTF-16 code units in one shared array — ~50 bytes a key outside the
 * JavaScript heap — found by open addressing on a hash of those fields. A
 * lookup reads the caller's strings and allocates nothing.
 */
export class TurnKeys {
  /** Domain → surface → scope number. */
  #scopes = new Map<string, Map<string, number>>();
  #scopeCount = 0;
  #count = 0;
  #scope: Uint32Array = new Uint32Array(1024);
  #trial: Float64Array = new Float64Array(1024);
  #turn: Float64Array = new Float64Array(1024);
  #taskStart: Uint32Array = new Uint32Array(1024);
  #taskLength: Uint32Array = new Uint32Array(1024);
  /** Each key's hash, so growing the table rehashes nothing. */
  #hash: Uint32Array = new Uint32Array(1024);
  /** The task ids' code units, one after another. */
  #units: Uint16Array = new Uint16Array(16 * 1024);
  #unitsUsed = 0;
  /** Open addressing, linear probing: slot numbers, EMPTY where none; kept at most half full. */
  #table: Int32Array = new Int32Array(2048).fill(EMPTY);

  snapshot(): TurnKeysSnapshot {
    return {
      scopes: this.#scopes,
      scopeCount: this.#scopeCount,
      count: this.#count,
      columns: [this.#scope, this.#trial, this.#turn, this.#taskStart, this.#taskLength, this.#hash],
      units: this.#units,
      unitsUsed: this.#unitsUsed,
      table: this.#table,
    };
  }

  static restore(snapshot: TurnKeysSnapshot): TurnKeys {
    const keys = new TurnKeys();
    keys.#scopes = snapshot.scopes;
    keys.#scopeCount = snapshot.scopeCount;
    keys.#count = snapshot.count;
    [keys.#scope, keys.#trial, keys.#turn, keys.#taskStart, keys.#taskLength, keys.#hash] = snapshot.columns;
    keys.#units = snapshot.units;
    keys.#unitsUsed = snapshot.unitsUsed;
    keys.#table = snapshot.table;
    return keys;
  }

  /** How many distinct keys were added. */
  get size(): number {
    return this.#count;
  }

  /** The slot of `key`, added if new (then it is `size - 1`). */
  slotOf(key: TurnKeyFields): number {
    let surfaces = this.#scopes.get(key.domain);
    if (surfaces === undefined) this.#scopes.set(key.domain, (surfaces = new Map()));
    let scope = surfaces.get(key.surface);
    if (scope === undefined) surfaces.set(key.surface, (scope = this.#scopeCount++));
    const trial = key.trial === '*' ? ANY_TRIAL : key.trial;
    const hash = keyHash(taskHash(scope, key.task), trial, key.turn);
    const found = this.#find(scope, key.task, hash, trial, key.turn);
    if (found !== EMPTY) return found;
    if ((this.#count + 1) * 2 > this.#table.length) this.#rehash(this.#table.length * 2);
    const slot = this.#append(scope, key.task, trial, key.turn, hash);
    this.#place(slot, hash);
    return slot;
  }

  /** The slot of the key with this exact trial, else of its `trial: '*'` key; undefined when neither was added. */
  find(key: TurnKeyFields): number | undefined {
    const scope = this.#scopes.get(key.domain)?.get(key.surface);
    if (scope === undefined) return undefined;
    const hash = taskHash(scope, key.task);
    const trial = key.trial === '*' ? ANY_TRIAL : key.trial;
    let slot = this.#find(scope, key.task, keyHash(hash, trial, key.turn), trial, key.turn);
    if (slot === EMPTY && trial !== ANY_TRIAL)
      slot = this.#find(scope, key.task, keyHash(hash, ANY_TRIAL, key.turn), ANY_TRIAL, key.turn);
    return slot === EMPTY ? undefined : slot;
  }

  #find(scope: number, task: string, hash: number, trial: number, turn: number): number {
    const table = this.#table;
    const mask = table.length - 1;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const slot = table[at]!;
      if (slot === EMPTY) return EMPTY;
      if (
        this.#scope[slot] === scope &&
        this.#trial[slot] === trial &&
        this.#turn[slot] === turn &&
        this.#sameTask(slot, task)
      )
        return slot;
    }
  }

  #sameTask(slot: number, task: string): boolean {
    if (this.#taskLength[slot] !== task.length) return false;
    const start = this.#taskStart[slot]!;
    for (let index = 0; index < task.length; index += 1)
      if (this.#units[start + index] !== task.charCodeAt(index)) return false;
    return true;
  }

  #append(scope: number, task: string, trial: number, turn: number, hash: number): number {
    const slot = this.#count;
    if (slot === this.#scope.length)
      [this.#scope, this.#trial, this.#turn, this.#taskStart, this.#taskLength, this.#hash] = grown(
        [this.#scope, this.#trial, this.#turn, this.#taskStart, this.#taskLength, this.#hash],
        slot * 2,
      );
    if (this.#unitsUsed + task.length > this.#units.length)
      [this.#units] = grown([this.#units], Math.max(this.#units.length * 2, this.#unitsUsed + task.length));
    for (let index = 0; index < task.length; index += 1) this.#units[this.#unitsUsed + index] = task.charCodeAt(index);
    this.#scope[slot] = scope;
    this.#trial[slot] = trial;
    this.#turn[slot] = turn;
    this.#taskStart[slot] = this.#unitsUsed;
    this.#taskLength[slot] = task.length;
    this.#hash[slot] = hash;
    this.#unitsUsed += task.length;
    this.#count += 1;
    return slot;
  }

  #place(slot: number, hash: number): void {
    const table = this.#table;
    const mask = table.length - 1;
    let at = hash & mask;
    while (table[at] !== EMPTY) at = (at + 1) & mask;
    table[at] = slot;
  }

  #rehash(size: number): void {
    this.#table = new Int32Array(size).fill(EMPTY);
    for (let slot = 0; slot < this.#count; slot += 1) this.#place(slot, this.#hash[slot]!);
  }
}

/** FNV-1a over the scope and the task id's code units (the part of a key both lookups of `find` share). */
function taskHash(scope: number, task: string): number {
  let hash = (FNV_OFFSET ^ scope) >>> 0;
  for (let index = 0; index < task.length; index += 1) hash = Math.imul(hash ^ task.charCodeAt(index), FNV_PRIME);
  return hash;
}

function keyHash(hash: number, trial: number, turn: number): number {
  // Trials and turns past 2^32 hash by their low bits (`>>> 0`); they are still compared whole.
  hash = Math.imul(hash ^ (trial >>> 0), FNV_PRIME);
  hash = Math.imul(hash ^ (turn >>> 0), FNV_PRIME);
  // Spread the high bits into the low ones the table masks with.
  return (hash ^ (hash >>> 16)) >>> 0;
}

type Column = Uint8Array | Uint16Array | Uint32Array | Float64Array;

/** Copies of typed arrays in larger ones (the tables here and in cassette-index.ts grow by doubling). */
export function grown<T extends Column[]>(columns: [...T], size: number): T {
  return columns.map((column) => {
    const larger = new (column.constructor as new (size: number) => Column)(size);
    larger.set(column);
    return larger;
  }) as T;
}
