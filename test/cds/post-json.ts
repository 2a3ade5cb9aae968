/**
 * Test helper of the CDS tests: POST a JSON body and read status, headers and the parsed answer.
 * @module
 */

/** A parsed answer. */
export interface PostedReply {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * POSTs JSON (or any text with the given content type) and returns status, headers and parsed body.
 *
 * @example
 * ```ts
 * const { status, body } = await post(`${baseUrl}/cds-services/greet`, request);
 * ```
 */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<PostedReply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text === '' ? undefined : JSON.parse(text) };
}
