/**
 * The namespace bindings in scope while an XML document is read, one stack per prefix.
 * @module
 */

/**
 * Answers "which URI does this prefix mean here" in constant time. Walking the open elements' declarations
 * innermost first, as `saxes` does, costs each element and attribute a step per open ancestor: a body of
 * elements nested 250 deep took about a second per MiB, several times a flat one.
 */
export class NamespaceScope {
  readonly #bound = new Map<string, string[]>();
  /** The prefixes each open element declared (`undefined`: none), innermost last. */
  readonly #frames: (string[] | undefined)[] = [];

  /** An element opens: the declarations that follow are its own, until {@link NamespaceScope.leave}. */
  enter(): void {
    this.#frames.push(undefined);
  }

  /** Binds `prefix` (`''`: the default namespace) for the innermost open element, or for good outside any. */
  declare(prefix: string, uri: string): void {
    let stack = this.#bound.get(prefix);
    if (stack === undefined) this.#bound.set(prefix, (stack = []));
    stack.push(uri);
    const depth = this.#frames.length;
    if (depth > 0) (this.#frames[depth - 1] ??= []).push(prefix);
  }

  /** The innermost open element closes: its declarations go out of scope. */
  leave(): void {
    const declared = this.#frames.pop();
    if (declared !== undefined) for (const prefix of declared) this.#bound.get(prefix)!.pop();
  }

  /** The URI `prefix` is bound to here, or `undefined`. */
  lookup(prefix: string): string | undefined {
    const stack = this.#bound.get(prefix);
    return stack === undefined ? undefined : stack[stack.length - 1];
  }
}
