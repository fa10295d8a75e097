import { httpUrlOf, isFailure, redirectTarget } from '../../../src/adapters/http/redirects';

describe('httpUrlOf', () => {
  test.each(['http://docs.example/a.pdf', 'HTTPS://docs.example/a.pdf?x=1'])('when %s is http or https, then it is a URL', (text) => {
    const url = httpUrlOf(text);
    expect(isFailure(url)).toBe(false);
  });

  test.each([
    ['ftp://docs.example/a.pdf', 'UNSUPPORTED_SCHEME'],
    ['file:///etc/passwd', 'UNSUPPORTED_SCHEME'],
    ['gopher://x', 'UNSUPPORTED_SCHEME'],
    ['not a url', 'INVALID_URL'],
  ])('when it is %s, then it is refused (%s), never retryable', (text, reason) => {
    const failure = httpUrlOf(text);
    expect(isFailure(failure) && [failure.reason, failure.retryable]).toEqual([reason, false]);
  });
});

describe('redirectTarget', () => {
  const from = new URL('https://docs.example/files/a.pdf');

  test('when the Location is relative, then it is resolved against the URL that answered', () => {
    expect((redirectTarget(from, '../b.pdf') as URL).href).toBe('https://docs.example/b.pdf');
    expect((redirectTarget(from, ['//cdn.example/c.pdf']) as URL).href).toBe('https://cdn.example/c.pdf');
  });

  test('when the Location is missing or not http, then the redirect is refused', () => {
    expect(redirectTarget(from, undefined)).toMatchObject({ reason: 'INVALID_URL', retryable: false });
    expect(redirectTarget(from, 'file:///etc/passwd')).toMatchObject({ reason: 'UNSUPPORTED_SCHEME', retryable: false });
  });
});
