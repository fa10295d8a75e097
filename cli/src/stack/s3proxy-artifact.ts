import { existsSync, readdirSync, renameSync } from 'node:fs';
import path from 'node:path';
import { StackError } from '@hookstream/errors';
import { fillOnce, mavenCopy, type FetchedArtifact } from './artifacts';
import { STACK_VERSIONS } from './versions';

/** The S3Proxy jar in the cache: `<dir>/s3proxy.jar`. */
export interface S3ProxyArtifact extends FetchedArtifact {
  jar: string;
}

/**
 * S3Proxy (`org.gaul:s3proxy`, the jar with its dependencies, from Maven Central), fetched once
 * into the project's cache as the broker and the registry are: a real S3 API on this machine's
 * Java (17+) for the document store's tests. Docker users get MinIO in docker-compose.yml instead.
 */
export async function ensureS3Proxy(cacheDir: string, signal?: AbortSignal): Promise<S3ProxyArtifact> {
  const dir = path.join(cacheDir, `s3proxy-${STACK_VERSIONS.s3proxy}`);
  const cached = existsSync(path.join(dir, '.complete'));
  await fillOnce(dir, async (work) => {
    const artifact = `org.gaul:s3proxy:${STACK_VERSIONS.s3proxy}:jar:jar-with-dependencies`;
    await mavenCopy(artifact, work, signal);
    const jar = readdirSync(work).find((f) => f.endsWith('.jar'));
    if (!jar) throw new StackError(`Maven finished but ${artifact} is missing`);
    renameSync(path.join(work, jar), path.join(work, 's3proxy.jar'));
  });
  return { dir, cached, jar: path.join(dir, 's3proxy.jar') };
}
