/** The credential of an `Authorization: Bearer <token>` header (the scheme's name in any case, RFC 9110), if it is one. */
export function bearerToken(authorization: string): string | undefined {
  return /^Bearer +([A-Za-z0-9._~+/-]+=*)$/i.exec(authorization.trim())?.[1];
}
