/*
 * Retrieves one document: an undici GET through the SSRF-guarded agent, redirects followed by
 * hand (at most maxRedirects, each new connection judged by the guard after DNS), the body
 * streamed into a spool file with its size capped and its SHA-256 computed on the way. Never
 * throws for the source's faults: those are FetchFailures. Throws only when the spool cannot be
 * written (the machine's fault: the record is read again).
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request, type Dispatcher } from 'undici';
import { createSsrfGuardedAgent } from '@hookstream/runtime';
import { FailureReasons, failureOf, httpFailure, type FetchFailure } from '../../domain/fetch-failure';
import type { SpooledDocument } from '../../domain/document';
import type { Spool } from '../storage/spool';
import { BodyTooLargeError, failureOfError } from './failure-of-error';
import { REDIRECT_STATUSES, httpUrlOf, isFailure, redirectTarget } from './redirects';

export interface DocumentDownloadOptions {
  /** Longest wait for a TCP/TLS connection, in ms. */
  connectTimeoutMs: number;
  /** Longest a whole retrieval may take, redirects, headers and body included, in ms. */
  totalTimeoutMs: number;
  /** Largest body accepted, in bytes. */
  maxBytes: number;
  /** Most redirects followed. */
  maxRedirects: number;
  /** Keep-alive connections per origin. */
  connectionsPerOrigin: number;
  /** The SSRF guard's policy: the SSRF_ALLOW ranges. */
  ssrf: Parameters<typeof createSsrfGuardedAgent>[0]['policy'];
}

export type Retrieval = { kind: 'retrieved'; document: SpooledDocument } | { kind: 'failed'; failure: FetchFailure };

const USER_AGENT = 'hookstream-document-fetcher/1';

export class DocumentDownload {
  private readonly dispatcher: Dispatcher;

  constructor(
    private readonly options: DocumentDownloadOptions,
    private readonly spool: Spool,
  ) {
    this.dispatcher = createSsrfGuardedAgent({
      policy: options.ssrf,
      connectTimeoutMs: options.connectTimeoutMs,
      connections: options.connectionsPerOrigin,
    });
  }

  async retrieve(sourceUrl: string): Promise<Retrieval> {
    const failed = (failure: FetchFailure): Retrieval => ({ kind: 'failed', failure });
    const { totalTimeoutMs, maxBytes, maxRedirects } = this.options;
    const signal = AbortSignal.timeout(totalTimeoutMs);
    let url = httpUrlOf(sourceUrl);
    try {
      for (let redirects = 0; ; redirects++) {
        if (isFailure(url)) return failed(url);
        const response = await request(url, {
          method: 'GET',
          dispatcher: this.dispatcher,
          signal,
          headers: { 'user-agent': USER_AGENT, accept: '*/*' },
          headersTimeout: totalTimeoutMs,
          bodyTimeout: totalTimeoutMs,
        });
        const { statusCode, headers, body } = response;
        if (REDIRECT_STATUSES.has(statusCode)) {
          await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          if (redirects >= maxRedirects) {
            return failed(failureOf(FailureReasons.tooManyRedirects, `more than ${maxRedirects} redirects from ${sourceUrl}`));
          }
          url = redirectTarget(url, headers.location);
          continue;
        }
        if (statusCode !== 200) {
          await body.dump({ limit: 64 * 1024 }).catch(() => undefined);
          return failed(httpFailure(statusCode));
        }
        const declared = Number(headers['content-length']);
        if (Number.isFinite(declared) && declared > maxBytes) {
          body.destroy();
          return failed(failureOf(FailureReasons.tooLarge, `Content-Length ${declared} is over the ${maxBytes}-byte cap`));
        }
        const contentType = typeof headers['content-type'] === 'string' ? headers['content-type'] : null;
        return { kind: 'retrieved', document: await this.spoolBody(body, signal, contentType) };
      }
    } catch (error) {
      if (error instanceof SpoolWriteError) throw error.cause;
      return failed(failureOfError(error, signal.aborted, totalTimeoutMs));
    }
  }

  async close(): Promise<void> {
    // In-flight retrievals belong to records handed back on shutdown: they are not waited for.
    await this.dispatcher.destroy();
  }

  /** Streams the body into a new spool file, counting and hashing; removes the file on any failure. */
  private async spoolBody(body: NodeJS.ReadableStream, signal: AbortSignal, contentType: string | null): Promise<SpooledDocument> {
    const path = this.spool.newFile();
    const hash = createHash('sha256');
    let sizeBytes = 0;
    const maxBytes = this.options.maxBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        sizeBytes += chunk.length;
        if (sizeBytes > maxBytes) return done(new BodyTooLargeError(maxBytes));
        hash.update(chunk);
        done(null, chunk);
      },
    });
    const file = createWriteStream(path, { flags: 'wx' });
    let spoolError: unknown;
    file.once('error', (error) => (spoolError = error));
    try {
      await pipeline(body, counter, file, { signal });
    } catch (error) {
      await this.spool.discard(path);
      // The file stream also sees the body's errors (pipeline destroys it with them); only its own system errors are the spool's.
      if ((spoolError as { syscall?: string } | undefined)?.syscall !== undefined) throw new SpoolWriteError(spoolError);
      throw error;
    }
    return { path, sha256: hash.digest('hex'), sizeBytes, contentType };
  }
}

/** The spool could not be written: not the source's fault. */
class SpoolWriteError extends Error {
  constructor(override readonly cause: unknown) {
    super('the spool file could not be written');
  }
}
