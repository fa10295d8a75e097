/**
 * The rule for a document's `url` (spec 2.2: "publicly accessible URL"), as one regular
 * expression that is both the server's whole check and the OpenAPI `pattern`, so the published
 * schema and the server cannot disagree (the unit tests run both over a table and random URLs).
 *
 * An absolute http(s) URL, taken as sent:
 * - scheme http or https (any case), then "//";
 * - host: a DNS name (labels of ASCII letters, digits, "-" and "_", at most 63 characters, not
 *   starting or ending with "-"; the last label starts with a letter; an optional final dot), an
 *   IPv4 address in dotted decimal (0-255, no leading zeros) or an IPv6 address in brackets
 *   (RFC 3986, no zone). An internationalised name is sent in its xn-- form: a Unicode host
 *   means different hosts to clients that implement different IDNA versions ("faß.de");
 * - no user name or password (spec: the URL is public);
 * - an optional port, 1-65535 without leading zeros;
 * - then nothing, or "/", "?" or "#" and any characters except whitespace, controls, invisible
 *   formatting characters and "\".
 * Every URL of that shape is also one the WHATWG URL parser accepts with the same host and port
 * (tested). Most of what is excluded is read differently from what was sent by such parsers: they
 * strip whitespace and controls, turn "\" into "/", read "http://010.1.1.1" as 8.1.1.1, treat a
 * name ending in a number as an IPv4 address, and repair "http:x" or "http:\\x" into URLs.
 * Invisible characters make one URL look like another (zero-width, right-to-left override).
 *
 * Only ECMA-262 syntax every JSON Schema validator knows (no lookaround, no \p{…}), and only
 * characters of the Basic Multilingual Plane, so the verdict is the same with or without the
 * regular expression "u" flag (ajv uses it; tested both ways).
 */

/** 0-255, no leading zeros. */
const DEC_OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const IPV4 = `${DEC_OCTET}(?:\\.${DEC_OCTET}){3}`;
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
/** The nine forms of RFC 3986 section 3.2.2, "::" standing for the longest run of zero groups. */
const IPV6 = [
  `(?:${H16}:){6}${LS32}`,
  `::(?:${H16}:){5}${LS32}`,
  `(?:${H16})?::(?:${H16}:){4}${LS32}`,
  `(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}`,
  `(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}`,
  `(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}`,
  `(?:(?:${H16}:){0,4}${H16})?::${LS32}`,
  `(?:(?:${H16}:){0,5}${H16})?::${H16}`,
  `(?:(?:${H16}:){0,6}${H16})?::`,
].join('|');
const LABEL = '[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
/** The last label starts with a letter: one ending in a number ("a.1", "a.0x1") is read as IPv4 by WHATWG parsers. */
const LAST_LABEL = '[A-Za-z](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?';
const HOST = `(?:\\[(?:${IPV6})\\]|${IPV4}|(?:${LABEL}\\.)*${LAST_LABEL}\\.?)`;
const PORT = '(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})';

/**
 * Characters refused anywhere after the host: controls (Unicode Cc: U+0000-U+001F, U+007F-U+009F),
 * whitespace (Unicode White_Space: U+0020, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000), invisible formatting characters (soft hyphen U+00AD, U+180E,
 * zero-width and direction marks U+200B-U+200F, U+202A-U+202E, U+2060-U+206F, U+FEFF) and "\".
 */
export const URL_REFUSED_CHARACTERS =
  '\\x00-\\x20\\x5c\\x7f-\\xa0\\xad\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f\\u205f-\\u206f\\u3000\\ufeff';

export const DOCUMENT_URL_PATTERN = `^[Hh][Tt][Tt][Pp][Ss]?://${HOST}(?::${PORT})?(?:[/?#][^${URL_REFUSED_CHARACTERS}]*)?$`;

/** Longest url accepted, in characters (Unicode code points, as JSON Schema's maxLength counts). */
export const DOCUMENT_URL_MAX_LENGTH = 2048;

const documentUrlShape = new RegExp(DOCUMENT_URL_PATTERN, 'u');

/** Whether `value` is a document url by the rule above (its length is checked apart). */
export const isDocumentUrl = (value: string): boolean => documentUrlShape.test(value);
