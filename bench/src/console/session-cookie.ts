/**
 * A console session opened from Node as the sign-in form opens it (POST /console/session with the
 * partner's API key), for the bench's own requests to carry the cookie the browser would.
 */

/** The Cookie header of a new session for the partner whose API key is `apiKey`. */
export async function sessionCookie(baseUrl: string, apiKey: string): Promise<string> {
  const response = await fetch(`${baseUrl}/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  const [setCookie] = response.headers.getSetCookie();
  if (response.status !== 201 || !setCookie) throw new Error(`POST /console/session answered ${response.status}: ${await response.text()}`);
  return setCookie.split(';')[0]!;
}
