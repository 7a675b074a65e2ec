/**
 * A small, strict XML reader for tests: checks well-formedness (one root,
 * balanced tags, only the five entities and numeric references, no raw `<`
 * or `&` in text) and returns the element tree. Independent of the code
 * under test, so junit.xml is parsed back rather than pattern-matched.
 */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decode(raw: string, where: string): string {
  if (/<|&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-f]+);)/i.test(raw))
    throw new Error(`unescaped markup in ${where}: ${raw.slice(0, 80)}`);
  return raw.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (_, entity: string) =>
    entity.startsWith('#x')
      ? String.fromCodePoint(parseInt(entity.slice(2), 16))
      : entity.startsWith('#')
        ? String.fromCodePoint(Number(entity.slice(1)))
        : ENTITIES[entity]!,
  );
}

export function parseXml(xml: string): XmlElement {
  let body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: XmlElement[] = [];
  let root: XmlElement | null = null;
  const tag = /<(\/?)([A-Za-z_][\w.-]*)((?:\s+[\w:.-]+\s*=\s*"[^"]*")*)\s*(\/?)>/y;
  let index = 0;
  while (index < body.length) {
    const next = body.indexOf('<', index);
    const text = body.slice(index, next === -1 ? body.length : next);
    if (text.trim()) {
      if (stack.length === 0) throw new Error(`text outside the root element: ${text.slice(0, 40)}`);
      stack.at(-1)!.text += decode(text, 'text');
    }
    if (next === -1) break;
    tag.lastIndex = next;
    const match = tag.exec(body);
    if (!match) throw new Error(`malformed tag at ${next}: ${body.slice(next, next + 60)}`);
    const [, closing, name, rawAttributes, selfClosing] = match;
    index = tag.lastIndex;
    if (closing) {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes <${open?.name}>`);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const attribute of rawAttributes!.matchAll(/([\w:.-]+)\s*=\s*"([^"]*)"/g)) {
      if (attribute[1]! in attributes) throw new Error(`duplicate attribute ${attribute[1]}`);
      attributes[attribute[1]!] = decode(attribute[2]!, `attribute ${attribute[1]}`);
    }
    const element: XmlElement = { name: name!, attributes, children: [], text: '' };
    if (stack.length > 0) stack.at(-1)!.children.push(element);
    else if (root) throw new Error('second root element');
    else root = element;
    if (!selfClosing) stack.push(element);
  }
  body = '';
  if (stack.length > 0) throw new Error(`unclosed <${stack.at(-1)!.name}>`);
  if (!root) throw new Error('no root element');
  return root;
}

/** All descendants with this element name. */
export function findAll(element: XmlElement, name: string): XmlElement[] {
  return element.children.flatMap((child) => [...(child.name === name ? [child] : []), ...findAll(child, name)]);
}
