/**
 * An application/x-www-form-urlencoded body as name -> value, or undefined when it is not one
 * (a repeated name is refused: a signed form names each parameter once).
 */
export function readFormBody(body: string): Record<string, string> | undefined {
  if (body.trim() === '' || body.trimStart().startsWith('{')) return undefined;
  const params: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(params, name)) return undefined;
    params[name] = value;
  }
  return params;
}
