/**
 * A strict reader of the YAML subset the example manifests use (block maps and lists indented by two
 * spaces, plain and double-quoted scalars, `[…]` lists of quoted strings, `{}`, `#` comments, `---`
 * between documents), so that a test can check a manifest's structure without a YAML dependency. Anything
 * outside the subset (tabs, odd indentation, anchors, multi-line strings) throws, naming the line.
 */

type Value = string | number | boolean | Value[] | { [key: string]: Value };

interface Line {
  readonly n: number;
  readonly indent: number;
  readonly text: string;
}

function scalar(text: string, n: number): Value {
  if (text === '{}') return {};
  if (text.startsWith('[') || text.startsWith('"')) {
    try {
      return JSON.parse(text) as Value;
    } catch {
      throw new Error(`line ${n}: not a JSON-compatible flow value: ${text}`);
    }
  }
  if (/^[&*!|>]/.test(text)) throw new Error(`line ${n}: outside the subset: ${text}`);
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?\d+$/.test(text)) return Number(text);
  return text;
}

function block(lines: readonly Line[], from: number, indent: number): [Value, number] {
  const first = lines[from]!;
  if (first.indent !== indent) throw new Error(`line ${first.n}: indented ${first.indent}, expected ${indent}`);
  if (first.text.startsWith('- ')) {
    const list: Value[] = [];
    let i = from;
    while (i < lines.length && lines[i]!.indent === indent && lines[i]!.text.startsWith('- ')) {
      const rest = lines[i]!.text.slice(2);
      if (/^[A-Za-z_][\w.-]*:( |$)/.test(rest)) {
        // `- key: value` opens a map whose other keys sit two columns further in.
        const shifted = [...lines.slice(0, i), { n: lines[i]!.n, indent: indent + 2, text: rest }, ...lines.slice(i + 1)];
        const [item, next] = block(shifted, i, indent + 2);
        list.push(item);
        i = next;
      } else {
        list.push(scalar(rest, lines[i]!.n));
        i += 1;
      }
    }
    return [list, i];
  }
  const map: { [key: string]: Value } = {};
  let i = from;
  while (i < lines.length && lines[i]!.indent === indent) {
    const { n, text } = lines[i]!;
    const m = /^([A-Za-z_][\w.-]*):(?: (.*))?$/.exec(text);
    if (m === null) throw new Error(`line ${n}: not "key: value": ${text}`);
    if (m[1]! in map) throw new Error(`line ${n}: key ${m[1]} twice`);
    if (m[2] !== undefined && m[2] !== '') {
      map[m[1]!] = scalar(m[2], n);
      i += 1;
    } else {
      if (i + 1 >= lines.length || lines[i + 1]!.indent <= indent) throw new Error(`line ${n}: ${m[1]} has no value`);
      [map[m[1]!], i] = block(lines, i + 1, lines[i + 1]!.indent);
    }
  }
  if (i < lines.length && lines[i]!.indent > indent) throw new Error(`line ${lines[i]!.n}: unexpected indentation`);
  return [map, i];
}

/**
 * Parses every document of `text`.
 *
 * @example
 * ```ts
 * const [deployment] = parseYamlSubset(readFileSync('kubernetes.yaml', 'utf8'));
 * ```
 */
export function parseYamlSubset(text: string): Array<{ [key: string]: Value }> {
  const docs: Line[][] = [[]];
  text.split('\n').forEach((raw, i) => {
    if (raw.includes('\t')) throw new Error(`line ${i + 1}: a tab`);
    if (raw.trim() === '---') return void docs.push([]);
    const text = raw.replace(/(^|\s)#.*$/, '').trimEnd();
    if (text.trim() === '') return;
    const indent = text.length - text.trimStart().length;
    if (indent % 2 !== 0) throw new Error(`line ${i + 1}: indented by an odd number of spaces`);
    docs.at(-1)!.push({ n: i + 1, indent, text: text.trim() });
  });
  return docs.filter((d) => d.length > 0).map((lines) => {
    const [value, end] = block(lines, 0, 0);
    if (end !== lines.length) throw new Error(`line ${lines[end]!.n}: left over`);
    return value as { [key: string]: Value };
  });
}
