/**
 * The model sees a trial's temporary folder under a fixed path (`shown_as`,
 * e.g. `/workspace`), so results and recorded requests are the same on every
 * machine and in every trial. Arguments are mapped in, results out, string
 * by string.
 */
export interface PathView {
  toServer(value: unknown): unknown;
  toModel<T>(value: T): T;
}

function mapStrings(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => mapStrings(item, map));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, map)]));
  return value;
}

/** The identity view (no workdir, or no `shown_as`). */
export const SAME_PATHS: PathView = { toServer: (value) => value, toModel: (value) => value };

/** A view of `real` as `shown`. */
export function pathView(real: string, shown: string): PathView {
  const shownBase = shown.replace(/\/+$/, '');
  return {
    toServer: (value) =>
      mapStrings(value, (text) =>
        text === shownBase || text.startsWith(`${shownBase}/`) ? real + text.slice(shownBase.length) : text,
      ),
    toModel: <T>(value: T) => mapStrings(value, (text) => text.split(real).join(shownBase)) as T,
  };
}
