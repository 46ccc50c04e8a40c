/** What the local runtime's end-to-end tests share. */

/** The demo merchant's API token the tests start the runtime with (DEMO_API_TOKEN). */
export const demoToken = `demo-token-${'x'.repeat(20)}`;

/** A JSON POST with the merchant's token header. */
export const post = (url: string, token: string, body: unknown) => fetch(url, { method: 'POST', headers: { token, 'content-type': 'application/json' }, body: JSON.stringify(body) });
