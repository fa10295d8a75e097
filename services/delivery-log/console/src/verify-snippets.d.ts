/** The verification snippets of examples/verify, by method and language (built in by build.mjs's verify-snippets plugin). */
declare module 'virtual:verify-snippets' {
  export const snippets: Record<string, { node?: string; python?: string; java?: string }>;
}
